"""Strategies that choose a move from one seat's view (never hidden cards)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Protocol

from p2pcards.errors import UsageError
from p2pcards.games.nines import Action, SeatView


class Strategy(Protocol):
    name: str

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        """Pick one of ``legal`` (never empty) using only ``view``."""
        ...


def make_bot(name: str, game: str = "nines") -> Strategy:
    """The strategy called ``name`` (see :data:`BOT_NAMES`) for ``game``.

    ``expert`` takes a thinking budget after a colon: ``expert:0.5`` thinks half a
    second a move, ``expert:300i`` searches 300 deals a move (the same every time).
    """
    base, colon, budget = name.partition(":")
    if base == "expert":
        from p2pcards.bots.expert import Budget

        spec = Budget.parse(budget) if colon else Budget()
        if game == "neuf":
            from p2pcards.bots.expert_neuf import make_expert
        else:
            from p2pcards.bots.expert_nines import make_expert
        return make_expert(spec, name)  # type: ignore[return-value]
    factories: dict[str, Callable[[], Strategy]] = _factories(game)
    try:
        if colon or not base:
            raise KeyError(name)
        return factories[name]()
    except KeyError:
        raise UsageError(f"unknown bot {name!r}; choose from {', '.join(BOT_NAMES)}") from None


def check_bot(name: str) -> str:
    """``name`` if it names a strategy (UsageError saying which ones do, otherwise)."""
    make_bot(name)
    return name


def _factories(game: str) -> dict[str, Callable[[], Strategy]]:
    if game == "neuf":
        from p2pcards.bots.neuf import NeufHeuristicBot, NeufRandomBot

        return {"random": NeufRandomBot, "heuristic": NeufHeuristicBot}  # type: ignore[dict-item]
    from p2pcards.bots.heuristic import HeuristicBot
    from p2pcards.bots.random_bot import RandomBot

    return {"random": RandomBot, "heuristic": HeuristicBot}


BOT_NAMES = ("heuristic", "random", "expert")
"""The strategies every game offers (``expert`` also as ``expert:SECONDS`` or ``expert:ITERATIONSi``)."""

LEVELS = {"easy": "random", "normal": "heuristic", "hard": "expert"}
"""The difficulty a person chooses, and the strategy that plays it."""
