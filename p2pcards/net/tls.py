"""TLS 1.3 on every link, with the seats' Ed25519 keys pinned (no certificate authority).

Every node presents a self-signed X.509 certificate for its seat's Ed25519
identity key (the key that signs its records). A client does not validate the
certificate the usual way: there is no authority and no host name to check.
It reads the key out of the certificate after the handshake and compares it
with the key it expects (:func:`peer_key`): the roster key of the seat it
dialled, or the host key that the host's code proof authenticates. TLS itself
proves that the server holds the private key of the certificate it shows (its
CertificateVerify is checked whatever the verify mode), so a matching key
means the channel ends at that seat and nowhere else.

Servers do not ask for client certificates: a client proves its key with the
lobby's and the mesh's signatures, which it sends only inside a channel whose
server it has pinned.

Everything here is the standard library's ``ssl`` (OpenSSL) through
``trio.SSLStream``; this module only builds the contexts and the certificate.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import socket
import ssl
import tempfile
from functools import cache
from typing import TYPE_CHECKING

import trio
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from p2pcards.crypto.identity import Identity
from p2pcards.protocol.notice import Notice, tls_reason

if TYPE_CHECKING:
    from cryptography import x509

TLS_HANDSHAKE = 0x16
"""First byte of a TLS connection (a handshake record)..."""
TLS_ALERT = 0x15
"""...or of a TLS peer's refusal (an alert record)."""

_MSGPACK_MAP = frozenset(range(0x80, 0x90)) | {0xDE, 0xDF}
"""First bytes of a msgpack map: a p2pcards frame sent in the clear (an older version)."""

_NOT_BEFORE = datetime.datetime(2000, 1, 1, tzinfo=datetime.UTC)
_NOT_AFTER = datetime.datetime(9999, 12, 31, 23, 59, 59, tzinfo=datetime.UTC)
"""The certificate's validity: wide on purpose (nobody checks it; the key is pinned)."""


class TLSError(Exception):
    """A TLS handshake failed, or the peer's certificate is not the one expected (one line).

    ``kind`` says what the peer did: ``plain`` it spoke p2pcards without encryption (an
    older version), ``garbage`` it spoke something else, ``closed`` it hung up (or was cut)
    during the handshake, ``failed`` TLS refused it (no common version, a bad message...),
    ``key`` its certificate holds no usable key or not the expected one. The message is a
    :class:`~p2pcards.protocol.notice.Notice` (English, said in the player's language by a UI:
    ``message_of``)."""

    def __init__(self, message: str, *, kind: str = "failed") -> None:
        self.kind = kind
        super().__init__(message)


def certificate(identity: Identity) -> x509.Certificate:
    """A self-signed certificate for ``identity``'s Ed25519 key (its only content that matters)."""
    # X.509 loads with the first connection, not with the lobby: a host shows its invitation first.
    from cryptography import x509
    from cryptography.x509.oid import NameOID

    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "p2pcards")])
    return (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(identity.key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(_NOT_BEFORE)
        .not_valid_after(_NOT_AFTER)
        .sign(identity.key, None)
    )


def server_context(identity: Identity) -> ssl.SSLContext:
    """A TLS 1.3 server context presenting ``identity``'s certificate (no client certificates)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.verify_mode = ssl.CERT_NONE
    ctx.num_tickets = 0  # no session resumption: every connection shows its certificate
    key_pem = identity.key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    )
    cert_pem = certificate(identity).public_bytes(serialization.Encoding.PEM)
    # load_cert_chain reads files only: write them where only we can read, load, delete.
    directory = tempfile.mkdtemp(prefix="p2pcards-tls-")  # mode 0700
    key_path = os.path.join(directory, "key.pem")
    cert_path = os.path.join(directory, "cert.pem")
    try:
        for path, data in ((key_path, key_pem), (cert_path, cert_pem)):
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
        ctx.load_cert_chain(cert_path, key_path)
    finally:
        for path in (key_path, cert_path):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(path)
        os.rmdir(directory)
    return ctx


@cache
def client_context() -> ssl.SSLContext:
    """The TLS 1.3 client context: no authority, no host name, no client certificate.

    The caller pins the server's key after the handshake (:func:`peer_key`)."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    return ctx


DEAD_PATH = 20.0
"""Seconds that data sent on a connection may stay unacknowledged before the system drops
the connection (``TCP_USER_TIMEOUT``, where the system has it). A node sends something on
every link at least every few seconds during a match (``runner._heartbeat``), so a path
that stopped carrying anything (a laptop that moved to another network, a router that
forgot the connection) shows as a broken link, which is then dialled again, instead of as
a silent peer. A peer whose program is merely frozen still acknowledges: it is silent."""


def _drop_dead_paths(stream: trio.abc.Stream) -> None:
    """Set :data:`DEAD_PATH` on ``stream``'s socket (nothing when it has none, or the system
    lacks the option)."""
    option = getattr(socket, "TCP_USER_TIMEOUT", None)
    setsockopt = getattr(stream, "setsockopt", None)
    if option is None or setsockopt is None:
        return
    with contextlib.suppress(OSError):
        setsockopt(socket.IPPROTO_TCP, option, int(DEAD_PATH * 1000))


class _Transport(trio.abc.HalfCloseableStream):
    """The stream under TLS; remembers the first bytes the peer sent, to say what it spoke."""

    def __init__(self, inner: trio.abc.Stream) -> None:
        self.inner = inner
        self.first = b""
        _drop_dead_paths(inner)

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        data = await self.inner.receive_some(max_bytes)
        if len(self.first) < 8:
            self.first += bytes(data[: 8 - len(self.first)])
        return data

    async def send_eof(self) -> None:
        send_eof = getattr(self.inner, "send_eof", None)
        if send_eof is None:
            await trio.lowlevel.checkpoint()
        else:
            await send_eof()

    async def aclose(self) -> None:
        await self.inner.aclose()


def server(stream: trio.abc.Stream, ctx: ssl.SSLContext) -> trio.SSLStream[trio.abc.Stream]:
    """The server end of TLS over ``stream`` (the handshake is :func:`handshake`'s).

    ``https_compatible`` (both ends): a hang-up is an end of stream whether or not the
    peer sent close_notify, as on plain TCP (frames delimit themselves, and a cut frame
    is never used), and a node half-closes the TCP stream under TLS to say it is done
    (:func:`send_eof`)."""
    return trio.SSLStream(_Transport(stream), ctx, server_side=True, https_compatible=True)


def client(stream: trio.abc.Stream) -> trio.SSLStream[trio.abc.Stream]:
    """The client end of TLS over ``stream`` (the handshake is :func:`handshake`'s)."""
    return trio.SSLStream(_Transport(stream), client_context(), server_hostname=None, https_compatible=True)


async def first_bytes(stream: trio.SSLStream[trio.abc.Stream]) -> None:
    """Wait until the other end's first bytes (its TLS hello) reach the TCP socket under
    ``stream``, before the handshake reads them: a server that bounds each step of a handshake
    gives the time they took on the way a step of its own. At once when no socket is under it."""
    transport = stream.transport_stream
    sock = getattr(transport.inner if isinstance(transport, _Transport) else transport, "socket", None)
    if isinstance(sock, trio.socket.SocketType):
        await trio.lowlevel.wait_readable(sock.fileno())
    else:
        await trio.lowlevel.checkpoint()


async def handshake(stream: trio.SSLStream[trio.abc.Stream]) -> None:
    """Run the TLS handshake; :class:`TLSError` with one line saying why if it fails."""
    try:
        await stream.do_handshake()
    except (trio.BrokenResourceError, trio.ClosedResourceError) as e:
        raise _failure(stream, e) from None


def _failure(stream: trio.SSLStream[trio.abc.Stream], error: BaseException) -> TLSError:
    transport = stream.transport_stream
    first = transport.first if isinstance(transport, _Transport) else b""
    cause = error.__cause__
    if first and first[0] in _MSGPACK_MAP:
        return TLSError(Notice("tls_plain"), kind="plain")
    if first and first[0] not in (TLS_HANDSHAKE, TLS_ALERT):
        return TLSError(Notice("tls_garbage"), kind="garbage")
    if isinstance(cause, ssl.SSLError) and not isinstance(cause, ssl.SSLEOFError | ssl.SSLSyscallError):
        return TLSError(Notice("tls_failed", why=tls_reason(cause.reason or type(cause).__name__)))
    return TLSError(Notice("tls_closed"), kind="closed")


def peer_key(stream: trio.SSLStream[trio.abc.Stream]) -> bytes:
    """The raw 32-byte Ed25519 key of the peer's certificate (after the handshake)."""
    der = stream.getpeercert(binary_form=True)
    if not der:
        raise TLSError(Notice("tls_no_certificate"), kind="key")
    from cryptography import x509  # (loaded late: see certificate)

    try:
        key = x509.load_der_x509_certificate(der).public_key()
    except ValueError:
        raise TLSError(Notice("tls_certificate_unreadable"), kind="key") from None
    if not isinstance(key, Ed25519PublicKey):
        raise TLSError(Notice("tls_not_ed25519"), kind="key")
    return key.public_bytes_raw()


async def send_eof(stream: trio.abc.Stream) -> None:
    """Say "nothing more from me" and keep reading: a TCP half-close, under TLS if any."""
    target = stream.transport_stream if isinstance(stream, trio.SSLStream) else stream
    send = getattr(target, "send_eof", None)
    if send is not None:
        await send()


def channel_binding(stream: trio.abc.Stream) -> bytes:
    """The TLS session's ``tls-unique`` binding (the client's Finished ``verify_data``).

    With TLS 1.3 and no resumption (``num_tickets = 0``) it is unique to one handshake,
    and both ends read the same bytes: the lobby's SPAKE2 confirmations name it, so a
    relay holding two TLS sessions cannot splice them."""
    binding = stream.get_channel_binding("tls-unique") if isinstance(stream, trio.SSLStream) else None
    if not binding:
        raise TLSError(Notice("tls_no_binding"), kind="failed")
    return bytes(binding)
