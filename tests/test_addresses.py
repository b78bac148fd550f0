"""Dual stack by default: a seat started without --bind is reached over IPv6 and IPv4.

One port for both (a single socket with IPV6_V6ONLY off here), IPv4 peers shown as
IPv4 addresses, and every address written the way a person types it back.
"""

from __future__ import annotations

import socket
from dataclasses import replace
from pathlib import Path

import pytest
import trio
from net_helpers import CODE, RecordingUI, closed_port, config, start_host

from p2pcards.errors import PeerUnreachable
from p2pcards.games.nines.rules import NinesRules
from p2pcards.net.addresses import EVERY_ADDRESS, listen, show_address, unmapped
from p2pcards.net.node import Outcome, join_game


def has_ipv6_loopback() -> bool:
    try:
        with socket.socket(socket.AF_INET6) as s:
            s.bind(("::1", 0))
        return True
    except OSError:
        return False


needs_ipv6 = pytest.mark.skipif(not has_ipv6_loopback(), reason="no IPv6 loopback on this machine")


def test_addresses_are_written_as_typed_back() -> None:
    assert show_address("2001:db8::5", 7777) == "[2001:db8::5]:7777"
    assert show_address("192.0.2.1", 7777) == "192.0.2.1:7777"
    assert show_address("my-pc", 7777) == "my-pc:7777"
    assert unmapped("::ffff:192.0.2.9") == "192.0.2.9"
    assert unmapped("::1") == "::1" and unmapped("fe80::1%eth0") == "fe80::1%eth0"
    assert unmapped("my-pc") == "my-pc"


@needs_ipv6
async def test_a_default_listener_takes_ipv4_and_ipv6_on_one_port() -> None:
    listeners = await listen(0, EVERY_ADDRESS)
    ports = {lst.socket.getsockname()[1] for lst in listeners}
    assert len(ports) == 1
    port = ports.pop()
    seen: list[str] = []
    async with trio.open_nursery() as nursery:

        async def accept(stream: trio.SocketStream) -> None:
            seen.append(unmapped(stream.socket.getpeername()[0]))
            await stream.aclose()

        nursery.start_soon(trio.serve_listeners, accept, listeners)
        for host in ("127.0.0.1", "::1"):
            stream = await trio.open_tcp_stream(host, port)
            await stream.aclose()
        with trio.fail_after(5):
            while len(seen) < 2:
                await trio.sleep(0.01)
        nursery.cancel_scope.cancel()
    assert sorted(seen) == ["127.0.0.1", "::1"]


async def test_one_address_given_is_the_only_one() -> None:
    listeners = await listen(0, "127.0.0.1")
    assert [lst.socket.getsockname()[0] for lst in listeners] == ["127.0.0.1"]
    for lst in listeners:
        await lst.aclose()


@needs_ipv6
@pytest.mark.parametrize("joiner_dials", ["::1", "127.0.0.1"])
async def test_a_default_host_is_joined_over_ipv6_and_ipv4(tmp_path: Path, joiner_dials: str) -> None:
    outcomes: dict[int, Outcome] = {}
    host_ui = RecordingUI()
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            host = replace(config(tmp_path, "h", ui=host_ui), bind=EVERY_ADDRESS)
            port = await start_host(nursery, host, players=2, rules=NinesRules(hands=1), outcomes=outcomes)
            joiner = replace(config(tmp_path, "j", seed=1), bind=EVERY_ADDRESS)
            outcomes[1] = await join_game(joiner, host=joiner_dials, port=port, code=CODE)
    assert outcomes[0].status == outcomes[1].status == "over", (outcomes[0].problem, outcomes[1].problem)
    # The host saw the joiner at the address it dialled from, an IPv4 one as IPv4.
    assert any(f"joined from {joiner_dials}" in line for line in host_ui.infos), host_ui.infos


@needs_ipv6
async def test_an_unreachable_ipv6_host_is_named_in_brackets(tmp_path: Path) -> None:
    with closed_port() as port, trio.fail_after(15), pytest.raises(PeerUnreachable) as caught:
        await join_game(config(tmp_path, "j"), host="::1", port=port, code=CODE)
    assert str(caught.value).startswith(f"cannot reach the host at [::1]:{port} (")
