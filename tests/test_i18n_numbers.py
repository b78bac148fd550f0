"""A number written for a person reads as one in that person's language: a decimal comma in
French and Italian ("2,5 s"), and thousands never grouped by a comma there ("1,755" is one
and three quarters to a French or Italian reader)."""

from __future__ import annotations

import pytest
from click.testing import CliRunner

from p2pcards.cli import main
from p2pcards.protocol.notice import Notice
from p2pcards.say import English, Number
from p2pcards.ui.i18n import Translator


@pytest.mark.parametrize(
    ("lang", "decimal", "thousands"),
    [("en", "2.5", "1,755"), ("fr", "2,5", "1\u202f755"), ("it", "2,5", "1.755")],
)
def test_a_translator_writes_a_number_as_its_language_does(lang: str, decimal: str, thousands: str) -> None:
    tr = Translator(lang)
    assert tr.number(Number(2.5)) == decimal
    assert tr.number(Number(1755.2, ",.0f")) == thousands
    assert tr.number(Number(3.0)) == "3"
    # A notice carries the number, said in the reader's language when it is read.
    assert tr.said(Notice("notice_busy", pause=Number(2.54, ".1f"))).endswith(f"{decimal} s")
    assert English({"k": "{x} s"})("k", x=Number(2.5)) == "2.5 s"


def test_a_short_clock_is_said_with_a_decimal_comma_in_french_and_italian() -> None:
    args = ["--turn-timeout", "22.5", "--bind", "x" * 64]  # (refused before any network)
    for lang, clock in (("fr", "Une horloge de 22,5 s."), ("it", "Un orologio di 22,5 s.")):
        result = CliRunner().invoke(main, ["host", "--lang", lang, *args], env={"P2PCARDS_LANG": None})
        assert result.exit_code == 2, result.output
        assert clock in " ".join(result.stderr.split()), result.stderr


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_simulate_writes_its_figures_with_a_decimal_comma(lang: str) -> None:
    result = CliRunner().invoke(
        main, ["simulate", "-g", "20", "--lang", lang], env={"P2PCARDS_LANG": None}
    )
    assert result.exit_code == 0, result.output
    rows = [line for line in result.output.splitlines() if line.startswith(("heuristic", "random"))]
    assert len(rows) == 2, result.output
    for row in rows:
        rate, interval, points = row.split()[3:6]
        assert rate.endswith("%") and "," in rate and "." not in rate, row
        assert "." not in interval and "." not in points and "," in points, row
    speed = " ".join(result.output.strip().splitlines()[-2:])
    per_match, elapsed = speed.split("(")[1].split()[0], speed.split(" s")[0].split()[-1]
    assert "," in per_match and "." not in per_match, speed  # 5,85 per match
    assert "," in elapsed and "." not in elapsed, speed  # in 0,04 s


def test_simulate_in_english_is_written_as_before() -> None:
    result = CliRunner().invoke(main, ["simulate", "-g", "20", "--lang", "en"], env={"P2PCARDS_LANG": None})
    assert result.exit_code == 0, result.output
    assert "(5.85 per match, 8 stalled)" in result.output, result.output
    assert "40.0%    26.3-55.4%      9.92" in result.output, result.output


@pytest.mark.parametrize(("lang", "said"), [("fr", "(0,6 par défaut dans"), ("it", "(0,6 in un terminale")])
def test_plays_help_gives_the_watch_delay_with_a_decimal_comma(lang: str, said: str) -> None:
    result = CliRunner().invoke(main, ["play", "--help", "--lang", lang], env={"P2PCARDS_LANG": None})
    assert result.exit_code == 0, result.output
    assert said in " ".join(result.output.split()), result.output
