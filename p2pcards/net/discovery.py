"""Finding a host on the local network by the public number of its invitation code.

``p2pcards join 43-robin-maple`` broadcasts a *query* naming only ``43`` (the
code's number, public like a wormhole nameplate) and a random nonce to UDP port
:data:`DISCOVERY_PORT`; a host whose lobby is open with a code numbered 43
answers with its TCP port, and the joiner dials the address the answer came
from. Then the admission proves the code as with a typed address
(``p2pcards.net.session``).

The words of the code are the secret that admits a player, so nothing derived
from them travels here: no word, no hash, no MAC. A hash of a code this short
could be reversed offline by anyone on the network; the number and a nonce tell
a listener nothing it could test a guess against.

Anyone on the network can send datagrams, so the host's side is bounded: a
datagram that is not exactly a well-formed query is dropped, an answer is never
larger than the query it answers, answers are rate-limited per source address
and in all, and queries from global (internet) addresses or privileged ports go
unanswered. If several hosts answer for one number, the joiner tries each in
turn and joins the first that proves the code: the code is proven with SPAKE2,
so an impostor among them gets one guess and nothing to attack offline.

The message format and the rate limit are sans-IO (:func:`encode`,
:func:`decode`, :class:`Responder`, :class:`Search`, :class:`RateLimit`); the
trio functions below carry them out on sockets.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import re
import socket
import struct
import sys
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

import trio

from p2pcards.errors import PeerUnreachable, UsageError
from p2pcards.net.portmap import PortMapping
from p2pcards.net.session import LobbyUI, Timeouts
from p2pcards.protocol.lobby import normalize_code
from p2pcards.protocol.notice import Notice
from p2pcards.say import system_said

DISCOVERY_PORT = 7777
"""The UDP port hosts hear queries on (beside ``host``'s default TCP port 7777, whatever ``--port``)."""

MAGIC = b"p2pcards"
VERSION = 1
QUERY = 0x51  # "Q"
ANSWER = 0x41  # "A"
NONCE_SIZE = 16
DATAGRAM_SIZE = 32
"""Both messages are exactly this long: an answer is never larger than the query it answers."""

RECEIVE_SIZE = 512
"""Bytes read per datagram: larger than any valid one, so a longer datagram (cut) is not exactly
:data:`DATAGRAM_SIZE` long and is dropped."""

MAX_NUMBER = 99
"""Code numbers are 1..99 (``p2pcards.net.words`` makes 2..99)."""

_HEADER = struct.Struct("!8sBBBB")  # magic, version, kind, number, reserved (0)
_QUERY = struct.Struct(f"!8sBBBB{NONCE_SIZE}s4x")
_ANSWER = struct.Struct(f"!8sBBBB{NONCE_SIZE}sH2x")
assert _QUERY.size == _ANSWER.size == DATAGRAM_SIZE

CODE_FORM = re.compile(r"([1-9][0-9]?)-[a-z]+-[a-z]+")
"""An invitation code as ``p2pcards host`` makes it (after ``normalize_code``): number-word-word."""

SEND_AT = (0.0, 0.3, 0.8, 1.5, 2.2)
"""Seconds after the start of a search at which the query is sent (again: broadcasts get lost)."""

WAIT = 3.0
"""Seconds a joiner waits for an answer in all."""

SETTLE = 0.5
"""Seconds a joiner still listens after the first answer, to hear any other host with that number."""

MAX_HOSTS = 16
"""Distinct answers a joiner keeps (a flood of forged answers costs it no more memory)."""


# ---------------------------------------------------------------------------
# Codes


def code_number(code: str) -> int | None:
    """The public number of ``code`` if it has the usual form (``43-robin-maple`` -> 43), else None.

    The same test tells a code from an address on the command line: ``43-robin-maple``
    is a code, ``host``, ``192.168.1.5`` or ``my-pc:7777`` an address.
    """
    match = CODE_FORM.fullmatch(normalize_code(code))
    return int(match.group(1)) if match else None


def shown(number: int) -> str:
    """The code as it may be shown: its number only, the words (the secret) elided."""
    return f"{number}-..."


# ---------------------------------------------------------------------------
# Messages (sans-IO)


@dataclass(frozen=True, slots=True)
class Query:
    """A joiner asks: is a host with a code numbered ``number`` in its lobby here?"""

    number: int
    nonce: bytes


@dataclass(frozen=True, slots=True)
class Answer:
    """A host answers a query (echoing its nonce): my lobby listens on TCP ``port``."""

    number: int
    nonce: bytes
    port: int


def encode(message: Query | Answer) -> bytes:
    """The datagram of ``message`` (protocol.md, LAN discovery)."""
    if not 1 <= message.number <= MAX_NUMBER or len(message.nonce) != NONCE_SIZE:
        raise ValueError("a code number is 1..99 and a nonce 16 bytes")
    if isinstance(message, Query):
        return _QUERY.pack(MAGIC, VERSION, QUERY, message.number, 0, message.nonce)
    if not 1 <= message.port <= 65535:
        raise ValueError("a port is 1..65535")
    return _ANSWER.pack(MAGIC, VERSION, ANSWER, message.number, 0, message.nonce, message.port)


def decode(data: bytes) -> Query | Answer | None:
    """The message in ``data``, or None for anything else (never raises: anyone can send it)."""
    if len(data) != DATAGRAM_SIZE:
        return None
    magic, version, kind, number, reserved = _HEADER.unpack_from(data)
    if magic != MAGIC or version != VERSION or reserved != 0 or not 1 <= number <= MAX_NUMBER:
        return None
    if kind == QUERY:
        nonce = data[_HEADER.size : _HEADER.size + NONCE_SIZE]
        if any(data[_HEADER.size + NONCE_SIZE :]):  # padding: zeros
            return None
        return Query(number, nonce)
    if kind == ANSWER:
        *_, nonce, port = _ANSWER.unpack(data)
        if port == 0 or any(data[-2:]):
            return None
        return Answer(number, nonce, port)
    return None


def _local_network(address: str) -> bool:
    """A source discovery talks to: not a global (internet) address. Discovery is for the LAN."""
    try:
        return not ipaddress.ip_address(address.split("%", 1)[0]).is_global
    except ValueError:
        return False


# ---------------------------------------------------------------------------
# The host's side (sans-IO)


@dataclass(slots=True)
class _Bucket:
    tokens: float
    at: float


@dataclass(slots=True)
class RateLimit:
    """Token buckets, one per source address and one in all, so that neither one sender nor a
    flood of forged sources makes the host send more than ``total_rate`` answers a second."""

    per_source_burst: float = 8.0
    per_source_rate: float = 4.0
    total_burst: float = 64.0
    total_rate: float = 32.0
    max_sources: int = 1024
    """Sources remembered; past that the oldest is forgotten (it starts again with a full bucket)."""
    _sources: dict[str, _Bucket] = field(default_factory=dict, init=False, repr=False)
    _total: _Bucket | None = field(default=None, init=False, repr=False)

    def allow(self, source: str, now: float) -> bool:
        """Take one answer from ``source``'s bucket and the total one; False if either is empty."""
        total = self._total or _Bucket(self.total_burst, now)
        self._total = total
        _refill(total, now, self.total_rate, self.total_burst)
        mine = self._sources.get(source)
        if mine is None:
            if len(self._sources) >= self.max_sources:
                del self._sources[next(iter(self._sources))]
            mine = self._sources[source] = _Bucket(self.per_source_burst, now)
        _refill(mine, now, self.per_source_rate, self.per_source_burst)
        if mine.tokens < 1 or total.tokens < 1:
            return False
        mine.tokens -= 1
        total.tokens -= 1
        return True


def _refill(bucket: _Bucket, now: float, rate: float, burst: float) -> None:
    bucket.tokens = min(burst, bucket.tokens + max(0.0, now - bucket.at) * rate)
    bucket.at = max(bucket.at, now)


@dataclass(slots=True)
class Responder:
    """What a host answers: queries for its number, while its lobby is open, within the rate limit."""

    number: int
    port: int
    """The TCP port of the host's lobby."""
    is_open: Callable[[], bool] = lambda: True
    limit: RateLimit = field(default_factory=RateLimit)
    answered: int = 0
    limited: int = 0

    def respond(self, data: bytes, source: tuple[Any, ...], now: float) -> bytes | None:
        """The answer to the datagram ``data`` from ``source`` (address, port), or None."""
        query = decode(data)
        if not isinstance(query, Query) or query.number != self.number or not self.is_open():
            return None
        address, port = str(source[0]), int(source[1])
        if port < 1024 or not _local_network(address):  # no reflection at services, no internet
            return None
        if not self.limit.allow(address, now):
            self.limited += 1
            return None
        self.answered += 1
        return encode(Answer(self.number, query.nonce, self.port))


# ---------------------------------------------------------------------------
# The joiner's side (sans-IO)


@dataclass(slots=True)
class Search:
    """One search for the hosts of a number: the query to send, and the answers that match it."""

    number: int
    nonce: bytes = field(default_factory=lambda: os.urandom(NONCE_SIZE))
    found: list[tuple[str, int]] = field(default_factory=list)
    """(address, TCP port) of each distinct answer, in the order they came."""

    def query(self) -> bytes:
        return encode(Query(self.number, self.nonce))

    def receive(self, data: bytes, source: tuple[Any, ...]) -> bool:
        """Note an answer to this search; True if it named a host not heard before."""
        answer = decode(data)
        if not isinstance(answer, Answer) or answer.number != self.number or answer.nonce != self.nonce:
            return False
        address = str(source[0])
        if not _local_network(address) or len(self.found) >= MAX_HOSTS:
            return False
        host = (address, answer.port)
        if host in self.found:
            return False
        self.found.append(host)
        return True

    def hosts(self, this_machine: Callable[[str], bool] = lambda a: False) -> list[tuple[str, int]]:
        """The distinct hosts that answered: answers from this machine's own addresses with one
        port are one host (a query to 127.0.0.1 and a broadcast both reach it)."""
        out: list[tuple[str, int]] = []
        local_ports: set[int] = set()
        for address, port in self.found:
            if this_machine(address):
                if port in local_ports:
                    continue
                local_ports.add(port)
            out.append((address, port))
        return out


# ---------------------------------------------------------------------------
# Errors


class NoHostAnswered(PeerUnreachable):
    """No host in its lobby answered for the code's number on this network."""


class NobodyHasIt(NoHostAnswered):
    """The search went out and no host answered: none has a code of that number here now
    (rather than a search that could not be sent at all)."""

    def __init__(self, message: object, *, number: int) -> None:
        super().__init__(message)
        self.number = number


# ---------------------------------------------------------------------------
# On the network (trio)


def _wildcard(bind: str) -> bool:
    return bind in ("", "0.0.0.0", "::")


def reply_address(bind: str) -> str | None:
    """Where the host's answers come from for a TCP listener on ``bind``: None for every address
    (the system picks, toward the joiner), else that IPv4 address (so that the joiner dials the one
    address the host listens on). UsageError for an address discovery cannot serve (IPv6, a name)."""
    if _wildcard(bind):
        return None
    try:
        return str(ipaddress.IPv4Address(bind))
    except ValueError:
        raise UsageError(Notice("notice_discovery_ipv4", bind=bind)) from None


@dataclass(slots=True)
class ResponderSockets:
    """The host's discovery sockets: one hears queries, one sends answers (often the same)."""

    hear: Any
    reply: Any

    def close(self) -> None:
        self.hear.close()
        if self.reply is not self.hear:
            self.reply.close()


async def open_responder(bind: str = "0.0.0.0", port: int = DISCOVERY_PORT) -> ResponderSockets:
    """Bind the host's discovery sockets (OSError if the port cannot be had; the host goes on).

    Queries are heard on every IPv4 address: a socket bound to one address hears no broadcast.
    Several hosts on one machine share the port (SO_REUSEADDR): each hears every broadcast."""
    source = reply_address(bind)
    hear = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    reply = hear
    try:
        hear.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        await hear.bind(("0.0.0.0", port))
        if source is not None:
            reply = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            await reply.bind((source, 0))
    except BaseException:
        hear.close()
        if reply is not hear:
            reply.close()
        raise
    return ResponderSockets(hear, reply)


async def serve(responder: Responder, sockets: ResponderSockets) -> None:
    """Answer queries until cancelled; nothing a sender does ends it."""
    while True:
        try:
            data, source = await sockets.hear.recvfrom(RECEIVE_SIZE)
        except OSError:  # an ICMP error reported on the socket, say: not a reason to stop
            await trio.sleep(0.05)
            continue
        answer = responder.respond(data, source, trio.current_time())
        if answer is not None:
            with contextlib.suppress(OSError):  # e.g. a loopback host asked from the network
                await sockets.reply.sendto(answer, source[:2])


@dataclass(frozen=True, slots=True)
class Interface:
    """An IPv4 network interface that is up: its address, and its broadcast address if it has one."""

    address: str
    broadcast: str | None


def interfaces() -> list[Interface]:
    """This machine's IPv4 interfaces that are up, loopback aside (Linux: every one; elsewhere the
    addresses the host name resolves to, without their broadcast addresses)."""
    if not sys.platform.startswith("linux"):
        found: list[Interface] = []
        with contextlib.suppress(OSError):
            for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
                address = str(info[4][0])
                if not address.startswith("127.") and all(f.address != address for f in found):
                    found.append(Interface(address, None))
        return found
    import fcntl

    siocgifflags, siocgifaddr, siocgifbrdaddr = 0x8913, 0x8915, 0x8919
    iff_up, iff_broadcast, iff_loopback = 0x1, 0x2, 0x8
    out: list[Interface] = []
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        for _, name in socket.if_nameindex():
            request = struct.pack("256s", name.encode()[:15])
            try:
                flags = struct.unpack_from("H", fcntl.ioctl(probe.fileno(), siocgifflags, request), 16)[0]
                if flags & (iff_up | iff_loopback) != iff_up:
                    continue
                address = socket.inet_ntoa(fcntl.ioctl(probe.fileno(), siocgifaddr, request)[20:24])
            except OSError:  # no IPv4 address on it
                continue
            broadcast: str | None = None
            if flags & iff_broadcast:
                with contextlib.suppress(OSError):
                    broadcast = socket.inet_ntoa(fcntl.ioctl(probe.fileno(), siocgifbrdaddr, request)[20:24])
            out.append(Interface(address, None if broadcast == "0.0.0.0" else broadcast))
    return out


LIMITED_BROADCAST = "255.255.255.255"


def plan(bind: str = "0.0.0.0", targets: Iterable[str] | None = None) -> list[tuple[str, list[str]]]:
    """The sockets of a search, as (address to bind, where its query goes).

    By default: one socket on every address sends to each interface's broadcast
    address, to 255.255.255.255 (which goes out of the default route's interface
    only: a VPN's, on some machines; or nowhere, with no default route) and to
    127.0.0.1 (a host on this machine); and one socket on each interface's own
    address sends to 255.255.255.255, which then leaves by that interface, even
    one with no broadcast address configured. ``targets`` replaces all that with
    one socket sending there (tests); a ``bind`` IPv4 address, with one socket there.
    """
    where = list(targets) if targets is not None else None
    if not _wildcard(bind):
        with contextlib.suppress(ValueError):
            return [(str(ipaddress.IPv4Address(bind)), where if where is not None else default_targets())]
    if where is not None:
        return [("0.0.0.0", where)]
    return [("0.0.0.0", default_targets())] + [(i.address, [LIMITED_BROADCAST]) for i in interfaces()]


def default_targets() -> list[str]:
    """Where the query of a search's socket on every address goes (see :func:`plan`)."""
    broadcasts = [i.broadcast for i in interfaces() if i.broadcast is not None]
    return list(dict.fromkeys([*broadcasts, LIMITED_BROADCAST, "127.0.0.1"]))


def this_machine(address: str) -> bool:
    """Whether ``address`` is one of this machine's own (a socket can be bound to it)."""
    try:
        if ipaddress.ip_address(address).is_loopback:
            return True
    except ValueError:
        return False
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind((address, 0))
        return True
    return False


async def search(
    number: int,
    *,
    port: int = DISCOVERY_PORT,
    targets: Iterable[str] | None = None,
    bind: str = "0.0.0.0",
    wait: float = WAIT,
    settle: float = SETTLE,
    send_at: Sequence[float] = SEND_AT,
) -> list[tuple[str, int]]:
    """The hosts (address, TCP port) that answer a query for ``number`` within ``wait`` seconds.

    Listens ``settle`` seconds after the first answer, to hear any other host
    with that number. ``targets`` and ``bind``: see :func:`plan`.
    """
    found = Search(number)
    query = found.query()
    sockets: list[tuple[Any, list[str]]] = []
    try:
        for address, where in plan(bind, targets):
            sock = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            sockets.append((sock, where))
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
            try:
                await sock.bind((address, 0))
            except OSError:  # an address gone meanwhile: this socket sends nothing
                sockets[-1] = (sock, [])
        sends, failures = 0, []
        start = trio.current_time()
        async with trio.open_nursery() as nursery:

            async def send() -> None:
                nonlocal sends
                for at in send_at:
                    await trio.sleep_until(start + at)
                    for sock, where in sockets:
                        for target in where:
                            sends += 1
                            try:
                                await sock.sendto(query, (target, port))
                            except OSError as e:  # one refused broadcast: the others may go
                                failures.append(e)

            async def receive(sock: Any) -> None:
                while True:
                    try:
                        data, source = await sock.recvfrom(RECEIVE_SIZE)
                    except OSError:
                        await trio.sleep(0.05)
                        continue
                    if found.receive(data, source) and len(found.found) == 1:
                        listening.deadline = min(listening.deadline, trio.current_time() + settle)

            with trio.move_on_at(start + wait) as listening:
                nursery.start_soon(send)
                for sock, _ in sockets:
                    nursery.start_soon(receive, sock)
                await trio.sleep_forever()
            nursery.cancel_scope.cancel()
    finally:
        for sock, _ in sockets:
            sock.close()
    hosts = found.hosts(this_machine)
    if not hosts and failures and len(failures) == sends:
        error = system_said(failures[0])
        raise NoHostAnswered(Notice("notice_no_search", code=shown(number), error=error))
    return hosts


async def locate(
    code: str,
    *,
    port: int = DISCOVERY_PORT,
    targets: Iterable[str] | None = None,
    bind: str = "0.0.0.0",
    wait: float = WAIT,
    settle: float = SETTLE,
) -> list[tuple[str, int]]:
    """The hosts on this network whose lobbies answer for ``code``'s number, in the order
    they answered (NoHostAnswered if none does).

    Anyone may answer, so there may be impostors among them: the joiner tries each in
    turn. The code is proven with SPAKE2, so an impostor gets one guess of the words
    and nothing to test offline.
    """
    number = code_number(code)
    if number is None:
        raise UsageError(
            "this invitation code has no number in front (like 43-robin-maple) to look for on "
            "the network: give the host's address, p2pcards join ADDRESS"
        )
    hosts = await search(number, port=port, targets=targets, bind=bind, wait=wait, settle=settle)
    if not hosts:
        raise NobodyHasIt(Notice("notice_no_host", code=shown(number), seconds=f"{wait:g}"), number=number)
    return hosts


class LobbyWatch(LobbyUI):
    """The host's lobby UI, passed through, that notes whether the lobby is still open to joiners
    (not full, not started): discovery answers only then."""

    def __init__(self, inner: LobbyUI) -> None:
        self.inner = inner
        self.full = False
        self.closed = False

    @property
    def open(self) -> bool:
        return not (self.full or self.closed)

    def invitation(self, code: str, port: int, mapped: PortMapping | None = None) -> None:
        self.inner.invitation(code, port, mapped)

    def lobby(self, names: Sequence[str], players: int) -> None:
        self.full = len(names) >= players
        self.inner.lobby(names, players)

    def info(self, text: str) -> None:
        self.inner.info(text)

    def peer_link(self, key: bytes, what: str, seconds: float) -> None:
        self.inner.peer_link(key, what, seconds)

    def table_clock(self, timeouts: Timeouts) -> None:
        self.closed = True  # the table has started: the lobby is over
        self.inner.table_clock(timeouts)

    def __getattr__(self, name: str) -> Any:  # the rest of the UI (the table's screen...) as is
        if name == "inner":
            raise AttributeError(name)
        return getattr(self.inner, name)


T = TypeVar("T")


async def hosting(
    play: Callable[..., Awaitable[T]], cfg: Any, *, number: int, sockets: ResponderSockets
) -> T:
    """``play(cfg, task_status=...)`` (``host_game`` with the table's details), answering queries
    for ``number`` on ``sockets`` from the moment it listens until its lobby closes. The sockets
    are closed at the end."""
    watch = LobbyWatch(cfg.ui)
    cfg = replace(cfg, ui=watch)
    outcome: list[T] = []
    try:
        async with trio.open_nursery() as nursery:

            async def table(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
                outcome.append(await play(cfg, task_status=task_status))
                nursery.cancel_scope.cancel()

            port = await nursery.start(table)
            responder = Responder(number, port, is_open=lambda: watch.open)
            nursery.start_soon(serve, responder, sockets)
    finally:
        sockets.close()
    return outcome[0]
