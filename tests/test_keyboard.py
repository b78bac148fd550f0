"""The keyboard's reads (``ui.keyboard.OneReader``): a question withdrawn while its read
waits does not swallow the next line typed, and a read never runs twice at once."""

from __future__ import annotations

import queue
import subprocess
import sys
import threading

import pytest

from p2pcards.ui.keyboard import Keyboard, OneReader, Question, Withdrawn


class Terminal:
    """Lines typed one at a time; counts the reads in progress at once."""

    def __init__(self) -> None:
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.prompts: list[str] = []
        self.shown: list[str] = []
        self.reading = 0
        self.most = 0
        self._lock = threading.Lock()

    def read(self, prompt: str) -> str:
        self.prompts.append(prompt)
        with self._lock:
            self.reading += 1
            self.most = max(self.most, self.reading)
        try:
            line = self.lines.get(timeout=10)
            if line is None:
                raise EOFError
            return line
        finally:
            with self._lock:
                self.reading -= 1


def in_thread(
    read: OneReader, prompt: str, question: Question | None = None, again: bool = False
) -> tuple[threading.Thread, list[object]]:
    """``read(prompt)`` in a thread (inside ``question``, if given; with ``again``, a
    second read after the first, as an asker that goes on with the line would make)."""
    got: list[object] = []

    def run() -> None:
        with question or Question():
            try:
                got.append(read(prompt))
                if again:
                    got.append(read("again > "))
            except (EOFError, Withdrawn) as e:
                got.append(e)

    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t, got


def wait_until(test: object, what: str) -> None:
    event = threading.Event()
    for _ in range(500):
        if test():  # type: ignore[operator]
            return
        event.wait(0.01)
    pytest.fail(f"never: {what}")


def test_a_withdrawn_read_hands_its_line_to_the_next_question() -> None:
    term = Terminal()
    one = OneReader(term.read, term.shown.append)
    first = Question()
    withdrawn, old = in_thread(one, "Your move > ", first, again=True)
    wait_until(lambda: one.busy() and term.reading == 1, "the first read starts")
    first.withdrawn = True  # nobody waits for this answer any more
    asked, new = in_thread(one, "Your move (new table) > ")
    wait_until(lambda: term.shown == ["Your move (new table) > "], "the new prompt is shown")
    term.lines.put("1")
    asked.join(5)
    withdrawn.join(5)
    assert new == ["1"]  # the line reached the question asked now,
    assert len(old) == 1 and isinstance(old[0], Withdrawn)  # not the withdrawn one, which asks no more
    assert term.most == 1 and term.prompts == ["Your move > "]  # one read of the terminal only
    assert not one.busy() and not one.line_lost()  # (a question took the line)
    # The next question reads afresh.
    again, got = in_thread(one, "Next > ")
    term.lines.put("2")
    again.join(5)
    assert got == ["2"] and term.prompts == ["Your move > ", "Next > "] and term.shown == [
        "Your move (new table) > "
    ]


def test_a_withdrawn_question_whose_line_comes_with_nobody_else_asking_goes_no_further() -> None:
    term = Terminal()
    one = OneReader(term.read, term.shown.append)
    question = Question()
    zombie, got = in_thread(one, "Your move > ", question, again=True)
    wait_until(lambda: term.reading == 1, "the read starts")
    question.withdrawn = True
    term.lines.put("2")  # typed for the withdrawn question: it takes it, and stops
    zombie.join(5)
    assert len(got) == 1 and isinstance(got[0], Withdrawn) and not one.busy()
    assert term.prompts == ["Your move > "]  # it asked nothing more
    assert one.line_lost() and not one.line_lost()  # the next prompt says so, once
    # A withdrawn question that was between two reads asks nothing either.
    with question, pytest.raises(Withdrawn):
        one("Which suit? > ")
    assert term.prompts == ["Your move > "]


def test_the_end_of_input_reaches_the_question_that_waits_too() -> None:
    term = Terminal()
    one = OneReader(term.read, term.shown.append)
    first, _ = in_thread(one, "a > ")
    wait_until(lambda: term.reading == 1, "the first read starts")
    second, got = in_thread(one, "b > ")
    wait_until(lambda: term.shown == ["b > "], "the second prompt is shown")
    term.lines.put(None)  # the terminal closed
    second.join(5)
    first.join(5)
    assert len(got) == 1 and isinstance(got[0], EOFError)
    assert not one.busy()


def test_reads_one_after_the_other_each_read_the_terminal() -> None:
    term = Terminal()
    one = OneReader(term.read, term.shown.append)
    for text in ("x", "y"):
        term.lines.put(text)
        assert one(f"{text}? ") == text
    assert term.prompts == ["x? ", "y? "] and term.shown == [] and term.most == 1


def test_at_a_terminal_the_prompt_after_a_lost_line_says_that_nothing_was_played(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The person answered a question that was withdrawn before anything else asked: the
    next prompt tells them that line did nothing (they may think they moved), each time."""
    import os
    import pty

    leader, follower = pty.openpty()
    with open(follower, closefd=True) as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        said: list[str] = []
        lost = iter([True, False, True])
        keyboard = Keyboard(
            lambda prompt: prompt, lambda: said.append("typed ahead"), lost=lambda: next(lost),
            told_lost=lambda: said.append("lost"),
        )  # fmt: skip
        assert [keyboard.read(p) for p in ("a", "b", "c")] == ["a", "b", "c"]
        keyboard.restore()
    os.close(leader)
    assert said == ["lost", "lost"]


def test_keys_are_shown_at_every_prompt_and_not_once_its_question_is_withdrawn(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The terminal echoes keys while a prompt asks, also a prompt that takes the line of
    a read already in progress; once a prompt's question is withdrawn (its read still
    waiting), keys typed are not shown, where they would run into the status line."""
    import os
    import pty
    import termios

    leader, follower = pty.openpty()

    def echoing() -> bool:
        return bool(termios.tcgetattr(follower)[3] & termios.ECHO)

    with open(follower, closefd=False) as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        busy = [False]
        seen: list[tuple[str, bool]] = []

        def read(prompt: str) -> str:
            seen.append((prompt, echoing()))
            if prompt == "asked > ":  # its question is withdrawn while it waits
                keyboard.withdraw()
                seen.append(("withdrawn", echoing()))
            return prompt

        keyboard = Keyboard(read, lambda: None, busy=lambda: busy[0])
        keyboard.read("asked > ")
        busy[0] = True  # the next prompt takes the line of the read in progress
        keyboard.read("joined > ")
        seen.append(("after", echoing()))
        keyboard.restore()
    os.close(leader)
    os.close(follower)
    assert seen == [("asked > ", True), ("withdrawn", False), ("joined > ", True), ("after", False)]


@pytest.mark.parametrize(
    ("typed", "whole", "partial"),
    [(b"10", False, "10"), (b"score\n7h", True, "7h"), (b"help\n", True, None), (b"", False, None)],
)
def test_a_line_begun_before_the_prompt_is_not_its_answer_and_the_person_is_told(
    monkeypatch: pytest.MonkeyPatch, typed: bytes, whole: bool, partial: str | None
) -> None:
    """Keys typed while nothing asked, without Enter, wait in the terminal as a line begun:
    the prompt does not take them as the start of its answer (the terminal does not show
    them), and the person is told what they were, where before they went without a word."""
    import os
    import pty
    import select
    import time

    leader, follower = pty.openpty()
    with open(follower, closefd=False) as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        said: list[str] = []
        keyboard = Keyboard(
            lambda prompt: prompt, lambda: said.append("typed ahead"),
            told_partial=lambda text: said.append(f"partial {text}"),
        )  # fmt: skip
        if typed:
            os.write(leader, typed)
            time.sleep(0.3)  # (the terminal takes the keys)
        assert keyboard.read("> ") == "> "
        expected = (["typed ahead"] if whole else []) + ([f"partial {partial}"] if partial else [])
        assert said == expected
        assert not select.select([follower], [], [], 0.1)[0]  # nothing left for the next read
        keyboard.restore()
    os.close(leader)
    os.close(follower)


def test_what_was_typed_and_never_read_does_not_reach_the_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    """At exit the terminal is left as it was found, without the lines typed for the game
    and never read: the shell would run them as commands."""
    import os
    import pty
    import select

    leader, follower = pty.openpty()
    with open(follower, closefd=False) as stdin:
        monkeypatch.setattr(sys, "stdin", stdin)
        keyboard = Keyboard(lambda prompt: prompt, lambda: None)
        os.write(leader, b"help\n")
        assert select.select([follower], [], [], 2)[0]  # typed, and waiting
        keyboard.restore()
        assert not select.select([follower], [], [], 0.2)[0]
    os.close(leader)
    os.close(follower)


EXIT_WITH_A_READ_LEFT = """
import sys, threading, time
from p2pcards.ui.keyboard import Keyboard, OneReader, Question, Withdrawn
from p2pcards.cli.group import exit_now_if_a_read_is_left
one = OneReader(input, lambda prompt: None)
threading.Thread(target=one, args=("> ",), daemon=True).start()  # a question withdrawn
while not one.busy():
    time.sleep(0.01)
time.sleep(0.2)  # (inside input(), holding standard input)
try:
    sys.exit(7)
except SystemExit as e:
    if sys.argv[1] == "guarded":
        exit_now_if_a_read_is_left(e.code)
    raise
"""


@pytest.mark.parametrize("guarded", [True, False])
def test_a_read_left_at_the_end_does_not_abort_the_program(guarded: bool) -> None:
    """A question withdrawn as the match ended leaves its read in a thread that holds
    standard input; the interpreter's shutdown aborts on that (status 134, "Fatal Python
    error") unless the program ends at once with its own status, as the CLI does."""
    proc = subprocess.Popen(
        [sys.executable, "-c", EXIT_WITH_A_READ_LEFT, "guarded" if guarded else "bare"],
        stdin=subprocess.PIPE,  # kept open and never written: the read waits
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stderr is not None and proc.stdin is not None
    try:
        err = proc.stderr.read()  # (until the program ends: its standard input stays open)
        proc.wait(timeout=30)
    finally:
        proc.stdin.close()
        proc.kill()
    if guarded:
        assert proc.returncode == 7 and b"Fatal Python error" not in err, err
    else:  # what the guard is for (if the interpreter ever stops aborting, the guard can go)
        assert proc.returncode != 7 and b"Fatal Python error" in err, err
