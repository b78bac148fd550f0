"""Shared test helpers (fixtures only; nothing here runs automatically)."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from p2pcards.games.nines import HandState


def _freeze(value: object) -> object:
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    return value


def snapshot_hand(hand: HandState) -> dict[str, object]:
    """Every slot of a hand (private ones included), as immutable values.

    Two snapshots compare equal exactly when nothing about the hand changed, so
    a test can show that a rejected action left the state as it was.
    """
    return {name: _freeze(getattr(hand, name)) for name in HandState.__slots__}


@pytest.fixture(scope="session")
def snapshot() -> Callable[[HandState], dict[str, object]]:
    return snapshot_hand
