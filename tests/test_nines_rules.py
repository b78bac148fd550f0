"""Every rule of Nines (docs/rules-nines.md) and every variant, one position at a time.

Positions are set up in two ways: a stacked deck dealt by the real engine (for
the deal and the worked example), or :func:`arrange`, which puts chosen cards in
chosen places of a freshly dealt hand (for a rule in the middle of a hand).
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Mapping, Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from p2pcards.cards import Card, deck, parse_card, parse_cards, penalty
from p2pcards.errors import IllegalAction, RuleOptionError, UsageError
from p2pcards.games.nines.rules import (
    MAX_HANDS,
    MAX_TARGET,
    AcceptSkip,
    Action,
    Declare,
    Draw,
    HandResult,
    HandState,
    Keep,
    Match,
    NinesRules,
    Pass,
    Phase,
    Play,
    PlayNines,
    Recycle,
    SeatView,
    cut_lowest,
    hand_size,
)

Snapshot = Callable[[HandState], dict[str, object]]
DEFAULT = NinesRules()


def C(text: str) -> Card:
    return parse_card(text)


def cs(text: str) -> list[Card]:
    return list(parse_cards(text.split()))


# ---------------------------------------------------------------------------
# Building positions


def stacked_deck(
    players: int,
    dealer: int,
    hands: Mapping[int, str],
    up: str,
    stock: str = "",
    *,
    copies: int = 1,
) -> list[Card]:
    """A deck, top card first, that deals ``hands[seat]`` (in deal order), turns
    ``up`` and leaves ``stock`` on top of the stock.

    Short or missing hands are filled with unnamed cards, 9s last of all, so a
    filler card is never a wild card unless the hands are very large.
    """
    order = [(dealer + k) % players for k in range(1, players + 1)]
    size = hand_size(players)
    named = {s: cs(t) for s, t in hands.items()}
    up_card = C(up)
    top = cs(stock)
    used = [c for h in named.values() for c in h] + [up_card, *top]
    assert len(set(used)) == len(used), "a card is named twice"
    filler = iter(sorted((c for c in deck(copies) if c not in used), key=lambda c: (c.is_nine, c)))
    full = {s: named.get(s, []) + [next(filler) for _ in range(size - len(named.get(s, [])))] for s in order}
    out = [full[s][i] for i in range(size) for s in order]
    out += [up_card, *top, *filler]
    assert len(out) == 52 * copies
    return out


def arrange(
    h: HandState,
    *,
    hands: Mapping[int, str],
    top: str,
    under: str = "",
    stock: str | None = None,
    suit: str | None = None,
    turn: int = 0,
) -> HandState:
    """Put a dealt hand in a chosen position: each playing seat holds exactly
    ``hands[seat]``, the discard pile is ``under`` then ``top``, the active suit is
    ``suit`` (the top's own suit by default) and ``turn`` is to play.

    Without ``stock`` every other card is in the stock (cards are conserved);
    ``stock`` (top first) sets the stock exactly and the cards named nowhere are
    out of play.
    """
    seats = sorted(hands)
    words = [w for s in seats for w in hands[s].split()] + under.split() + [top]
    words += [] if stock is None else stock.split()
    parsed = iter(parse_cards(words))  # one parse, so a repeated 9 is the second copy
    for s in range(h.players):
        h.hands[s] = [next(parsed) for _ in hands[s].split()] if s in hands else []
    h.discards = [next(parsed) for _ in under.split()] + [next(parsed)]
    if stock is None:
        used = {c for hand in h.hands for c in hand} | set(h.discards)
        top_first = [c for c in deck(h.rules.deck_size // 52) if c not in used]
    else:
        top_first = list(parsed)
    h.stock = top_first[::-1]
    h.active_suit = suit or h.discards[-1].suit
    h.turn = turn
    h.phase = Phase.TURN
    return h


def position(
    players: int = 2,
    rules: NinesRules = DEFAULT,
    dealer: int | None = None,
    **kw: object,
) -> HandState:
    """A hand mid-play (see :func:`arrange`); the dealer sits right of the seat to play."""
    turn = int(kw.get("turn", 0))  # type: ignore[call-overload]
    d = (turn - 1) % players if dealer is None else dealer
    h = HandState(rules, players, d, deck(rules.deck_size // 52))
    return arrange(h, **kw)  # type: ignore[arg-type]


def rejects(h: HandState, action: Action, rule: str, snapshot: Snapshot, seat: int | None = -1) -> None:
    """``action`` raises IllegalAction naming ``rule`` and the seat, and changes nothing."""
    before = snapshot(h)
    with pytest.raises(IllegalAction) as info:
        h.apply(action)
    assert info.value.rule == rule, info.value
    expected = getattr(action, "seat", None) if seat == -1 else seat
    assert info.value.seat == expected
    assert snapshot(h) == before


def plays(seat: int, text: str) -> set[Action]:
    """The Play actions of the cards in ``text`` (a 9 in each of the four suits)."""
    out: set[Action] = set()
    for c in cs(text):
        if c.is_nine:
            out |= {Play(seat=seat, card=c, suit=s) for s in "SHDC"}
        else:
            out.add(Play(seat=seat, card=c))
    return out


def score(text: str, nine: int = 15) -> int:
    return sum(penalty(c, nine) for c in cs(text))


# ---------------------------------------------------------------------------
# Setup: the deal, the up card, the first player


def test_deal_is_one_card_at_a_time_from_the_dealers_left() -> None:
    d = deck()
    h = HandState(DEFAULT, 4, 2, d)
    # seat 3 sits left of dealer 2 and gets the first card, then 0, 1, 2 and round again
    assert h.hands[3] == list(d[0:28:4])
    assert h.hands[0] == list(d[1:28:4])
    assert h.hands[1] == list(d[2:28:4])
    assert h.hands[2] == list(d[3:28:4])
    assert h.dealt == h.hands
    assert h.up_card == h.top == d[28]
    assert h.initial_stock == tuple(d[29:])
    assert h.stock[-1] == d[29]  # the top of the stock is drawn first
    assert (h.turn, h.to_act, h.phase) == (3, 3, Phase.TURN)
    assert h.active_suit == d[28].suit


def test_four_players_deal_28_plus_1_plus_23() -> None:
    h = HandState(DEFAULT, 4, 0, deck())
    assert h.counts() == [7, 7, 7, 7]
    assert (sum(h.counts()), len(h.discards), h.stock_size) == (28, 1, 23)
    every = [c for hand in h.hands for c in hand] + h.discards + h.stock
    assert sorted(every) == list(deck())


@pytest.mark.parametrize(("players", "size"), [(2, 7), (3, 7), (4, 7), (5, 5), (6, 5)])
def test_hand_sizes(players: int, size: int) -> None:
    assert hand_size(players) == size
    for rules, cards in ((DEFAULT, 52), (NinesRules(double_nines=True), 104)):
        h = HandState(rules, players, 0, deck(cards // 52))
        assert h.counts() == [size] * players
        assert h.stock_size == cards - size * players - 1


def test_deal_rejects_a_bad_deck() -> None:
    with pytest.raises(UsageError):
        HandState(DEFAULT, 2, 0, deck(2))  # 104 cards without double nines
    with pytest.raises(UsageError):
        HandState(NinesRules(double_nines=True), 2, 0, deck())
    twice = list(deck())
    twice[5] = twice[6]
    with pytest.raises(UsageError):
        HandState(DEFAULT, 2, 0, twice)
    with pytest.raises(UsageError):
        HandState(DEFAULT, 2, 0, [int(c) for c in deck()])  # type: ignore[misc]
    with pytest.raises(UsageError):
        HandState(DEFAULT, 7, 0, deck())
    with pytest.raises(UsageError):
        HandState(DEFAULT, 3, 5, deck())


def test_up_card_nine_makes_the_dealer_declare(snapshot: Snapshot) -> None:
    d = stacked_deck(4, dealer=1, hands={2: "4S 4H KS 2C 3D 5D 6D"}, up="9S")
    h = HandState(DEFAULT, 4, 1, d)
    assert (h.phase, h.turn, h.to_act) == (Phase.DECLARE, 1, 1)
    assert h.legal_actions() == [Declare(seat=1, suit=s) for s in "SHDC"]
    rejects(h, Declare(seat=2, suit="H"), "turn-order", snapshot)
    rejects(h, Play(seat=1, card=h.hands[1][0]), "phase", snapshot)
    rejects(h, Draw(seat=1), "phase", snapshot)
    for bad in ("X", "", "SH", None, 3):
        rejects(h, Declare(seat=1, suit=bad), "declare", snapshot)  # type: ignore[arg-type]
    h.apply(Declare(seat=1, suit="H"))
    # the first player is still the one left of the dealer
    assert (h.phase, h.turn, h.active_suit) == (Phase.TURN, 2, "H")
    assert h.events == [Declare(seat=1, suit="H")]
    # the up card's printed spade no longer counts: only the declared suit (or a 9)
    assert set(h.legal_actions()) == plays(2, "4H")
    rejects(h, Play(seat=2, card=C("4S")), "match-suit-or-rank", snapshot)
    rejects(h, Declare(seat=1, suit="S"), "turn-order", snapshot)
    rejects(h, Declare(seat=2, suit="S"), "declare", snapshot)


def test_no_declaration_when_the_up_card_is_not_a_nine(snapshot: Snapshot) -> None:
    h = HandState(DEFAULT, 3, 0, stacked_deck(3, dealer=0, hands={}, up="KD"))
    assert (h.phase, h.turn, h.active_suit) == (Phase.TURN, 1, "D")
    rejects(h, Declare(seat=1, suit="S"), "declare", snapshot)


@pytest.mark.parametrize("up", ["JS", "QS", "AS"])
def test_action_cards_have_no_power_as_the_up_card(up: str) -> None:
    rules = NinesRules(action_cards=True)
    h = HandState(rules, 4, 0, stacked_deck(4, dealer=0, hands={}, up=up))
    assert (h.phase, h.turn, h.direction) == (Phase.TURN, 1, 1)
    assert h.counts() == [7, 7, 7, 7]


# ---------------------------------------------------------------------------
# The worked example of docs/rules-nines.md


def worked_example_deck() -> list[Card]:
    """Seat 0 is A (the dealer), seat 1 is B (plays first). The hand is played
    down to the example's position, then the example is played."""
    return stacked_deck(
        2,
        dealer=0,
        hands={1: "2H 4S KC QH 8D 10C 7H", 0: "2S 3S 3D 8C 7C 9S AC"},
        up="5H",
        stock="9D",
    )


def play_to_the_worked_example(h: HandState, snapshot: Snapshot) -> None:
    a, b = 0, 1
    for seat, card in ((b, "2H"), (a, "2S"), (b, "4S"), (a, "3S")):
        h.apply(Play(seat=seat, card=C(card)))
    # B holds KC QH 8D 10C 7H on the 3S: nothing legal, so B must draw; the 9D
    # is legal but B may keep it.
    assert h.legal_actions() == [Draw(seat=b)]
    rejects(h, Play(seat=b, card=C("KC")), "match-suit-or-rank", snapshot)
    h.apply(Draw(seat=b))
    assert h.hands[b][-1] == C("9D")
    assert set(h.legal_actions()) == plays(b, "9D") | {Keep(seat=b)}
    h.apply(Keep(seat=b))
    for seat, card in ((a, "3D"), (b, "8D"), (a, "8C"), (b, "10C"), (a, "7C"), (b, "7H")):
        h.apply(Play(seat=seat, card=C(card)))


def test_worked_example(snapshot: Snapshot) -> None:
    m = Match(rules=DEFAULT, players=2, dealer=0, totals=[40, 80])
    h = m.start_hand(worked_example_deck())
    assert h.turn == 1  # B, left of dealer A
    play_to_the_worked_example(h, snapshot)
    # the example's position: top 7H; A holds 9S AC; B holds KC 9D QH; A to play
    assert (h.top, h.active_suit, h.turn) == (C("7H"), "H", 0)
    assert sorted(h.hands[0]) == sorted(cs("9S AC"))
    assert sorted(h.hands[1]) == sorted(cs("KC 9D QH"))
    h.apply(Play(seat=0, card=C("9S"), suit="C"))  # A plays 9S and declares clubs
    assert h.active_suit == "C"
    rejects(h, Play(seat=1, card=C("QH")), "match-suit-or-rank", snapshot)
    h.apply(Play(seat=1, card=C("KC")))  # B plays KC
    h.apply(Play(seat=0, card=C("AC")))  # A plays AC and goes out
    assert (h.phase, h.end, h.out) == (Phase.OVER, "out", 0)
    assert h.penalties() == [0, 25]  # 15 + 10 for the 9D and the QH
    result = m.close_hand()
    assert (result.penalties, result.totals) == ((0, 25), (40, 105))
    # B's 105 ends the match; the lowest total wins
    assert m.over and m.winners == (0,)


def test_worked_example_before_the_threshold_deals_again(snapshot: Snapshot) -> None:
    m = Match(rules=DEFAULT, players=2, dealer=0)
    h = m.start_hand(worked_example_deck())
    play_to_the_worked_example(h, snapshot)
    for seat, card, suit in ((0, "9S", "C"), (1, "KC", None), (0, "AC", None)):
        h.apply(Play(seat=seat, card=C(card), suit=suit))
    m.close_hand()
    assert m.totals == [0, 25] and not m.over and m.winners is None
    assert m.dealer == 1  # the deal passes left


def test_worked_example_with_hard_nines(snapshot: Snapshot) -> None:
    h = HandState(NinesRules(hard_nines=True), 2, 0, worked_example_deck())
    play_to_the_worked_example(h, snapshot)
    for seat, card, suit in ((0, "9S", "C"), (1, "KC", None), (0, "AC", None)):
        h.apply(Play(seat=seat, card=C(card), suit=suit))
    assert h.penalties() == [0, 35]


def test_lowest_total_wins_even_if_someone_else_went_out() -> None:
    m = Match(rules=DEFAULT, players=3, dealer=1, totals=[10, 95, 50])
    h = m.start_hand(deck())
    arrange(h, hands={2: "4H", 0: "3C", 1: "5C"}, top="7H", turn=2)
    h.apply(Play(seat=2, card=C("4H")))
    m.close_hand()
    assert m.totals == [13, 100, 50]  # exactly the target ends the match
    assert m.over and m.winners == (0,)


# ---------------------------------------------------------------------------
# A turn


def test_legal_card_matches_suit_or_rank_or_is_a_nine(snapshot: Snapshot) -> None:
    h = position(hands={0: "4H 7C 9D KS 2D", 1: "3S"}, top="7H")
    assert set(h.legal_actions()) == plays(0, "4H 7C 9D")
    assert len(h.legal_actions()) == 6
    assert [h.is_legal_card(c) for c in cs("4H 7C 9D KS 2D")] == [True, True, True, False, False]
    rejects(h, Play(seat=0, card=C("KS")), "match-suit-or-rank", snapshot)
    rejects(h, Play(seat=0, card=C("2D")), "match-suit-or-rank", snapshot)
    h.apply(Play(seat=0, card=C("7C")))
    assert (h.top, h.active_suit, h.turn) == (C("7C"), "C", 1)
    assert h.hands[0] == cs("4H 9D KS 2D")


def test_a_nine_declares_exactly_one_suit(snapshot: Snapshot) -> None:
    h = position(hands={0: "4H 9D KS", 1: "3S"}, top="7H")
    for bad in (None, "X", "SH", "", 5, "s"):
        rejects(h, Play(seat=0, card=C("9D"), suit=bad), "declare", snapshot)  # type: ignore[arg-type]
    rejects(h, Play(seat=0, card=C("4H"), suit="H"), "declare", snapshot)


def test_the_declared_suit_overrides_the_nines_printed_suit(snapshot: Snapshot) -> None:
    h = position(hands={0: "9D KS", 1: "2D 5S 8H 9C"}, top="7H")
    h.apply(Play(seat=0, card=C("9D"), suit="S"))
    assert (h.top, h.active_suit, h.turn) == (C("9D"), "S", 1)
    assert set(h.legal_actions()) == plays(1, "5S 9C")
    rejects(h, Play(seat=1, card=C("2D")), "match-suit-or-rank", snapshot)


def test_a_nine_may_declare_its_own_suit() -> None:
    h = position(hands={0: "9D KS", 1: "2D 5S"}, top="7H")
    h.apply(Play(seat=0, card=C("9D"), suit="D"))
    assert set(h.legal_actions()) == plays(1, "2D")


def test_must_play_when_holding_a_legal_card(snapshot: Snapshot) -> None:
    for hand in ("4H KS", "9S KD", "7C 2S"):
        h = position(hands={0: hand, 1: "3S"}, top="7H")
        rejects(h, Draw(seat=0), "must-play", snapshot)
        rejects(h, Pass(seat=0), "must-play", snapshot)
        assert Draw(seat=0) not in h.legal_actions()


def test_draw_exactly_one_card_then_play_it(snapshot: Snapshot) -> None:
    h = position(hands={0: "KS 2D", 1: "3S"}, top="7H", stock="3H 5H 6H")
    assert h.legal_actions() == [Draw(seat=0)]
    rejects(h, Keep(seat=0), "phase", snapshot)
    h.apply(Draw(seat=0))
    assert (h.phase, h.turn, h.hands[0]) == (Phase.DRAWN, 0, cs("KS 2D 3H"))
    assert h.stock_size == 2 and h.stock[-1] == C("5H")
    assert h.events[-1] == Draw(seat=0, card=C("3H"))
    assert set(h.legal_actions()) == {Play(seat=0, card=C("3H")), Keep(seat=0)}
    rejects(h, Draw(seat=0), "draw-once", snapshot)
    rejects(h, Play(seat=0, card=C("KS")), "play-drawn", snapshot)
    rejects(h, Pass(seat=0), "phase", snapshot)
    h.apply(Play(seat=0, card=C("3H")))
    assert (h.phase, h.turn, h.top, h.hands[0]) == (Phase.TURN, 1, C("3H"), cs("KS 2D"))
    assert h.quiet_turns == 0


def test_draw_then_keep_ends_the_turn(snapshot: Snapshot) -> None:
    h = position(hands={0: "KS 2D", 1: "3S"}, top="7H", stock="9H 5H")
    h.apply(Draw(seat=0))
    # a drawn 9 is legal, but playing it is not compulsory
    assert set(h.legal_actions()) == plays(0, "9H") | {Keep(seat=0)}
    h.apply(Keep(seat=0))
    assert (h.phase, h.turn, h.hands[0], h.top) == (Phase.TURN, 1, cs("KS 2D 9H"), C("7H"))
    assert h.quiet_turns == 1
    rejects(h, Keep(seat=1), "phase", snapshot)


def test_a_drawn_card_that_is_not_legal_must_be_kept(snapshot: Snapshot) -> None:
    h = position(hands={0: "KS 2D", 1: "3S"}, top="7H", stock="2C 5H")
    h.apply(Draw(seat=0))
    assert h.legal_actions() == [Keep(seat=0)]
    rejects(h, Play(seat=0, card=C("2C")), "match-suit-or-rank", snapshot)
    rejects(h, Play(seat=0, card=C("2D")), "play-drawn", snapshot)
    rejects(h, Draw(seat=0), "draw-once", snapshot)


def test_out_of_turn_and_cards_not_held_are_rejected(snapshot: Snapshot) -> None:
    h = position(players=3, hands={0: "4H KS", 1: "5H", 2: "6H"}, top="7H")
    rejects(h, Play(seat=1, card=C("5H")), "turn-order", snapshot)
    rejects(h, Draw(seat=2), "turn-order", snapshot)
    rejects(h, Keep(seat=1), "turn-order", snapshot)
    rejects(h, Play(seat=0, card=C("5H")), "card-held", snapshot)  # seat 1's card
    rejects(h, Play(seat=0, card=C("8H")), "card-held", snapshot)  # in the stock
    rejects(h, Play(seat=0, card=Card.of(4, "H", 1)), "card-held", snapshot)  # no second deck
    rejects(h, Play(seat=0, card=4), "card-held", snapshot)  # type: ignore[arg-type]
    rejects(h, Play(seat=0, card=None), "card-held", snapshot)  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        h.apply("4H")  # type: ignore[arg-type]


def test_empty_stock_is_recycled_keeping_the_top_and_active_suit(snapshot: Snapshot) -> None:
    h = position(hands={0: "KS 2D", 1: "3S"}, top="9C", under="4C 5C 6D", suit="H", stock="")
    assert h.needs_recycle() and h.to_act == 0
    assert h.legal_actions() == [Draw(seat=0)]  # to be applied once the table has recycled
    rejects(h, Draw(seat=0), "recycle", snapshot)
    rejects(h, Pass(seat=0), "pass", snapshot)
    for bad in ("4C 5C", "4C 5C 6D 9C", "4C 5C 9C", "4C 5C KH", "4C 4C 5C"):
        rejects(h, Recycle(stock=tuple(cs(bad))), "recycle", snapshot, seat=None)
    h.apply(Recycle(stock=tuple(cs("6D 4C 5C"))))
    assert h.discards == [C("9C")] and h.active_suit == "H"
    assert h.stock == cs("5C 4C 6D")  # stored bottom first: 6D is on top
    assert not h.needs_recycle()
    rejects(h, Recycle(stock=()), "recycle", snapshot, seat=None)
    h.apply(Draw(seat=0))
    assert h.hands[0][-1] == C("6D") and h.legal_actions() == [Keep(seat=0)]


def test_no_recycle_while_the_player_can_play(snapshot: Snapshot) -> None:
    h = position(hands={0: "KS 4H", 1: "3S"}, top="7H", under="4C 5C", stock="")
    assert not h.needs_recycle()
    rejects(h, Recycle(stock=tuple(cs("4C 5C"))), "recycle", snapshot, seat=None)
    h.apply(Play(seat=0, card=C("4H")))
    assert h.discards == cs("4C 5C 7H 4H")


def test_nothing_to_recycle_means_pass(snapshot: Snapshot) -> None:
    h = position(hands={0: "KS 2D", 1: "3S"}, top="7H", stock="")
    assert not h.needs_recycle()
    assert h.legal_actions() == [Pass(seat=0)]
    rejects(h, Draw(seat=0), "pass", snapshot)
    h.apply(Pass(seat=0))
    assert (h.turn, h.quiet_turns, h.events[-1]) == (1, 1, Pass(seat=0))
    assert h.counts() == [2, 1]
    # passing is only for when there is nothing to draw
    h2 = position(hands={0: "KS 2D", 1: "3S"}, top="7H", stock="5C")
    rejects(h2, Pass(seat=0), "pass", snapshot)
    h3 = position(hands={0: "KS 2D", 1: "3S"}, top="7H", under="5C", stock="")
    rejects(h3, Pass(seat=0), "pass", snapshot)


def test_stall_after_a_full_round_without_a_card_played(snapshot: Snapshot) -> None:
    h = position(players=3, hands={0: "KS QS", 1: "4H JS", 2: "KD QD"}, top="7H", stock="2C 3C 4C 5C 6C")
    h.apply(Draw(seat=0))
    h.apply(Keep(seat=0))
    h.apply(Play(seat=1, card=C("4H")))  # a card played: the count starts again
    assert h.quiet_turns == 0
    for seat in (2, 0):
        h.apply(Draw(seat=seat))
        h.apply(Keep(seat=seat))
    assert h.phase is Phase.TURN and h.quiet_turns == 2  # 3 quiet turns overall, but not in a row
    h.apply(Draw(seat=1))
    h.apply(Keep(seat=1))
    assert (h.phase, h.end, h.out, h.to_act) == (Phase.OVER, "stall", None, None)
    # nobody scores 0 in a stalled hand
    assert h.penalties() == [score("KS QS 2C 4C"), score("JS 5C"), score("KD QD 3C")]
    rejects(h, Draw(seat=2), "hand-over", snapshot)


def test_stall_by_passing() -> None:
    h = position(players=3, hands={0: "KS", 1: "2D", 2: "3C"}, top="7H", stock="")
    for seat in (0, 1, 2):
        assert h.phase is Phase.TURN
        h.apply(Pass(seat=seat))
    assert (h.end, h.penalties()) == ("stall", [10, 2, 3])


def test_going_out_ends_the_hand_at_once(snapshot: Snapshot) -> None:
    h = position(players=3, hands={0: "4H", 1: "5H 9C", 2: "KS QD"}, top="7H")
    h.apply(Play(seat=0, card=C("4H")))
    assert (h.phase, h.end, h.out, h.to_act, h.legal_actions()) == (Phase.OVER, "out", 0, None, [])
    assert h.penalties() == [0, 5 + 15, 20]
    rejects(h, Play(seat=1, card=C("5H")), "hand-over", snapshot)
    rejects(h, Recycle(stock=()), "hand-over", snapshot, seat=None)


def test_going_out_on_a_nine() -> None:
    h = position(hands={0: "9S", 1: "5H"}, top="7H")
    h.apply(Play(seat=0, card=C("9S"), suit="C"))
    assert (h.end, h.out, h.penalties()) == ("out", 0, [0, 5])


def test_penalties_need_a_finished_hand() -> None:
    h = position(hands={0: "9S", 1: "5H"}, top="7H")
    with pytest.raises(UsageError):
        h.penalties()


# ---------------------------------------------------------------------------
# The match


def quick_hand(m: Match, left: Mapping[int, str], out: int | None = None) -> HandResult:
    """Deal the next hand; the first player goes out at once and the others keep ``left``."""
    h = m.start_hand(deck(m.rules.deck_size // 52))
    first = h.next_seat(h.dealer)
    assert out is None or out == first
    arrange(h, hands={first: "4H", **left}, top="7H", turn=first)
    h.apply(Play(seat=first, card=C("4H")))
    return m.close_hand()


def test_totals_accumulate_and_the_deal_passes_left() -> None:
    m = Match(rules=DEFAULT, players=3, dealer=1)
    r1 = quick_hand(m, {0: "KS 2C", 1: "9D"}, out=2)
    assert (r1.number, r1.dealer, r1.out, r1.penalties, r1.totals) == (1, 1, 2, (12, 15, 0), (12, 15, 0))
    assert m.dealer == 2 and m.hand_number == 2
    r2 = quick_hand(m, {1: "AC", 2: "QH 10S"}, out=0)
    assert (r2.dealer, r2.penalties, r2.totals) == (2, (0, 1, 20), (12, 16, 20))
    assert m.dealer == 0
    r3 = quick_hand(m, {0: "3C", 2: "3D"}, out=1)
    assert r3.dealer == 0 and m.totals == [15, 16, 23] and m.dealer == 1
    assert [r.number for r in m.results] == [1, 2, 3] and len(m.history) == 3
    assert not m.over


def test_match_ends_when_a_total_reaches_the_target() -> None:
    m = Match(rules=DEFAULT, players=2, dealer=0, totals=[0, 90])
    quick_hand(m, {0: "9D"}, out=1)
    assert m.totals == [15, 90] and not m.over
    quick_hand(m, {1: "9C"}, out=0)  # 90 + 15 = 105
    assert m.over and m.winners == (0,)
    with pytest.raises(UsageError):
        m.start_hand(deck())


def test_match_target_is_an_option() -> None:
    m = Match(rules=NinesRules(target=150), players=2, dealer=0, totals=[0, 120])
    quick_hand(m, {0: "3C"}, out=1)
    quick_hand(m, {1: "9C"}, out=0)
    assert m.totals == [3, 135] and not m.over
    quick_hand(m, {0: "2C"}, out=1)
    quick_hand(m, {1: "9D"}, out=0)
    assert m.over and m.winners == (0,)


def test_the_lowest_total_wins_when_the_match_ends() -> None:
    m = Match(rules=DEFAULT, players=3, dealer=0, totals=[40, 95, 45])
    quick_hand(m, {2: "KS", 0: "5H 10C"}, out=1)  # seat 1 goes out but stays highest
    assert m.totals == [55, 95, 55] and not m.over
    quick_hand(m, {0: "9D", 1: "8C"}, out=2)
    assert m.totals == [70, 103, 55] and m.over and m.winners == (2,)


def test_tied_lowest_totals_share_the_win() -> None:
    m = Match(rules=DEFAULT, players=3, dealer=2, totals=[60, 98, 50])
    quick_hand(m, {1: "5C", 2: "KD"}, out=0)
    assert m.totals == [60, 103, 60] and m.over and m.winners == (0, 2)
    assert m.playoff_seats is None


def test_match_bookkeeping_errors() -> None:
    m = Match(rules=DEFAULT, players=2, dealer=0)
    with pytest.raises(UsageError):
        m.close_hand()
    m.start_hand(deck())
    with pytest.raises(UsageError):
        m.start_hand(deck())
    with pytest.raises(UsageError):
        m.close_hand()  # not finished
    with pytest.raises(RuleOptionError):
        Match(rules=DEFAULT, players=7, dealer=0)
    with pytest.raises(UsageError):
        Match(rules=DEFAULT, players=3, dealer=3)


def test_first_dealer_cut_lowest_ace_low_suits_do_not_rank() -> None:
    assert cut_lowest({0: C("KS"), 1: C("AH"), 2: C("2D")}) == [1]
    assert cut_lowest({0: C("3S"), 1: C("7C"), 2: C("3H")}) == [0, 2]
    assert cut_lowest({3: C("10S"), 1: C("10D")}) == [1, 3]
    assert cut_lowest({0: C("2C"), 1: C("9S"), 2: C("AC"), 3: C("KC")}) == [2]
    # ties cut again among themselves until one is lowest
    assert cut_lowest({0: C("QD"), 2: C("5S")}) == [2]


# ---------------------------------------------------------------------------
# Variants


def test_fixed_length_match_ignores_the_threshold() -> None:
    m = Match(rules=NinesRules(hands=5), players=2, dealer=0, totals=[150, 0])
    for n in range(1, 6):
        assert not m.over
        first = (m.dealer + 1) % 2
        quick_hand(m, {1 - first: "2C"}, out=first)
        assert len(m.results) == n
    assert m.over
    # hand 1 is won by seat 1, then seats alternate: seat 0 pays 2 + 2 + 2
    assert m.totals == [156, 4] and m.winners == (1,)


def test_playoff_decides_the_winner_without_changing_totals() -> None:
    rules = NinesRules(tie="playoff")
    m = Match(rules=rules, players=4, dealer=3, totals=[25, 95, 20, 60])
    r = quick_hand(m, {1: "10C", 2: "5C", 3: "KD"}, out=0)
    assert r.totals == (25, 105, 25, 70)
    # seats 0 and 2 tie for lowest: the match is not decided yet
    assert not m.over and m.winners is None and m.playoff_seats == (0, 2)
    assert m.dealer == 0  # the next tied seat left of the last dealer (3)
    h = m.start_hand(deck())
    assert h.seats == (0, 2)
    assert h.counts() == [7, 0, 7, 0]  # dealt as a two-player hand
    assert h.stock_size == 52 - 14 - 1
    assert h.turn == 2 and h.next_seat(2) == 0
    arrange(h, hands={2: "4H", 0: "KS QS"}, top="7H", turn=2)
    h.apply(Play(seat=2, card=C("4H")))
    result = m.close_hand()
    assert result.playoff and result.penalties == (20, 0, 0, 0)
    assert result.totals == (25, 105, 25, 70) and m.totals == [25, 105, 25, 70]
    assert m.over and m.winners == (2,) and m.playoff_seats is None


def test_a_stalled_playoff_goes_to_the_lower_penalty_or_is_played_again() -> None:
    rules = NinesRules(tie="playoff", hands=1)
    m = Match(rules=rules, players=3, dealer=0, totals=[0, 20, 0])
    quick_hand(m, {0: "5C", 2: "5D"}, out=1)
    assert m.totals == [5, 20, 5] and m.playoff_seats == (0, 2) and m.dealer == 2
    h = m.start_hand(deck())
    assert h.turn == 0
    arrange(h, hands={0: "KS", 2: "QS"}, top="7H", stock="", turn=0)
    h.apply(Pass(seat=0))
    h.apply(Pass(seat=2))
    r = m.close_hand()
    assert r.end == "stall" and r.penalties == (10, 0, 10)
    assert not m.over and m.playoff_seats == (0, 2) and m.dealer == 0  # tied again: another playoff
    h = m.start_hand(deck())
    assert h.turn == 2
    arrange(h, hands={0: "KS", 2: "3S"}, top="7H", stock="", turn=2)
    h.apply(Pass(seat=2))
    h.apply(Pass(seat=0))
    r = m.close_hand()
    assert r.penalties == (10, 0, 3) and m.totals == [5, 20, 5]
    assert m.over and m.winners == (2,)


def test_share_is_the_default_tie_rule() -> None:
    m = Match(rules=NinesRules(hands=1), players=3, dealer=0)
    quick_hand(m, {0: "5C", 2: "5D"}, out=1)
    assert m.over and m.winners == (1,)
    m = Match(rules=NinesRules(hands=1), players=3, dealer=0, totals=[5, 7, 0])
    quick_hand(m, {0: "5C", 2: "KD"}, out=1)
    assert m.totals == [10, 7, 10] and m.winners == (1,)
    m = Match(rules=NinesRules(hands=1), players=3, dealer=0, totals=[0, 5, 0])
    quick_hand(m, {0: "5C", 2: "5D"}, out=1)
    assert m.totals == [5, 5, 5] and m.winners == (0, 1, 2)


def test_draw_until_playable(snapshot: Snapshot) -> None:
    rules = NinesRules(draw_until_playable=True)
    h = position(rules=rules, hands={0: "KS QS", 1: "3S"}, top="7H", stock="2C 3C 5H 6D")
    h.apply(Draw(seat=0))
    assert h.legal_actions() == [Draw(seat=0)]
    rejects(h, Keep(seat=0), "draw-until-playable", snapshot)
    rejects(h, Pass(seat=0), "pass", snapshot)
    h.apply(Draw(seat=0))
    h.apply(Draw(seat=0))
    assert h.hands[0] == cs("KS QS 2C 3C 5H")
    assert h.legal_actions() == [Play(seat=0, card=C("5H"))]
    rejects(h, Draw(seat=0), "draw-until-playable", snapshot)
    rejects(h, Keep(seat=0), "draw-until-playable", snapshot)
    rejects(h, Play(seat=0, card=C("3C")), "play-drawn", snapshot)
    h.apply(Play(seat=0, card=C("5H")))
    # The forced play of the drawn card played nothing from the hand: it counts
    # towards the stall (see the next tests).
    assert (h.turn, h.top, h.quiet_turns) == (1, C("5H"), 1)
    assert [type(e) for e in h.events] == [Draw, Draw, Draw, Play]


def test_draw_until_playable_recycles_then_passes() -> None:
    rules = NinesRules(draw_until_playable=True)
    h = position(rules=rules, hands={0: "KS", 1: "3S"}, top="7H", under="2C", stock="3C")
    h.apply(Draw(seat=0))
    assert h.needs_recycle()
    h.apply(Recycle(stock=(C("2C"),)))
    h.apply(Draw(seat=0))
    assert h.hands[0] == cs("KS 3C 2C") and not h.needs_recycle()
    assert h.legal_actions() == [Pass(seat=0)]
    h.apply(Pass(seat=0))
    assert (h.turn, h.quiet_turns) == (1, 1)


def test_a_drawn_action_card_that_completes_a_stall_ends_the_hand_and_acts_not() -> None:
    """docs/rules-nines.md, Stalls: under draw-until-playable a drawn card played counts
    as a turn with no card played; when that play completes the round, the hand ends at
    once, and an Ace's forced draws (or a Jack's skip) never happen."""
    rules = NinesRules(draw_until_playable=True, action_cards=True)
    h = position(rules=rules, hands={0: "KS QS", 1: "3S 4S"}, top="7H", stock="AH 2C 3C")
    h.quiet_turns = 1  # seat 1's turn before this one played nothing
    h.apply(Draw(seat=0))
    assert h.legal_actions() == [Play(seat=0, card=C("AH"))]
    h.apply(Play(seat=0, card=C("AH")))
    assert h.phase is Phase.OVER and h.end == "stall"
    assert h.hands[1] == cs("3S 4S") and len(h.stock) == 2  # seat 1 drew nothing


def test_action_jack_skips_the_next_player() -> None:
    for rules, after in ((NinesRules(action_cards=True), 2), (DEFAULT, 1)):
        h = position(players=4, rules=rules, hands={0: "JH 2C", 1: "3C", 2: "4C", 3: "5C"}, top="7H")
        h.apply(Play(seat=0, card=C("JH")))
        assert h.turn == after
    h = position(rules=NinesRules(action_cards=True), hands={0: "JH 2C", 1: "3C"}, top="7H")
    h.apply(Play(seat=0, card=C("JH")))
    assert h.turn == 0


def test_action_queen_reverses_the_direction() -> None:
    rules = NinesRules(action_cards=True)
    h = position(players=4, rules=rules, hands={0: "QH 2C", 1: "3C", 2: "4C", 3: "5H 6H"}, top="7H")
    h.apply(Play(seat=0, card=C("QH")))
    assert (h.turn, h.direction) == (3, -1)
    h.apply(Play(seat=3, card=C("5H")))
    assert h.turn == 2  # still going the other way


def test_action_queen_with_two_players_is_a_skip() -> None:
    h = position(rules=NinesRules(action_cards=True), hands={0: "QH 2C", 1: "3C"}, top="7H")
    h.apply(Play(seat=0, card=C("QH")))
    assert (h.turn, h.direction, h.phase) == (0, 1, Phase.TURN)


def test_action_ace_forces_two_draws_and_the_loss_of_the_turn(snapshot: Snapshot) -> None:
    rules = NinesRules(action_cards=True)
    h = position(players=3, rules=rules, hands={0: "AH 2C", 1: "3H", 2: "4C"}, top="7H", stock="5D 6D 8D")
    h.apply(Play(seat=0, card=C("AH")))
    assert (h.phase, h.turn, h.to_act) == (Phase.FORCED_DRAW, 1, 1)
    assert h.legal_actions() == [Draw(seat=1)]
    rejects(h, Play(seat=1, card=C("3H")), "phase", snapshot)
    rejects(h, Keep(seat=1), "phase", snapshot)
    rejects(h, Draw(seat=2), "turn-order", snapshot)
    h.apply(Draw(seat=1))
    assert h.phase is Phase.FORCED_DRAW
    h.apply(Draw(seat=1))
    assert (h.phase, h.turn) == (Phase.TURN, 2)
    assert h.hands[1] == cs("3H 5D 6D")
    assert h.events[-2:] == [Draw(seat=1, card=C("5D"), forced=True), Draw(seat=1, card=C("6D"), forced=True)]
    assert h.quiet_turns == 0


def test_action_ace_forced_draws_recycle_and_then_run_out() -> None:
    rules = NinesRules(action_cards=True)
    h = position(players=3, rules=rules, hands={0: "AH 2C", 1: "3H", 2: "4C"}, top="7H", stock="")
    h.apply(Play(seat=0, card=C("AH")))
    assert (h.phase, h.to_act) == (Phase.RECYCLE, None) and h.needs_recycle()
    assert h.legal_actions() == []
    h.apply(Recycle(stock=(C("7H"),)))
    assert h.phase is Phase.FORCED_DRAW
    h.apply(Draw(seat=1))
    # nothing left to draw or recycle: the second forced draw is dropped
    assert (h.phase, h.turn, h.hands[1]) == (Phase.TURN, 2, cs("3H 7H"))


@pytest.mark.parametrize("card", ["AH", "JH", "QH"])
def test_going_out_on_an_action_card_voids_the_action(card: str) -> None:
    h = position(players=3, rules=NinesRules(action_cards=True), hands={0: card, 1: "3C", 2: "4C"}, top="7H")
    h.apply(Play(seat=0, card=C(card)))
    assert (h.phase, h.out, h.direction, h.counts()) == (Phase.OVER, 0, 1, [0, 1, 1])


def test_double_nines_deck_and_skip(snapshot: Snapshot) -> None:
    rules = NinesRules(double_nines=True)
    assert rules.deck_size == 104
    h = position(players=4, rules=rules, hands={0: "9S 9S 4C", 1: "5C", 2: "6C", 3: "7C"}, top="KH")
    first, second = h.hands[0][0], h.hands[0][1]
    assert first.copy == 0 and second.copy == 1
    doubles = {PlayNines(seat=0, cards=(first, second), suit=s) for s in "SHDC"}
    assert (
        set(h.legal_actions())
        == plays(0, "9S") | {Play(seat=0, card=second, suit=s) for s in "SHDC"} | doubles
    )
    rejects(h, PlayNines(seat=0, cards=(first, first), suit="D"), "card-held", snapshot)
    rejects(h, PlayNines(seat=0, cards=(first, C("4C")), suit="D"), "double-nines", snapshot)
    rejects(h, PlayNines(seat=0, cards=(first,), suit="D"), "double-nines", snapshot)  # type: ignore[arg-type]
    rejects(h, PlayNines(seat=0, cards=(first, C("9H")), suit="D"), "card-held", snapshot)
    rejects(h, PlayNines(seat=0, cards=(first, second), suit="X"), "declare", snapshot)
    h.apply(PlayNines(seat=0, cards=(second, first), suit="D"))
    assert (h.active_suit, h.top, h.turn, h.phase) == ("D", first, 2, Phase.TURN)
    assert h.discards[-2:] == [second, first] and h.hands[0] == cs("4C")
    assert h.quiet_turns == 0


def test_double_nines_with_two_players_come_back() -> None:
    h = position(rules=NinesRules(double_nines=True), hands={0: "9S 9H 4C", 1: "5C"}, top="KH")
    h.apply(PlayNines(seat=0, cards=(C("9S"), C("9H")), suit="C"))
    assert h.turn == 0


def test_two_nines_need_the_variant(snapshot: Snapshot) -> None:
    h = position(hands={0: "9S 9H 4C", 1: "5C"}, top="KH")
    assert not any(isinstance(a, PlayNines) for a in h.legal_actions())
    rejects(h, PlayNines(seat=0, cards=(C("9S"), C("9H")), suit="C"), "double-nines", snapshot)


def test_double_nines_going_out() -> None:
    h = position(
        players=3, rules=NinesRules(double_nines=True), hands={0: "9S 9H", 1: "5C", 2: "6C"}, top="KH"
    )
    h.apply(PlayNines(seat=0, cards=(C("9S"), C("9H")), suit="C"))
    assert (h.end, h.out) == ("out", 0)


def test_stacking_nines_cancel_or_accept(snapshot: Snapshot) -> None:
    rules = NinesRules(double_nines=True, stacking_nines=True)
    hands = {0: "9S 9H 4C", 1: "9D 5C", 2: "6C 7C"}
    h = position(players=3, rules=rules, hands=hands, top="KH")
    h.apply(PlayNines(seat=0, cards=(C("9S"), C("9H")), suit="H"))
    assert (h.phase, h.turn, h.to_act) == (Phase.STACK, 1, 1)
    assert set(h.legal_actions()) == plays(1, "9D") | {AcceptSkip(seat=1)}
    rejects(h, Play(seat=1, card=C("5C")), "stacking-nines", snapshot)
    rejects(h, Draw(seat=1), "phase", snapshot)
    rejects(h, AcceptSkip(seat=2), "turn-order", snapshot)
    h.apply(Play(seat=1, card=C("9D"), suit="C"))  # the skip is cancelled
    assert (h.phase, h.turn, h.active_suit, h.hands[1]) == (Phase.TURN, 2, "C", cs("5C"))
    rejects(h, AcceptSkip(seat=2), "phase", snapshot)

    h = position(players=3, rules=rules, hands=hands, top="KH")
    h.apply(PlayNines(seat=0, cards=(C("9S"), C("9H")), suit="H"))
    h.apply(AcceptSkip(seat=1))
    assert (h.phase, h.turn, h.active_suit, h.hands[1]) == (Phase.TURN, 2, "H", cs("9D 5C"))


def test_stacking_nines_needs_double_nines() -> None:
    with pytest.raises(RuleOptionError):
        NinesRules(stacking_nines=True)


def test_hard_nines_cost_25() -> None:
    for rules, cost in ((DEFAULT, 15), (NinesRules(hard_nines=True), 25)):
        h = position(rules=rules, hands={0: "4H", 1: "9C 9D KS"}, top="7H")
        h.apply(Play(seat=0, card=C("4H")))
        assert h.penalties() == [0, 2 * cost + 10]


def test_no_nine_to_go_out(snapshot: Snapshot) -> None:
    rules = NinesRules(no_nine_out=True)
    h = position(rules=rules, hands={0: "9S", 1: "5C"}, top="7H", stock="KC 2C")
    assert h.legal_actions() == [Draw(seat=0)]
    rejects(h, Play(seat=0, card=C("9S"), suit="H"), "no-nine-out", snapshot)
    h.apply(Draw(seat=0))
    assert h.legal_actions() == [Keep(seat=0)]
    h = position(rules=rules, hands={0: "9S 4H", 1: "5C"}, top="7H")
    assert set(h.legal_actions()) == plays(0, "9S 4H")  # the 9 is not the last card yet
    h = position(rules=rules, hands={0: "9S", 1: "5C"}, top="7H", stock="")
    assert h.legal_actions() == [Pass(seat=0)]
    h.apply(Pass(seat=0))


def test_no_nine_to_go_out_with_double_nines(snapshot: Snapshot) -> None:
    rules = NinesRules(no_nine_out=True, double_nines=True)
    h = position(rules=rules, hands={0: "9S 9H", 1: "5C"}, top="7H")
    assert set(h.legal_actions()) == plays(0, "9S 9H")
    rejects(h, PlayNines(seat=0, cards=(C("9S"), C("9H")), suit="C"), "no-nine-out", snapshot)
    h.apply(Play(seat=0, card=C("9S"), suit="C"))
    h.apply(Play(seat=1, card=C("5C")))  # (seat 1 goes out)
    assert h.out == 1


def test_rule_options_parse_and_round_trip() -> None:
    rules = NinesRules.parse(
        ["hard-nines", "target=150", "tie=PLAYOFF", "double_nines=yes", "stacking-nines"]
    )
    assert (rules.hard_nines, rules.target, rules.tie, rules.double_nines, rules.stacking_nines) == (
        True,
        150,
        "playoff",
        True,
        True,
    )
    assert NinesRules.from_dict(rules.to_dict()) == rules
    assert NinesRules.parse(["hands=5"]).hands == 5
    assert NinesRules.parse(["hands=none"]).hands is None
    assert NinesRules.parse(["action-cards=no"]) == DEFAULT
    for bad in (
        ["nope"],
        ["target"],
        ["target=x"],
        ["hard-nines=maybe"],
        ["tie"],
        ["tie=coin"],
        ["target=0"],
    ):
        with pytest.raises(RuleOptionError):
            NinesRules.parse(bad)
    for data in ({"nope": 1}, {"target": "x"}, {"hands": 0}, {"hard_nines": "yes"}, {"target": True}):
        with pytest.raises(RuleOptionError):
            NinesRules.from_dict(data)


@given(st.integers(min_value=-(2**64), max_value=2**64), st.sampled_from(["target", "hands"]))
def test_target_and_hands_are_bounded_so_a_match_ends(value: int, option: str) -> None:
    """A target up to 1000 and up to 100 hands are played; anything else is refused, from the
    command line as from a host's terms (a target of a billion points would never end)."""
    top = {"target": MAX_TARGET, "hands": MAX_HANDS}[option]
    if 1 <= value <= top:
        assert getattr(NinesRules.from_dict({option: value}), option) == value
        assert getattr(NinesRules.parse([f"{option}={value}"]), option) == value
    else:
        for build, given_as in (
            (NinesRules.from_dict, {option: value}),
            (NinesRules.parse, [f"{option}={value}"]),
        ):
            with pytest.raises(RuleOptionError) as caught:
                build(given_as)  # type: ignore[operator]
            assert caught.value.key == "rule_err_range"
            assert caught.value.values == {"name": option, "lo": 1, "hi": top, "value": value}


# ---------------------------------------------------------------------------
# Replicas with hidden cards


def hidden_deck(
    full: Sequence[Card], rules: NinesRules, players: int, dealer: int, seat: int
) -> list[Card | None]:
    """``full`` as ``seat`` sees it before play: its own cards and the up card."""
    dealt = HandState(rules, players, dealer, full)
    visible = set(dealt.hands[seat]) | {dealt.up_card}
    return [c if c in visible else None for c in full]


def as_seen_by(action: Action, seat: int, full: HandState) -> Action:
    """What ``seat``'s replica is told of ``action`` (just applied to ``full``)."""
    if isinstance(action, Draw):
        drawn = full.events[-1]
        assert isinstance(drawn, Draw)
        return Draw(seat=action.seat, card=drawn.card if action.seat == seat else None)
    if isinstance(action, Recycle):
        return Recycle(stock=tuple(None for _ in action.stock))
    return action


def public(h: HandState) -> tuple[object, ...]:
    return (
        h.counts(),
        h.top,
        h.active_suit,
        h.stock_size,
        h.turn,
        h.to_act,
        h.phase,
        tuple(h.discards),
        h.direction,
        h.quiet_turns,
        h.end,
        h.out,
    )


LOCKSTEP_RULES = [
    DEFAULT,
    NinesRules(action_cards=True, no_nine_out=True),
    NinesRules(draw_until_playable=True, action_cards=True),
    NinesRules(double_nines=True, stacking_nines=True, hard_nines=True, action_cards=True),
    NinesRules(double_nines=True, no_nine_out=True, draw_until_playable=True),
]


@pytest.mark.parametrize("rules", LOCKSTEP_RULES)
@pytest.mark.parametrize("players", [2, 4, 6])
def test_hidden_information_replicas_follow_the_full_game(rules: NinesRules, players: int) -> None:
    for seed in range(4):
        rng = random.Random(f"{rules}-{players}-{seed}")
        full_deck = list(deck(rules.deck_size // 52))
        rng.shuffle(full_deck)
        dealer = rng.randrange(players)
        full = HandState(rules, players, dealer, full_deck)
        replicas = {
            s: HandState(rules, players, dealer, hidden_deck(full_deck, rules, players, dealer, s))
            for s in range(players)
        }
        while full.phase is not Phase.OVER:
            if full.needs_recycle():
                pool = full.discards[:-1]
                rng.shuffle(pool)
                action: Action = Recycle(stock=tuple(pool))
            else:
                legal = full.legal_actions()
                doubles = [a for a in legal if isinstance(a, PlayNines)]  # rare: favour them
                action = rng.choice(doubles if doubles and rng.random() < 0.7 else legal)
            full.apply(action)
            for s, r in replicas.items():
                r.apply(as_seen_by(action, s, full))
                assert public(r) == public(full)
                assert r.hands[s] == full.hands[s]  # a seat sees all of its own cards
                assert all(c is None for o in range(players) if o != s for c in r.hands[o])
                assert all(c is None for c in r.stock)  # the stock, recycled or not, is secret
        for s, r in replicas.items():
            for o in range(players):
                if o != s:
                    r.reveal(o, full.hands[o])
            assert r.hands == full.hands
            assert r.penalties() == full.penalties()


def replica_of(h: HandState, seat: int) -> HandState:
    """``seat``'s replica of a position: other seats' cards and the stock hidden."""
    r = copy.deepcopy(h)
    for o in range(r.players):
        if o != seat:
            r.hands[o] = [None] * len(r.hands[o])
    r.stock = [None] * len(r.stock)
    return r


def test_replica_rejects_publicly_checkable_cheats(snapshot: Snapshot) -> None:
    full = position(players=3, hands={0: "5H 8H KS", 1: "JH 2S 4S", 2: "6C"}, top="7H", turn=1)
    mine = replica_of(full, 0)
    assert mine.hands[1] == [None] * 3 and mine.turn == 1
    rejects(mine, Play(seat=1, card=C("KC")), "match-suit-or-rank", snapshot)
    rejects(mine, Play(seat=2, card=C("10H")), "turn-order", snapshot)
    rejects(mine, Play(seat=1, card=C("5H")), "card-held", snapshot)  # seat 0 holds the 5H
    rejects(mine, Play(seat=1, card=C("7H")), "card-held", snapshot)  # the up card itself
    rejects(mine, Play(seat=1, card=C("9H"), suit="X"), "declare", snapshot)
    rejects(mine, PlayNines(seat=1, cards=(C("9H"), C("9S")), suit="S"), "double-nines", snapshot)
    rejects(mine, Keep(seat=1), "phase", snapshot)
    rejects(mine, AcceptSkip(seat=1), "phase", snapshot)
    # a legal card that the replica sees nowhere is accepted; only the full game knows better
    rejects(full, Play(seat=1, card=C("10H")), "card-held", snapshot)
    mine.apply(Play(seat=1, card=C("10H")))
    assert mine.hands[1] == [None] * 2 and mine.top == C("10H") and mine.turn == 2


def test_replica_rejects_another_card_than_the_drawn_one_when_it_can_tell(snapshot: Snapshot) -> None:
    full = position(players=3, hands={0: "5H 8H", 1: "KS QS", 2: "6C"}, top="7H", stock="2D 3D", turn=1)
    mine = replica_of(full, 0)
    mine.apply(Draw(seat=1))
    assert mine.hands[1] == [None] * 3 and mine.phase is Phase.DRAWN
    rejects(mine, Play(seat=1, card=C("5H")), "card-held", snapshot)  # seat 0 holds it
    rejects(mine, Play(seat=1, card=C("7H")), "card-held", snapshot)  # on the discard pile
    # the drawer's own replica sees the drawn card and refuses any other
    theirs = replica_of(full, 1)
    theirs.apply(Draw(seat=1, card=C("2D")))
    assert theirs.hands[1] == cs("KS QS 2D")
    rejects(theirs, Play(seat=1, card=C("KS")), "play-drawn", snapshot)
    assert theirs.legal_actions() == [Keep(seat=1)]


def test_own_replica_checks_its_own_draws(snapshot: Snapshot) -> None:
    full = position(players=3, hands={0: "KS 8C", 1: "2C", 2: "3C"}, top="7H", stock="4H 5D")
    mine = replica_of(full, 0)
    assert mine.legal_actions() == [Draw(seat=0)]
    rejects(mine, Draw(seat=0, card=C("7H")), "draw-top", snapshot)  # the top discard
    rejects(mine, Draw(seat=0, card=C("KS")), "draw-top", snapshot)  # already in its hand
    rejects(mine, Draw(seat=0, card=Card.of(4, "H", 1)), "card-held", snapshot)  # not in one deck
    rejects(full, Draw(seat=0, card=C("5D")), "draw-top", snapshot)  # the full game knows the top
    mine.apply(Draw(seat=0, card=C("4H")))
    rejects(mine, Play(seat=0, card=C("8C")), "play-drawn", snapshot)
    mine.apply(Play(seat=0, card=C("4H")))
    # holding a legal card, its own replica refuses its draw
    other = position(players=3, hands={0: "KS 8H", 1: "2C", 2: "3C"}, top="7H")
    rejects(replica_of(other, 0), Draw(seat=0, card=C("4H")), "must-play", snapshot)


def test_replica_checks_the_reveal(snapshot: Snapshot) -> None:
    full = position(players=3, hands={0: "4H KS", 1: "2H 3H 8H", 2: "5H"}, top="7H")
    mine = replica_of(full, 0)
    for h in (full, mine):
        h.apply(Play(seat=0, card=C("4H")))
        h.apply(Play(seat=1, card=C("2H")))
        h.apply(Play(seat=2, card=C("5H")))
        assert (h.end, h.out) == ("out", 2)
    assert mine.hands[1] == [None, None]
    with pytest.raises(UsageError):
        mine.penalties()
    before = snapshot(mine)
    for bad in (cs("3H"), cs("3H KS"), cs("3H 4H"), [C("3H"), C("3H")], [C("3H"), 5], cs("3H 2H")):
        with pytest.raises(IllegalAction) as info:
            mine.reveal(1, bad)  # type: ignore[arg-type]
        assert (info.value.seat, info.value.rule) == (1, "reveal")
        assert snapshot(mine) == before
    with pytest.raises(IllegalAction):
        mine.reveal(0, cs("KD"))  # seat 0's own card is known: it must be shown
    mine.reveal(1, cs("8H 3H"))
    mine.reveal(2, [])
    assert mine.penalties() == full.penalties() == [10, 11, 0]


def test_replica_rejects_more_hidden_cards_than_a_seat_holds(snapshot: Snapshot) -> None:
    rules = NinesRules(double_nines=True)
    full = position(rules=rules, players=2, hands={0: "KS QS", 1: "9H"}, top="7D", turn=1)
    mine = replica_of(full, 0)
    rejects(mine, PlayNines(seat=1, cards=(C("9H"), C("9S")), suit="S"), "card-held", snapshot)


# ---------------------------------------------------------------------------
# What a seat may see


def test_seat_view_hides_other_seats_cards_and_draws() -> None:
    h = position(hands={0: "KS 2D", 1: "3S 4S"}, top="7H", under="8C", stock="5C 6C")
    h.apply(Draw(seat=0))
    h.apply(Keep(seat=0))
    mine, theirs = SeatView(h, 0, (3, 4)), SeatView(h, 1)
    assert mine.my_cards == tuple(cs("KS 2D 5C")) and theirs.my_cards == tuple(cs("3S 4S"))
    assert mine.events == (Draw(seat=0, card=C("5C")),)
    assert theirs.events == (Draw(seat=0, card=None),)
    assert (theirs.count(0), theirs.count(1), theirs.stock_size) == (3, 2, 1)
    assert (theirs.top, theirs.active_suit, theirs.phase, theirs.players) == (C("7H"), "H", Phase.TURN, 2)
    assert theirs.discards == tuple(cs("8C 7H")) and mine.totals == (3, 4)
    assert theirs.next_seat(1) == 0 and theirs.seats == (0, 1)
    h2 = position(hands={0: "KS 2D", 1: "3S"}, top="7H", under="8C 4C", stock="")
    h2.apply(Recycle(stock=tuple(cs("4C 8C"))))
    assert SeatView(h2, 1).events == (Recycle(stock=(None, None)),)


def test_draw_until_playable_cannot_pass_the_same_cards_round_the_table_for_ever() -> None:
    """With draw-until-playable a drawn legal card must be played; a round in which every
    turn only plays the card just drawn is a stall, or a few 9s could circulate for ever
    (drawn, played, recycled). This match looped without end before the rule."""
    import random

    from p2pcards.bots import make_bot
    from p2pcards.games.base import MatchLoop, RandomShuffler
    from p2pcards.games.nines.rules import GAME

    rules = NinesRules.parse(["draw-until-playable", "hands=2"])
    bots = [make_bot("heuristic") for _ in range(6)]
    rng = random.Random(6)
    ends: list[str | None] = []

    class Ends:
        def cut(self, *a: object) -> None: ...
        def hand_start(self, hand: object) -> None: ...
        def move(self, action: object) -> None: ...
        def hand_end(self, hand: HandState, result: object, match: object) -> None:
            ends.append(hand.end)

        def match_end(self, match: object) -> None: ...

    loop = MatchLoop(
        GAME,
        rules,
        6,
        RandomShuffler(1, random.Random(5)),
        lambda s, v, legal: bots[s].choose(v, legal, rng),
        Ends(),
    )
    match = loop.run()
    assert match.over and len(ends) == 2
    assert "stall" in ends  # the circulating hand ended as a stall


def test_under_draw_until_playable_playing_the_drawn_card_counts_towards_the_stall() -> None:
    h = position(
        hands={0: "KS 2D", 1: "4C 6S"},
        top="7H",
        stock="2C 3H 5H 6H",
        rules=NinesRules(draw_until_playable=True),
    )
    h.apply(Draw(seat=0))  # 2C: not playable, so seat 0 draws on
    h.apply(Draw(seat=0))  # 3H: playable, and under this option it must be played
    assert h.legal_actions() == [Play(seat=0, card=C("3H"))]
    h.apply(Play(seat=0, card=C("3H")))
    assert (h.turn, h.hands[0]) == (1, cs("KS 2D 2C"))
    assert h.quiet_turns == 1  # nothing left the hand it held before the turn
    h.apply(Draw(seat=1))  # 5H: playable at once
    h.apply(Play(seat=1, card=C("5H")))
    assert h.phase is Phase.OVER and h.end == "stall"  # a full round of such turns
