"""Running the real ``p2pcards`` command as separate processes, as on separate machines.

Every node gets its own data directory (``P2PCARDS_HOME``), its output goes to a
file (polled, so a chatty process can never block on a full pipe), and every
process started here is killed when the test ends, whatever happened. A human
seat runs under a pseudo-terminal (pexpect) and is answered prompt by prompt
from what the screen shows.
"""

from __future__ import annotations

import contextlib
import json
import os
import random
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

CLI = Path(sys.executable).with_name("p2pcards")
"""The installed console script of the virtualenv running the tests."""

REPO = Path(__file__).resolve().parents[1]

LOCAL = "127.0.0.1"
POLL = 0.02


def free_port() -> int:
    """A port nobody listens on right now (it may be taken again before we use it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOCAL, 0))
        return s.getsockname()[1]


def node_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of one node: its own data directory, plain English text, no colours."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("P2PCARDS_", "LC_"))}
    env.update(
        P2PCARDS_HOME=str(home),
        LC_ALL="C.UTF-8",  # not a language p2pcards knows: English, whatever the machine says
        LANG="C.UTF-8",
        PYTHONIOENCODING="utf-8",
        PYTHONUNBUFFERED="1",
        NO_COLOR="1",
        TERM="dumb",
        P2PCARDS_NO_PORT_MAPPING="1",  # the test machine's router is not asked (the NAT lab's is)
    )
    env.update(extra)
    return env


def cmdline(pid: int) -> list[str] | None:
    """What ``ps`` shows for a process (None where there is no /proc)."""
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    return [a.decode(errors="replace") for a in raw.split(b"\0") if a]


@dataclass(slots=True)
class Proc:
    """One running ``p2pcards`` process whose output (stdout and stderr) goes to ``log``."""

    name: str
    argv: list[str]
    log: Path
    popen: subprocess.Popen[bytes]

    @property
    def pid(self) -> int:
        return self.popen.pid

    def output(self) -> str:
        return self.log.read_bytes().decode("utf-8", errors="replace")

    def tail(self, lines: int = 30) -> str:
        return f"--- {self.name} (last lines) ---\n" + "\n".join(self.output().splitlines()[-lines:])

    def wait_for(self, text: str, timeout: float) -> bool:
        """True once ``text`` is in the output; False if the process ended without it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if text in self.output():
                return True
            if self.popen.poll() is not None:
                return text in self.output()
            time.sleep(POLL)
        raise AssertionError(f"{self.name}: no {text!r} after {timeout} s\n{self.tail()}")

    def finish(self, timeout: float) -> int:
        """The exit status, waiting at most ``timeout`` seconds for it."""
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"{self.name} still running after {timeout} s\n{self.tail()}") from None

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):  # one that ignores SIGKILL: give up
            self.popen.wait(5)


@dataclass(slots=True)
class Procs:
    """Starts processes and remembers them, so that ``close`` kills any still running."""

    directory: Path
    started: list[Proc] = field(default_factory=list)

    def spawn(self, name: str, args: Sequence[str], *, home: Path, **env: str) -> Proc:
        argv = [str(CLI), *args]
        log = self.directory / f"{name}.out"
        with log.open("wb") as out:
            popen = subprocess.Popen(
                argv,
                env=node_env(home, **env),
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        proc = Proc(name=name, argv=argv, log=log, popen=popen)
        self.started.append(proc)
        return proc

    def close(self) -> None:
        for proc in self.started:
            proc.stop()


def spawn_on(procs: Procs, machine: Any, name: str, args: list[str], home: Path, **env: str) -> Proc:
    """Start the real CLI on a NAT-lab machine (``natlab.Host``), with port mapping on
    (the lab's router is the one asked)."""
    log = procs.directory / f"{name}.out"
    with log.open("wb") as out:
        popen = machine.popen(
            [str(CLI), *args],
            env=node_env(home, P2PCARDS_NO_PORT_MAPPING="0", **env),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    proc = Proc(name=name, argv=list(popen.args), log=log, popen=popen)
    procs.started.append(proc)
    return proc


@contextmanager
def processes(directory: Path) -> Iterator[Procs]:
    procs = Procs(directory)
    try:
        yield procs
    finally:
        procs.close()


def start_host(procs: Procs, args: Sequence[str], *, home: Path, attempts: int = 3) -> tuple[Proc, int]:
    """``p2pcards host`` on a free loopback port; tries another port if that one was taken meanwhile."""
    for attempt in range(attempts):
        port = free_port()
        host = procs.spawn(
            f"host-{attempt}", ["host", "--port", str(port), "--bind", LOCAL, *args], home=home
        )
        if host.wait_for("Invitation code", timeout=20):
            return host, port
        host.stop()
    raise AssertionError(f"the host did not start on {attempts} ports\n{host.tail()}")


def run_cli(
    args: Sequence[str], *, home: Path, timeout: float = 30, **env: str
) -> subprocess.CompletedProcess[str]:
    """One short command, waited for (``subprocess.run`` kills it on timeout)."""
    return subprocess.run(
        [str(CLI), *args],
        env=node_env(home, **env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=timeout,
        check=False,
    )


def audit_json(path: Path, *, home: Path) -> tuple[int, dict]:
    """``p2pcards audit FILE --json``: the exit status and the record it printed."""
    proc = run_cli(["audit", str(path), "--json"], home=home)
    assert "Traceback" not in proc.stderr, proc.stderr
    return proc.returncode, json.loads(proc.stdout)


def seat_of(record: dict, name: str) -> int:
    return next(p["seat"] for p in record["players"] if p["name"] == name)


# ---------------------------------------------------------------------------
# A human seat at a pseudo-terminal


@dataclass(frozen=True, slots=True, kw_only=True)
class Screens:
    """What one language's prompts and messages look like."""

    move: str
    suit: str
    drawn: str
    next_hand: str
    press_enter: tuple[str, ...]
    menu: str
    yes: str
    no: str
    scores_after: str
    final_scores: str
    refusals: tuple[str, ...]
    confirm_leave: str = ""
    stay: str = ""
    fingerprint: str = r"Do all the players read these same digits\? [^>]*> "


ENGLISH = Screens(
    move=r"Your move > ",
    suit=r"Which suit\? [^>]*> ",
    drawn=r"Play it\? \(y/n\) > ",
    next_hand=r"Press Enter for the next hand\. > ",
    press_enter=("press Enter to draw", "press Enter to pass"),
    menu="Legal moves:",
    yes="y",
    no="n",
    scores_after="Scores after hand",
    final_scores="Final scores",
    refusals=("There is no move", "Not allowed", "Please answer y or n"),
    confirm_leave=r"Leave the match\? [^\n]*\(y/n\) > ",  # (what will happen: the others play on, or not)
    stay="You stay at the table.",
)

FRENCH = Screens(
    move=r"Votre coup > ",
    suit=r"Quelle couleur \? [^>]*> ",
    drawn=r"La jouer \? \(o/n\) > ",
    next_hand=r"Appuyez sur Entrée pour la manche suivante\. > ",
    press_enter=("appuyez sur Entrée pour piocher", "appuyez sur Entrée pour passer"),
    menu="Coups permis :",
    yes="o",
    no="n",
    scores_after="Scores après la manche",
    final_scores="Scores finaux",
    refusals=("Il n'y a pas de coup", "Interdit", "Répondez o ou n"),
    confirm_leave=r"Quitter la partie \? [^\n]*\(o/n\) > ",
    stay="Vous restez à la table.",
    fingerprint=r"Tous les joueurs lisent-ils ces mêmes chiffres \? [^>]*> ",
)

MOVE, SUIT, DRAWN, NEXT_HAND, ENDED, COMPARED = range(6)


def menu_numbers(screen: str, heading: str) -> list[int]:
    """The numbers of the legal moves listed under the last menu heading on the screen."""
    menu = screen[screen.rfind(heading) :] if heading in screen else ""
    return [int(n) for n in re.findall(r"(?<!\S)(\d+)\) ", menu)]


@dataclass(slots=True)
class HumanSeat:
    """Answers a human seat's prompts with legal moves picked at random from the screen.

    ``commands`` are typed at the first move prompt (each answered in place) before
    the move; ``quit_after_scores`` leaves at the first prompt after a score table.
    """

    child: object  # pexpect.spawn
    screens: Screens
    rng: random.Random
    commands: Sequence[str] = ()
    replies: dict[str, str] = field(default_factory=dict)
    quit_word: str | None = None
    moves: int = 0
    menus: int = 0
    prompts: int = 0
    answered: dict[int, int] = field(default_factory=dict)
    """How many prompts of each kind (MOVE, SUIT, DRAWN, NEXT_HAND, COMPARED) were answered."""
    quit_sent: bool = False
    quit_at: int | None = None
    """The kind of prompt the player left at (MOVE, NEXT_HAND, ...)."""

    def play(self, *, max_prompts: int = 600, timeout: float = 30) -> None:
        import pexpect

        s = self.screens
        patterns = [s.move, s.suit, s.drawn, s.next_hand, pexpect.EOF, s.fingerprint]
        seen_scores = False
        pending = list(self.commands)
        while True:
            k = self.child.expect(patterns, timeout=timeout)  # type: ignore[attr-defined]
            if k == ENDED:
                return
            self.prompts += 1
            self.answered[k] = self.answered.get(k, 0) + 1
            assert self.prompts <= max_prompts, "the match does not end"
            screen: str = self.child.before  # type: ignore[attr-defined]
            seen_scores = seen_scores or s.scores_after in screen or s.final_scores in screen
            if self.quit_word is not None and seen_scores:
                # Leaving asks first: a "no" keeps the player at the table, a "yes" leaves.
                self.child.sendline(self.quit_word)  # type: ignore[attr-defined]
                self.child.expect(s.confirm_leave, timeout=timeout)  # type: ignore[attr-defined]
                self.child.sendline(s.no)  # type: ignore[attr-defined]
                self.child.expect(re.escape(s.stay), timeout=timeout)  # type: ignore[attr-defined]
                self.child.sendline(self.quit_word)  # type: ignore[attr-defined]
                self.child.expect(s.confirm_leave, timeout=timeout)  # type: ignore[attr-defined]
                self.child.sendline(s.yes)  # type: ignore[attr-defined]
                self.quit_sent, self.quit_at = True, k
                self.child.expect(pexpect.EOF, timeout=timeout)  # type: ignore[attr-defined]
                return
            if k == MOVE:
                while pending:
                    command = pending.pop(0)
                    self.child.sendline(command)  # type: ignore[attr-defined]
                    self.child.expect(s.move, timeout=timeout)  # type: ignore[attr-defined]
                    self.replies[command] = self.child.before  # type: ignore[attr-defined]
                if any(hint in screen for hint in s.press_enter):
                    answer = ""
                else:
                    numbers = menu_numbers(screen, s.menu)
                    assert numbers == list(range(1, len(numbers) + 1)) and numbers, screen
                    self.menus += 1
                    answer = str(self.rng.choice(numbers))
                self.moves += 1
            elif k == SUIT:
                answer = str(self.rng.randint(1, 4))
            elif k == DRAWN:
                answer = self.rng.choice([s.yes, s.no])
            elif k == COMPARED:
                answer = s.yes  # the players compared the digits (the test's seats share one table)
            else:
                answer = ""
            self.child.sendline(answer)  # type: ignore[attr-defined]


def spawn_human(args: Sequence[str], *, home: Path, log: Path, **env: str):  # type: ignore[no-untyped-def]
    """``p2pcards ARGS`` under a pseudo-terminal of 100x40; everything it shows goes to ``log``."""
    import pexpect

    child = pexpect.spawn(
        str(CLI),
        list(args),
        env=node_env(home, **env),
        encoding="utf-8",
        codec_errors="replace",
        dimensions=(40, 100),
        timeout=30,
    )
    child.logfile_read = log.open("w", encoding="utf-8")
    return child


def close_human(child) -> int | None:  # type: ignore[no-untyped-def]
    """Stop the terminal session (forcibly if still running); its exit status, or None if killed."""
    try:
        if child.isalive():
            child.terminate(force=True)
    finally:
        child.close(force=True)
        if child.logfile_read is not None:
            child.logfile_read.close()
    return child.exitstatus
