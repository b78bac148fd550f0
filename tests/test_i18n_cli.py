"""Every command speaks the player's language: --help, history, audit, replay and the page."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from p2pcards.cli import help_messages, main
from p2pcards.ui.i18n import Translator

COMMANDS = sorted(main.commands)
NO_LANG = {"P2PCARDS_LANG": None, "LC_ALL": None, "LC_MESSAGES": None, "LANG": None}


def _squeezed(text: str) -> str:
    """Text without any whitespace: click rewraps the help to the terminal's width."""
    return "".join(text.split())


def _help(args: list[str], env: dict[str, str | None] | None = None) -> str:
    result = CliRunner().invoke(main, args, env={**NO_LANG, **(env or {})})
    assert result.exit_code == 0, result.output
    return result.output


def _first_paragraph(text: str) -> str:
    return text.split("\n\n")[0].replace("\b", "")


@pytest.mark.parametrize("lang", ["fr", "it"])
@pytest.mark.parametrize("command", [None, *COMMANDS])
def test_every_help_is_in_the_language_asked_for(command: str | None, lang: str) -> None:
    name = command or "main"
    args = [command] if command else []
    out = _help([*args, "--lang", lang, "--help"] if command else ["--help"], {"P2PCARDS_LANG": lang})
    english_out = _help([*args, "--help"])
    tr = Translator(lang)
    texts = [(k, t) for k, t in help_messages() if k == f"help_{name}" or k.startswith(f"help_{name}_")]
    shown = _squeezed(out)
    for key, english in texts:
        said = _squeezed(_first_paragraph(tr.text(key, english)))
        assert said in shown or _squeezed(_first_paragraph(english)) not in _squeezed(english_out), (key, out)
    # Nothing English is left: not click's frame, not one help text.
    assert "Usage:" not in out and "Show this message and exit." not in out
    assert "[default:" not in out
    for _key, english in help_messages():
        if len(english) > 25:
            assert _squeezed(_first_paragraph(english)) not in shown, (english, out)
    assert tr("click_usage") in out


def test_help_in_the_language_of_the_environment_and_in_english_by_default() -> None:
    fr = _help(["history", "--help"], {"LANG": "fr_FR.UTF-8"})
    assert "Liste les parties enregistrées" in fr and "Utilisation :" in fr
    it = _help(["replay", "--help"], {"P2PCARDS_LANG": "it"})
    assert "Mostra una partita mano per mano" in it and "Uso:" in it
    en = _help(["replay", "--help"])
    assert "Show a game hand by hand" in en and "Usage:" in en and "[default:" not in en
    assert "Show a game hand by hand" in _help(["replay", "--help", "--lang", "xx"], {"P2PCARDS_LANG": "fr"})
    # --lang on the command line wins over the environment, wherever it stands
    assert "Uso:" in _help(["play", "--help", "--lang=it"], {"P2PCARDS_LANG": "fr"})
    assert "Uso:" in _help(["--help"], {"LC_ALL": "it_IT.UTF-8", "LANG": "fr_FR.UTF-8"})


@pytest.mark.parametrize(
    ("lang", "said"), [("fr", "Aucune partie enregistrée"), ("it", "Ancora nessuna partita")]
)
def test_the_language_given_before_the_command_is_every_commands(
    lang: str, said: str, tmp_path: Path
) -> None:
    """``p2pcards --lang fr history``: the language may come before the command's name too
    (the README says every command takes it); an unknown one is a usage error there as well."""
    env = {**NO_LANG, "HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path / "data")}
    result = CliRunner().invoke(main, ["--lang", lang, "history"], env=env)
    assert result.exit_code == 0 and result.output.startswith(said), result.output
    wrong = CliRunner().invoke(main, ["--lang", "xx", "history"], env=env)
    assert wrong.exit_code == 2 and "'xx'" in wrong.output, wrong.output


@pytest.mark.parametrize("locale", ["fr_FR.UTF-8", "it_IT.UTF-8"])
def test_an_unknown_lang_is_refused_in_english_from_the_usage_line_to_the_reason(locale: str) -> None:
    """``--lang de`` under a French or Italian locale: the refusal is all in English, as the
    help of an unknown --lang is, not French or Italian around an English reason."""
    env = {**NO_LANG, "LANG": locale}
    for args in (["history", "--lang", "de"], ["--lang", "de", "players"]):
        result = CliRunner().invoke(main, args, env=env)
        assert result.exit_code == 2, result.output
        lines = result.output.splitlines()
        assert lines[0].startswith("Usage: ") and lines[1].startswith("Try "), result.output
        assert "Error: Invalid value for '--lang': unknown language 'de'; choose from en, fr, it" in lines
