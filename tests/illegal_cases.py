"""Every refusal of the rules engines (``IllegalAction``), provoked: one position of Nines or
Le Neuf for each text of ``games/rule_words.ILLEGAL_WORDS`` a move can be refused with, and
the English detail it must be refused with, word for word (transcripts, audits and outside
verifiers hold it: it never changes).

Shared by ``test_illegal_words`` (the engines and their English) and ``test_i18n_illegal``
(the same refusals said in French and Italian)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import pytest
import test_neuf_rules as neuf_t
import test_nines_rules as nines_t

from p2pcards.cards import Card, deck
from p2pcards.errors import IllegalAction
from p2pcards.games.neuf import rules as neuf
from p2pcards.games.nines import rules as nines

C = nines_t.C
cs = nines_t.cs
DOUBLE = nines.NinesRules(double_nines=True)
STACKING = nines.NinesRules(double_nines=True, stacking_nines=True)
UNTIL = nines.NinesRules(draw_until_playable=True)
NO_NINE_OUT = nines.NinesRules(no_nine_out=True)
NO_NINE_OUT_DOUBLE = nines.NinesRules(no_nine_out=True, double_nines=True)


@dataclass(frozen=True)
class Case:
    """A refusal: how it is provoked, the rule and the English it is refused with."""

    provoke: Callable[[], object]
    rule: str
    english: str
    key: str


def refusal(case: Case) -> IllegalAction:
    """The ``IllegalAction`` ``case`` provokes."""
    with pytest.raises(IllegalAction) as info:
        case.provoke()
    return info.value


def _nines(players: int = 2, rules: nines.NinesRules = nines_t.DEFAULT, **kw: object) -> nines.HandState:
    return nines_t.position(players=players, rules=rules, **kw)


def _phase(h: nines.HandState, phase: nines.Phase) -> nines.HandState:
    h.phase = phase
    return h


def _drawn(rules: nines.NinesRules = nines_t.DEFAULT, stock: str = "5C") -> nines.HandState:
    """Seat 0 of two, with nothing to play on the 7H, has just drawn the top of ``stock``."""
    h = _nines(rules=rules, hands={0: "KS 2D", 1: "3S"}, top="7H", stock=stock)
    h.apply(nines.Draw(seat=0))
    return h


def _over() -> nines.HandState:
    h = _nines(hands={0: "4H", 1: "3S KD"}, top="7H")
    h.apply(nines.Play(seat=0, card=C("4H")))
    return h


def _hidden(h: nines.HandState, seat: int, known: str = "") -> nines.HandState:
    """``seat``'s hand as another replica sees it: ``known`` cards, the rest hidden."""
    h.hands[seat] = [*cs(known), *[None] * (len(h.hands[seat]) - len(known.split()))]
    return h


def _recycle() -> nines.HandState:
    """Seat 0 must draw from an empty stock: the discards under the 9C are to be recycled."""
    return _nines(hands={0: "KS 2D", 1: "3S"}, top="9C", under="4C 5C 6D", suit="H", stock="")


def _cut(*rounds: dict[int, str]) -> Callable[[], int]:
    return lambda: neuf.dealer_from_cut([{s: C(c) for s, c in r.items()} for r in rounds])


def _neuf_dealt(rules: neuf.NeufRules = neuf_t.DEFAULT) -> neuf.HandState:
    return neuf.HandState(rules, 0, deck())


def _neuf_over() -> neuf.HandState:
    h = neuf_t.position({0: "2S", 1: "3S", 2: "4S"}, leader=0)
    h.phase = neuf.Phase.OVER
    return h


def _neuf_played() -> neuf.HandState:
    h = _neuf_dealt()
    neuf_t.decline_all(h)
    return h


def _neuf_hidden(seat: int) -> tuple[neuf.HandState, neuf.HandState]:
    """The full game dealt by seat 0, and ``seat``'s replica of it."""
    d = deck()
    return neuf.HandState(neuf_t.DEFAULT, 0, d), neuf.HandState(
        neuf_t.DEFAULT, 0, neuf_t.hidden_deck(d, 0, seat)
    )


def _dummy_claim(claim: Callable[[list[Card]], tuple[object, ...]]) -> Callable[[], None]:
    def provoke() -> None:
        h = _neuf_dealt()
        h.apply(neuf.Look(seat=0, cards=claim(list(h.dummy))))  # type: ignore[arg-type]

    return provoke


def _neuf_seen_in_hand() -> None:
    full, mine = _neuf_hidden(0)
    mine.apply(neuf.Look(seat=0, cards=tuple(full.hands[0])))  # type: ignore[arg-type]


def _neuf_revoke() -> None:
    full = neuf_t.position({0: "AH 3H", 1: "2H 5C", 2: "4H 6H"}, leader=0, current="AH")
    mine = neuf_t.replica_of(full, 0)
    for seat, card in ((1, "5C"), (2, "4H"), (0, "3H")):
        mine.apply(neuf.PlayCard(seat=seat, card=C(card)))
    mine.apply(neuf.PlayCard(seat=1, card=C("2H")))


def _neuf_played_already() -> None:
    full = neuf_t.position({0: "AH 3H", 1: "2H QH", 2: "4H 6S"}, leader=0, current="AH")
    neuf_t.replica_of(full, 2).apply(neuf.PlayCard(seat=1, card=C("AH")))


def _neuf_in_dummy() -> None:
    full = neuf_t.position({0: "AH 3H", 1: "2H QH", 2: "4H 6S"}, leader=0, current="AH")
    full.dummy = cs("KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C AC")
    neuf_t.replica_of(full, 2, dummy=True).apply(neuf.PlayCard(seat=1, card=C("KC")))


def _nines_seen_in_stock() -> None:
    h = _hidden(_nines(hands={0: "KS 2D", 1: "3S"}, top="7H", stock="JC 5C"), 0)
    h.stock = [h.stock[0], None]  # (stored bottom first: the top is hidden, 5C below it is seen)
    h.apply(nines.Play(seat=0, card=C("5C")))


def _nines_draw_seen() -> None:
    h = _nines(hands={0: "KS 2D", 1: "3S"}, top="7H", stock="5C 6D")
    h.stock = [None, None]  # (another seat's replica: it cannot see the top of the stock)
    h.apply(Draw(seat=0, card=C("7H")))


def _nines_reveal(known: str, shown: str, **kw: object) -> Callable[[], None]:
    def provoke() -> None:
        h = _hidden(_nines(**kw), 0, known)  # type: ignore[arg-type]
        h.reveal(0, [C(c) for c in shown.split()])  # (a card named twice is the same card)

    return provoke


Play, Draw, Keep, Pass = nines.Play, nines.Draw, nines.Keep, nines.Pass

NINES: dict[str, Case] = {
    "hand over": Case(
        lambda: _over().apply(Draw(seat=1)), "hand-over", "the hand is over", "illegal_hand_over"
    ),
    "stock to rebuild": Case(
        lambda: _phase(_nines(hands={0: "4H KS", 1: "5H"}, top="7H"), nines.Phase.RECYCLE).apply(
            Draw(seat=0)
        ),
        "recycle",
        "the stock must be rebuilt before anyone acts",
        "illegal_rebuild_first",
    ),
    "out of turn": Case(
        lambda: _nines(3, hands={0: "4H KS", 1: "5H", 2: "6H"}, top="7H").apply(Play(seat=1, card=C("5H"))),
        "turn-order",
        "it is seat 0's turn, not seat 1's",
        "illegal_turn",
    ),
    "declare without a 9 up": Case(
        lambda: _nines(hands={0: "4H KS", 1: "5H"}, top="7H").apply(nines.Declare(seat=0, suit="S")),
        "declare",
        "a suit is declared only when the up card is a 9",
        "illegal_declare_not_nine",
    ),
    "a card of a second deck": Case(
        lambda: _nines(hands={0: "4H KS", 1: "5H"}, top="7H").apply(Play(seat=0, card=Card.of(4, "H", 1))),
        "card-held",
        "Card(4H') is not a card of this deck",
        "illegal_not_a_card",
    ),
    "a card not held": Case(
        lambda: _nines(hands={0: "4H KS", 1: "5H"}, top="7H").apply(Play(seat=0, card=C("8H"))),
        "card-held",
        "plays 8H, which it does not hold",
        "illegal_not_held",
    ),
    "two 9s not held": Case(
        lambda: _nines(rules=DOUBLE, hands={0: "4H KS", 1: "5H"}, top="7H").apply(
            nines.PlayNines(seat=0, cards=(C("9S"), C("9H")), suit="C")
        ),
        "card-held",
        "plays 9S, 9H, which it does not hold",
        "illegal_not_held",
    ),
    "a card in another hand": Case(
        lambda: _hidden(_nines(hands={0: "4H KS", 1: "5H"}, top="7H"), 0).apply(Play(seat=0, card=C("5H"))),
        "card-held",
        "plays 5H, which is in seat 1's hand",
        "illegal_seen_elsewhere",
    ),
    "a card in the stock": Case(
        _nines_seen_in_stock, "card-held", "plays 5C, which is in the stock", "illegal_seen_elsewhere"
    ),
    "another card after drawing": Case(
        lambda: _drawn().apply(Play(seat=0, card=C("KS"))),
        "play-drawn",
        "after drawing only the drawn card may be played, not KS",
        "illegal_only_drawn",
    ),
    "no 9 against two 9s": Case(
        lambda: _phase(
            _nines(rules=STACKING, hands={0: "4H KS", 1: "5H"}, top="7H"), nines.Phase.STACK
        ).apply(Play(seat=0, card=C("4H"))),
        "stacking-nines",
        "only a 9 cancels the skip",
        "illegal_only_nine_cancels",
    ),
    "a card while declaring": Case(
        lambda: _phase(_nines(hands={0: "4H KS", 1: "5H"}, top="7H"), nines.Phase.DECLARE).apply(
            Play(seat=0, card=C("4H"))
        ),
        "phase",
        "cannot play a card now (declare)",
        "illegal_play_phase",
    ),
    "neither suit nor rank": Case(
        lambda: _nines(hands={0: "4C KS", 1: "5H"}, top="7H").apply(Play(seat=0, card=C("4C"))),
        "match-suit-or-rank",
        "4C matches neither the active suit H nor the rank of 7H",
        "illegal_no_match",
    ),
    "a suit declared with another card": Case(
        lambda: _nines(hands={0: "4H KS", 1: "5H"}, top="7H").apply(Play(seat=0, card=C("4H"), suit="S")),
        "declare",
        "only a 9 declares a suit",
        "illegal_only_nine_declares",
    ),
    "a 9 to go out": Case(
        lambda: _nines(rules=NO_NINE_OUT, hands={0: "9S", 1: "5H"}, top="7H").apply(
            Play(seat=0, card=C("9S"), suit="H")
        ),
        "no-nine-out",
        "a 9 may not be the last card",
        "illegal_nine_last",
    ),
    "two 9s without the rule": Case(
        lambda: _nines(hands={0: "9S 9H KS", 1: "5H"}, top="7H").apply(
            nines.PlayNines(seat=0, cards=(C("9S"), C("9H")), suit="C")
        ),
        "double-nines",
        "two 9s together need the double-nines rule",
        "illegal_double_needs_rule",
    ),
    "two 9s after drawing": Case(
        lambda: _drawn(DOUBLE).apply(nines.PlayNines(seat=0, cards=(C("9S"), C("9H")), suit="C")),
        "phase",
        "cannot play two 9s now (drawn)",
        "illegal_double_phase",
    ),
    "a double of one card": Case(
        lambda: _nines(rules=DOUBLE, hands={0: "9S 9H KS", 1: "5H"}, top="7H").apply(
            nines.PlayNines(seat=0, cards=(C("9S"),), suit="C")
        ),
        "double-nines",
        "a double play is exactly two 9s",
        "illegal_double_two_nines",
    ),
    "the same 9 twice": Case(
        lambda: _nines(rules=DOUBLE, hands={0: "9S 9H KS", 1: "5H"}, top="7H").apply(
            nines.PlayNines(seat=0, cards=(C("9S"), C("9S")), suit="C")
        ),
        "card-held",
        "plays the same 9S twice",
        "illegal_same_twice",
    ),
    "two 9s to go out": Case(
        lambda: _nines(rules=NO_NINE_OUT_DOUBLE, hands={0: "9S 9H", 1: "5H"}, top="7H").apply(
            nines.PlayNines(seat=0, cards=(C("9S"), C("9H")), suit="C")
        ),
        "no-nine-out",
        "9s may not be the last cards",
        "illegal_nines_last",
    ),
    "a draw with a card to play": Case(
        lambda: _nines(hands={0: "4H KS", 1: "5H"}, top="7H").apply(Draw(seat=0)),
        "must-play",
        "holds a legal card (4H), so may not draw",
        "illegal_draw_holding",
    ),
    "a second draw": Case(
        lambda: _drawn().apply(Draw(seat=0)),
        "draw-once",
        "a player never draws a second card",
        "illegal_draw_twice",
    ),
    "a draw instead of the drawn card": Case(
        lambda: _drawn(UNTIL, stock="5H").apply(Draw(seat=0)),
        "draw-until-playable",
        "must play the drawn 5H",
        "illegal_play_the_drawn",
    ),
    "a pass instead of the drawn card": Case(
        lambda: _drawn(UNTIL, stock="5H").apply(Pass(seat=0)),
        "draw-until-playable",
        "must play the drawn 5H",
        "illegal_play_the_drawn",
    ),
    "a draw against two 9s": Case(
        lambda: _phase(
            _nines(rules=STACKING, hands={0: "4H KS", 1: "5H"}, top="7H"), nines.Phase.STACK
        ).apply(Draw(seat=0)),
        "phase",
        "cannot draw now (stack)",
        "illegal_draw_phase",
    ),
    "a draw before recycling": Case(
        lambda: _recycle().apply(Draw(seat=0)),
        "recycle",
        "the stock is empty: recycle the discards first",
        "illegal_recycle_first",
    ),
    "a draw from nothing": Case(
        lambda: _nines(hands={0: "KS 2D", 1: "3S"}, top="7H", stock="").apply(Draw(seat=0)),
        "pass",
        "the stock is empty and nothing can be recycled: pass",
        "illegal_must_pass",
    ),
    "a draw of another card": Case(
        lambda: _nines(hands={0: "KS 2D", 1: "3S"}, top="7H", stock="5C 6D").apply(
            Draw(seat=0, card=C("6D"))
        ),
        "draw-top",
        "drew 6D but the top of the stock is 5C",
        "illegal_not_top",
    ),
    "a draw of the top discard": Case(
        _nines_draw_seen, "draw-top", "drew 7H, which is in the discard pile", "illegal_drew_seen"
    ),
    "a keep without a draw": Case(
        lambda: _nines(hands={0: "4H KS", 1: "5H"}, top="7H").apply(Keep(seat=0)),
        "phase",
        "only a player who just drew can keep the card",
        "illegal_keep_not_drawn",
    ),
    "a keep when drawing until playable": Case(
        lambda: _drawn(UNTIL).apply(Keep(seat=0)),
        "draw-until-playable",
        "keep draws until a legal card, then plays it",
        "illegal_keep_until_playable",
    ),
    "a pass with a card to play": Case(
        lambda: _nines(hands={0: "4H KS", 1: "5H"}, top="7H").apply(Pass(seat=0)),
        "must-play",
        "holds a legal card (4H), so may not pass",
        "illegal_pass_holding",
    ),
    "a pass against two 9s": Case(
        lambda: _phase(
            _nines(rules=STACKING, hands={0: "4H KS", 1: "5H"}, top="7H"), nines.Phase.STACK
        ).apply(Pass(seat=0)),
        "phase",
        "cannot pass now (stack)",
        "illegal_pass_phase",
    ),
    "a pass with a card to draw": Case(
        lambda: _nines(hands={0: "KS 2D", 1: "3S"}, top="7H", stock="5C").apply(Pass(seat=0)),
        "pass",
        "a player may pass only when there is nothing to draw",
        "illegal_pass_can_draw",
    ),
    "a skip accepted for nothing": Case(
        lambda: _nines(hands={0: "4H KS", 1: "5H"}, top="7H").apply(nines.AcceptSkip(seat=0)),
        "phase",
        "there is no skip to accept",
        "illegal_no_skip",
    ),
    "a recycle too soon": Case(
        lambda: _nines(hands={0: "KS 4H", 1: "3S"}, top="7H", under="4C 5C", stock="").apply(
            nines.Recycle(stock=tuple(cs("4C 5C")))
        ),
        "recycle",
        "the stock is recycled only when a draw finds it empty",
        "illegal_recycle_not_empty",
    ),
    "a recycle too short": Case(
        lambda: _recycle().apply(nines.Recycle(stock=tuple(cs("4C 5C")))),
        "recycle",
        "the new stock must hold 3 cards",
        "illegal_recycle_size",
    ),
    "a recycle of a card twice": Case(
        lambda: _recycle().apply(nines.Recycle(stock=(C("4C"), C("4C"), C("5C")))),
        "recycle",
        "the new stock holds a non-card or a card twice",
        "illegal_recycle_twice",
    ),
    "a recycle of a stray card": Case(
        lambda: _recycle().apply(nines.Recycle(stock=tuple(cs("4C 5C KH")))),
        "recycle",
        "KH is not among the discards",
        "illegal_recycle_stray",
    ),
    "a reveal of too few cards": Case(
        _nines_reveal("", "4H", hands={0: "4H KS", 1: "5H"}, top="7H"),
        "reveal",
        "shows 1 cards but holds 2",
        "illegal_reveal_count",
    ),
    "a reveal of a card twice": Case(
        _nines_reveal("", "4H 4H", hands={0: "4H KS", 1: "5H"}, top="7H"),
        "reveal",
        "shows the same card twice",
        "illegal_reveal_twice",
    ),
    "a reveal that hides a card": Case(
        _nines_reveal("4H", "5D 6D", hands={0: "4H KS", 1: "5H"}, top="7H"),
        "reveal",
        "does not show 4H, which it holds",
        "illegal_reveal_hides",
    ),
    "a reveal of the top discard": Case(
        _nines_reveal("", "7H KS", hands={0: "4H KS", 1: "5H"}, top="7H"),
        "reveal",
        "shows 7H, which is in the discard pile",
        "illegal_reveal_seen",
    ),
    "a suit that is none": Case(
        lambda: _phase(_nines(hands={0: "4H KS", 1: "5H"}, top="9H"), nines.Phase.DECLARE).apply(
            nines.Declare(seat=0, suit="X")
        ),
        "declare",
        "a 9 must declare one of S, H, D, C (got 'X')",
        "illegal_declare_suit",
    ),
}

Look, Exchange, Decline, PlayCard = neuf.Look, neuf.Exchange, neuf.Decline, neuf.PlayCard

NEUF: dict[str, Case] = {
    "hand over": Case(
        lambda: _neuf_over().apply(PlayCard(seat=0, card=C("2S"))),
        "hand-over",
        "the hand is over",
        "illegal_hand_over",
    ),
    "out of turn": Case(
        lambda: neuf.HandState(neuf_t.DEFAULT, 1, deck()).apply(Decline(seat=2)),
        "turn-order",
        "it is seat 1's turn, not seat 2's",
        "illegal_turn",
    ),
    "a look after the exchanges": Case(
        lambda: _neuf_played().apply(Look(seat=1)),
        "phase",
        "cannot look at the dummy now: the exchanges are over",
        "illegal_look_over",
    ),
    "an exchange after the exchanges": Case(
        lambda: _neuf_played().apply(Exchange(seat=1)),
        "phase",
        "cannot exchange now: the exchanges are over",
        "illegal_exchange_over",
    ),
    "a decline after the exchanges": Case(
        lambda: _neuf_played().apply(Decline(seat=1)),
        "phase",
        "cannot decline the dummy now: the exchanges are over",
        "illegal_decline_over",
    ),
    "a dummy of 12 cards": Case(
        _dummy_claim(lambda dummy: tuple(dummy[:12])),
        "look",
        "the dummy holds 13 cards",
        "illegal_dummy_size",
    ),
    "a dummy with a number": Case(
        _dummy_claim(lambda dummy: (*dummy[:12], 5)),
        "look",
        "names something that is not a card of this deck",
        "illegal_dummy_not_card",
    ),
    "a dummy with a card twice": Case(
        _dummy_claim(lambda dummy: (*dummy[:12], dummy[0])),
        "look",
        "names a card twice",
        "illegal_dummy_twice",
    ),
    "a dummy without its last card": Case(
        _dummy_claim(lambda dummy: (*dummy[:12], C("KS"))),
        "look",
        "leaves out KC, which the dummy holds",
        "illegal_dummy_leaves_out",
    ),
    "a dummy of a seat's own cards": Case(
        _neuf_seen_in_hand, "look", "names 3S, which is in seat 0's hand", "illegal_dummy_seen"
    ),
    "a look at a blind dummy": Case(
        lambda: _neuf_dealt(neuf_t.BLIND).apply(Look(seat=0)),
        "blind-exchange",
        "exchanges are blind: nobody looks at the dummy",
        "illegal_blind",
    ),
    "a second look": Case(
        lambda: [h := _neuf_dealt(), h.apply(Look(seat=0)), h.apply(Look(seat=0))],
        "look-once",
        "a seat looks at the dummy once",
        "illegal_look_once",
    ),
    "a card during the exchanges": Case(
        lambda: [h := _neuf_dealt(), h.apply(PlayCard(seat=0, card=h.hands[0][0]))],  # type: ignore[arg-type]
        "phase",
        "cards are played once the three exchanges are done",
        "illegal_play_before_exchanges",
    ),
    "a number for a card": Case(
        lambda: _neuf_played().apply(PlayCard(seat=1, card=99)),  # type: ignore[arg-type]
        "card-held",
        "99 is not a card of this deck",
        "illegal_not_a_card",
    ),
    "a card not held": Case(
        lambda: neuf_t.position({0: "AH 3H", 1: "2H QH", 2: "4H 6S"}, leader=0).apply(
            PlayCard(seat=0, card=C("KD"))
        ),
        "card-held",
        "plays KD, which it does not hold",
        "illegal_not_held",
    ),
    "a card played already": Case(
        _neuf_played_already, "card-held", "plays AH, which is played already", "illegal_seen_elsewhere"
    ),
    "a card in the dummy": Case(
        _neuf_in_dummy, "card-held", "plays KC, which is in the dummy", "illegal_seen_elsewhere"
    ),
    "another suit while holding the suit led": Case(
        lambda: neuf_t.position({0: "AH 3H", 1: "2H 5C", 2: "4H 6H"}, leader=0, current="AH").apply(
            PlayCard(seat=1, card=C("5C"))
        ),
        "follow-suit",
        "plays 5C on H led while holding 2H: must follow",
        "illegal_follow",
    ),
    "a revoke found later": Case(
        _neuf_revoke,
        "follow-suit",
        "plays 2H, a H card, so it revoked on trick 1 by not following H",
        "illegal_revoked",
    ),
    "no cut": Case(_cut(), "cut", "there was no cut", "illegal_no_cut"),
    "a cut of two seats": Case(
        _cut({0: "5H", 1: "QS"}), "cut", "round 1 of the cut is for seats [0, 1, 2]", "illegal_cut_seats"
    ),
    "a cut with a card twice": Case(
        _cut({0: "5H", 1: "5H", 2: "2D"}),
        "cut",
        "round 1 of the cut shows a card twice or a non-card",
        "illegal_cut_cards",
    ),
    "a cut after it was decided": Case(
        _cut({0: "5H", 1: "QS", 2: "2D"}, {1: "3C"}),
        "cut",
        "the cut was decided in round 1",
        "illegal_cut_decided",
    ),
    "a cut still tied": Case(
        _cut({0: "AH", 1: "AS", 2: "2D"}),
        "cut",
        "seats [0, 1] are still tied: they cut again",
        "illegal_cut_tied",
    ),
}
