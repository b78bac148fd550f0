"""Wire encoding: signed records, frames, and bounded decoding of untrusted bytes.

A *frame* is one msgpack map. Two kinds exist:

* ``{"v": 1, "kind": "record", "raw": <bin>, "sig": <bin 64>}`` - one signed
  record. ``raw`` is itself a msgpack map (the record) and ``sig`` is the
  author's Ed25519 signature over ``SIGN_PREFIX + raw``. The exact ``raw``
  bytes are what is signed, stored in transcripts and hashed into digests, so
  no canonical re-encoding is ever needed.
* ``{"v": 1, "kind": "evidence", "records": [[raw, sig], ...]}`` - other
  authors' signed records, forwarded: two different records of one author for
  one step (equivocation), the record that shows a fault, or records a lagging
  seat asked for. Records are signed end to end, so a forwarder can withhold
  but never forge.
* ``{"v": 1, "kind": "need", "step": <int>, "have": [<seat>, ...], "last": <bin 32>}``
  - "I am at this step, hold these seats' records of it, and my digest of the
  step before is this": a peer answers with the records it holds that the
  sender lacks, and with its own records of the step before if its digest
  differs (also a sign of life while waiting).
* ``{"v": 1, "kind": "abort", "step": <int>, "reason": <str>}`` - the sender
  stops at that step; the reason is its claim, not evidence.

Every decode uses hard bounds (frame size, string/bin/array/map lengths, no
extension types, string map keys only) and a schema check; any problem raises
:class:`WireError`, which the table turns into a ``RemoteProtocolError``. Its text is made
from a template of :mod:`p2pcards.protocol.wire_words` (the interface says it in the
player's language), or is a schema's own words.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

import msgpack

from p2pcards.protocol import wire_words
from p2pcards.protocol.messages import Body, SchemaError, body_from_wire, show

PROTOCOL_VERSION = 1
SIGN_PREFIX = b"p2pcards/v1/record\x00"
MAX_FRAME = 256 * 1024
"""Largest frame accepted, in bytes (a 104-card deck record is under 4 KiB)."""
MAX_RECORD = 64 * 1024
MAX_ARRAY = 256
MAX_MAP = 32
MAX_EVIDENCE = 32


class WireError(ValueError):
    """Bytes that are not a well-formed frame or record of this protocol (said by a template
    of :mod:`p2pcards.protocol.wire_words`, or by the schema's :class:`SchemaError`)."""


class UnreadableFrame(WireError):
    """A msgpack object that is not a frame of this protocol, kept with the error: a record
    it holds that does not read may still carry its signer's valid signature, which then
    blames the signer rather than whoever delivered it (protocol.md 2.3)."""

    def __init__(self, error: WireError, obj: Any) -> None:
        super().__init__(str(error))
        self.obj = obj

    def unreadable_records(self) -> list[tuple[bytes, bytes, str]]:
        """``(raw, sig, why)`` of each pair of bytes in the object where a record goes (a
        ``record`` frame's, an ``evidence`` frame's items) that does not read as a record."""
        obj = self.obj
        if type(obj) is not dict:
            return []
        if obj.get("kind") == "record":
            pairs = [(obj.get("raw"), obj.get("sig"))]
        elif obj.get("kind") == "evidence" and type(obj.get("records")) is list:
            items = obj["records"][:MAX_EVIDENCE]
            pairs = [(it[0], it[1]) for it in items if type(it) is list and len(it) == 2]
        else:
            return []
        out = []
        for raw, sig in pairs:
            if type(raw) is bytes and type(sig) is bytes:
                try:
                    parse_record(raw, sig)
                except WireError as e:
                    out.append((raw, sig, str(e)))
        return out


def is_version(v: object) -> bool:
    """Exactly the integer 1 (``True`` and ``1.0`` are not versions)."""
    return type(v) is int and v == PROTOCOL_VERSION


def _no_ext(code: int, data: bytes) -> Any:
    raise WireError(wire_words.EXTENSION_TYPES)


def unpack_limits(max_size: int, max_array: int = MAX_ARRAY) -> dict[str, Any]:
    """Unpacker options for untrusted input of at most ``max_size`` bytes."""
    return {
        "raw": False,
        "strict_map_key": True,
        "use_list": True,
        "max_buffer_size": max_size,
        "max_str_len": max_size,
        "max_bin_len": max_size,
        "max_array_len": max_array,
        "max_map_len": MAX_MAP,
        "max_ext_len": 0,
        "ext_hook": _no_ext,
    }


def refused_as(e: BaseException) -> str | None:
    """What section 2.1 calls the input msgpack refused, when it is a rule of the profile
    msgpack checks in its own words: an extension type (any but an empty one, which reaches
    ``_no_ext``: by the ``max_ext_len`` bound of 0, or a timestamp, type -1, it cannot
    read), a map key that is not text, text that is not UTF-8. None for anything else
    (a byte that starts no value, say), said as msgpack said it (:func:`decode_problem`)."""
    if isinstance(e, UnicodeDecodeError):
        return wire_words.TEXT_NOT_UTF8
    words = str(e)
    if isinstance(e, ValueError) and ("max_ext_len" in words or "timestamp" in words):
        return wire_words.EXTENSION_TYPES
    if isinstance(e, ValueError) and "not allowed for map key" in words:
        return wire_words.MAP_KEY_NOT_TEXT
    return None


def decode_problem(e: BaseException) -> str:
    """What msgpack said of bad input, for people: its exception's name, and its words when it
    has any (a byte that starts no value raises a ``FormatError`` that says nothing more)."""
    words = str(e).strip()
    return f"{type(e).__name__}: {words}" if words else type(e).__name__


def unpack_untrusted(data: bytes, max_size: int, max_array: int = MAX_ARRAY) -> Any:
    """Decode exactly one msgpack object from ``data`` with every bound applied."""
    if len(data) > max_size:
        raise WireError(wire_words.TOO_BIG.format(size=len(data), limit=max_size))
    unpacker = msgpack.Unpacker(**unpack_limits(max_size, max_array))
    try:
        unpacker.feed(data)
        obj = unpacker.unpack()
    except WireError:
        raise
    except msgpack.OutOfData:
        raise WireError(wire_words.TRUNCATED) from None
    except (ValueError, msgpack.UnpackException, RecursionError) as e:
        # msgpack signals bad input with ValueError subclasses (FormatError, StackError,
        # ExtraData, BufferFull); anything else would be a local bug and propagates.
        raise WireError(refused_as(e) or wire_words.UNDECODABLE.format(cause=decode_problem(e))) from None
    if unpacker.tell() != len(data):
        raise WireError(wire_words.TRAILING)
    return obj


_STR_HEADS = frozenset(range(0xA0, 0xC0)) | {0xD9, 0xDA, 0xDB}
_INT_HEADS = frozenset(range(0x00, 0x80)) | frozenset(range(0xCC, 0xD4)) | frozenset(range(0xE0, 0x100))


def claimed_seat(raw: bytes) -> int | None:
    """The ``seat`` of a record that does not read: its map's, or the one its bytes name
    read past what is wrong (:func:`named_seat`)."""
    try:
        obj = unpack_untrusted(raw, MAX_RECORD)
    except WireError:
        return named_seat(raw)
    seat = obj.get("seat") if type(obj) is dict else None
    return seat if type(seat) is int else None


def named_seat(raw: bytes) -> int | None:
    """The ``seat`` that a record's bytes name, when they do not read (section 7.1): the
    integer at the key ``"seat"`` of the map they encode, read past what makes them
    unreadable (a bound of 2.1, text that is not UTF-8, bytes after the map). Keys that
    are not text and every other value are skipped unbuilt, so the work and the memory
    stay linear in ``len(raw)`` whatever it holds; None if no such integer is found."""
    unpacker = msgpack.Unpacker(raw=True, strict_map_key=False, max_buffer_size=max(len(raw), 1))
    try:
        unpacker.feed(raw)
        for _ in range(unpacker.read_map_header()):
            at = unpacker.tell()
            if at < len(raw) and raw[at] in _STR_HEADS and unpacker.unpack() == b"seat":
                at = unpacker.tell()
                if at < len(raw) and raw[at] in _INT_HEADS:
                    seat = unpacker.unpack()
                    return seat if type(seat) is int else None
                return None
            if unpacker.tell() == at:  # (a key that is not text: skipped)
                unpacker.skip()
            unpacker.skip()  # its value
    except (ValueError, msgpack.UnpackException, RecursionError):
        return None
    return None


def pack(obj: Any) -> bytes:
    return msgpack.packb(obj, use_bin_type=True)


# ---------------------------------------------------------------------------
# Records


@dataclass(frozen=True, slots=True, kw_only=True)
class Record:
    """The signed content: where it belongs (game, step, chain) and its body."""

    game_id: bytes
    step: int
    seat: int
    prev: bytes
    body: Body

    def to_bytes(self) -> bytes:
        return pack(
            {
                "v": PROTOCOL_VERSION,
                "game": self.game_id,
                "step": self.step,
                "seat": self.seat,
                "prev": self.prev,
                "type": self.body.TYPE,
                "body": self.body.to_wire(),
            }
        )


@dataclass(frozen=True, slots=True)
class SignedRecord:
    """A record as received: the exact signed bytes, the signature, and the parsed record."""

    raw: bytes
    sig: bytes
    record: Record

    @property
    def digest(self) -> bytes:
        return hashlib.sha256(self.raw).digest()

    def to_frame(self) -> bytes:
        return pack({"v": PROTOCOL_VERSION, "kind": "record", "raw": self.raw, "sig": self.sig})


_HEADER_KEYS = frozenset({"v", "game", "step", "seat", "prev", "type", "body"})


def parse_record(raw: Any, sig: Any) -> SignedRecord:
    """Parse (not verify) a signed record from untrusted values."""
    if type(raw) is not bytes or type(sig) is not bytes or len(sig) != 64:
        raise WireError(wire_words.RECORD_RAW)
    obj = unpack_untrusted(raw, MAX_RECORD)
    if type(obj) is not dict or set(obj) != _HEADER_KEYS:
        raise WireError(wire_words.RECORD_MAP)
    if not is_version(obj["v"]):
        raise WireError(wire_words.VERSION_MISMATCH.format(theirs=show(obj["v"]), ours=PROTOCOL_VERSION))
    game, step, seat, prev = obj["game"], obj["step"], obj["seat"], obj["prev"]
    if type(game) is not bytes or len(game) != 16:
        raise WireError(wire_words.RECORD_GAME)
    if type(step) is not int or not 0 <= step < 1 << 32:
        raise WireError(wire_words.RECORD_STEP)
    if type(seat) is not int or not 0 <= seat < 6:
        raise WireError(wire_words.RECORD_SEAT)
    if type(prev) is not bytes or len(prev) != 32:
        raise WireError(wire_words.RECORD_PREV)
    try:
        body = body_from_wire(obj["type"], obj["body"])
    except SchemaError as e:
        raise WireError(str(e)) from None
    return SignedRecord(raw, sig, Record(game_id=game, step=step, seat=seat, prev=prev, body=body))


# ---------------------------------------------------------------------------
# Frames


@dataclass(frozen=True, slots=True)
class Evidence:
    """Records forwarded as proof (see module docstring)."""

    records: tuple[SignedRecord, ...]

    def to_frame(self) -> bytes:
        return evidence_frame([(r.raw, r.sig) for r in self.records])


def evidence_frame(pairs: list[tuple[bytes, bytes]]) -> bytes:
    """An ``evidence`` frame of the records ``(raw, sig)``: those of an :class:`Evidence`, or
    a record that does not read, validly signed, forwarded alone as the proof against its
    signer (section 2.3)."""
    return pack({"v": PROTOCOL_VERSION, "kind": "evidence", "records": [[raw, sig] for raw, sig in pairs]})


@dataclass(frozen=True, slots=True)
class Abort:
    """A peer says it is stopping the match at ``step``, and why.

    A notice, not evidence: ``reason`` is the sender's claim. A seat that owed a
    record at that step and sent this instead is the seat that stopped the match.
    """

    reason: str
    step: int = 0

    def to_frame(self) -> bytes:
        return pack(
            {"v": PROTOCOL_VERSION, "kind": "abort", "step": self.step, "reason": self.reason[:MAX_REASON]}
        )


@dataclass(frozen=True, slots=True)
class Need:
    """The sender is stuck at ``step`` and asks for the records it may lack.

    Defeats selective sending: a record its author sent to some seats only
    reaches the others through any seat that holds it.
    """

    step: int
    have: tuple[int, ...] = ()
    last: bytes = bytes(32)
    """The sender's digest of step ``step - 1`` (zeros at step 0): a peer whose own
    digest differs was shown another history, and answers with that step's records."""

    def to_frame(self) -> bytes:
        return pack(
            {
                "v": PROTOCOL_VERSION,
                "kind": "need",
                "step": self.step,
                "have": list(self.have),
                "last": self.last,
            }
        )


MAX_REASON = 300


def quote_claim(text: str) -> str:
    """A peer's claim quoted for a message: escaped (no control character or line
    break of the peer's reaches a terminal) and clearly marked as its words."""
    return repr(text[:160])


@dataclass(frozen=True, slots=True)
class Relay:
    """A frame the host carries between two seats that have no link of their own:
    ``origin`` wrote ``frame`` (a whole frame, as bytes) for ``target``.

    Records inside are signed end to end, so the host can delay or drop them but
    not forge or alter them; what is not signed (a ``need``, an ``abort``) is
    taken as the host says it, and never used to blame ``origin``.
    """

    origin: int
    target: int
    frame: bytes

    def to_frame(self) -> bytes:
        obj = {"v": PROTOCOL_VERSION, "kind": "relay", "from": self.origin, "to": self.target}
        return pack({**obj, "frame": self.frame})

    def inner(self) -> SignedRecord | Evidence | Abort | Need:
        """The carried frame (WireError if it is not one, or is itself a relay)."""
        obj = unpack_untrusted(self.frame, MAX_FRAME)
        if type(obj) is dict and obj.get("kind") == "relay":
            raise WireError(wire_words.RELAYED_RELAY)
        return decode_frame_object(obj)  # type: ignore[return-value]


Frame = SignedRecord | Evidence | Abort | Need | Relay


def decode_frame(data: bytes) -> Frame:
    """Decode one frame from untrusted bytes (see :func:`decode_frame_object`)."""
    return decode_frame_object(unpack_untrusted(data, MAX_FRAME))


FRAME_KINDS = frozenset({"record", "evidence", "abort", "need", "relay"})
"""The ``kind`` of every frame of a match (section 2 of protocol.md)."""


def decode_frame_object(obj: Any) -> Frame:
    """Check an already bounded-unpacked object and build the frame (UnreadableFrame if it
    is none)."""
    try:
        return _frame_of(obj)
    except WireError as e:
        raise UnreadableFrame(e, obj) from None


def _frame_of(obj: Any) -> Frame:
    if type(obj) is not dict:
        raise WireError(wire_words.FRAME_NOT_MAP)
    if not is_version(obj.get("v")):
        raise WireError(wire_words.VERSION_MISMATCH.format(theirs=show(obj.get("v")), ours=PROTOCOL_VERSION))
    kind = obj.get("kind")
    if kind == "record":
        if set(obj) != {"v", "kind", "raw", "sig"}:
            raise WireError(wire_words.RECORD_FRAME_KEYS)
        return parse_record(obj["raw"], obj["sig"])
    if kind == "evidence":
        if set(obj) != {"v", "kind", "records"}:
            raise WireError(wire_words.EVIDENCE_KEYS)
        recs = obj["records"]
        if type(recs) is not list or not 1 <= len(recs) <= MAX_EVIDENCE:
            raise WireError(wire_words.EVIDENCE_SIZE.format(most=MAX_EVIDENCE))
        out = []
        for item in recs:
            if type(item) is not list or len(item) != 2:
                raise WireError(wire_words.EVIDENCE_ITEM)
            out.append(parse_record(item[0], item[1]))
        return Evidence(tuple(out))
    if kind == "abort":
        if set(obj) != {"v", "kind", "step", "reason"}:
            raise WireError(wire_words.ABORT_KEYS)
        reason = obj["reason"]
        if type(reason) is not str or len(reason) > MAX_REASON:
            raise WireError(wire_words.ABORT_REASON.format(most=MAX_REASON))
        return Abort(reason, _step(obj["step"], "abort"))
    if kind == "need":
        if set(obj) != {"v", "kind", "step", "have", "last"}:
            raise WireError(wire_words.NEED_KEYS)
        have, last = obj["have"], obj["last"]
        if type(have) is not list or len(have) > 6 or any(type(s) is not int or not 0 <= s < 6 for s in have):
            raise WireError(wire_words.NEED_HAVE)
        if type(last) is not bytes or len(last) != 32:
            raise WireError(wire_words.NEED_LAST)
        return Need(_step(obj["step"], "need"), tuple(sorted(set(have))), last)
    if kind == "relay":
        if set(obj) != {"v", "kind", "from", "to", "frame"}:
            raise WireError(wire_words.RELAY_KEYS)
        origin, target, frame = obj["from"], obj["to"], obj["frame"]
        if any(type(x) is not int or not 0 <= x < 6 for x in (origin, target)) or origin == target:
            raise WireError(wire_words.RELAY_SEATS)
        if type(frame) is not bytes:
            raise WireError(wire_words.RELAY_FRAME)
        return Relay(origin, target, frame)
    raise WireError(wire_words.UNKNOWN_KIND.format(value=show(kind)))


def _step(value: Any, kind: str) -> int:
    if type(value) is not int or not 0 <= value < 1 << 32:
        raise WireError(wire_words.FRAME_STEP.format(frame=kind))
    return value


class StreamDecoder:
    """Splits one byte stream into msgpack objects, within hard bounds.

    The unpacker's own limits bound each string and container and the bytes it
    holds unparsed, but not a whole object: it parses containers as their bytes
    arrive, so an array of large strings could grow without end. The decoder
    therefore also counts the bytes of the object in progress and refuses any
    over ``max_frame``. After any error it is dead: an unpacker is never reused
    after bad input, and the stream's peer is treated as misbehaving.
    """

    def __init__(self, max_frame: int = MAX_FRAME) -> None:
        self.max_frame = max_frame
        self._unpacker = msgpack.Unpacker(**unpack_limits(max_frame))
        self._fed = 0  # bytes fed so far
        self._start = 0  # stream offset where the object in progress began
        self.failed: WireError | None = None

    def feed(self, data: bytes | bytearray) -> list[Any]:
        """The objects completed by ``data`` (WireError on bad input, then forever)."""
        if self.failed is not None:
            raise self.failed
        out = []
        try:
            self._fed += len(data)
            self._unpacker.feed(data)
            for obj in self._unpacker:
                end = self._unpacker.tell()
                self._check_size(end)
                self._start = end
                out.append(obj)
            self._check_size(self._fed)
        except WireError as e:
            self.failed = e
            raise
        except msgpack.BufferFull:
            self.failed = WireError(wire_words.FRAME_TOO_BIG.format(limit=self.max_frame))
            raise self.failed from None
        except (msgpack.StackError, RecursionError):
            self.failed = WireError(wire_words.NESTED_TOO_DEEP)
            raise self.failed from None
        except (ValueError, msgpack.UnpackException) as e:
            said = refused_as(e) or wire_words.UNDECODABLE_STREAM.format(cause=decode_problem(e))
            self.failed = WireError(said)
            raise self.failed from None
        return out

    def _check_size(self, end: int) -> None:
        if end - self._start > self.max_frame:
            raise WireError(wire_words.FRAME_TOO_BIG.format(limit=self.max_frame))


class FrameDecoder(StreamDecoder):
    """A :class:`StreamDecoder` whose objects must be frames of the game."""

    def feed(self, data: bytes | bytearray) -> list[Frame]:
        frames = []
        for obj in super().feed(data):
            try:
                frames.append(decode_frame_object(obj))
            except WireError as e:
                self.failed = e
                raise
        return frames
