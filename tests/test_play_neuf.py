"""`p2pcards play --game neuf`: Le Neuf against bots in the terminal, and its JSON record.

By default every seat is a node on loopback TCP running the whole protocol
(as across the internet); ``--offline`` plays with the rules engine alone in
this process. Both show the same table through the same display, and several
tests below run in both modes. Piped-input games go through click's CliRunner
or ``play_local`` with a scripted reader; one test drives the installed command
in a pseudo-terminal (offline; the networked terminal sessions, the audit of
their transcripts and ``host``/``join`` are in ``test_neuf_network.py``).
The record is checked field by field (``validate_neuf_record``) and replayed
through a fresh engine (``replay_neuf``): rebuilding every deck from it and
replaying every exchange and every card must reach the same tricks, scores,
totals and winners.
"""

from __future__ import annotations

import itertools
import json
import os
import re
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from p2pcards.cards import SUIT_OF, Card, deck, parse_card, parse_cards
from p2pcards.cli import main
from p2pcards.errors import IllegalAction
from p2pcards.games.neuf.prompt import parse_card_answer
from p2pcards.games.neuf.render import hand_text
from p2pcards.games.neuf.rules import (
    Decline,
    Exchange,
    Look,
    Match,
    NeufRules,
    Phase,
    PlayCard,
    dealer_from_cut,
)
from p2pcards.protocol.audit import audit_file
from p2pcards.ui.i18n import Translator
from p2pcards.ui.local import PlayOptions, play_local
from p2pcards.ui.prompt import Attempt, Problem
from p2pcards.ui.render import WIDTH, Style, visible_len

EN = ["--lang", "en"]
EXE = Path(sys.executable).with_name("p2pcards")
CARD = re.compile(r"^(10|[2-9AJQK])[SHDC]$")


def run(args: list[str], input: str = "", env: dict[str, str | None] | None = None):
    result = CliRunner().invoke(main, ["play", "--game", "neuf", *args], input=input, env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def totals_row(output: str) -> list[int]:
    """The numbers of the last Total row printed."""
    rows = [line for line in output.splitlines() if line.startswith(("Total", "Totale"))]
    return [int(x) for x in rows[-1].split()[1:]]


# ---------------------------------------------------------------------------
# The record: strict schema, and a replay through a fresh engine


def _seat(x: Any) -> int:
    assert isinstance(x, int) and not isinstance(x, bool) and 0 <= x < 3, f"not a seat: {x!r}"
    return x


def _card(x: Any) -> str:
    assert isinstance(x, str) and CARD.match(x), f"not a card: {x!r}"
    return x


def _rank_power(text: str) -> int:
    return {"A": 14, "K": 13, "Q": 12, "J": 11}.get(text[:-1]) or int(text[:-1])


def validate_neuf_record(doc: Any) -> None:
    """Raise AssertionError unless ``doc`` is a ``p2pcards-record/1`` document of Le Neuf."""
    assert isinstance(doc, dict)
    assert set(doc) == {"format", "game", "rules", "players", "verdict", "cut", "hands", "result"}
    assert doc["format"] == "p2pcards-record/1" and doc["game"] == "neuf"
    rules = NeufRules.from_dict(doc["rules"])
    assert doc["rules"] == rules.to_dict() and set(doc["rules"]) == {"trumps", "exchange", "start"}
    assert [p["seat"] for p in doc["players"]] == [0, 1, 2]
    for p in doc["players"]:
        assert set(p) == {"seat", "name", "key"} and isinstance(p["name"], str) and p["name"]
    assert doc["verdict"] == {"valid": True, "problems": []}

    seats = [0, 1, 2]
    for shown in doc["cut"]:
        assert [e["seat"] for e in shown] == seats and all(set(e) == {"seat", "card"} for e in shown)
        high = max(_rank_power(_card(e["card"])) for e in shown)
        seats = [e["seat"] for e in shown if _rank_power(e["card"]) == high]
    assert len(seats) == 1, "the last round of the cut has a single highest card"

    totals = [rules.start] * 3
    keys = {"number", "dealer", "trump", "dealt", "dummy", "exchanges", "tricks", "won", "scores", "totals"}
    for k, h in enumerate(doc["hands"]):
        assert set(h) == keys
        assert h["number"] == k + 1 and h["trump"] == rules.trump_of(k + 1)
        dealer = _seat(h["dealer"])
        assert (
            len(h["dealt"]) == 3 and all(len(cards) == 13 for cards in h["dealt"]) and len(h["dummy"]) == 13
        )
        every = [_card(c) for cards in [*h["dealt"], h["dummy"]] for c in cards]
        assert Counter(every) == Counter(c.text() for c in deck()), "the hands and the dummy are the deck"
        order = [dealer, (dealer + 1) % 3, (dealer + 2) % 3]
        assert [e["seat"] for e in h["exchanges"]] == order
        for e in h["exchanges"]:
            assert set(e) == {"seat", "looked", "took"}
            assert isinstance(e["looked"], bool) and isinstance(e["took"], bool)
            assert not (e["looked"] and rules.exchange == "blind")
        assert len(h["tricks"]) == 13
        leader = (dealer + 1) % 3
        won = [0, 0, 0]
        for t in h["tricks"]:
            assert set(t) == {"leader", "plays", "winner"} and t["leader"] == leader
            assert [p["seat"] for p in t["plays"]] == [leader, (leader + 1) % 3, (leader + 2) % 3]
            for p in t["plays"]:
                assert set(p) == {"seat", "card"}
                _card(p["card"])
            leader = _seat(t["winner"])
            won[leader] += 1
        assert h["won"] == won and h["scores"] == [4 - w for w in won]
        totals = [t + s for t, s in zip(totals, h["scores"], strict=True)]
        assert h["totals"] == totals
    result = doc["result"]
    assert set(result) == {"winners", "totals", "finished"} and result["totals"] == totals
    assert result["finished"] == (min(totals) <= 0)
    if result["finished"]:
        assert result["winners"] == [s for s in range(3) if totals[s] == min(totals)]
    else:
        assert result["winners"] == []


def rebuild_deck(h: dict[str, Any]) -> tuple[Card, ...]:
    """The deck of a hand, top first: one card at a time from the dealer's left, the dummy last."""
    dealer = h["dealer"]
    order = [(dealer + 1) % 3, (dealer + 2) % 3, dealer]
    texts = [""] * 52
    for k, seat in enumerate(order):
        texts[k::4] = h["dealt"][seat]
    texts[3::4] = h["dummy"]
    return parse_cards(texts)


def replay_neuf(doc: dict[str, Any]) -> Match:
    """Replay every exchange and every card of the record through a fresh engine, checking each outcome."""
    rules = NeufRules.from_dict(doc["rules"])
    rounds = [{e["seat"]: parse_card(e["card"]) for e in shown} for shown in doc["cut"]]
    match = Match(rules=rules, dealer=dealer_from_cut(rounds))
    for h in doc["hands"]:
        assert (match.dealer, match.trump) == (h["dealer"], h["trump"])
        hand = match.start_hand(rebuild_deck(h))
        assert [[c.text() for c in cards if c is not None] for cards in hand.dealt] == h["dealt"]
        for e in h["exchanges"]:
            if e["looked"]:
                hand.apply(Look(seat=e["seat"]))
            hand.apply(Exchange(seat=e["seat"]) if e["took"] else Decline(seat=e["seat"]))
        for t in h["tricks"]:
            assert hand.leader == t["leader"]
            for p in t["plays"]:
                hand.apply(PlayCard(seat=p["seat"], card=parse_card(p["card"])))
            assert hand.tricks[-1].winner == t["winner"]
        assert hand.phase is Phase.OVER
        result = match.close_hand()
        assert (list(result.won), list(result.scores), list(result.totals)) == (
            h["won"],
            h["scores"],
            h["totals"],
        )
    assert match.totals == doc["result"]["totals"]
    assert list(match.winners or ()) == doc["result"]["winners"]
    assert match.over == doc["result"]["finished"]
    return match


# ---------------------------------------------------------------------------
# Watching bots


@pytest.mark.parametrize("mode", [[], ["--offline"]], ids=["network", "offline"])
def test_a_watched_match_plays_to_the_end_and_its_record_replays(tmp_path: Path, mode: list[str]) -> None:
    rec = tmp_path / "neuf.json"
    result = run(["--watch", "--seed", "4", "--record", str(rec), *mode, *EN])
    assert result.exit_code == 0
    out = result.output
    doc = json.loads(rec.read_text(encoding="utf-8"))
    validate_neuf_record(doc)
    match = replay_neuf(doc)
    assert match.over and min(match.totals) <= 0
    assert out.startswith("Le Neuf: Alice, Bob and Carol (heuristic bots).\n")
    assert ("Signed transcript" in out) == (not mode)
    assert "Final scores" in out and "Record written to" in out
    assert totals_row(out) == doc["result"]["totals"]
    winners = " and ".join(doc["players"][s]["name"] for s in doc["result"]["winners"])
    assert re.search(rf"^{winners} (wins|share the win) with -?\d+ points\.$", out, re.M)
    for h in doc["hands"]:
        trump = "no trumps" if h["trump"] is None else f"trumps {Style(unicode=True).suit(h['trump'])}"
        assert re.search(rf"── Hand {h['number']} · \w+ deals · {trump}", out)
        for n, t in enumerate(h["tricks"], 1):
            winner = doc["players"][t["winner"]]["name"]
            assert f"Trick {n}: {doc['players'][t['leader']]['name']} led" in out
            assert f" - {winner} wins" in out
    # A spectator sees the dummy at the deal and every exchange decision in words; offline
    # (every card known) the hands again after exchanges that moved them. Over the network it
    # watches through Alice's node, which sees only Alice's cards until the end of the hand.
    took = sum(any(e["took"] for e in h["exchanges"]) for h in doc["hands"])
    hands = len(doc["hands"])
    assert out.count("   The dummy  ") == hands + (took if mode else 0)
    assert out.count("After the exchanges:") == (took if mode else 0)
    assert out.count("   Bob        13 cards") == (0 if mode else hands)
    looks = re.findall(r"^   (Alice|Bob|Carol) looked at the dummy$", out, re.M)
    assert len(looks) == 3 * hands  # heuristic bots always look
    decisions = [w for _, w in re.findall(r"^   (Alice|Bob|Carol) (took|left) the dummy$", out, re.M)]
    assert decisions == ["took" if e["took"] else "left" for h in doc["hands"] for e in h["exchanges"]]
    # After every hand: each hand as played (verified by every node, over the network), and the dummy.
    verified = "The hands as played, every card revealed and checked by every node:"
    assert out.count(verified if not mode else "The hands as played:") == hands
    names = [p["name"] for p in doc["players"]]
    unicode = Style(unicode=True)
    for h in doc["hands"]:
        for seat, name in enumerate(names):
            played = parse_cards([p["card"] for t in h["tricks"] for p in t["plays"] if p["seat"] == seat])
            line = f"   {name:<5}  {hand_text(played, h['trump'], unicode)}"
            assert re.search(rf"^{re.escape(line)}(  \(took the dummy\))?$", out, re.M), line
    assert out.count("The dummy held ") == hands


def test_a_tampered_record_does_not_replay(tmp_path: Path) -> None:
    """The replay really checks: one card moved, one score changed, one field renamed are all caught."""
    rec = tmp_path / "r.json"
    run(["--watch", "--seed", "7", "--record", str(rec), *EN])
    doc = json.loads(rec.read_text(encoding="utf-8"))
    replay_neuf(doc)
    swapped = json.loads(json.dumps(doc))
    h = swapped["hands"][0]
    h["dealt"][0][0], h["dummy"][0] = h["dummy"][0], h["dealt"][0][0]
    with pytest.raises((AssertionError, IllegalAction)):  # a card played by a seat that no longer holds it
        replay_neuf(swapped)
    scored = json.loads(json.dumps(doc))
    scored["hands"][-1]["scores"][0] += 1
    with pytest.raises(AssertionError):
        replay_neuf(scored)
    renamed = json.loads(json.dumps(doc))
    renamed["hands"][0]["trick_list"] = renamed["hands"][0].pop("tricks")
    with pytest.raises(AssertionError):
        validate_neuf_record(renamed)


def test_the_same_seed_gives_the_same_match() -> None:
    a = run(["--watch", "--bot", "random", "--seed", "21", *EN]).output
    b = run(["--watch", "--bot", "random", "--seed", "21", *EN]).output
    c = run(["--watch", "--bot", "random", "--seed", "22", *EN]).output
    # The second match of a seed is saved beside the first (NAME-2.p2pt), never over it.
    same = [re.sub(r"\S+\.p2pt", "FILE", out) for out in (a, b, c)]
    assert same[0] == same[1] and same[0] != same[2]


def test_rule_options_reach_the_game_the_screen_and_the_record(tmp_path: Path) -> None:
    rec = tmp_path / "r.json"
    args = ["--watch", "--seed", "2", "--record", str(rec), *EN]
    args += ["--rule", "trumps=hearts-first", "--rule", "blind-exchange", "--rule", "start=3"]
    out = run(args).output
    doc = json.loads(rec.read_text(encoding="utf-8"))
    validate_neuf_record(doc)
    replay_neuf(doc)
    assert doc["rules"] == {"trumps": ["H", "D", "S", "C", None], "exchange": "blind", "start": 3}
    assert "Everyone starts at 3 and counts down" in out
    assert "Trumps change with every hand: ♥ hearts, ♦ diamonds, ♠ spades, ♣ clubs, no" in out
    assert "Blind exchanges: the dummy is taken or left unseen" in out
    assert "looked" not in out and re.search(r"(Alice|Bob|Carol) (took|left) the dummy$", out, re.M)
    assert "── Hand 1 · " in out and "trumps ♥ hearts" in out


# ---------------------------------------------------------------------------
# A human at the keyboard, piped


@pytest.mark.parametrize(
    ("lang", "answers", "words"),
    [
        ("en", "y\nn\n1\n", ["Look at the dummy? (y/n) > y", "Your card > 1", "Trick 1: ", "Final scores"]),
        ("fr", "o\nn\n1\n", ["Regarder le mort ? (o/n) > o", "Votre carte > 1", "Pli 1 : ", "Scores finaux"]),
        (
            "it",
            "s\nn\n1\n",
            ["Guardi il morto? (s/n) > s", "La tua carta > 1", "Presa 1: ", "Punteggi finali"],
        ),
    ],
)
def test_a_whole_piped_match_in_each_language(
    tmp_path: Path, lang: str, answers: str, words: list[str]
) -> None:
    rec = tmp_path / "human.json"
    result = run(["--seed", "6", "--lang", lang, "--record", str(rec)], input=answers * 2000)
    assert result.exit_code == 0
    out = result.output
    assert "Traceback" not in out
    for w in words:
        assert w in out, w
    welcome = {"en": "Le Neuf: you against", "fr": "Le Neuf : vous contre", "it": "Le Neuf: tu contro"}
    assert out.startswith(welcome[lang])
    looked = {
        "en": "You looked at the dummy",
        "fr": "Vous avez regardé le mort",
        "it": "Hai guardato il morto",
    }
    left = {"en": "You left the dummy", "fr": "Vous avez laissé le mort", "it": "Hai lasciato il morto"}
    assert re.search(rf"^   {looked[lang]}\n", out, re.M) and re.search(rf"^   {left[lang]}\n", out, re.M)
    verified = {
        "en": "The hands as played, every card revealed and checked by every node:",
        "fr": "Les mains jouées, chaque carte révélée et vérifiée par chaque nœud :",
        "it": "Le mani giocate, ogni carta rivelata e verificata da ogni nodo:",
    }
    doc = json.loads(rec.read_text(encoding="utf-8"))
    validate_neuf_record(doc)
    replay_neuf(doc)
    assert doc["result"]["finished"] is True
    assert totals_row(out) == doc["result"]["totals"]
    assert doc["players"][0]["name"] == {"en": "you", "fr": "vous", "it": "tu"}[lang]
    assert out.count(verified[lang]) == len(doc["hands"])


@pytest.mark.parametrize("mode", [[], ["--offline"]], ids=["network", "offline"])
def test_every_piped_input_is_answered_and_quit_leaves_cleanly(mode: list[str]) -> None:
    inputs = ["maybe", "QS", "help", "y", "score", "x", "n", "7x", "99", "y", "", "1", "quit", "y"]
    result = run(["--seed", "3", *mode, *EN], input="\n".join(inputs) + "\n")
    assert result.exit_code == 0
    out = result.output
    assert "Please answer y or n (or type help)." in out
    assert "QS: no card is played before the dummy is settled - answer y or n" in out
    assert "How to play Le Neuf" in out and "── Scores " in out
    assert "7x is not a card - type a number 1-" in out
    assert "There is no move 99 - type a number 1-" in out
    assert "y is not possible now - type a number 1-" in out
    assert "Type the number of your move (1-" in out and "'' is not a card" not in out
    # Then the seed; over the network, first where the transcript (of the hands so far) is.
    assert out.rstrip().splitlines()[-2 if mode else -4] == "Game abandoned."
    assert ("Signed transcript" in out) == (not mode)
    lines = out.splitlines()
    asked = [i for i, line in enumerate(lines) if " > " in line]
    assert [lines[i].split(" > ", 1)[1] for i in asked] == inputs  # each input echoed after its prompt
    for k, (i, j) in enumerate(itertools.pairwise(asked)):
        between = "".join(lines[i + 1 : j]).strip()
        new_question = lines[j].split(" > ")[0] != lines[i].split(" > ")[0]
        assert between or new_question, f"no answer to {inputs[k]!r}"


def test_end_of_input_is_a_clean_quit(tmp_path: Path) -> None:
    rec = tmp_path / "none.json"
    result = run(["--seed", "3", "--record", str(rec), *EN], input="")
    assert result.exit_code == 0
    assert "Game abandoned." in result.output and "Traceback" not in result.output
    doc = json.loads(rec.read_text(encoding="utf-8"))
    validate_neuf_record(doc)
    assert doc["hands"] == [] and doc["result"] == {"winners": [], "totals": [9, 9, 9], "finished": False}
    assert "Record of 0 finished hands written to" in result.output


HEADINGS = ("   You must follow ", "   You lead: ", "   You have no ")
"""The line above the numbered cards, which says what the player may play."""


class Clumsy:
    """Answers like a clumsy player: garbage, commands, illegal cards, then a legal answer."""

    def __init__(self, out: list[str], *, look: str = "y", take: str = "n") -> None:
        self.out = out
        self.yes_no = itertools.cycle(["maybe", "QS", "2", look, "zz", take])
        self.cards = itertools.cycle(["7x", "score", "99", "ILLEGAL", "ABSENT", "1"])
        self.prompts: list[str] = []
        self.tried: list[tuple[str, str]] = []

    def read(self, prompt: str) -> str:
        self.prompts.append(prompt)
        assert len(self.prompts) < 20_000, "the match does not end"
        if "(y/n)" in prompt:
            return next(self.yes_no)
        if "Press Enter" in prompt:
            return ""
        answer = next(self.cards)
        lines = "\n".join(self.out).split("\n")  # a table is written as one text of many lines
        hand = next(line for line in reversed(lines) if line.startswith("   Your hand  ")).split()[2:]
        heading = next(line for line in reversed(lines) if line.startswith(HEADINGS))
        if answer == "ILLEGAL":
            follow = heading.split()[3] if heading.startswith("   You must follow") else None
            off = [c for c in hand if follow is not None and SUIT_OF[parse_card(c)] != follow]
            if off:
                self.tried.append(("follow-suit", off[0]))
                return off[0].lower()
            return "1"
        if answer == "ABSENT":
            absent = next(c for c in ("AS", "KH", "QD", "JC", "10S", "2H", "3C") if c not in hand)
            self.tried.append(("card-held", absent))
            return absent
        return answer


@pytest.mark.parametrize("seed", [1, 2])
def test_a_clumsy_human_plays_a_whole_match(seed: int) -> None:
    out: list[str] = []
    clumsy = Clumsy(out)
    opts = PlayOptions(game="neuf", players=3, bot="random", seed=seed, lang="en")
    assert play_local(opts, read=clumsy.read, write=out.append, style=Style()) == 0
    text = "\n".join(out)
    assert "Final scores" in text and "Game abandoned" not in text
    assert "Please answer y or n (or type help)." in text
    assert "QS: no card is played before the dummy is settled - answer y or n" in text
    assert "7x is not a card - type a number 1-" in text
    rules = {rule for rule, _ in clumsy.tried}
    assert rules == {"follow-suit", "card-held"}
    names = {
        "S": ("spade", "spades"),
        "H": ("heart", "hearts"),
        "D": ("diamond", "diamonds"),
        "C": ("club", "clubs"),
    }
    for rule, card in clumsy.tried:
        if rule == "card-held":
            assert f"Not allowed: you do not hold {card} [rule: card-held]" in text
    refusals = re.findall(r"Not allowed: you hold an? (\w+), and (\w+) were led: you must follow suit", text)
    assert refusals and all((one, many) in names.values() for one, many in refusals)
    assert text.count("[rule: follow-suit]") == len([r for r, _ in clumsy.tried if r == "follow-suit"])


def test_the_exchange_prompts_show_the_dummy_only_after_a_look() -> None:
    out: list[str] = []
    asked: list[str] = []
    answers = {
        "Look at the dummy? (y/n) > ": itertools.cycle("yn"),
        "Take the dummy? (y/n) > ": itertools.cycle("y"),
    }
    answers["Take the dummy without looking? (y/n) > "] = itertools.cycle("n")

    def read(prompt: str) -> str:
        asked.append(prompt)
        if prompt in answers:
            return next(answers[prompt])
        return "" if "Press Enter" in prompt else "1"

    opts = PlayOptions(game="neuf", players=3, bot="heuristic", seed=8, lang="en")
    assert play_local(opts, read=read, write=out.append, style=Style()) == 0
    questions = [p for p in asked if "(y/n)" in p]
    hands = len(re.findall(r"^Hand \d+ is over", "\n".join(out), re.M))
    # Each hand: look (y) then take, or look (n) then take without looking; in turn.
    expected = [
        ["Look at the dummy? (y/n) > ", "Take the dummy? (y/n) > "]
        if k % 2 == 0
        else ["Look at the dummy? (y/n) > ", "Take the dummy without looking? (y/n) > "]
        for k in range(hands)
    ]
    assert questions == [q for pair in expected for q in pair]
    # After a look the dummy is shown next to the hand; taken, it is the hand at the first card.
    lines = "\n".join(out).split("\n")
    i = next(i for i, line in enumerate(lines) if line.startswith("   The dummy  "))
    assert lines[i + 1].startswith("   Your hand  ")
    new_hand = next(line for line in lines[i + 2 :] if line.startswith("   Your hand  "))
    assert sorted(new_hand.split()[2:]) == sorted(lines[i].split()[2:])
    text = "\n".join(out)
    # Each decision is said as it is taken, the look first: mine and the bots' alike.
    assert "   You looked at the dummy\n   The dummy  " in text and "   You took the dummy\n" in text
    assert "   You left the dummy without looking\n" in text
    assert re.search(r"^   (Alice|Bob) looked at the dummy\n   \1 (took|left) the dummy$", text, re.M)


def test_a_player_who_never_looks_never_sees_the_dummy_nor_what_the_others_saw() -> None:
    out: list[str] = []

    def read(prompt: str) -> str:
        if "(y/n)" in prompt:
            return "n"
        return "" if "Press Enter" in prompt else "1"

    opts = PlayOptions(game="neuf", players=3, bot="heuristic", seed=11, lang="en")
    assert play_local(opts, read=read, write=out.append, style=Style()) == 0
    text = "\n".join(out)
    assert "Final scores" in text
    assert re.search(r"^   (Alice|Bob) looked at the dummy\n   \1 (took|left) the dummy$", text, re.M)
    # The dummy's cards appear only once a hand is over (the 13 cards nobody played), never before.
    assert "The dummy  " not in text and "Out of play in the dummy" not in text
    assert "(you saw them in the dummy)" not in text and "(you saw it in the dummy)" not in text
    assert text.count("The dummy held ") == len(re.findall(r"^Hand \d+ is over", text, re.M))


def test_blind_exchanges_ask_only_whether_to_take_the_dummy() -> None:
    inputs = "zz\ny\n" + "1\n" * 40 + "quit\n"
    out = run(["--seed", "5", "--rule", "exchange=blind", *EN], input=inputs).output
    assert "Look at the dummy" not in out and "Take the dummy? " not in out
    assert "Take the dummy without looking? (y/n) > zz\nPlease answer y or n" in out
    assert "You took the dummy" in out and "looked" not in out
    assert "Blind exchanges" in out


def test_help_is_the_rules_of_le_neuf_for_the_options_in_force() -> None:
    def help_text(*args: str) -> str:
        out = run(["--seed", "1", *args], input="help\naide\nquit\n").output
        return " ".join(out.split())  # the help is folded to the width of the terminal

    default = help_text(*EN)
    assert "How to play Le Neuf" in default and "How to play Nines" not in default
    assert "may each look at the dummy (privately) and take it" in default
    assert "Trumps change with every hand: ♠ spades, ♥ hearts, ♣ clubs, ♦ diamonds, no trumps" in default
    assert "The highest trump wins the trick, else the highest card of the suit led" in default
    assert "Everyone starts at 9; each hand adds 4 minus the tricks you took." in default
    changed = help_text("--rule", "blind-exchange", "--rule", "trumps=N", "--rule", "start=4", *EN)
    assert "Exchanges are blind: nobody looks at the dummy." in changed and "(privately)" not in changed
    assert "No trumps in any hand." in changed and "The highest trump" not in changed
    assert "The highest card of the suit led wins the trick" in changed
    assert "Everyone starts at 4;" in changed
    hearts = help_text("--rule", "trumps=hearts-first", *EN)
    assert "every hand: ♥ hearts, ♦ diamonds, ♠ spades, ♣ clubs, no trumps, then round again" in hearts
    fr = help_text("--lang", "fr")
    assert "Comment jouer au Neuf" in fr and "regarder le mort (en secret)" in fr
    assert "Il faut fournir à la couleur demandée" in fr and "Le plus gros atout fait le pli" in fr
    it = help_text("--lang", "it", "--rule", "exchange=blind")
    assert "Come si gioca a Le Neuf" in it and "nessuno guarda il morto" in it
    assert "Si risponde al seme di uscita" in it


def test_quitting_between_hands_records_the_finished_hands(tmp_path: Path) -> None:
    rec = tmp_path / "part.json"
    out: list[str] = []

    def read(prompt: str) -> str:
        if "Press Enter" in prompt:
            return "quit"
        if "Quit the game?" in prompt:
            return "y"
        return "n" if "(y/n)" in prompt else "1"

    opts = PlayOptions(game="neuf", players=3, bot="random", seed=6, lang="en", record=rec, name="Zoé")
    assert play_local(opts, read=read, write=out.append, style=Style()) == 0
    doc = json.loads(rec.read_text(encoding="utf-8"))
    validate_neuf_record(doc)
    replay_neuf(doc)
    assert len(doc["hands"]) == 1 and doc["result"]["finished"] is False
    assert [p["name"] for p in doc["players"]] == ["Zoé", "Alice", "Bob"]
    assert "Record of 1 finished hand written to" in "\n".join(out)


def test_the_table_shows_the_hand_trump_tricks_and_totals() -> None:
    out = run(["--seed", "4", *EN], input="n\nn\n1\n1\n1\nquit\n").output
    table = out[out.index("· trick ") :]
    assert re.search(r"── Hand 1 · trumps ♠ spades · trick \d+ · your turn", out)
    assert re.search(r"^ ▶ you    \d+ tricks?  +total 9", table, re.M)
    assert re.search(r"^   Alice  \d+ tricks?  +total 9", table, re.M)
    hand = re.findall(r"Your hand  (.*)", table)[0].split()
    suits = [SUIT_OF[parse_card(c)] for c in hand]
    runs = [suit for suit, _ in itertools.groupby(suits)]
    assert len(runs) == len(set(runs)), "each suit together"
    assert "S" not in suits or suits[0] == "S", "trumps first"
    assert re.search(
        r"(You lead: play any card\.|You must follow . \w+:|You have no . \w+: play any card\.)", out
    )


# ---------------------------------------------------------------------------
# Options and usage errors


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "4"], "Le Neuf is for exactly 3 players, not 4"),
        (["-n", "2"], "Le Neuf is for exactly 3 players, not 2"),
        (["--offline", "--transcript", "t.p2pt"], "an --offline game has no transcript to save"),
    ],
)
def test_usage_errors_exit_2_with_the_usage(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["play", "--game", "neuf", *args], input="")
    assert result.exit_code == 2
    assert result.output.startswith("Usage: ") and message in result.output


def test_an_unknown_game_is_a_usage_error() -> None:
    result = CliRunner().invoke(main, ["play", "--game", "chess"], input="")
    assert result.exit_code == 2 and "Usage: " in result.output and "'chess' is not one of" in result.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rule", "bogus"], "unknown rule 'bogus'"),
        (["--rule", "hard-nines"], "unknown rule 'hard-nines'"),
        (["--rule", "start=0"], "rule start must be from 1 to 30, not 0"),
        (["--rule", "start=31"], "rule start must be from 1 to 30, not 31"),
        (["--rule", "trumps=XYZ"], "is not a suit"),
        (["--bot", "clever"], "unknown bot"),
        (["--lang", "de"], "unknown language"),
    ],
)
def test_bad_options_are_usage_errors(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["play", "--game", "neuf", *args], input="")
    assert result.exit_code == 2
    assert result.output.startswith("Usage: ") and "Error: Invalid value for '" in result.output
    assert message in result.output


def test_the_network_keeps_a_signed_transcript_that_audits_and_offline_keeps_none(tmp_path: Path) -> None:
    transcript = tmp_path / "neuf.p2pt"
    net = run(["--watch", "--seed", "1", "--transcript", str(transcript), *EN]).output
    assert f"Signed transcript (check it with p2pcards audit FILE):\n  {transcript}\n" in net
    report = audit_file(transcript)
    assert report.valid and report.table is not None and report.table.GAME == "neuf"
    assert report.summary().startswith("VALID: a finished game of Le Neuf, 3 players, ")
    assert totals_row(net) == list(report.table.match.totals)
    offline = run(["--watch", "--seed", "1", "--offline", *EN]).output
    assert "transcript" not in offline and "offline" not in offline and "offline" not in net
    # The same seed, the same match.
    assert offline == run(["--watch", "--seed", "1", "--offline", *EN]).output


def test_play_help_lists_the_le_neuf_options() -> None:
    out = CliRunner().invoke(main, ["play", "--help"]).output
    flat = " ".join(out.split())
    assert "--game [nines|neuf]" in out
    for text in (
        "Le Neuf",
        "trumps=hearts-first",
        "exchange=blind",
        "blind-exchange",
        "start=N",
        "Le Neuf is for 3",
    ):
        assert text in flat, text


def test_lines_fit_in_80_columns() -> None:
    out = run(["--watch", "--seed", "8", *EN]).output
    for lang in ("en", "fr", "it"):
        out += run(["--watch", "--seed", "8", "--lang", lang]).output
        out += run(["--seed", "8", "--lang", lang], input="help\ny\nn\n7x\n1\nscore\n1\n1\nq\n").output
    lines = [line for line in out.splitlines() if not line.startswith("  /")]
    assert max(visible_len(line) for line in lines) <= WIDTH + 1


# ---------------------------------------------------------------------------
# A real terminal

needs_exe = pytest.mark.skipif(not EXE.exists(), reason="the p2pcards command is not installed in this venv")


@needs_exe
def test_offline_terminal_session_looks_refuses_a_card_it_does_not_hold_and_ends_on_ctrl_d() -> None:
    pexpect = pytest.importorskip("pexpect")
    child = pexpect.spawn(
        str(EXE),
        ["play", "--game", "neuf", "--offline", "--seed", "3", *EN],
        env={
            "PATH": "/usr/bin:/bin",
            "TERM": "xterm",
            "NO_COLOR": "1",
            "LANG": "C.UTF-8",
            "P2PCARDS_HOME": os.environ["P2PCARDS_HOME"],
        },
        encoding="utf-8",
        timeout=20,
        dimensions=(50, 80),
    )
    try:
        child.expect("Le Neuf: you against Alice and Bob")
        child.expect(r"Look at the dummy\? \(y/n\) > ")
        child.sendline("y")
        child.expect(r"The dummy  (.*)\r\n")
        dummy = child.match.group(1).split()
        child.expect(r"Take the dummy\? \(y/n\) > ")
        child.sendline("y")
        child.expect("Your card > ")
        screen = child.before.replace("\r", "")
        hand = re.findall(r"Your hand  (.*)", screen)[-1].split()
        assert set(hand) <= set(dummy)
        absent = next(c for c in ("A♠", "K♥", "Q♦", "J♣", "10♠", "2♥") if c not in hand)
        child.sendline(absent)
        child.expect(rf"Not allowed: you do not hold {absent} \[rule: card-held\]")
        child.expect("Your card > ")
        child.sendeof()
        child.expect("Game abandoned.")
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert child.exitstatus == 0


@needs_exe
@pytest.mark.parametrize("when", ["at the prompt", "while the bots play"])
def test_ctrl_c_in_a_networked_game_leaves_cleanly(when: str) -> None:
    """Ctrl-C ends ``play`` with a few lines and exit 130, never a traceback, whether the
    player was being asked or the bots were playing: seat 0 signs that it leaves."""
    pexpect = pytest.importorskip("pexpect")
    args = ["play", "--game", "neuf", "--seed", "5", *EN]
    if when == "while the bots play":
        args.append("--watch")
    child = pexpect.spawn(
        str(EXE),
        args,
        env={
            "PATH": "/usr/bin:/bin",
            "TERM": "xterm",
            "NO_COLOR": "1",
            "LANG": "C.UTF-8",
            "P2PCARDS_HOME": os.environ["P2PCARDS_HOME"],
        },
        encoding="utf-8",
        timeout=30,
        dimensions=(50, 100),
    )
    try:
        child.expect("Hand 1" if when == "while the bots play" else r"\(y/n\) >")
        child.sendintr()
        child.expect(pexpect.EOF)
    finally:
        child.close()
    assert "Traceback" not in child.before and "ExceptionGroup" not in child.before, child.before
    assert "Game abandoned." in child.before and "Signed transcript" in child.before
    assert child.exitstatus == 130


def test_le_neuf_takes_a_card_with_its_suit_named_and_explains_a_native_letter() -> None:
    cards = [parse_card(t) for t in ("QS", "10H")]
    tr = Translator("fr")
    for text, card in (("Q pique", "QS"), ("10cuori", "10H"), ("q ♠", "QS")):
        assert parse_card_answer(text, cards, seat=1, tr=tr) == PlayCard(seat=1, card=parse_card(card))
    assert parse_card_answer("2 carreau", cards, seat=1, tr=tr) == Attempt(
        action=PlayCard(seat=1, card=parse_card("2D"))
    )
    got = parse_card_answer("Q p", cards, seat=1, tr=tr)
    assert isinstance(got, Problem)
    assert got.message.startswith("Q p n'est pas une carte - une carte s'écrit avec sa hauteur en anglais")
    assert got.message.endswith("(S pique, H cœur, D carreau, C trèfle), son symbole ou son nom : QS")
    got = parse_card_answer("R c", cards, seat=1, tr=tr)
    assert isinstance(got, Problem) and got.message.endswith(" : KH")


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_le_neuf_asks_which_card_a_c_means_in_french_and_italian(lang: str) -> None:
    """``c`` is cœur, cuori to a French or Italian player and clubs in English: ``6c`` is
    asked again (never a silent 6♣, never a refusal about clubs), whichever of the two is
    held, since one held does not say which was meant; in English it is clubs."""
    hand = [parse_card(t) for t in ("JS", "KH", "6H", "7C", "6C", "5C")]
    tr = Translator(lang)
    no_heart = [c for c in hand if c.text() != "6H"]
    for cards in (hand, [c for c in hand if c.suit == "H"], no_heart):  # leading, following, no 6♥
        for text in ("6c", "6C", "6 c"):
            got = parse_card_answer(text, cards, seat=0, tr=tr)
            assert isinstance(got, Problem), (text, got)
            assert "6H" in got.message and "6C" in got.message, got.message
    for suit, card in (("H", "6H"), ("C", "6C")):
        assert parse_card_answer(f"6 {tr.suit_name(suit)}", hand, seat=0, tr=tr) == PlayCard(
            seat=0, card=parse_card(card)
        )
    english = parse_card_answer("6c", hand, seat=0, tr=Translator("en"))
    assert english == PlayCard(seat=0, card=parse_card("6C"))


@pytest.mark.parametrize(
    ("lang", "line", "card"),
    [
        ("fr", "as cœur", "AH"),
        ("fr", "As de pique", "AS"),
        ("fr", "dame de carreau", "QD"),
        ("fr", "roi coeur", "KH"),
        ("it", "asso di picche", "AS"),
        ("it", "donna di quadri", "QD"),
        ("it", "re di cuori", "KH"),
        ("en", "queen of diamonds", "QD"),
        ("en", "Ace of Hearts", "AH"),
        ("fr", "6c cœur", "6H"),  # the c settled by the word after it
        ("it", "6c fiori", "6C"),
    ],
)
def test_le_neuf_takes_a_card_said_in_words(lang: str, line: str, card: str) -> None:
    hand = [parse_card(t) for t in ("AS", "AH", "QD", "KH", "6H", "6C")]
    got = parse_card_answer(line, hand, seat=2, tr=Translator(lang))
    assert got == PlayCard(seat=2, card=parse_card(card)), got


def test_le_neuf_asks_which_ace_as_is_in_french_and_refuses_what_follows_a_card() -> None:
    hand = [parse_card(t) for t in ("AS", "AH", "QD")]
    got = parse_card_answer("as", hand, seat=0, tr=Translator("fr"))
    assert isinstance(got, Problem), got
    assert got.message.startswith("as : quel as ? En notation, AS est l'as de pique"), got
    got = parse_card_answer("as", hand, seat=0, tr=Translator("it"))  # (an ace is asso there)
    assert got == PlayCard(seat=0, card=parse_card("AS")), got
    for lang, line, said in (
        ("en", "Q pique cœur", "Q pique cœur: QS is a card, but cœur is not part of it - type just QS"),
        ("fr", "as de cœur 2", "as de cœur 2 : AH est une carte, mais 2 n'en fait pas partie - tapez"),
        ("it", "asso di cuori e basta", "asso di cuori e basta: AH è una carta, ma e basta non ne fa parte"),
        ("en", "9 banana", "9 banana is not a card - type a number 1-3 or a card like AS"),
        ("en", "²", "² is not a card"),  # (the key left of 1 on a French keyboard: no crash)
    ):
        got = parse_card_answer(line, hand, seat=0, tr=Translator(lang))
        assert isinstance(got, Problem) and got.message.startswith(said), (line, got)


def test_a_rank_named_alone_at_the_card_prompt_is_asked_which_card() -> None:
    """``asso`` or ``king`` alone names no card: Le Neuf asks which, showing one of that rank
    among the cards that may be played (any suit when none may)."""
    cards = [parse_card(t) for t in ("AS", "7H", "KD")]
    got = parse_card_answer("asso", cards, seat=1, tr=Translator("it"))
    assert got == Problem(message="asso: quale? Scrivi la carta con il suo seme, per esempio AS"), got
    got = parse_card_answer("queen", cards, seat=1, tr=Translator("en"))
    assert got == Problem(message="queen: which one? Type the card with its suit, such as QH"), got


def test_enter_alone_at_the_card_prompt_says_what_to_type() -> None:
    """Enter alone at Le Neuf's card prompt is told what to type (a number or a card), as at
    Nines' prompt, not that '' is not a card."""
    cards = [parse_card(t) for t in ("QS", "2D")]
    for lang, word in (("en", "Type"), ("fr", "Tapez"), ("it", "Scrivi")):
        got = parse_card_answer("", cards, seat=1, tr=Translator(lang))
        assert isinstance(got, Problem) and got.message.startswith(word), got
        assert "1-2" in got.message and "''" not in got.message, got
        got = parse_card_answer("", cards[:1], seat=1, tr=Translator(lang))
        assert isinstance(got, Problem) and got.message.startswith(word + " 1"), got
        assert "QS" in got.message and "''" not in got.message, got


@pytest.mark.parametrize("lang", ["en", "it"])
def test_at_a_networked_table_the_card_a_player_plays_is_said_at_once(lang: str) -> None:
    """Over the network a trick is said when it is won, and the others may take minutes: the
    card the player just played (typed as "re di cuori", or a number) is said at once, with
    the trick so far, not only once the last seat has played; the others' cards wait as before."""
    from p2pcards.ui.prompt import Console
    from p2pcards.ui.screen import make_screen

    said: list[str] = []
    console = Console(tr=Translator(lang), style=Style(), write=said.append)
    screen = make_screen("neuf", console, ["Ann", "Bob", "Cy"], me=0, rules=NeufRules(),
                         watch=False, pause_between_hands=False)  # fmt: skip
    screen.follow_live()
    display = screen.display  # type: ignore[attr-defined]
    display._trump, display._trick = "S", 1  # (the second trick of a hand of spades)
    screen.move(PlayCard(seat=1, card=parse_card("KH")))
    assert said == []  # another seat's card: said with its trick
    screen.move(PlayCard(seat=0, card=parse_card("2H")))
    expected = {
        "en": "   Trick 2: Bob led KH, you played 2H (H hearts led)",
        "it": "   Presa 2: Bob ha aperto con KH, hai giocato 2H (uscita a H cuori)",
    }[lang]
    assert said == [expected], said
    screen.move(PlayCard(seat=2, card=parse_card("AH")))
    assert len(said) == 2 and said[1].endswith(("Cy wins", "prende Cy")), said
    # A lead is said too.
    screen.move(PlayCard(seat=2, card=parse_card("3C")))
    screen.move(PlayCard(seat=0, card=parse_card("4C")))
    assert said[-1].startswith(("   Trick 3: Cy led 3C, you played 4C", "   Presa 3: Cy ha aperto con 3C"))
