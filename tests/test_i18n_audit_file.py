"""The audit's remarks on a transcript file itself reach French and Italian readers in their
language: where its structure is damaged and how, a record repeated or out of order, records
taken for junk, problems counted and not listed, a file with no record that reads or no join
record first.

The English stays as the audit writes it (``audit --json`` and outside verifiers compare it);
the interface reads it back against the templates of :mod:`p2pcards.protocol.faults`."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from p2pcards import cli
from p2pcards.protocol import faults
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.transcript import decode_file, encode_file
from p2pcards.ui.i18n import Translator
from p2pcards.ui.problems import problem_text

GOOD = (Path(__file__).parent / "fixtures" / "nines-3p-target30.p2pt").read_bytes()
"""Seat 0's file of a finished match of three."""
PAIRS: list[tuple[bytes, bytes]] = [(raw, sig) for raw, sig in decode_file(GOOD).records]  # type: ignore[misc]
JUNK = (b"\x81\xa1a\x01", bytes(64))
"""A record that reads, of no game, signed by nobody."""


class _Pair:
    def __init__(self, raw: bytes, sig: bytes) -> None:
        self.raw, self.sig = raw, sig


def _file(pairs: list[tuple[bytes, bytes]]) -> bytes:
    return encode_file([_Pair(raw, sig) for raw, sig in pairs], saved_by=0, status="over")  # type: ignore[misc]


def _flip(data: bytes, at: int) -> bytes:
    changed = bytearray(data)
    changed[at] ^= 0xFF
    return bytes(changed)


_RECORDS_AT = GOOD.index(b"\xa7records") + 8

DAMAGED: dict[str, Callable[[], bytes]] = {
    "a field name changed": lambda: _flip(GOOD, 40),
    "the first byte changed": lambda: _flip(GOOD, 0),
    "a byte changed in the map's header": lambda: _flip(GOOD, 1),
    "the checksum's name changed": lambda: _flip(GOOD, len(GOOD) - 40),
    "the format changed": lambda: GOOD.replace(b"p2pcards", b"p2pcardz", 1),
    "the record count changed": lambda: GOOD[:_RECORDS_AT] + b"\xdc\x00\xf1" + GOOD[_RECORDS_AT + 3 :],
    "junk appended": lambda: GOOD + b"junkjunk",
    "bytes zeroed": lambda: GOOD[:2000] + bytes(500) + GOOD[2500:],
    "bytes lost": lambda: GOOD[:2000] + GOOD[2100:],
    "cut short and a field name changed": lambda: _flip(GOOD[: len(GOOD) // 2], 40),
    "a record repeated": lambda: _file([*PAIRS[:10], PAIRS[5], *PAIRS[10:]]),
    "records swapped": lambda: _file([*PAIRS[:10], PAIRS[12], PAIRS[11], PAIRS[10], *PAIRS[13:]]),
    "a record repeated 300 times": lambda: _file(PAIRS + [PAIRS[5]] * 300),
    "no join record first": lambda: _file(PAIRS[4:]),
    "no record that reads": lambda: _file([(b"x", b"y")] * 3),
    "junk records after the start": lambda: _file(PAIRS[:20] + [JUNK] * 70 + PAIRS[20:]),
    "junk records before the start": lambda: _file([JUNK] * 70 + PAIRS),
    "the first record badly signed": lambda: _file([(PAIRS[0][0], bytes(64)), *PAIRS[1:]]),
}
"""The file's own damage, or edits of its records, by how they were made."""


def english_runs(text: str) -> set[str]:
    """Every three words in a row of ``text`` (an English problem), outside the values it
    quotes (a field name as the file holds it): a translation keeps none."""
    words = re.findall(r"[A-Za-z]+", re.sub(r"(?<!\w)'[^']*'(?!\w)", " ", text))
    return {" ".join(words[k : k + 3]) for k in range(len(words) - 2)}


def english_left(english: str, said: str) -> set[str]:
    """The runs of three English words of ``english`` that ``said`` still holds."""
    flat = " ".join(re.findall(r"[A-Za-z]+", said))
    return {run for run in english_runs(english) if re.search(rf"\b{run}\b", flat)}


@pytest.mark.parametrize("damage", sorted(DAMAGED))
@pytest.mark.parametrize("lang", ["fr", "it"])
def test_an_audit_of_a_damaged_file_says_every_problem_in_the_language(damage: str, lang: str) -> None:
    report = audit_bytes(DAMAGED[damage]())
    assert report.problems and not report.internal_error
    tr = Translator(lang)
    said = " ".join(report.summary(tr).split())
    english = " ".join(report.summary().split())
    for p in report.problems:
        assert p.what in english  # (the English report is as before)
        assert problem_text(tr, p.what) != p.what, f"{p.what!r} matches no template"
        assert not english_left(p.what, said), (p.what, said)


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_the_command_says_every_damaged_file_in_the_language(lang: str, tmp_path: Path) -> None:
    """``p2pcards audit FILE --lang``, as a reader runs it: no English sentence in its output,
    for damaged files as for files that are no transcript at all."""
    files = {**{name: make() for name, make in DAMAGED.items()}, "empty": b"", "text": b"hello there\n"}
    env = {"P2PCARDS_LANG": None}
    for name, data in files.items():
        path = tmp_path / f"{name.replace(' ', '-')}.p2pt"
        path.write_bytes(data)
        result = CliRunner().invoke(cli.main, ["audit", str(path), "--lang", lang], env=env)
        said = " ".join(result.output.split())
        if name in ("empty", "text"):
            assert result.exit_code == 2 and "not a p2pcards" not in said, said
            continue
        assert result.exit_code == 1, result.output
        for p in audit_bytes(data).problems:
            assert not english_left(p.what, said), (name, p.what, said)
    _english_as_it_was()


def _english_as_it_was() -> None:
    """The texts ``audit --json`` holds, word for word (outside verifiers compare them)."""
    said = {
        damage: [p.what for p in audit_bytes(DAMAGED[damage]()).problems]
        for damage in ("a field name changed", "junk appended", "a record repeated 300 times")
    }
    assert said == {
        "a field name changed": [
            "the file's structure is damaged at byte offset 40, before record 0: a field name reads"
            " 'sa\ufffded_by' instead of 'saved_by'"
        ],
        "junk appended": [
            "the file's structure is damaged at byte offset 84745, after record 239: 8 bytes follow the end"
            " of the transcript"
        ],
        "a record repeated 300 times": [
            *["record out of order or repeated: the file was edited"] * 100,
            "200 more problems of single records (records 340 to 539) are not listed",
        ],
    }


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_the_seats_some_uncounted_problems_blame_are_said_in_the_language(lang: str) -> None:
    tr = Translator(lang)
    one = faults.UNLISTED_BLAME.format(count=7, first=3, last=9, blamed="seat 2")
    assert problem_text(tr, one) == tr("fault_unlisted_blame", count="7", first="3", last="9", blamed=tr(
        "audit_seat", seat="2"
    ))
    many = faults.UNLISTED_ONE_BLAME.format(first=3, last=3, blamed="seats 0, 1 and 4")
    listed = f"0, 1 {tr('audit_and')} 4"
    assert problem_text(tr, many) == tr("fault_unlisted_one_blame", first="3", last="3", blamed=tr(
        "fault_seats", seats=listed
    ))
    assert "seat" not in problem_text(tr, many) and "blame" not in problem_text(tr, one)


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_what_no_template_made_is_shown_as_it_is(lang: str) -> None:
    """A damaged spot whose detail no template made, and seats no audit names so: as they are."""
    tr = Translator(lang)
    odd = faults.DAMAGED_BEFORE.format(offset=5, record=0, damage="a peer's own words")
    said = tr("fault_damaged_before", offset="5", record="0", damage="a peer's own words")
    assert problem_text(tr, odd) == said
    blamed = faults.UNLISTED_BLAME.format(count=2, first=3, last=4, blamed="everyone")
    assert "everyone" in problem_text(tr, blamed)
    for text in ("the transcript holds no records", "record out of order: the file was edited"):
        assert problem_text(tr, text) == text
