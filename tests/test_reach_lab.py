"""Reaching a table through real NAT routers (the lab of ``natlab.py``), with real processes.

A host behind a home router that answers NAT-PMP, PCP and UPnP prints an internet-side
address that the router granted; a friend on the internet joins at it and a friend on
the host's own network joins at the LAN address, with nobody forwarding a port by hand.
Every address is in 198.18.0.0/15 inside namespaces the lab made (root, iproute2 and
nftables are needed; elsewhere these tests skip with the reason).
"""

from __future__ import annotations

import re
import signal
import time
from pathlib import Path

import pytest
from e2e_helpers import audit_json, processes, spawn_on
from natlab import nat_lab, place

from p2pcards.net.words import new_code

pytestmark = pytest.mark.slow

INVITED = re.compile(r"From the internet:\s*\n\s*\S+ join (\d+\.\d+\.\d+\.\d+):(\d+) --code")


@pytest.mark.parametrize(
    "speaks, method",
    [("pcp,natpmp,upnp", "PCP"), ("natpmp", "NAT-PMP"), ("upnp", "UPnP")],
    ids=["pcp", "natpmp-only", "upnp-only"],
)
def test_a_host_behind_a_home_router_is_reached_from_the_internet_and_its_lan(
    tmp_path: Path, speaks: str, method: str
) -> None:
    code = new_code()
    files = [tmp_path / f"t{i}.p2pt" for i in range(3)]
    with nat_lab() as lab, processes(tmp_path) as procs:
        router = lab.router("home", mapping=True, speaks=speaks)
        home, neighbour = lab.lan_host(router), lab.lan_host(router)
        friend = lab.internet_host()
        common = ["--bot", "random", "--no-discovery"]
        host = spawn_on(
            procs,
            home,
            "host",
            ["host", "-n", "3", "--port", "7777", *common, "--name", "Hal", "--transcript", str(files[0])],
            tmp_path / "h0",
            P2PCARDS_CODE=code,
        )
        assert host.wait_for("P2PCARDS_CODE", timeout=20), host.tail()  # the invitation's last line
        invited = INVITED.search(host.output())
        assert invited is not None, host.output()
        outside, outside_port = invited[1], int(invited[2])
        assert outside == router.wan  # the router's address, as its answer gave it
        assert f"of this machine ({method})" in host.output()
        # The neighbour joins first (seat 1), so the friend (seat 2) has to dial it: at its LAN
        # address, which the internet cannot reach, then at the neighbour's own mapping.
        lan_joiner = spawn_on(
            procs,
            neighbour,
            "neighbour",
            ["join", f"{home.address}:7777", *common[:2], "--name", "Nel", "--transcript", str(files[1])],
            tmp_path / "h1",
            P2PCARDS_CODE=code,
        )
        assert host.wait_for("Nel joined", timeout=20), host.tail()
        internet_joiner = spawn_on(
            procs,
            friend,
            "friend",
            [
                "join",
                f"{outside}:{outside_port}",
                *common[:2],
                "--name",
                "Fay",
                "--transcript",
                str(files[2]),
            ],
            tmp_path / "h2",
            P2PCARDS_CODE=code,
        )
        statuses = [p.finish(timeout=150) for p in (host, lan_joiner, internet_joiner)]
        outputs = [p.output() for p in (host, lan_joiner, internet_joiner)]
        granted = router.log()
    assert statuses == [0, 0, 0], "\n\n".join(outputs)
    assert f"Fay joined from {friend.address}" in outputs[0]  # through the mapping, from outside
    assert f"Nel joined from {neighbour.address}" in outputs[0]
    assert "your router forwards" in outputs[1]  # the neighbour mapped its own port too
    assert "router" not in outputs[2]  # the friend on the internet has no router to ask, or to mention
    for output in outputs:
        assert "through the host" not in output, output  # every pair linked directly
    # The router granted the host's and the neighbour's ports, and took both back at the end.
    mapped = {line.split()[2] for line in granted if line.startswith("granted TCP")}
    deleted = {line.split()[2] for line in granted if line.startswith("deleted TCP")}
    assert (
        mapped == deleted == {f"{home.address}:7777", *(a for a in mapped if a.startswith(neighbour.address))}
    )
    assert len(mapped) == 2, granted
    records = []
    for path in files:
        status, record = audit_json(path, home=tmp_path / "auditor")
        assert status == 0 and record["verdict"]["valid"], record["verdict"]
        records.append((record["result"], [p["key"] for p in record["players"]]))
    assert records[0] == records[1] == records[2]


def test_with_no_port_mapping_the_host_asks_nothing_and_says_how_to_forward(tmp_path: Path) -> None:
    with nat_lab() as lab, processes(tmp_path) as procs:
        router = lab.router("home", mapping=True)
        home = lab.lan_host(router)
        host = spawn_on(
            procs,
            home,
            "host",
            ["host", "-n", "2", "--port", "7777", "--bot", "random", "--no-discovery", "--no-port-mapping"],
            tmp_path / "h0",
            P2PCARDS_CODE=new_code(),
        )
        assert host.wait_for("forward TCP port", timeout=20), host.tail()
        host.popen.terminate()
        host.finish(timeout=20)
        granted = router.log()
    assert "From the internet:" not in host.output()
    assert not [line for line in granted if not line.startswith("ready")], granted


@pytest.mark.parametrize("speaks", ["pcp", "upnp"])
def test_ctrl_c_at_the_lobby_takes_the_mapping_back(tmp_path: Path, speaks: str) -> None:
    """A host interrupted while it waits for players deletes the mapping its router
    granted (by the protocol that granted it) before it exits."""
    with nat_lab() as lab, processes(tmp_path) as procs:
        router = lab.router("home", mapping=True, speaks=speaks)
        home = lab.lan_host(router)
        host = spawn_on(
            procs,
            home,
            "host",
            ["host", "-n", "3", "--port", "7777", "--bot", "random", "--no-discovery"],
            tmp_path / "h0",
            P2PCARDS_CODE=new_code(),
        )
        assert host.wait_for("From the internet:", timeout=20), host.tail()
        granted = router.wait_for_log("granted TCP")
        host.popen.send_signal(signal.SIGINT)
        status = host.finish(timeout=20)
        deleted = router.wait_for_log("deleted TCP")
    assert status == 130 and "Traceback" not in host.output(), host.output()
    assert granted.split()[2] == deleted.split()[2] == f"{home.address}:7777", (granted, deleted)


# ---------------------------------------------------------------------------
# The matrix: the host and two joiners behind different kinds of router

MATRIX = [
    # host, first joiner (seat 1), second joiner (seat 2), how seats 1 and 2 link
    ("home+pcp", "home", "home", "punched"),
    ("internet", "home", "home", "punched"),
    ("internet", "strict", "home", "relayed"),
    ("home+pcp", "home+pcp", "strict", "direct"),
    ("open", "open", "internet", "direct"),
]


def how_linked(output: str, name: str) -> str:
    """How a seat's output says it linked with ``name``: direct, punched or relayed."""
    if re.search(rf"linked with {name} \(seat \d\) through both routers", output):
        return "punched"
    if re.search(rf"cannot reach {name} \(seat \d\) directly", output):
        return "relayed"
    assert re.search(rf"linked directly with .*{name}", output), output
    return "direct"


@pytest.mark.parametrize(
    "host_at, first_at, second_at, expected", MATRIX, ids=["-".join(m[:3]) for m in MATRIX]
)
def test_the_reach_matrix(tmp_path: Path, host_at: str, first_at: str, second_at: str, expected: str) -> None:
    code = new_code()
    files = [tmp_path / f"t{i}.p2pt" for i in range(3)]
    with nat_lab() as lab, processes(tmp_path) as procs:
        machines = [place(lab, where) for where in (host_at, first_at, second_at)]
        host = spawn_on(
            procs,
            machines[0],
            "host",
            [
                "host",
                "-n",
                "3",
                "--port",
                "7777",
                "--bot",
                "random",
                "--no-discovery",
                "--name",
                "Hal",
                "--transcript",
                str(files[0]),
            ],
            tmp_path / "h0",
            P2PCARDS_CODE=code,
        )
        assert host.wait_for("P2PCARDS_CODE", timeout=20), host.tail()  # the invitation's last line
        invited = INVITED.search(host.output())
        if invited is not None:
            address = f"{invited[1]}:{invited[2]}"
        elif host_at == "open":
            address = f"{lab.routers[0].wan}:7777"
        else:
            address = f"{machines[0].address}:7777"
        joiners = []
        for seat, name in ((1, "Ann"), (2, "Bea")):
            joiners.append(
                spawn_on(
                    procs,
                    machines[seat],
                    name,
                    ["join", address, "--bot", "random", "--name", name, "--transcript", str(files[seat])],
                    tmp_path / f"h{seat}",
                    P2PCARDS_CODE=code,
                )
            )
            assert host.wait_for(f"{name} joined", timeout=30), host.tail() + joiners[-1].tail()
        statuses = [p.finish(timeout=150) for p in (host, *joiners)]
        outputs = [p.output() for p in (host, *joiners)]
    assert statuses == [0, 0, 0], "\n\n".join(outputs)
    pair = how_linked(outputs[2], "Ann"), how_linked(outputs[1], "Bea")
    print(f"\nhost {host_at}, Ann {first_at}, Bea {second_at}: Ann-Bea {pair[0]}")
    assert pair == (expected, expected), "\n\n".join(outputs)
    records = []
    for path in files:
        status, record = audit_json(path, home=tmp_path / "auditor")
        assert status == 0 and record["verdict"]["valid"], record["verdict"]
        records.append((record["result"], [p["key"] for p in record["players"]]))
    assert records[0] == records[1] == records[2]


HOST4 = [
    "host",
    "-n",
    "4",
    "--port",
    "7777",
    "--bot",
    "random",
    "--no-discovery",
    "--name",
    "Hal",
    "--rule",
    "hands=4",
]


def test_when_the_host_leaves_a_seat_linked_with_both_carries_a_relayed_pair(tmp_path: Path) -> None:
    """Ann and Bea sit behind strict routers: neither a dial nor hole punching links
    them, so their messages go through the host. Cat, on the internet, is linked with
    both. The host is interrupted once hand 1 is on: it signs that it leaves, and the
    three others play the match out, Cat carrying what Ann and Bea say to each other."""
    code = new_code()
    names = ("Hal", "Cat", "Ann", "Bea")
    files = [tmp_path / f"t{i}.p2pt" for i in range(4)]
    with nat_lab() as lab, processes(tmp_path) as procs:
        machines = [lab.internet_host(), lab.internet_host(), place(lab, "strict"), place(lab, "strict")]
        host = spawn_on(
            procs,
            machines[0],
            "Hal",
            [*HOST4, "--transcript", str(files[0])],
            tmp_path / "h0",
            P2PCARDS_CODE=code,
        )
        assert host.wait_for("P2PCARDS_CODE", timeout=20), host.tail()
        joiners = []
        for seat in (1, 2, 3):
            joiners.append(
                spawn_on(
                    procs,
                    machines[seat],
                    names[seat],
                    [
                        "join",
                        f"{machines[0].address}:7777",
                        "--bot",
                        "random",
                        "--name",
                        names[seat],
                        "--transcript",
                        str(files[seat]),
                    ],
                    tmp_path / f"h{seat}",
                    P2PCARDS_CODE=code,
                )
            )
            assert host.wait_for(f"{names[seat]} joined", timeout=30), host.tail() + joiners[-1].tail()
        assert host.wait_for("Hand 1", timeout=60), host.tail()
        host.popen.send_signal(signal.SIGINT)
        host_status = host.finish(timeout=30)
        left = time.monotonic()
        statuses = [p.finish(timeout=150) for p in joiners]
        print(f"\nthe three others played on for {time.monotonic() - left:.1f} s")
        outputs = [p.output() for p in joiners]
    everything = "\n\n".join([host.output(), *outputs])
    assert host_status == 130 and statuses == [0, 0, 0], everything
    assert how_linked(outputs[2], "Ann") == "relayed" and how_linked(outputs[1], "Bea") == "relayed", (
        everything
    )
    for out in outputs:
        assert "Hal left the match (interrupted)" in " ".join(out.split()), out
    records = []
    for path in files[1:]:
        status, record = audit_json(path, home=tmp_path / "auditor")
        assert status == 0 and record["verdict"]["valid"], record["verdict"]
        records.append(record["result"])
    assert records[0] == records[1] == records[2], records
