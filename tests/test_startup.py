"""Start-up: ``p2pcards --help`` loads only what the command line itself needs, and a node
shows its lobby without what only the match needs.

A short match is mostly start-up, so the command line defers every module a command does not
need yet; this keeps the protocol, the network and the cryptography out of its first imports.
A host prints its invitation, and a joiner its lobby, before the match's engine, the game's
screen, the bots, the record and the other games load; a host loads the code's SPAKE2 and
X.509 at the first connection, not before its invitation.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from p2pcards.cli.network import MAX_CLOCK as CLI_MAX_CLOCK
from p2pcards.net.runner import WAIT_NOTICE
from p2pcards.protocol.messages import MAX_CLOCK
from p2pcards.ui.netgame import SLOW_STEP

HEAVY = ("p2pcards.protocol", "p2pcards.net", "p2pcards.crypto", "trio", "cryptography", "spake2", "msgpack")


def _loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return set(out.stdout.split())


def test_the_command_line_loads_no_protocol_network_or_crypto() -> None:
    assert {m for m in _loaded_after("import p2pcards.cli") if m.startswith(HEAVY)} == set()


def test_the_option_limits_are_the_protocols() -> None:
    assert CLI_MAX_CLOCK == MAX_CLOCK


def test_the_status_line_waits_as_the_runner_does() -> None:
    assert SLOW_STEP == WAIT_NOTICE


AFTER_THE_LOBBY = (
    # the match: its table and engine, the runner, the journal, the transcript, the fingerprint
    "p2pcards.protocol.core", "p2pcards.protocol.table", "p2pcards.protocol.sitting",
    "p2pcards.protocol.ledger", "p2pcards.protocol.steplog", "p2pcards.protocol.events",
    "p2pcards.protocol.journal", "p2pcards.protocol.transcript", "p2pcards.protocol.fingerprint",
    "p2pcards.net.runner", "p2pcards.net.known", "p2pcards.games.nines.adapter",
    # the mental poker's group arithmetic and encodings
    "p2pcards.crypto.poker", "p2pcards.crypto.group", "p2pcards.crypto.encoding", "p2pcards.crypto.kdf",
    # the screens, the bots and their search, the record, replays and audits
    "p2pcards.ui.screen", "p2pcards.games.nines.screen", "p2pcards.games.nines.display",
    "p2pcards.games.nines.render", "p2pcards.games.nines.prompt", "p2pcards.games.nines.bots",
    "p2pcards.games.nines.expert", "p2pcards.bots.random_bot", "p2pcards.bots.expert",
    "p2pcards.record", "p2pcards.replay", "p2pcards.history", "p2pcards.protocol.audit", "p2pcards.sim",
    # another game than the table's, and the router's port mapping (--no-port-mapping)
    "p2pcards.games.neuf", "miniupnpc",
)  # fmt: skip
"""Modules that a node of a Nines table has no need of before its lobby is shown."""

BEFORE_THE_FIRST_JOINER = ("spake2", "cryptography.x509")
"""What a host loads when someone dials it (the code's proof, the TLS certificate)."""

_AT_THE_LOBBY = """
import os, sys
from p2pcards.ui import netgame

def dump(self, *args, **kwargs):
    print("\\n".join(["--modules--", *sorted(sys.modules)]), flush=True)
    os._exit(0)

netgame.NetworkUI.{hook} = dump
from p2pcards.cli import main
main(sys.argv[1:], prog_name="p2pcards")
"""
"""Runs the command line, and prints the modules loaded once the node's lobby shows (the host's
invitation, the joiner's table) instead of showing it."""

NODE = ["--bot", "random", "--bind", "127.0.0.1", "--no-port-mapping", "--lang", "en"]
HOST = ["host", "--port", "0", "--no-discovery", "--name", "Host", "--code", "7-apple-banana", *NODE]


def _loaded_at_lobby(hook: str, args: list[str], env: dict[str, str]) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", _AT_THE_LOBBY.format(hook=hook), *args],
        capture_output=True, text=True, stdin=subprocess.DEVNULL, env=env, timeout=120,
    )  # fmt: skip
    assert "--modules--" in out.stdout, (out.stdout, out.stderr)
    return set(out.stdout.partition("--modules--")[2].split())


def _among(loaded: set[str], prefixes: tuple[str, ...]) -> set[str]:
    return {m for m in loaded if any(m == p or m.startswith(p + ".") for p in prefixes)}


def test_a_host_shows_its_invitation_before_loading_the_match() -> None:
    loaded = _loaded_at_lobby("invitation", [*HOST, "--players", "2"], dict(os.environ))
    assert "trio" in loaded and "p2pcards.net.session" in loaded  # (it did reach its lobby)
    assert _among(loaded, AFTER_THE_LOBBY + BEFORE_THE_FIRST_JOINER) == set()


@pytest.mark.slow
def test_a_joiner_shows_its_lobby_before_loading_the_match(tmp_path: Path) -> None:
    env = dict(os.environ, P2PCARDS_HOME=str(tmp_path / "host"))  # (a key of its own)
    host = subprocess.Popen(
        [sys.executable, "-m", "p2pcards", *HOST, "--players", "3"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env, text=True,
    )  # fmt: skip
    try:
        assert host.stdout is not None
        address = None
        for line in host.stdout:
            found = re.search(r" join (\S+) --code", line)
            if found:
                address = found.group(1)
                break
        assert address is not None, "the host printed no invitation"
        joiner = [*NODE, "--name", "Joiner", "--code", "7-apple-banana"]
        loaded = _loaded_at_lobby("lobby", ["join", address, *joiner], dict(os.environ))
    finally:
        host.kill()
        host.wait()
    assert "p2pcards.games.nines.rules" in loaded  # (it did learn the table's game)
    assert _among(loaded, AFTER_THE_LOBBY) == set()
