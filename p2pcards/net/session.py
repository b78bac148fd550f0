"""Hosting and joining a table, then linking every seat to every other (the mesh).

The host is only the rendezvous: it checks invitations, fixes the roster and
tells everyone where the others listen. Then each seat dials every lower seat
(the host excepted, already linked), and every link is authenticated with
Ed25519 signatures bound to the game id (see ``p2pcards.protocol.lobby``).

The host's door is open to anyone, so whatever a stranger can make it hold is
bounded before the stranger has proven the code: lobby frames of at most
``MAX_LOBBY_FRAME`` bytes, one handshake deadline for hello and auth together,
a few connections at once per source address and a few dozen in all, and a
wrong code that costs its address a growing wait (not the host a held place).
"""

from __future__ import annotations

import contextlib
import ipaddress
import math
import os
import random
from collections import Counter
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import trio

from p2pcards.crypto.identity import Identity, is_valid_public_key, verify_signature
from p2pcards.errors import JoinRefused, PeerUnreachable
from p2pcards.games.nines import NinesRules
from p2pcards.net.link import Link, LinkClosed
from p2pcards.protocol.lobby import (
    MAX_LOBBY_FRAME,
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
from p2pcards.protocol.wire import MAX_FRAME, WireError

MAX_REFUSAL = 200
"""Longest refusal message the lobby schema accepts (``Refused.message``)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Timeouts:
    """Seconds to wait, by kind of wait (a human's turn is long, a key reveal short)."""

    handshake: float = 10.0
    """From connecting to proving the code (hello and auth), or to authenticating a mesh link."""
    mesh: float = 30.0
    turn: float = 600.0
    step: float = 60.0
    lobby: float = 3600.0
    busy: float = 30.0
    """How long a joiner keeps trying again when the host answers that it is busy."""


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


def address_group(peer: str) -> str:
    """What per-address limits count a connection against.

    An IPv4 address is one source. An IPv6 address counts as its /64: one
    subscriber commonly holds a whole /64 and could otherwise dodge every limit.
    """
    try:
        ip = ipaddress.ip_address(peer.split("%", 1)[0])
    except ValueError:
        return peer
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def _lobby_link(stream: trio.abc.Stream, peer: str) -> Link:
    """A link that takes lobby frames only (``MAX_LOBBY_FRAME``) until the match starts on it."""
    return Link(stream, peer=peer, limit=MAX_LOBBY_FRAME)


# ---------------------------------------------------------------------------
# Host


MAX_CONNECTIONS = 32
"""Strangers (connections yet to send their auth) the host waits on at once, from all addresses."""

PER_ADDRESS = 4
"""Strangers the host waits on at once from one address (see ``address_group``); more are busy."""

EVICT_AFTER = 2.0
"""Seconds after which a stranger's place may go to a newcomer when all are taken (an honest
joiner sends its auth well within this: a round trip or two and one scrypt)."""

WRONG_CODE_WAIT = 0.5
"""Seconds an address waits after a wrong code, times the wrong codes it sent so far..."""

MAX_WRONG_CODE_WAIT = 5.0
"""...up to this many."""

TRACKED_ADDRESSES = 4096
"""Addresses whose wrong codes the host remembers; past that, the one whose wait ends first is forgotten."""


@dataclass(frozen=True, slots=True, eq=False)
class Stranger:
    """A connection the host waits on for hello and auth: where from, since when, how to drop it."""

    source: str
    since: float
    scope: trio.CancelScope


@dataclass(frozen=True, slots=True)
class WrongCodes:
    """Wrong codes an address sent so far, and the time before which it may not try again."""

    count: int
    until: float


class HostLobby:
    """The host's side: admit joiners until the table is full.

    Until a connection has sent its auth it is a stranger: it gets one
    handshake deadline for hello and auth together, and it counts against
    ``per_address`` (its address) and ``max_pending`` (everyone). Past the
    first limit, or while its address waits after a wrong code, a newcomer is
    refused as ``busy`` at once; past the second it takes the place of the
    stranger that has waited longest, if that one has waited ``evict_after``
    seconds (it is told ``busy``), and is refused as ``busy`` otherwise. A
    joiner that has sent its auth counts against neither.
    """

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
        max_pending: int = MAX_CONNECTIONS,
        per_address: int = PER_ADDRESS,
        evict_after: float = EVICT_AFTER,
    ) -> None:
        self.identity = identity
        self.rules = rules
        self.players = players
        self.code = code
        self.game_id = game_id
        self.ui = ui
        self.timeouts = timeouts
        self.max_pending = max_pending
        self.per_address = per_address
        self.evict_after = evict_after
        self.code_key = code_key(code, game_id)
        self.joined: list[tuple[Seat, Link, trio.CancelScope]] = []
        self.host_seat = Seat(name=name, key=identity.public_key, host="", port=0)
        self.started = False
        self.full = trio.Event()
        self.refused: Counter[str] = Counter()
        """Refusals sent so far, by reason."""
        self._lock = trio.Lock()
        self._strangers: list[Stranger] = []  # oldest first
        self._wrong: dict[str, WrongCodes] = {}

    def names(self) -> list[str]:
        return [self.host_seat.name] + [s.name for s, _, _ in self.joined]

    @property
    def pending(self) -> int:
        """Strangers the host waits on now (for their hello or their auth)."""
        return len(self._strangers)

    def _wait_left(self, source: str) -> float:
        """Seconds before ``source`` may try a code again (0 when it may now)."""
        wrong = self._wrong.get(source)
        return 0.0 if wrong is None else max(0.0, wrong.until - trio.current_time())

    def _room_for(self, source: str) -> str | None:
        """Make room for a newcomer from ``source``: None when it may come in (the stranger
        that waited longest may have to leave for it), else why it may not."""
        wait = self._wait_left(source)
        if wait > 0:
            return f"too many wrong codes from your address; try again in {math.ceil(wait)} s"
        if sum(s.source == source for s in self._strangers) >= self.per_address:
            return "too many connections from your address at once; try again shortly"
        if len(self._strangers) >= self.max_pending:
            if not self._strangers or trio.current_time() - self._strangers[0].since < self.evict_after:
                return REFUSALS["busy"]
            self._strangers.pop(0).scope.cancel()
        return None

    def _forget(self, stranger: Stranger) -> None:
        with contextlib.suppress(ValueError):
            self._strangers.remove(stranger)

    def _note_wrong_code(self, source: str) -> None:
        """Make ``source`` wait before its next try, longer with each wrong code (online guessing)."""
        before = self._wrong.pop(source, None)
        if before is None and len(self._wrong) >= TRACKED_ADDRESSES:
            del self._wrong[min(self._wrong, key=lambda a: self._wrong[a].until)]
        count = 1 if before is None else before.count + 1
        wait = min(MAX_WRONG_CODE_WAIT, WRONG_CODE_WAIT * count)
        self._wrong[source] = WrongCodes(count=count, until=trio.current_time() + wait)

    async def _refuse(self, link: Link, reason: str, message: str | None = None) -> None:
        self.refused[reason] += 1
        await _refuse(link, reason, message)

    async def _broadcast_lobby(self) -> None:
        update = encode_lobby(LobbyUpdate(names=tuple(self.names()), players=self.players))
        for _, link, _ in list(self.joined):
            with contextlib.suppress(LinkClosed):
                await link.send(update)
        self.ui.lobby(self.names(), self.players)

    async def handle(self, stream: trio.abc.Stream) -> None:
        """One incoming connection: a joiner, a stranger, or garbage."""
        peer = _peer_host(stream)
        source = address_group(peer)
        busy = self._room_for(source)
        if busy is not None:
            await self._refuse(Link(stream, peer=peer, max_frame=MAX_LOBBY_FRAME), "busy", busy)
            return
        link = _lobby_link(stream, peer)
        stranger = Stranger(source=source, since=trio.current_time(), scope=trio.CancelScope())
        self._strangers.append(stranger)
        try:
            seated = await self._check(link, stranger)
        except VersionMismatch as e:
            await self._refuse(
                link, "version", f"protocol version mismatch: this host speaks 1, you sent {show(e.version)}"
            )
            return
        except WireError as e:
            self.ui.info(f"refused a connection from {link.peer}: {e}")
            await self._refuse(link, "protocol", f"protocol error: {e}")
            return
        except (trio.TooSlowError, LinkClosed):
            await link.aclose()
            return
        finally:
            self._forget(stranger)
        if seated is not None:
            await self._stay(link, *seated)

    async def _check(self, link: Link, stranger: Stranger) -> tuple[str, trio.CancelScope] | None:
        """Take a joiner through hello, challenge and auth; its name and watch once seated.

        Everything the joiner must send before it has proven the code has to
        arrive within one handshake deadline.
        """
        source = stranger.source
        with stranger.scope, trio.fail_after(self.timeouts.handshake):
            hello = decode_lobby_object(await link.receive())
            if not isinstance(hello, Hello):
                raise WireError(f"expected hello, got {hello.TYPE}")
            if self.started:
                await self._refuse(link, "started")
                return None
            if self.full.is_set():
                await self._refuse(link, "table-full")
                return None
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
            auth = decode_lobby_object(await link.receive())
        if stranger.scope.cancelled_caught:  # its place went to a newcomer
            await self._refuse(link, "busy")
            return None
        self._forget(stranger)  # what is left is the host's work, not a wait on the stranger
        if not isinstance(auth, Auth):
            raise WireError(f"expected auth, got {auth.TYPE}")
        if not is_valid_public_key(hello.key):
            await self._refuse(link, "bad-key")
            return None
        if not verify_signature(
            hello.key, auth.sig, link_message(self.game_id, nh, hello.key, self.identity.public_key)
        ):
            await self._refuse(link, "bad-signature")
            return None
        wait = self._wait_left(source)
        if wait > 0:  # another connection from this address sent a wrong code meanwhile
            await self._refuse(
                link, "busy", f"too many wrong codes from your address; try again in {math.ceil(wait)} s"
            )
            return None
        expected = join_proof(self.code_key, self.game_id, hello.key, hello.nonce, nh)
        if not proofs_equal(auth.proof, expected):
            self._note_wrong_code(source)  # answered at once; the address's next try waits
            self.ui.info(f"refused {hello.name!r} from {link.peer}: wrong invitation code")
            await self._refuse(link, "wrong-code")
            return None
        async with self._lock:
            if self.started:
                await self._refuse(link, "started")
                return None
            if self.full.is_set():
                await self._refuse(link, "table-full")
                return None
            taken = {n.casefold() for n in self.names()}
            if not hello.name.strip() or hello.name.casefold() in taken:
                await self._refuse(
                    link, "name-taken", f"the name {hello.name!r} is already taken at this table"
                )
                return None
            if hello.key == self.identity.public_key or any(s.key == hello.key for s, _, _ in self.joined):
                await self._refuse(link, "same-key")
                return None
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
        return hello.name, watch

    async def _stay(self, link: Link, name: str, watch: trio.CancelScope) -> None:
        """A seated joiner's connection until the game starts (then the match owns it)."""
        # Until the game starts, any byte or a hang-up from the joiner means it left.
        with watch:
            with contextlib.suppress(LinkClosed, WireError):
                await link.receive()
            async with self._lock:
                if not self.started:
                    self.joined = [j for j in self.joined if j[1] is not link]
                    if self.full.is_set():  # an unset event stays: start() may be waiting on it
                        self.full = trio.Event()
                    self.ui.info(f"{name} left the table")
                    await link.aclose()
                    await self._broadcast_lobby()
                    return
        # The stream belongs to the match now; trio closes it when this handler returns.
        await trio.sleep_forever()

    async def start(self) -> SessionInfo:
        """Once full: fix the roster and tell every joiner.

        Waits until the table is full, and again if a joiner left just after it filled.
        From ``start`` on, each link takes the game's frames (``MAX_FRAME``).
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
                    link.limit_frames(MAX_FRAME)
                    await link.send(frame)
                    info.links[i] = link
            return info


# ---------------------------------------------------------------------------
# Joiner


FIRST_RETRY = 0.5
"""Seconds before a joiner first tries a busy host again; each wait doubles, with some jitter..."""

LONGEST_RETRY = 4.0
"""...up to this many (the joiner gives up after ``Timeouts.busy`` seconds in all)."""


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
    """Dial the host, prove the invitation, wait in the lobby until the game starts.

    A host that answers ``busy`` (too many strangers at its door, or a wrong code
    from this address a moment ago) is tried again, with growing waits, for up to
    ``timeouts.busy`` seconds: a flood at the host delays a joiner, it does not
    turn it away.
    """
    give_up = trio.current_time() + timeouts.busy
    wait = FIRST_RETRY
    while True:
        try:
            return await _join_once(
                host=host,
                port=port,
                code=code,
                identity=identity,
                name=name,
                listen_port=listen_port,
                ui=ui,
                timeouts=timeouts,
            )
        except JoinRefused as e:
            left = give_up - trio.current_time()
            if e.reason != "busy" or timeouts.busy <= 0:
                raise
            if left <= 0:
                raise JoinRefused("busy", f"{e} (still busy after {timeouts.busy:g} s of retries)") from None
            pause = min(left, wait * random.uniform(0.75, 1.25))  # jitter: joiners do not retry in step
            ui.info(f"the host is busy; trying again in {pause:.1f} s")
            await trio.sleep(pause)
            wait = min(LONGEST_RETRY, 2 * wait)


async def _join_once(
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
    try:
        with trio.fail_after(timeouts.handshake):
            stream = await trio.open_tcp_stream(host, port)
    except (OSError, trio.TooSlowError) as e:
        raise PeerUnreachable(f"cannot reach the host at {host}:{port} ({_reason(e)})") from None
    link = _lobby_link(stream, f"{host}:{port}")
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
        link.limit_frames(MAX_FRAME)  # the game's frames follow on this connection
        return SessionInfo(game_id=ch.game, rules=rules, roster=roster, seat=mine[0], links={0: link})


# ---------------------------------------------------------------------------
# Mesh


async def _link_handshake(
    link: Link, info: SessionInfo, identity: Identity, expect: Callable[[int], bool], t: float
) -> int:
    """Exchange link hellos and signatures, all within ``t`` seconds; return the authenticated seat.

    Until then the link takes lobby frames only; afterwards the game's.
    """
    nonce = os.urandom(32)
    with trio.fail_after(t):
        await link.send(
            encode_lobby(LinkHello(game=info.game_id, seat=info.seat, key=identity.public_key, nonce=nonce))
        )
        hello = decode_lobby_object(await link.receive())
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
        auth = decode_lobby_object(await link.receive())
    if not isinstance(auth, LinkAuth) or not verify_signature(
        hello.key, auth.sig, link_message(info.game_id, nonce, hello.key, identity.public_key)
    ):
        raise WireError(f"could not prove it holds seat {peer}'s key")
    link.limit_frames(MAX_FRAME)
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
        link = _lobby_link(stream, _peer_host(stream))
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
        link = _lobby_link(stream, f"{seat.host}:{seat.port}")
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
