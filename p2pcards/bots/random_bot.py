"""The baseline for every game: a uniformly random legal move."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import TypeVar

A = TypeVar("A")


class RandomBot:
    """Any game's random player: it needs nothing of the view, only the legal moves."""

    name = "random"

    def choose(self, view: object, legal: Sequence[A], rng: random.Random) -> A:
        return legal[rng.randrange(len(legal))]
