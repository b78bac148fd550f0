"""A match across three test hosts: network namespaces joined by a bridge.

Each node runs in its own namespace with its own address, as on separate
machines: the host is dialled at its address, and the joiners link to each
other at the addresses the host saw them connect from. The namespaces, their
bridge and their addresses (in the test range 198.18.0.0/15) exist only for this
test, made by the NAT lab of tests/natlab.py (root and iproute2 are needed;
elsewhere the test is skipped).
"""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from e2e_helpers import CLI, Proc, Procs, audit_json, node_env, processes
from natlab import nat_lab

from p2pcards.net.words import new_code

pytestmark = pytest.mark.slow


@contextmanager
def lab_hosts(count: int) -> Iterator[list[tuple[str, str]]]:
    """``count`` hosts on the NAT lab's internet bridge; yields (namespace, address) of each.

    The lab (tests/natlab.py) keeps every address in 198.18.0.0/15 and every
    interface in namespaces of its own, and skips the test where it cannot run.
    """
    with nat_lab() as lab:
        hosts = [lab.internet_host() for _ in range(count)]
        yield [(h.ns, h.address) for h in hosts]


def spawn_in(procs: Procs, ns: str, name: str, args: list[str], home: Path, **env: str) -> Proc:
    """Like ``Procs.spawn``, inside namespace ``ns``."""
    log = procs.directory / f"{name}.out"
    with log.open("wb") as out:
        popen = subprocess.Popen(
            ["ip", "netns", "exec", ns, str(CLI), *args],
            env=node_env(home, **env),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    proc = Proc(name=name, argv=list(popen.args), log=log, popen=popen)  # type: ignore[arg-type]
    procs.started.append(proc)
    return proc


def test_a_match_across_three_hosts(tmp_path: Path) -> None:
    code = new_code()
    files = [tmp_path / f"t{i}.p2pt" for i in range(3)]
    with lab_hosts(3) as hosts, processes(tmp_path) as procs:
        (ns0, host_address), (ns1, addr1), (ns2, addr2) = hosts
        host = spawn_in(
            procs,
            ns0,
            "host",
            [
                "host",
                "-n",
                "3",
                "--port",
                "7777",
                "--bot",
                "random",
                "--name",
                "Hal",
                "--transcript",
                str(files[0]),
            ],
            tmp_path / "h0",
            P2PCARDS_CODE=code,
        )
        assert host.wait_for("Invitation code", timeout=20), host.tail()
        joiners = [
            spawn_in(
                procs,
                ns,
                f"j{i}",
                [
                    "join",
                    f"{host_address}:7777",
                    "--bot",
                    "heuristic",
                    "--name",
                    f"J{i}",
                    "--transcript",
                    str(files[i]),
                ],
                tmp_path / f"h{i}",
                P2PCARDS_CODE=code,
            )
            for i, ns in ((1, ns1), (2, ns2))
        ]
        statuses = [p.finish(timeout=120) for p in (host, *joiners)]
        outputs = [p.output() for p in (host, *joiners)]
    assert statuses == [0, 0, 0], "\n".join(outputs)
    # The host saw each joiner at its own address, and told the others where to link.
    assert f"J1 joined from {addr1}" in outputs[0] and f"J2 joined from {addr2}" in outputs[0]
    records = []
    for path in files:
        status, record = audit_json(path, home=tmp_path / "auditor")
        assert status == 0 and record["verdict"]["valid"], record["verdict"]
        records.append((record["result"], [p["key"] for p in record["players"]]))
    assert records[0] == records[1] == records[2]
