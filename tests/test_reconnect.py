"""Links that break mid-match and come back, in virtual time (``autojump_clock``).

Seats run ``run_table`` over in-memory links. A switchboard plays the session
layer's relinker: the lower seat of a pair dials again, the higher one waits
for it. A link is cut by closing both of its ends; the match must go on when
the link is back, and only a seat that stays away past the grace is named.
"""

from __future__ import annotations

import errno
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass

import pytest
import trio
import trio.testing
from hypothesis import given, settings
from hypothesis import strategies as st
from net_helpers import bot, memory_links
from protocol_helpers import SHORT_RULES, make_tables

from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import Action, NinesRules
from p2pcards.net.link import Link, LinkClosed
from p2pcards.net.runner import ABSENCE_ALLOWANCE, RETRY, Decider, RunResult, run_table
from p2pcards.net.session import Timeouts
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.sitting import Sitting
from p2pcards.protocol.transcript import encode_file

TIMEOUTS = Timeouts(turn=120.0, step=30.0)
GRACE = 60.0


class Switchboard:
    """New in-memory links on demand, while a pair is allowed to reconnect."""

    def __init__(self) -> None:
        self.inbox: dict[tuple[int, int], trio.MemorySendChannel[Link]] = {}
        self.outbox: dict[tuple[int, int], trio.MemoryReceiveChannel[Link]] = {}
        self.blocked: set[int] = set()  # seats whose connection is down for good
        self.blocked_pairs: set[frozenset[int]] = set()  # pairs that can link no more (the rest can)
        self.refusing: set[int] = set()  # seats whose programs ended: their systems refuse a dial
        self.relinks = 0
        self.latest: dict[tuple[int, int], tuple[Link, Link]] = {}

    def channel(self, dialer: int, acceptor: int) -> None:
        send, receive = trio.open_memory_channel[Link](4)
        self.inbox[(dialer, acceptor)] = send
        self.outbox[(dialer, acceptor)] = receive

    def for_seat(self, seat: int) -> Callable[[int], object]:
        board = self

        class Relinker:
            def dials(self, peer: int) -> bool:
                return seat < peer  # the lower seat dials

            async def relink(self, peer: int) -> Link:
                if peer in board.refusing:
                    await trio.sleep(0.1)
                    raise ConnectionRefusedError(errno.ECONNREFUSED, os.strerror(errno.ECONNREFUSED))
                if seat in board.blocked or peer in board.blocked or {seat, peer} in board.blocked_pairs:
                    await trio.sleep(1)
                    raise LinkClosed("unreachable")
                if seat < peer:  # the lower seat dials
                    mine, theirs = trio.testing.memory_stream_pair()
                    ends = Link(mine, peer=f"seat {peer}"), Link(theirs, peer=f"seat {seat}")
                    board.latest[(seat, peer)] = ends
                    board.relinks += 1
                    await board.inbox[(seat, peer)].send(ends[1])
                    return ends[0]
                return await board.outbox[(peer, seat)].receive()

        return Relinker()  # type: ignore[return-value]

    async def blip(
        self, links: dict[int, dict[int, Link]], seat: int, peers: Sequence[int], away: float
    ) -> None:
        """Cut ``seat``'s links with ``peers`` for ``away`` seconds, wait (30 s at most) until
        each is dialled again, and put the new links in ``links``."""
        relinked = self.relinks + len(peers)
        self.blocked.add(seat)
        for peer in peers:
            await cut(links[seat][peer], links[peer][seat])
        await trio.sleep(away)
        self.blocked.discard(seat)
        with trio.move_on_after(30):
            while self.relinks < relinked:
                await trio.sleep(0.1)
        for peer in peers:
            pair = self.latest.get((min(seat, peer), max(seat, peer)))
            if pair is not None:  # (the lower seat dials: its end first)
                peer_end, seat_end = pair if peer < seat else (pair[1], pair[0])
                links[peer][seat], links[seat][peer] = peer_end, seat_end


Seated = tuple[dict[int, Table], dict[int, dict[int, Link]], "Switchboard"]


def three_on_a_switchboard(rules: NinesRules) -> Seated:
    """Three seats of a match by ``rules``, linked in memory, each pair free to link again."""
    tables: dict[int, Table] = {s: Sitting(t) for s, t in make_tables(3, rules, seed=3).items()}  # type: ignore[misc]
    board = Switchboard()
    for a in range(3):
        for b in range(a + 1, 3):
            board.channel(a, b)
    return tables, memory_links(3), board


async def run_with_cuts(
    n: int,
    cuts: Callable[[dict[int, Table], dict[int, dict[int, Link]], Switchboard], object],
    *,
    grace: float = GRACE,
    timeouts: Timeouts = TIMEOUTS,
    wrap: Callable[[int, int, trio.abc.Stream], trio.abc.Stream] = lambda seat, peer, stream: stream,
    unlinked: frozenset[frozenset[int]] = frozenset(),
    seat_timeouts: dict[int, Timeouts] | None = None,
    deciders: dict[int, Decider] | None = None,
    seat_grace: dict[int, float] | None = None,
    waits: dict[int, list[tuple[float, int, float]]] | None = None,
) -> tuple[dict[int, Table], dict[int, RunResult], dict[int, list[tuple[int, str]]], Switchboard]:
    """``unlinked``: pairs of seats with no link of their own (they reach each other
    through relays, as seats that accept no connection do). ``seat_timeouts``: the
    clocks of some seats, if not ``timeouts``. ``deciders``: some seats' deciders, if
    not a bot that answers at once. ``seat_grace``: some seats' grace, if not ``grace``.
    ``waits``: where each seat's waits as it shows them go (time, step, seconds waited)."""
    tables: dict[int, Table] = {s: Sitting(t) for s, t in make_tables(n, SHORT_RULES, seed=3).items()}  # type: ignore[misc]
    links = memory_links(n, wrap)
    for pair in unlinked:
        a, b = sorted(pair)
        del links[a][b], links[b][a]
    board = Switchboard()
    for a in range(n):
        for b in range(a + 1, n):
            board.channel(a, b)
            if frozenset((a, b)) in unlinked:
                board.blocked_pairs.add(frozenset((a, b)))
    results: dict[int, RunResult] = {}
    notices: dict[int, list[tuple[int, str]]] = {s: [] for s in tables}
    current: dict[int, dict[int, Link]] = {s: dict(links[s]) for s in tables}

    async def seat(s: int) -> None:
        def on_link(peer: int, what: str, seconds: float) -> None:
            notices[s].append((peer, what))

        def on_wait(table: Table, waited: float) -> None:
            if waits is not None:
                waits.setdefault(s, []).append((trio.current_time(), table.step, waited))

        results[s] = await run_table(
            tables[s],
            links[s],
            (deciders or {}).get(s) or bot(s),
            timeouts=(seat_timeouts or {}).get(s, timeouts),
            relinker=board.for_seat(s),  # type: ignore[arg-type]
            grace=(seat_grace or {}).get(s, grace),
            on_link=on_link,
            on_wait=on_wait,
            relayed=[p for p in range(n) if frozenset((s, p)) in unlinked],
        )

    with trio.fail_after(3600):
        async with trio.open_nursery() as nursery:
            for s in tables:
                nursery.start_soon(seat, s)
            await cuts(tables, current, board)  # type: ignore[misc]
    return tables, results, notices, board


async def cut(link_a: Link, link_b: Link) -> None:
    """Break one connection: both ends see it fail."""
    await link_a.stream.aclose()
    await link_b.stream.aclose()


async def until_step(tables: dict[int, Table], step: int) -> None:
    """Until every table reaches ``step`` (or one stops running). Honest steps take no virtual
    time, so it waits at checkpoints; once the tables make no progress at all (they wait
    for a timeout), it lets virtual time run, a little at a time."""
    idle, last = 0, None
    while min(t.step for t in tables.values()) < step and all(t.status == "running" for t in tables.values()):
        now = tuple(t.step for t in tables.values())
        idle, last = (idle + 1 if now == last else 0), now
        if idle > 500:
            await trio.sleep(0.05)
        else:
            await trio.lowlevel.checkpoint()


def assert_valid_and_same(tables: dict[int, Table]) -> list[str]:
    """Every table's file audits valid and holds the same signed match; the summaries."""
    chains = {tuple(r.raw for r in t.records_to_save()) for t in tables.values()}
    assert len(chains) == 1
    summaries = []
    for s, t in tables.items():
        report = audit_bytes(encode_file(t.records_to_save(), saved_by=s, status=t.status))
        assert report.valid, report.problems
        summaries.append(report.summary())
    return summaries


async def test_a_broken_link_comes_back_and_the_match_goes_on(autojump_clock: trio.testing.MockClock) -> None:
    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        for k, step in enumerate((12, 40, 80)):
            await until_step(tables, step)
            if any(t.status != "running" for t in tables.values()):
                return
            await cut(links[0][1], links[1][0])
            while board.relinks < k + 1:
                await trio.sleep(0.01)
            links[0][1], links[1][0] = board.latest[(0, 1)]

    tables, results, notices, board = await run_with_cuts(3, cuts)
    assert {s: r.status for s, r in results.items()} == dict.fromkeys(tables, "over"), results
    assert board.relinks >= 1
    assert (1, "lost") in notices[0] and (1, "back") in notices[0]
    assert (0, "lost") in notices[1] and (0, "back") in notices[1]
    assert notices[2] == []  # seat 2's links never broke
    assert_valid_and_same(tables)


async def test_every_link_of_a_seat_breaks_and_comes_back(autojump_clock: trio.testing.MockClock) -> None:
    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        await until_step(tables, 20)
        board.blocked.add(2)  # seat 2's connection is down for 30 s
        for peer in (0, 1):
            await cut(links[2][peer], links[peer][2])
        await trio.sleep(30)
        board.blocked.discard(2)

    tables, results, notices, _ = await run_with_cuts(3, cuts)
    assert {s: r.status for s, r in results.items()} == dict.fromkeys(tables, "over"), results
    assert {p for p, what in notices[2] if what == "back"} == {0, 1}
    assert_valid_and_same(tables)


async def test_the_others_go_on_without_a_seat_that_stays_away_past_the_grace(
    autojump_clock: trio.testing.MockClock,
) -> None:
    t0 = trio.current_time()
    cut_at: list[float] = []

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        await until_step(tables, 20)
        board.blocked.add(2)  # seat 2 never comes back
        cut_at.append(trio.current_time() - t0)
        for peer in (0, 1):
            await cut(links[2][peer], links[peer][2])

    tables, results, notices, _ = await run_with_cuts(3, cuts)
    assert cut_at and cut_at[0] < GRACE
    for s in (0, 1):
        r = results[s]
        assert r.status == "over" and r.blamed == (), r
        assert (2, "gone") in notices[s]
        assert tables[s].present == (0, 1)
    # The two that remain finished the match on a table of their own, and their files
    # say who left and why; nobody is blamed for it.
    summaries = assert_valid_and_same({s: tables[s] for s in (0, 1)})
    for text in summaries:
        assert "p2 left after" in text and "judged gone by the others" in text, text
        assert "did not come back within 60 s" in text.replace("\n    ", " "), text
    # Seat 2 lost every link at once: it names nobody.
    assert results[2].status == "failed" and results[2].blamed == (), results[2]
    assert "own connection" in (results[2].problem or "")



async def test_a_seat_that_announced_it_stops_and_hangs_up_is_not_said_to_reconnect(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 0 finds seat 2 at fault (a malformed frame sent to it alone), says it stops the
    match, and hangs up, while its program, winding down, still takes a call. Seat 1 keeps
    going for a moment to reach its own verdict: that seat 0's link breaks and comes back
    then is no news to its player, who reads only why the match stopped."""
    extra: list[Link] = []

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        await until_step(tables, 20)
        await links[2][0].send(b"\xc1")  # a byte that starts no msgpack object
        while not tables[1].stopped:
            await trio.sleep(0.01)
        for peer in (1, 2):  # seat 0's program ends
            await cut(links[0][peer], links[peer][0])
        for peer in (1, 2):  # ...while its listener still answers a call
            mine, theirs = trio.testing.memory_stream_pair()
            extra.append(Link(mine, peer=f"seat {peer}"))
            await board.inbox[(0, peer)].send(Link(theirs, peer="seat 0"))

    tables, results, notices, _ = await run_with_cuts(3, cuts)
    assert results[0].blamed == (2,), results[0]
    assert 0 in tables[1].stopped and results[1].status != "over", results[1]
    assert "stopped the match" in (results[1].problem or ""), results[1]
    assert [n for n in notices[1] if n[0] == 0] == [], notices[1]
    for link in extra:
        await link.aclose()


async def test_a_hang_up_is_read_after_what_the_peer_said_before_it_while_this_seat_decides(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 0 finds seat 2 at fault, says it stops the match and hangs up, while seat 1's
    player is still choosing a move: what seat 0 said waits for that move (its record is
    owed first), and so must the hang-up that came after it. Read first, the hang-up took
    the link away with what came on it: seat 1 said seat 0 was reconnecting, never read
    that it had stopped, and waited for it in vain."""
    gate = trio.Event()
    plays = bot(1)

    async def slow(table: Table) -> Action:
        await gate.wait()
        return await plays(table)

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        while not tables[1].my_turn:
            await trio.sleep(0.01)
        await links[2][0].send(b"\xc1")  # a byte that starts no msgpack object
        while tables[0].status == "running":
            await trio.sleep(0.01)
        await trio.sleep(1)  # (seat 0 said why, to both)
        board.blocked.add(0)  # seat 0's program ends
        for peer in (1, 2):
            await links[0][peer].stream.aclose()
        await trio.sleep(5)
        gate.set()

    tables, results, notices, _ = await run_with_cuts(3, cuts, deciders={1: slow})
    assert results[0].blamed == (2,), results[0]
    assert 0 in tables[1].stopped, results[1]
    assert 0 not in results[1].blamed, results[1]
    assert (0, "lost") not in notices[1], notices[1]


async def test_a_seat_whose_dials_are_refused_says_the_others_programs_ended_not_its_connection(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 0's links to both others close at step 20 and, dialled again, their systems refuse
    the connection (nothing listens there: their programs ended). Seat 0 names nobody, and
    says so, rather than that its own connection may be down (which the refusals disprove)."""

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        await until_step(tables, 20)
        board.refusing.update((1, 2))
        for peer in (1, 2):
            await cut(links[0][peer], links[peer][0])

    _, results, _, _ = await run_with_cuts(3, cuts)
    r0 = results[0]
    assert r0.status == "failed" and r0.blamed == (), r0
    said = r0.problem or ""
    assert said.startswith("lost every connection at step"), said
    assert "refused the connection: nothing listens there any more" in said, said
    assert "p1 (seat 1) and p2 (seat 2)" in said and "own connection" not in said, said


async def test_a_seat_that_links_again_after_the_others_went_on_is_told_so_and_stops(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """protocol.md section 12: seat 0 is away past the others' grace (its own is longer),
    so they go on without it; when its connection comes back and it dials them, each
    sends it the ``continue`` records of the table that went on without it before hanging
    up, and it stops at once, blaming nobody ("the others went on without this seat"),
    instead of dialling on until its own grace runs out."""
    back_at: list[float] = []

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        await until_step(tables, 20)
        board.blocked.add(0)
        for peer in (1, 2):
            await cut(links[0][peer], links[peer][0])
        while not all(tables[s].present == (1, 2) for s in (1, 2)):  # type: ignore[attr-defined]
            await trio.sleep(1)
        board.blocked.discard(0)  # its connection is back: it dials the two others again
        back_at.append(trio.current_time())

    def slow(seat: int) -> Decider:  # the two who go on think a while: their match lasts
        quick = bot(seat)

        async def decide(table: object) -> object:
            await trio.sleep(2)
            return await quick(table)  # type: ignore[arg-type]

        return decide

    tables, results, _, _ = await run_with_cuts(
        3, cuts, seat_grace={0: 10 * GRACE}, deciders={1: slow(1), 2: slow(2)}
    )
    assert back_at, "the others did not go on without seat 0"
    for s in (1, 2):
        assert results[s].status == "over" and results[s].blamed == (), results[s]
    r = results[0]
    assert r.status == "failed" and r.blamed == (), r
    assert "the others went on without this seat" in (r.problem or ""), r
    assert tables[0].status == "failed" and tables[1].status == "over"


@pytest.mark.parametrize(
    ("n", "unlinked", "timeouts", "grace", "goes_on"),
    [
        (3, [(1, 2)], TIMEOUTS, GRACE, False),
        (3, [(1, 2)], Timeouts(turn=5.0, step=5.0), 3.0, False),
        (4, [(2, 3)], TIMEOUTS, GRACE, True),
        (4, [(1, 3), (2, 3)], TIMEOUTS, GRACE, False),
        (5, [(3, 4)], Timeouts(turn=5.0, step=5.0), 3.0, True),
    ],
    ids=[
        "3 seats: one carrier",
        "3 seats, short clocks: one carrier",
        "4 seats, one relayed pair: two carriers",
        "4 seats, two relayed pairs: each relayed seat counts the other as a carrier",
        "5 seats, one relayed pair: three carriers",
    ],
)
async def test_the_others_go_on_without_a_relayed_seat_that_hangs_up_when_two_carriers_say_so(
    autojump_clock: trio.testing.MockClock,
    n: int,
    unlinked: list[tuple[int, int]],
    timeouts: Timeouts,
    grace: float,
    goes_on: bool,
) -> None:
    """The last seat reaches some of the others only through relays (it accepts no
    connection), and hangs up for good. The seats linked with it judge it gone at the
    end of its grace; those that reach it only through a relay cannot judge it, and
    follow once every seat that carries their frames to it, two at least, has gone on
    without it. With one carrier (at a table of three, the host) they do not follow: a
    carrier alone could have held back a live seat's frames to push it out. The match
    then stops for all, with nobody named; otherwise it ends for all who remain, on one
    table, with nobody named."""
    gone = n - 1
    pairs = frozenset(frozenset(p) for p in unlinked)

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        await until_step(tables, 20)
        board.blocked.add(gone)
        for peer in list(links[gone]):
            await cut(links[gone][peer], links[peer][gone])

    tables, results, notices, _ = await run_with_cuts(n, cuts, grace=grace, timeouts=timeouts, unlinked=pairs)
    stay = range(n - 1)
    relayed = {s for s in stay if frozenset((s, gone)) in pairs}
    assert results[gone].status == "failed" and results[gone].blamed == (), results[gone]
    for s in stay:
        assert results[s].blamed == (), (s, results[s])
    if not goes_on:
        for s in stay:
            assert results[s].status == "failed", (s, results[s])
            assert (gone, "left behind") not in notices[s], notices[s]
        return
    for s in stay:
        assert results[s].status == "over", (s, results[s])
        assert tables[s].present == tuple(stay)
        assert (gone, "left behind" if s in relayed else "gone") in notices[s], notices[s]
    summaries = assert_valid_and_same({s: tables[s] for s in stay})
    assert all(f"p{gone} left after" in text for text in summaries), summaries


def went_on_for_all(stay: Sequence[int], gone: int, unlinked: frozenset[frozenset[int]]) -> bool:
    """Whether every seat of ``stay`` goes on without ``gone``: those linked with it judge it
    gone themselves; one relayed to it follows once each seat it is linked with (its
    carriers, two at least: ``runner.MIN_JUDGES``) went on."""
    went = {s for s in stay if frozenset((s, gone)) not in unlinked}
    while True:
        more = {
            s
            for s in stay
            if s not in went
            and len(carriers := {c for c in stay if c != s and frozenset((s, c)) not in unlinked}) >= 2
            and carriers <= went
        }
        if not more:
            return went == set(stay)
        went |= more


@settings(max_examples=12, derandomize=True, deadline=None)
@given(data=st.data())
def test_any_seat_that_hangs_up_is_left_behind_by_all_whatever_pairs_are_relayed(data: st.DataObject) -> None:
    """Any joiners relayed in pairs (through the host), any joiner hanging up for good at any
    step, a short or a long grace: nobody is named; and every seat that remains finishes
    the match on one table, valid and the same in every file, when each seat relayed to
    the one that hung up has two carriers or more that went on without it
    (:func:`went_on_for_all`)."""
    n = data.draw(st.integers(3, 5), label="seats")
    pairs = [frozenset((a, b)) for a in range(1, n) for b in range(a + 1, n)]
    unlinked = frozenset(data.draw(st.sets(st.sampled_from(pairs)), label="relayed pairs"))
    gone = data.draw(st.integers(1, n - 1), label="who hangs up")
    at_step = data.draw(st.integers(2, 60), label="at step")
    grace, timeouts = data.draw(st.sampled_from([(3.0, HASTY), (GRACE, TIMEOUTS)]), label="clocks")
    cut_at: list[int] = []

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        await until_step(tables, at_step)
        if any(t.status != "running" for t in tables.values()):
            return  # the match ended first
        cut_at.append(tables[gone].step)
        board.blocked.add(gone)
        for peer in list(links[gone]):
            await cut(links[gone][peer], links[peer][gone])

    async def main() -> tuple[dict[int, Table], dict[int, RunResult]]:
        ran = await run_with_cuts(n, cuts, grace=grace, timeouts=timeouts, unlinked=unlinked)
        return ran[0], ran[1]

    tables, results = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    stay = [s for s in range(n) if s != gone] if cut_at else list(range(n))
    for s in range(n):
        assert results[s].blamed == (), (s, results[s], cut_at)
    if cut_at and not went_on_for_all(stay, gone, unlinked):
        assert all(results[s].status == "failed" for s in stay), (results, cut_at)
        return
    for s in stay:
        assert results[s].status == "over", (s, results[s], cut_at)
    if cut_at:
        assert all(tables[s].present == tuple(stay) for s in stay)
        assert results[gone].blamed == (), results[gone]
    assert_valid_and_same({s: tables[s] for s in stay})


@settings(max_examples=15, derandomize=True, deadline=None)
@given(data=st.data())
def test_links_that_break_for_good_never_get_a_seat_named(data: st.DataObject) -> None:
    """Any joiners relayed in pairs, and one to three links broken for good at any step: the
    seats go on through relays or without a seat, or stop, but no node names anyone (every
    seat is honest here)."""
    n = data.draw(st.integers(3, 5), label="seats")
    pairs = [frozenset((a, b)) for a in range(1, n) for b in range(a + 1, n)]
    unlinked = frozenset(data.draw(st.sets(st.sampled_from(pairs)), label="relayed pairs"))
    every = [frozenset((a, b)) for a in range(n) for b in range(a + 1, n)]
    linked = [p for p in every if p not in unlinked]
    broken = data.draw(st.lists(st.sampled_from(linked), min_size=1, max_size=3, unique=True), label="broken")
    at_step = data.draw(st.integers(2, 60), label="at step")
    grace, timeouts = data.draw(st.sampled_from([(3.0, HASTY), (GRACE, TIMEOUTS)]), label="clocks")

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        await until_step(tables, at_step)
        if all(t.status == "running" for t in tables.values()):
            await breaking([tuple(sorted(p)) for p in broken], 0)(tables, links, board)

    async def main() -> dict[int, RunResult]:
        return (await run_with_cuts(n, cuts, grace=grace, timeouts=timeouts, unlinked=unlinked))[1]

    results = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert all(r.blamed == () for r in results.values()), results


@settings(max_examples=20, derandomize=True, deadline=None)
@given(data=st.data())
def test_links_that_break_and_may_come_back_never_get_a_seat_named(data: st.DataObject) -> None:
    """Any joiners relayed in pairs, and up to four outages of any links at any steps, each
    lasting from nothing to for good (a link may be dialled again once its outage ends):
    the seats go on, through relays or without a seat, or stop, but no node names anyone
    (every seat is honest here). Found a seat whose only link was down within its grace
    stopping at the step timeout while it waited for a seat relayed through that link."""
    n = data.draw(st.integers(3, 5), label="seats")
    pairs = [frozenset((a, b)) for a in range(1, n) for b in range(a + 1, n)]
    unlinked = frozenset(data.draw(st.sets(st.sampled_from(pairs), max_size=2), label="relayed pairs"))
    every = [frozenset((a, b)) for a in range(n) for b in range(a + 1, n)]
    linked = [p for p in every if p not in unlinked]
    lasting = st.sampled_from([0.0, 2.0, 8.0, 40.0, 1e3])
    outages = data.draw(
        st.lists(
            st.tuples(st.integers(2, 80), st.sampled_from(linked), lasting),
            min_size=1,
            max_size=4,
        ),
        label="outages (step, link, seconds)",
    )
    grace, timeouts = data.draw(st.sampled_from([(3.0, HASTY), (GRACE, TIMEOUTS)]), label="clocks")

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        async def outage(pair: frozenset[int], seconds: float) -> None:
            a, b = sorted(pair)
            board.blocked_pairs.add(pair)
            await cut(*board.latest.get((a, b), (links[a][b], links[b][a])))
            await trio.sleep(seconds)
            board.blocked_pairs.discard(pair)

        async with trio.open_nursery() as nursery:
            for step, pair, seconds in sorted(outages, key=lambda o: o[0]):
                await until_step(tables, step)
                if any(t.status != "running" for t in tables.values()):
                    return
                nursery.start_soon(outage, pair, seconds)

    async def main() -> dict[int, RunResult]:
        return (await run_with_cuts(n, cuts, grace=grace, timeouts=timeouts, unlinked=unlinked))[1]

    results = trio.run(main, clock=trio.testing.MockClock(autojump_threshold=0))
    assert all(r.blamed == () for r in results.values()), results


async def test_a_seat_whose_only_link_is_down_waits_for_it_not_for_the_step(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 1 accepts no connection from seat 2: its only link is the host's, which is down
    for 40 s, longer than a step's timeout (30 s) and shorter than the grace (60 s). Seat 1
    waits for seat 2's records, which only that link brings, until the link is back (not
    stopping at the step timeout, which got it named once back), and the match goes on."""

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        await until_step(tables, 14)
        board.blocked_pairs.add(frozenset((0, 1)))
        await cut(links[0][1], links[1][0])
        await trio.sleep(40)
        board.blocked_pairs.clear()

    pair = frozenset({frozenset((1, 2))})
    tables, results, notices, _ = await run_with_cuts(3, cuts, unlinked=pair)
    for s in range(3):
        assert results[s].status == "over" and results[s].blamed == (), (s, results[s])
    assert (0, "back") in notices[1] and (1, "back") in notices[0], notices
    assert_valid_and_same(tables)


def breaking(pairs: Sequence[tuple[int, int]], at_step: int = 2) -> Callable[..., Awaitable[None]]:
    """Cuts that break the links of ``pairs`` for good at ``at_step``."""

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        await until_step(tables, at_step)
        for a, b in pairs:
            board.blocked_pairs.add(frozenset((a, b)))
            await cut(links[a][b], links[b][a])

    return cuts


async def test_a_seat_cut_off_from_two_reaches_them_through_a_third(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 1 loses its links with the host and seat 2 for good. Every seat it is linked
    with carries its frames (the host no longer reaches it, seat 3 does), and theirs come
    to it the same way: the two pairs are relayed, nobody is gone, and the match is
    played to its end on one table."""
    cuts = breaking([(0, 1), (1, 2)])
    tables, results, notices, _ = await run_with_cuts(4, cuts, grace=3.0, timeouts=HASTY)
    for s in range(4):
        assert results[s].status == "over" and results[s].blamed == (), (s, results[s])
        assert tables[s].present == (0, 1, 2, 3)
    assert (0, "relayed") in notices[1] and (2, "relayed") in notices[1], notices[1]
    assert (1, "relayed") in notices[0] and (1, "relayed") in notices[2]
    assert_valid_and_same(tables)


async def test_a_seat_that_went_on_without_another_may_have_its_records_carried(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 1 keeps only its link with seat 3, and seat 2 only its link with the host: no
    seat carries between seats 1 and 2, so each judges the other gone. Seat 1's first record
    on the table without seat 2 goes to the host through seat 3, which carries it: a record
    of a table that continues the match is the match's. Nobody is named: seat 3, still on
    the old table, waits for seat 1, which went on without seat 2, whom seat 3 too reaches
    only through a relay (the seats stop, judging differently). Seat 3's step times out
    first (the others' clocks are slow), before any other seat says it stops."""
    slow = Timeouts(turn=60.0, step=60.0)
    _, results, notices, _ = await run_with_cuts(
        4, breaking([(0, 1), (1, 2), (2, 3)]), grace=3.0, timeouts=slow, seat_timeouts={3: HASTY}
    )
    assert (2, "gone") in notices[1], notices[1]
    assert (1, "gone") in notices[2], notices[2]
    for s in range(4):
        assert results[s].blamed == (), (s, results[s])
        assert "another game" not in (results[s].problem or ""), results[s]


async def test_a_table_split_in_two_gets_nobody_named(autojump_clock: trio.testing.MockClock) -> None:
    """Five seats, seats 1 and 2 relayed; the host loses its links with seats 1, 3 and 4.
    Seat 1 can reach the host through no seat linked with both, and the host cannot reach
    it: each goes on without the other (seat 2, relayed to seat 1, follows the host).
    Seats 3 and 4 hear from both sides and follow neither: on the old table they stop,
    and the aborts they send say a step of that table, which the seats at the first step
    of a new one do not take as refusing it. Every seat stops, and nobody is named."""
    pair = frozenset({frozenset((1, 2))})
    cuts = breaking([(0, 1), (0, 3), (0, 4)])
    _, results, notices, _ = await run_with_cuts(5, cuts, grace=3.0, timeouts=HASTY, unlinked=pair)
    assert (0, "gone") in notices[1] and (1, "gone") in notices[0], (notices[0], notices[1])
    for s in range(5):
        assert results[s].status == "failed" and results[s].blamed == (), (s, results[s])


async def test_a_host_that_relays_between_every_pair_of_joiners_cannot_push_a_live_one_out(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Four seats, every pair of joiners reached only through the host (a host that lists
    the others with no port to each joiner forces that): the host goes on without seat 2,
    still here, after holding back its frames. Seats 1 and 3 have one carrier for seat 2,
    the host, and do not follow it: nobody is left behind, nobody honest is named, and the
    match stops for everyone. (Before, they followed, and finished a valid match without
    seat 2.)"""

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        await until_step(tables, 20)
        tables[0].drop(2, "lost connection and did not come back within 15 s")

    every_pair = frozenset(frozenset((a, b)) for a in range(1, 4) for b in range(a + 1, 4))
    tables, results, notices, _ = await run_with_cuts(4, cuts, unlinked=every_pair)
    for s in (1, 3):
        assert (2, "left behind") not in notices[s], notices[s]
        assert tables[s].present == (0, 1, 2, 3), tables[s].present
    for s in (1, 2, 3):
        assert results[s].status == "failed" and set(results[s].blamed) <= {0}, (s, results[s])


@pytest.mark.parametrize("n", [3, 4])
async def test_a_host_that_goes_on_without_a_relayed_seat_still_here_cannot_push_it_out(
    autojump_clock: trio.testing.MockClock, n: int
) -> None:
    """The last seat reaches the one before it only through the host, which goes on
    without it though its link never broke. The seat relayed through the host does not
    follow the host alone (it could have held back the last seat's frames to push it
    out): nobody is left behind, and every seat stops with no honest seat named (the host
    can stop the match this way, as it could by dropping what it carries)."""
    last = n - 1

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        await until_step(tables, 20)
        tables[0].drop(last, "made up")  # its next frames carry the new table's first record

    pair = frozenset({frozenset((last - 1, last))})
    tables, results, notices, _ = await run_with_cuts(n, cuts, unlinked=pair)
    assert (last, "left behind") not in notices[last - 1], notices[last - 1]
    assert tables[last - 1].present == tuple(range(n)), tables[last - 1].present
    for s in range(1, n):
        assert results[s].status == "failed", (s, results[s])
        assert set(results[s].blamed) <= {0}, (s, results[s])
        report = audit_bytes(encode_file(tables[s].records_to_save(), saved_by=s, status=results[s].status))
        assert all(p.seat in (None, 0) for p in report.problems), (s, report.problems)


# Seat 2 loses its link with one of the others first, and its last records reach only
# the other; then it is gone for good. The two that remain stood at different steps
# when it went: each must still go on without it, at one table, and name nobody.
# (The steps are ones where, before the fix, the two waited for each other and blamed
# each other; the short grace and clocks are those of the end-to-end tests.)
HASTY = Timeouts(turn=5.0, step=5.0)


@pytest.mark.parametrize(
    ("at_step", "first", "grace"),
    [(23, 0, 3.0), (26, 1, 3.0), (33, 0, 3.0), (3, 0, 120.0), (4, 1, 120.0)],
)
async def test_a_seat_whose_last_records_reached_only_one_of_the_others_is_left_behind_by_both(
    autojump_clock: trio.testing.MockClock, at_step: int, first: int, grace: float
) -> None:
    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        await until_step(tables, at_step)
        board.blocked.add(2)
        await cut(links[2][first], links[first][2])
        await trio.sleep(0.1)  # seat 2 goes on with the other alone for a moment
        other = 1 - first
        await cut(links[2][other], links[other][2])

    tables, results, notices, _ = await run_with_cuts(3, cuts, grace=grace, timeouts=HASTY)
    for s in (0, 1):
        assert results[s].status == "over" and results[s].blamed == (), results[s]
        assert (2, "gone") in notices[s]
    summaries = assert_valid_and_same({s: tables[s] for s in (0, 1)})
    assert all("p2 left after" in text for text in summaries), summaries


@pytest.mark.parametrize("pair", [(1, 2), (0, 1)], ids=["two joiners", "the host and a joiner"])
async def test_a_pair_whose_link_cannot_come_back_goes_on_through_the_third_seat(
    autojump_clock: trio.testing.MockClock, pair: tuple[int, int]
) -> None:
    """Only the link between two seats breaks for good (a router dropped their path); each
    still reaches the third. Neither is judged gone: past the grace, their frames go
    through the third seat, and the match ends for all three with nobody named."""
    a, b = pair

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        await until_step(tables, 20)
        board.blocked_pairs.add(frozenset(pair))
        await cut(links[a][b], links[b][a])

    tables, results, notices, _ = await run_with_cuts(3, cuts, grace=3.0, timeouts=HASTY)
    for s in range(3):
        assert results[s].status == "over" and results[s].blamed == (), results[s]
        assert tables[s].present == (0, 1, 2)
    assert (b, "relayed") in notices[a] and (a, "relayed") in notices[b], notices
    assert not any(what == "gone" for s in range(3) for _, what in notices[s]), notices
    assert_valid_and_same(tables)


class Silenceable(trio.abc.Stream):
    """One end of an in-memory link that can die in silence: :meth:`go_silent` makes it carry
    nothing more either way, with no end of stream on either side (a path that stopped);
    :meth:`notice` then makes this end's reader fail, as the system does once data sent
    stays unacknowledged too long. The other end learns nothing from either. While
    ``losing()`` holds, what this end sends is lost on the way (it still reads)."""

    def __init__(self, inner: trio.abc.Stream, losing: Callable[[], bool] = lambda: False) -> None:
        self.inner = inner
        self.losing = losing
        self.silent = False
        self.noticed = trio.Event()
        self._reading: trio.CancelScope | None = None

    def go_silent(self) -> None:
        self.silent = True
        if self._reading is not None:
            self._reading.cancel()

    def notice(self) -> None:
        self.go_silent()
        self.noticed.set()

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if self.noticed.is_set():
            raise trio.BrokenResourceError("the path is dead")
        if self.silent or self.losing():
            await trio.lowlevel.checkpoint()  # into the void
            return
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        if not self.silent:
            with trio.CancelScope() as self._reading:
                return await self.inner.receive_some(max_bytes)
        await self.noticed.wait()
        raise trio.BrokenResourceError("the path is dead")

    async def aclose(self) -> None:
        self.notice()
        await trio.lowlevel.checkpoint()


async def dies_in_silence(
    links: dict[int, dict[int, Link]], first: int, later: int, after: float = 7.0
) -> None:
    """The link between two seats stops carrying anything: ``first`` notices at once,
    ``later`` only ``after`` seconds later."""
    now, then = links[first][later].stream, links[later][first].stream
    assert isinstance(now, Silenceable) and isinstance(then, Silenceable)
    now.notice()
    then.go_silent()
    await trio.sleep(after)
    then.notice()


async def test_a_pair_whose_link_dies_in_silence_and_is_noticed_seconds_apart_goes_on_through_the_third(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The link between seats 1 and 2 stops carrying anything; seat 1 notices at once, seat 2
    7 s later (its keep-alive went unanswered later). Seat 1 starts relaying when its grace
    ends, seat 2 only 7 s after: within the relay trial each still hears from the other, so
    neither is judged gone."""
    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        await until_step(tables, 20)
        board.blocked_pairs.add(frozenset((1, 2)))
        await dies_in_silence(links, 1, 2)

    silenceable = lambda seat, peer, stream: Silenceable(stream)  # noqa: E731
    tables, results, notices, _ = await run_with_cuts(3, cuts, grace=3.0, timeouts=HASTY, wrap=silenceable)
    for s in range(3):
        assert results[s].status == "over" and results[s].blamed == (), results[s]
        assert tables[s].present == (0, 1, 2)
    assert (2, "relayed") in notices[1] and (1, "relayed") in notices[2], notices
    assert_valid_and_same(tables)


async def test_a_link_dialled_after_the_other_end_stopped_waiting_for_it_is_taken(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The link between seats 0 and 2 stops carrying anything; seat 2, which waits to be
    dialled, notices at once, and seat 0, which dials, only 7 s later, past seat 2's grace
    of 3 s. Seat 0's new link must still be taken: left unread, seat 0 would talk into it
    while seat 2, hearing nothing from it, judged it gone."""

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        await until_step(tables, 20)
        await dies_in_silence(links, 2, 0)  # seat 2 waits to be dialled, seat 0 dials

    silenceable = lambda seat, peer, stream: Silenceable(stream)  # noqa: E731
    tables, results, notices, board = await run_with_cuts(
        3, cuts, grace=3.0, timeouts=HASTY, wrap=silenceable
    )
    for s in range(3):
        assert results[s].status == "over" and results[s].blamed == (), results[s]
        assert tables[s].present == (0, 1, 2)
    assert board.relinks == 1
    assert (0, "back") in notices[2] and (2, "back") in notices[0], notices
    assert not any(what == "gone" for s in range(3) for _, what in notices[s]), notices
    assert_valid_and_same(tables)


async def test_a_seat_whose_link_broke_as_the_last_records_went_finishes_the_same_match(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Two seats; seat 0's frames to seat 1 are lost from the last step on (its last
    record and what it sends once finished), and the link breaks once seat 0 is done.
    Seat 0 stays to dial seat 1 again and give it what it lacks: both end the same match,
    instead of seat 1 waiting out its grace for a seat that left."""
    dry, _, _, _ = await run_with_cuts(2, lambda tables, links, board: trio.lowlevel.checkpoint())
    last = dry[0].step  # the number of steps of this (deterministic) match
    ends: dict[int, Silenceable] = {}
    tables_seen: dict[int, Table] = {}

    def wrap(seat: int, peer: int, stream: trio.abc.Stream) -> trio.abc.Stream:
        def losing() -> bool:
            return seat == 0 and 0 in tables_seen and tables_seen[0].step >= last - 1

        ends[seat] = Silenceable(stream, losing)
        return ends[seat]

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        tables_seen.update(tables)
        while tables[0].status != "over":
            await trio.sleep(0.01)
        assert tables[1].status == "running"  # it lacks seat 0's last record
        for end in ends.values():
            end.notice()

    tables, results, notices, board = await run_with_cuts(2, cuts, grace=GRACE, timeouts=HASTY, wrap=wrap)
    assert {s: r.status for s, r in results.items()} == {0: "over", 1: "over"}, results
    assert board.relinks == 1
    assert notices[1] == [(0, "lost"), (0, "back")], notices
    assert_valid_and_same(tables)


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_each_link_notice_is_said_in_the_players_language(lang: str) -> None:
    """What ``on_link`` reports (``run_table``) becomes one line each, with the peer's name."""
    from types import SimpleNamespace

    from p2pcards.net.node import link_notice
    from p2pcards.ui.i18n import Translator

    said: list[object] = []
    away: list[tuple[bytes, str, float]] = []  # (and the status line is told, by the seat's key)
    cfg = SimpleNamespace(ui=SimpleNamespace(info=said.append, peer_link=lambda *a: away.append(a)))
    roster = [SimpleNamespace(name=name, key=name.encode()) for name in ("Hal", "Jo", "Kim")]
    notice = link_notice(cfg, SimpleNamespace(roster=roster))  # type: ignore[arg-type]
    for what in ("lost", "back", "relayed", "gone"):
        notice(2, what, 3.0)
    assert away == [(b"Kim", what, 3.0) for what in ("lost", "back", "relayed", "gone")]
    tr = Translator(lang)
    lines = [tr(n.key, **n.values) for n in said]  # type: ignore[attr-defined]
    assert [n.key for n in said] == [  # type: ignore[attr-defined]
        "notice_reconnecting",
        "notice_back",
        "notice_through_others",
        "notice_gone",
    ]
    assert all("Kim" in line and "{" not in line for line in lines), lines
    assert len(set(lines)) == 4
    if lang != "en":
        assert all(line != str(n) for line, n in zip(lines, said, strict=True)), lines


async def test_a_link_that_carried_nothing_for_5_s_gets_a_keep_alive(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """``_heartbeat``: a ``need`` frame on each link quiet for ``WAIT_NOTICE`` seconds (so that
    a dead path holds unacknowledged data, which the system notices), none on a busy one; and
    while this seat decides, one on every link."""
    from types import SimpleNamespace

    from p2pcards.net.runner import _heartbeat
    from p2pcards.net.session import WAIT_NOTICE

    links = memory_links(3)
    quiet, busy = links[0][1], links[0][2]
    table = SimpleNamespace(my_turn=False, need_frame=lambda: b"\x90")
    with trio.move_on_after(WAIT_NOTICE * 3 + 0.5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_heartbeat, table, links[0])

            async def chatter() -> None:  # seat 0 sends seat 2 something every second
                while True:
                    await busy.send(b"\x90")
                    await trio.sleep(1)

            nursery.start_soon(chatter)
    assert quiet.frames_sent == 3  # one every 5 s
    assert busy.frames_sent == 16  # its own chatter only
    table.my_turn = True
    with trio.move_on_after(WAIT_NOTICE + 0.5):
        await _heartbeat(table, links[0])  # type: ignore[arg-type]
    assert quiet.frames_sent == 4 and busy.frames_sent == 17


async def test_a_seat_that_keeps_leaving_and_coming_back_cannot_stall_the_table(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 2 never plays its turn: whenever its time would run out it drops every link and
    is back a few seconds later. Each return gives it a whole step once in a step, not
    again: the others end the match within a bounded time and name it."""
    tables, links, board = three_on_a_switchboard(SHORT_RULES)
    results: dict[int, RunResult] = {}
    patient = Timeouts(turn=100_000.0, step=100_000.0)  # seat 2's own clock never ends its turn

    async def never(table: Table) -> object:
        await trio.sleep_forever()

    async def seat(s: int) -> None:
        results[s] = await run_table(
            tables[s],
            links[s],
            never if s == 2 else bot(s),  # type: ignore[arg-type]
            timeouts=patient if s == 2 else TIMEOUTS,
            relinker=board.for_seat(s),  # type: ignore[arg-type]
            grace=GRACE,
        )

    async def leave_and_come_back() -> None:
        current = {s: dict(links[s]) for s in tables}
        while not tables[2].my_turn:
            await trio.sleep(0.5)
        while all(results.get(s) is None for s in (0, 1)):
            await trio.sleep(TIMEOUTS.turn - 10)  # just before its time runs out
            await board.blip(current, 2, (0, 1), away=3)

    started = trio.current_time()
    with trio.fail_after(3600):
        async with trio.open_nursery() as nursery:
            for s in tables:
                nursery.start_soon(seat, s)
            nursery.start_soon(leave_and_come_back)
            while any(results.get(s) is None for s in (0, 1)):
                await trio.sleep(1)
            nursery.cancel_scope.cancel()
    took = trio.current_time() - started
    assert took < 3 * TIMEOUTS.turn + 2 * GRACE, took  # bounded: one extension in the step
    for s in (0, 1):
        assert results[s].status == "failed" and results[s].blamed == (2,), results[s]


Notices = dict[int, list[tuple[int, str, float, int]]]
Breaking = tuple[dict[int, Table], dict[int, RunResult], Notices, int, float]


async def break_at_each_turn(breaker: int, away: float, wait_back: float) -> Breaking:
    """Three seats; ``breaker`` drops every link as each of its turns begins, comes back
    ``away`` s later (waiting up to ``wait_back`` s for its links), then plays. Returns the
    tables, the results of the two others, each seat's link notices (peer, what, seconds, and
    the breaks so far), the breaks, and the virtual time until both others ended."""
    tables, links, board = three_on_a_switchboard(NinesRules())
    results: dict[int, RunResult] = {}
    notices: Notices = {s: [] for s in tables}
    current = {s: dict(links[s]) for s in tables}
    others = [s for s in tables if s != breaker]
    breaks = 0
    play = bot(breaker)

    async def break_then_play(table: Table) -> object:
        nonlocal breaks
        board.blocked.add(breaker)
        for peer in others:
            await cut(current[breaker][peer], current[peer][breaker])
        breaks += 1
        await trio.sleep(away)
        board.blocked.discard(breaker)
        with trio.move_on_after(wait_back):
            while board.relinks < 2 * breaks:
                await trio.sleep(0.1)
        for peer in others:
            pair = board.latest.get((min(breaker, peer), max(breaker, peer)))
            if pair is not None:  # (the lower seat dials: its end first)
                ends = (pair[1], pair[0]) if peer < breaker else pair
                current[breaker][peer], current[peer][breaker] = ends
        return await play(table)

    async def seat(s: int) -> None:
        results[s] = await run_table(
            tables[s],
            links[s],
            break_then_play if s == breaker else bot(s),  # type: ignore[arg-type]
            timeouts=TIMEOUTS,
            relinker=board.for_seat(s),  # type: ignore[arg-type]
            grace=GRACE,
            on_link=lambda peer, what, seconds: notices[s].append((peer, what, seconds, breaks)),
        )

    started = trio.current_time()
    with trio.fail_after(50_000):
        async with trio.open_nursery() as nursery:
            for s in tables:
                nursery.start_soon(seat, s)
            while any(results.get(s) is None for s in others):
                await trio.sleep(1)
            nursery.cancel_scope.cancel()
    return tables, results, notices, breaks, trio.current_time() - started


async def test_a_seat_that_breaks_its_links_at_each_turn_and_comes_back_in_time_is_gone_once_away_too_long(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 2 drops every link as each of its turns begins and comes back 5 s before its grace
    ends, then plays: each of its turns took its grace and a whole step more, and it was never
    named. Its time away, and the time its returns were given, now come out of an allowance of
    ``ABSENCE_ALLOWANCE`` grace periods over the match: once that is spent, its next break
    makes it gone at once, and the others finish the match without it. Seat 2 itself, cut
    off from both at once, charges neither of them."""
    tables, results, notices, breaks, took = await break_at_each_turn(2, GRACE - 5, 30)
    allowance = ABSENCE_ALLOWANCE * GRACE
    for s in (0, 1):
        assert results[s].status == "over", results[s]
        assert 2 not in tables[s].present  # they finished without it
        lost = [seconds for peer, what, seconds, _ in notices[s] if peer == 2 and what == "lost"]
        assert lost[0] == GRACE and lost[-1] < GRACE, lost  # the last break had only what was left
        assert (2, "gone") in [(peer, what) for peer, what, _, _ in notices[s]], notices[s]
    # Seat 2 was cut off from both at once: their absence, seen from it, was its own.
    assert all(seconds == GRACE for peer, what, seconds, _ in notices[2] if what == "lost"), notices[2]
    assert 2 <= breaks <= allowance / (GRACE - 5) + 1, breaks
    assert took < allowance + GRACE + 40 * TIMEOUTS.step, took
    for s in (0, 1):
        report = audit_bytes(encode_file(tables[s].records_to_save(), saved_by=s, status=tables[s].status))
        assert report.valid, report.problems


async def test_a_seat_back_within_the_relay_trial_after_its_allowance_is_spent_is_gone(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 0 (which dials the others again itself) drops every link as each of its turns
    begins and comes back 8 s later, then plays. Once its allowance is spent a break gives it
    no grace, but the others still reach for it through each other for ``RELAY_TRIAL`` (10 s),
    in case only a link broke: there a new link of its own was taken as a return, with a whole
    step from it, again at every turn, for the whole match. Now a link of its own from a seat
    with no allowance left is no return: the trial looks only for its frames through the
    others, and once it ends the seat is gone, and the others finish the match without it."""
    tables, results, notices, _, _ = await break_at_each_turn(0, 8, 10)
    allowance = ABSENCE_ALLOWANCE * GRACE
    for s in (1, 2):
        assert results[s].status == "over", results[s]
        said = [(what, seconds, count) for peer, what, seconds, count in notices[s] if peer == 0]
        # Once its allowance is spent (each return was given up to a turn's clock of 120 s from
        # its 300 s, and took 8 s), a break leaves it nothing, and it is never back from one:
        # no time is given it again.
        spent = [seconds for what, seconds, _ in said if what == "lost"].index(0.0)
        lost = [n for n, (what, _, _) in enumerate(said) if what == "lost"][spent]
        assert said[lost][2] <= allowance / 8 + 1, said[: lost + 1]
        assert "back" not in [what for what, _, _ in said[lost:]], said[lost - 2 :]
        assert said[-1][0] == "gone" and 0 not in tables[s].present, said[lost - 2 :]


async def test_the_wait_shown_for_a_seat_back_during_its_turn_counts_from_its_return(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 0's links drop 40 s into a turn it thinks 80 s about, for 3 s. Back, it has a
    whole turn from its return (protocol.md 7.2), as a seat that restarted counts its own
    clock from there: the others show the time waited from the return too, not from the
    start of the turn, which would say that less time is left than they will wait."""
    play = bot(0)
    thinking = trio.Event()
    back: list[float] = []

    async def slow(table: Table) -> object:
        if table.step >= 20 and not thinking.is_set():
            thinking.set()
            await trio.sleep(80)
        return await play(table)

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        await thinking.wait()
        await trio.sleep(40)
        board.blocked.add(0)
        for peer in (1, 2):
            await cut(links[0][peer], links[peer][0])
        await trio.sleep(3)
        board.blocked.discard(0)
        while board.relinks < 2:
            await trio.sleep(0.1)
        back.append(trio.current_time())

    waits: dict[int, list[tuple[float, int, float]]] = {}
    tables, results, notices, _ = await run_with_cuts(3, cuts, deciders={0: slow}, waits=waits)
    assert {s: r.status for s, r in results.items()} == dict.fromkeys(tables, "over"), results
    (returned,) = back
    for s in (1, 2):
        (step,) = {t for when, t, waited in waits[s] if waited > 35}  # the long turn: 40 s waited
        after = [(when, waited) for when, t, waited in waits[s] if t == step and when > returned + 1]
        assert after, waits[s]
        assert all(waited <= when - returned + 1 for when, waited in after), (returned, after)
        assert {p for p, what in notices[s] if what == "back"} == {0}


async def test_a_player_whose_connection_drops_while_thinking_reconnects_before_moving(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 0's player thinks longer than the grace; meanwhile its connection drops for
    30 s. Its node dials the others again at once, while the player still thinks (the
    table reads its links during a decision), so nobody judges it gone and the match
    plays on to its end."""
    think = GRACE + 60
    play = bot(0)
    thinking = trio.Event()

    async def slow(table: Table) -> object:
        if table.step >= 20:
            thinking.set()
            await trio.sleep(think)
        return await play(table)

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        await thinking.wait()
        board.blocked.add(0)  # seat 0's connection is down for 30 s
        for peer in (1, 2):
            await cut(links[0][peer], links[peer][0])
        await trio.sleep(30)
        board.blocked.discard(0)

    timeouts = Timeouts(turn=think * 4, step=30.0)
    tables, results, notices, _ = await run_with_cuts(3, cuts, timeouts=timeouts, deciders={0: slow})
    assert {s: r.status for s, r in results.items()} == dict.fromkeys(tables, "over"), results
    assert {p for p, what in notices[0] if what == "back"} == {1, 2}
    assert not [n for s in tables for n in notices[s] if n[1] == "gone"]
    assert_valid_and_same(tables)


async def test_a_seat_back_from_a_crash_links_again_only_with_the_seats_still_at_the_table(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 2 left (signed) and the match went on; then seat 1's program crashed. Back from
    its journal, seat 1 says it links again with seat 0, not with seat 2, which left: nobody
    dials it, and no notice says it is awaited."""
    from test_leave import leaves, play_until, sittings, started

    tables = sittings(3, SHORT_RULES, seed=5)
    net, rng = started(tables, 5)
    play_until(net, rng, lambda: tables[0].tables[0].hand is not None and tables[0].step > 12)
    rest = leaves(net, 2, "quit")
    assert tables[1].present == (0, 1)
    journal = tables[1].drain_journal()
    back = Sitting(make_tables(3, SHORT_RULES, seed=5)[1])
    board = Switchboard()
    board.channel(0, 1)
    board.channel(1, 2)
    board.blocked.update({0, 2})  # neither answers during this test (seat 2 has left)
    notices: list[tuple[int, str]] = []
    with trio.move_on_after(5):
        await run_table(
            back,
            {},
            bot(1),
            timeouts=TIMEOUTS,
            relinker=board.for_seat(1),  # type: ignore[arg-type]
            grace=GRACE,
            on_link=lambda peer, what, seconds: notices.append((peer, what)),
            restore=journal,
        )
    assert back.present == (0, 1) and rest is not None
    assert (0, "lost") in notices and not [n for n in notices if n[0] == 2], notices


@dataclass
class Outage:
    """What :func:`seat_2_offline` saw."""

    notices: dict[int, list[tuple[int, str]]]
    board: Switchboard
    resumed_after: float
    """Seconds from the end of the outage until every seat was past the step it stopped at."""


async def seat_2_offline(
    monkeypatch: pytest.MonkeyPatch, seconds: float, reports: Callable[[Link], bool]
) -> Outage:
    """Seat 2's network drops every packet, both ways, for ``seconds`` from step 10, with
    10 s clocks and a 60 s grace. Its links stay open (nothing says they ended) and carry
    nothing more; while the outage lasts, the end of such a link shows a dead path
    (``Link.stalled``, which a real socket reads from the system) where ``reports(link)``.
    Checks that the match ends with every seat, nobody named and the same valid files."""
    outage = {"on": False}
    resumed: list[float] = []

    def stalled(self: Link) -> bool:
        end = self.stream
        return outage["on"] and isinstance(end, Silenceable) and end.silent and reports(self)

    monkeypatch.setattr(Link, "stalled", stalled)

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        await until_step(tables, 10)
        board.blocked.add(2)
        outage["on"] = True
        for peer in (0, 1):
            for a, b in ((2, peer), (peer, 2)):
                end = links[a][b].stream
                assert isinstance(end, Silenceable)
                end.go_silent()  # (what goes either way on these links now never arrives)
        await trio.sleep(seconds)
        outage["on"] = False
        board.blocked.discard(2)
        back = trio.current_time()
        await until_step(tables, max(t.step for t in tables.values()) + 1)
        resumed.append(trio.current_time() - back)

    silenceable = lambda seat, peer, stream: Silenceable(stream)  # noqa: E731
    clocks = Timeouts(turn=10.0, step=10.0)
    tables, results, notices, board = await run_with_cuts(
        3, cuts, grace=60.0, timeouts=clocks, wrap=silenceable
    )
    for s in range(3):
        assert results[s].status == "over" and results[s].blamed == (), results[s]
        assert tables[s].present == (0, 1, 2)
    assert_valid_and_same(tables)
    return Outage(notices, board, resumed[0])


async def test_a_seat_whose_network_drops_everything_past_the_clock_links_again_and_nobody_is_named(
    autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """For 25 s, longer than the clocks, shorter than the grace, with the systems at each
    end reporting the data they sent unacknowledged: at the clock the links count as
    broken instead of the seat as silent, they are dialled again once the network is back,
    and nobody is named. (Without the check, seats 0 and 1 name seat 2.)"""
    seen = await seat_2_offline(monkeypatch, 25, lambda link: True)
    notices = seen.notices
    assert (2, "lost") in notices[0] or (2, "lost") in notices[1], notices
    assert (2, "back") in notices[0] and (2, "back") in notices[1], notices
    assert seen.board.relinks >= 2


async def test_a_dead_path_is_taken_for_broken_when_seen_so_play_goes_on_once_the_network_is_back(
    autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """For 6 s, under the 10 s clocks: the old links never carry again (as a system that
    waits out its back-off), so play goes on only on new links. The waiting seats look at
    the paths every ``LOOK_EVERY`` and take a dead one for broken at once, so the new links
    form within a second of the network's return, not at the clock 4 s later. (Without the
    looks, the step after the outage is taken 4 s after it ends.)"""
    seen = await seat_2_offline(monkeypatch, 6, lambda link: True)
    assert (2, "lost") in seen.notices[0] and (2, "back") in seen.notices[0], seen.notices
    assert seen.resumed_after <= RETRY + 0.5, seen.resumed_after


async def test_a_seat_cut_off_from_everyone_past_the_clock_links_again_when_its_network_is_back(
    autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """For 25 s, and as in a real dropout the two sides see it differently: seats 0 and 1
    find what they sent unacknowledged, while seat 2's own data, sent again once the path
    is back, is acknowledged; it just hears nothing, since the others' systems wait out
    long back-offs before sending again. Seat 2 then takes its links for broken once it
    has heard from nobody for 11 s (``DEAF``) instead of stopping, and links again once
    the network is back. (Without that, seat 2 stops: "heard from nobody ... own
    connection may be down".)"""
    notices = (await seat_2_offline(monkeypatch, 25, lambda link: link.peer == "seat 2")).notices
    assert (0, "lost") in notices[2] and (1, "lost") in notices[2], notices
    assert (0, "back") in notices[2] and (1, "back") in notices[2], notices


async def test_a_seat_whose_path_came_back_one_way_first_is_linked_again_not_named(
    autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """For 8 s, under the 10 s clocks. When the network is back, what seats 0 and 1 send is
    acknowledged at once (their links show no dead path any more at the clock), while
    what seat 2 sent meanwhile still waits out its system's back-off: nothing comes from
    it. A path seen dead during the wait (looked at every ``LOOK_EVERY``) is taken for
    broken then: the link is reset and dialled again, and nobody is named. (Without it,
    seats 0 and 1 name seat 2.)"""
    notices = (await seat_2_offline(monkeypatch, 8, lambda link: link.peer == "seat 2")).notices
    assert (2, "lost") in notices[0] and (2, "back") in notices[0], notices


async def test_a_seat_that_dials_in_before_this_node_saw_its_link_break_has_a_whole_step_from_then(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seats 1 and 2 wait for seat 0's move (seat 0 thinks 15 s; their clock: 10 s and 3 s
    more). 12 s in, seat 0 dials them again: it found the old paths broken first, as a seat
    cut off from everyone does. For them that is a break and a return all the same: the
    turn has a whole clock from then, and seat 0's move, which comes on the new links, is
    taken. (Without it, they name seat 0 at 13 s, 1 s after such a return.)"""
    started: dict[str, float] = {}

    async def slow_once(table: Table) -> Action:
        if table.step >= 30 and "at" not in started:
            started["at"] = trio.current_time()
            await trio.sleep(15)
        return await bot(0)(table)

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        while "at" not in started:
            await trio.sleep(0.1)
        await trio.sleep(12)
        for peer in (1, 2):  # seats 1 and 2 take them; seat 0's old links then close
            mine, theirs = trio.testing.memory_stream_pair()
            ends = Link(mine, peer=f"seat {peer}"), Link(theirs, peer="seat 0")
            board.latest[(0, peer)] = ends
            await board.inbox[(0, peer)].send(ends[1])

    patient = Timeouts(turn=60.0, step=10.0)  # seat 0's own clock lets it think
    clocks = Timeouts(turn=10.0, step=10.0)
    tables, results, notices, _ = await run_with_cuts(
        3, cuts, timeouts=clocks, seat_timeouts={0: patient}, deciders={0: slow_once}
    )
    for s in range(3):
        assert results[s].status == "over" and results[s].blamed == (), results[s]
    assert (0, "lost") in notices[1] and (0, "back") in notices[2], notices
    assert_valid_and_same(tables)


async def test_a_seat_whose_links_blip_while_another_thinks_keeps_its_allowance(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 0 thinks 100 s at each of its turns; 90 s into each think, seat 2's links drop for
    a second and come back. The step waits for seat 0, not for seat 2: its return adds nothing
    to the step, so only its second away each time comes out of its allowance (300 s), and it
    is never left behind, however many times this happens."""
    play = bot(0)
    thinks = [trio.Event()]

    async def slow(table: Table) -> object:
        if table.step >= 10:
            thinks[-1].set()
            await trio.sleep(100)
        return await play(table)

    blips = 0

    async def cuts(tables: dict[int, Table], links: dict[int, dict[int, Link]], board: Switchboard) -> None:
        nonlocal blips
        while all(t.status == "running" for t in tables.values()) and blips < 8:
            await thinks[-1].wait()
            thinks.append(trio.Event())
            await trio.sleep(90)
            if tables[0].status != "running":
                break
            await board.blip(links, 2, (0, 1), away=1)
            blips += 1

    tables, results, notices, _ = await run_with_cuts(3, cuts, deciders={0: slow})
    assert blips * 87 > ABSENCE_ALLOWANCE * GRACE, blips  # past the allowance, had the returns counted
    assert not [n for s in tables for n in notices[s] if n[1] == "gone"], notices
    assert {s: r.status for s, r in results.items()} == dict.fromkeys(tables, "over"), results
