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

import os
import random
import shutil
import sys
import threading
import time
from collections.abc import Callable, Hashable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Literal

import click

from p2pcards.cards import SUITS, Card, hand_sort_key, parse_card
from p2pcards.errors import CardParseError, IllegalAction
from p2pcards.games.nines import (
    AcceptSkip,
    Action,
    Declare,
    Draw,
    Keep,
    Pass,
    Phase,
    Play,
    PlayNines,
    SeatView,
)
from p2pcards.ui.i18n import COMMAND_WORDS, Translator, parse_suit_word
from p2pcards.ui.keyboard import Keyboard
from p2pcards.ui.render import (
    Style,
    TableContext,
    describe_moves,
    encodable,
    line_width,
    nines_help,
    render_options,
    render_table,
    visible_len,
    wrap,
)


class QuitGame(Exception):
    """The player typed quit, or the input ended: leave the game cleanly."""

    interrupted = False
    """Ctrl-C at the prompt: the program then exits with status 130, as one interrupted."""


class Interrupted(QuitGame):
    """Ctrl-C at a prompt: the game ends as after quit, and the program's status says so."""

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
                self.live("\r\x1b[K" + shown)
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
            self.live("\r\x1b[K")
        else:
            self.live("\r" + " " * visible_len(self._drawn) + "\r")
        self._drawn = None

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
    return max(20, shutil.get_terminal_size((80, 24)).columns)


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
    return getattr(sys.stdout, "encoding", None) or "ascii"


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
    status: StatusLine = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        keyboard = self.read is input  # a person at this terminal, perhaps
        if self.live is _detect:
            self.live = terminal_writer(self.write)
        if self.encoding == DETECT:
            self.encoding = output_encoding(self.write)
        if self.encoding is not None:
            self._fit_encoding(self.encoding)
        self.status = StatusLine(self.write, self.live, ansi=os.environ.get("TERM", "") != "dumb")
        self.status.prompt_again = self._again
        self.write = self.status.wrap_write(self.write)
        self.read = self.status.wrap_read(self.read)
        if keyboard:  # what is typed before a prompt is not its answer (ui.keyboard)
            self.read = Keyboard(self.read, lambda: self.say(self.tr("typed_ahead"))).read

    def _fit_encoding(self, encoding: str) -> None:
        """Route every write, status line and prompt through :func:`encodable` for ``encoding``."""
        write, live, read = self.write, self.live, self.read
        self.write = lambda text: write(encodable(text, encoding))
        if live is not None:
            self.live = lambda text: live(encodable(text, encoding))
        self.read = lambda prompt: read(encodable(prompt, encoding))

    def say(self, text: str) -> None:
        self.write(wrap(text))

    def ask(self, prompt: str) -> str:
        """One answer that is not a command; ``help`` and ``score`` are served in place."""
        while True:
            try:
                line = self.read(self._prompt_text(prompt))
            except EOFError:
                self.write("")  # end the prompt's line
                raise QuitGame from None
            except KeyboardInterrupt:
                self.write("")
                raise Interrupted from None
            if self.echo:
                self.write(line)
            text = line.strip()
            cmd = COMMAND_WORDS.get(text.lower())
            if cmd == "quit":
                if self.confirm_quit():
                    raise QuitGame
                continue
            if cmd == "help":  # (said: folded to the terminal's width)
                self.say(self.help_text() if self.help_text else nines_help(None, self.tr))
                continue
            if cmd == "score":
                self.say(self.score_text() if self.score_text else self.tr("row_total"))
                continue
            return text

    def confirm_quit(self) -> bool:
        """Whether the player really quits: asked ``quit_question`` (if any), yes, quit
        again or the end of the input quits; anything else goes back to the prompt."""
        if self.quit_question is None:
            return True
        try:
            # (folded so that its last line and the answer typed after it fit, too)
            line = self.read(f"{wrap(self.tr(self.quit_question), line_width() - 3)} > ")
        except (EOFError, KeyboardInterrupt):
            self.write("")  # end the question's line
            return True
        if self.echo:
            self.write(line)
        if COMMAND_WORDS.get(line.strip().lower()) in ("yes", "quit"):
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
        return f"{note} · {prompt} > " if note else f"{prompt} > "

    def ask_suit(self, prompt: str | None = None) -> str:
        """A suit by number (1-4 as listed), letter, symbol or name (any of the three languages)."""
        plain = Style(unicode=self.style.unicode)  # no colour codes inside an input() prompt
        choices = "  ".join(f"{k} {plain.suit(s)}" for k, s in enumerate(SUITS, 1))
        if prompt:
            self.write(prompt)
        while True:
            text = self.ask(self.tr("prompt_suit", choices=choices))
            if text in ("1", "2", "3", "4"):
                return SUITS[int(text) - 1]
            try:
                return parse_suit_word(text)
            except CardParseError:
                self.write(self.tr("err_not_suit", text=text or "''"))


# ---------------------------------------------------------------------------
# The menu of legal moves

OptionKind = Literal["play", "nine", "double", "draw", "pass", "keep", "accept-skip"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Option:
    """One numbered choice; a 9 is one choice whose suit is asked next."""

    kind: OptionKind
    actions: tuple[Action, ...]
    cards: tuple[Card, ...] = ()

    def with_suit(self, suit: str | None) -> Action | None:
        """The action for ``suit`` (None if this choice still needs a suit)."""
        if self.kind not in ("nine", "double"):
            return self.actions[0]
        if suit is None:
            return None
        return next(a for a in self.actions if getattr(a, "suit", None) == suit)

    @property
    def needs_suit(self) -> bool:
        return self.kind in ("nine", "double")


def build_menu(legal: Sequence[Action]) -> list[Option]:
    """Group the legal actions: one choice per card (two copies of a card are one choice)."""
    groups: dict[tuple[str, ...], list[Action]] = {}
    kinds: dict[tuple[str, ...], OptionKind] = {}
    cards: dict[tuple[str, ...], tuple[Card, ...]] = {}
    for a in legal:
        if isinstance(a, Play):
            key: tuple[str, ...] = ("play", a.card.text())
            if key in kinds and groups[key] and getattr(groups[key][0], "card", None) != a.card:
                continue  # the other copy of the same card (double deck)
            kinds[key] = "nine" if a.card.is_nine else "play"
            cards[key] = (a.card,)
        elif isinstance(a, PlayNines):
            key = ("double", *sorted(c.text() for c in a.cards))
            if key in kinds and set(groups[key][0].cards) != set(a.cards):  # type: ignore[union-attr]
                continue
            kinds[key], cards[key] = "double", tuple(a.cards)
        elif isinstance(a, Draw):
            key, kinds[key] = ("draw",), "draw"
        elif isinstance(a, Pass):
            key, kinds[key] = ("pass",), "pass"
        elif isinstance(a, Keep):
            key, kinds[key] = ("keep",), "keep"
        elif isinstance(a, AcceptSkip):
            key, kinds[key] = ("accept-skip",), "accept-skip"
        else:
            continue
        groups.setdefault(key, []).append(a)
    menu = [Option(kind=kinds[k], actions=tuple(v), cards=cards.get(k, ())) for k, v in groups.items()]
    # Single cards in the order of the hand display, then pairs of 9s, then draw / keep / pass.
    return sorted(menu, key=lambda o: (len(o.cards), *hand_sort_key(o.cards[0])) if o.cards else (3, 0, 0, 0))


def option_label(option: Option, tr: Translator, style: Style, *, drawn: bool = False) -> str:
    k = option.kind
    if k == "play":
        return tr("opt_play", card=style.card(option.cards[0])) if drawn else style.card(option.cards[0])
    if k == "nine":
        return tr("opt_nine", card=style.card(option.cards[0]))
    if k == "double":
        c1, c2 = (style.card(c) for c in option.cards)
        return tr("opt_double", c1=c1, c2=c2)
    return tr(
        {"draw": "opt_draw", "pass": "opt_pass", "keep": "opt_keep", "accept-skip": "opt_accept_skip"}[k]
    )


# ---------------------------------------------------------------------------
# Parsing one answer


@dataclass(frozen=True, slots=True, kw_only=True)
class Chosen:
    """A legal choice; ``suit`` was given on the same line (``9s h``) or is None."""

    option: Option
    suit: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Attempt:
    """Something the player may not do now: the engine will say which rule forbids it."""

    action: Action


@dataclass(frozen=True, slots=True, kw_only=True)
class Problem:
    """Input that is not a move at all; ``message`` is the hint to show."""

    message: str


Parsed = Chosen | Attempt | Problem


def parse_answer(
    text: str,
    options: Sequence[Option],
    *,
    seat: int,
    hand: Sequence[Card],
    tr: Translator,
    drawn: Card | None = None,
) -> Parsed:
    """Interpret one line: a number, a card (optionally with a suit), or draw/keep/pass."""
    words = text.replace(",", " ").split()
    n = len(options)
    if not words:
        if n == 1 and options[0].kind in ("draw", "pass", "keep", "accept-skip"):
            return Chosen(option=options[0])
        if n > 1:  # Enter alone, with moves to choose from: say what to type
            return Problem(message=tr("err_empty", n=n))
        return Problem(message=_hint(tr, "''", options))
    first = words[0]
    rest = words[1:]
    if first.isdigit():
        k = int(first)
        if not 1 <= k <= n:
            return Problem(
                message=tr("err_number", text=first, n=n) if n > 1 else tr("err_number_one", text=first)
            )
        return _with_suit(options[k - 1], rest, tr)
    cmd = COMMAND_WORDS.get(first.lower())
    if cmd in ("draw", "keep", "pass") and not rest:
        for o in options:
            if o.kind == cmd:
                return Chosen(option=o)
        made: Action = {"draw": Draw, "keep": Keep, "pass": Pass}[cmd](seat=seat)
        return Attempt(action=made)
    if cmd in ("yes", "no") and not rest:
        return Problem(message=tr("err_not_now", what=first, n=n))
    # Cards: "7h", "9s h", "9s 9h c" (two 9s), also "10 h" is not accepted: ranks stick to suits.
    cards: list[Card] = []
    while words and len(cards) < 2:
        try:
            cards.append(parse_card(words[0]))
        except CardParseError:
            break
        words = words[1:]
    if not cards:
        return Problem(message=_hint(tr, first, options))
    if len(words) > 1:
        return Problem(message=tr("err_not_suit", text=" ".join(words)))
    # The copy actually held, so that a refusal is about the rule, not about which copy.
    held: list[Card] = []
    for c in cards:
        h = _held(c, [x for x in hand if x not in held], drawn if drawn not in held else None)
        held.append(c if h is None else h)
    if len(cards) == 2:
        for o in options:
            if o.kind == "double" and sorted(c.text() for c in o.cards) == sorted(c.text() for c in cards):
                return _with_suit(o, words, tr)
        pair = (held[0], held[1])
        return Attempt(action=PlayNines(seat=seat, cards=pair, suit=_suit_or_default(words)))
    card = cards[0]
    for o in options:
        if o.kind in ("play", "nine") and o.cards[0].text() == card.text():
            return _with_suit(o, words, tr)
    target = held[0]
    return Attempt(
        action=Play(seat=seat, card=target, suit=_suit_or_default(words) if card.is_nine else None)
    )


def _held(card: Card, hand: Sequence[Card], drawn: Card | None) -> Card | None:
    """The copy of ``card`` the player holds (the drawn one first), if any."""
    if drawn is not None and drawn.text() == card.text():
        return drawn
    return next((c for c in hand if c.text() == card.text()), None)


def _suit_or_default(words: Sequence[str]) -> str:
    """A suit for an attempt the engine will refuse anyway (the suit is not the problem)."""
    try:
        return parse_suit_word(words[0]) if words else "S"
    except CardParseError:
        return "S"


def _with_suit(option: Option, rest: Sequence[str], tr: Translator) -> Parsed:
    if not rest:
        return Chosen(option=option)
    if len(rest) > 1:
        return Problem(message=tr("err_not_suit", text=" ".join(rest)))
    if not option.needs_suit:
        card = option.cards[0].text() if option.cards else rest[0]
        return Problem(message=tr("err_no_suit_needed", card=card))
    try:
        return Chosen(option=option, suit=parse_suit_word(rest[0]))
    except CardParseError:
        return Problem(message=tr("err_not_suit", text=rest[0]))


def _hint(tr: Translator, text: str, options: Sequence[Option]) -> str:
    example = next((o.cards[0].text() for o in options if o.cards), "7H")
    if len(options) == 1:
        key = "err_not_card_enter" if options[0].kind in ("draw", "pass") else "err_not_card_one"
        return tr(key, text=text, example=example)
    return tr("err_not_card", text=text, n=len(options), example=example)


def explain_refusal(
    error: IllegalAction,
    action: Action,
    view: SeatView,
    options: Sequence[Option],
    tr: Translator,
    style: Style,
) -> str:
    """The engine's verdict in the player's language, naming the rule."""
    card = getattr(action, "card", None)
    if isinstance(action, PlayNines):
        card = action.cards[0]
    values: dict[str, object] = {
        "card": style.card(card) if isinstance(card, Card) else "",
        "suit": style.suit(view.active_suit),
        "top": style.card(view.top),
    }
    key = f"rule_{error.rule}"
    if error.rule == "must-play":
        playable = next((o.cards[0] for o in options if o.cards), None)
        values["card"] = style.card(playable) if playable is not None else ""
        if isinstance(action, Pass):
            key = "rule_must-play-pass"
    elif error.rule == "play-drawn" and view.my_cards:
        values["card"] = style.card(view.my_cards[-1])
    elif error.rule == "phase" and isinstance(action, Keep):
        key = "rule_keep"
    why = tr(key, **values) if tr.has(key) else error.detail
    return tr("err_rule", why=why, rule=tr.rule_name(error.rule))


# ---------------------------------------------------------------------------
# The human seat


@dataclass(slots=True)
class HumanPlayer:
    """A seat played from the keyboard; same interface as a bot strategy.

    ``explain(action)`` returns the engine's :class:`IllegalAction` for an
    action, or None if it is legal; it is how a refusal names its rule.
    """

    console: Console
    table: TableContext
    explain: Callable[[Action], IllegalAction | None]
    name: str = "human"

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        return self._choose(view, legal)

    def _choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        tr, con = self.console.tr, self.console
        phase = view.phase
        if phase is Phase.DECLARE:
            self._show_table(view)
            return Declare(seat=view.seat, suit=con.ask_suit(tr("prompt_declare")))
        if phase is Phase.FORCED_DRAW:
            return legal[0]
        options = build_menu(legal)
        if phase is Phase.DRAWN:
            return self._after_draw(view, legal, options)
        self._show_table(view)
        heading = tr("your_turn")
        if phase is Phase.STACK:
            last = next((a for a in reversed(self.table.log) if isinstance(a, PlayNines)), None)
            who = self.table.names[last.seat] if last is not None else "?"
            heading = tr("your_turn_stack", who=who)
        if len(options) == 1 and options[0].kind in ("draw", "pass"):
            con.say(tr("prompt_draw" if options[0].kind == "draw" else "prompt_pass"))
        else:
            con.say("   " + heading)
            con.say(render_options([option_label(o, tr, con.style) for o in options]))
        return self._ask_move(view, options, prompt=tr("prompt"))

    def _ask_move(self, view: SeatView, options: Sequence[Option], *, prompt: str) -> Action:
        tr, con = self.console.tr, self.console
        while True:
            text = con.ask(prompt)
            parsed = parse_answer(text, options, seat=view.seat, hand=view.my_cards, tr=tr)
            if isinstance(parsed, Problem):
                con.say(parsed.message)
                continue
            if isinstance(parsed, Attempt):
                error = self.explain(parsed.action)
                if error is None:  # legal after all (cannot happen with a complete menu)
                    return parsed.action
                con.say(explain_refusal(error, parsed.action, view, options, tr, con.style))
                continue
            action = parsed.option.with_suit(parsed.suit)
            if action is None:
                action = parsed.option.with_suit(con.ask_suit())
            assert action is not None
            return action

    def _after_draw(self, view: SeatView, legal: Sequence[Action], options: list[Option]) -> Action:
        tr, con, style = self.console.tr, self.console, self.console.style
        drawn = view.my_cards[-1]
        card = style.card(drawn)
        kinds = [o.kind for o in options]
        if kinds in (["keep"], ["draw"], ["pass"]):  # no choice: the moves' log tells it, once
            return legal[0]
        if "keep" not in kinds and len(options) == 1:  # draw until playable: must play it
            con.say(tr("drew_must_play", card=card))
            action = options[0].with_suit(None) or options[0].with_suit(con.ask_suit())
            assert action is not None
            return action
        play = next(o for o in options if o.kind in ("play", "nine"))
        keep = next(o for o in options if o.kind == "keep")
        while True:
            text = con.ask(tr("prompt_drawn", card=card))
            word = COMMAND_WORDS.get(text.lower())
            if word == "yes" or text == "1":
                return play.with_suit(None) or play.with_suit(con.ask_suit())  # type: ignore[return-value]
            if word in ("no", "keep") or text == "2":
                return keep.actions[0]
            parsed = parse_answer(text, [play, keep], seat=view.seat, hand=view.my_cards, tr=tr, drawn=drawn)
            if isinstance(parsed, Chosen):
                action = parsed.option.with_suit(parsed.suit) or parsed.option.with_suit(con.ask_suit())
                assert action is not None
                return action
            if isinstance(parsed, Attempt):
                error = self.explain(parsed.action)
                if error is not None:
                    con.say(explain_refusal(error, parsed.action, view, options, tr, style))
                    continue
            con.say(tr("err_yes_no"))

    def _show_table(self, view: SeatView) -> None:
        t = self.table
        con = self.console
        moves = describe_moves(
            t.unseen(),
            names=t.names,
            me=view.seat,
            tr=con.tr,
            style=con.style,
            action_cards=t.action_cards,
            turn_over=True,  # it is this player's turn: a draw before it was kept
        )
        t.mark_seen()
        con.say("")
        con.say(
            render_table(
                view,
                names=t.names,
                dealer=t.dealer,
                hand_number=t.hand_number,
                playoff=t.playoff,
                moves=moves,
                tr=con.tr,
                style=con.style,
            )
        )
