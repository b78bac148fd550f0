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
    """The strategy called ``name`` (see :data:`BOT_NAMES`) for ``game``."""
    factories: dict[str, Callable[[], Strategy]] = _factories(game)
    try:
        return factories[name]()
    except KeyError:
        raise UsageError(f"unknown bot {name!r}; choose from {', '.join(BOT_NAMES)}") from None


def _factories(game: str) -> dict[str, Callable[[], Strategy]]:
    if game == "neuf":
        from p2pcards.bots.neuf import NeufHeuristicBot, NeufRandomBot

        return {"random": NeufRandomBot, "heuristic": NeufHeuristicBot}  # type: ignore[dict-item]
    from p2pcards.bots.heuristic import HeuristicBot
    from p2pcards.bots.random_bot import RandomBot

    return {"random": RandomBot, "heuristic": HeuristicBot}


BOT_NAMES = ("heuristic", "random")
"""The strategies every game offers."""
