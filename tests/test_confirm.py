"""A comparison of the table fingerprint that happened is signed into the transcript.

Each person answers once whether everyone read the same digits; the answer is a
``confirm`` side record with the full fingerprint digest, passed to every seat and
kept in every file, and the audit says who confirmed which table, or that nobody did.
"""

from __future__ import annotations

import contextlib
import functools
import random

import trio
import trio.testing
from net_helpers import bot
from protocol_helpers import SHORT_RULES, identity_for, make_tables
from test_leave import file_of, leaves, play_until, sittings, started

from p2pcards.errors import RemoteProtocolError
from p2pcards.net.link import Link
from p2pcards.net.runner import RunResult, run_table
from p2pcards.net.session import Timeouts
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.fingerprint import CUT_REVEAL_STEP, TableFingerprint, confirmations
from p2pcards.protocol.messages import Confirm
from p2pcards.protocol.sitting import Sitting
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


async def test_an_answer_given_while_choosing_a_move_is_signed_and_sent_at_once(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 0's person answers about the fingerprint while its move prompt is open, and never
    moves (the terminal closes): the others hold its ``confirm`` all the same."""
    n = 3
    tables = make_tables(n, SHORT_RULES, seed=4)
    links: dict[int, dict[int, Link]] = {s: {} for s in range(n)}
    for a in range(n):
        for b in range(a + 1, n):
            x, y = trio.testing.memory_stream_pair()
            links[a][b], links[b][a] = Link(x), Link(y)
    answered: list[bool] = []
    deciding = trio.Event()

    async def person(table: object) -> object:
        answered.append(True)  # typed at the question, which stays open beside the move prompt
        deciding.set()
        await trio.sleep_forever()

    timeouts = Timeouts(turn=3600, step=60)
    async with trio.open_nursery() as nursery:
        def answer() -> bool | None:
            return True if answered else None

        nursery.start_soon(
            functools.partial(run_table, tables[0], links[0], person, timeouts=timeouts, confirming=answer)
        )
        for s in (1, 2):
            nursery.start_soon(functools.partial(run_table, tables[s], links[s], bot(s), timeouts=timeouts))
        await deciding.wait()
        await trio.sleep(5)
        held = {s: [(c.seat, c.same, c.matches) for c in confirmations(tables[s])] for s in (1, 2)}
        nursery.cancel_scope.cancel()
    assert held == {1: [(0, True, True)], 2: [(0, True, True)]}


def test_the_audit_shows_the_digits_that_were_compared_when_the_match_went_on_without_a_seat() -> None:
    """A match that goes on without a player continues at a new table, whose fingerprint
    nobody was shown: the audit names the first table's digits, the ones confirmed."""
    tables = sittings(3, SHORT_RULES, SEED)
    net, rng = started(tables, SEED)
    play_until(net, rng, lambda: all(t.step > CUT_REVEAL_STEP for t in tables.values()))
    assert tables[1].confirm(True)
    play_until(net, rng, lambda: all(confirmations(t.tables[0]) for t in tables.values()))
    play_until(net, rng, lambda: tables[2].step >= CUT_REVEAL_STEP + 6)
    rest = leaves(net, 2, "off to bed")
    play_until(rest, rng, lambda: False)
    assert len(tables[0].tables) == 2 and tables[0].status == "over"
    first, then = (TableFingerprint.of_table(t) for t in tables[0].tables)
    assert first is not None and then is not None and first.text != then.text
    report = audit_bytes(file_of(tables[0], 0))
    assert report.valid, report.summary()
    shown = report.compared_fingerprint()
    assert shown is not None and shown.text == first.text
    assert report.comparison() == "p1 (seat 1) confirmed that every player read these digits."


async def test_a_player_who_reads_other_digits_leaves_saying_why(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """Seat 0's person answers that the digits differ: its seat signs "no" and leaves with
    that reason, so the others are told why it left (not a plain quit)."""
    n = 3
    tables = {s: Sitting(t) for s, t in make_tables(n, SHORT_RULES, seed=4).items()}
    links: dict[int, dict[int, Link]] = {s: {} for s in range(n)}
    for a in range(n):
        for b in range(a + 1, n):
            x, y = trio.testing.memory_stream_pair()
            links[a][b], links[b][a] = Link(x), Link(y)
    results: dict[int, RunResult] = {}
    timeouts = Timeouts(turn=3600, step=60)

    async def seat(s: int) -> None:
        if s == 0:
            results[s] = await run_table(
                tables[s], links[s], bot(s), timeouts=timeouts, confirming=lambda: False, leaving=lambda: True
            )
        else:
            results[s] = await run_table(tables[s], links[s], bot(s), timeouts=timeouts)

    async with trio.open_nursery() as nursery:
        for s in range(n):
            nursery.start_soon(seat, s)
    assert (results[0].status, results[0].problem) == ("aborted", "the table fingerprint differed")
    for s in (1, 2):
        departed = tables[s].tables[0].departed
        assert departed.get(0) == "the table fingerprint differed", departed
