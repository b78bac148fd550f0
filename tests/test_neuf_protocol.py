"""Le Neuf on the protocol: honest matches, private looks, and every way a seat could cheat.

Three replicas linked in memory (``LocalNetwork``) play whole matches; each
threat is played by a dishonest table class at one seat, and every honest node
must blame that seat, with a transcript that audits to the same verdict.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any, ClassVar

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from protocol_helpers import entropy_for, game_id_for, identity_for, make_roster, transcript_bytes

from p2pcards.bots import make_bot
from p2pcards.cards import ALL_CARDS, SUIT_OF
from p2pcards.crypto import group, poker
from p2pcards.games.neuf import rules as neuf
from p2pcards.games.neuf.adapter import NeufTable
from p2pcards.games.neuf.rules import NeufRules, Phase
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.loopback import LocalNetwork, play_bots
from p2pcards.protocol.messages import (
    Body,
    Dispute,
    Keys,
    KeyShare,
    LookAtPile,
    PlayCards,
    Relock,
    Shown,
    TakePile,
    Unlock,
)
from p2pcards.protocol.table import table_class
from p2pcards.protocol.transcript import encode_file
from p2pcards.protocol.wire import SIGN_PREFIX, Record, SignedRecord

SHORT = NeufRules(start=3)


def build(
    seed: int = 0, rules: NeufRules = SHORT, classes: dict[int, type[NeufTable]] | None = None
) -> dict[int, NeufTable]:
    roster = make_roster(3, seed)
    classes = classes or {}
    return {
        s: classes.get(s, NeufTable)(
            game_id=game_id_for(seed),
            roster=roster,
            rules=rules,
            seat=s,
            identity=identity_for(s, seed),
            entropy=entropy_for(s, seed),
        )
        for s in range(3)
    }


class Scripted:
    """Exchange decisions by seat (``look``: look first when allowed; ``take``: then take);
    plays at random among the legal cards."""

    def __init__(self, look: bool, take: bool) -> None:
        self.look, self.take = look, take

    def choose(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any:
        kinds = {type(a): a for a in legal}
        if neuf.Look in kinds and self.look:
            return kinds[neuf.Look]
        if neuf.Exchange in kinds:
            return kinds[neuf.Exchange] if self.take else kinds[neuf.Decline]
        return rng.choice(list(legal))


def run(tables: dict[int, NeufTable], seed: int = 0, bots: dict[int, Any] | None = None) -> LocalNetwork:
    net = LocalNetwork(tables, rng=random.Random(seed))
    bots = bots or {s: make_bot("random", "neuf") for s in tables}
    play_bots(net, bots, random.Random(seed))
    return net


def assert_honest_end(tables: dict[int, NeufTable], net: LocalNetwork) -> None:
    assert not net.failures, net.failures
    assert {t.status for t in tables.values()} == {"over"}
    files = {transcript_bytes(t) for t in tables.values()}
    chains = {tuple(r.raw for r in t.transcript.records()) for t in tables.values()}
    assert len(chains) == 1
    for data in files:
        report = audit_bytes(data)
        assert report.valid, report.problems
        assert not report.internal_error


def assert_caught(net: LocalNetwork, culprit: int, words: str) -> None:
    """Every honest node blamed ``culprit`` with ``words`` in the problem; the audit agrees."""
    honest = [s for s in net.tables if s != culprit]
    for s in honest:
        table = net.tables[s]
        err = net.failures.get(s) or table.failure
        assert err is not None, f"honest seat {s} did not catch the fault (status {table.status})"
        assert err.peer == culprit, f"seat {s} blamed {err.peer}: {err}"
        assert words in err.problem, f"seat {s}: {err.problem!r} lacks {words!r}"
    for s in honest:
        data = encode_file(net.tables[s].transcript.records(), saved_by=s, status="failed")
        report = audit_bytes(data)
        assert not report.valid
        assert not report.internal_error
        assert report.problems[0].seat in (culprit, None) or "ends before" in report.problems[0].what


# --- honest play ---------------------------------------------------------------------


def test_the_registry_plays_le_neuf() -> None:
    assert table_class("neuf") is NeufTable


def test_a_table_of_le_neuf_has_three_seats() -> None:
    roster = make_roster(4)
    with pytest.raises(Exception, match="3 players"):
        NeufTable(game_id=game_id_for(0), roster=roster, rules=SHORT, seat=None)


@pytest.mark.parametrize("exchange", ["open", "blind"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_honest_match_ends_the_same_everywhere(exchange: str, seed: int) -> None:
    rules = NeufRules(start=3, exchange=exchange)  # type: ignore[arg-type]
    tables = build(seed, rules)
    bots = {0: make_bot("heuristic", "neuf"), 1: make_bot("random", "neuf"), 2: make_bot("heuristic", "neuf")}
    net = run(tables, seed, bots)
    assert_honest_end(tables, net)
    match = tables[0].match
    assert match is not None and match.over
    # 13 tricks a hand: the three totals fall by exactly one per hand.
    assert sum(match.totals) == 3 * rules.start - len(match.results)
    assert min(match.totals) <= 0
    for t in tables.values():
        assert t.match is not None and t.match.totals == match.totals and t.match.winners == match.winners


def test_the_audit_replays_le_neuf() -> None:
    tables = build(3)
    net = run(tables, 3)
    assert_honest_end(tables, net)
    report = audit_bytes(transcript_bytes(tables[1]))
    assert report.table is not None and report.table.GAME == "neuf"
    assert report.hands_verified == len(tables[0].match.results)  # type: ignore[union-attr]
    assert report.table.match.totals == tables[0].match.totals  # type: ignore[union-attr]


@settings(max_examples=6, deadline=None)
@given(seed=st.integers(0, 10_000), look=st.lists(st.booleans(), min_size=3, max_size=3),
       take=st.lists(st.booleans(), min_size=3, max_size=3))  # fmt: skip
def test_any_exchange_choices_play_to_a_valid_end(seed: int, look: list[bool], take: list[bool]) -> None:
    tables = build(seed)
    net = run(tables, seed, {s: Scripted(look[s], take[s]) for s in range(3)})
    assert_honest_end(tables, net)
    # Conservation: every hand's 52 cards are the three hands and the dummy, each card once.
    for hand in tables[0].match.history:  # type: ignore[union-attr]
        cards = [c for t in hand.tricks for _, c in t.plays] + list(hand.dummy)
        assert sorted(cards) == list(ALL_CARDS[:52])


def step_kinds(table: NeufTable) -> list[str]:
    """The kind of every step, replayed by an observer from the transcript."""
    observer = NeufTable(game_id=table.game_id, roster=table.roster, rules=table.rules, seat=None)
    kinds = []
    for rec in table.transcript.records():
        before = observer.step
        kind = observer.spec.kind
        observer.receive_record(rec)
        if observer.step != before:
            kinds.append(kind)
    return kinds


def test_a_look_at_the_untouched_dummy_is_opened_by_the_others_keys() -> None:
    tables = build(4)
    net = run(tables, 4, {s: Scripted(look=True, take=False) for s in range(3)})
    assert_honest_end(tables, net)
    kinds = step_kinds(tables[0])
    # Hand 1: the dealer looks first (open-keys by two seats), then the other two look at a
    # dummy only the dealer could open: each needs a relock and one unlock.
    first_hand = kinds[kinds.index("exchange") : kinds.index("reveal")]
    assert first_hand.count("open-keys") == 1
    assert first_hand.count("relock") == 2
    assert first_hand.count("unlock") == 2


def test_a_blind_take_is_opened_to_the_taker() -> None:
    tables = build(5)
    net = run(tables, 5, {s: Scripted(look=False, take=True) for s in range(3)})
    assert_honest_end(tables, net)
    kinds = step_kinds(tables[0])
    first_hand = kinds[kinds.index("exchange") : kinds.index("reveal")]
    # The dealer takes the untouched dummy (open-keys); the next two take a hand that its
    # former holder alone could open (relock, unlock).
    assert first_hand.count("open-keys") == 1
    assert first_hand.count("relock") == 2
    assert "look" not in first_hand


# --- privacy --------------------------------------------------------------------------


def test_only_the_looker_can_open_the_dummy() -> None:
    tables = build(6)
    net = LocalNetwork(tables, rng=random.Random(6))
    # Only the seat after the dealer looks; everybody declines.
    bots = {s: Scripted(look=False, take=False) for s in range(3)}

    def exchanges_done() -> bool:
        m = tables[0].match
        return m is not None and m.hand is not None and m.hand.phase is Phase.PLAY

    # Find the dealer after the cut, then script the seat on its left to look.
    net.start()
    dealer = tables[0].match.dealer  # type: ignore[union-attr]
    looker = neuf.next_seat(dealer)
    bots[looker] = Scripted(look=True, take=False)
    rng = random.Random(6)
    for _ in range(100):
        if exchanges_done():
            break
        for seat, table in tables.items():
            if table.my_turn:
                table.act(bots[seat].choose(table.view(), table.legal_actions(), rng))
                net.pump()
    assert exchanges_done()
    dummy = tables[0].hand.dummy  # type: ignore[union-attr]
    assert len(dummy) == 13
    for seat, table in tables.items():
        ledger = table.hand.ledger  # type: ignore[union-attr]
        opened = [ledger.open(p, {seat: ledger.my_key(p)}) for p in dummy]
        if seat == looker:
            assert None not in opened
            assert table.view().dummy_cards is not None
        else:
            assert opened == [None] * 13, f"seat {seat} could open the dummy"
            assert table.view().dummy_cards is None
    # An observer holding every record so far opens nothing either.
    observer = NeufTable(game_id=tables[0].game_id, roster=tables[0].roster, rules=SHORT, seat=None)
    for rec in tables[0].transcript.records():
        observer.receive_record(rec)
    obs = observer.hand.ledger  # type: ignore[union-attr]
    positions = [(0, k) for k in range(52)]
    assert [obs.open(p) for p in positions] == [None] * 52


# --- threats ------------------------------------------------------------------------------


class Revoker(NeufTable):
    """Discards off-suit whenever it could follow (its own replica lets it)."""

    def _on_deal(self, *args: Any) -> None:
        super()._on_deal(*args)
        assert self.match is not None and self.match.hand is not None
        self.match.hand.check_follow = False

    def legal_actions(self) -> list[Any]:
        hand = self.match.hand if self.match else None
        if not self.my_turn or hand is None or hand.phase is not Phase.PLAY:
            return super().legal_actions()
        mine = [c for c in hand.hands[self.seat] if c is not None]  # type: ignore[index]
        led = hand.led_suit
        off = [c for c in mine if led is not None and SUIT_OF[c] != led]
        if off and len(off) < len(mine):
            return [neuf.PlayCard(seat=self.seat, card=off[0])]  # type: ignore[arg-type]
        return [neuf.PlayCard(seat=self.seat, card=c) for c in mine]  # type: ignore[arg-type]


@pytest.mark.parametrize("seed", [0, 1])
def test_a_revoke_is_blamed(seed: int) -> None:
    net = run(build(seed, NeufRules(start=9), {1: Revoker}), seed)
    assert_caught(net, 1, "follow")


class RevokesThenDisputes(Revoker):
    """Revokes once; at its next turn, before it must play the suit it kept (which would
    prove the revoke live), it disputes a card falsely, so that the hand ends at the reveal."""

    revoked = False

    def _body_for_action(self, action: Any) -> Body:
        hand = self.match.hand if self.match else None
        assert hand is not None and self.seat is not None
        if self.revoked:
            return Dispute(reason="my card does not open (a lie)")
        led = hand.led_suit
        if isinstance(action, neuf.PlayCard) and led is not None and SUIT_OF[action.card] != led:
            self.revoked = any(c is not None and SUIT_OF[c] == led for c in hand.hands[self.seat])
        return super()._body_for_action(action)


# Guards neuf.py _replay: a revoke that the full replay at the reveal shows is blamed on the
# revoker (the first problem in the order of the moves), not only the false dispute after it.
@pytest.mark.parametrize("seed", [0, 1])
def test_a_revoke_found_at_the_reveal_is_blamed(seed: int) -> None:
    net = run(build(seed, NeufRules(start=9), {1: RevokesThenDisputes}), seed)
    cheat = net.tables[1]
    assert isinstance(cheat, RevokesThenDisputes) and cheat.revoked
    assert_caught(net, 1, "illegal move seen with all cards shown")
    assert_caught(net, 1, "(rule follow-suit)")


class DoubleLooker(NeufTable):
    """Looks at the dummy a second time in its exchange turn."""

    def _body_for_action(self, action: Any) -> Body:
        assert self.match is not None and self.match.hand is not None
        if isinstance(action, neuf.Exchange | neuf.Decline) and self.match.hand.looked:
            return LookAtPile()
        return super()._body_for_action(action)


def test_a_second_look_is_blamed() -> None:
    bots = {s: Scripted(look=True, take=False) for s in range(3)}
    net = run(build(0, classes={1: DoubleLooker}), 0, bots)
    assert_caught(net, 1, "look-once")


def test_a_look_under_blind_exchanges_is_blamed() -> None:
    class BlindLooker(NeufTable):
        def _body_for_action(self, action: Any) -> Body:
            if isinstance(action, neuf.Exchange | neuf.Decline):
                return LookAtPile()
            return super()._body_for_action(action)

    net = run(build(0, NeufRules(exchange="blind"), {2: BlindLooker}), 0)
    assert_caught(net, 2, "blind-exchange")


def test_an_exchange_during_the_tricks_is_blamed() -> None:
    class LateTaker(NeufTable):
        def _body_for_action(self, action: Any) -> Body:
            if isinstance(action, neuf.PlayCard):
                return TakePile()
            return super()._body_for_action(action)

    net = run(build(0, classes={0: LateTaker}), 0)
    assert_caught(net, 0, "exchange")


def test_a_record_out_of_turn_is_blamed() -> None:
    """A seat that writes an exchange record in another seat's exchange turn."""
    tables = build(0)
    net = LocalNetwork(tables, rng=random.Random(0))
    net.start()
    dealer = tables[0].match.dealer  # type: ignore[union-attr]
    intruder = neuf.next_seat(dealer)
    # Signed with the intruder's key for the step all stand at, sent to the others only.
    at = tables[intruder]
    prev = at.transcript.last_digest
    rec = Record(game_id=at.game_id, step=at.step, seat=intruder, prev=prev, body=TakePile())
    raw = rec.to_bytes()
    frame = SignedRecord(raw, identity_for(intruder).sign(SIGN_PREFIX + raw), rec).to_frame()
    for s in tables:
        if s != intruder:
            tables[s].receive(intruder, frame)
    net.pump()
    play_bots(net, {s: make_bot("random", "neuf") for s in tables}, random.Random(0), start=False)
    for s in tables:
        if s != intruder:
            err = net.failures.get(s) or tables[s].failure
            assert err is not None and err.peer == intruder


class WrongKeys(NeufTable):
    """Honest, except that the dealer of hand 1 publishes a wrong key or unlock pass for a look."""

    def _cheats(self) -> bool:
        m, h = self.match, self.hand
        return m is not None and self.seat == m.dealer and h is not None and h.number == 1

    def _game_body(self, kind: str) -> Body | None:
        body = super()._game_body(kind)
        if not self._cheats():
            return body
        if kind == "open-keys" and isinstance(body, Keys):
            k = body.keys[0]
            bad = KeyShare(round=k.round, pos=k.pos, key=(k.key + 1) % group.ORDER or 1)
            return Keys(keys=(bad, *body.keys[1:]))
        if kind == "unlock" and isinstance(body, Unlock):
            wrong = group.mul(2, body.points[0])
            return Unlock(layer=body.layer, points=(wrong, *body.points[1:]))
        return body


def _dealer_of_hand_one(seed: int) -> int:
    tables = build(seed)
    LocalNetwork(tables, rng=random.Random(seed)).start()
    return tables[0].match.dealer  # type: ignore[union-attr]


def test_a_wrong_key_for_a_look_is_blamed() -> None:
    seed = 0
    dealer = _dealer_of_hand_one(seed)
    # The seat after the dealer looks first, so the dealer publishes keys for it (open-keys).
    bots = {s: Scripted(look=(s != dealer), take=False) for s in range(3)}
    net = run(build(seed, classes={s: WrongKeys for s in range(3)}), seed, bots)
    assert_caught(net, dealer, "wrong key")


def test_a_wrong_unlock_pass_for_a_look_is_blamed() -> None:
    seed = 0
    dealer = _dealer_of_hand_one(seed)
    # The dealer looks (the others publish keys), declines; the next seat looks at a dummy only
    # the dealer can open: the dealer's unlock pass is wrong.
    bots = {s: Scripted(look=True, take=False) for s in range(3)}
    net = run(build(seed, classes={s: WrongKeys for s in range(3)}), seed, bots)
    assert_caught(net, dealer, "dishonest unlock pass")


def test_a_dishonest_relock_is_blamed_on_the_looker() -> None:
    class BadRelock(NeufTable):
        def _game_body(self, kind: str) -> Body | None:
            body = super()._game_body(kind)
            if kind == "relock" and isinstance(body, Relock):
                return Relock(layer=body.layer, points=tuple(group.mul(3, x) for x in body.points))
            return body

    seed = 0
    dealer = _dealer_of_hand_one(seed)
    cheat = neuf.next_seat(dealer)
    bots = {s: Scripted(look=True, take=False) for s in range(3)}
    net = run(build(seed, classes={cheat: BadRelock}), seed, bots)
    assert_caught(net, cheat, "dishonest relock pass")


def test_a_play_from_the_dummy_is_blamed() -> None:
    class DummyPlayer(NeufTable):
        def _body_for_action(self, action: Any) -> Body:
            if isinstance(action, neuf.PlayCard):
                assert self.hand is not None
                pos = self.hand.dummy[0]
                key = poker.lock_key(self.hand.secret, *pos)  # type: ignore[arg-type]
                shown = Shown(round=0, pos=pos[1], card=int(action.card), key=key)
                return PlayCards(cards=(shown,), suit=None)
            return super()._body_for_action(action)

    net = run(build(0, classes={2: DummyPlayer}), 0)
    assert_caught(net, 2, "does not hold")


class Liar(NeufTable):
    """Shows its own position and key, and claims another card (:meth:`claim`). Its own
    replica would refuse the lie: silenced, as a cheat's would be."""

    others: ClassVar[dict[int, NeufTable]] = {}
    """The tables of the others, whose sight the claim avoids (the test sets them)."""

    def _body_for_action(self, action: Any) -> Body:
        body = super()._body_for_action(action)
        if isinstance(body, PlayCards):
            s = body.cards[0]
            other = self.claim(s.card)
            if other is not None:
                return PlayCards(cards=(Shown(round=s.round, pos=s.pos, card=other, key=s.key),), suit=None)
        return body

    def claim(self, card: int) -> int | None:
        """A card no other seat can place (in a hand or the dummy it saw, or played)."""
        seen: set[Any] = set()
        for table in self.others.values():
            assert table.match is not None and table.match.hand is not None
            h = table.match.hand
            seen |= {c for hand in h.hands for c in hand if c is not None} | set(h.played())
            seen |= {c for c in h.dummy if c is not None}
        return next(c for c in range(52) if c != card and ALL_CARDS[c] not in seen)

    def _engine_check(self, action: Any, seat: int, step: int, trial: Any = None) -> None:
        if seat != self.seat:
            super()._engine_check(action, seat, step, trial)


def test_a_false_card_claim_is_blamed_after_the_reveal() -> None:
    """A card nobody else can place: the position does not open to it, and the reveal shows
    every key and pass right, so the claim was the author's lie."""
    tables = build(0, classes={1: Liar})
    Liar.others = {s: t for s, t in tables.items() if s != 1}
    try:
        net = run(tables, 0)
    finally:
        Liar.others = {}
    assert_caught(net, 1, "every key and pass of the hand verified")


class Again(Liar):
    """Plays honestly until a card is on the table, then claims the first card played."""

    def claim(self, card: int) -> int | None:
        assert self.match is not None and self.match.hand is not None
        played = self.match.hand.played()
        return int(played[0]) if played and played[0] != ALL_CARDS[card] else None


def test_a_claim_of_a_card_already_played_is_refused_before_its_position_is_opened() -> None:
    """A card already played, claimed again with the author's own position and key, is
    refused at once under ``card-held`` by every seat (10.4: a seat refuses what it can prove
    before it opens the position), so the author cannot stall a reveal by withholding its
    secret; the audit agrees."""
    net = run(build(0, classes={1: Again}), 0)
    assert_caught(net, 1, "rule card-held")
    for s in (0, 2):
        failure = net.failures.get(s) or net.tables[s].failure
        assert failure is not None and "which is played already" in failure.problem, failure
        assert net.tables[s].status == "failed" and net.tables[s].spec.kind == "turn", net.tables[s].spec


def test_two_cards_in_one_play_are_blamed() -> None:
    class Greedy(NeufTable):
        def _body_for_action(self, action: Any) -> Body:
            body = super()._body_for_action(action)
            if isinstance(body, PlayCards):
                return PlayCards(cards=(body.cards[0], body.cards[0]), suit=None)
            return body

    net = run(build(0, classes={0: Greedy}), 0)
    assert_caught(net, 0, "exactly one card")


# --- the table fingerprint --------------------------------------------------------------


def test_the_fingerprint_covers_the_trump_rotation() -> None:
    from p2pcards.protocol.fingerprint import TableFingerprint, fingerprint_input

    tables = build(7)
    run(tables, 7)
    prints = {str(TableFingerprint.of_table(t)) for t in tables.values()}
    assert len(prints) == 1 and None not in prints
    base = dict(game_id=bytes(16), game="neuf", keys=[bytes(32)] * 3, secrets=[bytes(32)] * 3)
    spades = fingerprint_input(rules={"trumps": ["S", "H", "C", "D", None]}, **base)  # type: ignore[arg-type]
    hearts = fingerprint_input(rules={"trumps": ["H", "D", "S", "C", None]}, **base)  # type: ignore[arg-type]
    assert spades != hearts
    # An array is tagged 0x05 with its length, then each item as a value.
    assert b"\x06trumps\x05\x05\x04\x00\x01S" in spades
    assert spades.count(b"\x00") >= 1 and spades.endswith(bytes(32))
