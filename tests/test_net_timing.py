"""The match runner over in-memory links, in virtual time (``autojump_clock``).

Every seat runs ``run_table`` over ``Link`` objects wired with ``trio.testing``
streams, so the step and turn timeouts are met in virtual time: a silent seat is
named after exactly the timeout it broke, and nothing waits for real.
"""

from __future__ import annotations

import pytest
import trio
import trio.testing
from net_helpers import CutStream, DeafStream, TrickleStream, bot, close_all, memory_links, stuck
from protocol_helpers import SHORT_RULES, make_tables

from p2pcards.games.nines import NinesRules
from p2pcards.net.link import Link
from p2pcards.net.runner import WAIT_NOTICE, Decider, RunResult, run_table
from p2pcards.net.session import Timeouts
from p2pcards.protocol.table import Table

TIMEOUTS = Timeouts(turn=120.0, step=30.0)
SLACK = 1.0
"""Virtual seconds allowed beyond a timeout (the honest steps before it take no virtual time)."""

ONE_HAND = NinesRules(hands=1)


@pytest.fixture(autouse=True)
def _virtual_time(autojump_clock: trio.testing.MockClock) -> None:
    """Every test here runs on the autojump clock."""


async def run_seats(
    tables: dict[int, Table],
    links: dict[int, dict[int, Link]],
    deciders: dict[int, Decider],
    *,
    timeouts: Timeouts = TIMEOUTS,
    on_wait: dict[int, list[tuple[float, float, tuple[int, ...]]]] | None = None,
    hung: frozenset[int] = frozenset(),
) -> tuple[dict[int, RunResult], dict[int, float]]:
    """Run every seat's table; returns the results and the virtual time each ended.

    Seats in ``hung`` are not expected to end: they are cancelled once every
    other seat has. A global bound makes a hang fail the test instead of blocking.
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
                    tables[s], links[s], deciders[s], timeouts=timeouts, on_wait=waited
                )
                ended[s] = trio.current_time() - t0
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
            hung_scope.cancel()
    await close_all(links)
    return results, ended


def assert_same_records(tables: dict[int, Table]) -> None:
    raws = {s: [(r.raw, r.sig) for r in t.transcript.records()] for s, t in tables.items()}
    first = raws[0]
    assert all(r == first for r in raws.values())


async def test_an_honest_match_completes_in_virtual_time() -> None:
    tables = make_tables(3, SHORT_RULES, seed=1)
    links = memory_links(3)
    results, ended = await run_seats(tables, links, {s: bot(s) for s in tables})
    assert {s: r.status for s, r in results.items()} == dict.fromkeys(tables, "over")
    assert all(r.blamed == () and r.problem is None for r in results.values())
    assert_same_records(tables)
    assert len({tuple(t.match.totals) for t in tables.values()}) == 1  # type: ignore[union-attr]
    # Honest seats never wait for a timeout: the whole match takes no virtual time.
    assert max(ended.values()) < SLACK


async def test_a_seat_that_never_decides_is_named_after_the_turn_timeout() -> None:
    tables = make_tables(3, SHORT_RULES, seed=2)
    links = memory_links(3)
    deciders = {0: bot(0), 1: stuck(), 2: bot(2)}
    waits: dict[int, list[tuple[float, float, tuple[int, ...]]]] = {}
    results, ended = await run_seats(tables, links, deciders, on_wait=waits, hung=frozenset({1}))
    for s in (0, 2):
        r = results[s]
        assert r.status == "failed"
        assert r.blamed == (1,)
        assert "timed out" in (r.problem or "") and "p1 (seat 1)" in (r.problem or "")
        assert "(turn)" in (r.problem or "")
        assert TIMEOUTS.turn <= ended[s] <= TIMEOUTS.turn + SLACK
    assert 1 not in results  # the stuck seat never ended on its own
    # While waiting, each honest seat heard about seat 1 every WAIT_NOTICE seconds.
    for s in (0, 2):
        notices = waits[s]
        expected = int(TIMEOUTS.turn // WAIT_NOTICE) - (1 if TIMEOUTS.turn % WAIT_NOTICE == 0 else 0)
        assert len(notices) == expected
        for k, (at, waited, who) in enumerate(notices, start=1):
            assert who == (1,)
            assert k * WAIT_NOTICE <= waited <= k * WAIT_NOTICE + SLACK
            assert at <= TIMEOUTS.turn
