"""A connection whose path dies in silence, through a real router (the lab of ``natlab.py``).

A laptop that moves to another network, or a home router that forgets a connection,
leaves both ends of it open: nothing arrives and nothing says so. Here the joiner's
router starts dropping every packet of the joiner's connection to the host in the
middle of a match (an nftables rule on that one connection), while new connections
still go through. Both nodes must see the link broken (the data they keep sending is
never acknowledged) and the joiner must dial the host again; the match then ends as
on a good network. And one link, alone in a network namespace of its own, reads a
dead path from the system (``Link.stalled``) and does not take a frozen peer for one.
Every address is in 198.18.0.0/15 inside namespaces the lab made
(root, iproute2 and nftables are needed; elsewhere this test skips with the reason).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import trio.testing
from e2e_helpers import audit_json, processes, spawn_on
from natlab import _in_ns, nat_lab

from p2pcards.net.link import Link, tcp_info_answering, tcp_info_stalled
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


STALL_PROBE = r"""
import json, subprocess, trio
from p2pcards.net.link import Link

async def main():
    subprocess.run(["ip", "link", "set", "lo", "up"], check=True)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    link = Link(await trio.open_tcp_stream("127.0.0.1", port), peer="p")
    server = await listeners[0].accept()  # never reads: a frozen program, whose system still answers
    seen = {}
    await link.send(b"x" * 100)
    await trio.sleep(0.5)
    seen["live"] = link.stalled()
    for _ in range(6):
        await link.send(b"y" * 1000)
        await trio.sleep(0.8)
    seen["frozen peer"] = link.stalled()
    rule = f"type filter hook input priority 0; tcp dport {port} drop;"
    rules = f"table inet t {{\n chain i {{\n {rule}\n }}\n}}\n"
    subprocess.run(["nft", "-f", "-"], input=rules.encode(), check=True)
    await link.send(b"z" * 100)
    await trio.sleep(1.0)
    seen["dead 1 s"] = link.stalled()
    await trio.sleep(3.0)
    seen["dead 4 s"] = link.stalled()
    print(json.dumps(seen))
    server.socket.close()

trio.run(main)
"""


def test_a_link_reads_a_dead_path_from_the_system_and_not_a_frozen_peer() -> None:
    """A connection on 127.0.0.1 in a namespace of its own (``unshare -n``, gone with the
    process): the peer's program reads nothing, so only its system acknowledges; then an
    nftables rule drops every packet to the peer. The link says stalled only once the data
    it sent has waited ``STALLED`` (3 s) for an acknowledgement and been sent again."""
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("nft"):
        pytest.skip("needs root, unshare and nft")
    ran = subprocess.run(
        ["unshare", "-n", sys.executable, "-c", STALL_PROBE], capture_output=True, text=True, timeout=60
    )
    assert ran.returncode == 0, ran.stderr
    seen = json.loads(ran.stdout)
    assert seen == {"live": False, "frozen peer": False, "dead 1 s": False, "dead 4 s": True}


def test_the_system_s_report_is_read_at_linux_s_offsets() -> None:
    """``struct tcp_info``: retransmission timeouts in a row at byte 2, unacknowledged
    segments at 24, the milliseconds since the last acknowledgement at 56. A link without a
    socket cannot say."""

    def info(retransmits: int, unacked: int, since_ack_ms: int) -> bytes:
        raw = bytearray(104)
        raw[2] = retransmits
        raw[24:28] = unacked.to_bytes(4, sys.byteorder)
        raw[56:60] = since_ack_ms.to_bytes(4, sys.byteorder)
        return bytes(raw)

    assert tcp_info_stalled(info(2, 3, 3500)) is True
    assert tcp_info_stalled(info(0, 3, 3500)) is False  # not sent again yet: just sent after a quiet spell
    assert tcp_info_stalled(info(2, 0, 9000)) is False  # nothing waits: a quiet link
    assert tcp_info_stalled(info(2, 3, 2900)) is False  # acknowledged 2.9 s ago
    # Four timeouts in a row are 3 s or more with no progress, even when a segment of the
    # peer's own (its data getting through first) brought an acknowledgement of nothing new:
    assert tcp_info_stalled(info(4, 3, 100)) is True
    assert tcp_info_stalled(info(3, 3, 100)) is False
    assert tcp_info_stalled(info(2, 3, 3500)[:40]) is None
    assert Link(trio.testing.memory_stream_pair()[0]).stalled() is None
    # A path that carries: all acknowledged, the last within the time asked (a frozen peer's
    # system answers the keep-alives; a dead path leaves them unacknowledged).
    assert tcp_info_answering(info(0, 0, 4000), 11.0) is True
    assert tcp_info_answering(info(0, 0, 12000), 11.0) is False  # nothing acknowledged for 12 s
    assert tcp_info_answering(info(1, 2, 100), 11.0) is False  # data still waits
    assert tcp_info_answering(info(0, 0, 100)[:40], 11.0) is None
    assert Link(trio.testing.memory_stream_pair()[0]).answering(11.0) is None


async def test_a_link_taken_for_dead_is_reset_and_the_peer_learns_it_at_once() -> None:
    """``Link.reset`` sends a reset, not what waits to be sent (which a path that was dead
    holds back for the system's back-off): the other end's next read fails at once."""
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    mine = Link(await trio.open_tcp_stream("127.0.0.1", port))
    theirs = await listeners[0].accept()
    await mine.send(b"x" * 100)
    assert await theirs.receive_some(100) == b"x" * 100
    await mine.reset()
    with trio.fail_after(1), pytest.raises(trio.BrokenResourceError, match="reset"):
        await theirs.receive_some(100)
    await theirs.aclose()
    await listeners[0].aclose()
