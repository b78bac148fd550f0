"""A seat that answers each step late, in virtual time (pacing.SLOW_ALLOWANCE).

A step other than a turn is answered by the program at once. A seat whose every answer comes
a while after the step began, but before the step's clock runs out, broke no clock: without
a bound over the match it could make each hand last as long as its clocks allow. Its lateness
beyond ``QUICK`` a step (half the step clock, if that is shorter) is counted, and once its
allowance is spent the others name it; a seat late by less than that (a slow path, a slow
machine) is never charged anything.
"""

from __future__ import annotations

import contextlib
from pathlib import Path
from typing import Any

import pytest
import trio
import trio.testing
from net_helpers import Lagging, memory_links, play_bots
from protocol_helpers import make_tables

from p2pcards.games.nines.rules import NinesRules
from p2pcards.net import pacing
from p2pcards.net.link import Link, LinkClosed
from p2pcards.net.runner import RunResult
from p2pcards.net.session import Timeouts
from p2pcards.protocol.sitting import Sitting

STEP = 30.0
TURN = 60.0


async def play_with_a_late_seat(
    delay: float, seed: int = 1, step: float = STEP
) -> tuple[dict[int, RunResult], float]:
    """Three seats, every link of their own; whatever seat 2 sends arrives ``delay`` s late.
    Each seat's result, and the time the last one stopped."""
    tables = {s: Sitting(t) for s, t in make_tables(3, NinesRules(target=100), seed=seed).items()}
    async with trio.open_nursery() as pumps:
        links: dict[int, dict[int, Link]] = {0: {}, 1: {}, 2: {}}
        x, y = trio.testing.memory_stream_pair()
        links[0][1] = Link(x, peer="seat 1")
        links[1][0] = Link(y, peer="seat 0")
        for honest in (0, 1):
            to_2, from_honest = trio.testing.memory_stream_one_way_pair()
            from_2_raw, to_honest = trio.testing.memory_stream_one_way_pair()
            late = Lagging(from_2_raw, delay, pumps)
            links[honest][2] = Link(trio.StapledStream(to_2, to_honest), peer="seat 2")
            links[2][honest] = Link(trio.StapledStream(late, from_honest), peer=f"seat {honest}")

        results = await play_bots(tables, links, Timeouts(turn=TURN, step=step))
        ended = trio.current_time()
        pumps.cancel_scope.cancel()
    return results, ended


async def test_a_seat_late_at_every_step_is_named_once_its_allowance_is_spent(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 2 answers 25 s into each step of a 30 s clock: the clock of each step would wait
    for it; its allowance (60 s beyond 10 s a step) runs out within a few steps, and both
    honest seats name it for that, long before the match could end."""
    start = trio.current_time()
    results, ended = await play_with_a_late_seat(25.0)
    summary = {s: (r.status, r.blamed, r.problem) for s, r in results.items()}
    allowance = max(pacing.SLOW_ALLOWANCE_MIN, pacing.SLOW_ALLOWANCE * STEP)
    for honest in (0, 1):
        assert results[honest].status == "failed", summary
        assert results[honest].blamed == (2,), summary
        assert f"having been late {allowance:g} s in all" in (results[honest].problem or ""), summary
    # Each late answer costs 15 s of the 60: five steps of seat 2's at most, and their turns between.
    assert ended - start < 20 * TURN, summary


@pytest.mark.parametrize("delay", [4.0, 9.0])
async def test_a_seat_late_by_less_than_quick_plays_the_match_to_its_end(
    autojump_clock: trio.testing.MockClock, delay: float
) -> None:
    """A slow path (every frame of seat 2 late by up to 9 s, less than QUICK) is charged
    nothing: the match ends, nobody named."""
    assert delay < pacing.QUICK
    results, _ = await play_with_a_late_seat(delay)
    summary = {s: (r.status, r.blamed, r.problem) for s, r in results.items()}
    assert all(r.status == "over" and not r.blamed for r in results.values()), summary


@pytest.mark.parametrize(("step", "delay", "named"), [(8.0, 7.0, True), (8.0, 3.0, False), (6.0, 5.5, True)])
async def test_at_a_short_step_clock_lateness_counts_beyond_half_the_clock(
    autojump_clock: trio.testing.MockClock, step: float, delay: float, named: bool
) -> None:
    """At a step clock shorter than twice QUICK, a step may take a seat half the clock without
    counting: a seat that holds each answer to just before a clock of 8 s (or 6 s) is named
    once its allowance is spent, as at the reference clock; one late by less than half the
    clock plays the match to its end."""
    quick = pacing.quick_time(step)
    assert quick == step / 2 < pacing.QUICK
    start = trio.current_time()
    results, ended = await play_with_a_late_seat(delay, step=step)
    summary = {s: (r.status, r.blamed, r.problem) for s, r in results.items()}
    if not named:
        assert all(r.status == "over" and not r.blamed for r in results.values()), summary
        return
    allowance = pacing.lateness_allowance(step)
    for honest in (0, 1):
        assert results[honest].status == "failed", summary
        assert results[honest].blamed == (2,), summary
        assert f"having been late {allowance:g} s in all" in (results[honest].problem or ""), summary
    # Each late answer costs delay - quick of the allowance: a bounded number of steps, and turns.
    late_steps = allowance / (delay - quick) + 1
    assert ended - start < late_steps * (step + 2 * TURN), summary


def test_the_protocol_states_the_reference_lateness_bounds() -> None:
    """protocol.md 7.2 gives the reference's values; a client written from it must agree."""
    text = (Path(__file__).parent.parent / "protocol.md").read_text(encoding="utf-8")
    assert f"(`QUICK`, {pacing.QUICK:g} s, or half the step clock if that is shorter)" in text
    assert pacing.QUICK_SHARE == 0.5
    stated = f"(2 and 60 s in the reference: {max(60, 2 * 60)} s at the reference clock)"
    assert stated in text
    assert (pacing.SLOW_ALLOWANCE, pacing.SLOW_ALLOWANCE_MIN) == (2, 60)
    assert f"`READ_FREE` ({pacing.READ_FREE:g} s)" in text
    assert "`HOLD_ALLOWANCE` (half)" in text and pacing.HOLD_ALLOWANCE == 0.5


class SlowReader(trio.abc.SendStream):
    """The sending end of a link whose reader takes each frame ``hold`` seconds after it came,
    never long enough to count as one that stopped reading: each send waits that long."""

    def __init__(self, inner: trio.abc.SendStream, hold: float) -> None:
        self.inner = inner
        self.hold = hold

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.inner.send_all(data)
        await trio.sleep(self.hold)

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def aclose(self) -> None:
        await self.inner.aclose()


def read_slowly_by_seat_2(
    hold: float, seat_2_end: type[Link] = Link
) -> tuple[dict[int, Sitting], dict[int, dict[int, Link]]]:
    """Three seats, every link of their own; seat 2 takes each of seat 0's frames ``hold`` s
    after it came (its end of that link a ``seat_2_end``)."""
    tables = {s: Sitting(t) for s, t in make_tables(3, NinesRules(hands=5), seed=1).items()}

    def held() -> tuple[trio.abc.Stream, trio.abc.Stream]:
        """Seat 0's end (each frame taken ``hold`` s after it came) and seat 2's."""
        to_2, from_0 = trio.testing.memory_stream_one_way_pair()
        to_0, from_2 = trio.testing.memory_stream_one_way_pair()
        return trio.StapledStream(SlowReader(to_2, hold), from_2), trio.StapledStream(to_0, from_0)

    links = memory_links(3, pairs={frozenset((0, 2)): held})
    links[2][0] = seat_2_end(links[2][0].stream, peer="seat 0")
    return tables, links


@pytest.mark.parametrize("hold", [4.0])
async def test_a_seat_that_reads_one_peer_slowly_gets_nobody_honest_named(
    autojump_clock: trio.testing.MockClock, hold: float
) -> None:
    """Seat 2 takes each frame of seat 0's `hold` s after it came (less than STUCK_SHARE of a
    step, and than the keep-alive's clock): seat 0 sends nothing else meanwhile, so its answers
    reach seat 1 late too, and seat 1 would name it once its lateness allowance was spent
    (at 4 s: seat 1 did, at 526 s). Seat 0 names seat 2 first, for holding it up
    (HOLD_ALLOWANCE), and seat 1 names nobody."""
    tables, links = read_slowly_by_seat_2(hold)
    results = await play_bots(tables, links, Timeouts(turn=TURN, step=STEP))
    summary = {s: (r.status, r.blamed, r.problem) for s, r in results.items()}
    assert 0 not in results[1].blamed and 0 not in results[2].blamed, summary
    assert results[0].blamed == (2,), summary
    assert "read too slowly" in (results[0].problem or ""), summary


async def test_a_seat_that_reads_just_under_the_free_wait_and_asks_often_is_named_for_it(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 2 takes each frame of seat 0's 0.9 s after it came, under READ_FREE, and sends it a
    `need` four times a second, each answered by a frame: seat 0 waits most of each second on
    seat 2 and reads nothing meanwhile, and the table crawls (counted frame by frame beyond
    READ_FREE each, that wait never counted: 10 hands took 514 s of virtual time, where they
    take none without it, and nobody was named). Counted in each step beyond READ_FREE in all,
    seat 0 names seat 2 (at 53 s), and nobody names seat 0."""
    from p2pcards.protocol.wire import Evidence, Need, decode_frame_object

    class Asker(Link):
        """Seat 2's end: what seat 0 answers to the `need` frames sent beside seat 2's own play
        is dropped unread (read, seat 2's node would take it for evidence that proves nothing)."""

        async def receive(self) -> Any:
            while True:
                obj = await super().receive()
                if not isinstance(decode_frame_object(obj), Evidence):
                    return obj

    tables, links = read_slowly_by_seat_2(0.9, Asker)
    asked = 0

    async def ask() -> None:
        nonlocal asked
        while True:
            await trio.sleep(0.25)
            with contextlib.suppress(LinkClosed):
                await links[2][0].send(Need(tables[2].step).to_frame())
                asked += 1

    async with trio.open_nursery() as nursery:
        nursery.start_soon(ask)
        results = await play_bots(tables, links, Timeouts(turn=TURN, step=STEP))
        nursery.cancel_scope.cancel()
    summary = {s: (r.status, r.blamed, r.problem) for s, r in results.items()}
    assert asked > 100, summary
    assert 0 not in results[1].blamed and 0 not in results[2].blamed, summary
    assert results[0].blamed == (2,), summary
    assert "read too slowly" in (results[0].problem or ""), summary


async def test_the_time_this_node_did_not_run_is_counted_once_and_a_busy_moment_not(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """``Stalls``: a stop of this node's own (its pulse 5 s late) counts at once, before the
    pulse runs again (the runner may look first), and not again once it has; a lag shorter
    than ``STALL_MIN`` is a busy moment, not counted."""
    stalls = pacing.Stalls(trio.current_time())
    async with trio.open_nursery() as nursery:
        nursery.start_soon(stalls.watch)
        await trio.sleep(3)
        assert stalls.frozen(trio.current_time()) == 0.0
        autojump_clock.jump(5)  # nothing of this node ran meanwhile
        seen = stalls.frozen(trio.current_time())
        assert 5 - pacing.STALL_PULSE <= seen <= 5
        await trio.sleep(2)  # the pulse runs again
        assert stalls.frozen(trio.current_time()) == seen
        autojump_clock.jump(pacing.STALL_MIN * 0.8)
        await trio.sleep(1)
        assert stalls.frozen(trio.current_time()) == seen
        nursery.cancel_scope.cancel()
