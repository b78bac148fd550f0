"""The match runner over in-memory links, in virtual time (``autojump_clock``).

Every seat runs ``run_table`` over ``Link`` objects wired with ``trio.testing``
streams, so the step and turn timeouts are met in virtual time: a silent seat is
named after exactly the timeout it broke, and nothing waits for real.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
import trio
import trio.testing
from net_helpers import (
    CutStream,
    DeafStream,
    TrickleStream,
    WrappedStream,
    bot,
    close_all,
    frozen,
    memory_links,
    stuck,
)
from protocol_helpers import SHORT_RULES, make_tables, record_map, sign_map

from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import Action, NinesRules
from p2pcards.net.link import Link, LinkClosed
from p2pcards.net.pacing import STUCK_SHARE
from p2pcards.net.runner import EARLY_ASK, LEAVE_WAIT, WAIT_NOTICE, Decider, RunResult, run_table
from p2pcards.net.session import Timeouts
from p2pcards.net.verdicts import TURN_TIMED_OUT
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.sitting import Sitting
from p2pcards.protocol.transcript import encode_file
from p2pcards.protocol.wire import Evidence, SignedRecord, decode_frame

TIMEOUTS = Timeouts(turn=120.0, step=30.0)
SLACK = 1.0
"""Virtual seconds allowed beyond a timeout (the honest steps before it take no virtual time)."""

ONE_HAND = NinesRules(hands=1)


async def run_seats(
    tables: dict[int, Table],
    links: dict[int, dict[int, Link]],
    deciders: dict[int, Decider],
    *,
    timeouts: Timeouts = TIMEOUTS,
    on_wait: dict[int, list[tuple[float, float, tuple[int, ...]]]] | None = None,
    hung: frozenset[int] = frozenset(),
    hang_up: bool = False,
    release: Callable[[], None] = lambda: None,
    interrupts: dict[int, trio.Event] | None = None,
    journals: dict[int, Callable[[list[SignedRecord]], None]] | None = None,
) -> tuple[dict[int, RunResult], dict[int, float]]:
    """Run every seat's table; returns the results and the virtual time each ended.

    Seats in ``hung`` are not expected to end: they are cancelled once every
    other seat has. With ``hang_up`` a seat closes its links as soon as it ends
    (as a node does after its match). ``interrupts``: a seat's program is stopped
    (Ctrl-C, a closed terminal) when its event is set. ``journals``: where a seat's
    journal goes. A global bound makes a hang fail the test.
    """
    results: dict[int, RunResult] = {}
    ended: dict[int, float] = {}
    t0 = trio.current_time()
    with trio.fail_after(20 * timeouts.turn):
        async with trio.open_nursery() as nursery:
            hung_scope = trio.CancelScope()
            remaining = {s for s in tables if s not in hung}
            all_done = trio.Event()

            async def seat(s: int) -> None:
                def waited(table: Table, seconds: float) -> None:
                    if on_wait is not None:
                        on_wait.setdefault(s, []).append(
                            (trio.current_time() - t0, seconds, table.waiting_for)
                        )

                results[s] = await run_table(
                    tables[s],
                    links[s],
                    deciders[s],
                    timeouts=timeouts,
                    on_wait=waited,
                    interrupt=(interrupts or {}).get(s),
                    journal=(journals or {}).get(s, lambda records: None),
                )
                ended[s] = trio.current_time() - t0
                if hang_up:
                    for link in links[s].values():
                        await link.aclose()
                remaining.discard(s)
                if not remaining:
                    all_done.set()

            async def hung_seat(s: int) -> None:
                with hung_scope:
                    await seat(s)

            for s in tables:
                nursery.start_soon(hung_seat if s in hung else seat, s)
            if remaining:
                await all_done.wait()
            release()
            hung_scope.cancel()
    await close_all(links)
    return results, ended


def assert_same_records(tables: dict[int, Table]) -> None:
    raws = {s: [(r.raw, r.sig) for r in t.transcript.records()] for s, t in tables.items()}
    first = raws[0]
    assert all(r == first for r in raws.values())


async def test_an_honest_match_completes_in_virtual_time(autojump_clock: trio.testing.MockClock) -> None:
    tables = make_tables(3, SHORT_RULES, seed=1)
    links = memory_links(3)
    results, ended = await run_seats(tables, links, {s: bot(s) for s in tables})
    assert {s: r.status for s, r in results.items()} == dict.fromkeys(tables, "over")
    assert all(r.blamed == () and r.problem is None for r in results.values())
    assert_same_records(tables)
    assert len({tuple(t.match.totals) for t in tables.values()}) == 1  # type: ignore[union-attr]
    # Honest seats never wait for a timeout: the whole match takes no virtual time.
    assert max(ended.values()) < SLACK


async def test_a_player_whose_turn_time_runs_out_leaves_and_the_others_play_on(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 1's player never answers: when the table's clock runs out, seat 1 signs that
    it leaves, and the two others finish the match without it, blaming nobody; their
    files say who left, and why."""
    tables = {s: Sitting(t) for s, t in make_tables(3, SHORT_RULES, seed=2).items()}
    links = memory_links(3)
    deciders = {0: bot(0), 1: stuck(), 2: bot(2)}
    results, ended = await run_seats(tables, links, deciders)  # type: ignore[arg-type]
    assert results[1].status == "aborted" and results[1].problem == TURN_TIMED_OUT, results[1]
    assert TIMEOUTS.turn <= ended[1] <= TIMEOUTS.turn + SLACK
    for s in (0, 2):
        assert results[s].status == "over" and results[s].blamed == (), results[s]
        assert tables[s].present == (0, 2)
    assert tables[0].current.transcript.records() == tables[2].current.transcript.records()
    report = audit_bytes(encode_file(tables[0].records_to_save(), saved_by=0, status="over"))
    assert report.valid, report.summary()
    text = " ".join(report.summary().split())
    said = f'signed that they leave: "did not play within {TIMEOUTS.turn:g} s"'
    assert f"p1 left after 0 hands ({said})" in text, text


async def test_a_seat_that_never_decides_is_named_after_the_turn_timeout(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """A node that hangs in its own turn cannot sign that it leaves: the others wait
    ``LEAVE_WAIT`` past the turn time for its word, then name it, saying the turn clock the
    table agreed (120 s), not the 123 s they waited."""
    tables = make_tables(3, SHORT_RULES, seed=2)
    links = memory_links(3)
    hang, release = frozen()
    deciders = {0: bot(0), 1: hang, 2: bot(2)}
    waits: dict[int, list[tuple[float, float, tuple[int, ...]]]] = {}
    results, ended = await run_seats(
        tables, links, deciders, on_wait=waits, hung=frozenset({1}), release=release
    )
    for s in (0, 2):
        r = results[s]
        assert r.status == "failed"
        assert r.blamed == (1,)
        # The clock the table agreed, not the seconds waited (which add LEAVE_WAIT for its leave).
        clock = f"the table's turn clock of {TIMEOUTS.turn:g} s ran out, and p1 neither played nor left"
        assert r.problem == f"timed out: {clock}", r.problem
        assert TIMEOUTS.turn + LEAVE_WAIT <= ended[s] <= TIMEOUTS.turn + LEAVE_WAIT + SLACK
    assert 1 not in results  # the frozen seat never ended on its own
    # While waiting, each honest seat heard about seat 1 every WAIT_NOTICE seconds.
    for s in (0, 2):
        notices = waits[s]
        patience = TIMEOUTS.turn + LEAVE_WAIT
        expected = int(patience // WAIT_NOTICE) - (1 if patience % WAIT_NOTICE == 0 else 0)
        assert len(notices) == expected
        for k, (at, waited, who) in enumerate(notices, start=1):
            assert who == (1,)
            assert k * WAIT_NOTICE <= waited <= k * WAIT_NOTICE + SLACK
            assert at <= patience


async def test_a_seat_that_goes_mute_in_a_shuffle_is_named_after_the_step_timeout(
    autojump_clock: trio.testing.MockClock,
) -> None:
    tables = make_tables(3, SHORT_RULES, seed=3)
    # Seat 1's frames: join, cut-commit, cut-reveal (with its commitment for hand 1), then its
    # shuffle (step 3: seat 0's came with its cut reveal), of which only the first half leaves:
    # the others' decoders hold half a frame.
    links = memory_links(3, lambda seat, peer, s: CutStream(s, frames=3) if seat == 1 else s)
    results, ended = await run_seats(tables, links, {s: bot(s) for s in tables})
    for s in (0, 2):
        r = results[s]
        assert r.status == "failed"
        assert r.blamed == (1,)
        assert (r.problem or "").startswith(f"timed out: p1 did not answer within {TIMEOUTS.step:.0f} s")
        assert "step" not in (r.problem or "") and "(" not in (r.problem or "")  # said in words
        assert TIMEOUTS.step <= ended[s] <= TIMEOUTS.step + SLACK
        assert tables[s].step == 3


async def test_a_seat_that_stops_reading_is_named_after_half_the_step_timeout(
    autojump_clock: trio.testing.MockClock,
) -> None:
    # Links to seat 1 deliver only what seat 1 reads (lockstep), and seat 1 reads nothing:
    # a frozen peer whose buffers are full. Sending to it must not block the others forever,
    # nor as long as the others' clocks run (pacing.STUCK_SHARE; test_deaf_peer.py).
    tables = make_tables(3, SHORT_RULES, seed=4)
    lockstep = {
        frozenset((0, 1)): trio.testing.lockstep_stream_pair,
        frozenset((1, 2)): trio.testing.lockstep_stream_pair,
    }
    links = memory_links(3, lambda seat, peer, s: DeafStream(s) if seat == 1 else s, pairs=lockstep)
    results, ended = await run_seats(tables, links, {s: bot(s) for s in tables})
    for s in (0, 2):
        r = results[s]
        assert r.status == "failed"
        assert r.blamed == (1,)
        assert (r.problem or "").startswith("stopped reading")
        assert STUCK_SHARE * TIMEOUTS.step <= ended[s] <= STUCK_SHARE * TIMEOUTS.step + SLACK


async def test_byte_at_a_time_delivery_still_completes_a_match(
    autojump_clock: trio.testing.MockClock,
) -> None:
    tables = make_tables(2, ONE_HAND, seed=5)
    links = memory_links(2, lambda seat, peer, s: TrickleStream(s))
    results, _ = await run_seats(tables, links, {s: bot(s) for s in tables})
    assert {s: r.status for s, r in results.items()} == {0: "over", 1: "over"}
    assert_same_records(tables)
    assert all(link.frames_received > 10 for ends in links.values() for link in ends.values())


async def test_a_hang_up_is_blamed_on_the_seat_the_table_waits_for(
    autojump_clock: trio.testing.MockClock,
) -> None:
    # Seat 1 crashes at its first turn; its hang-up reaches seat 0 at once but seat 2
    # a second later. Seat 0 stops and hangs up too, and seat 2 hears that first:
    # still, seat 2 must blame seat 1, whose turn it waits for, not honest seat 0.
    tables = make_tables(3, SHORT_RULES, seed=6)
    links = memory_links(3)

    async def crash(table: Table) -> object:
        await links[1][0].aclose()
        await trio.sleep(1.0)
        await links[1][2].aclose()
        await trio.sleep_forever()

    deciders: dict[int, Decider] = {0: bot(0), 1: crash, 2: bot(2)}  # type: ignore[dict-item]
    results, ended = await run_seats(tables, links, deciders, hung=frozenset({1}), hang_up=True)
    assert ended[0] < ended[2]
    for s in (0, 2):
        assert results[s].status == "failed"
        assert results[s].blamed == (1,), results[s].problem
        assert "connection lost" in (results[s].problem or "")


class BadSignatureStream(WrappedStream):
    """Corrupts the signature of the ``frame``-th record sent on this one link."""

    def __init__(self, inner: trio.abc.Stream, frame: int) -> None:
        super().__init__(inner)
        self.sent = 0
        self.frame = frame

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        self.sent += 1
        if self.sent == self.frame:
            rec = decode_frame(bytes(data))
            assert isinstance(rec, SignedRecord)
            data = SignedRecord(rec.raw, bytes([rec.sig[0] ^ 1]) + rec.sig[1:], rec.record).to_frame()
        await self.inner.send_all(data)


async def test_a_seat_that_stops_for_a_fault_only_it_saw_is_not_blamed_by_the_others(
    autojump_clock: trio.testing.MockClock,
) -> None:
    # Seat 1 sends one badly signed record to seat 0 only: seat 0 alone can see the fault.
    tables = make_tables(3, SHORT_RULES, seed=5)
    links = memory_links(3, lambda seat, peer, s: BadSignatureStream(s, 6) if (seat, peer) == (1, 0) else s)
    results, _ = await run_seats(
        tables, links, {s: bot(s) for s in tables}, hang_up=True, hung=frozenset({1})
    )
    assert results[0].status == "failed" and results[0].blamed == (1,)
    assert "bad signature" in (results[0].problem or "")
    # Seat 2 hears seat 0 announce why it stops: it reports that, and blames nobody for
    # seat 0 hanging up (it cannot check seat 0's claim, and seat 0 did nothing wrong).
    r2 = results[2]
    assert r2.status == "failed"
    assert 0 not in r2.blamed
    claim = "p0 (seat 0) stopped the match; its claim: 'p1 (seat 1) at fault: bad signature"
    assert claim in (r2.problem or "")


async def test_the_last_peer_leaving_a_two_seat_table_is_reported_without_a_crash(
    autojump_clock: trio.testing.MockClock,
) -> None:
    from p2pcards.net.runner import QuitMatch

    async def leave(table: Table) -> object:
        raise QuitMatch()

    tables = make_tables(2, SHORT_RULES, seed=6)
    links = memory_links(2)
    results, _ = await run_seats(tables, links, {0: bot(0), 1: leave}, hang_up=True)  # type: ignore[dict-item]
    assert (results[1].status, results[1].problem) == ("aborted", "quit")  # saved as "aborted: quit"
    r0 = results[0]
    # Seat 1 signed that it leaves; one seat alone cannot go on: the match stops there,
    # and a signed leave is nobody's fault.
    assert r0.status == "left" and r0.blamed == ()
    assert r0.problem == "p1 left the match (it said: 'quit'): nobody remains to play on", r0.problem


async def test_a_player_who_leaves_is_not_waited_for_and_the_others_finish(
    autojump_clock: trio.testing.MockClock,
) -> None:
    from p2pcards.net.runner import QuitMatch
    from p2pcards.protocol.audit import audit_bytes
    from p2pcards.protocol.sitting import Sitting
    from p2pcards.protocol.transcript import encode_file

    turns = 0

    async def leave_at_third_turn(table: Table) -> object:
        nonlocal turns
        turns += 1
        if turns == 3:
            raise QuitMatch()
        return await bot(1)(table)

    tables = {s: Sitting(t) for s, t in make_tables(3, SHORT_RULES, seed=6).items()}
    links = memory_links(3)
    t0 = trio.current_time()
    deciders = {0: bot(0), 1: leave_at_third_turn, 2: bot(2)}
    results, ended = await run_seats(tables, links, deciders, hang_up=True)  # type: ignore[arg-type]
    assert results[1].status == "aborted"
    for s in (0, 2):
        assert results[s].status == "over" and results[s].blamed == (), results[s]
        # Nobody waited for the leaver: not one step timeout went by.
        assert ended[s] - t0 < TIMEOUTS.step, ended
    files = {s: encode_file(tables[s].records_to_save(), saved_by=s, status="over") for s in (0, 2)}
    assert len({tuple(r.raw for r in tables[s].records_to_save()) for s in (0, 2)}) == 1
    for data in files.values():
        report = audit_bytes(data)
        assert report.valid, report.summary()
        text = report.summary()
        assert "p1 left after 0 hands (signed that they leave" in text, text
        assert [p.name for p in report.table.roster] == ["p0", "p2"]


def assert_p1_left_signed(tables: dict[int, Sitting], results: dict[int, RunResult]) -> None:
    """Seats 0 and 2 heard p1's signed leave: they finished the match, blaming nobody."""
    for s in (0, 2):
        assert results[s].status == "over" and results[s].blamed == (), results[s]
        report = audit_bytes(encode_file(tables[s].records_to_save(), saved_by=s, status="over"))
        assert report.valid and "p1 left after 0 hands (signed that they leave" in report.summary()


class StoppedWhileSending(WrappedStream):
    """Once ``armed``, the next send sets ``stop`` (the program is stopped) and takes half a
    second to be written: the stop comes in the middle of that frame."""

    def __init__(self, inner: trio.abc.Stream, stop: trio.Event) -> None:
        super().__init__(inner)
        self.stop = stop
        self.armed = False

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self.armed:
            self.armed = False
            self.stop.set()
            await trio.sleep(0.5)
        await self.inner.send_all(data)


async def test_a_leave_being_sent_when_the_program_is_stopped_still_reaches_the_others(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """A closed terminal both ends the person's input (they quit) and sends the hang-up
    signal, which stops the program: that stop must not cut the signed leave short, or
    the others wait out this seat's grace and the leave is in nobody's file."""
    from p2pcards.net.runner import QuitMatch

    stop = trio.Event()
    streams: list[StoppedWhileSending] = []

    def wrap(seat: int, peer: int, stream: trio.abc.Stream) -> trio.abc.Stream:
        if seat != 1:
            return stream
        streams.append(StoppedWhileSending(stream, stop))
        return streams[-1]

    turns = 0

    async def quits_at_third_turn(table: Table) -> object:
        nonlocal turns
        turns += 1
        if turns == 3:
            for stream in streams:
                stream.armed = True  # the leave is the next frame on each link
            raise QuitMatch()
        return await bot(1)(table)

    tables = {s: Sitting(t) for s, t in make_tables(3, SHORT_RULES, seed=6).items()}
    links = memory_links(3, wrap)
    t0 = trio.current_time()
    deciders = {0: bot(0), 1: quits_at_third_turn, 2: bot(2)}
    results, ended = await run_seats(
        tables,
        links,
        deciders,  # type: ignore[arg-type]
        hang_up=True,
        interrupts={1: stop},
    )
    assert stop.is_set() and results[1].status == "aborted"
    assert_p1_left_signed(tables, results)
    assert all(ended[s] - t0 < TIMEOUTS.step for s in (0, 2)), ended  # nobody waited for the leaver


async def test_a_leave_written_to_a_slow_disk_is_still_sent(autojump_clock: trio.testing.MockClock) -> None:
    """The leave is made durable before it is sent (write-ahead); a disk that takes seconds
    for it must not use up the time given to sending it, or the others never hear it."""
    from p2pcards.net.runner import LEAVE_SEND, QuitMatch
    from p2pcards.protocol.messages import Leave

    slow: list[float] = []

    def journal(records: list[SignedRecord]) -> None:
        if any(isinstance(r.record.body, Leave) for r in records):
            autojump_clock.jump(LEAVE_SEND + 2)  # (the disk's time, on the table's clock)
            slow.append(LEAVE_SEND + 2)

    async def quits_at_once(table: Table) -> object:
        raise QuitMatch()

    tables = {s: Sitting(t) for s, t in make_tables(3, SHORT_RULES, seed=6).items()}
    links = memory_links(3)
    deciders = {0: bot(0), 1: quits_at_once, 2: bot(2)}
    results, _ = await run_seats(tables, links, deciders, hang_up=True, journals={1: journal})  # type: ignore[arg-type]
    assert slow and results[1].status == "aborted"
    assert_p1_left_signed(tables, results)


async def test_a_send_cancelled_before_it_began_leaves_the_link_usable() -> None:
    """The program stopping as a frame was about to go (the send never began) leaves the
    link as it was: the seat's leave can still be sent on it. Only a send cut in the
    middle breaks a link (its stream, under TLS, is then unusable)."""
    links = memory_links(2)
    a, b = links[0][1], links[1][0]
    scope = trio.CancelScope()

    class StoppedAsTaken:
        """The link's send lock, taken just as the stop comes (taking a free lock yields,
        and the stop may be delivered then, before the frame's first byte)."""

        async def __aenter__(self) -> None:
            await trio.lowlevel.checkpoint()
            scope.cancel()

        async def __aexit__(self, *exc: object) -> None:
            return None

    lock, a._send_lock = a._send_lock, StoppedAsTaken()  # type: ignore[assignment]
    with scope:
        await a.send(b"\x01")
    a._send_lock = lock
    assert scope.cancelled_caught and not a.send_broken
    await a.send(b"\x02")  # (an interrupted send would refuse this one)
    assert await b.receive() == 2


async def test_a_send_cut_in_the_middle_hangs_up_so_that_the_peer_sees_the_break() -> None:
    """A frame that waited too long on a stalled path and was cut half-way leaves the peer
    holding part of a frame: nothing sent after it could be read. The link hangs up, so
    that the peer's read ends (its node links again) instead of waiting on a silent link,
    and this end's own read ends too."""
    a_stream, b_stream = trio.testing.memory_stream_pair()

    class Stalls(trio.abc.Stream):
        """The path stalls half-way through the first frame: half of it goes, then nothing."""

        async def send_all(self, data: bytes | bytearray | memoryview) -> None:
            await a_stream.send_all(bytes(data)[: len(data) // 2])
            await trio.sleep_forever()

        async def wait_send_all_might_not_block(self) -> None:
            await a_stream.wait_send_all_might_not_block()

        async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
            return await a_stream.receive_some(max_bytes)

        async def aclose(self) -> None:
            await a_stream.aclose()

    a, b = Link(Stalls()), Link(b_stream)
    frame = b"\xc4\xff" + bytes(255)  # one msgpack bin of 255 bytes
    with trio.move_on_after(0.5) as cut:
        await a.send(frame)  # nobody reads: it waits, then is cut
    assert cut.cancelled_caught and a.send_broken
    with trio.fail_after(1), pytest.raises(LinkClosed):
        await b.receive()
    with trio.fail_after(1), pytest.raises(LinkClosed):
        await a.receive()
    with pytest.raises(LinkClosed):
        await a.send(b"\x01")


async def test_at_a_table_of_two_a_player_whose_time_runs_out_leaves_signed_at_once(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """With nobody to play on with, the seat whose turn time ran out leaves as a player who
    quits does, signed, when the table's clock ends: the other hears it at once and the
    match ends there, with nobody named (neither waits for an answer to a dead match)."""
    tables = make_tables(2, SHORT_RULES, seed=2)
    links = memory_links(2)
    first = tables[0].my_turn  # the seat that never answers is the first to play
    deciders = {0: stuck(), 1: bot(1)} if first else {0: bot(0), 1: stuck()}
    results, ended = await run_seats(tables, links, deciders)
    slow, other = (0, 1) if first else (1, 0)
    assert results[slow].status == "aborted" and results[slow].problem == TURN_TIMED_OUT
    assert TIMEOUTS.turn <= ended[slow] <= TIMEOUTS.turn + SLACK
    assert results[other].status == "left" and results[other].blamed == (), results[other]
    assert ended[other] <= TIMEOUTS.turn + SLACK


async def test_a_player_deciding_is_warned_at_60_and_10_seconds_left(
    autojump_clock: trio.testing.MockClock,
) -> None:
    import threading
    from types import SimpleNamespace

    from p2pcards.ui.netgame import HumanDecider

    said: list[tuple[float, str]] = []
    answered = threading.Event()
    t0 = trio.current_time()

    class Console:
        def tr(self, key: str, **values: object) -> str:
            return f"{key} {values}"

        def say(self, text: str) -> None:
            if not text:
                return  # the line break before a warning
            said.append((trio.current_time() - t0, text))
            if len(said) == 2:
                answered.set()  # the player answers after the second warning

    class Screen:
        console = Console()

        def ask(self, view: object, legal: list[str], explain: object, rng: object) -> str:
            answered.wait(10)
            return legal[0]

    decider = HumanDecider(screen=Screen(), turn_time=lambda: 100.0)  # type: ignore[arg-type]
    table = SimpleNamespace(view=lambda: object(), legal_actions=lambda: ["play"], match=None)
    assert await decider(table) == "play"  # type: ignore[arg-type]
    assert [round(at) for at, _ in said] == [40, 90]
    assert "'left': 60" in said[0][1] and "'left': 10" in said[1][1]


async def test_a_player_who_chooses_to_leave_between_turns_leaves_at_once(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """``leaving`` (the player quit at the pause between hands): the seat signs that it
    leaves as soon as the runner sees it, without waiting for its next turn."""
    from p2pcards.net.runner import run_table as run
    from p2pcards.protocol.sitting import Sitting

    tables = {s: Sitting(t) for s, t in make_tables(3, SHORT_RULES, seed=4).items()}
    links = memory_links(3)
    results: dict[int, RunResult] = {}

    def wants_to_leave() -> bool:  # the player quit at the pause, once the match is well under way
        return tables[2].current.step >= 30

    def thinking(s: int) -> Decider:  # people who take a second a move: the match outlasts any grace
        play = bot(s)

        async def decide(table: Table) -> object:
            await trio.sleep(1)
            return await play(table)

        return decide

    async def seat(s: int) -> None:
        results[s] = await run(
            tables[s],  # type: ignore[arg-type]
            links[s],
            thinking(s),
            timeouts=TIMEOUTS,
            leaving=wants_to_leave if s == 2 else (lambda: False),
        )
        if s == 2:
            for link in links[2].values():
                await link.aclose()

    with trio.fail_after(20 * TIMEOUTS.turn):
        async with trio.open_nursery() as nursery:
            for s in tables:
                nursery.start_soon(seat, s)
    assert results[2].status == "aborted"
    for s in (0, 1):
        assert results[s].status == "over" and tables[s].present == (0, 1), results[s]
    assert 2 in tables[0].tables[0].departed
    # Nobody waited for a clock to run out (the match itself took a second a move), and the
    # leaver's parting notice, which came after its signed leave, stopped nothing.
    assert all(r.problem is None for r in results.values() if r.status == "over")


async def test_a_player_who_chooses_to_leave_while_another_thinks_is_gone_at_once(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """``leave_chosen`` (the player typed quit while another player thinks): the runner
    looks at ``leaving`` as the event is set, not at its next wake-up (a frame, or the
    notice every ``WAIT_NOTICE`` seconds), so the others hear the leave at once."""
    from p2pcards.net.runner import run_table as run

    tables = {s: Sitting(t) for s, t in make_tables(3, SHORT_RULES, seed=4).items()}
    links = memory_links(3)
    chosen, wants = trio.Event(), [False]
    times: dict[str, float] = {}

    def slow(s: int) -> Decider:  # seat 0 thinks 60 s a move: the table is quiet meanwhile
        play = bot(s)

        async def decide(table: Table) -> object:
            if s == 0:
                await trio.sleep(60)
            return await play(table)

        return decide

    def heard(table: Sitting) -> None:
        if 2 in table.tables[0].departed:
            times.setdefault("heard", trio.current_time())

    async def choose_to_leave() -> None:
        while not (tables[0].current.my_turn and tables[2].current.step >= 8):
            await trio.sleep(0.5)
        await trio.sleep(7)  # well into seat 0's thinking, between two of the runner's notices
        wants[0] = True
        times["chosen"] = trio.current_time()
        chosen.set()

    async def seat(s: int) -> None:
        await run(
            tables[s],  # type: ignore[arg-type]
            links[s],
            slow(s),
            timeouts=TIMEOUTS,
            on_progress=heard if s == 0 else (lambda t: None),
            leaving=(lambda: wants[0]) if s == 2 else (lambda: False),
            leave_chosen=chosen if s == 2 else None,
        )
        if s == 2:
            for link in links[2].values():
                await link.aclose()

    with trio.fail_after(100 * TIMEOUTS.turn):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(choose_to_leave)
            for s in tables:
                nursery.start_soon(seat, s)
    assert times["heard"] - times["chosen"] < 0.5, times


class Withholding(Link):
    """Seat 1's link to one peer: its own records never leave on their own as they are
    signed; only inside its answers to the peer's ``need`` frames (evidence), or, with
    ``in_answers`` False, never at all (the peer gets them from the others)."""

    def __init__(self, inner: Link, in_answers: bool = True) -> None:
        self.__dict__.update(inner.__dict__)
        self.in_answers = in_answers

    async def send(self, frame: bytes) -> None:
        item = decode_frame(frame)
        if isinstance(item, SignedRecord) and item.record.seat == 1:
            return
        if isinstance(item, Evidence) and not self.in_answers:
            kept = tuple(r for r in item.records if r.record.seat != 1)
            if not kept:
                return
            frame = Evidence(kept).to_frame()
        await Link.send(self, frame)


async def test_a_seat_that_sends_its_records_only_when_asked_is_named_within_a_few_steps(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Served just in time, each step waits for the asking (EARLY_ASK, or WAIT_NOTICE), and
    no timeout ever runs out: the others name the seat at its third such step."""
    tables = make_tables(3, SHORT_RULES, seed=4)
    links = memory_links(3)
    for peer in (0, 2):
        links[1][peer] = Withholding(links[1][peer])
    results, ended = await run_seats(tables, links, {s: bot(s) for s in tables}, hung=frozenset({1}))
    for s in (0, 2):
        r = results[s]
        assert r.status == "failed" and r.blamed == (1,), r
        assert "withholds its records until asked" in (r.problem or "")
        assert ended[s] <= 4 * WAIT_NOTICE + SLACK, ended  # three asked-for steps, not a whole match
        assert tables[s].step < 10, tables[s].step


class Wrapping(Link):
    """Seat 1's link to one peer: each of its own records leaves at once, as it is signed,
    but inside an evidence frame of its own instead of a record frame (nothing asked)."""

    def __init__(self, inner: Link) -> None:
        self.__dict__.update(inner.__dict__)

    async def send(self, frame: bytes) -> None:
        item = decode_frame(frame)
        if isinstance(item, SignedRecord) and item.record.seat == 1:
            frame = Evidence((item,)).to_frame()
        await Link.send(self, frame)


class OtherResult(Link):
    """Seat 2's link to seat 1: its signed result there has other totals than the one the
    others get (an equivocation at the last step, which the receiver proves wrong at once)."""

    def __init__(self, inner: Link, seed: int) -> None:
        self.__dict__.update(inner.__dict__)
        self.seed = seed

    async def send(self, frame: bytes) -> None:
        item = decode_frame(frame)
        if isinstance(item, SignedRecord) and item.record.seat == 2 and item.record.body.TYPE == "result":
            obj = record_map(item.raw)
            obj["body"]["totals"] = [t + 1 for t in obj["body"]["totals"]]
            other = sign_map(obj, 2, self.seed)
            frame = SignedRecord(other.raw, other.sig, item.record).to_frame()
        await Link.send(self, frame)


async def test_a_lie_at_the_last_step_is_proved_to_a_seat_that_had_finished(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 2 signs its result twice: the true totals for seat 0, other ones for seat 1. Seat
    1 refuses them and stops, forwarding them (7.3); seat 0 had finished with the true ones.
    It still reads what comes while it lingers: the two results prove the lie, seat 0 names
    seat 2 too (not "every node verified every move"), and its file proves it."""
    tables = make_tables(3, SHORT_RULES, seed=4)
    links = memory_links(3)
    links[2][1] = OtherResult(links[2][1], seed=4)
    results, _ = await run_seats(tables, links, {s: bot(s) for s in tables}, hung=frozenset({2}))
    for s in (0, 1):
        r = results[s]
        assert r.status == "failed" and r.blamed == (2,), (s, r)
    assert "equivocation" in (results[0].problem or ""), results[0]
    report = audit_bytes(encode_file(tables[0].records_to_save(), saved_by=0, status="failed"))
    assert not report.valid and [p.seat for p in report.problems if p.seat is not None] == [2], report


async def test_a_seat_that_sends_its_records_at_once_inside_evidence_frames_withholds_nothing(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """protocol.md 7.2: a seat is named for withholding only when its own record of the step
    comes first in an evidence frame after this node asked for it (a ``need`` naming it):
    one sent at once, unasked, in an evidence frame is not withheld, and the match ends."""
    tables = make_tables(3, SHORT_RULES, seed=4)
    links = memory_links(3)
    for peer in (0, 2):
        links[1][peer] = Wrapping(links[1][peer])
    results, _ = await run_seats(tables, links, {s: bot(s) for s in tables})
    for s in tables:
        assert results[s].status == "over" and results[s].blamed == (), results[s]


async def test_a_seat_that_withholds_its_records_from_one_peer_slows_it_by_a_round_trip_not_a_wait(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 1 never sends seat 2 its records; seat 2 gets each from seat 0, on asking.
    It asks as soon as a record of a later step shows the step complete elsewhere, and
    otherwise a second into the step: the match takes less than EARLY_ASK more a record
    withheld, where waiting for the first notice took WAIT_NOTICE a record."""
    rules = NinesRules(hands=2)
    tables = make_tables(3, rules, seed=4)
    honest, honest_ended = await run_seats(tables, memory_links(3), {s: bot(s) for s in tables})
    assert all(r.status == "over" for r in honest.values()), honest
    tables = make_tables(3, rules, seed=4)
    links = memory_links(3)
    links[1][2] = Withholding(links[1][2], in_answers=False)
    results, ended = await run_seats(tables, links, {s: bot(s) for s in tables})
    for s in tables:
        assert results[s].status == "over" and results[s].blamed == (), results[s]
    assert [r.raw for r in tables[2].records_to_save()] == [r.raw for r in tables[0].records_to_save()]
    withheld = sum(1 for r in tables[2].records_to_save() if r.record.seat == 1)
    assert withheld > 20
    extra = max(ended.values()) - max(honest_ended.values())
    assert extra <= withheld * EARLY_ASK, (extra, withheld)


def thinking(seed: int, seconds: float) -> Decider:
    """A bot that takes ``seconds`` (virtual) over each move."""
    decide = bot(seed)

    async def slow(table: Table) -> Action:
        await trio.sleep(seconds)
        return await decide(table)

    return slow


async def test_a_seat_that_lacks_a_record_others_took_late_asks_for_it_at_once_not_at_the_next_notice(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 1 thinks 2.5 s over each move and never sends seat 2 its records. Seat 2's early
    ask (1 s into the step) comes before the move exists, so it must ask again: it does
    so a second after its last ask as soon as a peer shows it is past the step (seat 0's
    records or its ``need``), instead of at the next notice (5 s into the step). Each
    move withheld then costs seat 2 about a second, not two and a half."""
    rules = NinesRules(hands=1)
    tables = make_tables(3, rules, seed=4)
    links = memory_links(3)
    links[1][2] = Withholding(links[1][2], in_answers=False)
    deciders = {0: bot(0), 1: thinking(1, 2.5), 2: bot(2)}
    waits: dict[int, list[tuple[float, float, tuple[int, ...]]]] = {}
    results, ended = await run_seats(tables, links, deciders, on_wait=waits)
    for s in tables:
        assert results[s].status == "over" and results[s].blamed == (), results[s]
    turns = sum(1 for r in tables[2].records_to_save() if r.record.seat == 1 and r.record.body.TYPE == "play")
    assert turns >= 3
    # Seat 2 ends at most EARLY_ASK after seat 0, whatever the number of moves withheld.
    assert ended[2] - ended[0] <= EARLY_ASK + SLACK, ended
    assert not waits.get(2), waits  # never waited long enough for a notice


async def test_the_first_step_waits_for_the_mesh_to_form_too(autojump_clock: trio.testing.MockClock) -> None:
    """Seat 2 starts 5 s past the step timeout, as a seat still forming its links would
    (hole punching, a dial that timed out), so its join comes that late: the others wait
    (the first step's wait adds the mesh's time) and the match is played to its end,
    nobody named."""
    tables = make_tables(3, SHORT_RULES, seed=4)
    links = memory_links(3)
    results: dict[int, RunResult] = {}

    async def seat(s: int, after: float) -> None:
        await trio.sleep(after)
        results[s] = await run_table(tables[s], links[s], bot(s), timeouts=TIMEOUTS)

    with trio.fail_after(20 * TIMEOUTS.turn):
        async with trio.open_nursery() as nursery:
            for s in tables:
                nursery.start_soon(seat, s, TIMEOUTS.step + 5 if s == 2 else 0)
    assert all(r.status == "over" and r.blamed == () for r in results.values()), results


async def test_a_seat_that_leaves_while_a_player_thinks_is_dealt_with_at_once(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """A person thinks about their move; meanwhile another seat leaves. The table keeps
    reading its links while the person thinks: the match goes on without the leaver at
    once, the question about the hand that no longer counts is withdrawn (cancelled) and
    the person is asked again at the new table, instead of moving first in a void hand."""
    think = 50.0
    tables = {s: Sitting(t) for s, t in make_tables(3, NinesRules(target=30), seed=4).items()}
    links = memory_links(3)
    calls: list[tuple[object, int, float]] = []
    cancelled: list[int] = []
    leave_now = False
    play = bot(0)

    async def thinker(table: Table) -> object:
        nonlocal leave_now
        calls.append((table.current, table.step, trio.current_time()))  # type: ignore[attr-defined]
        if len(calls) == 3:
            leave_now = True  # seat 2 leaves while this person thinks
        try:
            await trio.sleep(think)
        except trio.Cancelled:
            cancelled.append(len(calls))
            raise
        return await play(table)

    results: dict[int, RunResult] = {}
    with trio.fail_after(20 * TIMEOUTS.turn):
        async with trio.open_nursery() as nursery:

            async def seat(s: int, decide: Decider, leaving: Callable[[], bool]) -> None:
                results[s] = await run_table(tables[s], links[s], decide, timeouts=TIMEOUTS, leaving=leaving)
                if s == 2:
                    for link in links[s].values():
                        await link.aclose()

            nursery.start_soon(seat, 0, thinker, lambda: False)
            nursery.start_soon(seat, 1, bot(1), lambda: False)
            nursery.start_soon(seat, 2, bot(2), lambda: leave_now)
    await close_all(links)
    assert results[2].status == "aborted"
    for s in (0, 1):
        assert results[s].status == "over" and results[s].blamed == (), results[s]
    assert cancelled == [3]  # the question about the void hand was withdrawn...
    first_table, _, asked_at = calls[2]
    next_table, _, asked_again = calls[3]
    assert next_table is not first_table  # ...and asked again at the new table,
    assert asked_again - asked_at < WAIT_NOTICE + SLACK < think  # without waiting for the answer
    assert len({tuple(r.raw for r in tables[s].records_to_save()) for s in (0, 1)}) == 1
    for s in (0, 1):
        report = audit_bytes(encode_file(tables[s].records_to_save(), saved_by=s, status="over"))
        assert report.valid, report.summary()
        assert "p2 left after" in report.summary()


async def test_a_decision_whose_turn_went_away_before_it_began_asks_nothing_and_raises_nothing() -> None:
    """The main loop starts a decision when the table waits for this seat; frames already
    queued may move the table on (the match goes on at a new table, say) before the
    decision's task takes its first step. It must then not call the decider, which would
    find no hand to look at (a bot's view is None between tables), and must report that
    nothing was asked, so that the loop asks again on the new table."""
    from p2pcards.net.runner import _Deciding

    table = Sitting(make_tables(2, ONE_HAND)[0])
    table.start()
    asked: list[object] = []

    async def decide(t: object) -> object:
        asked.append(t)
        raise AssertionError("asked after the turn went away")

    decision = _Deciding((table.current, table.step - 1), turn_ends=trio.current_time() + 60)
    await decision.run(decide, table)
    assert decision.done.is_set() and decision.outcome is None and asked == []


@pytest.mark.parametrize("attempt", range(12))
async def test_a_fault_that_comes_the_moment_a_decision_is_made_is_read_once_its_record_is_out(
    autojump_clock: trio.testing.MockClock, attempt: int
) -> None:
    """The frame that would stop seat 1 comes in as its decision is made, before the move is
    written (the loop reads the frame first, as the scheduler may order the two): it still
    waits until the record is out. Seat 1 writes its move, then blames seat 0; seat 2 never
    blames seat 1. (Found by an outside hostile joiner: the frame was read at once, seat 1
    stopped before writing its move, and the host named it.)"""
    import msgpack
    from protocol_helpers import record_map

    from p2pcards.protocol.wire import parse_record

    tables = make_tables(3, SHORT_RULES, seed=4 + attempt)
    links = memory_links(3)
    sent = trio.Event()
    quick = bot(1)

    async def decide_as_it_comes(table: Any) -> Any:
        if not sent.is_set() and table.step >= 12:
            theirs = [r for r in tables[1].records_to_save() if r.record.seat == 2][-1]
            edited = record_map(theirs.raw)
            edited["prev"] = bytes(32)  # another history, under seat 2's own signature
            forged = parse_record(msgpack.packb(edited), theirs.sig)
            await links[0][1].send(Evidence((forged,)).to_frame())
            sent.set()
            for _ in range(attempt % 3):  # (seat 1's reader takes the frame to its loop meanwhile)
                await trio.lowlevel.checkpoint()
        return await quick(table)

    results, _ = await run_seats(tables, links, {0: bot(0), 1: decide_as_it_comes, 2: bot(2)})
    assert sent.is_set()
    assert results[1].status == "failed" and results[1].blamed == (0,), results[1]
    assert 1 not in results[2].blamed, results[2]


async def test_a_fault_shown_to_a_seat_while_it_decides_is_read_once_its_record_is_out(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """protocol.md 7.3: an honest node reads no frame that could stop it while its own
    decision is due. A hostile seat 0 (the host, say) shows seat 1, while seat 1 thinks
    about its move, a record of seat 2 under a wrong signature. Read at once, it would
    stop seat 1 before its move, and seat 2, which waits for that move, would blame
    seat 1 ("stopped instead of sending its record"). Seat 1 writes its move first, then
    reads the frame and blames seat 0; seat 2 never blames seat 1."""
    tables = make_tables(3, SHORT_RULES, seed=4)
    links = memory_links(3)
    deciding = trio.Event()
    quick = bot(1)

    async def slow(table: object) -> object:
        if not deciding.is_set() and table.step >= 12:  # type: ignore[attr-defined]
            deciding.set()
            await trio.sleep(5)
        return await quick(table)  # type: ignore[arg-type]

    async def forge() -> None:
        await deciding.wait()
        import msgpack
        from protocol_helpers import record_map

        from p2pcards.protocol.wire import parse_record

        theirs = [r for r in tables[1].records_to_save() if r.record.seat == 2][-1]
        edited = record_map(theirs.raw)
        edited["prev"] = bytes(32)  # another history, under seat 2's own signature
        forged = parse_record(msgpack.packb(edited), theirs.sig)
        await links[0][1].send(Evidence((forged,)).to_frame())

    results: dict[int, RunResult] = {}

    async def play() -> None:
        results.update((await run_seats(tables, links, {0: bot(0), 1: slow, 2: bot(2)}))[0])

    async with trio.open_nursery() as nursery:
        nursery.start_soon(forge)
        nursery.start_soon(play)
    assert deciding.is_set()
    assert results[1].status == "failed" and results[1].blamed == (0,), results[1]
    assert 1 not in results[2].blamed, results[2]
    moved = [r for r in tables[2].records_to_save() if r.record.seat == 1]
    assert moved and moved[-1].record.step >= 12  # seat 1's move reached seat 2 before it stopped


@pytest.mark.parametrize("reason", ["interrupted", "quit"])
async def test_a_seat_leaves_with_the_reason_its_decider_gives(
    autojump_clock: trio.testing.MockClock, reason: str
) -> None:
    """A person's terminal closed at their prompt is a leave signed "interrupted", as the
    hang-up signal makes it, never "quit": the decider says why (``QuitMatch``), the runner
    signs it, and this seat's run ends as an interrupted one."""
    from p2pcards.net.runner import QuitMatch
    from p2pcards.net.verdicts import INTERRUPTED

    async def leaves(table: Table) -> object:
        raise QuitMatch(reason)

    tables = {s: Sitting(t) for s, t in make_tables(3, SHORT_RULES, seed=6).items()}
    deciders = {0: bot(0), 1: leaves, 2: bot(2)}
    results, _ = await run_seats(tables, memory_links(3), deciders)  # type: ignore[arg-type]
    assert results[1].status == "aborted"
    assert (results[1].problem == INTERRUPTED) == (reason == INTERRUPTED), results[1]
    report = audit_bytes(encode_file(tables[0].records_to_save(), saved_by=0, status="over"))
    assert [(d["name"], d["reason"]) for d in report.departures()] == [("p1", reason)], report.departures()
