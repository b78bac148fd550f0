"""What ``join`` does with a code that cannot be the host's, before any host hears it: an
unfinished code (``60-feather``), a mistyped word (``60-feather-acron``), a code no host on
this network has (asked again, as a code the host refuses); and the router is asked beside
the first try at the host, once a run, not before each try."""

from __future__ import annotations

import socket
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
import trio
from click.testing import CliRunner
from net_helpers import CODE, RecordingUI
from test_net_lobby import lobby_server
from test_portmap import FakeRouter, _with_router

from p2pcards import cli
from p2pcards.cli import cmd_join
from p2pcards.crypto.identity import Identity
from p2pcards.errors import JoinRefused, PeerUnreachable
from p2pcards.net import discovery, node
from p2pcards.net.node import NodeConfig, join_game
from p2pcards.net.session import Timeouts


def _join(args: list[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path, lang: str | None = None) -> Any:
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path))
    monkeypatch.delenv("P2PCARDS_CODE", raising=False)
    env = {"P2PCARDS_LANG": lang, "P2PCARDS_CODE": None}
    return CliRunner().invoke(cli.main, ["join", *args, "--no-port-mapping"], env=env)


@pytest.fixture
def listening() -> Any:
    """A loopback port that would hear any try at the host (none is expected)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        s.setblocking(False)
        yield s


def _nobody_came(s: socket.socket) -> bool:
    try:
        s.accept()[0].close()
    except BlockingIOError:
        return True
    return False


# ---------------------------------------------------------------------------
# 2. An unfinished code on the command line is a code, not a host name


@pytest.mark.parametrize("args", [
    ["60-feather"], ["60-feather-"], ["60-"],
    ["127.0.0.1:{port}", "60-feather"], ["60-feather", "127.0.0.1:{port}"],
])  # fmt: skip
def test_an_unfinished_code_given_is_said_to_be_one_before_any_lookup(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, listening: socket.socket, args: list[str]
) -> None:
    looked_up: list[object] = []
    monkeypatch.setattr(socket, "getaddrinfo", lambda *a, **k: looked_up.append(a) or [])
    port = listening.getsockname()[1]
    result = _join([a.format(port=port) for a in args], monkeypatch, tmp_path)
    assert result.exit_code == 2, result.output
    shown = args[0] if "feather" in args[0] or args[0] == "60-" else args[1]
    said = " ".join(result.output.split())
    assert f"Error: {shown} is not a whole invitation code: a code is a number and two words, like " \
        "43-robin-maple" in said, said  # fmt: skip
    assert "cannot reach" not in said and looked_up == [] and _nobody_came(listening)


# ---------------------------------------------------------------------------
# 3. A code with a word that is no code word is never sent


@pytest.mark.parametrize(("lang", "said"), [
    (None, "acron is no word of an invitation code: did you mean 60-feather-acorn?"),
    ("it", "acron non è una parola di un codice d'invito: intendevi 60-feather-acorn?"),
    ("fr", "acron n'est pas un mot d'un code d'invitation : vouliez-vous dire 60-feather-acorn ?"),
])  # fmt: skip
def test_a_code_given_with_a_mistyped_word_is_not_sent_and_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, listening: socket.socket, lang: str | None, said: str
) -> None:
    port = listening.getsockname()[1]
    for args in ([f"127.0.0.1:{port}", "60-feather-acron"], ["60-feather-acron"]):
        result = _join(args, monkeypatch, tmp_path, lang)
        assert result.exit_code == 2, result.output
        assert said in " ".join(result.output.split()), result.output
        assert _nobody_came(listening)


def test_at_a_terminal_a_mistyped_code_given_is_asked_again_and_the_answer_sent(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    sent: list[str] = []

    async def fake_join(config: Any, *, code: str, **_: Any) -> str:
        sent.append(code)
        return "joined"

    @asynccontextmanager
    async def fake_joining(config: Any, **_: Any) -> Any:
        yield None

    answers = iter(["60-feather-acorn"])
    monkeypatch.setattr("p2pcards.ui.keyboard.ask_code", lambda prompt, words: next(answers))
    monkeypatch.setattr(cmd_join, "_at_terminal", lambda: True, raising=False)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    monkeypatch.setattr(node, "join_game", fake_join)
    monkeypatch.setattr(node, "joining", fake_joining, raising=False)
    monkeypatch.setattr(cmd_join, "_run_node", lambda kind, run, **_: trio.run(run, None))
    result = _join(["198.18.0.1", "60-feather-acron"], monkeypatch, tmp_path, "it")
    assert result.exit_code == 0, result.output
    assert "acron non è una parola di un codice d'invito: intendevi 60-feather-acorn?" in " ".join(
        result.output.split()
    )
    assert sent == ["60-feather-acorn"]


@pytest.mark.parametrize(("lang", "said"), [
    ("en", "Stopped: no code was given, so you joined no table."),
    ("fr", "Arrêt : aucun code n'a été donné, vous n'avez rejoint aucune table."),
    ("it", "Fermato: non hai dato nessun codice, quindi non ti sei seduto a nessun tavolo."),
])  # fmt: skip
@pytest.mark.parametrize("answer", ["ctrl-d", "quit"])
def test_ctrl_d_or_quit_at_the_code_prompt_stops_with_status_0_and_says_so(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, lang: str, said: str, answer: str
) -> None:
    """The end of the input at the code prompt is a quit, as at every prompt of the game (where
    it leaves the table, status 0): said in the person's language on a line of its own, not
    click's "Aborted!" with status 1."""

    def typed(prompt: str, words: Any) -> str:
        sys.stdout.write(prompt)  # as input() leaves it: the prompt, and no end of line
        sys.stdout.flush()
        if answer == "quit":
            sys.stdout.write("\n")
            return {"en": "quit", "fr": "quitter", "it": "esci"}[lang]
        raise EOFError

    monkeypatch.setattr("p2pcards.ui.keyboard.ask_code", typed)
    monkeypatch.setattr(cmd_join, "_at_terminal", lambda: True, raising=False)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    result = _join(["198.18.0.1"], monkeypatch, tmp_path, lang)
    assert result.exit_code == 0, result.output
    assert said in result.output.splitlines(), result.output  # (a line of its own, after the prompt's)
    assert "Abort" not in result.output and "Interr" not in result.output


# ---------------------------------------------------------------------------
# 4. A code no host on this network has is asked again, within the three tries


def test_a_code_typed_that_no_host_here_has_is_asked_again(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    searched: list[str] = []
    sent: list[tuple[str, int, str]] = []

    async def fake_locate(code: str, **_: Any) -> list[tuple[str, int]]:
        searched.append(code)
        number = discovery.code_number(code)
        if number != 91:
            raise discovery.NobodyHasIt(discovery.Notice("notice_no_host", code=f"{number}-...", seconds="3"),
                                        number=number or 0)  # fmt: skip
        return [("198.18.0.9", 7777)]

    async def fake_join(config: Any, *, host: str, port: int, code: str, **_: Any) -> str:
        sent.append((host, port, code))
        return "joined"

    @asynccontextmanager
    async def fake_joining(config: Any, **_: Any) -> Any:
        yield None

    answers = iter(["92-satin-clover", "91-satin-clover"])
    monkeypatch.setattr("p2pcards.ui.keyboard.ask_code", lambda prompt, words: next(answers))
    monkeypatch.setattr(cmd_join, "_at_terminal", lambda: True, raising=False)
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    monkeypatch.setattr(discovery, "locate", fake_locate)
    monkeypatch.setattr(node, "join_game", fake_join)
    monkeypatch.setattr(node, "joining", fake_joining, raising=False)
    monkeypatch.setattr(cmd_join, "_run_node", lambda kind, run, **_: trio.run(run, None))
    result = _join([], monkeypatch, tmp_path)
    assert result.exit_code == 0, result.output
    assert (
        "No host on this network has the code 92-...: check it with the host and type it again "
        "(2 tries left)." in " ".join(result.output.split())
    ), result.output
    assert searched == ["92-satin-clover", "91-satin-clover"]
    assert sent == [("198.18.0.9", 7777, "91-satin-clover")]
    assert "satin" not in result.output.replace("92-satin-clover", "").replace("91-satin-clover", "")


# ---------------------------------------------------------------------------
# 5. The host first, the router beside it; said once a run


def _config(tmp_path: Path, router: Any, ui: RecordingUI) -> NodeConfig:
    return NodeConfig(
        identity=Identity.generate(),
        name="jo",
        decide=None,  # type: ignore[arg-type]
        ui=ui,
        data_dir=tmp_path,
        bind="0.0.0.0",  # (a seat bound to loopback asks no router)
        port_mapping=True,
        router=router,
        timeouts=Timeouts(handshake=10.0, lobby=60.0),
    )


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def test_a_joiner_tries_the_host_before_its_silent_router_has_answered(tmp_path: Path) -> None:
    ui = RecordingUI()
    async with trio.open_nursery() as nursery:
        router = await _with_router(FakeRouter("none"), nursery)
        start = trio.current_time()
        with pytest.raises(PeerUnreachable, match="Connection refused"):
            await join_game(_config(tmp_path, router, ui), host="127.0.0.1", port=_closed_port(), code=CODE)
        waited = trio.current_time() - start
        nursery.cancel_scope.cancel()
    assert waited < 1.0  # the router's silence takes 1.75 s (portmap.TRIES)
    assert not any("no router" in str(line) for line in ui.infos)  # (nothing to say of a run that ended)


async def test_the_router_is_asked_once_for_every_try_and_said_once(tmp_path: Path) -> None:
    from p2pcards.net.node import joining

    ui = RecordingUI()
    fake = FakeRouter("none")
    heard: list[bytes] = []
    fake.answer = lambda data: heard.append(data)  # type: ignore[method-assign,func-returns-value]
    async with trio.open_nursery() as nursery, lobby_server(3) as (lobby, port, _host_ui):
        router = await _with_router(fake, nursery)
        cfg = _config(tmp_path, router, ui)
        async with joining(cfg) as seat:
            with pytest.raises(JoinRefused):
                await join_game(cfg, host="127.0.0.1", port=port, code="8-amber-lantern", seat=seat)
            await seat.answered.wait()
            first_asks = len(heard)
            with trio.move_on_after(20):
                async with trio.open_nursery() as again:
                    again.start_soon(
                        lambda: join_game(cfg, host="127.0.0.1", port=port, code=CODE, seat=seat)
                    )
                    await ui.wait_for(lambda ui: bool(ui.lobbies) and "jo" in ui.lobbies[-1])
                    seated = lobby.names()  # (before the try is cut short, which the host then sees)
                    again.cancel_scope.cancel()
            assert seated == ["host", "jo"]
            assert first_asks > 0 and len(heard) == first_asks  # no second mapping for the second try
        nursery.cancel_scope.cancel()
    said = [line for line in ui.infos if "no router opened port" in str(line)]
    assert len(said) == 1, ui.infos


# ---------------------------------------------------------------------------
# 1. At the code prompt, in a terminal: a bad code is pointed out and asked again


@pytest.mark.slow
def test_at_the_code_prompt_a_code_that_cannot_be_right_is_asked_again(tmp_path: Path) -> None:
    from e2e_helpers import close_human, spawn_human
    from test_discovery import free_udp_port

    child = spawn_human(["join", "--bind", "127.0.0.1"], home=tmp_path, log=tmp_path / "screen.txt",
                        P2PCARDS_DISCOVERY_PORT=str(free_udp_port()))  # fmt: skip
    try:
        child.expect_exact("Invitation code: ")
        for typed, said in (
            ("60-feather", "60-feather is not a whole invitation code: a code is a number and two words"),
            ("60-feather-", "60-feather- is not a whole invitation code"),
            ("hello", "Only a code like 43-robin-maple finds its host on this network"),
            ("", "Type the invitation code the host gave you, such as 43-robin-maple"),
        ):
            child.sendline(typed)
            child.expect_exact(said)
            child.expect_exact("Invitation code: ")
            assert child.isalive()
        child.sendline("quit")
        child.expect_exact("you joined no table")
    finally:
        close_human(child)
    screen = (tmp_path / "screen.txt").read_text()
    assert "Usage:" not in screen and "Error:" not in screen and "Looking for" not in screen, screen


@pytest.mark.slow
def test_at_a_terminal_an_unfinished_code_given_is_said_and_asked_for(tmp_path: Path) -> None:
    from e2e_helpers import close_human, spawn_human
    from test_discovery import free_udp_port

    args = ["join", "60-feather", "--bind", "127.0.0.1"]
    udp = str(free_udp_port())
    child = spawn_human(args, home=tmp_path, log=tmp_path / "screen.txt", P2PCARDS_DISCOVERY_PORT=udp)
    try:
        child.expect_exact("60-feather is not a whole invitation code")
        child.expect_exact("Invitation code: ")
        child.sendline("quit")
        child.expect_exact("you joined no table")
    finally:
        close_human(child)
    assert "cannot reach" not in (tmp_path / "screen.txt").read_text()


# ---------------------------------------------------------------------------
# Ctrl-C at the code prompt, however it comes


_LOST_CTRL_C = """
import builtins, os, signal, sys, time

def lost_ctrl_c(prompt):
    # As line editing fares when Ctrl-C comes the instant its prompt is shown, before its wait
    # for a key begins: the signal reaches the process, and the read waits on without it.
    sys.stdout.write(prompt)
    sys.stdout.flush()
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(float(os.environ["READ_FOR"]))
    return "4-ember-lantern"

builtins.input = lost_ctrl_c

def say_interrupted():
    from p2pcards.ui import keyboard
    print("interrupted")
    print("left", keyboard.a_read_is_left())
    sys.stdout.flush()
    os._exit(0)
"""


def _run_script(script: str, timeout: float) -> str:
    """What ``script`` printed; its read takes 20 s, and "left True" says it was cut short."""
    import os
    import subprocess

    env = {**os.environ, "READ_FOR": "20"}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=timeout,
                          env=env, stdin=subprocess.DEVNULL)  # fmt: skip
    return proc.stdout + proc.stderr


def test_ctrl_c_the_instant_the_code_prompt_appears_is_never_lost() -> None:
    """Line editing notices Ctrl-C only when the signal cuts its wait for a key short: one
    pressed as the prompt appears, before that wait began, was lost (the program waited on,
    once in a few tries). The wait for the code is interrupted at once, however the read fares."""
    script = _LOST_CTRL_C + """
from p2pcards.ui import keyboard
try:
    keyboard.ask_code("Invitation code: ", ["ember", "lantern"])
except KeyboardInterrupt:
    say_interrupted()
print("read on")
"""
    out = _run_script(script, timeout=60)
    assert "interrupted" in out and "left True" in out, out  # (cut short while the read went on)


def test_ctrl_c_at_the_code_prompt_asked_again_while_the_network_runs_stops_join() -> None:
    """After a wrong code the prompt is asked again from a worker thread, trio running: Ctrl-C
    there was never delivered (trio waited for the thread, which waited for a line)."""
    script = _LOST_CTRL_C + """
import trio
from p2pcards.cli.cmd_join import _joined_asking_again
from p2pcards.errors import JoinRefused
from p2pcards.ui.i18n import Translator

async def wrong(code):
    raise JoinRefused("wrong-code", "wrong invitation code")

try:
    trio.run(_joined_asking_again, wrong, "4-ember-lantrn", True, Translator("en"))
except KeyboardInterrupt:
    say_interrupted()
print("read on")
"""
    out = _run_script(script, timeout=60)
    assert "that code is wrong" in out and "interrupted" in out and "left True" in out, out
