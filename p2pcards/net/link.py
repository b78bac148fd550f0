"""One TCP connection to a peer: bounded framing on read, one lock on write.

Frames are concatenated msgpack objects. Each link owns one bounded
:class:`~p2pcards.protocol.wire.StreamDecoder`; after any decoding error the
link is dead. Writes go through one lock so that frames from concurrent tasks
never interleave.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import trio

from p2pcards.protocol.wire import MAX_FRAME, StreamDecoder, WireError

READ_CHUNK = 65536


class LinkClosed(Exception):
    """The peer closed the connection or it broke (``reason`` says how)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


class Link:
    def __init__(self, stream: trio.abc.Stream, *, max_frame: int = MAX_FRAME, peer: str = "?") -> None:
        self.stream = stream
        self.peer = peer
        self._decoder = StreamDecoder(max_frame)
        self._ready: deque[Any] = deque()
        self._send_lock = trio.Lock()
        self.send_broken = False
        self.bytes_sent = 0
        self.bytes_received = 0
        self.frames_sent = 0
        self.frames_received = 0

    async def send(self, frame: bytes) -> None:
        async with self._send_lock:
            if self.send_broken:
                raise LinkClosed("an earlier send was interrupted")
            # A send cancelled half-way leaves the stream unusable: until this one
            # completes, the link counts as broken.
            self.send_broken = True
            try:
                await self.stream.send_all(frame)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as e:
                raise LinkClosed(f"connection lost while sending ({e or type(e).__name__})") from None
            self.send_broken = False
            self.bytes_sent += len(frame)
            self.frames_sent += 1

    async def receive(self) -> Any:
        """The next msgpack object from the peer (bounded; WireError on bad input)."""
        while not self._ready:
            if self._decoder.failed is not None:
                raise self._decoder.failed
            try:
                data = await self.stream.receive_some(READ_CHUNK)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as e:
                raise LinkClosed(f"connection lost ({e or type(e).__name__})") from None
            if not data:
                raise LinkClosed("connection lost (the peer hung up)")
            self.bytes_received += len(data)
            self._ready.extend(self._decoder.feed(data))
        self.frames_received += 1
        return self._ready.popleft()

    @property
    def failed(self) -> WireError | None:
        return self._decoder.failed

    async def aclose(self) -> None:
        with trio.move_on_after(1) as scope:
            scope.shield = True
            await self.stream.aclose()
