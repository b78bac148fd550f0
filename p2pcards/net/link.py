"""One TCP connection to a peer: bounded framing on read, one lock on write.

Frames are concatenated msgpack objects. Each link owns one bounded
``msgpack.Unpacker``; after any decoding error the link is dead (an unpacker is
never reused after bad input). Writes go through one lock so that frames from
concurrent tasks never interleave.

The unpacker's own limits bound each string and container and the bytes it
holds unparsed, but not a whole object: it parses containers as their bytes
arrive, so an array of large strings could grow without end. The link therefore
also counts the bytes of the frame in progress and refuses any frame over
``max_frame`` bytes.
"""

from __future__ import annotations

from collections import deque
from typing import Any

import msgpack
import trio

from p2pcards.protocol.wire import MAX_FRAME, WireError, unpack_limits

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
        self.max_frame = max_frame
        self._unpacker = msgpack.Unpacker(**unpack_limits(max_frame))
        self._frame_start = 0  # stream offset where the frame in progress began
        self._ready: deque[Any] = deque()
        self._send_lock = trio.Lock()
        self.failed: WireError | None = None
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
        if self.failed is not None:
            raise self.failed
        while not self._ready:
            try:
                data = await self.stream.receive_some(READ_CHUNK)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as e:
                raise LinkClosed(f"connection lost ({e or type(e).__name__})") from None
            if not data:
                raise LinkClosed("the peer closed the connection")
            self.bytes_received += len(data)
            try:
                self._unpacker.feed(data)
                for obj in self._unpacker:
                    end = self._unpacker.tell()
                    self._check_size(end)
                    self._frame_start = end
                    self._ready.append(obj)
                self._check_size(self.bytes_received)
            except WireError as e:
                self.failed = e
                raise
            except msgpack.BufferFull:
                self.failed = WireError(f"a frame of more than {self.max_frame} bytes")
                raise self.failed from None
            except (msgpack.StackError, RecursionError):
                self.failed = WireError("a frame nested too deeply")
                raise self.failed from None
            except (ValueError, msgpack.UnpackException) as e:
                self.failed = WireError(f"undecodable stream ({type(e).__name__}: {e})")
                raise self.failed from None
        self.frames_received += 1
        return self._ready.popleft()

    def _check_size(self, end: int) -> None:
        if end - self._frame_start > self.max_frame:
            raise WireError(f"a frame of more than {self.max_frame} bytes")

    async def aclose(self) -> None:
        with trio.move_on_after(1) as scope:
            scope.shield = True
            await self.stream.aclose()
