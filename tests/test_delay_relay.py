"""The benchmark's delaying relay (scripts/benches/delay_relay.py) in a NAT lab: every TCP
connection a machine opens goes through it, to the address it was meant for, bytes intact
both ways and in order, a half-close passed on, each direction held for the delay."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from natlab import nat_lab

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from benches.latency_real import MARK, RELAY, RELAY_PORT, relay_rules

pytestmark = pytest.mark.slow

ECHO = """
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("0.0.0.0", 9000)); s.listen(); print("up", flush=True)
c, peer = s.accept()
data = b""
while chunk := c.recv(65536):
    data += chunk
c.sendall(peer[0].encode() + b" " + data[::-1]); c.close()
"""

CLIENT = """
import socket, sys, time
s = socket.create_connection((sys.argv[1], 9000))
start = time.monotonic()
for k in range(50):
    s.sendall(bytes([k]) * 1000)
s.shutdown(socket.SHUT_WR)
data = b""
while chunk := s.recv(65536):
    data += chunk
sys.stdout.buffer.write(f"{time.monotonic() - start:.3f} ".encode() + data)
"""


def test_the_relay_forwards_every_byte_to_the_meant_address_and_holds_each_direction() -> None:
    delay = 0.3
    with nat_lab() as lab:
        a, b = lab.internet_host(), lab.internet_host()
        a.run(["nft", "-f", "-"], input=relay_rules(RELAY_PORT).encode(), check=True)
        argv = [sys.executable, str(RELAY), str(RELAY_PORT), str(delay), str(MARK)]
        relay = a.popen(argv, stdout=subprocess.PIPE)
        assert relay.stdout is not None and relay.stdout.readline() == b"relaying\n"
        echo = b.popen([sys.executable, "-c", ECHO], stdout=subprocess.PIPE)
        assert echo.stdout is not None and echo.stdout.readline() == b"up\n"
        out = a.run([sys.executable, "-c", CLIENT, b.address], capture_output=True, check=True).stdout
        echo.wait(10)
    took, _, rest = out.partition(b" ")
    seen_from, _, body = rest.partition(b" ")
    sent = b"".join(bytes([k]) * 1000 for k in range(50))
    assert body == sent[::-1]  # every byte, in order, both ways; the EOF went through
    assert seen_from.decode() == a.address  # the relay dialled from a, to b itself
    assert float(took) >= 2 * delay  # the request and the answer were each held
