"""What was wrong with the bytes a peer sent (the text of a ``WireError``) reaches French and
Italian players in their language, inside the sentence that says the problem.

The English stays as the protocol writes it (transcripts, logs and ``audit --json`` hold it);
the interface reads it back against the templates of :mod:`p2pcards.protocol.wire_words`."""

from __future__ import annotations

import re
from collections.abc import Callable

import msgpack
import pytest
import test_protocol_threats as threats

from p2pcards.net import verdicts
from p2pcards.net.node import Outcome
from p2pcards.protocol import faults, lobby, messages, wire_words
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.lobby import LOBBY_VERSION, decode_lobby
from p2pcards.protocol.transcript import encode_file
from p2pcards.protocol.wire import (
    MAX_FRAME,
    Relay,
    SignedRecord,
    StreamDecoder,
    WireError,
    decode_frame,
    pack,
    parse_record,
)
from p2pcards.ui.i18n import Translator
from p2pcards.ui.netgame import describe_outcome
from p2pcards.ui.problems import problem_text, template_regex, wire_text

TEMPLATES = wire_words.WIRE_WORDS

SAMPLES = {
    "size": "300017",
    "limit": "262144",
    "most": "32",
    "seat": "3",
    "frame": "abort",
    "value": "'zap'",
    "theirs": "7",
    "ours": "1",
    "cause": "ExtraData: unpack(b) received extra data.",
    "where": "join.roster[2][0]",
    "low": "-5",
    "high": "9",
    "count": "4",
    "type": "turn",
    "expected": "hello",
    "missing": "['card']",
    "extra": "[\"'x'\"]",
}
"""A sample value of each field of the templates, as a text made from one holds it."""

KEPT = {"msgpack", "have", "last", "prev", "shuffle", "lock", "also", "seen"}
"""Words a translation keeps: a format's name, the keys of a frame named in a sentence, and
values a field may hold as the wire spells them."""
SAME_WORD = {
    "fr": {"extension", "types", "type", "signature", "message", "options", "invisible"},
    "it": {"byte"},
}
"""Words the language spells as English does."""


_KEYS = re.compile(r"(?<=keys )[a-z, ]+$|\[raw, sig\]")
"""The keys a template lists as the wire spells them (``v, kind, raw, sig``): said as they are."""


def english_words(template: str) -> set[str]:
    """The English words of ``template`` a translation must not keep: its words of four
    letters or more, less its fields and the keys it lists."""
    prose = _KEYS.sub(" ", re.sub(r"\{\w+\}", " ", template))
    return {w.lower() for w in re.findall(r"[A-Za-z]{4,}", prose)} - KEPT


def english_left(template: str, said: str) -> set[str]:
    """The English words of ``template`` still in ``said``, outside the keys it lists."""
    for keys in _KEYS.findall(template):
        said = said.replace(keys, " ")
    return {w for w in english_words(template) if re.search(rf"\b{w}\b", said, re.IGNORECASE)}


def fields_of(template: str) -> dict[str, str]:
    return {name: SAMPLES[name] for name in re.findall(r"\{(\w+)\}", template)}


def test_every_field_has_a_sample_and_every_template_is_said_in_each_language() -> None:
    for key, template in TEMPLATES.items():
        assert set(re.findall(r"\{(\w+)\}", template)) <= set(SAMPLES), template
        assert Translator("fr")(key) != template and Translator("it")(key) != template, key


@pytest.mark.parametrize("key", sorted(TEMPLATES))
@pytest.mark.parametrize("lang", ["fr", "it"])
def test_every_wire_template_is_said_in_the_players_language(key: str, lang: str) -> None:
    template = TEMPLATES[key]
    values = fields_of(template)
    english = template.format(**values)
    assert wire_text(Translator("en"), english) == english  # the catalogs' English is the template's
    said = wire_text(Translator(lang), english)
    assert said == Translator(lang)(key, **values)
    assert english_left(template, said) <= SAME_WORD[lang], said
    for value in values.values():  # every value is there, as it was
        assert value in said, (value, said)


def test_every_wire_text_reads_back_as_its_own_template_alone() -> None:
    """No text of one template reads as another's, nor as a whole problem of the node or the
    protocol (a field of one could swallow another's words)."""
    problems = [*faults.TEMPLATES.values(), *(getattr(verdicts, n) for n in dir(verdicts) if n.isupper())]
    for key, template in TEMPLATES.items():
        english = template.format(**fields_of(template))
        matches = [k for k, t in TEMPLATES.items() if template_regex(t).fullmatch(english)]
        assert matches == [key], (key, matches)
        assert not any(template_regex(t).fullmatch(english) for t in problems), english


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_a_detail_no_template_made_is_shown_as_it_is(lang: str) -> None:
    """Anything a peer made up, or words no template quite made: as they are, alone and in a
    problem (a field of a body is one word, as the schema names it)."""
    tr = Translator(lang)
    for detail in ("turn body fields wrong", "truncated msgpack!", "-1 bytes", "turn card must be 3 bytes"):
        assert wire_text(tr, detail) == detail
        assert problem_text(tr, faults.MALFORMED_FRAME.format(error=detail)) == tr(
            "fault_malformed_frame", error=detail
        )


# -- real errors: the text every raise site makes reads back against a template


def _record_map(**changes: object) -> bytes:
    obj: dict[str, object] = {"v": 1, "game": bytes(16), "step": 0, "seat": 0, "prev": bytes(32)}
    return pack({**obj, "type": "join", "body": {}, **changes})


def _frame(kind: str, **fields: object) -> bytes:
    return pack({"v": 1, "kind": kind, **fields})


def _stream(data: bytes, max_frame: int = MAX_FRAME) -> None:
    StreamDecoder(max_frame).feed(data)


BAD: list[tuple[str, Callable[[], object]]] = [
    ("wire_extension_types", lambda: decode_frame(msgpack.packb(msgpack.ExtType(1, b"")))),
    ("wire_too_big", lambda: decode_frame(bytes(MAX_FRAME + 1))),
    ("wire_truncated", lambda: decode_frame(b"\x92\x01")),
    ("wire_undecodable", lambda: decode_frame(b"\xc1")),
    ("wire_trailing", lambda: decode_frame(pack({"v": 1}) + b"\x00")),
    ("wire_frame_too_big", lambda: _stream(pack([b"x" * 300]), max_frame=100)),
    ("wire_nested_too_deep", lambda: _stream(b"\x91" * 5000)),
    ("wire_undecodable_stream", lambda: _stream(b"\xc1")),
    ("wire_record_raw", lambda: parse_record(b"x", b"short")),
    ("wire_record_map", lambda: parse_record(pack({"v": 1}), bytes(64))),
    ("wire_version_mismatch", lambda: decode_frame(pack({"v": 7}))),
    ("wire_record_game", lambda: parse_record(_record_map(game=b"x"), bytes(64))),
    ("wire_record_step", lambda: parse_record(_record_map(step=-1), bytes(64))),
    ("wire_record_seat", lambda: parse_record(_record_map(seat=9), bytes(64))),
    ("wire_record_prev", lambda: parse_record(_record_map(prev=b"x"), bytes(64))),
    ("wire_frame_not_map", lambda: decode_frame(pack([1]))),
    ("wire_record_frame_keys", lambda: decode_frame(_frame("record"))),
    ("wire_evidence_keys", lambda: decode_frame(_frame("evidence"))),
    ("wire_evidence_size", lambda: decode_frame(_frame("evidence", records=[]))),
    ("wire_evidence_item", lambda: decode_frame(_frame("evidence", records=[[b"x"]]))),
    ("wire_abort_keys", lambda: decode_frame(_frame("abort"))),
    ("wire_abort_reason", lambda: decode_frame(_frame("abort", step=0, reason="x" * 301))),
    ("wire_need_keys", lambda: decode_frame(_frame("need"))),
    ("wire_need_have", lambda: decode_frame(_frame("need", step=0, have=[9], last=bytes(32)))),
    ("wire_need_last", lambda: decode_frame(_frame("need", step=0, have=[], last=b"x"))),
    ("wire_relay_keys", lambda: decode_frame(_frame("relay"))),
    ("wire_relay_seats", lambda: decode_frame(_frame("relay", **{"from": 1, "to": 1, "frame": b""}))),
    ("wire_relay_frame", lambda: decode_frame(_frame("relay", **{"from": 1, "to": 2, "frame": 5}))),
    ("wire_relayed_relay", lambda: Relay(1, 2, Relay(2, 1, b"").to_frame()).inner()),
    ("wire_unknown_kind", lambda: decode_frame(_frame("zap"))),
    ("wire_frame_step", lambda: decode_frame(_frame("abort", step=-1, reason="x"))),
    ("wire_lobby_not_map", lambda: decode_lobby(pack([1]))),
    ("wire_match_too_early", lambda: decode_lobby(_frame("need", step=0))),
    ("wire_lobby_keys", lambda: decode_lobby(pack({"v": LOBBY_VERSION, "kind": "hello"}))),
]
"""Bytes that each raise site of the wire and the lobby refuses, by the template it says."""


@pytest.mark.parametrize(("key", "provoke"), BAD, ids=[k for k, _ in BAD])
def test_a_real_wire_error_reads_back_against_its_template(key: str, provoke: Callable[[], object]) -> None:
    with pytest.raises(WireError) as caught:
        provoke()
    text = str(caught.value)
    assert template_regex(TEMPLATES[key]).fullmatch(text), text
    for lang in ("fr", "it"):
        said = wire_text(Translator(lang), text)
        assert said != text and not any(template_regex(t).fullmatch(said) for t in TEMPLATES.values()), said


def _schema(check: Callable[[object, str], object], value: object) -> Callable[[], object]:
    return lambda: check(value, "turn.card")


SCHEMA_BAD: list[tuple[str, Callable[[], object]]] = [
    ("wire_unknown_record_type", lambda: messages.body_from_wire("zap", {})),
    ("wire_unknown_lobby_type", lambda: messages.body_from_wire("zap", {}, lobby.LOBBY_TYPES, TEMPLATES[
        "wire_unknown_lobby_type"
    ])),
    ("wire_body_not_map", lambda: messages.body_from_wire("leave", [1])),
    ("wire_body_fields", lambda: messages.body_from_wire("leave", {"x": 1})),
    ("wire_schema_integer", _schema(messages._uint(5), 9)),
    ("wire_schema_integer", _schema(messages._int(-3, 3), -4)),
    ("wire_schema_bytes", _schema(messages._bin(32), b"x")),
    ("wire_schema_bool", _schema(messages._bool, 1)),
    ("wire_schema_bool", _schema(lobby._bool, 1)),
    ("wire_schema_scalar", _schema(messages._scalar, b"x")),
    ("wire_schema_zero", _schema(messages._scalar, bytes(32))),
    ("wire_schema_text", _schema(messages._text(3), "abcd")),
    ("wire_schema_unsafe", _schema(messages._text(30), "a\u202eb")),
    ("wire_schema_blank", _schema(messages._name, "  ")),
    ("wire_schema_suit", _schema(messages._suit, "X")),
    ("wire_schema_list", _schema(messages._array(messages._bool, 2, 1), [])),
    ("wire_schema_items", _schema(messages._player, [1])),
    ("wire_schema_rule_value", _schema(messages._rule_value, {})),
    ("wire_schema_rules", _schema(messages._rules, [])),
    ("wire_schema_rule_keys", _schema(messages._rules, {1: 2})),
    ("wire_schema_pass_kind", _schema(messages._pass_kind, "peek")),
    ("wire_schema_ip", _schema(lobby._ip_literal, "example.org")),
    ("wire_schema_seat", _schema(lobby._seat, [])),
    ("wire_schema_seat_more", _schema(lobby._seat, ["Ann", bytes(32), "192.0.2.1", 7777, {"x": 1}])),
]
"""Values each check of the schema of bodies refuses, by the template it says."""


@pytest.mark.parametrize(
    ("key", "provoke"), SCHEMA_BAD, ids=[f"{k}-{n}" for n, (k, _) in enumerate(SCHEMA_BAD)]
)
def test_what_the_schema_refuses_reads_back_against_its_template(
    key: str, provoke: Callable[[], object]
) -> None:
    with pytest.raises(messages.SchemaError) as caught:
        provoke()
    text = str(caught.value)
    matches = [k for k, t in TEMPLATES.items() if template_regex(t).fullmatch(text)]
    assert matches == [key], (text, matches)
    for lang in ("fr", "it"):
        said = wire_text(Translator(lang), text)
        assert said != text and not english_left(TEMPLATES[key], said) - SAME_WORD[lang], said


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_a_record_or_a_lobby_message_the_schema_refuses_is_said_in_the_language(lang: str) -> None:
    """The schema's words reach the player inside a WireError's text: said in the language,
    the field it names as the schema names it."""
    tr = Translator(lang)
    with pytest.raises(WireError) as record:
        parse_record(_record_map(type="leave", body={"reason": 5}), bytes(64))
    assert str(record.value) == "leave.reason must be text of at most 200 characters"
    said = problem_text(tr, faults.MALFORMED_FRAME.format(error=str(record.value)))
    assert said == tr("fault_malformed_frame", error=tr("wire_schema_text", where="leave.reason", most="200"))
    assert "leave.reason" in said and "characters" not in said, said
    with pytest.raises(WireError) as hello:
        decode_lobby(pack({"v": LOBBY_VERSION, "kind": "zap", "body": {}}))
    assert str(hello.value) == "unknown lobby message type 'zap'"
    assert wire_text(tr, str(hello.value)) == tr("wire_unknown_lobby_type", value="'zap'")


# -- the two places a player reads them


def _caught(garbage: Callable[[bytes], bytes]) -> tuple[str, bytes]:
    """The problem an honest seat stops with when seat ``CHEAT``'s third frame is replaced,
    and the file it saves, as a node saves it."""
    net = threats.run(threats.build(3), tamper=threats.nth_frame_tamper(3, lambda r, f: garbage(f)))
    err = net.failures.get(0) or net.tables[0].failure
    assert err is not None and err.peer == threats.CHEAT
    records = net.tables[0].transcript.records()
    return err.problem, encode_file(records, saved_by=0, status=f"failed: {err.problem}")


@pytest.mark.parametrize(
    ("garbage", "key", "numbers"),
    [
        (lambda f: f + b"\x00", "wire_trailing", []),
        (lambda f: _frame("record", raw=bytes(MAX_FRAME), sig=bytes(64)), "wire_too_big", [str(MAX_FRAME)]),
    ],
    ids=["trailing", "too-big"],
)  # fmt: skip
@pytest.mark.parametrize("lang", ["fr", "it"])
def test_a_malformed_frame_stops_the_match_in_words_wholly_of_the_language(
    garbage: Callable[[bytes], bytes], key: str, numbers: list[str], lang: str
) -> None:
    """A peer that sent bytes that are no frame: the end of the match names it and says what
    was wrong with them in the player's language, as the audit of the file does."""
    problem, file = _caught(garbage)
    detail = problem.removeprefix("malformed frame: ")
    assert problem == faults.MALFORMED_FRAME.format(error=detail)  # (the English is as it was)
    assert template_regex(TEMPLATES[key]).fullmatch(detail), detail
    tr = Translator(lang)
    outcome = Outcome(
        status="failed", problem=problem, blamed=(threats.CHEAT,), transcript=None, table=None,
        names=["Ann", "Bob", "Cid"],
    )  # fmt: skip
    first = describe_outcome(outcome, tr)[0]
    why = tr("fault_malformed_frame", error=wire_text(tr, detail))
    assert first == tr("net_stopped_blame", who="Bob", why=why)
    assert not english_left(faults.MALFORMED_FRAME, first) and not english_left(TEMPLATES[key], first), first
    assert all(n in first for n in numbers) and "Bob" in first, first
    report = audit_bytes(file)
    said = " ".join(report.summary(tr).split())
    assert problem_text(tr, problem) in said and detail not in said, said
    assert problem in " ".join(report.summary().split())  # (the English report is as before)


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_a_record_that_does_not_read_is_said_in_the_language_in_the_audit(lang: str) -> None:
    """A record of the file with a byte after its msgpack object: the audit's finding says it
    in the reader's language, what was wrong with it too; ``audit --json`` keeps the English."""
    records = list(threats.run(threats.build(3)).tables[0].transcript.records())
    records[5] = SignedRecord(records[5].raw + b"\x00", records[5].sig, records[5].record)
    report = audit_bytes(encode_file(records, saved_by=0, status="over"))
    (what,) = [p.what for p in report.problems if p.record == 5]
    assert what == faults.MALFORMED_RECORD.format(error=wire_words.TRAILING)
    tr = Translator(lang)
    said = " ".join(report.summary(tr).split())
    assert tr("fault_malformed_record", error=tr("wire_trailing")) in said, said
    assert not english_left(what, said), said


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_a_seat_gone_after_a_link_it_could_not_prove_is_said_in_the_language(lang: str) -> None:
    """The last attempt's error of a seat judged gone, when the link it dialled failed on what
    it sent (``claims seat 3``), is said in the language; a system's words by their errno."""
    tr = Translator(lang)
    detail = wire_words.SEAT_NOT_ITS.format(seat=3)
    said = tr.reason(f"lost connection and did not come back within 10 s ({detail})")
    assert said == tr("reason_gone", seconds="10") + tr("audit_semicolon") + tr("wire_seat_not_its", seat="3")
    assert "claims" not in said and "3" in said
    refused = tr.reason("lost connection and did not come back within 10 s (Connection refused)")
    assert refused.endswith(tr("oserror_econnrefused"))
