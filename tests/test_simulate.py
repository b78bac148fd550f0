"""The simulator and the ``simulate`` command: reproducible numbers, honest bookkeeping, clear errors."""

from __future__ import annotations

import json
import random
from collections import Counter

import pytest
from click.testing import CliRunner

from p2pcards.bots import make_bot
from p2pcards.bots.random_bot import RandomBot
from p2pcards.cards import Card, parse_cards
from p2pcards.cli import main
from p2pcards.errors import UsageError
from p2pcards.games.base import RandomShuffler, cut_for_deal
from p2pcards.games.nines.rules import GAME as NINES
from p2pcards.games.nines.rules import NinesRules
from p2pcards.sim import (
    SimResult,
    match_rngs,
    play_match,
    seat_names,
    simulate,
    wilson_interval,
)

TIMING_KEYS = {"elapsed_seconds", "hands_per_second", "matches_per_second"}


def _numbers(r: SimResult) -> dict[str, object]:
    """Everything but the clock."""
    return {k: v for k, v in r.to_dict().items() if k not in TIMING_KEYS}


def test_same_seed_same_numbers_other_seed_other_numbers() -> None:
    a = simulate(4, 12, ["heuristic", "random"], seed=5)
    b = simulate(4, 12, ["heuristic", "random"], seed=5)
    c = simulate(4, 12, ["heuristic", "random"], seed=6)
    assert _numbers(a) == _numbers(b)
    assert _numbers(a) != _numbers(c)


@pytest.mark.parametrize(
    ("players", "bots"),
    [
        (2, ["heuristic", "random"]),
        (4, ["heuristic", "random", "random", "random"]),
        (5, ["random", "heuristic"]),
    ],
)
def test_bookkeeping_adds_up(players: int, bots: list[str]) -> None:
    games = 9
    r = simulate(players, games, bots, seed=1)
    seats_per_match = Counter(bots[i % len(bots)] for i in range(players))
    assert sum(s.wins for s in r.strategies) == pytest.approx(games)
    assert sum(s.seats for s in r.strategies) == games * players
    for s in r.strategies:
        assert s.seats == games * seats_per_match[s.name]
        assert s.matches == games
        assert 0.0 <= s.win_interval[0] <= s.win_rate <= s.win_interval[1] <= 1.0
        assert s.hands == r.hands_played * seats_per_match[s.name]
    assert sum(s.outs for s in r.strategies) == r.hands_played - r.stalled_hands
    assert r.hands_per_match == r.hands_played / games
    assert r.hands_per_second > 0 and r.matches_per_second > 0


def test_a_shared_win_counts_one_kth_to_each_winner() -> None:
    # Two-hand matches of six: ties for the lowest total are common.
    bots = ["heuristic", "random"]
    rules = NinesRules(hands=2)
    r = simulate(6, 40, bots, seed=3, rules=rules)
    expected: Counter[str] = Counter()
    shared = 0
    for g in range(40):
        seating = seat_names(bots, 6, g)
        m = play_match(rules, [make_bot(n) for n in seating], *match_rngs(3, g))
        winners = m.winners or ()
        shared += len(winners) > 1
        for w in winners:
            expected[seating[w]] += 1 / len(winners)
    assert shared > 0
    assert any(s.wins != int(s.wins) for s in r.strategies)
    for s in r.strategies:
        assert s.wins == pytest.approx(expected[s.name])
    assert sum(s.wins for s in r.strategies) == pytest.approx(40)


def test_a_playoff_never_shares() -> None:
    # One-hand matches of two: a stalled hand with equal penalties is a tie.
    r = simulate(2, 100, ["random", "heuristic"], seed=3, rules=NinesRules(hands=1, tie="playoff"))
    assert r.hands_played > 100  # some ties went to a playoff hand
    assert all(s.wins == int(s.wins) for s in r.strategies)
    assert sum(s.wins for s in r.strategies) == 100
    # The playoff hand decides the winner only: penalties are counted over the 100 regular hands.
    assert all(s.hands == 100 for s in r.strategies)


def test_fixed_length_matches_play_that_many_hands() -> None:
    r = simulate(3, 7, ["heuristic", "random"], seed=2, rules=NinesRules(hands=3))
    assert r.hands_played == 21
    assert r.hands_per_match == 3


def test_seats_rotate_between_matches() -> None:
    names = ["heuristic", "random", "random"]
    for players in (2, 3, 4, 6):
        by_seat: list[Counter[str]] = [Counter() for _ in range(players)]
        for g in range(players):
            seating = seat_names(names, players, g)
            assert Counter(seating) == Counter(names[i % len(names)] for i in range(players))
            for s, n in enumerate(seating):
                by_seat[s][n] += 1
        # Over `players` matches every seat saw each strategy as often as it sits at the table.
        assert all(c == by_seat[0] for c in by_seat)
    assert seat_names(names, 4, 0) != seat_names(names, 4, 1)


def test_heuristic_beats_random_over_a_small_sample() -> None:
    r = simulate(4, 60, ["heuristic", "random", "random", "random"], seed=9)
    assert r.stats("heuristic").win_rate > r.stats("random").win_rate
    assert r.stats("heuristic").mean_penalty < r.stats("random").mean_penalty


def test_every_variant_runs_to_the_end() -> None:
    rules = NinesRules.parse(
        ["draw-until-playable", "action-cards", "double-nines", "stacking-nines", "hard-nines", "no-nine-out"]
    )
    for players in (2, 6):
        r = simulate(players, 3, ["heuristic", "random"], seed=0, rules=rules)
        assert sum(s.wins for s in r.strategies) == pytest.approx(3)
        assert r.rules == rules


def test_play_match_ends_with_a_winner_at_the_target() -> None:
    rng = random.Random(0)
    bots = [RandomBot(), make_bot("heuristic"), RandomBot()]
    m = play_match(NinesRules(), bots, rng, random.Random(1))
    assert m.over and m.winners
    assert max(m.totals) >= 100
    assert all(m.totals[w] == min(m.totals) for w in m.winners)


class _PresetShuffles:
    """Stands in for a generator: each shuffle lays the cards out in the next preset order."""

    def __init__(self, *orders: str) -> None:
        self.orders = [list(parse_cards(o.split())) for o in orders]

    def shuffle(self, cards: list[Card]) -> None:
        cards[:] = self.orders.pop(0)


def first_dealer(players: int, rng: object) -> int:
    return cut_for_deal(NINES, RandomShuffler(1, rng), players)[1]  # type: ignore[arg-type]


def test_first_dealer_is_the_lowest_cut_and_ties_cut_again() -> None:
    assert first_dealer(4, _PresetShuffles("KS 3H 2D QC")) == 2
    # Seats 1 and 2 tie with 2s and cut again between themselves: seat 2 shows the 3D, seat 1 the 5C.
    rng = _PresetShuffles("KS 2H 2D QC", "5C 3D AS AH")
    assert first_dealer(4, rng) == 2
    assert first_dealer(3, _PresetShuffles("AS 4H AD", "7C 6D")) == 2


def test_wilson_interval() -> None:
    # Reference values of the 95% Wilson interval (e.g. Newcombe 1998, Table I: 81/263).
    low, high = wilson_interval(81, 263)
    assert low == pytest.approx(0.2553, abs=5e-4)
    assert high == pytest.approx(0.3662, abs=5e-4)
    assert wilson_interval(0, 10)[0] == 0.0
    assert wilson_interval(10, 10)[1] == pytest.approx(1.0)


def test_bad_arguments_are_usage_errors() -> None:
    with pytest.raises(UsageError):
        simulate(1, 5, ["random"])
    with pytest.raises(UsageError):
        simulate(7, 5, ["random"])
    with pytest.raises(UsageError):
        simulate(4, 0, ["random"])
    with pytest.raises(UsageError, match="unknown bot"):
        simulate(4, 1, ["random", "nobody"])
    with pytest.raises(UsageError):
        simulate(4, 1, [" "])
    with pytest.raises(UsageError, match="3 bots named for 2 seats"):
        simulate(2, 1, ["heuristic", "random", "random"])


# ---------------------------------------------------------------------------
# The command


def test_cli_prints_the_table() -> None:
    res = CliRunner().invoke(
        main, ["simulate", "-n", "3", "-g", "6", "--bots", "heuristic,random", "-s", "2"]
    )
    assert res.exit_code == 0, res.output
    assert "heuristic" in res.output and "random" in res.output
    assert "win rate" in res.output and "hands/s" in res.output
    assert "6 matches, 3 players, seed 2" in res.output


def test_cli_json_has_the_numbers_and_the_rules() -> None:
    args = ["simulate", "-n", "4", "-g", "5", "-b", "heuristic,random,random,random", "--seed", "8", "--json"]
    res = CliRunner().invoke(
        main, [*args, "--rule", "hard-nines", "--rule", "target=150", "-r", "tie=playoff"]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert {
        "players",
        "games",
        "seed",
        "bots",
        "rules",
        "strategies",
        "hands_played",
        "hands_per_match",
    } <= set(data)
    assert set(data) >= TIMING_KEYS
    assert data["players"] == 4 and data["games"] == 5 and data["seed"] == 8
    assert (
        data["rules"]["hard_nines"] is True
        and data["rules"]["target"] == 150
        and data["rules"]["tie"] == "playoff"
    )
    names = {s["name"]: s for s in data["strategies"]}
    assert set(names) == {"heuristic", "random"}
    assert names["heuristic"]["seats"] == 5 and names["random"]["seats"] == 15
    for s in names.values():
        assert {"win_rate", "win_rate_ci95", "mean_penalty", "matches", "wins"} <= set(s)
    assert sum(s["wins"] for s in names.values()) == pytest.approx(5)
    # The command reports what the library computes for the same arguments.
    direct = simulate(4, 5, ["heuristic", "random", "random", "random"], seed=8,
                      rules=NinesRules(hard_nines=True, target=150, tie="playoff"))  # fmt: skip
    assert {k: v for k, v in data.items() if k not in TIMING_KEYS} == _numbers(direct)


def test_cli_reaches_every_rule_option() -> None:
    words = ["target=50", "hands=2", "tie=playoff", "draw-until-playable", "action-cards", "double-nines",
             "stacking-nines", "hard-nines", "no-nine-out"]  # fmt: skip
    args = ["simulate", "-n", "5", "-g", "2", "--json"] + [x for w in words for x in ("--rule", w)]
    res = CliRunner().invoke(main, args)
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["rules"] == NinesRules.parse(words).to_dict()
    assert all(v not in (False, None) for v in NinesRules.parse(words).to_dict().values())


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--bots", "heuristic,oracle"], "unknown bot 'oracle'"),
        (["--bots", ","], "at least one bot"),
        (["--rule", "wild-tens"], "unknown rule"),
        (["--rule", "target=lots"], "whole number"),
        (["--rule", "stacking-nines"], "needs double-nines"),
        (["--players", "7"], "--players"),
        (["--players", "1"], "--players"),
        (["--games", "0"], "--games"),
        (["-n", "2", "--bots", "heuristic,random,random"], "3 bots named for 2 seats"),
    ],
)
def test_cli_bad_arguments_fail_with_a_message(args: list[str], message: str) -> None:
    res = CliRunner().invoke(main, ["simulate", "-g", "1", *args])
    assert res.exit_code != 0
    assert message in res.output
    assert "Traceback" not in res.output
    assert res.exception is None or isinstance(res.exception, SystemExit)
