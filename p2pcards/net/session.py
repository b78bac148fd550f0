"""Hosting and joining a table, then linking every seat to every other (the mesh).

The host is only the rendezvous: it checks invitations, fixes the roster and
tells everyone where the others listen. Then each seat dials every lower seat
(the host excepted, already linked), and every link is authenticated with
Ed25519 signatures bound to the game id (see ``p2pcards.protocol.lobby``).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import trio

from p2pcards.crypto.identity import Identity, is_valid_public_key, verify_signature
from p2pcards.errors import JoinRefused, PeerUnreachable
from p2pcards.games.nines import NinesRules
from p2pcards.net.link import Link, LinkClosed
from p2pcards.protocol.lobby import (
    REFUSALS,
    Auth,
    Challenge,
    Hello,
    LinkAuth,
    LobbyUpdate,
    Refused,
    Seat,
    Start,
    VersionMismatch,
    Welcome,
    code_key,
    decode_lobby_object,
    encode_lobby,
    host_proof,
    join_proof,
    link_message,
    proofs_equal,
)
from p2pcards.protocol.lobby import (
    Link as LinkHello,
)
from p2pcards.protocol.messages import Body, show
from p2pcards.protocol.wire import WireError

MAX_REFUSAL = 200
"""Longest refusal message the lobby schema accepts (``Refused.message``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Timeouts:
    """Seconds to wait, by kind of wait (a human's turn is long, a key reveal short)."""

    handshake: float = 10.0
    mesh: float = 30.0
    turn: float = 600.0
    step: float = 60.0
    lobby: float = 3600.0


@dataclass(slots=True)
class SessionInfo:
    """Everything the match needs from the lobby: the roster and the links."""

    game_id: bytes
    rules: NinesRules
    roster: tuple[Seat, ...]
    seat: int
    links: dict[int, Link] = field(default_factory=dict)


class LobbyUI:
    """What the lobby tells the person at this node (override to print)."""

    def invitation(self, code: str, port: int) -> None: ...

    def lobby(self, names: Sequence[str], players: int) -> None: ...

    def info(self, text: str) -> None: ...


async def _receive_lobby(link: Link, timeout: float) -> Body:
    with trio.fail_after(timeout):
        obj = await link.receive()
    return decode_lobby_object(obj)


async def _refuse(link: Link, reason: str, message: str | None = None) -> None:
    text = message or REFUSALS[reason]
    if len(text) > MAX_REFUSAL:  # a longer one would be unreadable at the other end
        text = text[: MAX_REFUSAL - 3] + "..."
    with trio.move_on_after(2), contextlib.suppress(LinkClosed):
        await link.send(encode_lobby(Refused(reason=reason, message=text)))
    await link.aclose()


def _reason(e: BaseException) -> str:
    """Why a connection could not be made, in a few words ("Connection refused")."""
    cause = e.__cause__
    inner = cause.exceptions if isinstance(cause, BaseExceptionGroup) else ()
    for err in (e, *inner):
        if isinstance(err, OSError) and err.errno:
            return os.strerror(err.errno) if err.errno > 0 else (err.strerror or str(err))
    return "no answer"


def _peer_host(stream: trio.abc.Stream) -> str:
    sock = getattr(stream, "socket", None)
    try:
        return str(sock.getpeername()[0]) if sock is not None else ""
    except OSError:
        return ""


# ---------------------------------------------------------------------------
# Host


MAX_CONNECTIONS = 32
"""Connections the host handles at once; more are refused as busy."""


class HostLobby:
    """The host's side: admit joiners until the table is full."""

    def __init__(
        self,
        *,
        identity: Identity,
        name: str,
        rules: NinesRules,
        players: int,
        code: str,
        game_id: bytes,
        ui: LobbyUI,
        timeouts: Timeouts,
    ) -> None:
        self.identity = identity
        self.rules = rules
        self.players = players
        self.code = code
        self.game_id = game_id
        self.ui = ui
        self.timeouts = timeouts
        self.code_key = code_key(code, game_id)
        self.joined: list[tuple[Seat, Link, trio.CancelScope]] = []
        self.host_seat = Seat(name=name, key=identity.public_key, host="", port=0)
        self.started = False
        self.full = trio.Event()
        self.refusals = 0
        self._lock = trio.Lock()
        # Connections at once (joiners being checked or seated): bounds a stranger's flood.
        self._connections = trio.CapacityLimiter(MAX_CONNECTIONS)

    def names(self) -> list[str]:
        return [self.host_seat.name] + [s.name for s, _, _ in self.joined]

    async def _broadcast_lobby(self) -> None:
        update = encode_lobby(LobbyUpdate(names=tuple(self.names()), players=self.players))
        for _, link, _ in list(self.joined):
            with contextlib.suppress(LinkClosed):
                await link.send(update)
        self.ui.lobby(self.names(), self.players)

    async def handle(self, stream: trio.abc.Stream) -> None:
        """One incoming connection: a joiner, a stranger, or garbage."""
        link = Link(stream, peer=_peer_host(stream))
        try:
            self._connections.acquire_nowait()
        except trio.WouldBlock:
            await _refuse(link, "busy")
            return
        try:
            await self._admit(link)
        except VersionMismatch as e:
            await _refuse(
                link, "version", f"protocol version mismatch: this host speaks 1, you sent {show(e.version)}"
            )
        except WireError as e:
            self.ui.info(f"refused a connection from {link.peer}: {e}")
            await _refuse(link, "protocol", f"protocol error: {e}")
        except (trio.TooSlowError, LinkClosed):
            await link.aclose()
        finally:
            self._connections.release()

    async def _admit(self, link: Link) -> None:
        hello = await _receive_lobby(link, self.timeouts.handshake)
        if not isinstance(hello, Hello):
            raise WireError(f"expected hello, got {hello.TYPE}")
        if self.started:
            await _refuse(link, "started")
            return
        if self.full.is_set():
            await _refuse(link, "table-full")
            return
        nh = os.urandom(32)
        await link.send(
            encode_lobby(
                Challenge(
                    game=self.game_id,
                    key=self.identity.public_key,
                    nonce=nh,
                    rules=tuple(sorted(self.rules.to_dict().items())),
                    players=self.players,
                )
            )
        )
        auth = await _receive_lobby(link, self.timeouts.handshake + 30)
        if not isinstance(auth, Auth):
            raise WireError(f"expected auth, got {auth.TYPE}")
        if not is_valid_public_key(hello.key):
            await _refuse(link, "bad-key")
            return
        if not verify_signature(
            hello.key, auth.sig, link_message(self.game_id, nh, hello.key, self.identity.public_key)
        ):
            await _refuse(link, "bad-signature")
            return
        expected = join_proof(self.code_key, self.game_id, hello.key, hello.nonce, nh)
        if not proofs_equal(auth.proof, expected):
            self.refusals += 1
            await trio.sleep(min(5.0, 0.5 * self.refusals))  # slow down online guessing
            self.ui.info(f"refused {hello.name!r} from {link.peer}: wrong invitation code")
            await _refuse(link, "wrong-code")
            return
        async with self._lock:
            if self.started:
                await _refuse(link, "started")
                return
            if self.full.is_set():
                await _refuse(link, "table-full")
                return
            taken = {n.casefold() for n in self.names()}
            if not hello.name.strip() or hello.name.casefold() in taken:
                await _refuse(link, "name-taken", f"the name {hello.name!r} is already taken at this table")
                return
            if hello.key == self.identity.public_key or any(s.key == hello.key for s, _, _ in self.joined):
                await _refuse(link, "same-key")
                return
            seat = Seat(name=hello.name, key=hello.key, host=link.peer, port=hello.port)
            proof = host_proof(self.code_key, self.game_id, self.identity.public_key, nh, hello.nonce)
            sig = self.identity.sign(
                link_message(self.game_id, hello.nonce, self.identity.public_key, hello.key)
            )
            await link.send(encode_lobby(Welcome(seat=len(self.joined) + 1, proof=proof, sig=sig)))
            watch = trio.CancelScope()
            self.joined.append((seat, link, watch))
            self.ui.info(f"{hello.name} joined from {link.peer}")
            await self._broadcast_lobby()
            if len(self.joined) + 1 == self.players:
                self.full.set()
        # Until the game starts, any byte or a hang-up from the joiner means it left.
        with watch:
            with contextlib.suppress(LinkClosed, WireError):
                await link.receive()
            async with self._lock:
                if not self.started:
                    self.joined = [j for j in self.joined if j[1] is not link]
                    if self.full.is_set():  # an unset event stays: start() may be waiting on it
                        self.full = trio.Event()
                    self.ui.info(f"{hello.name} left the table")
                    await link.aclose()
                    await self._broadcast_lobby()
                    return
        # The stream belongs to the match now; trio closes it when this handler returns.
        await trio.sleep_forever()

    async def start(self) -> SessionInfo:
        """Once full: fix the roster and tell every joiner.

        Waits until the table is full, and again if a joiner left just after it filled.
        """
        while True:
            await self.full.wait()
            async with self._lock:
                if len(self.joined) + 1 < self.players:
                    continue  # a joiner left just after the table filled
                self.started = True
                for _, _, watch in self.joined:
                    watch.cancel()
                roster = (self.host_seat, *(s for s, _, _ in self.joined))
                info = SessionInfo(game_id=self.game_id, rules=self.rules, roster=roster, seat=0)
                frame = encode_lobby(Start(roster=roster))
                for i, (_, link, _) in enumerate(self.joined, start=1):
                    await link.send(frame)
                    info.links[i] = link
            return info


# ---------------------------------------------------------------------------
# Joiner


async def join_table(
    *,
    host: str,
    port: int,
    code: str,
    identity: Identity,
    name: str,
    listen_port: int,
    ui: LobbyUI,
    timeouts: Timeouts,
) -> SessionInfo:
    """Dial the host, prove the invitation, wait in the lobby until the game starts."""
    try:
        with trio.fail_after(timeouts.handshake):
            stream = await trio.open_tcp_stream(host, port)
    except (OSError, trio.TooSlowError) as e:
        raise PeerUnreachable(f"cannot reach the host at {host}:{port} ({_reason(e)})") from None
    link = Link(stream, peer=f"{host}:{port}")
    try:
        return await _join(
            link, code=code, identity=identity, name=name, listen_port=listen_port, ui=ui, t=timeouts
        )
    except BaseException:
        await link.aclose()
        raise


async def _expect(link: Link, timeout: float, *kinds: type[Body]) -> Any:
    try:
        msg = await _receive_lobby(link, timeout)
    except VersionMismatch as e:
        raise JoinRefused(
            "version", f"protocol version mismatch: the host speaks {show(e.version)}, we speak 1"
        ) from None
    except WireError as e:
        raise PeerUnreachable(f"the host sent something unreadable ({e})") from None
    except LinkClosed as e:
        raise PeerUnreachable(f"the host closed the connection ({e.reason})") from None
    except trio.TooSlowError:
        raise PeerUnreachable("the host stopped answering") from None
    if isinstance(msg, Refused):
        raise JoinRefused(msg.reason, f"the host refused: {msg.message}")
    if not isinstance(msg, kinds):
        raise PeerUnreachable(f"the host sent an unexpected {msg.TYPE} message")
    return msg


async def _join(
    link: Link, *, code: str, identity: Identity, name: str, listen_port: int, ui: LobbyUI, t: Timeouts
) -> SessionInfo:
    nj = os.urandom(32)
    try:
        await link.send(encode_lobby(Hello(name=name, key=identity.public_key, nonce=nj, port=listen_port)))
    except LinkClosed as e:
        raise PeerUnreachable(f"the host closed the connection ({e.reason})") from None
    ch: Challenge = await _expect(link, t.handshake, Challenge)
    key = await trio.to_thread.run_sync(code_key, code, ch.game)
    proof = join_proof(key, ch.game, identity.public_key, nj, ch.nonce)
    sig = identity.sign(link_message(ch.game, ch.nonce, identity.public_key, ch.key))
    await link.send(encode_lobby(Auth(proof=proof, sig=sig)))
    welcome: Welcome = await _expect(link, t.handshake + 10, Welcome)
    if not proofs_equal(
        welcome.proof, host_proof(key, ch.game, ch.key, ch.nonce, nj)
    ) or not verify_signature(ch.key, welcome.sig, link_message(ch.game, nj, ch.key, identity.public_key)):
        raise JoinRefused(
            "impostor", "the host could not prove it knows the code: not the table you were invited to"
        )
    rules = NinesRules.from_dict(dict(ch.rules))
    ui.info(f"seated at the table ({ch.players} players); waiting for the others")
    while True:
        msg = await _expect(link, t.lobby, LobbyUpdate, Start)
        if isinstance(msg, LobbyUpdate):
            ui.lobby(msg.names, msg.players)
            continue
        roster: tuple[Seat, ...] = msg.roster
        mine = [i for i, s in enumerate(roster) if s.key == identity.public_key]
        if roster[0].key != ch.key or len(mine) != 1 or len(roster) != ch.players:
            raise PeerUnreachable("the host announced an inconsistent roster")
        if len({s.key for s in roster}) != len(roster) or not all(is_valid_public_key(s.key) for s in roster):
            raise PeerUnreachable("the host announced a roster with unusable or repeated keys")
        return SessionInfo(game_id=ch.game, rules=rules, roster=roster, seat=mine[0], links={0: link})


# ---------------------------------------------------------------------------
# Mesh


async def _link_handshake(
    link: Link, info: SessionInfo, identity: Identity, expect: Callable[[int], bool], t: float
) -> int:
    """Exchange link hellos and signatures; return the authenticated peer seat."""
    nonce = os.urandom(32)
    await link.send(
        encode_lobby(LinkHello(game=info.game_id, seat=info.seat, key=identity.public_key, nonce=nonce))
    )
    hello = await _receive_lobby(link, t)
    if not isinstance(hello, LinkHello) or hello.game != info.game_id:
        raise WireError("not a link hello for this game")
    peer = hello.seat
    if not 0 < peer < len(info.roster) or not expect(peer) or info.roster[peer].key != hello.key:
        raise WireError(f"claims seat {peer}, which it may not take")
    await link.send(
        encode_lobby(
            LinkAuth(
                sig=identity.sign(link_message(info.game_id, hello.nonce, identity.public_key, hello.key))
            )
        )
    )
    auth = await _receive_lobby(link, t)
    if not isinstance(auth, LinkAuth) or not verify_signature(
        hello.key, auth.sig, link_message(info.game_id, nonce, hello.key, identity.public_key)
    ):
        raise WireError(f"could not prove it holds seat {peer}'s key")
    return peer


async def form_mesh(
    info: SessionInfo,
    identity: Identity,
    listeners: Sequence[trio.SocketListener],
    ui: LobbyUI,
    timeouts: Timeouts,
) -> None:
    """Link this seat with every other: dial lower seats, accept higher ones."""
    n = len(info.roster)
    need = {s for s in range(1, n) if s != info.seat} - set(info.links)
    if not need:
        return
    done = trio.Event()

    def may_dial_us(s: int) -> bool:
        return s > info.seat and s not in info.links

    async def accept(stream: trio.abc.Stream) -> None:
        link = Link(stream, peer=_peer_host(stream))
        try:
            peer = await _link_handshake(link, info, identity, may_dial_us, timeouts.handshake)
        except (WireError, LinkClosed, trio.TooSlowError) as e:
            ui.info(f"refused a link from {link.peer}: {e}")
            await link.aclose()
            return
        info.links[peer] = link
        if need <= set(info.links):
            done.set()

    failures: list[PeerUnreachable] = []

    async def dial(peer: int) -> None:
        try:
            await _dial(peer)
        except PeerUnreachable as e:
            failures.append(e)  # raised as such below, not inside an exception group
            done.set()

    async def _dial(peer: int) -> None:
        seat = info.roster[peer]
        try:
            with trio.fail_after(timeouts.handshake):
                stream = await trio.open_tcp_stream(seat.host, seat.port)
        except (OSError, trio.TooSlowError) as e:
            raise PeerUnreachable(
                f"cannot reach {seat.name} (seat {peer}) at {seat.host}:{seat.port} ({_reason(e)})"
            ) from None
        link = Link(stream, peer=f"{seat.host}:{seat.port}")
        try:
            got = await _link_handshake(link, info, identity, lambda s: s == peer, timeouts.handshake)
        except (WireError, LinkClosed, trio.TooSlowError) as e:
            await link.aclose()
            raise PeerUnreachable(f"link to {seat.name} (seat {peer}) failed: {e}") from None
        info.links[got] = link
        if need <= set(info.links):
            done.set()

    try:
        with trio.fail_after(timeouts.mesh):
            async with trio.open_nursery() as nursery:
                for listener in listeners:
                    nursery.start_soon(_accept_loop, listener, accept, nursery)
                for peer in sorted(need):
                    if peer < info.seat:
                        nursery.start_soon(dial, peer)
                await done.wait()
                nursery.cancel_scope.cancel()
    except trio.TooSlowError:
        missing = sorted(need - set(info.links))
        names = ", ".join(f"{info.roster[s].name} (seat {s})" for s in missing)
        raise PeerUnreachable(f"could not link with {names}") from None
    if failures:
        raise failures[0]


Handler = Callable[[trio.abc.Stream], Awaitable[None]]


async def _accept_loop(listener: trio.SocketListener, handler: Handler, nursery: trio.Nursery) -> None:
    """Accept connections and hand each to ``handler`` without closing it afterwards
    (unlike ``trio.serve_listeners``): the accepted links outlive this loop."""
    while True:
        stream = await listener.accept()
        nursery.start_soon(handler, stream)
