"""Why a peer's link was lost, and why it could not be made again, reach French and Italian
players in their language where the English was signed or kept: the detail of a seat judged
gone (the last attempt's error, which the first ``continue`` record signs), and a link that
broke before the match ran (a seat blamed for it).

The English is read back against the link's notices (``notice.LINK_WORDS``): what TLS said,
what the system said (by its errno), no answer, what was wrong with a peer's bytes."""

from __future__ import annotations

import errno
import os
import re
import socket

import pytest
import trio

from p2pcards.net.dial import connect_afresh
from p2pcards.net.link import LinkClosed
from p2pcards.net.runner import _why_not
from p2pcards.protocol.notice import Notice, tls_reason
from p2pcards.protocol.sitting import TIMED_OUT
from p2pcards.say import SystemSaid
from p2pcards.ui.i18n import Translator
from p2pcards.ui.problems import link_text

LANGS = ["fr", "it"]
RESET = SystemSaid("socket connection broken: [Errno 104] Connection reset by peer", errno.ECONNRESET)


def english_runs(text: str) -> set[str]:
    """Every three words in a row of ``text`` (an address left out): a translation keeps none."""
    words = re.findall(r"[A-Za-z]+", re.sub(r"\S+:\d+", " ", text))
    return {" ".join(words[k : k + 3]) for k in range(len(words) - 2)}


def gone(detail: str) -> str:
    """A seat judged gone's reason, as the runner writes it with the last attempt's error."""
    return f"{TIMED_OUT} 8 s ({detail})"


RESET_TEXT = "connection lost (socket connection broken: [Errno 104] Connection reset by peer)"
PIPE = SystemSaid("socket connection broken: [Errno 32] Broken pipe", errno.EPIPE)
MAC = Notice("tls_lost", why=tls_reason("DECRYPTION_FAILED_OR_BAD_RECORD_MAC"))
DETAILS: dict[str, tuple[str, Notice | str]] = {
    "reset while linking again": (
        f"the new link failed: {RESET_TEXT}",
        Notice("relink_failed", why=Notice("notice_link_lost", why=RESET)),
    ),
    "TLS refused while linking again": (
        "the new link failed: TLS handshake failed (wrong version number)",
        Notice("relink_failed", why=Notice("tls_failed", why=tls_reason("WRONG_VERSION_NUMBER"))),
    ),
    "a byte changed on the path": (
        "the new link failed: connection lost (TLS: decryption failed or bad record mac)",
        Notice("relink_failed", why=Notice("notice_link_lost", why=MAC)),
    ),
    "no answer": ("no answer from 192.0.2.7:7777", Notice("relink_no_answer", where="192.0.2.7:7777")),
    "no answer in time": (
        "the new link failed: no answer in time",
        Notice("relink_failed", why=Notice("why_no_answer_in_time")),
    ),
    "hung up": (
        "the new link failed: connection lost (the peer hung up)",
        Notice("relink_failed", why=Notice("notice_link_hung_up")),
    ),
    "a broken pipe": (
        "connection lost while sending (socket connection broken: [Errno 32] Broken pipe)",
        Notice("notice_link_lost_sending", why=PIPE),
    ),
    "the host's address": ("the host's address is not known", Notice("relink_no_host_address")),
    "no carrier": (
        "no seat linked with this one is here to carry its frames to seat 2",
        Notice("relink_no_carrier", seat=2),
    ),
}
"""The English a seat judged gone signs as its last attempt's error, and the notice it was."""


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("how", sorted(DETAILS))
def test_why_a_seat_judged_gone_could_not_link_again_is_said_in_the_language(lang: str, how: str) -> None:
    tr = Translator(lang)
    english, notice = DETAILS[how]
    assert notice == english  # (the English the runner signs, as the notice writes it)
    said = tr.reason(gone(english))
    assert said == tr("reason_gone", seconds="8") + tr("audit_semicolon") + tr.said(notice), said
    assert not english_runs(said) & english_runs(english), said
    assert link_text(Translator("en"), english) == english


@pytest.mark.parametrize("lang", LANGS)
async def test_a_seat_that_refuses_the_connection_when_dialled_again_is_said_by_the_system(lang: str) -> None:
    listener = trio.socket.socket()
    await listener.bind(("127.0.0.1", 0))
    port = listener.getsockname()[1]
    listener.close()  # (nothing listens there now: the system refuses)
    with pytest.raises(OSError) as caught:
        await connect_afresh([("127.0.0.1", port)], 0.5)
    assert str(caught.value).startswith("all attempts to connect to")  # (trio's words)
    detail = _why_not(caught.value)
    assert detail == os.strerror(errno.ECONNREFUSED)
    said = Translator(lang).reason(gone(detail))
    assert said.endswith(Translator(lang)("oserror_econnrefused")), said
    assert _why_not(LinkClosed(Notice("relink_no_host_address"))) == "the host's address is not known"


@pytest.mark.parametrize("lang", LANGS)
def test_a_seat_blamed_for_a_link_that_broke_is_said_in_the_language(lang: str) -> None:
    tr = Translator(lang)
    said = tr.problem(RESET_TEXT)
    assert said == tr("notice_link_lost", why=tr("oserror_econnreset"))
    assert tr.problem("connection lost (the peer hung up)") == tr("notice_link_hung_up")
    assert tr.problem("an earlier send was interrupted") == tr("why_send_interrupted")


@pytest.mark.parametrize("lang", ["en", *LANGS])
def test_words_no_notice_made_are_shown_as_they_are(lang: str) -> None:
    tr = Translator(lang)
    for words in ("gone fishing", "connection lost (the cat ate the cable)", "TLS: some new reason"):
        said = tr.reason(words)
        assert "fishing" in said or "cat ate the cable" in said or "some new reason" in said
    assert tr.reason("gone fishing") == "gone fishing"
    semicolon = tr("audit_semicolon")
    assert tr.reason(gone("gone fishing")) == tr("reason_gone", seconds="8") + semicolon + "gone fishing"


def test_a_resolver_failure_is_said_in_its_own_words_where_a_dial_fails() -> None:
    """The resolver's errors have negative numbers, which the system's table does not know
    (``Unknown error -2``): a seat dialled again, or a host dialled, says the resolver's text."""
    from p2pcards.net.link import refused_why
    from p2pcards.net.session import _reason

    lookup = socket.gaierror(socket.EAI_NONAME, "Name or service not known")
    group = OSError("all attempts to connect to nowhere.invalid:7777 failed")
    group.__cause__ = ExceptionGroup("attempts", [lookup])
    for e in (lookup, group):
        assert _why_not(e) == "Name or service not known"
        assert _reason(e) == "Name or service not known"
        said = refused_why(e)
        assert said is not None and said.errno == socket.EAI_NONAME
    refused = ConnectionRefusedError(errno.ECONNREFUSED, "Connection refused")
    assert _why_not(refused) == _reason(refused) == os.strerror(errno.ECONNREFUSED)
    assert refused_why(ValueError("x")) is None and _reason(ValueError("x")) == "no answer"
