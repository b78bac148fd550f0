"""The baseline: a uniformly random legal move."""

from __future__ import annotations

import random
from collections.abc import Sequence

from p2pcards.games.nines import Action, SeatView


class RandomBot:
    name = "random"

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        return legal[rng.randrange(len(legal))]
