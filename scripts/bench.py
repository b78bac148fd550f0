"""Benchmarks: print one table of measured numbers (they never assert anything).

Run: ``.venv/bin/python scripts/bench.py [--quick] [--only GROUP]...``

Each group is a function ``(quick) -> list[Row]`` registered with
:func:`group`; to add numbers, write another such function (here or in a
module imported here). ``--only`` runs the named groups, ``--quick`` makes every
group small enough for a smoke run (its numbers are then rough).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass

from p2pcards.games.nines import NinesRules
from p2pcards.sim import simulate


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    area: str
    measure: str
    value: str
    notes: str = ""


GroupFn = Callable[[bool], list[Row]]
GROUPS: dict[str, tuple[str, GroupFn]] = {}
"""Group name -> (one-line description, row-producing function), in run order."""


def group(name: str, description: str) -> Callable[[GroupFn], GroupFn]:
    """Register a row-producing function under ``name`` (selectable with ``--only``)."""

    def register(fn: GroupFn) -> GroupFn:
        if name in GROUPS:
            raise ValueError(f"benchmark group {name!r} registered twice")
        GROUPS[name] = (description, fn)
        return fn

    return register


ALL_VARIANTS = NinesRules.parse(
    [
        "draw-until-playable",
        "action-cards",
        "double-nines",
        "stacking-nines",
        "hard-nines",
        "no-nine-out",
        "tie=playoff",
    ]
)


# ---------------------------------------------------------------------------
# Groups


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


# ---------------------------------------------------------------------------
# Running and printing


def format_rows(rows: list[Row]) -> str:
    header = Row(area="area", measure="measure", value="value", notes="notes")
    table = [header, *rows]
    widths = [max(len(getattr(r, f)) for r in table) for f in ("area", "measure", "value")]
    lines = []
    for k, r in enumerate(table):
        lines.append(
            f"{r.area:<{widths[0]}}  {r.measure:<{widths[1]}}  {r.value:>{widths[2]}}  {r.notes}".rstrip()
        )
        if k == 0:
            lines.append("  ".join("-" * w for w in widths) + "  -----")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small runs: a smoke test, rough numbers")
    parser.add_argument(
        "--only",
        action="append",
        metavar="GROUP",
        choices=list(GROUPS),
        help="run only this group (repeatable)",
    )
    parser.add_argument("--list", action="store_true", help="list the groups and exit")
    args = parser.parse_args(argv)
    if args.list:
        for name, (description, _) in GROUPS.items():
            print(f"{name:<10} {description}")
        return 0
    selected = args.only or list(GROUPS)
    rows: list[Row] = []
    start = time.perf_counter()
    for name in selected:
        description, fn = GROUPS[name]
        print(f"running {name}: {description} ...", file=sys.stderr, flush=True)
        rows.extend(fn(args.quick))
    print(format_rows(rows))
    kind = "quick" if args.quick else "full"
    took = time.perf_counter() - start
    print(f"\n({kind} run, {took:.1f} s; Python {sys.version.split()[0]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
