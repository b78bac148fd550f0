"""The audit of hostile and edited files: bounded work, a verdict rather than a crash, and
every fault protocol.md section 8 says to report.

* A file stuffed with junk records (up to the format's million) audits in seconds: past
  ``MAX_JUNK`` records that cannot be the match's the rest is junk, counted and not
  checked, and at most ``MAX_LISTED`` problems of single records are listed. The work
  is measured by the signature checks done (``scripts/bench.py`` times it).
* ``continue`` records that all claim more of the table they continue than the file
  holds end the audit with a problem blaming nobody, not an internal error (section 12).
* After a chain dispute, the first fault, later records whose signature does not verify
  are reported too, and the rest of the file is still read as evidence (section 8).
"""

from __future__ import annotations

import random
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from protocol_helpers import (
    RawRecord,
    honest_transcript,
    make_tables,
    raw_records_file,
    record_map,
    sign_map,
)

from p2pcards.bots.random_bot import RandomBot
from p2pcards.cli import main
from p2pcards.crypto import identity
from p2pcards.games.nines.rules import NinesRules
from p2pcards.protocol.audit import MAX_JUNK, MAX_LISTED, AuditReport, audit_bytes
from p2pcards.protocol.loopback import LocalNetwork
from p2pcards.protocol.messages import Continue
from p2pcards.protocol.sitting import Sitting
from p2pcards.protocol.transcript import MAX_FILE_RECORDS, decode_file
from p2pcards.protocol.wire import pack

HONEST = tuple(RawRecord(raw, sig) for raw, sig in decode_file(honest_transcript()).records)  # type: ignore[arg-type]
"""Seat 0's file of a finished 3-seat match (seed 0): joins, then commits, reveals, ..."""
PREFIX = 10
"""Records of the honest match that junk follows: the roster is fixed, a hand has begun."""


@pytest.fixture
def verifications(monkeypatch: pytest.MonkeyPatch) -> Callable[[], int]:
    """Counts every signature check, wherever p2pcards makes it."""
    original = identity.verify_signature
    calls = 0

    def counting(*args: Any) -> bool:
        nonlocal calls
        calls += 1
        return original(*args)

    for name, module in list(sys.modules.items()):
        if name.startswith("p2pcards") and getattr(module, "verify_signature", None) is original:
            monkeypatch.setattr(module, "verify_signature", counting)
    return lambda: calls


def found(report: AuditReport) -> list[tuple[int | None, int | None, str]]:
    return [(p.seat, p.record, p.what) for p in report.problems]


def junk_problem(report: AuditReport) -> list[tuple[int | None, str]]:
    return [(p.record, p.what) for p in report.problems if "taken for junk" in p.what]


def signed_junk(count: int) -> Iterator[RawRecord]:
    """Records that cannot be the match's, each worth a signature check to a naive reader:
    a map naming a seat that is no record, a record of this game that its seat did not
    sign, and a record of another game that a player did sign."""
    template = record_map(HONEST[12].raw)
    other = sign_map({**template, "game": bytes(16)}, template["seat"])
    for k in range(count):
        kind = k % 3
        if kind == 0:
            yield RawRecord(pack({"seat": 1, "junk": k}), bytes(64))
        elif kind == 1:
            yield RawRecord(pack({**template, "step": 1000 + k}), bytes(64))
        else:
            yield other


# --- junk ---------------------------------------------------------------------------------


def test_a_million_junk_records_are_counted_not_listed_nor_checked(
    tmp_path: Path, verifications: Callable[[], int]
) -> None:
    junk = MAX_FILE_RECORDS - PREFIX
    data = raw_records_file([*HONEST[:PREFIX], *[RawRecord(b"", b"")] * junk])
    assert len(data) > 5_000_000  # the 5 MB file of issue 16
    report = audit_bytes(data)
    assert not report.valid and not report.incomplete and not report.internal_error
    assert report.records == MAX_FILE_RECORDS
    assert junk_problem(report) == [
        (
            PREFIX,
            f"the rest of the file, {junk} records from record {PREFIX} on, is taken for junk and not "
            f"checked: over {MAX_JUNK} records are unreadable, of another game or not validly signed "
            "by a player",
        )
    ]
    assert len(report.problems) == 1, found(report)[:5]
    assert verifications() <= 2 * PREFIX  # the honest records' own, no more
    # The command line says so in a screenful, and `replay` refuses it as quickly.
    path = tmp_path / "junk.p2pt"
    path.write_bytes(data)
    audited = CliRunner().invoke(main, ["audit", str(path)])
    assert audited.exit_code == 1 and audited.output.startswith("INVALID: 1 problem found"), audited.output
    assert f"{junk} records from record {PREFIX}" in " ".join(audited.output.split())
    assert len(audited.output.splitlines()) < 20
    replayed = CliRunner().invoke(main, ["replay", str(path)])
    assert replayed.exit_code == 1 and "does not verify" in replayed.output, replayed.output


def test_junk_that_costs_a_signature_check_each_is_checked_only_up_to_the_bound(
    verifications: Callable[[], int],
) -> None:
    junk = 3000
    report = audit_bytes(raw_records_file([*HONEST[:PREFIX], *signed_junk(junk)]))
    assert not report.valid and not report.internal_error
    # The first fault of the replay is said as ever (the first readable junk record); the
    # problems of the run of junk around it give way to its count.
    assert found(report)[0] == (None, PREFIX + 1, "bad signature: its record for step 1001 is not validly "
                                "signed by seat 1")  # fmt: skip
    assert junk_problem(report) == [
        (PREFIX, f"the rest of the file, {junk} records from record {PREFIX} on, is taken for junk and not "
                 f"checked: over {MAX_JUNK} records are unreadable, of another game or not validly signed "
                 "by a player")
    ]  # fmt: skip
    assert len(report.problems) == 2, found(report)
    assert verifications() <= 2 * PREFIX + 2 * (MAX_JUNK + 1)


def test_junk_between_records_of_the_match_counts_towards_the_bound_too(
    verifications: Callable[[], int],
) -> None:
    """A copy of a record of the match between junk records ends each run of junk: the
    bound is on the junk in the whole file, not on one run of it."""
    junk = list(signed_junk(3000))
    interleaved = [r for pair in zip(junk, [HONEST[3]] * len(junk), strict=True) for r in pair]
    report = audit_bytes(raw_records_file([*HONEST[:PREFIX], *interleaved]))
    assert not report.valid and not report.internal_error
    (start, what), *_ = junk_problem(report)
    assert start == PREFIX + 2 * MAX_JUNK and f"{len(interleaved) + PREFIX - start} records" in what
    assert len(report.problems) <= MAX_LISTED + 3
    assert verifications() <= 2 * PREFIX + 2 * (MAX_JUNK + 1)


def test_a_few_junk_records_are_each_reported() -> None:
    """Under the bound nothing is counted instead of listed: every junk record is named."""
    junk = list(signed_junk(MAX_JUNK))
    report = audit_bytes(raw_records_file([*HONEST, *junk]))
    assert junk_problem(report) == []
    records = [p.record for p in report.problems]
    # Each unreadable one; the fault of the first readable one; the unsigned ones after it.
    bad = [len(HONEST) + k for k in range(MAX_JUNK) if k % 3 == 0]
    unsigned = [len(HONEST) + k for k in range(2, MAX_JUNK) if k % 3 == 1]
    assert records == [*bad, len(HONEST) + 1, *unsigned], found(report)


def test_the_problems_of_single_records_are_listed_up_to_a_bound_and_the_rest_counted() -> None:
    copies = 300  # each a copy of a record of the match: the file was edited, nothing more
    report = audit_bytes(raw_records_file([*HONEST, *[HONEST[5]] * copies]))
    assert not report.valid and not report.internal_error and junk_problem(report) == []
    assert len(report.problems) == MAX_LISTED + 1
    assert all(
        p.what == "record out of order or repeated: the file was edited" for p in report.problems[:MAX_LISTED]
    )
    first, last = len(HONEST) + MAX_LISTED, len(HONEST) + copies - 1
    assert found(report)[-1] == (
        None,
        first,
        f"{copies - MAX_LISTED} more problems of single records (records {first} to {last}) are not listed",
    )


# --- continue records that claim more than the file holds --------------------------------


def continued_claims(seed: int = 3) -> tuple[list[RawRecord], list[int]]:
    """Four seats play past their first hand; then seats 0, 1 and 3 judge seat 2 gone
    and write their ``continue`` records. Returns seat 1's records of the first table
    and of that step, and for each seat of the new table its seat on the first."""
    tables = {s: Sitting(t) for s, t in make_tables(4, NinesRules(target=100), seed).items()}
    net = LocalNetwork(tables, rng=random.Random(seed))  # type: ignore[arg-type]
    net.start()
    rng, bots, first = random.Random(seed), {s: RandomBot() for s in tables}, tables[1].tables[0]
    while not (first.hand_ends and first.step > first.hand_ends[0] + 3):
        moving = [s for s, t in tables.items() if t.my_turn]
        for s in moving:
            tables[s].act(bots[s].choose(tables[s].view(), tables[s].legal_actions(), rng))
            net.pump()
        if not moving:
            assert net.settle(), "the match stalled"
    rest = LocalNetwork({s: t for s, t in tables.items() if s != 2}, rng=random.Random(seed))  # type: ignore[misc]
    for t in rest.tables.values():
        assert t.drop(2, "lost connection")
    rest.pump()
    records = [
        RawRecord(r.raw, r.sig)
        for r in tables[1].records_to_save()
        if r.record.game_id == first.game_id or isinstance(r.record.body, Continue)
    ]
    return records, [0, 1, 3]


@pytest.mark.parametrize("more", [1, 1 << 19])
def test_continue_claims_of_hands_the_file_does_not_hold_are_a_verdict_not_a_crash(more: int) -> None:
    records, seats = continued_claims()
    edited = []
    for r in records:
        obj = record_map(r.raw)
        if obj["type"] == "continue":  # every seat says it completed more, and scored more
            scored = obj["body"]["hands"]
            obj["body"] = {**obj["body"], "steps": obj["body"]["steps"] + 5, "hands": scored + more}
            r = sign_map(obj, seats[obj["seat"]], 3)
        edited.append(r)
    report = audit_bytes(raw_records_file(edited, saved_by=1, status="failed"))
    assert not report.internal_error and not report.valid and not report.incomplete
    assert found(report) == [
        (
            None,
            len(edited) - 1,
            "the audit could not check this record: every continue record claims more of the table it "
            f"continues than the file holds ({scored + more} hands scored there, the file shows {scored}), "
            "so the totals carried from it are not known",
        )
    ], report.summary()
    assert report.hands_verified == scored
    # A claim the file does show scored is carried as before (the claims unverified).
    unedited = audit_bytes(raw_records_file(records, saved_by=1, status="failed"))
    assert not unedited.internal_error and unedited.incomplete, unedited.summary()


# --- a chain dispute, then records whose signature does not verify ------------------------


def chain_broken_at_6() -> list[RawRecord]:
    """Seat 0's reveal of the cut (record 6) signed again with another history behind it."""
    records = list(HONEST)
    obj = record_map(records[6].raw)
    assert (obj["seat"], obj["step"], obj["type"]) == (0, 2, "reveal")
    records[6] = sign_map({**obj, "prev": bytes(32)}, 0)
    return records


BROKEN = (
    None,
    6,
    "the record of p0 (seat 0) for step 2 does not follow the records before it in this file: p0 signed"
    " another history, or a record before it was changed (its author may have shown p0 another one, or"
    " saved this file); a file cannot show which",
)
"""A record signed on another history than the file's, with nothing in the file to show who
equivocated: nobody is blamed (its author may have lied, or whoever saved the file changed a
record of its own before it)."""


def blank(records: list[RawRecord], *at: int) -> list[RawRecord]:
    return [RawRecord(r.raw, bytes(64)) if i in at else r for i, r in enumerate(records)]


def test_a_chain_dispute_and_later_bad_signatures_are_all_reported() -> None:
    report = audit_bytes(raw_records_file(blank(chain_broken_at_6(), 12, 30)))
    assert found(report) == [
        BROKEN,
        (None, 12, "the record's signature does not verify"),
        (None, 30, "the record's signature does not verify"),
    ], report.summary()


def test_after_a_chain_dispute_a_bad_signature_does_not_hide_the_proof_that_follows() -> None:
    """The rest of the file is read as evidence past a record that does not verify: the
    original record 6, at the end, proves that seat 0 signed two records for step 2."""
    records = [*blank(chain_broken_at_6(), 12), HONEST[6]]
    report = audit_bytes(raw_records_file(records))
    assert found(report) == [
        (0, len(records) - 1, "equivocation: two different signed records for step 2"),
        (None, 12, "the record's signature does not verify"),
    ], report.summary()


def test_a_bad_signature_first_is_the_fault_and_a_later_broken_chain_is_not_read() -> None:
    """The other way round: the first fault is the record that does not verify; after it
    only signatures are checked, and record 12 is validly signed (section 8)."""
    records = blank(list(HONEST), 6)
    obj = record_map(records[12].raw)
    records[12] = sign_map({**obj, "prev": bytes(32)}, obj["seat"])
    assert found(audit_bytes(raw_records_file(records))) == [
        (None, 6, "bad signature: its record for step 2 is not validly signed by seat 0")
    ]


# --- records a finished match or a file does not take (protocol.md 4 rule 5, section 8) ---


def test_a_record_signed_after_the_match_ended_blames_its_signer() -> None:
    """A validly signed record of a step after the `result` step: a finished match takes no
    more records, and only its signer could have made it. A copy of a record the file holds,
    placed after the end, is only a copy."""
    last = record_map(HONEST[-1].raw)
    extra = sign_map({**record_map(HONEST[12].raw), "step": last["step"] + 3, "seat": 2}, 2)
    report = audit_bytes(raw_records_file([*HONEST, extra]))
    assert not report.valid
    assert found(report) == [(2, len(HONEST), f"record for step {last['step'] + 3} after the match ended")]
    copied = audit_bytes(raw_records_file([*HONEST, HONEST[12]]))
    assert all(p.seat is None for p in copied.problems), found(copied)


def test_an_audit_applies_no_bound_to_the_records_that_wait_for_their_step() -> None:
    """A live node blames an author with more than 512 records waiting (they came on a link
    or from a peer); an audit reads a file, which holds what its saver kept: 513 records of
    seat 1 for steps beyond the match blame nobody (they are out of place: the file was
    edited, reported without blame)."""
    template = record_map(HONEST[12].raw)
    ahead = [sign_map({**template, "seat": 1, "step": 10_000 + k}, 1) for k in range(513)]
    report = audit_bytes(raw_records_file([*HONEST[:30], *ahead, *HONEST[30:]]))
    assert not report.valid and not report.internal_error
    assert all(p.seat is None for p in report.problems), found(report)[:5]
    assert not any("too many records ahead" in p.what for p in report.problems)


def test_a_chain_dispute_ends_unreported_when_a_continuing_table_moves_the_audit() -> None:
    """protocol.md 8: a three-seat match in which C was judged gone during the first hand and
    the others went on at a table continuing the first, carrying no finished hand from it.
    Record 11 (seat 2's lock, step 5) was signed again by its author with a ``prev`` that
    follows nothing, right after that author's own record (the one case of proof). The
    dispute is unsettled when the first record of the continuing table moves the audit: it
    ends there, unreported, and the verdict is the last table's."""
    path = Path(__file__).parent / "fixtures" / "edited" / "dispute-then-continue.p2pt"
    maps = [record_map(raw) for raw, _ in decode_file(path.read_bytes()).records]
    assert len({m["game"] for m in maps}) == 2  # the first table, and the one that continues it
    edited = maps[11]
    assert (edited["type"], edited["step"], edited["seat"], edited["prev"]) == ("lock", 5, 2, b"\x0b" * 32)
    report = audit_bytes(path.read_bytes())
    assert report.valid, found(report)
    assert report.summary().startswith("VALID: a finished game of Nines, 3 players (2 finished it)")


def test_a_confirm_of_a_table_the_audit_has_left_is_ignored_without_a_report() -> None:
    """protocol.md 12: side records have no place in the file's order, so a ``confirm`` of
    the first table read after the audit moved to the table that continues it is ignored,
    as a ``leave`` is; any other record of the left table there is reported as an edit."""
    from test_leave import left_match_file

    data = left_match_file("nines", "judged gone", seed=2)
    records = [RawRecord(raw, sig) for raw, sig in decode_file(data).records]
    maps = [record_map(r.raw) for r in records]
    first = maps[0]["game"]
    lock = next(m for m in maps if m["game"] == first and m["type"] == "lock")
    body = {"fingerprint": bytes(32), "same": True}
    confirm = sign_map({**lock, "type": "confirm", "body": body}, lock["seat"], 2)
    assert audit_bytes(raw_records_file([*records, confirm])).valid
    late = audit_bytes(raw_records_file([*records, sign_map(lock, lock["seat"], 2)]))
    edited = "record out of order or repeated: the file was edited"
    assert [(p.seat, p.what) for p in late.problems] == [(None, edited)]
