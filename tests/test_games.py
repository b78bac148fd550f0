"""The game registry and the one match loop every full-information match runs on."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pcards.bots import make_bot
from p2pcards.errors import UsageError
from p2pcards.games.base import MatchLoop, RandomShuffler, cut_for_deal, game
from p2pcards.sim import play_match


def test_every_game_is_found_by_its_name() -> None:
    assert game("nines").title == "Nines" and game("neuf").title == "Le Neuf"
    assert (game("neuf").min_players, game("neuf").max_players) == (3, 3)
    with pytest.raises(UsageError, match="unknown game 'belote'; choose from neuf, nines"):
        game("belote")


@pytest.mark.parametrize("name", ["nines", "neuf"])
def test_rule_options_round_trip_through_a_record(name: str) -> None:
    spec = game(name)
    rules = spec.parse_rules(())
    assert spec.rules_from_dict(rules.to_dict()) == rules


@settings(max_examples=15, deadline=None)
@given(name=st.sampled_from(["nines", "neuf"]), seed=st.integers(0, 10_000))
def test_the_loop_plays_any_game_to_its_end_and_the_same_seed_replays_it(name: str, seed: int) -> None:
    spec = game(name)
    players = 3
    rules = spec.parse_rules(["target=30"] if name == "nines" else ["start=2"])

    def run() -> tuple[object, ...]:
        bots = [make_bot("random", name) for _ in range(players)]
        match = play_match(rules, bots, random.Random(seed), random.Random(seed + 1), game=name)
        return (tuple(match.totals), match.winners, len(match.results))

    first = run()
    assert first == run()
    _, winners, hands = first
    assert winners and hands >= 1
    assert set(winners) <= set(range(players))


def test_the_cut_ends_with_one_dealer_by_each_games_rule() -> None:
    rng = random.Random(3)
    for name in ("nines", "neuf"):
        rounds, dealer = cut_for_deal(game(name), RandomShuffler(1, rng), 3)
        last = dict(rounds[-1])
        keep = game(name).cut_keeps(last)
        assert keep == [dealer]
        # Every seat of the last round that did not deal cut a card the game ranks differently.
        assert all(seat in last for seat in keep)


def test_the_loop_tells_its_observer_every_move_in_order() -> None:
    seen: list[str] = []

    class Log:
        def cut(self, rounds: object, dealer: int) -> None:
            seen.append("cut")

        def hand_start(self, hand: object) -> None:
            seen.append("start")

        def move(self, action: object) -> None:
            seen.append("move")

        def hand_end(self, hand: object, result: object, match: object) -> None:
            seen.append("end")

        def match_end(self, match: object) -> None:
            seen.append("over")

    spec = game("neuf")
    bots = [make_bot("random", "neuf") for _ in range(3)]
    rng = random.Random(1)
    loop = MatchLoop(
        spec,
        spec.parse_rules(["start=1"]),
        3,
        RandomShuffler(1, random.Random(2)),
        lambda seat, view, legal: bots[seat].choose(view, legal, rng),
        Log(),
    )
    match = loop.run()
    assert seen[0] == "cut" and seen[-1] == "over"
    assert seen.count("start") == seen.count("end") == len(match.results)
    # Le Neuf: 3 exchange decisions at least and 39 cards played per hand.
    assert seen.count("move") >= len(match.results) * 42
    with pytest.raises(UsageError, match="Le Neuf is for exactly 3 players, not 4"):
        MatchLoop(spec, spec.parse_rules(()), 4, RandomShuffler(1, rng), lambda *a: None).run()
