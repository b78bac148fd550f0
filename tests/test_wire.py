"""The wire format: signed records and frames, and the bounded decoder of untrusted bytes.

The decoder is the first code that touches a peer's bytes, so the property that
matters most is the contract: whatever arrives, ``decode_frame`` and
``FrameDecoder.feed`` return frames or raise ``WireError``, never anything else,
and never allocate more than the frame limit.
"""

from __future__ import annotations

import copy
import tracemalloc
from typing import Any

import msgpack
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pcards.crypto.encoding import encode_deck
from p2pcards.crypto.identity import Identity, verify_signature
from p2pcards.games.nines.rules import NinesRules
from p2pcards.protocol.lobby import VersionMismatch, decode_lobby_object
from p2pcards.protocol.messages import (
    BODY_TYPES,
    AcceptSkip,
    Body,
    Commit,
    Confirm,
    Continue,
    DeclareSuit,
    Dispute,
    DrawCard,
    Join,
    KeepCard,
    Keys,
    KeyShare,
    Leave,
    LeavePile,
    Lock,
    LookAtPile,
    PassTurn,
    PlayCards,
    Player,
    Relock,
    Result,
    Reveal,
    Shown,
    Shuffle,
    TakePile,
    Unlock,
)
from p2pcards.protocol.wire import (
    FRAME_KINDS,
    MAX_ARRAY,
    MAX_EVIDENCE,
    MAX_FRAME,
    MAX_MAP,
    MAX_RECORD,
    PROTOCOL_VERSION,
    SIGN_PREFIX,
    Evidence,
    FrameDecoder,
    Record,
    SignedRecord,
    WireError,
    decode_frame,
    pack,
    parse_record,
    unpack_untrusted,
)

ALICE = Identity.from_bytes(bytes(32))
BOB = Identity.from_bytes(bytes([1]) * 32)
GAME = bytes(range(16))
PREV = bytes(range(100, 132))
BIG_SCALAR = (1 << 255) + 12345

SAMPLE_BODIES: list[Body] = [
    Join(
        version=PROTOCOL_VERSION,
        game="nines",
        rules=tuple(sorted(NinesRules(target=150, hard_nines=True).to_dict().items())),
        roster=(Player(name="ann", key=ALICE.public_key), Player(name="bob", key=BOB.public_key)),
    ),
    Join(
        version=PROTOCOL_VERSION,
        game="nines",
        rules=tuple(sorted(NinesRules().to_dict().items())),
        roster=(Player(name="ann", key=ALICE.public_key), Player(name="bob", key=BOB.public_key)),
        clock=(600, 60, 120),
    ),
    Commit(commit=bytes(range(32))),
    Reveal(secret=bytes(range(32, 64))),
    Reveal(secret=bytes(range(32, 64)), next=bytes(range(64, 96)), shuffle=encode_deck(range(52))),
    Shuffle(round=0, deck=encode_deck(range(52))),
    Lock(round=3, deck=encode_deck(range(104))),
    Lock(round=0, deck=encode_deck(range(52)), keys=(KeyShare(round=0, pos=51, key=BIG_SCALAR),)),
    Keys(keys=(KeyShare(round=0, pos=3, key=12345), KeyShare(round=1, pos=103, key=BIG_SCALAR))),
    Keys(keys=()),
    DeclareSuit(suit="H"),
    PlayCards(cards=(Shown(round=0, pos=7, card=20, key=99),), suit=None),
    PlayCards(
        cards=(Shown(round=0, pos=1, card=8, key=5), Shown(round=2, pos=0, card=60, key=BIG_SCALAR)),
        suit="S",
    ),
    DrawCard(),
    KeepCard(),
    PassTurn(),
    AcceptSkip(),
    Relock(layer=0, points=encode_deck(range(13))),
    Unlock(layer=2, points=encode_deck(range(13, 26))),
    LookAtPile(),
    TakePile(),
    LeavePile(),
    Dispute(reason="the drawn position does not open to a card"),
    Result(totals=(35, 26, 22), winners=(2,)),
    Result(totals=(-2, 5, 1), winners=(0,)),
    Leave(reason="dinner is ready"),
    Confirm(fingerprint=PREV, same=True),
    Confirm(fingerprint=PREV, same=False),
    Continue(game=GAME, left=(2,), reason="left the match", steps=71, last=PREV, hands=1),
]


def sign(body: Body, *, step: int = 7, seat: int = 1, identity: Identity = ALICE) -> SignedRecord:
    rec = Record(game_id=GAME, step=step, seat=seat, prev=PREV, body=body)
    raw = rec.to_bytes()
    return SignedRecord(raw, identity.sign(SIGN_PREFIX + raw), rec)


SAMPLE_RECORDS = [sign(b, step=i, seat=i % 6) for i, b in enumerate(SAMPLE_BODIES)]
SAMPLE_FRAMES = [r.to_frame() for r in SAMPLE_RECORDS] + [
    Evidence((SAMPLE_RECORDS[1], SAMPLE_RECORDS[2])).to_frame()
]


def record_map(body_type: str, body: Any, /, **header: Any) -> dict[str, Any]:
    """An unsigned record as a plain map, to be altered field by field."""
    obj = {"v": PROTOCOL_VERSION, "game": GAME, "step": 7, "seat": 1, "prev": PREV, "type": body_type}
    obj["body"] = body
    obj.update(header)
    return obj


def record_frame(raw: bytes, sig: bytes = bytes(64)) -> bytes:
    return pack({"v": PROTOCOL_VERSION, "kind": "record", "raw": raw, "sig": sig})


def nested_arrays(depth: int, leaf: bytes = b"\x01") -> bytes:
    """``depth`` arrays of one element each around ``leaf``, as msgpack bytes."""
    return b"\x91" * depth + leaf


# ---------------------------------------------------------------------------
# Round trips


def test_the_samples_cover_every_body_type() -> None:
    assert {b.TYPE for b in SAMPLE_BODIES} == set(BODY_TYPES)


@pytest.mark.parametrize("signed", SAMPLE_RECORDS, ids=lambda r: r.record.body.TYPE)
def test_record_round_trip(signed: SignedRecord) -> None:
    frame = signed.to_frame()
    decoded = decode_frame(frame)
    assert isinstance(decoded, SignedRecord)
    assert decoded == signed
    assert decoded.raw == signed.raw  # the signed bytes travel untouched
    assert decoded.record.to_bytes() == signed.raw  # and re-encoding the parsed record gives them back
    assert decoded.to_frame() == frame
    assert decoded.digest == signed.digest
    assert verify_signature(ALICE.public_key, decoded.sig, SIGN_PREFIX + decoded.raw)
    assert not verify_signature(BOB.public_key, decoded.sig, SIGN_PREFIX + decoded.raw)


def test_evidence_round_trip() -> None:
    ev = Evidence(tuple(SAMPLE_RECORDS[:MAX_EVIDENCE]))
    decoded = decode_frame(ev.to_frame())
    assert decoded == ev
    assert decoded.to_frame() == ev.to_frame()


@pytest.mark.parametrize("count", [0, MAX_EVIDENCE + 1])
def test_evidence_size_is_bounded(count: int) -> None:
    items = [[SAMPLE_RECORDS[1].raw, SAMPLE_RECORDS[1].sig]] * count
    with pytest.raises(WireError, match="evidence"):
        decode_frame(pack({"v": PROTOCOL_VERSION, "kind": "evidence", "records": items}))


def test_frame_decoder_byte_at_a_time() -> None:
    stream = b"".join(SAMPLE_FRAMES)
    dec = FrameDecoder()
    out = []
    for i in range(len(stream)):
        out.extend(dec.feed(stream[i : i + 1]))
    assert out == [decode_frame(f) for f in SAMPLE_FRAMES]
    assert dec.failed is None


# ---------------------------------------------------------------------------
# Fuzzing: a frame or a WireError, never another exception

scalars = (
    st.none()
    | st.booleans()
    | st.integers(min_value=-(1 << 63), max_value=(1 << 64) - 1)
    | st.floats()
    | st.text(max_size=12)
    | st.binary(max_size=40)
)
objects = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=15,
)


def try_decode(data: bytes) -> SignedRecord | Evidence | None:
    try:
        return decode_frame(data)
    except WireError:
        return None


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_fuzz_arbitrary_bytes(data: bytes) -> None:
    try_decode(data)


@settings(max_examples=200, deadline=None)
@given(objects)
def test_fuzz_msgpack_objects(obj: Any) -> None:
    try_decode(pack(obj))


lobby_like = st.fixed_dictionaries(
    {"v": st.sampled_from([1, 2, True, 1.0, 0, "1"]), "kind": objects | st.sampled_from(sorted(FRAME_KINDS))},
    optional={"body": objects, "step": objects, "raw": objects},
)


@settings(max_examples=300, deadline=None)
@given(objects | lobby_like)
def test_fuzz_lobby_frames_fail_only_as_wire_errors(obj: Any) -> None:
    """Whatever a stranger sends before the match, reading it as a lobby frame gives a
    message or a WireError (a version mismatch is one): no other exception reaches the
    host's connection handler."""
    try:
        message = decode_lobby_object(obj)
    except WireError as e:
        assert str(e)
    else:
        assert isinstance(message, Body)


def test_a_frame_of_the_match_in_the_lobby_is_a_protocol_error_not_another_version() -> None:
    need = {"v": 1, "kind": "need", "step": 3, "have": [0], "last": b"\0" * 32}
    with pytest.raises(WireError, match="came before the match started") as caught:
        decode_lobby_object(need)
    assert not isinstance(caught.value, VersionMismatch)
    for version in (True, 1.0):  # (not the integer 1: another version)
        with pytest.raises(VersionMismatch):
            decode_lobby_object({**need, "v": version})
    with pytest.raises(VersionMismatch):  # a lobby message of version 1
        decode_lobby_object({"v": 1, "kind": "hello", "body": {}})


def flip(data: bytes, bit: int) -> bytes:
    b = bytearray(data)
    b[(bit // 8) % len(b)] ^= 1 << (bit % 8)
    return bytes(b)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(SAMPLE_FRAMES), st.data())
def test_fuzz_byte_mutations_of_valid_frames(frame: bytes, data: st.DataObject) -> None:
    mutations = data.draw(
        st.lists(
            st.tuples(st.sampled_from(["flip", "truncate", "insert", "delete"]), st.integers(0, 1 << 20)),
            min_size=1,
            max_size=4,
        )
    )
    for kind, n in mutations:
        if not frame:
            break
        pos = n % len(frame)
        if kind == "flip":
            frame = flip(frame, n)
        elif kind == "truncate":
            frame = frame[:pos]
        elif kind == "insert":
            frame = frame[:pos] + data.draw(st.binary(min_size=1, max_size=8)) + frame[pos:]
        else:
            frame = frame[:pos] + frame[pos + 1 + n % 7 :]
    try_decode(frame)


def containers(obj: Any, path: tuple[Any, ...] = ()) -> list[tuple[tuple[Any, ...], Any]]:
    """Every list and map inside ``obj`` (itself included), with its path."""
    if not isinstance(obj, list | dict):
        return []
    out = [(path, obj)]
    for k, v in obj.items() if isinstance(obj, dict) else enumerate(obj):
        out.extend(containers(v, (*path, k)))
    return out


edge_values = st.sampled_from(
    [0, 1, 2, -1, 103, 104, 1000, 1001, 1 << 32, True, 1.0, "", "S", b"", bytes(32), [], {}]
)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(SAMPLE_RECORDS), st.data())
def test_fuzz_field_mutations_of_valid_records(signed: SignedRecord, data: st.DataObject) -> None:
    """Change, remove or add a value anywhere in the frame, the record header or the body."""
    rec = msgpack.unpackb(signed.raw, raw=False)
    frame: dict[str, Any] = {"v": PROTOCOL_VERSION, "kind": "record", "raw": signed.raw, "sig": signed.sig}
    for _ in range(data.draw(st.integers(1, 3))):
        places = containers(frame) + containers(rec)
        _, obj = data.draw(st.sampled_from(places))
        action = data.draw(st.sampled_from(["replace", "replace", "remove", "add"]))
        if action == "add":
            value = copy.deepcopy(data.draw(objects | edge_values))  # mutable draws are mutated later
            if isinstance(obj, dict):
                obj[data.draw(st.text(max_size=6) | st.sampled_from(sorted(obj) or ["x"]))] = value
            else:
                obj.append(value)
        elif obj:
            key = data.draw(st.sampled_from(sorted(obj) if isinstance(obj, dict) else range(len(obj))))
            if action == "remove":
                del obj[key]
            else:
                obj[key] = copy.deepcopy(data.draw(edge_values | objects))
    raw = pack(rec)
    if frame.get("raw") is signed.raw:  # not replaced: carry the altered record
        frame["raw"] = raw
    decoded = try_decode(pack(frame))
    if isinstance(decoded, SignedRecord):
        assert decoded.raw == frame["raw"]
        assert decoded.sig == frame["sig"]


# ---------------------------------------------------------------------------
# The incremental decoder


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(SAMPLE_FRAMES), min_size=1, max_size=6), st.lists(st.integers(0, 1 << 16)))
def test_chunked_feeding_gives_the_frames_of_whole_decoding(frames: list[bytes], cuts: list[int]) -> None:
    stream = b"".join(frames)
    dec = FrameDecoder()
    out = []
    for chunk in split(stream, cuts):
        out.extend(dec.feed(chunk))
    assert out == [decode_frame(f) for f in frames]
    assert dec.failed is None


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.sampled_from(SAMPLE_FRAMES) | st.binary(min_size=1, max_size=12), min_size=1, max_size=6),
    st.lists(st.integers(0, 1 << 16)),
)
def test_chunked_feeding_of_damaged_streams(parts: list[bytes], cuts: list[int]) -> None:
    """Whatever the cuts, the same frames come out, or the stream fails; once failed, it stays failed."""
    stream = b"".join(parts)
    whole = FrameDecoder()
    try:
        expected: list[Any] | None = whole.feed(stream)
    except WireError:
        expected = None
    dec = FrameDecoder()
    out: list[Any] = []
    error: WireError | None = None
    for chunk in split(stream, cuts):
        try:
            out.extend(dec.feed(chunk))
        except WireError as e:
            error = e
            break
    if expected is not None:
        assert error is None
        assert out == expected
    else:
        assert error is not None
        assert dec.failed is error
        for later in (SAMPLE_FRAMES[1], b"", stream):
            with pytest.raises(WireError):
                dec.feed(later)


def test_decoder_stays_failed_after_a_bad_frame() -> None:
    dec = FrameDecoder()
    assert dec.feed(SAMPLE_FRAMES[0]) == [decode_frame(SAMPLE_FRAMES[0])]
    with pytest.raises(WireError, match="map"):
        dec.feed(pack([1, 2, 3]))
    for frame in SAMPLE_FRAMES[:3]:
        with pytest.raises(WireError):
            dec.feed(frame)
    assert dec.failed is not None


# ---------------------------------------------------------------------------
# Bounds


def test_frame_over_the_size_limit_is_refused() -> None:
    with pytest.raises(WireError, match="exceeds"):
        decode_frame(bytes(MAX_FRAME + 1))
    # A well-formed record frame just over the limit, too.
    frame = record_frame(bytes(MAX_FRAME))
    assert len(frame) > MAX_FRAME
    with pytest.raises(WireError):
        decode_frame(frame)


@pytest.mark.parametrize(
    "header",
    [
        b"\xc6\xff\xff\xff\xff",  # bin 32 claiming 4 GiB
        b"\xdb\xff\xff\xff\xff",  # str 32 claiming 4 GiB
        b"\x84\xa1v\x01\xa4kind\xa6record\xa3raw\xc6" + (4 * MAX_FRAME).to_bytes(4, "big"),
    ],
)
def test_decoder_buffer_never_grows_past_the_limit(header: bytes) -> None:
    """A header announcing a huge value: the decoder buffers at most MAX_FRAME, then fails."""
    dec = FrameDecoder()
    chunk = bytes(16 * 1024)
    fed = 0
    tracemalloc.start()
    try:
        assert dec.feed(header) == []
        fed = len(header)
        with pytest.raises(WireError):
            while fed <= 2 * MAX_FRAME:
                dec.feed(chunk)
                fed += len(chunk)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert fed - len(header) <= MAX_FRAME
    assert peak < 3 * MAX_FRAME
    with pytest.raises(WireError):
        dec.feed(SAMPLE_FRAMES[0])


def test_decoder_limit_is_configurable() -> None:
    dec = FrameDecoder(max_frame=1024)
    with pytest.raises(WireError):
        dec.feed(b"\xc5\x08\x00")  # bin 16 of 2048 bytes
        dec.feed(bytes(1100))
    small = FrameDecoder(max_frame=1024)
    assert small.feed(pack({"v": 1, "kind": "x"})[:3]) == []
    with pytest.raises(WireError, match="kind"):
        small.feed(pack({"v": 1, "kind": "x"})[3:])


@pytest.mark.parametrize("data", [b"\xdd\xff\xff\xff\xff", b"\xdf\xff\xff\xff\xff", b"\xdc\xff\xff"])
def test_huge_container_headers_are_refused(data: bytes) -> None:
    with pytest.raises(WireError):
        decode_frame(data)
    with pytest.raises(WireError):
        FrameDecoder().feed(data)


def test_array_length_limit() -> None:
    assert unpack_untrusted(pack([0] * MAX_ARRAY), MAX_FRAME) == [0] * MAX_ARRAY
    with pytest.raises(WireError, match="max_array_len"):
        unpack_untrusted(pack([0] * (MAX_ARRAY + 1)), MAX_FRAME)
    with pytest.raises(WireError):
        decode_frame(pack({"v": 1, "kind": "evidence", "records": [[b"", b""]] * (MAX_ARRAY + 1)}))
    raw = pack(record_map("shuffle", {"round": 0, "deck": [bytes(32)] * (MAX_ARRAY + 1)}))
    with pytest.raises(WireError, match="max_array_len"):
        decode_frame(record_frame(raw))


def test_map_length_limit() -> None:
    ok = {str(i): i for i in range(MAX_MAP)}
    assert unpack_untrusted(pack(ok), MAX_FRAME) == ok
    with pytest.raises(WireError, match="max_map_len"):
        unpack_untrusted(pack({str(i): i for i in range(MAX_MAP + 1)}), MAX_FRAME)
    with pytest.raises(WireError, match="max_map_len"):
        decode_frame(pack({str(i): i for i in range(MAX_MAP + 1)}))


@pytest.mark.parametrize(
    "data",
    [
        nested_arrays(100_000),
        b"\x81\xa1a" * 100_000 + b"\x01",
        b"\x81\xa1v" + nested_arrays(100_000),
        nested_arrays(1500),
    ],
    ids=["arrays", "maps", "in-version", "1500-arrays"],
)
def test_deep_nesting_is_a_wire_error(data: bytes) -> None:
    with pytest.raises(WireError):
        decode_frame(data)
    dec = FrameDecoder()
    with pytest.raises(WireError):
        for i in range(0, len(data), 4096):
            dec.feed(data[i : i + 4096])
    with pytest.raises(WireError):
        parse_record(data, bytes(64))


# msgpack's own nesting limit is 1024 levels; a value nested a little less deep
# decodes, and an error message must still describe it without recursing into it.
_REPR_DEPTH = 1020


def raw_map(fields: dict[str, bytes]) -> bytes:
    """A msgpack map written by hand from already encoded values (to place hand-made bytes)."""
    assert len(fields) < 16
    return bytes([0x80 | len(fields)]) + b"".join(pack(k) + v for k, v in fields.items())


def record_with(field: str, encoded: bytes) -> bytes:
    fields = {k: pack(v) for k, v in record_map("commit", {"commit": bytes(32)}).items()}
    fields[field] = encoded
    return raw_map(fields)


@pytest.mark.parametrize(
    "data",
    [
        raw_map({"v": nested_arrays(_REPR_DEPTH)}),  # wire.py decode_frame_object, version message
        raw_map({"v": pack(1), "kind": nested_arrays(_REPR_DEPTH)}),  # wire.py, unknown frame kind
        record_frame(record_with("v", nested_arrays(_REPR_DEPTH))),  # wire.py parse_record, version
        record_frame(record_with("type", nested_arrays(_REPR_DEPTH))),  # messages.py body_from_wire
    ],
    ids=["frame-version", "frame-kind", "record-version", "record-type"],
)
def test_deeply_nested_value_in_an_error_message(data: bytes) -> None:
    with pytest.raises(WireError):
        decode_frame(data)


def test_deeply_nested_values_are_within_msgpack_limits() -> None:
    """The values above decode as msgpack: the failure is in p2pcards' messages, not in msgpack."""
    for field in ("v", "type"):
        obj = unpack_untrusted(record_with(field, nested_arrays(_REPR_DEPTH)), MAX_FRAME)
        assert set(obj) == {"v", "game", "step", "seat", "prev", "type", "body"}
        depth, value = 0, obj[field]
        while isinstance(value, list):
            depth, value = depth + 1, value[0]
        assert depth == _REPR_DEPTH
    # And the field in a record of normal depth is refused cleanly.
    with pytest.raises(WireError, match="unknown record type"):
        decode_frame(record_frame(record_with("type", nested_arrays(50))))


@pytest.mark.parametrize(
    "data",
    [
        msgpack.packb(msgpack.ExtType(5, b"x")),
        msgpack.packb(msgpack.Timestamp(1_700_000_000, 0)),
        msgpack.packb(msgpack.Timestamp(1 << 40, 5)),  # timestamp 96
        b"\xc7\x00\x05",  # ext 8 of length 0
        b"\xc7\x00\xff",  # ext 8 of length 0, timestamp type
        pack({"v": 1, "kind": "record", "raw": b"x", "sig": 1})[:-1]
        + msgpack.packb(msgpack.ExtType(1, bytes(64))),
    ],
    ids=["ext", "timestamp32", "timestamp96", "empty-ext", "empty-timestamp", "ext-as-sig"],
)
def test_extension_types_are_refused(data: bytes) -> None:
    # Refused by name (section 2.1), whatever the extension's length: not in msgpack's words.
    with pytest.raises(WireError, match=r"^extension types are not allowed$"):
        decode_frame(data)
    with pytest.raises(WireError, match=r"^extension types are not allowed$"):
        FrameDecoder().feed(data)
    with pytest.raises(WireError, match=r"^extension types are not allowed$"):
        unpack_untrusted(data, MAX_RECORD)


def test_extension_type_inside_a_record_is_refused() -> None:
    raw = msgpack.packb(record_map("commit", {"commit": msgpack.ExtType(2, bytes(32))}))
    with pytest.raises(WireError):
        decode_frame(record_frame(raw))


@pytest.mark.parametrize(
    "data",
    [
        b"\x81\x01\x01",  # int key
        b"\x81\xc0\x01",  # nil key
        b"\x81\xc3\x01",  # bool key
        b"\x81\x91\x01\x01",  # array key
        b"\x81\x80\x01",  # map key
        b"\x81\xcb" + bytes(8) + b"\x01",  # float key
        pack({b"v": 1, b"kind": "evidence", b"records": [[b"", b""]]}),  # bin keys
    ],
)
def test_non_string_map_keys_are_refused(data: bytes) -> None:
    with pytest.raises(WireError):
        decode_frame(data)
    with pytest.raises(WireError):
        FrameDecoder().feed(data)


@pytest.mark.parametrize(
    ("data", "said"),
    [
        (b"\x81\x01\x01", "a map key that is not text"),
        (b"\x81\x91\x01\x01", "a map key that is not text"),
        (b"\xa2\xff\xfe", "text that is not valid UTF-8"),
        (b"\x81\xa2\xc3\x28\x01", "text that is not valid UTF-8"),
    ],
    ids=["int-key", "array-key", "utf8-value", "utf8-key"],
)
def test_what_msgpack_refuses_by_a_rule_of_the_profile_is_said_by_that_rule(data: bytes, said: str) -> None:
    """Section 2.1's words, not the library's ("ValueError: int is not allowed for map key
    when strict_map_key=True", "UnicodeDecodeError: 'utf-8' codec can't decode..."): a
    player reads them, in their language, in the verdict and in the audit."""
    for decode in (decode_frame, FrameDecoder().feed, lambda d: unpack_untrusted(d, MAX_RECORD)):
        with pytest.raises(WireError) as caught:
            decode(data)
        assert str(caught.value) == said
    with pytest.raises(WireError) as caught:  # inside a record: "malformed record: ..."
        parse_record(pack(record_map("dispute", {"reason": "x"})).replace(b"\xa1x", b"\xa1\x80"), bytes(64))
    assert str(caught.value).endswith("text that is not valid UTF-8"), caught.value


@pytest.mark.parametrize(
    "body",
    [{1: bytes(32)}, {b"commit": bytes(32)}, {"commit": bytes(32), b"commit": bytes(32)}],
    ids=["int", "bin", "bin-and-str"],
)
def test_non_string_keys_in_a_body_are_refused(body: dict[Any, Any]) -> None:
    raw = msgpack.packb(record_map("commit", body), strict_types=False)
    with pytest.raises(WireError):
        decode_frame(record_frame(raw))


def test_mixed_key_types_in_join_rules() -> None:
    join = SAMPLE_BODIES[0].to_wire()
    join["rules"] = {"target": 100, b"tie": "share"}
    with pytest.raises(WireError, match=r"join\.rules"):
        decode_frame(record_frame(pack(record_map("join", join))))


@pytest.mark.parametrize(
    "data",
    [
        b"\xa2\xff\xfe",
        b"\x81\xa2\xc3\x28\x01",  # invalid key
        pack({"v": 1, "kind": "record", "raw": b"", "sig": b""}).replace(b"\xa6record", b"\xa6recor\xff"),
        record_frame(pack(record_map("dispute", {"reason": "x"})).replace(b"\xa1x", b"\xa1\x80")),
    ],
    ids=["value", "key", "kind", "inside-raw"],
)
def test_invalid_utf8_is_refused(data: bytes) -> None:
    with pytest.raises(WireError):
        decode_frame(data)


def test_trailing_bytes_are_refused() -> None:
    signed = SAMPLE_RECORDS[1]
    with pytest.raises(WireError, match="trailing"):
        decode_frame(record_frame(signed.raw + b"\xc0", signed.sig))
    with pytest.raises(WireError, match="trailing"):
        decode_frame(signed.to_frame() + b"\xc0")
    with pytest.raises(WireError, match="trailing"):
        parse_record(signed.raw + b"\x00", signed.sig)


@pytest.mark.parametrize("version", [0, 2, -1, 256, "1", None, b"\x01", [1]])
def test_version_mismatch(version: Any) -> None:
    with pytest.raises(WireError, match="version"):
        decode_frame(pack({"v": version, "kind": "record", "raw": SAMPLE_RECORDS[1].raw, "sig": bytes(64)}))
    raw = pack(record_map("commit", {"commit": bytes(32)}, v=version))
    with pytest.raises(WireError, match="version"):
        decode_frame(record_frame(raw))


def test_missing_version() -> None:
    with pytest.raises(WireError, match="version"):
        decode_frame(pack({"kind": "record", "raw": SAMPLE_RECORDS[1].raw, "sig": bytes(64)}))


@pytest.mark.parametrize("version", [True, 1.0], ids=["true", "float"])
def test_version_must_be_an_integer(version: Any) -> None:
    raw = pack(record_map("commit", {"commit": bytes(32)}, v=version))
    with pytest.raises(WireError, match="version"):
        decode_frame(record_frame(raw))


# ---------------------------------------------------------------------------
# Schema: each field refused with a message that names it

K = bytes(31) + b"\x07"  # a valid non-zero scalar
GOOD_BODIES: dict[str, dict[str, Any]] = {b.TYPE: b.to_wire() for b in SAMPLE_BODIES}


def parse_body(body_type: str, body: Any, /, **header: Any) -> SignedRecord:
    return parse_record(pack(record_map(body_type, body, **header)), bytes(64))


@pytest.mark.parametrize(
    ("field", "value", "word"),
    [
        ("game", bytes(15), "game"),
        ("game", bytes(17), "game"),
        ("game", "x" * 16, "game"),
        ("step", -1, "step"),
        ("step", 1 << 32, "step"),
        ("step", "3", "step"),
        ("step", True, "step"),
        ("step", 3.0, "step"),
        ("seat", 6, "seat"),
        ("seat", -1, "seat"),
        ("seat", None, "seat"),
        ("prev", bytes(31), "prev"),
        ("prev", "p" * 32, "prev"),
        ("type", "shout", "type"),
        ("type", 3, "type"),
        ("body", [bytes(32)], "body"),
        ("body", None, "body"),
    ],
)
def test_header_field_errors_name_the_field(field: str, value: Any, word: str) -> None:
    with pytest.raises(WireError, match=word):
        parse_body("commit", {"commit": bytes(32)}, **{field: value})


@pytest.mark.parametrize("drop", ["v", "game", "step", "seat", "prev", "type", "body"])
def test_missing_or_extra_header_keys(drop: str) -> None:
    obj = record_map("commit", {"commit": bytes(32)})
    del obj[drop]
    with pytest.raises(WireError, match=drop):
        parse_record(pack(obj), bytes(64))
    obj[drop] = None
    obj["extra"] = 1
    with pytest.raises(WireError, match="keys"):
        parse_record(pack(obj), bytes(64))


def test_header_limits_are_inclusive() -> None:
    rec = parse_body("commit", {"commit": bytes(32)}, step=(1 << 32) - 1, seat=5).record
    assert (rec.step, rec.seat) == ((1 << 32) - 1, 5)


@pytest.mark.parametrize(
    ("raw", "sig"),
    [
        (b"", bytes(63)),
        (SAMPLE_RECORDS[1].raw, bytes(65)),
        ("text", bytes(64)),
        (SAMPLE_RECORDS[1].raw, None),
    ],
)
def test_record_needs_bytes_and_a_64_byte_signature(raw: Any, sig: Any) -> None:
    with pytest.raises(WireError, match="64-byte signature"):
        decode_frame(pack({"v": 1, "kind": "record", "raw": raw, "sig": sig}))


PLAYER = ["ann", ALICE.public_key]
PLAYER2 = ["bob", BOB.public_key]

SCHEMA_CASES: list[tuple[str, str, Any]] = [
    ("join", "version", -1),
    ("join", "version", 0x10000),
    ("join", "version", "1"),
    ("join", "game", "g" * 41),
    ("join", "game", b"nines"),
    ("join", "rules", [["target", 100]]),
    ("join", "rules", {"t" * 41: 1}),
    ("join", "rules", {"target": 1.5}),
    ("join", "rules", {"target": [[100]]}),
    ("join", "rules", {"trumps": [None] * 17}),
    ("join", "rules", {"trumps": [1.5]}),
    ("join", "rules", {"tie": "x" * 201}),
    ("join", "rules", {"tie": b"share"}),
    ("join", "roster", [PLAYER]),
    ("join", "roster", [PLAYER] * 7),
    ("join", "roster", [PLAYER, ["bob", bytes(31)]]),
    ("join", "roster", [PLAYER, ["b" * 33, BOB.public_key]]),
    ("join", "roster", [PLAYER, ["bob"]]),
    ("join", "roster", [PLAYER, [None, BOB.public_key]]),
    ("join", "roster", "ann,bob"),
    ("commit", "commit", bytes(31)),
    ("commit", "commit", bytes(33)),
    ("commit", "commit", "c" * 32),
    ("commit", "commit", None),
    ("reveal", "secret", bytes(31)),
    ("reveal", "secret", 7),
    ("reveal", "next", bytes(31)),
    ("reveal", "next", None),
    ("reveal", "next", "n" * 32),
    ("reveal", "shuffle", []),
    ("reveal", "shuffle", [bytes(32)] * 105),
    ("reveal", "shuffle", [bytes(31)]),
    ("reveal", "shuffle", None),
    ("reveal", "keys", [[0, 0, bytes(32)]]),
    ("reveal", "keys", None),
    ("keys", "ahead", ["deal", [bytes(32)], None]),
    ("keys", "ahead", ["lock", [], None]),
    ("keys", "ahead", ["shuffle", [bytes(32)], bytes(31)]),
    ("keys", "ahead", None),
    ("declare", "ahead", ["deal", [bytes(32)], None]),
    ("declare", "ahead", ["lock", [], None]),
    ("declare", "ahead", ["shuffle", [bytes(32)], bytes(31)]),
    ("declare", "ahead", None),
    ("play", "ahead", ["deal", [bytes(32)], None]),
    ("play", "ahead", ["lock", [], None]),
    ("play", "ahead", ["shuffle", [bytes(32)], bytes(31)]),
    ("play", "ahead", None),
    ("draw", "ahead", ["deal", [bytes(32)], None]),
    ("draw", "ahead", ["lock", [], None]),
    ("draw", "ahead", ["shuffle", [bytes(32)], bytes(31)]),
    ("draw", "ahead", None),
    ("keep", "ahead", ["deal", [bytes(32)], None]),
    ("keep", "ahead", ["lock", [], None]),
    ("keep", "ahead", ["shuffle", [bytes(32)], bytes(31)]),
    ("keep", "ahead", None),
    ("pass", "ahead", ["deal", [bytes(32)], None]),
    ("pass", "ahead", ["lock", [], None]),
    ("pass", "ahead", ["shuffle", [bytes(32)], bytes(31)]),
    ("pass", "ahead", None),
    ("accept-skip", "ahead", ["deal", [bytes(32)], None]),
    ("accept-skip", "ahead", ["lock", [], None]),
    ("accept-skip", "ahead", ["shuffle", [bytes(32)], bytes(31)]),
    ("accept-skip", "ahead", None),
    ("shuffle", "round", 1001),
    ("shuffle", "round", -1),
    ("shuffle", "round", None),
    ("shuffle", "deck", []),
    ("shuffle", "deck", [bytes(32)] * 105),
    ("shuffle", "deck", [bytes(32), bytes(31)]),
    ("shuffle", "deck", [bytes(32), "x" * 32]),
    ("shuffle", "deck", bytes(32)),
    ("lock", "round", 1001),
    ("lock", "deck", []),
    ("lock", "deck", [bytes(33)]),
    ("lock", "keys", [[0, 0, bytes(32)]]),
    ("lock", "keys", [[0, 104, K]]),
    ("lock", "keys", [[0, 0, K]] * 105),
    ("lock", "keys", None),
    ("keys", "keys", [[0, 0, bytes(32)]]),  # zero scalar
    ("keys", "keys", [[0, 0, bytes(31) + b"\x01" + b"\x00"]]),
    ("keys", "keys", [[1001, 0, K]]),
    ("keys", "keys", [[0, 104, K]]),
    ("keys", "keys", [[0, -1, K]]),
    ("keys", "keys", [[0, 0, 7]]),
    ("keys", "keys", [[0, 0]]),
    ("keys", "keys", [[0, 0, K, 1]]),
    ("keys", "keys", [[0, 0, K]] * 105),
    ("keys", "keys", {"0": K}),
    ("declare", "suit", "X"),
    ("declare", "suit", "h"),
    ("declare", "suit", ""),
    ("declare", "suit", "SH"),
    ("declare", "suit", None),
    ("declare", "suit", 0),
    ("play", "cards", []),
    ("play", "cards", [[0, 0, 0, K]] * 3),
    ("play", "cards", [[0, 0, 104, K]]),
    ("play", "cards", [[0, 104, 0, K]]),
    ("play", "cards", [[1001, 0, 0, K]]),
    ("play", "cards", [[0, 0, 0, bytes(32)]]),
    ("play", "cards", [[0, 0, 0]]),
    ("play", "cards", [[0, 0, "AS", K]]),
    ("play", "suit", "Q"),
    ("play", "suit", 1),
    ("play", "suit", ["S"]),
    ("relock", "layer", 1001),
    ("relock", "layer", -1),
    ("relock", "points", []),
    ("relock", "points", [bytes(31)]),
    ("relock", "points", [bytes(32)] * 105),
    ("unlock", "layer", "0"),
    ("unlock", "points", [bytes(32), None]),
    ("dispute", "reason", "r" * 201),
    ("dispute", "reason", None),
    ("dispute", "reason", b"why"),
    ("result", "totals", [1]),
    ("result", "totals", [1] * 7),
    ("result", "totals", [(1 << 30) + 1, 0]),
    ("result", "totals", [-(1 << 30) - 1, 0]),
    ("result", "totals", [1.0, 0]),
    ("result", "winners", []),
    ("result", "winners", [6]),
    ("result", "winners", [0] * 7),
    ("result", "winners", [True]),
    ("result", "winners", 0),
    ("join", "clock", [600, 60]),
    ("join", "clock", [600, 60, 86_401]),
    ("join", "clock", [600, 60, -1]),
    ("join", "clock", None),
    ("leave", "reason", "r" * 201),
    ("leave", "reason", "\x1b[2J"),
    ("confirm", "fingerprint", bytes(31)),
    ("confirm", "fingerprint", "00" * 32),
    ("confirm", "same", 1),
    ("confirm", "same", None),
    ("continue", "game", bytes(15)),
    ("continue", "left", [6]),
    ("continue", "left", []),
    ("continue", "left", [0, 1, 2, 3, 4]),
    ("continue", "left", 2),
    ("continue", "reason", None),
    ("continue", "steps", (1 << 30) + 1),
    ("continue", "steps", "1"),
    ("continue", "last", bytes(31)),
    ("continue", "hands", -1),
    ("continue", "hands", (1 << 20) + 1),
]


def test_schema_cases_cover_every_field() -> None:
    covered = {(t, f) for t, f, _ in SCHEMA_CASES}
    assert covered == {(t, f) for t, cls in BODY_TYPES.items() for f in cls.SCHEMA}


@pytest.mark.parametrize(("body_type", "field", "value"), SCHEMA_CASES)
def test_bad_field_is_refused_naming_the_field(body_type: str, field: str, value: Any) -> None:
    body = dict(GOOD_BODIES[body_type], **{field: value})
    with pytest.raises(WireError) as info:
        parse_body(body_type, body)
    assert f"{body_type}.{field}" in str(info.value)
    # The same body with the field restored is accepted: the refusal is about that field.
    restored = parse_body(body_type, GOOD_BODIES[body_type]).record.body
    assert restored.to_wire() == GOOD_BODIES[body_type]


@pytest.mark.parametrize("body_type", sorted(BODY_TYPES))
def test_missing_and_unexpected_body_fields(body_type: str) -> None:
    good = GOOD_BODIES[body_type]
    with pytest.raises(WireError) as info:
        parse_body(body_type, dict(good, surplus=1))
    assert "surplus" in str(info.value) and body_type in str(info.value)
    optional = BODY_TYPES[body_type].OPTIONAL
    for field in good:
        without = {k: v for k, v in good.items() if k != field}
        if field in optional:  # may be left out: read as not stated
            assert getattr(parse_body(body_type, without).record.body, field) is None
            continue
        with pytest.raises(WireError) as info:
            parse_body(body_type, without)
        assert field in str(info.value) and "missing" in str(info.value)


@pytest.mark.parametrize(
    ("body_type", "body"),
    [
        ("join", dict(GOOD_BODIES["join"], game="g" * 40, roster=[PLAYER] * 6)),
        ("join", dict(GOOD_BODIES["join"], roster=[["n" * 32, ALICE.public_key], PLAYER2])),
        ("join", dict(GOOD_BODIES["join"], rules={f"r{i:02d}": None for i in range(MAX_MAP)})),
        ("shuffle", {"round": 1000, "deck": [bytes(32)] * 104}),
        ("keys", {"keys": [[1000, 103, b"\xff" * 32]] * 104}),
        ("play", {"cards": [[1000, 103, 103, K], [0, 0, 0, K]], "suit": "C"}),
        ("dispute", {"reason": "r" * 200}),
        ("result", {"totals": [1 << 30] * 6, "winners": [5, 4, 3, 2, 1, 0]}),
        ("result", {"totals": [-(1 << 30)] * 6, "winners": [0]}),
        ("relock", {"layer": 1000, "points": [bytes(32)] * 104}),
        ("join", dict(GOOD_BODIES["join"], rules={"trumps": ["S", None] * 8})),
    ],
)
def test_field_limits_are_inclusive(body_type: str, body: dict[str, Any]) -> None:
    parsed = parse_body(body_type, body).record.body
    assert parsed.to_wire() == body
    # The parsed body re-encodes to the same bytes (the record was already canonical).
    raw = pack(record_map(body_type, body))
    assert parse_record(raw, bytes(64)).record.to_bytes() == raw


def test_abort_notice_round_trip_and_bounds() -> None:
    from p2pcards.protocol.wire import MAX_REASON, Abort

    frame = decode_frame(Abort("seat 2 at fault: bad signature").to_frame())
    assert frame == Abort("seat 2 at fault: bad signature")
    assert decode_frame(Abort("x" * 1000).to_frame()) == Abort("x" * MAX_REASON)  # the sender truncates
    for bad in (
        {"v": 1, "kind": "abort", "reason": "x" * (MAX_REASON + 1)},
        {"v": 1, "kind": "abort", "reason": b"bytes"},
        {"v": 1, "kind": "abort"},
        {"v": 1, "kind": "abort", "reason": "x", "extra": 1},
    ):
        with pytest.raises(WireError, match="abort"):
            decode_frame(pack(bad))


def test_a_byte_that_starts_no_value_is_said_without_an_empty_explanation():
    """msgpack's FormatError for a reserved byte (0xc1) carries no words: the problem names
    it, and ends with no dangling colon (a peer was named for 'FormatError: ' before)."""
    from p2pcards.protocol.wire import StreamDecoder, unpack_untrusted

    with pytest.raises(WireError) as one:
        unpack_untrusted(b"\xc1junk", 100)
    assert str(one.value) == "undecodable msgpack (FormatError)"
    with pytest.raises(WireError) as stream:
        StreamDecoder().feed(b"\xc1")
    assert str(stream.value) == "undecodable stream (FormatError)"
