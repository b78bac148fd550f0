"""A carrier that holds back what it carries, in virtual time (pacing.SLOW_ALLOWANCE).

Two joiners reach each other only through the host. A host that holds each of one
joiner's records back from the other, each just short of the step's clock, breaks no
clock; neither joiner can tell whether the host or the other joiner is slow, so neither
names anyone. Without a bound the host could make every hand last as long as its clocks
allow; the seat that waits counts the lateness of what came through relays as it counts a
linked seat's, and once that allowance is spent it stops, naming nobody.
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st
from net_helpers import bot
from protocol_helpers import SHORT_RULES, make_tables
from test_relay import star_links

from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.net import pacing
from p2pcards.net.link import Link
from p2pcards.net.runner import ABSENCE_ALLOWANCE, RunResult, run_table
from p2pcards.net.session import Timeouts
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.transcript import encode_file
from p2pcards.protocol.wire import Evidence, Need, Relay, SignedRecord, decode_frame

STEP = 30.0
TIMEOUTS = Timeouts(turn=60.0, step=STEP)
GRACE = 20.0


class Holding(Link):
    """The host's link to one joiner, through which the host passes on another joiner's
    records ``hold`` seconds late (its own frames go at once; ``own_needs``: its own ``need``
    frames are not sent, so that only what a test sends in their place says where it is)."""

    def __init__(
        self,
        inner: Link,
        origin: int,
        hold: float | Sequence[float],
        nursery: trio.Nursery,
        own_needs: bool = True,
    ) -> None:
        self.__dict__.update(inner.__dict__)
        holds = [hold] if isinstance(hold, float | int) else list(hold)
        self.origin, self.nursery, self.own_needs = origin, nursery, own_needs
        self.holds = itertools.cycle(holds)

    def _carried(self, frame: bytes) -> bool:
        item: Any = decode_frame(frame)
        if isinstance(item, Relay):
            return item.origin == self.origin
        if isinstance(item, SignedRecord):
            return item.record.seat == self.origin
        if isinstance(item, Evidence):
            return any(r.record.seat == self.origin for r in item.records)
        return False

    async def send(self, frame: bytes) -> None:
        if not self.own_needs and isinstance(decode_frame(frame), Need):
            return
        if self._carried(frame):
            self.nursery.start_soon(self._later, frame, next(self.holds))
            return
        await Link.send(self, frame)

    async def _later(self, frame: bytes, hold: float) -> None:
        await trio.sleep(hold)
        with contextlib.suppress(Exception):  # (the link closed meanwhile: lost, as on a path)
            await Link.send(self, frame)


async def held_back(
    hold: float | Sequence[float], seed: int = 5, *, claims_to_wait: bool = False
) -> tuple[dict[int, Table], dict[int, RunResult], float]:
    """Three seats as a star; the host holds seat 1's records back from seat 2 ``hold`` s (or
    each in turn, a frame each, from a sequence; ``claims_to_wait``: and tells seat 2 every
    few seconds that it too waits for seat 1's record of seat 2's step, as a carrier whose
    peer is away says). The host names nobody:
    its clocks are as long as can be. Each seat's result, and the time the match took."""
    tables = make_tables(3, SHORT_RULES, seed=seed)
    results: dict[int, RunResult] = {}
    start = trio.current_time()
    with trio.fail_after(100_000):
        async with trio.open_nursery() as pumps:
            links = star_links(3)
            links[0][2] = Holding(links[0][2], 1, hold, pumps, own_needs=not claims_to_wait)

            async def seat(s: int) -> None:
                relayed = [p for p in (1, 2) if p != s] if s else []
                timeouts = TIMEOUTS if s else Timeouts(turn=86400.0, step=86400.0)
                results[s] = await run_table(
                    tables[s], links[s], bot(s), timeouts=timeouts, relayed=relayed, grace=GRACE
                )

            async def claim() -> None:
                while True:
                    await trio.sleep(4.0)
                    step = tables[2].step
                    last = tables[2].transcript.digests[step - 1] if step else bytes(32)
                    await Link.send(links[0][2], Need(step, (0, 2), last).to_frame())

            if claims_to_wait:
                pumps.start_soon(claim)
            async with trio.open_nursery() as nursery:
                for s in tables:
                    nursery.start_soon(seat, s)
            ended = trio.current_time()
            pumps.cancel_scope.cancel()
    return tables, results, ended - start


def summary(results: dict[int, RunResult]) -> dict[int, tuple[str, tuple[int, ...], str | None]]:
    return {s: (r.status, r.blamed, r.problem) for s, r in results.items()}


async def test_a_host_that_holds_back_what_it_carries_stalls_the_table_a_bounded_time(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The host passes seat 1's records on to seat 2 25 s late, within the 30 s step clock:
    seat 2 counts that lateness as a linked seat's, and once its allowance (60 s beyond
    10 s a step) is spent it stops, naming nobody; nor does seat 1, and the audit of their
    files blames nobody. Without the count the match went on, each step 25 s long."""
    tables, results, took = await held_back(25.0)
    said = summary(results)
    allowance = pacing.lateness_allowance(STEP)
    assert results[2].status == "failed" and results[2].blamed == (), said
    assert results[1].blamed == (), said
    problem = results[2].problem or ""
    assert problem.startswith("timed out: p1 (seat 1), reached only through a relay"), said
    assert f"late {allowance:g} s in all already" in problem, said
    # Each held record costs 15 s of the 60: a few of seat 1's records, and the steps between.
    assert took < 12 * STEP, (took, said)
    for s in (1, 2):
        file = encode_file(tables[s].records_to_save(), saved_by=s, status=f"failed: {results[s].problem}")
        report = audit_bytes(file)
        assert all(p.seat is None for p in report.problems), (s, report.problems)


async def test_a_host_that_holds_back_what_it_carries_by_less_than_quick_time_costs_nothing(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Held back 8 s, less than the quick time (a slow path, through two hops): charged
    nothing, the match ends with nobody named."""
    assert pacing.quick_time(STEP) > 8.0
    _, results, _ = await held_back(8.0)
    assert all(r.status == "over" and not r.blamed for r in results.values()), summary(results)


async def test_a_host_that_also_says_it_waits_is_excused_only_an_absence_allowance(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The host holds seat 1's records back 50 s, beyond the 30 s step clock, and says at each
    of seat 2's steps that it waits for seat 1 too, as a carrier whose peer is away says (so
    seat 2 waits on for the end of a grace). Seat 2 excuses that lateness only as long as an
    honest carrier lets a seat be away over the match (``ABSENCE_ALLOWANCE`` graces), then
    counts it and stops naming nobody, a few of seat 1's records into the match. Without the
    bound every one of them was held back 50 s and the match played to its end."""
    tables, results, _ = await held_back(50.0, claims_to_wait=True)
    said = summary(results)
    assert results[2].status == "failed" and results[2].blamed == (), said
    assert results[1].blamed == (), said
    assert "reached only through a relay" in (results[2].problem or ""), said
    # The excuse (five graces of 20 s) and the allowance (60 s), 40 s a record: 5 records.
    excusable = ABSENCE_ALLOWANCE * GRACE + pacing.lateness_allowance(STEP)
    assert excusable / (50.0 - pacing.quick_time(STEP)) < 5
    authors = [r.record.seat for r in tables[2].transcript.records()]
    assert authors.count(1) < 12, (authors, said)


def test_the_protocol_states_that_relayed_lateness_counts() -> None:
    """protocol.md 7.2 says what a client must do for lateness through relays."""
    text = " ".join((Path(__file__).parent.parent / "protocol.md").read_text(encoding="utf-8").split())
    assert "the relayed lateness allowance" in text


@settings(max_examples=8)
@given(
    holds=st.lists(st.sampled_from([0.0, 2.0, 9.0, 11.0, 20.0, 29.0, 45.0, 70.0]), min_size=1, max_size=12),
    claims=st.booleans(),
    seed=st.integers(0, 3),
)
def test_whatever_a_carrier_holds_back_no_honest_seat_is_named_and_the_match_ends(
    holds: list[float], claims: bool, seed: int
) -> None:
    """A host that holds each of seat 1's records back from seat 2 as long as it likes (within
    the step's clock, or beyond it), saying or not that it waits for seat 1 too: the honest
    seats never name each other, and each one's match ends (played out, or stopped naming
    nobody), within the time its clocks and allowances bound."""

    async def main() -> tuple[dict[int, RunResult], float]:
        _, results, took = await held_back(holds, seed=seed, claims_to_wait=claims)
        return results, took

    results, took = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    said = summary(results)
    for s in (1, 2):
        assert results[s].status in ("over", "failed"), said
        assert results[s].blamed == (), said
    # Each step of the match (106 at most here) waits at most its clock, the grace and the
    # relay trial beyond it, and a turn at most its clock: far within this bound.
    assert took < 106 * (TIMEOUTS.turn + GRACE + 11 + STEP), (took, said)
