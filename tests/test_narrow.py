"""A terminal narrower than the layout's 40 columns: said once, and every line folded at spaces.

Below :data:`~p2pcards.ui.render.MIN_WIDTH` the table's rows, the headings, the help and
the messages are laid out for 40 columns; the terminal would cut them inside a word or a
card. Instead each line is folded at its spaces to the terminal's own width, and the
player is told once that the window is narrow.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from p2pcards.cli import main
from p2pcards.ui.i18n import Translator
from p2pcards.ui.prompt import Console
from p2pcards.ui.render import Style, fold_narrow, rule_line, visible_len

CARD = re.compile(r"^(10|[2-9AJQK])[♠♥♦♣]$")


def words_whole(out: str, columns: int) -> None:
    """Every line of ``out`` fits ``columns``, unless it is one word wider than that (what was
    typed after a prompt is the terminal's to fold)."""
    for line in out.splitlines():
        line = line.rsplit(" > ", 1)[0] + " >" if " > " in line else line
        glued = re.sub(r" ([;:!?»])", r"\1", line.strip())  # (French punctuation stays with its word)
        assert visible_len(line) <= columns or " " not in glued, (line, out)


@pytest.mark.parametrize("columns", [20, 30, 39])
@pytest.mark.parametrize("game", ["nines", "neuf"])
@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_a_game_below_forty_columns_is_folded_at_spaces_and_says_so_once(
    columns: int, game: str, lang: str
) -> None:
    args = ["play", "--game", game, "--offline", "--seed", "3", "--lang", lang]
    words = {"en": "help\nscore\nquit\ny\n", "fr": "aide\nscore\nquitter\no\n",
             "it": "aiuto\npunti\nesci\ns\n"}  # fmt: skip
    out = CliRunner().invoke(main, args, input=words[lang], env={"COLUMNS": str(columns)}).output
    words_whole(out, columns)
    notice = Translator(lang)("narrow_window", columns=columns, least=40)
    assert " ".join(out.split()).count(" ".join(notice.split())) == 1, out
    headings = [line for line in out.splitlines() if line.startswith("── ")]
    assert headings and all(visible_len(h) <= columns for h in headings), headings


def test_at_forty_columns_nothing_is_said_about_the_width() -> None:
    out = CliRunner().invoke(main, ["play", "--offline", "--seed", "3"], input="quit\ny\n",
                             env={"COLUMNS": "40"}).output  # fmt: skip
    assert "columns" not in out


def test_a_heading_keeps_its_words_and_loses_its_bar_first(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "30")
    style = Style(unicode=True)
    line = rule_line("Hand 1 · your turn", style, 40)
    assert fold_narrow(line, 24) == "── Hand 1 · your turn ──"
    assert fold_narrow(line, 22) == "── Hand 1 · your turn"
    assert fold_narrow(line, 16).split("\n") == ["── Hand 1 · your", "  turn"]
    assert rule_line("Hand 1 · your turn: the dummy", style) == "── Hand 1 · your turn: the dummy"
    bold = Style(unicode=True, color=True)
    assert visible_len(fold_narrow(rule_line("Hand 1 · your turn", bold, 40), 24)) == 24


def test_a_hand_is_folded_between_cards_never_inside_one() -> None:
    hand = "   Your hand  8♠ 7♥ 2♦ 3♦ 10♦ A♣ 2♣ K♥ Q♥"
    for width in range(12, 40):
        lines = fold_narrow(hand, width).split("\n")
        assert all(visible_len(line) <= width for line in lines), (width, lines)
        cards = " ".join(lines).split()[2:]
        assert all(CARD.match(c) for c in cards) and len(cards) == 9, (width, lines)


def test_a_window_narrowed_widened_and_narrowed_again_is_told_each_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    said: list[str] = []
    console = Console(Translator("en"), Style(unicode=True), read=input, write=said.append, live=None)
    for columns in (30, 30, 80, 20):
        monkeypatch.setenv("COLUMNS", str(columns))
        console.say("Alice played 10♣ and Bob played 9♠ and declared ♥")
    told = [" ".join(text.split()) for text in said if "columns" in text]
    assert len(told) == 2 and "30 columns" in told[0] and "20 columns" in told[1], said
    assert said[-1].split("\n")[0] == "Alice played 10♣ and", said


# ---------------------------------------------------------------------------
# replay


FIXTURES = Path(__file__).parent / "fixtures"


@pytest.mark.parametrize("columns", [20, 30])
def test_a_replay_below_forty_columns_keeps_headings_and_cards_whole(tmp_path: Path, columns: int) -> None:
    from test_leave import left_match_file

    neuf = tmp_path / "neuf.p2pt"
    neuf.write_bytes(left_match_file("neuf"))
    for path in (FIXTURES / "nines-4p-variants.p2pt", neuf):
        result = CliRunner().invoke(main, ["replay", str(path)], env={"COLUMNS": str(columns)})
        assert result.exit_code == 0, result.output
        words_whole(result.output, columns)
        headings = [line for line in result.output.splitlines() if line.startswith("── Hand")]
        assert headings and all(visible_len(h) <= columns for h in headings), headings


def test_a_stepped_replay_follows_the_terminal_when_it_is_resized() -> None:
    import sys

    pexpect = pytest.importorskip("pexpect")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}  # (the terminal's, then)
    child = pexpect.spawn(
        sys.executable, ["-m", "p2pcards", "replay", "--step", str(FIXTURES / "nines-4p-variants.p2pt")],
        encoding="utf-8", timeout=30, dimensions=(40, 100), env=env,
    )  # fmt: skip
    try:
        child.expect(r"stop here > ")
        assert max(visible_len(line) for line in child.before.splitlines()) > 40
        child.setwinsize(40, 24)
        child.send("\r")
        child.expect(r"stop\s+here > ")
        shown = child.before.replace("\r", "").split("\n")[1:]
        assert "Hand 2" in "".join(shown) and max(visible_len(line) for line in shown) <= 24, shown
    finally:
        child.close(force=True)


# ---------------------------------------------------------------------------
# --help


@pytest.mark.parametrize("columns", [20, 30, 45])
@pytest.mark.parametrize("command", [[], ["play"], ["join"], ["host"], ["replay"], ["audit"], ["history"]])
@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_help_below_fifty_columns_fits_the_terminal(columns: int, command: list[str], lang: str) -> None:
    """click lays its help out in 50 columns at least: the terminal cut it mid-word."""
    result = CliRunner().invoke(main, [*command, "--help", "--lang", lang], env={"COLUMNS": str(columns)})
    assert result.exit_code == 0, result.output
    words_whole(result.output, columns)
    assert "[OPTIONS]" in result.output or "[OPZIONI]" in result.output, result.output  # (click cut it)


# ---------------------------------------------------------------------------
# history


@pytest.mark.parametrize("columns", [20, 30])
@pytest.mark.parametrize("lang", ["en", "fr"])
def test_history_below_thirty_columns_is_folded_with_every_name_whole(
    tmp_path: Path, columns: int, lang: str
) -> None:
    """Each game's three lines were cut at 29 columns whatever the terminal (a verdict read
    ``✓ veri…``, names lost their end): below 30 they are folded at their spaces."""
    from test_history import _two_games

    names = ("Annabelle-Marie", "Bartholomew", "Constantinople")  # (longer names: cut at 16, as in 80)
    _two_games(tmp_path, names)
    env = {"P2PCARDS_HOME": str(tmp_path), "COLUMNS": str(columns), "P2PCARDS_LANG": None}
    out = CliRunner().invoke(main, ["--lang", lang, "history"], env=env).stdout
    words_whole(out, columns - 1)
    assert "…" not in out, out
    for name in names:
        assert out.count(name) == 1 + (name == names[2]), out  # (the winner)
    assert out.count("✓ verified" if lang == "en" else "✓ vérifiée") == 2, out


# ---------------------------------------------------------------------------
# the suit's question


@pytest.mark.parametrize(("lang", "said"), [("en", "A suit is needed here"), ("fr", "Il faut une couleur"),
                                            ("it", "Qui serve un seme")])  # fmt: skip
def test_enter_alone_at_the_suit_question_asks_for_a_suit_without_quoting_nothing(
    lang: str, said: str
) -> None:
    answers = iter(["", "h"])
    out: list[str] = []
    console = Console(Translator(lang), Style(), read=lambda prompt: next(answers), write=out.append,
                      live=None)  # fmt: skip
    assert console.ask_suit() == "H"
    assert len(out) == 1 and out[0].startswith(said) and "''" not in out[0], out


# ---------------------------------------------------------------------------
# the table fingerprint


@pytest.mark.parametrize("columns", [20, 24, 30])
@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_the_audits_table_fingerprint_is_never_split_over_two_lines(columns: int, lang: str) -> None:
    """Its groups are read aloud and compared: at 30 columns the last group went to a line of its
    own, where a player comparing it would read two groups for the fingerprint."""
    from p2pcards.protocol.audit import audit_file

    path = Path(__file__).parent / "fixtures" / "nines-4p-variants.p2pt"
    fingerprint = audit_file(path).compared_fingerprint()
    assert fingerprint is not None
    out = CliRunner().invoke(main, ["audit", str(path), "--lang", lang], env={"COLUMNS": str(columns)}).output
    assert [line.strip() for line in out.splitlines()].count(fingerprint.text) == 1, out
    words_whole(out, columns)


def test_the_fingerprint_line_stays_one_line_where_it_fits() -> None:
    from p2pcards.ui.render import fingerprint_line

    said = Translator("en")("fingerprint", fingerprint="6920 8765 4806")
    assert fingerprint_line(said, "6920 8765 4806", 79) == said
    assert fingerprint_line(said, "6920 8765 4806", 30) == "Table fingerprint:\n  6920 8765 4806"


# ---------------------------------------------------------------------------
# the score table, and a file's path


def _final_scores(out: str, lang: str, players: int) -> tuple[list[str], bool]:
    """The last score table of ``out``, from its heading to its totals, and whether it is
    stacked (its totals a line a player under their label) rather than in columns."""
    total = Translator(lang)("row_total")
    lines = out.splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("── "))
    end = next(i for i in range(start, len(lines)) if lines[i].startswith(total))
    stacked = lines[end].strip() == total
    return lines[start : end + 1 + (players if stacked else 0)], stacked


@pytest.mark.parametrize("columns", [20, 30, 39])
@pytest.mark.parametrize("game", ["nines", "neuf"])
@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_a_score_table_too_wide_for_the_terminal_is_stacked_not_folded(
    columns: int, game: str, lang: str
) -> None:
    """At 20 columns four players' columns folded inside their rows (a total under the wrong
    name). Where the columns do not fit, each hand, then the totals, is a line, followed by a
    line a player: the player's name and points side by side, whatever the width."""
    rule = {"nines": "target=30", "neuf": "start=6"}[game]
    args = ["play", "--game", game, "--offline", "--seed", "3", "--watch", "--delay", "0", "--lang", lang,
            "--rule", rule]  # fmt: skip
    out = CliRunner().invoke(main, args, env={"COLUMNS": str(columns)}).output
    names = ["Alice", "Bob", "Carol", "Dave"][: 4 if game == "nines" else 3]
    table, stacked = _final_scores(out, lang, len(names))
    assert all(visible_len(line) <= columns for line in table), table
    assert not [line for line in table if re.match(r" +[-+\d(]", line)], table  # (no row folded)
    if stacked:
        for name, line in zip(names, table[-len(names) :], strict=True):
            assert re.fullmatch(rf"  {name} +-?\d+", line.rstrip()), table
    else:  # (the columns fit: the totals on one line)
        assert columns >= 30 and len(re.findall(r"-?\d+", table[-1])) == len(names), table


@pytest.mark.parametrize("columns", [12, 20, 30])
def test_a_files_path_wider_than_the_terminal_is_broken_after_its_separators(columns: int) -> None:
    """The terminal cut a transcript's path anywhere (``/tmp/ux13home/tran`` / ``scripts/...``):
    it is broken after its separators instead, its pieces one under the other, never wider
    than the terminal, and read one after the other they are the path."""
    path = "/home/someone/.local/share/p2pcards/transcripts/nines-2026-12-07-031cce6769b5-s0.p2pt"
    said = Translator("en")("transcript_saved", path=path)
    lines = fold_narrow(said, columns).split("\n")
    assert all(visible_len(line) <= columns for line in lines), lines
    start = next(i for i, line in enumerate(lines) if line.strip().startswith("/home"))
    assert "".join(line.strip() for line in lines[start:]) == path, lines
    assert lines[start].startswith("  /home/"), lines
    if columns >= 20:
        assert any(line.strip().endswith("transcripts/") for line in lines), lines  # (a name whole)
    record = fold_narrow(Translator("en")("record_written", path=path), columns).split("\n")
    assert all(visible_len(line) <= columns for line in record), record
