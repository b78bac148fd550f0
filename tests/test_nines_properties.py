"""Properties of the Nines engine over random matches: any seed, 2-6 players, any rules."""

from __future__ import annotations

import copy
import dataclasses
import random
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pcards.cards import ALL_CARDS, SUITS, deck, penalty
from p2pcards.errors import IllegalAction
from p2pcards.games.nines.rules import (
    AcceptSkip,
    Action,
    Declare,
    Draw,
    HandState,
    Keep,
    Match,
    NinesRules,
    Pass,
    Phase,
    Play,
    PlayNines,
    Recycle,
)

Snapshot = Callable[[HandState], dict[str, object]]
MAX_HANDS = 300
MAX_STEPS = 20_000


@st.composite
def rule_sets(draw: st.DrawFn) -> NinesRules:
    double = draw(st.booleans())
    return NinesRules(
        target=draw(st.sampled_from([20, 50, 100])),
        hands=draw(st.none() | st.integers(1, 3)),
        tie=draw(st.sampled_from(["share", "playoff"])),
        draw_until_playable=draw(st.booleans()),
        action_cards=draw(st.booleans()),
        double_nines=double,
        stacking_nines=double and draw(st.booleans()),
        hard_nines=draw(st.booleans()),
        no_nine_out=draw(st.booleans()),
    )


seeds = st.integers(0, 2**32 - 1)
player_counts = st.integers(2, 6)


def canonical(a: Action, h: HandState) -> Action:
    """The action as ``legal_actions`` would list it: two 9s in either order are the
    same play, and a draw may name the card it draws (``forced`` is the engine's note)."""
    if isinstance(a, PlayNines) and isinstance(a.cards, tuple) and len(a.cards) == 2:
        return dataclasses.replace(a, cards=tuple(sorted(a.cards)))  # type: ignore[arg-type]
    if isinstance(a, Draw) and (a.card is None or (h.stock and a.card == h.stock[-1])):
        return Draw(seat=a.seat)
    return a


def random_action(h: HandState, rng: random.Random) -> Action:
    """Any action at all: a random kind, seat, card and suit (mostly illegal)."""
    seat = rng.randrange(h.players + 1)
    card = rng.choice(ALL_CARDS)
    suit = rng.choice([*SUITS, None, "X"])
    kind = rng.randrange(8)
    if kind == 0:
        return Declare(seat=seat, suit=suit)  # type: ignore[arg-type]
    if kind == 1:
        return Play(seat=seat, card=card, suit=suit)
    if kind == 2:
        return PlayNines(seat=seat, cards=(card, rng.choice(ALL_CARDS)), suit=suit)  # type: ignore[arg-type]
    if kind == 3:
        return Draw(seat=seat)
    if kind == 4:
        return Keep(seat=seat)
    if kind == 5:
        return Pass(seat=seat)
    if kind == 6:
        return AcceptSkip(seat=seat)
    under = list(h.discards[:-1])
    rng.shuffle(under)
    return Recycle(stock=tuple(under))


def near_miss(a: Action, h: HandState, rng: random.Random) -> Action:
    """A legal action with one field changed: the likeliest mistakes and cheats."""
    names = [f.name for f in dataclasses.fields(a)]
    name = rng.choice(names)
    if name == "seat":
        value: object = rng.randrange(h.players)
    elif name == "card":
        value = rng.choice([*h.hands[h.turn], rng.choice(ALL_CARDS)])
    elif name == "cards":
        value = (a.cards[0], rng.choice(ALL_CARDS))  # type: ignore[union-attr]
    elif name == "suit":
        value = rng.choice([*SUITS, None])
    else:
        return a
    return dataclasses.replace(a, **{name: value})


def check_conserved(h: HandState, dealt: list) -> None:
    cards = [c for hand in h.hands for c in hand] + h.discards + h.stock
    assert None not in cards
    assert len(cards) == len(set(cards)) == len(dealt) == h.rules.deck_size
    assert set(cards) == set(dealt)


def probe(h: HandState, legal: list[Action], rng: random.Random, snapshot: Snapshot) -> None:
    """Actions outside ``legal`` are refused without a trace; every legal one applies."""
    allowed = {canonical(a, h) for a in legal}
    tries = [random_action(h, rng) for _ in range(3)] + [
        near_miss(rng.choice(legal), h, rng) for _ in range(3)
    ]
    for a in tries:
        if canonical(a, h) in allowed:
            continue
        before = snapshot(h)
        with pytest.raises(IllegalAction) as info:
            h.apply(a)
        assert info.value.seat == getattr(a, "seat", None)
        assert info.value.rule
        assert snapshot(h) == before
    if rng.random() < 0.2:
        for a in legal:
            copy.deepcopy(h).apply(a)


def play_match(
    rules: NinesRules, players: int, seed: int, snapshot: Snapshot | None = None
) -> tuple[Match, list[tuple[object, ...]]]:
    """A whole match of random legal moves; with ``snapshot`` every step is checked."""
    rng = random.Random(seed)
    m = Match(rules=rules, players=players, dealer=rng.randrange(players))
    log: list[tuple[object, ...]] = []
    while not m.over:
        assert len(m.results) < MAX_HANDS, "the match does not end"
        dealt = list(deck(rules.deck_size // 52))
        rng.shuffle(dealt)
        h = m.start_hand(dealt)
        before = list(m.totals)
        for _ in range(MAX_STEPS):
            if h.phase is Phase.OVER:
                break
            if snapshot is not None:
                check_conserved(h, dealt)
            if h.needs_recycle():
                under = h.discards[:-1]
                rng.shuffle(under)
                h.apply(Recycle(stock=tuple(under)))
                continue
            legal = h.legal_actions()
            assert legal and h.to_act is not None
            assert all(getattr(a, "seat", None) == h.to_act for a in legal)
            assert len(set(legal)) == len(legal)
            if snapshot is not None:
                probe(h, legal, rng, snapshot)
            h.apply(legal[rng.randrange(len(legal))])
        else:
            raise AssertionError("the hand does not end")
        if snapshot is not None:
            check_conserved(h, dealt)
        result = m.close_hand()
        check_scores(h, result.penalties, before, list(m.totals), result.playoff)
        log.append((tuple(h.events), result))
    return m, log


def check_scores(
    h: HandState, pens: tuple[int, ...], before: list[int], after: list[int], playoff: bool
) -> None:
    nine = 25 if h.rules.hard_nines else 15
    for s in range(h.players):
        cards = h.hands[s]
        if s not in h.seats or s == h.out:
            assert cards == [] and pens[s] == 0
        else:
            assert cards and pens[s] == sum(penalty(c, nine) for c in cards) > 0
    assert (h.end == "out") == (h.out is not None)
    expected = before if playoff else [t + p for t, p in zip(before, pens, strict=True)]
    assert after == expected


def check_winners(m: Match) -> None:
    low = min(m.totals)
    assert m.winners
    assert all(m.totals[w] == low for w in m.winners)
    if m.rules.tie == "share":
        assert m.winners == tuple(s for s, t in enumerate(m.totals) if t == low)
    else:
        assert len(m.winners) == 1
    if m.rules.hands is not None:
        assert sum(not r.playoff for r in m.results) == m.rules.hands
    else:
        regular = [r for r in m.results if not r.playoff]
        assert max(regular[-1].totals) >= m.rules.target
        assert all(max(r.totals) < m.rules.target for r in regular[:-1])


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), players=player_counts, seed=seeds)
def test_random_matches_keep_every_invariant(
    rules: NinesRules, players: int, seed: int, snapshot: Snapshot
) -> None:
    m, _ = play_match(rules, players, seed, snapshot)
    check_winners(m)


@settings(max_examples=25, deadline=None)
@given(rules=rule_sets(), players=player_counts, seed=seeds)
def test_same_seed_same_game(rules: NinesRules, players: int, seed: int) -> None:
    m1, log1 = play_match(rules, players, seed)
    m2, log2 = play_match(rules, players, seed)
    assert log1 == log2
    assert (m1.totals, m1.winners, m1.results) == (m2.totals, m2.winners, m2.results)
    check_winners(m1)
