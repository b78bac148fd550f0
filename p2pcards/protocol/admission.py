"""Who the host lets in: its door for strangers and its seats for joiners, as a sans-IO state machine.

Anyone can connect to a host, so every admission decision lives here, where a
test can drive it without sockets, a clock or randomness: the caller passes the
current time (seconds, any monotonic origin) and the host's fresh nonces in, and
gets a typed decision back (:class:`Enter`, :class:`Evict`, :class:`SendChallenge`,
:class:`Proven`, :class:`Seated`, :class:`Left`, :class:`Started` or
:class:`Refuse`), which it carries out on the wire (``p2pcards.net.session``).

Three parts, one concept each:

* :class:`Door` - strangers (connections yet to send their auth): how many wait
  per source address and in all, who makes room for a newcomer, and how long an
  address waits after a wrong code.
* :class:`Seating` - the table: seated joiners, distinct names and keys, full or
  started, the roster at the start.
* :class:`Admission` - one connection's way through both, in the order of
  protocol.md section 9: connect, ``hello`` (its SPAKE2 message answered by a
  challenge carrying the host's), ``auth`` (the joiner's key confirmation: the
  code proven), a seat (answered by ``welcome`` with the host's confirmation).

The SPAKE2 exchange gives a stranger one guess of the code per connection and
nothing to test offline; the door makes each wrong guess cost its address a
growing wait.

A connection is any hashable token the caller picks (the driver uses its own
per-connection object); the machine never looks inside it.
"""

from __future__ import annotations

import enum
import ipaddress
import math
from collections import Counter
from collections.abc import Collection, Hashable
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

from p2pcards.crypto.identity import is_valid_public_key, verify_signature
from p2pcards.crypto.pake import BadPakeMessage, Pake, Side
from p2pcards.errors import LocalProtocolError
from p2pcards.protocol import wire_words
from p2pcards.protocol.lobby import (
    LOBBY_VERSION,
    MAX_CHANNEL,
    MIN_CHANNEL,
    REFUSALS,
    Auth,
    Hello,
    Role,
    Seat,
    VersionMismatch,
    confirmation,
    link_message,
    normalize_code,
    pake_binding,
    proofs_equal,
)
from p2pcards.protocol.messages import Body, show
from p2pcards.protocol.names import names_by_key
from p2pcards.protocol.notice import Notice
from p2pcards.protocol.wire import WireError
from p2pcards.say import WireSaid

C = TypeVar("C", bound=Hashable)
"""The caller's token for one connection."""

MAX_REFUSAL = 200
"""Longest refusal message the lobby schema accepts (``Refused.message``)."""

MAX_CONNECTIONS = 32
"""Strangers (connections yet to send their auth) the host waits on at once, from all addresses."""

PER_ADDRESS = 4
"""Strangers the host waits on at once from one address (see ``address_group``); more are busy."""

EVICT_AFTER = 2.0
"""Seconds after which a stranger's place may go to a newcomer when all are taken (an honest
joiner sends its auth well within this: a round trip or two and a few milliseconds of SPAKE2)."""

WRONG_CODE_WAIT = 0.5
"""Seconds an address waits after a wrong code, times the wrong codes it sent so far..."""

MAX_WRONG_CODE_WAIT = 5.0
"""...up to this many."""

MAX_WRONG_CODES = 32
"""Wrong codes the host checks in all, from every address: then it checks no more (``code-closed``).
Each check tests one code, so a guesser from many addresses gets in with a chance of at most
this many in the codes there are (32 in 65,536 when the code's number is known)."""

TRACKED_ADDRESSES = 4096
"""Addresses whose wrong codes the host remembers; past that, the one whose wait ends first is forgotten."""


PROTOCOL_ERROR = "protocol error: "
"""How the refusal of a connection that broke the protocol begins, before what was wrong."""


class Reason(enum.StrEnum):
    """Why the host refuses (the ``reason`` of a ``refused`` frame); a typo fails at import."""

    WRONG_CODE = "wrong-code"
    TABLE_FULL = "table-full"
    STARTED = "started"
    VERSION = "version"
    NAME_TAKEN = "name-taken"
    SAME_KEY = "same-key"
    BAD_SIGNATURE = "bad-signature"
    BAD_KEY = "bad-key"
    BUSY = "busy"
    PROTOCOL = "protocol"
    LEFT = "left"
    CODE_CLOSED = "code-closed"
    SLOW = "slow"


def network_group(source: str) -> str:
    """The network an address group belongs to, for the fair share of the door's places: an
    IPv4 /24, an IPv6 /48 (what one subscriber or one small hosting account may hold); anything
    else (a name) is its own."""
    try:
        net = ipaddress.ip_network(source, strict=False)
    except ValueError:
        return source
    prefix = 24 if net.version == 4 else 48
    return str(net.supernet(new_prefix=prefix)) if net.prefixlen > prefix else str(net)


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


# ---------------------------------------------------------------------------
# Decisions


@dataclass(frozen=True, slots=True)
class Refuse:
    """Send ``refused`` with this reason and message, then close. ``note``, if any, is for the
    host's own user (who tried what), never sent."""

    reason: Reason
    message: str
    note: str | None = None
    loud: bool = False
    """The note is one the host's user must not miss (said as a warning)."""


def refuse(reason: Reason, message: str | None = None, note: str | None = None) -> Refuse:
    """A refusal with the reason's usual message unless given one, cut to what the schema takes."""
    text = message or REFUSALS.get(reason, "protocol error")
    if len(text) > MAX_REFUSAL:  # a longer one would be unreadable at the other end
        text = text[: MAX_REFUSAL - 3] + "..."
    return Refuse(reason, text, note)


@dataclass(frozen=True, slots=True)
class Enter:
    """The newcomer takes a place at the door: read its hello."""


@dataclass(frozen=True, slots=True)
class Evict(Generic[C]):
    """The newcomer takes the place of ``connection``, which leaves with ``refusal`` (busy)."""

    connection: C
    refusal: Refuse


@dataclass(frozen=True, slots=True)
class SendChallenge:
    """Answer the hello with a challenge carrying ``nonce`` and the host's SPAKE2 message
    ``pake``; then read the auth."""

    nonce: bytes
    pake: bytes


@dataclass(frozen=True, slots=True)
class Proven:
    """The joiner proved the code: ask for its seat (:meth:`Admission.seat`)."""


@dataclass(frozen=True, slots=True)
class Admit:
    """The table takes the joiner, at provisional seat ``seat`` (the host is seat 0)."""

    seat: int


@dataclass(frozen=True, slots=True)
class Seated:
    """Send ``welcome`` with ``seat``, ``proof`` and the host's signature of ``to_sign``; then
    tell every seated joiner who is there. ``note`` is for the host's user.

    ``again``: a seat of the roster joining again after the start (its ``start`` was lost
    with its connection): send it ``start`` as it was sent, and the connection is that
    seat's new link with the host for the match."""

    seat: int
    proof: bytes
    to_sign: bytes
    note: str
    again: bool = False


@dataclass(frozen=True, slots=True)
class Left:
    """A seated joiner left before the start: its seat is free; tell the others."""

    name: str
    note: str


@dataclass(frozen=True, slots=True)
class Started(Generic[C]):
    """The game starts: send ``start`` with ``roster`` (seat order, host first) to ``connections``
    (seats 1, 2, ...); from now on they carry the match."""

    roster: tuple[Seat, ...]
    connections: tuple[C, ...]


# ---------------------------------------------------------------------------
# The door


@dataclass(frozen=True, slots=True, kw_only=True)
class DoorLimits:
    """What strangers can make the host hold (the reference's numbers by default)."""

    max_pending: int = MAX_CONNECTIONS
    per_address: int = PER_ADDRESS
    evict_after: float = EVICT_AFTER
    wrong_code_wait: float = WRONG_CODE_WAIT
    max_wrong_code_wait: float = MAX_WRONG_CODE_WAIT
    max_wrong_codes: int = MAX_WRONG_CODES
    tracked_addresses: int = TRACKED_ADDRESSES


@dataclass(frozen=True, slots=True)
class _Place:
    source: str
    since: float


@dataclass(frozen=True, slots=True)
class WrongCodes:
    """Wrong codes an address sent so far, and the time before which it may not try again."""

    count: int
    until: float


class Door(Generic[C]):
    """Strangers the host waits on, and the addresses that sent a wrong code.

    A stranger holds a place from :meth:`arrive` until :meth:`leave` (its auth
    came, it hung up, it ran out of time) or until a newcomer takes its place.
    Limits per source address stop one machine from taking every place; a fair
    share of the places by network, and the eviction of the longest waiting,
    stop a flood of silent connections from keeping an honest joiner out; the
    growing wait after a wrong code makes guessing the code online slow.
    """

    def __init__(self, limits: DoorLimits | None = None) -> None:
        self.limits = limits or DoorLimits()
        self._places: dict[C, _Place] = {}  # oldest first
        self._per_source: Counter[str] = Counter()
        self._wrong: dict[str, WrongCodes] = {}
        self.wrong_total = 0
        """Wrong codes checked so far, from every address."""

    @property
    def closed_to_codes(self) -> bool:
        """Whether the wrong codes checked reached ``max_wrong_codes``: no code is checked any more."""
        return self.wrong_total >= self.limits.max_wrong_codes

    @property
    def pending(self) -> int:
        """Strangers waited on now."""
        return len(self._places)

    def waiting_from(self, source: str) -> int:
        """Strangers waited on now from ``source``."""
        return self._per_source[source]

    def holds(self, connection: C) -> bool:
        """Whether ``connection`` waits at the door now."""
        return connection in self._places

    def wrong_codes(self, source: str) -> WrongCodes | None:
        """What ``source``'s wrong codes cost it so far (None if it sent none, or was forgotten)."""
        return self._wrong.get(source)

    def wait_left(self, source: str, now: float) -> float:
        """Seconds before ``source`` may try a code again (0 when it may now)."""
        wrong = self._wrong.get(source)
        return 0.0 if wrong is None else max(0.0, wrong.until - now)

    def arrive(self, connection: C, source: str, now: float) -> Enter | Evict[C] | Refuse:
        """A newcomer from ``source``: let it in, in someone's place, or refuse it as busy.

        Checked in this order: a wait after a wrong code, the per-address limit,
        the overall limit (where the longest-waiting stranger makes room if it
        has waited ``evict_after`` seconds).
        """
        if connection in self._places:
            raise LocalProtocolError("this connection already holds a place at the door")
        wait = self.wait_left(source, now)
        if wait > 0:
            return self._busy_waiting(wait)
        if self._per_source[source] >= self.limits.per_address:
            return refuse(Reason.BUSY, "too many connections from your address at once; try again shortly")
        evicted: Evict[C] | None = None
        if len(self._places) >= self.limits.max_pending:
            victim = self._victim(source, now)
            if victim is None:
                return refuse(Reason.BUSY)
            self.leave(victim)
            evicted = Evict(victim, refuse(Reason.BUSY))
        self._places[connection] = _Place(source, now)
        self._per_source[source] += 1
        return evicted or Enter()

    def _victim(self, source: str, now: float) -> C | None:
        """Whose place a newcomer from ``source`` takes when all are taken, if anyone's.

        First a fair share by network (``network_group``): a network holding at least two places
        more than the newcomer's would hold gives up its longest-waiting one, whatever its age;
        so a flood from fewer networks than there are places, however fast it renews, cannot
        keep a joiner from another network out, nor push out one that got in. Among networks
        that hold as many as the newcomer's (within one), the stranger that has waited longest
        makes room once it has waited ``evict_after`` seconds."""
        if not self._places:
            return None
        held: Counter[str] = Counter(network_group(p.source) for p in self._places.values())
        crowded, most = held.most_common(1)[0]
        if most >= held[network_group(source)] + 2:
            return next(c for c, p in self._places.items() if network_group(p.source) == crowded)
        oldest = next(iter(self._places))
        return oldest if now - self._places[oldest].since >= self.limits.evict_after else None

    def leave(self, connection: C) -> None:
        """``connection`` no longer waits at the door (no-op if it did not)."""
        place = self._places.pop(connection, None)
        if place is None:
            return
        self._per_source[place.source] -= 1
        if not self._per_source[place.source]:
            del self._per_source[place.source]

    def may_guess(self, source: str, now: float, *, proved_before: bool = False) -> Refuse | None:
        """Whether a proof from ``source`` may be checked now: busy while it waits after a wrong
        code; ``code-closed`` once too many wrong codes were checked in all, for everyone but a
        key that proved the code at this table before (``proved_before``: a seated joiner whose
        connection broke, joining again; only that key's holder can sign its auth)."""
        if self.closed_to_codes and not proved_before:
            return refuse(Reason.CODE_CLOSED)
        wait = self.wait_left(source, now)
        return self._busy_waiting(wait) if wait > 0 else None

    def wrong_code(self, source: str, now: float) -> Refuse:
        """``source`` sent a wrong code: refuse it, and make its next try wait longer than the last."""
        before = self._wrong.pop(source, None)
        if before is None and len(self._wrong) >= self.limits.tracked_addresses > 0:
            del self._wrong[min(self._wrong, key=lambda a: self._wrong[a].until)]
        self.wrong_total += 1
        count = 1 if before is None else before.count + 1
        wait = min(self.limits.max_wrong_code_wait, self.limits.wrong_code_wait * count)
        if self.limits.tracked_addresses > 0:
            self._wrong[source] = WrongCodes(count=count, until=now + wait)
        return refuse(Reason.WRONG_CODE)

    @staticmethod
    def _busy_waiting(wait: float) -> Refuse:
        message = f"too many wrong codes from your address; try again in {math.ceil(wait)} s"
        return refuse(Reason.BUSY, message)


# ---------------------------------------------------------------------------
# The seats


class Seating(Generic[C]):
    """The table while it fills: the host at seat 0, then the joiners in the order they were seated.

    Names are distinct ignoring case (Unicode case folding) and not blank; keys
    are distinct, the host's included; never more seats than ``players``; once
    started, the roster is fixed and nobody else sits down.
    """

    def __init__(self, host: Seat, players: int) -> None:
        self.host = host
        self.players = players
        self.started = False
        self._seats: dict[C, Seat] = {}  # in the order they sat down

    @property
    def full(self) -> bool:
        """Every seat is taken (the host's counts): the game may start."""
        return 1 + len(self._seats) >= self.players

    def names(self) -> tuple[str, ...]:
        """Who is seated, host first."""
        return (self.host.name, *(s.name for s in self._seats.values()))

    def roster(self) -> tuple[Seat, ...]:
        """The seats in order, host first (as ``start`` will announce them)."""
        return (self.host, *self._seats.values())

    def connections(self) -> tuple[C, ...]:
        """The seated joiners' connections, seat 1 first."""
        return tuple(self._seats)

    def holds(self, connection: C) -> bool:
        """Whether ``connection`` has a seat."""
        return connection in self._seats

    def joiner_seat(self, key: bytes) -> int | None:
        """The seat of the joiner whose key is ``key`` (None for the host's key or a stranger's)."""
        return next((i for i, s in enumerate(self.roster()) if i > 0 and s.key == key), None)

    def check_open(self) -> Refuse | None:
        """Whether anyone may still sit down: not once started, not while full."""
        if self.started:
            return refuse(Reason.STARTED)
        if self.full:
            return refuse(Reason.TABLE_FULL)
        return None

    def sit(self, connection: C, seat: Seat) -> Admit | Refuse:
        """Seat a joiner that proved the code, unless the table is closed, its name or its key taken."""
        if connection in self._seats:
            raise LocalProtocolError("this connection already has a seat")
        closed = self.check_open()
        if closed is not None:
            return closed
        if not seat.name.strip():  # refused as a name taken (protocol.md, section 9), and said as it is
            return refuse(Reason.NAME_TAKEN, str(Notice("refusal_name_blank")))
        if seat.name.casefold() in {n.casefold() for n in self.names()}:
            return refuse(Reason.NAME_TAKEN, str(Notice("refusal_name_taken_by", name=repr(seat.name))))
        if any(s.key == seat.key for s in self.roster()):
            return refuse(Reason.SAME_KEY)
        self._seats[connection] = seat
        return Admit(seat=len(self._seats))

    def leave(self, connection: C) -> Left | None:
        """``connection`` hung up or spoke out of turn: before the start its seat is free again;
        after it (or if it had no seat) nothing changes here."""
        if self.started or connection not in self._seats:
            return None
        seat = self._seats.pop(connection)
        return Left(name=seat.name, note=Notice("notice_left_table", name=seat.name))

    def start(self) -> Started[C] | None:
        """Fix the roster if the table is full (None if it is not, e.g. someone just left)."""
        if self.started:
            raise LocalProtocolError("the game has already started")
        if not self.full:
            return None
        self.started = True
        return Started(roster=self.roster(), connections=self.connections())


# ---------------------------------------------------------------------------
# One connection's way in


class Stage(enum.Enum):
    """Where a connection that is not (yet) seated stands."""

    HELLO = "waiting for its hello"
    AUTH = "challenged, waiting for its auth"
    PROVEN = "proved the code, waiting for a seat"
    EVICTED = "its place at the door went to a newcomer"


@dataclass(slots=True)
class _Visit:
    peer: str
    source: str
    nonce: bytes
    entropy: bytes
    seen: int = 0
    """The source port the connection came from (the roster's ``seen``)."""
    stage: Stage = Stage.HELLO
    hello: Hello | None = None
    """Set when it moves on to ``AUTH``, with the three below."""
    key: bytes = b""
    """The SPAKE2 key (right only if the joiner used the host's code)."""
    binding: bytes = b""
    """What both confirmations vouch for (``pake_binding``)."""


def roster_seat(hello: Hello, peer: str, seen: int = 0) -> Seat:
    """A joiner's roster entry: where the others dial it, and punch a hole to it.

    At the address the host saw it connect from and the port of its ``hello``; a joiner
    that the host sees at its router's outside address is dialled at the port the
    router mapped, and one seen from inside its network (the host's LAN) keeps the
    mapping as a second address for the seats outside. ``seen``: the source port of
    its connection to the host."""
    entry = Seat(name=hello.name, key=hello.key, host=peer, port=hello.port, seen=seen)
    if hello.outside is None or hello.port == 0:
        return entry
    host, port = hello.outside
    if _same_address(host, peer):
        return replace(entry, port=port)
    return replace(entry, also=(hello.outside,))


def _same_address(a: str, b: str) -> bool:
    try:
        return ipaddress.ip_address(a) == ipaddress.ip_address(b)
    except ValueError:
        return a == b


class Admission(Generic[C]):
    """The host's admission of joiners: a :class:`Door` and a :class:`Seating`, and each
    connection's stage between them.

    Feed it what happens: :meth:`connected`, then the messages the connection sends
    (:meth:`hello`, :meth:`auth`), :meth:`seat` once the code is proven,
    :meth:`unreadable` for a frame that is not a lobby frame of this version,
    :meth:`gone` when the connection ends (or a seated joiner speaks before the
    start), and :meth:`start`. Calling a method out of its stage is this node's
    bug (:class:`LocalProtocolError`); anything a peer does is answered with a
    decision.
    """

    def __init__(
        self,
        *,
        game_id: bytes,
        host: Seat,
        players: int,
        code: str,
        limits: DoorLimits | None = None,
    ) -> None:
        self.game_id = game_id
        self.code = normalize_code(code)
        self.door: Door[C] = Door(limits)
        self.seating: Seating[C] = Seating(host, players)
        self._visits: dict[C, _Visit] = {}
        self._proved: set[bytes] = set()
        """Keys that proved the code here (their auth signed by that key): once no more codes
        are checked, a seated joiner whose connection broke still joins again."""

    @property
    def host_key(self) -> bytes:
        return self.seating.host.key

    @property
    def pending(self) -> int:
        """Strangers the host waits on now (for their hello or their auth)."""
        return self.door.pending

    @property
    def full(self) -> bool:
        return self.seating.full

    @property
    def started(self) -> bool:
        return self.seating.started

    def names(self) -> tuple[str, ...]:
        """Who is seated, host first (what ``lobby`` updates announce)."""
        return self.seating.names()

    def seated(self) -> tuple[C, ...]:
        """The seated joiners' connections, seat 1 first (who ``lobby`` updates go to)."""
        return self.seating.connections()

    def stage(self, connection: C) -> Stage | None:
        """Where ``connection`` stands (None once seated, refused or gone)."""
        visit = self._visits.get(connection)
        return None if visit is None else visit.stage

    def connected(
        self, connection: C, peer: str, now: float, nonce: bytes, entropy: bytes, *, seen: int = 0
    ) -> Enter | Evict[C] | Refuse:
        """A new connection from address ``peer`` (port ``seen``, 0 if unknown); ``nonce``
        (32 bytes) and ``entropy`` (64, for the host's SPAKE2 scalar) are fresh random
        bytes for it alone."""
        if connection in self._visits or self.seating.holds(connection):
            raise LocalProtocolError("this connection is already known")
        source = address_group(peer)
        decision = self.door.arrive(connection, source, now)
        if isinstance(decision, Evict):
            self._visits[decision.connection].stage = Stage.EVICTED
        if not isinstance(decision, Refuse):
            self._visits[connection] = _Visit(
                peer=peer, source=source, nonce=nonce, entropy=entropy, seen=seen
            )
        return decision

    def hello_of(self, connection: C) -> Hello | None:
        """The hello of a connection challenged and not yet answered (None for any other)."""
        visit = self._visits.get(connection)
        return None if visit is None or visit.stage is not Stage.AUTH else visit.hello

    def hello(self, connection: C, message: Body, channel: bytes) -> SendChallenge | Refuse:
        """The connection's first message: a hello is challenged unless the table is closed.

        ``channel`` is the connection's TLS channel binding (``tls-unique``). Only the
        hello's SPAKE2 message is checked yet (it must be a usable group element): a
        stranger who cannot prove the code learns nothing about who is seated.
        """
        visit = self._expect(connection, Stage.HELLO)
        if visit.stage is Stage.EVICTED:
            return self._drop(connection, refuse(Reason.BUSY))
        if not isinstance(message, Hello):
            out_of_turn = wire_words.EXPECTED_TYPE.format(expected="hello", type=message.TYPE)
            return self._drop(connection, self._protocol(visit, WireSaid(out_of_turn)))
        if not MIN_CHANNEL <= len(channel) <= MAX_CHANNEL:
            raise LocalProtocolError("the TLS channel binding has an unexpected length")
        # A started table challenges every hello: a seat of its roster whose ``start`` was lost
        # may join again (``seat``), and a stranger without the code learns nothing, not even that.
        closed = None if self.seating.started else self.seating.check_open()
        if closed is not None:
            return self._drop(connection, closed)
        pake = Pake.start(Side.HOST, self.code, visit.entropy)
        try:
            visit.key = pake.finish(message.pake)
        except BadPakeMessage as e:
            return self._drop(connection, self._protocol(visit, WireSaid(e)))
        visit.binding = pake_binding(
            self.game_id,
            message.key,
            self.host_key,
            message.nonce,
            visit.nonce,
            message.pake,
            pake.message,
            channel,
        )
        visit.hello = message
        visit.stage = Stage.AUTH
        return SendChallenge(visit.nonce, pake.message)

    def auth(self, connection: C, message: Body, now: float) -> Proven | Refuse:
        """The answer to the challenge: its arrival ends the stranger's wait at the door.

        Checked in this order: the key is usable, the signature, the address is
        not waiting after a wrong code, the proof: the joiner's SPAKE2 key
        confirmation (a wrong one makes the address wait).
        """
        visit = self._expect(connection, Stage.AUTH)
        self.door.leave(connection)
        if visit.stage is Stage.EVICTED:
            return self._drop(connection, refuse(Reason.BUSY))
        if not isinstance(message, Auth):
            out_of_turn = wire_words.EXPECTED_TYPE.format(expected="auth", type=message.TYPE)
            return self._drop(connection, self._protocol(visit, WireSaid(out_of_turn)))
        hello = visit.hello
        if hello is None:  # the AUTH stage is only reached with a hello
            raise LocalProtocolError("an auth without a hello")
        if not is_valid_public_key(hello.key):
            return self._drop(connection, refuse(Reason.BAD_KEY))
        signed = link_message(self.game_id, visit.nonce, hello.key, self.host_key)
        if not verify_signature(hello.key, message.sig, signed):
            return self._drop(connection, refuse(Reason.BAD_SIGNATURE))
        waiting = self.door.may_guess(visit.source, now, proved_before=hello.key in self._proved)
        if waiting is not None:  # another connection from this address sent a wrong code meanwhile
            return self._drop(connection, waiting)
        expected = confirmation(visit.key, Role.JOINER, visit.binding)
        if not proofs_equal(message.proof, expected):
            wrong = self.door.wrong_code(visit.source, now)  # answered at once; the address's next try waits
            if self.door.closed_to_codes:  # the last one checked: the host's user is told why no more are
                closed = Notice("notice_code_closed", count=self.door.wrong_total)
                return self._drop(connection, replace(wrong, note=closed, loud=True))
            note = Notice("notice_wrong_code", name=repr(hello.name), peer=visit.peer)
            return self._drop(connection, replace(wrong, note=note))
        visit.stage = Stage.PROVEN
        self._proved.add(hello.key)
        return Proven()

    def seat(self, connection: C, gone: Collection[int] = ()) -> Seated | Refuse:
        """Seat a joiner that proved the code (checked: started, full, name, key, in this order).

        Once started, only a joiner of the roster is seated, again, at its seat (its
        ``start`` was lost with its connection); anyone else is refused ``started``, and a
        joiner whose seat is in ``gone`` (the match went on without it: it left, or was
        judged gone) is refused ``left``: it cannot come back."""
        visit = self._expect(connection, Stage.PROVEN)
        hello = visit.hello
        del self._visits[connection]
        if hello is None:  # the PROVEN stage is only reached with a hello
            raise LocalProtocolError("a seat without a hello")
        again = self.seating.joiner_seat(hello.key) if self.seating.started else None
        if again is not None and again in gone:
            note = Notice("notice_left_came_back", name=self._shown_name(again), peer=visit.peer)
            return replace(refuse(Reason.LEFT), note=note)
        if again is None:
            decision = self.seating.sit(connection, roster_seat(hello, visit.peer, visit.seen))
            if isinstance(decision, Refuse):
                return decision
            seat = decision.seat
        else:
            seat = again
        return Seated(
            seat=seat,
            proof=confirmation(visit.key, Role.HOST, visit.binding),
            to_sign=link_message(self.game_id, hello.nonce, self.host_key, hello.key),
            note=Notice(
                "notice_joined" if again is None else "notice_joined_again",
                name=self._shown_name(seat),
                peer=visit.peer,
            ),
            again=again is not None,
        )

    def _shown_name(self, seat: int) -> str:
        """A seated player's name as the host's lobby lines show it: one that looks like
        another seated name carries the start of its key's fingerprint (``carol#1a2b``)."""
        roster = self.seating.roster()
        return names_by_key([s.name for s in roster], [s.key for s in roster])[seat]

    def unreadable(self, connection: C, error: WireError) -> Refuse:
        """The connection sent something that is not a lobby frame (or not of this version)."""
        visit = self._visits.get(connection)
        self._forget(connection)
        if isinstance(error, VersionMismatch):
            ours, theirs = LOBBY_VERSION, show(error.version)
            message = f"protocol version mismatch: this host speaks {ours}, you sent {theirs}"
            return refuse(Reason.VERSION, message)
        return self._protocol(visit, WireSaid(error))

    def gone(self, connection: C) -> Left | None:
        """The connection ended (hang-up, timeout, refusal) or a seated joiner spoke before the
        start: forget it, and free its seat if the game has not started."""
        self._forget(connection)
        return self.seating.leave(connection)

    def start(self) -> Started[C] | None:
        """Start the game if the table is full (None if not); nobody is admitted afterwards."""
        return self.seating.start()

    def _expect(self, connection: C, stage: Stage) -> _Visit:
        visit = self._visits.get(connection)
        if visit is None or visit.stage not in (stage, Stage.EVICTED):
            now = "not at the door" if visit is None else visit.stage.value
            raise LocalProtocolError(f"expected a connection {stage.value}, not one {now}")
        return visit

    def _forget(self, connection: C) -> None:
        self.door.leave(connection)
        self._visits.pop(connection, None)

    def _drop(self, connection: C, refusal: Refuse) -> Refuse:
        self._forget(connection)
        return refusal

    @staticmethod
    def _protocol(visit: _Visit | None, problem: str) -> Refuse:
        peer = "?" if visit is None else visit.peer
        note = Notice("notice_refused_connection", peer=peer, error=problem)
        return refuse(Reason.PROTOCOL, PROTOCOL_ERROR + problem, note)
