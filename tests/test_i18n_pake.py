"""The invitation code's key exchange (SPAKE2) reaches French and Italian players in their
language: a wrong code (the host's line, the joiner's refusal), a SPAKE2 message a peer sent
that cannot be used (on the host's screen refusing the connection, on a joiner's whose host
sent it, and in the refusal a host sends a joiner), and a message out of turn.

The English is as it was (what the peer is told, logs and tests): the texts are templates of
:mod:`p2pcards.crypto.pake_words` (and ``wire_words.EXPECTED_TYPE``), read back by the
interface as what was wrong with a peer's bytes."""

from __future__ import annotations

import re

import pytest

from p2pcards.crypto import pake_words
from p2pcards.crypto.identity import Identity
from p2pcards.crypto.pake import MESSAGE_SIZE, BadPakeMessage, Pake, Side
from p2pcards.net.session import _host_words
from p2pcards.protocol.admission import Admission, DoorLimits, Reason, Refuse, SendChallenge
from p2pcards.protocol.lobby import Auth, Hello, Refused, Role, Seat, confirmation, link_message, pake_binding
from p2pcards.protocol.notice import Notice, refusal
from p2pcards.say import WireSaid
from p2pcards.ui.i18n import Translator

LANGS = ["fr", "it"]
GAME = bytes(range(16))
CODE = "7-amber-lantern"
CHANNEL = bytes([0xCB]) * 32
HOST = Identity.from_bytes(bytes([1]) * 32)
EVE = Identity.from_bytes(bytes([7]) * 32)
NONCE = bytes([0xAA]) * 32


def english_runs(text: str) -> set[str]:
    """Every three words in a row of ``text`` (outside quoted names): a translation keeps none."""
    words = re.findall(r"[A-Za-z]+", re.sub(r"'[^']*'", " ", text))
    return {" ".join(words[k : k + 3]) for k in range(len(words) - 2)}


def _admission() -> Admission[str]:
    host = Seat(name="host", key=HOST.public_key, host="", port=0)
    adm: Admission[str] = Admission(game_id=GAME, host=host, players=3, code=CODE, limits=DoorLimits())
    return adm


def _hello(pake: bytes) -> Hello:
    return Hello(name="eve", key=EVE.public_key, nonce=NONCE, port=4000, pake=pake)


def _unusable() -> dict[str, bytes]:
    """SPAKE2 messages a joiner may send that the host cannot use, by what is wrong."""
    host_side = Pake.start(Side.HOST, CODE, bytes(64)).message
    return {
        "pake_wrong_side": host_side,  # (the host's own side, reflected)
        "pake_not_element": b"A" + bytes([2]) + bytes(31),  # (not on the curve)
    }


@pytest.mark.parametrize("lang", LANGS)
def test_a_wrong_code_is_said_in_the_language_to_the_host_and_to_the_joiner(lang: str) -> None:
    tr = Translator(lang)
    adm = _admission()
    adm.connected("c", "198.51.100.7", 0.0, bytes([9]) * 32, bytes([0xE7]) * 64)
    joiner = Pake.start(Side.JOINER, "7-amber-lentern", bytes([3]) * 64)  # one letter off
    challenge = adm.hello("c", _hello(joiner.message), CHANNEL)
    assert isinstance(challenge, SendChallenge)
    key = joiner.finish(challenge.pake)  # (a key: wrong, which only the confirmation shows)
    binding = pake_binding(
        GAME, EVE.public_key, HOST.public_key, NONCE, challenge.nonce, joiner.message, challenge.pake, CHANNEL
    )
    sig = EVE.sign(link_message(GAME, challenge.nonce, EVE.public_key, HOST.public_key))
    refused = adm.auth("c", Auth(proof=confirmation(key, Role.JOINER, binding), sig=sig), 0.0)
    assert isinstance(refused, Refuse) and refused.reason is Reason.WRONG_CODE
    assert refused.note == "refused 'eve' from 198.51.100.7: wrong invitation code"
    said = tr.said(refused.note)
    assert said == tr("notice_wrong_code", name="'eve'", peer="198.51.100.7")
    assert not english_runs(said) & english_runs(refused.note), said
    told = Notice("notice_host_refused", why=refusal(str(refused.reason), "eve"))  # (the joiner's line)
    assert told == "the host refused: wrong invitation code"
    assert tr.said(told) == tr("notice_host_refused", why=tr("refusal_wrong_code"))
    assert not english_runs(tr.said(told)) & english_runs(told)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("kind", ["pake_wrong_side", "pake_not_element"])
def test_a_spake2_message_the_host_cannot_use_is_said_in_the_language(lang: str, kind: str) -> None:
    tr = Translator(lang)
    adm = _admission()
    adm.connected("c", "192.0.2.7", 0.0, bytes([9]) * 32, bytes([0xE7]) * 64)
    refused = adm.hello("c", _hello(_unusable()[kind]), CHANNEL)
    english = pake_words.PAKE_WORDS[kind]
    assert isinstance(refused, Refuse) and refused.reason is Reason.PROTOCOL
    assert refused.message == f"protocol error: {english}"  # (what the joiner is told, as before)
    assert refused.note == f"refused a connection from 192.0.2.7: {english}"
    said = tr.said(refused.note)
    assert said == tr("notice_refused_connection", peer="192.0.2.7", error=tr(kind))
    assert not english_runs(said) & english_runs(english), said
    # A joiner refused so (its own message unusable) reads the host's refusal in its language:
    told = _host_words(Refused(reason=str(refused.reason), message=refused.message))
    assert told == f"the host refused: {refused.message}"
    assert tr.said(told) == tr("notice_host_refused", why=tr("notice_host_protocol_error", why=tr(kind)))


@pytest.mark.parametrize("lang", LANGS)
def test_a_host_whose_spake2_message_cannot_be_used_is_said_in_the_language(lang: str) -> None:
    tr = Translator(lang)
    joiner = Pake.start(Side.JOINER, CODE, bytes([3]) * 64)
    for message, kind in ((joiner.message, "pake_wrong_side"), (b"B" + bytes(MESSAGE_SIZE), "pake_size")):
        with pytest.raises(BadPakeMessage) as caught:
            Pake.start(Side.JOINER, CODE, bytes([3]) * 64).finish(message)
        notice = Notice("notice_host_unreadable", why=WireSaid(caught.value))
        said = tr.said(notice)
        values = {"size": str(MESSAGE_SIZE)} if kind == "pake_size" else {}
        assert said == tr("notice_host_unreadable", why=tr(kind, **values))
        assert not english_runs(said) & english_runs(str(caught.value)), said


@pytest.mark.parametrize("lang", LANGS)
def test_every_spake2_template_and_a_message_out_of_turn_are_said_in_the_language(lang: str) -> None:
    tr = Translator(lang)
    for key, template in pake_words.PAKE_WORDS.items():
        english = template.format(size=33)
        said = tr.said(WireSaid(english))
        assert said == tr(key, **({"size": "33"} if "{size}" in template else {}))
        assert not english_runs(said) & english_runs(english), said
    adm = _admission()
    adm.connected("d", "192.0.2.8", 0.0, bytes([9]) * 32, bytes([0xE7]) * 64)
    rude = adm.hello("d", Auth(proof=bytes(32), sig=bytes(64)), CHANNEL)  # (an auth before its hello)
    assert isinstance(rude, Refuse)
    assert rude.note == "refused a connection from 192.0.2.8: expected hello, got auth"
    said = tr.said(rude.note)
    out_of_turn = tr("wire_expected_type", expected="hello", type="auth")
    assert said == tr("notice_refused_connection", peer="192.0.2.8", error=out_of_turn)
    assert not english_runs(said) & english_runs(rude.note), said


@pytest.mark.parametrize("lang", ["en", *LANGS])
def test_a_hosts_refusal_in_its_own_words_is_quoted_in_a_sentence_of_the_language(lang: str) -> None:
    tr = Translator(lang)
    own = _host_words(Refused(reason="protocol", message="protocol error: go away"))
    assert tr.said(own) == tr("notice_host_refused", why=tr("notice_host_protocol_error", why="go away"))
    words = "protocol error: the SPAKE2 message is bad"
    other = _host_words(Refused(reason="whatever", message=words))
    said = tr.said(other)
    assert said == tr("notice_host_refused_words", words=words) and said.count(words) == 1, said
    if lang != "en":  # (the host's words as they are, framed in the language)
        assert not english_runs(said.replace(words, "")) & english_runs(str(other).replace(words, "")), said
