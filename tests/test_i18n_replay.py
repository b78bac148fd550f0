"""``p2pcards replay`` shows the hands in the player's language: the headings, the cards
dealt, every move as a sentence, the rules, who left and the final lines, in the terminal
and on the ``--html`` page, with ``--lang`` or ``P2PCARDS_LANG``; lines still fit the
terminal and the English stays as it was."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from protocol_helpers import transcript_bytes
from test_leave import left_match_file
from test_neuf_protocol import build as build_neuf
from test_neuf_protocol import run as run_neuf

from p2pcards.cli import main

FIXTURES = Path(__file__).parent / "fixtures"

REPLAY_ENGLISH = (
    "Hand ", "deals", "Dealt", "Moves", "Tricks", "Trick ", "Stock", "Dummy", "Exchanges",
    " plays ", " leads ", " draws ", " wins", " names ", " keeps ", " takes ", "the dummy",
    "Totals", "Penalties", "Scores", "Winner", "Final totals", "went out", "left after",
    "the others", "Rules", "trumps", "no trump", "spades", "hearts", "diamonds", "clubs",
    "playoff", "seat ", "forced by", " each", "up card", "stock", "did not finish",
)  # fmt: skip
"""Phrases of the English replay that a French or Italian one never shows."""

SAID = {
    "fr": {
        "nines": ("── Manche 1 · ", "  Cartes distribuées :", "  Coups :", " joue ", " pioche ",
                  "Pioche (", "Pénalités : ", "Totaux : ", "Totaux finaux : ", "Victoire"),
        "neuf": ("  Mort : ", "  Échanges :", "  Plis :", " entame ", " : pli pour ", "Plis faits : ",
                 "Points (4 − plis faits) : ", " regarde le mort et ", "l'atout est "),
        "left": ("a quitté la partie après 1 manche (départ signé de sa main : « ",
                 "pendant la manche 2 : cette manche est annulée"),
    },
    "it": {
        "nines": ("── Mano 1 · fa le carte ", "  Carte distribuite:", "  Mosse:", " gioca ", " pesca ",
                  "Tallone (", "Penalità: ", "Totali: ", "Totali finali: ", "Vittoria"),
        "neuf": ("  Morto: ", "  Scambi:", "  Prese:", " apre con ", ": presa a ", "Prese fatte: ",
                 "Punti (4 − prese fatte): ", " guarda il morto e ", "l'atout è "),
        "left": ("ha lasciato la partita dopo 1 mano (uscita firmata di persona: «",
                 "durante la mano 2: quella mano è annullata"),
    },
}  # fmt: skip


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A game of Nines with variants (4 players), one of Le Neuf, and a Le Neuf match a player left."""
    folder = tmp_path_factory.mktemp("replay-i18n")
    neuf = build_neuf(2)
    run_neuf(neuf, 2)
    (folder / "neuf.p2pt").write_bytes(transcript_bytes(neuf[1]))
    (folder / "left.p2pt").write_bytes(left_match_file("neuf"))
    nines = FIXTURES / "nines-4p-variants.p2pt"
    return {"nines": nines, "neuf": folder / "neuf.p2pt", "left": folder / "left.p2pt"}


def replay(*args: str, lang: str | None = None, env_lang: str | None = None, columns: int = 80) -> Result:
    env = {"COLUMNS": str(columns), **({"P2PCARDS_LANG": env_lang} if env_lang else {})}
    result = CliRunner().invoke(main, ["replay", *args, *(["--lang", lang] if lang else [])], env=env)
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output
    return result


def no_english(out: str, columns: int = 80) -> None:
    for phrase in REPLAY_ENGLISH:
        assert phrase not in out, (phrase, out)
    for line in out.splitlines():
        assert len(line) <= columns, line


@pytest.mark.parametrize("lang", ["fr", "it"])
@pytest.mark.parametrize("name", ["nines", "neuf", "left"])
def test_the_hands_in_french_and_italian(files: dict[str, Path], name: str, lang: str) -> None:
    out = replay(str(files[name]), lang=lang).output
    for words in SAID[lang][name]:
        assert words in out, (words, out)
    no_english(out)


@pytest.mark.parametrize("columns", [80, 56])
def test_the_language_may_come_from_p2pcards_lang_and_lines_fit(files: dict[str, Path], columns: int) -> None:
    for name in ("nines", "neuf"):
        out = replay(str(files[name]), env_lang="it", columns=columns).output
        assert SAID["it"][name][0] in out
        no_english(out, columns)
        french = replay(str(files[name]), lang="fr", columns=columns).output
        no_english(french, columns)
        assert max(len(line) for line in french.splitlines()) > columns - 12  # folded near the edge


def test_the_english_is_said_as_before(files: dict[str, Path]) -> None:
    out = replay(str(files["left"]), lang="en").output
    assert out == replay(str(files["left"])).output
    heading = "── Hand 1 · p0 deals · trumps spades (♠) ─"
    for words in (heading, "  Dealt:", "  Tricks:", "left after 1 hand ("):
        assert words in out, out
    assert "Final totals: " in out and "\nWinner: " in out


# ---------------------------------------------------------------------------
# the --html page

PAGE_ENGLISH = (
    "The table", "Every move", "Scores<", "Verification<", "Totals after each hand", "After hand",
    "Key fingerprint", "Table fingerprint", "File saved", ">Rules<", "Previous hand", "Next move",
    "Keys:", "needs JavaScript", "Winner", "Final totals", "What the audit checked", " plays ",
    " leads ", " deals ", "Trick ", "Tricks won", "Penalties", "at the start", "after hand",
    '"Trump"', ':"dealer"', '"the deal"', '"Stock"', "spades",
)  # fmt: skip
"""English of the page (its text, the sentences of its moves, the words its script shows)."""

PAGE_SAID = {
    "fr": ('<html lang="fr">', "<h2 id=\"hand-title\">La table</h2>", "Tous les coups de cette manche",
           "Totaux après chaque manche", "Empreinte de la table", "VALIDE : ", " ; pli pour ",
           "Victoire : ", "Totaux finaux : ", '"rph_cards":["{n} carte","{n} cartes"]', '"zero_one":true',
           '"0 pli"', '"2 plis"', '"label":"Atout"'),
    "it": ('<html lang="it">', "<h2 id=\"hand-title\">Il tavolo</h2>", "Tutte le mosse di questa mano",
           "Totali dopo ogni mano", "Impronta del tavolo", "VALIDA: ", "; presa a ", "Vittoria: ",
           "Totali finali: ", '"rph_cards":["{n} carta","{n} carte"]', '"zero_one":false', '"0 prese"',
           '"label":"Atout"'),
}  # fmt: skip


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_the_page_in_french_and_italian(files: dict[str, Path], tmp_path: Path, lang: str) -> None:
    page = tmp_path / "neuf.html"
    out = replay(str(files["neuf"]), "--html", str(page), lang=lang).output
    assert "Wrote" not in out
    html = page.read_text(encoding="utf-8")
    for words in PAGE_SAID[lang]:
        assert words in html, words
    for phrase in PAGE_ENGLISH:
        assert phrase not in html, phrase


def test_the_page_keeps_its_data_in_every_language(files: dict[str, Path], tmp_path: Path) -> None:
    """The game's data has the same shape and numbers in every language; only its sentences change."""
    pages = {}
    for lang in ("en", "fr"):
        page = tmp_path / f"{lang}.html"
        replay(str(files["nines"]), "--html", str(page), env_lang=lang)
        html = page.read_text(encoding="utf-8")
        assert f'<html lang="{lang}">' in html
        start = html.index('id="game-data">') + len('id="game-data">')
        pages[lang] = json.loads(html[start : html.index("</script>", start)])
    english, french = pages["en"], pages["fr"]
    assert len(english["hands"]) == len(french["hands"]) and english["names"] == french["names"]

    def data(position: dict[str, Any]) -> dict[str, Any]:
        """A position without its words: the sentence, and each block's label and text."""
        center = [{k: v for k, v in b.items() if k not in ("label", "text")} for b in position["center"]]
        return {**position, "text": "", "center": center}

    for a, b in zip(english["hands"], french["hands"], strict=True):
        assert [data(p) for p in a["positions"]] == [data(p) for p in b["positions"]]
        assert a["after"] == b["after"] and a["result"] != b["result"]
        words = [(c["label"], c.get("text")) for p in a["positions"] for c in p["center"]]
        said = [(c["label"], c.get("text")) for p in b["positions"] for c in p["center"]]
        assert all(x != y for x, y in zip(words, said, strict=True)), (words[:3], said[:3])


@pytest.mark.parametrize(
    ("lang", "seat_word", "you"), [("en", "seat", "you"), ("fr", "place", "vous"), ("it", "posto", "tu")]
)
def test_a_player_called_you_is_shown_by_seat_so_the_moves_read_in_the_third_person(
    lang: str, seat_word: str, you: str
) -> None:
    """``play`` calls the person at the terminal "you" (in their language); a replay says the
    moves in the third person ("... plays 4♠"), so that seat is shown as ``seat 0 (you)``, the
    word in the reader's language whatever the language it was played in."""
    from p2pcards.replay_moves import player_names
    from p2pcards.ui.i18n import Translator

    players = [{"name": "you", "key": ""}, {"name": "Bob", "key": ""}, {"name": "tu", "key": ""}]
    names = player_names({"players": players}, Translator(lang))
    assert names == [f"{seat_word} 0 ({you})", "Bob", f"{seat_word} 2 ({you})"], names
    # Anyone else keeps their name, "Yourself" included.
    assert player_names({"players": [{"name": "Yourself", "key": ""}]}, Translator(lang)) == ["Yourself"]
