"""A match across three test hosts: network namespaces joined by a bridge.

Each node runs in its own namespace with its own address, as on separate
machines: the host is dialled at its address, and the joiners link to each
other at the addresses the host saw them connect from. The namespaces and their
private addresses exist only for this test (root and iproute2 are needed;
elsewhere the test is skipped).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest
from e2e_helpers import CLI, Proc, Procs, audit_json, node_env, processes

from p2pcards.net.words import new_code

pytestmark = pytest.mark.slow


def _ip(*args: str) -> None:
    subprocess.run(["ip", *args], check=True, capture_output=True, timeout=10)


@contextmanager
def lab_hosts(count: int) -> Iterator[list[tuple[str, str]]]:
    """``count`` namespaces on one bridge; yields (namespace, address) of each."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("needs root and iproute2 to make test hosts")
    tag = f"p2p{os.getpid() % 10000}"
    subnet = f"10.231.{os.getpid() % 250}"
    bridge = f"{tag}br"
    made: list[str] = []
    try:
        try:
            _ip("link", "add", bridge, "type", "bridge")
            _ip("link", "set", bridge, "up")
            hosts = []
            for i in range(count):
                ns, outside, inside = f"{tag}n{i}", f"{tag}v{i}", f"{tag}p{i}"
                _ip("netns", "add", ns)
                made.append(ns)
                _ip("link", "add", outside, "type", "veth", "peer", "name", inside)
                _ip("link", "set", inside, "netns", ns)
                _ip("link", "set", outside, "master", bridge)
                _ip("link", "set", outside, "up")
                address = f"{subnet}.{i + 1}"
                _ip("-n", ns, "addr", "add", f"{address}/24", "dev", inside)
                _ip("-n", ns, "link", "set", inside, "up")
                _ip("-n", ns, "link", "set", "lo", "up")
                hosts.append((ns, address))
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as e:
            pytest.skip(f"cannot make test hosts here: {e}")
        yield hosts
    finally:
        for ns in made:
            with suppress(subprocess.CalledProcessError, subprocess.TimeoutExpired):
                _ip("netns", "del", ns)
        with suppress(subprocess.CalledProcessError, subprocess.TimeoutExpired):
            _ip("link", "del", bridge)


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
