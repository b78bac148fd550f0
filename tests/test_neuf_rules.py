"""Every rule and rule option of Le Neuf (docs/rules-neuf.md), one position at a time.

Positions come from a stacked deck dealt by the real engine (the deal, the
exchange, whole scripted hands) or from :func:`position`, which puts chosen
cards in the players' hands in the middle of a hand (a rule of play).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import pytest

from p2pcards.cards import Card, deck, parse_card, parse_cards
from p2pcards.errors import IllegalAction, RuleOptionError, UsageError
from p2pcards.games.neuf.rules import (
    POWER,
    TRUMPS_HEARTS_FIRST,
    TRUMPS_SPADES_FIRST,
    Action,
    Decline,
    Exchange,
    ExchangeRecord,
    HandState,
    Look,
    Match,
    NeufRules,
    NeufView,
    Phase,
    PlayCard,
    Revoke,
    Trick,
    cut_highest,
    dealer_from_cut,
    replay_hand,
    trick_winner,
)

DEFAULT = NeufRules()
BLIND = NeufRules(exchange="blind")


def C(text: str) -> Card:
    return parse_card(text)


def cs(text: str) -> list[Card]:
    return list(parse_cards(text.split()))


def _freeze(value: object) -> object:
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    return value


def snapshot(h: HandState) -> dict[str, object]:
    """Every slot of a hand, private ones included, as immutable values."""
    return {name: _freeze(getattr(h, name)) for name in HandState.__slots__}


def rejects(h: HandState, action: Action, rule: str) -> IllegalAction:
    """``action`` raises IllegalAction naming ``rule`` and its seat, and changes nothing."""
    before = snapshot(h)
    with pytest.raises(IllegalAction) as info:
        h.apply(action)
    assert info.value.rule == rule, info.value
    assert info.value.seat == action.seat
    assert snapshot(h) == before
    return info.value


# ---------------------------------------------------------------------------
# Building positions


def stacked_deck(dealer: int, hands: Mapping[int, str], dummy: str = "") -> list[Card]:
    """A deck, top card first, that deals ``hands[seat]`` and ``dummy`` (in deal order).

    Short or missing hands are filled with the cards named nowhere, lowest first.
    """
    order: list[int | str] = [(dealer + 1) % 3, (dealer + 2) % 3, dealer, "dummy"]
    named: dict[int | str, list[Card]] = {s: cs(t) for s, t in hands.items()}
    named["dummy"] = cs(dummy)
    used = [c for h in named.values() for c in h]
    assert len(set(used)) == len(used), "a card is named twice"
    filler = iter(c for c in deck() if c not in used)
    full = {k: named.get(k, []) + [next(filler) for _ in range(13 - len(named.get(k, [])))] for k in order}
    return [full[k][i] for i in range(13) for k in order]


def position(
    hands: Mapping[int, str],
    *,
    leader: int,
    current: str = "",
    rules: NeufRules = DEFAULT,
    number: int = 1,
    dealer: int = 0,
) -> HandState:
    """A hand in play: each seat holds exactly ``hands[seat]``; ``leader`` has led the
    cards of ``current`` (played clockwise from the leader) to the trick in progress."""
    h = HandState(rules, dealer, deck(), number=number)
    for s in range(3):
        h.hands[s] = cs(hands.get(s, ""))
    h.phase = Phase.PLAY
    h.leader = leader
    h.current = [((leader + i) % 3, c) for i, c in enumerate(cs(current))]
    h.turn = (leader + len(h.current)) % 3
    return h


def plays_of(text: str) -> list[Action]:
    """``"1 AS, 2 2D"``: seat 1 plays the AS, then seat 2 the 2D."""
    out: list[Action] = []
    for item in text.split(","):
        seat, card = item.split()
        out.append(PlayCard(seat=int(seat), card=C(card)))
    return out


def decline_all(h: HandState) -> None:
    for _ in range(3):
        h.apply(Decline(seat=h.turn))


SUIT_PLAN = "SSSSHHHDDDCCC"
"""Scripted hands: the suit of each trick; every seat holds 4 spades and 3 of each other suit."""


def scripted_hand(dealer: int, winners: Sequence[int]) -> tuple[list[Card], list[Action]]:
    """A deck and the actions of a hand whose 13 tricks are won by ``winners`` in order.

    Every trick is played in one suit by all three seats (so following suit is
    always possible and required); the trick's winner holds its highest card.
    """
    assert len(winners) == 13
    by_suit = {s: sorted((c for c in deck() if c.suit == s), key=POWER.__getitem__) for s in "SHDC"}
    used = dict.fromkeys("SHDC", 0)
    hands: dict[int, list[Card]] = {0: [], 1: [], 2: []}
    tricks: list[dict[int, Card]] = []
    for suit, winner in zip(SUIT_PLAN, winners, strict=True):
        low, mid, high = by_suit[suit][used[suit] : used[suit] + 3]
        used[suit] += 3
        losers = [s for s in range(3) if s != winner]
        trick = {winner: high, losers[0]: low, losers[1]: mid}
        tricks.append(trick)
        for s, c in trick.items():
            hands[s].append(c)
    dummy = [c for s in "SHDC" for c in by_suit[s][used[s] :]]
    named = {s: " ".join(map(str, h)) for s, h in hands.items()}
    full = stacked_deck(dealer, named, " ".join(map(str, dummy)))
    actions: list[Action] = [Decline(seat=(dealer + k) % 3) for k in range(3)]
    leader = (dealer + 1) % 3
    for trick, winner in zip(tricks, winners, strict=True):
        actions += [PlayCard(seat=(leader + k) % 3, card=trick[(leader + k) % 3]) for k in range(3)]
        leader = winner
    return full, actions


def winners_for(won: Sequence[int]) -> list[int]:
    return [s for s in range(3) for _ in range(won[s])]


def play_scripted(m: Match, won: Sequence[int]) -> HandState:
    full, actions = scripted_hand(m.dealer, winners_for(won))
    h = m.start_hand(full)
    for a in actions:
        h.apply(a)
    assert h.phase is Phase.OVER and h.won == list(won)
    return h


# ---------------------------------------------------------------------------
# Rule options


def test_default_options() -> None:
    assert DEFAULT.trumps == ("S", "H", "C", "D", None) == TRUMPS_SPADES_FIRST
    assert (DEFAULT.exchange, DEFAULT.start) == ("open", 9)
    assert DEFAULT.to_dict() == {"trumps": ["S", "H", "C", "D", None], "exchange": "open", "start": 9}


def test_trump_rotation_by_hand() -> None:
    assert [DEFAULT.trump_of(n) for n in range(1, 12)] == ["S", "H", "C", "D", None] * 2 + ["S"]
    other = NeufRules(trumps=TRUMPS_HEARTS_FIRST)
    assert [other.trump_of(n) for n in range(1, 7)] == ["H", "D", "S", "C", None, "H"]
    assert NeufRules(trumps=("C",)).trump_of(4) == "C"


def test_options_round_trip_through_a_record() -> None:
    for rules in (
        DEFAULT,
        BLIND,
        NeufRules(trumps=TRUMPS_HEARTS_FIRST, start=5),
        NeufRules(trumps=(None, "D")),
    ):
        assert NeufRules.from_dict(rules.to_dict()) == rules


@pytest.mark.parametrize(
    "data",
    [
        {"start": True},
        {"start": "9"},
        {"start": 0},
        {"start": 9.0},
        {"exchange": "peek"},
        {"exchange": ["open"]},
        {"exchange": None},
        {"trumps": []},
        {"trumps": ["S", "X"]},
        {"trumps": ["S", "S"]},
        {"trumps": ["s"]},
        {"trumps": [True]},
        {"trumps": "SHCD"},
        {"trumps": ["S", "H", "C", "D", None, "S"]},
        {"trumps": ["SH"]},
        {"hands": 5},
    ],
)
def test_options_are_type_checked(data: dict[str, object]) -> None:
    with pytest.raises(RuleOptionError):
        NeufRules.from_dict(data)


def test_options_parse_from_words() -> None:
    assert NeufRules.parse([]) == DEFAULT
    assert NeufRules.parse(["exchange=blind"]) == BLIND == NeufRules.parse(["blind-exchange"])
    assert NeufRules.parse(["start=5"]).start == 5
    assert NeufRules.parse(["trumps=hearts-first"]).trumps == TRUMPS_HEARTS_FIRST
    assert NeufRules.parse(["trumps=HDSCN"]).trumps == TRUMPS_HEARTS_FIRST
    assert NeufRules.parse(["trumps=h,d,s,c,NT"]).trumps == TRUMPS_HEARTS_FIRST
    assert NeufRules.parse(["trumps=♠,none"]).trumps == ("S", None)
    assert NeufRules.parse(["Trumps=Spades-First", "Exchange=OPEN"]) == DEFAULT
    for bad in (
        ["start=x"],
        ["start"],
        ["trumps=SX"],
        ["trumps=SS"],
        ["exchange=peek"],
        ["hands=5"],
        ["trumps="],
    ):
        with pytest.raises(RuleOptionError):
            NeufRules.parse(bad)


def test_start_is_bounded_so_a_match_ends() -> None:
    """Totals drop by one a hand in all: a start of 30 is at most 88 hands; 31 and more, as a
    start of a billion from a host's terms, are refused."""
    assert NeufRules.parse(["start=30"]).start == 30 == NeufRules.from_dict({"start": 30}).start
    for value in (0, 31, 10**9):
        with pytest.raises(RuleOptionError) as caught:
            NeufRules.from_dict({"start": value})
        assert (caught.value.key, caught.value.values["value"]) == ("rule_err_range", value)


# ---------------------------------------------------------------------------
# The cut for the first dealer


def test_cut_highest_card_deals_ace_high_suits_do_not_rank() -> None:
    assert cut_highest({0: C("KS"), 1: C("AC"), 2: C("2H")}) == [1]
    assert cut_highest({0: C("QS"), 1: C("QH"), 2: C("2H")}) == [0, 1]
    assert dealer_from_cut([{0: C("5H"), 1: C("QS"), 2: C("2D")}]) == 1


def test_tied_cutters_cut_again_among_themselves() -> None:
    rounds = [{0: C("QS"), 1: C("3C"), 2: C("QH")}, {0: C("4D"), 2: C("JC")}]
    assert dealer_from_cut(rounds) == 2
    bad_rounds = [
        [],
        [{0: C("QS"), 1: C("3C")}],  # a seat missing
        [{0: C("QS"), 1: C("3C"), 2: C("QH")}, {0: C("4D"), 1: C("5D"), 2: C("JC")}],  # seat 1 was not tied
        [{0: C("QS"), 1: C("3C"), 2: C("QH")}],  # still tied
        [{0: C("AS"), 1: C("3C"), 2: C("QH")}, {0: C("4D"), 2: C("JC")}],  # decided in round 1
        [{0: C("AS"), 1: C("AS"), 2: C("QH")}],  # one card twice
    ]
    for rounds in bad_rounds:
        with pytest.raises(IllegalAction) as info:
            dealer_from_cut(rounds)
        assert (info.value.seat, info.value.rule) == (None, "cut")


# ---------------------------------------------------------------------------
# The deal


@pytest.mark.parametrize("dealer", [0, 1, 2])
def test_deal_one_at_a_time_from_the_dealers_left_dummy_last(dealer: int) -> None:
    d = deck()
    h = HandState(DEFAULT, dealer, d)
    left, third = (dealer + 1) % 3, (dealer + 2) % 3
    assert h.hands[left] == list(d[0::4])
    assert h.hands[third] == list(d[1::4])
    assert h.hands[dealer] == list(d[2::4])
    assert h.dummy == list(d[3::4]) == list(h.dummy_dealt)
    assert h.dealt == h.hands and h.counts() == [13, 13, 13]
    assert sorted(c for hand in h.hands for c in hand) + sorted(h.dummy) != []
    assert sorted([c for hand in h.hands for c in hand] + h.dummy) == list(d)
    assert (h.phase, h.turn, h.to_act, h.leader, h.trump) == (Phase.EXCHANGE, dealer, dealer, left, "S")


def test_deal_rejects_bad_input() -> None:
    with pytest.raises(UsageError):
        HandState(DEFAULT, 0, deck()[:51])
    with pytest.raises(UsageError):
        HandState(DEFAULT, 0, [*deck()[:51], deck()[0]])  # a card twice
    with pytest.raises(UsageError):
        HandState(DEFAULT, 0, [*deck()[:51], Card.of(1, "S", 1)])  # a card of a second deck
    with pytest.raises(UsageError):
        HandState(DEFAULT, 0, [*deck()[:51], 51])  # type: ignore[list-item]
    for dealer in (3, -1, True, "0"):
        with pytest.raises(UsageError):
            HandState(DEFAULT, dealer, deck())  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        HandState(DEFAULT, 0, deck(), number=0)
    with pytest.raises(UsageError):
        HandState(object(), 0, deck())  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        Match(rules=DEFAULT, dealer=3)


# ---------------------------------------------------------------------------
# The exchange


def test_exchange_order_dealer_then_left_then_third() -> None:
    h = HandState(DEFAULT, 1, deck())
    assert h.legal_actions() == [Look(seat=1), Exchange(seat=1), Decline(seat=1)]
    rejects(h, Decline(seat=2), "turn-order")
    rejects(h, Look(seat=0), "turn-order")
    h.apply(Decline(seat=1))
    assert h.turn == 2
    h.apply(Decline(seat=2))
    assert h.turn == 0 and h.phase is Phase.EXCHANGE
    h.apply(Decline(seat=0))
    assert (h.phase, h.turn, h.leader) == (Phase.PLAY, 2, 2)  # left of dealer 1 leads


def test_look_is_optional_once_and_then_exchange_or_decline() -> None:
    h = HandState(DEFAULT, 0, deck())
    h.apply(Look(seat=0))
    assert h.looked and h.turn == 0
    assert h.legal_actions() == [Exchange(seat=0), Decline(seat=0)]
    rejects(h, Look(seat=0), "look-once")
    h.apply(Decline(seat=0))
    assert not h.looked and h.legal_actions()[0] == Look(seat=1)
    h.apply(Exchange(seat=1))  # taking the dummy unseen is allowed
    h.apply(Decline(seat=2))
    assert h.exchanges == [
        ExchangeRecord(0, True, False),
        ExchangeRecord(1, False, True),
        ExchangeRecord(2, False, False),
    ]


def test_exchange_swaps_whole_hands_with_what_lies_in_the_dummys_place() -> None:
    d = deck()
    h = HandState(DEFAULT, 0, d)
    dealer_hand, dummy = list(h.hands[0]), list(h.dummy)
    h.apply(Exchange(seat=0))
    assert h.hands[0] == dummy and h.dummy == dealer_hand
    h.apply(Look(seat=1))
    seat1_hand = list(h.hands[1])
    h.apply(Exchange(seat=1))  # seat 1 takes the dealer's original hand
    assert h.hands[1] == dealer_hand and h.dummy == seat1_hand
    h.apply(Exchange(seat=2))
    assert h.hands[2] == seat1_hand and h.dummy == list(d[1::4])
    assert [e.took for e in h.exchanges] == [True, True, True]
    assert [e.looked for e in h.exchanges] == [False, True, False]
    assert h.dealt[0] == dealer_hand  # the deal itself is kept as dealt
    assert sorted([c for hand in h.hands for c in hand] + h.dummy) == list(d)


def test_blind_exchanges_allow_no_look() -> None:
    h = HandState(BLIND, 2, deck())
    assert h.legal_actions() == [Exchange(seat=2), Decline(seat=2)]
    rejects(h, Look(seat=2), "blind-exchange")
    h.apply(Exchange(seat=2))
    assert h.exchanges == [ExchangeRecord(2, False, True)]


def test_no_card_is_played_before_the_exchanges_are_over() -> None:
    h = HandState(DEFAULT, 0, deck())
    rejects(h, PlayCard(seat=0, card=h.hands[0][0]), "phase")  # type: ignore[arg-type]
    decline_all(h)
    for a in (Look(seat=1), Exchange(seat=1), Decline(seat=1)):
        rejects(h, a, "phase")


def test_look_and_exchange_may_name_the_dummys_cards() -> None:
    h = HandState(DEFAULT, 0, deck())
    dummy = tuple(h.dummy)
    rejects(h, Look(seat=0, cards=dummy[:12]), "look")
    rejects(h, Look(seat=0, cards=(*dummy[:12], h.hands[0][0])), "look")  # type: ignore[arg-type]
    rejects(h, Look(seat=0, cards=(*dummy[:12], dummy[0])), "look")
    rejects(h, Look(seat=0, cards=(*dummy[:12], 5)), "look")  # type: ignore[arg-type]
    h.apply(Look(seat=0, cards=tuple(reversed(dummy))))  # in any order
    assert h.events[-1] == Look(seat=0, cards=dummy)
    rejects(h, Exchange(seat=0, cards=tuple(h.hands[1])), "exchange")  # type: ignore[arg-type]
    h.apply(Exchange(seat=0, cards=dummy))
    assert tuple(h.hands[0]) == dummy


# ---------------------------------------------------------------------------
# Play


def test_left_of_dealer_leads_any_card() -> None:
    h = HandState(DEFAULT, 2, deck())
    decline_all(h)
    assert h.turn == 0 and h.led_suit is None
    assert h.legal_actions() == [PlayCard(seat=0, card=c) for c in h.hands[0]]  # type: ignore[arg-type]


def test_must_follow_suit() -> None:
    h = position({0: "AH 3H KS", 1: "2H QH 5C", 2: "4H 6S 7D"}, leader=0, current="AH")
    assert h.led_suit == "H"
    assert h.legal_actions() == [PlayCard(seat=1, card=C("2H")), PlayCard(seat=1, card=C("QH"))]
    e = rejects(h, PlayCard(seat=1, card=C("5C")), "follow-suit")
    assert "2H" in e.detail
    h.apply(PlayCard(seat=1, card=C("QH")))
    assert h.turn == 2


def test_void_may_ruff_or_discard_anything() -> None:
    h = position({0: "3H", 1: "2S 5C JD", 2: "4H"}, leader=0, current="3H")
    assert set(h.legal_actions()) == {PlayCard(seat=1, card=c) for c in cs("2S 5C JD")}
    h.apply(PlayCard(seat=1, card=C("5C")))  # a discard
    assert h.current[-1] == (1, C("5C"))


def test_highest_of_the_suit_led_wins_without_trumps() -> None:
    h = position({0: "3H", 1: "KH", 2: "AC"}, leader=0)
    for seat, card in ((0, "3H"), (1, "KH"), (2, "AC")):  # the Ace of another suit is a discard
        h.apply(PlayCard(seat=seat, card=C(card)))
    assert h.tricks == [Trick(0, ((0, C("3H")), (1, C("KH")), (2, C("AC"))), 1)]
    assert (h.won, h.leader, h.turn) == ([0, 1, 0], 1, 1)


def test_the_lowest_trump_beats_the_ace_led() -> None:
    h = position({0: "AH 5D", 1: "3H 6D", 2: "2S 7D"}, leader=0)
    for seat, card in ((0, "AH"), (1, "3H"), (2, "2S")):
        h.apply(PlayCard(seat=seat, card=C(card)))
    assert h.tricks[-1].winner == 2 and h.turn == 2 and h.tricks[-1].led == "H"


def test_highest_trump_wins_when_several_ruff() -> None:
    h = position({0: "KD 5D", 1: "3S 6H", 2: "JS 7H"}, leader=0)
    for seat, card in ((0, "KD"), (1, "3S"), (2, "JS")):
        h.apply(PlayCard(seat=seat, card=C(card)))
    assert h.tricks[-1].winner == 2


def test_trump_led_is_won_by_the_highest_trump() -> None:
    h = position({0: "2S 5D", 1: "AS 6H", 2: "AD 7H"}, leader=0)
    for seat, card in ((0, "2S"), (1, "AS"), (2, "AD")):
        h.apply(PlayCard(seat=seat, card=C(card)))
    assert h.tricks[-1].winner == 1


def test_no_trump_hand_no_suit_beats_another() -> None:
    h = position({0: "2D 5D", 1: "AS 6H", 2: "AC 7H"}, leader=0, number=5)
    assert h.trump is None
    for seat, card in ((0, "2D"), (1, "AS"), (2, "AC")):
        h.apply(PlayCard(seat=seat, card=C(card)))
    assert h.tricks[-1].winner == 0


@pytest.mark.parametrize(
    ("plays", "trump", "winner"),
    [
        ("10H JH 9H", "S", 1),
        ("10H JH AH", None, 2),
        ("10H 2C AC", "C", 2),
        ("10H 2C 3C", "C", 2),
        ("10H 3C 2C", "C", 1),
        ("10H 3C 2D", "S", 0),
        ("AS KS 2H", "H", 2),
        ("2S KD AH", None, 0),
    ],
)
def test_trick_winner(plays: str, trump: str | None, winner: int) -> None:
    cards = cs(plays)
    assert trick_winner([((1 + i) % 3, c) for i, c in enumerate(cards)], trump) == (1 + winner) % 3


def test_cards_not_held_and_out_of_turn_are_refused() -> None:
    h = position({0: "AH 3H", 1: "2H QH", 2: "4H 6S"}, leader=0)
    rejects(h, PlayCard(seat=0, card=C("2H")), "card-held")
    rejects(h, PlayCard(seat=0, card=Card.of(1, "H", 1)), "card-held")  # a second-deck card
    rejects(h, PlayCard(seat=0, card=None), "card-held")  # type: ignore[arg-type]
    rejects(h, PlayCard(seat=1, card=C("2H")), "turn-order")
    rejects(h, PlayCard(seat=True, card=C("2H")), "turn-order")  # type: ignore[arg-type]
    with pytest.raises(UsageError):
        h.apply("AH")  # type: ignore[arg-type]


def test_the_hand_ends_after_13_tricks() -> None:
    full, actions = scripted_hand(0, winners_for((5, 5, 3)))
    h = HandState(DEFAULT, 0, full)
    for a in actions:
        assert h.phase is not Phase.OVER
        h.apply(a)
    assert h.phase is Phase.OVER and h.to_act is None and len(h.tricks) == 13
    assert h.counts() == [0, 0, 0] and h.legal_actions() == []
    assert h.scores() == [-1, -1, 1]
    with pytest.raises(IllegalAction) as info:
        h.apply(PlayCard(seat=h.turn, card=C("AS")))
    assert info.value.rule == "hand-over"


def test_scores_only_when_the_hand_is_over() -> None:
    h = HandState(DEFAULT, 0, deck())
    with pytest.raises(UsageError):
        h.scores()


# ---------------------------------------------------------------------------
# Scores and the match


def test_worked_example() -> None:
    m = Match(rules=DEFAULT, dealer=0)
    assert m.totals == [9, 9, 9] and m.trump == "S"
    play_scripted(m, (6, 4, 3))
    r1 = m.close_hand()
    assert (r1.number, r1.dealer, r1.trump, r1.won, r1.scores) == (1, 0, "S", (6, 4, 3), (-2, 0, 1))
    assert r1.totals == (7, 9, 10) and m.totals == [7, 9, 10] and sum(m.totals) == 26
    assert m.dealer == 1 and not m.over  # the deal passes left
    assert m.trump == "H"
    play_scripted(m, (7, 1, 5))
    r2 = m.close_hand()
    assert (r2.dealer, r2.trump, r2.scores, r2.totals) == (1, "H", (-3, 3, -1), (4, 12, 9))
    assert sum(m.totals) == 25 and not m.over and m.winners is None and m.dealer == 2
    assert [h.won for h in m.history] == [[6, 4, 3], [7, 1, 5]]


def test_match_ends_when_a_total_reaches_zero_and_the_lowest_wins() -> None:
    m = Match(rules=DEFAULT, dealer=0, totals=[4, 12, 9])
    play_scripted(m, (8, 0, 5))  # 4 - 4 = 0
    m.close_hand()
    assert m.totals == [0, 16, 8] and m.over and m.winners == (0,)
    with pytest.raises(UsageError):
        m.start_hand(deck())


def test_lowest_total_wins_when_several_reach_zero() -> None:
    m = Match(rules=NeufRules(start=2), dealer=0)
    play_scripted(m, (7, 6, 0))
    m.close_hand()
    assert m.totals == [-1, 0, 6] and m.winners == (0,)


def test_tied_lowest_totals_share_the_win() -> None:
    m = Match(rules=NeufRules(start=2), dealer=0)
    play_scripted(m, (6, 6, 1))
    m.close_hand()
    assert m.totals == [0, 0, 5] and m.winners == (0, 1)


def test_start_option_and_trump_rotation_through_a_match() -> None:
    m = Match(rules=NeufRules(start=20, trumps=TRUMPS_HEARTS_FIRST), dealer=2)
    assert m.totals == [20, 20, 20]
    seen = []
    for _ in range(6):
        h = play_scripted(m, (4, 4, 5))
        seen.append((h.number, h.dealer, h.trump))
        m.close_hand()
    assert seen == [(1, 2, "H"), (2, 0, "D"), (3, 1, "S"), (4, 2, "C"), (5, 0, None), (6, 1, "H")]
    assert m.totals == [20, 20, 14] and sum(m.totals) == 60 - 6


def test_match_hand_lifecycle_errors() -> None:
    m = Match(rules=DEFAULT, dealer=0)
    with pytest.raises(UsageError):
        m.close_hand()
    h = m.start_hand(deck())
    with pytest.raises(UsageError):
        m.start_hand(deck())
    with pytest.raises(UsageError):
        m.close_hand()
    assert h.number == 1


# ---------------------------------------------------------------------------
# Hidden cards: replicas


def hidden_deck(full: Sequence[Card], dealer: int, seat: int) -> list[Card | None]:
    """``full`` as ``seat`` sees it at the deal: its own 13 cards only."""
    mine = set(HandState(DEFAULT, dealer, full).hands[seat])
    return [c if c in mine else None for c in full]


def told(action: Action, seat: int, before: HandState) -> Action:
    """What ``seat``'s replica is told of ``action``: the looker or taker learns the dummy."""
    if isinstance(action, Look | Exchange) and action.seat == seat:
        return type(action)(seat=seat, cards=tuple(before.dummy))  # type: ignore[arg-type]
    if isinstance(action, Look | Exchange):
        return type(action)(seat=action.seat)
    return action


def public(h: HandState) -> tuple[object, ...]:
    return (h.counts(), h.phase, h.turn, h.leader, h.current, h.tricks, h.won, h.exchanges, h.trump)


@pytest.mark.parametrize("rules", [DEFAULT, BLIND])
def test_hidden_replicas_follow_the_full_game(rules: NeufRules) -> None:
    for seed in range(6):
        rng = random.Random(f"neuf-lockstep-{seed}")
        full_deck = list(deck())
        rng.shuffle(full_deck)
        dealer = seed % 3
        full = HandState(rules, dealer, full_deck)
        replicas = {s: HandState(rules, dealer, hidden_deck(full_deck, dealer, s)) for s in range(3)}
        while full.phase is not Phase.OVER:
            legal = full.legal_actions()
            for s, r in replicas.items():
                if r.phase is Phase.EXCHANGE or r.turn == s:
                    assert r.legal_actions() == legal
            action = rng.choice(legal)
            before = full.copy()
            full.apply(action)
            for s, r in replicas.items():
                r.apply(told(action, s, before))
                assert public(r) == public(full)
                assert r.hands[s] == full.hands[s]
        for r in replicas.values():
            assert sorted(r.dummy) == sorted(full.dummy)  # known at the end by elimination
            assert r.revokes() == () and r.scores() == full.scores()


def replica_of(h: HandState, seat: int, *, dummy: bool = False) -> HandState:
    """``seat``'s replica of a position: other hands (and the dummy unless seen) hidden."""
    r = h.copy()
    for o in range(3):
        if o != seat:
            r.hands[o] = [None] * len(r.hands[o])
    if not dummy:
        r.dummy = [None] * len(r.dummy)
    return r


def test_replica_refuses_cards_it_sees_elsewhere() -> None:
    full = position({0: "AH 3H", 1: "2H QH", 2: "4H 6S"}, leader=0, current="AH")
    full.dummy = cs("KC QC JC 10C 9C 8C 7C 6C 5C 4C 3C 2C AC")
    mine = replica_of(full, 2, dummy=True)
    with pytest.raises(UsageError):
        mine.legal_actions()  # seat 1 is to play, and seat 2 cannot see its hand
    rejects(mine, PlayCard(seat=1, card=C("4H")), "card-held")  # in seat 2's own hand
    rejects(mine, PlayCard(seat=1, card=C("AH")), "card-held")  # played already
    rejects(mine, PlayCard(seat=1, card=C("KC")), "card-held")  # in the dummy it saw
    rejects(full, PlayCard(seat=1, card=C("KD")), "card-held")
    mine.apply(PlayCard(seat=1, card=C("KD")))  # a card it sees nowhere: only the full game knows better
    assert mine.hands[1] == [None]


def test_replica_catches_a_revoke_when_the_suit_is_played_later() -> None:
    full = position({0: "AH 3H", 1: "2H 5C", 2: "4H 6H"}, leader=0, current="AH")
    mine = replica_of(full, 0)
    rejects(full, PlayCard(seat=1, card=C("5C")), "follow-suit")
    mine.apply(PlayCard(seat=1, card=C("5C")))  # cannot be told from a discard yet
    mine.apply(PlayCard(seat=2, card=C("4H")))
    assert mine.shown_void(1) == {"H": 1} and mine.turn == 0
    mine.apply(PlayCard(seat=0, card=C("3H")))
    e = rejects(mine, PlayCard(seat=1, card=C("2H")), "follow-suit")
    assert "trick 1" in e.detail
    lenient = replica_of(full, 0)
    lenient.check_follow = False
    for seat, card in ((1, "5C"), (2, "4H"), (0, "3H"), (1, "2H"), (2, "6H")):
        lenient.apply(PlayCard(seat=seat, card=C(card)))
    assert lenient.revokes() == (Revoke(1, 1, C("5C"), "H", C("2H")),)


def test_replica_that_saw_a_hand_through_the_dummy_checks_it_live() -> None:
    d = deck()
    full = HandState(DEFAULT, 0, d)
    mine = HandState(DEFAULT, 0, hidden_deck(d, 0, 0))
    for h, a in ((full, Look(seat=0)), (mine, Look(seat=0, cards=tuple(full.dummy)))):  # type: ignore[arg-type]
        h.apply(a)
        h.apply(Decline(seat=0))
        h.apply(Exchange(seat=1))
        h.apply(Decline(seat=2))
    assert mine.hands[1] == full.hands[1] and None in mine.hands[2]
    assert NeufView(mine, 0).known_cards(1) == tuple(full.hands[1])
    assert mine.legal_actions() == full.legal_actions()  # seat 1 to lead: its hand is known to seat 0


def test_replica_checks_the_dummy_claims_it_can() -> None:
    d = deck()
    full = HandState(DEFAULT, 0, d)
    mine = HandState(DEFAULT, 0, hidden_deck(d, 0, 0))
    rejects(mine, Look(seat=0, cards=tuple(full.hands[0])), "look")  # type: ignore[arg-type]
    mine.apply(Exchange(seat=0, cards=tuple(full.dummy)))  # type: ignore[arg-type]
    assert mine.hands[0] == full.dummy and mine.dummy == full.hands[0]
    theirs = HandState(DEFAULT, 0, hidden_deck(d, 0, 1))
    theirs.apply(Exchange(seat=0))
    assert theirs.hands[0] == [None] * 13 and theirs.dummy == [None] * 13
    rejects(theirs, Look(seat=1, cards=(*full.dummy[:12], full.hands[1][0])), "look")  # type: ignore


def test_revokes_from_tricks_with_full_information() -> None:
    h = position({0: "AH 3H", 1: "2H 5C", 2: "4H 6H"}, leader=0)
    h.check_follow = False
    h.apply(PlayCard(seat=0, card=C("AH")))
    h.apply(PlayCard(seat=1, card=C("5C")))
    assert h.revokes() == (Revoke(1, 1, C("5C"), "H", C("2H")),)  # it still holds the 2H
    h.apply(PlayCard(seat=2, card=C("6H")))
    assert h.revokes() == (Revoke(1, 1, C("5C"), "H", C("2H")),)


def test_revokes_are_listed_in_order_of_play() -> None:
    h = position({0: "AH 2C", 1: "3H 5C", 2: "4H 6C"}, leader=0)
    h.check_follow = False
    for seat, card in ((0, "AH"), (1, "5C"), (2, "6C"), (0, "2C"), (1, "3H"), (2, "4H")):
        h.apply(PlayCard(seat=seat, card=C(card)))
    assert h.revokes() == (Revoke(1, 1, C("5C"), "H", C("3H")), Revoke(1, 2, C("6C"), "H", C("4H")))


# ---------------------------------------------------------------------------
# Full-information replay


def test_replay_of_a_clean_hand() -> None:
    full, actions = scripted_hand(1, winners_for((3, 6, 4)))
    rep = replay_hand(DEFAULT, 1, full, actions, number=2)
    assert rep.valid and rep.complete and rep.problems == ()
    assert rep.hand.won == [3, 6, 4] and rep.hand.trump == "H"


def test_replay_reports_every_revoke_with_trick_and_seat() -> None:
    dealer = 0
    hands = {
        1: "AS KS 2H 3H 4H 5H 6H 7H 8H 9H 10H JH QH",
        2: "QS 2S 3S 2D 3D 4D 5D 6D 7D 8D 9D 10D JD",
        0: "2C 3C 4C 5C 6C 7C 8C 9C 10C JC QC KC AC",
    }
    full = stacked_deck(dealer, hands)
    actions: list[Action] = [Decline(seat=0), Decline(seat=1), Decline(seat=2)]
    # trick 1: seat 1 leads AS, seat 2 discards 2D holding spades (revoke), seat 0 has no spade
    actions += plays_of("1 AS, 2 2D, 0 2C")
    # trick 2: seat 1 leads KS, seat 2 discards again (a second revoke), seat 0 has no spade
    actions += plays_of("1 KS, 2 3D, 0 3C")
    # trick 3: seat 1 leads 2H; seat 2, out of hearts, ruffs with the QS (legal); seat 0 discards
    actions += plays_of("1 2H, 2 QS, 0 4C")
    rep = replay_hand(DEFAULT, dealer, full, actions)
    assert not rep.valid and not rep.complete
    assert [(p.action, p.trick, p.seat, p.rule) for p in rep.problems] == [
        (4, 1, 2, "follow-suit"),
        (7, 2, 2, "follow-suit"),
    ]
    assert "2D" in rep.problems[0].detail and "2S" in rep.problems[0].detail
    # the live full-information engine refuses the first one outright
    h = HandState(DEFAULT, dealer, full)
    for a in actions[:4]:
        h.apply(a)
    rejects(h, actions[4], "follow-suit")


def test_replay_stops_at_any_other_illegal_action() -> None:
    full, actions = scripted_hand(0, winners_for((5, 4, 4)))
    bad = list(actions)
    bad[4] = PlayCard(seat=bad[4].seat, card=C("AS"))  # type: ignore[union-attr]
    rep = replay_hand(DEFAULT, 0, full, bad)
    assert [(p.action, p.trick, p.seat, p.rule) for p in rep.problems] == [(4, 1, bad[4].seat, "card-held")]
    extra = replay_hand(DEFAULT, 0, full, [*actions, Decline(seat=0)])
    assert [(p.action, p.rule) for p in extra.problems] == [(len(actions), "hand-over")]
    early = replay_hand(DEFAULT, 0, full, [Look(seat=1)])
    assert [(p.action, p.trick, p.rule) for p in early.problems] == [(0, None, "turn-order")]
    with pytest.raises(UsageError):
        replay_hand(DEFAULT, 0, [None, *full[1:]], actions)  # type: ignore[list-item]


# ---------------------------------------------------------------------------
# What a seat may see


def test_view_shows_a_seat_only_what_it_knows() -> None:
    d = deck()
    h = HandState(DEFAULT, 0, d)
    dummy = tuple(h.dummy)
    seat0, seat1, seat2 = (tuple(cards) for cards in h.hands)
    h.apply(Look(seat=0))
    h.apply(Exchange(seat=0))
    v0, v1, v2 = (NeufView(h, s, (9, 9, 9)) for s in range(3))
    assert v0.my_cards == dummy and v0.dummy_cards == seat0  # its own old hand lies there
    assert v1.dummy_cards is None and v1.known_cards(0) is None and v1.my_cards == seat1
    assert v1.events == (Look(seat=0), Exchange(seat=0))
    assert v0.events == (Look(seat=0, cards=dummy), Exchange(seat=0, cards=dummy))
    h.apply(Look(seat=1))
    assert NeufView(h, 1).dummy_cards == seat0
    h.apply(Decline(seat=1))
    h.apply(Exchange(seat=2))
    v0, v1, v2 = (NeufView(h, s) for s in range(3))
    assert v1.known_cards(2) == seat0 and v0.known_cards(2) == seat0  # both saw that hand
    assert v2.my_cards == seat0 and v2.dummy_cards == seat2 and v2.known_cards(0) is None
    assert v0.known_cards(1) is None and v1.known_cards(0) is None and v0.dummy_cards is None
    records = (ExchangeRecord(0, True, True), ExchangeRecord(1, True, False), ExchangeRecord(2, False, True))
    assert v2.exchanges == records
    assert (v2.phase, v2.trump, v2.number, v2.dealer, v2.to_act, v2.leader) == (Phase.PLAY, "S", 1, 0, 1, 1)
    assert v2.count(0) == 13 and v2.players == 3 and v2.next_seat(2) == 0 and v2.totals == ()
    h.apply(PlayCard(seat=1, card=h.hands[1][0]))  # type: ignore[arg-type]
    assert v2.current == ((1, seat1[0]),) and v2.led_suit == seat1[0].suit and v2.played() == [seat1[0]]
    assert v2.tricks == () and v2.won == (0, 0, 0) and v2.shown_void(1) == frozenset()
    assert v2.rules == DEFAULT


def test_blind_taker_knows_its_new_hand() -> None:
    h = HandState(BLIND, 0, deck())
    dummy = tuple(h.dummy)
    h.apply(Exchange(seat=0))
    assert NeufView(h, 0).my_cards == dummy and NeufView(h, 0).known_cards(0) == dummy
