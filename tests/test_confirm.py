"""A comparison of the table fingerprint that happened is signed into the transcript.

Each person answers once whether everyone read the same digits; the answer is a
``confirm`` side record with the full fingerprint digest, passed to every seat and
kept in every file, and the audit says who confirmed which table, or that nobody did.
"""

from __future__ import annotations

import contextlib
import random

from protocol_helpers import SHORT_RULES, identity_for
from test_leave import file_of, play_until, sittings, started

from p2pcards.errors import RemoteProtocolError
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.fingerprint import CUT_REVEAL_STEP, TableFingerprint, confirmations
from p2pcards.protocol.messages import Confirm
from p2pcards.protocol.wire import SIGN_PREFIX, Record, SignedRecord

SEED = 31


def after_the_cut() -> tuple[dict, object, random.Random]:
    tables = sittings(3, SHORT_RULES, SEED)
    net, rng = started(tables, SEED)
    play_until(net, rng, lambda: all(t.step > CUT_REVEAL_STEP for t in tables.values()))
    return tables, net, rng


def test_a_seat_confirms_once_after_the_cut_and_every_seat_keeps_it() -> None:
    tables = sittings(3, SHORT_RULES, SEED)
    assert not tables[1].confirm(True)  # before the cut there is no fingerprint to confirm
    net, rng = started(tables, SEED)
    play_until(net, rng, lambda: all(t.step > CUT_REVEAL_STEP for t in tables.values()))
    assert tables[1].confirm(True) and tables[2].confirm(False)
    assert not tables[1].confirm(False)  # one answer per person: the first stands
    net.pump()
    play_until(net, rng, lambda: False)
    for seat, t in tables.items():
        assert t.status == "over", (seat, t.failure)
        said = {(c.seat, c.same, c.matches) for c in confirmations(t.tables[0])}
        assert said == {(1, True, True), (2, False, True)}, (seat, said)
        report = audit_bytes(file_of(t, seat))
        assert report.valid, report.summary()
        assert report.comparison() == (
            "p1 (seat 1) confirmed that every player read these digits; p2 (seat 2) said the digits differed."
        )


def forged_confirm(tables: dict, seat: int, digest: bytes) -> SignedRecord:
    t = tables[seat].current
    rec = Record(
        game_id=t.game_id,
        step=t.step,
        seat=seat,
        prev=t.transcript.last_digest,
        body=Confirm(fingerprint=digest, same=True),
    )
    raw = rec.to_bytes()
    return SignedRecord(raw, identity_for(seat, SEED).sign(SIGN_PREFIX + raw), rec)


def test_a_confirmation_of_another_tables_fingerprint_is_told_apart() -> None:
    tables, net, _rng = after_the_cut()
    forged = forged_confirm(tables, 2, bytes(32))
    for s in (0, 1):
        tables[s].receive(2, forged.to_frame())
    net.pump()
    real = TableFingerprint.of_table(tables[0].tables[0])
    assert real is not None and real.digest != bytes(32)
    assert [(c.seat, c.matches) for c in confirmations(tables[0].tables[0])] == [(2, False)]
    report = audit_bytes(file_of(tables[0], 0))
    assert not report.problems or all(p.seat is None for p in report.problems)  # no fault of the match
    assert report.comparison() == "p2 (seat 2) signed the digits of another table (not counted)."


def test_a_file_without_confirmations_says_nobody_confirmed() -> None:
    tables, net, rng = after_the_cut()
    play_until(net, rng, lambda: False)
    report = audit_bytes(file_of(tables[1], 1))
    assert report.valid and report.comparison() == "Nobody confirmed comparing it with the other players."


def test_a_second_different_confirmation_of_one_seat_is_equivocation() -> None:
    tables, net, _rng = after_the_cut()
    assert tables[2].confirm(True)
    net.pump()
    real = TableFingerprint.of_table(tables[0].tables[0])
    assert real is not None
    t = tables[2].current
    rec = Record(
        game_id=t.game_id,
        step=t.step,
        seat=2,
        prev=t.transcript.last_digest,
        body=Confirm(fingerprint=real.digest, same=False),
    )
    raw = rec.to_bytes()
    other = SignedRecord(raw, identity_for(2, SEED).sign(SIGN_PREFIX + raw), rec)
    assert 2 in tables[1].current.log.confirmed  # seat 1 holds the first one (seat 0 may be deciding)
    with contextlib.suppress(RemoteProtocolError):
        tables[1].receive(2, other.to_frame())
    f = tables[1].failure
    assert f is not None and f.peer == 2 and "equivocation" in f.problem
    report = audit_bytes(file_of(tables[1], 1))
    assert report.problems and report.problems[0].seat == 2, report.problems
