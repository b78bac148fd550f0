"""How a seat opens TCP connections: to the first of several addresses that answers,
from a port it can use again, and by simultaneous open through two NATs.

*Hole punching.* A joiner connects to the host from a socket whose local port may be
bound again (``SO_REUSEADDR``, and ``SO_REUSEPORT`` where the system has it). The
host sees that connection come from the joiner's router at some port, and tells the
table (the roster's ``seen``). A home router maps one local address and port to one
outside port whatever the destination (endpoint-independent mapping), so when two
joiners that cannot dial each other both connect, from that same local port, to the
address and port the host saw of the other, at the same moment, each router sees
the other's SYN as the answer to its own, lets it in, and TCP's simultaneous open
joins the two SYNs into one connection. A router that picks a new port for every
destination (a "strict" or symmetric NAT) defeats it: then the host relays.
"""

from __future__ import annotations

import contextlib
import math
import socket
from collections.abc import Awaitable, Callable, Sequence

import trio

STAGGER = 0.3
"""Seconds before the next address is tried beside the one before (as happy eyeballs)."""
PUNCH_RETRY = 0.5
"""Seconds between two simultaneous-open attempts (one refused at once is tried again)."""
AFRESH = 1.0
"""Seconds between two fresh attempts of :func:`connect_afresh` (each with a SYN of its own)."""


def reusable(family: int) -> trio.socket.SocketType:
    """A TCP socket whose local port another socket of this process may bind as well."""
    sock = trio.socket.socket(family, socket.SOCK_STREAM)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        if hasattr(socket, "SO_REUSEPORT"):
            with contextlib.suppress(OSError):  # some systems define it but refuse it
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
    except BaseException:
        sock.close()
        raise
    return sock


async def _connect(sock: trio.socket.SocketType, address: tuple[str, int]) -> trio.SocketStream:
    try:
        await sock.connect(address)
    except BaseException:
        sock.close()
        raise
    return trio.SocketStream(sock)


async def connect_first(
    addresses: Sequence[tuple[str, int]],
    opener: Callable[[tuple[str, int]], Awaitable[trio.SocketStream]] | None = None,
) -> tuple[trio.SocketStream, tuple[str, int]]:
    """A TCP connection to the first of ``addresses`` that answers, each tried
    ``STAGGER`` seconds after the one before while that one is still trying."""
    opener = opener or (lambda a: trio.open_tcp_stream(*a))
    if len(addresses) == 1:
        return await opener(addresses[0]), addresses[0]
    won: list[tuple[trio.SocketStream, tuple[str, int]]] = []
    errors: list[OSError] = []

    async def attempt(i: int, address: tuple[str, int], nursery: trio.Nursery) -> None:
        await trio.sleep(i * STAGGER)
        try:
            stream = await opener(address)
        except OSError as e:
            errors.append(e)
            return
        if won:  # another address answered first
            await stream.aclose()
            return
        won.append((stream, address))
        nursery.cancel_scope.cancel()

    async with trio.open_nursery() as nursery:
        for i, address in enumerate(addresses):
            nursery.start_soon(attempt, i, address, nursery)
    if won:
        return won[0]
    raise errors[0] if errors else OSError("no address answered")


async def connect_afresh(
    addresses: Sequence[tuple[str, int]],
    window: float,
    opener: Callable[[tuple[str, int]], Awaitable[trio.SocketStream]] | None = None,
    *,
    first_error_ends: bool = False,
) -> tuple[trio.SocketStream, tuple[str, int]]:
    """:func:`connect_first`, started again every ``AFRESH`` seconds beside the attempts still
    under way, for ``window`` seconds.

    Why: the system sends a connection's SYN again after 1, 3, 7 s..., so a path that comes
    back after a dropout would carry the next one seconds later; a fresh attempt sends its
    own at once. The first attempt that connects wins; an attempt refused at once (the
    peer not listening yet) is simply followed by the next, unless ``first_error_ends``: then
    the first attempt that fails ends it with its error, as a single attempt would. OSError
    (the last refusal; the first, with ``first_error_ends``) or trio.TooSlowError when none
    connected in time."""
    won: list[tuple[trio.SocketStream, tuple[str, int]]] = []
    errors: list[OSError] = []

    async def attempt(nursery: trio.Nursery) -> None:
        try:
            result = await connect_first(addresses, opener)
        except OSError as e:
            errors.append(e)
            if first_error_ends:
                nursery.cancel_scope.cancel()
            return
        if won or (first_error_ends and errors):  # an earlier attempt ended it first
            await result[0].aclose()
            return
        won.append(result)
        nursery.cancel_scope.cancel()

    with trio.move_on_after(window):
        async with trio.open_nursery() as nursery:
            while True:
                nursery.start_soon(attempt, nursery)
                await trio.sleep(AFRESH)
    if won:
        return won[0]
    if errors:
        raise errors[0] if first_error_ends else errors[-1]
    raise trio.TooSlowError


async def open_reusable(host: str, port: int) -> trio.SocketStream:
    """Like ``trio.open_tcp_stream``, from a local port that hole punching can bind again:
    every address the name resolves to, IPv6 first, each ``STAGGER`` s after the one before.

    Tried afresh every ``AFRESH`` seconds beside the attempts still waiting for an answer,
    until one connects (the caller bounds the wait): on a path that loses packets the system
    sends a lost SYN again only after 1, 3, 7 s..., and a connection whose SYN was sent again
    starts with a longer retransmission timeout; a fresh attempt sends its own SYN at once.
    The first attempt that fails (the connection refused, no route) ends it with its error,
    as a single attempt would: the host has left, or cannot be reached at all."""
    try:
        infos = await trio.socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except UnicodeError:  # a name no DNS could hold (a label over 63 characters): none to reach
        raise OSError(f"{host!r} is not a name a host can have") from None
    if not infos:
        raise OSError(f"no address for {host}")
    infos.sort(key=lambda info: info[0] != socket.AF_INET6)
    seen: list[tuple[int, tuple[str, int]]] = []
    for family, _type, _proto, _name, sockaddr in infos:
        entry = (int(family), (str(sockaddr[0]), int(sockaddr[1])))
        if entry not in seen:
            seen.append(entry)
    families = dict((address, family) for family, address in seen)

    async def opener(address: tuple[str, int]) -> trio.SocketStream:
        family = families[address]
        sock = reusable(family)
        try:
            await sock.bind(("::" if family == socket.AF_INET6 else "0.0.0.0", 0))
        except BaseException:
            sock.close()
            raise
        return await _connect(sock, address)

    addresses = [address for _family, address in seen]
    stream, _address = await connect_afresh(addresses, math.inf, opener, first_error_ends=True)
    return stream


def punch_point(stream: trio.abc.Stream) -> tuple[int, int] | None:
    """(address family, local port) of a socket stream, for hole punching (None: no socket)."""
    sock = getattr(stream, "socket", None)
    try:
        return (int(sock.family), int(sock.getsockname()[1])) if sock is not None else None
    except OSError:
        return None


async def simultaneous_open(
    family: int, port: int, address: tuple[str, int], window: float
) -> trio.SocketStream | None:
    """A TCP connection from local ``port`` to ``address`` while the other end connects to
    this one at the same moment; None if none formed within ``window`` seconds.

    Each attempt keeps its SYN going (the kernel sends it again after 1 s, 3 s...):
    the first may be dropped by the other router, which has not seen the other
    side's SYN go out yet; one answered by a reset is tried again.
    """
    with trio.move_on_after(window):
        while True:
            sock = reusable(family)
            try:
                await sock.bind(("::" if family == socket.AF_INET6 else "0.0.0.0", port))
            except OSError:
                sock.close()
                return None  # the port is not this process's to use
            try:
                return await _connect(sock, address)
            except OSError:
                await trio.sleep(PUNCH_RETRY)
    return None
