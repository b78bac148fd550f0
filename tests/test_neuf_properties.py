"""Properties of the Le Neuf engine over random matches: any seed, any rule options."""

from __future__ import annotations

import dataclasses
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from p2pcards.cards import ALL_CARDS, deck
from p2pcards.errors import IllegalAction
from p2pcards.games.neuf.rules import (
    TRUMPS_HEARTS_FIRST,
    TRUMPS_SPADES_FIRST,
    Action,
    Decline,
    Exchange,
    HandState,
    Look,
    Match,
    NeufRules,
    Phase,
    PlayCard,
    replay_hand,
)

MAX_STEPS = 200
"""A hand is 3 exchange turns (up to 6 actions) and 39 cards."""


@st.composite
def rule_sets(draw: st.DrawFn) -> NeufRules:
    trumps = draw(
        st.sampled_from([TRUMPS_SPADES_FIRST, TRUMPS_HEARTS_FIRST])
        | st.permutations(["S", "H", "D", "C", None]).flatmap(
            lambda p: st.integers(1, 5).map(lambda n: p[:n])
        )
    )
    return NeufRules(
        trumps=tuple(trumps),
        exchange=draw(st.sampled_from(["open", "blind"])),
        start=draw(st.integers(1, 9)),
    )


seeds = st.integers(0, 2**32 - 1)


def _freeze(value: object) -> object:
    if isinstance(value, list | tuple):
        return tuple(_freeze(v) for v in value)
    if isinstance(value, dict):
        return tuple(sorted((k, _freeze(v)) for k, v in value.items()))
    return value


def snapshot(h: HandState) -> dict[str, object]:
    """Every slot of a hand, private ones included, as immutable values."""
    return {name: _freeze(getattr(h, name)) for name in HandState.__slots__}


def canonical(a: Action, h: HandState) -> Action:
    """The action as ``legal_actions`` lists it: naming the dummy's true cards adds nothing."""
    if isinstance(a, Look | Exchange) and a.cards is not None:
        cards = a.cards
        if isinstance(cards, tuple) and len(cards) == len(h.dummy) and set(cards) == set(h.dummy):
            return type(a)(seat=a.seat)
    return a


def some_cards(h: HandState, rng: random.Random) -> tuple[object, ...]:
    """The dummy's cards, right or with one mistake."""
    cards: list[object] = list(h.dummy)
    rng.shuffle(cards)
    mistake = rng.randrange(4)
    if mistake == 1:
        cards[0] = rng.choice(ALL_CARDS)
    elif mistake == 2:
        cards.pop()
    elif mistake == 3:
        cards[0] = cards[1]
    return tuple(cards)


def random_action(h: HandState, rng: random.Random) -> Action:
    """Any action at all: a random kind, seat and card (mostly illegal)."""
    seat = rng.randrange(4)
    kind = rng.randrange(5)
    if kind == 0:
        return Look(seat=seat, cards=rng.choice([None, some_cards(h, rng)]))  # type: ignore[arg-type]
    if kind == 1:
        return Exchange(seat=seat, cards=rng.choice([None, some_cards(h, rng)]))  # type: ignore[arg-type]
    if kind == 2:
        return Decline(seat=seat)
    return PlayCard(seat=seat, card=rng.choice(ALL_CARDS))


def near_miss(a: Action, h: HandState, rng: random.Random) -> Action:
    """A legal action with one field changed: the likeliest mistakes and cheats."""
    name = rng.choice([f.name for f in dataclasses.fields(a)])
    if name == "seat":
        value: object = rng.randrange(3)
    elif name == "card":
        pool = [c for hand in h.hands for c in hand] + h.dummy
        value = rng.choice([*h.hands[h.turn], rng.choice(pool)])
    else:
        value = some_cards(h, rng)
    return dataclasses.replace(a, **{name: value})


def check_conserved(h: HandState) -> None:
    cards = [c for hand in h.hands for c in hand] + h.dummy + h.played()
    assert None not in cards
    assert sorted(cards) == list(deck())  # type: ignore[type-var]
    assert sum(h.won) == len(h.tricks) and len(h.played()) == 3 * len(h.tricks) + len(h.current)


def probe(h: HandState, legal: list[Action], rng: random.Random) -> None:
    """Actions outside ``legal`` are refused without a trace; every legal one applies."""
    allowed = {canonical(a, h) for a in legal}
    for a in [random_action(h, rng) for _ in range(3)] + [
        near_miss(rng.choice(legal), h, rng) for _ in range(3)
    ]:
        if canonical(a, h) in allowed:
            continue
        before = snapshot(h)
        with pytest.raises(IllegalAction) as info:
            h.apply(a)
        assert info.value.seat == a.seat and info.value.rule
        assert snapshot(h) == before
    for a in legal:
        h.copy().apply(a)


def play_match(rules: NeufRules, seed: int, *, checks: bool) -> tuple[Match, list[tuple[object, ...]]]:
    """A whole match of random legal moves; with ``checks`` every step is probed."""
    rng = random.Random(seed)
    m = Match(rules=rules, dealer=rng.randrange(3))
    log: list[tuple[object, ...]] = []
    while not m.over:
        assert len(m.results) < 3 * rules.start - 1, "the match does not end"
        dealt = list(deck())
        rng.shuffle(dealt)
        h = m.start_hand(dealt)
        before = list(m.totals)
        for _ in range(MAX_STEPS):
            if h.phase is Phase.OVER:
                break
            legal = h.legal_actions()
            assert legal and h.to_act is not None
            assert all(a.seat == h.to_act for a in legal) and len(set(legal)) == len(legal)
            if checks:
                check_conserved(h)
                probe(h, legal, rng)
            h.apply(legal[rng.randrange(len(legal))])
        else:
            raise AssertionError("the hand does not end")
        check_conserved(h)
        assert h.revokes() == ()
        replay = replay_hand(rules, h.dealer, dealt, h.events, number=h.number)
        assert replay.valid and replay.complete and replay.hand.won == h.won
        result = m.close_hand()
        assert result.trump == rules.trump_of(result.number)
        assert list(m.totals) == [t + 4 - w for t, w in zip(before, h.won, strict=True)]
        assert sum(m.totals) == sum(before) - 1
        log.append((tuple(h.events), result))
    low = min(m.totals)
    assert low <= 0 and m.winners == tuple(s for s in range(3) if m.totals[s] == low)
    assert all(min(r.totals) > 0 for r in m.results[:-1])
    assert sum(m.totals) == 3 * rules.start - len(m.results)
    return m, log


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), seed=seeds)
def test_random_matches_keep_every_invariant(rules: NeufRules, seed: int) -> None:
    play_match(rules, seed, checks=True)


@settings(max_examples=20, deadline=None)
@given(rules=rule_sets(), seed=seeds)
def test_same_seed_same_game(rules: NeufRules, seed: int) -> None:
    m1, log1 = play_match(rules, seed, checks=False)
    m2, log2 = play_match(rules, seed, checks=False)
    assert log1 == log2
    assert (m1.totals, m1.winners, m1.results) == (m2.totals, m2.winners, m2.results)


@settings(max_examples=80, deadline=None)
@given(seed=seeds, rules=rule_sets())
def test_a_revoke_is_refused_live_and_reported_by_the_replay(seed: int, rules: NeufRules) -> None:
    """Let a random player revoke now and then: the live engine refuses each revoke,
    and a lenient replay of the same moves reports exactly those, by trick and seat."""
    rng = random.Random(seed)
    dealt = list(deck())
    rng.shuffle(dealt)
    strict = HandState(rules, 0, dealt)
    lenient = HandState(rules, 0, dealt, check_follow=False)
    revokes: list[tuple[int, int]] = []
    actions: list[Action] = []
    while lenient.phase is not Phase.OVER:
        legal = lenient.legal_actions()
        action = rng.choice(legal)
        if lenient.phase is Phase.PLAY and lenient.current and rng.random() < 0.1:
            off = [c for c in lenient.hands[lenient.turn] if c is not None and c.suit != lenient.led_suit]
            if off and len(legal) < len(lenient.hands[lenient.turn]):
                action = PlayCard(seat=lenient.turn, card=rng.choice(off))
                if not revokes:  # the strict engine has followed every move so far
                    with pytest.raises(IllegalAction) as info:
                        strict.copy().apply(action)
                    assert (info.value.seat, info.value.rule) == (lenient.turn, "follow-suit")
                revokes.append((lenient.trick_number, lenient.turn))
        lenient.apply(action)
        actions.append(action)
        if not revokes:
            strict.apply(action)
    assert [(r.trick, r.seat) for r in lenient.revokes()] == revokes
    replay = replay_hand(rules, 0, dealt, actions)
    assert replay.complete
    assert [(p.trick, p.seat, p.rule) for p in replay.problems] == [(t, s, "follow-suit") for t, s in revokes]
