"""The router opens the port itself: PCP, NAT-PMP and UPnP-IGD port mapping.

A seat that listens behind a home router asks the router to forward its TCP port
from the internet, the way BitTorrent clients and game consoles do, so that nobody
has to touch the router's settings:

* PCP (RFC 6887) and its predecessor NAT-PMP (RFC 6886): one UDP datagram to the
  default gateway's port 5351 and its answer. PCP is asked first; a NAT-PMP router
  answers it with "unsupported version", and is then asked in NAT-PMP. These are
  written here: each is a 60- or 12-byte datagram.
* UPnP-IGD, through ``miniupnpc`` (by the author of miniupnpd, the daemon most
  routers run): the gateway is asked by a unicast SSDP search, never by multicast,
  and only a description served by the gateway itself is followed.

Nothing is sent to any address but the default gateway's. A mapping is renewed
while the seat plays and deleted when it stops (also on Ctrl-C and on errors); a
seat whose process is killed leaves a mapping that a PCP or NAT-PMP router drops
when its lifetime ends (two hours), and a UPnP router keeps until it restarts.
"""

from __future__ import annotations

import contextlib
import ipaddress
import os
import socket
import struct
import subprocess
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlsplit

import trio

from p2pcards.protocol.notice import Notice
from p2pcards.say import system_said

PCP_PORT = 5351
"""The UDP port of PCP and NAT-PMP servers (RFC 6887 section 19.1, RFC 6886 section 3)."""
SSDP_PORT = 1900
LIFETIME = 7200
"""Seconds of mapping asked for, as RFC 6886 recommends; renewed at half of what is granted."""
TRIES = (0.25, 0.5, 1.0)
"""Wait after each send of a request (RFC 6886 starts at 250 ms and doubles); then give up."""
UPNP_TIMEOUT = 4.0
DESCRIPTION = "p2pcards"

_TCP = 6
_PCP_VERSION = 2
_PCP_MAP = 1
_PCP_REQUEST = struct.Struct("!BBHI16s12sB3xHH16s")
_PCP_RESPONSE = struct.Struct("!BBBBII12x12sB3xHH16s")
_NATPMP_ADDRESS_REQUEST = b"\x00\x00"
_NATPMP_ADDRESS = struct.Struct("!BBHI4s")
_NATPMP_MAP_TCP = 2
_NATPMP_MAP = struct.Struct("!BBHHHI")
_NATPMP_MAPPED = struct.Struct("!BBHIHHI")
_UNSUPPORTED_VERSION = 1

PCP_RESULTS = {
    1: "unsupported version",
    2: "not authorized",
    3: "malformed request",
    4: "unsupported opcode",
    5: "unsupported option",
    6: "malformed option",
    7: "network failure",
    8: "no resources",
    9: "unsupported protocol",
    10: "user exceeded quota",
    11: "cannot provide the external address",
    12: "address mismatch",
    13: "excessive remote peers",
}
NATPMP_RESULTS = {
    1: "unsupported version",
    2: "not authorized",
    3: "network failure",
    4: "out of resources",
    5: "unsupported opcode",
}


@dataclass(frozen=True, slots=True, kw_only=True)
class Mapping:
    """A port the router forwards: ``external_address:external_port`` reaches ``internal_port``."""

    method: str
    """How it was granted: ``PCP``, ``NAT-PMP`` or ``UPnP``."""
    gateway: str
    internal_port: int
    external_address: str
    external_port: int
    lifetime: int
    """Seconds granted (0: until deleted)."""
    nonce: bytes = b""
    """PCP's mapping nonce: the same one renews and deletes the mapping."""

    @property
    def behind_another_router(self) -> bool:
        """The router's own outside address is private: another NAT (a provider's) is in front."""
        return _private(self.external_address)


@dataclass(slots=True)
class PortMapping:
    """What a seat's router said: the mapping it holds now, or why there is none."""

    enabled: bool
    mapping: Mapping | None = None
    gateway: str | None = None
    tried: list[str] = field(default_factory=list)
    """One line per method that failed, for the person: ``PCP: no answer``... (the common ones
    are notices, said in the person's language)."""
    upnp: object = field(default=None, repr=False)
    """The UPnP client that holds the mapping (it deletes it)."""
    router: Router | None = field(default=None, repr=False)

    async def keep(self) -> None:
        """Renew the mapping at half its lifetime, for as long as this runs (start it in
        the nursery that plays the match; ``port_mapped`` deletes the mapping at its end)."""
        if self.mapping is None or self.router is None:
            return
        await _renew(self, self.router)

    @property
    def external(self) -> tuple[str, int] | None:
        m = self.mapping
        return (m.external_address, m.external_port) if m is not None else None


# ---------------------------------------------------------------------------
# The datagrams (pure functions, tested byte by byte)


def _v4_mapped(address: str) -> bytes:
    return ipaddress.IPv6Address(f"::ffff:{ipaddress.IPv4Address(address)}").packed


def _from_v4_mapped(packed: bytes) -> str:
    v6 = ipaddress.IPv6Address(packed)
    return str(v6.ipv4_mapped) if v6.ipv4_mapped is not None else str(v6)


def pcp_map_request(
    *, client: str, nonce: bytes, internal_port: int, external_port: int, lifetime: int
) -> bytes:
    """A PCP MAP request for TCP (RFC 6887 sections 7.1 and 11.1); lifetime 0 deletes."""
    return _PCP_REQUEST.pack(
        _PCP_VERSION,
        _PCP_MAP,
        0,
        lifetime,
        _v4_mapped(client),
        nonce,
        _TCP,
        internal_port,
        external_port,
        _v4_mapped("0.0.0.0"),
    )


@dataclass(frozen=True, slots=True)
class PcpAnswer:
    result: int
    lifetime: int
    nonce: bytes
    internal_port: int
    external_port: int
    external_address: str


def parse_pcp_answer(data: bytes) -> PcpAnswer | None:
    """A PCP MAP response, or None for anything else (a NAT-PMP answer, garbage)."""
    if len(data) < _PCP_RESPONSE.size or data[0] != _PCP_VERSION or data[1] != 0x80 | _PCP_MAP:
        return None
    _v, _op, _r, result, lifetime, _epoch, nonce, proto, internal, external, address = _PCP_RESPONSE.unpack(
        data[: _PCP_RESPONSE.size]
    )
    if proto != _TCP:
        return None
    return PcpAnswer(result, lifetime, nonce, internal, external, _from_v4_mapped(address))


def natpmp_map_request(*, internal_port: int, external_port: int, lifetime: int) -> bytes:
    """A NAT-PMP request to map a TCP port (RFC 6886 section 3.3); lifetime 0 deletes."""
    return _NATPMP_MAP.pack(0, _NATPMP_MAP_TCP, 0, internal_port, external_port, lifetime)


def natpmp_unsupported(data: bytes) -> bool:
    """A NAT-PMP server's answer that it does not speak the version asked (a PCP request)."""
    return len(data) >= 4 and data[0] == 0 and data[1] >= 128 and struct.unpack("!H", data[2:4])[0] == 1


def parse_natpmp_address(data: bytes) -> tuple[int, str] | None:
    """(result, external address) of a NAT-PMP external address response."""
    if len(data) < _NATPMP_ADDRESS.size or data[:2] != b"\x00\x80":
        return None
    _v, _op, result, _epoch, address = _NATPMP_ADDRESS.unpack(data[: _NATPMP_ADDRESS.size])
    return result, str(ipaddress.IPv4Address(address))


def parse_natpmp_mapped(data: bytes) -> tuple[int, int, int, int] | None:
    """(result, internal port, external port, lifetime) of a NAT-PMP TCP mapping response."""
    if len(data) < _NATPMP_MAPPED.size or data[0] != 0 or data[1] != 128 + _NATPMP_MAP_TCP:
        return None
    _v, _op, result, _epoch, internal, external, lifetime = _NATPMP_MAPPED.unpack(data[: _NATPMP_MAPPED.size])
    return result, internal, external, lifetime


# ---------------------------------------------------------------------------
# The default gateway


def default_gateway() -> str | None:
    """The IPv4 default gateway, read from the system (no packet is sent), or None."""
    try:
        if sys.platform.startswith("linux"):
            return _linux_gateway(Path("/proc/net/route").read_text())
        if sys.platform == "darwin" or "bsd" in sys.platform:
            out = _command(["route", "-n", "get", "default"])
            return _first_ipv4(line.split(":", 1)[1] for line in out.splitlines() if "gateway:" in line)
        if sys.platform == "win32":
            out = _command(["route", "print", "-4", "0.0.0.0"])
            return _first_ipv4(
                parts[2]
                for line in out.splitlines()
                if len(parts := line.split()) >= 3 and parts[0] == "0.0.0.0"
            )
    except (OSError, subprocess.SubprocessError, ValueError):
        return None
    return None


def _linux_gateway(table: str) -> str | None:
    """The default route's gateway in ``/proc/net/route`` (addresses in little-endian hex)."""
    for line in table.splitlines()[1:]:
        fields = line.split()
        if (
            len(fields) >= 8
            and fields[1] == "00000000"
            and int(fields[3], 16) & 0x2
            and fields[7] == "00000000"
        ):
            return str(ipaddress.IPv4Address(struct.pack("<I", int(fields[2], 16))))
    return None


def _command(argv: list[str]) -> str:
    return subprocess.run(argv, capture_output=True, text=True, timeout=3, check=False).stdout


def _first_ipv4(candidates: object) -> str | None:
    for text in candidates:  # type: ignore[attr-defined]
        with contextlib.suppress(ValueError):
            return str(ipaddress.IPv4Address(str(text).strip()))
    return None


def _private(address: str) -> bool:
    """An address that no internet host can dial: RFC 1918, shared (CGNAT), link-local."""
    try:
        ip = ipaddress.IPv4Address(address)
    except ValueError:
        return False
    nets = ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "100.64.0.0/10", "169.254.0.0/16")
    return ip.is_unspecified or any(ip in ipaddress.IPv4Network(n) for n in nets)


# ---------------------------------------------------------------------------
# Asking the router


class _Gateway:
    """One UDP socket that talks to the gateway's port 5351, and hears nobody else."""

    def __init__(self, gateway: str, port: int = PCP_PORT) -> None:
        self.gateway = gateway
        self.port = port
        self.sock = trio.socket.socket(socket.AF_INET, socket.SOCK_DGRAM)

    async def open(self) -> str:
        """Connect (only the gateway's datagrams come through); returns this machine's address."""
        await self.sock.connect((self.gateway, self.port))
        return str(self.sock.getsockname()[0])

    async def ask(self, request: bytes, answered: object) -> bytes | None:
        """Send ``request`` with retries until ``answered(datagram)`` holds; None if it never does."""
        for wait in TRIES:
            with contextlib.suppress(OSError):  # an ICMP refusal: no server there
                await self.sock.send(request)
            with trio.move_on_after(wait):
                while True:
                    try:
                        data = await self.sock.recv(1100)
                    except OSError:
                        return None  # port unreachable: nothing listens on 5351
                    if answered(data):  # type: ignore[operator]
                        return data
        return None

    def close(self) -> None:
        self.sock.close()


async def map_pcp_or_natpmp(
    gateway: str,
    port: int,
    *,
    external_port: int | None = None,
    nonce: bytes | None = None,
    lifetime: int = LIFETIME,
    server_port: int = PCP_PORT,
) -> tuple[Mapping | None, list[str]]:
    """Ask in PCP, then in NAT-PMP if the router speaks only that; (mapping, what failed)."""
    wanted = external_port or port
    failed: list[str] = []
    g = _Gateway(gateway, server_port)
    asked: bytes | None = None  # the mapping request out, while its answer is awaited
    try:
        client = await g.open()
        nonce = nonce or os.urandom(12)
        request = pcp_map_request(
            client=client, nonce=nonce, internal_port=port, external_port=wanted, lifetime=lifetime
        )

        def pcp_answered(data: bytes) -> bool:
            answer = parse_pcp_answer(data)
            return (answer is not None and answer.nonce == nonce) or natpmp_unsupported(data)

        asked = pcp_map_request(client=client, nonce=nonce, internal_port=port, external_port=0, lifetime=0)
        data = await g.ask(request, pcp_answered)
        asked = None
        answer = parse_pcp_answer(data) if data is not None else None
        if (
            answer is not None
            and answer.result == 0
            and answer.internal_port == port
            and answer.external_port
        ):
            return Mapping(
                method="PCP",
                gateway=gateway,
                internal_port=port,
                external_address=answer.external_address,
                external_port=answer.external_port,
                lifetime=answer.lifetime,
                nonce=nonce,
            ), failed
        if answer is not None and answer.result != _UNSUPPORTED_VERSION:
            failed.append(f"PCP: {PCP_RESULTS.get(answer.result, f'result {answer.result}')}")
            return None, failed
        if data is None:  # a NAT-PMP server answers a PCP request too (RFC 6886 section 3.5)
            failed.append(Notice("portmap_pcp_natpmp_no_answer"))
            return None, failed
        address = await g.ask(_NATPMP_ADDRESS_REQUEST, lambda d: parse_natpmp_address(d) is not None)
        parsed = parse_natpmp_address(address) if address is not None else None
        if parsed is None:
            failed.append(Notice("portmap_no_answer", method="NAT-PMP"))
            return None, failed
        if parsed[0] != 0:
            failed.append(f"NAT-PMP: {NATPMP_RESULTS.get(parsed[0], f'result {parsed[0]}')}")
            return None, failed
        request = natpmp_map_request(internal_port=port, external_port=wanted, lifetime=lifetime)

        def natpmp_answered(data: bytes) -> bool:
            mapped = parse_natpmp_mapped(data)
            return mapped is not None and mapped[1] == port

        asked = natpmp_map_request(internal_port=port, external_port=0, lifetime=0)
        data = await g.ask(request, natpmp_answered)
        asked = None
        mapped = parse_natpmp_mapped(data) if data is not None else None
        if mapped is None:
            failed.append(Notice("portmap_no_answer_mapping", method="NAT-PMP"))
            return None, failed
        result, _internal, external, granted = mapped
        if result != 0 or not external:
            failed.append(f"NAT-PMP: {NATPMP_RESULTS.get(result, f'result {result}')}")
            return None, failed
        return Mapping(
            method="NAT-PMP",
            gateway=gateway,
            internal_port=port,
            external_address=parsed[1],
            external_port=external,
            lifetime=granted,
        ), failed
    except OSError as e:
        failed.append(Notice("portmap_pcp_natpmp_error", error=system_said(e)))
        return None, failed
    except BaseException:
        # Stopped while the router may be granting (a joiner that failed at once): take the
        # mapping back unseen, with one datagram (lifetime 0), rather than leave it for hours.
        if asked is not None:
            with trio.CancelScope(shield=True), trio.move_on_after(0.2), contextlib.suppress(OSError):
                await g.sock.send(asked)
        raise
    finally:
        g.close()


async def unmap_pcp_or_natpmp(mapping: Mapping, *, server_port: int = PCP_PORT) -> None:
    """Delete a PCP or NAT-PMP mapping (lifetime 0), without waiting long for the answer."""
    g = _Gateway(mapping.gateway, server_port)
    try:
        client = await g.open()
        if mapping.method == "PCP":
            request = pcp_map_request(
                client=client,
                nonce=mapping.nonce,
                internal_port=mapping.internal_port,
                external_port=0,
                lifetime=0,
            )
            await g.ask(
                request, lambda d: (a := parse_pcp_answer(d)) is not None and a.nonce == mapping.nonce
            )
        else:
            request = natpmp_map_request(internal_port=mapping.internal_port, external_port=0, lifetime=0)
            await g.ask(request, lambda d: parse_natpmp_mapped(d) is not None)
    except OSError:
        pass
    finally:
        g.close()


# ---------------------------------------------------------------------------
# UPnP-IGD


SSDP_SEARCH = (
    b"M-SEARCH * HTTP/1.1\r\n"
    b"HOST: 239.255.255.250:1900\r\n"
    b'MAN: "ssdp:discover"\r\n'
    b"MX: 1\r\n"
    b"ST: urn:schemas-upnp-org:device:InternetGatewayDevice:1\r\n"
    b"\r\n"
)


def ssdp_location(answer: bytes, gateway: str) -> str | None:
    """The description URL in an SSDP answer, if it is served by the gateway itself."""
    try:
        text = answer.decode("latin-1")
    except UnicodeDecodeError:  # pragma: no cover - latin-1 decodes every byte
        return None
    if not text.startswith("HTTP/1.1 200"):
        return None
    for line in text.split("\r\n")[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "location":
            url = value.strip()
            try:
                parts = urlsplit(url)
                same = parts.scheme == "http" and parts.hostname == gateway and parts.port is not None
            except ValueError:
                return None
            return url if same else None
    return None


async def _upnp_location(gateway: str, ssdp_port: int) -> str | None:
    g = _Gateway(gateway, ssdp_port)
    try:
        await g.open()
        data = await g.ask(SSDP_SEARCH, lambda d: ssdp_location(d, gateway) is not None)
        return ssdp_location(data, gateway) if data is not None else None
    except OSError:
        return None
    finally:
        g.close()


async def map_upnp(
    gateway: str,
    port: int,
    *,
    external_port: int | None = None,
    ssdp_port: int = SSDP_PORT,
    location: str | None = None,
) -> tuple[Mapping | None, list[str], object]:
    """Ask the gateway's UPnP-IGD service (at ``location`` if already found);
    (mapping, what failed, the client for deleting)."""
    try:
        import miniupnpc
    except ImportError:
        return None, [Notice("portmap_no_upnp")], None
    location = location or await _upnp_location(gateway, ssdp_port)
    if location is None:
        return None, [Notice("portmap_no_answer", method="UPnP")], None
    wanted = external_port or port

    def add() -> tuple[object, str, int]:
        client = miniupnpc.UPnP()
        client.selectigd(location)
        outside = str(client.externalipaddress())
        ipaddress.IPv4Address(outside)  # an IGD that is not connected answers ""
        try:
            client.addportmapping(wanted, "TCP", client.lanaddr, port, DESCRIPTION, "")
            granted = wanted
        except Exception:  # taken by another machine: the router may choose (IGD v2)
            granted = int(client.addanyportmapping(wanted, "TCP", client.lanaddr, port, DESCRIPTION, ""))
        return client, outside, granted

    try:  # shielded: a request cut short could leave a mapping nobody deletes (UPnP keeps it)
        with trio.CancelScope(shield=True), trio.fail_after(UPNP_TIMEOUT):
            client, outside, granted = await trio.to_thread.run_sync(add, abandon_on_cancel=True)
    except trio.TooSlowError:
        return None, [Notice("portmap_late", method="UPnP")], None
    except Exception as e:  # miniupnpc raises bare Exception with the IGD's error text
        return None, [f"UPnP: {str(e) or type(e).__name__}"], None
    mapping = Mapping(
        method="UPnP",
        gateway=gateway,
        internal_port=port,
        external_address=outside,
        external_port=granted,
        lifetime=0,
    )
    return mapping, [], client


async def unmap_upnp(client: object, mapping: Mapping) -> None:
    def delete() -> None:
        with contextlib.suppress(Exception):
            client.deleteportmapping(mapping.external_port, "TCP")  # type: ignore[attr-defined]

    with trio.move_on_after(UPNP_TIMEOUT):
        await trio.to_thread.run_sync(delete, abandon_on_cancel=True)


# ---------------------------------------------------------------------------
# A seat's mapping, for as long as it listens


@dataclass(frozen=True, slots=True)
class Router:
    """Where to ask (tests point it at a lab router; ``None`` gateway: the system's)."""

    gateway: str | None = None
    pcp_port: int = PCP_PORT
    ssdp_port: int = SSDP_PORT


def mappable(bind: str) -> bool:
    """A seat bound to one address maps nothing unless it is an IPv4 address off loopback."""
    if bind in ("", "::", "0.0.0.0"):
        return True
    try:
        ip = ipaddress.ip_address(bind)
    except ValueError:
        return False
    return ip.version == 4 and not ip.is_loopback


@contextlib.asynccontextmanager
async def port_mapped(
    port: int, *, enabled: bool = True, router: Router | None = None
) -> AsyncIterator[PortMapping]:
    """Ask the router to forward TCP ``port`` (the one this seat listens on) while inside.

    Yields, after at most about two seconds, what the router granted (or why nothing
    was); the mapping is deleted on the way out, whatever the way out is. Renewing it is
    ``PortMapping.keep``'s work: no task runs beside the body here, so that the body's
    errors come out as they are, not in an exception group.
    """
    state = PortMapping(enabled=enabled and port != 0)
    if not state.enabled:
        yield state
        return
    router = state.router = router or Router()
    gateway = router.gateway or default_gateway()
    state.gateway = gateway
    if gateway is None:
        state.tried.append("no default gateway (this machine has no IPv4 route to the internet)")
        yield state
        return
    results: dict[str, tuple[Mapping | None, list[str]]] = {}
    pcp_done = trio.Event()

    async def pcp() -> None:
        results["pcp"] = await map_pcp_or_natpmp(gateway, port, server_port=router.pcp_port)
        pcp_done.set()

    async def upnp() -> None:
        # The search runs beside PCP; the mapping is asked only if PCP and NAT-PMP got none,
        # since a router that speaks both keeps one table (a second request is the same entry).
        location = await _upnp_location(gateway, router.ssdp_port)
        await pcp_done.wait()
        if results["pcp"][0] is not None:
            results["upnp"] = None, []
        elif location is None:
            results["upnp"] = None, [Notice("portmap_no_answer", method="UPnP")]
        else:
            mapping, failed, state.upnp = await map_upnp(gateway, port, location=location)
            results["upnp"] = mapping, failed

    try:
        async with trio.open_nursery() as asking:  # both at once: a router that speaks none costs ~2 s
            asking.start_soon(pcp)
            asking.start_soon(upnp)
        (first, first_failed), (second, second_failed) = results["pcp"], results["upnp"]
        state.mapping = first or second
        state.tried = first_failed + second_failed if state.mapping is None else []
        yield state
    finally:
        if state.mapping is None:  # stopped while asking: what was granted meanwhile is taken back
            state.mapping = next((m for m, _ in results.values() if m is not None), None)
        if state.mapping is not None:
            with trio.CancelScope(shield=True), trio.move_on_after(2):
                await _unmap(state, router)


async def _renew(state: PortMapping, router: Router) -> None:
    """Keep the mapping: ask again at half its lifetime (a router that restarted forgets it)."""
    while True:
        if state.mapping is None:
            await trio.sleep_forever()
        m = state.mapping
        await trio.sleep(max(m.lifetime / 2, 60) if m.lifetime else 20 * 60)
        if m.method == "UPnP":
            again, _failed, client = await map_upnp(
                m.gateway, m.internal_port, external_port=m.external_port, ssdp_port=router.ssdp_port
            )
            state.upnp = client or state.upnp
        else:
            again, _failed = await map_pcp_or_natpmp(
                m.gateway,
                m.internal_port,
                external_port=m.external_port,
                nonce=m.nonce or None,
                server_port=router.pcp_port,
            )
        if again is not None:
            state.mapping = again


async def _unmap(state: PortMapping, router: Router) -> None:
    mapping = state.mapping
    if mapping is None:
        return
    if mapping.method == "UPnP":
        if state.upnp is not None:
            await unmap_upnp(state.upnp, mapping)
    else:
        await unmap_pcp_or_natpmp(mapping, server_port=router.pcp_port)
