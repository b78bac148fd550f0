"""Damage to a transcript file's own structure: located, read around, blamed on nobody.

A byte changed, lost or added outside the signed records (a field name, an array
or bin header, a count) does not make a transcript unreadable: the audit names
the byte offset and the record where the structure breaks, reads every record
it can around it, and audits them. Only signed records are evidence, so such
damage never blames a seat. The file is the honest 3-hand fixture.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import msgpack
import pytest
from click.testing import CliRunner
from hypothesis import example, given, settings
from hypothesis import strategies as st

from p2pcards.cli import main
from p2pcards.errors import TranscriptError
from p2pcards.protocol.audit import AuditReport, audit_bytes
from p2pcards.protocol.transcript import MAX_DAMAGE, decode_file
from p2pcards.protocol.wire import pack

DATA = (Path(__file__).parent / "fixtures" / "nines-3p-target30.p2pt").read_bytes()


@dataclass(frozen=True)
class Entry:
    start: int  # its array header
    raw: range  # the signed bytes
    sig: range  # the signature


@dataclass(frozen=True)
class Layout:
    """Where everything lies in an honest file written by ``encode_file``."""

    entries: list[Entry]
    values: list[range]  # saved_by, the status text, the checksum: values the checksum covers

    def kind(self, pos: int) -> tuple[str, int | None]:
        """("signed", i), ("framing", i) for record i's own bytes; ("value", None); or
        ("structure", None) for the rest (headers, names, counts, format, version)."""
        for i, e in enumerate(self.entries):
            if e.start <= pos < e.sig.stop:
                return ("signed" if pos in e.raw or pos in e.sig else "framing"), i
        if any(pos in r for r in self.values):
            return "value", None
        return "structure", None

    def record_near(self, pos: int) -> int:
        """The record a damage report at ``pos`` should name: the record it lies in,
        0 before the first one, the last one after them."""
        i = self.kind(pos)[1]
        if i is not None:
            return i
        return 0 if pos < self.entries[0].start else len(self.entries) - 1

    def before(self, pos: int) -> int:
        """How many records lie wholly before ``pos``."""
        return sum(1 for e in self.entries if e.sig.stop <= pos)


def layout(data: bytes) -> Layout:
    unpacker = msgpack.Unpacker(raw=False)
    unpacker.feed(data)
    entries, values = [], []
    for _ in range(unpacker.read_map_header()):
        key = unpacker.unpack()
        at = unpacker.tell()
        if key != "records":
            value = unpacker.unpack()
            if key in ("saved_by", "status", "checksum"):
                header = 0 if key == "saved_by" else len(pack(value)) - len(value)
                values.append(range(at + header, unpacker.tell()))
            continue
        for _ in range(unpacker.read_array_header()):
            start = unpacker.tell()
            unpacker.read_array_header()
            raw = unpacker.unpack()
            raw_end = unpacker.tell()
            sig = unpacker.unpack()
            end = unpacker.tell()
            entries.append(Entry(start, range(raw_end - len(raw), raw_end), range(end - len(sig), end)))
    assert unpacker.tell() == len(data)
    return Layout(entries, values)


LAYOUT = layout(DATA)
N = len(LAYOUT.entries)
STRUCTURE = [p for p in range(len(DATA)) if LAYOUT.kind(p)[0] in ("structure", "framing")]


@cache
def full() -> AuditReport:
    return audit_bytes(DATA)


@cache
def hands_before(records: int) -> int:
    """Hands verified in the file cut just before record ``records``: what damage
    there must never take away."""
    if records == 0:
        return 0
    cut = LAYOUT.entries[records].start if records < N else LAYOUT.entries[-1].sig.stop
    return audit_bytes(DATA[:cut]).hands_verified


def changed(pos: int, mask: int) -> bytes:
    data = bytearray(DATA)
    data[pos] ^= mask
    return bytes(data)


def damage_of(report: AuditReport) -> list[tuple[int, int | None]]:
    """(byte offset, record) of each damaged spot the report names."""
    out = []
    for p in report.problems:
        m = re.match(r"the file's structure is damaged at byte offset (\d+), ", p.what)
        if m:
            out.append((int(m.group(1)), p.record))
    return out


def test_the_fixture_is_a_valid_game_of_several_hands() -> None:
    assert full().valid and full().hands_verified == 3 and N == 240
    assert len(STRUCTURE) > 5 * N


# ---------------------------------------------------------------------------
# Exactly where: one changed byte at a known place


def only_damage(data: bytes) -> tuple[AuditReport, str]:
    """The report on ``data``, whose only problem is damage; and that problem's text."""
    report = audit_bytes(data)
    [problem] = report.problems
    assert problem.seat is None
    assert report.damaged == 1 and not report.valid and not report.incomplete
    return report, problem.what


def test_the_records_count() -> None:
    header = LAYOUT.entries[0].start - 3  # dc, then two bytes: 240 records
    assert DATA[header : header + 3] == b"\xdc\x00\xf0"
    report, what = only_damage(changed(header + 2, 0x01))
    assert what == (
        f"the file's structure is damaged at byte offset {header + 2}, before record 0: "
        "the number of records there says 241, the file holds 240"
    )
    assert report.records == N and report.hands_verified == 3 and report.problems[0].record == 0
    _, what = only_damage(changed(header + 1, 0x01))
    assert f"at byte offset {header + 1}, before record 0: the number of records there says 496" in what


def test_the_records_array_header() -> None:
    header = LAYOUT.entries[0].start - 3
    report, what = only_damage(changed(header, 0x01))  # dc -> dd: a 4-byte count eats record 0's header
    assert what == (
        f"the file's structure is damaged at byte offset {header}, before record 0: "
        "the bytes there are altered; record 0 after them is intact and was read"
    )
    assert report.records == N and report.hands_verified == 3


@pytest.mark.parametrize("i", [0, 5, 117, N - 1])
@pytest.mark.parametrize("which", ["array", "bin type", "length"])
def test_the_framing_of_a_record(i: int, which: str) -> None:
    """The header of a record's array or of its signed bytes: the record is found intact."""
    e = LAYOUT.entries[i]
    pos = {"array": e.start, "bin type": e.start + 1, "length": e.raw.start - 1}[which]
    report, what = only_damage(changed(pos, 0x10))
    assert what == (
        f"the file's structure is damaged at byte offset {pos}, in record {i}: "
        "its framing is altered; its signed bytes are intact and were read"
    )
    assert report.problems[0].record == i
    assert report.records == N and report.hands_verified == 3
    # Its checksum matches what was read: every record was recovered as it was saved.
    assert decode_file(changed(pos, 0x10)).checksum_ok


@pytest.mark.parametrize("mask", [0x01, 0x40, 0x80])
def test_the_header_of_a_signature(mask: int) -> None:
    e = LAYOUT.entries[42]
    for pos in (e.sig.start - 2, e.sig.start - 1):
        _, what = only_damage(changed(pos, mask))
        assert what.startswith(f"the file's structure is damaged at byte offset {pos}, in record 42: ")


def test_the_format_key() -> None:
    assert DATA[1:8] == b"\xa6format"
    report, what = only_damage(changed(3, 0x01))
    assert what == (
        "the file's structure is damaged at byte offset 3, before record 0: "
        "a field name reads 'fnrmat' instead of 'format'"
    )
    assert report.problems[0].record == 0 and report.hands_verified == 3


def test_the_format_marker() -> None:
    _, what = only_damage(changed(12, 0x01))
    assert what.startswith(
        "the file's structure is damaged at byte offset 12, before record 0: the format reads"
    )


def test_the_files_map_header() -> None:
    _, what = only_damage(changed(0, 0x01))  # 6 fields -> 7
    assert what == (
        "the file's structure is damaged at byte offset 0, before record 0: "
        "the number of fields there says 7, the file has 6"
    )
    _, what = only_damage(changed(0, 0x80))
    assert (
        "at byte offset 0, before record 0: its first byte (0x06) does not open the transcript's map" in what
    )


@pytest.mark.parametrize("offset", [-41, -40, -34, -33])  # checksum's str header, name, bin header, length
def test_the_checksums_framing(offset: int) -> None:
    pos = len(DATA) + offset
    report, what = only_damage(changed(pos, 0x02))
    assert what.startswith(f"the file's structure is damaged at byte offset {pos}, after record {N - 1}: ")
    assert report.problems[0].record == N - 1 and report.hands_verified == 3


def test_a_lost_record_is_skipped_and_the_rest_still_read() -> None:
    """A byte lost inside a record's signed bytes loses that record (its signature no
    longer verifies) but not those after it."""
    e = LAYOUT.entries[100]
    data = DATA[: e.raw.start + 20] + DATA[e.raw.start + 21 :]
    report = audit_bytes(data)
    assert all(p.seat is None for p in report.problems)
    [(offset, record)] = damage_of(report)
    assert (offset, record) == (e.start, 100)
    assert report.records == N - 1
    assert report.hands_verified >= hands_before(100)
    assert any(
        "before record 100" in p.what and "skipped (a record may be lost)" in p.what for p in report.problems
    )


def test_a_cut_file_is_still_cut_and_not_damaged() -> None:
    e = LAYOUT.entries[150]
    report = audit_bytes(DATA[: e.start + 30])
    assert report.cut and report.incomplete and report.damaged == 0 and report.records == 150
    # the JSON record says so (docs/record.md, `verdict`); a damaged file's does not
    assert report.verdict()["incomplete"] is True and not report.verdict()["valid"]
    damaged = audit_bytes(changed(e.raw.start - 1, 0x10))
    assert not damaged.incomplete and "incomplete" not in damaged.verdict()


def test_the_cli_names_the_spot(tmp_path: Path) -> None:
    e = LAYOUT.entries[5]
    path = tmp_path / "damaged.p2pt"
    path.write_bytes(changed(e.raw.start - 1, 0x10))
    result = CliRunner().invoke(main, ["audit", str(path)])
    assert result.exit_code == 1, result.output
    assert result.output.startswith("INVALID: 1 problem found in a game of Nines.")
    assert "Hands 1-3 verified from the records read." in result.output
    flat = " ".join(result.output.split())
    assert f"record 5: the file's structure is damaged at byte offset {e.raw.start - 1}, in record 5" in flat
    assert "blame nobody in particular" in flat
    assert all(len(line) < 80 for line in result.output.splitlines())


@pytest.mark.parametrize(
    "data",
    [b"\x86" + b"\xa6format" + pack("p2pcards-transcript") + b"\xa7records\x91\x92", DATA[:60] + bytes(500)],
    ids=["no-record", "zeros"],
)
def test_a_marked_file_without_any_readable_record_is_not_a_transcript(data: bytes) -> None:
    with pytest.raises(TranscriptError, match="transcript"):
        audit_bytes(data)


# ---------------------------------------------------------------------------
# Any one byte changed, lost or added


def check_any_change(report: AuditReport, pos: int) -> None:
    """What holds for every alteration of one byte at ``pos``."""
    assert not report.valid  # the file differs from what was signed and saved
    # A change inside a signed record breaks its signature, so no seat is ever blamed.
    assert all(p.seat is None for p in report.problems), report.problems
    # The records before the damage are audited as far as a cut there would be.
    assert report.hands_verified >= hands_before(LAYOUT.before(pos))
    report.summary()  # and it can be said


positions = st.one_of(st.integers(0, len(DATA) - 1), st.sampled_from(STRUCTURE))


@settings(max_examples=120, deadline=None)
@given(pos=positions, mask=st.integers(1, 255))
@example(pos=36, mask=0x80)  # the version becomes a one-entry map that swallows saved_by
@example(pos=54, mask=0x80)  # the status's str header becomes an integer
# a record's length runs into the next record, up to a 64-byte bin and a map key there
@example(pos=LAYOUT.entries[181].raw.start - 1, mask=0x80)
def test_any_changed_byte(pos: int, mask: int) -> None:
    report = audit_bytes(changed(pos, mask))
    check_any_change(report, pos)
    kind, i = LAYOUT.kind(pos)
    if kind in ("structure", "framing"):
        spots = damage_of(report)
        assert spots, report.problems
        near = LAYOUT.record_near(pos)
        # Named where it is: at the byte, or at the start of the value it belongs to.
        assert any(record == near and pos - 20 <= offset <= pos for offset, record in spots), (pos, spots)
        if kind == "framing":
            assert (pos, i) in spots and report.hands_verified == 3  # the record itself was read
    elif kind == "signed":
        assert i in [p.record for p in report.problems] and not report.damaged
    else:
        assert report.hands_verified == 3 and report.records == N


@settings(max_examples=60, deadline=None)
@given(pos=positions)
def test_any_lost_byte(pos: int) -> None:
    report = audit_bytes(DATA[:pos] + DATA[pos + 1 :])
    check_any_change(report, pos)


@settings(max_examples=60, deadline=None)
@given(pos=st.one_of(st.integers(0, len(DATA)), st.sampled_from(STRUCTURE)), byte=st.integers(0, 255))
def test_any_added_byte(pos: int, byte: int) -> None:
    report = audit_bytes(DATA[:pos] + bytes([byte]) + DATA[pos:])
    check_any_change(report, pos)
    if pos == len(DATA):
        assert damage_of(report) == [(pos, N - 1)]


# ---------------------------------------------------------------------------
# Bounded work


def test_damage_everywhere_stops_after_a_bounded_number_of_spots() -> None:
    data = bytearray(DATA)
    for e in LAYOUT.entries:
        data[e.start] ^= 0x01
    report = audit_bytes(bytes(data))
    spots = damage_of(report)
    assert len(spots) == MAX_DAMAGE + 1
    assert "too much damage" in report.problems[-1].what
    assert all(p.seat is None for p in report.problems)


LURES = {
    # pairs whose record is no record: each costs a decode (the probe budget)
    "lures": b"\x92\xc4\x05\x81\xa1v\x01\x00\xc4\x40" + bytes(64),
    # a bin header before a map header at every third byte (the scan budget)
    "starts": b"\xc4\x05\x81",
    # nothing that may start a record (one linear scan)
    "zeros": bytes(64),
}


@pytest.mark.parametrize("lure", LURES.values(), ids=LURES.keys())
def test_a_large_damaged_file_is_read_in_bounded_time(lure: bytes) -> None:
    """Tens of MiB after damage, made to look like records at every step or at none:
    the scan for a way past it is linear and the candidates it checks are bounded."""
    e = LAYOUT.entries[10]
    data = DATA[: e.start] + b"\x00" + lure * (48 * 1024 * 1024 // len(lure))
    started = time.monotonic()
    report = audit_bytes(data)
    assert time.monotonic() - started < 10
    assert report.records == 10 and all(p.seat is None for p in report.problems)
    assert damage_of(report)[0] == (e.start, 9)
