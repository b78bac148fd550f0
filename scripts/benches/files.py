"""Benchmark groups of Files: hostile transcripts, audited by the command a player runs."""


from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import NamedTuple

from benches.common import Row, group
from p2pcards.protocol.transcript import decode_file, encode_file

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "nines-3p-target30.p2pt"


class Pair(NamedTuple):
    """A ``[raw, sig]`` pair of a transcript file, whether or not it is a record."""

    raw: bytes
    sig: bytes


def junk_file(records: int) -> bytes:
    """The first 10 records of an honest match, then junk up to ``records`` records in all
    (each an empty ``[raw, sig]`` pair: 5 bytes): the 5 MB file of issue 16 at a million."""
    honest = [Pair(raw, sig) for raw, sig in decode_file(FIXTURE.read_bytes()).records[:10]]  # type: ignore[arg-type]
    junk = [Pair(b"", b"")] * (records - len(honest))
    return encode_file([*honest, *junk], saved_by=0, status="over")  # type: ignore[list-item]


def run_measured(args: list[str]) -> tuple[float, float, int]:
    """(seconds, peak resident MB, exit code) of ``python -m p2pcards ARGS`` in a fresh process,
    with this process's p2pcards (the child's own peak, from wait4)."""
    import p2pcards

    env = {**os.environ, "PYTHONPATH": str(Path(p2pcards.__file__).resolve().parent.parent)}
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "p2pcards", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    peak_mb = usage.ru_maxrss / 1024 if sys.platform != "darwin" else usage.ru_maxrss / 2**20
    return elapsed, peak_mb, child.returncode


@group("files", "hostile transcript files: p2pcards audit and replay of a file of junk records")
def files_rows(quick: bool) -> list[Row]:
    records = 100_000 if quick else 1_000_000
    data = junk_file(records)
    rows = []
    with tempfile.TemporaryDirectory(prefix="p2pcards-bench-files-") as root:
        path = Path(root) / "junk.p2pt"
        path.write_bytes(data)
        for command in ("audit", "replay"):
            seconds, peak, code = run_measured([command, str(path)])
            what = f"p2pcards {command} of a {len(data) / 1e6:.0f} MB junk file"
            notes = (
                f"{records:,} records, 10 of an honest match then empty pairs; a fresh process, exit {code}"
            )
            rows.append(Row(area="files", measure=f"{what}: seconds", value=f"{seconds:.1f} s", notes=notes))
            rows.append(
                Row(area="files", measure=f"{what}: peak MB", value=f"{peak:.0f} MB", notes="max RSS")
            )
    return rows


