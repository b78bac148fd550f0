"""Finding a host on the local network by its code's number (``p2pcards.net.discovery``).

What is checked: the datagram parser takes any bytes without raising and reads
back exactly what was encoded; a host answers a query for its number only (and
only while its lobby is open, within its rate limit); a joiner finds it over real
UDP sockets on 127.0.0.1 and says clearly when none or several answer; no
datagram ever carries the code's words or anything else but the number, a nonce
and a port; and the real command, ``p2pcards join 43-robin-maple``, finds a real
``p2pcards host`` and sits at its table. A last test broadcasts for real between
network namespaces when the machine allows it.
"""

from __future__ import annotations

import hashlib
import os
import socket
import threading
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import trio
from hypothesis import given
from hypothesis import strategies as st

from p2pcards.errors import UsageError
from p2pcards.net import discovery
from p2pcards.net.discovery import (
    ANSWER,
    DATAGRAM_SIZE,
    QUERY,
    Answer,
    LobbyWatch,
    NoHostAnswered,
    Query,
    RateLimit,
    Responder,
    Search,
    code_number,
    decode,
    encode,
)
from p2pcards.net.session import LobbyUI, Timeouts

LOCAL = "127.0.0.1"
CODE = "43-robin-maple"
WORDS = ("robin", "maple")
JOINER = (LOCAL, 40000)
"""A joiner's source address: loopback, an unprivileged port."""


def free_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind((LOCAL, 0))
        return int(s.getsockname()[1])


def query(number: int = 43, nonce: bytes = b"n" * 16) -> bytes:
    return encode(Query(number, nonce))


# ---------------------------------------------------------------------------
# The datagrams


numbers = st.integers(1, discovery.MAX_NUMBER)
nonces = st.binary(min_size=16, max_size=16)
messages = st.one_of(
    st.builds(Query, numbers, nonces),
    st.builds(Answer, numbers, nonces, st.integers(1, 65535)),
)


@given(st.binary(max_size=2 * DATAGRAM_SIZE))
def test_the_parser_takes_any_bytes_and_reads_only_canonical_datagrams(data: bytes) -> None:
    message = decode(data)
    assert message is None or encode(message) == data


@given(messages, st.data())
def test_a_datagram_reads_back_as_encoded_and_any_changed_byte_is_refused_or_canonical(
    message: Query | Answer, data: st.DataObject
) -> None:
    raw = encode(message)
    assert len(raw) == DATAGRAM_SIZE
    assert decode(raw) == message
    i = data.draw(st.integers(0, len(raw) - 1))
    flip = data.draw(st.integers(1, 255))
    changed = raw[:i] + bytes([raw[i] ^ flip]) + raw[i + 1 :]
    other = decode(changed)
    assert other is None or (other != message and encode(other) == changed)
    assert decode(raw + b"\0") is None and decode(raw[:-1]) is None


def test_the_byte_layout() -> None:
    q = query(43, bytes(range(16)))
    assert q == b"p2pcards" + bytes([1, QUERY, 43, 0]) + bytes(range(16)) + bytes(4)
    a = encode(Answer(43, bytes(range(16)), 7777))
    port = (7777).to_bytes(2, "big")
    assert a == b"p2pcards" + bytes([1, ANSWER, 43, 0]) + bytes(range(16)) + port + bytes(2)
    assert len(a) <= len(q)  # an answer is never larger than its query: no amplification


@pytest.mark.parametrize(
    "bad", [Query(0, b"n" * 16), Query(100, b"n" * 16), Query(1, b"n"), Answer(1, b"n" * 16, 0)]
)
def test_what_cannot_be_encoded(bad: Query | Answer) -> None:
    with pytest.raises(ValueError):
        encode(bad)


@pytest.mark.parametrize(
    ("text", "number"),
    [
        (CODE, 43),
        ("43 Robin  Maple", 43),
        ("2-acid-acorn", 2),
        ("99-x-y", 99),
        ("7-secret-walrus", 7),  # any words: the host may choose its code
        ("127.0.0.1", None),
        ("localhost", None),
        ("my-pc", None),
        ("my-game-pc", None),
        ("host:7777", None),
        ("43-robin-maple:7777", None),  # with a port: an address
        ("[::1]:7777", None),
        ("0-robin-maple", None),
        ("100-robin-maple", None),
        ("043-robin-maple", None),
        ("43-robin", None),
        ("43-robin-maple-oak", None),
        ("43-r0bin-maple", None),
        ("", None),
    ],
)
def test_a_code_is_told_from_an_address(text: str, number: int | None) -> None:
    assert code_number(text) == number


def test_only_the_number_of_a_code_is_ever_shown() -> None:
    assert discovery.shown(43) == "43-..."


# ---------------------------------------------------------------------------
# The host's answers (sans-IO)


def test_the_host_answers_a_query_for_its_number_only() -> None:
    r = Responder(43, 40123)
    assert decode(r.respond(query(43, b"a" * 16), JOINER, 0.0) or b"") == Answer(43, b"a" * 16, 40123)
    assert r.respond(query(44), JOINER, 0.0) is None
    assert r.respond(encode(Answer(43, b"a" * 16, 1)), JOINER, 0.0) is None  # an answer is not a query
    for junk in (b"", b"\0" * 32, b"p2pcards", b"x" * 5000, query(43)[:-1], query(43) + b"\0"):
        assert r.respond(junk, JOINER, 0.0) is None
    assert r.answered == 1


def test_the_host_answers_no_internet_address_and_no_privileged_port() -> None:
    r = Responder(43, 40123)
    assert r.respond(query(), ("8.8.8.8", 40000), 0.0) is None
    assert r.respond(query(), (LOCAL, 53), 0.0) is None  # reflected at a service: no
    assert r.respond(query(), ("192.168.1.9", 40000), 0.0) is not None
    assert r.respond(query(), ("10.0.0.9", 40000), 0.0) is not None
    assert r.respond(query(), ("169.254.3.4", 40000), 0.0) is not None


def test_the_host_answers_only_while_its_lobby_is_open() -> None:
    ui = LobbyWatch(LobbyUI())
    r = Responder(43, 40123, is_open=lambda: ui.open)
    assert r.respond(query(), JOINER, 0.0) is not None
    ui.lobby(["Hal", "Jo"], 2)  # full
    assert r.respond(query(), JOINER, 0.0) is None
    ui.lobby(["Hal"], 2)  # Jo left before the start: a seat is free again
    assert r.respond(query(), JOINER, 0.0) is not None
    ui.table_clock(Timeouts())  # the table has started
    assert r.respond(query(), JOINER, 0.0) is None


def test_answers_are_rate_limited_per_source() -> None:
    r = Responder(43, 40123)
    answered = sum(r.respond(query(), JOINER, 0.0) is not None for _ in range(100))
    assert answered == 8  # the burst
    assert r.limited == 92
    assert r.respond(query(), ("192.168.1.9", 40000), 0.0) is not None  # another source is not held up
    assert r.respond(query(), JOINER, 0.1) is None
    assert r.respond(query(), JOINER, 0.25) is not None  # 4 a second come back
    later = sum(r.respond(query(), JOINER, 10.0) is not None for _ in range(100))
    assert later == 8  # never more than the burst


def test_answers_are_rate_limited_in_all_even_from_forged_sources() -> None:
    r = Responder(43, 40123)
    forged = [(f"10.0.{i // 250}.{i % 250}", 40000) for i in range(1000)]
    assert sum(r.respond(query(), source, 0.0) is not None for source in forged) == 64
    later = sum(r.respond(query(), (f"10.1.{a[5:]}", 40000), 1.0) is not None for a, _ in forged)
    assert later == 32  # a second later: the total rate


def test_the_rate_limit_forgets_the_oldest_source_past_its_memory() -> None:
    limit = RateLimit(max_sources=3)
    for i in range(10):
        assert limit.allow(f"10.0.0.{i}", 0.0)
    assert len(limit._sources) == 3


# ---------------------------------------------------------------------------
# The joiner's side (sans-IO)


def test_a_search_keeps_distinct_answers_to_its_own_query() -> None:
    s = Search(43, b"s" * 16)
    assert decode(s.query()) == Query(43, b"s" * 16)
    good = encode(Answer(43, b"s" * 16, 7777))
    assert s.receive(good, ("192.168.1.5", 7777))
    assert not s.receive(good, ("192.168.1.5", 7777))  # the same again (a second broadcast)
    assert not s.receive(encode(Answer(43, b"x" * 16, 7777)), ("192.168.1.6", 7777))  # another query's
    assert not s.receive(encode(Answer(44, b"s" * 16, 7777)), ("192.168.1.6", 7777))  # another number
    assert not s.receive(good, ("8.8.8.8", 7777))  # from the internet
    assert not s.receive(s.query(), ("192.168.1.6", 7777))  # a query is not an answer
    assert not s.receive(b"junk", ("192.168.1.6", 7777))
    assert s.found[0] == ("192.168.1.5", 7777)


def test_answers_from_this_machine_for_one_port_are_one_host() -> None:
    s = Search(43, b"s" * 16)
    for source, port in [("192.0.2.2", 7000), (LOCAL, 7000), (LOCAL, 7001), ("192.168.1.5", 7000)]:
        s.receive(encode(Answer(43, b"s" * 16, port)), (source, 1))
    mine = {"192.0.2.2", LOCAL}
    assert s.hosts(lambda a: a in mine) == [("192.0.2.2", 7000), (LOCAL, 7001), ("192.168.1.5", 7000)]


def test_a_search_keeps_a_bounded_number_of_answers() -> None:
    s = Search(43, b"s" * 16)
    for i in range(100):
        s.receive(encode(Answer(43, b"s" * 16, 1000 + i)), ("10.0.0.1", 1))
    assert len(s.found) == discovery.MAX_HOSTS


# ---------------------------------------------------------------------------
# On real sockets (127.0.0.1)


async def responding(
    nursery: trio.Nursery, number: int, tcp_port: int, *, bind: str = LOCAL, **kw: Any
) -> tuple[Responder, int]:
    """A responder on a free UDP port; returns it and the port."""
    port = free_udp_port()
    sockets = await discovery.open_responder(bind, port)
    responder = Responder(number, tcp_port, **kw)

    async def run() -> None:
        try:
            await discovery.serve(responder, sockets)
        finally:
            sockets.close()

    nursery.start_soon(run)
    return responder, port


async def test_a_joiner_finds_the_host_of_its_number_and_only_it() -> None:
    async with trio.open_nursery() as nursery:
        _, port = await responding(nursery, 43, 40123)
        found = await discovery.search(43, port=port, targets=[LOCAL], wait=2, settle=0.1)
        assert found == [(LOCAL, 40123)]
        located = await discovery.locate(CODE, port=port, targets=[LOCAL], wait=2, settle=0.1)
        assert located == [(LOCAL, 40123)]
        with pytest.raises(NoHostAnswered, match=r"no host with code 44-\.\.\. answered on this network"):
            await discovery.locate("44-robin-maple", port=port, targets=[LOCAL], wait=0.4, settle=0.1)
        nursery.cancel_scope.cancel()


async def test_the_joiner_stops_soon_after_the_answer() -> None:
    async with trio.open_nursery() as nursery:
        _, port = await responding(nursery, 43, 40123)
        start = trio.current_time()
        await discovery.search(43, port=port, targets=[LOCAL], wait=3, settle=0.2)
        assert trio.current_time() - start < 1.0
        nursery.cancel_scope.cancel()


async def test_with_nobody_answering_the_joiner_gives_up_after_its_wait() -> None:
    port = free_udp_port()
    start = trio.current_time()
    with pytest.raises(NoHostAnswered) as e:
        await discovery.locate(CODE, port=port, targets=[LOCAL], wait=0.6)
    assert 0.5 < trio.current_time() - start < 2.0
    assert "ask the host for its address and run p2pcards join ADDRESS" in str(e.value)
    assert not any(w in str(e.value) for w in WORDS)


async def test_two_hosts_with_one_number_are_both_found_in_the_order_they_answered() -> None:
    async with trio.open_nursery() as nursery:
        port = free_udp_port()
        for address, tcp_port in ((LOCAL, 40001), ("127.0.0.2", 40002)):
            hear = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            await hear.bind((address, port))
            nursery.start_soon(
                discovery.serve, Responder(43, tcp_port), discovery.ResponderSockets(hear, hear)
            )
        hosts = await discovery.locate(CODE, port=port, targets=[LOCAL, "127.0.0.2"], wait=2, settle=0.3)
        assert sorted(hosts) == [(LOCAL, 40001), ("127.0.0.2", 40002)]
        nursery.cancel_scope.cancel()


def broadcast_works() -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        try:
            s.sendto(b"", ("255.255.255.255", 9))
        except OSError:
            return False
    return True


async def test_two_hosts_on_one_machine_both_hear_a_broadcast() -> None:
    if not broadcast_works():
        pytest.skip("no broadcast on this machine's network")
    async with trio.open_nursery() as nursery:
        port = free_udp_port()
        for tcp_port in (40001, 40002):  # they share the discovery port
            sockets = await discovery.open_responder("0.0.0.0", port)
            nursery.start_soon(discovery.serve, Responder(43, tcp_port), sockets)
        found = await discovery.search(43, port=port, targets=["255.255.255.255"], wait=2, settle=0.3)
        assert sorted(p for _, p in found) == [40001, 40002]
        nursery.cancel_scope.cancel()


async def test_malformed_datagrams_leave_the_host_answering() -> None:
    async with trio.open_nursery() as nursery:
        responder, port = await responding(nursery, 43, 40123)
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            for junk in (b"", b"\xff" * 60000, query(43)[:-1], query(43) + b"x", b"p2pcards" + bytes(24)):
                s.sendto(junk, (LOCAL, port))
        await trio.sleep(0.1)
        assert await discovery.search(43, port=port, targets=[LOCAL], wait=2, settle=0.1) == [(LOCAL, 40123)]
        assert responder.answered >= 1
        nursery.cancel_scope.cancel()


async def test_a_flood_of_queries_gets_a_burst_of_answers() -> None:
    async with trio.open_nursery() as nursery:
        responder, port = await responding(nursery, 43, 40123)
        s = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        with s:
            await s.bind((LOCAL, 0))
            for _ in range(200):
                await s.sendto(query(), (LOCAL, port))
            answers = 0
            with trio.move_on_after(0.5):
                while True:
                    data, _ = await s.recvfrom(100)
                    assert decode(data) == Answer(43, b"n" * 16, 40123)
                    answers += 1
        assert 8 <= answers <= 10  # the burst, and what came back while the flood lasted
        assert answers == responder.answered
        assert responder.answered + responder.limited <= 200  # (the kernel may drop some of a flood)
        nursery.cancel_scope.cancel()


async def test_a_loopback_host_answers_from_loopback() -> None:
    """A host listening on one address answers from it: the joiner dials where the host listens."""
    async with trio.open_nursery() as nursery:
        port = free_udp_port()
        sockets = await discovery.open_responder(LOCAL, port)
        nursery.start_soon(discovery.serve, Responder(43, 40123), sockets)
        found = await discovery.search(43, port=port, targets=["255.255.255.255", LOCAL], wait=2, settle=0.3)
        assert found == [(LOCAL, 40123)]
        nursery.cancel_scope.cancel()


def test_discovery_needs_an_ipv4_address_to_answer_from() -> None:
    assert discovery.reply_address("0.0.0.0") is None
    assert discovery.reply_address("::") is None
    assert discovery.reply_address(LOCAL) == LOCAL
    with pytest.raises(UsageError, match="IPv4"):
        discovery.reply_address("::1")


@dataclass(frozen=True)
class _Config:
    ui: LobbyUI


async def test_hosting_answers_from_listening_until_the_lobby_closes() -> None:
    """``hosting`` runs the table and answers while its lobby is open; then the sockets close."""
    udp = free_udp_port()
    sockets = await discovery.open_responder(LOCAL, udp)
    found: dict[str, list[tuple[str, int]]] = {}

    async def play(cfg: _Config, *, task_status: Any = trio.TASK_STATUS_IGNORED) -> str:
        task_status.started(40123)
        found["open"] = await discovery.search(43, port=udp, targets=[LOCAL], wait=2, settle=0.1)
        cfg.ui.table_clock(Timeouts())  # what host_game does once the lobby is over
        found["started"] = await discovery.search(43, port=udp, targets=[LOCAL], wait=0.4, settle=0.1)
        return "played"

    assert await discovery.hosting(play, _Config(LobbyUI()), number=43, sockets=sockets) == "played"
    assert found == {"open": [(LOCAL, 40123)], "started": []}
    assert sockets.hear.fileno() == -1  # closed


# ---------------------------------------------------------------------------
# What travels: the number, a nonce, a port; never the words


@contextmanager
def recording_relay(to_port: int) -> Iterator[tuple[int, list[bytes]]]:
    """A UDP relay on 127.0.0.1 in front of a responder: yields its port and every datagram it
    carries (queries in, answers back), as anyone on the network would see them."""
    seen: list[bytes] = []
    front = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    front.bind((LOCAL, 0))
    front.settimeout(0.05)
    back = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    back.bind((LOCAL, 0))
    back.settimeout(0.05)
    stop = threading.Event()
    joiner: list[tuple[str, int]] = []

    def relay() -> None:
        while not stop.is_set():
            try:
                data, source = front.recvfrom(4096)
                seen.append(data)
                joiner[:] = [source]
                back.sendto(data, (LOCAL, to_port))
            except TimeoutError:
                pass
            try:
                data, _ = back.recvfrom(4096)
                seen.append(data)
                if joiner:
                    front.sendto(data, joiner[0])
            except TimeoutError:
                pass

    thread = threading.Thread(target=relay, daemon=True)
    thread.start()
    try:
        yield front.getsockname()[1], seen
    finally:
        stop.set()
        thread.join(5)
        front.close()
        back.close()


def assert_only_number_nonce_and_port(seen: list[bytes], number: int) -> None:
    """Every datagram is fully accounted for by the number, a nonce and a port: there is no room
    left in it for the words, a hash or a MAC of them."""
    texts = [CODE, "robin", "maple", "robin-maple", "43 robin maple"]
    digests = [f(t.encode()).digest() for t in texts for f in (hashlib.sha256, hashlib.sha1, hashlib.md5)]
    for data in seen:
        message = decode(data)
        assert message is not None and message.number == number
        rebuilt = (
            Query(number, message.nonce)
            if isinstance(message, Query)
            else Answer(number, message.nonce, message.port)
        )
        assert encode(rebuilt) == data
        for secret in [t.encode() for t in texts] + [d[:4] for d in digests]:
            assert secret.lower() not in data.lower()


async def test_no_datagram_carries_the_words_of_the_code() -> None:
    async with trio.open_nursery() as nursery:
        _, port = await responding(nursery, 43, 40123)
        nonces = set()
        for _ in range(2):
            with recording_relay(port) as (relay_port, seen):
                found = await discovery.locate(CODE, port=relay_port, targets=[LOCAL], wait=2, settle=0.2)
                assert found == [(LOCAL, 40123)]
            kinds = {type(decode(d)) for d in seen}
            assert kinds == {Query, Answer}, seen
            assert_only_number_nonce_and_port(seen, 43)
            nonces |= {decode(d).nonce for d in seen}  # type: ignore[union-attr]
        assert len(nonces) == 2  # a fresh nonce each search: nothing tied to the code
        nursery.cancel_scope.cancel()


# ---------------------------------------------------------------------------
# The real command


@pytest.mark.slow
def test_join_by_code_finds_a_real_host_and_sits_at_its_table(tmp_path: Path) -> None:
    from e2e_helpers import free_port, processes, run_cli

    udp = free_udp_port()
    with processes(tmp_path) as procs, recording_relay(udp) as (relay_port, seen):
        host = procs.spawn(
            "host",
            ["host", "-n", "2", "--port", str(free_port()), "--bind", LOCAL, "--bot", "random",
             "--name", "Hal", "--code", CODE],
            home=tmp_path / "h0",
            P2PCARDS_DISCOVERY_PORT=str(udp),
        )  # fmt: skip
        assert host.wait_for("Invitation code", timeout=20), host.tail()
        assert host.wait_for(f"p2pcards join {CODE})", timeout=5), host.tail()  # the hint is printed
        # The joiner asks the relay in front of the host (bound to 127.0.0.1: it sends nowhere else).
        joined = run_cli(
            ["join", CODE, "--bind", LOCAL, "--bot", "random", "--name", "Jo"],
            home=tmp_path / "h1",
            timeout=120,
            P2PCARDS_DISCOVERY_PORT=str(relay_port),
        )
        assert joined.returncode == 0, joined.stdout + joined.stderr
        assert "Found the host at 127.0.0.1:" in joined.stdout
        assert host.finish(timeout=60) == 0, host.tail()
        assert "Jo joined from 127.0.0.1" in host.output()
    assert seen and {type(decode(d)) for d in seen} == {Query, Answer}
    assert_only_number_nonce_and_port(seen, 43)


@pytest.mark.slow
def test_join_with_the_code_alone_and_nobody_answering_says_what_to_do(tmp_path: Path) -> None:
    from e2e_helpers import run_cli

    start = time.monotonic()
    proc = run_cli(
        ["join", "--bind", LOCAL, "--bot", "random"],
        home=tmp_path,
        P2PCARDS_CODE=CODE,
        P2PCARDS_DISCOVERY_PORT=str(free_udp_port()),
    )
    assert time.monotonic() - start < 15
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr
    error = [line for line in proc.stderr.splitlines() if line.startswith("Error:")]
    assert error == [
        "Error: no host with code 43-... answered on this network within 3 s; "
        "ask the host for its address and run p2pcards join ADDRESS"
    ], proc.stderr
    assert "robin" not in proc.stdout + proc.stderr


@pytest.mark.slow
def test_a_host_whose_discovery_port_is_taken_warns_and_goes_on(tmp_path: Path) -> None:
    from e2e_helpers import free_port, processes

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as taken, processes(tmp_path) as procs:
        taken.bind(("0.0.0.0", 0))  # no SO_REUSEADDR: nobody can share it
        udp = taken.getsockname()[1]
        host = procs.spawn(
            "host",
            [
                "host",
                "-n",
                "2",
                "--port",
                str(free_port()),
                "--bind",
                LOCAL,
                "--bot",
                "random",
                "--code",
                CODE,
            ],
            home=tmp_path,
            P2PCARDS_DISCOVERY_PORT=str(udp),
        )
        assert host.wait_for("Invitation code", timeout=20), host.tail()
        assert f"LAN discovery is off: UDP port {udp}" in host.output()
        assert "the code alone finds this host" not in host.output()
        assert host.popen.poll() is None


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["join", CODE], "two different codes"),  # with P2PCARDS_CODE set to another one
        (["join"], "Only a code like 43-robin-maple finds its host"),
    ],
)
def test_join_by_code_usage_errors(tmp_path: Path, args: list[str], error: str) -> None:
    from e2e_helpers import run_cli

    code = "7-secret-walrus" if args[1:] else "hunter2"
    proc = run_cli([*args, "--bot", "random"], home=tmp_path, P2PCARDS_CODE=code)
    assert proc.returncode == 2
    assert error in proc.stderr


@pytest.mark.parametrize(
    ("args", "dialled", "sent"),
    [
        (["198.18.0.5:7000", CODE], ("198.18.0.5", 7000), CODE),  # as an invitation is read out
        ([CODE, "198.18.0.5:7000"], ("198.18.0.5", 7000), CODE),  # the code first
        (["198.18.0.5:7000", "--code", CODE], ("198.18.0.5", 7000), CODE),
        (["198.18.0.5", CODE, "--code", CODE.upper()], ("198.18.0.5", 7777), CODE),  # the same code
        ([CODE, CODE], None, CODE),  # the same code twice: found on this network
    ],
)
def test_join_takes_the_code_after_the_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, args: list[str], dialled: Any, sent: str
) -> None:
    """``join ADDRESS CODE`` (either order) dials ADDRESS and proves CODE, as ``--code`` does."""
    from click.testing import CliRunner

    from p2pcards import cli
    from p2pcards.cli import cmd_join
    from p2pcards.net import node

    calls: list[tuple[Any, str]] = []

    async def fake_join(config: Any, *, host: str, port: int, code: str, **_: Any) -> str:
        calls.append(((host, port), code))
        return "joined"

    async def fake_locate(code: str, **_: Any) -> list[tuple[str, int]]:
        return [("198.18.0.9", 7777)]

    def fake_run(kind: str, run: Any, **_: Any) -> None:
        assert trio.run(run, None) == "joined"

    @asynccontextmanager
    async def fake_joining(config: Any, **_: Any) -> AsyncIterator[None]:
        yield None

    monkeypatch.setattr(node, "join_game", fake_join)
    monkeypatch.setattr(node, "joining", fake_joining)
    monkeypatch.setattr(discovery, "locate", fake_locate)
    monkeypatch.setattr(cmd_join, "_run_node", fake_run)
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path))
    monkeypatch.delenv("P2PCARDS_CODE", raising=False)
    result = CliRunner().invoke(cli.main, ["join", *args, "--bot", "random", "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert calls == [(dialled or ("198.18.0.9", 7777), sent)]


def test_join_refuses_two_different_codes_given_after_the_address(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from click.testing import CliRunner

    from p2pcards import cli

    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path))
    monkeypatch.delenv("P2PCARDS_CODE", raising=False)
    result = CliRunner().invoke(
        cli.main, ["join", "198.18.0.5:7000", CODE, "--code", "7-secret-walrus", "--lang", "en"]
    )
    assert result.exit_code == 2
    assert "two different codes" in result.output


# ---------------------------------------------------------------------------
# A real broadcast, between two network namespaces on one bridge


@pytest.mark.slow
def test_join_by_code_finds_the_host_by_broadcast_across_machines(tmp_path: Path) -> None:
    from e2e_helpers import processes
    from test_multihost import lab_hosts, spawn_in

    if os.geteuid() != 0:
        pytest.skip("needs root to make test hosts")
    with lab_hosts(2) as hosts, processes(tmp_path) as procs:
        (ns0, _), (ns1, joiner_address) = hosts
        host = spawn_in(
            procs, ns0, "host", ["host", "-n", "2", "--bot", "random", "--name", "Hal"], tmp_path / "h0",
            P2PCARDS_CODE=CODE,
        )  # fmt: skip
        assert host.wait_for("Invitation code", timeout=20), host.tail()
        joiner = spawn_in(
            procs,
            ns1,
            "joiner",
            ["join", "--bot", "random", "--name", "Jo"],
            tmp_path / "h1",
            P2PCARDS_CODE=CODE,
        )
        assert joiner.finish(timeout=120) == 0, joiner.tail()
        assert host.finish(timeout=60) == 0, host.tail()
    assert f"Jo joined from {joiner_address}" in host.output()
    assert "Found the host at " in joiner.output()
