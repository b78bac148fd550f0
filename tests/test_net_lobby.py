"""Joining a table over 127.0.0.1: refusals, impostors, garbage, and the code's secrecy.

The host side runs either ``host_game`` (a whole node) or a bare ``HostLobby``
served on a listener, so that a test can hold the table in the lobby (full but
not started) for as long as it needs.
"""

from __future__ import annotations

import contextlib
import functools
import os
import random
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import msgpack
import pytest
import trio
from net_helpers import (
    CODE,
    FAST,
    LOCALHOST,
    RecordingUI,
    TapStream,
    bot,
    closed_port,
    config,
    join_seat,
    knock,
    read_until_closed,
    start_host,
    tls_connect,
    tls_serve,
)

from p2pcards.cli.network import _said
from p2pcards.crypto.identity import Identity, fingerprint
from p2pcards.crypto.pake import Pake, Side, password
from p2pcards.errors import JoinRefused, PeerUnreachable
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import NinesRules
from p2pcards.net import session
from p2pcards.net.link import Link, LinkClosed
from p2pcards.net.node import Outcome, join_game
from p2pcards.net.runner import run_table
from p2pcards.net.session import PLAIN_REFUSAL, HostLobby, SessionInfo, Timeouts, form_mesh, join_table
from p2pcards.protocol.lobby import (
    Hello,
    LinkAuth,
    Refused,
    Seat,
    Welcome,
    decode_lobby,
    decode_lobby_object,
    encode_lobby,
    link_message,
)
from p2pcards.protocol.lobby import Link as LinkHello
from p2pcards.protocol.messages import Player
from p2pcards.protocol.wire import MAX_FRAME, Need, WireError, pack
from p2pcards.ui.i18n import Translator

ONE_HAND = NinesRules(hands=1)


@pytest.fixture(autouse=True)
def _private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing here may touch the user's data directory."""
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path / "home"))


@asynccontextmanager
async def lobby_server(
    players: int, *, name: str = "host", identity: Identity | None = None, **limits: Any
) -> AsyncIterator[tuple[HostLobby, int, RecordingUI]]:
    """A bare host lobby on 127.0.0.1 (it never starts a game unless the test calls start).

    ``limits`` go to ``HostLobby`` (``max_pending``, ``per_address``, ``evict_after``)."""
    ui = RecordingUI()
    lobby = HostLobby(
        identity=identity or Identity.generate(),
        name=name,
        rules=ONE_HAND,
        players=players,
        code=CODE,
        game_id=os.urandom(16),
        ui=ui,
        timeouts=FAST,
        **limits,
    )
    listeners = await trio.open_tcp_listeners(0, host=LOCALHOST)
    port = listeners[0].socket.getsockname()[1]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, lobby.handle, listeners)
        yield lobby, port, ui
        nursery.cancel_scope.cancel()


NO_RETRY = replace(FAST, busy=0.0)
"""A joiner that takes the first ``busy`` as the answer."""


async def join(
    port: int,
    name: str,
    *,
    identity: object = None,
    code: str = CODE,
    timeouts: Timeouts = FAST,
    ui: RecordingUI | None = None,
) -> SessionInfo:
    """``join_table`` as a joiner that announces a (never used) mesh port."""
    return await join_table(
        host=LOCALHOST,
        port=port,
        code=code,
        identity=identity or Identity.generate(),  # type: ignore[arg-type]
        name=name,
        listen_port=1,
        ui=ui or RecordingUI(),
        timeouts=timeouts,
    )


@dataclass
class Seated:
    """A joiner waiting in the lobby (in a task); ``info`` once the game starts."""

    scope: trio.CancelScope
    info: SessionInfo | None = None


async def seat_in_lobby(
    nursery: trio.Nursery,
    port: int,
    ui: RecordingUI,
    name: str,
    identity: Identity | None = None,
    code: str = CODE,
) -> Seated:
    seated = Seated(trio.CancelScope())

    async def run() -> None:
        with seated.scope:
            seated.info = await join(port, name, identity=identity, code=code)

    nursery.start_soon(run)
    await ui.wait_for(lambda ui: bool(ui.lobbies) and name in ui.lobbies[-1])
    return seated


async def refusal(port: int, name: str, **kwargs: object) -> JoinRefused:
    with trio.fail_after(10), pytest.raises(JoinRefused) as caught:
        await join(port, name, **kwargs)  # type: ignore[arg-type]
    return caught.value


# ---------------------------------------------------------------------------
# Refusals


async def test_a_wrong_code_is_refused_and_the_right_one_seats_in_any_case() -> None:
    async with lobby_server(3) as (lobby, port, ui), trio.open_nursery() as nursery:
        refused = await refusal(port, "eve", code="8-amber-lantern")
        assert refused.reason == "wrong-code"
        assert "wrong invitation code" in str(refused)
        assert any("eve" in line and "wrong invitation code" in line for line in ui.infos)
        assert lobby.names() == ["host"]
        # Codes compare case- and space-insensitively.
        seated = await seat_in_lobby(nursery, port, ui, "ann", code=" 7 Amber LANTERN ")
        assert lobby.names() == ["host", "ann"]
        seated.scope.cancel()
        nursery.cancel_scope.cancel()


async def test_a_code_typed_with_extra_spaces_or_dashes_still_seats() -> None:
    async with lobby_server(4) as (lobby, port, ui), trio.open_nursery() as nursery:
        for k, code in enumerate(("7  amber lantern", "7 - amber - lantern")):
            await seat_in_lobby(nursery, port, ui, f"p{k}", code=code)
        assert lobby.names() == ["host", "p0", "p1"]
        nursery.cancel_scope.cancel()


async def test_full_table_then_started_table() -> None:
    async with lobby_server(2) as (lobby, port, ui), trio.open_nursery() as nursery:
        first = await seat_in_lobby(nursery, port, ui, "ann")
        assert lobby.full.is_set() and not lobby.started
        refused = await refusal(port, "bob")
        assert (refused.reason, str(refused)) == ("table-full", "the host refused: the table is full")
        said = {lang: _said(refused, Translator(lang)) for lang in ("fr", "it")}
        assert said == {
            "fr": "l'hôte refuse : la table est complète",
            "it": "l'host rifiuta: il tavolo è al completo",
        }
        info = await lobby.start()
        assert [s.name for s in info.roster] == ["host", "ann"]
        refused = await refusal(port, "cat")
        assert refused.reason == "started" and "already started" in str(refused)
        with trio.fail_after(5):
            while first.info is None:
                await trio.sleep(0.01)
        assert first.info.seat == 1 and [s.name for s in first.info.roster] == ["host", "ann"]
        for link in info.links.values():
            await link.aclose()
        nursery.cancel_scope.cancel()


async def test_a_late_joiner_is_told_the_game_started_and_the_game_goes_on(tmp_path: Path) -> None:
    outcomes: dict[int, Outcome] = {}
    host_ui = RecordingUI()
    started = trio.Event()
    gate = trio.Event()
    host_bot = bot(0)

    async def gated(table: Table) -> object:
        await gate.wait()  # hold the match until the late joiner has been refused
        return await host_bot(table)

    def progress(table: Table) -> None:
        started.set()

    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            host = config(tmp_path, "h", ui=host_ui, decide=gated, on_progress=progress)  # type: ignore[arg-type]
            port = await start_host(nursery, host, players=2, rules=ONE_HAND, outcomes=outcomes)
            await join_seat(nursery, port, config(tmp_path, "j", seed=1), 1, outcomes, host_ui)
            await started.wait()
            refused = await refusal(port, "late")
            assert refused.reason == "started"
            gate.set()
    assert [outcomes[s].status for s in (0, 1)] == ["over", "over"]


async def test_names_must_differ_ignoring_case_and_not_be_blank() -> None:
    async with lobby_server(4, name="Alice") as (lobby, port, ui), trio.open_nursery() as nursery:
        refused = await refusal(port, "alice")
        assert refused.reason == "name-taken" and "'alice' is already taken" in str(refused)
        assert (await refusal(port, "   ")).reason == "name-taken"
        # A name whose quoted form is longer than a refusal's message may be is still refused
        # (the host cuts its message short); the joiner names its own name in full.
        odd = "\ue000" * 32  # private use: printable here, escaped by repr
        await seat_in_lobby(nursery, port, ui, odd)
        refused = await refusal(port, odd)
        assert refused.reason == "name-taken" and repr(odd) in str(refused)
        await seat_in_lobby(nursery, port, ui, "Bob")
        assert (await refusal(port, "BOB")).reason == "name-taken"
        assert lobby.names() == ["Alice", odd, "Bob"]
        nursery.cancel_scope.cancel()


async def test_the_hosts_lobby_lines_tell_look_alike_names_apart_by_key() -> None:
    """A joiner named like a seated player (a Cyrillic ``а``) is shown with the start of its
    key's fingerprint in the host's lobby lines, as the game's lines show it later."""
    host, carol, impostor = Identity.generate(), Identity.generate(), Identity.generate()
    tag = {k: fingerprint(k.public_key).replace("-", "")[:4] for k in (carol, impostor)}
    async with lobby_server(4, name="host", identity=host) as (_, port, ui), trio.open_nursery() as nursery:
        await seat_in_lobby(nursery, port, ui, "carol", identity=carol)
        assert ui.lobbies[-1] == ("host", "carol")  # no look-alike yet: no tag
        nursery.start_soon(functools.partial(join, port, "c\u0430rol", identity=impostor))
        await ui.wait_for(lambda ui: len(ui.lobbies[-1]) == 3)
        assert ui.lobbies[-1] == ("host", f"carol#{tag[carol]}", f"c\u0430rol#{tag[impostor]}")
        joined = [n for n in ui.infos if getattr(n, "key", None) == "notice_joined"]
        assert [n.values["name"] for n in joined] == ["carol", f"c\u0430rol#{tag[impostor]}"]
        nursery.cancel_scope.cancel()


async def test_one_key_takes_one_seat() -> None:
    host_identity = Identity.generate()
    twin = Identity.generate()
    async with lobby_server(4, identity=host_identity) as (lobby, port, ui), trio.open_nursery() as nursery:
        refused = await refusal(port, "copy", identity=host_identity)
        assert refused.reason == "same-key" and "already has a seat" in str(refused)
        # Said as the joiner's own key, with how a second seat is played from one computer.
        said = str(Translator("it").said(refused.args[0]))
        assert said.startswith("l'host rifiuta: la tua chiave ha già un posto a questo tavolo (un secondo")
        assert "P2PCARDS_HOME=CARTELLA p2pcards join" in said
        await seat_in_lobby(nursery, port, ui, "first", identity=twin)
        assert (await refusal(port, "second", identity=twin)).reason == "same-key"
        assert lobby.names() == ["host", "first"]
        nursery.cancel_scope.cancel()


@dataclass(frozen=True)
class Forger:
    """Announces ``public_key`` but signs with another key (it does not hold that key)."""

    public_key: bytes
    signer: Identity

    def sign(self, data: bytes) -> bytes:
        return self.signer.sign(data)


async def test_a_join_signed_with_another_key_is_refused() -> None:
    victim = Identity.generate()
    async with lobby_server(3) as (lobby, port, _):
        forged = Forger(victim.public_key, Identity.generate())
        refused = await refusal(port, "mallory", identity=forged)
        assert refused.reason == "bad-signature" and "signature" in str(refused)
        unusable = Forger(bytes(32), Identity.generate())
        assert (await refusal(port, "zero", identity=unusable)).reason == "bad-key"
        assert lobby.names() == ["host"]


def hello_frame(version: object) -> bytes:
    pake = Pake.start(Side.JOINER, CODE, os.urandom(64)).message
    body = Hello(
        name="old", key=Identity.generate().public_key, nonce=os.urandom(32), port=1, pake=pake
    ).to_wire()
    return pack({"v": version, "kind": "hello", "body": body})


@pytest.mark.parametrize("version", [1, 3, "2"])
async def test_a_hello_of_another_protocol_version_is_refused_by_version(version: object) -> None:
    async with lobby_server(3) as (_, port, _ui):
        stream = await tls_connect(LOCALHOST, port)
        await stream.send_all(hello_frame(version))
        reply = decode_lobby(await read_until_closed(stream))
        assert isinstance(reply, Refused)
        assert reply.reason == "version"
        assert "version" in reply.message and repr(version) in reply.message
        await stream.aclose()
        # The host is still there for the next joiner.
        assert (await refusal(port, "eve", code="2-no-such")).reason == "wrong-code"


async def test_an_older_joiner_in_the_clear_is_told_the_versions_differ_in_the_clear() -> None:
    async with lobby_server(3) as (lobby, port, ui):
        raw = msgpack.unpackb(await knock(port, hello_frame(1), secure=False))
        # In the version such a node speaks, so that it reads the refusal (protocol.md, section 11).
        assert raw == {"v": 1, "kind": "refused", "body": {"reason": "version", "message": PLAIN_REFUSAL}}
        assert lobby.refused["version"] == 1
        assert any("without encryption (an older version)" in i for i in ui.infos)
        assert (await refusal(port, "eve", code="2-no-such")).reason == "wrong-code"


async def test_a_host_of_an_older_version_in_the_clear_is_a_version_refusal() -> None:
    async def old_host(stream: trio.abc.Stream) -> None:
        await stream.receive_some(65536)  # a TLS hello is no lobby frame for it
        await stream.send_all(encode_lobby(Refused(reason="protocol", message="a lobby frame must be a map")))
        await stream.aclose()

    listeners = await trio.open_tcp_listeners(0, host=LOCALHOST)
    port = listeners[0].socket.getsockname()[1]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, old_host, listeners)
        refused = await refusal(port, "ann")
        nursery.cancel_scope.cancel()
    assert refused.reason == "version" and "does not encrypt its links" in str(refused)
    assert _said(refused, Translator("fr")) == (
        "versions du protocole différentes : l'hôte ne chiffre pas ses connexions (ancien p2pcards)"
    )


async def test_a_host_of_another_protocol_version_is_a_version_refusal() -> None:
    async def fake_host(stream: trio.abc.Stream) -> None:
        link = Link(await tls_serve(stream, Identity.generate()))
        decode_lobby_object(await link.receive())  # the hello
        await link.send(pack({"v": 1, "kind": "challenge", "body": {}}))
        await trio.sleep_forever()

    listeners = await trio.open_tcp_listeners(0, host=LOCALHOST)
    port = listeners[0].socket.getsockname()[1]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, fake_host, listeners)
        refused = await refusal(port, "ann")
        assert refused.reason == "version" and "the host speaks 1" in str(refused)
        assert _said(refused, Translator("it")) == (
            "versioni del protocollo diverse: l'host parla la 1, questo programma la 2"
        )
        nursery.cancel_scope.cancel()


async def test_a_frame_of_the_match_in_the_lobby_is_not_said_to_be_another_version() -> None:
    """A ``need`` frame (version 1, the match's own frames) where the host's challenge was due:
    the joiner says the host sent a message of the match too early, not that it speaks
    another version (which a lobby message of version 1 still is)."""

    async def fake_host(stream: trio.abc.Stream) -> None:
        link = Link(await tls_serve(stream, Identity.generate()))
        decode_lobby_object(await link.receive())  # the hello
        await link.send(Need(3, (0, 1), b"\0" * 32).to_frame())
        await trio.sleep_forever()

    listeners = await trio.open_tcp_listeners(0, host=LOCALHOST)
    port = listeners[0].socket.getsockname()[1]
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, fake_host, listeners)
        with trio.fail_after(10), pytest.raises(PeerUnreachable) as caught:
            await join(port, "ann")
        nursery.cancel_scope.cancel()
    said = str(caught.value)
    assert "a message of the match (need) came before the match started" in said, said
    assert "version" not in said, said


async def test_a_host_nobody_listens_for_is_unreachable(tmp_path: Path) -> None:
    with closed_port() as port, trio.fail_after(15), pytest.raises(PeerUnreachable) as caught:
        await join_game(config(tmp_path, "j"), host=LOCALHOST, port=port, code=CODE)
    assert str(caught.value) == f"cannot reach the host at {LOCALHOST}:{port} (Connection refused)"


async def test_a_joiner_who_leaves_frees_the_seat_and_the_game_still_starts(tmp_path: Path) -> None:
    outcomes: dict[int, Outcome] = {}
    host_ui = RecordingUI()
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            host = config(tmp_path, "h", ui=host_ui)
            port = await start_host(nursery, host, players=3, rules=ONE_HAND, outcomes=outcomes)
            gone = await seat_in_lobby(nursery, port, host_ui, "gone")
            gone.scope.cancel()
            await host_ui.wait_for(lambda ui: ui.lobbies[-1] == ("h",))
            for seat in (1, 2):
                await join_seat(
                    nursery, port, config(tmp_path, f"j{seat}", seed=seat), seat, outcomes, host_ui
                )
    assert sorted(outcomes) == [0, 1, 2]
    assert all(o.status == "over" for o in outcomes.values())
    assert outcomes[0].names == ["h", "j1", "j2"]


async def test_start_waits_while_a_seat_emptied_after_the_table_was_full() -> None:
    async with lobby_server(3) as (lobby, port, ui), trio.open_nursery() as nursery:
        leaver = await seat_in_lobby(nursery, port, ui, "ann")
        stayer = await seat_in_lobby(nursery, port, ui, "bob")
        assert lobby.full.is_set()
        leaver.scope.cancel()
        await ui.wait_for(lambda ui: "ann left the table" in ui.infos)
        result: list[SessionInfo] = []

        async def start() -> None:
            result.append(await lobby.start())

        nursery.start_soon(start)
        late = await seat_in_lobby(nursery, port, ui, "cat")
        with trio.fail_after(5):
            while not (result and stayer.info and late.info):
                await trio.sleep(0.01)
        assert [s.name for s in result[0].roster] == ["host", "bob", "cat"]
        assert [s.name for s in stayer.info.roster] == ["host", "bob", "cat"]
        for link in result[0].links.values():
            await link.aclose()
        nursery.cancel_scope.cancel()


# ---------------------------------------------------------------------------
# Impostors in the mesh


async def run_seat(info: SessionInfo, identity: Identity, seed: int) -> str:
    """Play a seat's match on its links (as ``join_game`` does); its final status."""
    table = Table(
        game_id=info.game_id,
        roster=[Player(name=s.name, key=s.key) for s in info.roster],
        rules=info.rules,
        seat=info.seat,
        identity=identity,
        entropy=os.urandom(32),
        clock=info.clock,
    )
    result = await run_table(table, info.links, bot(seed), timeouts=FAST)
    for link in info.links.values():
        await link.aclose()
    return result.status


async def test_a_stranger_claiming_a_seat_on_the_mesh_is_refused(tmp_path: Path) -> None:
    outcomes: dict[int, Outcome] = {}
    host_ui, seat1_ui = RecordingUI(), RecordingUI()
    me = Identity.generate()
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            port = await start_host(
                nursery, config(tmp_path, "h", ui=host_ui), players=3, rules=ONE_HAND, outcomes=outcomes
            )
            await join_seat(nursery, port, config(tmp_path, "j1", seed=1, ui=seat1_ui), 1, outcomes, host_ui)
            # Seat 2 joins by hand, so that the stranger strikes before it links.
            listeners = await trio.open_tcp_listeners(0, host=LOCALHOST)
            info = await join_table(
                host=LOCALHOST,
                port=port,
                code=CODE,
                identity=me,
                name="j2",
                listen_port=listeners[0].socket.getsockname()[1],
                ui=RecordingUI(),
                timeouts=FAST,
            )
            assert info.seat == 2
            seat1 = info.roster[1]
            stranger = Link(await tls_connect(seat1.host, seat1.port))
            theirs = decode_lobby_object(await stranger.receive())
            assert isinstance(theirs, LinkHello) and theirs.seat == 1
            await stranger.send(
                encode_lobby(LinkHello(game=info.game_id, seat=2, key=me.public_key, nonce=os.urandom(32)))
            )
            forged = Identity.generate().sign(
                link_message(info.game_id, theirs.nonce, me.public_key, seat1.key)
            )
            await stranger.send(encode_lobby(LinkAuth(sig=forged)))
            with pytest.raises(LinkClosed):  # seat 1 hangs up on it
                while True:
                    await stranger.receive()
            await seat1_ui.wait_for(
                lambda ui: any("could not prove it holds seat 2's key" in i for i in ui.infos)
            )
            # The real seat 2 links and plays.
            await form_mesh(info, me, listeners, RecordingUI(), FAST)
            for listener in listeners:
                await listener.aclose()
            assert await run_seat(info, me, seed=2) == "over"
    assert outcomes[0].status == "over" and outcomes[1].status == "over"


async def test_a_seated_player_cannot_relay_another_seats_link_signature() -> None:
    # Seat 3 (a real, seated player) dials seat 1 claiming to be seat 2, then links to
    # seat 2 as itself with seat 1's nonce: seat 2 signs that nonce, and seat 3 hands
    # the signature to seat 1. Seat 1 must not take that connection for seat 2.
    ids = [Identity.generate() for _ in range(4)]
    game = os.urandom(16)
    listeners = {s: await trio.open_tcp_listeners(0, host=LOCALHOST) for s in (1, 2)}
    ports = {s: ls[0].socket.getsockname()[1] for s, ls in listeners.items()} | {0: 1, 3: 1}
    roster = tuple(Seat(name=f"p{s}", key=ids[s].public_key, host=LOCALHOST, port=ports[s]) for s in range(4))

    def info(seat: int) -> SessionInfo:
        return SessionInfo(game_id=game, rules=ONE_HAND, roster=roster, seat=seat)

    victim, signer = info(1), info(2)
    dummy = trio.testing.memory_stream_pair()
    victim.links[0] = Link(dummy[0])
    signer.links = {0: Link(dummy[1]), 1: Link(dummy[1])}  # seat 2 only waits for seat 3
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(form_mesh, victim, ids[1], listeners[1], RecordingUI(), FAST)
            nursery.start_soon(form_mesh, signer, ids[2], listeners[2], RecordingUI(), FAST)
            to_victim = Link(await tls_connect(LOCALHOST, ports[1]))
            await to_victim.send(
                encode_lobby(LinkHello(game=game, seat=2, key=ids[2].public_key, nonce=os.urandom(32)))
            )
            victim_hello = decode_lobby_object(await to_victim.receive())
            assert isinstance(victim_hello, LinkHello)
            to_signer = Link(await tls_connect(LOCALHOST, ports[2]))
            await to_signer.send(
                encode_lobby(LinkHello(game=game, seat=3, key=ids[3].public_key, nonce=victim_hello.nonce))
            )
            signer_hello = decode_lobby_object(await to_signer.receive())
            assert isinstance(signer_hello, LinkHello)
            # Seat 3 proves its own key to seat 2, as any honest seat 3 would...
            mine = ids[3].sign(link_message(game, signer_hello.nonce, ids[3].public_key, ids[2].public_key))
            await to_signer.send(encode_lobby(LinkAuth(sig=mine)))
            signed = decode_lobby_object(await to_signer.receive())
            assert isinstance(signed, LinkAuth)
            # ...and passes seat 2's signature on to seat 1.
            await to_victim.send(encode_lobby(LinkAuth(sig=signed.sig)))
            closed = False
            with trio.move_on_after(1):
                try:
                    while True:
                        await to_victim.receive()
                except LinkClosed:
                    closed = True
            taken = 2 in victim.links
            nursery.cancel_scope.cancel()
    assert closed and not taken, "seat 1 took seat 3's relayed connection for seat 2"


# ---------------------------------------------------------------------------
# Garbage at the host's door


def nested(depth: int) -> bytes:
    return b"\x91" * depth + b"\xc0"


def oversized_bin() -> bytes:
    return b"\xc6" + (MAX_FRAME + 1024).to_bytes(4, "big") + b"x" * (MAX_FRAME + 1024)


def oversized_pieces() -> bytes:
    """A 400 KB frame of small parts, none over any per-item limit."""
    return b"\xdc" + (200).to_bytes(2, "big") + (b"\xc5" + (2000).to_bytes(2, "big") + b"y" * 2000) * 200


def protocol_refusal(reply: bytes) -> Refused:
    msg = decode_lobby(reply)
    assert isinstance(msg, Refused) and msg.reason == "protocol", msg
    return msg


async def test_garbage_is_refused_and_the_host_keeps_running(tmp_path: Path) -> None:
    outcomes: dict[int, Outcome] = {}
    host_ui = RecordingUI()
    welcome = encode_lobby(Welcome(seat=1, proof=bytes(32), sig=bytes(64)))
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            port = await start_host(
                nursery, config(tmp_path, "h", ui=host_ui), players=2, rules=ONE_HAND, outcomes=outcomes
            )
            silent = await trio.open_tcp_stream(LOCALHOST, port)  # connects, never speaks
            # Garbage instead of TLS: closed without a word (a lobby frame in the clear is
            # an older version, answered in the clear: see above).
            for garbage in (nested(5000), random.Random(7).randbytes(3000), b"GET / HTTP/1.0\r\n\r\n"):
                assert await knock(port, garbage, secure=False) == b""
            assert sum("not a p2pcards TLS connection" in i for i in host_ui.infos) == 3
            # Garbage inside TLS: answered with a refusal, always:
            assert "nested too deeply" in protocol_refusal(await knock(port, nested(5000))).message
            assert "must be a map" in protocol_refusal(await knock(port, msgpack.packb(42))).message
            assert "expected hello" in protocol_refusal(await knock(port, welcome)).message
            missing_body = pack({"v": 2, "kind": "hello"})
            assert "exactly the keys" in protocol_refusal(await knock(port, missing_body)).message
            # Answered with a refusal or a hang-up (the host may close before reading it all):
            for garbage in (oversized_bin(), oversized_pieces()):
                reply = await knock(port, garbage)
                assert not reply or "more than" in protocol_refusal(reply).message
            reply = await knock(port, random.Random(7).randbytes(3000))
            assert not reply or protocol_refusal(reply)
            assert sum("refused a connection" in i for i in host_ui.infos) >= 7
            # A real joiner still gets in, and the match is played to its end.
            await join_seat(nursery, port, config(tmp_path, "j", seed=1), 1, outcomes, host_ui)
            await silent.aclose()
    assert outcomes[0].status == "over" and outcomes[1].status == "over"


async def test_a_link_refuses_a_frame_over_the_limit_however_it_is_built() -> None:
    for garbage in (oversized_bin(), oversized_pieces()):
        left, right = trio.testing.memory_stream_pair()
        link = Link(right)
        await left.send_all(garbage)
        with pytest.raises(WireError, match="more than"):
            await link.receive()
        assert link.failed is not None
        with pytest.raises(WireError):  # and it stays dead
            await link.receive()
    # Right at the limit is fine; a byte over is not.
    for extra, ok in ((0, True), (1, False)):
        left, right = trio.testing.memory_stream_pair()
        link = Link(right, max_frame=4096)
        frame = msgpack.packb([b"z" * 1000] * 4)
        await left.send_all(msgpack.packb([b"z" * 1000] * 3 + [b"z" * (1000 + 4096 - len(frame) + extra)]))
        if ok:
            assert len(await link.receive()) == 4
        else:
            with pytest.raises(WireError):
                await link.receive()


# ---------------------------------------------------------------------------
# The code stays secret


async def test_the_code_never_travels(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    taps: list[TapStream] = []
    real_open = trio.open_tcp_stream

    async def tapped(*args: object, **kwargs: object) -> TapStream:
        tap = TapStream(await real_open(*args, **kwargs))  # type: ignore[arg-type]
        taps.append(tap)
        return tap

    monkeypatch.setattr(trio, "open_tcp_stream", tapped)
    real_reusable = session.open_reusable  # a joiner's connection to the host (net.dial)

    async def tapped_reusable(*args: object) -> TapStream:
        tap = TapStream(await real_reusable(*args))  # type: ignore[arg-type]
        taps.append(tap)
        return tap

    monkeypatch.setattr(session, "open_reusable", tapped_reusable)
    # Inside TLS: every frame any node sends, as it is before encryption.
    frames: list[bytes] = []
    real_send = Link.send

    async def recording_send(self: Link, frame: bytes) -> None:
        frames.append(bytes(frame))
        await real_send(self, frame)

    monkeypatch.setattr(Link, "send", recording_send)
    outcomes: dict[int, Outcome] = {}
    host_ui = RecordingUI()
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            port = await start_host(
                nursery, config(tmp_path, "h", ui=host_ui), players=3, rules=ONE_HAND, outcomes=outcomes
            )
            for seat in (1, 2):
                await join_seat(
                    nursery, port, config(tmp_path, f"j{seat}", seed=seat), seat, outcomes, host_ui
                )
    assert all(o.status == "over" for o in outcomes.values())
    assert len(taps) == 3  # two joiners to the host, and seat 2 to seat 1
    secrets = [CODE.encode(), CODE.upper().encode(), b"amber-lantern", password(CODE)]
    plaintext = b"".join(frames)
    assert b"hello" in plaintext and b"link-auth" in plaintext  # the handshakes were seen
    for wire in plaintext, *(bytes(tap.sent) for tap in taps), *(bytes(tap.received) for tap in taps):
        assert len(wire) > 1000
        for secret in secrets:
            assert secret not in wire
    for tap in taps:
        assert tap.sent[:1] == tap.received[:1] == b"\x16"  # TLS on the wire


async def test_a_seat_that_cannot_be_dialled_is_reached_through_the_host(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Seat 1 announces a port nobody listens on: seat 2 cannot dial it, tries hole
    # punching (which the liar does not answer), says so, and goes on with its frames
    # for seat 1 carried by the host. Seat 1 ("the liar") then never plays: the host
    # names it when the step times out; seat 2 names nobody.
    from dataclasses import replace

    monkeypatch.setattr(session, "PUNCH_AFTER", 0.3)  # the step timeout below is short
    monkeypatch.setattr(session, "PUNCH_WINDOW", 0.5)

    outcomes: dict[int, Outcome] = {}
    host_ui, second_ui = RecordingUI(), RecordingUI()
    short = replace(FAST, step=3.0, turn=3.0)
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            host = config(tmp_path, "h", ui=host_ui, timeouts=short)
            port = await start_host(nursery, host, players=3, rules=ONE_HAND, outcomes=outcomes)
            liar_scope = trio.CancelScope()

            async def liar() -> None:
                with liar_scope, closed_port() as nowhere:
                    info = await join_table(
                        host=LOCALHOST,
                        port=port,
                        code=CODE,
                        identity=Identity.generate(),
                        name="liar",
                        listen_port=nowhere,
                        ui=RecordingUI(),
                        timeouts=FAST,
                    )
                    try:
                        await trio.sleep_forever()
                    finally:
                        for link in info.links.values():
                            await link.aclose()

            nursery.start_soon(liar)
            await host_ui.wait_for(lambda ui: bool(ui.lobbies) and "liar" in ui.lobbies[-1])

            async def second() -> None:
                cfg = config(tmp_path, "j2", ui=second_ui, timeouts=short)
                outcomes[2] = await join_game(cfg, host=LOCALHOST, port=port, code=CODE)

            nursery.start_soon(second)
            while 0 not in outcomes or 2 not in outcomes:
                await trio.sleep(0.05)
            liar_scope.cancel()
            nursery.cancel_scope.cancel()
    said = [i for i in second_ui.infos if "cannot reach liar (seat 1) directly" in i]
    assert said and "Connection refused" in said[0] and "through the host" in said[0], second_ui.infos
    assert outcomes[0].status == "failed" and outcomes[0].blamed == (1,), outcomes[0].problem
    # Seat 2 reaches the liar only through the host, which might have dropped its records:
    # it names nobody, saying why, or reports the host's claim if that came first.
    o = outcomes[2]
    assert o.status == "failed" and o.blamed == (), o.problem
    assert "reached only through a relay" in (o.problem or "") or "liar (seat 1) at fault" in (
        o.problem or ""
    )


async def test_a_flood_of_connections_is_refused_as_busy() -> None:
    async with lobby_server(3, max_pending=2, evict_after=3600) as (lobby, port, ui):
        silent = [await trio.open_tcp_stream(LOCALHOST, port) for _ in range(2)]
        with trio.fail_after(5):
            while lobby.pending < 2:  # the host now holds both, each waiting for a hello
                await trio.sleep(0.01)
        refused = await refusal(port, "late", timeouts=NO_RETRY)
        assert refused.reason == "busy" and "too many connections waiting" in str(refused)
        for stream in silent:
            await stream.aclose()
        with trio.fail_after(5):
            while lobby.pending:  # the silent ones are let go
                await trio.sleep(0.05)
        async with trio.open_nursery() as nursery:
            seated = await seat_in_lobby(nursery, port, ui, "ann")
            assert lobby.names() == ["host", "ann"]
            seated.scope.cancel()


async def test_a_table_of_a_game_the_protocol_cannot_play_is_refused_before_anyone_joins(
    tmp_path: Path,
) -> None:
    from p2pcards.errors import UsageError
    from p2pcards.games.base import game
    from p2pcards.net.node import host_game

    with pytest.raises(UsageError, match="the protocol does not play 'belote' yet; it plays neuf, nines"):
        await host_game(
            config(tmp_path, "host"), players=3, rules=game("neuf").parse_rules(()), code=CODE, game="belote"
        )


async def test_the_challenge_names_the_game_and_a_joiner_refuses_one_it_cannot_play() -> None:
    impostor = Identity.generate()
    listeners = await trio.open_tcp_listeners(0, host=LOCALHOST)
    port = listeners[0].socket.getsockname()[1]

    async def host(stream: trio.abc.Stream) -> None:
        link = Link(await tls_serve(stream, impostor))
        await link.receive()  # hello
        from p2pcards.protocol.lobby import Challenge

        challenge = Challenge(
            game=os.urandom(16),
            key=impostor.public_key,
            nonce=os.urandom(32),
            pake=Pake.start(Side.HOST, CODE, os.urandom(64)).message,
            play="belote",
            rules=(),
            players=2,
        )
        await link.send(encode_lobby(challenge))
        with contextlib.suppress(LinkClosed):
            await link.receive()  # its auth, then it gives up

    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, host, listeners)
        with pytest.raises((JoinRefused, PeerUnreachable)) as refused:
            await join(port, "ann")
        nursery.cancel_scope.cancel()
    assert "belote" in str(refused.value) or "cannot play" in str(refused.value)


async def test_every_seat_plays_by_the_hosts_clock(tmp_path: Path) -> None:
    """The host's turn, step and grace times travel in its challenge: joiners that set
    others play by the host's, so that every seat times out at the same moment."""

    class ClockUI(RecordingUI):
        def __init__(self) -> None:
            super().__init__()
            self.clocks: list[tuple[int, int, int]] = []

        def table_clock(self, timeouts: Timeouts) -> None:
            self.clocks.append(timeouts.clock())

    outcomes: dict[int, Outcome] = {}
    host_ui, joiner_ui = ClockUI(), ClockUI()
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            host_clock = replace(FAST, turn=17.0, step=13.0, grace=11.0)
            host = config(tmp_path, "h", ui=host_ui, timeouts=host_clock)
            port = await start_host(nursery, host, players=2, rules=ONE_HAND, outcomes=outcomes)
            own_clock = replace(FAST, turn=99.0, step=98.0, grace=97.0)
            joiner = config(tmp_path, "j", ui=joiner_ui, timeouts=own_clock)
            outcomes[1] = await join_game(joiner, host=LOCALHOST, port=port, code=CODE)
            while 0 not in outcomes:
                await trio.sleep(0.05)
    assert host_ui.clocks == [(17, 13, 11)]
    assert joiner_ui.clocks == [(17, 13, 11)]  # not its own 99, 98, 97
    assert outcomes[0].status == outcomes[1].status == "over"


def _challenge() -> Any:
    """A challenge of a table of two with a clock of 30, 20 and 10 s."""
    from p2pcards.protocol.lobby import Challenge

    return Challenge(
        game=bytes(16),
        key=bytes(32),
        nonce=bytes(32),
        pake=b"B" + bytes(32),
        play="nines",
        rules=(),
        players=2,
        clock=(30, 20, 10),
    )


def test_a_challenge_carries_a_clock_of_three_whole_seconds() -> None:
    from p2pcards.protocol.lobby import decode_lobby, encode_lobby

    ch = _challenge()
    assert decode_lobby(encode_lobby(ch)) == ch
    for bad in ([30, 20], [30, 20, -1], [30, 20, 86_401], [30, 20, "10"]):
        with pytest.raises(WireError):
            decode_lobby(encode_lobby(replace_clock(ch, bad)))  # type: ignore[arg-type]


@pytest.mark.parametrize("clock", [[0, 60, 120], [600, 0, 120], [600, 60, 0], [0, 0, 0]])
def test_a_host_that_states_a_clock_of_zero_seconds_is_unreadable(clock: list[int]) -> None:
    """No clock of a table is 0 s (the host's own options take 1 s at least): at a step
    clock of 0 every node would name the first peer it writes to for not reading ("a
    message waited 0 s"), at a turn clock of 0 a person would leave at each turn, at a
    grace of 0 a seat whose connection blinks would be gone. A hostile host that states
    one, in its challenge or in start, is unreadable: the joiner stops before the game."""
    from p2pcards.protocol.lobby import Seat, Start, decode_lobby, encode_lobby

    ch = _challenge()
    with pytest.raises(WireError, match=r"challenge\.clock\[\d\] must be an integer in 1\.\.86400"):
        decode_lobby(encode_lobby(replace_clock(ch, clock)))  # type: ignore[arg-type]
    host = Seat(name="H", key=bytes(32), host="", port=0)
    roster = (host, Seat(name="J", key=bytes([1]) * 32, host="::1", port=1))
    start = Start(roster=roster, clock=(600, 60, 120))
    assert decode_lobby(encode_lobby(start)) == start
    with pytest.raises(WireError, match=r"start\.clock\[\d\] must be an integer in 1\.\.86400"):
        decode_lobby(encode_lobby(Start(roster=roster, clock=tuple(clock))))


def replace_clock(ch: object, clock: list[object]) -> object:
    """A challenge object whose clock is anything (built as a map, not checked)."""
    from p2pcards.protocol.lobby import Challenge

    class Raw(Challenge):
        def to_wire(self) -> dict[str, object]:
            out = super().to_wire()
            out["clock"] = clock
            return out

    return Raw(**{f: getattr(ch, f) for f in ("game", "key", "nonce", "pake", "play", "rules", "players")})


@pytest.mark.parametrize(("reason", "message", "fr"), [
    ("name-taken", "whatever the host wrote", "l'hôte refuse : ce nom est déjà pris à cette table"),
    ("gremlins", "go away", "l'hôte refuse, en ses propres termes : « go away »"),
])  # fmt: skip
def test_a_refusal_is_said_by_its_reason_in_the_players_language(
    monkeypatch: pytest.MonkeyPatch, reason: str, message: str, fr: str
) -> None:
    """A known reason is said in the joiner's words (not the host's); another quotes the host's
    text in a sentence of the joiner's language."""

    async def refused(link: object, timeout: float) -> Refused:
        return Refused(reason=reason, message=message)

    monkeypatch.setattr(session, "_receive_lobby", refused)
    with pytest.raises(JoinRefused) as caught:
        trio.run(session._expect, None, 1.0, Refused)
    assert caught.value.reason == reason
    assert _said(caught.value, Translator("fr")) == fr
    assert str(caught.value).startswith("the host refused")
