"""Shared test helpers; the one automatic fixture keeps every test out of the real data directory,
and Ctrl-C works in every program the tests start."""

from __future__ import annotations

import os
import signal
from collections.abc import Callable

import pytest
from hypothesis import settings

from p2pcards.games.nines.rules import HandState

# Property tests draw the same examples on every run, so that the suite (and the
# continuous integration that gates every change) gives the same verdict twice;
# HYPOTHESIS_PROFILE=explore draws fresh ones, as does `-m fuzz` at a larger budget.
# No example has a deadline: a busy machine makes a test slower, never wrong (speed is
# measured by scripts/bench.py, not asserted).
settings.register_profile("repeatable", derandomize=True, print_blob=True, deadline=None)
settings.register_profile("explore", derandomize=False, print_blob=True, deadline=None)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "repeatable"))

# A shell without job control starts a command put in the background (`scripts/test &`)
# with Ctrl-C and Ctrl-\ ignored, and every program the tests start would inherit that:
# the tests of what Ctrl-C does would then wait for nothing. Take them back.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
if hasattr(signal, "SIGQUIT") and signal.getsignal(signal.SIGQUIT) is signal.SIG_IGN:
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


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


@pytest.fixture(autouse=True)
def _private_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """Identities, names and transcripts that a test makes land in a temporary folder."""
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path_factory.mktemp("p2pcards-home")))
    monkeypatch.setenv("P2PCARDS_NO_PORT_MAPPING", "1")  # the machine's router is not asked in tests


@pytest.fixture(scope="session")
def snapshot() -> Callable[[HandState], dict[str, object]]:
    return snapshot_hand
