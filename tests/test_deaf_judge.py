"""A node that hears nobody for a while, in virtual time (pacing.SLOW_ALLOWANCE).

A node that hears from no peer for longer than a live one is ever silent (``WAIT_NOTICE``
+ 1 s: every peer's link carries a keep-alive each ``WAIT_NOTICE``) may be the one cut off:
its own connection, or a middlebox that holds what it should pass on while it acknowledges
what it gets. The records that reach it late then say nothing about their authors, who are
charged nothing for that time, and the node waits for them without spinning.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import trio
import trio.testing
from net_helpers import Lagging, play_bots
from protocol_helpers import make_tables

from p2pcards.games.nines.rules import NinesRules
from p2pcards.net import runner
from p2pcards.net.link import Link
from p2pcards.net.runner import RunResult
from p2pcards.net.session import Timeouts
from p2pcards.protocol.sitting import Sitting

STEP = 30.0
TURN = 60.0
DELAY = 0.3


class Gate:
    """A path that stops carrying anything, both ways, for ``closed`` seconds every ``every``
    seconds (from ``first`` on), and passes on what it held, in order, once it carries again."""

    def __init__(self, first: float, every: float, closed: float) -> None:
        self.first, self.every, self.closed = first, every, closed
        self.open = trio.Event()
        self.open.set()
        self.closings = 0

    async def run(self) -> None:
        await trio.sleep(self.first)
        while True:
            self.open = trio.Event()
            self.closings += 1
            await trio.sleep(self.closed)
            self.open.set()
            await trio.sleep(self.every - self.closed)


def spin_guard(monkeypatch: Any) -> None:
    """Fail, instead of hanging the virtual clock, when a node's loop turns over and over at
    one instant (``_dead_paths`` is looked at once per wake of a waiting node)."""
    seen: dict[str, float] = {"at": -1.0, "count": 0.0}
    original: Callable[..., Any] = runner._dead_paths

    def counted(*args: Any, **kwargs: Any) -> Any:
        now = trio.current_time()
        if now != seen["at"]:
            seen["at"], seen["count"] = now, 0.0
        seen["count"] += 1
        if seen["count"] > 10_000:
            raise AssertionError(f"a node's wait turns over without sleeping at {now:.1f} s")
        return original(*args, **kwargs)

    monkeypatch.setattr(runner, "_dead_paths", counted)


def charges_kept(monkeypatch: Any) -> dict[int, dict[int, float]]:
    """Each node's lateness charges (``_Mesh.late``), by the node's seat, as last looked at."""
    kept: dict[int, dict[int, float]] = {}
    original = runner._Mesh.lateness_left

    def looked(self: Any, peer: int, step_clock: float, relayed: bool = False) -> float:
        kept[id(self)] = self.late
        return original(self, peer, step_clock, relayed)

    monkeypatch.setattr(runner._Mesh, "lateness_left", looked)
    return kept


async def play_two_through(gate: Gate, seed: int = 1) -> dict[int, RunResult]:
    """Two seats linked through ``gate``; each seat's result."""
    tables = {s: Sitting(t) for s, t in make_tables(2, NinesRules(hands=40), seed=seed).items()}
    async with trio.open_nursery() as pumps:
        pumps.start_soon(gate.run)
        to_1, from_0 = trio.testing.memory_stream_one_way_pair()
        to_0, from_1 = trio.testing.memory_stream_one_way_pair()

        def through(out: trio.abc.SendStream) -> trio.abc.SendStream:
            return Lagging(out, DELAY, pumps, lambda: gate.open)

        links = {
            0: {1: Link(trio.StapledStream(through(to_1), from_1), peer="seat 1")},
            1: {0: Link(trio.StapledStream(through(to_0), from_0), peer="seat 0")},
        }

        results = await play_bots(tables, links, Timeouts(turn=TURN, step=STEP))
        pumps.cancel_scope.cancel()
    return results


async def test_a_path_that_stops_now_and_then_charges_nobody_and_names_nobody(
    autojump_clock: trio.testing.MockClock, monkeypatch: Any
) -> None:
    """The one path of a table of two (0.3 s each way) carries nothing for 25 s every 35 s
    (shorter than every clock): each node hears nobody then, and may be the one cut off.
    Neither seat is charged for it, neither node turns over without sleeping while it waits
    (the virtual clock would stand still), and the match ends, nobody named.

    Before: each node charged the other what the path held back, and once a peer's allowance
    was nearly spent, woke for its lateness while it heard nobody, again and again."""
    spin_guard(monkeypatch)
    kept = charges_kept(monkeypatch)
    gate = Gate(first=3.0, every=35.0, closed=25.0)
    results = await play_two_through(gate)
    summary = {s: (r.status, r.blamed, r.problem) for s, r in results.items()}
    assert gate.closings > 5, summary  # (the path did stop, many times, during the match)
    assert all(r.status == "over" and not r.blamed for r in results.values()), summary
    assert all(not any(late.values()) for late in kept.values()), (kept, summary)
