"""Benchmark groups of Groups: Groups."""


from __future__ import annotations

import random
import time
from typing import Any

from benches.common import ALL_VARIANTS, Row, group
from p2pcards.bots import make_bot
from p2pcards.games.base import game
from p2pcards.games.neuf.rules import NeufRules
from p2pcards.games.nines.rules import NinesRules
from p2pcards.sim import simulate


@group("engine", "rules-engine throughput: random bots, one process, hands per second")
def engine_rows(quick: bool) -> list[Row]:
    games = 20 if quick else 300
    rows = []
    for players in range(2, 7):
        r = simulate(players, games, ["random"], seed=1)
        rows.append(
            Row(
                area="engine",
                measure=f"{players} players, random bots, default rules",
                value=f"{r.hands_per_second:,.0f} hands/s",
                notes=f"{r.hands_played} hands in {r.elapsed:.2f} s, one core",
            )
        )
    r = simulate(4, games, ["random"], seed=1, rules=ALL_VARIANTS)
    rows.append(
        Row(
            area="engine",
            measure="4 players, random bots, every variant on",
            value=f"{r.hands_per_second:,.0f} hands/s",
            notes=f"{r.hands_played} hands in {r.elapsed:.2f} s, one core",
        )
    )
    for exchange in ("open", "blind"):
        r = simulate(
            3,
            games,
            ["random"],
            seed=1,
            game="neuf",
            rules=game("neuf").parse_rules([f"exchange={exchange}"]),
        )
        rows.append(
            Row(
                area="engine",
                measure=f"Le Neuf, 3 players, random bots, {exchange} exchanges",
                value=f"{r.hands_per_second:,.0f} hands/s",
                notes=f"{r.hands_played} hands in {r.elapsed:.2f} s, one core",
            )
        )
    return rows


def _spiel_hands(pyspiel: Any, players: int, hands: int, seed: int) -> float:
    """CPU seconds for ``hands`` games of OpenSpiel's ``crazy_eights`` (default parameters),
    random play: every chance outcome and every move drawn uniformly, as the Nines bots do."""
    spiel_game = pyspiel.load_game("crazy_eights", {"players": players})
    rng = random.Random(seed)
    start = time.process_time()
    for _ in range(hands):
        state = spiel_game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()  # uniform in this game: the deal and the draws
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
    return time.process_time() - start


@group("openspiel", "Nines beside OpenSpiel's crazy_eights (if pyspiel imports): random play, hands/s")
def openspiel_rows(quick: bool) -> list[Row]:
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return [
            Row(
                area="openspiel",
                measure="Nines beside OpenSpiel crazy_eights",
                value="skipped",
                notes="pyspiel does not import here: `pip install open_spiel` into the environment that runs "
                "this script (it is no dependency of p2pcards)",
            )
        ]
    runs, games = (3, 10) if quick else (15, 20)
    rows = []
    for players in (2, 4, 6):
        nines_s = spiel_s = 0.0
        hands = 0
        for run in range(runs):  # alternating runs: a busy machine slows both sides alike
            start = time.process_time()
            r = simulate(players, games, ["random"], seed=run)
            nines_s += time.process_time() - start
            spiel_s += _spiel_hands(pyspiel, players, r.hands_played, run)
            hands += r.hands_played
        rows.append(
            Row(
                area="openspiel",
                measure=f"{players} players: Nines hands/s over crazy_eights hands/s",
                value=f"{spiel_s / nines_s:.2f}x",
                notes=f"Nines {hands / nines_s:,.0f}, crazy_eights {hands / spiel_s:,.0f} hands/s; "
                f"{hands} hands each in {runs} alternating runs, random play, CPU time, one core",
            )
        )
    return rows


@group("bots", "heuristic vs random: 4-player matches to 100, 1 heuristic + 3 random seats")
def bot_rows(quick: bool) -> list[Row]:
    games = 200 if quick else 2000
    r = simulate(4, games, ["heuristic", "random", "random", "random"], seed=2024)
    h, rnd = r.stats("heuristic"), r.stats("random")
    rows = []
    for s in (h, rnd):
        low, high = s.win_interval
        rows.append(
            Row(
                area="bots",
                measure=f"{s.name} win rate per seat",
                value=f"{100 * s.win_rate:.1f}%",
                notes=f"95% CI {100 * low:.1f}-{100 * high:.1f}%, {s.seats} seats in {games} matches "
                "(baseline 25%, shared wins count 1/k)",
            )
        )
    for s in (h, rnd):
        rows.append(
            Row(
                area="bots",
                measure=f"{s.name} mean penalty per hand",
                value=f"{s.mean_penalty:.2f}",
                notes=f"over {s.hands} seat-hands; went out {s.outs} times",
            )
        )
    rows.append(
        Row(
            area="bots",
            measure="match length, 1 heuristic + 3 random",
            value=f"{r.hands_per_match:.2f} hands/match",
            notes=f"{r.matches_per_second:,.1f} matches/s, {r.hands_per_second:,.0f} hands/s",
        )
    )
    return rows


class TimedBot:
    """A strategy that times each decision with a choice (a forced move costs nothing)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.times: list[float] = []
        """Wall-clock seconds of each decision with a choice."""
        self.cpu: list[float] = []
        """Processor seconds of the same decisions (what the expert's budget counts)."""

    def choose(self, view: Any, legal: Any, rng: random.Random) -> Any:
        start, cpu = time.perf_counter(), time.thread_time()
        action = self.inner.choose(view, legal, rng)
        if len(legal) > 1:
            self.times.append(time.perf_counter() - start)
            self.cpu.append(time.thread_time() - cpu)
        return action


@group("expert", "expert vs heuristic: 1 expert (0.05 s a move) + 3 heuristic in Nines, + 2 in Le Neuf "
       "(--quick: one-hand matches)")
def expert_rows(quick: bool) -> list[Row]:
    rows = []
    cases = (
        ("nines", 4, NinesRules(hands=1) if quick else NinesRules(), 4 if quick else 100),
        ("neuf", 3, NeufRules(start=1 if quick else 9), 3 if quick else 30),
    )
    for game_name, players, rules, games in cases:
        bot = TimedBot(make_bot("expert:0.05", game_name))
        names: list[Any] = [bot] + ["heuristic"] * (players - 1)
        r = simulate(players, games, names, seed=2024, rules=rules, game=game_name)
        s = r.stats(bot.name)
        low, high = s.win_interval
        title = game(game_name).title
        rows.append(
            Row(
                area="expert",
                measure=f"{title}: expert:0.05 win rate, 1 of {players}",
                value=f"{100 * s.win_rate:.1f}%",
                notes=f"95% CI {100 * low:.1f}-{100 * high:.1f}%, {games} matches "
                f"(baseline {100 / players:.1f}%; README has the long runs)",
            )
        )
        times = sorted(bot.times)
        rows.append(
            Row(
                area="expert",
                measure=f"{title}: expert:0.05 time per searched decision",
                value=f"{1000 * sum(bot.cpu) / len(bot.cpu):.1f} ms CPU mean",
                notes=f"wall clock {1000 * sum(times) / len(times):.1f} ms mean, "
                f"{1000 * times[-1]:.1f} ms max, over {len(times)} decisions; "
                f"{r.elapsed / games:.1f} s per match",
            )
        )
    return rows


