"""The baseline for every game: a uniformly random legal move."""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Sequence
from typing import TypeVar

from p2pcards.games.base import BIT_LENGTH

A = TypeVar("A")


def draw(rng: random.Random, legal: Sequence[A]) -> A:
    """One of ``legal``, drawn as ``rng.randrange(len(legal))`` would draw it (the same bits),
    without its argument checks: a random player's whole cost, once a move."""
    n = len(legal)
    if type(rng) is not random.Random or n >= len(BIT_LENGTH):
        return legal[rng.randrange(n)]
    k = BIT_LENGTH[n]
    r = rng.getrandbits(k)
    while r >= n:
        r = rng.getrandbits(k)
    return legal[r]


class RandomBot:
    """Any game's random player: it needs nothing of the view, only the legal moves."""

    name = "random"

    def choose(self, view: object, legal: Sequence[A], rng: random.Random) -> A:
        return draw(rng, legal)


def picker(rng: random.Random) -> Callable[[Sequence[A]], A]:
    """``RandomBot().choose(view, legal, rng)`` as ``pick(legal)``: the same draws from ``rng``,
    for a loop whose seats are all random bots (``MatchLoop.pick``), which then builds no
    view and makes one call a move."""
    return functools.partial(draw, rng)
