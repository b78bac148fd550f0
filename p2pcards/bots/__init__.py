"""Strategies that choose a move from one seat's view (never hidden cards).

Each game lists its strategies in its folder (the ``bots`` part of its
:class:`~p2pcards.games.base.Parts`); :func:`make_bot` finds them by name.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, TypeVar

from p2pcards.errors import UsageError
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
    """The strategy called ``name`` (see :data:`BOT_NAMES`) for ``game``."""
    factories: Mapping[str, Callable[[], Strategy[Any, Any]]] = load(game_named(game).parts.bots)
    try:
        return factories[name]()
    except KeyError:
        raise UsageError(f"unknown bot {name!r}; choose from {', '.join(BOT_NAMES)}") from None


BOT_NAMES = ("heuristic", "random")
"""The strategies every game offers."""
