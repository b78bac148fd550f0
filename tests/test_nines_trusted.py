"""The trusted path (``HandState.apply_legal``) plays the same rules as the checked one (``apply``).

The engine's own loop applies the moves it takes from ``legal_actions`` without checking
them again; replicas check every peer's move. Both run the same handlers, and these
properties hold them to it: on every decision of many random matches, every legal action
leaves the same state by either path, and whole matches come out the same.
"""

from __future__ import annotations

import random

import pytest
from conftest import snapshot_hand
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_nines_properties import player_counts, rule_sets, seeds

from p2pcards.bots import make_bot
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
    """The loop's trusted path against the same loop made to check every move."""
    seats = [make_bot(bots) for _ in range(players)]
    fast = play_match(rules, seats, *match_rngs(seed, 0))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(HandState, "apply_legal", HandState.apply)
        slow = play_match(rules, seats, *match_rngs(seed, 0))
    assert _events(fast) == _events(slow)
