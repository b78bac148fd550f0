"""A person at a networked table, at a real terminal (pexpect): what they do to their
own program never costs the others a wait, and they are told what happened.

Each test runs a bot host and a bot joiner as processes, and Ann at a
pseudo-terminal, over loopback TCP.
"""

from __future__ import annotations

import os
import random
import re
import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from e2e_helpers import ENGLISH, LOCAL, HumanSeat, Proc, close_human, processes, spawn_human, start_host

from p2pcards.net.words import new_code

pytestmark = pytest.mark.slow

pexpect = pytest.importorskip("pexpect")

MOVE = r"Your move > "
FINGERPRINT = r"digits\? [^>]*> "
DEALER_SUIT = r"you deal: name the active suit\.\s+(?:[^\n]* left · )?Which suit\? [^>]*> "
"""Ann deals and the up card is a 9: her first question is the suit, not a move (after the
time left on the table's clock, when the clock shows it)."""


class HumanThread:
    """A :class:`HumanSeat` answering in a thread, with a process's ``finish`` and ``output``."""

    def __init__(self, seat: HumanSeat, log: Path) -> None:
        self.seat, self.log, self.failure = seat, log, None
        self.thread = threading.Thread(target=self._play, daemon=True)
        self.thread.start()

    def _play(self) -> None:
        try:
            self.seat.play(timeout=60)
        except Exception as e:  # (reported by finish)
            self.failure = e

    def finish(self, timeout: float) -> int:
        self.thread.join(timeout)
        assert not self.thread.is_alive() and self.failure is None, self.failure
        return close_human(self.seat.child) or 0

    def output(self) -> str:
        return self.log.read_text(encoding="utf-8", errors="replace")

    def stop(self) -> None:
        close_human(self.seat.child)


@dataclass
class Table:
    host: Proc
    bob: Proc | HumanThread
    ann: object  # pexpect.spawn
    screen: Path


@contextmanager
def table_with_ann(
    tmp_path: Path,
    *,
    players: int = 3,
    rules: tuple[str, ...] = ("hands=3",),
    clock: tuple[str, ...] = (),
    bob_at_a_terminal: bool = False,
    typed_first: str | None = None,
) -> Iterator[Table]:
    """Hal hosts (a bot), Bob joins (a bot) when there are three seats, then Ann at a
    terminal; yields once Ann's first move prompt is on screen. Default clocks: a seat
    that vanished would be waited for 120 s."""
    code = new_code()
    rule_args = [a for r in rules for a in ("--rule", r)]
    with processes(tmp_path) as procs:
        host, port = start_host(
            procs,
            ["-n", str(players), "--bot", "random", "--name", "Hal", "--code", code, *rule_args, *clock],
            home=tmp_path / "home0",
        )
        address = f"{LOCAL}:{port}"
        bob_args = ["join", address, "--bind", LOCAL, "--name", "Bob"]
        if bob_at_a_terminal:  # a second person, answering at random (two people: the host's clock holds)
            bob_child = spawn_human(
                bob_args, home=tmp_path / "home1", log=tmp_path / "bob.screen", P2PCARDS_CODE=code
            )
            bob = HumanThread(
                HumanSeat(child=bob_child, screens=ENGLISH, rng=random.Random(3)), tmp_path / "bob.screen"
            )
        else:
            bob = procs.spawn(
                "bob", [*bob_args, "--bot", "heuristic"], home=tmp_path / "home1", P2PCARDS_CODE=code
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
        if typed_first is not None:
            ann.sendline(typed_first)  # before any prompt
        try:
            while (seen := ann.expect([MOVE, FINGERPRINT, DEALER_SUIT], timeout=60)) != 0:
                ann.sendline("y" if seen == 1 else "1")
            yield Table(host, bob, ann, screen)
        finally:
            close_human(ann)
            if isinstance(bob, HumanThread):
                bob.stop()


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
    assert re.search(r"^ [▶>] you  ", screen, re.M) and not re.search(r"^ [▶>] Ann", screen, re.M), screen
    if how == "ctrl-c":
        assert status == 130, screen
        assert "Interrupted: you left the match, and the others were told (signed)." in screen
        saved = re.search(r"Signed transcript[^\n]*\n\s*(\S+\.p2pt)", screen)
        assert saved is not None and Path(saved[1]).exists(), screen


def test_a_player_who_leaves_while_ann_thinks_is_shown_at_once_and_her_next_answer_counts(
    tmp_path: Path,
) -> None:
    """Bob leaves (a polite kill: a signed leave) while Ann's move prompt is up. Without
    her typing anything she is told that he left, and her question about the hand that
    no longer counts is withdrawn; the match goes on at a new table, and the first line
    she types there answers its question (it is not lost to the withdrawn one)."""
    with table_with_ann(tmp_path, rules=("hands=2",)) as table:
        time.sleep(0.3)
        os.kill(table.bob.pid, signal.SIGTERM)  # type: ignore[union-attr]
        table.ann.expect("Bob left the match", timeout=20)  # type: ignore[attr-defined]
        before = table.screen.read_text(encoding="utf-8", errors="replace")
        while (seen := table.ann.expect([MOVE, FINGERPRINT, DEALER_SUIT], timeout=60)) != 0:  # type: ignore[attr-defined]
            table.ann.sendline("y" if seen == 1 else "1")  # type: ignore[attr-defined]
        table.ann.sendline("help")  # type: ignore[attr-defined]
        table.ann.expect(MOVE, timeout=20)  # type: ignore[attr-defined]
        table.ann.sendline("1")  # type: ignore[attr-defined]
        # (Her first move may be a 9, whose suit she names too, or a draw: "1" draws then.)
        while table.ann.expect([r"You (played|drew)", r"Which suit\? [^>]*> "], timeout=20) == 1:  # type: ignore[attr-defined]
            table.ann.sendline("1")  # type: ignore[attr-defined]
        time.sleep(0.5)
    assert "You played" not in before, before  # nothing was played in the void hand
    after = table.screen.read_text(encoding="utf-8", errors="replace")[len(before) :]
    # The help is shown once: the withdrawn question, whose read took the line too, asks
    # and says nothing more.
    assert after.count("How to play Nines") == 1, after
    assert "Traceback" not in after


def test_at_a_table_of_two_the_one_left_is_told_who_left_not_that_its_connection_failed(
    tmp_path: Path,
) -> None:
    with table_with_ann(tmp_path, players=2) as table:
        time.sleep(0.3)
        table.ann.sendintr()  # type: ignore[attr-defined]
        table.ann.expect(pexpect.EOF, timeout=20)  # type: ignore[attr-defined]
        [(code, out)] = _others_after(table, 2)
    text = " ".join(out.split())
    assert "Ann left the match (interrupted): nobody remains to play on with you" in text, out
    assert "own connection may be down" not in text and "because of" not in text, out  # a leave is no fault
    assert code == 0, out  # the match ended: nobody is named


def test_a_player_whose_clock_runs_out_leaves_and_the_others_play_on(tmp_path: Path) -> None:
    """Ann's prompt shows the time left on the table's clock (8 s, as the host set it).
    She does not answer: when it runs out she is told so and leaves, signed, and Hal
    and Bob play the match out without her; their transcripts say why she left."""
    clock = ("--turn-timeout", "8", "--short-clocks")  # (under the least a host may set: a test's)
    with table_with_ann(tmp_path, clock=clock, bob_at_a_terminal=True) as table:
        prompt = table.ann.before + table.ann.after  # type: ignore[attr-defined]
        table.ann.expect(pexpect.EOF, timeout=30)  # type: ignore[attr-defined]
        status = close_human(table.ann)
        others = _others_after(table, 3)
    screen = table.screen.read_text(encoding="utf-8", errors="replace")
    shown = re.findall(r"0:0(\d) left · Your move > $", prompt, re.MULTILINE)
    assert shown and 5 <= int(shown[-1]) <= 8, prompt[-300:]
    assert "Your time to play ran out on the table's clock: you left the match." in screen, screen[-1500:]
    assert status == 0, screen[-1500:]
    for code, out in others:
        assert code == 0, out
        assert "Ann left the match (did not play within 8 s)" in " ".join(out.split()), out


def test_what_is_typed_before_a_prompt_is_not_its_answer(tmp_path: Path) -> None:
    """Ann types "1" and Enter before anything asks her anything: the first prompt (the
    fingerprint question, then her move) does not take that line as its answer; she
    is told once that it was not used: when her table shows (typed in the lobby), that it
    is not her turn (typed after), or at the first prompt (typed just before it)."""
    with table_with_ann(tmp_path, typed_first="1") as table:
        time.sleep(0.5)  # her move prompt waits: nothing answered it
        at_move = table.screen.read_text(encoding="utf-8", errors="replace")
    told = (
        "What you typed before this prompt appeared is not used",
        "(1: it is not your turn;",
        "What you typed before the table was ready is not used",
    )
    assert sum(at_move.count(t) for t in told) == 1, at_move
    assert "Answer y if everyone" not in at_move and "You played" not in at_move, at_move


def test_a_typed_code_is_shown_completed_with_tab_and_asked_again_when_wrong(tmp_path: Path) -> None:
    """Ann types the code herself: she sees what she types, Tab completes a code word (the
    first one with the dash that follows it), and a wrong code is asked for again instead
    of ending the command; once seated she is told which game she joined."""
    from p2pcards.net.words import WORDS

    # A first word that a prefix of it names alone (Tab then completes it, not just the prefix).
    first = next(w for w in WORDS if len([v for v in WORDS if v.startswith(w[:3])]) == 1)
    number, second = "7", "maple" if first != "maple" else "amber"
    code = f"{number}-{first}-{second}"
    with processes(tmp_path) as procs:
        _, port = start_host(
            procs, ["-n", "2", "--bot", "random", "--name", "Hal", "--code", code], home=tmp_path / "h0"
        )
        screen = tmp_path / "ann.screen"
        ann = spawn_human(
            ["join", f"{LOCAL}:{port}", "--bind", LOCAL, "--name", "Ann"], home=tmp_path / "h1", log=screen
        )
        try:
            ann.expect("Invitation code: ", timeout=20)
            wrong = "99-acid-acorn" if code != "99-acid-acorn" else "98-acid-acorn"
            ann.sendline(wrong)
            ann.expect(
                r"that code is wrong: check it with the host and type it again \(2 tries left\)", timeout=30
            )
            ann.expect("Invitation code: ", timeout=10)
            ann.send(f"{number}-{first[:3]}\t")  # Tab completes the first word, and the dash after it
            ann.expect(re.escape(f"{number}-{first}-"), timeout=10)
            ann.sendline(second)
            ann.expect(r"seated at a table of Nines \(2 players\)", timeout=30)
            ann.expect([MOVE, FINGERPRINT], timeout=60)
        finally:
            close_human(ann)
    text = screen.read_text(encoding="utf-8", errors="replace")
    assert wrong in text  # echoed as typed
    assert "Traceback" not in text


@pytest.mark.parametrize("command", ["play", "host", "join"])
def test_help_shows_the_choices_of_bot_and_language(command: str) -> None:
    from click.testing import CliRunner

    from p2pcards.bots import BOT_NAMES
    from p2pcards.cli import main

    text = CliRunner().invoke(main, [command, "--help"]).output
    assert f"--bot [{'|'.join(BOT_NAMES)}]" in text and "--lang [en|fr|it]" in text, text
    assert set(BOT_NAMES) == {"heuristic", "random", "expert"}


def test_simulate_help_lists_the_rules_of_both_games() -> None:
    from click.testing import CliRunner

    from p2pcards.cli import main

    text = " ".join(CliRunner().invoke(main, ["simulate", "--help"]).output.split())
    assert "Nines: target=N" in text and "Le Neuf: trumps=" in text and "exchange=open|blind" in text, text


def test_a_game_with_a_seed_already_used_does_not_overwrite_the_earlier_transcript(tmp_path: Path) -> None:
    """``play -n 2 --seed 11`` then ``play --seed 11``: two games, two files."""
    from e2e_helpers import run_cli

    home = tmp_path / "home"
    for players in ("2", "3"):
        proc = run_cli(["play", "--watch", "-n", players, "--seed", "11", "--rule", "hands=1"], home=home)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    saved = sorted((home / "transcripts").glob("*.p2pt"))
    assert len(saved) == 2, saved
    sizes = {len(run_cli(["audit", str(p), "--json"], home=home).stdout) for p in saved}
    assert len(sizes) == 2  # two different games, each audited


def test_save_new_never_replaces_a_file(tmp_path: Path) -> None:
    from p2pcards.protocol.transcript import save_new

    first = save_new(tmp_path / "g.p2pt", b"one")
    second = save_new(tmp_path / "g.p2pt", b"two")
    assert (first.name, second.name) == ("g.p2pt", "g-2.p2pt")
    assert first.read_bytes() == b"one" and second.read_bytes() == b"two"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g-2.p2pt", "g.p2pt"]  # no temporary left


def test_save_new_replaces_only_an_earlier_save_of_the_same_game(tmp_path: Path) -> None:
    """A resumed match saves again at its first name; a different game never takes it."""
    from protocol_helpers import SHORT_RULES, make_tables, run_match

    from p2pcards.protocol.transcript import decode_file, encode_file, save_new

    tables = make_tables(2, SHORT_RULES, 1)
    run_match(tables, 1)
    records = tables[0].transcript.records()[:6]
    first = save_new(tmp_path / "g.p2pt", encode_file(records[:3], saved_by=0, status="interrupted"))
    again = save_new(tmp_path / "g.p2pt", encode_file(records, saved_by=0, status="finished"))
    other = save_new(tmp_path / "g.p2pt", encode_file(records[1:], saved_by=0, status="finished"))
    assert first == again == tmp_path / "g.p2pt" and other.name == "g-2.p2pt"
    assert len(decode_file(first.read_bytes()).records) == 6


_HANGS_UP_WHILE_LINKING = """
import os, signal, sys, trio
from p2pcards.net.node import _stopped_by_hangup

async def main():
    async with _stopped_by_hangup(True):
        async def hang_up():
            await trio.sleep(0.2)
            os.kill(os.getpid(), getattr(signal, sys.argv[1]))
        async with trio.open_nursery() as nursery:
            nursery.start_soon(hang_up)
            await trio.sleep(60)  # as a joiner linking with the others waits on a dial
    print("linked on")

try:
    trio.run(main)
except KeyboardInterrupt:
    print("stopped as by Ctrl-C")
"""


@pytest.mark.parametrize("signal_name", ["SIGHUP", "SIGTERM"])
def test_a_closed_terminal_while_the_joiner_links_with_the_others_stops_it_as_ctrl_c_does(
    signal_name: str,
) -> None:
    """Before the match takes a signal as a signed leave, a joiner forms its links with the
    others: a hang-up then killed it (status 143, no word to anyone, the others waiting out
    its grace). It stops as Ctrl-C stops it, which tells its peers that it left."""
    import subprocess
    import sys

    from e2e_helpers import REPO

    proc = subprocess.run(
        [sys.executable, "-c", _HANGS_UP_WHILE_LINKING, signal_name],
        cwd=REPO, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0 and proc.stdout.strip() == "stopped as by Ctrl-C", (proc.stdout, proc.stderr)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("who", "signal_name"), [("joiner", "SIGHUP"), ("joiner", "SIGTERM"), ("host", "SIGTERM")]
)
def test_a_node_hung_up_in_the_lobby_stops_as_ctrl_c_does(tmp_path: Path, who: str, signal_name: str) -> None:
    """Seated, a joiner may wait long for the others, and a host for its joiners: a closed
    terminal or a polite kill then killed the program (status 129 or 143, not a word, and a
    port its router forwarded left open). It stops as Ctrl-C stops it: "Interrupted.", 130,
    and the others hear that it left."""
    code = new_code()
    with processes(tmp_path) as procs:
        host, port = start_host(
            procs, ["-n", "3", "--bot", "random", "--name", "Hal", "--code", code], home=tmp_path / "home0"
        )
        bob = procs.spawn(
            "bob",
            ["join", f"{LOCAL}:{port}", "--bind", LOCAL, "--name", "Bob", "--bot", "random"],
            home=tmp_path / "home1",
            P2PCARDS_CODE=code,
        )
        assert host.wait_for("At the table (2 of 3)", timeout=30), host.tail()
        assert bob.wait_for("waiting for the others", timeout=30), bob.tail()
        gone = bob if who == "joiner" else host
        os.kill(gone.pid, getattr(signal, signal_name))
        assert gone.finish(timeout=30) == 130, gone.tail()
        assert "Interrupted." in gone.output(), gone.tail()
        if who == "joiner":
            assert host.wait_for("Bob left the table", timeout=30), host.tail()
        else:
            assert bob.finish(timeout=30) != 0, bob.tail()
            assert "the host closed its table before the game began" in bob.output(), bob.tail()
