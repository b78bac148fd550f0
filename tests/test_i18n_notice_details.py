"""The detail of a notice (the host sent something unreadable, a link refused or failed, a
file that is no transcript) is said in the player's language where it is what was wrong
with a peer's bytes, or that no answer came in time; the English of the notice is as it was.

The notice carries a marker (:class:`p2pcards.say.WireSaid`) saying that its detail is the
text of a WireError: the translator reads it back against the templates only then, loading
them when it does (the command line starts without the wire code)."""

from __future__ import annotations

import subprocess
import sys

import msgpack
import pytest
import trio

from p2pcards.errors import TranscriptError
from p2pcards.net.link import LinkClosed
from p2pcards.net.session import _link_failure
from p2pcards.protocol import wire_words
from p2pcards.protocol.admission import Admission
from p2pcards.protocol.notice import Notice, Notices, message_of
from p2pcards.protocol.transcript import FORMAT, decode_file
from p2pcards.protocol.wire import WireError
from p2pcards.say import WireSaid
from p2pcards.ui.i18n import Translator

SEAT_NOT_ITS = wire_words.SEAT_NOT_ITS.format(seat=3)


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_a_link_refused_or_failed_on_what_the_peer_sent_is_said_in_the_language(lang: str) -> None:
    tr = Translator(lang)
    refused = Notice("notice_refused_link", peer="192.0.2.7", error=_link_failure(WireError(SEAT_NOT_ITS)))
    assert refused == "refused a link from 192.0.2.7: claims seat 3, which it may not take"  # (as before)
    said = tr.said(refused)
    assert said == tr("notice_refused_link", peer="192.0.2.7", error=tr("wire_seat_not_its", seat="3"))
    assert "claims" not in said and "192.0.2.7" in said and "3" in said
    failed = Notice("notice_link_failed", name="Ann", seat=2, why=_link_failure(trio.TooSlowError()))
    assert failed == "link to Ann (seat 2) failed: no answer in time"
    assert tr.said(failed) == tr("notice_link_failed", name="Ann", seat=2, why=tr("why_no_answer_in_time"))
    relayed = Notices(["192.0.2.7:7777", _link_failure(trio.TooSlowError())], sep=": ")
    assert relayed == "192.0.2.7:7777: no answer in time"
    assert tr.said(relayed) == "192.0.2.7:7777: " + tr("why_no_answer_in_time")
    closed = LinkClosed(Notice("notice_link_hung_up"))
    assert tr.said(_link_failure(closed)) == tr("notice_link_hung_up")


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_a_host_that_sent_something_unreadable_is_said_with_what_in_the_language(lang: str) -> None:
    tr = Translator(lang)
    notice = Notice("notice_host_unreadable", why=WireSaid(wire_words.LOBBY_KEYS))
    assert notice == "the host sent something unreadable (a lobby frame has exactly the keys v, kind, body)"
    said = tr.said(notice)
    assert said == tr("notice_host_unreadable", why=tr("wire_lobby_keys")) and "exactly" not in said


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_a_file_that_is_no_transcript_says_why_in_the_language(lang: str) -> None:
    tr = Translator(lang)
    ext = msgpack.packb(msgpack.ExtType(1, b"x"))
    data = b"\x82\xa6format" + msgpack.packb(FORMAT) + b"\xa7version" + ext
    with pytest.raises(TranscriptError) as caught:
        decode_file(data)
    message = message_of(caught.value)
    # (Refused by name, as section 2.1 says, not in the msgpack library's words.)
    assert message == "not a p2pcards transcript: extension types are not allowed"
    said = tr.said(message)
    assert said == tr("file_undecodable", detail=tr("wire_extension_types"))
    assert "extension types" not in said, said

    # A byte that starts no value still says what msgpack said (it has nothing clearer).
    with pytest.raises(TranscriptError) as caught:
        decode_file(b"\x82\xa6format" + msgpack.packb(FORMAT) + b"\xa7version\xc1")
    cause = "FormatError"
    assert message_of(caught.value) == f"not a p2pcards transcript: undecodable msgpack ({cause})"
    said = tr.said(message_of(caught.value))
    assert said == tr("file_undecodable", detail=tr("wire_undecodable", cause=cause))
    assert "undecodable" not in said, said


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_a_connection_the_host_refused_for_what_it_sent_is_said_in_the_language(lang: str) -> None:
    tr = Translator(lang)
    refusal = Admission._protocol(None, WireSaid(wire_words.LOBBY_NOT_MAP))
    assert refusal.message == "protocol error: a lobby frame must be a map"  # (what the peer is told)
    assert refusal.note == "refused a connection from ?: a lobby frame must be a map"
    said = tr.said(refusal.note)
    assert said == tr("notice_refused_connection", peer="?", error=tr("wire_lobby_not_map")), said


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_a_detail_no_template_made_is_shown_as_it_is_and_the_wire_code_loads_only_then(lang: str) -> None:
    tr = Translator(lang)
    odd = Notice("notice_refused_link", peer="x", error=WireSaid("the peer's own words"))
    assert tr.said(odd) == tr("notice_refused_link", peer="x", error="the peer's own words")
    code = (
        "import sys\nfrom p2pcards.say import WireSaid\nfrom p2pcards.ui.i18n import Translator\n"
        "tr = Translator('fr')\nloaded = 'p2pcards.ui.problems' in sys.modules\n"
        "said = tr.said(WireSaid('truncated msgpack'))\n"
        "print(loaded, 'p2pcards.protocol.wire' in sys.modules, said)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split(" ", 2)[:2] == ["False", "False"], out
    assert out.split(" ", 2)[2].strip() == Translator("fr")("wire_truncated")
