"""High Card's players: the random one every game has, and one that plays its best card."""

from __future__ import annotations

import random
from collections.abc import Sequence

from p2pcards.bots.random_bot import RandomBot
from third_game.rules import Action, SeatView, strength


class HighestBot:
    name = "heuristic"

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        return max(legal, key=lambda a: strength(a.card))


BOTS = {"random": RandomBot, "heuristic": HighestBot}
