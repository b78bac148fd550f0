"""The baseline for every game: a uniformly random legal move."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

from p2pcards.games.base import BIT_LENGTH

A = TypeVar("A")


class RandomBot:
    """Any game's random player: it needs nothing of the view, only the legal moves."""

    name = "random"

    def choose(self, view: object, legal: Sequence[A], rng: random.Random) -> A:
        n = len(legal)
        if type(rng) is not random.Random or n >= len(BIT_LENGTH):
            return legal[rng.randrange(n)]
        # rng.randrange(n) itself, the same draws, without its argument checks (one call a move)
        k = BIT_LENGTH[n]
        r = rng.getrandbits(k)
        while r >= n:
            r = rng.getrandbits(k)
        return legal[r]
