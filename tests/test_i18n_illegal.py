"""Why the rules refused a move reaches French and Italian players in their language: the
detail of ``illegal move: {detail} (rule {rule})`` where a match stops and in an audit's report.

The rules engines say the detail in English (``games/rule_words.ILLEGAL_WORDS``), which
transcripts and outside verifiers hold word for word; the interface reads it back against
those texts (``ui.problems.illegal_text``) and says it again: its cards in words (``la dame
de pique``), its suits by their names, its seats by the players' names where it has them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import test_neuf_rules as neuf_t
import test_nines_rules as nines_t
import test_protocol_threats as threats
from click.testing import CliRunner
from illegal_cases import NEUF, NINES, Case, refusal

from p2pcards import cli
from p2pcards.cards import deck
from p2pcards.games.neuf import prompt as neuf_prompt
from p2pcards.games.neuf import rules as neuf
from p2pcards.games.nines import prompt as nines_prompt
from p2pcards.games.nines import rules as nines
from p2pcards.games.rule_words import ILLEGAL_WORDS
from p2pcards.net.node import Outcome
from p2pcards.protocol import faults
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.transcript import encode_file
from p2pcards.ui.i18n import Translator
from p2pcards.ui.netgame import describe_outcome
from p2pcards.ui.problems import card_words, illegal_text, problem_text, template_regex
from p2pcards.ui.render import Style

LANGS = ["fr", "it"]
CASES: dict[str, Case] = {
    **{f"nines: {k}": c for k, c in NINES.items()},
    **{f"neuf: {k}": c for k, c in NEUF.items()},
}
NAMES = ["Ann", "Bob", "Alba"]
FRAMES = {
    "live": lambda detail, rule: faults.ILLEGAL_MOVE.format(detail=detail, rule=rule),
    "shown": lambda detail, rule: faults.ILLEGAL_SEEN.format(detail=detail, rule=rule),
    "in a trick": lambda detail, rule: faults.ILLEGAL_SEEN_IN_TRICK.format(trick=4, detail=detail, rule=rule),
}
"""The faults that carry a refusal's detail (as the adapters and the table write them)."""


def english_runs(text: str) -> set[str]:
    """Every three words in a row of ``text`` (the Python a bad card was sent as left out)."""
    words = re.findall(r"[A-Za-z]+", re.sub(r"Card\(\w+'?\)|'[^']*'", " ", text))
    return {" ".join(words[k : k + 3]) for k in range(len(words) - 2)}


def english_left(english: str, said: str) -> set[str]:
    """The runs of three English words of ``english`` that ``said`` still holds."""
    flat = " ".join(re.findall(r"[A-Za-z]+", said))
    return {run for run in english_runs(english) if re.search(rf"\b{run}\b", flat)}


# -- the catalogs


WORDS = [
    *ILLEGAL_WORDS,
    *(f"card_the_{rank}" for rank in range(1, 14)),
    "illegal_named_turn",
    "illegal_named_in_hand",
    *(f"rulename_{rule}" for rule in ("hand-over", "recycle", "reveal", "look", "exchange", "cut")),
]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("key", WORDS)
def test_every_refusal_has_a_french_and_an_italian_translation(key: str, lang: str) -> None:
    english = Translator("en")(key)
    said = Translator(lang)(key)
    assert said and said != english, (key, said)
    assert set(re.findall(r"\{(\w+)\}", said)) <= set(re.findall(r"\{(\w+)\}", english)), said
    if len(english.split()) >= 3:
        assert not english_left(english, said), said


def test_every_refusal_reads_back_as_itself_alone() -> None:
    """No refusal's English reads as another's (a field of one could swallow another's words)."""
    from p2pcards.ui.problems import _illegal_templates

    for case in CASES.values():
        detail = refusal(case).detail
        keys = [key for pattern, key in _illegal_templates() if pattern.fullmatch(detail)]
        assert keys == [case.key], (detail, keys)


# -- every refusal of both games, provoked, in every frame


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", sorted(CASES))
def test_every_refusal_is_said_in_the_language_and_the_english_is_unchanged(name: str, lang: str) -> None:
    case = CASES[name]
    e = refusal(case)
    assert e.detail == case.english  # (what the engine says, word for word)
    tr = Translator(lang)
    for frame in FRAMES.values():
        english = frame(e.detail, e.rule)
        assert problem_text(Translator("en"), english) == english
        assert problem_text(Translator("en"), english, NAMES) == english  # (names or not)
        for names in ((), NAMES):
            said = problem_text(tr, english, names)
            assert not english_left(english, said), said
            assert illegal_text(tr, e.detail, names) in said
            assert tr.rule_name(e.rule) in said
    said = illegal_text(tr, e.detail)
    assert said != e.detail
    for field, value in e.values.items():  # each card in words, each suit by its name
        if field == "thing":  # (what was sent for a card, as Python writes it: as it is)
            assert str(value) in said
            continue
        for card in re.findall(r"(?:10|[2-9AJQK])[SHDC]", str(value)):
            assert card_words(tr, card) in said, (card, said)
        if str(value) in "SHDC" and len(str(value)) == 1:
            assert tr.suit_name(str(value)) in said


@pytest.mark.parametrize(
    ("lang", "card", "words"),
    [
        ("fr", "QS", "la dame de pique"),
        ("fr", "AH", "l'as de cœur"),
        ("fr", "10D", "le 10 de carreau"),
        ("fr", "JC", "le valet de trèfle"),
        ("it", "QS", "la donna di picche"),
        ("it", "AH", "l'asso di cuori"),
        ("it", "8D", "l'8 di quadri"),
        ("it", "KC", "il re di fiori"),
        ("en", "QS", "QS"),
    ],
)
def test_a_card_is_said_as_a_player_says_it(lang: str, card: str, words: str) -> None:
    assert card_words(Translator(lang), card) == words


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("fr", "coup illégal : joue la dame de pique, qu'il n'a pas en main (règle carte en main)"),
        ("it", "mossa illegale: gioca la donna di picche, che non ha in mano (regola carta in mano)"),
    ],
)
def test_a_card_not_held_reads_as_a_player_would_say_it(lang: str, said: str) -> None:
    english = "illegal move: plays QS, which it does not hold (rule card-held)"
    assert Translator(lang).problem(english) == said


@pytest.mark.parametrize(
    ("lang", "turn", "hand"),
    [
        ("fr", "c'est à Ann de jouer, pas à Alba", "joue le 5 de cœur, qui est dans la main d'Alba"),
        ("it", "tocca ad Ann, non ad Alba", "gioca il 5 di cuori, che è in mano ad Alba"),
    ],
)
def test_seats_are_named_where_the_names_are_known(lang: str, turn: str, hand: str) -> None:
    tr = Translator(lang)
    assert illegal_text(tr, "it is seat 0's turn, not seat 2's", NAMES) == turn
    assert illegal_text(tr, "plays 5H, which is in seat 2's hand", NAMES) == hand
    unnamed = illegal_text(tr, "it is seat 0's turn, not seat 2's")
    assert "0" in unnamed and "2" in unnamed and "Ann" not in unnamed
    beyond = illegal_text(tr, "it is seat 0's turn, not seat 5's", NAMES)  # (a seat with no name: its number)
    assert beyond == unnamed.replace("2", "5")


def test_a_detail_no_refusal_made_is_left_as_it_is() -> None:
    for lang in LANGS:
        tr = Translator(lang)
        for text in ("plays QS, which it does not hold!", "it is seat x's turn, not seat 1's", ""):
            assert illegal_text(tr, text) == text


# -- where a player reads them


@pytest.mark.parametrize("lang", LANGS)
def test_the_end_of_match_line_says_the_refusal_with_the_players_names(lang: str) -> None:
    tr = Translator(lang)
    problem = faults.ILLEGAL_MOVE.format(detail="it is seat 0's turn, not seat 2's", rule="turn-order")
    outcome = Outcome(status="failed", problem=problem, blamed=(2,), transcript=None, table=None, names=NAMES)
    first = describe_outcome(outcome, tr)[0]
    assert illegal_text(tr, "it is seat 0's turn, not seat 2's", NAMES) in first, first
    assert not english_left(problem, first), first


@pytest.mark.parametrize("lang", LANGS)
def test_the_audit_of_a_transcript_with_an_illegal_move_says_it_in_the_language(
    lang: str, tmp_path: Path
) -> None:
    """``p2pcards audit FILE --lang``, as a reader runs it, of the file of a match a seat
    cheated in (a card that matches neither the suit nor the rank): the refusal in the
    reader's language, its English as before in the file and in an English audit."""
    net = threats.run(threats.build(3, threats.IllegalCardTable))
    data = encode_file(net.tables[0].transcript.records(), saved_by=0, status="failed")
    (problem,) = audit_bytes(data).problems
    found = template_regex(faults.ILLEGAL_MOVE).fullmatch(problem.what)
    assert found is not None and found["rule"] == "match-suit-or-rank", problem.what
    assert re.fullmatch(r"\w+ matches neither the active suit \w nor the rank of \w+", found["detail"])
    path = tmp_path / "cheat.p2pt"
    path.write_bytes(data)
    env = {"P2PCARDS_LANG": None, "COLUMNS": "80"}
    english = CliRunner().invoke(cli.main, ["audit", str(path)], env=env)
    assert problem.what in " ".join(english.output.split())  # (the English report is as before)
    result = CliRunner().invoke(cli.main, ["audit", str(path), "--lang", lang], env=env)
    assert result.exit_code == 1, result.output
    said = " ".join(result.output.split())
    assert not english_left(problem.what, said), said
    tr = Translator(lang)
    assert " ".join(illegal_text(tr, found["detail"]).split()) in said, said
    assert tr.rule_name("match-suit-or-rank") in said
    assert all(len(line) <= 80 for line in result.output.splitlines()), result.output


@pytest.mark.parametrize(
    ("lang", "turn"), [("fr", "c'est à p0 de jouer, pas à p2"), ("it", "tocca a p0, non a p2")]
)
def test_the_audit_names_the_seats_of_a_refusal_by_the_players_names(lang: str, turn: str) -> None:
    """A refusal that names seats (a move out of turn) is said in the audit with the names of
    the file's players; the English report keeps the numbers, as the file does."""
    from p2pcards.protocol.audit import Problem

    net = threats.run(threats.build(3, threats.IllegalCardTable))
    data = encode_file(net.tables[0].transcript.records(), saved_by=0, status="failed")
    report = audit_bytes(data)
    (problem,) = report.problems
    what = faults.ILLEGAL_MOVE.format(detail="it is seat 0's turn, not seat 2's", rule="turn-order")
    report.problems[0] = Problem(hand=problem.hand, seat=2, record=problem.record, what=what)
    assert what in " ".join(report.summary().split())
    said = " ".join(report.summary(Translator(lang)).split())
    assert turn in said, said


# -- a dispute over the dummy's cards (Le Neuf), and the prompt's refusals


DUMMY_CLAIMS = sorted(name for name, case in NEUF.items() if case.rule in ("look", "exchange"))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("name", DUMMY_CLAIMS)
def test_a_dispute_over_the_dummys_cards_says_the_refusal_in_the_language(name: str, lang: str) -> None:
    """The dummy's cards, once opened, make a look or an exchange the rules refuse: the seat
    that sees it disputes the card with the refusal's detail, which every seat reads."""
    detail = refusal(NEUF[name]).detail
    tr = Translator(lang)
    for english in (
        faults.DUMMY_IMPOSSIBLE.format(detail=detail),
        faults.DISPUTED.format(reason=faults.DUMMY_IMPOSSIBLE.format(detail=detail)),
        faults.DISPUTE_FALSE.format(why=faults.DUMMY_IMPOSSIBLE.format(detail=detail)),
    ):
        assert problem_text(Translator("en"), english) == english
        said = problem_text(tr, english)
        assert not english_left(english, said), said
        assert illegal_text(tr, detail) in said, said


@pytest.mark.parametrize("lang", LANGS)
def test_the_prompt_says_a_refusal_it_has_no_words_of_its_own_for_in_the_language(lang: str) -> None:
    tr = Translator(lang)
    h = nines_t.position(hands={0: "4H KS", 1: "5H"}, top="7H")
    play = nines.Play(seat=0, card=nines_t.C("4H"), suit="S")
    error = refusal(Case(lambda: h.apply(play), "declare", "", ""))
    said = nines_prompt.explain_refusal(error, play, nines.SeatView(h, 0), [], tr, Style())
    assert said == tr("err_rule", why=tr("illegal_only_nine_declares"), rule=tr.rule_name("declare"))
    assert not english_left(error.detail, said), said
    n = neuf.HandState(neuf_t.DEFAULT, 0, deck())
    early = neuf.PlayCard(seat=0, card=n.hands[0][0])  # type: ignore[arg-type]
    error = refusal(Case(lambda: n.apply(early), "phase", "", ""))
    said = neuf_prompt.explain_refusal(error, early, neuf.NeufView(n, 0), tr, Style())
    assert tr("illegal_play_before_exchanges") in said and not english_left(error.detail, said), said
    english = neuf_prompt.explain_refusal(error, early, neuf.NeufView(n, 0), Translator("en"), Style())
    assert error.detail in english  # (in English, the engine's words as they are)
