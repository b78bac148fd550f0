"""Benchmark groups of Network: one process per node over loopback TCP."""


from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from benches.common import Row, group
from benches.protocol import invalid_row, timed_audit
from p2pcards.protocol.transcript import decode_file
from p2pcards.protocol.wire import parse_record


@dataclass(frozen=True, slots=True)
class NodeFigures:
    records: int
    frame_bytes: int


def own_frames(data: bytes, seat: int) -> NodeFigures:
    """The records ``seat`` authored in a transcript, and the sum of their frame sizes."""
    count = size = 0
    for raw, sig in decode_file(data).records:
        rec = parse_record(raw, sig)
        if rec.record.seat == seat:
            count += 1
            size += len(rec.to_frame())
    return NodeFigures(records=count, frame_bytes=size)


def _wait_for_port(out: Path, proc: subprocess.Popen[bytes], deadline: float) -> int:
    while time.perf_counter() < deadline:
        for line in out.read_text(errors="replace").splitlines():
            if line.startswith("Hosting") and " on port " in line:
                return int(line.rsplit(" on port ", 1)[1].rstrip("."))
        if proc.poll() is not None:
            raise RuntimeError(f"the host exited early with status {proc.returncode}")
        time.sleep(0.01)
    raise RuntimeError("the host did not start listening in time")


@dataclass(frozen=True, slots=True)
class NetworkRun:
    wall_s: float
    listening_s: float
    exit_codes: tuple[int, ...]
    transcripts: tuple[bytes, ...]


def run_network_match(players: int, target: int, timeout: float = 120.0) -> NetworkRun:
    """Host + joiners as separate ``p2pcards`` processes on 127.0.0.1, random bots."""
    from p2pcards.net.words import new_code

    exe = Path(sys.executable).parent / "p2pcards"
    code = new_code()
    procs: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory(prefix="p2pcards-bench-") as tmp:
        root = Path(tmp)

        def spawn(i: int, args: list[str]) -> subprocess.Popen[bytes]:
            env = dict(
                os.environ,
                P2PCARDS_HOME=str(root / f"home{i}"),
                P2PCARDS_CODE=code,
                P2PCARDS_LANG="en",
                P2PCARDS_NO_PORT_MAPPING="1",  # loopback: no router to ask
            )
            with open(root / f"out{i}", "wb") as out, open(root / f"err{i}", "wb") as err:
                p = subprocess.Popen(
                    [str(exe), *args, "--bind", "127.0.0.1", "--bot", "random", "--name", f"n{i}",
                     "--transcript", str(root / f"t{i}.p2pt")],
                    env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                )  # fmt: skip
            procs.append(p)
            return p

        try:
            start = time.perf_counter()
            deadline = start + timeout
            rule = [] if target == 100 else ["-r", f"target={target}"]
            host = spawn(0, ["host", "-n", str(players), "--port", "0", "--code", code, *rule])
            port = _wait_for_port(root / "out0", host, deadline)
            listening = time.perf_counter() - start
            for i in range(1, players):
                spawn(i, ["join", f"127.0.0.1:{port}"])
            while any(p.poll() is None for p in procs):
                if time.perf_counter() > deadline:
                    raise RuntimeError(f"the network match did not end within {timeout:.0f} s")
                time.sleep(0.005)
            ended = time.perf_counter()
            codes = tuple(p.returncode for p in procs)
            if any(codes):
                err = (root / f"err{codes.index(next(c for c in codes if c))}").read_text(errors="replace")
                raise RuntimeError(f"a node failed (exit codes {codes}): {err.strip()[-300:]}")
            transcripts = tuple((root / f"t{i}.p2pt").read_bytes() for i in range(players))
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
    return NetworkRun(wall_s=ended - start, listening_s=listening, exit_codes=codes, transcripts=transcripts)


@group("network", "4 processes over loopback TCP: match to 100 with random bots, wall time and traffic")
def network_rows(quick: bool) -> list[Row]:
    n = 4
    try:
        run = run_network_match(n, 100)
    except (RuntimeError, OSError) as e:
        return [
            Row(
                area="network",
                measure="4 players, match to 100, 4 processes, TCP",
                value="FAILED",
                notes=str(e),
            )
        ]
    wall = Row(
        area="network",
        measure="4 players, match to 100, 4 processes, TCP",
        value=f"{run.wall_s:.2f} s",
        notes=f"host start to last exit, incl. start-up (host listening after {run.listening_s:.2f} s) "
        "and the closing linger",
    )
    audit_s, _, report = timed_audit(run.transcripts[0])
    if not report.valid or report.table is None or report.table.match is None:
        return [wall, invalid_row("network", report, run.transcripts)]
    hands = len(report.table.match.results)
    figures = [own_frames(data, seat) for seat, data in enumerate(run.transcripts)]
    recs = [f.records for f in figures]
    sent = [f.frame_bytes * (n - 1) for f in figures]
    sizes = [len(d) for d in run.transcripts]
    return [
        Row(area="network", measure=wall.measure, value=wall.value, notes=f"{hands} hands; {wall.notes}"),
        Row(
            area="network",
            measure="messages (records) authored per node",
            value=f"{statistics.mean(recs):.0f}",
            notes=f"range {min(recs)}-{max(recs)}, {statistics.mean(recs) / hands:.1f} per hand; "
            f"each sent to {n - 1} peers",
        ),
        Row(
            area="network",
            measure="bytes sent per node",
            value=f"{statistics.mean(sent) / 1024:.0f} KiB",
            notes=f"sum of frame sizes of its own records x {n - 1} peers (range {min(sent) / 1024:.0f}-"
            f"{max(sent) / 1024:.0f} KiB); lobby, mesh handshake and TCP/IP headers not counted",
        ),
        Row(
            area="network",
            measure="bytes per hand, all links",
            value=f"{sum(sent) / hands / 1024:.0f} KiB",
            notes=f"{sum(sent) / 1024:.0f} KiB over {hands} hands",
        ),
        Row(
            area="network",
            measure="transcript file per node",
            value=f"{statistics.mean(sizes) / 1024:.0f} KiB",
            notes=f"{statistics.mean(sizes) / hands / 1024:.1f} KiB per hand",
        ),
        Row(
            area="network",
            measure="audit of one node's transcript",
            value=f"{audit_s:.2f} s",
            notes="audit_bytes of the host's file (valid)",
        ),
    ]


