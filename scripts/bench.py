"""Benchmarks: print one table of measured numbers (they never assert anything).

Run: ``.venv/bin/python scripts/bench.py [--quick] [--only GROUP]...``

Each group is a function ``(quick) -> list[Row]`` registered with
:func:`group`; to add numbers, write another such function (here or in a
module imported here). ``--only`` runs the named groups, ``--quick`` makes every
group small enough for a smoke run (its numbers are then rough).
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
import time

from benches.common import GROUPS, Row
from benches.latency import LATENCY_JSON

GROUP_MODULES = (
    "engine", "crypto", "protocol", "neuf", "latency", "latency_real", "network", "reach", "lobby", "files"
)
"""The modules of scripts/benches/, in the order their groups run (each registers its groups)."""

for _module in GROUP_MODULES:
    importlib.import_module(f"benches.{_module}")
_RANK = {name: i for i, name in enumerate(GROUP_MODULES)}  # a module imported by another registers early
for _name, _entry in sorted(GROUPS.items(), key=lambda kv: _RANK[kv[1][1].__module__.rpartition(".")[2]]):
    GROUPS[_name] = GROUPS.pop(_name)  # in the order of GROUP_MODULES, each module's in its own order


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
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the latency group's rows as JSON on stdout (the table goes to stderr)",
    )
    args = parser.parse_args(argv)
    if args.list:
        width = max(map(len, GROUPS))
        for name, (description, _) in GROUPS.items():
            print(f"{name:<{width}}  {description}")
        return 0
    selected = args.only or list(GROUPS)
    rows: list[Row] = []
    start = time.perf_counter()
    for name in selected:
        description, fn = GROUPS[name]
        print(f"running {name}: {description} ...", file=sys.stderr, flush=True)
        rows.extend(fn(args.quick))
    kind = "quick" if args.quick else "full"
    took = time.perf_counter() - start
    table = sys.stderr if args.json else sys.stdout
    print(format_rows(rows), file=table)
    print(f"\n({kind} run, {took:.1f} s; Python {sys.version.split()[0]})", file=table)
    if args.json:
        print(json.dumps(LATENCY_JSON, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
