"""The commands around a table speak the player's language too: what ``join`` and ``host``
say while they connect (looking for the host, a wrong code, LAN discovery off, an
interrupted game), with ``--lang`` or ``P2PCARDS_LANG``, and no English left in those lines."""

from __future__ import annotations

import re
import socket
from pathlib import Path

import click
import pytest
import trio
from test_discovery import CODE, LOCAL, free_udp_port

from p2pcards import cli
from p2pcards.cli.cmd_join import _type_code
from p2pcards.errors import JoinRefused, UsageError
from p2pcards.net.discovery import reply_address
from p2pcards.ui.i18n import Translator


@pytest.mark.slow
@pytest.mark.parametrize("lang", ["fr", "it"])
def test_join_by_code_looks_for_the_host_and_says_nobody_answered(tmp_path: Path, lang: str) -> None:
    from e2e_helpers import run_cli

    proc = run_cli(
        ["join", "--bind", LOCAL, "--bot", "random", "--lang", lang],
        home=tmp_path,
        P2PCARDS_CODE=CODE,
        P2PCARDS_DISCOVERY_PORT=str(free_udp_port()),
    )
    assert proc.returncode == 1 and "Traceback" not in proc.stderr, proc.stderr
    looking = {"fr": "Recherche de l'hôte du code 43-... sur ce réseau...",
               "it": "Cerco l'host del codice 43-... su questa rete..."}[lang]  # fmt: skip
    assert proc.stdout.splitlines()[0] == looking, proc.stdout
    nobody = {"fr": "aucun hôte n'a répondu au code 43-... sur ce réseau en 3 s ; demandez",
              "it": "nessun host con il codice 43-... ha risposto su questa rete entro 3"}[lang]  # fmt: skip
    assert nobody in proc.stderr, proc.stderr
    for english in ("Looking for", "no host with code", "answered on this network", "ask the host"):
        assert english not in proc.stdout + proc.stderr


@pytest.mark.parametrize(("lang", "said"), [
    ("en", ["The host says that code is wrong: check it with the host and type it again (2 tries left).",
            "The host says that code is wrong: check it with the host and type it again (1 try left)."]),
    ("fr", ["L'hôte refuse ce code : vérifiez-le et retapez-le (encore 2 essais).",
            "L'hôte refuse ce code : vérifiez-le et retapez-le (encore 1 essai)."]),
    ("it", ["L'host rifiuta questo codice: controllalo e riscrivilo (ancora 2 tentativi).",
            "L'host rifiuta questo codice: controllalo e riscrivilo (ancora 1 tentativo)."]),
])  # fmt: skip
def test_a_wrong_code_is_asked_for_again_in_the_players_language(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], lang: str, said: list[str]
) -> None:
    tried: list[str] = []
    prompts: list[str] = []

    async def join(code: str) -> str:
        tried.append(code)
        if len(tried) < 3:
            raise JoinRefused("wrong-code", "the host refused: wrong invitation code")
        return "seated"

    def typed(prompt: str, words: object) -> str:
        prompts.append(prompt)
        return f"7-typed-{len(prompts)}"

    monkeypatch.setattr("p2pcards.ui.keyboard.ask_code", typed)
    assert trio.run(cli._joined_asking_again, join, "7-first-try", True, Translator(lang)) == "seated"
    assert tried == ["7-first-try", "7-typed-1", "7-typed-2"]
    assert capsys.readouterr().out.splitlines() == said
    assert (
        prompts
        == [{"en": "Invitation code: ", "fr": "Code d'invitation : ", "it": "Codice d'invito: "}[lang]] * 2
    )
    assert all(len(line) < 80 for line in said[:1] if lang != "en")


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "lantren is no word of an invitation code: did you mean 4-ember-lantern? Type the code again"),
    ("fr", "lantren n'est pas un mot d'un code d'invitation : vouliez-vous dire 4-ember-lantern ? Retapez"),
    ("it", "lantren non è una parola di un codice d'invito: intendevi 4-ember-lantern? Riscrivi il codice"),
])  # fmt: skip
def test_a_mistyped_code_word_is_pointed_out_before_the_host_hears_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], lang: str, said: str
) -> None:
    answers = iter(["4-ember-lantren", "4-ember-lantern"])
    monkeypatch.setattr("p2pcards.ui.keyboard.ask_code", lambda prompt, words: next(answers))
    assert _type_code(Translator(lang)) == "4-ember-lantern"
    out = " ".join(capsys.readouterr().out.split())  # (folded to the terminal's width)
    assert out.startswith(said) and out.count("lantren") == 1, out
    # Typed the same way twice, it is sent as it is (a host may choose its own code) ...
    answers = iter(["4 Ember lantren", "4-ember-lantren"])
    assert _type_code(Translator(lang)) == "4-ember-lantren"
    # ... and a code of code words, or of words close to none, is sent at once.
    for code in ("4-ember-lantern", "our-secret-room", "12-zzz-qqq"):
        answers = iter([code])
        assert _type_code(Translator(lang)) == code
    assert capsys.readouterr().out.count("lantren ") == 1  # said once, for the first of the two


@pytest.mark.parametrize(("typed", "meant"), [
    ("57-blaed-bear", "57-blade-bear"),  # two letters swapped: one typo from blade, two from blaze
    ("3-ambre-fox", "3-amber-fox"),
    ("4-embr-lantren", "4-ember-lantern"),  # every word mended
    ("9-robin-mapel", "9-robin-maple"),
    ("11-honey-ri", "11-honey-river"),  # left unfinished (ribbon and river begin so: Tab stopped)
])  # fmt: skip
def test_the_code_suggested_is_the_fewest_typos_away(typed: str, meant: str) -> None:
    from p2pcards.net.words import WORDS, likely_meant

    assert all(w in WORDS for w in meant.split("-")[1:])
    found = likely_meant(typed)
    assert found is not None and found[1] == meant, found


def test_a_code_given_with_a_mistyped_word_is_pointed_out_when_the_host_refuses_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    async def join(code: str) -> str:
        raise JoinRefused("wrong-code", "the host refused: wrong invitation code")

    for code, hint in (
        (
            "4-ember-lantren",
            "lantren n'est pas un mot d'un code d'invitation : vouliez-vous dire 4-ember-lantern ?",
        ),
        ("4-ember-lantern", None),
    ):
        with pytest.raises(JoinRefused):
            trio.run(cli._joined_asking_again, join, code, False, Translator("fr"))
        err = " ".join(capsys.readouterr().err.split())  # (folded to the terminal's width)
        assert err == (hint or "")


@pytest.mark.slow
def test_a_host_whose_discovery_port_is_taken_says_so_in_italian(tmp_path: Path) -> None:
    from e2e_helpers import free_port, processes

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as taken, processes(tmp_path) as procs:
        taken.bind(("0.0.0.0", 0))
        udp = taken.getsockname()[1]
        args = [
            "host",
            "-n",
            "2",
            "--port",
            str(free_port()),
            "--bind",
            LOCAL,
            "--bot",
            "random",
            "--code",
            CODE,
        ]
        host = procs.spawn("host", args, home=tmp_path, P2PCARDS_DISCOVERY_PORT=str(udp), P2PCARDS_LANG="it")
        assert host.wait_for("Codice d'invito", timeout=20), host.tail()
        assert f"Ricerca sulla rete locale disattivata: porta UDP {udp} (" in host.output()
        assert "LAN discovery" not in host.output()


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_what_the_lower_layers_raise_is_said_in_the_players_language(lang: str) -> None:
    tr = Translator(lang)
    with pytest.raises(UsageError) as raised:
        reply_address("::1")
    assert str(raised.value) == "it works over IPv4, and --bind ::1 is not an IPv4 address"
    said = cli._said(raised.value, tr)
    assert said == {"fr": "elle passe par IPv4, et --bind ::1 n'est pas une adresse IPv4",
                    "it": "funziona su IPv4, e --bind ::1 non è un indirizzo IPv4"}[lang]  # fmt: skip
    assert cli._said(ValueError("plain"), tr) == "plain"
    taken = cli._port_taken("host", 7777, tr)
    assert taken.startswith(
        {"fr": "host : le port 7777 est déjà utilisé", "it": "host: la porta 7777 è già"}[lang]
    )
    assert taken.endswith("--port 7778")
    assert cli._port_taken("host", 7777, Translator("en")) == (
        "host: port 7777 is already in use (another program, or another p2pcards, listens "
        "there): choose another one with --port, e.g. --port 7778"
    )
    for line in (tr("cmd_interrupted"), tr("join_ask_code"), tr("join_looking", code="43-...")):
        assert len(line) < 80, line


# ---------------------------------------------------------------------------
# resume, players, simulate

RESUME_ENGLISH = ("No unfinished", "(you:", " at 127", "Resume one", "seat ", "cannot be resumed")
PLAYERS_ENGLISH = ("No known", "Forgot", " game", " to 20", "key ")
SIM_ENGLISH = ("strategy", "seats", "win rate", "95% interval", "pen/hand", "outs", "matches", "players",
               "seed", "rules:", "default", "shared wins", "hands", "stalled")  # fmt: skip


def said(args: list[str], lang: str | None, env: dict[str, str], english: tuple[str, ...],
         fits: bool = True) -> str:  # fmt: skip
    from click.testing import CliRunner

    env = {**env, **({"P2PCARDS_LANG": lang} if lang else {})}
    result = CliRunner().invoke(cli.main, args, env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.output, result.output
    if lang:
        for phrase in english:
            assert phrase not in result.output, (phrase, result.output)
        assert not fits or all(len(line) <= 80 for line in result.output.splitlines()), result.output
    return result.output


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_resume_lists_its_games_and_refuses_in_the_players_language(tmp_path: Path, lang: str) -> None:
    from test_resume_cli import SESSION, journal

    env = {"P2PCARDS_HOME": str(tmp_path)}
    nothing = said(["resume", "--list"], lang, env, RESUME_ENGLISH)
    assert nothing == {
        "fr": "Aucune partie inachevée ici (p2pcards history liste les parties jouées).\n",
        "it": "Nessuna partita non finita qui (p2pcards history elenca quelle giocate).\n",
    }[lang]
    os_env = pytest.MonkeyPatch()
    os_env.setenv("P2PCARDS_HOME", str(tmp_path))
    try:
        first = journal(tmp_path, SESSION)
        (tmp_path / "other.journal").write_bytes(first.read_bytes())
        second = first.with_name("0" + first.name)
        second.write_bytes(first.read_bytes())
    finally:
        os_env.undo()
    out = said(["resume"], lang, env, RESUME_ENGLISH, fits=False)
    games = [" ".join(g.split()) for g in re.split(r"^(?=\d\. )", out, flags=re.M) if g.strip()]
    line = {"fr": "Nines à 127.0.0.1:7001 : Evil, ", "it": "Nines a 127.0.0.1:7001: Evil, "}[lang]
    assert len(games) == 2 and line in games[0], games  # (each game folded to the width)
    assert {"fr": "me (vous : place 3)", "it": "me (tu: posto 3)"}[lang] in games[0], games
    assert out.splitlines()[-1] == {"fr": "Pour en reprendre une : p2pcards resume NUMÉRO",
                                    "it": "Per riprenderne una: p2pcards resume NUMERO"}[lang]  # fmt: skip
    from click.testing import CliRunner

    bad = CliRunner().invoke(cli.main, ["resume", "7", "--lang", lang], env=env)
    assert bad.exit_code == 2
    assert {"fr": "choisissez un numéro de 1 à 2", "it": "scegli un numero da 1 a 2"}[lang] in bad.output


def test_resume_in_english_is_as_it_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from test_resume_cli import SESSION, journal

    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path))
    journal(tmp_path, SESSION)
    out = " ".join(said(["resume", "--list", "--lang", "en"], None, {}, ()).split())
    assert out.endswith(" Nines at 127.0.0.1:7001: Evil, Bob VALID: Bob wins, Ann, me (you: seat 3)"), out


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_players_lists_and_forgets_in_the_players_language(tmp_path: Path, lang: str) -> None:
    from test_known_players import BOB, CAROL, PUPPET, roster

    from p2pcards.crypto.identity import fingerprint
    from p2pcards.net.known import KnownPlayers

    env = {"P2PCARDS_HOME": str(tmp_path)}
    empty = said(["players"], lang, env, PLAYERS_ENGLISH)
    start = {"fr": "Personne encore : ", "it": "Ancora nessuna persona: "}
    assert empty.startswith(start[lang]), empty
    known = KnownPlayers.load(tmp_path)
    known.remember(roster(("me", CAROL), ("bob", BOB), ("eve", PUPPET)), me=0, day="2026-12-01")
    known.remember(roster(("me", CAROL), ("bob", BOB)), me=0, day="2026-12-05")
    bob, eve = said(["players"], lang, env, PLAYERS_ENGLISH).splitlines()
    assert bob.endswith({"fr": "2 parties du 2026-12-01 au 2026-12-05",
                         "it": "2 partite dal 2026-12-01 al 2026-12-05"}[lang]), bob  # fmt: skip
    assert eve.endswith({"fr": "1 partie le 2026-12-01",
                         "it": "1 partita il 2026-12-01"}[lang]), eve  # fmt: skip (one day: not "du X au X")
    assert said(["players", "--lang", "en"], None, env, ()).endswith("  1 game, 2026-12-01\n")
    gone = said(["players", "--forget", "eve"], lang, env, PLAYERS_ENGLISH)
    forgot = {"fr": "Vous avez oublié eve (clé ", "it": "Hai dimenticato eve (chiave "}[lang]
    assert gone == f"{forgot}{fingerprint(PUPPET.public_key)}).\n"
    missing = said(["players", "--forget", "eve"], lang, env, PLAYERS_ENGLISH)
    nobody = {"fr": "Personne de connu ne s'appelle 'eve' ni n'a une telle clé.",
              "it": "Nessuna persona conosciuta si chiama 'eve' o ha una chiave così."}  # fmt: skip
    assert missing == nobody[lang] + "\n"
    english = said(["players", "--lang", "en"], None, env, ())
    assert english.endswith("  2 games, 2026-12-01 to 2026-12-05\n"), english


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_simulate_prints_its_table_in_the_players_language(lang: str) -> None:
    args = ["simulate", "-n", "3", "-g", "6", "-s", "2"]
    out = said(args, lang, {}, SIM_ENGLISH)
    head = {
        "fr": ["stratégie", "places", "victoires", "% victoires", "IC 95 %", "pén./manche", "sorties"],
        "it": ["strategia", "posti", "vittorie", "% vittorie", "IC 95%", "pen./mano", "uscite"],
    }
    assert [w.strip() for w in out.splitlines()[0].split("  ") if w.strip()] == head[lang], out
    assert {"fr": "Nines : 6 parties, 3 joueurs, graine 2, règles : par défaut ;",
            "it": "Nines: 6 partite, 3 giocatori, seme 2, regole: predefinite;"}[lang] in out  # fmt: skip
    assert {"fr": " manches/s, ", "it": " mani/s, "}[lang] in out
    one = said(["simulate", "-n", "3", "-g", "1", "--game", "neuf"], lang, {}, SIM_ENGLISH)
    assert {"fr": "Le Neuf : 1 partie, 3 joueurs", "it": "Le Neuf: 1 partita, 3 giocatori"}[lang] in one
    assert said([*args, "--json"], lang, {}, ())[:40] == said([*args, "--json"], None, {}, ())[:40]


# ---------------------------------------------------------------------------
# click's own usage errors

USAGE_ENGLISH = ("Usage:", "Try '", "for help", "Error:", "No such", "Missing argument", "Invalid value",
                 "Did you mean", "unexpected extra", "requires an argument")  # fmt: skip


@pytest.mark.parametrize(("lang", "env"), [("fr", False), ("it", True)])
def test_click_usage_errors_in_the_players_language(lang: str, env: bool) -> None:
    from click.testing import CliRunner

    def error(*args: str) -> str:
        chosen = {"P2PCARDS_LANG": lang} if env else {}
        result = CliRunner().invoke(cli.main, [*args, *([] if env else ["--lang", lang])], env=chosen)
        assert result.exit_code == 2, result.output
        for phrase in USAGE_ENGLISH:
            assert phrase not in result.output, (phrase, result.output)
        return result.output

    said = {
        "fr": ("Utilisation : main audit [OPTIONS] FICHIER", "Essayez 'main audit --help' pour l'aide.",
               "Erreur : Option inconnue : '--bogus'.", "Erreur : Argument manquant : 'FICHIER'.",
               "Erreur : Valeur non valide pour '-n' / '--players' : ", "Erreur : Argument en trop : b",
               "(Vouliez-vous dire l'une de : '--delay', '--lang', '--name' ?)"),
        "it": ("Uso: main audit [OPZIONI] FILE", "Prova 'main audit --help' per l'aiuto.",
               "Errore: Opzione sconosciuta: '--bogus'.", "Errore: Manca l'argomento 'FILE'.",
               "Errore: Valore non valido per '-n' / '--players': ", "Errore: Argomento in più: b",
               "(Forse intendevi una di queste: '--delay', '--lang', '--name'?)"),
    }[lang]  # fmt: skip
    bogus = error("audit", "--bogus")
    assert said[0] in bogus and said[1] in bogus and said[2] in bogus, bogus
    assert said[3] in error("audit")
    assert said[4] in error("play", "-n", "x")
    assert said[5] in error("replay", "a", "b")
    assert said[6] in error("play", "--lnag", "x")
    needs = {
        "fr": "Erreur : L'option '--port' demande une valeur.",
        "it": "Errore: L'opzione '--port' richiede un valore.",
    }
    last = CliRunner().invoke(cli.main, ["--lang", lang, "join", "--port"], env={"P2PCARDS_LANG": None})
    assert last.exit_code == 2 and needs[lang] in last.output, last.output


@pytest.mark.parametrize(("lang", "usage", "option", "argument"), [
    ("fr", "[OPTIONS] COMMANDE [ARGUMENTS]...", "--transcript FICHIER", "[ADRESSE|CODE] [CODE]"),
    ("it", "[OPZIONI] COMANDO [ARGOMENTI]...", "--transcript FILE", "[INDIRIZZO|CODICE] [CODICE]"),
])  # fmt: skip
def test_the_placeholders_of_the_help_are_in_the_players_language(
    lang: str, usage: str, option: str, argument: str
) -> None:
    from click.testing import CliRunner

    def help_of(*args: str) -> str:
        result = CliRunner().invoke(cli.main, [*args, "--help"], env={"P2PCARDS_LANG": lang})
        assert result.exit_code == 0, result.output
        return result.output

    assert usage in help_of()
    join = help_of("join")
    assert option in join and argument in join, join
    assert not re.search(r"\b(TEXT|INTEGER|RANGE)\b", join), join
    choices = "[heuristic|random|expert]"  # values typed as they are: never translated
    assert choices in join
    # English keeps click's own words (and the help put them back: a second help is the same).
    english = CliRunner().invoke(cli.main, ["join", "--help"], env={"P2PCARDS_LANG": "en"}).output
    assert "[OPTIONS] [ADDRESS|CODE] [CODE]" in english and "--transcript FILE" in english, english
    assert help_of("join") == join


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_a_folder_or_missing_path_and_the_commands_own_mistakes_in_the_players_language(
    lang: str, tmp_path: Path
) -> None:
    """A folder given for a transcript (or for --html, --record), a folder to list that does
    not exist, and the mistakes play and simulate find themselves are said in the language,
    not in click's English (``File '...' is a directory.``)."""
    from click.testing import CliRunner

    def error(*args: str) -> str:
        result = CliRunner().invoke(cli.main, [*args, "--lang", lang])
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output
        return result.output.splitlines()[-1]

    folder = str(tmp_path)
    tr = Translator(lang)
    for args in (["audit", folder], ["replay", folder], ["play", "--record", folder]):
        said = error(*args)
        assert tr("click_path_is_folder", path=repr(folder)) in said, said
        assert "is a directory" not in said
    said = error("history", str(tmp_path / "nowhere"))
    assert tr("click_path_missing", path=repr(str(tmp_path / "nowhere"))) in said, said
    assert tr("usage_bot_and_level") in error("play", "-b", "random", "-l", "easy")
    assert tr("usage_offline_transcript") in error("play", "--offline", "--transcript", "t.p2pt")
    assert tr("usage_delay_without_watch") in error("play", "--delay", "1")
    assert tr("usage_no_bot") in error("simulate", "--bots", ",")
    for key in ("click_path_is_folder", "usage_bot_and_level", "usage_no_bot"):
        assert tr(key, path="'x'") != Translator("en")(key, path="'x'")


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_a_bad_number_or_choice_is_refused_in_the_language(lang: str) -> None:
    """A value that is no number, out of its range, or none of the choices is refused in the
    player's language, not in click's English (``'x' is not a valid integer.``)."""
    from click.testing import CliRunner

    def error(*args: str) -> str:
        result = CliRunner().invoke(cli.main, [*args, "--lang", lang], env={"P2PCARDS_LANG": None})
        assert result.exit_code == 2, result.output
        assert "Traceback" not in result.output
        return result.output.splitlines()[-1]

    tr = Translator(lang)
    assert error("play", "-n", "x").endswith(tr("click_not_whole_number", value="'x'"))
    assert error("host", "--port", "abc").endswith(tr("click_not_whole_number", value="'abc'"))
    assert error("play", "-w", "--delay", "soon").endswith(tr("click_not_number", value="'soon'"))
    said = error("play", "-w", "--delay", "-1")
    assert said.endswith(tr("click_not_in_range", value="-1.0", range="0<=x<=60")), said
    said = error("simulate", "--games", "0")
    assert said.endswith(tr("click_not_in_range", value="0", range="x>=1")), said
    said = error("play", "--game", "chess")
    assert said.endswith(tr("click_not_a_choice", value="'chess'", choices="'nines', 'neuf'")), said
    for key in ("click_not_whole_number", "click_not_number", "click_not_in_range", "click_not_a_choice"):
        fields = {"value": "v", "range": "r", "choices": "c"}
        assert tr(key, **fields) != Translator("en")(key, **fields)


def test_click_usage_errors_in_english_are_clicks_own() -> None:
    from click.testing import CliRunner

    result = CliRunner().invoke(cli.main, ["play", "--lnag", "x"])
    assert result.exit_code == 2
    assert result.output == (
        "Usage: main play [OPTIONS]\nTry 'main play --help' for help.\n\n"
        "Error: No such option '--lnag'. (Did you mean one of: '--delay', '--lang', '--name'?)\n"
    )
    typo = CliRunner().invoke(cli.main, ["audti"])
    assert typo.output.endswith("Error: No such command 'audti'. Did you mean 'audit'?\n"), typo.output


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_typo_is_never_pointed_to_an_option_help_does_not_list(lang: str) -> None:
    """``resume`` takes the host's clocks from its journal (its --grace is hidden): a typo such
    as ``--code`` is told it has no such option, not pointed to ``--grace``."""
    from click.testing import CliRunner

    result = CliRunner().invoke(cli.main, ["resume", "--lang", lang, "--code", "5-a-b"])
    assert result.exit_code == 2
    assert "--code" in result.output and "--grace" not in result.output, result.output
    typo = CliRunner().invoke(cli.main, ["resume", "--lang", lang, "--bott", "x"])
    assert "'--bot'" in typo.output, typo.output


@pytest.mark.parametrize(("args", "said"), [
    (["join", "localhost:77x", "--code", "3-a-b", "--lang", "fr"],
     "Erreur : Valeur non valide : 'localhost:77x' n'est ni HÔTE ni HÔTE:PORT avec un port de 1 à 65535"),
    (["host", "-n", "7", "--lang", "it"],
     "Errore: Valore non valido per '-n' / '--players': Nines si gioca da 2 a 6 giocatori, non in 7"),
    (["play", "--game", "neuf", "-n", "4", "--lang", "fr"],
     "Valeur non valide pour '-n' / '--players' : Le Neuf se joue à 3 exactement, pas à 4"),
    (["host", "-n", "1"], "Error: Invalid value for '-n' / '--players': Nines is for 2 to 6 players, not 1"),
])  # fmt: skip
def test_a_mistyped_address_or_player_count_is_in_the_players_language(args: list[str], said: str) -> None:
    from click.testing import CliRunner

    result = CliRunner().invoke(cli.main, args)
    assert result.exit_code == 2, result.output
    assert said in result.output


@pytest.mark.parametrize(("lang", "first"), [
    ("en_US.UTF-8", "Usage: p2pcards [OPTIONS] COMMAND [ARGS]..."),
    ("fr_FR.UTF-8", "Utilisation : p2pcards [OPTIONS] COMMANDE [ARGUMENTS]..."),
])  # fmt: skip
def test_the_command_typed_alone_shows_its_help_not_an_error(lang: str, first: str) -> None:
    from click.testing import CliRunner

    env = {"LANG": lang, "LC_ALL": "", "LC_MESSAGES": "", "P2PCARDS_LANG": ""}
    result = CliRunner().invoke(cli.main, [], env=env, prog_name="p2pcards")
    assert result.output.splitlines()[0] == first, result.output
    assert "Error" not in result.output and "Erreur" not in result.output
    assert result.output.count(first) == 1
    assert all(name in result.output for name in ("host", "join", "play", "audit"))


def test_an_identity_key_file_that_cannot_be_used_is_said_in_the_players_language(tmp_path: Path) -> None:
    from p2pcards.net import storage

    key = tmp_path / "identity.key"
    key.write_bytes(b"garbage\n")
    key.chmod(0o600)
    with pytest.raises(UsageError) as raised:
        storage.load_identity(tmp_path)
    said = cli._said(raised.value, Translator("fr"))
    assert said.startswith(f"le fichier de clé d'identité {key} est abîmé (ce n'est pas un fichier de clé")
    assert key.read_bytes() == b"garbage\n"  # left as it is: nothing is lost
    key.chmod(0o644)
    with pytest.raises(UsageError) as raised:
        storage.load_identity(tmp_path)
    assert cli._said(raised.value, Translator("it")) == (
        f"il file della chiave d'identità {key} ha i permessi 0644, che lasciano leggerlo agli altri "
        f"utenti; correggi con: chmod 600 {key}"
    )
    assert str(raised.value).startswith(f"the identity key file {key} has permissions 0644")


def test_an_ipv6_address_whose_last_group_looks_like_a_port_says_how_a_port_is_written(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from p2pcards.cli.cmd_join import _parse_address

    tr = Translator("fr")
    assert _parse_address("2001:db8::5:7805", tr) == ("2001:db8::5:7805", 7777)
    assert capsys.readouterr().out == (
        "(2001:db8::5:7805 se lit comme une adresse IPv6, au port 7777 ; "
        "le port 7805 de 2001:db8::5 s'écrit [2001:db8::5]:7805)\n"
    )
    for address, parsed in (
        ("[2001:db8::5]:7805", ("2001:db8::5", 7805)),
        ("2001:db8::5", ("2001:db8::5", 7777)),
        ("2001:db8::a:1", ("2001:db8::a:1", 7777)),  # 1 is no port anyone types
        ("192.0.2.5:7805", ("192.0.2.5", 7805)),
        ("fe80::1%eth0", ("fe80::1%eth0", 7777)),
    ):
        assert _parse_address(address, tr) == parsed
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_port_written_after_an_ipv6_address_without_brackets_is_a_usage_error_that_says_how(
    lang: str,
) -> None:
    """``::1:49070`` is no IPv6 address (49070 is no group of one): it was tried as a host
    name, after a hint, and failed as an unknown host. It is refused at once, saying how the
    port is written; something that is no address at all is refused as any bad address."""
    import click

    from p2pcards.cli.cmd_join import _parse_address

    tr = Translator(lang)
    with pytest.raises(click.BadParameter) as raised:
        _parse_address("::1:49070", tr)
    assert str(raised.value) == tr("join_ipv6_no_address", address="::1:49070", host="::1", port="49070")
    assert "[::1]:49070" in str(raised.value)
    with pytest.raises(click.BadParameter) as raised:
        _parse_address("::zz:49070", tr)
    assert "[" not in str(raised.value)


def test_a_host_name_no_dns_could_hold_is_a_usage_error_not_a_crash() -> None:
    """A label over 63 characters made the name lookup raise UnicodeError, out of the node
    as a traceback. ``join`` refuses such an address as it refuses a bad port, and the dial
    (of an address read back from a journal, say) makes it a connection that failed."""
    import click
    from click.testing import CliRunner

    from p2pcards.cli.cmd_join import _parse_address
    from p2pcards.net.dial import open_reusable

    long = "a" * 100
    for address in (f"{long}:7777", f"{long}.example", "a..b:7777"):
        with pytest.raises(click.BadParameter):
            _parse_address(address, Translator("en"))
    assert _parse_address("münchen.example:7777", Translator("en")) == ("münchen.example", 7777)
    with pytest.raises(OSError, match="is not a name a host can have"):
        trio.run(open_reusable, f"{long}.example", 7777)
    # --bind, too
    for args in (["host"], ["join", "127.0.0.1:9", "--code", "5-ember-lantern"]):
        result = CliRunner().invoke(cli.main, [*args, "--bind", long, "--lang", "it"])
        assert result.exit_code == 2, result.output
        assert f"'{long}' non è né un indirizzo né un nome di host" in result.output
        assert isinstance(result.exception, SystemExit), result.exc_info


@pytest.mark.parametrize(("lang", "word", "said"), [
    ("en", "help", "Type the invitation code the host gave you"),
    ("fr", "aide", "Tapez le code d'invitation que l'hôte vous a donné"),
    ("it", "aiuto", "Scrivi il codice d'invito che ti ha dato chi ospita"),
])  # fmt: skip
def test_help_at_the_code_prompt_says_what_to_type_and_asks_again(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], lang: str, word: str, said: str
) -> None:
    answers = iter([word, "4-ember-lantern"])
    monkeypatch.setattr("p2pcards.ui.keyboard.ask_code", lambda prompt, words: next(answers))
    assert _type_code(Translator(lang)) == "4-ember-lantern"  # help is no code: asked again
    assert capsys.readouterr().out.startswith(said)
    answers = iter(["quit"])
    with pytest.raises(click.exceptions.Exit) as stopped:  # (as the end of the input: status 0)
        _type_code(Translator(lang))
    assert stopped.value.exit_code == 0


@pytest.mark.parametrize(("raised", "status", "said"), [
    (KeyboardInterrupt, 130, "Interrupted."), (EOFError, 1, "Aborted!")
])  # fmt: skip
def test_ctrl_c_at_a_prompt_exits_130_and_the_end_of_input_1(
    capsys: pytest.CaptureFixture[str], raised: type[BaseException], status: int, said: str
) -> None:
    """click turns both into Abort; Ctrl-C is said and ended as every interrupted command is
    ("Interrupted.", 130, as the README says), anything else as click does."""
    from p2pcards.cli.group import _LocalizedGroup

    group = _LocalizedGroup("p2pcards")

    @group.command("ask")
    def ask() -> None:
        raise raised()

    with pytest.raises(SystemExit) as stop:
        group.main(["ask"], prog_name="p2pcards")
    assert stop.value.code == status
    assert said in capsys.readouterr().err


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_the_programs_own_reasons_for_a_departure_are_said_in_the_players_language(lang: str) -> None:
    """A departure's reason is the signer's text; the program's own reasons are recognised and
    translated (a time given stays a number), any other text is shown as it is."""
    from p2pcards.net.verdicts import LEFT_BEHIND
    from p2pcards.protocol.sitting import TIMED_OUT
    from p2pcards.ui.netgame import leave_reason

    tr = Translator(lang)
    gone = leave_reason(tr, f"{TIMED_OUT} 120 s")
    assert gone == tr("reason_gone", seconds="120") and "120" in gone
    detail = leave_reason(tr, f"{TIMED_OUT} 10 s (connection refused)")
    # (after a semicolon, not in brackets within the brackets the reason is said in)
    assert detail == tr("reason_gone", seconds="10") + tr("audit_semicolon") + "connection refused"
    assert leave_reason(tr, LEFT_BEHIND) == tr("reason_left_behind")
    assert leave_reason(tr, "dinner is ready") == "dinner is ready"
    from p2pcards.net.verdicts import NO_PLAY

    assert leave_reason(tr, NO_PLAY.format(seconds="15")) == tr("reason_no_play", seconds="15")
    from p2pcards.net.verdicts import ALLOWANCE_SPENT

    spent = leave_reason(tr, f"{TIMED_OUT} 0 s ({ALLOWANCE_SPENT.format(seconds='600')})")
    away_too_long = tr("reason_away_too_long", seconds="600")
    assert spent == tr("reason_gone", seconds="0") + tr("audit_semicolon") + away_too_long
    if lang != "en":
        assert gone != f"{TIMED_OUT} 120 s"
        assert leave_reason(tr, LEFT_BEHIND) != LEFT_BEHIND


def test_french_joins_de_with_the_article_of_le_neuf_but_never_changes_a_name() -> None:
    fr = Translator("fr")
    said = fr("audit_valid", game="Le Neuf", players="3 joueurs", hands="2 manches")
    assert "partie terminée du Neuf" in said and "de Le Neuf" not in said, said
    assert "de Nines" in fr("audit_valid", game="Nines", players="4 joueurs", hands="2 manches")
    many = fr.n("audit_invalid_game", 2, n=2, game="Le Neuf")
    assert "du Neuf" in many and "de Le" not in many, many
    # A player's name is never a game's title: "Le Roux" stays as it is.
    assert "Le Roux" in fr("lobby", names="Le Roux", n=1, players=3)
    assert "di Le Neuf" in Translator("it")("audit_valid", game="Le Neuf", players="3", hands="2")


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_why_a_pair_goes_through_the_host_is_said_in_the_players_language(lang: str) -> None:
    from p2pcards.protocol.notice import Notice, Notices

    why = Notices([Notice("why_not_listening"), Notice("why_punch_failed")])
    assert str(why) == "it does not listen; hole punching failed"  # the English, as logged
    said = Translator(lang).said(Notice("notice_relayed", name="Bot", seat=1, why=why))
    assert isinstance(said, str) and "Bot" in said
    assert "does not listen" not in said and "punching failed" not in said, said


def test_a_steps_kind_is_said_in_the_readers_language_in_the_audit() -> None:
    from p2pcards.protocol.audit import _kind
    from p2pcards.protocol.audit_words import ENGLISH

    assert _kind("turn", ENGLISH) == "turn" and _kind("draw-keys", ENGLISH) == "draw-keys"
    assert _kind("turn", Translator("fr")) == "coup"
    assert _kind("draw-keys", Translator("it")) == "chiavi della pesca"
    assert _kind("a-kind-of-its-own", Translator("fr")) == "a-kind-of-its-own"  # as it is


PROBLEMS = {
    "NOBODY_ANSWERED": {"seconds": "120"},
    "LOST_EVERY": {"step": 41},
    "LOST_EVERY_REFUSED": {"step": 41, "gone": "Bob (seat 2)"},
    "EVERY_CLOSED": {"step": 41, "kind": "draw-keys"},
    "HEARD_NOBODY": {"seconds": "60", "names": "Ann (seat 0), Bob (seat 2)", "step": 41},
    "HEARD_NOBODY_REFUSED": {"seconds": "60", "names": "Ann (seat 0)", "step": 41, "gone": "Bob (seat 2)"},
    "STOPPED_BEFORE": {"names": "Ann (seat 0)", "step": 41},
    "SILENT_PLAY": {"names": "Ann and Bob", "seconds": "600"},
    "SILENT_ANSWER": {"names": "Ann", "seconds": "60"},
    "SLOW_ANSWER": {"names": "Ann", "seconds": "10", "allowance": "120"},
    "RELAYED_LATE": {"names": "Ann (seat 0)", "seconds": "20", "allowance": "120"},
    "RELAYED_SILENT": {"names": "Ann (seat 0), Bob (seat 2)", "step": 41},
    "RELAYED_DISPUTE": {"names": "Ann (seat 0)"},
    "STOPPED_CLAIM": {"names": "Ann (seat 0)", "claim": "'gone'"},
    "STOPPED_CLAIM_RELAYED": {"names": "Ann (seat 0)", "claim": "'gone'"},
    "STOPPED_READING": {"seconds": "2.5"},
    "READ_SLOWLY": {"seconds": "30"},
    "RELAY_IN_NAME": {"origin": 2, "seat": 3},
    "GAVE_TO_CARRY": {"seat": 3, "problem": "'x'"},
    "CARRIED_MALFORMED": {"error": "'x'"},
    "MALFORMED_TO_CARRY": {"error": "'x'"},
    "WENT_ON_RELAYED": {"names": "Ann (seat 0), Bob (seat 2)", "step": 41, "who": "'x'"},
    "NOT_FOLLOWED": {"names": "Ann (seat 0)", "gone": "Bob", "seconds": "60"},
}


NAMES_SAID = {
    "en": {"Ann (seat 0), Bob (seat 2)": "Ann (seat 0), Bob (seat 2)", "Ann (seat 0)": "Ann (seat 0)"},
    "fr": {"Ann (seat 0), Bob (seat 2)": "Ann (place 0), Bob (place 2)", "Ann (seat 0)": "Ann (place 0)",
           "Ann and Bob": "Ann et Bob", "Bob (seat 2)": "Bob (place 2)"},
    "it": {"Ann (seat 0), Bob (seat 2)": "Ann (posto 0), Bob (posto 2)", "Ann (seat 0)": "Ann (posto 0)",
           "Ann and Bob": "Ann e Bob", "Bob (seat 2)": "Bob (posto 2)"},
}  # fmt: skip


@pytest.mark.parametrize("name", sorted(PROBLEMS))
@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_why_a_match_stopped_for_lack_of_answers_is_said_in_the_players_language(
    name: str, lang: str
) -> None:
    """The node's own words for a match that stopped because connections or answers were
    lost (``net.verdicts``'s templates) reach the person in their language, each field in
    place (seat numbers and "and" in the language too); a peer's words stay as they are."""
    from p2pcards.net import verdicts
    from p2pcards.net.node import Outcome
    from p2pcards.ui.netgame import describe_outcome, problem_text
    from p2pcards.ui.problems import PROBLEM_KEYS as _PROBLEM_KEYS

    assert {n for n, _ in _PROBLEM_KEYS} == set(PROBLEMS)  # every template has its test
    tr = Translator(lang)
    fields = PROBLEMS[name]
    problem = getattr(verdicts, name).format(**fields)
    expected = dict(fields)
    for key in ("names", "gone"):
        if key in expected:
            expected[key] = NAMES_SAID[lang].get(str(fields[key]), str(fields[key]))
    if "kind" in expected:
        expected["kind"] = tr("audit_kind_draw_keys")
    said = problem_text(tr, problem)
    assert said == tr(dict(_PROBLEM_KEYS)[name], **expected)
    if lang != "en":
        assert said != problem and not any(w in said for w in ("seat", " and ", "step", "within")), said
    outcome = Outcome(
        status="failed", problem=problem, blamed=(), transcript=None, table=None, names=["Ann", "Bob"]
    )
    assert describe_outcome(outcome, tr)[0] == tr("net_stopped", why=said)
    peer_words = "Ann (seat 0): dishonest shuffle in round 0"
    assert problem_text(tr, peer_words) == peer_words


@pytest.mark.parametrize(
    ("name", "said"),
    [("alice", "pas de retour d'alice"), ("Émile", "pas de retour d'Émile"), ("bob", "pas de retour de bob")],
)
def test_french_elides_de_before_a_name_that_begins_with_a_vowel(name: str, said: str) -> None:
    """``d'alice``, not ``de alice``; the name itself is never changed."""
    text = Translator("fr")("notice_gone", name=name, seat=1, seconds="20")
    assert text.startswith(said), text
    assert Translator("it")("notice_gone", name=name, seat=1, seconds="20").count(name) == 1


@pytest.mark.parametrize(("name", "said"), [("Amelie", "Tocca ad Amelie"), ("andrea", "Tocca ad andrea"),
                                            ("Bruno", "Tocca a Bruno"), ("Edo", "Tocca a Edo")])  # fmt: skip
def test_italian_says_ad_before_a_name_that_begins_with_an_a(name: str, said: str) -> None:
    """``tocca ad Amelie``, ``presa ad Amelie``; the name itself is never changed, and other
    words that end in a (``la``, ``tocca``) are left alone."""
    assert Translator("it")("status_turn", names=name) == said
    article = "ad" if name[0] in "aA" else "a"
    assert Translator("it")("rp_trick_won", plays="x", who=name) == f"x: presa {article} {name}."


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_a_stop_at_a_relayed_table_or_on_a_peers_claim_is_said_in_the_players_language(lang: str) -> None:
    """What a node says when the seats it waits for reach it only through a relay, or when a peer
    stopped the match and it found nothing itself, as a joiner of a table whose host withheld
    another joiner's frames saw it: in the player's language, the peer's claim as it was."""
    from p2pcards.ui.netgame import problem_text

    tr = Translator(lang)
    seen = [
        "timed out waiting for Cid (seat 2) at step 0, reached only through a relay (the seats linked "
        "with both may drop what they carry): cannot tell who is at fault",
        "Hana (seat 0) stopped the match; its claim: 'Cid (seat 2) at fault: timed out'",
        "Hana (seat 0) stopped the match (said through a relay, which may have made it up); its claim: 'x'",
        "a chain dispute about Cid (seat 2) saw no proof in time; it is reached only through a relay: "
        "cannot tell who is at fault",
    ]
    for problem in seen:
        said = problem_text(tr, problem)
        claim = problem.partition("its claim: ")[2]
        assert said.endswith(claim)
        rest = said[: len(said) - len(claim)]
        assert not any(w in rest for w in ("seat", "step", "stopped", "fault", "relay ")), said


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_a_seat_named_for_how_it_used_its_links_is_said_in_the_players_language(lang: str) -> None:
    """The node's own verdicts on a peer that stopped reading, that misused relay frames, or on a
    table that split while this node reaches a seat only through a relay, and the reason a seat of
    a table of two is judged gone: in the player's language, names and numbers in place."""
    from p2pcards.ui.netgame import problem_text

    tr = Translator(lang)
    seen = [
        "stopped reading: a frame waited 2.5 s to be delivered",
        "sent a relay frame in the name of seat 2, for seat 3",
        "gave this seat, to carry to seat 2, a malformed frame (bad)",
        "carried a malformed frame: bad",
        "timed out waiting for Ann (seat 1) at step 3: Bob went on without Ann and Cid went on without "
        "Ann, whom this node reaches only through a relay too: cannot tell who is at fault",
        "Ann (seat 1) and Bob (seat 2) did not go on without Cid and Dee within 30 s (they may still hear "
        "from Cid and Dee): cannot tell who is at fault",
        "lost connection and did not come back within 10 s",
    ]
    for problem in seen:
        said = problem_text(tr, problem)
        assert not any(w in said for w in ("seat", "step", "relay ", "frame", " and ", "went on")), said
        assert all(name in said for name in ("Ann", "Bob", "Cid", "Dee") if name in problem), said


SYSTEM_SAID = {
    "fr": {"ENOENT": "fichier ou dossier introuvable", "ECONNREFUSED": "connexion refusée",
           "EACCES": "permission refusée", "EADDRINUSE": "adresse déjà utilisée",
           "ENETUNREACH": "réseau inaccessible", "EHOSTUNREACH": "aucune route vers l'hôte",
           "ETIMEDOUT": "délai de connexion dépassé",
           "ECONNRESET": "connexion réinitialisée par l'autre bout",
           "ENOSPC": "plus de place sur le disque", "EISDIR": "c'est un dossier",
           "EROFS": "système de fichiers en lecture seule", "EDQUOT": "quota de disque dépassé",
           "EPERM": "opération non permise"},
    "it": {"ENOENT": "file o cartella inesistente", "ECONNREFUSED": "connessione rifiutata",
           "EACCES": "permesso negato", "EADDRINUSE": "indirizzo già in uso",
           "ENETUNREACH": "rete irraggiungibile", "EHOSTUNREACH": "nessun percorso verso l'host",
           "ETIMEDOUT": "tempo di connessione scaduto", "ECONNRESET": "connessione chiusa dall'altro capo",
           "ENOSPC": "spazio esaurito sul disco", "EISDIR": "è una cartella",
           "EROFS": "file system di sola lettura", "EDQUOT": "quota del disco superata",
           "EPERM": "operazione non permessa"},
}  # fmt: skip


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_what_the_system_says_of_a_failure_is_said_in_the_persons_language(lang: str) -> None:
    """An OSError's words ("No such file or directory", "Connection refused") stayed English
    inside French and Italian sentences. Said by errno, however they reach the interface: the
    error itself, its words carried by a notice of a layer below, or a transcript's problem
    text; anything else as the system says it."""
    import errno
    import os

    from p2pcards.protocol.notice import Notice
    from p2pcards.say import system_said
    from p2pcards.ui.problems import leave_reason

    tr = Translator(lang)
    for name, said in SYSTEM_SAID[lang].items():
        number = getattr(errno, name)
        error = OSError(number, os.strerror(number))
        assert tr.system(error) == said
        assert said in tr("cmd_error", error=error)
        assert f"({said})" in tr.said(Notice("notice_unreachable_host", where="h:1", why=system_said(error)))
        assert Translator("en").system(error) == os.strerror(number)  # English: the system's own words
    gone = f"lost connection and did not come back within 120 s ({os.strerror(errno.ECONNREFUSED)})"
    assert leave_reason(tr, gone).endswith(SYSTEM_SAID[lang]["ECONNREFUSED"]), leave_reason(tr, gone)
    other = OSError(errno.ELOOP, os.strerror(errno.ELOOP))
    assert tr.system(other) == os.strerror(errno.ELOOP)


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_a_file_that_is_not_there_is_said_in_the_persons_language(lang: str, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from p2pcards.cli import main

    result = CliRunner().invoke(
        main, ["audit", str(tmp_path / "nowhere.p2pt"), "--lang", lang], env={"P2PCARDS_LANG": None}
    )
    assert SYSTEM_SAID[lang]["ENOENT"] in result.output, result.output
    assert "No such file" not in result.output
