"""``simulate --jobs N``: the matches spread over processes give the numbers of one job."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from p2pcards.cli import main
from p2pcards.errors import UsageError
from p2pcards.games.nines.rules import NinesRules
from p2pcards.sim import SimResult, simulate

TIMING_KEYS = {"elapsed_seconds", "hands_per_second", "matches_per_second"}


def _numbers(r: SimResult) -> dict[str, object]:
    return {k: v for k, v in r.to_dict().items() if k not in TIMING_KEYS}


@pytest.mark.parametrize(
    ("game", "players", "rules"),
    [
        ("nines", 4, None),
        ("nines", 3, NinesRules(action_cards=True, tie="playoff", target=50)),
        ("neuf", 3, None),
    ],
)
def test_same_seeds_same_results_with_one_job_or_two(game: str, players: int, rules: object) -> None:
    one = simulate(players, 13, ["heuristic", "random"], seed=11, rules=rules, game=game, jobs=1)
    two = simulate(players, 13, ["heuristic", "random"], seed=11, rules=rules, game=game, jobs=2)
    assert _numbers(one) == _numbers(two)
    assert one.hands_played > 13


def test_the_command_gives_the_same_json_with_jobs_1_and_2() -> None:
    runner = CliRunner()
    outs = []
    for jobs in ("1", "2"):
        args = ["simulate", "--games", "9", "--players", "5", "--seed", "3", "--json", "--jobs", jobs]
        result = runner.invoke(main, args)
        assert result.exit_code == 0, result.output
        data = json.loads(result.output)
        outs.append({k: v for k, v in data.items() if k not in TIMING_KEYS})
    assert outs[0] == outs[1]


def test_jobs_must_be_at_least_one() -> None:
    with pytest.raises(UsageError):
        simulate(4, 3, ["random"], jobs=0)
    result = CliRunner().invoke(main, ["simulate", "--games", "2", "--jobs", "0"])
    assert result.exit_code == 2
