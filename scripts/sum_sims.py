"""Add up ``p2pcards simulate --json`` outputs of one setting played in chunks (different seeds).

    .venv/bin/python scripts/sum_sims.py FILE.json...

Prints, per strategy, the seats, wins, win rate and its 95% Wilson interval over
all the files, as ``simulate`` would for one long run. Long measurements are
run in chunks so that a part already played is kept when a run is stopped.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from p2pcards.sim import wilson_interval  # noqa: E402


def main(paths: list[str]) -> int:
    seats: dict[str, int] = {}
    wins: dict[str, float] = {}
    matches = 0
    seconds = 0.0
    for p in paths:
        data = json.loads(Path(p).read_text(encoding="utf-8"))
        matches += data["games"]
        seconds += data["elapsed_seconds"]
        for s in data["strategies"]:
            seats[s["name"]] = seats.get(s["name"], 0) + s["seats"]
            wins[s["name"]] = wins.get(s["name"], 0.0) + s["wins"]
    print(f"{matches} matches in {len(paths)} files, {seconds:.0f} s of play")
    for name, n in seats.items():
        low, high = wilson_interval(wins[name], n)
        print(f"{name:14} seats {n:5}  wins {wins[name]:8.2f}  rate {100 * wins[name] / n:5.1f}%  "
              f"95% CI {100 * low:.1f}-{100 * high:.1f}%")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
