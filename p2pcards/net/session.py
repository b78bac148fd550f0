"""Hosting and joining a table, then linking every seat to every other (the mesh).

The host is only the rendezvous: it checks invitations, fixes the roster and
tells everyone where the others listen. Then each seat dials every lower seat
(the host excepted, already linked), and every link is authenticated with
Ed25519 signatures bound to the game id (see ``p2pcards.protocol.lobby``).

Every connection is TLS 1.3 (``p2pcards.net.tls``) before its first lobby frame.
The side that dials pins the key of the side it reached: a mesh link's dialler
refuses any key but the roster key of the seat it dialled, and a joiner refuses
a host whose certificate key is not the key of its challenge (which the host's
SPAKE2 key confirmation then authenticates, bound to the TLS session). So the
signatures and proofs that follow travel inside a channel that ends at the
pinned key.

The host's door is open to anyone, so whatever a stranger can make it hold is
bounded before the stranger has proven the code: lobby frames of at most
``MAX_LOBBY_FRAME`` bytes, a handshake deadline for each step of TLS, hello and auth
and one for the whole (``Progress``), a few connections at once per source address and
a few dozen in all, and a wrong code that costs its address a growing wait (not the
host a held place).
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import os
import random
import socket
import ssl
from collections import Counter
from collections.abc import Awaitable, Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import trio

from p2pcards.crypto.identity import Identity, is_valid_public_key, verify_signature
from p2pcards.crypto.pake import ENTROPY_SIZE, BadPakeMessage, Pake, Side
from p2pcards.errors import JoinRefused, LocalProtocolError, PeerUnreachable, UsageError
from p2pcards.games.base import game as game_named
from p2pcards.net import tls
from p2pcards.net.addresses import show_address, unmapped
from p2pcards.net.dial import connect_afresh, connect_first, open_reusable, punch_point, simultaneous_open
from p2pcards.net.link import HUNG_UP, Link, LinkClosed, refused_why
from p2pcards.net.portmap import PortMapping
from p2pcards.net.tls import TLSError
from p2pcards.protocol import wire_words
from p2pcards.protocol.admission import (
    EVICT_AFTER,
    MAX_CONNECTIONS,
    PER_ADDRESS,
    PROTOCOL_ERROR,
    Admission,
    DoorLimits,
    Evict,
    Proven,
    Reason,
    Refuse,
    SendChallenge,
    refuse,
)
from p2pcards.protocol.admission import address_group as address_group
from p2pcards.protocol.lobby import (
    LOBBY_VERSION,
    MAX_LOBBY_FRAME,
    PLAIN_LOBBY_VERSION,
    Auth,
    Challenge,
    Hello,
    LinkAuth,
    LobbyUpdate,
    Refused,
    Role,
    Seat,
    Start,
    VersionMismatch,
    Welcome,
    confirmation,
    decode_lobby_object,
    encode_lobby,
    link_message,
    normalize_code,
    pake_binding,
    proofs_equal,
)
from p2pcards.protocol.lobby import (
    Link as LinkHello,
)
from p2pcards.protocol.messages import MAX_CLOCK, Body, show
from p2pcards.protocol.names import names_by_key
from p2pcards.protocol.notice import Notice, Notices, message_of, refusal
from p2pcards.protocol.wire import MAX_FRAME, WireError
from p2pcards.say import Number, WireSaid

WAIT_NOTICE = 5.0
"""Seconds of silence after which the runner's ``on_wait`` tells the user whom the table
waits for (here, not in the runner, so that the lobby's status line may read it)."""


HANDSHAKE_STEPS = 3
"""A whole handshake may take this many handshake timeouts (``Timeouts.handshake_total``): its
longest steps (the TLS handshake, the answer to the challenge or to the link hello) each take a
round trip, so a path whose round trip takes most of the step's time still completes it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Timeouts:
    """Seconds to wait, by kind of wait (a human's turn is long, a key reveal short)."""

    handshake: float = 10.0
    """Seconds each step of a handshake may wait for the other end (its first bytes, the TLS
    handshake, each of its lobby or link messages), from the end of the step before: a round
    trip or two of the path, whatever it takes the whole handshake (``Progress``)."""
    mesh: float = 30.0
    turn: float = 600.0
    step: float = 60.0
    lobby: float = 3600.0
    busy: float = 30.0
    """How long a joiner keeps trying again when the host answers that it is busy."""
    grace: float = 120.0
    """How long a seat whose connection broke has to come back before it is named."""

    @property
    def handshake_total(self) -> float:
        """Seconds a whole handshake may take at most, however it progresses: what a stranger
        at the host's door, or at a seat's listener, can make it wait."""
        return HANDSHAKE_STEPS * self.handshake

    def clock(self) -> tuple[int, int, int]:
        """The table's clock a host announces: turn, step and grace, in whole seconds."""
        return (max(1, round(self.turn)), max(1, round(self.step)), max(1, round(self.grace)))

    def with_clock(self, clock: Sequence[int]) -> Timeouts:
        """These timeouts with the table's clock (the host's) for turns, steps and grace."""
        turn, step, grace = clock
        return replace(self, turn=float(turn), step=float(step), grace=float(grace))


@dataclass(slots=True)
class SessionInfo:
    """Everything the match needs from the lobby: the roster and the links."""

    game_id: bytes
    rules: Any
    roster: tuple[Seat, ...]
    seat: int
    links: dict[int, Link] = field(default_factory=dict)
    game: str = "nines"
    """The game the table plays (the name in its join records)."""
    host_address: tuple[str, int] | None = None
    """Where a joiner reached the host (to dial it again); None at the host."""
    relayed: set[int] = field(default_factory=set)
    """Seats this one has no link with: their frames go through the host."""
    clock: tuple[int, ...] | None = None
    """The table's final clock (turn, step, grace), as the host fixed it at the start."""
    punch: tuple[int, int] | None = None
    """(address family, local port) of a joiner's connection to the host: the port that
    hole punching binds again (``net.dial``). None at the host and after a resume."""
    punched: set[int] = field(default_factory=set)
    """Seats this one linked with by hole punching."""


def final_clock(clock: Sequence[int], people: int) -> tuple[int, ...]:
    """The clock a full table plays by: the host's, except that with exactly one person
    seated (the others bots) nobody but bots waits on that person, so a turn may take
    ``MAX_CLOCK`` (a day, as in a local game against bots). Bots alone keep the host's
    clock: nobody is hurried, and a stuck bot is named in good time."""
    turn, step, grace = clock
    return (MAX_CLOCK if people == 1 else turn, step, grace)


PATIENT = Notice("notice_patient")
"""What each seat is told when the table's clock became ``final_clock``'s patient one."""


class LobbyUI:
    """What the lobby tells the person at this node (override to print)."""

    def table_clock(self, timeouts: Timeouts) -> None:
        """The clock the table plays by (the host's), once it is known."""

    def invitation(self, code: str, port: int, mapped: PortMapping | None = None) -> None:
        """The host is ready: show how to join (``mapped``: what its router said)."""

    def lobby(self, names: Sequence[str], players: int) -> None: ...

    def info(self, text: str) -> None: ...

    def warning(self, text: str) -> None:
        """Something the person must not miss (a known player with a new key): said loudly."""
        self.info(text)

    def peer_link(self, key: bytes, what: str, seconds: float) -> None:
        """The link with the player of ``key`` broke (``what`` = ``"lost"``, ``seconds`` they have
        to come back), or that wait ended (any other ``what``: see ``runner.LinkNotice``)."""


class Progress:
    """A handshake's deadline that moves on with the handshake (protocol.md section 9, *The
    host's door*): each step that waits for the other end has ``step`` seconds from the end of
    the step before (:meth:`step_done`), and the whole handshake at most ``total`` seconds from
    its start. So a slow path (long latency, packets lost and sent again) completes a handshake
    of several round trips as long as each round trip fits in a step, where one deadline for
    the sum would cut it; a stranger that stalls is still dropped within one step, and one that
    trickles its steps within ``total``. Used as a context manager, it raises
    :class:`trio.TooSlowError` when its deadline cut the handshake short (as ``trio.fail_after``)."""

    __slots__ = ("_ends", "_step", "scope")

    def __init__(self, step: float, total: float) -> None:
        now = trio.current_time()
        self._step = step
        self._ends = now + max(step, total)
        self.scope = trio.CancelScope(deadline=min(self._ends, now + step))

    def step_done(self) -> None:
        """The other end made progress (a step of the handshake is done): the next has its time."""
        self.scope.deadline = min(self._ends, trio.current_time() + self._step)

    def __enter__(self) -> Progress:
        self.scope.__enter__()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.scope.__exit__(*exc)  # swallows only its own cancellation, which is raised as too slow:
        if self.scope.cancelled_caught:
            raise trio.TooSlowError


def progress(timeouts: Timeouts) -> Progress:
    """One handshake's deadline by ``timeouts``: each step ``handshake``, the whole ``handshake_total``."""
    return Progress(timeouts.handshake, timeouts.handshake_total)


async def _receive_lobby(link: Link, timeout: float) -> Body:
    with trio.fail_after(timeout):
        obj = await link.receive()
    return decode_lobby_object(obj)


async def _refuse(link: Link, refusal: Refuse) -> None:
    with trio.move_on_after(2), contextlib.suppress(LinkClosed):
        await link.send(encode_lobby(Refused(reason=str(refusal.reason), message=refusal.message)))
    await link.aclose()


def _reason(e: BaseException) -> str:
    """Why a connection could not be made, in a few words ("Connection refused")."""
    return refused_why(e) or "no answer"


def _peer_host(stream: trio.abc.Stream) -> str:
    sock = getattr(stream, "socket", None)
    try:
        return unmapped(str(sock.getpeername()[0])) if sock is not None else ""
    except OSError:
        return ""


def _peer_port(stream: trio.abc.Stream) -> int:
    sock = getattr(stream, "socket", None)
    try:
        return int(sock.getpeername()[1]) if sock is not None else 0
    except OSError:
        return 0


def _lobby_link(stream: trio.abc.Stream, peer: str) -> Link:
    """A link that takes lobby frames only (``MAX_LOBBY_FRAME``) until the match starts on it."""
    return Link(stream, peer=peer, limit=MAX_LOBBY_FRAME)


# ---------------------------------------------------------------------------
# Host

PLAIN_REFUSAL = "protocol version mismatch: this host encrypts every link (TLS 1.3); update p2pcards"
"""What a joiner of an older p2pcards, which speaks in the clear, is told in the clear."""


@dataclass(eq=False, slots=True)
class _Guest:
    """One connection to the host, as the admission machine knows it (by identity), and the
    scopes that end its waits."""

    link: Link
    stream: trio.SSLStream[trio.abc.Stream]
    """The link's TLS stream (over the TCP stream)."""
    door: trio.CancelScope = field(default_factory=trio.CancelScope)
    """Cancelled when its place at the door goes to a newcomer."""
    watch: trio.CancelScope = field(default_factory=trio.CancelScope)
    """Cancelled when the game starts: from then on the match reads this link."""
    evicted: Refuse | None = None
    """What it is told when its place went to a newcomer."""
    welcomed: bool = False
    """It was told its seat: from then on only ``_stay`` (or the start) decides about it."""
    relink: LinkHello | None = None
    """A seated joiner dialling again during the match (its link hello)."""
    again: int | None = None
    """The seat of a joiner whose ``start`` was lost, seated again after the start."""
    bot: bool = False
    """Its hello said a bot plays its seat (taken on its word: it only sets the clock)."""
    secured: bool = False
    """Its TLS handshake is done: a refusal can be said to it."""


class HostLobby:
    """The host's side: admit joiners until the table is full.

    Every decision (who waits at the door, who is refused and why, who sits
    where) is made by the sans-IO ``Admission`` machine of
    ``p2pcards.protocol.admission``, which tests drive without sockets. This
    class carries the decisions out: it reads and writes the links, keeps the
    handshake deadline and the clock, draws the nonces, signs, and tells the
    user. ``max_pending``, ``per_address`` and ``evict_after`` are the door's
    limits (``DoorLimits``).
    """

    def __init__(
        self,
        *,
        identity: Identity,
        name: str,
        rules: Any,
        players: int,
        code: str,
        game_id: bytes,
        ui: LobbyUI,
        timeouts: Timeouts,
        max_pending: int = MAX_CONNECTIONS,
        per_address: int = PER_ADDRESS,
        evict_after: float = EVICT_AFTER,
        game: str = "nines",
        bot: bool = False,
    ) -> None:
        self.identity = identity
        self.bot = bot
        """A bot plays the host's own seat (with the joiners' hellos, it sets the final clock)."""
        self.game = game
        self.rules = rules
        self.players = players
        self.code = code
        self.game_id = game_id
        self.ui = ui
        self.timeouts = timeouts
        self.max_pending = max_pending
        self.per_address = per_address
        self.evict_after = evict_after
        self._tls: ssl.SSLContext | None = None
        self.host_seat = Seat(name=name, key=identity.public_key, host="", port=0)
        self.admission: Admission[_Guest] = Admission(
            game_id=game_id,
            host=self.host_seat,
            players=players,
            code=code,
            limits=DoorLimits(max_pending=max_pending, per_address=per_address, evict_after=evict_after),
        )
        self.full = trio.Event()
        self.refused: Counter[str] = Counter()
        """Refusals sent so far, by reason."""
        # Serializes what joiners are told (welcome, then lobby updates in order, then start).
        self._lock = trio.Lock()
        self.relinks: Relinks | None = None
        """Set once the match runs: a seat that dials the host again is handed to it."""
        self._start: bytes | None = None
        """The ``start`` frame as sent, for a seat that joins again after it."""

    @property
    def tls(self) -> ssl.SSLContext:
        """Presents the host's key to every connection (TLS 1.3). Made at the first one, not
        before the invitation is shown: the certificate loads X.509 and signs."""
        if self._tls is None:
            self._tls = tls.server_context(self.identity)
        return self._tls

    def names(self) -> list[str]:
        """Who is seated, host first."""
        return list(self.admission.names())

    @property
    def started(self) -> bool:
        return self.admission.started

    @property
    def pending(self) -> int:
        """Strangers the host waits on now (for their hello or their auth)."""
        return self.admission.pending

    async def _refuse(self, link: Link, refusal: Refuse) -> None:
        self.refused[str(refusal.reason)] += 1
        if refusal.note is not None:
            (self.ui.warning if refusal.loud else self.ui.info)(refusal.note)
        await _refuse(link, refusal)

    async def _broadcast_lobby(self) -> None:
        update = encode_lobby(LobbyUpdate(names=self.admission.names(), players=self.players))
        for guest in self.admission.seated():
            with contextlib.suppress(LinkClosed):
                await guest.link.send(update)
        roster = self.admission.seating.roster()
        # Look-alike names carry the start of their key's fingerprint, as in the game's lines.
        self.ui.lobby(names_by_key([s.name for s in roster], [s.key for s in roster]), self.players)

    async def handle(self, stream: trio.abc.Stream) -> None:
        """One incoming connection: a joiner, a stranger, or garbage."""
        peer = _peer_host(stream)
        secured = tls.server(stream, self.tls)
        guest = _Guest(_lobby_link(secured, peer), secured)
        fresh = os.urandom(32), os.urandom(ENTROPY_SIZE)  # its nonce and the host's SPAKE2 entropy
        door = self.admission.connected(guest, peer, trio.current_time(), *fresh, seen=_peer_port(stream))
        if isinstance(door, Refuse):  # no lobby frame is read from it, only its TLS handshake
            relink = None  # (which the refusal needs), within BUSY_DOOR
            with trio.move_on_after(BUSY_DOOR):
                relink = await self._seat_at_a_busy_door(guest, door)
                if relink is None:
                    await self._refuse(guest.link, door)
            if relink is not None and self.relinks is not None:
                await self.relinks.take(guest.link, relink)
            else:
                await guest.link.aclose()
            return
        if isinstance(door, Evict):
            door.connection.evicted = door.refusal
            door.connection.door.cancel()
        try:
            await self._check(guest)
        except TLSError as e:
            await self._turn_away(guest, peer, e)
            return
        except WireError as e:
            await self._refuse(guest.link, self.admission.unreadable(guest, e))
            return
        except trio.TooSlowError:
            hello = self.admission.hello_of(guest)
            self.admission.gone(guest)  # (its place at the door is free before it is told)
            if guest.secured:
                slow = refuse(Reason.SLOW)
                if hello is not None:  # a joiner, by its hello: its path is too slow (a stall says nothing)
                    slow = replace(slow, note=Notice("notice_slow_joiner", name=repr(hello.name), peer=peer))
                await self._refuse(guest.link, slow)
            else:  # nothing can be said inside TLS yet
                await guest.link.aclose()
            return
        except LinkClosed:
            self.admission.gone(guest)
            await guest.link.aclose()
            return
        finally:
            if not guest.welcomed:  # a seat taken but never announced (its welcome failed) is free again
                self.admission.gone(guest)
        if guest.welcomed:
            await self._stay(guest)
        elif guest.relink is not None and self.relinks is not None:
            await self.relinks.take(guest.link, guest.relink)
        elif guest.again is not None and self.relinks is not None:
            await self.relinks.hand(guest.again, guest.link)
        elif guest.again is not None:  # the match is not running yet: the seat tries again
            await guest.link.aclose()

    async def _seat_at_a_busy_door(self, guest: _Guest, door: Refuse) -> LinkHello | None:
        """While the match runs, a newcomer the door turns away as busy may be a seat of the
        match dialling again, from an address where strangers hold every place (a NAT it
        shares with them): its TLS handshake is done anyway to say busy, and its first frame
        is read within the same ``BUSY_DOOR`` seconds. A link hello of a seat still at the
        table, by that seat's roster key, is that seat's (its link signature, checked next,
        proves it); anything else is refused busy, as it would have been (the caller bounds the
        whole by ``BUSY_DOOR``)."""
        relinks = self.relinks
        if relinks is None or door.reason is not Reason.BUSY:
            return None
        with contextlib.suppress(TLSError, WireError, LinkClosed):
            await tls.handshake(guest.stream)
            first = decode_lobby_object(await guest.link.receive())
            if isinstance(first, LinkHello) and relinks.may_be_seat(first):
                return first
        return None

    async def _check(self, guest: _Guest) -> None:
        """Take a joiner through hello, challenge and auth, then seat it (``guest.welcomed``).

        Each step of what the joiner must send before it has proven the code (its first
        bytes, the TLS handshake, its hello, its auth) has to come within a handshake
        timeout of the step before, and all of them within ``handshake_total`` (``Progress``).
        A joiner whose TLS is up when its time runs out is told so (``slow``): its path is
        too slow, which it could not tell from a host that hangs up.
        """
        link = guest.link
        with guest.door, progress(self.timeouts) as steps:
            await tls.first_bytes(guest.stream)
            steps.step_done()
            await tls.handshake(guest.stream)
            guest.secured = True
            steps.step_done()
            first = decode_lobby_object(await link.receive())
            steps.step_done()
            if isinstance(first, Hello):
                guest.bot = first.bot is True
            if isinstance(first, LinkHello) and self.relinks is not None:
                guest.relink = first  # a seat of the match dialling again, not a joiner
                return
            answer: SendChallenge | Proven | Refuse = self.admission.hello(
                guest, first, tls.channel_binding(guest.stream)
            )
            if isinstance(answer, SendChallenge):
                await link.send(encode_lobby(self._challenge(answer.nonce, answer.pake)))
                steps.step_done()
                auth = decode_lobby_object(await link.receive())
                answer = self.admission.auth(guest, auth, trio.current_time())
        if guest.door.cancelled_caught:  # its place went to a newcomer
            await self._refuse(link, guest.evicted or refuse(Reason.BUSY))
            return
        if isinstance(answer, Refuse):
            await self._refuse(link, answer)
            return
        if not isinstance(answer, Proven):  # only a cancelled wait stops at the challenge (above)
            raise LocalProtocolError("the challenge was left unanswered")
        async with self._lock:
            seated = self.admission.seat(guest, self.relinks.gone() if self.relinks is not None else ())
            if isinstance(seated, Refuse):
                await self._refuse(link, seated)
                return
            sig = self.identity.sign(seated.to_sign)
            await link.send(encode_lobby(Welcome(seat=seated.seat, proof=seated.proof, sig=sig)))
            if seated.again:  # its start was lost: the same start again
                if self._start is None:  # the machine seats again only once started
                    raise LocalProtocolError("a seat taken again before the start")
                self.ui.info(seated.note)
                link.limit_frames(MAX_FRAME)
                await link.send(self._start)
                guest.again = seated.seat
                return
            guest.welcomed = True
            self.ui.info(seated.note)
            await self._broadcast_lobby()
            if self.admission.full:
                self.full.set()

    async def _turn_away(self, guest: _Guest, peer: str, error: TLSError) -> None:
        """A connection whose TLS handshake failed: nothing can be said to it inside TLS.

        An older p2pcards that speaks in the clear is told in the clear that the
        versions differ; anything else is closed, and noted unless it just hung up."""
        self.admission.gone(guest)
        if error.kind != "closed":
            self.ui.info(Notice("notice_refused_connection", peer=peer or "?", error=message_of(error)))
        if error.kind == "plain":
            self.refused[str(Reason.VERSION)] += 1
            refusal = Refused(reason=str(Reason.VERSION), message=PLAIN_REFUSAL)
            transport = guest.stream.transport_stream
            with (
                trio.move_on_after(2),
                contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError),
            ):
                await transport.send_all(encode_lobby(refusal, PLAIN_LOBBY_VERSION))
        await guest.link.aclose()

    def _challenge(self, nonce: bytes, pake: bytes) -> Challenge:
        return Challenge(
            game=self.game_id,
            key=self.identity.public_key,
            nonce=nonce,
            pake=pake,
            play=self.game,
            rules=tuple(sorted(self.rules.to_dict().items())),
            players=self.players,
            clock=self.timeouts.clock(),
        )

    async def _stay(self, guest: _Guest) -> None:
        """A seated joiner's connection until the game starts (then the match owns it)."""
        # Until the game starts, any byte or a hang-up from the joiner means it left.
        with guest.watch:
            with contextlib.suppress(LinkClosed, WireError):
                await guest.link.receive()
            async with self._lock:
                left = self.admission.gone(guest)
                if left is not None:
                    if self.full.is_set():  # an unset event stays: start() may be waiting on it
                        self.full = trio.Event()
                    self.ui.info(left.note)
                    await guest.link.aclose()
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
                started = self.admission.start()
                if started is None:
                    continue  # a joiner left just after the table filled
                for guest in started.connections:
                    guest.watch.cancel()
                announced = self.timeouts.clock()
                people = (not self.bot) + sum(not guest.bot for guest in started.connections)
                clock = final_clock(announced, people)
                info = SessionInfo(
                    game_id=self.game_id,
                    rules=self.rules,
                    roster=started.roster,
                    seat=0,
                    game=self.game,
                    clock=clock,
                )
                changed = clock != announced  # only then is it sent: older joiners take the start as it was
                frame = encode_lobby(Start(roster=started.roster, clock=clock if changed else None))
                if changed:
                    self.ui.info(PATIENT)
                self._start = frame
                for i, guest in enumerate(started.connections, start=1):
                    guest.link.limit_frames(MAX_FRAME)
                    with contextlib.suppress(LinkClosed):  # broken: its reader in the match says so
                        await guest.link.send(frame)
                    info.links[i] = guest.link
            return info


# ---------------------------------------------------------------------------
# Joiner


FIRST_RETRY = 0.5
"""Seconds before a joiner first tries a busy host again; each wait doubles, with some jitter..."""

LONGEST_RETRY = 4.0
"""...up to this many (the joiner gives up after ``Timeouts.busy`` seconds in all)."""

RETRY_LOBBY = 1.0
"""Seconds between two tries to join again after the connection broke in the lobby."""


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
    bot: bool = False,
    alternatives: Sequence[tuple[str, int]] = (),
    outside: Outside = None,
) -> SessionInfo:
    """Dial the host, prove the invitation, wait in the lobby until the game starts.

    A host that answers ``busy`` (too many strangers at its door, or a wrong code
    from this address a moment ago) is tried again, with growing waits, for up to
    ``timeouts.busy`` seconds: a flood at the host delays a joiner, it does not
    turn it away. ``bot``: a bot plays this seat (the hello says so; see ``final_clock``).

    ``alternatives``: other hosts to try in turn if this one does not seat this node
    (several answered a search by the code's number; some may be impostors). With
    SPAKE2 a host without the code learns nothing from a try but that its one guess
    was wrong, so trying each costs nothing; the first that proves the code wins.

    ``outside``: where the internet reaches ``listen_port`` (the router's mapping), or how to
    learn it: awaited once the host's TLS is up, just before the hello that names it, so that
    the router is asked while the host is dialled.
    """
    me = _Joiner(code, identity, name, listen_port, ui, timeouts, bot, outside)
    candidates = [(host, port), *alternatives]
    failures: list[str] = []
    for i, (where, at) in enumerate(candidates):
        try:
            return await _join_retrying(where, at, me)
        except (JoinRefused, PeerUnreachable) as e:
            if len(candidates) == 1:
                raise
            failures.append(Notices([show_address(where, at), message_of(e)], sep=": "))
            if i + 1 < len(candidates):
                ui.info(Notice("notice_try_next", where=show_address(where, at), error=message_of(e)))
    raise PeerUnreachable(Notice("notice_no_host_seated", n=len(candidates), failures=Notices(failures)))


Outside = tuple[str, int] | Callable[[], Awaitable[tuple[str, int] | None]] | None
"""Where the internet reaches a joiner's port, or a function that waits for the router's word."""


@dataclass(frozen=True, slots=True)
class _Joiner:
    """Who joins, and how patiently: the same for every host a join by code tries."""

    code: str
    identity: Identity
    name: str
    listen_port: int
    ui: LobbyUI
    timeouts: Timeouts
    bot: bool
    outside: Outside = None


REJOIN_FOR = 60.0
"""Seconds a joiner whose connection to the host broke in the lobby keeps joining again."""

EARLY_BREAKS = 3
"""Times a joiner not yet seated tries again when the connection breaks while it joins."""


class LostInLobby(PeerUnreachable):
    """The connection to the host broke while this seat waited in the lobby for the start."""


@dataclass(slots=True)
class _LobbyWait:
    """When a joiner stops waiting for one host's start: set when it is first seated, and kept
    when it joins again after a break, so that a host that hangs up and seats it anew, over and
    over, holds it no longer than one lobby timeout in all."""

    ends: float | None = None


class DoorClosed(PeerUnreachable):
    """Nothing listens at the host's address (the connection was refused): it has left."""


class SlowHandshake(PeerUnreachable):
    """The host did not answer a step of the handshake in time (the TLS handshake, the
    challenge) before this node sent its proof of the code: trying again spends no guess."""


class UnansweredProof(PeerUnreachable):
    """No ``welcome`` came in time after this node sent its proof of the code: the host may
    have checked it. Right, the host seated this node, and its answer (and the start, at a
    table that filled) was lost on the way: only joining again brings them. Wrong, the
    ``wrong-code`` was lost, and trying again costs the table one more of its checks of a
    code (``MAX_WRONG_CODES``): so it is tried again ``UNANSWERED_TRIES`` times only."""


UNANSWERED_TRIES = 1
"""Times a joiner tries again after an ``UnansweredProof`` (within ``EARLY_BREAKS``): a
mistyped code costs the table at most this many more checks, on a path that loses every
answer for ``Timeouts.handshake`` + 10 s."""


def _path_too_slow(where: str, why: str) -> Notice:
    return Notice("notice_path_too_slow", where=where, why=why)


def _too_slow(e: Exception, took: float, timeouts: Timeouts) -> bool:
    """Whether a try to join failed as one over a path too slow or lossy for the handshake
    fails: a step the host did not answer in time before the proof of the code was sent, the
    host's refusal ``slow`` (its own deadline cut the handshake), or a hang-up in the handshake
    after half a step's time or more (``took``: seconds since the try began), which is what an
    older host's one deadline for the whole handshake looks like from here."""
    if isinstance(e, SlowHandshake | UnansweredProof):
        return True
    if isinstance(e, JoinRefused) and e.reason == Reason.SLOW:
        return True
    return _broke(e) and took >= timeouts.handshake / 2


def _broke(e: Exception) -> bool:
    """Whether a try to join ended because the connection did (not a refusal, not silence)."""
    return getattr(message_of(e), "key", None) in ("notice_host_closed", "notice_host_hung_up")


def _host_closed(reason: str) -> Notice:
    """Why the host's connection ended: plainly that it closed it when it hung up, else
    with how the connection broke."""
    if reason == HUNG_UP:
        return Notice("notice_host_hung_up")
    return Notice("notice_host_closed", why=reason)


async def _join_retrying(host: str, port: int, me: _Joiner) -> SessionInfo:
    """One host: join it, trying again while it answers ``busy``, and joining again for
    ``REJOIN_FOR`` seconds when the connection breaks while joining or in the lobby (flaky
    Wi-Fi): a seat was freed when the host saw it break, and the code is proven anew. A
    host whose address refuses the connection has left: that ends it."""
    timeouts, ui = me.timeouts, me.ui
    give_up = trio.current_time() + timeouts.busy
    wait = FIRST_RETRY
    rejoin_until: float | None = None  # set while joining again after a break in the lobby
    early_breaks = 0
    unanswered = 0  # tries after an UnansweredProof
    wait_for_start = _LobbyWait()
    while True:
        began = trio.current_time()
        try:
            info = await _join_once(host, port, me, wait_for_start)
            info.host_address = (host, port)
            return info
        except (PeerUnreachable, JoinRefused) as e:
            took = trio.current_time() - began
            slow = rejoin_until is None and not isinstance(e, LostInLobby) and _too_slow(e, took, timeouts)
            why = message_of(e)
            if slow and _broke(e):  # the host's deadline, most likely: said with the time it took
                why = Notice("notice_host_hung_up_late", seconds=Number(took, ".0f"))
            elif slow and isinstance(e, JoinRefused):  # (its words say the path is slow: said once)
                why = Notice("notice_host_gave_up")
            if isinstance(e, LostInLobby):
                rejoin_until = trio.current_time() + REJOIN_FOR  # from the last time it was seated
            elif unanswered and isinstance(e, JoinRefused) and e.reason in ("name-taken", "same-key"):
                # After a proof that went unanswered: the host had seated this node (this refusal
                # comes after a right proof only) and has not seen that connection end yet.
                rejoin_until = trio.current_time() + REJOIN_FOR
            if rejoin_until is not None:
                # The host may not have seen the old connection end yet (its seat, name and key
                # still taken) or be out of reach a moment; one that refuses it has left.
                if isinstance(e, DoorClosed):  # nothing listens there now: the host closed its table
                    closed = Notice("notice_host_left_lobby", where=show_address(host, port))
                    raise DoorClosed(closed) from None
                passing = not isinstance(e, JoinRefused) or e.reason in ("name-taken", "same-key", "busy")
                if not passing or trio.current_time() >= rejoin_until:
                    raise
                if wait_for_start.ends is not None and trio.current_time() >= wait_for_start.ends:
                    raise _lobby_too_long(timeouts) from None
                notice = "notice_lobby_rejoin"
            elif (
                (slow or _broke(e))
                and early_breaks < EARLY_BREAKS
                and (not isinstance(e, UnansweredProof) or unanswered < UNANSWERED_TRIES)
            ):
                # Never seated yet: a few tries (a broken path, a slow one), not a minute of them
                # (an address where something else hangs up on every newcomer).
                early_breaks += 1
                unanswered += isinstance(e, UnansweredProof)
                notice = "notice_join_slow_retry" if slow else "notice_join_retry"
            elif slow:  # said plainly, not as a host that hung up
                raise PeerUnreachable(_path_too_slow(show_address(host, port), why)) from None
            else:
                if not isinstance(e, JoinRefused) or e.reason != "busy" or timeouts.busy <= 0:
                    raise
                left = give_up - trio.current_time()
                if left <= 0:
                    busy = Notice("notice_still_busy", why=message_of(e), seconds=Number(timeouts.busy))
                    raise JoinRefused("busy", busy) from None
                pause = min(left, wait * random.uniform(0.75, 1.25))  # jitter: joiners do not retry in step
                ui.info(Notice("notice_busy", pause=Number(pause, ".1f")))
                await trio.sleep(pause)
                wait = min(LONGEST_RETRY, 2 * wait)
                continue
            ui.info(Notice(notice, why=why))
            await trio.sleep(RETRY_LOBBY)


async def _join_once(host: str, port: int, me: _Joiner, wait_for_start: _LobbyWait) -> SessionInfo:
    timeouts = me.timeouts
    try:
        with trio.fail_after(timeouts.handshake):
            stream = await open_reusable(host, port)
    except (OSError, trio.TooSlowError) as e:
        where = show_address(host, port)
        unreachable = Notice("notice_unreachable_host", where=where, why=_reason(e))
        if isinstance(e, ConnectionRefusedError):  # nothing listens there: the host has left
            raise DoorClosed(unreachable) from None
        raise PeerUnreachable(unreachable) from None
    link = _lobby_link(tls.client(stream), show_address(host, port))
    try:
        server_key = await _host_tls(link, timeouts.handshake)
        info = await _join(link, server_key, me, wait_for_start)
        info.punch = punch_point(stream)
        return info
    except BaseException:
        await link.aclose()
        raise


async def _host_tls(link: Link, timeout: float) -> bytes:
    """The TLS handshake with the host; the key its certificate holds (checked at the challenge)."""
    stream: Any = link.stream
    try:
        with trio.fail_after(timeout):
            await tls.handshake(stream)
        return tls.peer_key(stream)
    except TLSError as e:
        if e.kind == "plain":
            raise JoinRefused("version", Notice("notice_host_plain")) from None
        if e.kind == "closed":  # a hang-up, or a path that broke: tried again like any (``_broke``)
            raise PeerUnreachable(Notice("notice_host_closed", why=message_of(e))) from None
        why = message_of(e)
        raise PeerUnreachable(Notice("notice_host_no_encryption", peer=link.peer, why=why)) from None
    except trio.TooSlowError:
        raise SlowHandshake(Notice("notice_host_no_tls", peer=link.peer)) from None


def _lobby_too_long(t: Timeouts) -> PeerUnreachable:
    return PeerUnreachable(Notice("notice_lobby_too_long", minutes=Number(t.lobby / 60, ".3g")))


MIDDLE = Notice("notice_host_middle")
"""Why a joiner gives up when the host's TLS certificate holds another key than its challenge."""


async def _expect(
    link: Link,
    timeout: float,
    *kinds: type[Body],
    name: str | None = None,
    silent: Callable[[], PeerUnreachable] | None = None,
) -> Any:
    """The next lobby message, of one of ``kinds``; a refusal is raised as :class:`JoinRefused`,
    said by its reason (in the player's language) rather than in the host's words when the
    reason is known (``name``: the joiner's, for a refusal of it). ``silent``: what is raised
    when nothing came in time (else "the host stopped answering")."""
    try:
        msg = await _receive_lobby(link, timeout)
    except VersionMismatch as e:
        raise JoinRefused(
            "version", Notice("notice_host_version", theirs=show(e.version), ours=LOBBY_VERSION)
        ) from None
    except WireError as e:
        raise PeerUnreachable(Notice("notice_host_unreadable", why=WireSaid(e))) from None
    except LinkClosed as e:
        raise PeerUnreachable(_host_closed(e.reason)) from None
    except trio.TooSlowError:
        raise (silent() if silent is not None else PeerUnreachable(Notice("notice_host_silent"))) from None
    if isinstance(msg, Refused):
        why = refusal(msg.reason, name)
        raise JoinRefused(msg.reason, Notice("notice_host_refused", why=why) if why else _host_words(msg))
    if not isinstance(msg, kinds):
        raise PeerUnreachable(Notice("notice_host_unexpected", kind=msg.TYPE))
    return msg


def _host_words(msg: Refused) -> Notice:
    """A refusal whose reason has no notice, said in the host's words. A protocol error a
    p2pcards host writes (``PROTOCOL_ERROR`` and what was wrong with what this node sent: a
    SPAKE2 message it could not use, a message out of turn) is said in the player's language
    where a template made it; any other words are quoted as the host's, in a sentence of the
    player's language."""
    if msg.reason == Reason.PROTOCOL and msg.message.startswith(PROTOCOL_ERROR):
        why = Notice("notice_host_protocol_error", why=WireSaid(msg.message[len(PROTOCOL_ERROR) :]))
        return Notice("notice_host_refused", why=why)
    return Notice("notice_host_refused_words", words=msg.message)


async def _join(link: Link, server_key: bytes, me: _Joiner, wait_for_start: _LobbyWait) -> SessionInfo:
    code, identity, name, listen_port, ui, t, bot = (
        me.code,
        me.identity,
        me.name,
        me.listen_port,
        me.ui,
        me.timeouts,
        me.bot,
    )
    outside = await me.outside() if callable(me.outside) else me.outside
    nj = os.urandom(32)
    pake = Pake.start(Side.JOINER, normalize_code(code), os.urandom(ENTROPY_SIZE))
    # ``bot`` is written only when true, so that a person's hello is the one older hosts know.
    hello = Hello(
        name=name,
        key=identity.public_key,
        nonce=nj,
        port=listen_port,
        pake=pake.message,
        bot=True if bot else None,
        outside=outside,
    )
    try:
        await link.send(encode_lobby(hello))
    except LinkClosed as e:
        raise PeerUnreachable(_host_closed(e.reason)) from None
    # No answer to the hello in time: the path is too slow, and no guess of the code was spent.
    silent = lambda: SlowHandshake(Notice("notice_host_silent"))  # noqa: E731
    ch: Challenge = await _expect(link, t.handshake, Challenge, name=name, silent=silent)
    # The challenge's key is the one the host's confirmation below vouches for: TLS must
    # end at that key, or someone relays this conversation.
    if ch.key != server_key:
        raise JoinRefused("impostor", MIDDLE)
    try:  # before a guess is spent on a table this node cannot play
        rules = game_named(ch.play).rules_from_dict(dict(ch.rules))
    except UsageError as e:  # (a rule option out of bounds is said in the player's language)
        raise JoinRefused("version", Notice("notice_host_game_unplayable", why=e)) from None
    try:
        key = pake.finish(ch.pake)
    except BadPakeMessage as e:
        raise PeerUnreachable(Notice("notice_host_unreadable", why=WireSaid(e))) from None
    channel = tls.channel_binding(link.stream)
    binding = pake_binding(ch.game, identity.public_key, ch.key, nj, ch.nonce, pake.message, ch.pake, channel)
    sig = identity.sign(link_message(ch.game, ch.nonce, identity.public_key, ch.key))
    await link.send(encode_lobby(Auth(proof=confirmation(key, Role.JOINER, binding), sig=sig)))
    # No answer to the auth in time: the host may have checked this proof (``UnansweredProof``).
    waited = t.handshake + 10
    late = Notice("notice_host_silent_after_code", seconds=Number(waited, "g"))
    welcome: Welcome = await _expect(link, waited, Welcome, name=name, silent=lambda: UnansweredProof(late))
    if not proofs_equal(welcome.proof, confirmation(key, Role.HOST, binding)) or not verify_signature(
        ch.key, welcome.sig, link_message(ch.game, nj, ch.key, identity.public_key)
    ):
        raise JoinRefused("impostor", Notice("notice_host_no_proof"))
    ui.info(Notice("notice_seated", game=game_named(ch.play).title, players=ch.players))
    # One deadline for the whole wait, not one per frame nor one per seating: a host that sends
    # lobby updates for ever (or nothing), or seats this node anew after each hang-up, holds a
    # joiner no longer than the lobby timeout.
    if wait_for_start.ends is None:
        wait_for_start.ends = trio.current_time() + t.lobby
    lobby_ends = wait_for_start.ends
    while True:
        try:
            left = max(0.0, lobby_ends - trio.current_time())
            msg = await _expect(link, left, LobbyUpdate, Start, name=name)
        except PeerUnreachable as e:
            if trio.current_time() >= lobby_ends:
                raise _lobby_too_long(t) from None
            if _broke(e):
                raise LostInLobby(message_of(e)) from None
            raise
        if isinstance(msg, LobbyUpdate):
            ui.lobby(msg.names, msg.players)
            continue
        roster: tuple[Seat, ...] = msg.roster
        mine = [i for i, s in enumerate(roster) if s.key == identity.public_key]
        if roster[0].key != ch.key or len(mine) != 1 or len(roster) != ch.players:
            raise PeerUnreachable(Notice("notice_host_roster_inconsistent"))
        if len({s.key for s in roster}) != len(roster) or not all(is_valid_public_key(s.key) for s in roster):
            raise PeerUnreachable(Notice("notice_host_roster_keys"))
        # The host gives this seat the port of its hello (or its router's, protocol.md section 9):
        # another one (0: "does not listen") would send every link of this seat through the host.
        own = roster[mine[0]].port
        if own != listen_port and not (listen_port and outside is not None and own == outside[1]):
            # This key was seated before by another run of the program (its start was lost, or
            # it crashed): the roster holds that run's port, and this one cannot take its place.
            # (Or the host lies, to carry every link of this seat.)
            raise PeerUnreachable(Notice("notice_seated_elsewhere", port=own, mine=listen_port))
        link.limit_frames(MAX_FRAME)  # the game's frames follow on this connection
        clock = tuple(ch.clock if msg.clock is None else msg.clock)  # the host's final word
        if clock[0] >= MAX_CLOCK > ch.clock[0]:
            ui.info(PATIENT)
        return SessionInfo(
            game_id=ch.game,
            rules=rules,
            roster=roster,
            seat=mine[0],
            links={0: link},
            game=ch.play,
            clock=clock,
        )


# ---------------------------------------------------------------------------
# Mesh


async def _link_handshake(
    link: Link,
    info: SessionInfo,
    identity: Identity,
    expect: Callable[[int], bool],
    t: float,
    *,
    pin: int | None = None,
    hello: LinkHello | None = None,
) -> int:
    """TLS, then link hellos and signatures; return the authenticated seat. Each step that
    waits for the other end (its first bytes, when this end accepted the connection; the TLS
    handshake; its link hello; its link-auth) has ``t`` seconds from the step before, and the
    whole ``HANDSHAKE_STEPS`` times that (``Progress``).

    ``pin``: the seat this node dialled, whose roster key the TLS server must hold.
    ``hello``: the other end's link hello, when it was read already (TLS done).
    Until then the link takes lobby frames only; afterwards the game's.
    """
    nonce = os.urandom(32)
    stream: Any = link.stream
    with Progress(t, HANDSHAKE_STEPS * t) as steps:
        if hello is None:
            if pin is None:  # accepted: the dialler speaks first
                await tls.first_bytes(stream)
                steps.step_done()
            await tls.handshake(stream)
            steps.step_done()
        if pin is not None and tls.peer_key(stream) != info.roster[pin].key:
            raise TLSError(Notice("tls_other_key", seat=pin), kind="key")
        await link.send(
            encode_lobby(LinkHello(game=info.game_id, seat=info.seat, key=identity.public_key, nonce=nonce))
        )
        if hello is None:
            got = decode_lobby_object(await link.receive())
            steps.step_done()
            if not isinstance(got, LinkHello):
                raise WireError(wire_words.NOT_LINK_HELLO)
            hello = got
        if hello.game != info.game_id:
            raise WireError(wire_words.NOT_LINK_HELLO)
        peer = hello.seat
        ok = 0 <= peer < len(info.roster) and peer != info.seat and expect(peer)
        if not ok or info.roster[peer].key != hello.key:
            raise WireError(wire_words.SEAT_NOT_ITS.format(seat=peer))
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
        raise WireError(wire_words.KEY_NOT_PROVEN.format(seat=peer))
    link.limit_frames(MAX_FRAME)
    return peer


PUNCH_AFTER = 2.0
"""Seconds a direct dial has to connect before the two seats try hole punching."""
PUNCH_WINDOW = 8.0
"""Seconds of simultaneous-open attempts before the two seats fall back to the host's relay."""


def _punchable(info: SessionInfo, peer: int) -> bool:
    """Both seats can try a simultaneous open: the host saw where each one's connection
    came from, in the same address family as this seat's own connection to the host."""
    if info.punch is None or not info.roster[peer].seen or not info.roster[info.seat].seen:
        return False
    try:
        version = ipaddress.ip_address(info.roster[peer].host).version
    except ValueError:
        return False
    return version == (6 if info.punch[0] == socket.AF_INET6 else 4)


async def form_mesh(
    info: SessionInfo,
    identity: Identity,
    listeners: Sequence[trio.SocketListener],
    ui: LobbyUI,
    timeouts: Timeouts,
) -> None:
    """Link this seat with every other: dial lower seats, accept higher ones.

    A pair of seats whose dial does not connect within ``PUNCH_AFTER`` (a home router
    in the way, or a seat that does not listen) tries hole punching (``net.dial``);
    a pair that still has no link reaches each other through the host
    (``info.relayed``), as a pair that cannot punch does at once.
    """
    n = len(info.roster)
    need = {s for s in range(1, n) if s != info.seat} - set(info.links)
    for s in sorted(need):
        lower = min(s, info.seat)
        if info.roster[lower].port == 0 and not _punchable(info, s):  # nothing to dial, no hole to punch
            info.relayed.add(s)
            why = Notice("why_self_not_listening" if lower == info.seat else "why_not_listening")
            ui.info(Notice("notice_relayed", name=info.roster[s].name, seat=s, why=why))
    need -= info.relayed
    if not need:
        return
    done = trio.Event()
    # Only a seat that higher seats dial needs its key in a server context (and on disk, briefly).
    server = tls.server_context(identity) if any(s > info.seat for s in need) else None

    def may_dial_us(s: int) -> bool:
        return s > info.seat and s not in info.links

    def linked(peer: int, link: Link) -> None:
        info.links[peer] = link
        if need <= set(info.links):
            done.set()

    strangers = Strangers()  # (bounded as during the match)
    under_way: set[trio.Event] = set()
    """Handshakes of links dialled in, under way (each event set when its handshake ends)."""
    refused = 0  # links refused so far (the first few are said: a flood would fill the screen)

    async def accept(stream: trio.abc.Stream, only: int | None = None) -> bool:
        nonlocal refused
        if server is None or strangers.full:  # nobody may dial this seat, or a flood
            await trio.aclose_forcefully(stream)
            return False
        link = _lobby_link(tls.server(stream, server), _peer_host(stream))
        expect = may_dial_us if only is None else (lambda s: s == only and may_dial_us(s))
        ended = trio.Event()
        under_way.add(ended)
        try:
            with strangers.one():
                peer = await _link_handshake(link, info, identity, expect, timeouts.handshake)
        except (WireError, LinkClosed, TLSError, trio.TooSlowError) as e:
            refused += 1
            if refused <= REFUSED_SAID:
                ui.info(Notice("notice_refused_link", peer=link.peer, error=_link_failure(e)))
            await link.aclose()
            return False
        finally:
            under_way.discard(ended)
            ended.set()
        linked(peer, link)
        return True

    failures: list[PeerUnreachable] = []

    async def dial(peer: int) -> None:
        try:
            await _dial(peer)
        except PeerUnreachable as e:
            failures.append(e)  # raised as such below, not inside an exception group
            done.set()

    def through_host(peer: int, why: str) -> None:
        seat = info.roster[peer]
        ui.info(Notice("notice_relayed", name=seat.name, seat=peer, why=why))
        info.relayed.add(peer)
        need.discard(peer)
        if need <= set(info.links):
            done.set()

    async def _dial(peer: int) -> None:
        seat = info.roster[peer]
        punchable = _punchable(info, peer)
        why: str = Notice("why_not_listening")
        stream: trio.SocketStream | None = None
        where = (seat.host, seat.port)
        if seat.port:
            try:
                with trio.fail_after(PUNCH_AFTER if punchable else timeouts.handshake):
                    stream, where = await connect_first(seat.addresses)
            except (OSError, trio.TooSlowError) as e:
                why = f"{show_address(seat.host, seat.port)}: {_reason(e)}"
        if stream is None and punchable:
            stream = await _punch(peer)
            if stream is None:
                why = Notices([why, Notice("why_punch_failed")])
        if stream is None:
            through_host(peer, why)
            return
        link = _lobby_link(tls.client(stream), _peer_host(stream))
        try:
            await _link_handshake(link, info, identity, lambda s: s == peer, timeouts.handshake, pin=peer)
        except (WireError, LinkClosed, TLSError, trio.TooSlowError) as e:
            await link.aclose()
            if _silent(e):  # a seat not at its listener yet (its start came late): not an attack
                through_host(peer, Notices([show_address(*where), _link_failure(e)], sep=": "))
                return
            raise PeerUnreachable(
                Notice("notice_link_failed", name=seat.name, seat=peer, why=_link_failure(e))
            ) from None
        linked(peer, link)
        announce(peer)

    async def _punch(peer: int) -> trio.SocketStream | None:
        assert info.punch is not None  # _punchable
        seat = info.roster[peer]
        stream = await simultaneous_open(info.punch[0], info.punch[1], (seat.host, seat.seen), PUNCH_WINDOW)
        if stream is not None:
            info.punched.add(peer)
        return stream

    def announce(peer: int) -> None:
        if peer in info.punched:
            ui.info(Notice("notice_punched", name=info.roster[peer].name, seat=peer))

    async def await_punch(peer: int) -> None:
        """The seat dialled by ``peer``: if it has not dialled in by ``PUNCH_AFTER``, punch
        (at once if this seat does not listen: the other side does not dial it first)."""
        if info.roster[info.seat].port:
            await trio.sleep(PUNCH_AFTER)
        if peer in info.links:
            return
        stream = await _punch(peer)
        if stream is not None and peer in info.links:  # it dialled in meanwhile
            info.punched.discard(peer)
            await stream.aclose()
            return
        if stream is not None and await accept(stream, only=peer):
            announce(peer)
            return
        if stream is not None:
            info.punched.discard(peer)
        # Its dial may have connected and be authenticating still, over a slow path (a link
        # handshake takes two round trips and more): those under way end first (each within
        # its deadline), rather than be cut when this pair goes through the host.
        for ended in list(under_way):
            await ended.wait()
        if peer not in info.links and peer in need:  # the other side gave up at the same moment
            through_host(peer, Notices([Notice("why_no_link"), Notice("why_punch_failed")]))

    with trio.move_on_after(timeouts.mesh):
        async with trio.open_nursery() as nursery:
            for listener in listeners:
                nursery.start_soon(_accept_loop, listener, accept, nursery)
            for peer in sorted(need):
                if peer < info.seat:
                    nursery.start_soon(dial, peer)
                elif _punchable(info, peer):
                    nursery.start_soon(await_punch, peer)
            await done.wait()
            nursery.cancel_scope.cancel()
    if failures:  # (before the seats not linked yet: the failure cut their time short)
        raise failures[0]
    for peer in sorted(need - set(info.links)):  # never dialled in: it could not reach this seat
        through_host(peer, f"no link from it in {timeouts.mesh:g} s")
    direct = [info.roster[p].name for p in sorted(info.links) if p != 0 and p not in info.punched]
    if direct:  # with the punched and relayed seats said above: how this seat reaches every other
        ui.info(Notice("notice_direct", names=", ".join(direct)))


def _link_failure(e: BaseException) -> str:
    """Why a link handshake failed, to be said in the player's language: what was wrong with
    what the peer sent (a WireError), how the link closed, what TLS said, or that no answer
    came in time; anything else in its own words."""
    if isinstance(e, WireError):
        return WireSaid(e)
    if isinstance(e, LinkClosed):
        return e.reason
    return message_of(e) or Notice("why_no_answer_in_time")


def _silent(e: BaseException) -> bool:
    """Whether a link handshake failed for want of an answer (none in time, or a hang-up)
    rather than for a wrong answer (another key, a bad signature: someone in the middle)."""
    return isinstance(e, trio.TooSlowError | LinkClosed) or (isinstance(e, TLSError) and e.kind == "closed")


async def _dial_seat(
    info: SessionInfo, identity: Identity, peer: int, addresses: Sequence[tuple[str, int]], t: float
) -> Link:
    """Dial seat ``peer`` at the first of ``addresses`` that answers and authenticate the
    link: TLS pinned to its roster key, then the link hellos and signatures. OSError or
    trio.TooSlowError if it cannot be reached; LinkClosed if the handshake fails."""
    stream, (host, port) = await connect_afresh(addresses, t)  # at once when a path comes back
    link = _lobby_link(tls.client(stream), show_address(host, port))
    try:
        await _link_handshake(link, info, identity, lambda s: s == peer, t, pin=peer)
    except (WireError, LinkClosed, TLSError, trio.TooSlowError) as e:
        await link.aclose()
        raise LinkClosed(_link_failure(e)) from None
    return link


Handler = Callable[[trio.abc.Stream], Awaitable[object]]


ACCEPT_CAPACITY_ERRNOS = frozenset(
    getattr(errno, name) for name in ("EMFILE", "ENFILE", "ENOMEM", "ENOBUFS") if hasattr(errno, name)
)
"""Errors of ``accept`` that say this process or system is out of room for one more
connection (as trio's ``serve_listeners`` knows them): the loop waits and goes on."""

ACCEPT_PAUSE = 0.1
"""Seconds the accept loop waits after such an error."""


async def _accept_loop(listener: trio.SocketListener, handler: Handler, nursery: trio.Nursery) -> None:
    """Accept connections and hand each to ``handler`` without closing it afterwards
    (unlike ``trio.serve_listeners``): the accepted links outlive this loop. Out of file
    descriptors (a flood of connections), it waits and goes on, as trio's does: the
    match this node plays must not end because strangers connect."""
    while True:
        try:
            stream = await listener.accept()
        except OSError as e:
            if e.errno not in ACCEPT_CAPACITY_ERRNOS:
                raise
            await trio.sleep(ACCEPT_PAUSE)
            continue
        nursery.start_soon(handler, stream)


async def serve(handler: Handler, listeners: Sequence[trio.SocketListener]) -> None:
    """``trio.serve_listeners`` without its log: each connection goes to ``handler`` and is
    closed after it; out of file descriptors, the loop waits and goes on, saying nothing
    (trio's logs an error with a traceback, which a flood would print on the host's screen)."""

    async def closing(stream: trio.abc.Stream) -> None:
        try:
            await handler(stream)
        finally:
            await trio.aclose_forcefully(stream)

    async with trio.open_nursery() as nursery:
        for listener in listeners:
            nursery.start_soon(_accept_loop, listener, closing, nursery)


# ---------------------------------------------------------------------------
# Reconnecting during a match


REFUSED_SAID = 5
"""Refused links said to the player while the mesh forms; the rest go unsaid (a flood)."""

BUSY_DOOR = 2.0
"""Seconds the host gives a newcomer it turns away as busy: its TLS handshake, to say so, and
(while the match runs) its first frame, which may be a seat of the match dialling again."""

MAX_STRANGERS = 32
"""Connections a seat authenticates at once while its links form and during a match (a seat
dialling again, or anyone at its port): the roster's seats need a few; a flood gets no more
file descriptors."""


class Strangers:
    """The connections a listener is authenticating now, at most ``MAX_STRANGERS``: one more
    is closed before its TLS handshake."""

    __slots__ = ("now",)

    def __init__(self) -> None:
        self.now = 0

    @property
    def full(self) -> bool:
        return self.now >= MAX_STRANGERS

    @contextlib.contextmanager
    def one(self) -> Iterator[None]:
        """While inside: one more connection is being authenticated."""
        self.now += 1
        try:
            yield
        finally:
            self.now -= 1


class Relinks:
    """This seat's side of reconnection during a match (``runner.Relinker``).

    The seat that dialled a link dials it again: a joiner dials the host at the
    address it joined, and a seat dials the lower seats at their roster
    addresses. The other end takes the new connection on its listener (the
    host's lobby port, a joiner's mesh port) and hands it over here. Each new
    link is authenticated exactly like the first one: TLS with the dialled
    seat's key pinned, then the link hellos and signatures.
    """

    def __init__(self, info: SessionInfo, identity: Identity, timeouts: Timeouts) -> None:
        self.info = info
        self.identity = identity
        self.timeouts = timeouts
        self._server: ssl.SSLContext | None = None
        self._channels = {
            p: trio.open_memory_channel[Link](1) for p in range(len(info.roster)) if p != info.seat
        }
        self.present: Callable[[], Collection[int]] | None = None
        """The seats still at the table, once the match runs (set by the node)."""
        self._strangers = Strangers()
        """Connections that dialled in and are not authenticated yet (each holds a file
        descriptor for up to a whole handshake, ``Timeouts.handshake_total``)."""

    @property
    def strangers(self) -> int:
        """Connections being authenticated now."""
        return self._strangers.now

    def gone(self) -> frozenset[int]:
        """The seats of the roster the match went on without: they cannot come back."""
        if self.present is None:
            return frozenset()
        return frozenset(range(len(self.info.roster))) - frozenset(self.present())

    def dials(self, peer: int) -> bool:
        return peer < self.info.seat

    def may_be_seat(self, hello: LinkHello) -> bool:
        """Whether ``hello`` names, for this match, a seat still at the table that dials this
        one, by its roster key (only its link signature, checked afterwards, proves it)."""
        roster = self.info.roster
        return (
            hello.game == self.info.game_id
            and self.info.seat < hello.seat < len(roster)
            and roster[hello.seat].key == hello.key
            and hello.seat not in self.gone()
        )

    def _addresses(self, peer: int) -> tuple[tuple[str, int], ...]:
        if peer == 0:
            if self.info.host_address is None:
                raise LinkClosed(Notice("relink_no_host_address"))
            return (self.info.host_address,)
        return self.info.roster[peer].addresses

    async def relink(self, peer: int) -> Link:
        """A new authenticated link to ``peer``: dialled, or taken when it dials in."""
        if not self.dials(peer):
            return await self._channels[peer][1].receive()
        addresses = self._addresses(peer)
        try:
            return await _dial_seat(self.info, self.identity, peer, addresses, self.timeouts.handshake)
        except trio.TooSlowError:
            raise LinkClosed(Notice("relink_no_answer", where=show_address(*addresses[0]))) from None
        except LinkClosed as e:
            raise LinkClosed(Notice("relink_failed", why=e.reason)) from None

    def server_context(self) -> ssl.SSLContext:
        if self._server is None:
            self._server = tls.server_context(self.identity)
        return self._server

    async def accept(self, stream: trio.abc.Stream) -> None:
        """A connection to this seat's listener during the match: a seat dialling again."""
        if self._strangers.full:  # a flood: closed before its TLS handshake
            await trio.aclose_forcefully(stream)
            return
        link = _lobby_link(tls.server(stream, self.server_context()), _peer_host(stream))
        await self.take(link)

    async def accept_any(self, stream: trio.abc.Stream) -> None:
        """A connection to a seat that came back after a crash: a seat dialling again is
        taken back; anyone else (a late joiner) is told the game has started."""
        if self._strangers.full:
            await trio.aclose_forcefully(stream)
            return
        link = _lobby_link(tls.server(stream, self.server_context()), _peer_host(stream))
        try:
            with self._strangers.one(), progress(self.timeouts) as steps:
                await tls.first_bytes(link.stream)  # type: ignore[arg-type]
                steps.step_done()
                await tls.handshake(link.stream)  # type: ignore[arg-type]
                steps.step_done()
                first = decode_lobby_object(await link.receive())
        except (WireError, LinkClosed, TLSError, trio.TooSlowError):
            await link.aclose()
            return
        if isinstance(first, LinkHello):
            await self.take(link, first)
        else:
            await _refuse(link, refuse(Reason.STARTED))

    async def take(self, link: Link, hello: LinkHello | None = None) -> None:
        """Authenticate a seat that dials in again and hand its link to the match.
        Returns once the link is closed (a listener's handler owns its stream). At most
        ``MAX_STRANGERS`` connections are authenticated at once: one more is closed."""
        if self._strangers.full:
            await link.aclose()
            return
        try:
            with self._strangers.one():
                peer = await _link_handshake(
                    link, self.info, self.identity, lambda s: s > self.info.seat, self.timeouts.handshake,
                    hello=hello,
                )  # fmt: skip
        except (WireError, LinkClosed, TLSError, trio.TooSlowError):
            await link.aclose()
            return
        await self.hand(peer, link)

    async def hand(self, peer: int, link: Link) -> None:
        """Give the match ``link``, authenticated as ``peer``'s (by the link hellos, or by
        the lobby for a seat that joined again after the start). Holds until the match ends
        (a listener's handler owns its stream, and closes it when it returns)."""
        send, receive = self._channels[peer]
        with contextlib.suppress(trio.WouldBlock):
            stale = receive.receive_nowait()  # an earlier attempt nobody took: this one is newer
            await stale.aclose()
        send.send_nowait(link)
        await trio.sleep_forever()  # the match owns the link; this ends with the match
