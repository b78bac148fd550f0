"""A record that does not read, yet is validly signed by the seat its bytes name, blames
that seat in an audit (protocol.md 7.1), whatever makes it unreadable: a string that is not
UTF-8, a bound of 2.1 (the record's size, an array's length), bytes after its map. The seat
is read past the damage, with work linear in the record's size."""

from __future__ import annotations

import time
from collections.abc import Callable

import msgpack
import pytest
from protocol_helpers import RawRecord, honest_transcript, identity_for, raw_records_file, record_map

from p2pcards.protocol import audit
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.transcript import decode_file
from p2pcards.protocol.wire import SIGN_PREFIX, named_seat


def records() -> list[RawRecord]:
    return [RawRecord(*r) for r in decode_file(honest_transcript(3)).records]


def signed(raw: bytes, signer: int) -> RawRecord:
    return RawRecord(raw, identity_for(signer).sign(SIGN_PREFIX + raw))


def not_utf8(obj: dict) -> bytes:
    """``obj`` packed with the text of its ``type`` made invalid UTF-8 (the bytes a non-UTF-8
    name would have)."""
    raw = msgpack.packb(obj, use_bin_type=True)
    text = msgpack.packb(obj["type"])
    bad = obj["type"].encode()[:-1] + b"\xff"
    return raw.replace(text, bytes([0xA0 | len(bad)]) + bad, 1)


def oversized(obj: dict) -> bytes:
    obj["body"] = {"reason": "x" * 70_000}
    return msgpack.packb(obj, use_bin_type=True)


def long_array(obj: dict) -> bytes:
    obj["body"] = {"cards": list(range(300))}
    return msgpack.packb(obj, use_bin_type=True)


def trailing(obj: dict) -> bytes:
    return msgpack.packb(obj, use_bin_type=True) + b"\x00"


def non_text_keys_first(obj: dict) -> bytes:
    raw = msgpack.packb({1: [[1, 2], {"x": b"y"}], b"k": "v", **obj}, use_bin_type=True)
    return raw + b"\xc1"  # (a key that is not text, another of bytes, and a bad byte after the map)


UNREADABLE: dict[str, Callable[[dict], bytes]] = {
    "not UTF-8": not_utf8,
    "over the record size": oversized,
    "an array over its bound": long_array,
    "bytes after the map": trailing,
    "other keys first, then a bad byte": non_text_keys_first,
}


@pytest.mark.parametrize("how", list(UNREADABLE))
def test_a_validly_signed_record_that_does_not_read_blames_its_signer(how: str) -> None:
    recs = records()
    i = 20
    obj = record_map(recs[i].raw)
    seat = obj["seat"]
    raw = UNREADABLE[how](obj)
    assert named_seat(raw) == seat
    report = audit_bytes(raw_records_file([*recs[:i], signed(raw, seat), *recs[i + 1 :]]))
    (p,) = [p for p in report.problems if p.record == i]
    assert p.what.startswith("malformed record") and p.seat == seat, report.summary()
    assert not report.valid and not report.internal_error
    # The same bytes signed by another seat's key: nobody.
    other = (seat + 1) % 3
    report = audit_bytes(raw_records_file([*recs[:i], signed(raw, other), *recs[i + 1 :]]))
    (p,) = [p for p in report.problems if p.record == i]
    assert p.seat is None, report.summary()


def test_a_first_join_with_a_name_that_is_not_utf8_blames_its_signer_by_the_next_join() -> None:
    recs = records()
    obj = record_map(recs[0].raw)
    assert (obj["type"], obj["seat"]) == ("join", 0)
    raw = msgpack.packb(obj, use_bin_type=True)
    name = obj["body"]["roster"][0][0]
    bad = name.encode()[:-1] + b"\xff"
    raw = raw.replace(msgpack.packb(name), bytes([0xA0 | len(bad)]) + bad, 1)
    report = audit_bytes(raw_records_file([signed(raw, 0), *recs[1:]]))
    p = report.problems[0]
    assert (p.seat, p.record) == (0, 0) and p.what.startswith("malformed record"), report.summary()


@pytest.mark.parametrize(
    "raw",
    [
        b"",
        b"\x91" * 200_000 + b"\x00",  # nested deeper than any decoder goes
        b"\x81\xa4seat\xa1x",  # a seat that is not an integer
        b"\x81\xa4seat\x91\x00",
        b"\x82\xa1a" + b"\xdd\xff\xff\xff\xff",  # an array that claims more than there is
        msgpack.packb([1, 2, 3]),
        b"\x81\xa4seat\xcf" + b"\xff" * 8,  # 2^64-1: an integer, but no seat
    ],
)
def test_bytes_that_name_no_seat_name_none_quickly(raw: bytes) -> None:
    began = time.monotonic()
    seat = named_seat(raw)
    assert seat is None or (type(seat) is int and seat >= 2**63)
    assert time.monotonic() - began < 1


def test_a_huge_value_before_the_seat_is_skipped_unbuilt() -> None:
    raw = msgpack.packb({"pad": list(range(2_000_000)), "seat": 2}, use_bin_type=True)
    assert named_seat(raw) == 2


def test_copies_of_one_signed_record_are_checked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A file may hold a million records: the copies of one validly signed record that does
    not read (each a problem of its own, counted) cost one signature check, not one each."""
    recs = records()
    obj = record_map(recs[20].raw)
    obj["step"] = -1  # signed by its seat, but no step: it does not read
    bad = signed(msgpack.packb(obj, use_bin_type=True), obj["seat"])
    checks: list[bytes] = []
    real = audit.verify_signature

    def counted(key: bytes, sig: bytes, message: bytes) -> bool:
        checks.append(sig)
        return real(key, sig, message)

    monkeypatch.setattr(audit, "verify_signature", counted)
    report = audit_bytes(raw_records_file([*recs, *[bad] * 3000]))
    assert report.problems and report.problems[0].seat == obj["seat"], report.summary()
    assert "2900 more problems" in " ".join(report.summary().split()), report.summary()
    assert checks.count(bad.sig) == 1
