"""Benchmark group of Latency with real processes: a table of six machines whose every link
holds each byte 100 ms in each direction (the NAT lab, and a relay in each machine)."""


from __future__ import annotations

import itertools
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from benches.common import Row, group
from benches.latency import transcript_steps, trips_done

RELAY = Path(__file__).with_name("delay_relay.py")
RELAY_PORT = 7000
MARK = 0x7070
"""The firewall mark of the relay's own connections: they go out as they are."""
HAND = re.compile(r"── \S+ (\d+) ")
"""The heading a seat prints when a hand's cards are dealt (``── Hand 2 · ...``)."""
ENDED = "The match is over"


def relay_rules(port: int) -> str:
    """nftables rules sending every TCP connection the machine opens through the relay."""
    return (
        "table inet delay {\n"
        "  chain out {\n"
        "    type nat hook output priority -100;\n"
        f"    meta mark {MARK} return\n"
        f"    meta l4proto tcp oif != lo redirect to :{port}\n"
        "  }\n"
        "}\n"
    )


@dataclass(frozen=True, slots=True)
class RealRun:
    """One match of real processes: when the host showed each hand, and the transcript's trips."""

    hand_starts: list[float]
    ended: float
    trips_per_hand: list[int]
    """Critical-path trips of each hand, from its first step after the reveal before it to its reveal."""


class Timestamps:
    """Reads a process's output line by line, noting when each line arrived."""

    def __init__(self, proc: subprocess.Popen[bytes]) -> None:
        self.lines: list[tuple[float, str]] = []
        self.thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self.thread.start()

    def _read(self, proc: subprocess.Popen[bytes]) -> None:
        assert proc.stdout is not None
        for raw in proc.stdout:
            self.lines.append((time.monotonic(), raw.decode("utf-8", "replace")))


def run_real_match(players: int, delay: float, directory: Path, timeout: float = 900.0) -> RealRun:
    """A whole Nines match of random bots, one process a seat, each on its own lab machine."""
    from e2e_helpers import node_env
    from natlab import nat_lab

    from p2pcards.net.words import new_code
    from p2pcards.protocol.audit import audit_file

    code = new_code()
    exe = Path(sys.executable).with_name("p2pcards")
    with nat_lab(skip=False) as lab:
        machines = [lab.internet_host() for _ in range(players)]
        for m in machines:
            m.run(["nft", "-f", "-"], input=relay_rules(RELAY_PORT).encode(), check=True)
            relay = m.popen(
                [sys.executable, str(RELAY), str(RELAY_PORT), str(delay), str(MARK)], stdout=subprocess.PIPE
            )
            assert relay.stdout is not None
            relay.stdout.readline()  # "relaying": it listens
        procs = []
        for i, m in enumerate(machines):
            if i == 0:
                args = ["host", "-n", str(players), "--port", "7777", "--no-discovery"]
            else:
                args = ["join", f"{machines[0].address}:7777"]
            args += ["--bot", "random", "--name", f"p{i}", "--no-port-mapping"]
            args += ["--transcript", str(directory / f"t{i}.p2pt")]
            env = node_env(directory / f"home{i}", P2PCARDS_CODE=code)
            argv = [str(exe), *args]
            quiet = {"env": env, "stdin": subprocess.DEVNULL, "stderr": subprocess.STDOUT}
            if i == 0:  # its output is read as it comes, line by line
                procs.append(m.popen(argv, stdout=subprocess.PIPE, **quiet))
                time.sleep(1.0)  # the host listens before anyone dials
            else:
                with (directory / f"out{i}").open("wb") as out:
                    procs.append(m.popen(argv, stdout=out, **quiet))
        seen = Timestamps(procs[0])
        deadline = time.monotonic() + timeout
        while any(p.poll() is None for p in procs):
            failed = [i for i, p in enumerate(procs) if p.returncode]
            if failed or time.monotonic() > deadline:
                for p in procs:
                    p.kill()
                which = failed[0] if failed else 0
                if which == 0:
                    tail = "".join(line for _, line in seen.lines[-5:])
                else:
                    tail = (directory / f"out{which}").read_text(errors="replace")
                why = "failed" if failed else f"still played after {timeout:.0f} s"
                raise RuntimeError(f"node {which} {why}: {tail[-300:]}")
            time.sleep(0.1)
        seen.thread.join(5)
    starts = [t for t, line in seen.lines if HAND.search(line)]
    ended = next(t for t, line in seen.lines if ENDED in line)
    report = audit_file(directory / "t0.p2pt")
    if report.problems or report.table is None:
        raise RuntimeError(f"the host's transcript does not verify: {report.problems[:1]}")
    steps = transcript_steps(report.table)
    trips = trips_done(steps, players)
    ends = [k for k, s in enumerate(steps) if s.kind in ("cut-reveal", "reveal")]
    trips_per_hand = [trips[b] - trips[a] for a, b in itertools.pairwise(ends)]
    return RealRun(starts, ended, trips_per_hand)


@group("latency-real", "NAT lab (root, nftables): 6 processes, every link 100 ms one way, Nines to 100")
def latency_real_rows(quick: bool) -> list[Row]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
    from natlab import unavailable_reason

    players, delay = (3, 0.1) if quick else (6, 0.1)
    measure = f"Nines, {players} players, a hand after a hand, real processes, {delay * 1000:.0f} ms one way"
    reason = unavailable_reason()
    if reason is not None:
        return [Row(area="latency", measure=measure, value="skipped", notes=reason)]
    matches = 1 if quick else 3
    spans: list[float] = []
    trips: list[int] = []
    for _ in range(matches):
        with tempfile.TemporaryDirectory(prefix="p2pcards-lat-") as tmp:
            try:
                run = run_real_match(players, delay, Path(tmp))
            except (RuntimeError, OSError, subprocess.SubprocessError) as e:
                return [Row(area="latency", measure=measure, value="FAILED", notes=str(e)[:200])]
        # Hand k runs from its heading to the next one (the last: to the end of the match);
        # the first hand is left out, as in the virtual rows: it shuffles in steps of its own.
        edges = [*run.hand_starts, run.ended]
        for k in range(1, len(run.hand_starts)):
            spans.append(edges[k + 1] - edges[k])
            trips.append(run.trips_per_hand[k])
    if not spans:
        return [Row(area="latency", measure=measure, value="FAILED", notes="no hand after a first one")]
    per_trip = sum(spans) / sum(trips)
    return [
        Row(
            area="latency",
            measure=measure,
            value=f"{statistics.fmean(spans):.2f} s",
            notes=f"{len(spans)} hands after a first, {matches} match(es) of random bots (as the virtual "
            f"rows); {statistics.fmean(trips):.1f} trips a hand on the critical path, "
            f"{per_trip * 1000:.0f} ms a trip where the delay alone makes {delay * 1000:.0f} ms",
        )
    ]
