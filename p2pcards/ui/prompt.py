"""Reading a human's moves: parsing every accepted notation, with a helpful hint for each typo.

The human is one more source of moves with the same ``choose(view, legal, rng)``
method as a bot, so the game loop cannot tell them apart. It only ever returns
one of the legal actions it was given; when the player asks for something
illegal, the rule engine's own verdict (through ``explain``) says which rule
forbids it, and the player is asked again.

``help``, ``score`` and ``quit`` work at every prompt; the end of the input
(a pipe that ran dry, Ctrl-D) is a quit, never a crash.

The :class:`Console` also owns the terminal's bottom line: a networked table
says there what it waits for (:class:`StatusLine`), rewritten in place and
erased before any other output, so that waiting never scrolls the screen.
"""

from __future__ import annotations

import errno
import os
import shutil
import sys
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Generic, TypeVar

import click

from p2pcards.cards import SUITS, Card, rank_text
from p2pcards.errors import CardParseError
from p2pcards.safetext import clean
from p2pcards.ui.i18n import (
    AS_IS_ACE,
    C_IS_HEARTS,
    COMMAND_WORDS,
    LOCAL_SUIT_LETTERS,
    SUIT_WORDS,
    CardWords,
    Translator,
    parse_suit_word,
    rank_word,
)
from p2pcards.ui.keyboard import Keyboard, OneReader, show_prompt
from p2pcards.ui.render import (
    MIN_WIDTH,
    Style,
    encodable,
    fold_narrow,
    layout_width,
    narrow_columns,
    stream_encoding,
    visible_len,
    wrap,
)


class QuitGame(Exception):
    """The player typed quit, or the input ended: leave the game cleanly."""

    interrupted = False
    """Ctrl-C at the prompt: the program then exits with status 130, as one interrupted."""


class Interrupted(QuitGame):
    """Ctrl-C at a prompt, or its terminal closed: the game ends as after quit, and the
    program's status says so (a networked seat signs that it leaves "interrupted")."""

    interrupted = True


PIPE_EVERY = 30.0
"""Seconds between two waiting lines about the same wait when the output is not a terminal."""


class StatusLine:
    """The one line at the bottom of a terminal that says what the table waits for.

    On a terminal (``live`` writes there without a line break) the line is
    rewritten in place, a carriage return and the new text over the old, and
    it is erased before anything else is written, so it never garbles a move,
    a notice or a prompt; it stays hidden while a prompt waits for an answer.
    Elsewhere (a pipe, a file, a test) nothing is drawn: :meth:`note` prints
    a plain line instead, only when what is awaited changes or once every
    :data:`PIPE_EVERY` seconds, so a log does not fill up with waiting lines.

    The console routes every read and write through here (:meth:`wrap_read`,
    :meth:`wrap_write`), from the network's thread and the keyboard's alike.
    """

    def __init__(
        self,
        write: Callable[[str], None],
        live: Callable[[str], None] | None,
        *,
        ansi: bool = True,
        width: Callable[[], int] | None = None,
    ) -> None:
        self._write = write
        self.live = live
        self._ansi = ansi
        self._width = width or _terminal_width
        self._lock = threading.RLock()
        self._drawn: str | None = None
        """The status text on the screen now (None: the line is clean)."""
        self._prompt: str | None = None
        """The prompt of a read in progress (shown again after output that interrupts it)."""
        self.prompt_again: Callable[[str], str] | None = None
        """How a prompt is shown again (with the time left as it is then); None: as it was."""
        self._reads = 0
        self._on_prompt_line = False
        """A prompt is on the last line, the cursor after it: output starts a new line first."""
        self._noted: tuple[Hashable, float] | None = None

    @property
    def terminal(self) -> bool:
        """True when the line can be rewritten in place."""
        return self.live is not None

    # -- the status itself ----------------------------------------------------

    def show(self, text: str | None) -> None:
        """On a terminal: draw ``text`` in place of the line shown (None erases it)."""
        if self.live is None:
            return
        with self._lock:
            if text is None or self._prompt is not None:
                self._erase()
                return
            shown = _fit(text, self._width())
            if shown == self._drawn:
                return
            if self._on_prompt_line:  # a prompt nobody answers any more: keep it, start below
                self._write("")
                self._on_prompt_line = False
            if self._ansi:
                self.live(self._wipe() + shown)
            else:  # a dumb terminal: blank out what the old text had more
                extra = max(0, visible_len(self._drawn or "") - visible_len(shown))
                self.live("\r" + shown + " " * extra)
            self._drawn = shown

    def note(self, text: str, *, key: Hashable, now: float) -> None:
        """Not on a terminal: print ``text`` if ``key`` (what is awaited) changed, or
        if :data:`PIPE_EVERY` seconds passed since the last line about it."""
        if self.live is not None:
            return
        with self._lock:
            if self._noted is not None and self._noted[0] == key and now - self._noted[1] < PIPE_EVERY:
                return
            self._noted = (key, now)
        self.line(text)

    def clear(self) -> None:
        """Erase the status (what was awaited has arrived)."""
        with self._lock:
            self._erase()

    def _erase(self) -> None:
        if self._drawn is None or self.live is None:
            self._drawn = None
            return
        if self._ansi:
            self.live(self._wipe())
        else:
            self.live("\r" + " " * visible_len(self._drawn) + "\r")
        self._drawn = None

    def _wipe(self) -> str:
        """What erases the status drawn (an ANSI terminal): back to the start of its row, and up
        the rows it takes now if the terminal was narrowed since it was drawn: a terminal such
        as tmux then folds the line that no longer fits, its cursor after the end (erasing the
        last row alone left a copy of the rest above)."""
        up = visible_len(self._drawn) // self._width() if self._drawn else 0
        return f"\r\x1b[{up}A\x1b[J" if up else "\r\x1b[K"

    # -- everything else that is written or read -------------------------------

    def line(self, text: str) -> None:
        """Write ``text`` as lines of their own: the status is erased first, a prompt
        waiting for its answer gets its line ended first and is shown again after."""
        with self._lock:
            self._erase()
            if self._on_prompt_line:
                self._write("")
                self._on_prompt_line = False
            self._write(text)
            if self._prompt is not None and self.live is not None:
                again = self.prompt_again
                self.live(again(self._prompt) if again is not None else self._prompt)
                self._on_prompt_line = True

    def wrap_write(self, write: Callable[[str], None]) -> Callable[[str], None]:
        """``write`` (one line) going through :meth:`line`."""
        self._write = write
        return self.line

    def wrap_read(self, read: Callable[[str], str]) -> Callable[[str], str]:
        """``read`` (``input``-like) with the status erased while its prompt is up."""

        def reading(prompt: str) -> str:
            with self._lock:
                self._erase()
                if self._on_prompt_line:
                    self._write("")
                self._reads += 1
                ticket = self._reads
                self._prompt = prompt
                self._on_prompt_line = True  # ``read`` writes the prompt itself
            try:
                return read(prompt)
            finally:
                with self._lock:
                    if ticket == self._reads:  # not abandoned, not followed by another read
                        self._prompt = None
                        self._on_prompt_line = False

        return reading

    def abandon(self) -> None:
        """The read in progress will get no answer that counts (the turn is over):
        do not show its prompt again; the next output still starts a new line."""
        with self._lock:
            self._reads += 1
            self._prompt = None


def _fit(text: str, width: int) -> str:
    """``text`` on one row of ``width`` columns (a status line must never wrap)."""
    text = " ".join(text.split())
    if visible_len(text) < width:
        return text
    return text[: max(1, width - 4)] + "..."


def _terminal_width() -> int:
    """The terminal's columns as they are (a status line fitted to more would wrap, and each
    redraw of it scroll the screen), however narrow, short of absurd."""
    return max(8, shutil.get_terminal_size((80, 24)).columns)


SPECTATOR_DELAY: ContextVar[float] = ContextVar("spectator_delay", default=0.0)
"""Seconds a spectator's display waits after each move (``play --watch --delay``). Set for
one match by :func:`p2pcards.ui.local.play_local` around an offline match, whose loop
builds its display itself; a networked match paces its bots instead (see :func:`pace`)."""


def pace(seconds: float) -> None:
    """Wait ``seconds`` between two moves shown to a spectator, so that a match can be followed.

    Never inside trio's event loop: a networked table runs there, and a sleep would stall
    every node's network with it (a networked match is paced by its bots, with trio.sleep).
    """
    if seconds <= 0:
        return
    trio = sys.modules.get("trio")  # (an offline match need not load it)
    if trio is not None:
        try:
            trio.lowlevel.current_trio_token()
            return
        except RuntimeError:  # not inside trio: this thread may sleep
            pass
    time.sleep(seconds)


DETECT = "detect"
"""Console ``encoding`` by default: that of standard output if ``write`` prints there."""


def output_encoding(write: Callable[[str], None]) -> str | None:
    """The encoding of standard output if ``write`` prints there (``print``, ``click.echo``);
    None otherwise (a test's list, a file of its own: no limit)."""
    if write is not print and write is not click.echo:
        return None
    return stream_encoding(sys.stdout)


def _detect(text: str) -> None:
    """Placeholder for ``Console.live``: find out whether ``write`` prints to a terminal."""
    raise AssertionError("replaced when the console is made")


def terminal_writer(write: Callable[[str], None]) -> Callable[[str], None] | None:
    """How to write to standard output without a line break, if ``write`` prints there
    (``print`` or ``click.echo``) and standard output is a terminal; None otherwise."""
    if write is not print and write is not click.echo:
        return None
    try:
        tty = sys.stdout.isatty()
    except (AttributeError, ValueError):
        tty = False
    if not tty:
        return None
    if write is print:
        return lambda text: print(text, end="", flush=True)
    return lambda text: click.echo(text, nl=False)


TYPED_LIMIT = 24
"""The most characters of a person's line that a message quotes back."""
ECHO_LIMIT = 200
"""The most characters of a line read from a pipe that are shown after its prompt."""


def typed(text: str) -> str:
    """What the person typed, as a message quotes it: on one line, without escape or bidi
    controls, at most :data:`TYPED_LIMIT` characters (a pasted page is not said back);
    ``''`` for nothing."""
    return clean(text, TYPED_LIMIT) or "''"


def move_number(word: str) -> int | None:
    """The number ``word`` is, written in figures (``3``, never ``²`` nor ``٣``); one too long
    to be any move is a large number, not an error."""
    if not (word.isascii() and word.isdigit()):
        return None
    return int(word) if len(word) < 10 else 10**10


def card_question(tr: Translator, got: CardWords) -> str | None:
    """The question back when a card was typed in a way that names two: ``7c`` (or ``roi c``)
    in French or Italian, where ``c`` is cœur, cuori, but clubs in English, so either card may
    be meant, whichever is in hand (one held does not say which was meant: the player may have
    misread the hand); ``as`` alone in French, where it is any ace, but the ace of spades in the
    notation. None: nothing to ask."""
    words = SUIT_WORDS[tr.lang]
    if got.said_as_ace and tr.lang in AS_IS_ACE:
        aces = [f"as de {words[suit]}" for suit in SUITS]
        return tr("err_as_card", text=typed(got.text), spades=aces[0], hearts=aces[1], diamonds=aces[2],
                  clubs=aces[3])
    if got.card.suit != "C" or not got.c_may_be_hearts(tr.lang):
        return None
    return tr(
        "err_c_card",
        text=typed(got.text),
        hearts=Card.of(got.card.rank, "H").text(),
        clubs=got.card.text(),
        as_hearts=f"{got.rank} {words['H']}",
        as_clubs=f"{got.rank} {words['C']}",
    )


def rank_alone(tr: Translator, text: str, cards: Sequence[Card]) -> str | None:
    """The hint for a rank named alone (``asso``, ``ace``, ``dame``): which card of that rank,
    with its suit, shown by the ``cards`` of that rank the player may play (or any); None
    when ``text`` is not the name of a rank."""
    named = rank_word(text)
    if named is None:
        return None
    rank = rank_text(named[0])
    mine = [c.text() for c in cards if c.text()[:-1] == rank]
    return tr("err_rank_alone", text=typed(text), example=mine[0] if mine else f"{rank}H")


def c_settled(tr: Translator, got: CardWords, after: Sequence[str]) -> CardWords | None:
    """The card when the one word after a ``c`` that may be hearts names hearts or clubs by its
    name or symbol (``Kc trèfle``, ``7c ♥``); None otherwise (a letter settles nothing)."""
    if got.card.suit != "C" or not got.c_may_be_hearts(tr.lang) or len(after) != 1:
        return None
    if after[0].upper() in SUITS:  # a letter again: c may be one of them
        return None
    try:
        suit = parse_suit_word(after[0])
    except CardParseError:
        return None
    return got.in_suit(suit) if suit in ("H", "C") else None


def as_typed(line: str) -> str:
    """A line read from the person as it looks to them: escape sequences (an arrow key),
    controls (a stray Ctrl-A) and invisible characters dropped, spaces folded, so that
    ``score`` with a Ctrl-A in it is still ``score``; ``''`` for nothing."""
    return clean(line, max(1, len(line)))


HUNG_UP = frozenset({errno.EIO, errno.EPIPE, errno.ENXIO})
"""What writing to or reading from a terminal that is gone fails with."""


class TerminalGone(EOFError):
    """The end of the input because the terminal was closed (a window shut, an SSH session
    hung up): the person did not choose to quit, the program was interrupted (as the hang-up
    signal that comes with it says)."""


def _hung_up_write(write: Callable[[str], None]) -> Callable[[str], None]:
    """``write``, saying nothing once the terminal is gone (nobody is there to read it)."""

    def written(text: str) -> None:
        try:
            write(text)
        except OSError as e:
            if e.errno not in HUNG_UP:
                raise

    return written


def _hung_up_read(read: Callable[[str], str]) -> Callable[[str], str]:
    """``read``, whose gone terminal is the end of input (:class:`TerminalGone`, an
    ``EOFError``), as a closed pipe is."""

    def answer(prompt: str) -> str:
        try:
            return read(prompt)
        except OSError as e:
            if e.errno in HUNG_UP:
                raise TerminalGone from e
            raise

    return answer


def fold_prompt(question: str) -> str:
    """``question`` as a prompt, ``" > "`` after it: folded at spaces to the terminal's width
    so that its last line and the answer typed after it fit (a terminal that wraps a line
    itself cuts words in two)."""
    return f"{wrap(question, layout_width() - 3)} > "


@dataclass(slots=True)
class Console:
    """Line-based terminal I/O in one language, where help/score/quit always work.

    ``read`` is ``input``-like (raises EOFError at the end of input); ``echo``
    repeats what was read when the input is not a terminal, so a transcript of
    piped input reads like a session. Both go through the :class:`StatusLine`
    (``status``), which keeps the waiting line out of the way of everything else.
    """

    tr: Translator
    style: Style
    read: Callable[[str], str] = input
    write: Callable[[str], None] = print
    echo: bool = False
    score_text: Callable[[], str] | None = None
    help_text: Callable[[], str] | None = None
    """What ``help`` shows: the rules of the game being played (Nines' help by default)."""
    live: Callable[[str], None] | None = _detect
    """Writes to the terminal without a line break, for the status line; None when the
    output is not a terminal. By default: found out from ``write`` and standard output."""
    encoding: str | None = DETECT
    """What the output can print: every text is written in it, falling back to ASCII for
    what it lacks (``9♠`` as ``9S``, ``é`` as ``e``) rather than failing; None: anything.
    By default (:data:`DETECT`): standard output's, when ``write`` prints there."""
    prompt_note: Callable[[], str] | None = None
    """Said before each prompt while set (the time left on the table's clock)."""
    quit_question: str | None = None
    """The key of a question asked before ``quit`` is obeyed (:meth:`confirm_quit`);
    None: quit at once (a networked seat asks its own question, see ``HumanDecider``)."""
    leave_check: Callable[[], bool] | None = None
    """While set, what ``quit`` and the end of the input (Ctrl-D) at :meth:`ask` ask instead of
    :attr:`quit_question`: True leaves, False answers the same prompt again (a networked seat's
    question, asked in the middle of a move: after a 9, the suit is asked again, not the move)."""
    status: StatusLine = field(init=False, repr=False, compare=False)
    _read_typed: Callable[[str], str] | None = field(init=False, default=None, repr=False, compare=False)
    _one: OneReader | None = field(init=False, default=None, repr=False, compare=False)
    _keyboard: Keyboard | None = field(init=False, default=None, repr=False, compare=False)
    _narrow_told: bool = field(init=False, default=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        # A person at this terminal, perhaps: one read of it at a time (ui.keyboard).
        one = OneReader(self.read, show_prompt) if self.read is input else None
        if one is not None:
            self.read = self._one = one
        if self.live is _detect:
            self.live = terminal_writer(self.write)
        if self.encoding == DETECT:
            self.encoding = output_encoding(self.write)
        # A terminal that was closed (a window shut, an SSH session hung up) fails every
        # write and read: the person is gone, which reads as the end of their input (a
        # networked seat then signs that it leaves), never as a crash that tells nobody.
        self.write, self.read = _hung_up_write(self.write), _hung_up_read(self.read)
        if self.live is not None:
            self.live = _hung_up_write(self.live)
        if self.encoding is not None:
            self._fit_encoding(self.encoding)
        self.write = self._folded_when_narrow(self.write)
        self.status = StatusLine(self.write, self.live, ansi=os.environ.get("TERM", "") != "dumb")
        self.status.prompt_again = self._again
        self.write = self.status.wrap_write(self.write)
        self.read = self.status.wrap_read(self.read)
        if one is not None:  # what is typed before a prompt is not its answer (ui.keyboard)
            keyboard = Keyboard(
                self.read,
                lambda: self.say(self.tr("typed_ahead")),
                busy=one.busy,
                lost=one.line_lost,
                told_lost=lambda: self.say(self.tr("typed_withdrawn")),
                told_partial=lambda text: self.say(self.tr("typed_partial", text=clean(text, ECHO_LIMIT))),
            )
            self._read_typed, self._keyboard = self.read, keyboard
            self.read = keyboard.read

    def _folded_when_narrow(self, write: Callable[[str], None]) -> Callable[[str], None]:
        """``write``, folding what it writes at spaces while the terminal is narrower than the
        layout (:func:`~p2pcards.ui.render.fold_narrow`), so that the terminal never cuts a
        word or a card in two; the first output of each such time says once that the window is
        narrow (a window widened again, then narrowed, says it again)."""

        def written(text: str) -> None:
            width = narrow_columns()
            if width is None:
                self._narrow_told = False
                write(text)
                return
            if not self._narrow_told:
                self._narrow_told = True
                write(fold_narrow(self.tr("narrow_window", columns=width, least=MIN_WIDTH), width))
            write(fold_narrow(text, width))

        return written

    def _fit_encoding(self, encoding: str) -> None:
        """Route every write, status line and prompt through :func:`encodable` for ``encoding``."""
        write, live, read = self.write, self.live, self.read
        self.write = lambda text: write(encodable(text, encoding))
        if live is not None:
            self.live = lambda text: live(encodable(text, encoding))
        self.read = lambda prompt: read(encodable(prompt, encoding))

    def say(self, text: str) -> None:
        self.write(wrap(text))

    def ask(self, prompt: str, answers: frozenset[str] = frozenset()) -> str:
        """One answer that is not a command; ``help`` and ``score`` are served in place.
        ``answers``: words that answer this question even where they are commands elsewhere."""
        while True:
            try:
                line = self.read(self._prompt_text(prompt))
            except TerminalGone:  # (nobody reads what would be said): interrupted, not a quit
                raise Interrupted from None
            except EOFError:
                self.write("")  # end the prompt's line
                if self.leave_check is not None and not self.leave_check():
                    continue
                raise QuitGame from None
            except KeyboardInterrupt:
                self.write("")
                raise Interrupted from None
            if self.echo:  # (as a message quotes it, longer: never an escape to the terminal)
                self.write(clean(line, ECHO_LIMIT))
            text = as_typed(line)
            cmd = None if text.lower() in answers else COMMAND_WORDS.get(text.lower())
            if cmd == "quit":
                if self.confirm_quit():
                    raise QuitGame
                continue
            if self.serve(cmd):
                continue
            return text

    def serve(self, cmd: str | None) -> bool:
        """Show what the command ``cmd`` (``help``, ``score``) asks for; False for any other."""
        if cmd == "help":  # (said: folded to the terminal's width)
            self.say(self.help_text() if self.help_text else self.tr("help_keys"))
        elif cmd == "score":
            self.say(self.score_text() if self.score_text else self.tr("row_total"))
        else:
            return False
        return True

    def withdraw_prompt(self) -> None:
        """The read in progress answers nobody any more (the turn it asked about is over): its
        prompt is not shown again, and keys typed meanwhile are not shown where the status
        line is drawn."""
        self.status.abandon()
        if self._keyboard is not None:
            self._keyboard.withdraw()

    @property
    def typed_fd(self) -> int | None:
        """The terminal a person types at, where lines typed between questions can be taken
        (:meth:`typed_line`); None when the input is no terminal (a pipe, a test)."""
        return self._keyboard.fd if self._keyboard is not None else None

    def drop_typed(self) -> None:
        """Throw away what the person typed before anything could answer it (in the lobby): it
        is not the answer of whatever asks first. They are told, if a whole line went."""
        if self._keyboard is not None and self._keyboard.drop():
            self.say(self.tr("typed_before_table"))

    def read_in_progress(self) -> bool:
        """A read of the terminal is in progress (one whose question was withdrawn, say):
        the next line typed is its."""
        return self._one is not None and self._one.busy()

    def typed_line(self) -> str:
        """A line the person typed at :attr:`typed_fd` while no question stood, read as it is:
        a caller that saw it waiting takes it, where a prompt would throw it away as typed
        before it appeared. ``EOFError`` at the end of the input."""
        if self._read_typed is None:
            raise EOFError
        return self._read_typed("")

    def confirm_quit(self) -> bool:
        """Whether the player really quits: asked ``quit_question`` (if any), yes, quit
        again or the end of the input quits; anything else goes back to the prompt."""
        if self.leave_check is not None:
            return self.leave_check()
        if self.quit_question is None:
            return True
        try:
            # (folded so that its last line and the answer typed after it fit, too)
            line = self.read(fold_prompt(self.tr(self.quit_question)))
        except (EOFError, KeyboardInterrupt):
            self.write("")  # end the question's line
            return True
        if self.echo:
            self.write(clean(line, ECHO_LIMIT))
        if COMMAND_WORDS.get(as_typed(line).lower()) in ("yes", "quit"):
            return True
        self.say(self.tr("net_stay"))
        return False

    def _again(self, shown: str) -> str:
        """``shown`` with the time left brought up to date (a prompt shown again)."""
        if self.prompt_note is None or " · " not in shown:
            return shown
        return f"{self.prompt_note()} · {shown.split(' · ', 1)[1]}"

    def _prompt_text(self, prompt: str) -> str:
        note = self.prompt_note() if self.prompt_note is not None else ""
        return fold_prompt(f"{note} · {prompt}" if note else prompt)

    def ask_suit(self, prompt: str | None = None) -> str:
        """A suit by number (1-4 as listed), letter, symbol or name (any of the three languages)."""
        plain = Style(unicode=self.style.unicode)  # no colour codes inside an input() prompt
        choices = "  ".join(f"{k} {plain.suit(s)}" for k, s in enumerate(SUITS, 1))
        if prompt:
            self.say(prompt)
        local = LOCAL_SUIT_LETTERS.get(self.tr.lang, {})
        while True:
            text = self.ask(self.tr("prompt_suit", choices=choices), answers=frozenset(local))
            if text in ("1", "2", "3", "4"):
                return SUITS[int(text) - 1]
            if text.lower() in local:
                return local[text.lower()]
            if text.lower() == "c" and self.tr.lang in C_IS_HEARTS:
                self.say(self.tr("err_c_suit"))
                continue
            if not text:  # (Enter alone: no "'' is not a suit")
                self.say(self.tr("err_no_suit"))
                continue
            try:
                return parse_suit_word(text)
            except CardParseError:
                self.say(self.tr("err_not_suit", text=typed(text)))


# ---------------------------------------------------------------------------
# The menu of legal moves


# ---------------------------------------------------------------------------
# Parsing one answer


# ---------------------------------------------------------------------------
# The human seat


A = TypeVar("A")


@dataclass(frozen=True, slots=True, kw_only=True)
class Attempt(Generic[A]):
    """Something the player may not do now: the engine will say which rule forbids it.

    ``A`` is the game's action."""

    action: A


@dataclass(frozen=True, slots=True, kw_only=True)
class Problem:
    """Input that is not a move at all; ``message`` is the hint to show."""

    message: str
