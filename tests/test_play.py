"""`p2pcards play`: watched matches, human games driven by piped input, records, languages.

Most tests go through click's CliRunner (fast, in process); a few run the real
installed command in a subprocess, with piped stdin and under a pseudo-terminal.
"""

from __future__ import annotations

import functools
import itertools
import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from test_record import replay, validate_record

from p2pcards.cards import parse_card
from p2pcards.cli import main
from p2pcards.errors import CardParseError
from p2pcards.games.nines.prompt import Chosen, build_menu, parse_answer
from p2pcards.games.nines.rules import Draw, Keep, NinesRules, Play, PlayNines
from p2pcards.ui.i18n import LANGS, Translator, detect_lang, parse_suit_word
from p2pcards.ui.local import PlayOptions, play_local
from p2pcards.ui.prompt import Attempt, Console, Problem
from p2pcards.ui.render import WIDTH, Style, visible_len

EN = ["--lang", "en"]
EXE = Path(sys.executable).with_name("p2pcards")


def run(args: list[str], input: str = "", env: dict[str, str | None] | None = None):
    result = CliRunner().invoke(main, ["play", *args], input=input, env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def totals_row(output: str) -> list[int]:
    """The numbers of the last Total row printed."""
    rows = [line for line in output.splitlines() if line.startswith(("Total", "Totale"))]
    return [int(x) for x in rows[-1].split()[1:]]


# ---------------------------------------------------------------------------
# Watching bots


def test_watched_match_completes_with_final_scores_that_match_the_record(tmp_path: Path) -> None:
    rec = tmp_path / "match.json"
    result = run(["--watch", "--bot", "random", "--seed", "4", "--record", str(rec), *EN])
    assert result.exit_code == 0
    out = result.output
    assert "Final scores" in out
    doc = json.loads(rec.read_text(encoding="utf-8"))
    validate_record(doc)
    replay(doc)
    assert totals_row(out) == doc["result"]["totals"]
    winners = [doc["players"][s]["name"] for s in doc["result"]["winners"]]
    verdict = next(line for line in out.splitlines() if " wins with " in line or " share the win " in line)
    assert verdict.startswith(" and ".join(winners))
    assert "Record written to" in out
    for h in doc["hands"]:
        assert f"Hand {h['number']} " in out
    assert max(doc["result"]["totals"]) >= 100


def test_same_seed_same_game_and_another_seed_another_game() -> None:
    a = run(["--watch", "--bot", "random", "--seed", "21", *EN]).output
    b = run(["--watch", "--bot", "random", "--seed", "21", *EN]).output
    c = run(["--watch", "--bot", "random", "--seed", "22", *EN]).output
    # The second game of a seed is saved beside the first (NAME-2.p2pt), never over it.
    assert _unsaved(a) == _unsaved(b)
    assert _unsaved(a) != _unsaved(c)


def _unsaved(output: str) -> str:
    return re.sub(r"\S+\.p2pt", "FILE", output)


def test_heuristic_bots_are_the_default() -> None:
    out = run(["--watch", "--seed", "5", "--rule", "hands=1", *EN]).output
    assert "(heuristic bots)" in out and "Final scores" in out


def test_every_rule_option_is_reachable_from_the_command_line(tmp_path: Path) -> None:
    rec = tmp_path / "r.json"
    opts = ["hands=2", "tie=playoff", "draw-until-playable", "action-cards", "double-nines"]
    opts += ["stacking-nines", "hard-nines", "no-nine-out", "target=150"]
    args = ["--watch", "--bot", "random", "--seed", "3", "--players", "5", "--record", str(rec), *EN]
    for o in opts:
        args += ["--rule", o]
    result = run(args)
    assert result.exit_code == 0
    rules = json.loads(rec.read_text(encoding="utf-8"))["rules"]
    assert rules == NinesRules.parse(opts).to_dict()
    assert all(v is True for k, v in rules.items() if k not in ("target", "hands", "tie"))
    assert (rules["target"], rules["hands"], rules["tie"]) == (150, 2, "playoff")
    # The intro lists each variant in force with what it does, one to a line.
    found = re.search(r"^Variants:\n((?:  .*\n)+)", result.output, re.M)
    assert found is not None
    variants = found.group(1)
    for name in ("draw-until-playable", "action-cards", "double-nines", "stacking-nines", "hard-nines"):
        assert re.search(rf"^  {name}: \w", variants, re.M), name
    assert "\n  tie=playoff: " in variants


def test_lines_fit_in_80_columns() -> None:
    out = run(["--watch", "--bot", "random", "--seed", "8", "--players", "6", *EN]).output
    out += run(["--bot", "random", "--seed", "8", "--players", "6", *EN], input="help\n7x\n1\n").output
    for lang in ("fr", "it"):
        out += run(["--bot", "random", "--seed", "8", "--lang", lang], input="aiuto\n7x\n1\n").output
    # A file path is printed whole on a line of its own (it cannot be wrapped).
    lines = [line for line in out.splitlines() if not line.startswith("  /")]
    assert max(visible_len(line) for line in lines) <= WIDTH + 1


# ---------------------------------------------------------------------------
# A human at the keyboard (piped input)


def test_piped_human_game_answers_every_input_and_quits_cleanly() -> None:
    inputs = ["7x", "help", "score", "99", "1", "h", "1", "coeur", "1", "d", "k", "9s zz", "1", "quit", "y"]
    result = run(["--bot", "random", "--seed", "3", *EN], input="\n".join(inputs) + "\n")
    assert result.exit_code == 0
    out = result.output
    assert "Traceback" not in out
    assert "7x is not a card - type " in out
    assert "How to play Nines" in out
    assert "── Scores " in out
    assert "There is no move 99" in out
    assert "Game abandoned." in out.rstrip().splitlines()[-4:]
    # Each input is echoed after its prompt, and is answered: by some text, or by a new question.
    lines = out.splitlines()
    asked = [i for i, line in enumerate(lines) if " > " in line]
    echoed = [lines[i].split(" > ", 1)[1] for i in asked]
    assert echoed == inputs
    for k, (i, j) in enumerate(itertools.pairwise(asked)):
        between = "".join(lines[i + 1 : j]).strip()
        new_question = lines[j].split(" > ")[0] != lines[i].split(" > ")[0]
        assert between or new_question, f"no answer to {inputs[k]!r}"


def test_end_of_input_is_a_clean_quit() -> None:
    result = run(["--bot", "random", "--seed", "3", *EN], input="")
    assert result.exit_code == 0
    assert "Game abandoned." in result.output and "Traceback" not in result.output


class Driver:
    """Answers prompts like a (clumsy) player: mistakes, then valid moves, until the match ends."""

    def __init__(self, moves: list[str], out: list[str]) -> None:
        self.moves: Iterator[str] = iter(moves * 1000)
        self.suits = iter(["zz", "h", "♠", "coeur", "fiori", "Trèfle", "d", "picche", "carreau"] * 1000)
        self.answers = iter(["maybe", "y", "n", "o", "s", "non"] * 1000)
        self.out = out
        self.prompts: list[str] = []

    def read(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if len(self.prompts) > 20_000:
            raise EOFError
        if "Which suit" in prompt:
            return next(self.suits)
        if "Play it?" in prompt:
            return next(self.answers)
        if "Press Enter" in prompt:
            return ""
        return next(self.moves)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_clumsy_human_plays_a_whole_match_without_a_crash(seed: int) -> None:
    out: list[str] = []
    driver = Driver(["7x", "score", "d", "k", "2", "pass", "9h 9s", "1"], out)
    opts = PlayOptions(players=3, bot="random", seed=seed, rules=NinesRules(target=60), lang="en")
    status = play_local(opts, read=driver.read, write=out.append, style=Style())
    text = "\n".join(out)
    assert status == 0
    assert "Final scores" in text and "Game abandoned" not in text
    assert "[rule: " in text  # refusals name their rule
    assert "is not a suit" in text  # the suit typo was answered
    assert any("Which suit" in p for p in driver.prompts)


@pytest.mark.parametrize(
    "variant",
    [
        ["action-cards"],
        ["double-nines", "stacking-nines", "action-cards"],
        ["draw-until-playable", "no-nine-out"],
        ["tie=playoff", "hard-nines"],
    ],
)
def test_a_clumsy_human_plays_every_variant_to_the_end(variant: list[str]) -> None:
    out: list[str] = []
    driver = Driver(["zz", "k", "d", "pass", "9h 9s c", "2", "1"], out)
    rules = NinesRules.parse([*variant, "hands=2"])
    opts = PlayOptions(players=5, bot="random", seed=7, rules=rules, lang="en")
    assert play_local(opts, read=driver.read, write=out.append, style=Style()) == 0
    text = "\n".join(out)
    assert "Final scores" in text and "Game abandoned" not in text
    assert "zz is not a card" in text


def test_the_dealer_declares_the_suit_when_the_up_card_is_a_nine() -> None:
    for seed in range(400):
        out: list[str] = []
        asked: list[str] = []

        def read(prompt: str, asked: list[str] = asked) -> str:
            asked.append(prompt)
            return ["zz", "2"][len(asked) - 1] if "Which suit" in prompt else "quit"

        opts = PlayOptions(bot="random", seed=seed, lang="en", offline=True)
        play_local(opts, read=read, write=out.append, style=Style())
        if "The up card is a 9 and you deal: name the active suit." in out:
            break
    else:
        raise AssertionError("no seed dealt the human a 9 as up card")
    text = "\n".join(out)
    assert asked[:2] == ["Which suit? 1 S  2 H  3 D  4 C (or S H D C, hearts...) > "] * 2
    assert "zz is not a suit" in text
    assert "You declared H (hearts) (the up card is a 9)" in text


def test_a_record_that_cannot_be_written_is_a_one_line_error(tmp_path: Path) -> None:
    rec = tmp_path / "missing-dir" / "r.json"
    out: list[str] = []
    opts = PlayOptions(watch=True, bot="random", seed=1, lang="en", record=rec, rules=NinesRules(hands=1))
    assert play_local(opts, write=out.append, style=Style()) == 1
    said = " ".join(" ".join(out).split())  # long paths are folded onto the next line
    assert f"Could not write the record to {rec}: No such file or directory" in said


def test_a_transcript_that_cannot_be_saved_is_a_one_line_error_and_status_1(tmp_path: Path) -> None:
    """--transcript where no file can be written (a file stands where its folder should be):
    the match is played, then the error is said and the status is 1, never a silent loss."""
    (tmp_path / "taken").write_text("not a folder")
    path = tmp_path / "taken" / "t.p2pt"
    out: list[str] = []
    rules = NinesRules(hands=1)
    opts = PlayOptions(watch=True, bot="random", seed=1, lang="en", transcript=path, rules=rules)
    assert play_local(opts, write=out.append, style=Style()) == 1
    said = " ".join(" ".join(out).split())
    assert f"Error: could not save the transcript to {path}: " in said, said
    assert "Signed transcript" not in said


def _table(text: str) -> tuple[list[str], str, str]:
    """(hand, top card, active suit) from the last table printed (ASCII style)."""
    hand = re.findall(r"Your hand  (.*)", text)[-1].split()
    top, suit = re.findall(r"Top (\S+)\s+Suit (\S)", text)[-1]
    return hand, top, suit


def test_an_illegal_card_is_refused_with_the_rule_named() -> None:
    out: list[str] = []
    tried: list[tuple[str, str]] = []

    def read(prompt: str) -> str:
        text = "\n".join(out)
        if len(tried) >= 2:
            return "quit"
        if "Which suit" in prompt:
            return "h"
        if "Your move" not in prompt:
            return "y" if "Play it" in prompt else ""
        hand, top, suit = _table(text)
        top_card = parse_card(top)
        illegal = [
            c
            for c in hand
            if not parse_card(c).is_nine
            and parse_card(c).suit != suit
            and parse_card(c).rank != top_card.rank
        ]
        if illegal and not tried:
            tried.append(("match-suit-or-rank", illegal[0]))
            return illegal[0].lower()
        if tried:
            absent = next(c for c in ("KS", "QH", "JD", "10C", "2S") if c not in hand and c != top)
            tried.append(("card-held", absent))
            return absent
        return "1"

    play_local(PlayOptions(bot="random", seed=3, lang="en"), read=read, write=out.append, style=Style())
    text = "\n".join(out)
    assert len(tried) == 2
    (rule1, card1), (rule2, card2) = tried
    assert f"Not allowed: {card1} matches neither the active suit" in text
    assert f"[rule: {rule1}]" in text
    assert f"Not allowed: you do not hold {card2} [rule: {rule2}]" in text


def test_french_and_italian_tables() -> None:
    fr = run(["--bot", "random", "--seed", "3", "--lang", "fr"], input="1\nquitter\n").output
    assert "Manche 1" in fr and "Votre main" in fr and "Coups permis" in fr and "Partie abandonnée." in fr
    it = run(["--bot", "random", "--seed", "3", "--lang", "it"], input="1\nesci\n").output
    assert (
        "Mano 1" in it and "La tua mano" in it and "Mosse consentite" in it and "Partita abbandonata." in it
    )
    fr_watch = run(["--watch", "--bot", "random", "--seed", "3", "--lang", "fr"]).output
    assert "Scores finaux" in fr_watch and ("gagne avec" in fr_watch or "se partagent" in fr_watch)
    it_watch = run(["--watch", "--bot", "random", "--seed", "3", "--lang", "it"]).output
    assert "Punteggi finali" in it_watch and ("vince con" in it_watch or "si dividono" in it_watch)


def test_language_comes_from_the_environment_when_not_given() -> None:
    base = {"LC_ALL": None, "LC_MESSAGES": None, "P2PCARDS_LANG": None}
    it = run(["--bot", "random", "--seed", "3"], input="q\n", env={**base, "LANG": "it_IT.UTF-8"}).output
    assert "Partita abbandonata." in it
    fr = run(["--bot", "random", "--seed", "3"], input="q\n", env={**base, "LC_ALL": "fr_CH.UTF-8"}).output
    assert "Partie abandonnée." in fr
    de = run(["--bot", "random", "--seed", "3"], input="q\n", env={**base, "LANG": "de_DE.UTF-8"}).output
    assert "Game abandoned." in de
    assert detect_lang({"LANG": "C"}) == "en" and detect_lang({}) == "en"
    assert detect_lang({"LC_ALL": "it_IT", "LANG": "fr_FR"}) == "it"


# ---------------------------------------------------------------------------
# Records from the command line


def test_record_after_quitting_holds_the_finished_hands_only(tmp_path: Path) -> None:
    rec = tmp_path / "part.json"
    out: list[str] = []
    seen_enter = []

    def read(prompt: str) -> str:  # play the first hand, quit when asked to start the second
        if "Quit the game?" in prompt:
            return "y"
        if "Press Enter" in prompt:
            seen_enter.append(prompt)
            return "quit"
        return "h" if "Which suit" in prompt else "1"

    opts = PlayOptions(bot="random", seed=6, lang="en", record=rec)
    assert play_local(opts, read=read, write=out.append, style=Style()) == 0
    doc = json.loads(rec.read_text(encoding="utf-8"))
    validate_record(doc)
    replay(doc)
    assert seen_enter and len(doc["hands"]) == 1
    assert doc["result"] == {"winners": [], "totals": doc["hands"][0]["totals"], "finished": False}
    assert doc["players"][0] == {"seat": 0, "name": "you", "key": ""}
    assert any("Record of 1 finished hand written to" in line for line in out)


def test_record_from_a_piped_human_game(tmp_path: Path) -> None:
    rec = tmp_path / "human.json"
    result = run(
        ["--bot", "random", "--seed", "9", "--name", "Zoé", "--record", str(rec), *EN], input="1\n" * 30
    )
    assert result.exit_code == 0
    doc = json.loads(rec.read_text(encoding="utf-8"))
    validate_record(doc)
    assert doc["players"][0]["name"] == "Zoé"
    assert [p["name"] for p in doc["players"]][1:] == ["Alice", "Bob", "Carol"]


# ---------------------------------------------------------------------------
# Bad options


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "9"], "2 to 6 players"),
        (["--rule", "bogus"], "unknown rule 'bogus'"),
        (["--rule", "target=abc"], "whole number"),
        (["--rule", "stacking-nines"], "needs double-nines"),
        (["--lang", "de"], "unknown language"),
        (["--bot", "clever"], "unknown bot"),
    ],
)
def test_bad_options_are_usage_errors(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["play", *args], input="")
    assert result.exit_code == 2
    assert result.output.startswith("Usage: ") and "Error: Invalid value for '" in result.output
    assert message in result.output


@pytest.mark.parametrize(
    ("command", "args", "lang", "option", "message"),
    [
        ("play", ["--bot", "smart"], "fr", "'-b' / '--bot'", "bot inconnu 'smart' ; choisissez parmi"),
        ("play", ["--name", "  "], "it", "'--name'", "un nome non può essere vuoto"),
        ("simulate", ["--bots", "expert:abc"], "fr", "'--bots'", "le budget d'expert 'abc' n'est ni des"),
        ("join", ["127.0.0.1:9", "--code", "2-a-b", "--bot", "expert:99"], "it", "'-b' / '--bot'",
         "un esperto pensa più di 0 e al massimo 60 secondi a mossa"),
        ("join", ["127.0.0.1:9", "--code", "2-a-b", "--name", "a\u202eb"], "fr", "'--name'",
         "un nom ne peut contenir ni caractères de contrôle"),
    ],
)  # fmt: skip
def test_a_refused_bot_or_name_is_said_in_the_players_language(
    command: str, args: list[str], lang: str, option: str, message: str
) -> None:
    result = CliRunner().invoke(main, [command, *args, "--lang", lang], input="", env={"P2PCARDS_LANG": None})
    assert result.exit_code == 2, result.output
    assert option in result.output and message in result.output, result.output


@pytest.mark.parametrize(
    ("command", "args", "lang", "message"),
    [
        ("play", ["--rule", "target=5000"], "fr", "la règle target va de 1 à 1000, pas 5000"),
        ("play", ["--rule", "hands=0"], "it", "la regola hands va da 1 a 100, non 0"),
        ("play", ["--rule", "bogus"], "fr", "règle inconnue 'bogus' ; règles connues : target, hands"),
        ("host", ["--rule", "tie=coin"], "it", "la regola tie vale share o playoff, non 'coin'"),
        ("simulate", ["--game", "neuf", "--rule", "start=31"], "fr", "la règle start va de 1 à 30, pas 31"),
        ("play", ["--rule", "target=5000"], "en", "rule target must be from 1 to 1000, not 5000"),
    ],
)
def test_a_refused_rule_is_said_in_the_players_language(
    command: str, args: list[str], lang: str, message: str
) -> None:
    result = CliRunner().invoke(main, [command, *args, "--lang", lang], input="", env={"P2PCARDS_LANG": None})
    assert result.exit_code == 2
    assert message in result.output


# ---------------------------------------------------------------------------
# Parsing input


def test_suit_names_in_three_languages() -> None:
    for words, suit in [
        (["S", "s", "♠", "spades", "Pique", "picche", "pi", "sp"], "S"),
        (["H", "♥", "hearts", "cœur", "coeur", "Cœurs", "cuori", "cuore", "he"], "H"),
        (["D", "♦", "diamonds", "carreau", "carreaux", "quadri", "ca", "qu"], "D"),
        (["C", "c", "♣", "clubs", "trèfle", "trefle", "fiori", "tr", "fi"], "C"),
    ]:
        for w in words:
            assert parse_suit_word(w) == suit, w
    for bad in ["x", "", "p", "cuz", "9", "hs"]:
        with pytest.raises(CardParseError):
            parse_suit_word(bad)


def _legal(*texts: str, seat: int = 0) -> list:
    out: list = []
    for t in texts:
        c = parse_card(t)
        out += [Play(seat=seat, card=c, suit=s) for s in "SHDC"] if c.is_nine else [Play(seat=seat, card=c)]
    return out


def test_enter_alone_with_one_card_to_play_says_what_to_type() -> None:
    """Enter alone with one card to play is no card typed: it is told what to type, in the
    player's language, not that '' is not a card."""
    hand = [parse_card(t) for t in ("KS", "AH", "QC")]
    menu = build_menu(_legal("KS"))
    for lang, word in (("en", "Type 1"), ("fr", "Tapez 1"), ("it", "Scrivi 1")):
        got = parse_answer("  ", menu, seat=0, hand=hand, tr=Translator(lang))
        assert isinstance(got, Problem), got
        assert got.message.startswith(word) and "KS" in got.message and "''" not in got.message, got


def test_the_menu_groups_the_suits_of_a_nine_and_follows_the_hand_order() -> None:
    menu = build_menu(_legal("9H", "KC", "3S", "QS"))
    assert [o.cards[0].text() for o in menu] == ["3S", "QS", "KC", "9H"]
    assert menu[3].kind == "nine" and len(menu[3].actions) == 4


def test_parse_answer_accepts_numbers_cards_and_suits() -> None:
    tr = Translator("en")
    hand = [parse_card(t) for t in ("10H", "9S", "KC", "4D")]
    menu = build_menu(_legal("10H", "9S"))
    parse = lambda text: parse_answer(text, menu, seat=0, hand=hand, tr=tr)  # noqa: E731
    for text in ("1", "10h", "TH", "th", "10♥"):
        got = parse(text)
        assert isinstance(got, Chosen) and got.option.with_suit(None) == Play(seat=0, card=parse_card("10H"))
    for text, suit in (("9s h", "H"), ("9♠ ♣", "C"), ("9 spades hearts", "H"), ("9S pique", "S")):
        got = parse(text)
        assert isinstance(got, Chosen) and got.option.with_suit(got.suit) == Play(
            seat=0, card=parse_card("9S"), suit=suit
        )
    # A number 2-10 and a suit is a card, as "Q pique" is: never move 2 (the 9) naming hearts.
    assert parse("2 cuori") == Attempt(action=Play(seat=0, card=parse_card("2H")))  # not held
    got = parse("10 hearts")
    assert isinstance(got, Chosen) and got.option.with_suit(None) == Play(seat=0, card=parse_card("10H"))
    got = parse("9s")
    assert isinstance(got, Chosen) and got.suit is None and got.option.needs_suit
    assert parse("kc") == Attempt(
        action=Play(seat=0, card=parse_card("KC"))
    )  # held, illegal: engine says why
    assert parse("d") == Attempt(action=Draw(seat=0))
    assert parse("keep") == Attempt(action=Keep(seat=0))
    for text, hint in (
        ("7x", "7x is not a card - type a number 1-2 or a card like 10H"),
        ("5", "There is no move 5 - type a number 1-2"),
        ("", "Type the number of your move (1-2) or a card"),  # Enter alone
        ("10h q", "Only a 9 names a suit: just type 10H"),
        ("9s zz", "zz is not a suit - after a 9 name one with S, H, D or C"),  # (no "1-4" here)
    ):
        got = parse(text)
        assert isinstance(got, Problem) and got.message.startswith(hint), (text, got)


def test_a_card_may_be_typed_with_its_suit_named_in_any_language() -> None:
    hand = [parse_card(t) for t in ("10H", "9S", "QC", "4D")]
    menu = build_menu(_legal("10H", "9S", "QC"))
    for text, card in (
        ("10cuori", "10H"),
        ("10cœur", "10H"),
        ("Thearts", "10H"),
        ("Qtrèfle", "QC"),
        ("Q trèfle", "QC"),
        ("q ♣", "QC"),
        ("T cuori", "10H"),
    ):
        got = parse_answer(text, menu, seat=0, hand=hand, tr=Translator("it"))
        assert isinstance(got, Chosen) and got.option.with_suit(None) == Play(seat=0, card=parse_card(card))
    got = parse_answer("9picche quadri", menu, seat=0, hand=hand, tr=Translator("fr"))
    assert isinstance(got, Chosen) and got.option.with_suit(got.suit) == Play(
        seat=0, card=parse_card("9S"), suit="D"
    )
    got = parse_answer("4quadri", menu, seat=0, hand=hand, tr=Translator("it"))  # held, not legal
    assert got == Attempt(action=Play(seat=0, card=parse_card("4D")))
    nine = next(k for k, o in enumerate(menu, 1) if o.kind == "nine")
    got = parse_answer(f"{nine} cuori", menu, seat=0, hand=hand, tr=Translator("it"))  # the 9's number
    assert got == Attempt(action=Play(seat=0, card=parse_card(f"{nine}H")))  # read as a card, not held


def test_c_is_asked_again_in_french_and_italian_when_both_cards_are_held() -> None:
    """c is cœur and cuori to a French or Italian player, clubs in English: 7c in French or
    Italian is asked again (never a silent 7♣), whichever of 7♥ and 7♣ is in hand; in
    English it is 7♣.
    At the suit question, c alone is asked again; p, t (French), p, f, q (Italian) name
    pique, trèfle, picche, fiori and quadri (q is no quit there)."""
    hand = [parse_card(t) for t in ("7H", "7C", "9S", "KD")]
    menu = build_menu(_legal("7H", "7C", "9S"))
    for lang, hearts, clubs in (("fr", "cœur", "trèfle"), ("it", "cuori", "fiori")):
        tr = Translator(lang)
        for text in ("7c", "7C"):
            got = parse_answer(text, menu, seat=0, hand=hand, tr=tr)
            assert isinstance(got, Problem) and f"7 {hearts}" in got.message and f"7 {clubs}" in got.message
        got = parse_answer("9s c", menu, seat=0, hand=hand, tr=tr)
        assert isinstance(got, Problem), got  # at the move prompt: the whole move again, as
        assert f"9S {hearts}" in got.message and f"9S {clubs}" in got.message, got.message
    got = parse_answer("7c", menu, seat=0, hand=hand, tr=Translator("en"))
    assert isinstance(got, Chosen) and got.option.with_suit(None) == Play(seat=0, card=parse_card("7C"))
    alone = [parse_card(t) for t in ("7C", "9S", "KD")]  # no 7♥ in hand: 7♥ may be meant all the same
    got = parse_answer("7c", build_menu(_legal("7C", "9S")), seat=0, hand=alone, tr=Translator("fr"))
    assert isinstance(got, Problem) and "7 cœur" in got.message, got
    got = parse_answer("7 trèfle", build_menu(_legal("7C", "9S")), seat=0, hand=alone, tr=Translator("fr"))
    assert isinstance(got, Chosen) and got.option.with_suit(None) == Play(seat=0, card=parse_card("7C"))
    for lang, letter, suit in (("fr", "p", "S"), ("fr", "t", "C"), ("it", "f", "C"), ("it", "q", "D")):
        got = parse_answer(f"9s {letter}", menu, seat=0, hand=hand, tr=Translator(lang))
        assert isinstance(got, Chosen) and got.suit == suit, (lang, letter, got)
    for lang, answers, suit in (("it", ["c", "q"], "D"), ("fr", ["c", "t"], "C"), ("en", ["c"], "C")):
        out: list[str] = []
        read = functools.partial(lambda feed, _prompt: next(feed), iter(answers))
        console = Console(tr=Translator(lang), style=Style(), read=read, write=out.append, live=None)
        assert console.ask_suit() == suit, (lang, out)
        assert len(out) == len(answers) - 1  # one question back for each c in French and Italian


@pytest.mark.parametrize(
    "typed",
    ["score\x01", "\x1b[Ascore", "sc\u200bore", "  score\t", "\x07score\x1b[D"],
    ids=["ctrl-a", "arrow key", "zero-width space", "spaces and tab", "bell and arrow"],
)
def test_a_command_with_keys_that_do_not_print_is_still_the_command(typed: str) -> None:
    """What the person sees they typed is what counts: a stray Ctrl-A, an arrow key's escape
    or an invisible character does not turn ``score`` into a hint that it is no card."""
    out: list[str] = []
    answers = iter([typed, "2"])
    read = functools.partial(lambda feed, _prompt: next(feed), answers)
    console = Console(tr=Translator("en"), style=Style(), read=read, write=out.append, live=None)
    console.score_text = lambda: "the score table"
    assert console.ask("Your move") == "2"
    assert out == ["the score table"], out


def test_a_card_in_french_or_italian_letters_is_answered_with_the_notation() -> None:
    hand = [parse_card(t) for t in ("10S", "QC", "KD")]
    menu = build_menu(_legal("10S", "QC", "KD"))
    for lang, text, said in (
        ("it", "10p", "10p non è una carta - una carta si scrive con il valore in inglese (A, 2-10, J"),
        ("fr", "Vc", "Vc n'est pas une carte - une carte s'écrit avec sa hauteur en anglais (A, 2-10, J"),
        ("en", "kq", "kq is not a card - a card is written with its rank in English (A, 2-10, J, Q, K)"),
    ):
        got = parse_answer(text, menu, seat=0, hand=hand, tr=Translator(lang))
        assert isinstance(got, Problem) and got.message.startswith(said), got
    meant = {
        "10p": "10S",  # picche, pique
        "Qt": "QC",  # trèfle
        "kq": "KD",  # quadri
        "7f": "7C",  # fiori
        "ak": "AD",  # carreau
        "Vc": "JH",  # valet de cœur: with a French rank, c is cœur
        "Rp": "KS",  # roi de pique, re di picche
        "Dq": "QD",  # donna di quadri
        "Fcuori": "JH",  # fante di cuori
        "dh": "QH",
    }
    for text, card in meant.items():
        got = parse_answer(text, menu, seat=0, hand=hand, tr=Translator("en"))
        assert isinstance(got, Problem) and got.message.endswith(f": {card}"), (text, got)
    # Anything else keeps the usual hint (an unknown letter or word).
    for text in ("7x", "vx", "rien"):
        got = parse_answer(text, menu, seat=0, hand=hand, tr=Translator("it"))
        assert isinstance(got, Problem)
        assert got.message.startswith(f"{text} non è una carta - scrivi un numero")


@pytest.mark.parametrize(
    ("lang", "typed", "said"),
    [
        ("it", "asso", "asso: quale? Scrivi la carta con il suo seme, per esempio AH"),
        ("en", "ace", "ace: which one? Type the card with its suit, such as AH"),
        ("en", "Ace", "Ace: which one? Type the card with its suit, such as AH"),
        ("fr", "dame", "dame : laquelle ? Tapez la carte avec sa couleur, par exemple QH"),
        ("it", "re", "re: quale? Scrivi la carta con il suo seme, per esempio KH"),
    ],
)
def test_a_rank_named_alone_is_asked_which_card_with_one_that_may_be_played(
    lang: str, typed: str, said: str
) -> None:
    """``asso``, ``ace``, ``dame`` alone name no card: the answer asks which, showing a card of
    that rank among those that may be played (or one of any suit when none may)."""
    hand = [parse_card(t) for t in ("AH", "7H", "2S")]
    menu = build_menu(_legal("AH", "7H"))
    got = parse_answer(typed, menu, seat=0, hand=hand, tr=Translator(lang))
    assert isinstance(got, Problem) and got.message == said, got


def test_two_nines_typed_together_choose_the_double_play() -> None:
    tr = Translator("en")
    nines = (parse_card("9S"), parse_card("9H"))
    legal = [PlayNines(seat=1, cards=nines, suit=s) for s in "SHDC"]
    got = parse_answer("9h 9s d", build_menu(legal), seat=1, hand=list(nines), tr=tr)
    assert isinstance(got, Chosen) and got.option.with_suit(got.suit) == PlayNines(
        seat=1, cards=nines, suit="D"
    )


# ---------------------------------------------------------------------------
# The real command, in a subprocess

needs_exe = pytest.mark.skipif(not EXE.exists(), reason="the p2pcards command is not installed in this venv")


def _home() -> dict[str, str]:
    """The test's own data directory (see conftest): the command saves its transcript there."""
    return {"P2PCARDS_HOME": os.environ["P2PCARDS_HOME"]}


@needs_exe
def test_subprocess_watch_match_with_piped_stdin() -> None:
    proc = subprocess.run(
        [str(EXE), "play", "--watch", "--bot", "random", "--seed", "12", *EN],
        input="",
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8", **_home()},
    )
    assert proc.returncode == 0, proc.stderr
    assert "Final scores" in proc.stdout and proc.stderr == ""
    assert "\x1b[" not in proc.stdout  # no colour into a pipe


@needs_exe
def test_subprocess_human_game_with_piped_stdin() -> None:
    proc = subprocess.run(
        [str(EXE), "play", "--bot", "random", "--seed", "12", *EN],
        input="1\n7x\nscore\n1\nh\nquit\n",
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=60,
        env={"PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8", **_home()},
    )
    assert proc.returncode == 0, proc.stderr
    assert "Your move > 7x\n7x is not a card" in proc.stdout
    assert "Game abandoned." in proc.stdout and proc.stderr == ""


def _terminal_game(pexpect: Any) -> Any:
    """``play`` against a random bot (seed 3) in a terminal of 40 by 80, in English."""
    return pexpect.spawn(
        str(EXE),
        ["play", "--bot", "random", "--seed", "3", *EN],
        env={"PATH": "/usr/bin:/bin", "TERM": "xterm", "NO_COLOR": "1", "LANG": "C.UTF-8", **_home()},
        encoding="utf-8",
        timeout=20,
        dimensions=(40, 80),
    )


@needs_exe
def test_terminal_session_refuses_an_illegal_card_and_quits() -> None:
    pexpect = pytest.importorskip("pexpect")
    child = _terminal_game(pexpect)
    try:
        child.expect("Your move > ")
        hand, top, suit = _table(child.before.replace("\r", ""))
        top_card = parse_card(top)
        suit_letter = parse_suit_word(suit)
        bad = next(
            c
            for c in hand
            if not parse_card(c).is_nine
            and parse_card(c).suit != suit_letter
            and parse_card(c).rank != top_card.rank
        )
        child.sendline(bad)
        child.expect(r"\[rule: match-suit-or-rank\]")
        child.expect("Your move > ")
        child.sendline("quit")
        child.expect(r"Quit the game\? It stops here, for the bots too\. \(y/n\) > ")
        child.sendline("y")
        child.expect("Game abandoned.")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


@needs_exe
def test_the_move_prompt_edits_the_line_with_the_arrow_keys_and_recalls_earlier_lines() -> None:
    """At a terminal, the arrows move in the line being typed (``elp``, three times left,
    ``h``: help), instead of writing escape codes into the answer, and the up arrow brings
    back the line typed before (``score``, twice)."""
    pexpect = pytest.importorskip("pexpect")
    child = _terminal_game(pexpect)
    left, up = "\x1b[D", "\x1b[A"
    try:
        child.expect("Your move > ")
        child.send("elp" + left * 3 + "h\r")
        child.expect("What to type")  # the help, not "elp... is not a card"
        child.expect("Your move > ")
        child.sendline("score")
        child.expect("Total ")
        child.expect("Your move > ")
        child.send(up + "\r")
        child.expect("Total ")
        child.expect("Your move > ")
        child.sendline("quit")
        child.expect(r"\(y/n\) > ")
        child.sendline("y")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0, child.before


@needs_exe
@pytest.mark.skipif(not Path("/bin/bash").exists(), reason="a shell with job control")
def test_ctrl_z_then_fg_shows_the_prompt_again_and_gives_line_editing_its_terminal_back() -> None:
    """Ctrl-Z stops the game, and the shell sets its own terminal modes (line mode, echo)
    while it is stopped; ``fg`` continues it. The prompt is shown again with what was typed
    of it (the shell's lines took its place), and the terminal is line editing's again:
    keys are not echoed twice, and the line typed on is the one answered."""
    pexpect = pytest.importorskip("pexpect")
    env = {"PATH": "/usr/bin:/bin", "TERM": "xterm", "NO_COLOR": "1", "LANG": "C.UTF-8", "PS1": "$ "}
    shell = pexpect.spawn(
        "/bin/bash",
        ["--norc", "--noprofile", "-i"],
        env={**env, **_home()},
        encoding="utf-8",
        timeout=20,
        dimensions=(40, 80),
    )
    try:
        shell.expect_exact("$ ")
        shell.sendline(f"{EXE} play --bot random --seed 3 --lang en")
        shell.expect_exact("Your move > ")
        shell.send("sco")
        shell.expect_exact("sco")
        shell.send("\x1a")  # Ctrl-Z
        shell.expect("Stopped")
        shell.expect_exact("$ ")
        shell.sendline("fg")
        shell.expect_exact("Your move > sco")
        shell.send("re\r")
        shell.expect_exact("re\r\n")  # the keys shown once, as line editing echoes them
        shell.expect_exact("Total ")
        shell.expect_exact("Your move > ")
        shell.sendline("quit")
        shell.expect_exact("(y/n) > ")
        shell.sendline("y")
        shell.expect_exact("$ ")
        shell.sendline("echo status=$?")
        shell.expect_exact("status=0")
        shell.sendline("exit")
        shell.expect(pexpect.EOF)
    finally:
        shell.close(force=True)


def test_the_next_hand_is_shown_only_after_the_player_has_read_the_scores() -> None:
    result = run(["--bot", "random", "--seed", "5", "-n", "2", "--rule", "hands=2", *EN], input="1\n" * 200)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    scores = next(i for i, line in enumerate(lines) if "Scores after hand 1" in line)
    pause = next(i for i, line in enumerate(lines) if line.startswith("Press Enter for the next hand"))
    second = next(i for i, line in enumerate(lines) if line.startswith("── Hand 2"))
    assert scores < pause < second


def test_a_person_alone_with_bots_has_all_day_for_a_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bots wait for the one person at the table: a player who steps away for ten
    minutes does not lose the match to a timeout (other steps keep their time)."""
    from click.testing import CliRunner

    from p2pcards.cli import main as cli_main
    from p2pcards.net.session import Timeouts
    from p2pcards.ui import netgame

    seen: dict[str, object] = {}

    async def fake_table(**kwargs: object) -> object:
        seen.update(kwargs)
        raise KeyboardInterrupt  # leave at once: the settings are what this test looks at

    monkeypatch.setattr(netgame, "play_on_loopback", fake_table)
    result = CliRunner().invoke(cli_main, ["play", "--seed", "1", "--lang", "en"], input="")
    timeouts = seen["timeouts"]
    assert isinstance(timeouts, Timeouts)
    assert timeouts.turn >= 24 * 3600 and timeouts.step == Timeouts().step
    assert "Game abandoned." in result.output


def test_a_line_is_quoted_back_short_and_without_escapes() -> None:
    """A pasted page or an escape sequence at the prompt is not said back whole: the hint
    quotes at most a few words of it, on one line, with nothing the terminal would obey."""
    hand = [parse_card(t) for t in ("10H", "9S")]
    menu = build_menu(_legal("10H", "9S"))
    for line in ("x" * 200_000, "\x1b[2J\x07zz", "\u202e9s zz", "7 " * 5000):
        got = parse_answer(line, menu, seat=0, hand=hand, tr=Translator("en"))
        assert isinstance(got, Problem)
        assert len(got.message) < 120, got.message[:200]
        assert "\x1b" not in got.message and "\x07" not in got.message and "\u202e" not in got.message
    out: list[str] = []
    opts = PlayOptions(players=2, bot="random", seed=3, lang="en", offline=True)
    lines = iter(["\x1b]0;title\x07" + "y" * 5000, "quit", "y"])
    play_local(opts, read=lambda prompt: next(lines), write=out.append, style=Style(), echo=True)
    echoed = [line for line in out if line.startswith("yyy")]
    assert echoed and all(len(line) <= 200 and "\x1b" not in line for line in echoed), out[-5:]


@settings(max_examples=300, deadline=None)
@given(line=st.text(max_size=40) | st.sampled_from(["Q pique", "10p", "Vc", "9s h", "2 cuori", "dh", "ff"]))
def test_any_line_at_either_games_prompt_is_an_answer_never_an_error(line: str) -> None:
    """Whatever is typed, each game's prompt answers it (a move, an attempt for the engine
    to refuse, or a hint quoting it short and clean); it never raises."""
    from p2pcards.games.neuf.prompt import parse_card_answer
    from p2pcards.games.neuf.rules import PlayCard

    hand = [parse_card(t) for t in ("10H", "9S", "KC")]
    menu = build_menu(_legal("10H", "9S"))
    for lang in ("en", "fr", "it"):
        tr = Translator(lang)
        for got in (
            parse_answer(line, menu, seat=0, hand=hand, tr=tr),
            parse_card_answer(line, hand, seat=0, tr=tr),
        ):
            assert isinstance(got, Chosen | Attempt | Problem | PlayCard)
            if isinstance(got, Problem):
                assert "\x1b" not in got.message and len(got.message) < 400


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "that is not a move at this point of your turn [rule: "),
        ("fr", "ce n'est pas un coup possible à ce moment de votre tour [règle : "),
        ("it", "non è una mossa possibile a questo punto del tuo turno [regola: "),
    ],
)
def test_a_move_at_the_wrong_point_of_a_turn_is_refused_in_the_players_words(lang: str, said: str) -> None:
    """"pass" typed when asked whether to play the card just drawn: the engine's own words
    ("cannot pass now (drawn)") are no sentence for a player, in any language."""
    from p2pcards.cards import ALL_CARDS
    from p2pcards.errors import IllegalAction
    from p2pcards.games.nines.prompt import explain_refusal
    from p2pcards.games.nines.rules import HandState, Pass, SeatView

    hand = HandState(NinesRules(), 2, 0, list(ALL_CARDS[:52]))
    error = IllegalAction(1, "phase", "cannot pass now (drawn)")
    text = explain_refusal(error, Pass(seat=1), SeatView(hand, 1), [], Translator(lang), Style())
    assert said in text and "cannot pass" not in text, text


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_with_only_a_draw_a_word_that_is_no_card_is_told_to_press_enter_to_draw(lang: str) -> None:
    """The prompt lists no numbered move when drawing is all there is: the hint says what
    Enter does, not "type 1" (a number the screen never showed)."""
    tr = Translator(lang)
    menu = build_menu([Draw(seat=0)])
    got = parse_answer("x", menu, seat=0, hand=[parse_card("4D")], tr=tr)
    assert isinstance(got, Problem), got
    assert got.message == tr("err_not_card_draw", text="x") and "1" not in got.message


# ---------------------------------------------------------------------------
# Cards typed as they are said: "as de cœur", "asso di picche", "queen of spades"

_RANK_SAID = {  # ace to king
    "en": ("ace", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "jack", "queen",
           "king"),
    "fr": ("as", "deux", "trois", "quatre", "cinq", "six", "sept", "huit", "neuf", "dix", "valet", "dame",
           "roi"),
    "it": ("asso", "due", "tre", "quattro", "cinque", "sei", "sette", "otto", "nove", "dieci", "fante",
           "donna", "re"),
    "figures": ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"),
}
_SUIT_SAID = {
    "S": ("spades", "spade", "pique", "piques", "picche", "♠"),
    "H": ("hearts", "heart", "cœur", "coeur", "Cœurs", "cuori", "cuore", "♥"),
    "D": ("diamonds", "diamond", "carreau", "carreaux", "quadri", "♦"),
    "C": ("clubs", "club", "trèfle", "trefle", "fiori", "♣"),
}
_LINKS = ("", "de", "d'", "d’", "du", "di", "of")


def _unaccented(text: str) -> str:
    import unicodedata

    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c))


def _said(rank_word: str, link: str, suit_word: str) -> str:
    return " ".join(w for w in (rank_word, link, suit_word) if w)


def _card_of(got: object) -> str | None:
    """The card a prompt's answer plays or attempts (None: no card)."""
    from p2pcards.games.neuf.rules import PlayCard

    if isinstance(got, Chosen):
        return got.option.cards[0].text()
    action = got.action if isinstance(got, Attempt) else got
    card = getattr(action, "card", None) if isinstance(action, Play | PlayCard) else None
    return None if card is None else card.text()


@settings(max_examples=400, deadline=None)
@given(
    rank=st.integers(1, 13),
    said_in=st.sampled_from(["en", "fr", "it", "figures"]),
    suit=st.sampled_from("SHDC"),
    data=st.data(),
    lang=st.sampled_from(["en", "fr", "it"]),
)
def test_every_rank_word_with_every_suit_word_is_that_card_at_both_prompts(
    rank: int, said_in: str, suit: str, data: st.DataObject, lang: str
) -> None:
    """A card typed as a player says it, in any of the three languages, whatever the interface's:
    a rank's name (or its figure, its letter), perhaps de, d', du, di or of, then the suit's name
    or symbol, in any case, with or without accents, is that card in Nines and in Le Neuf."""
    from p2pcards.games.neuf.prompt import parse_card_answer

    rank_word = _RANK_SAID[said_in][rank - 1]
    suit_word = data.draw(st.sampled_from(_SUIT_SAID[suit]), label="suit")
    link = data.draw(st.sampled_from(_LINKS), label="link")
    cases = [str.lower, str.upper, str.title, _unaccented, lambda t: t]
    case = data.draw(st.sampled_from(cases), label="case")
    line = case(_said(rank_word, link, suit_word))
    meant = _RANK_SAID["figures"][rank - 1] + suit
    hand = [parse_card(t) for t in ("10H", "9S", "KC")]
    menu = build_menu(_legal("10H", "9S"))
    tr = Translator(lang)
    nines = parse_answer(line, menu, seat=0, hand=hand, tr=tr)
    assert _card_of(nines) == meant, (line, nines)
    if rank == 9 and isinstance(nines, Chosen):
        assert nines.suit is None  # the 9 itself, its suit still to be asked
    neuf = parse_card_answer(line, hand, seat=0, tr=tr)
    assert _card_of(neuf) == meant, (line, neuf)


@pytest.mark.parametrize(
    ("lang", "line", "card"),
    [
        ("fr", "as cœur", "AH"),
        ("fr", "as coeur", "AH"),
        ("fr", "as de pique", "AS"),
        ("fr", "As pique", "AS"),
        ("fr", "roi de carreau", "KD"),
        ("fr", "Dame carreau", "QD"),
        ("fr", "valet de coeur", "JH"),
        ("fr", "7 de cœur", "7H"),
        ("fr", "as d'cœur", "AH"),
        ("it", "asso di picche", "AS"),
        ("it", "donna di picche", "QS"),
        ("it", "re di cuori", "KH"),
        ("it", "fante di fiori", "JC"),
        ("it", "sette di quadri", "7D"),
        ("it", "10 di fiori", "10C"),
        ("en", "queen of spades", "QS"),
        ("en", "ace of hearts", "AH"),
        ("en", "ten of clubs", "10C"),
        ("en", "as cœur", "AH"),  # the French words are understood in English too
    ],
)
def test_a_card_said_in_words_is_the_card_meant(lang: str, line: str, card: str) -> None:
    """The tester's lines: each is the card meant, never the first word alone (``as`` was A♠:
    a player holding it would have had it played for them)."""
    held = ("AS", "AH", "KD", "QD", "QS", "KH", "JH", "JC", "10C", "7H", "7D", "9S")
    hand = [parse_card(t) for t in held]
    menu = build_menu(_legal(*held))
    got = parse_answer(line, menu, seat=0, hand=hand, tr=Translator(lang))
    assert isinstance(got, Chosen) and got.option.with_suit(None) == Play(seat=0, card=parse_card(card)), got


def test_a_card_said_in_words_and_refused_is_named_as_meant() -> None:
    """``as cœur`` when the ace of hearts cannot be played is refused about A♥ (it was refused
    about A♠, which the player never named); the whole game, as typed in French."""
    out: list[str] = []
    lines = iter(["roi de carreau", "as coeur", "quit", "y"])
    opts = PlayOptions(players=2, bot="random", seed=1, lang="fr", offline=True)
    play_local(opts, read=lambda prompt: next(lines), write=out.append, style=Style(), echo=True)
    text = "\n".join(out)
    assert "Votre main  AH QH 6D 10D KD 3C 4C" in text  # (the deal this test relies on)
    assert "Interdit : KD ne suit ni la couleur en cours H" in text, text[-800:]
    assert "Vous avez joué AH" in text and "AS" not in text, text[-800:]


@pytest.mark.parametrize("typed", ["as", "As"])
def test_as_alone_is_asked_again_in_french_and_is_the_ace_of_spades_elsewhere(typed: str) -> None:
    """In French ``as`` is any ace, in the notation the ace of spades: typed alone in French it
    plays nothing, and the question says how to name each ace; in English and Italian (an ace is
    asso) it is AS, as before. ``AS`` in capitals is the notation in French too."""
    hand = [parse_card(t) for t in ("AS", "AH", "9S")]
    menu = build_menu(_legal("AS", "AH", "9S"))
    got = parse_answer(typed, menu, seat=0, hand=hand, tr=Translator("fr"))
    assert isinstance(got, Problem), got
    assert got.message == (
        f"{typed} : quel as ? En notation, AS est l'as de pique - tapez l'as avec sa couleur :"
        " as de pique, as de cœur, as de carreau ou as de trèfle"
    )
    for lang in ("en", "it"):
        got = parse_answer(typed, menu, seat=0, hand=hand, tr=Translator(lang))
        assert isinstance(got, Chosen) and got.option.cards[0].text() == "AS", (lang, got)
    got = parse_answer("AS", menu, seat=0, hand=hand, tr=Translator("fr"))
    assert isinstance(got, Chosen) and got.option.cards[0].text() == "AS", got


def test_a_nine_said_in_words_still_names_the_suit_after_it() -> None:
    hand = [parse_card(t) for t in ("9S", "KD")]
    menu = build_menu(_legal("9S"))
    for lang, line in (
        ("fr", "9 de pique cœur"),
        ("fr", "neuf de pique, cœur"),
        ("fr", "Neuf pique coeur"),
        ("it", "nove di picche cuori"),
        ("en", "nine of spades hearts"),
        ("en", "9 of spades ♥"),
    ):
        got = parse_answer(line, menu, seat=0, hand=hand, tr=Translator(lang))
        assert isinstance(got, Chosen) and got.option.with_suit(got.suit) == Play(
            seat=0, card=parse_card("9S"), suit="H"
        ), (line, got)
    # di is "of" before a suit's name: 9 di cuori is the 9 of hearts, not the 9 of diamonds
    # (di, a prefix of diamonds) naming hearts
    got = parse_answer("9 di cuori", menu, seat=0, hand=hand, tr=Translator("it"))
    assert isinstance(got, Attempt) and getattr(got.action, "card", None) == parse_card("9H"), got


def test_words_after_a_card_are_refused_never_ignored() -> None:
    """Only a 9 names a suit after it; anything else left after a card is said back, and what
    is no card is said to be none (not taken for a move number)."""
    hand = [parse_card(t) for t in ("10H", "9S", "KC", "4D")]
    menu = build_menu(_legal("10H", "9S"))
    tr = Translator("en")
    for line, said in (
        ("J hearts spades", "Only a 9 names a suit: just type JH"),  # J♥ not held: not an attempt
        ("10h spades", "Only a 9 names a suit: just type 10H"),
        ("ace of hearts xyz", "ace of hearts xyz: AH is a card, but xyz is not part of it - type just AH"),
        ("kc 10h", "kc 10h: KC is a card, but 10h is not part of it - type just KC"),
        ("9 banana", "9 banana is not a card - type a number 1-2 or a card like 10H"),
        ("as banana", "as banana is not a card - type a number 1-2 or a card like 10H"),
        ("king of", "king of is not a card"),
        ("9s hearts spades", "hearts spades is not a suit"),
    ):
        got = parse_answer(line, menu, seat=0, hand=hand, tr=tr)
        assert isinstance(got, Problem) and got.message.startswith(said), (line, got)
    got = parse_answer("as de cœur banane", menu, seat=0, hand=hand, tr=Translator("fr"))
    assert isinstance(got, Problem), got
    assert got.message.startswith("as de cœur banane : AH est une carte, mais banane n'en fait pas partie")


def test_a_suit_named_after_a_c_settles_it_and_a_rank_word_with_c_is_asked() -> None:
    """``Kc trèfle`` in French: the player said clubs, nothing to ask; ``Kc cœur`` is K♥. After
    a rank named in French or Italian (``roi c``, ``fante c``) c is cœur, cuori to the player:
    asked in every interface language, never a silent ♣; after an English name it is as ``Kc``."""
    hand = [parse_card(t) for t in ("KC", "KH", "JC", "9S")]
    menu = build_menu(_legal("KC", "KH", "JC", "9S"))
    for lang, line, card in (
        ("fr", "Kc trèfle", "KC"),
        ("fr", "Kc cœur", "KH"),
        ("it", "kc fiori", "KC"),
        ("it", "Kc ♥", "KH"),
        ("fr", "roi de c trèfle", "KC"),
    ):
        got = parse_answer(line, menu, seat=0, hand=hand, tr=Translator(lang))
        assert isinstance(got, Chosen) and got.option.cards[0].text() == card, (line, got)
    for lang, line, asked in (
        ("fr", "Kc pique", "Kc : KH ou KC ?"),  # no answer to the question: asked
        ("fr", "roi c", "roi c : KH ou KC ? c veut dire cœur en français"),
        ("en", "valet c", "valet c: JH or JC? c is hearts in French and Italian"),
        ("en", "fante di c", "fante di c: JH or JC?"),
        ("it", "king c", "king c: KH o KC?"),
        ("fr", "9c trèfle", "9c : 9H ou 9C ?"),  # a 9 names a suit after it: trèfle settles nothing
    ):
        got = parse_answer(line, menu, seat=0, hand=hand, tr=Translator(lang))
        assert isinstance(got, Problem) and got.message.startswith(asked), (line, got)
    got = parse_answer("roi de c", menu, seat=0, hand=hand, tr=Translator("fr"))
    assert isinstance(got, Problem) and got.message.endswith("tapez roi de cœur ou roi de trèfle"), got
    got = parse_answer("king c", menu, seat=0, hand=hand, tr=Translator("en"))
    assert isinstance(got, Chosen) and got.option.cards[0].text() == "KC", got


def test_a_rank_word_with_a_french_or_italian_suit_letter_gets_the_notation() -> None:
    hand = [parse_card(t) for t in ("10S", "QC", "KD")]
    menu = build_menu(_legal("10S", "QC", "KD"))
    for line, card in (("roi de p", "KS"), ("dame t", "QC"), ("R de cœur", "KH"), ("V cœur", "JH"),
                       ("king q", "KD")):
        got = parse_answer(line, menu, seat=0, hand=hand, tr=Translator("en"))
        assert isinstance(got, Problem), (line, got)
        assert got.message.startswith(f"{line} is not a card - a card is written with its rank"), got
        assert got.message.endswith(f": {card}"), (line, got)


_JUNK_WORDS = st.sampled_from(
    [
        *(w for words in _RANK_SAID.values() for w in words),
        *(w for words in _SUIT_SAID.values() for w in words),
        *(link for link in _LINKS if link),
        *("9s", "10", "c", "C", "p", "q", "²", "٣", "d'", "Kc", "as", "x", ",", "help", "d", "draw", "y"),
        "1" * 12,
        "7" * 5000,
    ]
)


@settings(max_examples=300, deadline=None)
@given(words=st.lists(_JUNK_WORDS | st.text(max_size=6), max_size=5), lang=st.sampled_from(LANGS))
def test_any_words_at_either_prompt_are_answered_never_an_error(words: list[str], lang: str) -> None:
    """Rank and suit words in any order and number, with junk: each game's prompt answers (a move,
    an attempt for the engine to refuse, a hint, a question back), never raises; take_card names
    a card or none."""
    from p2pcards.games.neuf.prompt import parse_card_answer
    from p2pcards.games.neuf.rules import PlayCard
    from p2pcards.ui.i18n import CardWords, take_card

    line = " ".join(words)
    hand = [parse_card(t) for t in ("10H", "9S", "KC", "AS")]
    menu = build_menu(_legal("10H", "9S", "AS"))
    tr = Translator(lang)
    got = take_card(line.split())
    assert got is None or (isinstance(got, CardWords) and 1 <= got.used <= len(line.split()))
    for answer in (
        parse_answer(line, menu, seat=0, hand=hand, tr=tr),
        parse_card_answer(line, hand, seat=0, tr=tr),
    ):
        assert isinstance(answer, Chosen | Attempt | Problem | PlayCard)
        if isinstance(answer, Problem):
            assert answer.message and "\x1b" not in answer.message and len(answer.message) < 400
