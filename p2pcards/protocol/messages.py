"""Message bodies: one frozen dataclass per record type, and their schema.

Every record carries exactly one body. ``body_from_wire`` turns an untrusted,
already bounded msgpack object into a typed body, checking every field; any
problem raises :class:`SchemaError` with a sentence saying what is wrong, which
the caller turns into a ``RemoteProtocolError`` naming the peer.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, ClassVar

from p2pcards.protocol import wire_words as words
from p2pcards.safetext import has_unsafe

SUIT_LETTERS = frozenset("SHDC")
MAX_NAME = 32
MAX_SEATS = 6
MAX_DECK = 104
MAX_ROUNDS = 1000
MAX_TEXT = 200
MAX_CLOCK = 86_400
"""The longest wait of the table's clock, in seconds: a day."""


class SchemaError(ValueError):
    """A decoded object that does not fit the message schema."""


def show(value: Any) -> str:
    """A peer's value for an error message: short, and safe for any nesting depth."""
    if value is None or type(value) in (bool, int, float):
        return repr(value)
    if type(value) is str:
        return repr(value[:40])
    if type(value) is bytes:
        return f"<{len(value)} bytes>"
    return f"<{type(value).__name__}>"


Check = Callable[[Any, str], Any]


def _uint(limit: int) -> Check:
    def check(v: Any, where: str) -> int:
        if type(v) is not int or not 0 <= v <= limit:
            raise SchemaError(words.SCHEMA_INTEGER.format(where=where, low=0, high=limit))
        return v

    return check


def _int(low: int, high: int) -> Check:
    def check(v: Any, where: str) -> int:
        if type(v) is not int or not low <= v <= high:
            raise SchemaError(words.SCHEMA_INTEGER.format(where=where, low=low, high=high))
        return v

    return check


def _bin(size: int) -> Check:
    def check(v: Any, where: str) -> bytes:
        if type(v) is not bytes or len(v) != size:
            raise SchemaError(words.SCHEMA_BYTES.format(where=where, size=size))
        return v

    return check


def _bool(v: Any, where: str) -> bool:
    if type(v) is not bool:
        raise SchemaError(words.SCHEMA_BOOL.format(where=where))
    return v


def _scalar(v: Any, where: str) -> int:
    if type(v) is not bytes or len(v) != 32:
        raise SchemaError(words.SCHEMA_SCALAR.format(where=where))
    k = int.from_bytes(v, "big")
    if k == 0:
        raise SchemaError(words.SCHEMA_ZERO.format(where=where))
    return k


def _text(limit: int) -> Check:
    """Text a person may read: bounded, and free of the control, bidi and invisible characters
    that could drive a terminal or disguise a name (``p2pcards.safetext.UNSAFE_RANGES``)."""

    def check(v: Any, where: str) -> str:
        if type(v) is not str or len(v) > limit:
            raise SchemaError(words.SCHEMA_TEXT.format(where=where, most=limit))
        if has_unsafe(v):
            raise SchemaError(words.SCHEMA_UNSAFE.format(where=where))
        return v

    return check


def _name(v: Any, where: str) -> str:
    """A player's name: text of at most MAX_NAME characters that is not blank.

    The same rule as the host's when it seats a joiner (the lobby's ``_text(MAX_NAME)``
    and a name that is not blank once stripped), so that an honest host never seats a
    name that the join records would then refuse."""
    name: str = _text(MAX_NAME)(v, where)
    if not name.strip():
        raise SchemaError(words.SCHEMA_BLANK.format(where=where))
    return name


def _suit(v: Any, where: str) -> str:
    if type(v) is not str or v not in SUIT_LETTERS:
        raise SchemaError(words.SCHEMA_SUIT.format(where=where))
    return v


def _optional(inner: Check) -> Check:
    def check(v: Any, where: str) -> Any:
        return None if v is None else inner(v, where)

    return check


def _array(item: Check, max_len: int, min_len: int = 0) -> Check:
    def check(v: Any, where: str) -> tuple[Any, ...]:
        if type(v) is not list or not min_len <= len(v) <= max_len:
            raise SchemaError(words.SCHEMA_LIST.format(where=where, low=min_len, high=max_len))
        return tuple(item(x, f"{where}[{i}]") for i, x in enumerate(v))

    return check


def _tuple(*items: Check, build: Callable[..., Any]) -> Check:
    def check(v: Any, where: str) -> Any:
        if type(v) is not list or len(v) != len(items):
            raise SchemaError(words.SCHEMA_ITEMS.format(where=where, count=len(items)))
        return build(*(c(x, f"{where}[{i}]") for i, (c, x) in enumerate(zip(items, v, strict=True))))

    return check


MAX_RULE_LIST = 16
MAX_RULES = 32
"""The most rule options a table's terms hold."""

RuleValue = bool | int | str | None | tuple[bool | int | str | None, ...]


def _rule_scalar(v: Any) -> bool:
    return v is None or type(v) in (bool, int) or (type(v) is str and len(v) <= MAX_TEXT)


def _rule_value(v: Any, where: str) -> RuleValue:
    if _rule_scalar(v):
        return v
    if type(v) is list and len(v) <= MAX_RULE_LIST and all(_rule_scalar(x) for x in v):
        return tuple(v)
    raise SchemaError(words.SCHEMA_RULE_VALUE.format(where=where))


def _rules(v: Any, where: str) -> tuple[tuple[str, RuleValue], ...]:
    if type(v) is not dict or len(v) > MAX_RULES:
        raise SchemaError(words.SCHEMA_RULES.format(where=where, most=MAX_RULES))
    if not all(type(k) is str and len(k) <= 40 for k in v):
        raise SchemaError(words.SCHEMA_RULE_KEYS.format(where=where))
    out = []
    for k in sorted(v):
        out.append((k, _rule_value(v[k], f"{where}.{k}")))
    return tuple(out)


# ---------------------------------------------------------------------------
# Nested values


@dataclass(frozen=True, slots=True, kw_only=True)
class Player:
    """One roster entry: a display name and an Ed25519 public key."""

    name: str
    key: bytes

    def to_wire(self) -> list[Any]:
        return [self.name, self.key]


@dataclass(frozen=True, slots=True, kw_only=True)
class KeyShare:
    """A lock key of the sender for deck position ``pos`` of shuffle round ``round``."""

    round: int
    pos: int
    key: int

    def to_wire(self) -> list[Any]:
        return [self.round, self.pos, self.key.to_bytes(32, "big")]


@dataclass(frozen=True, slots=True, kw_only=True)
class Shown:
    """A card shown face up from a position the sender holds, with its own lock key."""

    round: int
    pos: int
    card: int
    key: int

    def to_wire(self) -> list[Any]:
        return [self.round, self.pos, self.card, self.key.to_bytes(32, "big")]


@dataclass(frozen=True, slots=True, kw_only=True)
class AheadPass:
    """The author's shuffle or lock pass of round 0 of the hand that follows, carried by
    a record of this hand: the next deck is shuffled and locked while this hand is
    played, so the next hand waits for no step of its own before its deal. A shuffle
    pass carries the author's commitment to its secret of that hand (``next``), so the
    pass is bound to the secret before anyone sees it; a lock pass carries none."""

    kind: str
    deck: tuple[bytes, ...]
    next: bytes | None

    def to_wire(self) -> list[Any]:
        return [self.kind, list(self.deck), self.next]


def _pass_kind(v: Any, where: str) -> str:
    if type(v) is not str or v not in ("shuffle", "lock"):
        raise SchemaError(words.SCHEMA_PASS_KIND.format(where=where))
    return v


_player = _tuple(_name, _bin(32), build=lambda name, key: Player(name=name, key=key))
_key_share = _tuple(
    _uint(MAX_ROUNDS), _uint(MAX_DECK - 1), _scalar, build=lambda r, p, k: KeyShare(round=r, pos=p, key=k)
)
_ahead = _tuple(
    _pass_kind,
    _array(_bin(32), MAX_DECK, 1),
    _optional(_bin(32)),
    build=lambda kind, deck, nxt: AheadPass(kind=kind, deck=deck, next=nxt),
)
_shown = _tuple(
    _uint(MAX_ROUNDS),
    _uint(MAX_DECK - 1),
    _uint(MAX_DECK - 1),
    _scalar,
    build=lambda r, p, c, k: Shown(round=r, pos=p, card=c, key=k),
)


# ---------------------------------------------------------------------------
# Bodies


AHEAD = frozenset({"ahead"})
"""The optional field of the bodies that may carry a pass of the next hand (see AheadPass)."""


class Body:
    """Base of record bodies: ``TYPE`` is the wire name, ``SCHEMA`` checks each field."""

    TYPE: ClassVar[str]
    SCHEMA: ClassVar[dict[str, Check]]
    OPTIONAL: ClassVar[frozenset[str]] = frozenset()
    """Fields a body may leave out (absent: None); written only when set."""

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for f in fields(self):  # type: ignore[arg-type]
            value = getattr(self, f.name)
            if value is None and f.name in self.OPTIONAL:
                continue
            out[f.name] = _to_wire(value, f.name)
        return out


def _to_wire(v: Any, name: str) -> Any:
    if isinstance(v, tuple):
        if name == "rules":
            return {k: list(x) if isinstance(x, tuple) else x for k, x in v}
        return [_to_wire(x, name) for x in v]
    if hasattr(v, "to_wire"):
        return v.to_wire()
    return v


@dataclass(frozen=True, slots=True, kw_only=True)
class Join(Body):
    """Step 0: each seat signs the table it agrees to play (version, rules, roster)."""

    TYPE: ClassVar[str] = "join"
    SCHEMA: ClassVar[dict[str, Check]] = {
        "version": _uint(0xFFFF),
        "game": _text(40),
        "rules": _rules,
        "roster": _array(_player, MAX_SEATS, 2),
        "clock": _array(_uint(MAX_CLOCK), 3, 3),
    }
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"clock"})
    version: int
    game: str
    rules: tuple[tuple[str, RuleValue], ...]
    roster: tuple[Player, ...]
    clock: tuple[int, ...] | None = None
    """The table's clock, in whole seconds: a turn, any other step, and the grace to
    come back after a lost connection (the host's, agreed by every seat)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Commit(Body):
    """Commitment to a fresh secret (for the cut, or for one hand)."""

    TYPE: ClassVar[str] = "commit"
    SCHEMA: ClassVar[dict[str, Check]] = {"commit": _bin(32)}
    commit: bytes


@dataclass(frozen=True, slots=True, kw_only=True)
class Reveal(Body):
    """The secret behind a commitment (cut, end of hand, or a dispute), and what
    the next hand needs first, so that no step of its own waits for it: the
    commitment to the next hand's secret and, from seat 0, its first shuffle pass
    (which starts from the unshuffled deck, so depends on nothing before it)."""

    TYPE: ClassVar[str] = "reveal"
    SCHEMA: ClassVar[dict[str, Check]] = {
        "secret": _bin(32),
        "next": _bin(32),
        "shuffle": _array(_bin(32), MAX_DECK, 1),
        "keys": _array(_key_share, MAX_DECK),
    }
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"next", "shuffle", "keys"})
    secret: bytes
    next: bytes | None = None
    shuffle: tuple[bytes, ...] | None = None
    keys: tuple[KeyShare, ...] | None = None
    """The author's deal keys of the hand that follows, when its lock pass of that
    hand's round 0 was carried ahead (see :class:`AheadPass`): they travel once
    this hand is over, so nobody sees a card of the next hand while this one is played."""


@dataclass(frozen=True, slots=True, kw_only=True)
class _DeckPass(Body):
    """A seat's pass over the whole deck of shuffle round ``round``."""

    SCHEMA: ClassVar[dict[str, Check]] = {
        "round": _uint(MAX_ROUNDS),
        "deck": _array(_bin(32), MAX_DECK, 1),
    }
    round: int
    deck: tuple[bytes, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Shuffle(_DeckPass):
    """The sender's shuffle pass: re-encrypt every card and permute the deck."""

    TYPE: ClassVar[str] = "shuffle"


@dataclass(frozen=True, slots=True, kw_only=True)
class Lock(_DeckPass):
    """The sender's lock pass: swap its shuffle layer for one lock key per position;
    in the first round of a hand, also the sender's deal keys, so that no separate
    step waits for them."""

    TYPE: ClassVar[str] = "lock"
    SCHEMA: ClassVar[dict[str, Check]] = {**_DeckPass.SCHEMA, "keys": _array(_key_share, MAX_DECK)}
    OPTIONAL: ClassVar[frozenset[str]] = frozenset({"keys"})
    keys: tuple[KeyShare, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Keys(Body):
    """Lock keys the sender publishes so that others can open positions (deal, draw)."""

    TYPE: ClassVar[str] = "keys"
    SCHEMA: ClassVar[dict[str, Check]] = {"keys": _array(_key_share, MAX_DECK), "ahead": _ahead}
    OPTIONAL: ClassVar[frozenset[str]] = AHEAD
    keys: tuple[KeyShare, ...]
    ahead: AheadPass | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DeclareSuit(Body):
    """The dealer names the active suit because the up card is a 9."""

    TYPE: ClassVar[str] = "declare"
    SCHEMA: ClassVar[dict[str, Check]] = {"suit": _suit, "ahead": _ahead}
    OPTIONAL: ClassVar[frozenset[str]] = AHEAD
    suit: str
    ahead: AheadPass | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayCards(Body):
    """Play one card (or two 9s): each shown with the sender's own lock key."""

    TYPE: ClassVar[str] = "play"
    SCHEMA: ClassVar[dict[str, Check]] = {
        "cards": _array(_shown, 2, 1),
        "suit": _optional(_suit),
        "ahead": _ahead,
    }
    OPTIONAL: ClassVar[frozenset[str]] = AHEAD
    cards: tuple[Shown, ...]
    suit: str | None
    ahead: AheadPass | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class DrawCard(Body):
    """Ask for the top card of the stock (the others answer with their keys)."""

    TYPE: ClassVar[str] = "draw"
    SCHEMA: ClassVar[dict[str, Check]] = {"ahead": _ahead}
    OPTIONAL: ClassVar[frozenset[str]] = AHEAD
    ahead: AheadPass | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class KeepCard(Body):
    """Keep the card just drawn; the turn ends."""

    TYPE: ClassVar[str] = "keep"
    SCHEMA: ClassVar[dict[str, Check]] = {"ahead": _ahead}
    OPTIONAL: ClassVar[frozenset[str]] = AHEAD
    ahead: AheadPass | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class PassTurn(Body):
    """Nothing to draw and nothing to recycle: the turn passes."""

    TYPE: ClassVar[str] = "pass"
    SCHEMA: ClassVar[dict[str, Check]] = {"ahead": _ahead}
    OPTIONAL: ClassVar[frozenset[str]] = AHEAD
    ahead: AheadPass | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class AcceptSkip(Body):
    """Stacking nines: accept the skip of a double 9."""

    TYPE: ClassVar[str] = "accept-skip"
    SCHEMA: ClassVar[dict[str, Check]] = {"ahead": _ahead}
    OPTIONAL: ClassVar[frozenset[str]] = AHEAD
    ahead: AheadPass | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class _LayerPass(Body):
    """A seat's pass over the points of relock layer ``layer`` (see the card ledger)."""

    SCHEMA: ClassVar[dict[str, Check]] = {
        "layer": _uint(MAX_ROUNDS),
        "points": _array(_bin(32), MAX_DECK, 1),
    }
    layer: int
    points: tuple[bytes, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Relock(_LayerPass):
    """The seat that will look locks the positions again with fresh keys of its own."""

    TYPE: ClassVar[str] = "relock"


@dataclass(frozen=True, slots=True, kw_only=True)
class Unlock(_LayerPass):
    """A seat removes its pending lock from the relocked points, for the looker alone."""

    TYPE: ClassVar[str] = "unlock"


@dataclass(frozen=True, slots=True, kw_only=True)
class LookAtPile(Body):
    """Ask to see a face-down pile privately (Le Neuf: the dummy)."""

    TYPE: ClassVar[str] = "look"
    SCHEMA: ClassVar[dict[str, Check]] = {}


@dataclass(frozen=True, slots=True, kw_only=True)
class TakePile(Body):
    """Swap one's hand with a face-down pile (Le Neuf: take the dummy)."""

    TYPE: ClassVar[str] = "exchange"
    SCHEMA: ClassVar[dict[str, Check]] = {}


@dataclass(frozen=True, slots=True, kw_only=True)
class LeavePile(Body):
    """Keep one's hand and leave the pile where it lies (Le Neuf: decline the dummy)."""

    TYPE: ClassVar[str] = "decline"
    SCHEMA: ClassVar[dict[str, Check]] = {}


@dataclass(frozen=True, slots=True, kw_only=True)
class Dispute(Body):
    """A card of the sender's did not open: every seat must now reveal its hand secret."""

    TYPE: ClassVar[str] = "dispute"
    SCHEMA: ClassVar[dict[str, Check]] = {"reason": _text(MAX_TEXT)}
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Result(Body):
    """Every seat signs the final totals and winners."""

    TYPE: ClassVar[str] = "result"
    SCHEMA: ClassVar[dict[str, Check]] = {
        "totals": _array(_int(-(1 << 30), 1 << 30), MAX_SEATS, 2),
        "winners": _array(_uint(MAX_SEATS - 1), MAX_SEATS, 1),
    }
    totals: tuple[int, ...]
    winners: tuple[int, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class Leave(Body):
    """A seat leaves the match for good, so that nobody waits for it (a side record:
    written at any step, beside the seat's record of that step, once per table)."""

    TYPE: ClassVar[str] = "leave"
    SCHEMA: ClassVar[dict[str, Check]] = {"reason": _text(MAX_TEXT)}
    reason: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Confirm(Body):
    """The person at this seat compared the table fingerprint with the other players'
    (a side record, as ``leave``): ``same`` if everyone read the same digits.
    ``fingerprint`` is the full digest the digits are read from, so that an audit
    shows who confirmed which table, and that nobody confirmed one they did not see."""

    TYPE: ClassVar[str] = "confirm"
    SCHEMA: ClassVar[dict[str, Check]] = {"fingerprint": _bin(32), "same": _bool}
    fingerprint: bytes
    same: bool


SIDE_BODIES: tuple[type[Body], ...] = (Leave, Confirm)
"""Side records: written at any step, beside the seat's record of that step, once per
seat and table each; they never complete a step."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Continue(Body):
    """Step 0 of a table that continues the match without seats that left: which
    table it continues (``game``), who left (``left``, seats of that table, in
    increasing order) and where the signer stood there: ``steps`` completed, the
    digest ``last`` of the last one, and the ``hands`` finished by then."""

    TYPE: ClassVar[str] = "continue"
    SCHEMA: ClassVar[dict[str, Check]] = {
        "game": _bin(16),
        "left": _array(_uint(MAX_SEATS - 1), MAX_SEATS - 2, 1),
        "reason": _text(MAX_TEXT),
        "steps": _uint(1 << 30),
        "last": _bin(32),
        "hands": _uint(1 << 20),
    }
    game: bytes
    left: tuple[int, ...]
    reason: str
    steps: int
    last: bytes
    hands: int


BODY_TYPES: dict[str, type[Body]] = {
    cls.TYPE: cls
    for cls in (
        Join,
        Commit,
        Reveal,
        Shuffle,
        Lock,
        Keys,
        DeclareSuit,
        PlayCards,
        DrawCard,
        KeepCard,
        PassTurn,
        AcceptSkip,
        Relock,
        Unlock,
        LookAtPile,
        TakePile,
        LeavePile,
        Dispute,
        Result,
        Leave,
        Confirm,
        Continue,
    )
}


def body_from_wire(
    type_name: Any,
    obj: Any,
    types: dict[str, type[Body]] = BODY_TYPES,
    unknown: str = words.UNKNOWN_RECORD_TYPE,
) -> Body:
    """Check an untrusted body against the schema of its type and build the typed body
    (``unknown``: what a type not in ``types`` is said to be, a template with ``{value}``)."""
    if type(type_name) is not str or type_name not in types:
        raise SchemaError(unknown.format(value=show(type_name)))
    cls = types[type_name]
    if type(obj) is not dict:
        raise SchemaError(words.BODY_NOT_MAP.format(type=type_name))
    schema = cls.SCHEMA
    missing = sorted(set(schema) - set(obj) - cls.OPTIONAL)
    extra = sorted(show(k) for k in set(obj) - set(schema))
    if missing or extra:
        raise SchemaError(words.BODY_FIELDS.format(type=type_name, missing=missing, extra=extra))
    values = {name: check(obj[name], f"{type_name}.{name}") for name, check in schema.items() if name in obj}
    return cls(**values)
