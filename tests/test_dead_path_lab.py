"""A connection whose path dies in silence, through a real router (the lab of ``natlab.py``).

A laptop that moves to another network, or a home router that forgets a connection,
leaves both ends of it open: nothing arrives and nothing says so. Here the joiner's
router starts dropping every packet of the joiner's connection to the host in the
middle of a match (an nftables rule on that one connection), while new connections
still go through. Both nodes must see the link broken (the data they keep sending is
never acknowledged) and the joiner must dial the host again; the match then ends as
on a good network. Every address is in 198.18.0.0/15 inside namespaces the lab made
(root, iproute2 and nftables are needed; elsewhere this test skips with the reason).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from e2e_helpers import audit_json, processes, spawn_on
from natlab import _in_ns, nat_lab

from p2pcards.net.words import new_code

pytestmark = pytest.mark.slow

HOST = ["host", "-n", "2", "--port", "7777", "--bot", "expert:0.3", "--no-discovery", "--rule", "hands=3"]


def named(name: str, transcript: Path) -> list[str]:
    return ["--name", name, "--transcript", str(transcript)]


def test_a_joiner_whose_router_forgets_its_connection_dials_again_and_the_match_ends(tmp_path: Path) -> None:
    code = new_code()
    files = [tmp_path / f"t{i}.p2pt" for i in range(2)]
    mapping = ["--no-port-mapping"]
    with nat_lab() as lab, processes(tmp_path) as procs:
        router = lab.router("home")
        laptop = lab.lan_host(router)
        server = lab.internet_host()
        # Thinking bots (0.3 s of processor time a move at most), so that the match is
        # still on when the path dies; three hands.
        host = spawn_on(
            procs,
            server,
            "host",
            [*HOST, *mapping, *named("Hal", files[0])],
            tmp_path / "h0",
            P2PCARDS_CODE=code,
        )
        assert host.wait_for("P2PCARDS_CODE", timeout=20), host.tail()
        joiner = spawn_on(
            procs,
            laptop,
            "joiner",
            ["join", f"{server.address}:7777", "--bot", "expert:0.3", *mapping, *named("Jo", files[1])],
            tmp_path / "h1",
            P2PCARDS_CODE=code,
        )
        assert host.wait_for("Hand 1", timeout=60), host.tail()
        sockets = laptop.run(
            ["ss", "-tnH", "state", "established", "dst", f"{server.address}:7777"],
            capture_output=True,
            text=True,
        ).stdout
        ports = re.findall(rf"{re.escape(laptop.address)}:(\d+)", sockets)
        assert len(ports) == 1, sockets
        port = ports[0]
        for rule in (
            ["ip", "saddr", laptop.address, "tcp", "sport", port, "drop"],
            ["ip", "daddr", laptop.address, "tcp", "dport", port, "drop"],
        ):
            _in_ns(router.ns, ["nft", "insert", "rule", "ip", "natlab", "forward", *rule])
        statuses = [p.finish(timeout=150) for p in (host, joiner)]
        outputs = [p.output() for p in (host, joiner)]
    assert statuses == [0, 0], "\n\n".join(outputs)
    assert "Jo (seat 1) lost connection: reconnecting" in outputs[0], outputs[0]
    assert "Jo (seat 1) is back after" in outputs[0], outputs[0]
    assert "Hal (seat 0) is back after" in outputs[1], outputs[1]
    records = []
    for path in files:
        status, record = audit_json(path, home=tmp_path / "auditor")
        assert status == 0 and record["verdict"]["valid"], record["verdict"]
        records.append(record["result"])
    assert records[0] == records[1]
