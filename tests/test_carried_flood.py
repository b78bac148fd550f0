"""A seat that floods a carrier with frames to carry, in virtual time (relay.CARRY_SLACK).

A seat asked to carry a relay frame passes it on to its target, waiting as long as the path to
the target takes it, and reads nothing meanwhile; the records inside are checked, but a seat may
sign as many records of its own as it likes. Carried without bound, a flood of them over a path
slower than the flooder's own made the carrier late to every seat, and got it named."""

from __future__ import annotations

import contextlib

import pytest
import trio
import trio.testing
from net_helpers import Lagging, memory_links, play_bots
from protocol_helpers import identity_for, make_tables

from p2pcards.games.nines.rules import NinesRules
from p2pcards.net import relay
from p2pcards.net.link import LinkClosed
from p2pcards.net.runner import RunResult
from p2pcards.net.session import Timeouts
from p2pcards.protocol.sitting import Sitting
from p2pcards.protocol.steplog import SIGN_PREFIX
from p2pcards.protocol.wire import Evidence, Record, Relay, SignedRecord

STEP = 30.0
TURN = 60.0


class Pipe(Lagging):
    """A path that carries ``rate`` bytes a second, with ``buffer`` bytes of room in front of
    it (the sender's system): a send waits for room, and its bytes arrive once carried."""

    def __init__(self, inner: trio.abc.SendStream, rate: float, buffer: int, nursery: trio.Nursery) -> None:
        super().__init__(inner, 0.0, nursery)
        self.rate, self.buffer = rate, buffer
        self.free_at = 0.0

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        room_at = self.free_at - max(0, self.buffer - len(data)) / self.rate
        await trio.sleep_until(max(trio.current_time(), room_at))
        self.free_at = max(trio.current_time(), self.free_at) + len(data) / self.rate
        await self.queue.send((self.free_at, bytes(data)))


async def flooded(
    rate: float, flood_every: float, seed: int = 1, after: int = 1, hands: int = 5
) -> tuple[dict[int, RunResult], int]:
    """Seats 0, 1, 2 linked each with each; seat 0's path to seat 1 carries ``rate`` bytes a
    second. Seat 2 plays honestly, and besides sends seat 0, every ``flood_every`` s, a relay
    frame for seat 1 of records it signs for the purpose (each new, so each is carried)."""
    tables = {s: Sitting(t) for s, t in make_tables(3, NinesRules(hands=hands), seed=seed).items()}
    sent = 0
    async with trio.open_nursery() as pumps:

        def rated() -> tuple[trio.abc.Stream, trio.abc.Stream]:
            """Seat 0's end (its sends go at ``rate``) and seat 1's."""
            to_1, from_0 = trio.testing.memory_stream_one_way_pair()
            to_0, from_1 = trio.testing.memory_stream_one_way_pair()
            sends = Pipe(to_1, rate, 64 * 1024, pumps)
            return trio.StapledStream(sends, from_1), trio.StapledStream(to_0, from_0)

        links = memory_links(3, pairs={frozenset((0, 1)): rated})
        me = identity_for(2, seed)

        async def flood() -> None:
            nonlocal sent
            while len(tables[2].transcript.steps) < after:
                await trio.sleep(0.001)
            body = tables[2].transcript.steps[0][2].record.body
            n = 0
            while True:
                records = []
                for _ in range(32):
                    n += 1
                    rec = Record(
                        game_id=tables[2].game_id, step=10_000 + n, seat=2, prev=bytes(32), body=body
                    )
                    raw = rec.to_bytes()
                    records.append(SignedRecord(raw, me.sign(SIGN_PREFIX + raw), rec))
                with contextlib.suppress(LinkClosed):
                    await links[2][0].send(Relay(2, 1, Evidence(tuple(records)).to_frame()).to_frame())
                    sent += 1
                await trio.sleep(flood_every)

        async with trio.open_nursery() as nursery:
            nursery.start_soon(flood)
            results = await play_bots(tables, links, Timeouts(turn=TURN, step=STEP))
            nursery.cancel_scope.cancel()
        pumps.cancel_scope.cancel()
    return results, sent


@pytest.mark.parametrize(
    ("rate", "after", "hands"), [(40_000.0, 1, 5), (100_000.0, 1, 5), (10_000.0, 600, 20)]
)
async def test_a_flood_to_carry_gets_nobody_honest_named_and_stalls_nothing(
    autojump_clock: trio.testing.MockClock, rate: float, after: int, hands: int
) -> None:
    """Seat 2 sends seat 0, 50 times a second, a relay frame for seat 1 of 32 records it signed
    for the purpose (14 KB a frame, each record new, so not a copy that seat 0 may drop), and
    seat 0's path to seat 1 carries ``rate`` bytes a second. Each carried, seat 0 read nothing
    while its path took them, its own records reached seat 1 behind them, and seat 1's records
    reached seat 0's table behind the 64 frames queued before them: at 40 KB/s seat 1 named
    seat 0 for lateness (at 372 s of virtual time), at 100 KB/s nobody was named but 5 hands
    took 760 s instead of 1 s. Bounded by the bytes of the records seat 0 held, and MAX_FRAME
    besides, a flood kept until step 600 of 20 hands at 10 KB/s still made the match last
    91 s (8 s without it). Seat 0 carries from one origin to one target at most CARRY_SLACK
    at once, its room filling again as the records it holds grow: nobody is named, and the
    match lasts little more than twice the time that path takes CARRY_SLACK."""
    start = trio.current_time()
    results, sent = await flooded(rate, 0.02, after=after, hands=hands)
    summary = {s: (r.status, r.blamed, r.problem) for s, r in results.items()}
    assert all(r.status == "over" and not r.blamed for r in results.values()), summary
    assert sent > 100, summary
    took = trio.current_time() - start
    assert took < 2 * relay.CARRY_SLACK / rate + 30, (took, summary)

