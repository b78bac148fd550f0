"""The NAT lab's port-mapping responder: NAT-PMP, PCP and UPnP-IGD on a router's LAN side.

Why: the p2pcards port-mapping client must be tested against a gateway that
speaks the protocols as the RFCs and the UPnP specs say, and whose grants really
open the router. This script runs inside a lab router's namespace (started by
tests/natlab.py) and, for each mapping it grants, adds an element to an nftables
DNAT map, removing it on delete and on lifetime expiry. Only the standard library.

* UDP 5351 on the LAN address: NAT-PMP (RFC 6886, version 0) and PCP (RFC 6887,
  version 2: ANNOUNCE and MAP; PREFER_FAILURE honoured, other mandatory options
  refused with UNSUPP_OPTION).
* UDP 1900: SSDP M-SEARCH (unicast to the LAN address, or multicast on the LAN)
  answered with the location of the root description.
* HTTP on the LAN address: an InternetGatewayDevice:1 description and SOAP
  control of WANIPConnection:1 (and WANCommonInterfaceConfig:1).

Every granted, renewed, deleted, expired or refused mapping is one line of the
log file (flushed), after a first line "ready".

usage: natlab_router.py LAN_ADDRESS WAN_ADDRESS WAN_IFNAME LOG_FILE
       [--lan-prefix 24] [--http-port 49000] [--max-lifetime 7200] [--parent-pid PID]
"""

from __future__ import annotations

import argparse
import email.utils
import http.server
import ipaddress
import os
import random
import selectors
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Any

TABLE = "natlab_map"
PMP_PORT = 5351
SSDP_PORT = 1900
SSDP_GROUP = "239.255.255.250"
PROTOCOLS = {6: "TCP", 17: "UDP"}
NUMBERS = {name: number for number, name in PROTOCOLS.items()}

# NAT-PMP result codes (RFC 6886 section 3.5)
PMP_SUCCESS, PMP_UNSUPP_VERSION, PMP_REFUSED, PMP_NETWORK_FAILURE, PMP_NO_RESOURCES, PMP_UNSUPP_OPCODE = (
    range(6)
)
# PCP result codes (RFC 6887 section 7.4)
PCP_SUCCESS = 0
PCP_UNSUPP_VERSION = 1
PCP_NOT_AUTHORIZED = 2
PCP_MALFORMED_REQUEST = 3
PCP_UNSUPP_OPCODE = 4
PCP_UNSUPP_OPTION = 5
PCP_MALFORMED_OPTION = 6
PCP_NETWORK_FAILURE = 7
PCP_NO_RESOURCES = 8
PCP_UNSUPP_PROTOCOL = 9
PCP_CANNOT_PROVIDE_EXTERNAL = 11
PCP_ADDRESS_MISMATCH = 12
PCP_ANNOUNCE, PCP_MAP = 0, 1
PCP_OPTION_PREFER_FAILURE = 2
PCP_ERROR_LIFETIME = 30
# the NAT-PMP result for a gateway refusal expressed as a PCP result code
PMP_FROM_PCP = {PCP_NOT_AUTHORIZED: PMP_REFUSED, PCP_NETWORK_FAILURE: PMP_NETWORK_FAILURE}

IGD = "urn:schemas-upnp-org:device:InternetGatewayDevice:1"
WAN_DEVICE = "urn:schemas-upnp-org:device:WANDevice:1"
WAN_CONNECTION_DEVICE = "urn:schemas-upnp-org:device:WANConnectionDevice:1"
WAN_IP = "urn:schemas-upnp-org:service:WANIPConnection:1"
WAN_COMMON = "urn:schemas-upnp-org:service:WANCommonInterfaceConfig:1"
UUID = "uuid:6e61746c-6162-4000-8000-"  # + 12 hex digits from the WAN address


class Refused(Exception):
    """A request that cannot be granted: ``code`` is a PCP result code, or a UPnP error code (>= 400)."""

    def __init__(self, code: int, why: str) -> None:
        super().__init__(why)
        self.code = code
        self.why = why


@dataclass
class Mapping:
    """One port mapping: external port on the WAN address to internal client:port."""

    proto: str
    client: str
    internal_port: int
    external_port: int
    expires: float | None  # time.monotonic() deadline, None = until deleted
    via: str
    nonce: bytes | None = None
    description: str = ""
    enabled: bool = True

    def remaining(self) -> int:
        """Seconds left (0 = until deleted, as UPnP says)."""
        if self.expires is None:
            return 0
        return max(1, round(self.expires - time.monotonic()))


class Gateway:
    """The mapping table, shared by the three protocols, and its nftables mirror."""

    def __init__(self, lan: str, wan: str, wan_if: str, log_path: str, max_lifetime: int) -> None:
        self.lan = lan
        self.wan = wan
        self.wan_if = wan_if
        self.max_lifetime = max_lifetime
        self.started = time.monotonic()
        self.lock = threading.RLock()
        self.mappings: dict[tuple[str, int], Mapping] = {}  # (proto, external port)
        self._log = open(log_path, "a", buffering=1)  # noqa: SIM115 - lives as long as the process

    # -- bookkeeping ----------------------------------------------------------------

    def log(self, line: str) -> None:
        """One line to the log file, flushed at once so tests can read it."""
        self._log.write(f"{line}\n")
        self._log.flush()

    def log_mapping(self, event: str, m: Mapping, extra: str = "") -> None:
        life = "forever" if m.expires is None else str(m.remaining())
        self.log(
            f"{event} {m.proto} {m.client}:{m.internal_port} -> {self.wan}:{m.external_port} "
            f"lifetime={life} via={m.via}{extra}"
        )

    def epoch(self) -> int:
        """Seconds since this gateway's mapping state began (NAT-PMP and PCP epoch)."""
        return int(time.monotonic() - self.started) & 0xFFFFFFFF

    def nft(self, *args: str) -> None:
        done = subprocess.run(["nft", *args], capture_output=True, text=True, timeout=10)
        if done.returncode != 0:
            raise Refused(PCP_NETWORK_FAILURE, f"nft {' '.join(args)}: {done.stderr.strip()}")

    def setup_nft(self) -> None:
        """Our own table: maps from external port to (client, port), used by DNAT rules.

        Its chain runs just before the router's own NAT chain, so a mapping wins.
        Forwarding of DNATed traffic is accepted by the router's forward chain
        (``ct status dnat accept``, see natlab.py).
        """
        script = f"""
table ip {TABLE} {{
    map tcp_fwd {{ type inet_service : ipv4_addr . inet_service; }}
    map udp_fwd {{ type inet_service : ipv4_addr . inet_service; }}
    chain prerouting {{
        type nat hook prerouting priority dstnat - 10; policy accept;
        iifname "{self.wan_if}" ip daddr {self.wan} dnat to tcp dport map @tcp_fwd
        iifname "{self.wan_if}" ip daddr {self.wan} dnat to udp dport map @udp_fwd
    }}
}}
"""
        subprocess.run(["nft", "delete", "table", "ip", TABLE], capture_output=True, timeout=10)
        done = subprocess.run(["nft", "-f", "-"], input=script, capture_output=True, text=True, timeout=10)
        if done.returncode != 0:
            raise SystemExit(f"cannot install the nft table: {done.stderr}")

    def teardown_nft(self) -> None:
        subprocess.run(["nft", "delete", "table", "ip", TABLE], capture_output=True, timeout=10)

    # -- the table ------------------------------------------------------------------

    def by_internal(self, proto: str, client: str, port: int) -> Mapping | None:
        for m in self.mappings.values():
            if (m.proto, m.client, m.internal_port) == (proto, client, port):
                return m
        return None

    def free(self, proto: str, port: int) -> bool:
        return 0 < port <= 65535 and (proto, port) not in self.mappings

    def pick_port(self, proto: str, suggested: int, internal_port: int) -> int:
        """The suggested port when free, else the internal port, else any free port."""
        for port in (suggested, internal_port):
            if self.free(proto, port):
                return port
        for _ in range(1000):
            port = random.randint(1024, 65535)
            if self.free(proto, port):
                return port
        raise Refused(PCP_NO_RESOURCES, "no free port")

    def lifetime(self, requested: int) -> float | None:
        """A deadline for ``requested`` seconds, capped at the maximum (0 = until deleted)."""
        if requested <= 0:
            return None
        return time.monotonic() + min(requested, self.max_lifetime)

    def _element(self, m: Mapping) -> str:
        return f"{{ {m.external_port} : {m.client} . {m.internal_port} }}"

    def add(self, m: Mapping) -> Mapping:
        """Install ``m`` (its nft element too, when enabled) and log it."""
        with self.lock:
            if m.enabled:
                self.nft("add", "element", "ip", TABLE, f"{m.proto.lower()}_fwd", self._element(m))
            self.mappings[(m.proto, m.external_port)] = m
            self.log_mapping("granted", m)
            return m

    def renew(self, m: Mapping, expires: float | None, *, enabled: bool = True) -> Mapping:
        with self.lock:
            if enabled != m.enabled:
                verb = "add" if enabled else "delete"
                element = self._element(m) if enabled else f"{{ {m.external_port} }}"
                self.nft(verb, "element", "ip", TABLE, f"{m.proto.lower()}_fwd", element)
                m.enabled = enabled
            m.expires = expires
            self.log_mapping("renewed", m)
            return m

    def remove(self, m: Mapping, event: str = "deleted") -> None:
        with self.lock:
            if self.mappings.pop((m.proto, m.external_port), None) is None:
                return
            if m.enabled:
                try:
                    self.nft(
                        "delete", "element", "ip", TABLE, f"{m.proto.lower()}_fwd", f"{{ {m.external_port} }}"
                    )
                except Refused as e:
                    self.log(f"error {e.why}")
            self.log_mapping(event, m)

    def expire(self) -> None:
        now = time.monotonic()
        with self.lock:
            for m in list(self.mappings.values()):
                if m.expires is not None and m.expires <= now:
                    self.remove(m, "expired")

    def map_request(
        self,
        via: str,
        proto: str,
        client: str,
        internal_port: int,
        suggested: int,
        requested_lifetime: int,
        *,
        nonce: bytes | None = None,
        prefer_failure: bool = False,
    ) -> Mapping:
        """Grant or renew a NAT-PMP/PCP mapping (lifetime > 0); raises Refused."""
        with self.lock:
            existing = self.by_internal(proto, client, internal_port)
            expires = self.lifetime(requested_lifetime)
            if existing is not None:
                if nonce is not None and existing.nonce is not None and existing.nonce != nonce:
                    raise Refused(PCP_NOT_AUTHORIZED, "mapping owned by another nonce")
                if nonce is not None:
                    existing.nonce = nonce
                return self.renew(existing, expires)
            if prefer_failure and not self.free(proto, suggested):
                raise Refused(PCP_CANNOT_PROVIDE_EXTERNAL, f"port {suggested} is taken")
            port = self.pick_port(proto, suggested, internal_port)
            return self.add(Mapping(proto, client, internal_port, port, expires, via, nonce=nonce))


# --------------------------------------------------------------------------------------
# NAT-PMP (RFC 6886) and PCP (RFC 6887), both on UDP 5351


def handle_natpmp(gw: Gateway, data: bytes, client: str) -> bytes | None:
    """The NAT-PMP answer to ``data`` from ``client`` (None: silently ignored)."""
    if len(data) < 2:
        return None
    version, op = data[0], data[1]
    if op >= 128:
        return None  # a response, not a request
    if version != 0:  # section 3.5: "Unsupported Version" (op | 128 as in the errata)
        return struct.pack("!BBHI", 0, 128 + op, PMP_UNSUPP_VERSION, gw.epoch())
    if op == 0:
        return struct.pack("!BBHI4s", 0, 128, PMP_SUCCESS, gw.epoch(), socket.inet_aton(gw.wan))
    if op not in (1, 2):
        return struct.pack("!BBHI", 0, 128 + op, PMP_UNSUPP_OPCODE, gw.epoch())
    if len(data) < 12:
        return None
    _reserved, internal_port, suggested, lifetime = struct.unpack("!HHHI", data[2:12])
    proto = "UDP" if op == 1 else "TCP"

    def answer(result: int, external: int = 0, granted: int = 0) -> bytes:
        return struct.pack("!BBHIHHI", 0, 128 + op, result, gw.epoch(), internal_port, external, granted)

    with gw.lock:
        if lifetime == 0:  # section 3.4: deletion; internal port 0 = all of this client's
            for m in list(gw.mappings.values()):
                if m.proto == proto and m.client == client and internal_port in (0, m.internal_port):
                    gw.remove(m)
            return answer(PMP_SUCCESS)
        if internal_port == 0:
            return answer(PMP_REFUSED)
        try:
            m = gw.map_request("natpmp", proto, client, internal_port, suggested, lifetime)
        except Refused as e:
            gw.log(f"refused {proto} {client}:{internal_port} via=natpmp: {e.why}")
            return answer(PMP_FROM_PCP.get(e.code, PMP_NO_RESOURCES))
        return answer(PMP_SUCCESS, m.external_port, m.remaining())


def _mapped(address: str) -> bytes:
    """An IPv4 address as an IPv4-mapped IPv6 address (::ffff:a.b.c.d), 16 bytes."""
    return ipaddress.IPv6Address(f"::ffff:{address}").packed


def handle_pcp(gw: Gateway, data: bytes, client: str) -> bytes | None:
    """The PCP answer to a version-2 ``data`` from ``client`` (None: silently dropped)."""
    if len(data) < 2 or data[1] & 0x80:
        return None  # too short to answer, or a response (section 8.3)
    opcode = data[1] & 0x7F
    header = data[:24].ljust(24, b"\0")
    requested_lifetime = struct.unpack("!I", header[4:8])[0]
    body = data[24:]

    def answer(result: int, lifetime: int, payload: bytes = b"", options: bytes = b"") -> bytes:
        return (
            struct.pack("!BBBBII12x", 2, 0x80 | opcode, 0, result, lifetime, gw.epoch()) + payload + options
        )

    if len(data) < 24 or len(data) > 1100 or len(data) % 4:
        return answer(PCP_MALFORMED_REQUEST, PCP_ERROR_LIFETIME, body[:36] if opcode == PCP_MAP else b"")
    if header[8:24] != _mapped(client):  # section 8.1: the client's idea of its address
        return answer(PCP_ADDRESS_MISMATCH, PCP_ERROR_LIFETIME, body[:36] if opcode == PCP_MAP else b"")
    if opcode == PCP_ANNOUNCE:
        return answer(PCP_SUCCESS, 0)
    if opcode != PCP_MAP:
        return answer(PCP_UNSUPP_OPCODE, PCP_ERROR_LIFETIME)
    if len(body) < 36:
        return answer(PCP_MALFORMED_REQUEST, PCP_ERROR_LIFETIME, body.ljust(36, b"\0")[:36])
    payload = body[:36]
    nonce = payload[:12]
    protocol, internal_port, suggested_port = struct.unpack("!B3xHH", payload[12:20])
    suggested_ip = payload[20:36]

    # options (section 7.3): PREFER_FAILURE is understood; other mandatory ones are refused
    prefer_failure = False
    options, rest = b"", body[36:]
    while rest:
        if len(rest) < 4:
            return answer(PCP_MALFORMED_OPTION, PCP_ERROR_LIFETIME, payload)
        code, _r, length = struct.unpack("!BBH", rest[:4])
        padded = 4 + length + (-length % 4)
        if len(rest) < padded:
            return answer(PCP_MALFORMED_OPTION, PCP_ERROR_LIFETIME, payload)
        if code == PCP_OPTION_PREFER_FAILURE:
            prefer_failure = True
            options += rest[:padded]
        elif code < 128:
            return answer(PCP_UNSUPP_OPTION, PCP_ERROR_LIFETIME, payload)
        rest = rest[padded:]

    def mapped_payload(external_port: int) -> bytes:
        return nonce + struct.pack("!B3xHH", protocol, internal_port, external_port) + _mapped(gw.wan)

    with gw.lock:
        if requested_lifetime == 0:  # deletion (section 15); protocol 0 = all of this nonce's
            for m in list(gw.mappings.values()):
                same = m.client == client and (protocol == 0 or NUMBERS[m.proto] == protocol)
                if same and internal_port in (0, m.internal_port):
                    if m.nonce is not None and m.nonce != nonce:
                        return answer(PCP_NOT_AUTHORIZED, PCP_ERROR_LIFETIME, payload)
                    gw.remove(m)
            return answer(PCP_SUCCESS, 0, mapped_payload(suggested_port), options)
        if protocol not in PROTOCOLS:
            return answer(PCP_UNSUPP_PROTOCOL, PCP_ERROR_LIFETIME, payload)
        if internal_port == 0:
            return answer(PCP_MALFORMED_REQUEST, PCP_ERROR_LIFETIME, payload)
        wants_other_ip = suggested_ip not in (bytes(16), _mapped("0.0.0.0"), _mapped(gw.wan))
        if prefer_failure and wants_other_ip:
            return answer(PCP_CANNOT_PROVIDE_EXTERNAL, PCP_ERROR_LIFETIME, payload)
        try:
            m = gw.map_request(
                "pcp",
                PROTOCOLS[protocol],
                client,
                internal_port,
                suggested_port,
                requested_lifetime,
                nonce=nonce,
                prefer_failure=prefer_failure,
            )
        except Refused as e:
            gw.log(f"refused {PROTOCOLS[protocol]} {client}:{internal_port} via=pcp: {e.why}")
            return answer(e.code, PCP_ERROR_LIFETIME, payload)
        return answer(PCP_SUCCESS, m.remaining(), mapped_payload(m.external_port), options)


def handle_5351(
    gw: Gateway, data: bytes, client: str, speaks: frozenset[str] = frozenset({"pcp", "natpmp"})
) -> bytes | None:
    """Dispatch on the version byte: 0 is NAT-PMP, 2 is PCP (RFC 6887 section 9).

    A router that ``speaks`` NAT-PMP only answers PCP as an older NAT-PMP server does
    (RFC 6886 section 3.5: result 1, unsupported version)."""
    if not data:
        return None
    if data[0] == 2 and "pcp" in speaks:
        return handle_pcp(gw, data, client)
    if data[0] == 2:
        return struct.pack("!BBHI", 0, 128 + (data[1] & 0x7F), 1, gw.epoch())
    if data[0] > 2 and len(data) >= 2 and not data[1] & 0x80:
        # a PCP version we do not speak: UNSUPP_VERSION, naming the highest we do (2)
        return struct.pack("!BBBBII12x", 2, 0x80 | (data[1] & 0x7F), 0, PCP_UNSUPP_VERSION, 30, gw.epoch())
    return handle_natpmp(gw, data, client)


# --------------------------------------------------------------------------------------
# UPnP: SSDP, descriptions, SOAP control


def ssdp_types(gw: Gateway) -> list[str]:
    return ["upnp:rootdevice", IGD, WAN_DEVICE, WAN_CONNECTION_DEVICE, WAN_IP, WAN_COMMON, udn(gw)]


def udn(gw: Gateway, suffix: int = 0) -> str:
    return UUID + socket.inet_aton(gw.wan).hex().rjust(10, "0") + f"{suffix:02x}"


def handle_ssdp(gw: Gateway, data: bytes, location: str) -> list[bytes]:
    """The SSDP answers to an M-SEARCH (one per matching search target)."""
    try:
        text = data.decode("ascii", "replace")
    except UnicodeDecodeError:
        return []
    lines = text.split("\r\n") if "\r\n" in text else text.split("\n")
    if not lines or not lines[0].upper().startswith("M-SEARCH * HTTP/1.1"):
        return []
    headers = {}
    for line in lines[1:]:
        name, sep, value = line.partition(":")
        if sep:
            headers[name.strip().upper()] = value.strip()
    if headers.get("MAN", "").strip('"') != "ssdp:discover":
        return []
    st = headers.get("ST", "")
    targets = ssdp_types(gw) if st == "ssdp:all" else [st] if st in ssdp_types(gw) else []
    answers = []
    for target in targets:
        usn = udn(gw) if target == udn(gw) else f"{udn(gw)}::{target}"
        answers.append(
            (
                "HTTP/1.1 200 OK\r\n"
                "CACHE-CONTROL: max-age=120\r\n"
                f"DATE: {email.utils.formatdate(usegmt=True)}\r\n"
                "EXT:\r\n"
                f"LOCATION: {location}\r\n"
                "SERVER: Linux/natlab UPnP/1.0 natlab_router/1.0\r\n"
                f"ST: {target}\r\n"
                f"USN: {usn}\r\n"
                "BOOTID.UPNP.ORG: 1\r\n"
                "CONFIGID.UPNP.ORG: 1\r\n"
                "\r\n"
            ).encode()
        )
    return answers


def root_description(gw: Gateway, base: str) -> str:
    """The IGD v1 device tree: IGD -> WANDevice -> WANConnectionDevice -> WANIPConnection."""

    def service(kind: str, sid: str, name: str) -> str:
        return (
            f"<service><serviceType>{kind}</serviceType><serviceId>urn:upnp-org:serviceId:{sid}</serviceId>"
            f"<SCPDURL>/{name}.xml</SCPDURL><controlURL>/ctl/{name}</controlURL>"
            f"<eventSubURL>/evt/{name}</eventSubURL></service>"
        )

    def device(kind: str, n: int, name: str, services: str, children: str = "") -> str:
        inner = f"<deviceList>{children}</deviceList>" if children else ""
        return (
            f"<device><deviceType>{kind}</deviceType><friendlyName>{name}</friendlyName>"
            "<manufacturer>p2pcards tests</manufacturer><modelName>natlab</modelName>"
            f"<modelNumber>1</modelNumber><UDN>{udn(gw, n)}</UDN>"
            f"<serviceList>{services}</serviceList>{inner}</device>"
        )

    connection = device(
        WAN_CONNECTION_DEVICE, 2, "WAN connection", service(WAN_IP, "WANIPConn1", "WANIPConn")
    )
    wan = device(
        WAN_DEVICE, 1, "WAN device", service(WAN_COMMON, "WANCommonIFC1", "WANCommonIFC"), connection
    )
    root = device(IGD, 0, "natlab router", "", wan).replace(
        "</deviceList></device>", f"</deviceList><presentationURL>{base}/</presentationURL></device>"
    )
    root = root.replace("<serviceList></serviceList>", "", 1)
    return (
        '<?xml version="1.0"?>\r\n<root xmlns="urn:schemas-upnp-org:device-1-0">'
        "<specVersion><major>1</major><minor>0</minor></specVersion>"
        f"{root}</root>\r\n"
    )


MAPPING_ARGS = [
    ("NewRemoteHost", "RemoteHost"),
    ("NewExternalPort", "ExternalPort"),
    ("NewProtocol", "PortMappingProtocol"),
]
ENTRY_ARGS = [
    ("NewInternalPort", "InternalPort"),
    ("NewInternalClient", "InternalClient"),
    ("NewEnabled", "PortMappingEnabled"),
    ("NewPortMappingDescription", "PortMappingDescription"),
    ("NewLeaseDuration", "PortMappingLeaseDuration"),
]
ACTIONS: dict[str, dict[str, tuple[list[tuple[str, str]], list[tuple[str, str]]]]] = {
    WAN_IP: {
        "GetStatusInfo": (
            [],
            [
                ("NewConnectionStatus", "ConnectionStatus"),
                ("NewLastConnectionError", "LastConnectionError"),
                ("NewUptime", "Uptime"),
            ],
        ),
        "GetConnectionTypeInfo": (
            [],
            [
                ("NewConnectionType", "ConnectionType"),
                ("NewPossibleConnectionTypes", "PossibleConnectionTypes"),
            ],
        ),
        "GetExternalIPAddress": ([], [("NewExternalIPAddress", "ExternalIPAddress")]),
        "GetNATRSIPStatus": ([], [("NewRSIPAvailable", "RSIPAvailable"), ("NewNATEnabled", "NATEnabled")]),
        "AddPortMapping": (MAPPING_ARGS + ENTRY_ARGS, []),
        "DeletePortMapping": (MAPPING_ARGS, []),
        "GetSpecificPortMappingEntry": (MAPPING_ARGS, ENTRY_ARGS),
        "GetGenericPortMappingEntry": (
            [("NewPortMappingIndex", "PortMappingNumberOfEntries")],
            MAPPING_ARGS + ENTRY_ARGS,
        ),
    },
    WAN_COMMON: {
        "GetCommonLinkProperties": (
            [],
            [
                ("NewWANAccessType", "WANAccessType"),
                ("NewLayer1UpstreamMaxBitRate", "Layer1UpstreamMaxBitRate"),
                ("NewLayer1DownstreamMaxBitRate", "Layer1DownstreamMaxBitRate"),
                ("NewPhysicalLinkStatus", "PhysicalLinkStatus"),
            ],
        ),
        "GetTotalBytesSent": ([], [("NewTotalBytesSent", "TotalBytesSent")]),
        "GetTotalBytesReceived": ([], [("NewTotalBytesReceived", "TotalBytesReceived")]),
        "GetTotalPacketsSent": ([], [("NewTotalPacketsSent", "TotalPacketsSent")]),
        "GetTotalPacketsReceived": ([], [("NewTotalPacketsReceived", "TotalPacketsReceived")]),
    },
}
NUMERIC = {
    "ExternalPort": "ui2",
    "InternalPort": "ui2",
    "PortMappingLeaseDuration": "ui4",
    "PortMappingNumberOfEntries": "ui2",
    "Uptime": "ui4",
    "Layer1UpstreamMaxBitRate": "ui4",
    "Layer1DownstreamMaxBitRate": "ui4",
    "TotalBytesSent": "ui4",
    "TotalBytesReceived": "ui4",
    "TotalPacketsSent": "ui4",
    "TotalPacketsReceived": "ui4",
    "PortMappingEnabled": "boolean",
    "RSIPAvailable": "boolean",
    "NATEnabled": "boolean",
}


def scpd(service: str) -> str:
    """The service description (actions, arguments, state variables) of ``service``."""
    actions, variables = [], set()
    for name, (ins, outs) in ACTIONS[service].items():
        args = []
        for direction, pairs in (("in", ins), ("out", outs)):
            for arg, var in pairs:
                variables.add(var)
                args.append(
                    f"<argument><name>{arg}</name><direction>{direction}</direction>"
                    f"<relatedStateVariable>{var}</relatedStateVariable></argument>"
                )
        actions.append(f"<action><name>{name}</name><argumentList>{''.join(args)}</argumentList></action>")
    state = "".join(
        f'<stateVariable sendEvents="no"><name>{v}</name><dataType>{NUMERIC.get(v, "string")}</dataType>'
        "</stateVariable>"
        for v in sorted(variables)
    )
    return (
        '<?xml version="1.0"?>\r\n<scpd xmlns="urn:schemas-upnp-org:service-1-0">'
        "<specVersion><major>1</major><minor>0</minor></specVersion>"
        f"<actionList>{''.join(actions)}</actionList><serviceStateTable>{state}</serviceStateTable></scpd>\r\n"
    )


UPNP_ERRORS = {
    401: "Invalid Action",
    402: "Invalid Args",
    501: "Action Failed",
    606: "Action not authorized",
    713: "SpecifiedArrayIndexInvalid",
    714: "NoSuchEntryInArray",
    715: "WildCardNotPermittedInSrcIP",
    716: "WildCardNotPermittedInExtPort",
    718: "ConflictInMappingEntry",
    724: "SamePortValuesRequired",
    725: "OnlyPermanentLeasesSupported",
    726: "RemoteHostOnlySupportsWildcard",
    727: "ExternalPortOnlySupportsWildcard",
}


def _port(value: str) -> int:
    port = int(value)
    if not 0 <= port <= 65535:
        raise ValueError(value)
    return port


def upnp_action(gw: Gateway, service: str, action: str, args: dict[str, str], client: str) -> dict[str, str]:
    """Perform one SOAP action for ``client``; its output arguments, or Refused(UPnP error)."""
    if action not in ACTIONS.get(service, {}):
        raise Refused(401, f"no action {action} in {service}")
    missing = [a for a, _ in ACTIONS[service][action][0] if a not in args]
    if missing:
        raise Refused(402, f"missing {missing}")
    if service == WAN_COMMON:
        if action == "GetCommonLinkProperties":
            return {
                "NewWANAccessType": "Ethernet",
                "NewLayer1UpstreamMaxBitRate": "1000000000",
                "NewLayer1DownstreamMaxBitRate": "1000000000",
                "NewPhysicalLinkStatus": "Up",
            }
        return {ACTIONS[service][action][1][0][0]: "0"}
    if action == "GetStatusInfo":
        uptime = str(int(time.monotonic() - gw.started))
        return {
            "NewConnectionStatus": "Connected",
            "NewLastConnectionError": "ERROR_NONE",
            "NewUptime": uptime,
        }
    if action == "GetConnectionTypeInfo":
        return {"NewConnectionType": "IP_Routed", "NewPossibleConnectionTypes": "IP_Routed"}
    if action == "GetExternalIPAddress":
        return {"NewExternalIPAddress": gw.wan}
    if action == "GetNATRSIPStatus":
        return {"NewRSIPAvailable": "0", "NewNATEnabled": "1"}

    def entry(m: Mapping, *, full: bool) -> dict[str, str]:
        out = {
            "NewInternalPort": str(m.internal_port),
            "NewInternalClient": m.client,
            "NewEnabled": "1" if m.enabled else "0",
            "NewPortMappingDescription": m.description,
            "NewLeaseDuration": str(m.remaining()),
        }
        if full:
            out = {
                "NewRemoteHost": "",
                "NewExternalPort": str(m.external_port),
                "NewProtocol": m.proto,
                **out,
            }
        return out

    if action == "GetGenericPortMappingEntry":
        try:
            index = int(args["NewPortMappingIndex"])
        except ValueError:
            raise Refused(402, "bad index") from None
        with gw.lock:
            table = sorted(gw.mappings.values(), key=lambda m: (m.proto, m.external_port))
            if not 0 <= index < len(table):
                raise Refused(713, f"no entry {index}")
            return entry(table[index], full=True)

    proto = args["NewProtocol"].strip().upper()
    if proto not in NUMBERS:
        raise Refused(402, f"protocol {proto!r}")
    try:
        external_port = _port(args["NewExternalPort"])
    except ValueError:
        raise Refused(402, "bad external port") from None
    if args["NewRemoteHost"].strip() not in ("", "*"):
        raise Refused(726, "only wildcard remote hosts")
    with gw.lock:
        existing = gw.mappings.get((proto, external_port))
        if action == "GetSpecificPortMappingEntry":
            if existing is None:
                raise Refused(714, f"no {proto} mapping at {external_port}")
            return entry(existing, full=False)
        if action == "DeletePortMapping":
            if existing is None:
                raise Refused(714, f"no {proto} mapping at {external_port}")
            if existing.client != client:
                raise Refused(606, f"{external_port} belongs to {existing.client}")
            gw.remove(existing)
            return {}
        # AddPortMapping
        try:
            internal_port = _port(args["NewInternalPort"])
            lease = int(args["NewLeaseDuration"])
        except ValueError:
            raise Refused(402, "bad internal port or lease") from None
        internal_client = args["NewInternalClient"].strip()
        enabled = args["NewEnabled"].strip().lower() not in ("0", "false", "no")
        if external_port == 0:
            raise Refused(716, "wildcard external port")
        if internal_port == 0 or lease < 0:
            raise Refused(402, "internal port 0 or negative lease")
        if internal_client != client:  # as miniupnpd's secure mode: only for oneself
            raise Refused(718, f"{client} asked for {internal_client}")
        expires = gw.lifetime(lease)
        if existing is not None:
            if existing.client != client:
                raise Refused(718, f"{external_port} belongs to {existing.client}")
            if existing.internal_port != internal_port:
                gw.remove(existing)
            else:
                existing.description = args["NewPortMappingDescription"]
                existing.via = "upnp"
                gw.renew(existing, expires, enabled=enabled)
                return {}
        gw.add(
            Mapping(
                proto,
                client,
                internal_port,
                external_port,
                expires,
                "upnp",
                description=args["NewPortMappingDescription"],
                enabled=enabled,
            )
        )
        return {}


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1]


def soap_envelope(inner: str) -> bytes:
    return (
        '<?xml version="1.0"?>\r\n'
        '<s:Envelope xmlns:s="http://schemas.xmlsoap.org/soap/envelope/" '
        's:encodingStyle="http://schemas.xmlsoap.org/soap/encoding/">'
        f"<s:Body>{inner}</s:Body></s:Envelope>\r\n"
    ).encode()


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class UPnPHandler(http.server.BaseHTTPRequestHandler):
    """Descriptions by GET, SOAP control by POST; only for clients on the LAN."""

    protocol_version = "HTTP/1.1"
    server_version = "natlab_router/1.0"
    gw: Gateway
    lan_net: ipaddress.IPv4Network

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the log file is for mappings."""

    def _send(self, status: int, body: bytes, content_type: str = 'text/xml; charset="utf-8"') -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Connection", "close")
        self.send_header("EXT", "")
        self.end_headers()
        self.wfile.write(body)
        self.close_connection = True

    def _from_lan(self) -> bool:
        if ipaddress.ip_address(self.client_address[0]) in self.lan_net:
            return True
        self._send(403, b"forbidden\r\n", "text/plain")
        return False

    def do_GET(self) -> None:
        if not self._from_lan():
            return
        base = f"http://{self.gw.lan}:{self.server.server_address[1]}"
        path = self.path.split("?", 1)[0]
        if path == "/rootDesc.xml":
            self._send(200, root_description(self.gw, base).encode())
        elif path == "/WANIPConn.xml":
            self._send(200, scpd(WAN_IP).encode())
        elif path == "/WANCommonIFC.xml":
            self._send(200, scpd(WAN_COMMON).encode())
        else:
            self._send(404, b"not found\r\n", "text/plain")

    def do_POST(self) -> None:
        if not self._from_lan():
            return
        services = {"/ctl/WANIPConn": WAN_IP, "/ctl/WANCommonIFC": WAN_COMMON}
        service = services.get(self.path.split("?", 1)[0])
        length = int(self.headers.get("Content-Length") or 0)
        if service is None or not 0 < length <= 65536:
            self._send(404, b"not found\r\n", "text/plain")
            return
        raw = self.rfile.read(length)
        try:
            body = next(e for e in ET.fromstring(raw) if _local(e.tag) == "Body")
            call = next(iter(body))
            action = _local(call.tag)
            args = {_local(arg.tag): (arg.text or "") for arg in call}
        except (ET.ParseError, StopIteration):
            self._fault(402, "unreadable SOAP request")
            return
        soap_action = (self.headers.get("SOAPAction") or "").strip('"')
        if soap_action and soap_action.partition("#")[2] not in ("", action):
            self._fault(401, f"SOAPAction {soap_action} does not match {action}")
            return
        try:
            out = upnp_action(self.gw, service, action, args, self.client_address[0])
        except Refused as e:
            code = e.code if e.code >= 400 else 501  # gateway failures are PCP codes
            self.gw.log(f"refused upnp {action} from {self.client_address[0]}: {code} {e.why}")
            self._fault(code, e.why)
            return
        fields = "".join(f"<{k}>{_escape(v)}</{k}>" for k, v in out.items())
        self._send(
            200, soap_envelope(f'<u:{action}Response xmlns:u="{service}">{fields}</u:{action}Response>')
        )

    def _fault(self, code: int, why: str) -> None:
        description = UPNP_ERRORS.get(code, why)
        inner = (
            "<s:Fault><faultcode>s:Client</faultcode><faultstring>UPnPError</faultstring><detail>"
            '<UPnPError xmlns="urn:schemas-upnp-org:control-1-0">'
            f"<errorCode>{code}</errorCode><errorDescription>{_escape(description)}</errorDescription>"
            "</UPnPError></detail></s:Fault>"
        )
        self._send(500, soap_envelope(inner))


# --------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    """Serve until SIGTERM/SIGINT or until the lab process (``--parent-pid``) is gone."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("lan")
    parser.add_argument("wan")
    parser.add_argument("wan_if")
    parser.add_argument("log")
    parser.add_argument("--lan-prefix", type=int, default=24)
    parser.add_argument("--http-port", type=int, default=49000)
    parser.add_argument("--max-lifetime", type=int, default=7200)
    parser.add_argument("--parent-pid", type=int, default=0)
    parser.add_argument(
        "--speaks", default="pcp,natpmp,upnp", help="Comma-separated: which of pcp, natpmp, upnp to answer."
    )
    opts = parser.parse_args(argv)
    speaks = frozenset(opts.speaks.split(","))

    gw = Gateway(opts.lan, opts.wan, opts.wan_if, opts.log, opts.max_lifetime)
    lan_net = ipaddress.ip_network(f"{opts.lan}/{opts.lan_prefix}", strict=False)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    gw.setup_nft()

    pmp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    pmp.bind((opts.lan, PMP_PORT))
    ssdp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    ssdp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ssdp.bind(("", SSDP_PORT))  # unicast to the LAN address, and the multicast group on the LAN
    try:
        membership = socket.inet_aton(SSDP_GROUP) + socket.inet_aton(opts.lan)
        ssdp.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, membership)
    except OSError as e:
        gw.log(f"note: no SSDP multicast ({e}); unicast M-SEARCH still works")

    handler = type("Handler", (UPnPHandler,), {"gw": gw, "lan_net": lan_net})
    httpd = http.server.ThreadingHTTPServer((opts.lan, opts.http_port), handler)
    httpd.daemon_threads = True
    threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.2}, daemon=True).start()
    location = f"http://{opts.lan}:{opts.http_port}/rootDesc.xml"

    selector = selectors.DefaultSelector()
    selector.register(pmp, selectors.EVENT_READ, "pmp")
    selector.register(ssdp, selectors.EVENT_READ, "ssdp")
    gw.log(f"ready lan={opts.lan} wan={opts.wan} upnp={location} pid={os.getpid()}")
    try:
        while not stop.is_set():
            for key, _ in selector.select(timeout=0.1):
                sock: socket.socket = key.fileobj  # type: ignore[assignment]
                try:
                    data, (host, port) = sock.recvfrom(2048)
                except OSError:
                    continue
                if ipaddress.ip_address(host) not in lan_net:
                    continue  # LAN side only
                try:
                    if key.data == "pmp":
                        reply = handle_5351(gw, data, host, speaks) if speaks & {"pcp", "natpmp"} else None
                        replies = [reply] if reply is not None else []
                    elif "upnp" not in speaks:
                        replies = []
                    else:
                        replies = handle_ssdp(gw, data, location)
                except Exception as e:  # a bad packet must not stop the router
                    gw.log(f"error {type(e).__name__}: {e}")
                    continue
                for reply in replies:
                    sock.sendto(reply, (host, port))
            gw.expire()
            if opts.parent_pid and not _alive(opts.parent_pid):
                break
    finally:
        httpd.shutdown()
        gw.teardown_nft()
        gw.log("stopped")
    return 0


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


if __name__ == "__main__":
    sys.exit(main())
