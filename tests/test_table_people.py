"""A person at a networked table, at a real terminal (pexpect): what they do to their
own program never costs the others a wait, and they are told what happened.

Each test runs a bot host and a bot joiner as processes, and Ann at a
pseudo-terminal, over loopback TCP.
"""

from __future__ import annotations

import os
import re
import signal
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from e2e_helpers import LOCAL, Proc, close_human, processes, spawn_human, start_host

from p2pcards.net.words import new_code

pytestmark = pytest.mark.slow

pexpect = pytest.importorskip("pexpect")

MOVE = r"Your move > "
FINGERPRINT = r"digits\? [^\n]*> "


@dataclass
class Table:
    host: Proc
    bob: Proc
    ann: object  # pexpect.spawn
    screen: Path


@contextmanager
def table_with_ann(
    tmp_path: Path, *, players: int = 3, rules: tuple[str, ...] = ("hands=3",)
) -> Iterator[Table]:
    """Hal hosts (a bot), Bob joins (a bot) when there are three seats, then Ann at a
    terminal; yields once Ann's first move prompt is on screen. Default clocks: a seat
    that vanished would be waited for 120 s."""
    code = new_code()
    rule_args = [a for r in rules for a in ("--rule", r)]
    with processes(tmp_path) as procs:
        host, port = start_host(
            procs,
            ["-n", str(players), "--bot", "random", "--name", "Hal", "--code", code, *rule_args],
            home=tmp_path / "home0",
        )
        address = f"{LOCAL}:{port}"
        bob = procs.spawn(
            "bob",
            ["join", address, "--bind", LOCAL, "--name", "Bob", "--bot", "heuristic"],
            home=tmp_path / "home1",
            P2PCARDS_CODE=code,
        )
        if players == 3:
            assert host.wait_for("At the table (2 of 3)", timeout=20), host.tail()
        else:
            bob.stop()  # a table of two: Hal and Ann
        screen = tmp_path / "ann.screen"
        ann = spawn_human(
            ["join", address, "--bind", LOCAL, "--name", "Ann"],
            home=tmp_path / "home2",
            log=screen,
            P2PCARDS_CODE=code,
        )
        try:
            while ann.expect([MOVE, FINGERPRINT], timeout=60) == 1:
                ann.sendline("y")
            yield Table(host, bob, ann, screen)
        finally:
            close_human(ann)


def _others_after(table: Table, players: int) -> list[tuple[int, str]]:
    procs = [table.host, table.bob] if players == 3 else [table.host]
    return [(p.finish(timeout=30), p.output()) for p in procs]


@pytest.mark.parametrize("how", ["ctrl-c", "terminal closed"])
def test_interrupting_the_program_signs_the_leave_and_the_others_go_on_at_once(
    tmp_path: Path, how: str
) -> None:
    """Ctrl-C at Ann's prompt, or her terminal closing (SIGHUP), is a signed leave: Hal
    and Bob go on without her at once (their finishing within 30 s shows that nobody
    waited out her 120 s grace), and she is told where her transcript is."""
    with table_with_ann(tmp_path) as table:
        time.sleep(0.3)
        if how == "ctrl-c":
            table.ann.sendintr()  # type: ignore[attr-defined]
        else:
            os.kill(table.ann.pid, signal.SIGHUP)  # type: ignore[attr-defined]
        table.ann.expect(pexpect.EOF, timeout=20)  # type: ignore[attr-defined]
        status = close_human(table.ann)
        others = _others_after(table, 3)
    screen = table.screen.read_text(encoding="utf-8", errors="replace")
    for code, out in others:
        assert code == 0, out
        text = " ".join(out.split())
        assert "Ann left the match (interrupted)" in text, out
        assert "lost connection" not in text and "did not come back" not in text, out
    assert "Traceback" not in screen
    if how == "ctrl-c":
        assert status == 130, screen
        assert "Interrupted: you left the match, and the others were told (signed)." in screen
        saved = re.search(r"Signed transcript[^\n]*\n\s*(\S+\.p2pt)", screen)
        assert saved is not None and Path(saved[1]).exists(), screen


def test_at_a_table_of_two_the_one_left_is_told_who_left_not_that_its_connection_failed(
    tmp_path: Path,
) -> None:
    with table_with_ann(tmp_path, players=2) as table:
        time.sleep(0.3)
        table.ann.sendintr()  # type: ignore[attr-defined]
        table.ann.expect(pexpect.EOF, timeout=20)  # type: ignore[attr-defined]
        [(_, out)] = _others_after(table, 2)
    text = " ".join(out.split())
    assert "Ann left the match" in text and "interrupted" in text, out
    assert "own connection may be down" not in text, out
