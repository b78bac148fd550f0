"""Strategies that choose a move from one seat's view (never hidden cards).

Each game lists its strategies in its folder (the ``bots`` part of its
:class:`~p2pcards.games.base.Parts`), and its side of the ``expert``'s search
(the ``expert`` part); :func:`make_bot` finds them by name.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from p2pcards.bots.words import bot_error
from p2pcards.games.base import game as game_named
from p2pcards.games.base import load

V_contra = TypeVar("V_contra", contravariant=True)
A = TypeVar("A")


class Strategy(Protocol[V_contra, A]):
    """A player of one game: ``V_contra`` is what a seat sees, ``A`` a move."""

    name: str

    def choose(self, view: V_contra, legal: Sequence[A], rng: random.Random) -> A:
        """Pick one of ``legal`` (never empty) using only ``view``."""
        ...


def make_bot(name: str, game: str = "nines") -> Strategy[Any, Any]:
    """The strategy called ``name`` (see :data:`BOT_NAMES`) for ``game``.

    ``expert`` takes a thinking budget after a colon: ``expert:0.5`` thinks half a
    second a move, ``expert:300i`` searches 300 deals a move (the same every time).
    """
    base, colon, budget = name.partition(":")
    parts = game_named(game).parts
    if base == "expert" and parts.expert is not None:
        from p2pcards.bots.expert import Budget

        spec = Budget.parse(budget) if colon else Budget()
        make_expert: Callable[[Budget, str], Strategy[Any, Any]] = load(parts.expert)
        return make_expert(spec, name)
    factories: Mapping[str, Callable[[], Strategy[Any, Any]]] = load(parts.bots)
    try:
        if colon or not base:
            raise KeyError(name)
        return factories[name]()
    except KeyError:
        raise bot_error("bot_err_unknown", name=repr(name), known=", ".join(BOT_NAMES)) from None


def check_bot(name: str) -> str:
    """``name`` if it names a strategy (UsageError saying which ones do, otherwise).

    One of :data:`BOT_NAMES` (and an expert's budget) is checked by its name, without
    loading a game's bots or search: a node checks ``--bot`` before its lobby, and makes
    the strategy when the match starts. Any other name is checked by making it."""
    base, colon, budget = name.partition(":")
    if base in BOT_NAMES and not colon:
        return name
    if base == "expert":
        from p2pcards.bots.expert import Budget

        Budget.parse(budget)
        return name
    make_bot(name)
    return name


BOT_NAMES = ("heuristic", "random", "expert")
"""The strategies every game that comes with p2pcards offers (``expert`` also as
``expert:SECONDS`` or ``expert:DEALSi``)."""

LEVELS = {"easy": "random", "normal": "heuristic", "hard": "expert"}
"""The difficulty a person chooses, and the strategy that plays it."""
