"""Where a seat listens, and how addresses are shown: dual stack by default.

A seat started without ``--bind`` listens on every address, IPv6 and IPv4, so that a
friend on IPv6 and one on IPv4 both reach it: one IPv6 socket with ``IPV6_V6ONLY``
off where the system allows (IPv4 peers then arrive as ``::ffff:a.b.c.d``, which is
shown and passed on as ``a.b.c.d``), else an IPv6 and an IPv4 socket on one port, else
IPv4 alone on a machine without IPv6. ``--bind`` still chooses one address.

Addresses are shown as a person types them back: ``[2001:db8::5]:7777``.
"""

from __future__ import annotations

import contextlib
import errno
import ipaddress
import socket

import trio

EVERY_ADDRESS = ""
"""The ``bind`` of a seat that listens on every address, IPv6 and IPv4 (the default)."""
BACKLOG = 128


def show_address(host: str, port: int) -> str:
    """``host:port`` as a person types it back (an IPv6 address in brackets)."""
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def unmapped(host: str) -> str:
    """An IPv4 peer of a dual-stack socket as the IPv4 address it is (``::ffff:a.b.c.d``)."""
    try:
        mapped = ipaddress.IPv6Address(host.split("%")[0]).ipv4_mapped
    except ValueError:
        return host
    return str(mapped) if mapped is not None else host


async def listen(port: int, bind: str = EVERY_ADDRESS) -> list[trio.SocketListener]:
    """Listeners on ``port`` (0: one free port, the same for every listener) at ``bind``."""
    if bind not in (EVERY_ADDRESS, "::"):
        return await trio.open_tcp_listeners(port, host=bind)
    dual = await _dual_stack(port)
    if dual is not None:
        return [dual]
    try:  # no dual-stack socket: IPv6 on its own, then IPv4 on the same port
        v6 = await _bound(socket.AF_INET6, "::", port, v6only=True)
    except OSError:
        return await trio.open_tcp_listeners(port, host="0.0.0.0")  # no IPv6 here at all
    try:
        v4 = await _bound(socket.AF_INET, "0.0.0.0", v6.socket.getsockname()[1])
    except OSError:
        return [v6]
    return [v6, v4]


async def _dual_stack(port: int) -> trio.SocketListener | None:
    try:
        return await _bound(socket.AF_INET6, "::", port, v6only=False)
    except OSError as e:
        if e.errno == errno.EADDRINUSE:
            raise
        return None


async def _bound(family: int, host: str, port: int, *, v6only: bool | None = None) -> trio.SocketListener:
    sock = trio.socket.socket(family, socket.SOCK_STREAM)
    try:
        if hasattr(socket, "SO_REUSEADDR") and not hasattr(socket, "SO_EXCLUSIVEADDRUSE"):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as trio does (not on Windows)
        if v6only is not None:
            sock.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1 if v6only else 0)
        await sock.bind((host, port))
        sock.listen(BACKLOG)
    except BaseException:
        with contextlib.suppress(OSError):
            sock.close()
        raise
    return trio.SocketListener(sock)
