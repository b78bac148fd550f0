"""Before the match: joining a table with an invitation code, and authenticating links.

Joining (joiner J dials the host H):

1. J -> H ``hello``: name, J's public key, a fresh nonce ``nj``, J's listening port,
   and (optional) ``bot``: whether a bot plays J's seat.
2. H -> J ``challenge``: game id, H's public key, a fresh nonce ``nh``, rules, table size.
3. J -> H ``auth``: ``proof = HMAC(code_key, "p2pcards/v1/join" 0 game || J.key || nj || nh)``
   and J's signature over ``link_message(game, nh, J.key, H.key)``. The code itself never
   travels; the proof is bound to J's key and this game, so it cannot be replayed
   for another key or table. ``code_key = scrypt(code, salt=game id)`` makes each
   offline guess cost tens of milliseconds.
4. H -> J ``welcome`` (J's seat, H's own proof and signature, so J knows it reached
   the real host) or ``refused`` (a reason code and a sentence).
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
``challenge`` (which the host's proof then authenticates) before it sends ``auth``;
a mesh dialler requires the roster key of the seat it dialled before it sends ``link``.

Every message here is a lobby frame of at most ``MAX_LOBBY_FRAME`` bytes: a
connection is read with that bound until the match starts on it (``start`` for
the host's links, the checked ``link-auth`` for mesh links), so a stranger who
has proven nothing cannot make a node buffer more.

This module is sans-IO: nonces come from the caller, nothing here reads a
socket or a clock.
"""

from __future__ import annotations

import hmac
import re
import unicodedata
from dataclasses import dataclass
from typing import Any, ClassVar

from cryptography.hazmat.primitives.kdf.scrypt import Scrypt

from p2pcards.protocol.messages import (
    MAX_CLOCK,
    MAX_NAME,
    MAX_SEATS,
    Body,
    Check,
    SchemaError,
    _array,
    _bin,
    _rules,
    _text,
    _tuple,
    _uint,
    body_from_wire,
    show,
)
from p2pcards.protocol.wire import PROTOCOL_VERSION, WireError, is_version, pack, unpack_untrusted

MAX_LOBBY_FRAME = 16 * 1024
"""Largest lobby frame, in bytes (a six-seat ``start`` at its largest is under 3 KiB)."""
SCRYPT_N = 2**14

REFUSALS = {
    "wrong-code": "wrong invitation code",
    "table-full": "the table is full",
    "started": "the game has already started",
    "version": "protocol version mismatch",
    "name-taken": "that name is already taken at this table",
    "bad-signature": "the join signature does not match the key",
    "bad-key": "that public key cannot be used",
    "same-key": "that key already has a seat at this table",
    "busy": "the host has too many connections waiting; try again shortly",
}


def normalize_code(code: str) -> str:
    """Invitation codes compare case-insensitively, with any run of spaces or dashes as one dash."""
    return "-".join(w for w in re.split(r"[\s\-]+", unicodedata.normalize("NFKC", code).lower()) if w)


def code_key(code: str, game_id: bytes) -> bytes:
    """The secret both ends derive from the invitation code (slow on purpose)."""
    return Scrypt(salt=game_id, length=32, n=SCRYPT_N, r=8, p=1).derive(normalize_code(code).encode())


def join_proof(key: bytes, game_id: bytes, joiner_key: bytes, nj: bytes, nh: bytes) -> bytes:
    return hmac.digest(key, b"p2pcards/v1/join\x00" + game_id + joiner_key + nj + nh, "sha256")


def host_proof(key: bytes, game_id: bytes, host_key: bytes, nh: bytes, nj: bytes) -> bytes:
    return hmac.digest(key, b"p2pcards/v1/host\x00" + game_id + host_key + nh + nj, "sha256")


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

    def to_wire(self) -> list[Any]:
        return [self.name, self.key, self.host, self.port]


def _bool(v: Any, where: str) -> bool:
    if type(v) is not bool:
        raise SchemaError(f"{where} must be true or false")
    return v


_seat = _tuple(
    _text(MAX_NAME),
    _bin(32),
    _text(255),
    _uint(65535),
    build=lambda name, key, host, port: Seat(name=name, key=key, host=host, port=port),
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Hello(Body):
    TYPE: ClassVar[str] = "hello"
    SCHEMA: ClassVar[dict[str, Check]] = {
        "name": _text(MAX_NAME),
        "key": _bin(32),
        "nonce": _bin(32),
        "port": _uint(65535),
        "bot": _bool,
    }
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"bot"})
    name: str
    key: bytes
    nonce: bytes
    port: int
    bot: bool | None = None
    """True if a bot plays the joiner's seat (absent: a person). Unverifiable, and only
    decides the table's patience: at a table of one person, the bots wait a day a turn."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Challenge(Body):
    TYPE: ClassVar[str] = "challenge"
    SCHEMA: ClassVar[dict[str, Check]] = {
        "game": _bin(16),
        "key": _bin(32),
        "nonce": _bin(32),
        "play": _text(40),
        "rules": _rules,
        "players": _uint(MAX_SEATS),
        "clock": _array(_uint(MAX_CLOCK), 3, 3),
    }
    game: bytes
    key: bytes
    nonce: bytes
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
        "clock": _array(_uint(MAX_CLOCK), 3, 3),
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
        super().__init__(
            f"protocol version mismatch: peer speaks {show(version)}, this node {PROTOCOL_VERSION}"
        )


def encode_lobby(body: Body) -> bytes:
    return pack({"v": PROTOCOL_VERSION, "kind": body.TYPE, "body": body.to_wire()})


def decode_lobby_object(obj: Any) -> Body:
    """Check an already bounded-unpacked lobby frame and build its message."""
    if type(obj) is not dict:
        raise WireError("a lobby frame must be a map")
    if not is_version(obj.get("v")):
        raise VersionMismatch(obj.get("v"))
    if set(obj) != {"v", "kind", "body"}:
        raise WireError("a lobby frame has exactly the keys v, kind, body")
    try:
        return body_from_wire(obj["kind"], obj["body"], LOBBY_TYPES, "lobby message")
    except SchemaError as e:
        raise WireError(str(e)) from None


def decode_lobby(data: bytes) -> Body:
    return decode_lobby_object(unpack_untrusted(data, MAX_LOBBY_FRAME))
