"""A table of one person and bots waits for that person: a day a turn, not the host's clock.

Real tables on 127.0.0.1 (every seat is driven by a bot decider; ``NodeConfig.bot`` is what
each node says about its seat), and the ``hello.bot`` / ``start.clock`` fields on the wire.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import pytest
import trio
from net_helpers import FAST, RecordingUI, config, join_seat, start_host

from p2pcards.games.nines.rules import NinesRules
from p2pcards.net import session
from p2pcards.net.node import NodeConfig, Outcome
from p2pcards.net.session import PATIENT, Timeouts, final_clock
from p2pcards.protocol.lobby import (
    LOBBY_VERSION,
    Hello,
    Start,
    decode_lobby,
    decode_lobby_object,
    encode_lobby,
)
from p2pcards.protocol.messages import MAX_CLOCK, Body
from p2pcards.protocol.wire import WireError

ONE_HAND = NinesRules(hands=1)
KEY = bytes(range(32))
NONCE = bytes(32)


@dataclass
class ClockUI(RecordingUI):
    """Also keeps the timeouts each node was told to play by (``table_clock``)."""

    clocks: list[Timeouts] = field(default_factory=list)

    def table_clock(self, timeouts: Timeouts) -> None:
        self.clocks.append(timeouts)


@dataclass
class Table:
    outcomes: dict[int, Outcome]
    uis: list[ClockUI]
    sent: list[Body]
    """Every lobby body any node of the table sent (hellos, starts...)."""


async def play(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, bots: list[bool]) -> Table:
    """A one-hand table of ``len(bots)`` seats, seat ``i`` claiming a bot iff ``bots[i]``."""
    sent: list[Body] = []
    encode = session.encode_lobby

    def recording(body: Body) -> bytes:
        sent.append(body)
        return encode(body)

    monkeypatch.setattr(session, "encode_lobby", recording)
    outcomes: dict[int, Outcome] = {}
    uis = [ClockUI() for _ in bots]
    cfgs: list[NodeConfig] = [
        replace(config(tmp_path, f"p{i}", seed=i, ui=uis[i]), bot=b) for i, b in enumerate(bots)
    ]
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = await start_host(nursery, cfgs[0], players=len(bots), rules=ONE_HAND, outcomes=outcomes)
            for seat, cfg in enumerate(cfgs[1:], start=1):
                await join_seat(nursery, port, cfg, seat, outcomes, uis[0])
    return Table(outcomes, uis, sent)


def starts(t: Table) -> list[Start]:
    return [b for b in t.sent if isinstance(b, Start)]


def assert_clock(t: Table, clock: tuple[int, int, int]) -> None:
    """Every seat finished the match, signed ``clock`` in its join record and played by it."""
    for seat, outcome in sorted(t.outcomes.items()):
        assert outcome.status == "over", (seat, outcome.problem)
        assert outcome.table is not None and outcome.table.clock == clock, seat
    assert [ui.clocks[-1].turn for ui in t.uis] == [float(clock[0])] * len(t.uis)


async def test_a_person_hosting_two_bots_has_a_day_a_turn(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = await play(tmp_path, monkeypatch, [False, True, True])
    patient = (MAX_CLOCK, *FAST.clock()[1:])
    assert_clock(t, patient)  # type: ignore[arg-type]
    assert [s.clock for s in starts(t)] == [patient]
    assert [b.bot for b in t.sent if isinstance(b, Hello)] == [True, True]
    assert all(PATIENT in ui.infos for ui in t.uis)


async def test_a_bot_host_waits_for_its_only_person(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The host counts its own seat: a bot host and one person joiner is a table of one person."""
    t = await play(tmp_path, monkeypatch, [True, False])
    assert_clock(t, (MAX_CLOCK, *FAST.clock()[1:]))  # type: ignore[arg-type]


async def test_two_people_and_a_bot_keep_the_hosts_clock(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = await play(tmp_path, monkeypatch, [True, False, False])
    assert_clock(t, FAST.clock())
    assert [s.clock for s in starts(t)] == [None]  # the start an older joiner knows
    assert not any(PATIENT in ui.infos for ui in t.uis)


async def test_a_bot_joiner_beside_two_people_changes_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    t = await play(tmp_path, monkeypatch, [False, False, True])
    assert_clock(t, FAST.clock())
    assert [b.bot for b in t.sent if isinstance(b, Hello)] == [None, True]


async def test_an_old_style_hello_without_bot_joins_as_a_person(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A person's hello carries no ``bot`` field at all (what older hosts know), and counts as a person."""
    t = await play(tmp_path, monkeypatch, [False, False])
    hellos = [b for b in t.sent if isinstance(b, Hello)]
    assert len(hellos) == 1 and "bot" not in hellos[0].to_wire()
    assert_clock(t, FAST.clock())


def frame(kind: str, body: dict[str, Any]) -> dict[str, Any]:
    return {"v": LOBBY_VERSION, "kind": kind, "body": body}


PAKE = b"A" + bytes(32)
HELLO = {"name": "Ann", "key": KEY, "nonce": NONCE, "port": 4000, "pake": PAKE}
SEAT = ["Ann", KEY, "127.0.0.1", 4000]
ROSTER = [SEAT, ["Bob", bytes(32), "", 0]]


def test_hello_with_and_without_bot() -> None:
    assert decode_lobby_object(frame("hello", HELLO)) == Hello(
        name="Ann", key=KEY, nonce=NONCE, port=4000, pake=PAKE
    )
    for value in (True, False):
        hello = decode_lobby_object(frame("hello", {**HELLO, "bot": value}))
        assert isinstance(hello, Hello) and hello.bot is value
    with_bot = Hello(name="Ann", key=KEY, nonce=NONCE, port=4000, pake=PAKE, bot=True)
    assert decode_lobby_object(frame("hello", with_bot.to_wire())) == with_bot


def test_start_with_and_without_clock() -> None:
    start = decode_lobby_object(frame("start", {"roster": ROSTER}))
    assert isinstance(start, Start) and start.clock is None and "clock" not in start.to_wire()
    start = decode_lobby_object(frame("start", {"roster": ROSTER, "clock": [MAX_CLOCK, 60, 120]}))
    assert isinstance(start, Start) and start.clock == (MAX_CLOCK, 60, 120)
    assert decode_lobby(encode_lobby(start)) == start


@pytest.mark.parametrize("value", [1, 0, "true", None, [True]])
def test_a_hello_bot_must_be_true_or_false(value: object) -> None:
    with pytest.raises(WireError, match=r"hello\.bot"):
        decode_lobby_object(frame("hello", {**HELLO, "bot": value}))


@pytest.mark.parametrize(
    "value", [[600, 60], [600, 60, 120, 1], [MAX_CLOCK + 1, 60, 120], [-1, 60, 120], 600, None]
)
def test_a_start_clock_must_be_three_seconds_counts(value: object) -> None:
    with pytest.raises(WireError, match=r"start\.clock"):
        decode_lobby_object(frame("start", {"roster": ROSTER, "clock": value}))


def test_final_clock_is_patient_only_for_exactly_one_person() -> None:
    assert final_clock((600, 60, 120), 0) == (600, 60, 120)  # bots alone: a stuck bot is named in time
    assert final_clock((600, 60, 120), 1) == (MAX_CLOCK, 60, 120)
    assert final_clock((600, 60, 120), 2) == (600, 60, 120)


async def test_bots_alone_keep_the_hosts_clock(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    t = await play(tmp_path, monkeypatch, [True, True, True])
    assert_clock(t, FAST.clock())
    assert [s.clock for s in starts(t)] == [None]
