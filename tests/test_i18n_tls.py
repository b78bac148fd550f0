"""What TLS said of a connection, and why a link broke, reach French and Italian players in
their language: a handshake that failed (by OpenSSL's reason, when it is a common one), a peer
that speaks no TLS or shows a certificate without the expected key, a link broken by a byte
changed on the path, reset by the peer's system, or closed at this end.

The English stays as it was (a log, a test and ``--json`` read it): the errors carry notices
and what the system said by its errno, which the interface says in the player's language. A
reason OpenSSL gives that the catalogs do not hold is shown as OpenSSL said it."""

from __future__ import annotations

import datetime
import functools
import re
import socket
import ssl
import struct
import tempfile
from pathlib import Path

import msgpack
import pytest
import trio
import trio.testing
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.x509.oid import NameOID

from p2pcards.crypto.identity import Identity
from p2pcards.net import tls
from p2pcards.net.link import Link, LinkClosed
from p2pcards.net.session import _link_failure
from p2pcards.protocol.notice import NOTICES, TLS_REASONS, Notice, message_of, tls_reason
from p2pcards.say import SystemSaid
from p2pcards.ui.i18n import Translator

LANGS = ["fr", "it"]


def english_runs(text: str) -> set[str]:
    """Every three words in a row of ``text``: a translation keeps none of its English's."""
    words = re.findall(r"[A-Za-z]+", text)
    return {" ".join(words[k : k + 3]) for k in range(len(words) - 2)}


TLSStream = trio.SSLStream[trio.abc.Stream]


async def _handshake_both(client: TLSStream, server: TLSStream) -> None:
    async with trio.open_nursery() as nursery:
        nursery.start_soon(tls.handshake, server)
        await tls.handshake(client)


async def _failed_handshake(
    client: trio.SSLStream[trio.abc.Stream], server: trio.SSLStream[trio.abc.Stream]
) -> tuple[BaseException | None, BaseException | None]:
    """Run both ends' handshakes; what each raised (the client's a raw trio error is kept too)."""
    got: list[BaseException | None] = [None, None]

    async def run(k: int, stream: trio.SSLStream[trio.abc.Stream]) -> None:
        try:
            await tls.handshake(stream)
        except (tls.TLSError, trio.BrokenResourceError) as e:
            got[k] = e
        with trio.move_on_after(1):
            await stream.aclose()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(run, 0, client)
        nursery.start_soon(run, 1, server)
    return got[0], got[1]


def _old_client(stream: trio.abc.Stream) -> trio.SSLStream[trio.abc.Stream]:
    old = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    old.check_hostname = False
    old.verify_mode = ssl.CERT_NONE
    old.maximum_version = ssl.TLSVersion.TLSv1_2
    return trio.SSLStream(tls._Transport(stream), old, server_hostname=None)


@pytest.mark.parametrize("lang", LANGS)
async def test_a_real_handshake_failure_is_said_by_its_reason_in_the_language(lang: str) -> None:
    tr = Translator(lang)
    client_end, server_end = trio.testing.memory_stream_pair()
    server = tls.server(server_end, tls.server_context(Identity.generate()))
    _, refused = await _failed_handshake(_old_client(client_end), server)
    assert isinstance(refused, tls.TLSError) and refused.kind == "failed"
    assert str(refused) == "TLS handshake failed (unsupported protocol)"  # (the English as it was)
    said = tr.said(Notice("notice_refused_connection", peer="192.0.2.7", error=message_of(refused)))
    failed = tr("tls_failed", why=tr("ssl_unsupported_protocol"))
    assert said == tr("notice_refused_connection", peer="192.0.2.7", error=failed)
    assert not english_runs(said) & english_runs(str(refused)), said
    assert "unsupported" not in said


@pytest.mark.parametrize("lang", LANGS)
async def test_a_peer_that_speaks_no_tls_or_shows_another_kind_of_key_is_said_so(lang: str) -> None:
    tr = Translator(lang)
    client_end, server_end = trio.testing.memory_stream_pair()
    server = tls.server(server_end, tls.server_context(Identity.generate()))
    async with trio.open_nursery() as nursery:
        nursery.start_soon(client_end.send_all, b"GET / HTTP/1.0\r\n\r\n")
        with pytest.raises(tls.TLSError) as garbage:
            await tls.handshake(server)
    assert str(garbage.value) == "not a p2pcards TLS connection"
    assert tr.said(message_of(garbage.value)) == tr("tls_garbage") != str(garbage.value)
    # A TLS 1.3 server whose certificate holds an RSA key (another program, not a seat).
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "x")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (
        x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(1).not_valid_before(now).not_valid_after(now + datetime.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )  # fmt: skip
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    with tempfile.TemporaryDirectory() as folder:
        cert_path, key_path = Path(folder, "c.pem"), Path(folder, "k.pem")
        cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
        key_path.write_bytes(
            key.private_bytes(
                serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
            )
        )
        ctx.load_cert_chain(cert_path, key_path)
    client_end, server_end = trio.testing.memory_stream_pair()
    client = tls.client(client_end)
    await _handshake_both(client, trio.SSLStream(server_end, ctx, server_side=True))
    with pytest.raises(tls.TLSError) as other:
        tls.peer_key(client)
    assert str(other.value) == "the peer's certificate does not hold an Ed25519 key"
    said = tr.said(Notice("notice_host_no_encryption", peer="192.0.2.7:7777", why=message_of(other.value)))
    assert said == tr("notice_host_no_encryption", peer="192.0.2.7:7777", why=tr("tls_not_ed25519"))
    assert "certificate" not in said and "Ed25519" in said


@pytest.mark.parametrize("lang", LANGS)
async def test_a_link_broken_by_a_byte_changed_on_the_path_says_so_in_the_language(lang: str) -> None:
    tr = Translator(lang)
    client_end, server_end = trio.testing.memory_stream_pair()
    client = tls.client(client_end)
    await _handshake_both(client, server := tls.server(server_end, tls.server_context(Identity.generate())))
    sender, receiver = Link(client), Link(server)

    class Tamper(trio.abc.Stream):
        async def send_all(self, data: bytes | bytearray | memoryview) -> None:
            changed = bytearray(data)
            changed[-1] ^= 1
            await client_end.send_all(changed)

        async def wait_send_all_might_not_block(self) -> None: ...

        async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
            return await client_end.receive_some(max_bytes)

        async def aclose(self) -> None:
            await client_end.aclose()

    client.transport_stream.inner = Tamper()  # type: ignore[attr-defined]
    await sender.send(msgpack.packb({"kind": "record"}))
    with pytest.raises(LinkClosed) as caught:
        await receiver.receive()
    english = "connection lost (TLS: decryption failed or bad record mac)"
    assert caught.value.reason == english
    said = tr.said(caught.value.reason)
    mac = tr("ssl_decryption_failed_or_bad_record_mac")
    assert said == tr("notice_link_lost", why=tr("tls_lost", why=mac))
    assert not english_runs(said) & english_runs(english), said
    # Once broken, a TLS stream says only that it is (a send after the break):
    with pytest.raises(LinkClosed) as again:
        await receiver.send(b"\x80")
    assert tr.said(again.value.reason) == tr("notice_link_lost_sending", why=tr("why_broken_before"))


@pytest.mark.parametrize("lang", LANGS)
async def test_a_link_reset_by_the_peers_system_is_said_in_the_language(lang: str) -> None:
    tr = Translator(lang)
    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    client = await trio.open_tcp_stream("127.0.0.1", port)
    server = await listeners[0].accept()
    # Closed with a zero linger: the peer's system answers with a reset, not an end of stream.
    client.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    await client.aclose()
    with pytest.raises(LinkClosed) as caught:
        await Link(server).receive()
    reason = caught.value.reason
    assert reason.startswith("connection lost (socket connection broken: [Errno") and "reset" in reason
    said = tr.said(reason)
    assert said == tr("notice_link_lost", why=tr("oserror_econnreset"))
    assert "Errno" not in said and "socket" not in said
    # ...and what the host's window shows while joining (the joiner tries again):
    retry = Notice("notice_join_retry", why=Notice("notice_host_closed", why=reason))
    assert tr.said(retry) == tr("notice_join_retry", why=tr("notice_host_closed", why=said))
    # Written on after this end closed it: said so.
    link = Link(server)
    await server.aclose()
    with pytest.raises(LinkClosed) as closed:
        await link.send(b"\x80")
    assert tr.said(closed.value.reason) == tr("notice_link_lost_sending", why=tr("why_closed_here"))
    for listener in listeners:
        await listener.aclose()


@pytest.mark.parametrize("lang", LANGS)
def test_each_tls_words_and_each_common_reason_is_said_in_the_language(lang: str) -> None:
    tr = Translator(lang)
    values = {"why": "XYZ", "seat": 3}
    for key in [k for k in NOTICES if k.startswith(("tls_", "ssl_", "why_"))]:
        english = NOTICES[key].format(**values)
        said = tr(key, **values)
        assert not english_runs(said) & english_runs(english), (key, said)
        if key.startswith("ssl_") and len(english.split()) <= 2:  # (a word or two: its own)
            assert said != english, key
    assert len(TLS_REASONS) == len({k for k in NOTICES if k.startswith("ssl_")})
    for errno_name in ("ECONNRESET", "EPIPE", "ECONNABORTED", "ETIMEDOUT"):
        number = getattr(__import__("errno"), errno_name)
        assert tr.said(SystemSaid(f"socket connection broken: [Errno {number}] x", number)) != "x"


@pytest.mark.parametrize("lang", ["en", *LANGS])
def test_a_reason_the_catalogs_do_not_hold_is_quoted_as_openssl_said_it(lang: str) -> None:
    """A reason no notice says is OpenSSL's own words: in English as they are (as before, and
    so in what a seat signs), in French and Italian quoted in a sentence of the language, live
    and read back from a transcript alike."""
    from p2pcards.ui.problems import link_text

    tr = Translator(lang)
    assert tls_reason("SOME_NEW_REASON") == "some new reason"
    said = tr.said(Notice("tls_failed", why=tls_reason("SOME_NEW_REASON")))
    quoted = "some new reason" if lang == "en" else tr("openssl_said", reason="some new reason")
    assert said == tr("tls_failed", why=quoted), said
    if lang != "en":
        assert "OpenSSL" in quoted and said.count("some new reason") == 1, said
    for key in ("tls_failed", "tls_lost"):  # (a seat judged gone signs it in English)
        signed = str(Notice(key, why=tls_reason("SOME_NEW_REASON")))
        assert link_text(tr, signed) == tr(key, why=quoted), link_text(tr, signed)
    assert str(tls_reason("TLSV1_UNRECOGNIZED_NAME")) == "tlsv1 unrecognized name"
    assert tr.said(tls_reason("TLSV1_UNRECOGNIZED_NAME")) == tr("ssl_tlsv1_unrecognized_name")
    assert tr.said(Notice("tls_failed", why=tls_reason("WRONG_VERSION_NUMBER"))) == tr(
        "tls_failed", why=tr("ssl_wrong_version_number")
    )
    assert str(Notice("tls_failed", why=tls_reason("WRONG_VERSION_NUMBER"))) == (
        "TLS handshake failed (wrong version number)"
    )


@pytest.mark.parametrize("lang", LANGS)
def test_a_mesh_link_that_answered_with_another_key_is_said_in_the_language(lang: str) -> None:
    tr = Translator(lang)
    error = tls.TLSError(Notice("tls_other_key", seat=1), kind="key")
    failed = Notice("notice_link_failed", name="p1", seat=1, why=_link_failure(error))
    assert failed == (
        "link to p1 (seat 1) failed: the address the host listed for seat 1 answered with another key"
        " than seat 1's: the host's roster may be wrong, or someone may be in the middle"
    )
    said = tr.said(failed)
    assert said == tr("notice_link_failed", name="p1", seat=1, why=tr("tls_other_key", seat=1))
    assert not english_runs(said) & english_runs(failed), said


@pytest.mark.parametrize("lang", LANGS)
async def test_hosts_that_answered_but_seated_nobody_are_listed_with_why_in_the_language(lang: str) -> None:
    """A joiner that tried every host that answered its search says why each did not seat it."""
    from net_helpers import FAST, LOCALHOST, RecordingUI

    from p2pcards.errors import PeerUnreachable
    from p2pcards.net.session import join_table

    async def garbage(stream: trio.SocketStream) -> None:
        with trio.move_on_after(5):
            await stream.send_all(b"HTTP/1.0 400 Bad Request\r\n\r\n")
            await stream.aclose()

    async with trio.open_nursery() as nursery:
        listeners = await nursery.start(functools.partial(trio.serve_tcp, garbage, 0, host=LOCALHOST))
        port = listeners[0].socket.getsockname()[1]
        with trio.fail_after(20), pytest.raises(PeerUnreachable) as caught:
            await join_table(
                host=LOCALHOST, port=port, code="7-amber-lantern", identity=Identity.generate(), name="ann",
                listen_port=0, ui=RecordingUI(), timeouts=FAST, alternatives=[(LOCALHOST, port)],
            )  # fmt: skip
        nursery.cancel_scope.cancel()
    english = str(caught.value)
    where = f"{LOCALHOST}:{port}"
    one = f"{where}: no encrypted connection with the host at {where}: not a p2pcards TLS connection"
    assert english == f"none of the 2 hosts that answered seated you ({one}; {one})"
    tr = Translator(lang)
    said = tr.said(message_of(caught.value))
    each = f"{where}: " + tr("notice_host_no_encryption", peer=where, why=tr("tls_garbage"))
    assert said == tr("notice_no_host_seated", n=2, failures=f"{each}; {each}"), said
    assert not english_runs(said) & english_runs(english), said
