"""Every link is TLS 1.3 with the seats' keys pinned: the certificate, the pins, what an
observer on the path sees, and strangers who cannot speak TLS at the host's door.

Real-socket tests run on 127.0.0.1; the deadline test runs ``HostLobby.handle`` over
``trio.testing`` memory streams under the ``autojump_clock``.
"""

from __future__ import annotations

import datetime
import os
import random
import ssl
import stat
import sys
import tempfile
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import replace
from pathlib import Path

import msgpack
import pytest
import trio
import trio.testing
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from net_helpers import (
    CODE,
    FAST,
    LOCALHOST,
    RecordingUI,
    WrappedStream,
    config,
    join_seat,
    read_until_closed,
    start_host,
    tls_connect,
    tls_serve,
)

from p2pcards.crypto.identity import Identity
from p2pcards.errors import JoinRefused, PeerUnreachable
from p2pcards.games.nines.rules import NinesRules
from p2pcards.net import session, tls
from p2pcards.net.link import Link, LinkClosed
from p2pcards.net.node import Outcome
from p2pcards.net.session import MIDDLE, HostLobby, SessionInfo, Timeouts, form_mesh, join_table
from p2pcards.protocol.lobby import Hello, Seat, decode_lobby_object, encode_lobby
from p2pcards.protocol.transcript import load

ONE_HAND = NinesRules(hands=1)


def make_lobby(
    players: int = 3, *, timeouts: Timeouts = FAST, **limits: object
) -> tuple[HostLobby, RecordingUI]:
    ui = RecordingUI()
    lobby = HostLobby(
        identity=Identity.generate(),
        name="host",
        rules=ONE_HAND,
        players=players,
        code=CODE,
        game_id=os.urandom(16),
        ui=ui,
        timeouts=timeouts,
        **limits,  # type: ignore[arg-type]
    )
    return lobby, ui


@asynccontextmanager
async def serving(handler: Callable[[trio.abc.Stream], Awaitable[None]]) -> AsyncIterator[int]:
    """``handler`` answering connections on a 127.0.0.1 port (yielded) until the block ends."""
    listeners = await trio.open_tcp_listeners(0, host=LOCALHOST)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, handler, listeners)
        yield listeners[0].socket.getsockname()[1]
        nursery.cancel_scope.cancel()


async def join(port: int, name: str, *, timeouts: Timeouts = FAST) -> SessionInfo:
    return await join_table(
        host=LOCALHOST,
        port=port,
        code=CODE,
        identity=Identity.generate(),
        name=name,
        listen_port=1,
        ui=RecordingUI(),
        timeouts=timeouts,
    )


async def pump(source: trio.abc.Stream, sink: trio.abc.Stream, seen: bytearray | None = None) -> None:
    """Copy ``source`` to ``sink`` until it ends (keeping a copy in ``seen``), then half-close."""
    try:
        while data := await source.receive_some(65536):
            if seen is not None:
                seen += data
            await sink.send_all(data)
        await tls.send_eof(sink)
    except (trio.BrokenResourceError, trio.ClosedResourceError):
        pass


async def relay(a: trio.abc.Stream, b: trio.abc.Stream, a_said: bytearray, b_said: bytearray) -> None:
    async with trio.open_nursery() as nursery:
        nursery.start_soon(pump, a, b, a_said)
        nursery.start_soon(pump, b, a, b_said)
    await a.aclose()
    await b.aclose()


def lobby_frames(data: bytes) -> list[object]:
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    return [decode_lobby_object(obj) for obj in unpacker]


# ---------------------------------------------------------------------------
# The certificate and the handshake


def test_the_certificate_holds_the_seat_key_and_its_files_never_outlive_loading(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    me = Identity.generate()
    cert = tls.certificate(me)
    key = cert.public_key()
    assert isinstance(key, Ed25519PublicKey) and key.public_bytes_raw() == me.public_key
    assert cert.issuer == cert.subject
    cert.verify_directly_issued_by(cert)  # self-signed, by the seat's key
    now = datetime.datetime.now(datetime.UTC)
    assert cert.not_valid_before_utc.year <= 2000 and cert.not_valid_after_utc.year >= 9999
    assert cert.not_valid_before_utc < now < cert.not_valid_after_utc

    modes: dict[str, int] = {}

    class Spy(ssl.SSLContext):
        def load_cert_chain(self, certfile: str, keyfile: str | None = None, password: object = None) -> None:
            assert keyfile is not None
            modes["directory"] = stat.S_IMODE(os.stat(os.path.dirname(keyfile)).st_mode)
            modes["key"] = stat.S_IMODE(os.stat(keyfile).st_mode)
            modes["cert"] = stat.S_IMODE(os.stat(certfile).st_mode)
            super().load_cert_chain(certfile, keyfile)

    class SslWithSpy:
        SSLContext = Spy

        def __getattr__(self, name: str) -> object:
            return getattr(ssl, name)

    monkeypatch.setattr(tls, "ssl", SslWithSpy())  # ssl.py itself keeps the real class
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    ctx = tls.server_context(me)
    assert modes == {"directory": 0o700, "key": 0o600, "cert": 0o600}
    assert list(tmp_path.iterdir()) == []  # deleted at once, directory and all
    assert ctx.minimum_version == ssl.TLSVersion.TLSv1_3
    assert ctx.verify_mode == ssl.CERT_NONE  # no client certificates


async def test_a_link_is_tls_1_3_and_the_client_reads_the_servers_key() -> None:
    host = Identity.generate()
    server_side: list[trio.SSLStream[trio.abc.Stream]] = []

    async def echo(stream: trio.abc.Stream) -> None:
        secured = await tls_serve(stream, host)
        server_side.append(secured)
        await pump(secured, secured)

    async with serving(echo) as port:
        client = await tls_connect(LOCALHOST, port)
        assert tls.peer_key(client) == host.public_key
        assert client.version() == "TLSv1.3"
        await client.send_all(b"ping")
        assert await client.receive_some() == b"ping"
        # The server asked for no certificate, so it has none of the client's.
        with pytest.raises(tls.TLSError, match="no certificate"):
            tls.peer_key(server_side[0])
        await client.aclose()


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the system says so on Linux only")
async def test_a_link_says_how_much_of_what_it_sent_the_peer_has_not_acknowledged() -> None:
    """What a seat that leaves waits for before it closes its links (``node._linger``): a
    close can cut a last frame still in flight. A peer that reads nothing leaves what was
    sent unacknowledged once its buffers are full; once it reads, all of it is acknowledged."""
    host = Identity.generate()
    reading = trio.Event()
    total = 8 << 20

    async def slow(stream: trio.abc.Stream) -> None:
        secured = await tls_serve(stream, host)
        await reading.wait()
        received = 0
        while received < total:
            received += len(await secured.receive_some())

    async with serving(slow) as port:
        link = Link(await tls_connect(LOCALHOST, port))
        with trio.fail_after(30):
            while link.unacknowledged():  # (the handshake's last bytes, a moment)
                await trio.sleep(0.01)
            assert link.unacknowledged() == 0
            async with trio.open_nursery() as nursery:
                nursery.start_soon(link.send, b"\x00" * total)  # (more than the buffers hold)
                await trio.sleep(0.5)
                waiting = link.unacknowledged()
                assert waiting is not None and waiting > 0
                reading.set()
            while link.unacknowledged():
                await trio.sleep(0.01)
        assert link.unacknowledged() == 0  # (in the peer's buffers: read or not, it got there)
        await link.aclose()
    assert Link(trio.testing.memory_stream_pair()[0]).unacknowledged() is None  # no socket: cannot say


async def test_a_client_that_offers_no_tls_1_3_is_refused_in_one_line() -> None:
    lobby, ui = make_lobby()
    async with serving(lobby.handle) as port:
        old = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        old.check_hostname = False
        old.verify_mode = ssl.CERT_NONE
        old.maximum_version = ssl.TLSVersion.TLSv1_2
        stream = trio.SSLStream(await trio.open_tcp_stream(LOCALHOST, port), old, server_hostname=None)
        with pytest.raises(trio.BrokenResourceError):
            await stream.do_handshake()
        await stream.aclose()
        with trio.fail_after(5):
            await ui.wait_for(lambda ui: any("TLS handshake failed" in i for i in ui.infos))
    [line] = ui.infos
    assert line.startswith(f"refused a connection from {LOCALHOST}: TLS handshake failed (")
    assert "\n" not in line


# ---------------------------------------------------------------------------
# Pins


async def test_a_joiner_refuses_a_man_in_the_middle_that_relays_the_lobby() -> None:
    # Mallory terminates the joiner's TLS with a key of her own and relays every lobby
    # frame, unchanged, to the real host over TLS of her own. The challenge names the
    # host's key; the channel ends at Mallory's: the joiner stops before it spends the code.
    lobby, _ = make_lobby()
    mallory = Identity.generate()
    joiner_said, host_said = bytearray(), bytearray()

    async with serving(lobby.handle) as host_port:

        async def middle(stream: trio.abc.Stream) -> None:
            joiner = await tls_serve(stream, mallory)
            host = await tls_connect(LOCALHOST, host_port)
            await relay(joiner, host, joiner_said, host_said)

        async with serving(middle) as port:
            with trio.fail_after(10), pytest.raises(JoinRefused) as caught:
                await join(port, "ann")
    assert caught.value.reason == "impostor"
    assert (
        str(caught.value)
        == MIDDLE
        == ("the host's encryption key does not match its signed key: someone may be in the middle")
    )
    said = lobby_frames(bytes(joiner_said))
    assert [type(m).__name__ for m in said] == ["Hello"]  # no auth: no proof to guess the code from
    assert [type(m).__name__ for m in lobby_frames(bytes(host_said))] == ["Challenge"]
    assert lobby.names() == ["host"] and not lobby.refused


async def seat_two_of_three(
    ids: list[Identity], seat_one_port: int
) -> tuple[SessionInfo, list[trio.SocketListener]]:
    """Seat 2 of a table of three about to form its mesh: seat 1 at ``seat_one_port``, the
    host linked already; with seat 2's listeners on 127.0.0.1."""
    listeners = await trio.open_tcp_listeners(0, host=LOCALHOST)
    ports = {0: 1, 1: seat_one_port, 2: listeners[0].socket.getsockname()[1]}
    roster = tuple(Seat(name=f"p{s}", key=ids[s].public_key, host=LOCALHOST, port=ports[s]) for s in range(3))
    info = SessionInfo(game_id=os.urandom(16), rules=ONE_HAND, roster=roster, seat=2)
    info.links[0] = Link(trio.testing.memory_stream_pair()[0])
    return info, listeners


async def test_a_mesh_link_to_a_seat_that_shows_another_key_is_refused() -> None:
    ids = [Identity.generate() for _ in range(3)]
    impostor = Identity.generate()
    heard: list[bytes] = []

    async def impostor_seat(stream: trio.abc.Stream) -> None:
        secured = await tls_serve(stream, impostor)
        heard.append(await read_until_closed(secured))

    async with serving(impostor_seat) as impostor_port:
        info, listeners = await seat_two_of_three(ids, impostor_port)
        with trio.fail_after(10), pytest.raises(PeerUnreachable) as caught:
            await form_mesh(info, ids[2], listeners, RecordingUI(), FAST)
        with trio.fail_after(5):
            while not heard:
                await trio.sleep(0.01)
        for listener in listeners:
            await listener.aclose()
    assert str(caught.value) == (
        "link to p1 (seat 1) failed: the address the host listed for seat 1 answered with another key"
        " than seat 1's: the host's roster may be wrong, or someone may be in the middle"
    )
    assert heard == [b""]  # not even a link hello: nothing signed left the dialler
    assert 1 not in info.links


@pytest.mark.parametrize("answer", ["silence", "hang-up"])
async def test_a_mesh_seat_that_takes_the_connection_but_does_not_answer_is_reached_through_the_host(
    answer: str,
) -> None:
    """A lower seat whose port takes the TCP connection but never answers the TLS handshake
    (not at its listener yet: its start came late), or hangs up: the dialler relays that
    pair through the host instead of giving up the match, and says so."""
    ids = [Identity.generate() for _ in range(3)]

    async def absent_seat(stream: trio.abc.Stream) -> None:
        if answer == "silence":
            await trio.sleep_forever()
        await stream.aclose()

    async with serving(absent_seat) as absent_port:
        info, listeners = await seat_two_of_three(ids, absent_port)
        ui = RecordingUI()
        with trio.fail_after(10):
            await form_mesh(info, ids[2], listeners, ui, replace(FAST, handshake=1.0))
        for listener in listeners:
            await listener.aclose()
    assert info.relayed == {1} and 1 not in info.links
    said = [line for line in ui.infos if "cannot reach p1 (seat 1) directly" in line]
    assert said and f"127.0.0.1:{absent_port}" in said[0] and "through the host" in said[0], ui.infos


# ---------------------------------------------------------------------------
# What an observer on the path sees


NAMES = ("Zanzibarian", "Quixotelle", "Wobblethorpe")


async def test_a_sniffer_relaying_every_link_sees_no_plaintext(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every connection a node dials (each joiner to the host, each mesh link) goes
    # through a TCP proxy that keeps a copy of every byte, both ways.
    captured: list[bytearray] = []
    real_open = trio.open_tcp_stream
    outcomes: dict[int, Outcome] = {}
    host_ui = RecordingUI()
    with trio.fail_after(60):
        async with trio.open_nursery() as proxies:

            async def through_proxy(host: str, port: int, **kwargs: object) -> trio.abc.Stream:
                listeners = await trio.open_tcp_listeners(0, host=LOCALHOST)

                async def forward() -> None:
                    inbound = await listeners[0].accept()
                    await listeners[0].aclose()
                    outbound = await real_open(host, port)
                    there, back = bytearray(), bytearray()
                    captured.extend((there, back))
                    await relay(inbound, outbound, there, back)

                proxies.start_soon(forward)
                return await real_open(LOCALHOST, listeners[0].socket.getsockname()[1])

            monkeypatch.setattr(trio, "open_tcp_stream", through_proxy)  # the mesh links
            monkeypatch.setattr(session, "open_reusable", through_proxy)  # each joiner to the host
            async with trio.open_nursery() as nursery:
                cfgs = [
                    config(tmp_path, f"n{s}", name=name, seed=s, ui=host_ui if s == 0 else None)
                    for s, name in enumerate(NAMES)
                ]
                port = await start_host(nursery, cfgs[0], players=3, rules=ONE_HAND, outcomes=outcomes)
                for seat in (1, 2):
                    await join_seat(nursery, port, cfgs[seat], seat, outcomes, host_ui)
            proxies.cancel_scope.cancel()
    assert [outcomes[s].status for s in range(3)] == ["over"] * 3
    assert len(captured) == 6  # two joiners to the host, seat 2 to seat 1: both ways each

    table = outcomes[0].table
    assert table is not None
    keys = [seat.key for seat in table.roster]
    plain_markers = [
        *(name.encode() for name in NAMES),
        b"hello",
        b"challenge",
        b"welcome",
        b"link-auth",
        b"shuffle",
        b"result",
        CODE.encode(),
        table.game_id,
        *keys,  # TLS 1.3 encrypts the certificates too
    ]
    # What the nodes said in plaintext holds every marker...
    records = b"".join(raw for raw, _ in load(tmp_path / "n0.p2pt").records)
    hello = encode_lobby(Hello(name=NAMES[1], key=keys[1], nonce=bytes(32), port=1, pake=bytes(33)))
    for marker in (b"shuffle", b"result", table.game_id, *keys):
        assert marker in records
    for marker in (NAMES[1].encode(), b"hello"):
        assert marker in hello
    # ...and none of it is on the wire.
    for wire in captured:
        assert len(wire) > 1000 and wire[:1] == b"\x16"
        for marker in plain_markers:
            assert marker not in wire, marker


# ---------------------------------------------------------------------------
# Strangers who do not speak TLS


def client_hello() -> bytes:
    """The first flight of a real TLS client (its ClientHello), as bytes."""
    incoming, outgoing = ssl.MemoryBIO(), ssl.MemoryBIO()
    obj = tls.client_context().wrap_bio(incoming, outgoing, server_side=False)
    with pytest.raises(ssl.SSLWantReadError):
        obj.do_handshake()
    return outgoing.read()


async def test_garbage_and_stalled_handshakes_do_not_keep_honest_joiners_out() -> None:
    lobby, ui = make_lobby(3, timeouts=replace(FAST, handshake=3.0))
    hello = client_hello()
    async with serving(lobby.handle) as port, trio.open_nursery() as nursery:
        open_streams: list[trio.abc.Stream] = []

        async def connect(data: bytes) -> None:
            stream = await trio.open_tcp_stream(LOCALHOST, port)
            open_streams.append(stream)
            if data:
                await stream.send_all(data)

        await connect(b"")  # connects and never speaks
        await connect(hello[: len(hello) // 2])  # stalls in the middle of its TLS hello
        await connect(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")  # not TLS at all
        await connect(random.Random(3).randbytes(64))  # noise
        early = await trio.open_tcp_stream(LOCALHOST, port)
        await early.send_all(hello)
        await early.aclose()  # hangs up in the middle of the handshake
        with trio.fail_after(5):
            await ui.wait_for(lambda ui: any("not a p2pcards TLS connection" in i for i in ui.infos))
        assert lobby.pending >= 2  # the silent and the stalled still hold their places...
        seated: list[SessionInfo] = []

        async def seat(name: str) -> None:
            seated.append(await join(port, name))

        for name in ("ann", "bob"):  # ...and honest joiners are seated meanwhile
            nursery.start_soon(seat, name)
        with trio.fail_after(10):
            started = await lobby.start()
            while len(seated) < 2:
                await trio.sleep(0.01)
            while lobby.pending:  # the stalled ones are let go at the handshake deadline
                await trio.sleep(0.05)
        assert [s.name for s in started.roster][1:] in (["ann", "bob"], ["bob", "ann"])
        for line in ui.infos:
            assert "\n" not in line
        assert sum("not a p2pcards TLS connection" in i for i in ui.infos) >= 1
        for info in (started, *seated):
            for link in info.links.values():
                await link.aclose()
        for stream in open_streams:
            await stream.aclose()
        nursery.cancel_scope.cancel()


class FromAddress(WrappedStream):
    """A memory stream end that says where its peer is, as a TCP socket stream does."""

    class _Socket:
        def getpeername(self) -> tuple[str, int]:
            return ("198.51.100.7", 50000)

    def __init__(self, inner: trio.abc.Stream) -> None:
        super().__init__(inner)
        self.socket = self._Socket()


async def test_a_handshake_that_stalls_is_dropped_at_the_handshake_deadline(
    autojump_clock: trio.testing.MockClock,
) -> None:
    timeouts = Timeouts(handshake=10.0, lobby=3600.0)
    lobby, ui = make_lobby(3, timeouts=timeouts, per_address=1)
    hello = client_hello()
    async with trio.open_nursery() as nursery:
        client, server = trio.testing.memory_stream_pair()
        nursery.start_soon(lobby.handle, FromAddress(server))
        await client.send_all(hello[:40])
        await trio.sleep(timeouts.handshake - 1)
        assert lobby.pending == 1  # it holds its address's one place until the deadline...
        await trio.sleep(2)
        assert lobby.pending == 0  # ...and not a moment longer
        with trio.fail_after(1):
            assert await read_until_closed(client) == b""  # closed without a word
        nursery.cancel_scope.cancel()
    assert ui.infos == []  # a stall is no refusal worth a line


async def test_a_byte_changed_on_the_path_breaks_the_link_and_says_so() -> None:
    host = Identity.generate()
    client_end, server_end = trio.testing.memory_stream_pair()
    client = tls.client(client_end)
    server = tls.server(server_end, tls.server_context(host))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(tls.handshake, server)
        await tls.handshake(client)
    sender, receiver = Link(client), Link(server)
    await sender.send(msgpack.packb({"kind": "record"}))
    assert await receiver.receive() == {"kind": "record"}
    record = bytearray()

    class Tamper(WrappedStream):
        async def send_all(self, data: bytes | bytearray | memoryview) -> None:
            changed = bytearray(data)
            changed[-1] ^= 1  # the last byte of the record's authentication tag
            record.extend(changed)
            await self.inner.send_all(changed)

    client.transport_stream.inner = Tamper(client_end)  # type: ignore[attr-defined]
    await sender.send(msgpack.packb({"kind": "record"}))
    with pytest.raises(LinkClosed) as caught:
        await receiver.receive()
    assert caught.value.reason == "connection lost (TLS: decryption failed or bad record mac)"
    assert record[:1] == b"\x17"  # it was an application data record
