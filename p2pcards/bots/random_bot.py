"""The baseline for every game: a uniformly random legal move."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
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


def picker(rng: random.Random) -> Callable[[Sequence[A]], A]:
    """``RandomBot().choose(view, legal, rng)`` as ``pick(legal)``: the same draws from ``rng``,
    for a loop whose seats are all random bots (``MatchLoop.pick``), which then builds no
    view and makes one call a move."""
    if type(rng) is not random.Random:
        return lambda legal: legal[rng.randrange(len(legal))]
    getrandbits = rng.getrandbits
    top = len(BIT_LENGTH)

    def pick(legal: Sequence[A]) -> A:
        n = len(legal)
        if n >= top:
            return legal[rng.randrange(n)]
        k = BIT_LENGTH[n]
        r = getrandbits(k)
        while r >= n:
            r = getrandbits(k)
        return legal[r]

    return pick
