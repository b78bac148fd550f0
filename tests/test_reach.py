"""Reaching a seat: the roster's addresses for a joiner with a port mapping, and dialling
the first of a seat's addresses that answers.

The real routers are in ``test_reach_lab.py`` (network namespaces, nftables).
"""

from __future__ import annotations

import pytest
import trio
import trio.testing
from hypothesis import given
from hypothesis import strategies as st

from p2pcards.net.dial import AFRESH, connect_afresh, connect_first
from p2pcards.net.node import _journal_seat
from p2pcards.protocol.admission import roster_seat
from p2pcards.protocol.lobby import Hello, Seat, Start, decode_lobby, encode_lobby
from p2pcards.protocol.wire import WireError

KEY = b"k" * 32


def _hello(port: int, outside: tuple[str, int] | None) -> Hello:
    return Hello(name="bob", key=KEY, nonce=b"n" * 32, port=port, pake=b"p" * 33, outside=outside)


def test_a_joiner_without_a_mapping_is_dialled_where_the_host_saw_it() -> None:
    seat = roster_seat(_hello(40000, None), "192.168.1.7", 51515)
    assert (seat.host, seat.port, seat.also, seat.seen) == ("192.168.1.7", 40000, (), 51515)
    assert seat.addresses == (("192.168.1.7", 40000),)


def test_a_joiner_seen_at_its_routers_address_is_dialled_at_the_mapped_port() -> None:
    seat = roster_seat(_hello(40000, ("198.18.0.9", 51000)), "198.18.0.9")
    assert seat.addresses == (("198.18.0.9", 51000),)  # port 40000 of its router leads nowhere


def test_a_joiner_on_the_hosts_network_keeps_its_mapping_for_the_seats_outside() -> None:
    seat = roster_seat(_hello(40000, ("198.18.0.9", 51000)), "192.168.1.7")
    assert seat.addresses == (("192.168.1.7", 40000), ("198.18.0.9", 51000))


def test_a_joiner_that_does_not_listen_is_not_dialled_even_with_a_mapping() -> None:
    assert roster_seat(_hello(0, ("198.18.0.9", 51000)), "192.168.1.7").also == ()


def test_the_start_writes_the_fifth_item_only_for_a_seat_with_more_addresses() -> None:
    plain = Seat(name="a", key=KEY, host="192.168.1.2", port=7777)
    more = Seat(name="b", key=b"j" * 32, host="192.168.1.7", port=40000, also=(("198.18.0.9", 51000),))
    assert len(plain.to_wire()) == 4 and len(more.to_wire()) == 5
    assert more.to_wire()[4] == {"also": [["198.18.0.9", 51000]]}
    start = decode_lobby(encode_lobby(Start(roster=(plain, more))))
    assert isinstance(start, Start) and start.roster == (plain, more)
    hello = decode_lobby(encode_lobby(_hello(40000, ("198.18.0.9", 51000))))
    assert isinstance(hello, Hello) and hello.outside == ("198.18.0.9", 51000)


@pytest.mark.parametrize(
    "more",
    [
        {"also": [["router.example", 51000]]},  # a name: a lookup could send the dial anywhere
        {"also": [["198.18.0.9", 0]]},
        {"also": [["198.18.0.9", 70000]]},
        {"also": [["198.18.0.9"]]},
        {"also": [["1.1.1.1", 1], ["1.1.1.2", 2], ["1.1.1.3", 3]]},  # more than MAX_ALSO
        {"also": []},
        {"seen": 0},
        {"seen": "51000"},
        {"seen": 51000, "next": 1},
        {},
        [["198.18.0.9", 51000]],
        "198.18.0.9:51000",
    ],
)
def test_a_start_with_unusable_seat_details_is_refused(more: object) -> None:
    from p2pcards.protocol.wire import pack

    seat = ["b", b"j" * 32, "192.168.1.7", 40000, more]
    frame = pack({"v": 2, "kind": "start", "body": {"roster": [["a", KEY, "192.168.1.2", 7777], seat]}})
    with pytest.raises(WireError):
        decode_lobby(frame)


@given(
    st.lists(st.tuples(st.ip_addresses().map(str), st.integers(1, 65535)), min_size=0, max_size=2),
    st.integers(0, 65535),
    st.integers(0, 65535),
)
def test_a_seat_and_its_addresses_survive_the_wire_and_the_journal(
    also: list[tuple[str, int]], port: int, seen: int
) -> None:
    seat = Seat(name="b", key=KEY, host="192.168.1.7", port=port, also=tuple(also), seen=seen)
    start = decode_lobby(encode_lobby(Start(roster=(seat, Seat(name="a", key=b"j" * 32, host="", port=1)))))
    assert isinstance(start, Start) and start.roster[0] == seat
    journal = [seat.host, seat.port, [list(a) for a in seat.also]]
    assert _journal_seat(journal) == (seat.host, seat.port, seat.also)
    if seen == 0:
        assert "seen" not in ([*seat.to_wire(), {}])[4]


def test_a_journal_of_an_earlier_version_still_reads() -> None:
    assert _journal_seat(["192.168.1.7", 40000]) == ("192.168.1.7", 40000, ())


async def test_the_first_address_that_answers_is_the_one_dialled() -> None:
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    closed = trio.socket.socket()
    await closed.bind(("127.0.0.1", 0))
    refused = closed.getsockname()[1]
    closed.close()
    async with trio.open_nursery() as nursery:

        async def take() -> None:
            stream = await listeners[0].accept()
            await stream.send_all(b"hi")
            await stream.aclose()

        nursery.start_soon(take)
        stream, address = await connect_first([("127.0.0.1", refused), ("127.0.0.1", port)])
        assert address == ("127.0.0.1", port)
        assert await stream.receive_some(2) == b"hi"
        await stream.aclose()
    await listeners[0].aclose()
    with pytest.raises(OSError):
        await connect_first([("127.0.0.1", refused), ("127.0.0.1", refused)])


async def test_a_dial_after_a_dropout_sends_a_fresh_syn_every_second_not_after_the_back_off(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The network is back 4.5 s into the dial. A single connection would carry its next SYN
    only at 7 s (the system's back-off); a fresh attempt every ``AFRESH`` connects at 5 s,
    and the attempts still waiting on lost SYNs are dropped."""
    back_at = trio.current_time() + 4.5
    started: list[float] = []
    cancelled: list[float] = []
    server, client = trio.testing.memory_stream_pair()

    async def opener(address: tuple[str, int]) -> trio.SocketStream:
        started.append(trio.current_time())
        try:
            if trio.current_time() < back_at:
                await trio.sleep_forever()  # its SYN is lost, and the next one only after the back-off
        except trio.Cancelled:
            cancelled.append(trio.current_time())
            raise
        return client  # type: ignore[return-value]

    t0 = trio.current_time()
    stream, address = await connect_afresh([("198.18.0.2", 7777)], 10.0, opener)
    assert stream is client and address == ("198.18.0.2", 7777)
    assert [round(t - t0, 3) for t in started] == [k * AFRESH for k in range(6)]
    assert len(cancelled) == 5 and trio.current_time() - t0 == 5 * AFRESH
    await server.aclose()


async def test_a_dial_refused_every_time_says_the_last_refusal_when_its_time_is_over(
    autojump_clock: trio.testing.MockClock,
) -> None:
    tries: list[float] = []

    async def opener(address: tuple[str, int]) -> trio.SocketStream:
        tries.append(trio.current_time())
        raise ConnectionRefusedError(f"refused #{len(tries)}")

    with pytest.raises(ConnectionRefusedError, match="refused #4"):
        await connect_afresh([("198.18.0.2", 7777)], 3.5, opener)
    assert len(tries) == 4


async def test_a_dial_to_an_address_that_never_answers_times_out(
    autojump_clock: trio.testing.MockClock,
) -> None:
    async def opener(address: tuple[str, int]) -> trio.SocketStream:
        await trio.sleep_forever()
        raise AssertionError

    with pytest.raises(trio.TooSlowError):
        await connect_afresh([("198.18.0.2", 7777)], 2.5, opener)
