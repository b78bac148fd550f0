"""The baseline: a uniformly random legal move."""

from __future__ import annotations

import random
from collections.abc import Sequence

from p2pcards.games.base import BIT_LENGTH
from p2pcards.games.nines import Action, SeatView


class RandomBot:
    name = "random"

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        n = len(legal)
        if type(rng) is not random.Random or n >= len(BIT_LENGTH):
            return legal[rng.randrange(n)]
        # rng.randrange(n) itself, the same draws, without its argument checks (one call a move)
        k = BIT_LENGTH[n]
        r = rng.getrandbits(k)
        while r >= n:
            r = rng.getrandbits(k)
        return legal[r]
