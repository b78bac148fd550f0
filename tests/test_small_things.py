"""Small things a person notices at the terminal, each checked through the real command.

A watched match at a readable pace; help that tells the rules in force; lines
that fit the terminal's width; a terminal that is not UTF-8; usage errors as
click reports them; words in French and Italian; and the setup scripts, which
install what playing needs and the test tools only for the tests.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import trio
from click.testing import CliRunner, Result

from p2pcards.cli import main
from p2pcards.games.neuf.rules import NeufRules
from p2pcards.games.nines.rules import NinesRules
from p2pcards.ui.render import pad, visible_len

EXE = Path(sys.executable).with_name("p2pcards")
ROOT = Path(__file__).resolve().parent.parent
needs_exe = pytest.mark.skipif(not EXE.exists(), reason="the p2pcards command is not installed in this venv")

SHORT = {"nines": ["--rule", "hands=1"], "neuf": ["--rule", "start=1"]}
"""A one-hand match of each game."""

MOVE = re.compile(r"^   .*\b(played|drew|had to draw|passed|accepted|declared|Trick \d+|the dummy)\b", re.M)
"""A line saying what a bot did (one move or more)."""


def play(*args: str, input: str = "", env: dict[str, str] | None = None) -> Result:
    result = CliRunner().invoke(main, ["play", *args], input=input, env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def home() -> dict[str, str]:
    """The test's own data directory (conftest sets it), for the command in a subprocess."""
    return {"P2PCARDS_HOME": os.environ["P2PCARDS_HOME"]}


def screen_lines(raw: str) -> list[str]:
    """What a terminal shows of ``raw``: colours and status lines rewritten in place removed."""
    plain = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", raw).replace("\r\n", "\n")
    return [line.split("\r")[-1] for line in plain.split("\n")]


# ---------------------------------------------------------------------------
# 1. A watched match at a pace a person can follow


@pytest.mark.parametrize("game", ["nines", "neuf"])
def test_delay_paces_an_offline_watched_match(game: str) -> None:
    start = time.monotonic()
    out = play("--game", game, "--offline", "--watch", "--delay", "0.03", "--seed", "2", *SHORT[game]).output
    elapsed = time.monotonic() - start
    moves = len(MOVE.findall(out))
    assert moves > 20, out
    assert elapsed >= 0.03 * moves, (elapsed, moves)


@pytest.mark.parametrize("game", ["nines", "neuf"])
def test_a_paced_networked_watch_finishes_and_its_transcript_audits_valid(game: str, tmp_path: Path) -> None:
    """The bots take their time with trio.sleep, in their own nodes: the network goes on."""
    transcript = tmp_path / "paced.p2pt"
    start = time.monotonic()
    args = ["--game", game, "--watch", "--delay", "0.03", "--seed", "2", "--transcript", str(transcript)]
    result = play(*args, *SHORT[game])
    elapsed = time.monotonic() - start
    assert result.exit_code == 0, result.output
    moves = len(MOVE.findall(result.output))
    assert moves > 20 and elapsed >= 0.03 * moves, (elapsed, moves)
    audit = CliRunner().invoke(main, ["audit", str(transcript)])
    assert audit.exit_code == 0 and audit.output.startswith("VALID: a finished game of "), audit.output


def test_without_a_terminal_a_watched_match_does_not_wait() -> None:
    start = time.monotonic()
    out = play("--offline", "--watch", "--seed", "2", "--rule", "hands=2").output
    assert time.monotonic() - start < 0.1 * len(MOVE.findall(out))


def test_delay_is_for_a_watched_match() -> None:
    result = CliRunner().invoke(main, ["play", "--delay", "1"], input="")
    assert result.exit_code == 2 and "Usage: " in result.output and "--watch" in result.output
    result = CliRunner().invoke(main, ["play", "--watch", "--delay", "-1"], input="")
    assert result.exit_code == 2 and "Usage: " in result.output


def test_pace_never_sleeps_inside_trio() -> None:
    """A sleep in trio's thread would stall every node of a networked table."""
    from p2pcards.ui.prompt import pace

    async def inside() -> float:
        start = time.monotonic()
        pace(5.0)
        return time.monotonic() - start

    assert trio.run(inside) < 1.0


@needs_exe
@pytest.mark.parametrize("offline", [True, False])
def test_on_a_terminal_a_watched_match_is_readable_by_default(offline: bool) -> None:
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(
        str(EXE),
        ["play", "--watch", "--seed", "4", "--lang", "en", *(["--offline"] if offline else [])],
        env={"PATH": "/usr/bin:/bin", "TERM": "xterm", "NO_COLOR": "1", "LANG": "C.UTF-8", **home()},
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 80),
    )
    try:
        child.expect(r" played ")
        start = time.monotonic()
        for _ in range(4):
            child.expect(r" played ")
        elapsed = time.monotonic() - start
    finally:
        child.terminate(force=True)
    assert elapsed >= 4 * 0.6 * 0.9, elapsed


# ---------------------------------------------------------------------------
# 2. Help and the intro tell the rules in force


@pytest.mark.parametrize(
    ("lang", "quit_word"), [("en", "quit"), ("fr", "quitter"), ("it", "esci")]
)  # fmt: skip
def test_help_under_hard_nines_says_what_a_nine_costs(lang: str, quit_word: str) -> None:
    words = f"help\n{quit_word}\n"
    hard = play("--offline", "--seed", "1", "--lang", lang, "--rule", "hard-nines", input=words)
    plain = play("--offline", "--seed", "1", "--lang", lang, input=words)
    assert "9=25" in hard.output and "9=15" not in hard.output
    assert "9=15" in plain.output and "9=25" not in plain.output


def test_help_of_a_networked_table_tells_its_rules() -> None:
    out = play("--seed", "1", "--lang", "en", "--rule", "hard-nines", input="help\nquit\n").output
    assert "9=25" in out and "Variants in force\n  hard-nines: a 9 left in hand costs 25" in out


def test_the_intro_says_what_each_variant_does() -> None:
    rules = ["draw-until-playable", "action-cards", "double-nines", "stacking-nines", "hard-nines",
             "no-nine-out", "tie=playoff"]  # fmt: skip
    args = ["--offline", "--watch", "--seed", "1", "--players", "5", "--rule", "hands=1"]
    for lang, title in (("en", "Variants:"), ("fr", "Variantes :"), ("it", "Varianti:")):
        out = play(*args, *(a for r in rules for a in ("--rule", r)), "--lang", lang).output
        intro = out.split(title + "\n", 1)[1]
        said = [line for line in intro.splitlines() if line.startswith("  ") and not line.startswith("   ")]
        assert [line.split(":")[0].strip() for line in said[: len(rules)]] == rules, intro
        for line in said[: len(rules)]:
            assert len(line.split(": ", 1)[1]) > 15, line  # words, not just the option's name
    en = play(*args, "--rule", "hard-nines", "--lang", "en").output
    assert "\n  hard-nines: a 9 left in hand costs 25 instead of 15\n" in en


# ---------------------------------------------------------------------------
# 3. Lines fit the terminal's width


@pytest.mark.parametrize(("columns", "width"), [("60", 58), ("40", 40), ("200", 100), ("80", 78)])
def test_rules_and_text_follow_the_terminal_width(columns: str, width: int) -> None:
    env = {"COLUMNS": columns}
    out = play("--offline", "--seed", "3", "--lang", "fr", input="aide\nscore\nquitter\n", env=env).output
    out += play("--game", "neuf", "--offline", "--seed", "3", input="help\nscore\nq\n", env=env).output
    rules = [line for line in out.splitlines() if line.startswith("── ") and line.endswith("─")]
    assert len(rules) >= 3 and all(visible_len(line) == width for line in rules), rules
    if width < 80:
        assert max(visible_len(line) for line in out.splitlines()) <= width + 1


@needs_exe
@pytest.mark.parametrize("game", ["nines", "neuf"])
def test_at_60_columns_no_line_wraps(game: str) -> None:
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(
        str(EXE),
        ["play", "--game", game, "--seed", "3", "--lang", "fr"],
        env={"PATH": "/usr/bin:/bin", "TERM": "xterm", "LANG": "C.UTF-8", **home()},
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 60),
    )
    try:
        child.expect("> ")
        raw = child.before
        for word in ("aide", "score"):
            child.sendline(word)
            child.expect("> ")
            raw += child.before
        child.sendline("quitter")
        child.expect(r"\(o/n\) > ")
        raw += child.before
        child.sendline("o")
        child.expect(pexpect.EOF)
        raw += child.before
    finally:
        child.close()
    lines = [line.rstrip() for line in screen_lines(raw) if not line.startswith("  /")]
    assert sum(line.startswith("── ") for line in lines) >= 2
    assert max(len(line) for line in lines) <= 59, max(lines, key=len)


WIDE_NAMES = ["李小龍", "Zoë", "😀 Ana", "Bjo\u0308rn"]
"""Names whose characters take two columns (CJK, an emoji), or none (a combining diaeresis)."""


def test_wide_and_combining_characters_are_measured_in_columns() -> None:
    from p2pcards.ui.render import cut_columns, pad_left, short_name

    assert [visible_len(n) for n in WIDE_NAMES] == [6, 3, 6, 5]
    assert visible_len("\x1b[1m李\x1b[0m") == 2
    assert short_name("李小龍李小龍", 8) == "李小龍…" and visible_len(short_name("李小龍李小龍", 8)) == 7
    assert cut_columns("😀😀😀", 5, "") == "😀😀"
    assert visible_len(pad_left("李", 6)) == 6 and visible_len(pad("😀", 6)) == 6


@pytest.mark.parametrize("width", [12, 20, 33])
def test_text_with_wide_characters_folds_within_the_width(width: int) -> None:
    import textwrap

    from p2pcards.ui.render import fill

    text = "Le joueur 李小龍 a joué 9♠ et déclare pique ; 😀😀😀😀😀😀😀😀 c'est au tour de 王小明"
    lines = fill(text, width)
    assert all(visible_len(line) <= width for line in lines), lines
    assert " ".join(line.strip() for line in lines).replace(" ", "") == text.replace(" ", "")
    assert any(line.rstrip().endswith(" ;") for line in lines) or width >= 33  # the French colon stays put
    plain = "The quick brown fox jumps over the lazy dog ; twenty-three times over and over again"
    glued = plain.replace(" ;", "\u00a0;")
    expected = textwrap.wrap(glued, width, initial_indent="  ", subsequent_indent="  ",
                             break_long_words=False, break_on_hyphens=False)  # (a hyphen: no fold)
    assert fill(plain, width) == [line.replace("\u00a0", " ") for line in expected]  # as before


def test_a_score_table_of_wide_names_keeps_its_columns() -> None:
    from p2pcards.games.nines.render import render_scores
    from p2pcards.games.nines.rules import HandResult
    from p2pcards.ui.i18n import Translator
    from p2pcards.ui.render import Style

    results = [HandResult(1, 0, "out", 1, (12, 0, 7, 30), (12, 0, 7, 30), False)]
    table = render_scores(
        results, names=WIDE_NAMES, totals=(12, 0, 7, 30), tr=Translator("en"), style=Style(), title="Scores"
    )
    rows = [line for line in table.splitlines()[1:4]]
    assert len({visible_len(line) for line in rows}) == 1, rows  # head, hand 1 and totals end alike
    head, hand = rows[0], rows[1]
    for name, cell in zip(WIDE_NAMES, ("12", "0*", "7", "30"), strict=True):
        # each name ends in the column where its penalty ends
        assert visible_len(head[: head.index(name) + len(name)]) == visible_len(
            hand[: hand.index(cell, len(hand.split()[0])) + len(cell)]
        ), (head, hand)


# ---------------------------------------------------------------------------
# 4. A terminal that is not UTF-8


@needs_exe
@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
@pytest.mark.parametrize(
    ("game", "lang", "words"),
    [("nines", "en", "2\nhelp\ncaf\u00e9\nscore\n"), ("nines", "fr", "aide\nscore\n"),
     ("nines", "it", "aiuto\n"), ("neuf", "fr", "aide\nscore\n"), ("neuf", "it", "aiuto\n")],
)  # fmt: skip
def test_nothing_crashes_at_a_terminal_not_utf8(encoding: str, game: str, lang: str, words: str) -> None:
    proc = subprocess.run(
        [str(EXE), "play", "--offline", "--game", game, "--seed", "1", "--lang", lang],
        input=(words + "quit\n").encode("utf-8"),  # a UTF-8 word typed into it, too
        capture_output=True,
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "LC_ALL": "C", "PYTHONIOENCODING": encoding, **home()},
    )
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr.decode("utf-8", "replace")
    text = proc.stdout.decode(encoding)  # every byte in the terminal's own encoding
    seeds = ("Seed 1", "Graine 1", "Numero della partita 1")
    assert text.count("> ") >= 2 and any(seed in text for seed in seeds)
    if encoding == "ascii":
        assert "9S" in text or "QS" in text or " S " in text  # suits as letters


@needs_exe
def test_help_at_an_ascii_terminal_is_ascii() -> None:
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(
        str(EXE),
        ["play", "--seed", "1", "--lang", "fr"],
        env={"PATH": "/usr/bin:/bin", "TERM": "xterm", "LC_ALL": "C", "PYTHONIOENCODING": "ascii", **home()},
        timeout=30,
        dimensions=(40, 80),
    )
    try:
        child.expect(b"> ")
        raw = child.before
        child.sendline(b"aide")
        child.expect(b"> ")
        raw += child.before
        child.sendline(b"quitter")
        child.expect(rb"\(o/n\) > ")
        raw += child.before
        child.sendline(b"o")
        child.expect(pexpect.EOF)
        raw += child.before
    finally:
        child.close()
    assert child.exitstatus == 0, raw
    assert raw.isascii() and b"Comment jouer a Nines" in raw and b"9S" in raw


@needs_exe
@pytest.mark.parametrize("locale", [{"LC_ALL": "C"}, {"LC_ALL": "POSIX", "LANG": "en_US.UTF-8"}])
def test_a_terminal_whose_locale_says_ascii_gets_ascii(locale: dict[str, str]) -> None:
    """``LC_ALL=C`` (or POSIX): Python writes UTF-8 there all the same (its UTF-8 mode),
    which such a terminal garbles; the game writes ASCII (suits as letters) instead."""
    pexpect = pytest.importorskip("pexpect")
    env = {"PATH": "/usr/bin:/bin", "TERM": "xterm", "NO_COLOR": "1", **locale, **home()}
    child = pexpect.spawn(str(EXE), ["play", "--offline", "--seed", "1"], env=env, timeout=30)
    try:
        child.expect(b"> ")
        raw = child.before
        child.sendline(b"quit")
        child.expect(rb"\(y/n\) > ")
        child.sendline(b"y")
        child.expect(pexpect.EOF)
        raw += child.before
    finally:
        child.close()
    assert raw.isascii() and re.search(rb"\b(?:[2-9AJQK]|10)[SHDC]\b", raw), raw


@needs_exe
def test_audit_history_and_replay_print_ascii_to_an_ascii_terminal(tmp_path: Path) -> None:
    transcript = tmp_path / "t.p2pt"
    assert play("--watch", "--seed", "1", "--rule", "hands=1", "--transcript", str(transcript)).exit_code == 0
    env = {"PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "ascii", **home()}
    commands = [["audit"], ["audit", "--json"], ["replay"]]
    for args in [[*c, str(transcript)] for c in commands] + [["history", str(tmp_path)]]:
        proc = subprocess.run([str(EXE), *args], capture_output=True, timeout=60, env=env)
        assert proc.returncode == 0 and proc.stdout.isascii(), (args, proc.stderr)


# ---------------------------------------------------------------------------
# 5. Usage errors, as click reports them


@pytest.mark.parametrize(
    ("args", "option", "message"),
    [
        (["play", "--players", "9"], "'-n' / '--players'", "2 to 6 players"),
        (["play", "--rule", "foo"], "'-r' / '--rule'", "unknown rule 'foo'"),
        (["play", "--bot", "smart"], "'-b' / '--bot'", "unknown bot 'smart'"),
        (["play", "--lang", "xx"], "'--lang'", "unknown language 'xx'"),
        (["play", "--game", "neuf", "--rule", "hard-nines"], "'-r' / '--rule'", "unknown rule 'hard-nines'"),
        (["host", "--bot", "smart"], "'-b' / '--bot'", "unknown bot 'smart'"),
        (["join", "127.0.0.1:9", "--code", "2-a-b", "--lang", "xx"], "'--lang'", "unknown language"),
    ],
)
def test_bad_usage_exits_2_with_the_usage(args: list[str], option: str, message: str) -> None:
    result = CliRunner().invoke(main, args, input="")
    assert result.exit_code == 2, result.output
    assert result.output.startswith(f"Usage: main {args[0]} ")
    assert f"Error: Invalid value for {option}: " in result.output and message in result.output


def test_a_port_in_use_is_named_with_the_way_out() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        args = ["host", "--port", str(port), "--bind", "127.0.0.1", "--no-discovery", "--name", "ann"]
        result = CliRunner().invoke(main, args, input="")
    assert result.exit_code == 1
    assert f"port {port} is already in use" in result.output and "--port" in result.output
    assert "Address already in use" not in result.output


def test_play_help_lists_every_rule_option_of_both_games() -> None:
    out = CliRunner().invoke(main, ["play", "--help"], terminal_width=80).output
    for rules in (NinesRules, NeufRules):
        for field in dataclasses.fields(rules):
            name = field.name.replace("_", "-")
            assert re.search(rf"^ +{name}[= ]", out, re.M), name
    assert max(len(line) for line in out.splitlines()) <= 80


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_the_clock_options_are_listed_by_the_host_alone(lang: str) -> None:
    """A joiner plays by the host's clock and a resumed seat by its journal's: their help does
    not offer a clock, though they still take one (a script may start every seat alike)."""
    clock = ("--turn-timeout", "--step-timeout", "--grace")
    for command, listed in (("host", True), ("join", False), ("resume", False)):
        out = CliRunner().invoke(
            main, ["--lang", lang, command, "--help"], terminal_width=80, env={"P2PCARDS_LANG": None}
        ).output  # (the group's --lang sets P2PCARDS_LANG: put back after the command)
        for option in clock:
            assert (re.search(rf"^ +{option} ", out, re.M) is not None) == listed, (command, option)
    taken = CliRunner().invoke(main, ["join", "--turn-timeout", "5", "--grace", "3", "::1:49070"])
    assert taken.exit_code == 2 and "No such option" not in taken.output
    assert "[::1]:49070" in taken.output


# ---------------------------------------------------------------------------
# 6. French and Italian, and one wording for a kept card


def test_italian_says_tra_te_after_a_preposition() -> None:
    nines = play("--offline", "--seed", "9", "--lang", "it", input="esci\n").output
    neuf = play("--game", "neuf", "--offline", "--seed", "8", "--lang", "it", input="esci\n").output
    net = play("--seed", "32", "--lang", "it", input="esci\n").output
    assert "tra te e Alice" in nines and "tra te e Bob" in neuf and "tra te e Carol" in net
    assert not re.search(r"\b(tra|da|di|a) tu\b", nines + neuf + net)


@pytest.mark.parametrize(
    ("lang", "bot", "words"),
    [("fr", "heuristic", "(bots heuristiques)"), ("fr", "random", "(bots au hasard)"),
     ("it", "heuristic", "(bot euristici)"), ("it", "random", "(bot casuali)"),
     ("en", "random", "(random bots)"), ("fr", "expert", "(bots experts)"),
     ("it", "expert:0.05", "(bot esperti)")],
)  # fmt: skip
def test_the_bots_are_named_in_the_players_language(lang: str, bot: str, words: str) -> None:
    for game in ("nines", "neuf"):
        args = ["--game", game, "--offline", "--seed", "1", "--bot", bot, "--lang", lang]
        out = play(*args, input="q\n").output
        assert words in out.splitlines()[0], out.splitlines()[0]


@pytest.mark.parametrize(
    ("lang", "one"), [("en", "(expert bot)"), ("fr", "(bot expert)"), ("it", "(bot esperto)")]
)
def test_a_single_bot_is_named_in_the_singular(lang: str, one: str) -> None:
    args = ["--offline", "--seed", "1", "--bot", "expert:0.05", "-n", "2", "--lang", lang]
    out = play(*args, input="q\n").output
    assert one in out.splitlines()[0], out.splitlines()[0]


def test_the_french_help_table_keeps_its_columns_at_80() -> None:
    out = play("--offline", "--seed", "1", "--lang", "fr", input="aide\nq\n", env={"COLUMNS": "80"}).output
    table = out.split("Que taper\n", 1)[1].split("\nCartes", 1)[0].split("\n  Cartes", 1)[0].splitlines()
    rows = [line for line in table if re.match(r"  \S", line)]
    assert len(rows) == 7 and any(row.startswith("  pioche (d)") for row in rows)
    starts = {len(row) - len(row[2:].split("  ", 1)[1].lstrip()) for row in rows}
    assert len(starts) == 1, table  # every meaning in one column, none pushed out by its label
    assert max(len(line) for line in out.splitlines() if not line.startswith("  /")) <= 79


@pytest.mark.parametrize("offline", [True, False])
def test_a_kept_card_is_told_the_same_way_offline_and_over_the_network(offline: bool) -> None:
    mode = ["--offline"] if offline else []
    human = play(*mode, "--seed", "5", "--rule", "hands=1", "--lang", "en", input="1\n" * 300).output
    kept = re.findall(r"^   You drew (\S+) and kept it$", human, re.M)
    assert kept, human
    for card in kept:  # told once, not also by the prompt before the log
        assert human.count(f"You drew {card}") == 1, card
    watched = play(*mode, "--watch", "--seed", "5", "--rule", "hands=2", "--lang", "en").output
    assert " drew a card and kept it\n" in watched
    lines = watched.splitlines()
    for i, line in enumerate(lines):  # a draw told alone is followed by its player's play
        found = re.fullmatch(r"   (\w+) drew a card", line)
        if found:
            assert lines[i + 1].startswith(f"   {found.group(1)} played "), lines[i : i + 2]


# ---------------------------------------------------------------------------
# 7. The setup scripts

STAND_IN = r"""#!/usr/bin/env bash
# A stand-in Python: -m venv makes a venv of stand-ins, -m pip logs what it installs.
here="$(cd "$(dirname "$0")" && pwd)"
case "$1 $2" in
    "-c "*) exit 0 ;;
    "-m venv") mkdir -p "$3/bin" && cp "$0" "$3/bin/python" && exit 0 ;;
    "-m pip")
        echo "pip ${*: -1}" >> "$LOG"
        printf '#!/bin/sh\necho "p2pcards $*" >> "$LOG"\n' > "$here/p2pcards"
        chmod +x "$here/p2pcards"
        case "$*" in *"[test]"*)
            printf '#!/bin/sh\necho "ruff $*" >> "$LOG"\n' > "$here/ruff"
            printf '#!/bin/sh\necho mypy "$@" >> "$LOG"\n' > "$here/mypy"
            chmod +x "$here/ruff" "$here/mypy" ;;
        esac
        exit 0 ;;
    "-m pytest") echo "pytest ${*:3}" >> "$LOG"; exit 0 ;;
esac
exit 1
"""


def test_play_installs_what_playing_needs_and_test_adds_the_test_tools(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "scripts").mkdir(parents=True)
    for name in ("_venv.sh", "play", "test"):
        shutil.copy2(ROOT / "scripts" / name, repo / "scripts" / name)
    shutil.copy2(ROOT / "pyproject.toml", repo / "pyproject.toml")
    python = tmp_path / "python-stand-in"
    python.write_text(STAND_IN)
    python.chmod(0o755)
    log = tmp_path / "log"
    env = {"PATH": "/usr/bin:/bin", "PYTHON": str(python), "LOG": str(log)}

    def run(script: str, *args: str) -> list[str]:
        before = log.read_text().splitlines() if log.exists() else []
        command = [str(repo / "scripts" / script), *args]
        proc = subprocess.run(command, capture_output=True, text=True, env=env, timeout=60)
        assert proc.returncode == 0, proc.stderr
        return log.read_text().splitlines()[len(before) :]

    assert run("play", "--watch") == [f"pip {repo}", "p2pcards play --watch"]  # no test tools
    assert run("play") == ["p2pcards play"]  # set up once
    lint = ["ruff check p2pcards tests scripts", "mypy"]  # mypy's files are in pyproject.toml
    tests = [f"pip {repo}[test]", *lint]
    assert run("test", "-q") == [*tests, "pytest -n auto -q"]
    assert run("test") == [*lint, "pytest -n auto"]
    assert run("play") == ["p2pcards play"]
    env["P2PCARDS_TEST_WORKERS"] = "0"  # every test in one process
    assert run("test", "-x") == [*lint, "pytest -n 0 -x"]
    del env["P2PCARDS_TEST_WORKERS"]
    with (repo / "pyproject.toml").open("a") as f:  # a changed pyproject refreshes each set in turn
        f.write("\n# changed\n")
    assert run("play") == [f"pip {repo}", "p2pcards play"]
    assert run("test") == [*tests, "pytest -n auto"]
    shutil.rmtree(repo / ".venv")  # from scratch, the tests first: playing needs nothing more
    assert run("test") == [*tests, "pytest -n auto"]
    assert run("play") == ["p2pcards play"]
    stamps = repo / ".venv"  # a venv set up by the scripts before, with everything in it
    with contextlib.suppress(FileNotFoundError):
        (stamps / ".installed-runtime").rename(stamps / ".installed-from")
        (stamps / ".installed-test").unlink()
    assert run("test") == [*lint, "pytest -n auto"]
    assert run("play") == ["p2pcards play"]


# -- notices from the lobby and the links, in the player's language ------------------------


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "Bob (seat 2) lost connection: reconnecting (0:45 left)"),
        ("fr", "Bob (place 2) a perdu la connexion : reconnexion (0:45 restantes)"),
        ("it", "Bob (posto 2) ha perso la connessione: riconnessione in corso (restano 0:45)"),
    ],
)
def test_a_notice_from_below_the_ui_is_said_in_the_players_language(lang: str, said: str) -> None:
    from p2pcards.protocol.notice import Notice
    from p2pcards.ui.i18n import Translator
    from p2pcards.ui.netgame import NetworkUI
    from p2pcards.ui.prompt import Console
    from p2pcards.ui.render import Style

    out: list[str] = []
    console = Console(tr=Translator(lang), style=Style(), read=lambda p: "", write=out.append)
    ui = NetworkUI(console, human=False)
    notice = Notice("notice_reconnecting", name="Bob", seat=2, left="0:45")
    assert notice == "Bob (seat 2) lost connection: reconnecting (0:45 left)"  # its English, as text
    ui.info(notice)
    ui.info(Notice("notice_seated", game="Nines", players=4))
    assert out[0].strip() == said
    assert out[1].strip() == Translator(lang)("notice_seated", game="Nines", players=4)
    assert ("4" in out[1]) and (lang == "en") == ("seated at a table of Nines" in out[1])


def test_a_resuming_seat_is_told_it_links_again_not_that_the_others_left() -> None:
    """On resume every link starts down: that is this seat's absence. Once a peer is linked
    again, a later break of that link is said as any other."""
    from types import SimpleNamespace

    from p2pcards.net.node import link_notice

    said: list[str] = []
    cfg = SimpleNamespace(ui=SimpleNamespace(info=said.append, peer_link=lambda *a: None))
    roster = [SimpleNamespace(name=n, key=n.encode()) for n in ("Hal", "Jo", "Kim")]
    info = SimpleNamespace(roster=roster, seat=2)
    resumed = link_notice(cfg, info, resuming=True)  # type: ignore[arg-type]
    resumed(0, "lost", 120)
    resumed(0, "back", 1)
    resumed(0, "lost", 90)
    resumed(1, "lost", 120)
    assert said == [
        "linking again with Hal (seat 0) (2:00 left)",
        "linked again with Hal (seat 0)",
        "Hal (seat 0) lost connection: reconnecting (1:30 left)",
        "linking again with Jo (seat 1) (2:00 left)",
    ]
    said.clear()
    playing = link_notice(cfg, info)  # type: ignore[arg-type]
    playing(1, "lost", 60)
    assert said == ["Jo (seat 1) lost connection: reconnecting (1:00 left)"]


@pytest.mark.parametrize("width", range(22, 90, 3))
def test_french_punctuation_never_starts_a_folded_line(width: int) -> None:
    """A French line folds before the word that ``:``, ``;``, ``?``, ``!`` and ``»`` follow,
    and after ``«``'s word, never between them; every word is kept, in order."""
    from p2pcards.ui.render import wrap

    texts = [
        "Interdit : vous avez du cœur, et c'est cœur qui est demandé : il faut fournir [règle : fournir]",
        "Sa note sur la fin de la partie : « aborted: quit » ; départ signé de sa main : « quit » !",
        "Les chiffres diffèrent : quelqu'un est au milieu. Vous quittez la partie (signé). Voulez-vous ?",
    ]
    for text in texts:
        lines = wrap(text, width).split("\n")
        assert all(visible_len(line) <= width or " " not in line.strip() for line in lines), lines
        assert not any(re.match(r"\s*[;:!?»]", line) for line in lines[1:]), lines
        assert not any(line.rstrip().endswith("«") for line in lines), lines
        assert " ".join(" ".join(lines).split()) == " ".join(text.split())


def test_a_folded_row_keeps_its_columns() -> None:
    """A table's row too wide for the terminal folds at its end: the columns before the fold
    keep their padding, so the rows above and below still line up with it."""
    from p2pcards.ui.render import wrap

    rows = [
        " ▶ tu      0 prese   totale 9",
        "   Random  0 prese   totale 9   (mazziere, ha preso il morto)",
        "   Paolo   0 prese   totale 9   (ha preso il morto)",
    ]
    lines = wrap("\n".join(rows), 55).split("\n")
    assert lines[0] == rows[0] and lines[-1] == rows[2], lines
    assert lines[1].startswith("   Random  0 prese   totale 9   (mazziere,"), lines
    assert len({line.index("totale") for line in (lines[0], lines[1], lines[-1])}) == 1, lines
    assert all(visible_len(line) <= 55 for line in lines), lines


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
@pytest.mark.parametrize(
    ("option", "value", "least"),
    [("--turn-timeout", "1", 15), ("--step-timeout", "2", 10), ("--grace", "9.5", 10)],
)
def test_a_host_cannot_set_a_clock_too_short_to_play_by(
    option: str, value: str, least: int, lang: str
) -> None:
    """The command line refuses a clock under the least a person plays by (a turn of 15 s, the
    other steps and the grace 10 s), saying why and how long it may be, in the player's
    language; the wire still takes 1 s to a day from a host (protocol.md), and so does the
    hidden --short-clocks of the tests."""
    from p2pcards.cli.network import CLOCK_MINIMUMS, MAX_CLOCK
    from p2pcards.net.pacing import QUICK
    from p2pcards.say import Number
    from p2pcards.ui.i18n import Translator

    tr = Translator(lang)
    name = option[2:].replace("-", "_")
    assert CLOCK_MINIMUMS[name] == least and CLOCK_MINIMUMS["step_timeout"] == QUICK
    args = ["host", "--lang", lang, option, value, "--bind", "x" * 64]  # (no DNS name: refused, no network)
    result = CliRunner().invoke(main, args, env={"P2PCARDS_LANG": None})
    assert result.exit_code == 2, result.output
    most = Number(MAX_CLOCK, ",d")
    said = tr(f"clock_too_short_{name}", seconds=Number(float(value)), least=least, most=most)
    shown = " ".join(result.stderr.split())
    assert " ".join(tr("click_invalid_value_for", name=f"'{option}'", message=said).split()) in shown, shown
    helped = CliRunner().invoke(main, ["host", "--help"], env={"COLUMNS": "200"}).output
    assert f"{least}<=x<={MAX_CLOCK}]" in helped.split(option, 1)[1].split("\n  -", 1)[0], helped
    for allowed in ([option, str(least)], [option, value, "--short-clocks"]):
        args = ["host", "--lang", lang, *allowed, "--bind", "x" * 64]
        result = CliRunner().invoke(main, args, env={"P2PCARDS_LANG": None})
        assert result.exit_code == 2 and option not in result.stderr, result.stderr  # (the address's error)


@pytest.mark.parametrize(
    ("clock", "warned"),
    [
        (["--step-timeout", "10"], "10"),
        (["--turn-timeout", "20"], "20"),
        ([], None),
        (["--step-timeout", "30"], None),
    ],
)
def test_a_host_is_told_what_a_short_clock_does_to_a_dropped_connection(
    clock: list[str], warned: str | None
) -> None:
    """Under 30 s (the time a dead connection takes to show as one where a node cannot ask its
    system, and a keep-alive), a Wi-Fi dropout longer than the clock may look like a frozen
    player: the host is told so before the table opens (here the table does not open: its
    address is refused)."""
    args = ["host", *clock, "--bind", "x" * 64]  # (no DNS name: refused before any network)
    result = CliRunner().invoke(main, args, env={"P2PCARDS_LANG": "en"})
    assert result.exit_code == 2, result.output
    said = " ".join(result.stderr.split())
    if warned is None:
        assert "looks like a frozen player" not in said, said
    else:
        assert f"(A clock of {warned} s. A node on Linux tells a dead connection" in said, said
        assert "a clock of 30 s or more leaves dropouts more time" in said, said
