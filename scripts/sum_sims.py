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
    used = 0
    for p in paths:
        try:
            data = json.loads(Path(p).read_text(encoding="utf-8"))
            games, elapsed = int(data["games"]), float(data["elapsed_seconds"])
            counts = [(str(s["name"]), int(s["seats"]), float(s["wins"])) for s in data["strategies"]]
        except (OSError, UnicodeDecodeError, ValueError, TypeError, KeyError) as exc:
            # A run still writing its file, or stopped: the others still add up.
            print(f"{p}: left out, not the output of a finished simulate --json ({exc})", file=sys.stderr)
            continue
        used += 1
        matches += games
        seconds += elapsed
        for name, n, w in counts:
            seats[name] = seats.get(name, 0) + n
            wins[name] = wins.get(name, 0.0) + w
    if not used:
        print("no simulate --json output to add up", file=sys.stderr)
        return 1
    print(f"{matches} matches in {used} files, {seconds:.0f} s of play")
    for name, n in seats.items():
        low, high = wilson_interval(wins[name], n)
        print(f"{name:14} seats {n:5}  wins {wins[name]:8.2f}  rate {100 * wins[name] / n:5.1f}%  "
              f"95% CI {100 * low:.1f}-{100 * high:.1f}%")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
