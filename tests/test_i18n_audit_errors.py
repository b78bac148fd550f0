"""Two of the audit's remarks reach French and Italian readers in their language whole: why
a join record's table is impossible (a rule option refused, in the words the command line
says it with), and what an error inside the audit itself was, when it is one of the
program's own kinds (its kind in words, its text in the language where a template made it).

The English stays as the audit writes it (``audit --json`` and outside verifiers compare it):
the interface reads it back (:func:`p2pcards.ui.problems.error_text`)."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import pytest
from protocol_helpers import RawRecord, honest_transcript, raw_records_file, record_map, sign_map

from p2pcards.errors import IllegalAction, LocalProtocolError, RuleOptionError, UsageError
from p2pcards.games.rule_words import RULE_WORDS
from p2pcards.protocol import faults, sitting
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.transcript import decode_file
from p2pcards.ui.i18n import Translator
from p2pcards.ui.problems import error_text, problem_text

LANGS = ["fr", "it"]
HONEST = [RawRecord(raw, sig) for raw, sig in decode_file(honest_transcript(3)).records]  # type: ignore[misc]
"""Seat 0's file of a finished 3-seat match."""


def english_runs(text: str) -> set[str]:
    """Every three words in a row of ``text``, outside the values it quotes (``'coin'``) and
    the rule options' names as the command line spells them (``stacking-nines``)."""
    prose = re.sub(r"'[^']*'|\b[a-z]+(?:-[a-z]+)+\b", " ", text)
    words = re.findall(r"[A-Za-z]+", prose)
    return {" ".join(words[k : k + 3]) for k in range(len(words) - 2)}


def _rules(edit: Callable[[dict[str, Any]], object]) -> bytes:
    obj = record_map(HONEST[0].raw)
    edit(obj["body"]["rules"])
    return raw_records_file([sign_map(obj, 0), *HONEST[1:]])


IMPOSSIBLE: dict[str, tuple[Callable[[dict[str, Any]], object], str, dict[str, str]]] = {
    "a target of 0": (lambda r: r.__setitem__("target", 0), "rule_err_range", {"lo": "1", "value": "0"}),
    "a tie of 'coin'": (lambda r: r.__setitem__("tie", "coin"), "rule_err_tie", {"value": "'coin'"}),
    "a target as text": (lambda r: r.__setitem__("target", "30"), "rule_err_whole", {"value": "'30'"}),
    "an unknown option": (
        lambda r: r.__setitem__("bogus", True),
        "rule_err_unknown_options",
        {"names": "bogus"},
    ),
    "stacking nines alone": (lambda r: r.__setitem__("stacking_nines", True), "rule_err_stacking", {}),
}
"""Join records whose rules no table can have: the key of the refusal, some of its values."""


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("how", sorted(IMPOSSIBLE))
def test_why_a_join_records_table_is_impossible_is_said_in_the_language(lang: str, how: str) -> None:
    edit, key, values = IMPOSSIBLE[how]
    report = audit_bytes(_rules(edit))
    [problem] = [p for p in report.problems if "impossible table" in p.what]
    english = problem.what
    assert english.startswith("signed a join record that names an impossible table: ")  # (as before)
    error = english.split(": ", 1)[1]
    tr = Translator(lang)
    said = problem_text(tr, english)
    refused = re.fullmatch(
        re.sub(r"\\\{(\w+)\\\}", lambda m: f"(?P<{m.group(1)}>.+?)", re.escape(RULE_WORDS[key])), error
    )
    assert refused is not None and all(refused.group(k) == v for k, v in values.items()), error
    assert said == tr("fault_impossible_table", error=tr(key, **refused.groupdict())), said
    assert not english_runs(said) & english_runs(english), said
    assert problem_text(Translator("en"), english) == english


@pytest.mark.parametrize("lang", LANGS)
def test_a_table_of_a_number_of_players_its_game_cannot_seat_is_said_in_the_language(lang: str) -> None:
    tr = Translator(lang)
    for key, values in (
        ("rules_players_exactly", {"game": "Le Neuf", "n": "3", "players": "4"}),
        ("rules_players_span", {"game": "Nines", "lo": "2", "hi": "6", "players": "7"}),
    ):
        english = faults.IMPOSSIBLE_TABLE.format(error=RULE_WORDS[key].format(**values))
        said = problem_text(tr, english)
        assert said == tr("fault_impossible_table", error=tr(key, **values)), said
        assert not english_runs(said) & english_runs(english), said


def _audit_meeting(error: Exception, monkeypatch: pytest.MonkeyPatch) -> str:
    """The problem an audit reports when ``error`` is raised inside it, at the tenth record."""
    receive = sitting.Sitting.receive_record
    calls = [0]

    def broken(self: sitting.Sitting, rec: Any) -> Any:
        calls[0] += 1
        if calls[0] == 10:
            raise error
        return receive(self, rec)

    monkeypatch.setattr(sitting.Sitting, "receive_record", broken)
    report = audit_bytes(raw_records_file(HONEST))
    assert report.internal_error
    [problem] = [p for p in report.problems if p.what.startswith("the audit could not check this record (")]
    return problem.what


@pytest.mark.parametrize("lang", LANGS)
def test_an_error_of_the_programs_own_kinds_inside_the_audit_is_said_in_the_language(
    lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    tr = Translator(lang)
    stacking = RULE_WORDS["rule_err_stacking"]
    edited = faults.EDITED
    for error, key, detail in (
        (UsageError(stacking), "fault_error_usage", tr("rule_err_stacking")),
        (RuleOptionError(stacking), "fault_error_rule_option", tr("rule_err_stacking")),
        (LocalProtocolError(edited), "fault_error_local", tr("fault_edited")),
    ):
        with monkeypatch.context() as patch:
            english = _audit_meeting(error, patch)
        assert english == faults.AUDIT_FAILED.format(error=repr(error))  # (as before)
        said = problem_text(tr, english)
        assert said == tr("fault_audit_failed", error=tr(key, detail=detail)), said
        assert not english_runs(said) & english_runs(english), said
        assert type(error).__name__ not in said


@pytest.mark.parametrize("lang", LANGS)
def test_an_error_whose_text_no_template_made_is_said_by_its_kind_and_its_text(
    lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    tr = Translator(lang)
    english = _audit_meeting(LocalProtocolError("a record was taken twice"), monkeypatch)
    said = problem_text(tr, english)
    # Its text, which no template made, is the program's English: quoted so in the language.
    words = tr("fault_error_words", text="a record was taken twice")
    assert words != "a record was taken twice" and "a record was taken twice" in words, words
    kind = tr("fault_error_local", detail=words)
    assert said == tr("fault_audit_failed", error=kind) and "LocalProtocolError" not in said
    illegal = IllegalAction(1, "follow", "the 5H does not follow")
    quoted = tr("fault_error_words", text=str(illegal))
    assert error_text(tr, repr(illegal)) == tr("fault_error_illegal", detail=quoted)


@pytest.mark.parametrize("lang", ["en", *LANGS])
def test_another_error_inside_the_audit_is_shown_as_its_repr(
    lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    tr = Translator(lang)
    english = _audit_meeting(KeyError(3), monkeypatch)
    assert english == "the audit could not check this record (KeyError(3))"
    assert problem_text(tr, english) == tr("fault_audit_failed", error="KeyError(3)")
    for odd in ("UsageError(1, 2)", "UsageError('unclosed)", "Nobody('x')"):
        assert error_text(tr, odd) == odd
