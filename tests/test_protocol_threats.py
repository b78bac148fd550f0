"""Every threat the protocol guards against, injected by a deliberately dishonest seat or network.

The threats are those of README.md ("What the protocol guarantees") and the
faults of protocol.md (section 7). Each test checks that every honest node
catches the fault, blames the right seat, and keeps a transcript that still
audits up to the fault with the same seat blamed.
"""

from __future__ import annotations

import random

import pytest

from p2pcards.bots.random_bot import RandomBot
from p2pcards.cards import ALL_CARDS
from p2pcards.crypto import group, poker
from p2pcards.crypto.identity import Identity
from p2pcards.games.nines import rules as nines
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import NinesRules, Phase
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.loopback import LocalNetwork, play_bots
from p2pcards.protocol.messages import Body, Keys, KeyShare, Lock, PlayCards, Player, Shown, Shuffle
from p2pcards.protocol.transcript import encode_file
from p2pcards.protocol.wire import MAX_FRAME, SIGN_PREFIX, Record, SignedRecord, decode_frame, pack

GAME_ID = bytes(range(16))
CHEAT = 1


def identities(n: int) -> list[Identity]:
    return [Identity.from_bytes(bytes([i + 1]) * 32) for i in range(n)]


def build(n: int, cheat_cls: type[Table] | None = None, rules: NinesRules | None = None) -> dict[int, Table]:
    ids = identities(n)
    roster = [Player(name=f"p{i}", key=ids[i].public_key) for i in range(n)]
    tables = {}
    for i in range(n):
        cls = cheat_cls if (cheat_cls is not None and i == CHEAT) else Table
        tables[i] = cls(
            game_id=GAME_ID,
            roster=roster,
            rules=rules or NinesRules(),
            seat=i,
            identity=ids[i],
            entropy=bytes([i + 100]) * 32,
        )
    return tables


def run(tables: dict[int, Table], seed: int = 0, tamper=None) -> LocalNetwork:
    net = LocalNetwork(tables, rng=random.Random(seed), tamper=tamper)
    play_bots(net, {s: RandomBot() for s in tables}, random.Random(seed))
    return net


def assert_caught(net: LocalNetwork, culprit: int, words: str) -> None:
    """Every honest node failed with ``culprit`` blamed, and its transcript audits the same."""
    honest = [s for s in net.tables if s != culprit]
    for s in honest:
        table = net.tables[s]
        err = net.failures.get(s) or table.failure
        assert err is not None, f"honest seat {s} did not catch the fault (status {table.status})"
        assert err.peer == culprit, f"seat {s} blamed {err.peer}: {err}"
        assert words in err.problem, f"seat {s}: {err.problem!r} lacks {words!r}"
    # The honest transcripts are intact: every completed step audits, and
    # the audit either stops at the same culprit or at the unfinished end.
    for s in honest:
        report = audit_bytes(encode_file(net.tables[s].transcript.records(), saved_by=s, status="failed"))
        assert not report.valid
        assert report.problems[0].seat in (culprit, None) or "ends before" in report.problems[0].what


# --- an honest baseline ----------------------------------------------------------


def test_honest_short_match_is_clean() -> None:
    net = run(build(3, rules=NinesRules(target=30)))
    assert not net.failures
    digests = {t.transcript.last_digest for t in net.tables.values()}
    assert len(digests) == 1
    assert all(t.status == "over" for t in net.tables.values())


# --- dishonest seats --------------------------------------------------------------


class IllegalCardTable(Table):
    """Plays a card that matches neither the active suit nor the top rank."""

    def legal_actions(self) -> list[nines.Action]:
        acts = super().legal_actions()
        hand = self.match.hand if self.match else None
        if hand is None or hand.phase is not Phase.TURN or self.seat is None:
            return acts
        bad = [c for c in hand.hands[self.seat] if c is not None and not hand.is_legal_card(c)]
        return [nines.Play(seat=self.seat, card=bad[0])] if bad else acts


def test_illegal_card_is_caught() -> None:
    net = run(build(3, IllegalCardTable))
    assert_caught(net, CHEAT, "match-suit-or-rank")


class NotHeldTable(Table):
    """Shows a card from a stock position it was never given."""

    def _body_for_action(self, action: nines.Action) -> Body:
        if isinstance(action, nines.Play) and self.hand is not None:
            pos = self.hand.stock[0]
            key = poker.lock_key(self.hand.secret, *pos)  # type: ignore[arg-type]
            return PlayCards(
                cards=(Shown(round=pos[0], pos=pos[1], card=int(action.card), key=key),), suit=action.suit
            )
        return super()._body_for_action(action)


def test_card_not_held_is_caught() -> None:
    net = run(build(3, NotHeldTable))
    assert_caught(net, CHEAT, "played a card it was neither dealt nor drew")


class ClaimsOtherCardTable(Table):
    """Shows its own position but claims it holds a different (legal) card."""

    def _body_for_action(self, action: nines.Action) -> Body:
        body = super()._body_for_action(action)
        if isinstance(body, PlayCards) and len(body.cards) == 1:
            s = body.cards[0]
            fake = next(c for c in range(52) if c != s.card and ALL_CARDS[c].is_nine)
            return PlayCards(
                cards=(Shown(round=s.round, pos=s.pos, card=fake, key=s.key),), suit=body.suit or "S"
            )
        return body

    # Its own replica would refuse the claim at once: silence it, as a cheater would.
    def _engine_check(self, action, seat, step, trial=None):  # type: ignore[no-untyped-def]
        if seat != self.seat:
            super()._engine_check(action, seat, step, trial)


def test_claiming_a_card_not_held_is_caught_after_reveal() -> None:
    net = run(build(3, ClaimsOtherCardTable))
    assert_caught(net, CHEAT, "holds another card")


class DrawsWhileHoldingTable(Table):
    """Draws although it holds a legal card (only the end-of-hand reveal can show it)."""

    def legal_actions(self) -> list[nines.Action]:
        acts = super().legal_actions()
        hand = self.match.hand if self.match else None
        holds_legal = any(isinstance(a, nines.Play) for a in acts)
        if hand is not None and hand.phase is Phase.TURN and hand.stock and holds_legal:
            return [nines.Draw(seat=self.seat)]  # type: ignore[arg-type]
        return acts

    # Its own replica would object: silence the local checks, as a cheater would.
    def _check_dry_run(self, action, seat, step):  # type: ignore[no-untyped-def]
        if seat != self.seat:
            super()._check_dry_run(action, seat, step)

    def _engine_apply(self, action, seat, step):  # type: ignore[no-untyped-def]
        hand = self.match.hand  # type: ignore[union-attr]
        if isinstance(action, nines.Draw) and action.seat == self.seat and hand.phase is Phase.TURN:
            saved = list(hand.hands[self.seat])
            hand.hands[self.seat] = [None] * len(saved)
            super()._engine_apply(action, seat, step)
            hand.hands[self.seat] = saved + hand.hands[self.seat][len(saved) :]
            return
        super()._engine_apply(action, seat, step)


def test_draw_while_holding_a_legal_card_is_caught_at_reveal() -> None:
    net = run(build(3, DrawsWhileHoldingTable))
    assert_caught(net, CHEAT, "must-play")


class OtherCardAfterDrawTable(Table):
    """After drawing, plays a different card from its hand (the drawn one stays)."""

    def legal_actions(self) -> list[nines.Action]:
        acts = super().legal_actions()
        hand = self.match.hand if self.match else None
        if hand is not None and hand.phase is Phase.DRAWN and self.seat is not None:
            others = [c for c in hand.hands[self.seat][:-1] if c is not None]
            if others:
                c = others[0]
                return [nines.Play(seat=self.seat, card=c, suit="S" if c.is_nine else None)]
        return acts

    def _position_of(self, card, used):  # type: ignore[no-untyped-def]
        h = self.hand
        for pos in h.holdings[self.seat]:  # type: ignore[union-attr,index]
            if pos not in used and h.known.get(pos) == card:  # type: ignore[union-attr]
                return pos
        return super()._position_of(card, used)


def test_other_card_after_drawing_is_caught() -> None:
    net = run(build(3, OtherCardAfterDrawTable))
    assert_caught(net, CHEAT, "only the drawn card")


class WrongKeyTable(Table):
    """Publishes a wrong lock key for the up card in its deal keys (sent with its lock)."""

    def _keys_body(self, positions):  # type: ignore[no-untyped-def]
        body = super()._keys_body(positions)
        if self.spec.kind in ("deal", "lock"):
            up = self._deal_layout()[1]
            body = Keys(
                keys=tuple(
                    KeyShare(round=k.round, pos=k.pos, key=(k.key * 2) % group.ORDER)
                    if (k.round, k.pos) == up
                    else k
                    for k in body.keys
                )
            )
        return body


def test_wrong_key_is_caught_and_blamed_after_reveal() -> None:
    net = run(build(4, WrongKeyTable))
    assert_caught(net, CHEAT, "wrong key")


class WrongDealtKeyTable(Table):
    """Publishes a wrong key for a card dealt to seat 0 (only seat 0 sees it fail)."""

    def _keys_body(self, positions):  # type: ignore[no-untyped-def]
        body = super()._keys_body(positions)
        if self.spec.kind in ("deal", "lock"):
            target = self._deal_layout()[0][0][0]
            body = Keys(
                keys=tuple(
                    KeyShare(round=k.round, pos=k.pos, key=(k.key + 1) % group.ORDER)
                    if (k.round, k.pos) == target
                    else k
                    for k in body.keys
                )
            )
        return body


def test_private_wrong_key_leads_to_a_dispute_and_blame() -> None:
    net = run(build(3, WrongDealtKeyTable))
    assert_caught(net, CHEAT, "wrong key")


class BadShuffleTable(Table):
    """Swaps two cards after its honest shuffle pass (keeps valid points)."""

    def _shuffle_body(self) -> Body:
        body = super()._shuffle_body()
        deck = list(body.deck)  # type: ignore[attr-defined]
        deck[0], deck[1] = deck[1], deck[0]
        return Shuffle(round=body.round, deck=tuple(deck))  # type: ignore[attr-defined]


def test_dishonest_shuffle_is_caught() -> None:
    net = run(build(3, BadShuffleTable))
    assert_caught(net, CHEAT, "dishonest shuffle")


class BadLockTable(Table):
    """Re-encrypts one position with an extra factor during its lock pass."""

    def _lock_body(self) -> Body:
        body = super()._lock_body()
        deck = list(body.deck)  # type: ignore[attr-defined]
        deck[-1] = group.mul(7, deck[-1])
        return Lock(round=body.round, deck=tuple(deck))  # type: ignore[attr-defined]


def test_dishonest_lock_is_caught() -> None:
    net = run(build(3, BadLockTable))
    assert_caught(net, CHEAT, "dishonest lock")


class FakeCardShuffleTable(Table):
    """Replaces a card of the deck by a copy of another one (duplicating a card)."""

    def _shuffle_body(self) -> Body:
        body = super()._shuffle_body()
        deck = list(body.deck)  # type: ignore[attr-defined]
        deck[5] = group.mul(3, deck[6])
        return Shuffle(round=body.round, deck=tuple(deck))  # type: ignore[attr-defined]


def test_substituted_card_in_shuffle_is_caught() -> None:
    net = run(build(2, FakeCardShuffleTable))
    assert_caught(net, CHEAT, "shuffle")


# --- dishonest transport (frames rewritten on the cheater's links) ----------------


def resign(frame: bytes, identity: Identity, **changes: object) -> bytes:
    rec = decode_frame(frame)
    assert isinstance(rec, SignedRecord)
    r = rec.record
    new = Record(
        game_id=changes.get("game_id", r.game_id),  # type: ignore[arg-type]
        step=changes.get("step", r.step),  # type: ignore[arg-type]
        seat=r.seat,
        prev=changes.get("prev", r.prev),  # type: ignore[arg-type]
        body=changes.get("body", r.body),  # type: ignore[arg-type]
    )
    raw = new.to_bytes()
    return SignedRecord(raw, identity.sign(SIGN_PREFIX + raw), new).to_frame()


def nth_frame_tamper(n: int, change):  # type: ignore[no-untyped-def]
    """Apply ``change(receiver, frame)`` to the cheater's n-th frame (to every receiver)."""
    counts: dict[int, int] = {}

    def tamper(sender: int, receiver: int, frame: bytes) -> bytes | None:
        if sender != CHEAT:
            return frame
        k = counts.get(receiver, 0)
        counts[receiver] = k + 1
        return change(receiver, frame) if k == n else frame

    return tamper


def test_bad_signature_is_caught() -> None:
    def corrupt(receiver: int, frame: bytes) -> bytes:
        rec = decode_frame(frame)
        assert isinstance(rec, SignedRecord)
        sig = bytes([rec.sig[0] ^ 1]) + rec.sig[1:]
        return SignedRecord(rec.raw, sig, rec.record).to_frame()

    net = run(build(3), tamper=nth_frame_tamper(5, corrupt))
    assert_caught(net, CHEAT, "bad signature")


def test_replayed_record_is_caught() -> None:
    seen: list[bytes] = []

    def tamper(sender: int, receiver: int, frame: bytes) -> bytes | None:
        if sender == CHEAT and receiver == 0:
            seen.append(frame)
            if len(seen) == 8:
                return seen[3]  # an old record of the cheater, sent again
        return frame

    net = run(build(3), tamper=tamper)
    err = net.failures.get(0) or net.tables[0].failure
    assert err is not None and err.peer == CHEAT
    assert "replayed" in err.problem or "equivocation" in err.problem


def test_record_for_another_game_is_refused() -> None:
    ids = identities(3)
    net = run(build(3), tamper=nth_frame_tamper(4, lambda r, f: resign(f, ids[CHEAT], game_id=bytes(16))))
    assert_caught(net, CHEAT, "another game")


def test_skipping_ahead_is_caught_as_reordering() -> None:
    ids = identities(3)

    def later(receiver: int, frame: bytes) -> bytes:
        rec = decode_frame(frame)
        assert isinstance(rec, SignedRecord)
        return resign(frame, ids[CHEAT], step=rec.record.step + 40)

    net = run(build(3), tamper=nth_frame_tamper(6, later))
    for s in (0, 2):
        err = net.failures.get(s) or net.tables[s].failure
        assert err is not None and err.peer == CHEAT
        assert "skipped step" in err.problem or "not expected" in err.problem


def test_equivocation_is_caught_by_every_honest_node() -> None:
    ids = identities(4)

    def two_faces(receiver: int, frame: bytes) -> bytes:
        rec = decode_frame(frame)
        assert isinstance(rec, SignedRecord)
        if receiver != 0:
            return frame
        body = rec.record.body
        if isinstance(body, Shuffle):  # a differently ordered but valid-looking deck
            body = Shuffle(round=body.round, deck=tuple(reversed(body.deck)))
        else:
            return frame
        return resign(frame, ids[CHEAT], body=body)

    # Seat 1's frame 3 (from 0) is its shuffle pass of round 0 (join, cut commit, cut reveal
    # with hand 1's commitment, shuffle).
    net = run(build(4), tamper=nth_frame_tamper(3, two_faces))
    for s in (0, 2, 3):
        err = net.failures.get(s) or net.tables[s].failure
        assert err is not None, f"seat {s} missed the equivocation"
        assert err.peer == CHEAT, f"seat {s} blamed {err.peer}: {err}"
        assert "equivocation" in err.problem


@pytest.mark.parametrize(
    "garbage",
    [
        b"",
        b"\xc1",  # never-used msgpack byte
        b"\x92\x01",  # truncated array
        b"\x80",  # empty map: not a frame
        pack({"v": 1, "kind": "record", "raw": b"x", "sig": bytes(64)}),
        pack({"v": 2, "kind": "record", "raw": b"x", "sig": bytes(64)}),
        pack([[[[[[[[1]]]]]]]]),
        b"\xdd\xff\xff\xff\xff",  # array32 claiming 4 billion items
        pack({"v": 1, "kind": "evidence", "records": [b"x" * 10] * 3}),
    ],
)
def test_garbage_frames_blame_the_sender(garbage: bytes) -> None:
    net = run(build(3), tamper=nth_frame_tamper(3, lambda r, f: garbage))
    assert_caught(net, CHEAT, "malformed frame")


def test_oversized_frame_is_refused() -> None:
    huge = pack({"v": 1, "kind": "record", "raw": bytes(MAX_FRAME), "sig": bytes(64)})
    net = run(build(3), tamper=nth_frame_tamper(2, lambda r, f: huge))
    assert_caught(net, CHEAT, "exceeds")


def test_failed_table_refuses_everything_after() -> None:
    net = run(build(3, IllegalCardTable))
    table = net.tables[0]
    assert table.status == "failed"
    with pytest.raises(type(table.failure)):  # type: ignore[arg-type]
        table.receive(2, b"\x80")


def test_two_dishonest_locks_blame_the_lower_seat_whichever_locked_first() -> None:
    """protocol.md 6.5: at the reveal the checks go seat by seat in increasing seat order
    (every commitment first, then each seat's passes and keys round by round), so when two
    seats locked dishonestly the lower seat is the one blamed, by every node and by the
    audit, even when the higher seat's lock came first in the hand."""
    ids = identities(3)
    roster = [Player(name=f"p{i}", key=ids[i].public_key) for i in range(3)]
    tables = {
        i: (BadLockTable if i in (0, 2) else Table)(
            game_id=GAME_ID, roster=roster, rules=NinesRules(), seat=i, identity=ids[i],
            entropy=bytes([i + 100]) * 32,
        )
        for i in range(3)
    }  # fmt: skip
    net = run(tables)
    locks = [
        r.record.seat
        for r in net.tables[1].transcript.records()
        if type(r.record.body).__name__ == "Lock" and r.record.body.round == 0  # type: ignore[attr-defined]
    ]
    assert locks.index(2) < locks.index(0), locks  # the higher seat locked first
    err = net.failures.get(1) or net.tables[1].failure
    assert err is not None and err.peer == 0 and "dishonest lock" in err.problem, err
    report = audit_bytes(encode_file(net.tables[1].transcript.records(), saved_by=1, status="failed"))
    assert [p.seat for p in report.problems] == [0], report.summary()
