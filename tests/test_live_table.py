"""A live table for a player who waits: one status line, the moves as they come, the hand.

The status line says what the table waits for and counts down the table's
clock. On a terminal it is rewritten in place (``\\r`` and a clear) and erased
before anything else is written; elsewhere a waiting line is printed only when
what is awaited changes, or every 30 s. The unit tests drive the times
explicitly (a clock they set, or trio's virtual clock); the last tests run the
real command at a pseudo-terminal, against bots and between two people.
"""

from __future__ import annotations

import contextlib
import functools
import random
import re
import threading
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
import trio
import trio.testing
from e2e_helpers import ENGLISH, LOCAL, HumanSeat, close_human, free_port, run_cli, spawn_human
from net_helpers import bot, close_all, memory_links
from protocol_helpers import SHORT_RULES, make_tables

from p2pcards.bots import make_bot
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import NinesRules
from p2pcards.net.runner import run_table
from p2pcards.net.session import Timeouts
from p2pcards.net.words import new_code
from p2pcards.protocol.fingerprint import TableFingerprint
from p2pcards.protocol.loopback import LocalNetwork
from p2pcards.protocol.sitting import Sitting
from p2pcards.ui.i18n import Translator
from p2pcards.ui.netgame import HumanDecider, NetworkUI, TableWatcher
from p2pcards.ui.prompt import PIPE_EVERY, Console
from p2pcards.ui.render import Style, table_names, waiting_status
from p2pcards.ui.screen import make_screen

CLEAR = "\r\x1b[K"
CLOCK = Timeouts(turn=60.0, step=30.0)
NAMES = ("Ann", "Bob", "Cy")


class Recorder:
    """What a console wrote, in order: lines (with their line break) and raw terminal text."""

    def __init__(self) -> None:
        self.chunks: list[str] = []

    def line(self, text: str) -> None:
        self.chunks.append(text + "\n")

    def raw(self, text: str) -> None:
        self.chunks.append(text)

    @property
    def text(self) -> str:
        return "".join(self.chunks)


def screen_lines(raw: str) -> list[str]:
    """What a terminal shows after ``raw``: a carriage return goes back to the start of
    the line, ``ESC[K`` clears to its end, other escape sequences change nothing."""
    lines: list[str] = []
    row: list[str] = []
    col = 0
    i = 0
    while i < len(raw):
        ch = raw[i]
        if ch == "\x1b":
            found = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]").match(raw, i)
            seq = found.group(0) if found else ch
            if seq == "\x1b[K":
                del row[col:]
            i += len(seq)
            continue
        if ch == "\r":
            col = 0
        elif ch == "\n":
            lines.append("".join(row).rstrip())
            row, col = [], 0
        else:
            if col < len(row):
                row[col] = ch
            else:
                row.append(ch)
            col += 1
        i += 1
    lines.append("".join(row).rstrip())
    return lines


def draws(raw: str) -> list[str]:
    """The status texts drawn, in order (text after a clear that no line break ends)."""
    return [t for t in re.findall(r"\r\x1b\[K([^\r\n]*)(?=\r|\Z)", raw) if t]


class FakeTable:
    """Just what the watcher reads of a table: the step, its kind, whom it waits for."""

    DECISIONS = ("turn", "exchange")

    def __init__(self, *, step: int = 7, kind: str = "turn", waiting: tuple[int, ...] = (1,)) -> None:
        self.step, self.kind, self.waiting_for = step, kind, waiting
        self.seat = 0
        self.status = "running"
        self.match = None
        self.events: deque[Any] = deque()

    @property
    def spec(self) -> SimpleNamespace:
        return SimpleNamespace(kind=self.kind)

    @property
    def my_turn(self) -> bool:
        return self.kind in self.DECISIONS and self.seat in self.waiting_for

    def next_event(self) -> Any:
        return self.events.popleft() if self.events else None


def watched(console: Console, clock: Any = CLOCK) -> tuple[TableWatcher, list[float]]:
    """A Nines screen for Ann (seat 0) and its watcher, on a clock the test sets (``now[0]``)."""
    screen = make_screen(
        "nines", console, NAMES, me=0, rules=NinesRules(), watch=False, pause_between_hands=False
    )
    now = [0.0]
    return TableWatcher(screen, clock=clock, now=lambda: now[0]), now


def terminal(lang: str = "en", read: Any = input) -> tuple[Console, Recorder]:
    rec = Recorder()
    console = Console(tr=Translator(lang), style=Style(unicode=True), read=read, write=rec.line, live=rec.raw)
    return console, rec


# ---------------------------------------------------------------------------
# 1. The status line, with the times driven by the test


def test_on_a_terminal_the_status_counts_down_in_place_and_is_erased_before_any_output() -> None:
    console, rec = terminal()
    watcher, now = watched(console)
    table = FakeTable()
    watcher(table)  # type: ignore[arg-type]
    now[0] = 0.4
    watcher(table)  # type: ignore[arg-type]  (the same second: nothing redrawn)
    now[0] = 1.2
    watcher(table)  # type: ignore[arg-type]
    now[0] = 5.0
    watcher.waiting(table, 5.0)  # type: ignore[arg-type]
    console.say("   Bob played 7♥")
    table.step, table.kind, table.waiting_for = 8, "shuffle", (2,)
    now[0] = 6.0
    watcher(table)  # type: ignore[arg-type]
    now[0] = 12.0
    watcher(table)  # type: ignore[arg-type]  (a step that drags: its clock shows too)
    table.step, table.kind, table.waiting_for = 9, "turn", (0,)
    watcher(table)  # type: ignore[arg-type]  (Ann's turn: nothing to wait for)
    console.say("your table")

    raw = rec.text
    assert draws(raw) == [
        "Bob to play — 1:00 left",
        "Bob to play — 0:59 left",
        "Bob to play — 0:55 left",
        "Waiting for Cy to shuffle…",
        "Waiting for Cy to shuffle — 0:24 left",
    ]
    # Every draw overwrites the one before; anything else is written on a clean line.
    assert CLEAR + "   Bob played 7♥\n" in raw and CLEAR + "your table\n" in raw
    assert not re.search(r"(left|…)\n", raw), raw  # a status never ends a line
    # What stays on the screen: the two real lines, no waiting line at all.
    assert [line for line in screen_lines(raw) if line] == ["   Bob played 7♥", "your table"]


def test_without_a_terminal_a_wait_gets_a_line_when_it_changes_or_every_30_seconds() -> None:
    out: list[str] = []
    console = Console(tr=Translator("en"), style=Style(unicode=True), write=out.append, live=None)
    watcher, now = watched(console)
    table = FakeTable()
    watcher(table)  # type: ignore[arg-type]
    assert out == []  # the table moving on is no reason to print
    for waited in range(5, 61, 5):  # the runner's notices, every 5 s of one long wait
        now[0] = float(waited)
        watcher.waiting(table, float(waited))  # type: ignore[arg-type]
    assert out == ["Bob to play — 0:55 left", "Bob to play — 0:25 left"]
    assert PIPE_EVERY == 30
    table.step, table.waiting_for = 8, (2,)  # another wait: said at its first notice
    now[0] = 70.0
    watcher(table)  # type: ignore[arg-type]
    now[0] = 75.0
    watcher.waiting(table, 5.0)  # type: ignore[arg-type]
    assert out[2:] == ["Cy to play — 0:55 left"]
    assert not any("\r" in line or "\x1b" in line for line in out)


@pytest.mark.parametrize(
    ("lang", "kind", "waited", "expected"),
    [
        ("en", "turn", 0.0, "Bob to play — 1:00 left"),
        ("en", "draw-keys", 1.0, "Waiting for keys from Bob…"),
        ("en", "draw-keys", 7.0, "Waiting for keys from Bob — 0:23 left"),
        ("en", "cut-commit", 1.0, "Waiting for Bob…"),
        ("fr", "turn", 18.0, "À Bob de jouer — encore 0:42"),
        ("fr", "lock", 0.0, "En attente du mélange de Bob…"),
        ("it", "turn", 0.0, "Tocca a Bob — ancora 1:00"),
        ("it", "unlock", 2.0, "In attesa delle chiavi di Bob…"),
    ],
)
def test_the_status_says_what_is_awaited_in_each_language(
    lang: str, kind: str, waited: float, expected: str
) -> None:
    console, rec = terminal(lang)
    watcher, now = watched(console)
    table = FakeTable(kind=kind)
    watcher(table)  # type: ignore[arg-type]
    now[0] = waited
    watcher(table)  # type: ignore[arg-type]
    assert draws(rec.text)[-1] == expected


def test_while_a_player_awaited_reconnects_the_status_says_so_with_their_time_to_come_back() -> None:
    console, rec = terminal()
    watcher, now = watched(console)
    table = FakeTable()
    table.roster = [SimpleNamespace(key=name.encode()) for name in NAMES]  # type: ignore[attr-defined]
    watcher(table)  # type: ignore[arg-type]
    now[0] = 3.0
    watcher.away[b"Bob"] = now[0] + 120.0  # Bob's link broke: 2:00 to come back
    watcher.refresh()
    now[0] = 33.0
    watcher(table)  # type: ignore[arg-type]
    del watcher.away[b"Bob"]  # back
    watcher.refresh()
    assert draws(rec.text) == [
        "Bob to play — 1:00 left",
        "Waiting for Bob to reconnect — 2:00 left",
        "Waiting for Bob to reconnect — 1:30 left",
        "Bob to play — 0:27 left",
    ]
    table.waiting_for = (2,)  # another player is awaited: Bob being away is not said
    watcher.away[b"Bob"] = now[0] + 60.0
    watcher.refresh()
    assert draws(rec.text)[-1].startswith("Cy to play")


def test_the_network_ui_keeps_who_is_away_as_the_node_tells_it() -> None:
    console, _ = terminal("fr")
    ui = NetworkUI(console, human=False)
    ui.peer_link(b"Bob", "lost", 120.0)
    assert set(ui.away) == {b"Bob"}
    ui.peer_link(b"Bob", "back", 5.0)
    assert ui.away == {}
    ui.peer_link(b"Cy", "lost", 120.0)
    ui.peer_link(b"Cy", "gone", 120.0)
    assert ui.away == {}
    assert Translator("fr")("status_reconnect", names="Bob") == "En attente de la reconnexion de Bob"


def test_a_day_long_clock_is_not_counted_down_and_a_long_status_never_wraps(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    console, rec = terminal()
    watcher, _ = watched(console, clock=Timeouts(turn=86_400.0))
    table = FakeTable(waiting=(1, 2))
    watcher(table)  # type: ignore[arg-type]
    assert draws(rec.text) == ["Bob and Cy to play…"]
    monkeypatch.setenv("COLUMNS", "20")
    table.step, table.kind = 8, "draw-keys"
    watcher(table)  # type: ignore[arg-type]
    assert draws(rec.text)[-1] == "Waiting for keys..."  # one row of 20 columns, less one
    assert waiting_status("keys", ["Bob"], None, tr=Translator("en"), style=Style()) == (
        "Waiting for keys from Bob..."
    )


# ---------------------------------------------------------------------------
# 2. The player's own prompts: warnings, a turn that ran out, the pause between hands


class PromptScreen:
    """A screen whose ``ask`` reads one answer at the console, as a move prompt does."""

    def __init__(self, console: Console) -> None:
        self.console = console
        self.names = NAMES

    def ask(self, view: object, legal: list[str], explain: object, rng: object) -> str:
        self.console.ask("Your move")
        return legal[0]


TABLE = SimpleNamespace(view=lambda: object(), legal_actions=lambda: ["play"], match=None)


class AnsweringScreen(PromptScreen):
    """A move prompt that keeps what was answered at it (``answers``)."""

    def __init__(self, console: Console) -> None:
        super().__init__(console)
        self.answers: list[str] = []

    def ask(self, view: object, legal: list[str], explain: object, rng: object) -> str:
        self.answers.append(self.console.ask("Your move"))
        return legal[0]


async def test_a_turn_warning_ends_the_prompt_line_and_shows_the_prompt_again(
    mock_clock: trio.testing.MockClock,
) -> None:
    prompted, answered = threading.Event(), threading.Event()

    def read(prompt: str) -> str:
        rec.raw(prompt)  # as input() does
        prompted.set()
        answered.wait(10)
        return "1"

    console, rec = terminal(read=read)
    decider = HumanDecider(screen=PromptScreen(console), turn_time=lambda: 100.0)  # type: ignore[arg-type]
    console.status.show("Bob to play — 0:42 left")  # left over from the wait before this turn
    chosen: list[str] = []

    async def turn() -> None:
        chosen.append(await decider(TABLE))  # type: ignore[arg-type]

    async with trio.open_nursery() as nursery:  # (the threads' waits are bounded: no hang)
        nursery.start_soon(turn)
        await trio.to_thread.run_sync(prompted.wait, 10)
        mock_clock.jump(40)  # 60 s left of 100
        await trio.testing.wait_all_tasks_blocked()
        mock_clock.jump(50)  # 10 s left
        await trio.testing.wait_all_tasks_blocked()
        answered.set()
    assert chosen == ["play"]
    assert rec.text == (
        "\r\x1b[KBob to play — 0:42 left"
        "\r\x1b[K1:40 left · Your move > \n"
        "60 s left for your move on the table's clock.\n"
        "1:00 left · Your move > \n"  # shown again with the time left as it is then
        "10 s left for your move on the table's clock.\n"
        "0:10 left · Your move > "
    )


async def test_a_prompt_whose_time_ran_out_is_not_shown_again(autojump_clock: trio.testing.MockClock) -> None:
    released = threading.Event()
    prompted = threading.Event()

    def read(prompt: str) -> str:
        rec.raw(prompt)
        prompted.set()
        released.wait(10)
        return ""

    console, rec = terminal(read=read)
    decider = HumanDecider(screen=PromptScreen(console))  # type: ignore[arg-type]
    scope = trio.CancelScope()  # the runner's clock for this seat's turn, once the prompt is up

    async def turn() -> None:
        with scope:
            await decider(TABLE)  # type: ignore[arg-type]

    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(turn)
            await trio.to_thread.run_sync(prompted.wait, 10)
            scope.deadline = trio.current_time() + 30
        assert scope.cancelled_caught
        console.status.show("the table has stopped")  # nothing is drawn over a dead prompt
        console.say("The match stopped: your time to play ran out (30 s)")
    finally:
        released.set()
    assert rec.text == (
        "Your move > \n"
        "\r\x1b[Kthe table has stopped"
        "\r\x1b[KThe match stopped: your time to play ran out (30 s)\n"
    )


async def test_the_pause_after_a_hand_is_asked_at_once_and_holds_the_next_hand_until_enter() -> None:
    asked: list[str] = []
    shown: list[str] = []
    enter = threading.Event()
    early: list[str] = []

    def read(prompt: str) -> str:
        asked.append(prompt)
        if prompt.startswith("Press Enter"):
            enter.wait(10)
        elif not enter.is_set():
            early.append(prompt)  # a move asked while the player still reads the scores
        return ""

    console, _ = terminal(read=read)
    decider = HumanDecider(screen=PromptScreen(console), release=lambda: shown.append("next hand"))  # type: ignore[arg-type]
    decider.hand_ended()  # in trio: the prompt comes now, not at the next turn
    with trio.fail_after(10):
        while not asked:
            await trio.sleep(0.01)
        assert asked == ["Press Enter for the next hand. > "] and shown == []
        async with trio.open_nursery() as nursery:
            nursery.start_soon(decider, TABLE)
            await trio.testing.wait_all_tasks_blocked()
            assert shown == []  # nothing of the next hand before Enter
            enter.set()
    assert asked == ["Press Enter for the next hand. > ", "Your move > "]
    assert shown == ["next hand"] and early == []


def resumed_after_two_hands(confirmed: bool) -> Sitting:
    """Seat 1 of a two-seat match of Nines, back from a crash after two hands: a fresh
    table restored from its journal. ``confirmed``: its person had answered about the
    table fingerprint before the crash."""
    rules = NinesRules(target=200)
    tables = make_tables(2, rules, seed=3)
    net = LocalNetwork(tables, rng=random.Random(3))
    net.start()
    rng = random.Random(3)
    bots = {s: make_bot("random", "nines") for s in tables}
    while len(tables[1].hand_ends) < 2:
        seat = next(s for s, t in tables.items() if t.my_turn)
        tables[seat].act(bots[seat].choose(tables[seat].view(), tables[seat].legal_actions(), rng))
        net.pump()
        if confirmed and not tables[1].fingerprint_answered() and TableFingerprint.of_table(tables[1]):
            assert Sitting(tables[1]).confirm(True)
    assert tables[1].status == "running"
    resumed = Sitting(make_tables(2, rules, seed=3)[1])
    resumed.restore(tables[1].drain_journal())
    return resumed


def closed_input(prompts: list[str]) -> Any:
    def read(prompt: str) -> str:
        prompts.append(prompt)
        raise EOFError  # (a closed input: leaving, or not comparing, had it been asked)

    return read


async def test_a_resumed_seat_is_not_asked_to_press_enter_after_the_hands_of_its_journal() -> None:
    """A seat back from a crash shows the match from its journal: those hands ended before
    this program started, so the person is not asked to press Enter after the first of
    them (with the rest held back until they do), and a closed input is not read as
    leaving there."""
    resumed = resumed_after_two_hands(confirmed=True)
    prompts: list[str] = []
    console, rec = terminal(read=closed_input(prompts))
    ui = NetworkUI(console, human=True)
    ui.progress(resumed)
    await trio.sleep(0.3)  # (a question would be asked in a worker thread by now)
    assert prompts == []
    assert ui.decider is not None and not ui.decider.leaving
    shown = rec.text
    assert "Scores after hand 2" in shown and "Hand 3" in shown, shown[-800:]  # nothing held back


@pytest.mark.parametrize("confirmed", [True, False])
async def test_a_resumed_seat_whose_answer_on_the_fingerprint_is_signed_is_not_asked_again(
    confirmed: bool,
) -> None:
    """The fingerprint is shown again to a seat back from a crash; whether the digits
    match is asked only if its answer is not in its journal (one signed answer a seat)."""
    resumed = resumed_after_two_hands(confirmed)
    assert resumed.fingerprint_answered() is confirmed
    prompts: list[str] = []
    console, rec = terminal(read=closed_input(prompts))
    ui = NetworkUI(console, human=True)
    fingerprint = TableFingerprint.of_table(resumed.tables[0])
    assert fingerprint is not None
    ui.table_ready(fingerprint, resumed)
    ui.progress(resumed)
    await trio.sleep(0.3)
    assert f"Table fingerprint: {fingerprint.text}" in rec.text
    asked = [" ".join(p.split()) for p in prompts]  # (folded to the terminal's width)
    question = "Do all the players read these same digits? y(es), n(o), Enter if not compared >"
    assert asked[:1] == ([] if confirmed else [question])  # (Ctrl-D there: asked whether they leave)


@pytest.mark.parametrize(
    "game, seats, asked, said",
    [
        ("nines", 3, "The others play on without you.", "the others play on without you."),
        ("nines", 2, "it ends for everyone.", "too few players remain, so the match ends for everyone."),
        (
            "neuf",
            3,
            "it ends for everyone.",
            "too few players remain, so the match ends for everyone.",
        ),  # Le Neuf needs three
    ],
)
async def test_leaving_at_the_pause_is_said_and_seen_by_the_runner(
    game: str, seats: int, asked: str, said: str
) -> None:
    """Before the player confirms, and once they have, they are told what will happen:
    the others play on, or (at two seats, or in Le Neuf, which needs three) it ends."""
    from p2pcards.net.runner import QuitMatch

    answers = iter(["x", "quit", "y"])  # a move (the decider sees the table), then leaving at the pause
    prompts: list[str] = []
    out: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return next(answers)

    console = Console(tr=Translator("en"), style=Style(), read=read, write=out.append)
    decider = HumanDecider(screen=PromptScreen(console), confirm_quit=True)  # type: ignore[arg-type]
    table = SimpleNamespace(**vars(TABLE), GAME=game, present=tuple(range(seats)), n=seats)
    assert await decider(table) == "play"  # type: ignore[arg-type]
    decider.hand_ended()
    with trio.fail_after(10), pytest.raises(QuitMatch):
        await decider(table)  # type: ignore[arg-type]
    assert asked in prompts[-1], prompts
    assert f"You leave the table; {said}" in " ".join(" ".join(out).split())
    assert decider.leaving  # the runner sees it at once (run_table's ``leaving``), not at the next turn


@contextlib.contextmanager
def typing_at_a_terminal(
    monkeypatch: pytest.MonkeyPatch, live: bool = False
) -> Iterator[tuple[Any, Console, list[str]]]:
    """A console reading a pseudo-terminal, as at a real one: (type a line, the console,
    what it wrote: lines, and with ``live`` what it writes in place too)."""
    import os
    import pty
    import sys

    leader, follower = pty.openpty()
    with open(follower, closefd=True) as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        out: list[str] = []
        console = Console(
            tr=Translator("en"), style=Style(), write=out.append, live=out.append if live else None
        )
        console.score_text = lambda: "the score table"
        assert console.typed_fd is not None
        try:
            yield (lambda line: os.write(leader, line.encode() + b"\n")), console, out
        finally:
            os.write(leader, b"\n")  # (a read still waiting ends)
            os.close(leader)


async def until(test: Any, what: str) -> None:
    with trio.fail_after(10):
        while not test():
            await trio.sleep(0.01)


def said(out: list[str]) -> str:
    return " ".join(" ".join(out).split())


async def test_a_player_who_waits_can_ask_for_the_score_and_help_and_is_told_a_move_waits(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Lines typed while nothing is asked are answered at once: ``score`` and ``help`` as at
    any prompt, a move with the word that it is not this player's turn (nothing is played)."""
    with typing_at_a_terminal(monkeypatch) as (type_line, console, out):
        decider = HumanDecider(screen=PromptScreen(console), confirm_quit=True)  # type: ignore[arg-type]
        decider.watch_typing()
        type_line("score")
        await until(lambda: "the score table" in said(out), "the score shown")
        type_line("help")
        await until(lambda: "What to type" in said(out), "the keys shown")
        type_line("7h")
        await until(lambda: "(7h: it is not your turn" in said(out), "told it is not their turn")
        assert not decider.leaving
        decider.match_over()


async def test_a_player_who_waits_can_quit_and_is_asked_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """``quit`` while another player thinks: asked first (no keeps the seat), then the
    runner is told at once (``on_leave``), without waiting for this player's turn."""
    with typing_at_a_terminal(monkeypatch) as (type_line, console, out):
        left = trio.Event()
        table = SimpleNamespace(**vars(TABLE), GAME="nines", present=(0, 1), n=2)
        decider = HumanDecider(
            screen=PromptScreen(console), confirm_quit=True, on_leave=left.set, table=lambda: table  # type: ignore[arg-type]
        )
        decider.watch_typing()
        for answer in ("n", "y"):
            type_line("quit")
            await until(console.read_in_progress, "asked whether they leave")
            type_line(answer)
            if answer == "n":
                await until(lambda: "You stay at the table." in said(out), "told they stay")
                assert not decider.leaving and not left.is_set()
        with trio.fail_after(10):
            await left.wait()
        assert decider.leaving
        # Two seats: without this one the match ends, and the player was told so.
        assert "You leave the table; too few players remain" in said(out)
        decider.match_over()


async def test_a_question_asked_while_waiting_answers_nobody_once_the_match_is_over(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The player typed quit and is asked whether they leave when the match ends: the
    question is not shown again under what follows, and its answer leaves nothing."""
    with typing_at_a_terminal(monkeypatch, live=True) as (type_line, console, out):
        decider = HumanDecider(screen=PromptScreen(console), confirm_quit=True)  # type: ignore[arg-type]
        decider.watch_typing()
        type_line("quit")
        await until(console.read_in_progress, "asked whether they leave")
        decider.match_over()
        shown = len(out)
        console.say("Bob left the match (quit): nobody remains to play on with you.")
        console.say("Signed transcript: ...")
        type_line("y")
        await until(lambda: not console.read_in_progress(), "the question's read ended")
        await trio.sleep(0.2)  # (its answer would be acted on in trio, if at all)
        after = said(out[shown:])
        assert "Signed transcript" in after and "Leave the match?" not in after, out[shown:]
        assert not decider.leaving and "You leave" not in after


async def test_the_end_of_input_while_waiting_asks_whether_to_leave_as_at_a_prompt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Ctrl-D while others play is what it is at a prompt: the player is asked whether they
    leave (not silently dropped), and the question's line is ended when Ctrl-D answers it."""
    with typing_at_a_terminal(monkeypatch) as (type_line, console, out):
        left = trio.Event()
        decider = HumanDecider(screen=PromptScreen(console), confirm_quit=True, on_leave=left.set)  # type: ignore[arg-type]
        decider.watch_typing()
        type_line("\x04")  # Ctrl-D at the start of a line: the end of the input
        await until(console.read_in_progress, "asked whether they leave")
        type_line("\x04")  # and again, at the question: yes
        with trio.fail_after(10):
            await left.wait()
        assert decider.leaving
        leaving_said = next(i for i, line in enumerate(out) if "You leave the table" in line)
        assert out[leaving_said - 1] == "", out  # the question's line ended first
        decider.match_over()


async def test_when_their_turn_comes_while_a_typed_quit_is_asked_about_the_player_is_told(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The turn comes while the player is asked whether they leave: they are told that it
    is their turn, and after "n" their move is asked."""
    with typing_at_a_terminal(monkeypatch) as (type_line, console, out):
        screen = AnsweringScreen(console)
        answers = screen.answers
        decider = HumanDecider(screen=screen, confirm_quit=True)  # type: ignore[arg-type]
        decider.watch_typing()
        type_line("quit")
        await until(console.read_in_progress, "asked whether they leave")

        async def answer() -> None:
            await until(lambda: "Your turn has come" in said(out), "told that their turn came")
            type_line("n")
            await until(lambda: "You stay at the table." in said(out), "told they stay")
            await until(console.read_in_progress, "the move prompt")
            type_line("2")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(answer)
            assert await decider(TABLE) == "play"  # type: ignore[arg-type]
        assert answers == ["2"] and not decider.leaving
        decider.match_over()


@pytest.mark.parametrize("yes", ["y", "quit", "QUIT\x01"])
async def test_quit_again_or_yes_confirms_leaving(yes: str) -> None:
    """At the question "Leave the match?", ``quit`` again confirms, as ``y`` does (and as at
    the offline game's question), whatever invisible key came with it."""
    from p2pcards.net.runner import QuitMatch

    answers = iter(["quit", yes])
    console = Console(tr=Translator("en"), style=Style(), read=lambda prompt: next(answers), write=print)
    decider = HumanDecider(screen=PromptScreen(console), confirm_quit=True)  # type: ignore[arg-type]
    with trio.fail_after(10), pytest.raises(QuitMatch):
        await decider(TABLE)  # type: ignore[arg-type]


class TwoQuestionScreen(PromptScreen):
    """A move of two questions, as a 9 and its suit: each answer kept with its question."""

    def __init__(self, console: Console) -> None:
        super().__init__(console)
        self.answers: list[tuple[str, str]] = []

    def ask(self, view: object, legal: list[str], explain: object, rng: object) -> str:
        self.answers.append(("move", self.console.ask("Your move")))
        self.answers.append(("suit", self.console.ask("Which suit?")))
        return legal[0]


@pytest.mark.parametrize("leave", ["quit", EOFError])
async def test_a_player_who_stays_after_quit_or_ctrl_d_at_the_suit_is_asked_the_suit_again(
    leave: object,
) -> None:
    """After ``9c``, Ctrl-D (or ``quit``) at the suit's question, then ``n``: the player stays,
    and the suit is asked again; the move's prompt came back instead, where the ``h`` they
    meant for the suit was no card."""
    prompts: list[str] = []
    answers = iter(["9c", leave, "n", "h"])

    def read(prompt: str) -> str:
        prompts.append(prompt)
        answer = next(answers)
        if answer is EOFError:
            raise EOFError
        return str(answer)

    console = Console(tr=Translator("en"), style=Style(), read=read, write=lambda text: None)
    screen = TwoQuestionScreen(console)
    decider = HumanDecider(screen=screen, confirm_quit=True)  # type: ignore[arg-type]
    with trio.fail_after(10):
        assert await decider(TABLE) == "play"  # type: ignore[arg-type]
    assert screen.answers == [("move", "9c"), ("suit", "h")], (screen.answers, prompts)
    assert ["Leave the match?" in p for p in prompts] == [False, False, True, False], prompts
    assert not decider.leaving


async def test_quit_at_the_suit_then_yes_leaves_at_once() -> None:
    from p2pcards.net.runner import QuitMatch

    answers = iter(["9c", "quit", "y"])
    console = Console(tr=Translator("en"), style=Style(), read=lambda prompt: next(answers),
                      write=lambda text: None)  # fmt: skip
    decider = HumanDecider(screen=TwoQuestionScreen(console), confirm_quit=True)  # type: ignore[arg-type]
    with trio.fail_after(10), pytest.raises(QuitMatch):
        await decider(TABLE)  # type: ignore[arg-type]


def test_a_player_who_leaves_after_the_table_went_on_is_shown_the_standings() -> None:
    """The match went on at a new table without a seat, and this player leaves before a hand
    is scored there: the standings of the hands played before are still shown."""
    from p2pcards.net.node import Outcome
    from p2pcards.ui.netgame import describe_outcome

    table = make_tables(3, SHORT_RULES, seed=1)[0]
    match = SimpleNamespace(played_before=1, results=[], totals=[0, 35, 18])
    outcome = Outcome(
        status="aborted",
        problem="quit",
        blamed=(),
        transcript=None,
        table=SimpleNamespace(roster=table.roster, match=match),  # type: ignore[arg-type]
    )
    lines = describe_outcome(outcome, Translator("en"))
    names = table_names(table.roster)
    assert lines[0] == "You left the match."
    assert lines[1] == f"Standings after 1 hand, when it stopped: {names[0]} 0, {names[1]} 35, {names[2]} 18"


def test_what_was_held_back_is_not_shown_to_a_player_who_left() -> None:
    """The player chose to leave at the pause after a hand: the next hand, dealt meanwhile,
    is held, and dropped when their seat's match ends; otherwise it is shown then."""
    for status, shown in (("aborted", False), ("failed", True)):
        console, rec = terminal()
        ui = NetworkUI(console, human=True)
        table = make_tables(3, SHORT_RULES, seed=1)[0]
        ui.progress(table)  # (the watcher and the decider, as at a real table)
        assert ui.watcher is not None
        ui.watcher.hold()
        ui.watcher._show(functools.partial(console.say, "── Hand 2 · your hand ..."))
        ended = SimpleNamespace(
            status=status, problem="quit", blamed=(), transcript=None, table=None, names=[]
        )
        ui.finished(ended)  # type: ignore[arg-type]
        assert ("Hand 2" in rec.text) is shown, rec.text


@pytest.mark.parametrize("playing_on", [False, True])
def test_a_hand_a_leaver_made_void_is_not_shown_and_the_question_up_goes_when_the_match_ends(
    playing_on: bool,
) -> None:
    """A player reads the scores (or the digits) while the next hand is dealt, held for them,
    and someone leaves: that hand is void, so it is never shown; if the match ends there, the
    question up (the pause, the digits) is withdrawn before the end is said, where it was
    shown again under every line that followed and the void hand's deal was shown under it."""
    from p2pcards.protocol.events import Continued

    console, rec = terminal()
    watcher, _ = watched(console)
    table = FakeTable(waiting=(2,))
    table.GAME = "nines"  # type: ignore[attr-defined]
    withdrawn: list[str] = []
    watcher.on_match_over = lambda: withdrawn.append(rec.text)
    watcher.hold()
    watcher._show(functools.partial(console.say, "── Hand 2 · the void hand"))
    totals = (40, 12) if playing_on else (40,)  # (a table of three of Nines, Bob gone: two play on)
    table.events.append(Continued(left=(1,), names=("Bob",), reason="quit", hands=1, totals=totals))
    watcher(table)
    assert "the void hand" not in rec.text and "Bob left the match" in rec.text, rec.text
    if playing_on:
        assert withdrawn == []  # still asked: the new deal waits for the answer
        watcher._show(functools.partial(console.say, "── Hand 2 · the new deal"))
        assert "the new deal" not in rec.text
        watcher.release()
        assert "the new deal" in rec.text
    else:
        assert len(withdrawn) == 1 and "Bob left" not in withdrawn[0]  # withdrawn first
    # A person's question aside is the one withdrawn.
    ui = NetworkUI(terminal()[0], human=True)
    ui.progress(make_tables(3, SHORT_RULES, seed=1)[0])
    assert ui.watcher is not None and ui.decider is not None
    assert ui.watcher.on_match_over == ui.decider.match_over


async def test_what_was_typed_in_the_lobby_is_dropped_when_the_table_shows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``quit`` typed in the lobby, where nothing reads it: when the table shows, it is not
    taken for a question about leaving this table (the person is told it was not used)."""
    with typing_at_a_terminal(monkeypatch) as (type_line, console, out):
        type_line("quit")
        await trio.sleep(0.1)
        decider = HumanDecider(screen=PromptScreen(console), confirm_quit=True)  # type: ignore[arg-type]
        decider.watch_typing()
        await trio.sleep(0.3)
        assert "What you typed before the table was ready is not used." in said(out), out
        assert not console.read_in_progress() and not decider.leaving
        decider.match_over()


async def test_one_answer_never_answers_two_questions(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The person is asked whether they leave (they typed quit) when the fingerprint question
    comes: it is asked after the first is answered, and the "n" that keeps their seat is not
    also the answer that the digits differ."""
    with typing_at_a_terminal(monkeypatch) as (type_line, console, out):
        decider = HumanDecider(screen=PromptScreen(console), confirm_quit=True)  # type: ignore[arg-type]
        decider.watch_typing()
        type_line("quit")
        await until(console.read_in_progress, "asked whether they leave")
        decider.ask_fingerprint()
        await trio.sleep(0.3)
        assert "Do all the players read" not in capsys.readouterr().out  # not asked beside it
        type_line("n")
        await until(lambda: "You stay at the table." in said(out), "told they stay")
        await until(console.read_in_progress, "asked about the digits")
        assert decider.fingerprint_same is None and not decider.leaving
        type_line("y")
        await until(lambda: decider.fingerprint_same is True, "the digits' answer")
        assert not decider.leaving
        decider.match_over()


async def test_a_player_who_reads_other_digits_is_shown_nothing_more_of_the_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Answering that the digits differ leaves the table: what it did meanwhile (a deal,
    held while the question was up) is not shown, and the runner is told at once."""
    with typing_at_a_terminal(monkeypatch) as (type_line, console, out):
        released: list[str] = []
        left: list[str] = []
        decider = HumanDecider(
            screen=PromptScreen(console),  # type: ignore[arg-type]
            confirm_quit=True,
            release=lambda: released.append("shown"),
            on_leave=lambda: left.append("left"),
        )
        decider.ask_fingerprint()
        await until(console.read_in_progress, "asked about the digits")
        type_line("n")
        await trio.sleep(0.3)  # (asked whether they leave)
        assert decider.fingerprint_same is None and not left
        type_line("y")
        await until(lambda: decider.fingerprint_same is False, "the digits' answer")
        assert decider.leaving and left == ["left"] and released == [], (left, released)
        assert "someone is in the middle" in said(out), said(out)
        decider.match_over()


async def test_a_slip_of_n_at_the_fingerprint_is_asked_again_not_taken_as_leaving(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """"n" (the digits differ) costs the player their seat: they are asked whether they leave,
    and anything but yes takes them back to the question, where "y" keeps them at the table."""
    with typing_at_a_terminal(monkeypatch) as (type_line, console, out):
        left: list[str] = []
        decider = HumanDecider(
            screen=PromptScreen(console), confirm_quit=True, on_leave=lambda: left.append("left")  # type: ignore[arg-type]
        )
        decider.ask_fingerprint()
        await until(console.read_in_progress, "asked about the digits")
        type_line("n")
        await trio.sleep(0.3)
        assert "you leave the game (signed), for good" in " ".join(capsys.readouterr().out.split())
        type_line("no")
        await trio.sleep(0.3)
        assert "Do all the players read" in capsys.readouterr().out  # asked the digits again
        assert decider.fingerprint_same is None and not decider.leaving
        type_line("y")
        await until(lambda: decider.fingerprint_same is True, "the digits' answer")
        assert not decider.leaving and left == [], left
        assert "someone is in the middle. You leave" not in said(out)  # (never said: they stay)
        decider.match_over()


@pytest.mark.parametrize("typed", ["quit", "quitter", "\x04"])  # \x04: Ctrl-D, the end of the input
async def test_quit_or_ctrl_d_at_the_fingerprint_asks_whether_to_leave_as_at_every_prompt(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], typed: str
) -> None:
    """``quit`` (in any language) or Ctrl-D at the question on the digits is what it is at every
    prompt of a networked table: the player is asked whether they leave; no takes them back to
    the digits, yes leaves without saying anything of them (no "someone is in the middle")."""
    with typing_at_a_terminal(monkeypatch) as (type_line, console, out):
        left: list[str] = []
        decider = HumanDecider(
            screen=PromptScreen(console), confirm_quit=True, on_leave=lambda: left.append("left")  # type: ignore[arg-type]
        )
        decider.ask_fingerprint()
        await until(console.read_in_progress, "asked about the digits")
        type_line(typed)
        await until(lambda: "Leave the match?" in capsys.readouterr().out, "asked whether they leave")
        type_line("n")
        await until(lambda: "You stay at the table." in said(out), "told they stay")
        await until(lambda: "Do all the players read" in capsys.readouterr().out, "asked the digits again")
        assert decider.fingerprint_same is None and not decider.leaving and not left
        type_line(typed)
        await until(lambda: "Leave the match?" in capsys.readouterr().out, "asked again whether they leave")
        type_line("y")
        await until(lambda: left == ["left"], "the runner told")
        assert decider.leaving and decider.fingerprint_same is None
        assert "You leave the table" in said(out) and "someone is in the middle" not in said(out), out
        assert "Answer y if everyone" not in said(out), out
        decider.match_over()


async def test_a_line_typed_for_a_move_prompt_is_the_move_not_a_line_typed_while_waiting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """While a decision is asked, what is typed is its answer: the watch of the terminal
    leaves it alone."""
    with typing_at_a_terminal(monkeypatch) as (type_line, console, out):
        screen = AnsweringScreen(console)
        answers = screen.answers
        decider = HumanDecider(screen=screen, confirm_quit=True)  # type: ignore[arg-type]
        decider.watch_typing()

        async def move() -> None:
            await until(console.read_in_progress, "the move prompt")
            type_line("2")

        async with trio.open_nursery() as nursery:
            nursery.start_soon(move)
            assert await decider(TABLE) == "play"  # type: ignore[arg-type]
        assert answers == ["2"] and "not your turn" not in said(out)
        decider.match_over()


# ---------------------------------------------------------------------------
# 3. A real table, in virtual time: a slow player, the others waiting


def slow_once(seconds: float, seed: int) -> Any:
    """A bot that thinks ``seconds`` at its first turn (a person), then plays at once."""
    decide = bot(seed)
    first = [True]

    async def slow(table: Table) -> Any:
        if first[0]:
            first[0] = False
            await trio.sleep(seconds)
        return await decide(table)

    return slow


async def watch_a_slow_match(console: Console) -> Table:
    """Three seats over memory links; seat 1 thinks 40 s once; seat 0's watcher shows the table."""
    tables = make_tables(3, SHORT_RULES, seed=11)
    links = memory_links(3)
    names = table_names(tables[0].roster)
    screen = make_screen(
        "nines",
        console,
        names,
        me=0,
        rules=SHORT_RULES,
        watch=False,
        pause_between_hands=False,
        verified=True,
    )
    watcher = TableWatcher(screen, clock=CLOCK, now=trio.current_time)
    deciders = {0: bot(0), 1: slow_once(40.0, 1), 2: bot(2)}

    async def seat(s: int) -> None:
        shown: dict[str, Any] = {"on_progress": watcher, "on_wait": watcher.waiting} if s == 0 else {}
        await run_table(tables[s], links[s], deciders[s], timeouts=CLOCK, **shown)

    with trio.fail_after(600):
        async with trio.open_nursery() as nursery:
            for s in tables:
                nursery.start_soon(seat, s)
    await close_all(links)
    assert tables[0].status == "over"
    return tables[0]


async def test_a_terminal_watching_a_slow_player_sees_one_line_counting_down(
    autojump_clock: trio.testing.MockClock,
) -> None:
    console, rec = terminal()
    await watch_a_slow_match(console)
    raw = rec.text
    ticks = [t for t in draws(raw) if t.startswith("p1 to play — ")]
    seconds = [int(m) * 60 + int(s) for m, s in (re.findall(r"(\d+):(\d\d) left", t)[0] for t in ticks)]
    # The slow turn: one line counting down second by second, from the full minute.
    run = seconds[seconds.index(60) :][:41]
    assert run == list(range(60, 19, -1)), seconds
    lines = screen_lines(raw)
    assert not [line for line in lines if " to play" in line or "Waiting" in line]
    # Ann (seat 0) sees her hand as each hand is dealt, then the others' moves as they come.
    heads = [i for i, line in enumerate(lines) if line.startswith("── Hand ") and " Up card " in line]
    assert heads and all(lines[i + 1].startswith("   Your hand  ") for i in heads)
    assert any(line.startswith("   p1 played ") for line in lines)


async def test_a_log_of_the_same_wait_has_two_lines_not_eight(autojump_clock: trio.testing.MockClock) -> None:
    out: list[str] = []
    console = Console(tr=Translator("en"), style=Style(unicode=True), write=out.append, live=None)
    await watch_a_slow_match(console)
    waits = [line for line in out if "to play" in line or "Waiting" in line]
    assert waits == ["p1 to play — 0:55 left", "p1 to play — 0:25 left"]


# ---------------------------------------------------------------------------
# 4. The real command at a terminal

pexpect = pytest.importorskip("pexpect")
STATUS = re.compile(r"( to play…| to play — \d+:\d\d left|Waiting for [^\r\n]*)")


def test_a_player_at_a_terminal_sees_waits_in_place_the_hand_and_the_pause_in_order(tmp_path: Path) -> None:
    log = tmp_path / "play.screen"
    args = ["play", "--players", "3", "--seed", "5", "--bot", "random", "--rule", "hands=2", "--lang", "en"]
    child = spawn_human(args, home=tmp_path / "home", log=log, TERM="xterm")
    try:
        seat = HumanSeat(child=child, screens=ENGLISH, rng=random.Random(3))
        seat.play(timeout=20)
    finally:
        status = close_human(child)
    assert status == 0
    raw = log.read_bytes().decode("utf-8")
    assert "Traceback" not in raw
    shown = draws(raw)
    assert any(t.endswith(" to play…") for t in shown) and any(t.startswith("Waiting for") for t in shown)
    # Updated in place: a status replaced by the next one on the same line.
    assert re.search(r"\r\x1b\[K[^\r\n]+\r\x1b\[K[^\r\n]+", raw)
    assert not re.search(STATUS.pattern + r"\r?\n", raw), "a waiting line was left on the screen"
    lines = screen_lines(raw.replace("\r\n", "\n"))
    assert not [line for line in lines if STATUS.search(line)]
    heads = [i for i, line in enumerate(lines) if line.startswith("── Hand ") and " Up card " in line]
    assert len(heads) == 2 and all(lines[i + 1].startswith("   Your hand  ") for i in heads)
    # The pause comes after the scores and before anything of the next hand.
    scores = next(i for i, line in enumerate(lines) if line.startswith("── Scores after hand 1"))
    pause = next(i for i, line in enumerate(lines) if line.startswith("Press Enter for the next hand"))
    second = heads[1]
    assert scores < pause < second
    assert seat.answered.get(3) == 1


@contextlib.contextmanager
def two_people_at_a_move(tmp_path: Path, *host_args: str) -> Iterator[tuple[Any, Any, str]]:
    """Ann hosts and Bob joins, each at a terminal of their own, and both say the digits
    match: (the one choosing a move, the one waiting, the chooser's name). Both terminal
    sessions are closed after."""
    port, code = free_port(), new_code()
    host = spawn_human(
        ["host", "-n", "2", "--name", "Ann", "--port", str(port), "--bind", LOCAL, "--code", code,
         *host_args],
        home=tmp_path / "ann", log=tmp_path / "ann.screen", TERM="xterm",
    )  # fmt: skip
    joiner = None
    try:
        host.expect("Invitation code", timeout=15)
        joiner = spawn_human(
            ["join", f"{LOCAL}:{port}", "--bind", LOCAL, "--name", "Bob"],
            home=tmp_path / "bob", log=tmp_path / "bob.screen", TERM="xterm", P2PCARDS_CODE=code,
        )  # fmt: skip
        for child in (host, joiner):  # each person is asked once whether the digits match
            child.expect(ENGLISH.fingerprint, timeout=20)
            child.sendline("y")
        asked = [ENGLISH.move, ENGLISH.suit, r"(Ann|Bob) to play — (\d+:\d\d) left"]
        k = host.expect(asked, timeout=20)
        deciding, waiting, who = (host, joiner, "Ann") if k < 2 else (joiner, host, "Bob")
        if k == 2:
            deciding.expect(asked[:2], timeout=20)
        yield deciding, waiting, who
    finally:
        close_human(host)
        if joiner is not None:
            close_human(joiner)


def test_two_people_the_one_who_waits_sees_the_clock_count_down_in_place(tmp_path: Path) -> None:
    with two_people_at_a_move(tmp_path, "--turn-timeout", "90") as (deciding, waiting, who):
        tick = re.compile(rf"{who} to play — (\d+):(\d\d) left")
        waiting.expect(tick, timeout=20)
        seen = [int(waiting.match.group(1)) * 60 + int(waiting.match.group(2))]
        while len(seen) < 3:
            waiting.expect(tick, timeout=5)
            assert waiting.before == CLEAR, repr(waiting.before)  # rewritten in place, nothing between
            seen.append(int(waiting.match.group(1)) * 60 + int(waiting.match.group(2)))
        assert seen == sorted(seen, reverse=True) and len(set(seen)) == 3 and seen[0] <= 90
        deciding.sendline("quit")
        deciding.expect(ENGLISH.confirm_leave, timeout=10)
        deciding.sendline("y")
        waiting.expect("nobody remains to play on with you", timeout=20)
        for child in (deciding, waiting):
            child.expect(pexpect.EOF, timeout=20)
    screen = (tmp_path / ("bob.screen" if who == "Ann" else "ann.screen")).read_bytes().decode("utf-8")
    lines = screen_lines(screen.replace("\r\n", "\n"))
    assert not [line for line in lines if STATUS.search(line)], lines[-10:]
    assert any(line.startswith(f"{who} left the match (quit)") for line in lines), lines[-10:]


def test_a_person_who_waits_for_the_other_to_move_can_quit_then(tmp_path: Path) -> None:
    """Bob (or Ann) waits while the other chooses a move: a move typed then is told it is
    not theirs to make, and ``quit`` is asked about and done at once, signed; the other
    sees them leave while still at the move prompt."""
    with two_people_at_a_move(tmp_path) as (deciding, waiting, who):
        waiter = "Bob" if who == "Ann" else "Ann"
        waiting.sendline("1")
        waiting.expect("it is not your turn", timeout=10)
        waiting.sendline("quit")
        waiting.expect(ENGLISH.confirm_leave, timeout=10)
        waiting.sendline("y")
        deciding.expect(f"{waiter} left the match \\(quit\\)", timeout=10)
        deciding.expect("nobody remains to play on with you", timeout=10)
        for child in (deciding, waiting):
            child.expect(pexpect.EOF, timeout=20)
    home = tmp_path / ("bob" if waiter == "Bob" else "ann")
    (saved,) = (home / "transcripts").glob("*.p2pt")
    audited = " ".join(run_cli(["audit", str(saved)], home=tmp_path / "auditor").stdout.split())
    assert f"{waiter} left (signed that they leave" in audited and "quit" in audited, audited


def test_a_person_whose_terminal_closes_at_the_move_prompt_leaves_signed(tmp_path: Path) -> None:
    """The terminal of the person choosing a move is closed (a window shut, an SSH session
    gone): reading and writing it fail. That is the person leaving: the seat signs that it
    leaves and the other hears it at once, instead of a crash that tells nobody and a wait
    for the grace to run out."""
    with two_people_at_a_move(tmp_path, "--grace", "120") as (deciding, waiting, who):
        # Its terminal is gone: the pty closed, then the hang-up signals (never a kill).
        with contextlib.suppress(pexpect.ExceptionPexpect):
            deciding.close(force=False)
        waiting.expect(f"{who} left the match \\((interrupted|quit)\\)", timeout=20)  # not the grace
        waiting.expect("nobody remains to play on with you", timeout=20)
        waiting.expect(pexpect.EOF, timeout=20)
    home = tmp_path / ("ann" if who == "Ann" else "bob")
    (saved,) = (home / "transcripts").glob("*.p2pt")
    said = run_cli(["audit", str(saved)], home=tmp_path / "auditor").stdout
    assert f"{who} left (signed that they leave" in " ".join(said.split()), said


def test_a_terminal_that_is_gone_reads_as_the_end_of_input_not_as_a_crash() -> None:
    """Writing to or reading from a closed terminal fails with EIO: that is the person gone,
    the end of their input (``QuitGame``); another failure of the output is still raised."""
    import errno

    from p2pcards.ui.prompt import QuitGame
    from p2pcards.ui.render import Style

    def gone(*_: object) -> str:
        raise OSError(errno.EIO, "Input/output error")

    console = Console(tr=Translator("en"), style=Style(), read=gone, write=gone, live=None, encoding=None)
    console.say("nobody reads this")  # said to nobody, without an error
    with pytest.raises(QuitGame):
        console.ask("Your move")

    def full(_: str) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    console = Console(tr=Translator("en"), style=Style(), read=str, write=full, live=None, encoding=None)
    with pytest.raises(OSError, match="No space"):
        console.say("a full disk is not a person leaving")


@pytest.mark.parametrize(("lang", "columns"), [("fr", 80), ("it", 80), ("en", 60), ("fr", 60)])
def test_a_long_prompt_is_folded_at_spaces_so_that_its_answer_fits_the_terminal(
    lang: str, columns: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A question wider than the terminal is folded at spaces (a terminal that wraps it
    itself cuts a word in two), its last line leaving room for the answer; the words and
    their order are those of the question."""
    monkeypatch.setenv("COLUMNS", str(columns))
    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        return "o"

    console, _ = terminal(lang, read=read)
    question = console.tr("fingerprint_ask")
    console.prompt_note = lambda: "10:00"  # (the time left, said before the question)
    assert console.ask(question) == "o"
    (shown,) = prompts
    lines = shown.split("\n")
    assert len(lines) >= 2 and shown.endswith(" > ")
    assert all(len(line) <= columns - 4 for line in lines), lines
    assert " ".join(shown.split()) == f"10:00 · {question} >"


def test_the_suit_question_and_its_hints_are_folded_to_the_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    """At 60 columns the dealer's question (the up card is a 9) and the hint for a ``c`` in
    French are folded at spaces like every message, not cut mid-word by the terminal."""
    monkeypatch.setenv("COLUMNS", "60")
    answers = iter(["c", "1"])
    console, rec = terminal("fr", read=lambda prompt: next(answers))
    assert console.ask_suit(console.tr("prompt_declare")) == "S"
    lines = rec.text.splitlines()
    assert lines and all(len(line) <= 60 for line in lines), lines
    flat = " ".join(rec.text.split())
    assert " ".join(console.tr("prompt_declare").split()) in flat
    assert " ".join(console.tr("err_c_suit").split()) in flat


@pytest.mark.parametrize(
    ("lang", "line"),
    [
        ("en", "Bartholomew-the-m… to play — 9:42 left"),
        ("fr", "À Bartholomew-… de jouer — encore 9:42"),
        ("it", "Tocca a Bartholomew-the… — ancora 9:42"),
    ],
)
def test_a_narrow_terminal_shortens_the_names_of_a_status_line_not_its_countdown(
    monkeypatch: pytest.MonkeyPatch, lang: str, line: str
) -> None:
    """At 40 columns, a long name would push the time left off the status line (it is cut to
    the width, never wrapped): the name is shortened instead, so the countdown still shows."""
    monkeypatch.setenv("COLUMNS", "40")
    long = ["Bartholomew-the-magnificent"]
    assert waiting_status("turn", long, 581.2, tr=Translator(lang), style=Style(unicode=True)) == line
    style = Style(unicode=True)
    two = waiting_status("turn", [*long, "Cy"], 5.0, tr=Translator("en"), style=style)
    assert two.endswith(" to play — 0:05 left") and len(two) <= 38, two
    monkeypatch.setenv("COLUMNS", "100")
    assert waiting_status("turn", long, 581.2, tr=Translator("en"), style=Style(unicode=True)) == (
        "Bartholomew-the-magnificent to play — 9:42 left"
    )


@pytest.mark.parametrize("when", ["at the move prompt", "at the question whether they leave"])
async def test_a_terminal_closed_at_a_prompt_leaves_interrupted_never_as_a_quit(when: str) -> None:
    """A closed terminal fails the read of the prompt (EIO) and sends the hang-up signal, in
    either order: whichever the seat sees first, the others are told it was interrupted, not
    that the player chose to quit (which the end of the input at a prompt otherwise means);
    and nobody is asked whether they leave on a terminal that is gone."""
    import errno

    from p2pcards.net.runner import QuitMatch
    from p2pcards.net.verdicts import INTERRUPTED

    prompts: list[str] = []

    def read(prompt: str) -> str:
        prompts.append(prompt)
        if when == "at the move prompt" or len(prompts) > 1:
            raise OSError(errno.EIO, "Input/output error")
        return "quit"  # (typed, and then the terminal closed at the question)

    console = Console(tr=Translator("en"), style=Style(), read=read, write=lambda text: None)
    decider = HumanDecider(screen=PromptScreen(console), confirm_quit=True)  # type: ignore[arg-type]
    with trio.fail_after(10), pytest.raises(QuitMatch) as left:
        await decider(TABLE)  # type: ignore[arg-type]
    assert left.value.reason == INTERRUPTED
    assert len(prompts) == (1 if when == "at the move prompt" else 2), prompts



def test_after_the_terminal_is_narrowed_the_status_is_erased_from_every_row_it_now_takes() -> None:
    """A terminal narrowed below the status line's width (tmux resize-window, a window dragged
    smaller) folds the line onto two rows or more, its cursor after the end: redrawn or erased
    from the last row only, the status left a copy of its beginning above. It is erased from the
    first row it now takes; at an unchanged width, from its own row only, as before."""
    from p2pcards.ui.prompt import StatusLine

    written: list[str] = []
    width = [80]
    status = StatusLine(lambda text: written.append(text + "\n"), written.append, width=lambda: width[0])
    status.show("Waiting for Hana to play — 9:48 left")  # 36 columns
    status.show("Waiting for Hana to play — 9:47 left")
    assert written[-1] == "\r\x1b[KWaiting for Hana to play — 9:47 left"
    width[0] = 20  # folded onto rows of 20: the cursor on the second, after "9:47 left"
    status.show("Waiting for Hana to play — 9:46 left")
    assert written[-1].startswith("\r\x1b[1A\x1b[J"), written[-1]  # both rows, from the first
    assert "Waiting for Hana" in written[-1]  # (fitted to the new width: one row, "...")
    width[0] = 12
    status.line("   Hana played 7♥")
    assert written[-2] == "\r\x1b[1A\x1b[J", written[-2:]  # ("Waiting fo..." is 16 columns: two rows)


def test_the_status_line_fits_a_terminal_narrower_than_20_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fitted to 20 columns in a terminal of 16, the status wrapped, and every redraw (each half
    second) wrote a new row: the screen scrolled."""
    from p2pcards.ui.prompt import StatusLine
    from p2pcards.ui.render import visible_len

    monkeypatch.setenv("COLUMNS", "16")
    written: list[str] = []
    status = StatusLine(lambda text: written.append(text + "\n"), written.append)
    status.show("Hana to play — 9:58 left")
    assert visible_len(written[-1].removeprefix("\r\x1b[K")) < 16, written
