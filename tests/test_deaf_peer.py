"""A seat that stops reading one peer's link, in virtual time (red team 4, attack 1).

The hostile seat reads every link but one honest seat's, and gets that seat's records through
the others' answers. The honest seat's first frame to it waits to be delivered: it names the
hostile seat, and must do so before the others' clocks for its own next record run out (it can
send nothing meanwhile), or they name it, an honest player, as it names the other.
"""

from __future__ import annotations

from typing import Any

import pytest
import trio
import trio.testing
from net_helpers import bot
from protocol_helpers import make_tables

from p2pcards.games.nines.rules import NinesRules
from p2pcards.net.link import Link
from p2pcards.net.runner import RunResult, run_table
from p2pcards.net.session import Timeouts
from p2pcards.protocol.sitting import Sitting


class Deaf(trio.abc.ReceiveStream):
    """The receiving end of a link that is never read."""

    async def receive_some(self, max_bytes: int | None = None) -> bytes:
        await trio.sleep_forever()
        raise AssertionError

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()


async def play_three(
    tables: dict[int, Sitting], links: dict[int, dict[int, Link]], relayed: dict[int, list[int]] | None = None
) -> tuple[dict[int, RunResult], dict[int, Any]]:
    """Play the three seats on ``links`` (``relayed``: whom each reaches only through the
    others) until each stops; their results, and a summary of them to show when one fails."""
    results: dict[int, RunResult] = {}

    async def seat(s: int) -> None:
        through = (relayed or {}).get(s, [])
        results[s] = await run_table(
            tables[s], links[s], bot(s), timeouts=Timeouts(turn=60.0, step=30.0), relayed=through
        )

    with trio.fail_after(3600):
        async with trio.open_nursery() as nursery:
            for s in tables:
                nursery.start_soon(seat, s)
    return results, {s: (r.status, r.blamed, r.problem) for s, r in results.items()}


# Guards pacing.STUCK_SHARE: with a frame allowed the whole step's timeout to be delivered, seat 1
# named seat 2 "stopped reading" at 30 s, and seats 0 and 2 named seat 1 "did not answer" at 30 s.
async def test_a_seat_that_never_reads_one_peer_gets_nobody_honest_named(
    autojump_clock: trio.testing.MockClock,
) -> None:
    tables = {s: Sitting(t) for s, t in make_tables(3, NinesRules(target=100), seed=1).items()}
    links: dict[int, dict[int, Link]] = {0: {}, 1: {}, 2: {}}
    for a, b in ((0, 1), (0, 2)):
        x, y = trio.testing.memory_stream_pair()
        links[a][b] = Link(x, peer=f"seat {b}")
        links[b][a] = Link(y, peer=f"seat {a}")
    to_2, _unread = trio.testing.lockstep_stream_one_way_pair()  # seat 1's sends there block
    from_2, to_1 = trio.testing.memory_stream_one_way_pair()
    links[1][2] = Link(trio.StapledStream(to_2, to_1), peer="seat 2")
    links[2][1] = Link(trio.StapledStream(from_2, Deaf()), peer="seat 1")
    results, summary = await play_three(tables, links)
    assert results[1].blamed == (2,), summary
    assert "stopped reading" in (results[1].problem or ""), summary
    assert 1 not in results[0].blamed, summary  # the host, honest, does not name the honest seat



class Room(trio.abc.SendStream):
    """The sending end of a link whose reader stopped: ``room`` bytes fit in its buffers, then
    every send waits for ever."""

    def __init__(self, room: int) -> None:
        self.room = room

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await trio.lowlevel.checkpoint()
        if len(data) > self.room:
            await trio.sleep_forever()
        self.room -= len(data)

    async def wait_send_all_might_not_block(self) -> None:
        await trio.sleep_forever()

    async def aclose(self) -> None:
        await trio.lowlevel.checkpoint()


# Guards the share in relay.carry too: there a frame carried for another seat waited the whole
# step's timeout to be delivered, while this seat read nothing; it then took the others' frames,
# queued all that while, for silence, and stopped naming nobody ("this node's own connection may
# be down"), so the seat that stopped reading stopped the match unnamed.
@pytest.mark.parametrize("room", [1000, 4000])
async def test_a_relayed_seat_that_stops_reading_its_carrier_is_named(
    autojump_clock: trio.testing.MockClock, room: int
) -> None:
    """Seats 1 and 2 have no link of their own: the host carries between them. Seat 2 stops
    reading what the host sends once ``room`` bytes wait: the host names it, whatever it was
    sending then (its own record or one it carried), and seat 1 does not name the host."""
    tables = {s: Sitting(t) for s, t in make_tables(3, NinesRules(target=100), seed=1).items()}
    links: dict[int, dict[int, Link]] = {0: {}, 1: {}, 2: {}}
    x, y = trio.testing.memory_stream_pair()
    links[0][1] = Link(x, peer="seat 1")
    links[1][0] = Link(y, peer="seat 0")
    from_2, to_0 = trio.testing.memory_stream_one_way_pair()
    links[0][2] = Link(trio.StapledStream(Room(room), to_0), peer="seat 2")
    links[2][0] = Link(trio.StapledStream(from_2, Deaf()), peer="seat 0")
    results, summary = await play_three(tables, links, {1: [2], 2: [1]})
    assert results[0].blamed == (2,), summary
    assert 0 not in results[1].blamed and "seat 2" in (results[1].problem or ""), summary
