"""A seat that leaves for good: the others go on without it (protocol.md section 12).

Tables are wrapped in :class:`Sitting` and linked in memory. A seat leaves by
signing a ``leave`` record, or is judged gone by every other node (what the
network layer does when its grace runs out: ``Sitting.drop``). The others
continue on a new table from a fresh deal with the totals of the hands every
one of them finished; every file audits valid and says who left.
"""

from __future__ import annotations

import contextlib
import functools
import random
from collections.abc import Callable
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import SHORT_RULES, entropy_for, game_id_for, identity_for, make_roster, make_tables

from p2pcards.bots.random_bot import RandomBot
from p2pcards.errors import RemoteProtocolError
from p2pcards.games.neuf.adapter import NeufTable
from p2pcards.games.neuf.bots import NeufRandomBot
from p2pcards.games.neuf.rules import NeufRules
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import NinesRules
from p2pcards.protocol import faults
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.core import continuation_id
from p2pcards.protocol.events import Continued
from p2pcards.protocol.loopback import LocalNetwork, play_bots
from p2pcards.protocol.messages import Continue, Player, Reveal
from p2pcards.protocol.sitting import Sitting
from p2pcards.protocol.transcript import encode_file
from p2pcards.protocol.wire import SIGN_PREFIX, Abort, Evidence, Record, SignedRecord, decode_frame


def sittings(
    n: int, rules: NinesRules = SHORT_RULES, seed: int = 0, **classes: type[Table]
) -> dict[int, Sitting]:
    tables = make_tables(n, rules, seed, table_classes={int(k[1:]): c for k, c in classes.items()})
    return {s: Sitting(t) for s, t in tables.items()}


def play_until(
    net: LocalNetwork, rng: random.Random, done: Callable[[], bool], bots: dict | None = None
) -> None:
    """Bots play until ``done()`` (checked after every move) or nothing moves."""
    bots = bots or {s: RandomBot() for s in net.tables}
    for _ in range(100_000):
        if done():
            return
        moved = False
        for seat, t in net.tables.items():
            if seat in net.failures or not t.my_turn:
                continue
            t.act(bots[seat].choose(t.view(), t.legal_actions(), rng))
            net.pump()
            moved = True
            if done():
                return
        if not moved and not net.settle():
            return


def withholding(
    receiver: int, withheld: Callable[[SignedRecord], bool]
) -> Callable[[int, int, bytes], bytes | None]:
    """A network tamper: ``receiver`` never gets the records ``withheld`` picks, whoever
    sends or forwards them (an evidence frame loses them, or goes if nothing is left)."""

    def tamper(sender: int, to: int, frame: bytes) -> bytes | None:
        obj = decode_frame(frame)
        if to != receiver or not isinstance(obj, SignedRecord | Evidence):
            return frame
        records = obj.records if isinstance(obj, Evidence) else (obj,)
        kept = tuple(r for r in records if not withheld(r))
        if len(kept) == len(records):
            return frame
        return Evidence(kept).to_frame() if kept else None

    return tamper


def without(net: LocalNetwork, gone: int, seed: int = 1) -> LocalNetwork:
    """The network of the seats that remain (nothing reaches or leaves ``gone`` any more)."""
    return LocalNetwork({s: t for s, t in net.tables.items() if s != gone}, rng=random.Random(seed))


def started(tables: dict[int, Sitting], seed: int) -> tuple[LocalNetwork, random.Random]:
    """The tables linked in memory, every seat's join record sent; the bots' randomness."""
    net = LocalNetwork(tables, rng=random.Random(seed))  # type: ignore[arg-type]
    net.start()
    return net, random.Random(seed)


def leaves(net: LocalNetwork, seat: int, reason: str) -> LocalNetwork:
    """``seat`` signs that it leaves, its record reaches the others, and it hangs up:
    the network of those that remain, with what followed delivered."""
    rest = without(net, seat)
    net.tables[seat].leave(reason)
    for frame in net.tables[seat].drain():
        for table in rest.tables.values():
            table.receive(seat, frame)
    rest.pump()
    return rest


def file_of(sitting: Sitting, seat: int) -> bytes:
    return encode_file(sitting.records_to_save(), saved_by=seat, status=sitting.status)


def assert_finished_alike(tables: dict[int, Sitting]) -> list[str]:
    """Every table is over, holds the same records, and its file audits valid."""
    states = {s: (t.status, t.failure) for s, t in tables.items()}
    assert all(t.status == "over" for t in tables.values()), states
    assert len({tuple(r.raw for r in t.records_to_save()) for t in tables.values()}) == 1
    out = []
    for seat, t in tables.items():
        report = audit_bytes(file_of(t, seat))
        assert report.valid and not report.internal_error, report.summary()
        out.append(" ".join(report.summary().split()))
    return out


def totals_after(table: Table, hands: int, leaver: int) -> tuple[int, ...]:
    """What the first table's totals were after ``hands`` hands, without ``leaver``."""
    totals = [0] * table.n if hands == 0 else list(table.match.results[hands - 1].totals)
    return tuple(t for s, t in enumerate(totals) if s != leaver)


GONE_HOW = {
    "signed": "",
    "timed out": "lost connection and did not come back within 120 s",
    "judged gone": "lost connection",
}
"""How a seat leaves in :func:`left_match_file`: its own ``leave`` record, or the reason
the others give when they drop it (the network's, when its grace ran out, or another)."""


@functools.cache
def left_match_file(
    game: str = "nines",
    how: str = "signed",
    seed: int = 2,
    *,
    first_hand: bool = False,
    reason: str = "dinner is ready",
) -> bytes:
    """Seat 0's file of :func:`left_match` (its table's events left for the test)."""
    return file_of(left_match(game, how, seed, first_hand=first_hand, reason=reason)[0], 0)


def left_match(
    game: str = "nines",
    how: str = "signed",
    seed: int = 2,
    *,
    first_hand: bool = False,
    reason: str = "dinner is ready",
) -> dict[int, Sitting]:
    """The tables of a match that a seat left once the first hand was scored (with
    ``first_hand``: during the first hand, before any was scored).

    Nines: four players, seat 2 leaves and the other three play on to the end. Le Neuf:
    seat 1 leaves, and the two left are too few to play on, so the match ends on the
    standings. ``how`` is a key of :data:`GONE_HOW`; ``reason``: what a seat that signs its
    leave says (``quit`` is the program's word for a player who quits)."""
    if game == "neuf":
        roster = make_roster(3, seed)
        tables = {
            s: Sitting(
                NeufTable(
                    game_id=game_id_for(seed),
                    roster=roster,
                    rules=NeufRules(),
                    seat=s,
                    identity=identity_for(s, seed),
                    entropy=entropy_for(s, seed),
                )
            )
            for s in range(3)
        }
        bots: dict = {s: NeufRandomBot() for s in tables}
        leaver = 1
    else:
        tables = sittings(4, NinesRules(target=100), seed)
        bots = {s: RandomBot() for s in tables}
        leaver = 2
    net, rng = started(tables, seed)
    if first_hand:
        play_until(net, rng, lambda: tables[0].tables[0].hand is not None, bots)
    else:
        play_until(net, rng, lambda: tables[0].tables[0].hand_ends != [], bots)
    if how == "signed":
        rest = leaves(net, leaver, reason)
    else:
        rest = without(net, leaver)
        for t in rest.tables.values():
            assert t.drop(leaver, GONE_HOW[how])
        rest.pump()
    play_bots(rest, {s: bots[s] for s in rest.tables}, rng, start=False)
    assert tables[0].status == "over", tables[0].failure
    return tables


@settings(max_examples=12, deadline=None)
@given(
    n=st.integers(3, 5),
    leaver=st.integers(0, 4),
    at_step=st.integers(0, 140),
    signed=st.booleans(),
    seed=st.integers(0, 3),
)
def test_the_others_finish_without_a_seat_that_leaves_at_any_step(
    n: int, leaver: int, at_step: int, signed: bool, seed: int
) -> None:
    leaver %= n
    tables = sittings(n, NinesRules(target=60), seed)
    net = LocalNetwork(tables, rng=random.Random(seed))
    net.start()
    rng = random.Random(seed)
    play_until(net, rng, lambda: tables[leaver].step >= at_step or tables[leaver].status != "running")
    if tables[leaver].status != "running":
        return  # the match ended first
    first = tables[0].tables[0]
    scored = len(first.match.results) if first.match is not None else 0
    rest = without(net, leaver, seed)
    if signed:
        tables[leaver].leave("dinner is ready")
        for frame in tables[leaver].drain():  # its leave reaches the others (then it hangs up)
            for s in rest.tables:
                rest.tables[s].receive(leaver, frame)
    else:
        for t in rest.tables.values():
            assert t.drop(leaver, "lost connection and did not come back within 120 s")
    rest.pump()
    for t in rest.tables.values():
        assert t.present == tuple(s for s in range(n) if s != leaver)
        cont = t.tables[1]
        assert cont.carried_hands == scored
        assert cont.carried == totals_after(first, scored, leaver)
    play_bots(rest, {s: RandomBot() for s in rest.tables}, rng, start=False)
    name = f"p{leaver}"
    for text in assert_finished_alike(rest.tables):  # type: ignore[arg-type]
        assert f"{name} left after {scored} hand" in text, text
        assert f"of Nines, {n} players ({n - 1} finished it), " in text, text
        how = 'signed that they leave: "dinner is ready"' if signed else "judged gone by the others"
        assert how in text, text
    # The leaver's own file stops where it left, and blames nobody.
    if signed:
        report = audit_bytes(file_of(tables[leaver], leaver))
        assert report.incomplete and all(p.seat is None for p in report.problems), report.summary()


def test_the_events_say_who_left_and_what_the_totals_are() -> None:
    tables = sittings(4, NinesRules(target=100), seed=2)
    net, rng = started(tables, 2)
    play_until(net, rng, lambda: tables[0].tables[0].hand_ends != [])
    while tables[0].next_event() is not None:
        pass
    rest = leaves(net, 2, "bye")
    events = []
    while (e := tables[0].next_event()) is not None:
        events.append(e)
    continued = [e for e in events if isinstance(e, Continued)]
    assert len(continued) == 1
    e = continued[0]
    first = tables[0].tables[0]
    assert (e.left, e.names, e.reason, e.hands) == ((2,), ("p2",), "bye", 1)
    assert e.totals == totals_after(first, 1, 2)
    assert [p.name for p in tables[0].current.roster] == ["p0", "p1", "p3"]
    # The continued match numbers its hands after the one scored before.
    play_bots(rest, {s: RandomBot() for s in rest.tables}, rng, start=False)
    assert tables[0].current.match.results[0].number == 2


def two_seats_gone(seed: int = 5) -> tuple[dict[int, Sitting], LocalNetwork]:
    """Four seats: seat 1 is judged gone, then seat 3 signs that it leaves the second table,
    and seats 0 and 2 play the third to the end (each of them holds three tables)."""
    tables = sittings(4, NinesRules(target=80), seed=seed)
    net, rng = started(tables, seed)
    play_until(net, rng, lambda: tables[1].step >= 30)
    rest = without(net, 1)
    for t in rest.tables.values():
        assert t.drop(1, "lost connection")
    rest.pump()
    play_until(rest, rng, lambda: tables[3].current.step >= 25)
    assert tables[3].current.status == "running"
    last = leaves(rest, 3, "off to bed")
    assert tables[0].present == (0, 2) and len(tables[0].tables) == 3
    play_bots(last, {s: RandomBot() for s in last.tables}, rng, start=False)
    return tables, last


def test_two_seats_leave_one_after_the_other() -> None:
    _, last = two_seats_gone()
    for text in assert_finished_alike(last.tables):  # type: ignore[arg-type]
        assert "p1 left after" in text and "p3 left after" in text, text


def test_after_a_fault_the_records_of_every_later_table_are_checked_with_their_own_roster() -> None:
    """A file of three tables (two seats left one after the other) whose first table holds a
    record with a broken signature: the replay stops there, and the records after it are only
    checked for their signatures, each against the roster of the table its game id names. The
    third table's roster follows from the second's, as the second's from the first: its valid
    records are not listed as records whose signature does not verify."""
    tables, _ = two_seats_gone()
    records = tables[0].records_to_save()
    ids = [t.game_id for t in tables[0].tables]
    assert len(ids) == 3 and {r.record.game_id for r in records} == set(ids)
    at = next(k for k, r in enumerate(records) if r.record.game_id == ids[0] and r.record.step == 10)
    sig = records[at].sig
    broken = SignedRecord(records[at].raw, bytes([sig[0] ^ 1]) + sig[1:], records[at].record)
    report = audit_bytes(encode_file([*records[:at], broken, *records[at + 1 :]], saved_by=0, status="over"))
    assert not report.valid
    # The broken record alone: no valid record of a later table listed, nor taken for junk.
    assert [(p.record, p.seat, p.what.split(":")[0]) for p in report.problems] == [
        (at, None, "bad signature")
    ], report.problems
    assert sum(r.record.game_id == ids[2] for r in records) > 20  # (the third table's records were read)


def test_le_neuf_with_two_seats_left_ends_on_the_standings() -> None:
    roster = make_roster(3, 7)
    tables = {
        s: Sitting(
            NeufTable(
                game_id=game_id_for(7),
                roster=roster,
                rules=NeufRules(),
                seat=s,
                identity=identity_for(s, 7),
                entropy=entropy_for(s, 7),
            )
        )
        for s in range(3)
    }
    net = LocalNetwork(tables, rng=random.Random(7))
    net.start()
    rng = random.Random(7)
    bots = {s: NeufRandomBot() for s in tables}
    play_until(net, rng, lambda: tables[0].tables[0].hand_ends != [], bots)
    first = tables[0].tables[0]
    assert len(first.match.results) == 1
    rest = without(net, 1)
    for t in rest.tables.values():
        assert t.drop(1, "lost connection")
    rest.pump()
    totals = totals_after(first, 1, 1)
    for t in rest.tables.values():
        assert t.status == "over"
        assert tuple(t.current.match.totals) == totals
        low = min(totals)
        assert t.current.match.winners == tuple(s for s, v in enumerate(totals) if v == low)
    for text in assert_finished_alike(rest.tables):  # type: ignore[arg-type]
        assert "p1 left after 1 hand" in text, text


# -- claims that do not hold ------------------------------------------------------


class Understates(Table):
    """Claims one hand fewer than it finished (to void a hand it lost)."""

    def _continue_body(self) -> Continue:
        b = super()._continue_body()
        return replace(b, hands=b.hands - 1)


class HidesSteps(Table):
    """Claims to have completed fewer steps than its own records show."""

    def _continue_body(self) -> Continue:
        b = super()._continue_body()
        return replace(b, steps=3, hands=0)


class NamesAnother(Table):
    """Says another seat left."""

    def _continue_body(self) -> Continue:
        b = super()._continue_body()
        return replace(b, left=tuple((s + 1) % 4 for s in b.left))


class AheadWithFewerHands(Table):
    """Claims to have completed more steps than the others, yet one hand fewer than they
    saw scored (to void a hand it lost): rule 4 of protocol.md section 12."""

    def _continue_body(self) -> Continue:
        b = super()._continue_body()
        return replace(b, steps=b.steps + 5, hands=b.hands - 1)


class AheadWithMoreHands(Table):
    """Claims to have completed more steps than the others, and a hand more than they saw
    scored: nothing they can disprove, so they carry the fewest hands claimed (theirs)."""

    def _continue_body(self) -> Continue:
        b = super()._continue_body()
        return replace(b, steps=b.steps + 5, hands=b.hands + 1)


def judged_gone_after_a_hand(liar: type[Table]) -> dict[int, Sitting]:
    """Four seats (seat 0 plays ``liar``) play past their first hand; then seats 0, 1 and
    3 judge seat 2 gone and write their ``continue`` records."""
    tables = sittings(4, NinesRules(target=100), 3, s0=liar)
    net = LocalNetwork(tables, rng=random.Random(3))
    net.start()
    rng = random.Random(3)
    play_until(net, rng, lambda: tables[1].tables[0].hand_ends != [] and tables[1].step > 40)
    rest = without(net, 2)
    for t in rest.tables.values():
        assert t.drop(2, "lost connection")
    rest.pump()
    return tables


# Guards core.py _on_continue: rule 4 (a seat ahead of this node claims at least the hands
# this node saw scored), with AheadWithFewerHands.
@pytest.mark.parametrize(
    ("liar", "problem"),
    [
        (Understates, "hands were scored by step"),
        (HidesSteps, "fewer than it signed"),
        (NamesAnother, "without another seat"),
        (AheadWithFewerHands, "fewer than this node saw"),
    ],
)
def test_a_false_continue_record_blames_its_author(liar: type[Table], problem: str) -> None:
    tables = judged_gone_after_a_hand(liar)
    for s in (1, 3):
        f = tables[s].failure
        assert f is not None and f.peer == 0 and problem in f.problem, f
        report = audit_bytes(encode_file(tables[s].records_to_save(), saved_by=s, status="failed"))
        assert [p.seat for p in report.problems if p.seat is not None] == [0], report.summary()


# Guards core.py _on_continue: the totals carried are those after the fewest hands claimed.
def test_a_seat_that_claims_more_hands_than_the_others_saw_cannot_make_them_count() -> None:
    tables = judged_gone_after_a_hand(AheadWithMoreHands)
    first = tables[1].tables[0]
    scored = len(first.match.results)
    assert scored >= 1
    for s in (0, 1, 3):
        t = tables[s]
        assert t.failure is None and t.present == (0, 1, 3), (s, t.failure)
        assert t.tables[1].carried_hands == scored
        assert t.tables[1].carried == totals_after(first, scored, 2)


def test_a_hand_that_one_remaining_seat_did_not_see_scored_is_void_for_all() -> None:
    """Seat 2's reveal of the first hand never reaches seat 1, and then seat 2 is gone:
    seats 0 and 3 scored that hand, seat 1 did not (its claim is honest, and behind
    theirs). All three carry the totals before that hand, the fewest hands claimed."""

    reveal: list[int] = []

    def hand_reveal_of_2(rec: SignedRecord) -> bool:
        # Its reveal and all it writes after (the next hand may begin with its turn, its
        # round 0 made ahead): seat 1 never hears from it again, as over a link that is down.
        if rec.record.seat == 2 and rec.record.step > 2 and isinstance(rec.record.body, Reveal):
            reveal[:] = reveal or [rec.record.step]
        return rec.record.seat == 2 and bool(reveal) and rec.record.step >= reveal[0]

    # Seat 1 never gets seat 2's reveal of a hand (nor what follows), from seat 2 or forwarded.
    hold_back = withholding(1, hand_reveal_of_2)
    tables = sittings(4, NinesRules(target=100), 3)
    net = LocalNetwork(tables, rng=random.Random(3), tamper=hold_back)  # type: ignore[arg-type]
    net.start()
    play_until(net, random.Random(3), lambda: False)  # until seat 1 waits for the reveal it never gets
    first = {s: tables[s].tables[0] for s in tables}
    assert len(first[0].hand_ends) == len(first[3].hand_ends) == 1 and first[1].hand_ends == []
    rest = without(net, 2)
    for t in rest.tables.values():
        assert t.drop(2, "lost connection")
    rest.pump()
    for s in (0, 1, 3):
        t = tables[s]
        assert t.failure is None and t.present == (0, 1, 3), (s, t.failure)
        assert t.tables[1].carried_hands == 0 and t.tables[1].carried == (0, 0, 0), s
    play_bots(rest, {s: RandomBot() for s in rest.tables}, random.Random(3), start=False)
    for s in (0, 1, 3):  # (their files differ: only seat 1's lacks the first hand's reveal)
        assert tables[s].status == "over", (s, tables[s].failure)
        report = audit_bytes(file_of(tables[s], s))
        assert report.valid, report.summary()
        assert "p2 left after 0 hands" in " ".join(report.summary().split())


def test_a_continue_from_another_history_stops_blaming_nobody() -> None:
    class OtherHistory(Table):
        def _continue_body(self) -> Continue:
            b = super()._continue_body()
            return replace(b, last=bytes(32))

    tables = sittings(4, NinesRules(target=100), 4, s3=OtherHistory)
    net = LocalNetwork(tables, rng=random.Random(4))
    net.start()
    play_until(net, random.Random(4), lambda: tables[0].step >= 20)
    rest = without(net, 1)
    for t in rest.tables.values():
        t.drop(1, "lost connection")
    rest.pump()
    for s in (0, 2):
        f = tables[s].failure
        assert f is not None and f.peer is None and "another history" in f.problem, f


# -- nobody is pushed out on one seat's word ------------------------------------------


def test_one_seat_cannot_push_another_out() -> None:
    tables = sittings(4, NinesRules(target=100), 6)
    net = LocalNetwork(tables, rng=random.Random(6))
    net.start()
    rng = random.Random(6)
    play_until(net, rng, lambda: tables[0].step >= 25 and 0 in tables[1].current.spec.authors)
    tables[0].continue_without(1, "I say p1 is gone")
    net.pump()
    net.settle()
    # Nobody followed seat 0: the others are still on the first table, seat 1 too.
    for s in (1, 2, 3):
        assert tables[s].status == "running" and len(tables[s].tables) == 1, (s, tables[s].failure)
        assert tables[s].failure is None
    # They hold seat 0's new records aside, unused, and wait for it on the first table.
    assert any(0 in tables[s].waiting_for for s in (1, 2, 3)), {s: tables[s].waiting_for for s in tables}
    # Seat 0's new table waits for the others, who never sign it.
    assert set(tables[0].waiting_for) == {2, 3}
    assert tables[0].current.game_id == continuation_id(tables[0].tables[0].game_id, (1,))


def test_a_table_begun_without_a_seat_is_what_proposed_without_says_and_one_drop_joins_it() -> None:
    """The network layer follows another seat's new table only for a seat it judged gone
    itself (``net.runner``): ``proposed_without`` names the seats such a table leaves
    out, and dropping that seat here joins that very table."""
    tables = sittings(4, NinesRules(target=100), 6)
    net = LocalNetwork(tables, rng=random.Random(6))
    net.start()
    play_until(net, random.Random(6), lambda: tables[0].step >= 25)
    assert all(t.proposed_without() == set() for t in tables.values())
    tables[0].continue_without(1, "p1 stayed away")
    net.pump()
    net.settle()
    told = [s for s in (2, 3) if tables[s].proposed_without()]  # those seat 0's record reached
    assert told and all(tables[s].proposed_without() == {1} for s in told)
    assert tables[1].proposed_without() == set()  # the seat left out is pushed out by nobody's word
    follower = tables[told[0]]
    assert len(follower.tables) == 1  # held, unused, until this node judges seat 1 gone itself
    assert follower.drop(1, "lost connection and did not come back within 3 s")
    assert follower.current.game_id == tables[0].current.game_id  # the very table seat 0 began
    assert follower.proposed_without() == set()


def test_a_seat_that_every_other_judged_gone_stops_blaming_nobody() -> None:
    tables = sittings(4, NinesRules(target=100), 8)
    net = LocalNetwork(tables, rng=random.Random(8))
    net.start()
    play_until(net, random.Random(8), lambda: tables[0].step >= 25 and not tables[1].my_turn)
    for s in (0, 2, 3):  # they all judged seat 1 gone (its link was down), and it is back
        tables[s].drop(1, "lost connection and did not come back within 120 s")
    net.pump()
    f = tables[1].failure
    assert f is not None and f.peer is None and "every one of them judged it gone" in f.problem, f
    # Only two of them would not have been enough: see test_one_seat_cannot_push_another_out.


# Guards sitting.py _pushed_out: the signature of each ``continue`` record that pushes
# this seat out (else one seat forges the others' and pushes any seat out alone).
def test_continue_records_forged_in_the_others_names_push_nobody_out() -> None:
    tables = sittings(4, NinesRules(target=100), 8)
    net = LocalNetwork(tables, rng=random.Random(8))
    net.start()
    play_until(net, random.Random(8), lambda: tables[0].step >= 25 and not tables[1].my_turn)
    tables[0].continue_without(1, "I say p1 is gone")
    net.pump()
    new = tables[0].current  # seat 0's own record there is genuine; it signs the others' too
    body = new._continue_body()
    for seat in (1, 2):  # seats 2 and 3 of the first table
        rec = Record(game_id=new.game_id, step=0, seat=seat, prev=bytes(32), body=body)
        raw = rec.to_bytes()
        forged = SignedRecord(raw, identity_for(0, 8).sign(SIGN_PREFIX + raw), rec)
        tables[1].receive(0, forged.to_frame())
    assert tables[1].failure is None and tables[1].status == "running", tables[1].failure
    assert len(tables[1].tables) == 1


# -- a crash on the new table ---------------------------------------------------------


def test_a_seat_that_crashes_on_the_new_table_comes_back_from_its_journal() -> None:
    tables = sittings(4, NinesRules(target=60), 9)
    journals: dict[int, list] = {s: [] for s in tables}
    net = LocalNetwork(tables, rng=random.Random(9))
    net.start()
    rng = random.Random(9)
    play_until(net, rng, lambda: tables[0].step >= 30)
    rest = without(net, 3)
    for t in rest.tables.values():
        t.drop(3, "lost connection")
    rest.pump()
    play_until(rest, rng, lambda: tables[1].current.step >= 15)
    for s, t in tables.items():
        journals[s] += t.drain_journal()
    # Seat 1 crashes: a fresh node with the same identity and entropy, from its journal.
    fresh = Sitting(make_tables(4, NinesRules(target=60), 9)[1])
    fresh.restore(journals[1])
    assert fresh.present == (0, 1, 2) and fresh.current.game_id == tables[1].current.game_id
    again = LocalNetwork({0: tables[0], 1: fresh, 2: tables[2]}, rng=random.Random(10))
    for s in (0, 2):
        for frame in tables[s].link_reset(1):
            fresh.receive(s, frame)
        for frame in fresh.link_reset(s):
            tables[s].receive(1, frame)
    again.settle()
    play_bots(again, {s: RandomBot() for s in again.tables}, rng, start=False)
    assert_finished_alike({0: tables[0], 1: fresh, 2: tables[2]})


# -- the table's clock is in every seat's signed join record ---------------------------


def _clocked(roster: tuple[Player, ...], seat: int, clock: tuple[int, int, int]) -> Table:
    """``seat``'s table of seed 11 (short rules) stating ``clock``."""
    return Table(
        game_id=game_id_for(11),
        roster=roster,
        rules=SHORT_RULES,
        seat=seat,
        identity=identity_for(seat, 11),
        entropy=entropy_for(seat, 11),
        clock=clock,
    )


def test_the_clock_is_signed_in_the_join_records_and_a_seat_stating_another_is_blamed() -> None:
    roster = make_roster(3, 11)

    def table(seat: int, clock: tuple[int, int, int]) -> Table:
        return _clocked(roster, seat, clock)

    agreed = {s: Sitting(table(s, (600, 60, 120))) for s in range(3)}
    net = LocalNetwork(agreed, rng=random.Random(11))
    play_bots(net, {s: RandomBot() for s in agreed}, random.Random(11))
    assert all(t.clock == (600, 60, 120) for t in agreed.values())
    summary = " ".join(audit_bytes(file_of(agreed[0], 0)).summary().split())
    said = "Clock, signed by every player: 10 min per turn, 60 s for any other step, 2 min to come back"
    assert said in summary, summary
    # A seat told another clock (a host showing different tables) signs another join record:
    # the host blames it, it blames the host, and seat 2 cannot tell which of the two lies.
    other = {s: table(s, (30, 60, 120) if s == 1 else (600, 60, 120)) for s in range(3)}
    net = LocalNetwork(other, rng=random.Random(11))
    net.start()
    for s, blamed in ((0, 1), (1, 0), (2, None)):
        f = other[s].failure
        assert f is not None and f.peer == blamed, (s, f)
        assert ("disagrees on the table" if blamed is not None else "nobody can tell which") in f.problem, f


def test_a_leave_signed_behind_the_others_is_read_where_it_is_saved() -> None:
    """The leaver had not yet seen the last steps the others completed: its ``leave``
    (a side record of its own step) is saved after those steps, and the audit takes it
    there rather than calling the file edited."""
    from p2pcards.protocol.messages import Leave
    from p2pcards.protocol.wire import SignedRecord, decode_frame

    tables = sittings(3, NinesRules(target=60), 12)
    net = LocalNetwork(tables, rng=random.Random(12))
    net.start()
    rng = random.Random(12)
    play_until(net, rng, lambda: tables[2].step >= 15)
    early = tables[2].drain_journal()  # seat 2 as it stood at step 15
    behind = tables[2].step
    play_until(net, rng, lambda: tables[0].step >= behind + 8)
    # Seat 2 (its view still at that step: its last frames never reached it) leaves.
    lagging = Sitting(make_tables(3, NinesRules(target=60), 12)[2])
    lagging.restore(early)
    assert lagging.step == behind
    lagging.leave("bye")
    frames = [decode_frame(f) for f in lagging.drain()]
    leave = [f for f in frames if isinstance(f, SignedRecord) and isinstance(f.record.body, Leave)]
    assert len(leave) == 1 and leave[0].record.step == behind
    rest = without(net, 2)
    for s in (0, 1):
        tables[s].receive_frame(2, leave[0])
    rest.pump()
    play_bots(rest, {s: RandomBot() for s in rest.tables}, rng, start=False)
    for text in assert_finished_alike(rest.tables):  # type: ignore[arg-type]
        assert 'signed that they leave: "bye"' in text, text


def test_the_json_record_of_a_continued_match_carries_the_totals_and_names_who_left() -> None:
    tables = sittings(4, NinesRules(target=100), 2)
    net = LocalNetwork(tables, rng=random.Random(2))
    net.start()
    rng = random.Random(2)
    play_until(net, rng, lambda: tables[0].tables[0].hand_ends != [])
    first = tables[0].tables[0]
    rest = without(net, 1)
    for t in rest.tables.values():
        t.drop(1, "lost connection")
    rest.pump()
    play_bots(rest, {s: RandomBot() for s in rest.tables}, rng, start=False)
    record = audit_bytes(file_of(tables[0], 0)).to_record()
    assert record["verdict"]["valid"]
    assert [p["name"] for p in record["players"]] == ["p0", "p2", "p3"]
    assert record["carried"] == {"hands": 1, "totals": list(totals_after(first, 1, 1))}
    (left,) = record["left"]
    assert (left["name"], left["after_hands"], left["signed"]) == ("p1", 1, False)
    assert left["total"] == first.match.results[0].totals[1]
    assert left["key"] == first.roster[1].key.hex()
    # The hands played on are numbered after the one scored before, and their totals
    # run on from the carried ones.
    hands = record["hands"]
    assert hands[0]["number"] == 2
    penalties = [sum(h["penalties"][s] for h in hands) for s in range(3)]
    carried = record["carried"]["totals"]
    assert [c + p for c, p in zip(carried, penalties, strict=True)] == record["result"]["totals"]
    # The first table's record: its four players and the one hand that counted, whose
    # totals are the ones carried (those of p0, p2 and p3) and the one p1 keeps.
    (before,) = record["earlier"]
    assert [p["name"] for p in before["players"]] == ["p0", "p1", "p2", "p3"]
    assert "carried" not in before and "verdict" not in before
    assert [h["number"] for h in before["hands"]] == [1]
    scored = before["hands"][0]["totals"]
    assert [scored[s] for s in (0, 2, 3)] == carried and scored[1] == left["total"]
    assert before["cut"] and before["result"]["finished"] is False


def test_two_seats_gone_at_once_judged_in_either_order_lead_to_one_table() -> None:
    """Seat 0 judges seat 2 gone first, seat 1 judges seat 3 first: each amends its new
    table when it judges the other gone, and both meet at the table without 2 and 3."""
    tables = sittings(4, NinesRules(target=60), 13)
    net = LocalNetwork(tables, rng=random.Random(13))
    net.start()
    rng = random.Random(13)
    play_until(net, rng, lambda: tables[0].step >= 25)
    rest = LocalNetwork({s: tables[s] for s in (0, 1)}, rng=random.Random(14))
    assert tables[0].drop(2, "lost connection") and tables[1].drop(3, "lost connection")
    rest.pump()  # each holds the other's first record, of a table it has not chosen
    assert len(tables[0].tables) == len(tables[1].tables) == 2
    assert tables[0].current.game_id != tables[1].current.game_id
    assert tables[0].drop(3, "lost connection") and tables[1].drop(2, "lost connection")
    rest.pump()
    for s in (0, 1):
        assert tables[s].present == (0, 1) and len(tables[s].tables) == 2, tables[s].tables
        assert tables[s].current.carry is not None and tables[s].current.carry.left == (2, 3)
    play_bots(rest, {s: RandomBot() for s in rest.tables}, rng, start=False)
    for text in assert_finished_alike(rest.tables):  # type: ignore[arg-type]
        assert "p2 left after" in text and "p3 left after" in text, text
        hands = sum(len(t.match.results) for t in tables[0].tables if t.match is not None)
        assert f"4 players (2 finished it), {hands} hand" in text, text


def test_an_abort_at_the_first_step_of_a_table_that_goes_on_is_not_a_refusal() -> None:
    """Seat 0 went on without seat 3; seat 1, which did not, stops the old table at its
    step 31 and says so. At the new table's first step that abort is not seat 1 refusing
    to send its ``continue`` record (its step is the old table's): seat 1 is not named."""
    tables = sittings(4, NinesRules(target=100), 3)
    net, rng = started(tables, 3)
    play_until(net, rng, lambda: tables[0].tables[0].hand is not None)
    assert tables[0].drop(3, "lost connection and did not come back within 10 s")
    assert tables[0].step == 0 and 1 in tables[0].waiting_for
    stop = Abort("nobody at fault: timed out waiting for p0 (seat 0) at step 31", 31)
    tables[0].receive(1, stop.to_frame())
    assert tables[0].failure is None and tables[0].stopped[1][0] == 31, tables[0].failure


@pytest.mark.parametrize("reached", ["directly", "through a relay"])
def test_a_seat_silent_on_the_old_table_after_going_on_without_another(reached: str) -> None:
    """Seat 1 judged seat 2 gone and went on without it; seat 3 holds its ``continue``
    record and waits for it on the old table. If seat 3 too reaches seat 2 only through a
    relay, it cannot vouch for seat 2: seat 1's silence is no fault, and nobody is named.
    If seat 3 is linked with seat 2 itself, seat 1 is named as any silent seat (an honest
    seat 1 would have heard seat 2 through seat 3, which carries relays)."""
    from p2pcards.net.runner import RunResult, _time_out

    tables = sittings(4, NinesRules(target=100), 3)
    net, rng = started(tables, 3)
    play_until(net, rng, lambda: tables[0].tables[0].hand is not None)
    assert tables[1].drop(2, "lost connection and did not come back within 10 s")
    for frame in tables[1].drain():
        tables[3].receive(1, frame)
    assert tables[3].gone_on_without() == {2: {1}}
    assert 1 in tables[3].waiting_for and len(tables[3].tables) == 1
    result = RunResult("running")
    _time_out(tables[3], 60.0, 60.0, False, result, {2} if reached == "through a relay" else set())
    failure = tables[3].failure
    assert failure is not None
    if reached == "directly":
        assert failure.peer == 1 and result.blamed == (1,), failure
    else:
        assert failure.peer is None and result.blamed == (), failure
        assert "p1 went on without p2, whom this node reaches only through a relay too" in failure.problem


def test_a_timeout_on_the_first_step_of_a_table_that_goes_on_blames_nobody() -> None:
    """Seat 0 judged seat 3 gone (its link with 3 broke) and went on to the table without
    it; seats 1 and 2, still linked with 3, did not. Their silence on the new table is no
    fault: they may still hear from seat 3. So seat 0's timeout names nobody (a seat that
    cut only its link with the host cannot get the others blamed)."""
    from p2pcards.net.runner import RunResult, _time_out

    tables = sittings(4, NinesRules(target=100), 3)
    net, rng = started(tables, 3)
    play_until(net, rng, lambda: tables[0].tables[0].hand is not None)
    assert tables[0].drop(3, "lost connection and did not come back within 10 s")
    assert len(tables[0].tables) == 2 and tables[0].step == 0  # alone on the new table's step 0
    assert all(len(tables[s].tables) == 1 for s in (1, 2))
    result = RunResult("running")
    _time_out(tables[0], 60.0, 60.0, False, result)
    failure = tables[0].failure
    assert failure is not None and failure.peer is None and result.blamed == (), failure
    assert "did not go on without p3 within 60 s" in failure.problem and "cannot tell" in failure.problem


def test_a_seat_that_signs_two_different_leaves_is_left_behind_by_all_and_a_file_with_both_names_it() -> None:
    """Seat 2 signs two leaves with different reasons, one to seat 0 and the other to
    seats 1 and 3 (each then reaches every seat, forwarded). Each node keeps the first
    it accepts and goes on at once, so the second reaches it on the table left behind:
    nobody is named, and the files differ only in the reason. A file holding both
    proves the equivocation, and its audit names seat 2."""
    from p2pcards.protocol.messages import Leave

    seed = 12
    tables = sittings(4, NinesRules(target=60), seed)
    net, rng = started(tables, seed)
    play_until(net, rng, lambda: tables[2].step >= 20)
    journal = tables[2].drain_journal()
    signed = []
    for reason in ("dinner", "phone call"):
        copy = Sitting(make_tables(4, NinesRules(target=60), seed)[2])
        copy.restore(journal)
        copy.leave(reason)
        frames = [decode_frame(f) for f in copy.drain()]
        signed += [f for f in frames if isinstance(f, SignedRecord) and isinstance(f.record.body, Leave)]
    first, second = signed
    assert first.raw != second.raw and first.record.step == second.record.step
    rest = without(net, 2)
    tables[0].receive_frame(2, first)
    tables[0].receive_frame(2, second)  # right after: seat 0 has gone on already
    for s in (1, 3):
        tables[s].receive_frame(2, second)
    rest.pump()
    play_bots(rest, {s: RandomBot() for s in rest.tables}, rng, start=False)
    reasons = {0: "dinner", 1: "phone call", 3: "phone call"}
    for s, reason in reasons.items():
        assert tables[s].status == "over" and tables[s].failure is None, tables[s].failure
        report = audit_bytes(file_of(tables[s], s))
        assert report.valid, report.summary()
        assert f'p2 left after 0 hands (signed that they leave: "{reason}")' in " ".join(
            report.summary().split()
        )
    kept = {s: [r.raw for r in tables[s].records_to_save()] for s in reasons}
    assert kept[1] == kept[3] and kept[0] != kept[1]
    assert [r for r in kept[0] if r not in kept[1]] == [first.raw]  # the leave alone differs
    records = tables[0].records_to_save()
    at = next(k for k, r in enumerate(records) if r.raw == first.raw)
    both = [*records[: at + 1], second, *records[at + 1 :]]
    report = audit_bytes(encode_file(both, saved_by=0, status="over"))
    assert not report.valid
    assert [(p.seat, p.what.split(":")[0]) for p in report.problems] == [(2, "equivocation")], report.problems


def test_the_end_of_a_match_that_went_on_without_a_player_says_the_total_it_keeps() -> None:
    """The last table's score table shows its own seats only: the end of the match says what
    each player who left keeps, the total of the last hand scored before it left."""
    from p2pcards.net.node import Outcome
    from p2pcards.ui.i18n import Translator
    from p2pcards.ui.netgame import describe_outcome

    tables = left_match("nines")
    sitting = tables[0]
    assert len(sitting.tables) == 2 and sitting.status == "over"
    before = sitting.tables[0]
    (gone,) = [s for s, p in enumerate(before.roster) if p.key not in {q.key for q in sitting.current.roster}]
    total = before.match.totals[gone]
    outcome = Outcome(status="over", problem=None, blamed=(), transcript=None, table=sitting)
    for lang, said in (("en", "Who left keeps their total: "), ("fr", "Qui est parti garde son total : ")):
        lines = describe_outcome(outcome, Translator(lang))
        assert f"{said}{before.roster[gone].name} {total}." in lines, lines


# -- records of a table that may continue this one, held before anyone went on --------------


def _continuation_record(
    gid: bytes, seat: int, step: int, sign: Callable[[bytes], bytes] | None
) -> SignedRecord:
    """A large, well-formed lock record of the table ``gid``, signed by ``sign`` (or not)."""
    from p2pcards.protocol.messages import Lock

    body = Lock(round=0, deck=tuple(bytes([i]) * 32 for i in range(104)))
    rec = Record(game_id=gid, step=step, seat=seat, prev=bytes(32), body=body)
    raw = rec.to_bytes()
    sig = sign(SIGN_PREFIX + raw) if sign is not None else bytes(64)
    return SignedRecord(raw, sig, rec)


def test_a_record_of_a_table_that_may_continue_this_one_is_held_only_if_its_seat_signed_it() -> None:
    """Records of a table that continues this one without some seat are held until this
    node goes on too (section 12): such a table is a table of the match, whose roster is
    this one's without those seats. Held unchecked, any peer (or carrier) could make every
    node hold 512 records of its making for each of the 56 tables that may continue a
    table of six, hundreds of megabytes, blaming nobody: one not signed by the seat it
    names there blames who sent it, as a record of the table itself would."""
    tables = sittings(4, SHORT_RULES, 3)
    net = LocalNetwork(tables, rng=random.Random(3))
    net.start()
    gid = continuation_id(tables[0].current.game_id, (1,))
    forged = _continuation_record(gid, 0, 5, None)  # "seat 0" of the table without seat 1
    with pytest.raises(RemoteProtocolError):
        tables[0].receive_frame(2, Evidence((forged,)))
    assert not tables[0]._ahead
    err = tables[0].current.failure
    assert err is not None and err.peer == 2, err
    from p2pcards.ui.i18n import Translator
    from p2pcards.ui.problems import problem_text

    # Said as what it is: a record in the name of a seat that did not sign it (of the match, not
    # of "another game"), which blames who sent it, never the seat it names.
    name = tables[0].roster[0].name
    assert err.problem == faults.SENT_FORGED_NEXT.format(step=5, name=name), err.problem
    for lang in ("fr", "it"):
        said = problem_text(Translator(lang), err.problem)
        assert said == Translator(lang)("fault_sent_forged_next", step="5", name=name), said


def test_a_record_of_a_table_that_may_continue_this_one_by_a_seat_not_there_blames_who_sent_it() -> None:
    """A record by a seat number the table continuing this one does not have (three seats are
    left without seat 1: 0, 1 and 2) is no record of that table: whoever sent it is blamed."""
    tables = sittings(4, SHORT_RULES, 3)
    net = LocalNetwork(tables, rng=random.Random(3))
    net.start()
    gid = continuation_id(tables[0].current.game_id, (1,))
    with pytest.raises(RemoteProtocolError):
        tables[0].receive_frame(3, _continuation_record(gid, 3, 5, None))
    err = tables[0].current.failure
    assert err is not None and err.peer == 3, err
    assert err.problem == faults.SENT_NOT_AT_NEXT.format(step=5, seat=3), err.problem


def test_what_one_seat_has_held_ahead_at_the_tables_that_may_continue_this_one_is_bounded() -> None:
    """A seat may sign as many records as it likes for every table that may continue this
    one: what this node holds of them for that seat is bounded across all those tables
    (rule 5's bound, MAX_QUEUED), not for each of them."""
    from itertools import combinations

    from p2pcards.protocol.steplog import MAX_QUEUED

    tables = sittings(4, SHORT_RULES, 4)
    net = LocalNetwork(tables, rng=random.Random(4))
    net.start()
    base = tables[0].current
    ident = identity_for(2, 4)
    held_before = sum(len(v) for v in tables[0]._ahead.values())
    for k in (1, 2):
        for gone in combinations((0, 1, 3), k):  # tables that keep seat 2
            gid = continuation_id(base.game_id, gone)
            seat = 2 - sum(1 for g in gone if g < 2)
            batch = [_continuation_record(gid, seat, 100 + i, ident.sign) for i in range(MAX_QUEUED + 8)]
            for i in range(0, len(batch), 16):
                with contextlib.suppress(RemoteProtocolError):
                    tables[0].receive_frame(2, Evidence(tuple(batch[i : i + 16])))
    held = sum(len(v) for v in tables[0]._ahead.values()) - held_before
    assert held <= MAX_QUEUED, held
    assert tables[0].current.failure is None or tables[0].current.failure.peer == 2


SEED_BOTH_STOP = 2
"""A delivery order in which both joiners complete step 0 before either hears from the other."""


def test_a_host_that_tells_two_joiners_other_terms_in_two_joins_of_its_own_is_named() -> None:
    """A host tells seat 2 another clock than seat 1, and signs two join records, each
    agreeing with the joiner it goes to. Each joiner agrees with the host's join it holds
    and sees the other joiner's differ: each stops at once, naming nobody ("nobody can
    tell which"), and forwards the joins that made it stop (section 7.3). Each then holds
    two joins the host signed for step 0: that equivocation is the verdict of both, and
    their files prove it."""
    from p2pcards.protocol.messages import Join

    roster = make_roster(3, 11)
    host_key = identity_for(0, 11)

    def table(seat: int, clock: tuple[int, int, int]) -> Table:
        return _clocked(roster, seat, clock)

    other = (30, 60, 120)

    between: list[tuple[int, int, bytes]] = []

    def two_faced(sender: int, receiver: int, frame: bytes) -> bytes | None:
        rec = decode_frame(frame)
        if sender and receiver:
            between.append((sender, receiver, frame))
        join = isinstance(rec, SignedRecord) and isinstance(rec.record.body, Join)
        if sender == 0 and receiver == 2 and join:
            assert isinstance(rec, SignedRecord)
            record = replace(rec.record, body=replace(rec.record.body, clock=other))
            raw = record.to_bytes()
            return SignedRecord(raw, host_key.sign(SIGN_PREFIX + raw), record).to_frame()
        return frame if sender != 0 or join else None  # (the host says nothing else)

    tables = {s: table(s, other if s == 2 else (600, 60, 120)) for s in range(3)}
    net = LocalNetwork(tables, rng=random.Random(SEED_BOTH_STOP), tamper=two_faced)
    net.start()
    for s in (1, 2):
        f = tables[s].failure
        assert f is not None and f.peer is None and "nobody can tell which" in f.problem, (s, f)
    # What each joiner sent as it stopped reaches the other (a node reads on for that, below).
    for a, b, frame in between:
        if isinstance(decode_frame(frame), Evidence):
            with contextlib.suppress(RemoteProtocolError):
                tables[b].receive_frame(a, decode_frame(frame))
    for s in (1, 2):
        f = tables[s].failure
        assert f is not None and f.peer == 0 and "equivocation" in f.problem, (s, f)
        saved = encode_file(tables[s].records_to_save(), saved_by=s, status=f"failed: {f.problem}")
        assert 0 in [p.seat for p in audit_bytes(saved).problems]  # the host, by its two joins
