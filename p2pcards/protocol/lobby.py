"""Before the match: joining a table with an invitation code, and authenticating links.

Joining (joiner J dials the host H), inside TLS 1.3:

1. J -> H ``hello``: name, J's public key, a fresh nonce ``nj``, J's listening port,
   J's SPAKE2 message ``pake`` (side A, blinded with the invitation code), and
   (optional) ``bot``: whether a bot plays J's seat.
2. H -> J ``challenge``: game id, H's public key, a fresh nonce ``nh``, rules, table
   size, H's SPAKE2 message (side B). Both ends now hold the SPAKE2 key, which agrees
   only if both used the same code; neither message lets anyone test a guess offline.
3. J -> H ``auth``: ``proof = confirmation(key, "joiner", binding)`` and J's signature
   over ``link_message(game, nh, J.key, H.key)``. ``binding`` (:func:`pake_binding`)
   names the game, both keys, both nonces, both SPAKE2 messages and the TLS session
   (its ``tls-unique``), so a relay that splices two honest handshakes makes every
   proof fail. A wrong proof costs J's address a growing wait: one guess per connection.
4. H -> J ``welcome`` (J's seat, H's own confirmation and signature, so J knows it
   reached a host that holds the code) or ``refused`` (a reason code and a sentence).
   The joiner proves first, so a host that never sees a proof learns nothing either.
5. While the table fills, H sends ``lobby`` updates; when it is full, ``start`` with
   the roster (names, keys, addresses) to every joiner, and the table's final clock
   if it differs from the challenge's: when at most one seat is a person's, the
   bots wait for that person (``MAX_CLOCK`` a turn).

Mesh links: every seat then dials every lower seat except the host (already
linked). Both ends send ``link`` (game, seat, key, nonce) and then ``link-auth``,
a signature over ``link_message(game, peer nonce, own key, peer key)``; each end checks the
signature with the roster key of the seat the peer claims. Nobody can take a
seat without its private key.

All of it travels inside TLS 1.3 (``p2pcards.net.tls``): the dialler pins the key
of the side it reached. J requires the host's certificate key to be the key of the
``challenge`` (which the host's confirmation then authenticates) before it sends ``auth``;
a mesh dialler requires the roster key of the seat it dialled before it sends ``link``.

Every message here is a lobby frame of at most ``MAX_LOBBY_FRAME`` bytes: a
connection is read with that bound until the match starts on it (``start`` for
the host's links, the checked ``link-auth`` for mesh links), so a stranger who
has proven nothing cannot make a node buffer more.

This module is sans-IO: nonces come from the caller, nothing here reads a
socket or a clock.
"""

from __future__ import annotations

import enum
import hmac
import ipaddress
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, ClassVar

from p2pcards.crypto.pake import MESSAGE_SIZE as PAKE_SIZE
from p2pcards.protocol import wire_words
from p2pcards.protocol.messages import (
    MAX_CLOCK,
    MAX_NAME,
    MAX_SEATS,
    Body,
    Check,
    SchemaError,
    _array,
    _bin,
    _int,
    _name,
    _rules,
    _text,
    _tuple,
    _uint,
    body_from_wire,
    show,
)
from p2pcards.protocol.notice import NOTICES, refusal_key
from p2pcards.protocol.wire import FRAME_KINDS, WireError, is_version, pack, unpack_untrusted

MAX_LOBBY_FRAME = 16 * 1024
"""Largest lobby frame, in bytes (a six-seat ``start`` at its largest is under 3 KiB)."""

LOBBY_VERSION = 2
"""The ``v`` of every lobby frame: 2 since the code is proven with SPAKE2 (records stay at 1)."""

MIN_CHANNEL = 12
MAX_CHANNEL = 64
"""Bounds on the TLS channel binding (``tls-unique``: 32 or 48 bytes in TLS 1.3)."""

REFUSALS = {
    reason: NOTICES[refusal_key(reason)]
    for reason in (
        "wrong-code",
        "table-full",
        "started",
        "version",
        "name-taken",
        "bad-signature",
        "bad-key",
        "same-key",
        "busy",
        "left",
        "code-closed",
        "slow",
    )
}
"""The English a host sends with each refusal (a joiner says it by the reason, in its own language)."""


def normalize_code(code: str) -> str:
    """Invitation codes compare case-insensitively, with any run of spaces or dashes as one dash."""
    return "-".join(w for w in re.split(r"[\s\-]+", unicodedata.normalize("NFKC", code).lower()) if w)


class Role(enum.Enum):
    """Who confirms the SPAKE2 key: the joiner first (``auth``), then the host (``welcome``)."""

    JOINER = b"p2pcards/v2/confirm-joiner\x00"
    HOST = b"p2pcards/v2/confirm-host\x00"


def pake_binding(
    game_id: bytes,
    joiner_key: bytes,
    host_key: bytes,
    nj: bytes,
    nh: bytes,
    joiner_pake: bytes,
    host_pake: bytes,
    channel: bytes,
) -> bytes:
    """Everything a key confirmation vouches for, as both ends saw it (layout in protocol.md 9).

    Both Ed25519 keys and the TLS session (``channel``, its ``tls-unique``) are named, so a
    confirmation made on one connection, or for another pair of keys, proves nothing on
    another: a relay in the middle holds two TLS sessions and cannot splice them."""
    if not MIN_CHANNEL <= len(channel) <= MAX_CHANNEL:
        raise ValueError("the TLS channel binding has an unexpected length")
    fixed = ((game_id, 16), (joiner_key, 32), (host_key, 32), (nj, 32), (nh, 32))
    if any(len(v) != n for v, n in fixed) or len(joiner_pake) != PAKE_SIZE or len(host_pake) != PAKE_SIZE:
        raise ValueError("a field of the SPAKE2 binding has the wrong length")
    return (
        b"p2pcards/v2/pake\x00"
        + game_id
        + joiner_key
        + host_key
        + nj
        + nh
        + joiner_pake
        + host_pake
        + bytes([len(channel)])
        + channel
    )


def confirmation(key: bytes, role: Role, binding: bytes) -> bytes:
    """``role``'s proof that it holds the SPAKE2 key (so the code) for ``binding``."""
    return hmac.digest(key, role.value + binding, "sha256")


def link_message(game_id: bytes, peer_nonce: bytes, own_key: bytes, peer_key: bytes) -> bytes:
    """What a seat signs to prove it holds ``own_key`` on this link of this game.

    Naming the peer's key too means a signature made for one peer cannot be
    relayed by it to a third seat as a proof of identity."""
    return b"p2pcards/v1/link\x00" + game_id + peer_nonce + own_key + peer_key


def proofs_equal(a: bytes, b: bytes) -> bool:
    return hmac.compare_digest(a, b)


# ---------------------------------------------------------------------------
# Messages


@dataclass(frozen=True, slots=True, kw_only=True)
class Seat:
    """A roster entry as the host announces it: who, with which key, reachable where."""

    name: str
    key: bytes
    host: str
    port: int
    also: tuple[tuple[str, int], ...] = ()
    """More addresses to try when ``host:port`` does not answer: the seat's port
    mapping on its router, as its ``hello`` gave it."""
    seen: int = 0
    """The source port of the joiner's connection to the host, as the host saw it: where
    its router sends what comes back to that connection's local port, which the
    joiner keeps for hole punching (0: unknown, no hole punching with this seat)."""

    def to_wire(self) -> list[Any]:
        head = [self.name, self.key, self.host, self.port]
        more: dict[str, Any] = {}
        if self.also:
            more["also"] = [[h, p] for h, p in self.also]
        if self.seen:
            more["seen"] = self.seen
        return [*head, more] if more else head

    @property
    def addresses(self) -> tuple[tuple[str, int], ...]:
        """Where to dial this seat, in order."""
        return ((self.host, self.port), *(a for a in self.also if a != (self.host, self.port)))


def _bool(v: Any, where: str) -> bool:
    if type(v) is not bool:
        raise SchemaError(wire_words.SCHEMA_BOOL.format(where=where))
    return v


MAX_ALSO = 2
"""At most this many more addresses per roster seat."""


def _ip_literal(v: Any, where: str) -> str:
    """An IP address written out, as dialled: never a name that a lookup could send elsewhere."""
    text = _text(45)(v, where)
    try:
        ipaddress.ip_address(text)
    except ValueError:
        raise SchemaError(wire_words.SCHEMA_IP.format(where=where)) from None
    return text


_address = _tuple(_ip_literal, _int(1, 65535), build=lambda host, port: (host, port))
_seat_head = (_name, _bin(32), _text(255), _uint(65535))
"""A seat of ``start``: its name is checked as the join records check it (not blank either),
so that a joiner never signs a roster its own records' schema refuses (a host could
otherwise get an honest joiner blamed for the name it gave another seat)."""
_seat_more: dict[str, Check] = {"also": _array(_address, MAX_ALSO, 1), "seen": _int(1, 65535)}


def _seat(v: Any, where: str) -> Seat:
    """``[name, key, host, port]``, or with a fifth item: a map of what more is known."""
    if type(v) is not list or len(v) not in (4, 5):
        raise SchemaError(wire_words.SCHEMA_SEAT.format(where=where))
    name, key, host, port = (
        c(x, f"{where}[{i}]") for i, (c, x) in enumerate(zip(_seat_head, v[:4], strict=True))
    )
    checked: dict[str, Any] = {}
    if len(v) == 5:
        more = v[4]
        if type(more) is not dict or not more or not set(more) <= set(_seat_more):
            raise SchemaError(wire_words.SCHEMA_SEAT_MORE.format(where=where))
        checked = {k: _seat_more[k](x, f"{where}[4].{k}") for k, x in more.items()}
    return Seat(
        name=name, key=key, host=host, port=port, also=checked.get("also", ()), seen=checked.get("seen", 0)
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Hello(Body):
    TYPE: ClassVar[str] = "hello"
    SCHEMA: ClassVar[dict[str, Check]] = {
        "name": _text(MAX_NAME),
        "key": _bin(32),
        "nonce": _bin(32),
        "port": _uint(65535),
        "pake": _bin(PAKE_SIZE),
        "bot": _bool,
        "outside": _address,
    }
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"bot", "outside"})
    name: str
    key: bytes
    nonce: bytes
    port: int
    pake: bytes
    """The joiner's SPAKE2 message (side A)."""
    bot: bool | None = None
    """True if a bot plays the joiner's seat (absent: a person). Unverifiable, and only
    decides the table's patience: at a table of one person, the bots wait a day a turn."""
    outside: tuple[str, int] | None = None
    """Where the internet reaches the joiner's ``port``: the address and port its router
    mapped (``net.portmap``), when it has one (absent: none)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Challenge(Body):
    TYPE: ClassVar[str] = "challenge"
    SCHEMA: ClassVar[dict[str, Check]] = {
        "game": _bin(16),
        "key": _bin(32),
        "nonce": _bin(32),
        "play": _text(40),
        "rules": _rules,
        "players": _int(2, MAX_SEATS),  # (a table seats 2 to 6: a joiner proves no code to less)
        "clock": _array(_int(1, MAX_CLOCK), 3, 3),  # (no clock of a table is 0 s)
        "pake": _bin(PAKE_SIZE),
    }
    game: bytes
    key: bytes
    nonce: bytes
    pake: bytes
    """The host's SPAKE2 message (side B)."""
    play: str
    """The game the table plays (``nines``), as its join records will name it."""
    rules: tuple[tuple[str, bool | int | str | None], ...]
    players: int
    clock: tuple[int, ...] = (600, 60, 120)
    """The table's clock, in whole seconds: a turn, any other step, and the grace
    of a seat whose connection broke. Every seat plays by the host's."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Auth(Body):
    TYPE: ClassVar[str] = "auth"
    SCHEMA: ClassVar[dict[str, Check]] = {"proof": _bin(32), "sig": _bin(64)}
    proof: bytes
    sig: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class Welcome(Body):
    TYPE: ClassVar[str] = "welcome"
    SCHEMA: ClassVar[dict[str, Check]] = {"seat": _uint(MAX_SEATS - 1), "proof": _bin(32), "sig": _bin(64)}
    seat: int
    proof: bytes
    sig: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class Refused(Body):
    TYPE: ClassVar[str] = "refused"
    SCHEMA: ClassVar[dict[str, Check]] = {"reason": _text(40), "message": _text(200)}
    reason: str
    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class LobbyUpdate(Body):
    TYPE: ClassVar[str] = "lobby"
    SCHEMA: ClassVar[dict[str, Check]] = {
        "names": _array(_text(MAX_NAME), MAX_SEATS),
        "players": _uint(MAX_SEATS),
    }
    names: tuple[str, ...]
    players: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Start(Body):
    TYPE: ClassVar[str] = "start"
    SCHEMA: ClassVar[dict[str, Check]] = {
        "roster": _array(_seat, MAX_SEATS, 2),
        "clock": _array(_int(1, MAX_CLOCK), 3, 3),  # (no clock of a table is 0 s)
    }
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"clock"})
    roster: tuple[Seat, ...]
    clock: tuple[int, ...] | None = None
    """The table's final clock when it differs from the challenge's (absent: the challenge's):
    a table with at most one person gives each turn ``MAX_CLOCK``."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Link(Body):
    TYPE: ClassVar[str] = "link"
    SCHEMA: ClassVar[dict[str, Check]] = {
        "game": _bin(16),
        "seat": _uint(MAX_SEATS - 1),
        "key": _bin(32),
        "nonce": _bin(32),
    }
    game: bytes
    seat: int
    key: bytes
    nonce: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class LinkAuth(Body):
    TYPE: ClassVar[str] = "link-auth"
    SCHEMA: ClassVar[dict[str, Check]] = {"sig": _bin(64)}
    sig: bytes


LOBBY_TYPES: dict[str, type[Body]] = {
    cls.TYPE: cls for cls in (Hello, Challenge, Auth, Welcome, Refused, LobbyUpdate, Start, Link, LinkAuth)
}


class VersionMismatch(WireError):
    """The peer speaks another protocol version (``version`` is what it sent)."""

    def __init__(self, version: object) -> None:
        self.version = version
        super().__init__(wire_words.VERSION_MISMATCH.format(theirs=show(version), ours=LOBBY_VERSION))


PLAIN_LOBBY_VERSION = 1
"""The version of the lobby spoken in the clear by older nodes: the one frame a host sends in
the clear (its ``version`` refusal) carries it, so that such a node reads the refusal."""


def encode_lobby(body: Body, version: int = LOBBY_VERSION) -> bytes:
    return pack({"v": version, "kind": body.TYPE, "body": body.to_wire()})


def decode_lobby_object(obj: Any) -> Body:
    """Check an already bounded-unpacked lobby frame and build its message."""
    if type(obj) is not dict:
        raise WireError(wire_words.LOBBY_NOT_MAP)
    v = obj.get("v")
    kind = obj.get("kind")
    if is_version(v) and type(kind) is str and kind in FRAME_KINDS and set(obj) != {"v", "kind", "body"}:
        # A frame of a match, not a lobby message of another version: said as what it is.
        raise WireError(wire_words.MATCH_TOO_EARLY.format(frame=kind))
    if type(v) is not int or v != LOBBY_VERSION:
        raise VersionMismatch(obj.get("v"))
    if set(obj) != {"v", "kind", "body"}:
        raise WireError(wire_words.LOBBY_KEYS)
    try:
        return body_from_wire(obj["kind"], obj["body"], LOBBY_TYPES, wire_words.UNKNOWN_LOBBY_TYPE)
    except SchemaError as e:
        raise WireError(str(e)) from None


def decode_lobby(data: bytes) -> Body:
    return decode_lobby_object(unpack_untrusted(data, MAX_LOBBY_FRAME))
