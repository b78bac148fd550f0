"""The commands that read saved games speak the player's language: ``audit`` (its verdict,
the rules, who left, the fingerprint) and ``history`` (every line and note), with ``--lang``
or ``P2PCARDS_LANG``, in lines that fit 80 columns, with no English left in them; ``--json``
stays the same for programs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from protocol_helpers import record_map, records_file, sign_map, transcript_bytes
from test_audit_people import cut_in_hand_two, neuf_tables, nines_tables
from test_history import game_lines, home  # noqa: F401 (home: a fixture)
from test_leave import left_match_file

from p2pcards.cli import main
from p2pcards.history import VERDICTS_FILE

AUDIT_ENGLISH = (
    "VALID:", "INVALID:", "INCOMPLETE:", "What the audit checked", "Totals", "Winner", "Rules:",
    "Variants on", "Trumps", "Exchanges with", "Players (", "seat ", "key ", "every move",
    "recomputed", "shuffle", "records", "Table fingerprint", "confirmed", "Nobody", "File saved",
    " left ", "the others", "hand ", "blame", "Its note", "cut short", "No hand", "nobody",
)  # fmt: skip
"""Phrases of the English audit that a French or Italian one never shows."""

WORDS = {
    "fr": ("VALIDE : une partie terminée de", "Ce que l'audit a vérifié :", "Empreinte de la table :"),
    "it": ("VALIDA: una partita conclusa di", "Che cosa ha controllato la verifica:", "Impronta del tavolo:"),
}


def run(args: list[str], lang: str | None = None, env_lang: str | None = None) -> Result:
    env = {"P2PCARDS_LANG": env_lang} if env_lang else {}
    result = CliRunner().invoke(main, [*args, *(["--lang", lang] if lang else [])], env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.output
    return result


def no_english(out: str, english: tuple[str, ...] = AUDIT_ENGLISH) -> None:
    for phrase in english:
        assert phrase not in out, (phrase, out)
    for line in out.splitlines():
        assert len(line) < 80, line


@pytest.fixture(scope="module")
def nines_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("nines") / "nines.p2pt"
    path.write_bytes(transcript_bytes(nines_tables()[0]))  # type: ignore[arg-type]
    return path


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_the_audit_of_a_finished_game_in_french_and_italian(nines_file: Path, lang: str) -> None:
    result = run(["audit", str(nines_file)], lang)
    assert result.exit_code == 0, result.output
    out = result.output
    for words in WORDS[lang]:
        assert words in out, out
    said = {
        "fr": ("Victoire", "Variantes en jeu : cartes d'action", "✓ chacun des ", "place 0 : p0, clé "),
        "it": ("Vittoria", "Varianti in uso: carte azione", "✓ ognuna delle ", "posto 0: p0, chiave "),
    }[lang]
    for words in said:
        assert words in out, out
    no_english(out)


def test_the_language_may_come_from_p2pcards_lang_and_json_stays_english(nines_file: Path) -> None:
    out = run(["audit", str(nines_file)], env_lang="it").output
    assert out.startswith("VALIDA: una partita conclusa di Nines, 4 giocatori, ")
    no_english(out)
    english = run(["audit", "--json", str(nines_file)]).output
    assert run(["audit", "--json", str(nines_file)], "fr").output == english
    assert json.loads(english)["verdict"]["valid"] is True
    assert run(["audit", str(nines_file)], "en").output.startswith("VALID: a finished game of Nines")


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_le_neuf_and_its_rules_in_words(tmp_path: Path, lang: str) -> None:
    path = tmp_path / "neuf.p2pt"
    path.write_bytes(transcript_bytes(neuf_tables()[0]))  # type: ignore[arg-type]
    out = run(["audit", str(path)], lang).output
    said = {
        "fr": ("L'atout change à chaque manche : cœur, carreau, sans atout,", "le mort : à l'aveugle"),
        "it": ("L'atout cambia a ogni mano: cuori, quadri, senza atout,", "il morto: alla cieca"),
    }[lang]
    flat = " ".join(out.split())
    for words in said:
        assert words in flat, out
    no_english(out)


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_who_left_and_how_in_french_and_italian(tmp_path: Path, lang: str) -> None:
    path = tmp_path / "left.p2pt"
    path.write_bytes(left_match_file())
    flat = " ".join(run(["audit", str(path)], lang).output.split())
    said = {
        "fr": ("p2 a quitté la partie après 1 manche (départ signé de sa main : « ", "(a quitté la partie)"),
        "it": ("p2 ha lasciato la partita dopo 1 mano (uscita firmata di persona: «", "(ha lasciato la"),
    }[lang]
    for words in said:
        assert words in flat, flat
    no_english(run(["audit", str(path)], lang).output)


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_an_unfinished_file_and_a_fault_in_french_and_italian(tmp_path: Path, lang: str) -> None:
    tables = nines_tables()
    records = tables[0].transcript.records()
    stopped = tmp_path / "stopped.p2pt"
    stopped.write_bytes(records_file(records[: cut_in_hand_two(tables)], saved_by=1, status="aborted"))
    out = run(["audit", str(stopped)], lang).output
    said = {
        "fr": ("INCOMPLET : une partie de Nines inachevée, 4 joueurs ; aucune faute prouvée.",
               "Manche 1 vérifiée jusqu'au bout ; le fichier s'arrête dans la manche 2."),
        "it": ("INCOMPLETA: partita di Nines non finita, 4 giocatori; nessuna colpa provata.",
               "Mano 1 verificata fino alla fine; il file si ferma nella mano 2."),
    }[lang]  # fmt: skip
    for words in said:
        assert words in " ".join(out.split()), out
    no_english(out)
    i = len(records) // 3
    obj = record_map(records[i].raw)
    obj["prev"] = bytes(32)
    seat = obj["seat"]
    fault = tmp_path / "fault.p2pt"
    forged = sign_map(obj, seat, seed=3)  # with the original at the end: equivocation, proven
    fault.write_bytes(records_file([*records[:i], forged, *records[i + 1 :], records[i]]))  # type: ignore[list-item]
    out = run(["audit", str(fault)], lang).output
    start = {"fr": "NON VALIDE : 1 problème trouvé dans une partie de Nines.",
             "it": "NON VALIDA: 1 problema trovato in una partita di Nines."}[lang]  # fmt: skip
    assert out.startswith(start), out
    flat = " ".join(out.split())
    blamed = {"fr": f"en cause : p{seat} (place {seat}, clé ", "it": f"responsabile: p{seat} (posto {seat}, "}
    assert blamed[lang] in flat, out


def test_an_unreadable_file_is_an_error_in_the_players_language(tmp_path: Path) -> None:
    path = tmp_path / "junk.p2pt"
    path.write_bytes(b"not a transcript at all")
    result = run(["audit", str(path)], "fr")
    assert result.exit_code == 2 and result.output.startswith("Erreur : "), result.output


# ---------------------------------------------------------------------------
# history

HISTORY_ENGLISH = (
    "verified", "invalid", "incomplete", "unchecked", " won", "unfinished", "not a p2pcards",
    "(you", "left)", "Verifying", "older game", "shows game", "No saved game", "Auditing",
)  # fmt: skip


def history(data: Path, *args: str, lang: str | None = None, env_lang: str | None = None) -> Result:
    env = {"P2PCARDS_HOME": str(data), **({"P2PCARDS_LANG": env_lang} if env_lang else {})}
    result = CliRunner().invoke(main, ["history", *args, *(["--lang", lang] if lang else [])], env=env)
    assert result.exit_code == 0 and "Traceback" not in result.output, result.output
    return result


def test_history_in_french(request: pytest.FixtureRequest) -> None:
    saved = request.getfixturevalue("home")  # (test_history's saved games)
    (saved / VERDICTS_FILE).unlink(missing_ok=True)  # every file audited, as on a first listing
    result = history(saved, lang="fr")
    neuf, short, _, garbage, _ = game_lines(result.stdout)
    assert "p0 (vous), p1, p2" in neuf and " gagné avec " in neuf and neuf.endswith("✓ vérifiée")
    assert "inachevée à la manche 1" in short and short.endswith("… incomplète")
    assert "notes.txt: pas une transcription p2pcards" in garbage
    assert "Vérification de 5 parties" in result.stderr
    assert "(p2pcards replay N rejoue la partie N coup à coup" in result.stdout
    no_english(result.stdout, HISTORY_ENGLISH)
    no_english(result.stderr, HISTORY_ENGLISH)
    older = history(saved, "-n", "2", lang="fr").stdout.splitlines()[2]
    assert older == "(3 parties plus anciennes non affichées : -n 5 pour en voir plus)"
    one_more = history(saved, "-n", "4", lang="fr").stdout.splitlines()[4]
    assert one_more.startswith("(1 partie plus ancienne non affichée : -n 5"), one_more


def test_history_in_italian_from_p2pcards_lang(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    saved = request.getfixturevalue("home")
    result = history(saved, env_lang="it")
    neuf, short, nines, garbage, _ = game_lines(result.stdout)
    assert "p0 (tu), p1, p2" in neuf and " vinto con " in neuf and neuf.endswith("✓ verificata")
    assert "p0, p1 (tu), p2" in nines and "non finita alla mano 1" in short
    assert "notes.txt: non è una trascrizione di p2pcards" in garbage
    no_english(result.stdout, HISTORY_ENGLISH)
    assert history(saved, "-n", "1", env_lang="it").stdout.splitlines()[1] == (
        "(4 partite più vecchie non mostrate: -n 5 per vederne di più)"
    )
    empty = history(tmp_path, lang="it").stdout
    assert empty.startswith("Ancora nessuna partita salvata: le partite si salvano in ")
    assert history(saved, "--json", lang="it").stdout == history(saved, "--json").stdout


# ---------------------------------------------------------------------------
# replay: the command's own lines (the hands themselves are still English)


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_replay_says_what_it_wrote_and_refuses_in_the_players_language(
    nines_file: Path, tmp_path: Path, lang: str
) -> None:
    page = tmp_path / "page.html"
    wrote = run(["replay", str(nines_file), "--html", str(page)], lang)
    assert wrote.exit_code == 0 and page.exists(), wrote.output
    said = {"fr": f"{page} écrit : 2 manches.", "it": f"{page} scritto: 2 mani."}[lang]
    assert wrote.output == said + "\n"
    records = nines_tables()[0].transcript.records()
    i = len(records) // 3
    obj = record_map(records[i].raw)
    obj["prev"] = bytes(32)
    fault = tmp_path / "fault.p2pt"
    fault.write_bytes(records_file([*records[:i], sign_map(obj, obj["seat"], seed=3), *records[i + 1 :]]))  # type: ignore[list-item]
    refused = run(["replay", str(fault), "--html", str(tmp_path / "no.html")], lang)
    assert refused.exit_code == 1, refused.output
    first, why, none = refused.output.splitlines()
    assert first.startswith({"fr": "NON VALIDE : 1 problème", "it": "NON VALIDA: 1 problema"}[lang])
    assert why == {
        "fr": "Rien n'est montré d'une transcription non vérifiée : voyez p2pcards audit.",
        "it": "Nulla si mostra di una trascrizione non verificata: vedi p2pcards audit.",
    }[lang]
    no_page = {"fr": "Aucune page n'a été écrite dans ", "it": "Nessuna pagina è stata scritta in "}
    assert none.startswith(no_page[lang]), none
