"""The commands around a table speak the player's language too: what ``join`` and ``host``
say while they connect (looking for the host, a wrong code, LAN discovery off, an
interrupted game), with ``--lang`` or ``P2PCARDS_LANG``, and no English left in those lines."""

from __future__ import annotations

import socket
from pathlib import Path

import pytest
import trio
from test_discovery import CODE, LOCAL, free_udp_port

from p2pcards import cli
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
