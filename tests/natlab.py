"""A NAT lab for tests: network namespaces joined by bridges, with real nftables routers.

Why: hole punching, port mapping and "who sees which address" can only be tested
honestly through real address translation. The lab builds, for one test, a small
internet and home networks behind routers that translate with the kernel's own
NAT (nftables masquerade and conntrack), so the code under test talks to real
sockets exactly as it would at home.

Layout (every address is in the benchmarking range 198.18.0.0/15, reserved for
tests by RFC 2544, and every interface lives in a namespace the lab made; the
root namespace is never touched)::

    namespace <prefix>-inet      bridge "br0": the internet, 198.18.0.0/24
      internet hosts             198.18.0.N/24 ("eth0"), routes to every LAN via its router
      router K                   "wan" 198.18.0.N/24; bridge "lan" 198.19.K.1/24
        LAN hosts                198.19.K.2, .3, ... ("eth0"), default route via 198.19.K.1

Router kinds (what ``lab.router(kind)`` emulates):

* ``"open"``: endpoint-independent mapping and filtering. Outbound traffic is
  masqueraded keeping the source port; any unsolicited inbound TCP or UDP to the
  WAN address is forwarded (DNAT, same port) to the first LAN host, 198.19.K.2
  (a "DMZ host"), so that host is reachable as if it had the WAN address.
* ``"home"``: endpoint-independent mapping (masquerade: Linux keeps the source
  port when it is free) and address-and-port-dependent filtering: only
  replies (conntrack established/related) come in; anything unsolicited is
  dropped silently, never answered with a TCP RST (real home routers drop, and an
  RST would break TCP simultaneous open).
* ``"strict"``: endpoint-dependent mapping with random ports (``masquerade
  random``) and the same filtering as "home": hole punching cannot work through it.

With ``mapping=True`` (meant for "home") the router also runs
``tests/natlab_router.py`` in its namespace, which answers NAT-PMP, PCP (UDP
5351) and UPnP-IGD (SSDP on UDP 1900, HTTP on ``UPNP_HTTP_PORT``) on its LAN
address and installs real nftables DNAT mappings for what it grants.

Everything made is removed when ``nat_lab()`` exits, also on errors and Ctrl-C;
namespaces left by a lab whose process died are removed by the next lab.
"""

from __future__ import annotations

import atexit
import contextlib
import ctypes
import ipaddress
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

TEST_RANGE = ipaddress.ip_network("198.18.0.0/15")
"""The only addresses the lab ever uses (RFC 2544 benchmarking range)."""

INTERNET = "198.18.0"
"""The internet bridge's /24; LAN K is 198.19.K.0/24."""

UPNP_HTTP_PORT = 49000
"""TCP port of the responder's UPnP description and control server, on the LAN address."""

RESPONDER = Path(__file__).with_name("natlab_router.py")
KINDS = ("open", "home", "strict")
NAME_PREFIX = "nlab"
_STALE = re.compile(rf"^{NAME_PREFIX}(\d+)-")
_CLONE_NEWNET = 0x40000000
_labs_made = 0
_open_labs: set[Lab] = set()


class LabUnavailable(RuntimeError):
    """The lab cannot be built here (not root, tools missing, namespaces refused)."""


def unavailable_reason(*, need_nft: bool = True) -> str | None:
    """Why the lab cannot run on this machine, or None when it can (checked before building)."""
    if sys.platform != "linux":
        return "the NAT lab needs Linux network namespaces"
    if os.geteuid() != 0:
        return "the NAT lab needs root to make network namespaces"
    if shutil.which("ip") is None:
        return "the NAT lab needs iproute2 ('ip' not found)"
    if need_nft and shutil.which("nft") is None:
        return "the NAT lab's routers need nftables ('nft' not found)"
    return None


def _skip_or_raise(reason: str, skip: bool) -> None:
    """Skip the running test (the normal case) or raise, for use outside pytest."""
    if skip:
        import pytest

        pytest.skip(reason)
    raise LabUnavailable(reason)


def _setns(fd: int) -> None:
    """Move the calling thread into the network namespace open as ``fd``."""
    if hasattr(os, "setns"):  # Python 3.12+
        os.setns(fd, _CLONE_NEWNET)
        return
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.setns(fd, _CLONE_NEWNET) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


@contextmanager
def inside(ns: str) -> Iterator[None]:
    """Run the body with this thread in namespace ``ns``: sockets made there stay there.

    Why: a socket belongs to the namespace it was created in, whatever thread uses
    it later, so tests can make sockets "on" a lab host without a subprocess.
    Only the calling thread moves, and it always moves back.
    """
    own = os.open("/proc/thread-self/ns/net", os.O_RDONLY)
    try:
        target = os.open(f"/run/netns/{ns}", os.O_RDONLY)
        try:
            _setns(target)
        finally:
            os.close(target)
        try:
            yield
        finally:
            _setns(own)
    finally:
        os.close(own)


def _ip(*args: str, timeout: float = 10) -> str:
    """Run one ``ip`` command, raising with its message on failure."""
    done = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=timeout)
    if done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, ["ip", *args], done.stdout, done.stderr)
    return done.stdout


def _in_ns(ns: str, argv: Sequence[str], *, stdin: str | None = None, check: bool = True) -> str:
    """Run a short command inside namespace ``ns`` and return its output."""
    done = subprocess.run(
        ["ip", "netns", "exec", ns, *argv], input=stdin, capture_output=True, text=True, timeout=20
    )
    if check and done.returncode != 0:
        raise subprocess.CalledProcessError(done.returncode, list(argv), done.stdout, done.stderr)
    return done.stdout


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def lab_namespaces() -> list[str]:
    """The names of every namespace that looks like a lab's (of any process)."""
    try:
        listing = _ip("netns", "list")
    except (OSError, subprocess.SubprocessError):
        return []
    names = (line.split()[0] for line in listing.splitlines() if line.strip())
    return [n for n in names if _STALE.match(n)]


def remove_stale_namespaces() -> list[str]:
    """Delete lab namespaces and work folders whose creating process is gone (a killed run's)."""
    removed = []
    for name in lab_namespaces():
        match = _STALE.match(name)
        if match and not _pid_alive(int(match.group(1))):
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                _ip("netns", "del", name)
                removed.append(name)
    for workdir in Path(tempfile.gettempdir()).glob("natlab-*-*"):
        pid = workdir.name.split("-")[1]
        if pid.isdigit() and not _pid_alive(int(pid)):
            shutil.rmtree(workdir, ignore_errors=True)
    return removed


@dataclass(eq=False)
class Host:
    """One machine of the lab: a namespace with one IPv4 address."""

    lab: Lab = field(repr=False)
    ns: str
    address: str

    def _argv(self, argv: Sequence[str | os.PathLike[str]]) -> list[str]:
        return ["ip", "netns", "exec", self.ns, *map(os.fspath, argv)]

    def popen(self, argv: Sequence[str | os.PathLike[str]], **kwargs: Any) -> subprocess.Popen[Any]:
        """Start ``argv`` inside this host; the lab kills it at exit if it still runs."""
        proc = subprocess.Popen(self._argv(argv), **kwargs)
        self.lab._procs.append(proc)
        return proc

    def run(self, argv: Sequence[str | os.PathLike[str]], **kwargs: Any) -> subprocess.CompletedProcess[Any]:
        """``subprocess.run`` of ``argv`` inside this host."""
        kwargs.setdefault("timeout", 60)
        return subprocess.run(self._argv(argv), **kwargs)

    def python(self, code: str, *args: str, **kwargs: Any) -> subprocess.CompletedProcess[Any]:
        """Run a Python snippet (with the tests' interpreter) inside this host."""
        return self.run([sys.executable, "-c", code, *args], **kwargs)

    @contextmanager
    def inside(self) -> Iterator[None]:
        """This thread runs in the host's namespace for the body (see ``natlab.inside``)."""
        with inside(self.ns):
            yield

    def socket(
        self, family: int = socket.AF_INET, type: int = socket.SOCK_STREAM, proto: int = 0
    ) -> socket.socket:
        """A socket on this host: it binds, connects and listens in this host's network."""
        with inside(self.ns):
            return socket.socket(family, type, proto)

    def listen(self, port: int, *, backlog: int = 8) -> socket.socket:
        """A TCP listener on this host's address and ``port``."""
        sock = self.socket()
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind((self.address, port))
        sock.listen(backlog)
        return sock

    def connect(
        self, address: str, port: int, *, local_port: int | None = None, timeout: float = 5.0
    ) -> socket.socket:
        """A TCP connection from this host (from ``local_port`` if given) to ``address:port``.

        Raises TimeoutError when nothing answers (e.g. a router dropped the SYN) and
        ConnectionRefusedError when something answered with a reset.
        """
        sock = self.socket()
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if local_port is not None:
                sock.bind((self.address, local_port))
            sock.settimeout(timeout)
            sock.connect((address, port))
        except BaseException:
            sock.close()
            raise
        return sock


@dataclass(eq=False)
class Router(Host):
    """A NAT router: ``address`` is its WAN address (also as ``wan``)."""

    kind: str = "home"
    index: int = 0
    lan_gateway: str = ""
    mapping: bool = False
    log_path: Path | None = None
    lan_hosts: list[Host] = field(default_factory=list, repr=False)
    responder: subprocess.Popen[bytes] | None = field(default=None, repr=False)

    @property
    def wan(self) -> str:
        return self.address

    @property
    def lan_network(self) -> str:
        return f"198.19.{self.index}.0/24"

    @property
    def upnp_location(self) -> str:
        """The URL of the responder's root device description (what SSDP announces)."""
        return f"http://{self.lan_gateway}:{UPNP_HTTP_PORT}/rootDesc.xml"

    def log(self) -> list[str]:
        """The responder's log lines (what it granted, renewed, deleted, expired); [] without one."""
        if self.log_path is None or not self.log_path.exists():
            return []
        return self.log_path.read_text().splitlines()

    def wait_for_log(self, text: str, *, timeout: float = 5.0, after: int = 0) -> str:
        """The first log line (from line ``after`` on) containing ``text``, waiting for it."""
        deadline = time.monotonic() + timeout
        while True:
            for line in self.log()[after:]:
                if text in line:
                    return line
            if time.monotonic() > deadline:
                raise AssertionError(f"no log line with {text!r} within {timeout}s: {self.log()}")
            time.sleep(0.02)

    def nft_ruleset(self) -> str:
        """The text of ``nft list ruleset`` in the router's namespace."""
        return _in_ns(self.ns, ["nft", "list", "ruleset"])


def _router_ruleset(kind: str, wan: str, dmz: str) -> str:
    """The router's nftables rules for ``kind`` (see the module docstring)."""
    dnat = f'iifname "wan" ip daddr {wan} meta l4proto {{ tcp, udp }} dnat to {dmz}' if kind == "open" else ""
    masquerade = 'oifname "wan" masquerade random' if kind == "strict" else 'oifname "wan" masquerade'
    return f"""
table ip natlab {{
    chain prerouting {{
        type nat hook prerouting priority dstnat; policy accept;
        {dnat}
    }}
    chain postrouting {{
        type nat hook postrouting priority srcnat; policy accept;
        {masquerade}
    }}
    chain input {{
        type filter hook input priority filter; policy accept;
        iifname "wan" ct state established,related accept
        iifname "wan" drop
    }}
    chain forward {{
        type filter hook forward priority filter; policy drop;
        iifname != "wan" accept
        ct state established,related accept
        ct status dnat accept
    }}
}}
"""


class Lab:
    """The namespaces of one test; build it with ``nat_lab()``."""

    def __init__(self, prefix: str, workdir: Path, *, skip: bool = True) -> None:
        self.prefix = prefix
        self._skip = skip
        self.workdir = workdir
        self.hosts: list[Host] = []
        self.routers: list[Router] = []
        self._namespaces: list[str] = []
        self._procs: list[subprocess.Popen[Any]] = []
        self._next_internet = 1
        self._internet_ns: str | None = None
        self._closed = False

    # -- building ---------------------------------------------------------------

    def _new_ns(self, suffix: str) -> str:
        ns = f"{self.prefix}-{suffix}"
        _ip("netns", "add", ns)
        self._namespaces.append(ns)
        _ip("-n", ns, "link", "set", "lo", "up")
        return ns

    def _internet(self) -> str:
        """The namespace holding the internet bridge, made on first use."""
        if self._internet_ns is None:
            ns = self._new_ns("inet")
            _ip("-n", ns, "link", "add", "br0", "type", "bridge")
            _ip("-n", ns, "link", "set", "br0", "up")
            _quiet_bridge(ns)
            self._internet_ns = ns
        return self._internet_ns

    def _internet_address(self) -> str:
        if self._next_internet > 254:
            raise RuntimeError("the lab's internet is full")
        address = f"{INTERNET}.{self._next_internet}"
        self._next_internet += 1
        return address

    def _plug_into_internet(self, ns: str, ifname: str, port: str, address: str) -> None:
        """A veth from ``ns`` (named ``ifname``) to the internet bridge (named ``port`` there)."""
        inet = self._internet()
        _ip("-n", ns, "link", "add", ifname, "type", "veth", "peer", "name", port, "netns", inet)
        _ip("-n", inet, "link", "set", port, "master", "br0")
        _ip("-n", inet, "link", "set", port, "up")
        _ip("-n", ns, "addr", "add", f"{address}/24", "dev", ifname)
        _ip("-n", ns, "link", "set", ifname, "up")

    def internet_host(self) -> Host:
        """A new host on the internet bridge, 198.18.0.N, with routes to every LAN via its router."""
        address = self._internet_address()
        n = address.rsplit(".", 1)[1]
        ns = self._new_ns(f"h{n}")
        self._plug_into_internet(ns, "eth0", f"h{n}", address)
        host = Host(self, ns, address)
        for router in self.routers:
            _ip("-n", ns, "route", "add", router.lan_network, "via", router.wan)
        self.hosts.append(host)
        return host

    def router(self, kind: str, *, mapping: bool = False, speaks: str = "pcp,natpmp,upnp") -> Router:
        """A new NAT router of ``kind`` ("open", "home" or "strict"), optionally answering
        NAT-PMP/PCP/UPnP (``mapping=True``); returns once its responder is ready."""
        if kind not in KINDS:
            raise ValueError(f"router kind must be one of {KINDS}, not {kind!r}")
        reason = unavailable_reason(need_nft=True)
        if reason:
            _skip_or_raise(reason, self._skip)
        index = len(self.routers) + 1
        if index > 255:
            raise RuntimeError("too many routers")
        wan = self._internet_address()
        ns = self._new_ns(f"r{index}")
        self._plug_into_internet(ns, "wan", f"r{index}", wan)
        gateway = f"198.19.{index}.1"
        _ip("-n", ns, "link", "add", "lan", "type", "bridge")
        _ip("-n", ns, "addr", "add", f"{gateway}/24", "dev", "lan")
        _ip("-n", ns, "link", "set", "lan", "up")
        _quiet_bridge(ns)
        _in_ns(ns, ["sh", "-c", "echo 1 > /proc/sys/net/ipv4/ip_forward"])
        _in_ns(ns, ["nft", "-f", "-"], stdin=_router_ruleset(kind, wan, f"198.19.{index}.2"))
        router = Router(self, ns, wan, kind=kind, index=index, lan_gateway=gateway, mapping=mapping)
        self.routers.append(router)
        for host in self.hosts:
            _ip("-n", host.ns, "route", "add", router.lan_network, "via", wan)
        if mapping:
            self._start_responder(router, speaks)
        return router

    def _start_responder(self, router: Router, speaks: str) -> None:
        """Run natlab_router.py in the router and wait until it says it is ready."""
        router.log_path = self.workdir / f"router{router.index}.log"
        errors = (self.workdir / f"router{router.index}.err").open("wb")
        argv = [
            sys.executable,
            str(RESPONDER),
            router.lan_gateway,
            router.wan,
            "wan",
            str(router.log_path),
            "--lan-prefix",
            "24",
            "--http-port",
            str(UPNP_HTTP_PORT),
            "--parent-pid",
            str(os.getpid()),
            "--speaks",
            speaks,
        ]
        with errors:
            router.responder = router.popen(argv, stdin=subprocess.DEVNULL, stdout=errors, stderr=errors)
        deadline = time.monotonic() + 15
        while not any(line.startswith("ready") for line in router.log()):
            if router.responder.poll() is not None or time.monotonic() > deadline:
                err = (self.workdir / f"router{router.index}.err").read_text(errors="replace")
                raise RuntimeError(f"the NAT-PMP/PCP/UPnP responder did not start: {err}")
            time.sleep(0.02)

    def lan_host(self, router: Router) -> Host:
        """A new host behind ``router`` at 198.19.K.(2, 3, ...), default route via the router."""
        j = len(router.lan_hosts) + 2
        if j > 254:
            raise RuntimeError("this LAN is full")
        address = f"198.19.{router.index}.{j}"
        ns = self._new_ns(f"r{router.index}h{j}")
        _ip("-n", ns, "link", "add", "eth0", "type", "veth", "peer", "name", f"p{j}", "netns", router.ns)
        _ip("-n", router.ns, "link", "set", f"p{j}", "master", "lan")
        _ip("-n", router.ns, "link", "set", f"p{j}", "up")
        _ip("-n", ns, "addr", "add", f"{address}/24", "dev", "eth0")
        _ip("-n", ns, "link", "set", "eth0", "up")
        _ip("-n", ns, "route", "add", "default", "via", router.lan_gateway)
        host = Host(self, ns, address)
        router.lan_hosts.append(host)
        return host

    def addresses(self) -> dict[str, list[str]]:
        """Every IPv4 address (with prefix) in each of the lab's namespaces, for checks."""
        found = {}
        for ns in self._namespaces:
            out = _ip("-n", ns, "-4", "-o", "addr", "show")
            found[ns] = [line.split()[3] for line in out.splitlines() if " inet " in line]
        return found

    # -- tearing down -----------------------------------------------------------

    def close(self) -> None:
        """Stop what the lab started and delete its namespaces (idempotent, never raises)."""
        if self._closed:
            return
        self._closed = True
        for proc in self._procs:
            if proc.poll() is None:
                with contextlib.suppress(OSError):
                    proc.terminate()
        for proc in self._procs:
            try:
                proc.wait(timeout=3)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(OSError):
                    proc.kill()
                with contextlib.suppress(subprocess.TimeoutExpired):
                    proc.wait(timeout=3)
        for ns in reversed(self._namespaces):
            with contextlib.suppress(OSError, subprocess.SubprocessError):
                _ip("netns", "del", ns)
        shutil.rmtree(self.workdir, ignore_errors=True)
        _open_labs.discard(self)


def _quiet_bridge(ns: str) -> None:
    """Keep bridged frames out of the namespace's IP firewall (br_netfilter), where loaded."""
    _in_ns(
        ns,
        ["sh", "-c", "for f in /proc/sys/net/bridge/bridge-nf-call-*; do [ -w $f ] && echo 0 > $f; done"],
        check=False,
    )


PLACES: dict[str, tuple[str, bool] | None] = {
    "internet": None,
    "open": ("open", False),
    "home": ("home", False),
    "home+pcp": ("home", True),
    "strict": ("strict", False),
}
"""Where a machine may sit: on the internet, or behind a new router of a kind (with
or without the control protocols that map ports)."""


def place(lab: Lab, where: str) -> Host:
    """A new machine on the internet, or behind a new router of the kind ``where`` names."""
    spot = PLACES[where]
    if spot is None:
        return lab.internet_host()
    kind, mapping = spot
    return lab.lan_host(lab.router(kind, mapping=mapping))


@atexit.register
def _close_forgotten_labs() -> None:
    """Last resort for a lab whose ``with`` never finished (e.g. an interpreter shutting down)."""
    for lab in list(_open_labs):
        lab.close()


@contextmanager
def nat_lab(*, skip: bool = True) -> Iterator[Lab]:
    """Build a lab for the body and remove all of it afterwards, whatever happens.

    When the lab cannot be built here, the running test is skipped with the reason
    (or, with ``skip=False``, LabUnavailable is raised).
    """
    global _labs_made
    reason = unavailable_reason(need_nft=False)
    if reason:
        _skip_or_raise(reason, skip)
    remove_stale_namespaces()
    _labs_made += 1
    prefix = f"{NAME_PREFIX}{os.getpid()}-{_labs_made}"
    lab = Lab(prefix, Path(tempfile.mkdtemp(prefix=f"natlab-{os.getpid()}-")), skip=skip)
    _open_labs.add(lab)
    try:
        try:
            lab._internet()
        except (OSError, subprocess.SubprocessError) as e:
            detail = getattr(e, "stderr", "") or e
            _skip_or_raise(f"cannot make network namespaces here: {detail}", skip)
        yield lab
    finally:
        lab.close()
