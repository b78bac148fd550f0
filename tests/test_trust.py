"""Attacks by a seat that always signs with its real key, each against a guarantee:
an honest seat is never blamed, no value crashes a node or the audit, and every
verdict a node reaches live is one the audit of its file confirms.
"""

from __future__ import annotations

import random

import pytest
import trio
import trio.testing
from net_helpers import WrappedStream, bot, memory_links
from protocol_helpers import SHORT_RULES, game_id_for, identity_for, make_roster, make_tables, records_file

from p2pcards.bots.random_bot import RandomBot
from p2pcards.errors import RemoteProtocolError
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.loopback import LocalNetwork, play_bots
from p2pcards.protocol.messages import Commit, Join, PlayCards, Reveal, Shown, Shuffle
from p2pcards.protocol.wire import (
    PROTOCOL_VERSION,
    SIGN_PREFIX,
    Abort,
    Evidence,
    Need,
    Record,
    SignedRecord,
    decode_frame,
)

SEED = 21


def signed(seat: int, record: Record, seed: int = SEED) -> SignedRecord:
    """``record`` signed with the real key of ``seat`` (a dishonest seat signs what it likes)."""
    raw = record.to_bytes()
    return SignedRecord(raw, identity_for(seat, seed).sign(SIGN_PREFIX + raw), record)


def record_of(frame: bytes) -> SignedRecord | None:
    f = decode_frame(frame)
    return f if isinstance(f, SignedRecord) else None


def honest_seats(net: LocalNetwork, byzantine: set[int]) -> list[int]:
    return [s for s in net.tables if s not in byzantine]


def audit_of(table: Table) -> list[tuple[int | None, str]]:
    report = audit_bytes(records_file(table.records_to_save(), saved_by=table.seat, status=table.status))
    assert not report.internal_error, report.problems
    return [(p.seat, p.what) for p in report.problems]


# ---------------------------------------------------------------------------
# 1. Forwarding a record of a later step must not frame the host


def test_a_record_withheld_from_one_seat_and_a_later_record_forwarded_frames_nobody() -> None:
    tables = make_tables(3, SHORT_RULES, SEED)

    def withhold(sender: int, receiver: int, frame: bytes) -> bytes | None:
        rec = record_of(frame)
        if sender == 1 and receiver == 2 and rec is not None and rec.record.step == 1:
            return None  # seat 1's cut commit reaches the host only
        return frame

    net = LocalNetwork(tables, rng=random.Random(SEED), tamper=withhold)
    net.start()
    assert tables[2].step == 1 and tables[0].step == 2
    [host_step2] = [r for r in tables[0].records_to_save() if (r.record.step, r.record.seat) == (2, 0)]
    net.inject(1, 2, Evidence((host_step2,)).to_frame())  # "evidence" from seat 1
    net.pump()
    assert tables[2].failure is None  # a record of another step proves no equivocation
    play_bots(net, {s: RandomBot() for s in tables}, random.Random(SEED), start=False)
    # Seat 1 skipped a step on its own link to seat 2: seat 2 names seat 1, and nobody
    # names the host.
    err = tables[2].failure
    assert err is not None and err.peer == 1 and "skipped step 1" in err.problem
    assert all(t.failure is None or t.failure.peer in (1, None) for t in tables.values())


def test_a_record_withheld_from_one_seat_reaches_it_through_another() -> None:
    tables = make_tables(3, SHORT_RULES, SEED)
    held_back = []

    def withhold(sender: int, receiver: int, frame: bytes) -> bytes | None:
        rec = record_of(frame)
        if sender == 1 and receiver == 2 and rec is not None and rec.record.step == 1:
            held_back.append(rec)
            return None  # seat 1 never sends anything more to seat 2 either
        if sender == 1 and receiver == 2 and held_back:
            return None
        return frame

    net = LocalNetwork(tables, rng=random.Random(SEED), tamper=withhold)
    play_bots(net, {s: RandomBot() for s in tables}, random.Random(SEED))
    # Seat 2 asks for what it lacks and gets seat 1's records from the others: the match
    # is played to the end and every seat holds the same transcript.
    assert not net.failures
    assert {t.status for t in tables.values()} == {"over"}
    assert len({tuple(r.raw for r in t.transcript.records()) for t in tables.values()}) == 1


def test_evidence_that_proves_equivocation_needs_two_records_of_one_step() -> None:
    tables = make_tables(3, SHORT_RULES, SEED)
    net = LocalNetwork(tables, rng=random.Random(SEED))
    net.start()
    # A record of the host for another step than the one seat 2 holds is not equivocation.
    old = tables[2].transcript.find(0, 0)
    assert old is not None
    net.inject(1, 2, Evidence((old,)).to_frame())
    net.pump()
    assert tables[2].failure is None or tables[2].failure.peer == 1


# ---------------------------------------------------------------------------
# 2. Equivocation is kept in the file, and the audit confirms it


def test_equivocation_is_kept_and_the_audit_blames_the_equivocator() -> None:
    tables = make_tables(3, SHORT_RULES, SEED)

    def two_faces(sender: int, receiver: int, frame: bytes) -> bytes | None:
        rec = record_of(frame)
        if sender == 1 and receiver == 2 and rec is not None and rec.record.step == 1:
            other = Record(
                game_id=rec.record.game_id,
                step=1,
                seat=1,
                prev=rec.record.prev,
                body=Commit(commit=bytes(32)),
            )
            return signed(1, other).to_frame()
        return frame

    net = LocalNetwork(tables, rng=random.Random(SEED), tamper=two_faces)
    play_bots(net, {s: RandomBot() for s in tables}, random.Random(SEED))
    for s in (0, 2):
        err = tables[s].failure
        assert err is not None and err.peer == 1 and "equivocation" in err.problem
        # Both of seat 1's records for step 1 are in the file, and the audit says so.
        ones = [r for r in tables[s].records_to_save() if r.record.seat == 1 and r.record.step == 1]
        assert len({r.raw for r in ones}) == 2
        [(seat, what)] = audit_of(tables[s])
        assert seat == 1 and "equivocation" in what


# ---------------------------------------------------------------------------
# 3. Crafted values blame their sender and crash nothing


class HugeKeyPlayer(Table):
    """Shows its played card with the key 2^256-1."""

    def _body_for_action(self, action):  # type: ignore[no-untyped-def]
        body = super()._body_for_action(action)
        if isinstance(body, PlayCards):
            shown = tuple(Shown(round=c.round, pos=c.pos, card=c.card, key=2**256 - 1) for c in body.cards)
            return PlayCards(cards=shown, suit=body.suit)
        return body


def test_a_revealed_key_of_2_256_minus_1_blames_its_author_live_and_in_the_audit() -> None:
    tables = make_tables(3, SHORT_RULES, SEED, table_classes={1: HugeKeyPlayer})
    net = LocalNetwork(tables, rng=random.Random(SEED))
    play_bots(net, {s: RandomBot() for s in tables}, random.Random(SEED))
    for s in (0, 2):
        err = tables[s].failure
        assert err is not None and err.peer == 1 and "outside the group order" in err.problem
        [(seat, what)] = audit_of(tables[s])
        assert seat == 1 and "outside the group order" in what


def test_evidence_naming_a_seat_not_at_the_table_blames_the_sender() -> None:
    tables = make_tables(3, SHORT_RULES, SEED)
    net = LocalNetwork(tables, rng=random.Random(SEED))
    net.start()
    ghost = Record(game_id=game_id_for(SEED), step=0, seat=5, prev=bytes(32), body=Commit(commit=bytes(32)))
    with pytest.raises(RemoteProtocolError):
        tables[2].receive(1, Evidence((signed(1, ghost),)).to_frame())
    err = tables[2].failure
    assert err is not None and err.peer == 1 and "seat 5" in err.problem


@pytest.mark.parametrize("bad", [bytes(32), b"\x01" + bytes(31), b"\xff" * 32])
def test_a_roster_with_an_unusable_key_is_a_verdict_not_a_crash(bad: bytes) -> None:
    roster = list(make_roster(3, SEED))
    roster[2] = type(roster[2])(name=roster[2].name, key=bad)
    join = Join(version=PROTOCOL_VERSION, game="nines", rules=(("target", 30),), roster=tuple(roster))
    rec = signed(0, Record(game_id=game_id_for(SEED), step=0, seat=0, prev=bytes(32), body=join))
    report = audit_bytes(records_file([rec]))
    assert not report.valid and not report.internal_error
    [problem] = report.problems
    assert problem.seat == 0 and problem.record == 0  # seat 0 signed a roster naming an unusable key

    # A first record whose own seat's key is unusable ties the file to nobody.
    roster[0] = type(roster[0])(name=roster[0].name, key=bad)
    join = Join(version=PROTOCOL_VERSION, game="nines", rules=(("target", 30),), roster=tuple(roster))
    rec = signed(0, Record(game_id=game_id_for(SEED), step=0, seat=0, prev=bytes(32), body=join))
    [problem] = audit_bytes(records_file([rec])).problems
    assert problem.seat is None


# ---------------------------------------------------------------------------
# 4. Evidence that proves nothing is a fault of its sender


def test_a_flood_of_copies_as_evidence_blames_the_sender_after_a_few_frames() -> None:
    tables = make_tables(3, SHORT_RULES, SEED)
    net = LocalNetwork(tables, rng=random.Random(SEED))
    net.start()
    own = [r for r in tables[0].transcript.records() if r.record.seat == 1]
    frames = 0
    for _ in range(2000):
        if tables[0].failure is not None:
            break
        net.inject(1, 0, Evidence(tuple(own)).to_frame())
        net.deliver_one()
        frames += 1
    err = tables[0].failure
    assert err is not None and err.peer == 1 and "proves nothing" in err.problem
    assert frames <= 4  # blamed at once, not after 2,000 frames


def test_an_answer_to_a_need_is_not_pointless_even_if_it_crossed_the_records() -> None:
    tables = make_tables(3, SHORT_RULES, SEED)
    net = LocalNetwork(tables, rng=random.Random(SEED))
    net.start()
    for _ in range(5):  # a seat asks again and again: every answer is welcome
        tables[2].nudge()
        tables[2].log._answered.clear()
        net.pump()
    for s in range(3):
        for t in tables.values():
            t.log._answered.clear()
        tables[s].receive_frame((s + 1) % 3, Need(0, ()))
    net.pump()
    assert not net.failures and all(t.failure is None for t in tables.values())


# ---------------------------------------------------------------------------
# 5. An abort is a claim


def test_an_abort_instead_of_the_reveal_blames_the_seat_that_owed_it() -> None:
    tables = make_tables(3, SHORT_RULES, SEED)
    accusation = "p0 (seat 0) at fault: equivocation\np1 wins with 0 points!"

    quit_at: dict[int, int] = {}

    def quit_at_reveal(sender: int, receiver: int, frame: bytes) -> bytes | None:
        if sender == 1 and receiver in quit_at:
            return None  # it stopped: it sends nothing more
        rec = record_of(frame)
        if sender == 1 and rec is not None and isinstance(rec.record.body, Reveal) and rec.record.step > 2:
            quit_at[receiver] = rec.record.step
            return Abort(accusation, rec.record.step).to_frame()
        return frame

    net = LocalNetwork(tables, rng=random.Random(SEED), tamper=quit_at_reveal)
    play_bots(net, {s: RandomBot() for s in tables}, random.Random(SEED))
    for s in (0, 2):
        err = tables[s].failure
        assert err is not None and err.peer == 1, err
        assert "stopped instead of sending its record" in err.problem
        assert "\n" not in err.problem and "it said: " in err.problem  # quoted, never printed raw
    assert audit_of(tables[0])[0][0] is None  # the file ends early: it proves nobody's fault


def test_an_abort_from_a_seat_that_owes_nothing_is_only_its_claim() -> None:
    tables = make_tables(3, SHORT_RULES, SEED)
    net = LocalNetwork(tables, rng=random.Random(SEED))
    net.start()
    # All three records of the join step are in: at the cut commit every seat owes one,
    # so wait until seat 1 has sent it, then let seat 1 accuse seat 0.
    assert tables[2].step >= 1
    tables[2].receive_frame(1, Abort("p0 (seat 0) at fault: equivocation", tables[2].step - 1))
    assert tables[2].failure is None
    assert tables[2].stopped[1][1].startswith("p0 (seat 0)")


# ---------------------------------------------------------------------------
# 8. A node that hears from nobody blames nobody


class Blackhole(WrappedStream):
    """After ``after`` sends, nothing goes out and nothing comes in (a dead uplink)."""

    cut = False

    def __init__(self, inner: trio.abc.Stream, after: int) -> None:
        super().__init__(inner)
        self.after = after
        self.sends = 0

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        self.sends += 1
        if self.sends > self.after:
            Blackhole.cut = True
        if Blackhole.cut:
            await trio.lowlevel.checkpoint()
            return
        await self.inner.send_all(data)

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        data = await self.inner.receive_some(max_bytes)
        if Blackhole.cut:
            await trio.sleep_forever()
        return data


@pytest.mark.parametrize("step", [30.0, 8.0])
async def test_a_node_cut_off_from_everyone_says_its_own_connection_may_be_down(
    autojump_clock: trio.testing.MockClock, step: float
) -> None:
    """Seat 0's every link goes dead in both directions: it names nobody, also with a step
    clock shorter than the silence that shows it cut off (the verdict waits for that
    silence, a few seconds more, rather than name the others too soon)."""
    from test_net_timing import TIMEOUTS, run_seats

    from p2pcards.net.session import Timeouts

    Blackhole.cut = False
    tables = make_tables(3, SHORT_RULES, seed=7)
    links = memory_links(3, lambda seat, peer, s: Blackhole(s, after=12) if seat == 0 else s)
    timeouts = Timeouts(turn=TIMEOUTS.turn, step=step)
    results, _ = await run_seats(tables, links, {s: bot(s) for s in tables}, timeouts=timeouts)
    r0 = results[0]
    assert r0.status == "failed"
    assert r0.blamed == (), r0.problem
    assert "heard from nobody" in (r0.problem or "") and "own connection" in (r0.problem or "")
    assert tables[0].failure is not None and tables[0].failure.peer is None


# ---------------------------------------------------------------------------
# 10. A record out of turn is kept and named; hang-ups say so once


class ShufflesOutOfTurn(Table):
    """Seat 1 also signs a shuffle for seat 2's shuffle step."""

    def _author_auto(self) -> None:
        super()._author_auto()
        if self.spec.kind == "shuffle" and self.spec.seat == 2 and self.seat == 1 and self.hand is not None:
            rd = self.hand.rounds[0]
            self._author(Shuffle(round=0, deck=rd.base))
            del self.log.current[1]  # it is not expected there: its own replica moves on


def test_a_record_out_of_turn_is_named_and_kept_for_the_audit() -> None:
    tables = make_tables(3, SHORT_RULES, SEED, table_classes={1: ShufflesOutOfTurn})
    net = LocalNetwork(tables, rng=random.Random(SEED))
    play_bots(net, {s: RandomBot() for s in tables}, random.Random(SEED))
    for s in (0, 2):
        err = tables[s].failure
        assert err is not None and err.peer == 1
        assert "not expected" in err.problem and "replayed" not in err.problem
        [(seat, what)] = audit_of(tables[s])
        assert seat == 1 and "not expected" in what


# ---------------------------------------------------------------------------
# 11. The audit blames the author of a broken chain, with its index


def test_a_broken_chain_alone_names_nobody_and_with_the_other_record_names_its_author() -> None:
    """A record signed on another history than the file's: alone, the file cannot show
    whether its author lied or a record before it was changed (by whoever saved the file),
    so nobody is named; with the author's record of the same step on the file's history
    too, the author signed two: equivocation, the author named."""
    tables = make_tables(3, SHORT_RULES, SEED)
    play_bots(
        LocalNetwork(tables, rng=random.Random(SEED)), {s: RandomBot() for s in tables}, random.Random(SEED)
    )
    records = tables[0].transcript.records()
    for i in (5, len(records) // 2, len(records) - 2):
        r = records[i].record
        forged = Record(game_id=r.game_id, step=r.step, seat=r.seat, prev=bytes(32), body=r.body)
        edited = [*records[:i], signed(r.seat, forged), *records[i + 1 :]]
        report = audit_bytes(records_file(edited))
        assert not report.internal_error
        assert [(p.seat, p.record) for p in report.problems] == [(None, i)], report.problems
        assert "does not follow the records before it" in report.problems[0].what
        proven = audit_bytes(records_file([*edited, records[i]]))
        assert proven.problems and proven.problems[0].seat == r.seat, proven.problems
        assert "equivocation" in proven.problems[0].what


def test_the_audit_reports_independent_problems_and_the_hands_it_verified() -> None:
    tables = make_tables(3, SHORT_RULES, SEED)
    play_bots(
        LocalNetwork(tables, rng=random.Random(SEED)), {s: RandomBot() for s in tables}, random.Random(SEED)
    )
    records = tables[0].transcript.records()
    i = len(records) - 2
    bad_sig = SignedRecord(records[i].raw, bytes(64), records[i].record)
    data = bytearray(records_file([*records[:i], bad_sig, *records[i + 1 :]]))
    data[-1] ^= 1  # and the checksum no longer matches
    report = audit_bytes(bytes(data))
    assert not report.internal_error
    whats = [p.what for p in report.problems]
    assert any("checksum" in w for w in whats) and any("signature" in w for w in whats)
    assert report.hands_verified == len(tables[0].match.results)  # type: ignore[union-attr]
    assert "verified before the first problem" in report.summary()
