"""The transcript file and the audit of damaged, edited, truncated or foreign files.

One honest 3-player match is played once per module; every test audits that
file or an altered copy. A file that is not a transcript at all raises
``TranscriptError``; any alteration of a transcript yields an invalid report that
names, where it can, the record and the seat to blame (damage to the file's own
structure is read around: see ``test_transcript_damage.py``).
"""

from __future__ import annotations

import hashlib
import json
import random
from dataclasses import dataclass
from pathlib import Path

import msgpack
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import SHORT_RULES, make_tables, records_file, run_match, transcript_bytes

from p2pcards.errors import TranscriptError
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.record import build_record
from p2pcards.protocol.audit import AuditReport, audit_bytes, audit_file
from p2pcards.protocol.transcript import FORMAT, FORMAT_VERSION, decode_file, encode_file, load, save
from p2pcards.protocol.wire import SignedRecord, pack

SEED = 1  # a seed whose short match lasts more than one hand


@dataclass(frozen=True)
class Honest:
    tables: dict[int, Table]
    records: list[SignedRecord]
    data: bytes  # seat 0's file

    def locate(self, pos: int) -> int | None:
        """Index of the record whose signed bytes or signature hold file byte ``pos``."""
        for i, r in enumerate(self.records):
            for payload in (r.raw, r.sig):
                start = self.data.find(payload)
                if start <= pos < start + len(payload):
                    return i
        return None


@pytest.fixture(scope="module")
def honest() -> Honest:
    tables = make_tables(3, SHORT_RULES, SEED)
    net = run_match(tables, SEED)
    assert net.failures == {}
    assert all(t.status == "over" for t in tables.values())
    return Honest(tables, tables[0].transcript.records(), transcript_bytes(tables[0]))


def audit_records(records: list[SignedRecord]) -> AuditReport:
    return audit_bytes(records_file(records))


# ---------------------------------------------------------------------------
# An honest file


def test_honest_file_is_valid_and_matches_the_tables(honest: Honest) -> None:
    report = audit_bytes(honest.data)
    assert report.valid, report.problems
    assert report.records == len(honest.records)
    table = honest.tables[0]
    assert table.match is not None and table.match.over
    doc = report.to_record()
    assert doc["verdict"] == {"valid": True, "problems": []}
    assert doc["result"]["totals"] == list(table.match.totals)
    assert doc["result"]["winners"] == list(table.match.winners or ())
    assert doc["result"]["finished"] is True
    assert len(doc["hands"]) == len(table.match.results) >= 1
    assert [(p["name"], p["key"]) for p in doc["players"]] == [(p.name, p.key.hex()) for p in table.roster]
    # The audit rebuilt, from the signed records alone, exactly what the seat's own table holds.
    players = [(p.name, p.key.hex()) for p in table.roster]
    assert doc == build_record(table.match, players, table.cut_rounds, {"valid": True, "problems": []})
    assert "VALID" in report.summary() and "INVALID" not in report.summary()


def test_every_seat_saves_the_same_records(honest: Honest) -> None:
    docs = []
    for seat, table in honest.tables.items():
        data = transcript_bytes(table)
        tf = decode_file(data)
        assert tf.checksum_ok and tf.saved_by == seat and tf.status == "over"
        assert [raw for raw, _ in tf.records] == [r.raw for r in honest.records]
        report = audit_bytes(data)
        assert report.valid, report.problems
        docs.append(json.dumps(report.to_record(), sort_keys=True))
    assert len(set(docs)) == 1


def test_save_and_load_round_trip(honest: Honest, tmp_path) -> None:
    path = tmp_path / "sub" / "match.p2pt"
    save(path, honest.data)
    assert path.read_bytes() == honest.data
    assert not path.with_name(path.name + ".tmp").exists()
    assert load(path).records == decode_file(honest.data).records
    assert audit_file(path).valid
    with pytest.raises(TranscriptError, match="cannot read"):
        audit_file(tmp_path / "missing.p2pt")
    with pytest.raises(TranscriptError, match="cannot read"):
        load(tmp_path / "missing.p2pt")


# ---------------------------------------------------------------------------
# One flipped bit anywhere


def flip_positions(size: int, records: list[SignedRecord], data: bytes) -> list[int]:
    """60 positions: the first bytes, the checksum, inside signed records, and a seeded spread."""
    rng = random.Random(7)
    fixed = [0, 1, 2, 10, 20, 40, size - 1, size - 16, size - 32, size - 33]
    inside = []
    for r in (records[0], records[len(records) // 2], records[-1]):
        raw_at, sig_at = data.find(r.raw), data.find(r.sig)
        inside += [raw_at, raw_at + len(r.raw) // 2, raw_at + len(r.raw) - 1, sig_at, sig_at + 63]
    spread = [rng.randrange(k * size // 35, (k + 1) * size // 35) for k in range(35)]
    return fixed + inside + spread


FLIPS = 60


@pytest.fixture(scope="module")
def flips(honest: Honest) -> list[tuple[int, int]]:
    positions = flip_positions(len(honest.data), honest.records, honest.data)
    assert len(positions) == FLIPS
    rng = random.Random(11)
    return [(pos, rng.randrange(8)) for pos in positions]


@pytest.mark.parametrize("k", range(FLIPS))
def test_one_flipped_bit_is_always_caught(honest: Honest, flips: list[tuple[int, int]], k: int) -> None:
    pos, bit = flips[k]
    damaged = bytearray(honest.data)
    damaged[pos] ^= 1 << bit
    report = audit_bytes(bytes(damaged))  # still a transcript: never "unreadable"
    assert not report.valid
    whats = [p.what for p in report.problems]
    # The checksum catches a changed value; a changed structure is located instead.
    assert any("checksum" in w or "structure is damaged" in w for w in whats), whats
    assert all(p.seat is None for p in report.problems), report.problems
    record = honest.locate(pos)
    if record is not None:  # inside a signed record: that very record is named
        assert record in [p.record for p in report.problems], report.problems
    # A file that only reads as cut short verifies what precedes (INCOMPLETE); any
    # other flip is a fault or damage (INVALID).
    assert ("INCOMPLETE" if report.cut and not report.damaged else "INVALID") in report.summary()


@pytest.mark.parametrize("which", ["raw", "sig"])
def test_flipped_bit_with_a_recomputed_checksum_names_the_record(honest: Honest, which: str) -> None:
    """A forger who rewrites the checksum still cannot alter a signed record unnoticed."""
    rng = random.Random(which)
    for i in sorted(rng.sample(range(len(honest.records)), 12)):
        r = honest.records[i]
        payload = bytearray(getattr(r, which))
        payload[rng.randrange(len(payload))] ^= 1 << rng.randrange(8)
        altered = SignedRecord(
            bytes(payload) if which == "raw" else r.raw, bytes(payload) if which == "sig" else r.sig, r.record
        )
        records = [*honest.records[:i], altered, *honest.records[i + 1 :]]
        report = audit_records(records)
        assert not report.valid
        assert [p.record for p in report.problems] == [i], report.problems
        assert not any("checksum" in p.what for p in report.problems)


# ---------------------------------------------------------------------------
# Files that are not transcripts at all


def test_empty_file() -> None:
    with pytest.raises(TranscriptError, match=r"not a p2pcards transcript: the file is empty"):
        audit_bytes(b"")


@pytest.mark.parametrize("keep", [1, 10, 100])
def test_file_cut_before_its_first_record(honest: Honest, keep: int) -> None:
    with pytest.raises(TranscriptError, match=r"transcript.*truncated"):
        audit_bytes(honest.data[:keep])


@pytest.mark.parametrize("keep", [1000, -1])
def test_truncated_file_verifies_what_it_holds(honest: Honest, keep: int) -> None:
    """A file cut short keeps its complete records: they verify, and nobody is blamed."""
    report = audit_bytes(honest.data[:keep])
    assert report.cut and report.incomplete and not report.valid
    assert 0 < report.records <= len(honest.records)
    assert all(p.seat is None for p in report.problems)
    assert report.summary().startswith("INCOMPLETE: ")


def test_json_file(honest: Honest) -> None:
    doc = audit_bytes(honest.data).to_record()
    with pytest.raises(TranscriptError, match="not a p2pcards transcript"):
        audit_bytes(json.dumps(doc).encode())


def test_file_with_trailing_bytes(honest: Honest) -> None:
    """Bytes after the end are damage to the file, located; its records still verify."""
    report = audit_bytes(honest.data + b"\x00\x01")
    assert not report.valid and not report.incomplete
    [problem] = report.problems
    assert problem.seat is None and problem.record == len(honest.records) - 1
    assert problem.what == (
        f"the file's structure is damaged at byte offset {len(honest.data)}, after record "
        f"{len(honest.records) - 1}: 2 bytes follow the end of the transcript"
    )
    assert report.hands_verified == audit_bytes(honest.data).hands_verified


@pytest.mark.parametrize(
    "obj",
    [
        [FORMAT, FORMAT_VERSION],
        {"records": []},
        {"format": "p2pcards-record/1", "version": 1, "records": []},
        {"format": FORMAT.encode(), "version": FORMAT_VERSION, "records": []},
    ],
    ids=["list", "no-format", "other-format", "format-as-bytes"],
)
def test_other_msgpack_documents(obj: object) -> None:
    with pytest.raises(TranscriptError, match="no format marker"):
        audit_bytes(pack(obj))


def checksum_of(obj: dict[str, object]) -> bytes:
    fields = [obj["format"], obj["version"], obj["saved_by"], obj["status"], obj["records"]]
    return hashlib.sha256(b"p2pcards/v1/file\x00" + pack(fields)).digest()


@pytest.mark.parametrize("version", [0, 2, "1", None, 1.5])
def test_other_format_version(honest: Honest, version: object) -> None:
    """A file written with another version (its checksum says so) is not read as this one."""
    obj = msgpack.unpackb(honest.data, raw=False)
    obj["version"] = version
    obj["checksum"] = checksum_of(obj)
    with pytest.raises(TranscriptError, match="unsupported transcript version"):
        audit_bytes(pack(obj))


@pytest.mark.parametrize("version", [0, 2, "1", None, 1.5])
def test_version_altered_after_saving(honest: Honest, version: object) -> None:
    """The checksum shows version 1 was written: the changed version is damage, located."""
    obj = msgpack.unpackb(honest.data, raw=False)
    obj["version"] = version
    report = audit_bytes(pack(obj))
    [problem] = report.problems
    assert problem.seat is None
    assert (
        "the file's structure is damaged at byte offset 36, before record 0: the version reads"
        in problem.what
    )
    assert report.hands_verified == audit_bytes(honest.data).hands_verified


def test_records_must_be_a_list(honest: Honest) -> None:
    obj = msgpack.unpackb(honest.data, raw=False)
    obj["records"] = 5
    with pytest.raises(TranscriptError, match="records must be a list"):
        audit_bytes(pack(obj))


def test_records_in_a_map_are_read_around(honest: Honest) -> None:
    """A record still readable where the list was damaged is found, and the spot named."""
    obj = msgpack.unpackb(honest.data, raw=False)
    obj["records"] = {"0": obj["records"][0]}
    report = audit_bytes(pack(obj))
    assert report.records == 1 and report.damaged == 1
    assert all(p.seat is None for p in report.problems)
    assert any("structure is damaged at byte offset 67, before record 0" in p.what for p in report.problems)


@settings(max_examples=150, deadline=None)
@given(st.binary(max_size=200))
def test_random_bytes_are_not_a_transcript(data: bytes) -> None:
    with pytest.raises(TranscriptError, match="transcript"):
        audit_bytes(data)


def test_deeply_nested_version() -> None:
    data = b"\x82" + pack("format") + pack(FORMAT) + pack("version") + b"\x91" * 1020 + b"\x01"
    with pytest.raises(TranscriptError):
        audit_bytes(data)


def test_damaged_record_entries_are_findings_not_crashes(honest: Honest) -> None:
    """A transcript whose entries are not [raw, sig] pairs reads, and the audit names the entry."""
    for bad in (None, [b"x"], [honest.records[1].raw, honest.records[1].sig, b""], [1, 2], "raw"):
        recs: list[object] = [[r.raw, r.sig] for r in honest.records]
        recs[5] = bad
        fields = [FORMAT, FORMAT_VERSION, 0, "over", recs]
        obj = {"format": FORMAT, "version": FORMAT_VERSION, "saved_by": 0, "status": "over", "records": recs}
        obj["checksum"] = hashlib.sha256(b"p2pcards/v1/file\x00" + pack(fields)).digest()
        tf = decode_file(pack(obj))
        assert tf.checksum_ok
        report = audit_bytes(pack(obj))
        assert not report.valid
        assert [(p.record, p.what.split(":")[0]) for p in report.problems] == [(5, "malformed record")]


# ---------------------------------------------------------------------------
# Records removed, duplicated, swapped (with a correct checksum)


def next_by_same_seat(records: list[SignedRecord], i: int) -> int:
    seat = records[i].record.seat
    return next(j for j in range(i + 1, len(records)) if records[j].record.seat == seat)


@pytest.mark.parametrize("frac", [0.0, 0.02, 0.1, 0.3, 0.5, 0.7, 0.9])
def test_removed_record(honest: Honest, frac: int) -> None:
    """A record cut out of a file is the file's fault, not its author's: the audit
    says which step waits for which seat, and blames nobody."""
    recs = honest.records
    i = int(frac * (len(recs) - 1))
    gone = recs[i].record
    edited = recs[:i] + recs[i + 1 :]
    report = audit_records(edited)
    assert not report.valid
    [problem] = report.problems
    assert problem.seat is None
    assert f"step {gone.step} waits for seat {gone.seat}" in problem.what


@pytest.mark.parametrize("frac", [0.0, 0.02, 0.1, 0.3, 0.5, 0.9, 1.0])
@pytest.mark.parametrize("gap", [0, 4])
def test_duplicated_record(honest: Honest, frac: float, gap: int) -> None:
    """A copy of a signed record proves nothing against its author: the file was edited."""
    recs = honest.records
    i = int(frac * (len(recs) - 1))
    dup = recs[i]
    at = min(i + 1 + gap, len(recs))
    edited = [*recs[:at], dup, *recs[at:]]
    report = audit_records(edited)
    assert not report.valid
    [problem] = report.problems
    assert problem.seat is None
    assert problem.record == at
    assert "the file was edited" in problem.what


def test_duplicated_record_in_an_incomplete_step_is_named(honest: Honest) -> None:
    recs = honest.records
    # A record that is not the first of a step shared by several seats.
    i = next(
        k
        for k in range(1, len(recs))
        if recs[k].record.step == recs[k - 1].record.step
        and k + 1 < len(recs)
        and recs[k + 1].record.step == recs[k].record.step
    )
    edited = [*recs[: i + 1], recs[i], *recs[i + 1 :]]
    [problem] = audit_records(edited).problems
    assert problem.seat is None and problem.record == i + 1


def test_swapped_records_of_one_seat(honest: Honest) -> None:
    """Records in the wrong order are still the signed game; the file is flagged as edited."""
    recs = honest.records
    rng = random.Random(3)
    for _ in range(8):
        i = rng.randrange(len(recs) - 1)
        later = [k for k in range(i + 1, len(recs)) if recs[k].record.seat == recs[i].record.seat]
        if not later:
            continue
        j = rng.choice(later)
        edited = list(recs)
        edited[i], edited[j] = edited[j], edited[i]
        report = audit_records(edited)
        assert not report.valid
        assert all(p.seat is None for p in report.problems), report.problems
        assert any(p.record is not None and i < p.record <= j for p in report.problems), report.problems


def test_record_moved_ahead_of_its_authors_earlier_records(honest: Honest) -> None:
    recs = honest.records
    i = len(recs) // 3
    seat = recs[i].record.seat
    j = max(k for k in range(len(recs)) if recs[k].record.seat == seat)  # its last record
    edited = [*recs[:i], recs[j], *[r for k, r in enumerate(recs[i:], i) if k != j]]
    report = audit_records(edited)
    assert not report.valid
    assert all(p.seat is None for p in report.problems), report.problems
    assert any(p.record is not None and p.record > i for p in report.problems)


def test_record_from_another_match(honest: Honest) -> None:
    """A validly signed record of another game (same players) spliced in."""
    other_tables = make_tables(3, SHORT_RULES, SEED, game_id=bytes(16))
    run_match(other_tables, SEED)
    assert other_tables[0].transcript.records()[1].record.game_id != honest.records[1].record.game_id
    foreign = other_tables[0].transcript.records()[1]
    i = 1
    report = audit_records([*honest.records[:i], foreign, *honest.records[i + 1 :]])
    assert not report.valid
    assert report.problems[0].record == i


# ---------------------------------------------------------------------------
# A match that is not over


@pytest.mark.parametrize("frac", [0.01, 0.05, 0.25, 0.5, 0.75, 0.99])
def test_unfinished_match(honest: Honest, frac: float) -> None:
    recs = honest.records
    k = max(1, int(frac * len(recs)))
    k = min(k, len(recs) - 1)
    report = audit_records(recs[:k])
    assert not report.valid
    [problem] = report.problems
    assert "the transcript ends before the match did" in problem.what
    assert problem.record is None
    doc = report.to_record()
    assert doc["verdict"]["valid"] is False
    if report.table is not None and report.table.match is not None:
        # "finished" is about the play: a file cut among the final result signatures has all hands.
        assert doc["result"]["finished"] is report.table.match.over
        if not report.table.match.over:
            assert doc["result"]["winners"] == []
        assert len(doc["hands"]) <= len(honest.tables[0].match.results)


def test_unfinished_match_names_the_seat_awaited_but_blames_nobody(honest: Honest) -> None:
    recs = honest.records
    # Cut just before a step with a single author (a turn, a shuffle, a lock).
    k = next(
        k
        for k in range(len(recs) // 2, len(recs) - 1)
        if recs[k].record.step != recs[k - 1].record.step and recs[k + 1].record.step != recs[k].record.step
    )
    [problem] = audit_records(recs[:k]).problems
    assert problem.seat is None  # a seat may have stopped for a fault this file cannot show
    assert f"waits for seat {recs[k].record.seat}" in problem.what


def test_empty_record_list() -> None:
    report = audit_bytes(encode_file([], saved_by=None, status="over"))
    assert not report.valid
    assert [p.what for p in report.problems] == ["the transcript holds no record"]
    assert report.to_record()["verdict"]["valid"] is False


def test_first_record_must_be_a_join(honest: Honest) -> None:
    report = audit_records(honest.records[3:])
    assert not report.valid
    [problem] = report.problems
    assert problem.record == 0 and "join" in problem.what


def test_a_save_that_fills_the_disk_leaves_no_half_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A transcript, the remembered name, the list of known players: a write cut short by a
    full disk removes what it wrote, rather than leaving a ``.tmp`` file that takes the space
    and that nobody looks for, and the error still reaches the caller."""
    import errno

    from p2pcards.net import storage
    from p2pcards.net.known import KnownPlayers
    from p2pcards.protocol.transcript import save, save_new

    real = Path.write_bytes

    def fills_the_disk(self: Path, data: bytes) -> int:
        real(self, data[: len(data) // 2])
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(Path, "write_bytes", fills_the_disk)
    monkeypatch.setattr(Path, "write_text", lambda self, text, *a, **k: fills_the_disk(self, text.encode()))
    for write in (
        lambda: save(tmp_path / "t" / "a.p2pt", b"x" * 5000),
        lambda: save_new(tmp_path / "t" / "b.p2pt", b"x" * 5000),
        lambda: storage.remember_name("bob", tmp_path),
        lambda: KnownPlayers.load(tmp_path).save(),
    ):
        with pytest.raises(OSError) as caught:
            write()
        assert caught.value.errno == errno.ENOSPC
    assert sorted(p.name for p in tmp_path.rglob("*") if p.is_file()) == []
