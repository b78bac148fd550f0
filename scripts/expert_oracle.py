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
from p2pcards.cards import penalty
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
    """The same search dealt part of the truth: the hidden cards (other hands and the stock)
    are shuffled only within groups that ``sight`` names, so the deals keep exactly what that
    sight shows and nothing more. ``hands`` keeps every hand (the stock's order still unknown):
    what seeing the other hands would be worth, a bound on what reading them could gain."""

    def __init__(self, truth: Any, sight: str = "hands") -> None:
        super().__init__()
        self.truth = truth
        self.group = SIGHTS[sight]

    def determinise(self, obs: Any, rng: random.Random) -> Any:
        state = self.truth.copy()
        nxt = obs.seats[(obs.seats.index(obs.seat) + obs.direction) % len(obs.seats)]
        places = [(s, j) for s in obs.seats if s != obs.seat for j in range(len(state.hands[s]))]
        places += [(-1, j) for j in range(len(state.stock))]
        groups: dict[object, list[tuple[int, int]]] = {}
        for place in places:
            card = _at(state, place)
            groups.setdefault(self.group(card, place[0], place[0] == nxt), []).append(place)
        for group in groups.values():
            cards = [_at(state, place) for place in group]
            rng.shuffle(cards)
            for (s, j), card in zip(group, cards, strict=True):
                (state.stock if s == -1 else state.hands[s])[j] = card
        rng.shuffle(state.stock)
        return state


def _at(state: Any, place: tuple[int, int]) -> Any:
    s, j = place
    return state.stock[j] if s == -1 else state.hands[s][j]


SIGHTS: dict[str, Any] = {
    # group of a hidden card, from the card, where it lies (a seat, -1 for the stock) and
    # whether that seat plays next: cards of one group are shuffled among their places
    "hands": lambda card, where, nxt: where,
    "next": lambda card, where, nxt: where if nxt else None,
    "suits": lambda card, where, nxt: "9" if card in NINES else card.suit,
    "penalties": lambda card, where, nxt: "9" if card in NINES else penalty(card),
    "nines": lambda card, where, nxt: card in NINES,
    "counts": lambda card, where, nxt: None,
}
"""What a partial sight shows: ``suits``, how many cards of each suit (and how many 9s) each
hand holds, not which; ``penalties`` the same by penalty; ``nines`` where the 9s are;
``next`` the next player's hand; ``counts`` only the counts. Cards shuffled within a group
ignore who drew under what (``counts`` is the measure to set a partial sight against)."""


def kind(move: Action) -> str:
    """What sort of move it is, for ``--by-kind``: a natural card, a 9, or the move's name."""
    if isinstance(move, Play):
        return "9" if move.card in NINES else "card"
    return type(move).__name__.lower()


def effect(move: Action) -> object:
    """Moves that cannot differ are one: any 9 declaring the same suit."""
    if isinstance(move, Play) and move.card in NINES:
        return ("9", move.suit)
    return move


def score(job: tuple[list[tuple[int, Position]], int, list[float], list[str]]) -> list[dict[object, Any]]:
    chunk, deals, budgets, sights = job
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
        row: dict[object, Any] = {"heuristic": value[effect(incumbent)], "best": max(value.values())}
        for b in budgets:
            bot = ExpertBot(expert.NinesSearch(), Budget(seconds=b))
            chosen = bot.choose(view, legal, random.Random(7 + i))
            row[b] = value[effect(chosen)]
            if b == budgets[0]:  # what --by-kind reports
                row["kind"] = f"{kind(incumbent)} -> {kind(chosen)}"
        for sight in sights:
            seeing = ExpertBot(Seeing(hand, sight), Budget(seconds=budgets[0]))
            row[sight] = value[effect(seeing.choose(view, legal, random.Random(7 + i)))]
        rows.append(row)
    return rows


def gain(rows: list[dict[object, Any]], key: object) -> str:
    """The mean gain of ``key``'s move over the heuristic's, and its standard error."""
    gains = [r[key] - r["heuristic"] for r in rows]
    sem = statistics.stdev(gains) / len(gains) ** 0.5 if len(gains) > 1 else float("nan")
    return f"{statistics.fmean(gains):+.5f} +- {sem:.5f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--decisions", type=int, default=400)
    parser.add_argument("--deals", type=int, default=300, help="true-hand deals per move for its value")
    parser.add_argument("--budgets", default="0.05,0.2,1", help="seconds a decision, comma-separated")
    parser.add_argument(
        "--sights",
        default="hands",
        help=f"partial sights dealt to the search at the first budget, comma-separated: {', '.join(SIGHTS)}",
    )
    parser.add_argument(
        "--by-kind",
        action="store_true",
        help="also the gain at the first budget by sort of move: the heuristic's, then the expert's",
    )
    parser.add_argument("--seed", type=int, default=177)
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    budgets = [float(b) for b in args.budgets.split(",")]
    sights = [x for x in args.sights.split(",") if x]
    for sight in sights:
        if sight not in SIGHTS:
            parser.error(f"unknown sight {sight!r}: one of {', '.join(SIGHTS)}")
    start = time.perf_counter()
    items = list(enumerate(positions(args.decisions, args.seed)))
    jobs = [(items[j :: args.jobs], args.deals, budgets, sights) for j in range(args.jobs)]
    with ProcessPoolExecutor(args.jobs) as pool:
        rows = [r for part in pool.map(score, jobs) for r in part]
    best = statistics.fmean(r["best"] - r["heuristic"] for r in rows)
    print(f"{len(rows)} decisions with a choice; the best move in hindsight gains {best:.5f} a decision")
    print("budget  gain over the heuristic's move (chance of winning the match, per decision)")
    for b in budgets:
        print(f"{b:>5g} s  {gain(rows, b)}")
    for sight in sights:
        print(f"{budgets[0]:>5g} s  {gain(rows, sight)}  dealt what {sight} shows")
    if args.by_kind:
        b = budgets[0]
        print(f"at {b:g} s, by sort of move (the heuristic's -> the expert's): decisions, gain per decision")
        for pair in sorted({r["kind"] for r in rows}):
            some = [r for r in rows if r["kind"] == pair]
            print(f"  {pair:<20} {len(some):>5}  {gain(some, b)}")
    print(f"({time.perf_counter() - start:.0f} s)")


if __name__ == "__main__":
    main()
