"""What a table tells its consumers, in order: the events of a match as this node saw it.

In the style of h11's ``next_event()``: the table hands out typed events and its
consumers (the terminal view, a recorder, tests) read them instead of diffing
the table's state. Game objects (a hand, a move, a result) travel as the
game's own types; this module names none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from p2pcards.cards import Card


@dataclass(frozen=True, slots=True)
class CutDone:
    """The cut for the first deal: every round of cards shown, and the first dealer."""

    rounds: Sequence[Sequence[tuple[int, Card]]]
    dealer: int


@dataclass(frozen=True, slots=True)
class HandStarted:
    """A hand was dealt: ``hand`` is this seat's replica (hidden cards are None)."""

    hand: Any
    number: int
    playoff: bool


@dataclass(frozen=True, slots=True)
class Moved:
    """A move, as the game logged it (a drawn card is named only to its drawer)."""

    action: Any


@dataclass(frozen=True, slots=True)
class HandEnded:
    """A hand was verified with every secret revealed: its full-information replay,
    its result, and the match after it."""

    hand: Any
    result: Any
    match: Any


@dataclass(frozen=True, slots=True)
class MatchOver:
    """Every seat signed the same result."""

    match: Any


@dataclass(frozen=True, slots=True)
class Continued:
    """The match goes on at a new table without seats that left: their old seats and
    names, why, the hands of the old table that count, and the totals the new
    table starts from (by new seat: the old seats in order, without the leavers)."""

    left: tuple[int, ...]
    names: tuple[str, ...]
    reason: str
    hands: int
    totals: tuple[int, ...]


Event = CutDone | HandStarted | Moved | HandEnded | MatchOver | Continued
