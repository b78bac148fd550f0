"""Bots: always a legal action, never a look at hidden cards, and the tips of the rule documents."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pcards.bots import BOT_NAMES, Strategy, make_bot
from p2pcards.cards import Card, deck, parse_card, parse_cards
from p2pcards.errors import UsageError
from p2pcards.games.nines.bots import HeuristicBot, HistoryReader, Weights, read_history
from p2pcards.games.nines.rules import (
    AcceptSkip,
    Action,
    Declare,
    Draw,
    HandState,
    Keep,
    NinesRules,
    Pass,
    Phase,
    Play,
    PlayNines,
    Recycle,
    SeatView,
)

VARIANT_FLAGS = (
    "draw_until_playable",
    "action_cards",
    "double_nines",
    "stacking_nines",
    "hard_nines",
    "no_nine_out",
)


def _shuffled_deck(rules: NinesRules, rng: random.Random) -> list[Card]:
    cards = list(deck(2 if rules.double_nines else 1))
    rng.shuffle(cards)
    return cards


def _recycle(h: HandState, rng: random.Random) -> Recycle:
    under = h.discards[:-1]
    rng.shuffle(under)
    return Recycle(stock=tuple(under))


def _play_hand(
    rules: NinesRules,
    players: int,
    bots: Sequence[Strategy],
    rng: random.Random,
    on_decision: Callable[[HandState, int, list[Action]], None] | None = None,
) -> HandState:
    """One full-information hand; ``on_decision(h, seat, legal)`` is called before every choice."""
    h = HandState(rules, players, rng.randrange(players), _shuffled_deck(rules, rng))
    while h.phase is not Phase.OVER:
        if h.needs_recycle():
            h.apply(_recycle(h, rng))
            continue
        seat = h.turn
        legal = h.legal_actions()
        if on_decision is not None:
            on_decision(h, seat, legal)
        h.apply(bots[seat].choose(SeatView(h, seat), legal, rng))
    return h


@st.composite
def rule_sets(draw: st.DrawFn) -> NinesRules:
    """Any combination of the variants (stacking only with double nines)."""
    flags = {name: draw(st.booleans()) for name in VARIANT_FLAGS}
    flags["stacking_nines"] = flags["stacking_nines"] and flags["double_nines"]
    return NinesRules(**flags)


# ---------------------------------------------------------------------------
# Legal choices everywhere


@settings(max_examples=40, deadline=None)
@given(rules=rule_sets(), players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_both_bots_always_choose_a_legal_action(rules: NinesRules, players: int, seed: int) -> None:
    rng = random.Random(seed)
    names = [n if n != "expert" else "expert:2i" for n in BOT_NAMES]  # (tests/test_expert.py: the expert)
    bots = [make_bot(names[(seed + s) % len(names)]) for s in range(players)]
    all_bots = [make_bot(n) for n in names]

    def check(h: HandState, seat: int, legal: list[Action]) -> None:
        for bot in all_bots:
            assert bot.choose(SeatView(h, seat), legal, random.Random(seed)) in legal

    h = _play_hand(rules, players, bots, rng, check)
    assert h.end in ("out", "stall")


@settings(max_examples=60, deadline=None)
@given(rules=rule_sets(), players=st.integers(2, 6), seed=st.integers(0, 2**32))
def test_the_history_read_as_it_grows_decides_as_the_history_read_whole(
    rules: NinesRules, players: int, seed: int
) -> None:
    """The expert's rollouts keep one reader per hand and feed it each new event; at every
    decision of a hand (recycles included) that reading, and the move chosen from it, are
    those of reading the seat's whole view again."""
    rng = random.Random(seed)
    names = ("heuristic", "random")
    bots = [make_bot(names[(seed >> s) & 1]) for s in range(players)]
    heuristic = HeuristicBot()
    readers: list[HistoryReader] = []
    seen = {"decisions": 0}

    def check(h: HandState, seat: int, legal: list[Action]) -> None:
        if not readers:
            readers.append(HistoryReader(h.seats, h.up_card.suit))
        reader = readers[0]
        reader.feed(h.events)
        view = SeatView(h, seat)
        whole = read_history(view)
        grown = reader.reading(seat)
        assert grown == whole
        assert heuristic.choose_reading(view, legal, grown) == heuristic.choose(view, legal, rng)
        seen["decisions"] += 1

    _play_hand(rules, players, bots, rng, check)
    assert seen["decisions"] > 0


def test_a_recycle_makes_the_growing_reader_read_the_history_again() -> None:
    """Before a recycle the up card's suit was active; after one, the suit before the first
    play is unknown, for the whole history: the reader starts over, as a whole reading does."""
    rules = NinesRules()
    for seed in range(2000):
        rng = random.Random(seed)
        h = HandState(rules, 6, 0, _shuffled_deck(rules, rng))
        reader = HistoryReader(h.seats, h.up_card.suit)
        bots = [make_bot("random") for _ in range(6)]
        while h.phase is not Phase.OVER and not any(isinstance(e, Recycle) for e in h.events):
            if h.needs_recycle():
                h.apply(_recycle(h, rng))
                break
            reader.feed(h.events)
            h.apply(bots[h.turn].choose(SeatView(h, h.turn), h.legal_actions(), rng))
        if not any(isinstance(e, Recycle) for e in h.events) or not _drew_under_the_up_card(h.events):
            continue
        # A reader that never learnt of the recycle still believes the up card's suit was faced.
        unaware = HistoryReader(h.seats, h.up_card.suit)
        unaware.feed([e for e in h.events if not isinstance(e, Recycle)])
        if all(unaware.reading(s) == read_history(SeatView(h, s)) for s in h.seats):
            continue  # the beliefs that differed were wiped since: this hand tells nothing
        reader.feed(h.events)
        assert reader.active is None or any(isinstance(e, Play | PlayNines | Declare) for e in h.events)
        for seat in h.seats:
            assert reader.reading(seat) == read_history(SeatView(h, seat))
        return
    raise AssertionError("no hand of 2000 recycled its stock after a draw under the up card")


def _drew_under_the_up_card(events: Sequence[Action]) -> bool:
    """Someone drew or passed before the first card was played or suit declared."""
    for e in events:
        if isinstance(e, Play | PlayNines | Declare):
            return False
        if isinstance(e, Pass) or (isinstance(e, Draw) and not e.forced):
            return True
    return False


def test_every_phase_and_variant_action_is_met() -> None:
    """The seeded games really reach every phase and every kind of action (so the check above bites)."""
    everything = NinesRules.parse(
        ["action-cards", "double-nines", "stacking-nines", "hard-nines", "no-nine-out"]
    )
    seen_phases: set[Phase] = set()
    seen_kinds: set[type] = set()
    heuristic = HeuristicBot()

    def check(h: HandState, seat: int, legal: list[Action]) -> None:
        assert heuristic.choose(SeatView(h, seat), legal, random.Random(0)) in legal
        seen_phases.add(h.phase)
        seen_kinds.update(type(a) for a in legal)

    rng = random.Random(11)
    bots = [heuristic, make_bot("random")] * 3
    for k in range(60):
        rules = everything if k % 2 == 0 else NinesRules(draw_until_playable=True)
        _play_hand(rules, 2 + k % 5, bots, rng, check)
    assert seen_phases >= {Phase.DECLARE, Phase.TURN, Phase.DRAWN, Phase.FORCED_DRAW, Phase.STACK}
    assert seen_kinds >= {Declare, Play, PlayNines, Draw, Keep, AcceptSkip}


def test_make_bot_names_and_unknown_bot() -> None:
    for name in BOT_NAMES:
        assert make_bot(name).name == name
    with pytest.raises(UsageError, match="unknown bot"):
        make_bot("oracle")


# ---------------------------------------------------------------------------
# No hidden information


def _replica_for(full: HandState, seat: int, deck_order: Sequence[Card]) -> HandState:
    """The hand as ``seat``'s own replica knows it: its cards and the up card, nothing else."""
    mine = set(full.dealt[seat])
    masked = [c if c in mine or c == full.up_card else None for c in deck_order]
    return HandState(full.rules, full.players, full.dealer, masked)


@pytest.mark.parametrize(
    "rule_words",
    [[], ["action-cards", "double-nines", "stacking-nines"], ["draw-until-playable", "no-nine-out"]],
)
def test_heuristic_decides_the_same_on_a_replica_with_hidden_cards(rule_words: list[str]) -> None:
    rules = NinesRules.parse(rule_words)
    bot = HeuristicBot()
    decisions = 0
    for game in range(12):
        rng = random.Random(game)
        players = 2 + game % 5
        me = game % players
        order = _shuffled_deck(rules, rng)
        full = HandState(rules, players, rng.randrange(players), order)
        replica = _replica_for(full, me, order)
        assert all(c is None for s in range(players) if s != me for c in replica.hands[s])
        while full.phase is not Phase.OVER:
            if full.needs_recycle():
                action = _recycle(full, rng)
                full.apply(action)
                replica.apply(Recycle(stock=(None,) * len(action.stock)))
                continue
            seat = full.turn
            legal = full.legal_actions()
            if seat == me:
                on_full = bot.choose(SeatView(full, me), legal, random.Random(1))
                on_replica = bot.choose(SeatView(replica, me), replica.legal_actions(), random.Random(1))
                assert on_full == on_replica
                decisions += 1
            action = bot.choose(SeatView(full, seat), legal, rng)
            full.apply(action)
            if isinstance(action, Draw):
                drawn = full.events[-1]
                assert isinstance(drawn, Draw)
                replica.apply(Draw(seat=seat, card=drawn.card if seat == me else None))
            else:
                replica.apply(action)
    assert decisions > 50


# ---------------------------------------------------------------------------
# Tactics: hand-made positions


def position(
    hands: dict[int, str],
    top: str,
    *,
    under: str = "",
    players: int = 4,
    active: str | None = None,
    turn: int = 0,
    phase: Phase = Phase.TURN,
    events: Sequence[Action] = (),
    rules: NinesRules | None = None,
) -> HandState:
    """A hand in the middle of play, built by hand; the cards nobody holds make up the stock.

    ``hands`` maps a seat to its cards (``"2H 9S"``) or to a card count
    (``"3"``: that many non-9 filler cards); unlisted seats hold seven.
    ``under`` lists the discards under ``top``, bottom (the up card) first.
    """
    rules = rules or NinesRules()
    cards = deck(2 if rules.double_nines else 1)
    h = HandState(rules, players, (turn - 1) % players, list(cards))
    pool = list(cards)
    discards = [*parse_cards(under.split()), parse_card(top)]
    exact = {s: list(parse_cards(t.split())) for s, t in hands.items() if not t.isdigit()}
    for c in discards + [c for cs in exact.values() for c in cs]:
        pool.remove(c)
    for s in range(players):
        if s in exact:
            h.hands[s] = exact[s]
        else:
            fill = [c for c in pool if not c.is_nine][: int(hands.get(s, "7"))]
            for c in fill:
                pool.remove(c)
            h.hands[s] = fill
    h.discards = discards
    h.stock = pool
    h.active_suit = active or discards[-1].suit
    h.turn = turn
    h.phase = phase
    h.events = list(events)
    return h


def choose(h: HandState, bot: HeuristicBot | None = None) -> Action:
    legal = h.legal_actions()
    action = (bot or HeuristicBot()).choose(SeatView(h, h.turn), legal, random.Random(0))
    assert action in legal
    return action


def card(text: str) -> Card:
    return parse_card(text)


def test_declares_the_suit_it_holds_most_of_when_the_up_card_is_a_nine() -> None:
    h = position({0: "2H 5H KH 3S 4C 6C 10D"}, "9S", phase=Phase.DECLARE, turn=0)
    assert choose(h) == Declare(seat=0, suit="H")


def test_a_nine_declares_the_longest_suit_then_the_costliest() -> None:
    # Nothing but the 9 matches the clubs: it must be played, and names diamonds (three cards).
    h = position({0: "9S 2D 3D 4D KH 6S", 1: "7"}, "7C")
    a = choose(h)
    assert a == Play(seat=0, card=card("9S"), suit="D")
    # Two suits of two cards: the one whose cards cost more to keep.
    h = position({0: "9S 2H 3H KD QD"}, "7C")
    assert choose(h) == Play(seat=0, card=card("9S"), suit="D")


def test_a_nine_declares_a_suit_the_opponents_are_short_in_as_the_tie_break() -> None:
    # Only the 9 is legal; hearts and diamonds are equal (one 5 each), hearts is listed first.
    h = position({0: "9S 5D 5H 2S"}, "7C", under="6C")
    assert choose(h) == Play(seat=0, card=card("9S"), suit="H")
    # Seat 1 drew while the up card 6D was active: diamonds now wins the tie.
    events = [Draw(seat=1, card=None), Play(seat=2, card=card("6C")), Play(seat=3, card=card("7C"))]
    h = position({0: "9S 5D 5H 2S"}, "7C", under="6D 6C", events=events)
    assert choose(h) == Play(seat=0, card=card("9S"), suit="D")


def test_sheds_a_king_rather_than_a_three() -> None:
    h = position({0: "3S KS 7D 2C 4H 6H 8C"}, "5S")
    assert choose(h) == Play(seat=0, card=card("KS"))
    # The same position with shedding switched off keeps the king: the tip is what decides.
    assert choose(h, HeuristicBot(Weights(shed=0.0))) != Play(seat=0, card=card("KS"))


def test_keeps_its_nine_early_but_not_when_an_opponent_is_about_to_go_out() -> None:
    hand = "2H 9S KC QC 5D 4D 3S"
    early = position({0: hand, 1: "7", 2: "7", 3: "7"}, "7H")
    assert choose(early) == Play(seat=0, card=card("2H"))
    late = position({0: hand, 1: "1", 2: "6", 3: "6"}, "7H")
    a = choose(late)
    assert isinstance(a, Play)
    assert a.card == card("9S")
    assert a.suit != "H"


def test_dumps_its_nine_when_the_hand_runs_long() -> None:
    hand = "2H 9S KC QC 5D"
    # Forty draws by the opponents: ten rounds and more without anybody getting close to out.
    long_history = [Draw(seat=1 + k % 3, card=None) for k in range(48)]
    fresh = position({0: hand, 1: "4", 2: "4", 3: "4"}, "7H")
    assert choose(fresh) == Play(seat=0, card=card("2H"))
    running = position({0: hand, 1: "4", 2: "4", 3: "4"}, "7H", events=long_history)
    a = choose(running)
    assert isinstance(a, Play)
    assert a.card == card("9S")


def test_blocks_a_player_about_to_go_out_with_the_suit_they_are_short_in() -> None:
    # Up card 2D: seat 1 drew (short in diamonds), seats 2 and 3 played 8D and 8S.
    events = [Draw(seat=1, card=None), Play(seat=2, card=card("8D")), Play(seat=3, card=card("8S"))]
    hand = "8H 8C 3H"
    # Seat 1 far from out: keep to the longer suit (8H leaves the 3H to follow).
    h = position({0: hand, 1: "7"}, "8S", under="2D 8D", events=events)
    assert choose(h) == Play(seat=0, card=card("8H"))
    # Seat 1 on its last card and short in diamonds... but 8C is the only other way to change suit,
    # and seat 1 has shown nothing about clubs: still hearts.
    h = position({0: hand, 1: "1"}, "8S", under="2D 8D", events=events)
    assert choose(h) == Play(seat=0, card=card("8H"))
    # Seat 1 on its last card drew under clubs: switch to clubs.
    events_c = [Draw(seat=1, card=None), Play(seat=2, card=card("8D")), Play(seat=3, card=card("8S"))]
    h = position({0: hand, 1: "1"}, "8S", under="2C 8D", events=events_c)
    assert choose(h) == Play(seat=0, card=card("8C"))


def test_plays_the_nine_to_change_suit_when_the_next_player_has_one_card() -> None:
    # Only hearts and the 9 are legal; seat 1 is on its last card and drew under clubs (up card 2C).
    events = [Draw(seat=1, card=None), Play(seat=2, card=card("7C")), Play(seat=3, card=card("7H"))]
    h = position({0: "4H 9S 8C 10D", 1: "1"}, "7H", under="2C 7C", events=events)
    assert choose(h) == Play(seat=0, card=card("9S"), suit="C")
    # Nobody close to out: the 9 stays in hand and the heart goes.
    h = position({0: "4H 9S 8C 10D", 1: "7"}, "7H", under="2C 7C", events=events)
    assert choose(h) == Play(seat=0, card=card("4H"))


def test_plays_the_drawn_card_when_it_is_legal() -> None:
    h = position({0: "2C 3C KH"}, "7H", phase=Phase.DRAWN)
    assert choose(h) == Play(seat=0, card=card("KH"))
    h = position({0: "2C 3C KS"}, "7H", phase=Phase.DRAWN)
    assert h.legal_actions() == [Keep(seat=0)]
    assert choose(h) == Keep(seat=0)


def test_goes_out_when_it_can() -> None:
    rules = NinesRules(double_nines=True)
    h = position({0: "9S 9H"}, "7C", rules=rules)
    assert isinstance(choose(h), PlayNines)
    h = position({0: "3C 9H"}, "7C")
    assert choose(h) == Play(seat=0, card=card("3C"))  # keeps the 9 to go out next turn
    h = position({0: "QC"}, "7C")
    assert choose(h) == Play(seat=0, card=card("QC"))


def test_skips_with_a_jack_a_player_about_to_go_out() -> None:
    hand = "10H JH 5C 6C"
    action = NinesRules(action_cards=True)
    # Plain rules: 10H and JH cost the same, the first listed goes.
    assert choose(position({0: hand, 1: "2"}, "7H")) == Play(seat=0, card=card("10H"))
    # Action cards: the jack also skips seat 1, which is two cards from going out.
    assert choose(position({0: hand, 1: "2"}, "7H", rules=action)) == Play(seat=0, card=card("JH"))
    # Two players: a skip is a turn gained, whatever the count.
    assert choose(position({0: hand, 1: "7"}, "7H", players=2, rules=action)) == Play(seat=0, card=card("JH"))


def test_stacks_a_nine_only_when_an_opponent_is_about_to_go_out() -> None:
    stack = NinesRules(double_nines=True, stacking_nines=True)
    hand = "9S 2H 5C 6C 8D"
    h = position({0: hand, 1: "1"}, "9D", under="9H", rules=stack, phase=Phase.STACK)
    a = choose(h)
    assert isinstance(a, Play)
    assert a.card == card("9S")
    h = position({0: hand}, "9D", under="9H", rules=stack, phase=Phase.STACK)
    assert choose(h) == AcceptSkip(seat=0)


def test_passes_when_there_is_nothing_to_draw() -> None:
    h = position({0: "2C 3C KS"}, "7H")
    h.stock = []
    assert h.legal_actions() == [Pass(seat=0)]
    assert choose(h) == Pass(seat=0)


def test_reads_shortness_from_public_draws_and_plays() -> None:
    # Up card 2C: seat 1 draws, so it is taken to be short in clubs.
    h = position({0: "5H 5C KS", 1: "3"}, "2C", events=[Draw(seat=1, card=card("KD"))])
    reading = read_history(SeatView(h, 0))
    assert reading.short[1] == {"S": 0.0, "H": 0.0, "D": 0.0, "C": 1.0}
    assert reading.short[2]["C"] == 0.0
    # Diamonds come up and seat 1 draws again: short in diamonds, less sure about clubs.
    h.events += [Play(seat=2, card=card("2D")), Draw(seat=1, card=card("QD"))]
    short = read_history(SeatView(h, 0)).short[1]
    assert short["D"] == 1.0
    assert 0.0 < short["C"] < 1.0
    # A 9 names clubs and seat 1 follows with a club: no longer short in clubs.
    h.events += [Play(seat=2, card=card("9S"), suit="C"), Play(seat=1, card=card("3C"))]
    assert read_history(SeatView(h, 0)).short[1]["C"] == 0.0
