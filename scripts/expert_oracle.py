#!/usr/bin/env python3
"""How good the Nines expert's decisions are at each thinking budget, scored by an oracle.

Win rates need thousands of matches to tell a few points apart; a decision can be
scored directly. Decisions with a choice are taken from four-player matches of
heuristics (every third decision of seat 0). For each one, every legal move (one
per effect: a 9 once per declared suit) is played out from the *true* hands, the
stock's order drawn anew each time, with the heuristic finishing the hand, and
scored as the expert scores a hand (its chance of winning the match). That gives
each move's value. The expert then decides from the seat's view at each budget,
and its move's value is compared with the heuristic's move's value: the mean
difference is what the search gains per decision. The best move's value in
hindsight bounds it, and the same search dealt the true hands at the first budget
shows what seeing them would be worth.

    .venv/bin/python scripts/expert_oracle.py --decisions 400 --deals 300 --budgets 0.05,0.2,1
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from p2pcards.bots.expert import Budget, ExpertBot
from p2pcards.games.nines import expert
from p2pcards.games.nines.bots import HeuristicBot
from p2pcards.games.nines.rules import NINES, Action, NinesRules, Play, SeatView
from p2pcards.sim import match_rngs, play_match

Position = tuple[Any, int, tuple[int, ...], list[Action]]


class Recorder:
    """The heuristic at seat 0, keeping a copy of the table at every third decision with a choice."""

    name = "recorder"

    def __init__(self) -> None:
        self.bot = HeuristicBot()
        self.kept: list[Position] = []
        self.seen = 0

    def choose(self, view: SeatView, legal: list[Action], rng: random.Random) -> Action:
        if len(legal) > 1:
            self.seen += 1
            if self.seen % 3 == 0:
                self.kept.append((view._hand.copy(), view.seat, tuple(view.totals), list(legal)))
        return self.bot.choose(view, legal, rng)


def positions(count: int, seed: int) -> list[Position]:
    recorder, other = Recorder(), HeuristicBot()
    match = 0
    while len(recorder.kept) < count:
        play_match(NinesRules(), [recorder, other, other, other], *match_rngs(seed, match))
        match += 1
    return recorder.kept[:count]


class Seeing(expert.NinesSearch):
    """The same search dealt the true hands (the stock's order still unknown): what seeing
    the other hands would be worth, a bound on what reading them better could gain."""

    def __init__(self, truth: Any) -> None:
        super().__init__()
        self.truth = truth

    def determinise(self, obs: Any, rng: random.Random) -> Any:
        state = self.truth.copy()
        rng.shuffle(state.stock)
        return state


def effect(move: Action) -> object:
    """Moves that cannot differ are one: any 9 declaring the same suit."""
    if isinstance(move, Play) and move.card in NINES:
        return ("9", move.suit)
    return move


def score(job: tuple[list[tuple[int, Position]], int, list[float]]) -> list[dict[object, float]]:
    chunk, deals, budgets = job
    search = expert.NinesSearch()
    rows = []
    for i, (hand, seat, totals, legal) in chunk:
        view = SeatView(hand, seat, totals)
        rng = random.Random(1000 + i)
        incumbent = search.base.choose(view, legal, rng)
        moves = list({effect(m): m for m in legal}.values())
        if len(moves) < 2:
            continue
        obs = expert.observe(view, legal)
        total = dict.fromkeys(moves, 0.0)
        for _ in range(deals):
            truth = hand.copy()
            rng.shuffle(truth.stock)
            stream = rng.getrandbits(64)
            for m in moves:  # every move on the same deal and the same random stream
                state, play = truth.copy(), random.Random(stream)
                search.apply(state, m, play)
                search.rollout(state, play)
                total[m] += search.reward(obs, state)
        value = {effect(m): v / deals for m, v in total.items()}
        row: dict[object, float] = {"heuristic": value[effect(incumbent)], "best": max(value.values())}
        for b in budgets:
            bot = ExpertBot(expert.NinesSearch(), Budget(seconds=b))
            row[b] = value[effect(bot.choose(view, legal, random.Random(7 + i)))]
        seeing = ExpertBot(Seeing(hand), Budget(seconds=budgets[0]))
        row["seeing"] = value[effect(seeing.choose(view, legal, random.Random(7 + i)))]
        rows.append(row)
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=400)
    parser.add_argument("--deals", type=int, default=300, help="true-hand deals per move for its value")
    parser.add_argument("--budgets", default="0.05,0.2,1", help="seconds a decision, comma-separated")
    parser.add_argument("--seed", type=int, default=177)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    budgets = [float(b) for b in args.budgets.split(",")]
    start = time.perf_counter()
    items = list(enumerate(positions(args.decisions, args.seed)))
    jobs = [(items[j :: args.jobs], args.deals, budgets) for j in range(args.jobs)]
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = [r for part in pool.map(score, jobs) for r in part]
    best = statistics.fmean(r["best"] - r["heuristic"] for r in rows)
    print(f"{len(rows)} decisions with a choice; the best move in hindsight gains {best:.5f} a decision")
    print("budget  gain over the heuristic's move (chance of winning the match, per decision)")
    for b in budgets:
        gains = [r[b] - r["heuristic"] for r in rows]
        sem = statistics.stdev(gains) / len(gains) ** 0.5
        print(f"{b:>5g} s  {statistics.fmean(gains):+.5f} +- {sem:.5f}")
    gains = [r["seeing"] - r["heuristic"] for r in rows]
    sem = statistics.stdev(gains) / len(gains) ** 0.5
    print(f"{budgets[0]:>5g} s  {statistics.fmean(gains):+.5f} +- {sem:.5f}  seeing the other hands")
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
