"""No record waits for a step of its own when an earlier record can carry it
(protocol.md section 5, "Why those steps can go").

A hand's commitments, and seat 0's first shuffle pass (it starts from the
unshuffled deck), travel in the reveal before it (the cut's, or the last
hand's), and each seat's deal keys in its lock of round 0: a hand is the other
shuffles and the locks, then play, three steps (three network trips) fewer
than a hand with ``commit``, a first ``shuffle`` and ``deal`` steps. Seats that
leave them out (earlier versions) still play, with those steps back, and their
transcripts audit.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import (
    EarlierTable,
    entropy_for,
    game_id_for,
    identity_for,
    make_roster,
    make_tables,
    run_match,
    transcript_bytes,
)

from p2pcards.bots import make_bot
from p2pcards.crypto import group
from p2pcards.crypto.encoding import encode_deck
from p2pcards.errors import RemoteProtocolError
from p2pcards.games.neuf.adapter import NeufTable
from p2pcards.games.neuf.rules import NeufRules
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import NinesRules
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.loopback import LocalNetwork, play_bots
from p2pcards.protocol.messages import Body, Keys, KeyShare, Lock
from p2pcards.protocol.table import TableCore

CHEAT = 1


def steps_of(table: TableCore) -> list[tuple[str, tuple[int, ...]]]:
    """(kind, authors) of every step of ``table``'s transcript, as an observer replays it."""
    observer = type(table)(game_id=table.game_id, roster=table.roster, rules=table.rules, seat=None)
    out = []
    for records in table.transcript.steps:
        kind = observer.spec.kind
        out.append((kind, tuple(rec.record.seat for rec in records)))
        try:
            for rec in records:
                observer.receive_record(rec)
        except RemoteProtocolError:
            break  # the step that showed a fault is the last one
    return out


def assert_finished_alike(tables: dict[int, TableCore], net: LocalNetwork) -> None:
    assert not net.failures, net.failures
    assert {t.status for t in tables.values()} == {"over"}
    assert len({tuple(r.raw for r in t.transcript.records()) for t in tables.values()}) == 1
    for t in tables.values():
        report = audit_bytes(transcript_bytes(t))  # type: ignore[arg-type]
        assert report.valid, report.problems


def hands_of(kinds: list[str]) -> list[list[str]]:
    """The step kinds of each hand: from after the cut's reveal, or a hand's, to the next reveal."""
    hands, current = [], None
    for kind in kinds:
        if kind in ("cut-reveal", "reveal"):
            if current is not None and kind == "reveal":
                hands.append(current)
            current = []
        elif current is not None and kind != "result":
            current.append(kind)
    return hands


def two_hands(players: int, seed: int) -> dict[int, Table]:
    """A 2-hand match of Nines between honest seats, finished alike and audited valid."""
    tables = make_tables(players, NinesRules(hands=2), seed)
    assert_finished_alike(tables, run_match(tables, seed))  # type: ignore[arg-type]
    return tables


@settings(max_examples=12, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 10_000))
def test_a_hand_of_nines_is_its_shuffles_and_locks_then_play(players: int, seed: int) -> None:
    tables = two_hands(players, seed)
    kinds = [k for k, _ in steps_of(tables[0])]
    assert "commit" not in kinds and "deal" not in kinds
    assert kinds[:3] == ["join", "cut-commit", "cut-reveal"]
    hands = hands_of(kinds)
    assert len(hands) == 2
    # Hand 1: seat 1's pass follows the cut's reveal; the first move follows the last lock.
    assert hands[0][: 2 * players - 1] == ["shuffle"] * (players - 1) + ["lock"] * players
    assert hands[0][2 * players - 1] == "turn"
    # Hand 2: its round 0 was shuffled and locked while hand 1 was played (section 5, *Round
    # 0 ahead*); what was not made yet follows the reveal, then the first move.
    lead = hands[1][: next(i for i, k in enumerate(hands[1]) if k not in ("shuffle", "lock"))]
    assert lead == sorted(lead, key=("shuffle", "lock").index) and len(lead) <= 2 * players - 1
    assert hands[1][len(lead)] == "turn"
    if sum(1 for k in hands[0] if k in ("turn", "draw-keys")) >= 4 * players:
        assert lead == []
    # The first move of the match is step 2 + 2n: join, cut commit, cut reveal, 2n - 1 passes.
    assert kinds.index("turn") == 2 + 2 * players
    shufflers = [authors for kind, authors in steps_of(tables[0]) if kind == "shuffle"]
    assert (0,) not in shufflers[: players - 1]


@settings(max_examples=12, deadline=None)
@given(players=st.integers(2, 6), seed=st.integers(0, 10_000))
def test_locks_begin_with_the_last_shuffler_and_end_with_the_first_to_act(players: int, seed: int) -> None:
    tables = two_hands(players, seed)
    steps = steps_of(tables[0])
    starts = [i + 1 for i, (kind, _) in enumerate(steps) if kind in ("cut-reveal", "reveal")]
    assert tables[0].match is not None
    for hand, start in zip(tables[0].match.history[:1], starts, strict=False):  # hand 2: ahead
        locks = [i for i in range(start, len(steps)) if steps[i][0] == "lock"][:players]
        order = [steps[i][1][0] for i in locks]
        assert sorted(order) == list(range(players)) and order[0] == players - 1
        first = (hand.dealer + 1) % players
        if first != players - 1:
            assert order[-1] == first
        # The step after the last lock is the first to act's turn (the dealer's, to declare).
        kind, authors = steps[locks[-1] + 1]
        assert kind == "turn" and authors[0] in (first, hand.dealer)
        # Each lock pass is its author's over the pass before it in that order: the audit
        # (assert_finished_alike) verified every one against the revealed secrets.


def test_a_recycle_locks_from_the_last_shuffler_on() -> None:
    rules = NinesRules(hands=1, draw_until_playable=True, action_cards=True)  # seed 16 recycles
    tables = make_tables(3, rules, 16)
    net = run_match(tables, 16)
    assert_finished_alike(tables, net)  # type: ignore[arg-type]
    hand = tables[0].hands_crypto[0]
    assert len(hand.rounds) > 1
    assert [rd.lock_order for rd in hand.rounds[1:]] == [(2, 0, 1)] * (len(hand.rounds) - 1)


def test_a_hand_of_le_neuf_is_its_shuffles_and_locks_then_the_exchanges() -> None:
    roster = make_roster(3, 7)
    tables = {
        s: NeufTable(
            game_id=game_id_for(7),
            roster=roster,
            rules=NeufRules(start=2),
            seat=s,
            identity=identity_for(s, 7),
            entropy=entropy_for(s, 7),
        )
        for s in range(3)
    }
    net = LocalNetwork(tables, rng=random.Random(7))  # type: ignore[arg-type]
    play_bots(net, {s: make_bot("random", "neuf") for s in tables}, random.Random(7))
    assert_finished_alike(tables, net)  # type: ignore[arg-type]
    kinds = [k for k, _ in steps_of(tables[0])]
    assert "commit" not in kinds and "deal" not in kinds
    hands = hands_of(kinds)
    assert tables[0].match is not None and len(hands) == len(tables[0].match.results) > 0
    for hand in hands:
        assert hand[:6] == ["shuffle"] * 2 + ["lock"] * 3 + ["exchange"]


@pytest.mark.parametrize("earlier", [(0, 1, 2), (2,), (0,)], ids=["all", "the-last", "the-first"])
def test_seats_that_leave_them_out_bring_back_the_commit_and_deal_steps(earlier: tuple[int, ...]) -> None:
    tables = make_tables(3, NinesRules(hands=2), 5, table_classes=dict.fromkeys(earlier, EarlierTable))
    net = run_match(tables, 5)
    assert_finished_alike(tables, net)  # type: ignore[arg-type]
    steps = steps_of(tables[0])
    commits = [authors for kind, authors in steps if kind == "commit"]
    deals = [authors for kind, authors in steps if kind == "deal"]
    # One of each per hand: every seat commits again, only the seats without keys in their lock deal.
    assert commits == [(0, 1, 2)] * 2
    assert deals == [earlier] * 2
    shuffles = [authors for kind, authors in steps if kind == "shuffle"]
    locks = [authors for kind, authors in steps if kind == "lock"]
    if 0 in earlier:  # seat 0 never begins the next hand's round 0 ahead: every hand as before
        # With a commit step, seat 0 shuffles in a step of its own (its carried pass is not used).
        assert shuffles == [(0,), (1,), (2,)] * 2
        # ... and the seats lock in seat order, as the nodes that send commit steps do.
        assert locks == [(0,), (1,), (2,)] * 2
    else:  # seats 0 and 1 shuffled hand 2 ahead; seat 2 goes on after the commit step
        assert shuffles == [(0,), (1,), (2,), (2,)]
        assert locks == [(0,), (1,), (2,), (2,), (0,), (1,)]


# -- a seat that abuses what a reveal or a lock may carry ------------------------------------


def assert_blamed_by_the_others(net: LocalNetwork, tables: dict[int, Table], cheat: int, words: str) -> None:
    """Every other seat stopped on a fault of ``cheat``'s, in words that say it."""
    for s, table in tables.items():
        if s != cheat:
            err = net.failures.get(s) or table.failure
            assert err is not None and err.peer == cheat and words in err.problem, (s, err)


def audit_blame(table: Table) -> tuple[int | None, str]:
    """Whom the audit of ``table``'s file blames first, and for what."""
    report = audit_bytes(transcript_bytes(table))
    assert not report.valid
    return report.problems[0].seat, report.problems[0].what


class KeysForOtherPositions(Table):
    """Its lock of round 0 carries its deal keys but one: it keeps the up card's key."""

    def _lock_body(self) -> Body:
        body = super()._lock_body()
        assert isinstance(body, Lock)
        if body.keys is None:
            return body
        return Lock(round=body.round, deck=body.deck, keys=body.keys[:-1])


def test_deal_keys_for_other_positions_in_a_lock_are_blamed_at_that_lock() -> None:
    tables = make_tables(3, NinesRules(hands=1), 2, table_classes={CHEAT: KeysForOtherPositions})
    net = run_match(tables, 2)
    assert_blamed_by_the_others(net, tables, CHEAT, "wrong positions")
    for s in (0, 2):
        # Blamed when its lock step completes (join, cut commit, cut reveal, the shuffles of
        # seats 1 and 2, the locks of seats 0 and 1), before any card is opened.
        assert len(tables[s].transcript.steps) == 3 + 2 + CHEAT + 1
        assert tables[s].match is not None and tables[s].match.hand is None
        assert audit_blame(tables[s])[0] == CHEAT


class KeysInEveryLock(Table):
    """Adds keys to its lock of every round, recycles too (only round 0 may carry them)."""

    def _lock_body(self) -> Body:
        body = super()._lock_body()
        assert isinstance(body, Lock)
        if body.keys is not None:
            return body
        return Lock(round=body.round, deck=body.deck, keys=(KeyShare(round=body.round, pos=0, key=5),))


def test_keys_in_the_lock_of_a_recycle_are_blamed() -> None:
    # Seed 16 recycles the stock within its one hand (as the audit mutation tests use it).
    rules = NinesRules(hands=1, draw_until_playable=True, action_cards=True)
    tables = make_tables(3, rules, 16, table_classes={CHEAT: KeysInEveryLock})
    net = run_match(tables, 16)
    assert_blamed_by_the_others(net, tables, CHEAT, "carries keys where no deal follows")
    for s in (0, 2):
        kind, authors = steps_of(tables[s])[-1]
        assert kind == "lock" and authors == (CHEAT,)
        seat, what = audit_blame(tables[s])
        assert seat == CHEAT and "no deal follows" in what, what


class WrongDealKeyForTheNextSeat(Table):
    """Its deal keys (in its lock) hold a wrong key for the next seat's first card: only
    that seat sees its card fail to open; the reveal names the lock's author."""

    def _keys_body(self, positions):  # type: ignore[no-untyped-def]
        body = super()._keys_body(positions)
        if self.spec.kind != "lock":
            return body
        target = self._deal_layout()[0][(CHEAT + 1) % self.n][0]
        return Keys(
            keys=tuple(
                KeyShare(round=k.round, pos=k.pos, key=k.key * 3 % group.ORDER)
                if (k.round, k.pos) == target
                else k
                for k in body.keys
            )
        )


def test_a_wrong_key_carried_in_a_lock_is_blamed_on_its_author_at_the_reveal() -> None:
    tables = make_tables(3, NinesRules(hands=1), 4, table_classes={CHEAT: WrongDealKeyForTheNextSeat})
    net = run_match(tables, 4)
    assert_blamed_by_the_others(net, tables, CHEAT, "wrong key")
    for s in (0, 2):
        kinds = [k for k, _ in steps_of(tables[s])]
        assert kinds[-1] == "reveal"  # the victim disputed, everything was revealed
        assert audit_blame(tables[s])[0] == CHEAT


class SwapsItsFirstPass(Table):
    """Seat 0, whose first shuffle pass (carried in its reveal) swaps two cards after its
    honest pass: a valid-looking deck that its secret does not give."""

    def _next_shuffle(self, number: int) -> tuple[bytes, ...] | None:
        deck = super()._next_shuffle(number)
        assert deck is not None
        return (deck[1], deck[0], *deck[2:])


def test_a_carried_first_pass_is_verified_at_its_hands_reveal() -> None:
    tables = make_tables(3, NinesRules(hands=1), 3, table_classes={0: SwapsItsFirstPass})
    net = run_match(tables, 3)
    assert_blamed_by_the_others(net, tables, 0, "shuffle")
    for s in (1, 2):
        assert steps_of(tables[s])[-1][0] == "reveal" and tables[s].hand is not None
        assert tables[s].hand.number == 1  # found at the end of the hand it was for
        assert audit_blame(tables[s])[0] == 0


class ShufflesFirstToo(Table):
    """Seat 1, which sends a first shuffle pass in its reveal, as only seat 0 may."""

    def _next_shuffle(self, number: int) -> tuple[bytes, ...] | None:
        return encode_deck(range(self.rules.deck_size))  # a valid deck: only its author is wrong


def test_a_first_pass_from_another_seat_than_seat_0_is_blamed() -> None:
    tables = make_tables(3, NinesRules(hands=1), 3, table_classes={CHEAT: ShufflesFirstToo})
    net = run_match(tables, 3)
    assert_blamed_by_the_others(net, tables, CHEAT, "only seat 0")
    for s in (0, 2):
        assert steps_of(tables[s])[-1][0] == "cut-reveal"
        seat, what = audit_blame(tables[s])
        assert seat == CHEAT and "only seat 0" in what, what
