"""The keyboard of a person at a terminal: what they type counts only at a prompt.

At a live table things happen between a player's prompts (the others' moves, the
status line). A line typed meanwhile would otherwise wait in the terminal and be
read as the answer to the next prompt, before the player has seen what it asks
(a ``1`` typed during another's turn played the first legal move). So, on a
terminal, what was typed before a prompt appears is thrown away (the player is
told once), and between prompts the terminal does not echo keys, so that they
do not run into the status line. A live table may take such a line itself
while nothing is asked (``Console.typed_line``: ``quit`` works while the others
play). Elsewhere (a pipe, a file, Windows) reads are left as they are.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import sys
import threading
import weakref
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future
from typing import Any

try:
    import termios
except ImportError:  # Windows: no terminal modes to set
    termios = None  # type: ignore[assignment]


class Withdrawn(BaseException):
    """Raised in the thread of a withdrawn question at its next read, or when the read it
    waits in ends: whatever asked stops there, and nothing it would have done with the
    line (ask another question, say something) happens. A BaseException, so that no
    handler of the asker's takes it."""


class Question:
    """One question asked in a worker thread (``with question:`` around the asking, in
    that thread). Once :attr:`withdrawn` is set (the turn it asks about went away), the
    thread's reads answer nobody: they raise :class:`Withdrawn`."""

    def __init__(self) -> None:
        self.withdrawn = False

    def __enter__(self) -> Question:
        _ASKING.question = self
        return self

    def __exit__(self, *exc: object) -> None:
        _ASKING.question = None


_ASKING = threading.local()


def _withdrawn() -> bool:
    question = getattr(_ASKING, "question", None)
    return question is not None and question.withdrawn


class OneReader:
    """``read`` (``input``-like) never run twice at once, for questions that can be withdrawn.

    A question can be withdrawn while its read waits in a worker thread (the turn
    it asked about went away: the match went on at a new table). That thread
    cannot be stopped: it stays in ``read``, and the line it gets is not its
    asker's (:class:`Question`). A second ``read`` of the same terminal beside it
    would lose the next line typed to the withdrawn one, so the next question
    shows its prompt (``show``) and takes the line of the read in progress instead.
    """

    def __init__(self, read: Callable[[str], str], show: Callable[[str], None]) -> None:
        self._read, self._show = read, show
        self._lock = threading.Lock()
        self._pending: Future[str] | None = None
        self._joined = False
        self._lost = False
        _READERS.add(self)

    def busy(self) -> bool:
        """A read is in progress (perhaps one whose question was withdrawn)."""
        return self._pending is not None

    def line_lost(self) -> bool:
        """Whether a line was read for a withdrawn question, with no question to take it, since
        the last call: the person typed an answer that nothing used, and is told so."""
        with self._lock:
            lost, self._lost = self._lost, False
        return lost

    def __call__(self, prompt: str) -> str:
        if _withdrawn():
            raise Withdrawn
        with self._lock:
            pending, mine = self._pending, self._pending is None
            if pending is None:
                pending = self._pending = Future()
                self._joined = False
            else:
                self._joined = True
        if not mine:
            self._show(prompt)
            return pending.result()
        try:
            with _asking(prompt):
                line = self._read(prompt)
        except BaseException as e:
            with self._lock:
                self._pending = None
            pending.set_exception(e)
            if _withdrawn():
                raise Withdrawn from e
            raise
        withdrawn = _withdrawn()
        with self._lock:
            self._pending = None
            if withdrawn and not self._joined:
                self._lost = True
        pending.set_result(line)
        if withdrawn:
            raise Withdrawn
        return line


_READERS: weakref.WeakSet[OneReader] = weakref.WeakSet()


def a_read_is_left() -> bool:
    """A read of the terminal is still in progress: a question withdrawn as the match ended, or a code prompt
    interrupted (:func:`read_interruptibly`). Its thread holds standard input, and the interpreter's own
    shutdown would abort on that (see :func:`p2pcards.cli.group.exit_now_if_a_read_is_left`)."""
    left = any(thread.is_alive() for thread in list(_LEFT_READS))
    return left or any(reader.busy() for reader in list(_READERS))


def show_prompt(prompt: str) -> None:
    """Write ``prompt`` as ``input`` does, for a read that joins one in progress."""
    sys.stdout.write(prompt)
    sys.stdout.flush()


class Keyboard:
    """Guards ``read`` (``input``-like) on standard input, when it is a terminal.

    ``busy``: whether a read is already in progress (:class:`OneReader`); then this
    one takes its line, and what was typed for it is not thrown away. ``lost``:
    whether a line went to a withdrawn question since the last prompt
    (:meth:`OneReader.line_lost`); then ``told_lost`` tells the person before this
    prompt, each time (they may think they made the move it answered). ``told_partial``
    is told the text of a line begun before the prompt and not ended (keys typed, no
    Enter): it is not the prompt's answer either, and nothing else shows it was not taken.
    """

    def __init__(
        self,
        read: Callable[[str], str],
        told: Callable[[], None],
        busy: Callable[[], bool] = lambda: False,
        lost: Callable[[], bool] = lambda: False,
        told_lost: Callable[[], None] = lambda: None,
        told_partial: Callable[[str], None] = lambda text: None,
    ) -> None:
        self._read, self._told, self._busy = read, told, busy
        self._lost, self._told_lost, self._told_partial = lost, told_lost, told_partial
        self._partial = ""
        self._fd: int | None = None
        self._saved: list[Any] | None = None
        self._discarded_before = False
        if termios is not None:
            with contextlib.suppress(OSError, ValueError, AttributeError):
                if sys.stdin.isatty():
                    self._fd = sys.stdin.fileno()
                    self._saved = termios.tcgetattr(self._fd)
                    atexit.register(self.restore)
        if self._fd is not None:
            line_editing()
            pause_politely()

    @property
    def fd(self) -> int | None:
        """The terminal's file descriptor (None: the input is no terminal, reads are left as they are)."""
        return self._fd

    def read(self, prompt: str) -> str:
        if self._fd is None:
            return self._read(prompt)
        if not self._busy():  # (busy: this prompt takes the line of the read in progress)
            if self._lost():
                self._told_lost()
            if self._drop_typed_ahead() and not self._discarded_before:
                self._discarded_before = True
                self._told()
            if self._partial.strip():
                self._told_partial(self._partial.strip())
        self._echo(True)
        try:
            return self._read(prompt)
        finally:
            self._echo(False)

    def drop(self) -> bool:
        """Throw away what was typed while nothing could take it (before the table was ready);
        True if a whole line was. Nothing is dropped while a read is in progress."""
        if self._fd is None or self._busy():
            return False
        return self._drop_typed_ahead()

    def withdraw(self) -> None:
        """The prompt whose read is in progress stands no more: keys typed now are not shown
        (they would run into the status line) until a prompt asks again."""
        if self._fd is not None:
            self._echo(False)

    def _drop_typed_ahead(self) -> bool:
        """Throw away what waits in the terminal; True if a whole line did. The line begun
        and not ended, if any, is kept in ``_partial`` (to say that it was not taken)."""
        assert self._fd is not None
        self._partial = ""
        try:
            typed = self._pending()
            termios.tcflush(self._fd, termios.TCIFLUSH)
        except (OSError, ValueError, termios.error):  # (a terminal that is gone: read says so)
            return False
        _, ended, partial = typed.rpartition(b"\n")
        self._partial = partial.decode(errors="replace")
        return bool(ended)

    def _pending(self) -> bytes:
        """What waits in the terminal, a line not ended with Enter included: read with the
        terminal briefly out of line mode (where only whole lines can be read), waiting for
        nothing more."""
        assert self._fd is not None
        saved = termios.tcgetattr(self._fd)
        raw = [*saved[:6], list(saved[6])]
        raw[3] &= ~termios.ICANON
        raw[6][termios.VMIN], raw[6][termios.VTIME] = 0, 0
        termios.tcsetattr(self._fd, termios.TCSANOW, raw)
        chunks: list[bytes] = []
        try:
            while len(chunks) < 64 and (chunk := os.read(self._fd, 4096)):
                chunks.append(chunk)
        finally:
            termios.tcsetattr(self._fd, termios.TCSANOW, saved)
        return b"".join(chunks)

    def _echo(self, on: bool) -> None:
        assert self._fd is not None
        with contextlib.suppress(OSError, ValueError, termios.error):
            attrs = termios.tcgetattr(self._fd)
            attrs[3] = attrs[3] | termios.ECHO if on else attrs[3] & ~termios.ECHO
            termios.tcsetattr(self._fd, termios.TCSANOW, attrs)

    def restore(self) -> None:
        """Leave the terminal as it was found (also at exit), without what was typed for the
        game and never read: the shell would take it for a command."""
        if self._fd is not None and self._saved is not None:
            with contextlib.suppress(OSError, ValueError, termios.error):
                termios.tcflush(self._fd, termios.TCIFLUSH)
                termios.tcsetattr(self._fd, termios.TCSANOW, self._saved)


def ask_code(prompt: str, words: Sequence[str]) -> str:
    """An invitation code typed at the terminal, shown as it is typed (a typo is seen),
    each word completed with Tab from the code words ``words`` where the system has
    line editing (``readline``). Ctrl-C interrupts it at once (:func:`read_interruptibly`)."""
    pause_politely()
    return read_interruptibly(lambda: _read_code(prompt, words))


def _read_code(prompt: str, words: Sequence[str]) -> str:
    try:
        import readline
    except ImportError:  # (Windows without pyreadline: no completion, the code is still read)
        return input(prompt).strip()

    def complete(text: str, state: int) -> str | None:
        matches = [w for w in words if w.startswith(text.lower())]
        if state >= len(matches):
            return None
        # The first of the two words (after the number) is completed with the dash after it.
        before = readline.get_line_buffer()[: readline.get_begidx()]
        return matches[state] + ("-" if before.count("-") == 1 else "")

    completer, delims = readline.get_completer(), readline.get_completer_delims()
    readline.set_completer(complete)
    readline.set_completer_delims(" -")
    binding = "bind ^I rl_complete" if "libedit" in (readline.__doc__ or "") else "tab: complete"
    readline.parse_and_bind(binding)
    try:
        with _asking(prompt):
            return input(prompt).strip()
    finally:
        readline.set_completer(completer)
        readline.set_completer_delims(delims)


_STOP_SIGNALS = frozenset(
    getattr(signal, name) for name in ("SIGINT", "SIGHUP", "SIGTERM", "SIGQUIT") if hasattr(signal, name)
)
"""The signals that stop the program: never taken by a thread that reads the terminal."""

_PAUSE_SIGNALS = frozenset(getattr(signal, name) for name in ("SIGTSTP", "SIGCONT") if hasattr(signal, name))
"""Ctrl-Z and fg: taken by the main thread too (:func:`pause_politely`), never by a reading thread."""

_LEFT_READS: dict[threading.Thread, list[Any] | None] = {}
"""The threads of :func:`read_interruptibly` still reading, with the terminal's modes before each."""


def read_interruptibly(read: Callable[[], str]) -> str:
    """``read()`` (a line typed at the terminal, ``input``-like) in a thread of its own, waited
    for here, so that Ctrl-C always interrupts it.

    Line editing (``readline``) notices Ctrl-C only when the signal cuts its wait for a key
    short: one that comes after the prompt is shown but before that wait begins (Ctrl-C pressed
    the instant the prompt appears) is lost, and the program waits on; and in a worker thread
    (a prompt asked while the network runs) no read ever notices it. Here the reading thread
    takes none of the signals that stop the program: they come to the thread that waits (the
    main thread, or trio's, which abandons the wait), at once, however the read fares. A read
    so interrupted cannot be stopped: it is left in its thread, :func:`a_read_is_left` says so
    (the program then ends at once), and the terminal's modes are put back at exit."""
    done: Future[str] = Future()
    modes = _terminal_modes()

    def run() -> None:
        if _STOP_SIGNALS and hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_BLOCK, _STOP_SIGNALS | _PAUSE_SIGNALS)
        try:
            line = read()
        except BaseException as e:
            _LEFT_READS.pop(threading.current_thread(), None)
            done.set_exception(e)
        else:
            _LEFT_READS.pop(threading.current_thread(), None)
            done.set_result(line)

    thread = threading.Thread(target=run, name="p2pcards-read", daemon=True)
    _LEFT_READS[thread] = modes
    thread.start()
    return done.result()


def _terminal_modes() -> list[Any] | None:
    """The modes of the terminal at standard input (None: no terminal)."""
    if termios is None:
        return None
    try:
        return termios.tcgetattr(sys.stdin.fileno())
    except (OSError, ValueError, AttributeError, termios.error):
        return None


@atexit.register
def _restore_left_modes() -> None:
    """At exit, the terminal's modes as they were before a read still in progress (line
    editing changed them while it waits for keys): the shell gets its echo back."""
    for thread, modes in list(_LEFT_READS.items()):
        if thread.is_alive() and modes is not None:
            with contextlib.suppress(OSError, ValueError, AttributeError, termios.error):
                termios.tcsetattr(sys.stdin.fileno(), termios.TCSANOW, modes)
            return


_ASKED: list[str] = []
"""The prompt of the read of the terminal in progress, if any (shown again after Ctrl-Z and fg)."""


@contextlib.contextmanager
def _asking(prompt: str) -> Iterator[None]:
    _ASKED.append(prompt)
    try:
        yield
    finally:
        _ASKED.remove(prompt)


_PAUSED: list[list[Any] | None] = []
"""The terminal's modes when the program was stopped (Ctrl-Z), until it is continued in the foreground."""


def pause_politely() -> None:
    """Ctrl-Z, then ``fg``, at a terminal: the program stops as usual, and once it is back in
    the foreground the terminal is as it was (the shell set modes of its own meanwhile:
    keys would be echoed twice, the arrows would write escape codes, and between prompts
    keys would run into the status line), and the prompt being answered is shown again,
    with what was typed of it (the shell's lines took its place). Only in the main thread,
    where the system has these signals."""
    if termios is None or not _PAUSE_SIGNALS or threading.current_thread() is not threading.main_thread():
        return
    with contextlib.suppress(OSError, ValueError):
        signal.signal(signal.SIGTSTP, _on_pause)
        signal.signal(signal.SIGCONT, _on_continue)


def _on_pause(signum: int, frame: object) -> None:
    _PAUSED[:] = [_terminal_modes()]
    signal.signal(signal.SIGTSTP, signal.SIG_DFL)
    try:
        os.kill(os.getpid(), signal.SIGTSTP)  # stops here, until continued
    finally:
        signal.signal(signal.SIGTSTP, _on_pause)
    _on_continue(signal.SIGCONT, None)


def _on_continue(signum: int, frame: object) -> None:
    if not _PAUSED:
        return
    try:
        fd = sys.stdin.fileno()
        if os.tcgetpgrp(fd) != os.getpgrp():  # continued in the background (bg): wait for fg
            return
    except (OSError, ValueError, AttributeError):
        _PAUSED.clear()
        return
    (modes,) = _PAUSED
    _PAUSED.clear()
    with contextlib.suppress(OSError, ValueError, termios.error):
        if modes is not None:
            termios.tcsetattr(fd, termios.TCSANOW, modes)
    if _ASKED:
        editing = sys.modules.get("readline")
        typed = editing.get_line_buffer() if editing is not None else ""
        with contextlib.suppress(OSError, ValueError):
            sys.stdout.write(_ASKED[-1] + typed)
            sys.stdout.flush()


def line_editing() -> None:
    """Arrow keys, Home and End, and the lines typed before (up arrow) at every ``input``
    prompt of this terminal, where the system has ``readline``: without it the arrows
    write escape codes into the answer. Tab completes nothing here (it would list file
    names); :func:`ask_code` sets its own completion while it asks."""
    try:
        import readline
    except ImportError:  # (Windows without pyreadline: plain lines, as before)
        return
    readline.set_completer(lambda text, state: None)
    if "libedit" not in (readline.__doc__ or ""):
        readline.parse_and_bind("set enable-bracketed-paste off")  # no escape codes around each line
