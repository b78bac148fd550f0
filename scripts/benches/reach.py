"""Benchmark groups of Reach: a table of three linking through real NAT routers (the tests' NAT
lab)."""


from __future__ import annotations

import sys
import tempfile
import time
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from benches.common import Row, group

REACH_CELLS = [
    # host, first joiner, second joiner: where each machine sits (natlab.PLACES)
    ("open", "open", "internet"),
    ("home+pcp", "home+pcp", "strict"),
    ("home+pcp", "home", "home"),
    ("internet", "home", "home"),
    ("internet", "strict", "home"),
]


def _linked_at(procs: Iterable[Any], text: str, timeout: float) -> float:
    """The moment (time.monotonic) by which every process has printed ``text``."""
    deadline = time.monotonic() + timeout
    waiting = list(procs)
    while waiting:
        waiting = [p for p in waiting if text not in p.output()]
        if time.monotonic() > deadline:
            raise RuntimeError(f"no {text!r} from {', '.join(p.name for p in waiting)} in {timeout:.0f} s")
        time.sleep(0.02)
    return time.monotonic()


def reach_cell(where: tuple[str, str, str], directory: Path) -> tuple[float, str]:
    """Seconds from the host seating the last joiner to every seat showing the table
    fingerprint (every pair linked and the join step done), and how Ann and Bea linked."""
    from e2e_helpers import processes, spawn_on
    from natlab import nat_lab, place
    from test_reach_lab import INVITED, how_linked

    from p2pcards.net.words import new_code

    code = new_code()
    with nat_lab(skip=False) as lab, processes(directory) as procs:
        machines = [place(lab, w) for w in where]
        args = ["--bot", "random", "--no-discovery", "--rule", "hands=1"]
        host = spawn_on(
            procs,
            machines[0],
            "Hal",
            ["host", "-n", "3", "--port", "7777", *args],
            directory / "h0",
            P2PCARDS_CODE=code,
        )
        host.wait_for("P2PCARDS_CODE", timeout=20)
        invited = INVITED.search(host.output())  # the address its router granted
        if invited is not None:
            address = f"{invited[1]}:{invited[2]}"
        else:
            address = f"{lab.routers[0].wan if where[0] == 'open' else machines[0].address}:7777"
        joiners = []
        for seat, name in ((1, "Ann"), (2, "Bea")):
            argv = ["join", address, *args[:2], "--name", name]
            joiners.append(
                spawn_on(procs, machines[seat], name, argv, directory / f"h{seat}", P2PCARDS_CODE=code)
            )
            _linked_at([host], f"{name} joined", 30)
        seated = time.monotonic()
        linked = _linked_at([host, *joiners], "Table fingerprint", 60)
        how = how_linked(joiners[1].output(), "Ann")
    return linked - seated, how


@group("reach", "NAT lab (root, nftables): a table of 3 links every pair, by where each machine sits")
def reach_rows(quick: bool) -> list[Row]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from natlab import unavailable_reason

    reason = unavailable_reason()
    if reason is not None:
        return [Row(area="reach", measure="link every pair of a table of 3", value="skipped", notes=reason)]
    rows = []
    for where in REACH_CELLS[:2] if quick else REACH_CELLS:
        measure = f"host {where[0]}, Ann {where[1]}, Bea {where[2]}"
        with tempfile.TemporaryDirectory() as tmp:
            try:
                seconds, how = reach_cell(where, Path(tmp))
            except (RuntimeError, AssertionError, OSError) as e:
                rows.append(Row(area="reach", measure=measure, value="FAILED", notes=str(e)[:200]))
                continue
        rows.append(
            Row(
                area="reach",
                measure=measure,
                value=f"{seconds:.2f} s",
                notes=f"Ann-Bea {how}; from the last seat taken to every seat showing the table "
                "fingerprint (TLS links, join step); real processes, port mapping on",
            )
        )
    return rows


