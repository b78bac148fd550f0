"""Points of protocol.md that an outside verifier had to guess, nailed down on crafted files.

Each test names the section of protocol.md that states the rule. The inputs are
honest matches played in memory (some continued without a seat, section 12),
then edited: records added, moved or re-signed by their authors.
"""

from __future__ import annotations

import functools
import random
from dataclasses import replace

from protocol_helpers import (
    RawRecord,
    honest_transcript,
    identity_for,
    make_tables,
    raw_records_file,
    record_map,
    records_file,
    run_match,
    sign_map,
)
from test_leave import play_until, sittings, withholding

from p2pcards.bots.random_bot import RandomBot
from p2pcards.crypto import kdf
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import NinesRules
from p2pcards.protocol.audit import AuditReport, audit_bytes
from p2pcards.protocol.loopback import LocalNetwork, play_bots
from p2pcards.protocol.messages import Body, Leave, Lock, Reveal
from p2pcards.protocol.sitting import Sitting
from p2pcards.protocol.transcript import decode_file
from p2pcards.protocol.wire import SIGN_PREFIX, Record, SignedRecord, parse_record


@functools.cache
def continued() -> tuple[tuple[SignedRecord, ...], tuple[Sitting, ...]]:
    """Four seats play one hand and a few steps of the next; seat 1 is then judged gone
    by the others (each giving its own reason) and the three finish the match.
    Returns seat 0's records as saved, and the sittings of seats 0, 2 and 3."""
    tables = sittings(4, NinesRules(target=100), 2)
    net = LocalNetwork(tables, rng=random.Random(2))  # type: ignore[arg-type]
    net.start()
    rng = random.Random(2)
    first = tables[0].tables[0]
    play_until(net, rng, lambda: first.hand_ends != [] and first.step > first.hand_ends[0] + 3)
    rest = LocalNetwork({s: t for s, t in tables.items() if s != 1}, rng=random.Random(1))  # type: ignore[misc]
    for s, t in rest.tables.items():
        assert t.drop(1, f"reason of seat {s}")
    rest.pump()
    play_bots(rest, {s: RandomBot() for s in rest.tables}, rng, start=False)
    assert all(tables[s].status == "over" for s in (0, 2, 3))
    return tuple(tables[0].records_to_save()), (tables[0], tables[2], tables[3])


def split(records: tuple[SignedRecord, ...]) -> tuple[list[SignedRecord], list[SignedRecord]]:
    """The records of the first table and those of the table that continues it."""
    g = records[0].record.game_id
    return [r for r in records if r.record.game_id == g], [r for r in records if r.record.game_id != g]


def blamed(report: AuditReport) -> list[int | None]:
    return [p.seat for p in report.problems]


# -- section 5, Commitment context; section 12, The new table ----------------------


def test_a_continued_table_counts_hands_for_its_commitments_from_its_own_start() -> None:
    """The context of a commitment on T' is g' || u32(h) || u8(j) with h counted from T''s
    own first hand (1), although the engine numbers that hand after the hands carried."""
    records, (sitting, *_) = continued()
    t2 = sitting.tables[1]
    assert t2.carried_hands == 1 and t2.match.results[0].number == 2
    _, theirs = split(records)
    cut_reveal = {r.record.seat: r.record.body for r in theirs if r.record.step == 2}
    end = t2.hand_ends[0]
    reveal = {r.record.seat: r.record.body for r in theirs if r.record.step == end}
    for seat in range(t2.n):
        assert isinstance(cut_reveal[seat], Reveal) and isinstance(reveal[seat], Reveal)
        ctx = t2.game_id + (1).to_bytes(4, "big") + bytes([seat])
        assert kdf.commitment(reveal[seat].secret, ctx) == cut_reveal[seat].next


# -- sections 5 and 6.2: `keys: []` is a lock that carries keys ---------------------


class EmptyKeys(Table):
    """Seat 1 writes `keys: []` in its locks of round 0."""

    def _author(self, body: Body) -> None:
        if isinstance(body, Lock) and body.keys is not None:
            body = replace(body, keys=())
        super()._author(body)


def test_an_empty_keys_list_in_a_lock_is_keys_for_the_wrong_positions() -> None:
    tables = make_tables(3, NinesRules(target=30), 0, table_classes={1: EmptyKeys})
    run_match(tables, 0)
    for s in (0, 2):
        f = tables[s].failure
        assert f is not None and f.peer == 1 and "published keys for the wrong positions" in f.problem, f
    report = audit_bytes(records_file(tables[0].records_to_save(), status="failed"))
    assert blamed(report) == [1], report.summary()


# -- section 4: a record of a seat that does not write the step ----------------------


def honest_records() -> list[SignedRecord]:
    tf = decode_file(honest_transcript(3))
    return [parse_record(raw, sig) for raw, sig in tf.records]


def stray(records: list[SignedRecord], step: int, seat: int) -> tuple[int, RawRecord]:
    """Where the one record of ``step`` is, and a copy of its map signed by ``seat`` as its own."""
    (i,) = [k for k, r in enumerate(records) if r.record.step == step]
    obj = record_map(records[i].raw)
    obj["seat"] = seat
    return i, sign_map(obj, seat)


def test_a_record_by_a_seat_that_does_not_write_the_step_waits_for_the_step_to_complete() -> None:
    records = honest_records()
    step = 3  # shuffle (round 0, seat 1): seat 2 is not an author
    assert type(records[[r.record.step for r in records].index(step)].record.body).__name__ == "Shuffle"
    i, extra = stray(records, step, 2)
    edited: list[RawRecord | SignedRecord] = [*records[:i], extra, *records[i:]]
    report = audit_bytes(raw_records_file(edited))
    assert [(p.seat, p.record) for p in report.problems] == [(2, i)], report.summary()
    assert "where it was not expected" in report.problems[0].what
    # Held, not blamed at once: a file that ends before the step completes blames nobody.
    report = audit_bytes(raw_records_file(edited[: i + 1]))
    assert report.incomplete and blamed(report) == [None], report.summary()
    # The step's own records are applied first: a fault of the author of the step wins.
    obj = record_map(records[i].raw)
    deck = obj["body"]["deck"]
    deck[1] = deck[0]
    broken = sign_map(obj, 1)
    report = audit_bytes(raw_records_file([*records[:i], extra, broken, *records[i + 1 :]]))
    assert [(p.seat, p.record) for p in report.problems] == [(1, i + 1)], report.summary()


# -- sections 8 and 12: records of a table the audit has left -------------------------


def test_a_record_of_a_table_the_audit_left_is_ignored_and_reported_as_an_edit() -> None:
    records, _ = continued()
    assert audit_bytes(records_file(records)).valid
    ours, _ = split(records)
    for late in (ours[0], ours[-1], SignedRecord(ours[-1].raw, bytes(64), ours[-1].record)):
        report = audit_bytes(records_file([*records, late]))
        problems = [(p.seat, p.record, p.what) for p in report.problems]
        assert problems == [(None, len(records), "record out of order or repeated: the file was edited")]
        assert report.sitting is not None and report.sitting.current.status == "over"
    # A `leave` record of that table is ignored silently.
    first = ours[0].record
    leave = Record(game_id=first.game_id, step=9, seat=1, prev=bytes(32), body=Leave(reason="bye"))
    raw = leave.to_bytes()
    signed = SignedRecord(raw, identity_for(1, 2).sign(SIGN_PREFIX + raw), leave)
    report = audit_bytes(records_file([*records, signed]))
    assert report.valid, report.summary()
    assert report.to_record()["left"][0]["signed"] is False


# -- section 12: claims beyond what the file holds ------------------------------------


def test_continue_claims_beyond_the_file_are_checked_only_for_hands() -> None:
    records, (sitting, *_) = continued()
    ours, theirs = split(records)
    end = sitting.tables[0].hand_ends[0]
    last = max(r.record.step for r in ours)
    # Every claim is ahead of the audit, in the same hand: `last` is not checked; valid.
    report = audit_bytes(records_file([r for r in ours if r.record.step < last - 1] + theirs))
    assert report.valid, report.summary()
    # Every claim counts a hand the audit did not see scored: the carried totals cannot be
    # computed (the reference audit reports that it could not check the record).
    report = audit_bytes(records_file([r for r in ours if r.record.step < end] + theirs))
    assert not report.valid and blamed(report) == [None], report.summary()


# -- section 12: a seat that signs `leave` and plays on -------------------------------


def test_an_audit_does_not_go_on_without_a_seat_that_signed_leave() -> None:
    records = honest_records()
    prev = next(r.record.prev for r in records if r.record.step == 10)
    leave = Record(game_id=records[0].record.game_id, step=10, seat=1, prev=prev, body=Leave(reason="bye"))
    raw = leave.to_bytes()
    signed = SignedRecord(raw, identity_for(1, 0).sign(SIGN_PREFIX + raw), leave)
    middle = next(k for k, r in enumerate(records) if r.record.step > 10)
    for edited in ([*records, signed], [*records[:middle], signed, *records[middle:]]):
        report = audit_bytes(records_file(edited))
        assert report.valid, report.summary()
        assert report.table is not None and report.table.departed == {1: "bye"}
        assert "left" not in report.to_record()


# -- docs/record.md: `left[].reason` and `earlier[].result` ---------------------------


def test_the_reason_of_a_seat_judged_gone_is_that_of_the_first_continue_record() -> None:
    _, sittings_ = continued()
    for seat, s in zip((0, 2, 3), sittings_, strict=True):
        record = audit_bytes(records_file(s.records_to_save(), saved_by=seat)).to_record()
        (left,) = record["left"]
        assert (left["signed"], left["reason"]) == (False, "reason of seat 0")


def test_an_earlier_table_s_result_holds_the_totals_of_every_hand_the_audit_scored_there() -> None:
    """Seat 1 never sees seat 2's reveal of hand 1: seats 0 and 3 scored it, but it is void.
    Seat 0's file scores it on the first table: `earlier[0].hands` leaves it out, and
    `earlier[0].result.totals` count it."""

    reveal: list[int] = []

    def withheld(rec: SignedRecord) -> bool:
        # Seat 2's reveal of hand 1 and all it writes after (hand 2 may begin with its turn,
        # round 0 made ahead): seat 1 never hears from it again, as over a link that is down.
        if rec.record.seat == 2 and rec.record.step > 2 and isinstance(rec.record.body, Reveal):
            reveal[:] = reveal or [rec.record.step]
        return rec.record.seat == 2 and bool(reveal) and rec.record.step >= reveal[0]

    hold_back = withholding(1, withheld)
    tables = sittings(4, NinesRules(target=100), 3)
    net = LocalNetwork(tables, rng=random.Random(3), tamper=hold_back)  # type: ignore[arg-type]
    net.start()
    play_until(net, random.Random(3), lambda: False)
    rest = LocalNetwork({s: tables[s] for s in (0, 1, 3)}, rng=random.Random(1))  # type: ignore[misc]
    for t in rest.tables.values():
        assert t.drop(2, "lost connection")
    rest.pump()
    play_bots(rest, {s: RandomBot() for s in rest.tables}, random.Random(3), start=False)
    first = tables[0].tables[0]
    assert len(first.match.results) == 1 and tables[0].tables[1].carried_hands == 0
    report = audit_bytes(records_file(tables[0].records_to_save()))
    assert report.valid, report.summary()
    (earlier,) = report.to_record()["earlier"]
    assert earlier["hands"] == []
    assert earlier["result"] == {
        "winners": [],
        "totals": list(first.match.results[0].totals),
        "finished": False,
    }
    assert any(earlier["result"]["totals"])


# -- section 7.1: a first `join` record that does not read ----------------------------


def test_a_first_join_that_does_not_read_blames_its_signer_by_the_next_join() -> None:
    records = honest_records()
    obj = record_map(records[0].raw)
    assert obj["seat"] == 0
    obj["body"]["version"] = "one"  # not an integer: the schema refuses it
    edited = [sign_map(obj, 0), *records[1:]]
    report = audit_bytes(raw_records_file(edited))
    p = report.problems[0]
    assert (p.seat, p.record) == (0, 0) and p.what.startswith("malformed record"), report.summary()
    # Signed by another key than its own roster's entry for its seat: nobody.
    obj = record_map(records[0].raw)
    report = audit_bytes(raw_records_file([sign_map(obj, 1), *records[1:]]))
    assert [(p.seat, p.record) for p in report.problems] == [(None, 0)], report.summary()
    # Validly signed, but it names a table that cannot be: its signer.
    obj["body"]["rules"]["target"] = "many"
    report = audit_bytes(raw_records_file([sign_map(obj, 0), *records[1:]]))
    assert [(p.seat, p.record) for p in report.problems] == [(0, 0)], report.summary()
    assert "impossible table" in report.problems[0].what
