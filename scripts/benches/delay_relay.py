"""A transparent TCP relay that holds every byte for a fixed time in each direction.

The kernel here has no ``netem``, so a link with a constant one-way delay is
made in user space: inside one test machine (a network namespace of the NAT
lab), an nftables rule redirects every TCP connection the machine opens to this
relay, which reads the destination the connection was meant for
(``SO_ORIGINAL_DST``), opens it itself (its own connections carry a firewall
mark, so they are not redirected again) and forwards both ways, each chunk
``delay`` seconds after it arrived, in order. A connection is relayed once, by
the machine that opened it, so every link between two machines gets the delay
once in each direction.

:class:`DelayedStream`, the delayed direction of a link, also makes the virtual-time
links of the latency bench (``benches.latency``); this module needs trio alone, since
each lab machine runs it as a script:

    python delay_relay.py PORT DELAY_SECONDS MARK
"""

from __future__ import annotations

import contextlib
import math
import socket
import struct
import sys

import trio

SO_ORIGINAL_DST = 80
"""``getsockopt`` option of netfilter (IPv4 at SOL_IP, IPv6 at SOL_IPV6): where a redirected
connection was going."""


def original_destination(sock: trio.socket.SocketType) -> tuple[str, int]:
    """The address a redirected connection was opened to."""
    if sock.family == socket.AF_INET6:
        raw = sock.getsockopt(socket.SOL_IPV6, SO_ORIGINAL_DST, 28)
        port = struct.unpack_from("!H", raw, 2)[0]
        host = socket.inet_ntop(socket.AF_INET6, raw[8:24])
        if host.startswith("::ffff:"):
            host = host[7:]
        return host, port
    raw = sock.getsockopt(socket.SOL_IP, SO_ORIGINAL_DST, 16)
    return socket.inet_ntoa(raw[4:8]), struct.unpack_from("!H", raw, 2)[0]


class DelayedStream(trio.abc.HalfCloseableStream):
    """Delivers every chunk sent ``delay`` seconds after it was sent, in order (one
    direction of a link with a constant one-way delay); receiving is unchanged.

    ``send_all`` only queues the chunk, so a seat sending to several peers reaches
    them all after one delay; :meth:`pump` (a background task) delivers the queue.
    An end of stream (``send_eof``, a half-close) and a close travel the same way,
    after what was sent before them, as TCP's FIN does."""

    def __init__(self, inner: trio.abc.Stream, delay: float) -> None:
        self.inner = inner
        self.delay = delay
        self._queue, self._due = trio.open_memory_channel[tuple[float, bytes | None]](math.inf)

    async def pump(self) -> None:
        async for due, data in self._due:
            await trio.sleep_until(due)
            try:
                if data is None:  # nothing is sent after an end of stream: the stream stays open
                    if isinstance(self.inner, trio.abc.HalfCloseableStream):
                        await self.inner.send_eof()
                    return
                await self.inner.send_all(data)
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                return  # the other end hung up: what was in flight is lost, as on a real link
        with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
            await self.inner.aclose()

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        self._queue.send_nowait((trio.current_time() + self.delay, bytes(data)))
        await trio.lowlevel.checkpoint()

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self.inner.receive_some(max_bytes)

    async def send_eof(self) -> None:
        self._queue.send_nowait((trio.current_time() + self.delay, None))
        await trio.lowlevel.checkpoint()

    async def aclose(self) -> None:
        self._queue.close()  # the pump delivers what is queued, then closes the stream
        await trio.lowlevel.checkpoint()


async def forward(source: trio.SocketStream, sink: trio.SocketStream, delay: float) -> None:
    """Copy ``source`` to ``sink``, each chunk ``delay`` seconds late; EOF passes on the same way."""
    late = DelayedStream(sink, delay)

    async def read() -> None:
        while data := await source.receive_some(65536):
            await late.send_all(data)
        await late.send_eof()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(late.pump)
        nursery.start_soon(read)


async def relay(client: trio.SocketStream, delay: float, mark: int) -> None:
    try:
        host, port = original_destination(client.socket)
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        sock = trio.socket.socket(family, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_MARK, mark)
        await sock.connect((host, port))
        server = trio.SocketStream(sock)
    except OSError:
        await client.aclose()
        return
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(forward, client, server, delay)
            nursery.start_soon(forward, server, client, delay)
    except* (trio.BrokenResourceError, trio.ClosedResourceError, OSError):
        pass  # one end went away: so does the relayed connection
    finally:
        await client.aclose()
        await server.aclose()


async def main(port: int, delay: float, mark: int) -> None:
    listeners = await trio.open_tcp_listeners(port)
    print("relaying", flush=True)
    await trio.serve_listeners(lambda stream: relay(stream, delay, mark), listeners)


if __name__ == "__main__":
    trio.run(main, int(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3]))
