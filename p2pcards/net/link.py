"""One connection to a peer (TLS over TCP, see ``p2pcards.net.tls``): bounded framing on
read, one lock on write.

Frames are concatenated msgpack objects. Each link owns one bounded
:class:`~p2pcards.protocol.wire.StreamDecoder`; after any decoding error the
link is dead. Writes go through one lock so that frames from concurrent tasks
never interleave. A link can start with a tighter bound than the one it was made
for (the lobby's, while a stranger has proven nothing) and be widened later.
"""

from __future__ import annotations

import contextlib
import os
import socket
import ssl
import struct
import sys
from collections import deque
from typing import Any

import trio

from p2pcards.errors import UsageError
from p2pcards.protocol.notice import Notice, tls_reason
from p2pcards.protocol.wire import MAX_FRAME, StreamDecoder, WireError
from p2pcards.say import SystemSaid, system_said

READ_CHUNK = 65536


HUNG_UP = Notice("notice_link_hung_up")
"""Why a link closed when its peer closed the connection (said in the player's language)."""


class LinkClosed(Exception):
    """The peer closed the connection or it broke (``reason`` says how)."""

    def __init__(self, reason: str) -> None:
        self.reason = reason
        super().__init__(reason)


def _why(e: BaseException) -> str:
    """A few words on why a stream broke ("TLS: decryption failed or bad record mac"), to be
    said in the player's language: what TLS said, what the system said (by its errno: the
    text as it was, ``socket connection broken: [Errno 104] Connection reset by peer``), or
    that this end had closed or broken the stream before; any other text as it is."""
    cause = e.__cause__
    if isinstance(cause, ssl.SSLError):
        return Notice("tls_lost", why=tls_reason(cause.reason or type(cause).__name__))
    if isinstance(cause, OSError) and cause.errno is not None:
        return SystemSaid(str(e) or cause.strerror or str(cause), cause.errno)
    if isinstance(e, trio.ClosedResourceError):
        if "after sending EOF" in str(e):
            return Notice("why_sent_after_eof")
        return Notice("why_closed_here")
    if isinstance(e, trio.BrokenResourceError) and not str(e):
        return Notice("why_broken_before")  # (a TLS stream broken by an earlier error)
    return str(e) or type(e).__name__


def refused_why(e: BaseException) -> SystemSaid | None:
    """What the system said of a connection that could not be made (``Connection refused``),
    by the errno of ``e`` or, where trio says only that every attempt failed, of the first
    attempt that has one; a resolver's negative errno by its own text. None if none has."""
    cause = e.__cause__
    inner = cause.exceptions if isinstance(cause, BaseExceptionGroup) else ()
    for err in (e, *inner):
        if isinstance(err, OSError) and err.errno:
            return SystemSaid(os.strerror(err.errno), err.errno) if err.errno > 0 else system_said(err)
    return None


class Link:
    """Frames to and from one peer.

    ``max_frame`` is the largest frame the link may ever accept; ``limit``, if
    given, a tighter bound that holds until :meth:`limit_frames` changes it.
    """

    def __init__(
        self,
        stream: trio.abc.Stream,
        *,
        max_frame: int = MAX_FRAME,
        peer: str = "?",
        limit: int | None = None,
    ) -> None:
        self.stream = stream
        self.peer = peer
        self.max_frame = max_frame
        self._decoder = StreamDecoder(max_frame)
        if limit is not None:
            self.limit_frames(limit)
        self._ready: deque[Any] = deque()
        self._send_lock = trio.Lock()
        self.send_broken = False
        self.bytes_sent = 0
        self.bytes_received = 0
        self.frames_sent = 0
        self.frames_received = 0
        self.last_sent: float | None = None
        """When a frame last went out (trio's clock), for the keep-alive."""

    async def send(self, frame: bytes) -> None:
        async with self._send_lock:
            if self.send_broken:
                raise LinkClosed(Notice("why_send_interrupted"))
            # A send cancelled half-way leaves the stream unusable: until this one
            # completes, the link counts as broken. One cancelled before it began
            # (the program stopping) leaves it as it was, for a last frame (a leave).
            await trio.lowlevel.checkpoint_if_cancelled()
            self.send_broken = True
            try:
                await self.stream.send_all(frame)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as e:
                raise LinkClosed(Notice("notice_link_lost_sending", why=_why(e))) from None
            except BaseException:
                # Cut in the middle (a send that waited too long on a stalled path): the peer
                # holds part of a frame and could read nothing after it. Hang up, so that both
                # ends see the break (and link again) instead of a link that stays silent.
                with trio.CancelScope(shield=True):
                    await trio.aclose_forcefully(self.stream)
                raise
            self.send_broken = False
            self.bytes_sent += len(frame)
            self.frames_sent += 1
            self.last_sent = trio.current_time()

    async def receive(self) -> Any:
        """The next msgpack object from the peer (bounded; WireError on bad input)."""
        while not self._ready:
            if self._decoder.failed is not None:
                raise self._decoder.failed
            try:
                data = await self.stream.receive_some(READ_CHUNK)
            except (trio.BrokenResourceError, trio.ClosedResourceError) as e:
                raise LinkClosed(Notice("notice_link_lost", why=_why(e))) from None
            if not data:
                raise LinkClosed(HUNG_UP)
            self.bytes_received += len(data)
            self._ready.extend(self._decoder.feed(data))
        self.frames_received += 1
        return self._ready.popleft()

    def limit_frames(self, size: int) -> None:
        """Refuse frames over ``size`` bytes from now on (up to the ``max_frame`` the link was made for).

        The decoder counts the bytes of the frame in progress against this bound as
        they arrive, so a tight bound also caps what a peer can make this node buffer.
        """
        if not 0 < size <= self.max_frame:
            raise UsageError(f"a frame bound of {size} bytes is outside 1..{self.max_frame}")
        self._decoder.max_frame = size

    @property
    def frame_limit(self) -> int:
        """The largest frame accepted now."""
        return self._decoder.max_frame

    @property
    def failed(self) -> WireError | None:
        return self._decoder.failed

    def unacknowledged(self) -> int | None:
        """Bytes sent on this link that the peer's system has not acknowledged yet; None where
        this system cannot say (not Linux), or the link has no socket of its own. A node that
        stops closes its links once this is 0: closing a socket can cut a last frame still in
        flight (a leave), when data that comes after the close makes the system reset it."""
        sock = self._linux_socket()
        if sock is None:
            return None
        import fcntl
        import termios

        try:  # SIOCOUTQ, which is TIOCOUTQ on Linux: sent but not acknowledged, and not sent yet
            raw = fcntl.ioctl(sock.fileno(), termios.TIOCOUTQ, b"\0\0\0\0")
        except (OSError, ValueError):
            return None
        return int.from_bytes(raw, sys.byteorder, signed=True)

    def _linux_socket(self) -> Any:
        """The link's own socket, where the system is Linux (whose view of a connection the
        link reads); else None."""
        return _socket_of(self.stream) if sys.platform.startswith("linux") else None

    def _tcp_info(self) -> bytes | None:
        """The system's ``struct tcp_info`` of the link's socket; None where it has none to read."""
        sock = self._linux_socket()
        option = getattr(socket, "TCP_INFO", None)
        if sock is None or option is None:
            return None
        try:
            info: bytes = sock.getsockopt(socket.IPPROTO_TCP, option, _TCP_INFO_SIZE)
        except (OSError, ValueError):
            return None
        return info

    def stalled(self) -> bool | None:
        """Whether the path to the peer looks dead: data sent on this link waits for the
        peer's system to acknowledge it, and has been sent again (:func:`tcp_info_stalled`).
        A peer whose program froze still acknowledges (its system does); a path that stopped
        carrying anything does not. None where this system cannot say (not Linux), or the
        link has no socket of its own."""
        info = self._tcp_info()
        return None if info is None else tcp_info_stalled(info)

    def answering(self, within: float) -> bool | None:
        """Whether the peer's system acknowledged everything this link sent, the last of it
        within ``within`` seconds (:func:`tcp_info_answering`): the path carries, so a peer
        silent meanwhile is silent of its own accord. None where this system cannot say."""
        info = self._tcp_info()
        return None if info is None else tcp_info_answering(info, within)

    async def reset(self) -> None:
        """Hang up at once, the system resetting the connection instead of sending what
        waits: on a path that was dead, what waits (and the end of the connection behind
        it) is held back by the system's back-off for seconds, while the peer, once its
        link is reset, dials again or is dialled at once."""
        sock = _socket_of(self.stream)
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        await trio.aclose_forcefully(self.stream)

    async def aclose(self) -> None:
        with trio.move_on_after(1) as scope:
            scope.shield = True
            await self.stream.aclose()


def _socket_of(stream: object) -> Any:
    """The socket under ``stream`` (TLS over TCP: a few layers down), or None."""
    for _ in range(4):
        sock = getattr(stream, "socket", None)
        if sock is not None:
            return sock
        stream = getattr(stream, "transport_stream", None) or getattr(stream, "inner", None)
        if stream is None:
            return None
    return None


STALLED = 3.0
"""Seconds without an acknowledgement, while data waits for one, after which a path counts
as dead (:meth:`Link.stalled`). A live link carries something every few seconds
(``runner._heartbeat``) and is acknowledged within a round trip; the system's own limit,
``tls.DEAD_PATH``, is longer, for a table whose clocks are longer still."""

STALLED_TIMEOUTS = 4
"""Retransmission timeouts in a row, with no progress, that show a dead path by themselves:
the system doubles its wait after each one, from at least 0.2 s, so four take 3 s or more."""

_TCP_INFO_SIZE = 104
"""Bytes of Linux's ``struct tcp_info`` read: its fields up to ``tcpi_last_ack_recv`` are
all this needs, and every Linux since 2.6 has them at the same offsets."""


def tcp_info_stalled(info: bytes) -> bool | None:
    """Read Linux's ``struct tcp_info``: data unacknowledged (``tcpi_unacked``), sent again by
    the retransmission timer with no progress since (``tcpi_retransmits``, which only an
    acknowledgement of new data resets), :data:`STALLED_TIMEOUTS` times, or at least once
    with no acknowledgement at all for :data:`STALLED` seconds (``tcpi_last_ack_recv``,
    milliseconds; a segment from the peer carries one, even when it acknowledges nothing
    new, as when the peer's own data gets through first). None when ``info`` is too short
    to say."""
    if len(info) < 60:
        return None
    retransmits = info[2]
    (unacked,) = struct.unpack_from("=I", info, 24)
    (last_ack_recv,) = struct.unpack_from("=I", info, 56)
    if unacked == 0 or retransmits == 0:
        return False
    return retransmits >= STALLED_TIMEOUTS or last_ack_recv >= STALLED * 1000


def tcp_info_answering(info: bytes, within: float) -> bool | None:
    """Read Linux's ``struct tcp_info``: nothing sent waits unacknowledged (``tcpi_unacked``),
    and the last acknowledgement came within ``within`` seconds (``tcpi_last_ack_recv``,
    milliseconds). None when ``info`` is too short to say."""
    if len(info) < 60:
        return None
    (unacked,) = struct.unpack_from("=I", info, 24)
    (last_ack_recv,) = struct.unpack_from("=I", info, 56)
    return unacked == 0 and last_ack_recv <= within * 1000
