"""The NAT lab itself: its routers translate and filter as they claim, and its responder
grants NAT-PMP, PCP and UPnP mappings that really open the router.

Why: the port-mapping and hole-punching tests of p2pcards trust this lab; if a
"home" router answered unsolicited SYNs with resets, or a granted mapping did not
let anyone in, those tests would prove nothing. Every check here uses real
sockets in the lab's namespaces.
"""

from __future__ import annotations

import ipaddress
import socket
import struct
import subprocess
import threading
import time
from collections.abc import Iterator

import pytest
from natlab import TEST_RANGE, Host, Lab, Router, lab_namespaces, nat_lab

pytestmark = pytest.mark.slow

DROPPED = 0.5
"""Seconds a connect waits before we call the SYN dropped (a reset would come at once)."""


@pytest.fixture
def lab() -> Iterator[Lab]:
    with nat_lab() as lab:
        yield lab


def assert_dropped(host: Host, address: str, port: int) -> None:
    """A connect from ``host`` hangs (the SYN is dropped silently), rather than being refused."""
    started = time.monotonic()
    with pytest.raises(TimeoutError):
        host.connect(address, port, timeout=DROPPED).close()
    assert time.monotonic() - started >= DROPPED * 0.9


def exchange(client: socket.socket, listener: socket.socket) -> tuple[str, int]:
    """Accept ``client``'s connection, carry bytes both ways; the peer the listener saw."""
    listener.settimeout(5)
    served, peer = listener.accept()
    with served:
        client.sendall(b"ping")
        assert served.recv(16) == b"ping"
        served.sendall(b"pong")
        assert client.recv(16) == b"pong"
    return peer


# -- the routers --------------------------------------------------------------------------


def test_home_router_keeps_ports_and_drops_unsolicited(lab: Lab) -> None:
    servers = [lab.internet_host(), lab.internet_host()]
    router = lab.router("home")
    inside = lab.lan_host(router)
    listeners = [s.listen(7000) for s in servers]
    # Outbound: the server sees the router's WAN address, and the client's own port
    # (to both servers: the mapping does not depend on the destination).
    for server, listener in zip(servers, listeners, strict=True):
        with inside.connect(server.address, 7000, local_port=45000) as client:
            assert exchange(client, listener) == (router.wan, 45000)
    with inside.connect(servers[0].address, 7000) as client:
        assert exchange(client, listeners[0])[0] == router.wan
    # Inbound, unsolicited: dropped without a reset, even with a listener behind the router
    # and even when the internet host routes straight to the LAN address.
    with inside.listen(45001):
        assert_dropped(servers[0], router.wan, 45001)
        assert_dropped(servers[0], inside.address, 45001)
        assert_dropped(servers[0], router.wan, 45000)  # the port used outbound: not open to others


def test_strict_router_maps_each_destination_to_its_own_port(lab: Lab) -> None:
    servers = [lab.internet_host(), lab.internet_host()]
    router = lab.router("strict")
    inside = lab.lan_host(router)
    listeners = [s.listen(7000) for s in servers]
    clients = []
    for server in servers:
        client = inside.socket()
        client.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        client.bind((inside.address, 45000))
        client.settimeout(5)
        client.connect((server.address, 7000))
        clients.append(client)
    peers = [exchange(c, listener) for c, listener in zip(clients, listeners, strict=True)]
    for c in clients:
        c.close()
    assert [host for host, _ in peers] == [router.wan, router.wan]
    assert peers[0][1] != peers[1][1], f"one local port, one external port: {peers}"
    assert "masquerade random" in router.nft_ruleset()


def test_open_router_forwards_unsolicited_to_the_dmz_host(lab: Lab) -> None:
    outside = lab.internet_host()
    router = lab.router("open")
    dmz = lab.lan_host(router)
    with dmz.listen(7100) as listener, outside.connect(router.wan, 7100) as client:
        assert exchange(client, listener)[0] == outside.address  # DNAT only: the caller's own address
    with dmz.listen(7101) as listener, outside.connect(router.wan, 7101) as client:
        assert exchange(client, listener)[0] == outside.address  # any port


# -- the responder ------------------------------------------------------------------------


@pytest.fixture
def mapped(lab: Lab) -> tuple[Host, Router, Host]:
    """An internet host, a "home" router answering port-mapping requests, a host behind it."""
    outside = lab.internet_host()
    router = lab.router("home", mapping=True)
    return outside, router, lab.lan_host(router)


def ask(host: Host, router: Router, request: bytes) -> bytes:
    """One UDP request from ``host`` to the router's port 5351; the answer."""
    with host.socket(type=socket.SOCK_DGRAM) as udp:
        udp.settimeout(3)
        udp.sendto(request, (router.lan_gateway, 5351))
        answer, source = udp.recvfrom(1100)
    assert source == (router.lan_gateway, 5351)
    return answer


def reached(outside: Host, address: str, port: int, listener: socket.socket) -> bool:
    """Whether a connection from ``outside`` to ``address:port`` arrives at ``listener``."""
    try:
        client = outside.connect(address, port, timeout=DROPPED)
    except TimeoutError:
        return False
    with client:
        return exchange(client, listener)[0] == outside.address


def test_nat_pmp_mapping_opens_the_router_until_deleted(mapped: tuple[Host, Router, Host]) -> None:
    outside, router, inside = mapped
    # RFC 6886 3.2: external address request -> version 0, opcode 128, result, epoch, address
    version, op, result, _epoch, address = struct.unpack("!BBHI4s", ask(inside, router, b"\0\0"))
    assert (version, op, result, socket.inet_ntoa(address)) == (0, 128, 0, router.wan)
    # RFC 6886 3.3: map TCP (opcode 2) internal 6200, suggested external 6300, 60 s
    answer = ask(inside, router, struct.pack("!BBHHHI", 0, 2, 0, 6200, 6300, 60))
    version, op, result, _epoch, internal, external, lifetime = struct.unpack("!BBHIHHI", answer)
    assert (version, op, result, internal, external) == (0, 130, 0, 6200, 6300)
    assert 0 < lifetime <= 60
    assert f"granted TCP {inside.address}:6200 -> {router.wan}:6300" in router.wait_for_log("granted")
    assert f"{inside.address} . 6200" in router.nft_ruleset()
    with inside.listen(6200) as listener:
        assert reached(outside, router.wan, 6300, listener)
        # RFC 6886 3.4: lifetime 0 deletes
        answer = ask(inside, router, struct.pack("!BBHHHI", 0, 2, 0, 6200, 0, 0))
        version, op, result, _epoch, internal, external, lifetime = struct.unpack("!BBHIHHI", answer)
        assert (version, op, result, internal, external, lifetime) == (0, 130, 0, 6200, 0, 0)
        assert "deleted TCP" in router.wait_for_log("deleted")
        assert not reached(outside, router.wan, 6300, listener)
    # a version it does not speak: "Unsupported Version" (result 1)
    assert struct.unpack("!BBH", ask(inside, router, b"\x01\x00")[:4]) == (0, 128, 1)
    # a short lifetime runs out by itself
    ask(inside, router, struct.pack("!BBHHHI", 0, 1, 0, 6201, 6201, 1))
    assert f"UDP {inside.address}:6201" in router.wait_for_log("expired", timeout=4)


def pcp_map(client: str, lifetime: int, internal: int, suggested: int, nonce: bytes) -> bytes:
    """A PCP MAP request (RFC 6887 7.1 and 11.1) for TCP, as a client builds it."""
    header = struct.pack("!BBHI16s", 2, 1, 0, lifetime, ipaddress.IPv6Address(f"::ffff:{client}").packed)
    return header + nonce + struct.pack("!B3xHH16s", 6, internal, suggested, bytes(16))


def test_pcp_mapping_opens_the_router_until_deleted(mapped: tuple[Host, Router, Host]) -> None:
    outside, router, inside = mapped
    nonce = b"natlab-nonce"
    answer = ask(inside, router, pcp_map(inside.address, 120, 6400, 6500, nonce))
    assert len(answer) == 60
    version, op, result, lifetime, _epoch = struct.unpack("!BBxBII12x", answer[:24])
    assert (version, op, result) == (2, 0x81, 0) and 0 < lifetime <= 120
    assert answer[24:36] == nonce
    protocol, internal, external, ip = struct.unpack("!B3xHH16s", answer[36:60])
    assert (protocol, internal, external) == (6, 6400, 6500)
    assert ipaddress.IPv6Address(ip).ipv4_mapped == ipaddress.IPv4Address(router.wan)
    assert f"granted TCP {inside.address}:6400 -> {router.wan}:6500" in router.wait_for_log("granted")
    with inside.listen(6400) as listener:
        assert reached(outside, router.wan, 6500, listener)
        # a different nonce may not touch the mapping; the right one deletes it
        assert answer_result(ask(inside, router, pcp_map(inside.address, 0, 6400, 0, b"x" * 12))) == 2
        assert answer_result(ask(inside, router, pcp_map(inside.address, 0, 6400, 0, nonce))) == 0
        assert "deleted TCP" in router.wait_for_log("deleted")
        assert not reached(outside, router.wan, 6500, listener)
    # the client address field must be the packet's source: ADDRESS_MISMATCH otherwise
    assert answer_result(ask(inside, router, pcp_map("198.19.1.99", 60, 6400, 0, nonce))) == 12
    # ANNOUNCE is answered with success
    announce = struct.pack("!BBHI16s", 2, 0, 0, 0, ipaddress.IPv6Address(f"::ffff:{inside.address}").packed)
    assert struct.unpack("!BBxB", ask(inside, router, announce)[:4]) == (2, 0x80, 0)


def answer_result(answer: bytes) -> int:
    return answer[3]


def ssdp_location(host: Host, router: Router) -> str:
    """The LOCATION of the gateway's answer to a unicast M-SEARCH for an IGD."""
    search = (
        "M-SEARCH * HTTP/1.1\r\n"
        f"HOST: {router.lan_gateway}:1900\r\n"
        'MAN: "ssdp:discover"\r\n'
        "MX: 1\r\n"
        "ST: urn:schemas-upnp-org:device:InternetGatewayDevice:1\r\n\r\n"
    )
    with host.socket(type=socket.SOCK_DGRAM) as udp:
        udp.settimeout(3)
        udp.sendto(search.encode(), (router.lan_gateway, 1900))
        answer = udp.recv(2048).decode()
    lines = answer.split("\r\n")
    assert lines[0] == "HTTP/1.1 200 OK"
    headers = {
        k.strip().upper(): v.strip() for k, _, v in (line.partition(":") for line in lines[1:] if line)
    }
    assert headers["ST"] == "urn:schemas-upnp-org:device:InternetGatewayDevice:1"
    return headers["LOCATION"]


def test_upnp_mapping_through_miniupnpc(mapped: tuple[Host, Router, Host]) -> None:
    miniupnpc = pytest.importorskip("miniupnpc")
    outside, router, inside = mapped
    location = ssdp_location(inside, router)
    assert location == router.upnp_location
    with inside.listen(6600) as listener:
        with inside.inside():  # miniupnpc makes its sockets in this thread: on the LAN host
            upnp = miniupnpc.UPnP()
            assert upnp.selectigd(location).startswith(f"http://{router.lan_gateway}:")
            assert upnp.lanaddr == inside.address
            assert upnp.externalipaddress() == router.wan
            assert upnp.addportmapping(6700, "TCP", upnp.lanaddr, 6600, "natlab", "")
            assert upnp.getspecificportmapping(6700, "TCP")[:2] == (inside.address, 6600)
            with pytest.raises(Exception, match="ConflictInMappingEntry"):  # only for oneself
                upnp.addportmapping(6701, "TCP", "198.19.1.99", 6600, "natlab", "")
        assert f"granted TCP {inside.address}:6600 -> {router.wan}:6700" in router.wait_for_log("granted")
        assert reached(outside, router.wan, 6700, listener)
        with inside.inside():
            assert upnp.deleteportmapping(6700, "TCP")
        assert "deleted TCP" in router.wait_for_log("deleted")
        assert not reached(outside, router.wan, 6700, listener)


# -- TCP simultaneous open ----------------------------------------------------------------


def punch(
    host: Host, local_port: int, peer: tuple[str, int], start: threading.Barrier, budget: float
) -> object:
    """Connect from ``local_port`` to ``peer`` at the agreed moment, retrying for ``budget`` s.

    Returns the connected socket, or the last error.
    """
    start.wait()
    deadline = time.monotonic() + budget
    error: object = None
    while time.monotonic() < deadline:
        sock = host.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        sock.bind((host.address, local_port))
        sock.settimeout(max(0.1, min(1.5, deadline - time.monotonic())))
        try:
            sock.connect(peer)
            return sock
        except OSError as e:  # TimeoutError, or refused by a stray reset: try again
            error = e
            sock.close()
            time.sleep(0.05)
    return error


def simultaneous_open(a: Host, ra: Router, b: Host, rb: Router, budget: float) -> list[object]:
    """Both sides dial each other's router at the port they bound (what port preservation predicts)."""
    start = threading.Barrier(2)
    results: list[object] = [None, None]
    plans = [(0, a, 46000, (rb.wan, 46001)), (1, b, 46001, (ra.wan, 46000))]

    def run(i: int, host: Host, port: int, peer: tuple[str, int]) -> None:
        results[i] = punch(host, port, peer, start, budget)

    threads = [threading.Thread(target=run, args=plan) for plan in plans]
    for t in threads:
        t.start()
    for t in threads:
        t.join(budget + 5)
    return results


def test_tcp_simultaneous_open_between_two_home_routers(lab: Lab) -> None:
    ra, rb = lab.router("home"), lab.router("home")
    a, b = lab.lan_host(ra), lab.lan_host(rb)
    sa, sb = simultaneous_open(a, ra, b, rb, budget=6)
    assert isinstance(sa, socket.socket) and isinstance(sb, socket.socket), (sa, sb)
    with sa, sb:
        assert sa.getpeername() == (rb.wan, 46001) and sb.getpeername() == (ra.wan, 46000)
        sa.settimeout(3)
        sb.settimeout(3)
        sa.sendall(b"from a")
        sb.sendall(b"from b")
        assert sb.recv(16) == b"from a" and sa.recv(16) == b"from b"


def test_tcp_simultaneous_open_fails_through_a_strict_router(lab: Lab) -> None:
    ra, rb = lab.router("home"), lab.router("strict")
    a, b = lab.lan_host(ra), lab.lan_host(rb)
    results = simultaneous_open(a, ra, b, rb, budget=2)
    assert not any(isinstance(r, socket.socket) for r in results), results
    for r in results:
        if isinstance(r, socket.socket):
            r.close()


# -- the lab's own promises ---------------------------------------------------------------


def test_lab_stays_in_its_namespaces_and_range_and_cleans_up() -> None:
    root_links = subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout
    with nat_lab() as lab:
        router = lab.router("home", mapping=True)
        lab.lan_host(router)
        lab.internet_host()
        names = list(lab.addresses())
        assert set(names) <= set(lab_namespaces()) and len(names) == 4
        for ns, addresses in lab.addresses().items():
            for address in addresses:
                ip = ipaddress.ip_interface(address).ip
                assert ip.is_loopback or ip in TEST_RANGE, (ns, address)
        assert subprocess.run(["ip", "-o", "link"], capture_output=True, text=True).stdout == root_links
        responder = router.responder
        assert responder is not None and responder.poll() is None
    assert responder.poll() is not None
    assert not set(names) & set(lab_namespaces())
