"""Bot-versus-bot simulation of any game: many seeded matches, win rates and throughput.

This is a pure runner (no printing, no click): the ``simulate`` command and
``scripts/bench.py`` both build on it. It drives the rules engine with full
information, as the local game does, but every strategy only ever sees a
:class:`~p2pcards.games.nines.SeatView` of its own seat.

Conventions (each one is what the numbers mean):

* Seats take the strategy names in order, cycled when there are fewer names
  than seats (more names than seats is an error). Match ``g`` rotates that
  assignment by ``g`` seats, so over any ``players`` consecutive matches every
  strategy sits in every seat equally.
* A strategy's *seats* counts seat-matches: with ``random`` in three seats of a
  four-player match, one match gives ``random`` three seats. Its win rate is
  wins per seat, so with ``n`` equal strategies every win rate is ``1/n``.
* A shared win (tied lowest totals with ``tie=share``) counts ``1/k`` to each of
  the ``k`` winners, so the wins of all strategies add up to the number of
  matches exactly.
* Mean penalty per hand is over the hands that count towards the totals (a
  tie-break playoff hand decides the winner only and is left out).
* Every match draws its randomness from its own two generators seeded by
  ``(seed, match number)``, one for the cards (cut, deals, recycles) and one
  for the bots' choices: the same arguments give the same numbers, on any
  machine and in any order of matches.
* ``jobs`` spreads the matches over that many processes; since each match has
  its own generators and the counts only add up (wins as exact fractions), the
  numbers are the same with any number of jobs, only the clock differs.
* The 95% interval is Wilson's score interval on wins per seat. Seats of the
  same strategy in one match are not independent, so for a strategy that holds
  several seats the interval is a little narrower than it should be.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import pairwise
from typing import Any

from p2pcards.bots import Strategy, make_bot
from p2pcards.bots.random_bot import RandomBot, picker
from p2pcards.errors import UsageError
from p2pcards.games.base import MatchLoop, RandomShuffler, check_players
from p2pcards.games.base import game as get_game
from p2pcards.say import Number, Say

Z_95 = 1.959963984540054
"""Two-sided 95% normal quantile."""


def wilson_interval(wins: float, n: int, z: float = Z_95) -> tuple[float, float]:
    """Wilson score interval for a proportion (``wins`` may be fractional)."""
    if n <= 0:
        return (0.0, 1.0)
    p = wins / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


@dataclass(frozen=True, slots=True, kw_only=True)
class StrategyStats:
    """How one strategy did over all the seats it held."""

    name: str
    seats: int
    """Seat-matches held (a strategy in two seats of one match counts two)."""
    matches: int
    """Matches in which the strategy held at least one seat."""
    wins: float
    """Wins per seat, a shared win counting 1/k to each of its k winners."""
    hands: int
    """Seat-hands that counted towards the totals."""
    penalty: int
    """Sum of the penalties of those seat-hands."""
    outs: int
    """Hands this strategy ended by going out."""

    @property
    def win_rate(self) -> float:
        return self.wins / self.seats if self.seats else 0.0

    @property
    def win_interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.seats)

    @property
    def mean_penalty(self) -> float:
        return self.penalty / self.hands if self.hands else 0.0

    def to_dict(self) -> dict[str, object]:
        low, high = self.win_interval
        return {
            "name": self.name,
            "seats": self.seats,
            "matches": self.matches,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "win_rate_ci95": [low, high],
            "hands": self.hands,
            "mean_penalty": self.mean_penalty,
            "outs": self.outs,
        }


@dataclass(frozen=True, slots=True, kw_only=True)
class SimResult:
    """The numbers of one simulation run; ``to_dict`` for JSON, ``format_table`` for people."""

    players: int
    games: int
    seed: int
    bots: tuple[str, ...]
    """Strategy of each seat in match 0 (later matches rotate it)."""
    rules: Any
    strategies: tuple[StrategyStats, ...]
    hands_played: int
    """Every hand dealt, playoff hands included."""
    stalled_hands: int
    elapsed: float
    """Wall-clock seconds spent playing (not building the result)."""
    game: str = "nines"

    @property
    def hands_per_match(self) -> float:
        return self.hands_played / self.games if self.games else 0.0

    @property
    def hands_per_second(self) -> float:
        return self.hands_played / self.elapsed if self.elapsed > 0 else math.inf

    @property
    def matches_per_second(self) -> float:
        return self.games / self.elapsed if self.elapsed > 0 else math.inf

    def stats(self, name: str) -> StrategyStats:
        for s in self.strategies:
            if s.name == name:
                return s
        raise KeyError(name)

    def to_dict(self) -> dict[str, object]:
        return {
            "game": self.game,
            "players": self.players,
            "games": self.games,
            "seed": self.seed,
            "bots": list(self.bots),
            "rules": self.rules.to_dict(),
            "strategies": [s.to_dict() for s in self.strategies],
            "hands_played": self.hands_played,
            "hands_per_match": self.hands_per_match,
            "stalled_hands": self.stalled_hands,
            "elapsed_seconds": self.elapsed,
            "hands_per_second": self.hands_per_second,
            "matches_per_second": self.matches_per_second,
        }

    def format_table(self, say: Say | None = None) -> str:
        """A plain-text table: one row per strategy, then the totals (``say``: in a language)."""
        if say is None:
            from p2pcards.ui.i18n import Translator

            say = Translator()
        points = say(get_game(self.game).hand_points)

        def num(value: float, spec: str) -> str:
            return say.number(Number(value, spec))

        words = ("strategy", "seats", "wins", "win_rate", "interval")
        header = (*(say(f"sim_{k}") for k in words), points, say("sim_outs"))
        rows = [header]
        for s in self.strategies:
            low, high = s.win_interval
            rows.append(
                (
                    s.name,
                    str(s.seats),
                    _fmt_wins(s.wins, say),
                    f"{num(100 * s.win_rate, '.1f')}%",
                    f"{num(100 * low, '.1f')}-{num(100 * high, '.1f')}%",
                    num(s.mean_penalty, ".2f"),
                    str(s.outs),
                )
            )
        widths = [max(len(r[i]) for r in rows) for i in range(len(header))]
        lines = []
        for k, r in enumerate(rows):
            cells = [r[0].ljust(widths[0])] + [c.rjust(w) for c, w in zip(r[1:], widths[1:], strict=True)]
            lines.append("  ".join(cells).rstrip())
            if k == 0:
                lines.append("  ".join("-" * w for w in widths))
        defaults = get_game(self.game).parse_rules(()).to_dict()
        changed = {k: v for k, v in self.rules.to_dict().items() if v != defaults.get(k)}
        rules = ", ".join(f"{k.replace('_', '-')}={_fmt_rule(v)}" for k, v in changed.items())
        rules = rules or say("sim_default")
        lines.append("")
        title = get_game(self.game).title
        lines.append(say.n("sim_summary", self.games, game=title, n=self.games, players=self.players,
                           seed=self.seed, rules=rules))  # fmt: skip
        lines.append(
            say(
                "sim_speed",
                hands=self.hands_played,
                per_match=Number(self.hands_per_match, ".2f"),
                stalled=self.stalled_hands,
                elapsed=Number(self.elapsed, ".2f"),
                hps=Number(self.hands_per_second, ",.0f"),
                mps=Number(self.matches_per_second, ",.1f"),
            )
        )
        return "\n".join(lines)


def _fmt_wins(w: float, say: Say) -> str:
    return str(int(w)) if w == int(w) else say.number(Number(w, ".2f"))


def _fmt_rule(v: object) -> str:
    if isinstance(v, bool):
        return "yes" if v else "no"
    return str(v)


@dataclass(slots=True)
class _Tally:
    seats: int = 0
    matches: int = 0
    wins: int | Fraction = 0
    """Exact: a whole number until a win is shared (Fraction sums are slow, and most wins are whole)."""
    hands: int = 0
    penalty: int = 0
    outs: int = 0


def seat_names(names: Sequence[str], players: int, match: int) -> tuple[str, ...]:
    """Strategy of each seat in match number ``match`` (cycled, then rotated)."""
    base = [names[i % len(names)] for i in range(players)]
    r = match % players
    return tuple(base[(s + r) % players] for s in range(players))


def simulate(
    players: int,
    games: int,
    bots: Sequence[str | Strategy],
    seed: int = 0,
    rules: Any = None,
    game: str = "nines",
    jobs: int = 1,
) -> SimResult:
    """Play ``games`` matches of ``game`` among ``players`` seats run by ``bots``, in
    ``jobs`` processes (the strategies must then pickle, as the built-in ones do)."""
    spec = get_game(game)
    check_players(spec, players)
    if games < 1:
        raise UsageError(f"play at least one match, not {games}")
    if type(jobs) is not int or jobs < 1:
        raise UsageError(f"run at least one job, not {jobs}")
    strategies: dict[str, Strategy] = {}
    names: list[str] = []
    for b in bots:
        if isinstance(b, str):
            name = b.strip()
            if not name:
                continue
            if name not in strategies:
                strategies[name] = make_bot(name, game)
        else:
            name = b.name
            if strategies.setdefault(name, b) is not b:
                raise UsageError(f"two different strategies are both called {name!r}")
        names.append(name)
    if not names:
        raise UsageError("name at least one bot")
    if len(names) > players:
        raise UsageError(f"{len(names)} bots named for {players} seats")
    rules = rules if rules is not None else spec.parse_rules(())
    start = time.perf_counter()
    common = (players, names, strategies, seed, rules, spec.name)
    if jobs == 1 or games == 1:
        tallies, hands, stalled = _play_range(range(games), *common)
    else:
        tallies, hands, stalled = _play_in_processes(games, jobs, *common)
    elapsed = time.perf_counter() - start
    stats = tuple(
        StrategyStats(
            name=n,
            seats=t.seats,
            matches=t.matches,
            wins=float(t.wins),
            hands=t.hands,
            penalty=t.penalty,
            outs=t.outs,
        )
        for n, t in tallies.items()
    )
    return SimResult(
        players=players,
        games=games,
        seed=seed,
        bots=seat_names(names, players, 0),
        rules=rules,
        strategies=stats,
        hands_played=hands,
        stalled_hands=stalled,
        elapsed=elapsed,
        game=spec.name,
    )


_Counts = tuple[dict[str, _Tally], int, int]
"""Per-strategy tallies, hands played, stalled hands."""


def _play_range(
    matches: range,
    players: int,
    names: Sequence[str],
    strategies: dict[str, Strategy],
    seed: int,
    rules: Any,
    game: str,
) -> _Counts:
    """Play the matches numbered ``matches`` and count them (one job's share)."""
    tallies = {n: _Tally() for n in strategies}
    hands = stalled = 0
    for g in matches:
        seating = seat_names(names, players, g)
        match = play_match(rules, [strategies[n] for n in seating], *match_rngs(seed, g), game=game)
        hands += len(match.results)
        stalled += sum(1 for r in match.results if getattr(r, "end", None) == "stall")
        _tally(match, seating, tallies)
    return tallies, hands, stalled


def _play_in_processes(
    games: int,
    jobs: int,
    players: int,
    names: Sequence[str],
    strategies: dict[str, Strategy],
    seed: int,
    rules: Any,
    game: str,
) -> _Counts:
    """Cut the match numbers into runs, play the runs in ``jobs`` processes, add the counts up."""
    from concurrent.futures import ProcessPoolExecutor

    runs = min(games, 4 * jobs)  # a few runs per job, so that a slow run does not hold the rest
    bounds = [games * k // runs for k in range(runs + 1)]
    tallies = {n: _Tally() for n in strategies}
    hands = stalled = 0
    with ProcessPoolExecutor(max_workers=jobs) as pool:
        futures = [
            pool.submit(_play_range, range(lo, hi), players, names, strategies, seed, rules, game)
            for lo, hi in pairwise(bounds)
        ]
        for f in futures:
            part, h, st = f.result()
            hands += h
            stalled += st
            for n, t in part.items():
                total = tallies[n]
                total.seats += t.seats
                total.matches += t.matches
                total.wins += t.wins
                total.hands += t.hands
                total.penalty += t.penalty
                total.outs += t.outs
    return tallies, hands, stalled


def _tally(match: Any, seating: Sequence[str], tallies: dict[str, _Tally]) -> None:
    """Add one finished match to the per-strategy counts (a hand's points added to
    each total: Nines' penalties, Le Neuf's 4 - tricks)."""
    for result in match.results:
        out = getattr(result, "out", None)
        if out is not None:
            tallies[seating[out]].outs += 1
        if not getattr(result, "playoff", False):
            points = result.penalties if hasattr(result, "penalties") else result.scores
            for s, pen in enumerate(points):
                t = tallies[seating[s]]
                t.hands += 1
                t.penalty += pen
    for n in set(seating):
        tallies[n].matches += 1
    for n in seating:
        tallies[n].seats += 1
    winners = match.winners or ()
    share: int | Fraction = 1 if len(winners) <= 1 else Fraction(1, len(winners))
    for w in winners:
        tallies[seating[w]].wins += share


def match_rngs(seed: int, match: int) -> tuple[random.Random, random.Random]:
    """The generators of match number ``match``: one for the cards, one for the bots' choices."""
    return (
        random.Random(f"p2pcards-sim:{seed}:{match}:deal"),
        random.Random(f"p2pcards-sim:{seed}:{match}:bots"),
    )


def play_match(
    rules: Any,
    seats: Sequence[Strategy],
    deal_rng: random.Random,
    bot_rng: random.Random,
    game: str = "nines",
) -> Any:
    """Play one whole match with full information; returns the finished match.

    Cuts, deals and recycles come from ``deal_rng`` and the strategies' choices
    from ``bot_rng``, so two runs that differ only in a strategy see the same
    first deal.
    """
    spec = get_game(game)
    picks = [s.choose for s in seats]

    def choose(seat: int, view: Any, legal: Sequence[Any]) -> Any:
        return picks[seat](view, legal, bot_rng)

    shuffler = RandomShuffler(spec.deck_copies(rules), deal_rng)
    # Random bots only (the engine benchmark): no views, one call a move, the same draws.
    pick = picker(bot_rng) if all(type(s) is RandomBot for s in seats) else None
    return MatchLoop(spec, rules, len(seats), shuffler, choose, pick=pick).run()
