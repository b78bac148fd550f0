"""The keyboard's reads (``ui.keyboard.OneReader``): a question withdrawn while its read
waits does not swallow the next line typed, and a read never runs twice at once."""

from __future__ import annotations

import queue
import threading

import pytest

from p2pcards.ui.keyboard import OneReader


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


def in_thread(read: OneReader, prompt: str) -> tuple[threading.Thread, list[object]]:
    got: list[object] = []

    def run() -> None:
        try:
            got.append(read(prompt))
        except EOFError as e:
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
    withdrawn, old = in_thread(one, "Your move > ")  # nobody waits for this answer any more
    wait_until(lambda: one.busy() and term.reading == 1, "the first read starts")
    asked, new = in_thread(one, "Your move (new table) > ")
    wait_until(lambda: term.shown == ["Your move (new table) > "], "the new prompt is shown")
    term.lines.put("1")
    asked.join(5)
    withdrawn.join(5)
    assert new == ["1"] and old == ["1"]  # the line reached the question asked now
    assert term.most == 1 and term.prompts == ["Your move > "]  # one read of the terminal only
    assert not one.busy()
    # The next question reads afresh.
    again, got = in_thread(one, "Next > ")
    term.lines.put("2")
    again.join(5)
    assert got == ["2"] and term.prompts == ["Your move > ", "Next > "] and term.shown == [
        "Your move (new table) > "
    ]


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
