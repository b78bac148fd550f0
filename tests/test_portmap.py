"""Port mapping (``net.portmap``): the PCP and NAT-PMP datagrams byte by byte, and the
client against fake routers on loopback: granted, refused, silent, renewed, deleted.

The fake routers here are written from RFC 6887 and RFC 6886 (their field offsets are
spelled out below, apart from the client's own structs); the NAT lab
(``test_natlab.py``, ``test_reach.py``) runs the client against a router that installs
real nftables mappings.
"""

from __future__ import annotations

import ipaddress
import socket
import struct
from dataclasses import dataclass, field

import pytest
import trio
import trio.testing

from p2pcards.net import portmap
from p2pcards.net.portmap import Router, mappable, port_mapped
from p2pcards.protocol.notice import Notices
from p2pcards.ui.i18n import Translator

V4_MAPPED_PREFIX = b"\x00" * 10 + b"\xff\xff"


def test_pcp_map_request_lays_out_the_fields_of_rfc_6887() -> None:
    nonce = bytes(range(12))
    data = portmap.pcp_map_request(
        client="192.168.1.5", nonce=nonce, internal_port=7777, external_port=7788, lifetime=7200
    )
    assert len(data) == 24 + 36
    assert data[0] == 2  # version
    assert data[1] == 1  # R = 0 (request), opcode MAP
    assert data[2:4] == b"\x00\x00"
    assert int.from_bytes(data[4:8], "big") == 7200
    assert data[8:24] == V4_MAPPED_PREFIX + bytes([192, 168, 1, 5])
    assert data[24:36] == nonce
    assert data[36] == 6  # TCP
    assert data[37:40] == b"\x00\x00\x00"
    assert int.from_bytes(data[40:42], "big") == 7777
    assert int.from_bytes(data[42:44], "big") == 7788
    assert data[44:60] == V4_MAPPED_PREFIX + b"\x00\x00\x00\x00"  # no preferred address


def _pcp_response(
    *, result: int, lifetime: int, nonce: bytes, internal: int, external: int, address: str, proto: int = 6
) -> bytes:
    head = bytes([2, 0x81, 0, result]) + lifetime.to_bytes(4, "big") + (1234).to_bytes(4, "big") + bytes(12)
    body = nonce + bytes([proto, 0, 0, 0]) + internal.to_bytes(2, "big") + external.to_bytes(2, "big")
    return head + body + V4_MAPPED_PREFIX + ipaddress.IPv4Address(address).packed


def test_a_pcp_answer_is_read_and_anything_else_is_not() -> None:
    nonce = b"n" * 12
    good = _pcp_response(
        result=0, lifetime=3600, nonce=nonce, internal=7777, external=40001, address="203.0.113.7"
    )
    answer = portmap.parse_pcp_answer(good)
    assert answer == portmap.PcpAnswer(0, 3600, nonce, 7777, 40001, "203.0.113.7")
    assert portmap.parse_pcp_answer(good[:59]) is None  # short
    assert portmap.parse_pcp_answer(b"\x02\x01" + good[2:]) is None  # a request, not a response
    assert portmap.parse_pcp_answer(b"\x00" + good[1:]) is None  # another version
    udp = _pcp_response(
        result=0, lifetime=1, nonce=nonce, internal=1, external=2, address="1.2.3.4", proto=17
    )
    assert portmap.parse_pcp_answer(udp) is None


def test_natpmp_datagrams_follow_rfc_6886() -> None:
    assert portmap.natpmp_map_request(internal_port=7777, external_port=7777, lifetime=7200) == (
        b"\x00\x02\x00\x00" + (7777).to_bytes(2, "big") * 2 + (7200).to_bytes(4, "big")
    )
    delete = portmap.natpmp_map_request(internal_port=7777, external_port=0, lifetime=0)
    assert delete[6:8] == b"\x00\x00" and delete[8:] == b"\x00\x00\x00\x00"
    address = b"\x00\x80\x00\x00" + (99).to_bytes(4, "big") + bytes([198, 18, 0, 1])
    assert portmap.parse_natpmp_address(address) == (0, "198.18.0.1")
    mapped = b"\x00\x82\x00\x00" + (99).to_bytes(4, "big") + struct.pack("!HHI", 7777, 40000, 3600)
    assert portmap.parse_natpmp_mapped(mapped) == (0, 7777, 40000, 3600)
    assert portmap.parse_natpmp_mapped(b"\x00\x81" + mapped[2:]) is None  # UDP mapping: not ours
    assert portmap.natpmp_unsupported(b"\x00\x81\x00\x01" + bytes(8))  # answer to a PCP request
    assert not portmap.natpmp_unsupported(mapped)


def test_the_default_gateway_is_read_from_the_linux_route_table() -> None:
    table = (
        "Iface\tDestination\tGateway \tFlags\tRefCnt\tUse\tMetric\tMask\t\tMTU\tWindow\tIRTT\n"
        "eth0\t0001A8C0\t00000000\t0001\t0\t0\t0\t00FFFFFF\t0\t0\t0\n"
        "eth0\t00000000\t0101A8C0\t0003\t0\t0\t100\t00000000\t0\t0\t0\n"
    )
    assert portmap._linux_gateway(table) == "192.168.1.1"
    assert portmap._linux_gateway(table.splitlines()[0] + "\n") is None


def test_only_a_location_served_by_the_gateway_itself_is_followed() -> None:
    def answer(location: str) -> bytes:
        return f"HTTP/1.1 200 OK\r\nST: x\r\nLOCATION: {location}\r\n\r\n".encode()

    assert portmap.ssdp_location(answer("http://192.168.1.1:5000/rootDesc.xml"), "192.168.1.1") == (
        "http://192.168.1.1:5000/rootDesc.xml"
    )
    assert portmap.ssdp_location(answer("http://203.0.113.9:80/x.xml"), "192.168.1.1") is None
    assert portmap.ssdp_location(answer("https://192.168.1.1:5000/x.xml"), "192.168.1.1") is None
    assert portmap.ssdp_location(answer("http://192.168.1.1/x.xml"), "192.168.1.1") is None  # no port
    assert portmap.ssdp_location(b"NOTIFY * HTTP/1.1\r\n\r\n", "192.168.1.1") is None


def test_a_seat_bound_to_loopback_or_ipv6_maps_nothing() -> None:
    assert mappable("") and mappable("0.0.0.0") and mappable("192.168.1.5")
    assert not mappable("127.0.0.1") and not mappable("::1") and not mappable("2001:db8::5")
    assert not mappable("localhost")


def test_a_provider_nat_in_front_of_the_router_is_recognised() -> None:
    m = portmap.Mapping(
        method="PCP", gateway="g", internal_port=1, external_address="100.64.3.4", external_port=1, lifetime=1
    )
    assert m.behind_another_router
    assert not portmap.Mapping(
        method="PCP", gateway="g", internal_port=1, external_address="198.18.0.1", external_port=1, lifetime=1
    ).behind_another_router


# ---------------------------------------------------------------------------
# Fake routers on loopback


@dataclass
class FakeRouter:
    """A PCP or NAT-PMP server on 127.0.0.1 (``speaks``: "pcp", "natpmp" or "none")."""

    speaks: str
    external_port: int = 40000
    grant: int = 7200
    refuse: int = 0
    seen: list[tuple[str, int, int, int]] = field(default_factory=list)
    """(protocol, internal port, external port asked, lifetime) of every request."""
    sock: trio.socket.SocketType | None = None

    @property
    def port(self) -> int:
        assert self.sock is not None
        return int(self.sock.getsockname()[1])

    async def serve(self, task_status: trio.TaskStatus[None] = trio.TASK_STATUS_IGNORED) -> None:
        self.sock = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        await self.sock.bind(("127.0.0.1", 0))
        task_status.started()
        while True:
            data, peer = await self.sock.recvfrom(1100)
            reply = self.answer(data)
            if reply is not None:
                await self.sock.sendto(reply, peer)

    def answer(self, data: bytes) -> bytes | None:
        if self.speaks == "none":
            return None
        if data[0] == 2:
            if self.speaks != "pcp":  # a NAT-PMP server: unsupported version (RFC 6887 appendix A)
                return b"\x00" + bytes([128 + data[1]]) + b"\x00\x01" + bytes(8)
            lifetime = int.from_bytes(data[4:8], "big")
            nonce, internal = data[24:36], int.from_bytes(data[40:42], "big")
            self.seen.append(("pcp", internal, int.from_bytes(data[42:44], "big"), lifetime))
            granted = min(lifetime, self.grant)
            return _pcp_response(
                result=self.refuse,
                lifetime=granted,
                nonce=nonce,
                internal=internal,
                external=self.external_port if lifetime else 0,
                address="198.18.0.1",
            )
        if data[:2] == b"\x00\x00":
            return b"\x00\x80\x00\x00" + (5).to_bytes(4, "big") + bytes([198, 18, 0, 1])
        if data[:2] == b"\x00\x02":
            _v, _op, _r, internal, external, lifetime = struct.unpack("!BBHHHI", data[:12])
            self.seen.append(("natpmp", internal, external, lifetime))
            granted = min(lifetime, self.grant)
            ext = self.external_port if lifetime else 0
            return b"\x00\x82" + struct.pack("!HIHHI", self.refuse, 5, internal, ext, granted)
        return None


async def _with_router(router: FakeRouter, nursery: trio.Nursery) -> Router:
    await nursery.start(router.serve)
    return Router(gateway="127.0.0.1", pcp_port=router.port, ssdp_port=_closed_udp_port())


def _closed_udp_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("speaks, method", [("pcp", "PCP"), ("natpmp", "NAT-PMP")])
async def test_the_router_grants_a_port_and_takes_it_back_at_the_end(speaks: str, method: str) -> None:
    fake = FakeRouter(speaks)
    async with trio.open_nursery() as nursery:
        router = await _with_router(fake, nursery)
        async with port_mapped(7777, router=router) as mapped:
            assert mapped.mapping is not None
            assert mapped.mapping.method == method
            assert mapped.external == ("198.18.0.1", 40000)  # the router's port, not the local one
            assert fake.seen[-1] == (speaks, 7777, 7777, portmap.LIFETIME)
        assert fake.seen[-1][0] == speaks and fake.seen[-1][1] == 7777 and fake.seen[-1][3] == 0  # deleted
        nursery.cancel_scope.cancel()


async def test_the_mapping_is_deleted_when_the_seat_stops_on_an_error() -> None:
    fake = FakeRouter("pcp")
    async with trio.open_nursery() as nursery:
        router = await _with_router(fake, nursery)
        with pytest.raises(RuntimeError):
            async with port_mapped(7777, router=router):
                raise RuntimeError("the match broke")
        assert [s[3] for s in fake.seen] == [portmap.LIFETIME, 0]
        with trio.move_on_after(5) as scope:  # cancelled (Ctrl-C is a cancellation in trio)
            async with port_mapped(7778, router=router):
                scope.cancel()
                await trio.sleep_forever()
        assert fake.seen[-1][1:] == (7778, 0, 0)
        nursery.cancel_scope.cancel()


async def test_the_pcp_nonce_that_made_the_mapping_deletes_it() -> None:
    fake = FakeRouter("pcp")
    nonces: list[bytes] = []
    answer = fake.answer

    def spy(data: bytes) -> bytes | None:
        nonces.append(data[24:36])
        return answer(data)

    fake.answer = spy  # type: ignore[method-assign]
    async with trio.open_nursery() as nursery:
        router = await _with_router(fake, nursery)
        async with port_mapped(7777, router=router):
            pass
        nursery.cancel_scope.cancel()
    assert len(nonces) == 2 and nonces[0] == nonces[1] and len(set(nonces[0])) > 1


async def test_a_refusal_is_reported_and_nothing_is_held() -> None:
    fake = FakeRouter("pcp", refuse=2)
    async with trio.open_nursery() as nursery:
        router = await _with_router(fake, nursery)
        async with port_mapped(7777, router=router) as mapped:
            assert mapped.mapping is None
            assert "PCP: not authorized" in mapped.tried
        assert len(fake.seen) == 1  # no delete for what was never granted
        nursery.cancel_scope.cancel()


async def test_a_silent_router_is_given_up_on_within_seconds() -> None:
    fake = FakeRouter("none")
    async with trio.open_nursery() as nursery:
        router = await _with_router(fake, nursery)
        start = trio.current_time()
        async with port_mapped(7777, router=router) as mapped:
            waited = trio.current_time() - start
            assert mapped.mapping is None
            assert mapped.tried == ["PCP and NAT-PMP: no answer", "UPnP: no answer"]
            why = Translator("fr")("notice_no_mapping", port=7777, why=Notices(mapped.tried))
            perche = Translator("it")("notice_no_mapping", port=7777, why=Notices(mapped.tried))
        nursery.cancel_scope.cancel()
    assert waited < sum(portmap.TRIES) + 0.5  # PCP beside UPnP, both given up on at once
    # A French player reads why in French (the names of the protocols stay as they are).
    said = "aucune box n'a ouvert le port 7777 (PCP et NAT-PMP : pas de réponse; UPnP : pas de réponse)"
    assert why.startswith(said)
    assert "no answer" not in why and " and " not in why
    assert "PCP e NAT-PMP: nessuna risposta; UPnP: nessuna risposta" in perche


async def test_the_mapping_is_renewed_at_half_its_lifetime(autojump_clock: trio.testing.MockClock) -> None:
    fake = FakeRouter("natpmp", grant=600)
    async with trio.open_nursery() as nursery:
        router = await _with_router(fake, nursery)
        async with port_mapped(7777, router=router) as mapped:
            assert mapped.mapping is not None and mapped.mapping.lifetime == 600
            nursery.start_soon(mapped.keep)
            await trio.sleep(299)
            assert len(fake.seen) == 1
            await trio.sleep(2)
            assert len(fake.seen) == 2
            assert fake.seen[1] == ("natpmp", 7777, 40000, portmap.LIFETIME)  # the same outside port
            await trio.sleep(300)
            assert len(fake.seen) == 3
        nursery.cancel_scope.cancel()


async def test_disabled_or_unlistened_ports_ask_nothing() -> None:
    fake = FakeRouter("pcp")
    async with trio.open_nursery() as nursery:
        router = await _with_router(fake, nursery)
        async with port_mapped(7777, enabled=False, router=router) as off:
            assert not off.enabled and off.mapping is None
        async with port_mapped(0, router=router) as none:  # --no-listen: no port to map
            assert not none.enabled
        nursery.cancel_scope.cancel()
    assert fake.seen == []
