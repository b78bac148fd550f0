"""The trusted path (``HandState.apply_legal``) plays the same rules as the checked one (``apply``).

The engine's own loop applies the moves it takes from ``legal_actions`` without checking
them again; replicas check every peer's move. Both run the same handlers, and these
properties hold them to it: on every decision of many random matches, every legal action
leaves the same state by either path, and whole matches come out the same.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from conftest import snapshot_hand
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_nines_properties import player_counts, rule_sets, seeds

from p2pcards.bots import make_bot
from p2pcards.bots.random_bot import RandomBot, picker
from p2pcards.cards import deck
from p2pcards.games.nines.rules import HandState, Match, NinesRules, Phase, Recycle
from p2pcards.sim import match_rngs, play_match


def both_paths_agree(h: HandState) -> None:
    """Every legal action of ``h``, applied by each path to its own copy, gives the same hand."""
    for action in h.legal_actions():
        checked, trusted = h.copy(), h.copy()
        checked.apply(action)
        trusted.apply_legal(action)
        assert snapshot_hand(trusted) == snapshot_hand(checked), action


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), players=player_counts, seed=seeds)
def test_every_legal_action_same_state_by_both_paths(rules: NinesRules, players: int, seed: int) -> None:
    rng = random.Random(seed)
    m = Match(rules=rules, players=players, dealer=rng.randrange(players))
    decisions = 0
    while not m.over and len(m.results) < 30:
        dealt = list(deck(rules.deck_size // 52))
        rng.shuffle(dealt)
        h = m.start_hand(dealt)
        while h.phase is not Phase.OVER:
            if h.needs_recycle():
                under = h.discards[:-1]
                rng.shuffle(under)
                h.apply(Recycle(stock=tuple(under)))
                continue
            both_paths_agree(h)
            decisions += 1
            legal = h.legal_actions()
            # The match goes on by the trusted path, so later states are the trusted path's own.
            h.apply_legal(legal[rng.randrange(len(legal))])
        m.close_hand()
    assert decisions > 0


def _events(match: Match) -> list[object]:
    return [(tuple(h.events), h.hands, h.end, h.out) for h in match.history] + [
        (match.results, match.winners, match.totals)
    ]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), players=player_counts, seed=seeds, bots=st.sampled_from(["random", "heuristic"]))
def test_the_match_loop_plays_the_same_matches_checked(
    rules: NinesRules, players: int, seed: int, bots: str
) -> None:
    """The loop's trusted path against the same loop made to check every move (random bots
    play by ``HandState.play_out``, which the checked loop goes without)."""
    seats = [make_bot(bots) for _ in range(players)]
    fast = play_match(rules, seats, *match_rngs(seed, 0))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(HandState, "apply_legal", HandState.apply)
        mp.delattr(HandState, "play_out")
        slow = play_match(rules, seats, *match_rngs(seed, 0))
    assert _events(fast) == _events(slow)


class _SlowRandom(RandomBot):
    """The random bot as any other strategy: a view per seat, ``choose`` asked each move."""


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(rules=rule_sets(), players=player_counts, seed=seeds)
def test_play_out_plays_the_matches_of_the_checked_loop(rules: NinesRules, players: int, seed: int) -> None:
    """Random bots only: the engine plays each hand itself (``play_out``, the picks of
    ``random_bot.picker``, the trusted path), and the matches are move for move those of
    the loop asking each bot's ``choose`` with a view and checking every move."""
    calls = 0
    play_out = HandState.play_out

    def counted(h: HandState, *args: Any) -> None:
        nonlocal calls
        calls += 1
        play_out(h, *args)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(HandState, "play_out", counted)
        fast = play_match(rules, [RandomBot() for _ in range(players)], *match_rngs(seed, 0))
    assert calls == len(fast.history)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(HandState, "apply_legal", HandState.apply)
        slow = play_match(rules, [_SlowRandom() for _ in range(players)], *match_rngs(seed, 0))
    assert _events(fast) == _events(slow)


class _OtherRandom(random.Random):
    """A generator of another type: the picks go through its own ``randrange``."""


@pytest.mark.parametrize("make_rng", [random.Random, _OtherRandom])
@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 8, 31, 1023, 1024, 1500])
def test_the_picker_draws_as_the_random_bot(make_rng: type[random.Random], n: int) -> None:
    legal = list(range(n))
    rng_bot, rng_pick = make_rng(n), make_rng(n)
    pick = picker(rng_pick)
    bot = RandomBot()
    for _ in range(50):
        assert pick(legal) == bot.choose(None, legal, rng_bot)
    assert rng_pick.getstate() == rng_bot.getstate()
