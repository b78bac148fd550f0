"""The terminal side of a networked match: show one seat's table, ask its player.

:class:`TableWatcher` turns the progress of a seat's protocol table into the
calls of the game's :class:`~p2pcards.ui.screen.Screen` (cut, deal, moves, end
of hand, end of match), so the local demo, ``host`` and ``join`` show exactly
the same table view, for every game: the screen is picked by the game's name
in the table's join record (a joiner learns it from the host). The deciders
give a seat's moves: a bot strategy of that game, or the human at the keyboard
(asked in a worker thread so that the network keeps running while they think).
"""

from __future__ import annotations

import contextlib
import itertools
import math
import random
import time
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from p2pcards.bots import check_bot, make_bot
from p2pcards.errors import PeerUnreachable
from p2pcards.games.base import game as game_named
from p2pcards.net.node import NodeConfig, Outcome, host_game, join_game
from p2pcards.net.portmap import PortMapping
from p2pcards.net.session import WAIT_NOTICE, LobbyUI, Timeouts
from p2pcards.net.words import new_code
from p2pcards.protocol.notice import Notice
from p2pcards.safetext import clean
from p2pcards.ui.i18n import COMMAND_WORDS, Translator
from p2pcards.ui.keyboard import Question, Withdrawn
from p2pcards.ui.problems import leave_reason, problem_text
from p2pcards.ui.prompt import Console, Interrupted, QuitGame, TerminalGone, as_typed, fold_prompt, typed
from p2pcards.ui.render import NAME_LIMIT, fingerprint_line, fold_width, table_names, waiting_status

if TYPE_CHECKING:
    from p2pcards.net.runner import Decider
    from p2pcards.protocol.events import Event
    from p2pcards.protocol.fingerprint import TableFingerprint
    from p2pcards.protocol.sitting import SeatTable
    from p2pcards.ui.screen import Screen

# The match's parts - the runner, the table's events, the game's screen, the bots - load
# where they are used, once the match starts: a node shows its lobby without them.

TEXT_LIMIT = 400
"""Longest notice shown from the network (a peer's reason for stopping is at most 300 characters)."""


STATUS_TICK = 0.5
"""Seconds between two redraws of a terminal's status line (its clock counts down)."""

CLOCK_SHOWN = 3600.0
"""Longer clocks (a person alone with bots has a day) are not counted down: nobody is hurried."""

SLOW_STEP = WAIT_NOTICE
"""Seconds after which the clock of a step that is not a decision (a shuffle, keys) is shown too:
when the runner says whom the table waits for."""

STEP_WAITS = {
    "shuffle": "shuffle",
    "lock": "shuffle",
    "relock": "keys",
    "deal": "keys",
    "draw-keys": "keys",
    "open-keys": "keys",
    "unlock": "keys",
}
"""What a player waits for at each kind of step (see :data:`~p2pcards.ui.render.STATUS_WAITS`);
a decision is ``turn``, any other step ``step``."""


@dataclass(slots=True)
class TableWatcher:
    """Feeds a game's screen from the events of one seat's table (``TableCore.next_event``),
    and keeps its status line saying what the table waits for.

    The status line counts down the table's clock (``clock``, a ``Timeouts``) for
    the seat or seats awaited: on a terminal it is redrawn in place as the table
    moves and every :data:`STATUS_TICK` seconds; elsewhere a waiting line is
    printed only when a wait lasts (:meth:`waiting`, the runner's ``on_wait``).
    """

    screen: Screen
    hands_ended: int = 0
    on_hand_end: Callable[[], None] = field(default=lambda: None)
    """Called when a hand ends and the match goes on."""
    hold_after_hand: bool = False
    """For a player: after a hand's scores, hold what follows until :meth:`release`."""
    table: SeatTable | None = None
    """The table last seen (for the score table on demand)."""
    clock: Any = None
    """The table's clock (``Timeouts``: ``turn`` and ``step`` seconds), once known."""
    now: Callable[[], float] = time.monotonic
    on_continued: Callable[[Any], Screen | None] = field(default=lambda table: None)
    """The match went on at a new table without a seat that left: the screen for it
    (its seats are renumbered), or None to keep this one."""
    away: dict[bytes, float] = field(default_factory=dict)
    """The players whose link broke, by key: when their time to come back ends (by ``now``)."""
    on_match_over: Callable[[], None] = field(default=lambda: None)
    """Called when the match is over, before its end is shown: a question asked aside (the
    pause after a hand, the digits) answers nobody any more, and is not shown again."""
    _held: list[Callable[[], None]] | None = None
    _step: int = -1
    _since: float = 0.0
    """When the step in progress began (by ``now``)."""
    _ticking: bool = False
    _catching_up: bool = False

    def __post_init__(self) -> None:
        self.screen.follow_live()

    def catch_up(self, table: SeatTable) -> None:
        """Show what a resumed seat's journal holds: those hands ended before this program
        started, so nobody is asked to press Enter after them, and nothing is held back."""
        self._catching_up = True
        try:
            self(table)
        finally:
            self._catching_up = False

    def hold(self) -> None:
        """Hold what the table shows until :meth:`release` (while the player answers)."""
        if self._held is None:
            self._held = []

    def release(self) -> None:
        """Show what was held back since the end of the last hand."""
        held, self._held = self._held or [], None
        for show in held:
            show()

    def drop_held(self) -> None:
        """Forget what was held back (the player left: a hand dealt since is not theirs)."""
        self._held = None

    def _show(self, show: Callable[[], None]) -> None:
        if self._held is not None:
            self._held.append(show)
        else:
            show()

    def __call__(self, table: SeatTable) -> None:
        self.table = table
        while (event := table.next_event()) is not None:
            self._event(event)
        self._status(table)

    def waiting(self, table: SeatTable, waited: float) -> None:
        """The runner's ``on_wait``: the table has waited ``waited`` seconds for this step."""
        self.table = table
        now = self.now()
        self._follow_step(table, now)
        self._since = now - waited  # the runner's own count of this step
        text = self._status(table)
        if text is not None:
            self.screen.console.status.note(text, key=(table.step, tuple(table.waiting_for)), now=now)

    def status_text(self, table: SeatTable) -> str | None:
        """What the table waits for, in words, with the time left on its clock; None
        when it waits for nobody else (this seat decides, or the match is over)."""
        table = getattr(table, "current", table)  # a Sitting: its current table's seats
        if table.status != "running" or table.my_turn:
            return None
        names = self.screen.names
        waited_for = [s for s in table.waiting_for if s != table.seat and s < len(names)]
        if not waited_for:
            return None
        console = self.screen.console
        back_by: dict[int, float] = {}
        if self.away:  # (the roster is read only while someone is away)
            back_by = {s: self.away[k] for s in waited_for if (k := table.roster[s].key) in self.away}
        if back_by:  # the wait is for a player whose connection broke: say so, and their time
            back_in = max(0.0, min(back_by.values()) - self.now())
            away = [names[s] for s in back_by]
            return waiting_status("reconnect", away, back_in, tr=console.tr, style=console.style)
        who = [names[s] for s in waited_for]
        kind = table.spec.kind
        decision = kind in table.DECISIONS
        waited = self.now() - self._since
        left = None
        if self.clock is not None:
            limit = float(self.clock.turn if decision else self.clock.step)
            if limit <= CLOCK_SHOWN and (decision or waited >= SLOW_STEP):
                left = limit - waited
        what = "turn" if decision else STEP_WAITS.get(kind, "step")
        return waiting_status(what, who, left, tr=console.tr, style=console.style)

    def refresh(self) -> None:
        """Say again what the table waits for (who is away changed)."""
        if self.table is not None:
            self._status(self.table)

    def _follow_step(self, table: SeatTable, now: float) -> None:
        if table.step != self._step:
            self._step, self._since = table.step, now

    def _status(self, table: SeatTable) -> str | None:
        self._follow_step(table, self.now())
        text = self.status_text(table)
        current = getattr(table, "current", table)  # a Sitting: its current table
        if self._held is None and (text is not None or getattr(current, "my_turn", False)):
            # What is pending shows before the wait does, or before this seat's turn
            # draws the table (else the last moves would land inside its box).
            self.screen.settle()
        status = self.screen.console.status
        status.show(text)
        if text is not None and status.terminal and not self._ticking:
            with contextlib.suppress(RuntimeError):  # outside trio: redrawn at each call only
                trio.lowlevel.spawn_system_task(self._tick)
                self._ticking = True
        return text

    async def _tick(self) -> None:
        """Redraw the status line as its clock runs; erase it when trio stops (the match
        ended, or Ctrl-C), before anything else is said."""
        try:
            while True:
                await trio.sleep(STATUS_TICK)
                if self.table is not None:
                    self._status(self.table)
        finally:
            self.screen.console.status.clear()
            self._ticking = False

    def _event(self, event: Event) -> None:
        from p2pcards.protocol.events import Continued, CutDone, HandEnded, HandStarted, MatchOver, Moved

        screen = self.screen
        if isinstance(event, CutDone):
            screen.cut(event.rounds, event.dealer)
        elif isinstance(event, HandStarted):
            self._show(lambda e=event: screen.hand_start(e))  # type: ignore[misc]
        elif isinstance(event, Moved):
            self._show(lambda a=event.action: screen.move(a))  # type: ignore[misc]
        elif isinstance(event, HandEnded):
            self.release()
            screen.hand_end(event.hand, event.result, event.match)
            self.hands_ended += 1
            if not event.match.over and not self._catching_up:
                self.on_hand_end()
                if self.hold_after_hand:
                    self._held = []
        elif isinstance(event, MatchOver):
            self.on_match_over()
            self.release()
            screen.match_end(event.match)
        elif isinstance(event, Continued):
            playing_on = len(event.totals) >= _fewest(self.table)
            if not playing_on:
                self.on_match_over()
            if self._held is not None:  # held while the player read: the hand made void, never shown
                self._held = [] if playing_on else None  # (the next deal waits for their answer)
            new = self.on_continued(self.table)
            if new is not None:
                self.screen = new
                new.follow_live()
            console = self.screen.console
            scores = ", ".join(f"{n} {t}" for n, t in zip(self.screen.names, event.totals, strict=False))
            match = getattr(getattr(self.table, "current", self.table), "match", None)
            who = {
                "name": console.tr.join([clean(n, NAME_LIMIT) for n in event.names]),
                "reason": leave_reason(console.tr, clean(event.reason, TEXT_LIMIT)),
            }
            if not playing_on and match is not None and not match.winners:  # no hand was ever scored
                console.say(console.tr("net_continued_ends_none", **who))
            elif playing_on and event.hands == 0:  # no totals yet to say ("after 0 hands")
                console.say(console.tr("net_continued_none", **who))
            else:
                key = "net_continued" if playing_on else "net_continued_ends"
                console.say(console.tr.n(key, event.hands, hands=event.hands, scores=scores, **who))


def _leavers_totals(table: Any) -> list[tuple[str, int]]:
    """Who left the match at one of its tables, and the total each keeps (that of the last
    hand scored there: the hand it left was void)."""
    tables = getattr(table, "tables", [table])
    out: list[tuple[str, int]] = []
    for before, after in itertools.pairwise(tables):
        staying = {p.key for p in after.roster}
        match = before.match
        for s, player in enumerate(before.roster):
            if player.key not in staying and match is not None and s < len(match.totals):
                out.append((player.name, match.totals[s]))
    return out


def bot_decider(name: str, rng: random.Random) -> Decider:
    """A bot strategy deciding from the seat's view only, for whichever game the table plays.

    An unknown strategy is refused at once; the game's own strategy of that
    name is made at the first decision (a joiner learns the game from the host).
    """
    check_bot(name)
    bots: dict[str, Any] = {}

    async def decide(table: SeatTable) -> Any:
        bot = bots.get(table.GAME)
        if bot is None:
            bot = bots[table.GAME] = make_bot(name, table.GAME)
        view = table.view()
        assert view is not None
        prepare = getattr(bot, "prepare", None)
        if prepare is None:
            return bot.choose(view, table.legal_actions(), rng)
        # A bot that searches reads the view here, then thinks in a worker thread: the
        # network keeps running meanwhile (the turn clock, the other peers' records).
        think = prepare(view, table.legal_actions(), rng)
        return await trio.to_thread.run_sync(think, abandon_on_cancel=True)

    return decide


def _fewest(table: Any) -> int:
    """The fewest players with whom the match on ``table`` goes on (after a leave)."""
    from p2pcards.protocol.sitting import MIN_TO_CONTINUE

    name = getattr(table, "GAME", None)
    return max(MIN_TO_CONTINUE, game_named(name).min_players) if name is not None else MIN_TO_CONTINUE


def _ends_without_one(table: Any) -> bool:
    """Whether the match on ``table`` would end if one more seat left."""
    present = getattr(table, "present", None)  # (a Sitting: the seats still at the table)
    seats = len(present) if present is not None else getattr(table, "n", None)
    return seats is not None and seats - 1 < _fewest(table)


def _clock_text(seconds: float) -> str:
    """Seconds left as a clock shows them: 1:05, 0:09."""
    whole = max(0, math.ceil(seconds))
    return f"{whole // 60}:{whole % 60:02d}"


TURN_WARNINGS = (60, 10)
"""Seconds left on the table's clock at which a player deciding is warned."""

TYPED_POLL = 0.05
"""Seconds between two looks at a typed line that a question in progress is about to read."""


@dataclass(slots=True)
class HumanDecider:
    """The keyboard: asks in a worker thread, so that the network keeps running while the player thinks.

    When a hand ends the player is asked at once to press Enter for the next one,
    as in the offline game, while the table goes on (:meth:`hand_ended`); what
    the table shows meanwhile is held until then (``release``), and a decision
    waits for that answer first.
    """

    screen: Screen
    pause_pending: bool = False
    """Outside trio: ask for Enter at the next decision instead."""
    rng: random.Random = field(default_factory=random.Random)
    release: Callable[[], None] = field(default=lambda: None)
    """Shows what the display held back while the player read the scores."""
    confirm_quit: bool = False
    """Ask before leaving: at a table of people, leaving ends the match for everyone."""
    turn_time: Callable[[], float | None] = field(default=lambda: None)
    """Seconds a turn may take on the table's clock (None: no warning)."""
    leaving: bool = False
    """The player chose to leave between hands: done at their next decision."""
    ends_if_leaving: bool = False
    """Too few players would remain without this one to play on (as of the last decision)."""
    fingerprint_same: bool | None = None
    """The player's answer on the table fingerprint: the same digits for everyone (True),
    not (False), or not compared (None); signed into the transcript (``confirm``)."""
    table: Callable[[], Any] = field(default=lambda: None)
    """The table last seen (None before): whether the match would end without this seat."""
    on_leave: Callable[[], None] = field(default=lambda: None)
    """Called once the player chose to leave while it is not their turn (the runner looks then)."""
    _paused: trio.Event | None = None
    """Set once the player pressed Enter after the last hand (None: not asked)."""
    _problem: BaseException | None = None
    _deciding: bool = False
    """A decision of this seat's is being asked (its prompt takes what is typed)."""
    _typed_aside: bool = False
    """The question aside in progress is a line typed while nothing was asked (:meth:`watch_typing`)."""
    _watching: trio.CancelScope | None = None
    _typed_question: Question | None = None
    _terminal_gone: bool = False
    """The terminal was closed: what would have been read is no person's choice (no quit)."""

    def hand_ended(self) -> None:
        """A hand ended and the match goes on: ask for Enter now, in a worker thread."""
        if self._paused is not None and not self._paused.is_set():
            if self._typed_aside:  # a line typed meanwhile is being answered: asked after it
                self.pause_pending = True
            return  # still asked about the hand before
        if not self._ask_aside(self._pause_prompt, self._paused_answer):  # not inside trio
            self.pause_pending = True

    def watch_typing(self) -> None:
        """Answer what the person types while nothing is asked (others play, the table
        shuffles): ``quit`` (asked first), ``help`` and ``score`` work then too, and a line
        that would be a move is told that it is not their turn, where it would otherwise
        be thrown away unseen at their next prompt. Only at a terminal, inside trio."""
        fd = self.screen.console.typed_fd
        if fd is None or self._watching is not None:
            return
        self.screen.console.drop_typed()  # (typed in the lobby: for nothing asked here)
        scope = trio.CancelScope()
        try:
            trio.lowlevel.spawn_system_task(self._watch, fd, scope)
        except RuntimeError:  # outside trio: typed lines wait for the next prompt, as before
            return
        self._watching = scope

    def match_over(self) -> None:
        """The match is over: what is typed now is for whatever asks next, and a question
        still asked aside (leave? the digits?) answers nobody: its prompt is not shown again."""
        if self._watching is not None:
            self._watching.cancel()
        if self._typed_question is not None:
            self._typed_question.withdrawn = True
        if self._paused is not None and not self._paused.is_set():
            self.screen.console.withdraw_prompt()

    async def _watch(self, fd: int, scope: trio.CancelScope) -> None:
        with scope:
            while True:
                try:
                    await trio.lowlevel.wait_readable(fd)  # a whole line (or the end of input)
                except (OSError, ValueError, trio.BusyResourceError):
                    return  # (no such terminal any more: a gone terminal is the signals' to handle)
                console = self.screen.console
                asked = self._deciding or (self._paused is not None and not self._paused.is_set())
                if asked or console.read_in_progress():  # whatever reads now takes the line
                    await trio.sleep(TYPED_POLL)
                    continue
                self._typed_aside = True
                self._ask_aside(self._typed, self._typed_answer)
                assert self._paused is not None
                await self._paused.wait()
                self._typed_aside = False
                if self._terminal_gone:
                    return  # (nothing more will be typed: the hang-up signal makes the seat leave)
                if self.pause_pending and not self.leaving:  # a hand ended while the line was answered
                    self.pause_pending = False
                    self.hand_ended()
                if self.leaving:
                    return  # (the runner signs the leave: nothing typed counts any more)

    def _typed(self) -> bool:
        """A line typed while nothing was asked: True if the player confirmed that they
        leave (``quit``, or the end of the input, as at a prompt: asked first)."""
        console = self.screen.console
        with (question := Question()):  # withdrawn when the match ends (match_over)
            self._typed_question = question
            try:
                line: str | None = console.typed_line()
            except TerminalGone:  # no choice of the person's: the hang-up signal that came with it leaves
                self._terminal_gone = True
                return False
            except (EOFError, KeyboardInterrupt):  # Ctrl-D: as at a prompt, asked whether they leave
                line = None
            except Withdrawn:
                return False
            text = "" if line is None else as_typed(line)
            cmd = "quit" if line is None else COMMAND_WORDS.get(text.lower())
            if cmd == "quit":
                table = self.table()
                if table is not None:
                    self.ends_if_leaving = _ends_without_one(table)
                try:
                    return not self.confirm_quit or self._really_leave()
                except Withdrawn:  # the match ended while they were asked: they leave nothing
                    return False
            if not console.serve(cmd) and text:
                console.say(console.tr("typed_not_your_turn", typed=typed(text)))
            return False

    def _typed_answer(self, leaving: bool) -> None:
        if leaving:
            self._leave_chosen()

    def _ask_aside(self, ask: Callable[[], Any], answered: Callable[[Any], None]) -> bool:
        """Ask in a worker thread while the table goes on; the next decision waits for the
        answer (``_paused``), and a failure is raised there rather than lost. False
        outside trio (nothing asked)."""

        previous = self._paused if self._paused is not None and not self._paused.is_set() else None

        async def run(asked: trio.Event) -> None:
            if previous is not None:  # one question at a time: one answer never answers two
                await previous.wait()
            try:
                answer = await trio.to_thread.run_sync(ask, abandon_on_cancel=True)
            except Exception as e:
                self._problem = e
            else:
                answered(answer)
            asked.set()

        try:
            asked = trio.Event()
            trio.lowlevel.spawn_system_task(run, asked)
        except RuntimeError:
            return False
        self._paused = asked
        return True

    def _pause_prompt(self) -> bool:
        """Wait for Enter; True if the player chose to leave instead."""
        console = self.screen.console
        while True:
            try:
                console.ask(console.tr("prompt_continue"))
                return False
            except QuitGame as e:
                if e.interrupted:  # the terminal is gone: no quit of theirs (the hang-up signal leaves)
                    self._terminal_gone = True
                    return False
                if not self.confirm_quit or self._really_leave():
                    return True

    def _paused_answer(self, leaving: bool) -> None:
        if leaving:
            self._leave_chosen()
        else:
            self.release()

    def _leave_chosen(self) -> None:
        """The player chose to leave while it is not their turn: said, and the runner told."""
        self.leaving = True
        if self.confirm_quit:
            console = self.screen.console
            console.say(console.tr("net_leaving_ends" if self.ends_if_leaving else "net_leaving"))
        self.on_leave()

    def ask_fingerprint(self) -> None:
        """The fingerprint was shown: ask (in a worker thread) whether everyone reads the same
        digits, while the table goes on; the first decision waits for the answer."""
        self._ask_aside(self._fingerprint_prompt, self._fingerprint_answer)  # (outside trio: not asked)

    def _read_answer(self, question: str) -> str | None:
        """One line typed after ``question`` (a translation key), shown as typed; None if
        the input ended or was interrupted."""
        console = self.screen.console
        try:
            line = console.read(fold_prompt(console.tr(question)))
        except TerminalGone:
            self._terminal_gone = True
            return None
        except (EOFError, KeyboardInterrupt):
            console.write("")  # end the question's line
            return None
        if console.echo:
            console.write(line)
        return as_typed(line)

    def _fingerprint_prompt(self) -> bool | str | None:
        """True: the same digits; False: they differ (the seat leaves); None: not compared;
        ``"quit"``: the player leaves without saying (``quit``, or Ctrl-D, asked first, as at
        every prompt of a networked table; no asks the question again)."""
        console = self.screen.console
        while True:
            line = self._read_answer("fingerprint_ask")
            if line is None and self._terminal_gone:
                return None  # (no answer of theirs: the hang-up signal that came with it leaves)
            word = "quit" if line is None else COMMAND_WORDS.get(line.strip().lower())
            if word == "quit":
                table = self.table()
                if table is not None:
                    self.ends_if_leaving = _ends_without_one(table)
                if not self.confirm_quit or self._really_leave():
                    return "quit"
                continue  # (told they stay) the digits are asked again
            assert line is not None
            if word == "yes":
                return True
            if word == "no":  # it costs the player their seat: a slip of one key must not
                sure = self._read_answer("fingerprint_confirm")
                if sure is None or COMMAND_WORDS.get(sure.strip().lower()) in ("yes", "quit"):
                    return False
                continue  # asked again
            if not line.strip():
                return None
            console.say(console.tr("fingerprint_ask_again"))

    def _fingerprint_answer(self, answer: bool | str | None) -> None:
        console = self.screen.console
        if answer == "quit":  # leaving says nothing of the digits
            self._leave_chosen()
            return
        assert answer is None or isinstance(answer, bool)
        self.fingerprint_same = answer
        if answer is False:  # signed first, then this seat leaves (the runner does both)
            console.say(console.tr("fingerprint_differ"))
            self.leaving = True
            self.on_leave()  # what the table did meanwhile (a deal) is not shown: they left
            return
        if answer is None:
            console.say(console.tr("fingerprint_skipped"))
        self.release()

    def _really_leave(self) -> bool:
        """Ask once more; anything but yes keeps the player at the table."""
        console = self.screen.console
        line = self._read_answer("net_confirm_leave_ends" if self.ends_if_leaving else "net_confirm_leave")
        if line is None and self._terminal_gone:
            return False  # (no answer of theirs: the hang-up signal that came with it leaves, "interrupted")
        if line is None or COMMAND_WORDS.get(line.lower()) in ("yes", "quit"):  # (quit again: yes)
            return True
        console.say(console.tr("net_stay"))
        return False

    def _turn_ends(self) -> float | None:
        """When this turn's time ends on the table's clock (trio time), or None without
        one (the runner's ``TURN_ENDS``; else ``turn_time`` from now)."""
        from p2pcards.net.runner import TURN_ENDS

        ends = TURN_ENDS.get()
        if ends is not None:
            return ends
        total = self.turn_time()
        return None if total is None else trio.current_time() + total

    async def __call__(self, table: SeatTable) -> Any:
        from p2pcards.net.runner import QuitMatch
        from p2pcards.net.verdicts import INTERRUPTED
        from p2pcards.ui.screen import probe

        self.ends_if_leaving = _ends_without_one(table)
        view = table.view()
        assert view is not None
        legal = table.legal_actions()
        console = self.screen.console

        def explain(action: Any) -> object:
            hand = table.match.hand if table.match is not None else None
            return None if hand is None else probe(hand, action)

        question = Question()
        confirmed: list[bool] = []

        def leave_or_stay() -> bool:
            """``quit`` or Ctrl-D in the middle of the move (its suit, its drawn card): asked
            there, and a player who stays is asked that same question again."""
            if self._really_leave():
                confirmed.append(True)
                return True
            if self._terminal_gone:  # closed as they were asked: no prompt again on a terminal gone
                raise Interrupted
            return False

        def ask() -> Any:
            with question:  # (in the worker thread: withdrawn, its reads answer nobody)
                while True:
                    try:
                        if self.pause_pending:
                            console.ask(console.tr("prompt_continue"))
                            self.pause_pending = False
                            self.release()
                        console.leave_check = leave_or_stay if self.confirm_quit else None
                        try:
                            return self.screen.ask(view, legal, explain, self.rng)  # type: ignore[arg-type]
                        finally:
                            console.leave_check = None
                    except QuitGame as e:
                        if e.interrupted or self._terminal_gone:  # (a closed terminal): no question
                            raise QuitMatch(INTERRUPTED) from None
                        if confirmed or not self.confirm_quit or self._really_leave():
                            raise
                        if self._terminal_gone:  # closed as they were asked whether they leave
                            raise QuitMatch(INTERRUPTED) from None

        async def warn(end: float) -> None:
            for left in TURN_WARNINGS:
                if end - trio.current_time() > left + 5:  # not at the very start of a short turn
                    await trio.sleep_until(end - left)
                    console.say(console.tr("turn_warning", left=left))  # (the console ends a prompt's line)

        self._deciding = True
        try:
            return await self._decide(ask, warn, question)
        finally:
            self._deciding = False

    async def _decide(
        self, ask: Callable[[], Any], warn: Callable[[float], Awaitable[None]], question: Question
    ) -> Any:
        """Ask in a worker thread, with the turn's clock and its warnings (see ``__call__``)."""
        from p2pcards.net.runner import QuitMatch

        console = self.screen.console
        action: Any = None
        leaving = False
        why = "quit"
        async with trio.open_nursery() as nursery:  # (nothing is raised inside it: no group)
            end = self._turn_ends()
            if end is not None:
                nursery.start_soon(warn, end)
            if end is not None and end - trio.current_time() < 3600:  # (not where bots wait a day)
                clock = trio.lowlevel.current_clock()  # (read from the worker thread too)
                console.prompt_note = lambda: console.tr(
                    "prompt_time_left", left=_clock_text(end - clock.current_time())
                )
            if self._paused is not None and not self._paused.is_set():
                if self._typed_aside:  # asked something they typed: told that their turn came
                    console.say(console.tr("turn_answer_first"))
                await self._paused.wait()  # the player reads the scores first
            problem, self._problem = self._problem, None
            if self.leaving or problem is not None:
                leaving = True
            else:
                try:
                    action = await trio.to_thread.run_sync(ask, abandon_on_cancel=True)
                except QuitGame:
                    leaving = True
                except QuitMatch as e:  # the terminal closed as they were asked: signed "interrupted"
                    why = e.reason
                    leaving = True
                except trio.Cancelled:  # the turn's time ran out, or the turn went away
                    question.withdrawn = True  # (its thread waits on: what it reads is nobody's)
                    console.withdraw_prompt()
                    raise
                finally:
                    console.prompt_note = None
            nursery.cancel_scope.cancel()
        if problem is not None:
            raise problem
        if leaving:
            raise QuitMatch(why)
        return action


class QuietLobby(LobbyUI):
    """A bot node's lobby: nothing to show."""


class _SeatingLobby(QuietLobby):
    """The demo host's lobby: lets the joiners in one at a time, so seats follow ``names``."""

    def __init__(self, players: int) -> None:
        self.seated = [trio.Event() for _ in range(players + 1)]
        self.seated[0].set()
        self.seated[1].set()  # the host is seated as soon as it listens

    def lobby(self, names: Sequence[str], players: int) -> None:
        for k in range(len(names) + 1):
            self.seated[k].set()


async def play_on_loopback(
    *,
    rules: Any,
    names: Sequence[str],
    deciders: Sequence[Decider],
    on_progress: Callable[[SeatTable], None],
    on_wait: Callable[[SeatTable, float], None] = lambda t, w: None,
    entropies: Sequence[bytes | None] | None = None,
    transcript: Path | None = None,
    data_dir: Path | None = None,
    timeouts: Timeouts | None = None,
    game_id: bytes | None = None,
    game: str = "nines",
    bots: Collection[int] = (),
    leave_on_signals: bool = False,
) -> Outcome:
    """Seat 0 hosts a table of ``game`` on 127.0.0.1 and every other seat joins it as a separate node.

    Each node has its own identity, secrets, table and TCP links, exactly as
    across the internet; only seat 0's progress is shown. Returns seat 0's outcome.
    No seat keeps a journal: the match lives in this one process, and stops with it
    (no seat could be resumed without the others). ``leave_on_signals``: Ctrl-C, a
    closed terminal or SIGTERM makes seat 0 sign that it leaves, as a node of its own does.
    A :class:`TableWatcher` as ``on_progress`` also gets the table's clock and the
    waits, for its status line, which then says what ``on_wait`` would have said.
    ``bots`` are the seats a bot plays, said as ``--bot`` says it (a watched game's are all).
    """
    code = new_code()
    timeouts = timeouts or Timeouts()
    if isinstance(on_progress, TableWatcher):
        if on_progress.clock is None:
            on_progress.clock = timeouts
        on_wait = on_progress.waiting
    entropies = entropies or [None] * len(names)
    outcomes: dict[int, Outcome] = {}

    seating = _SeatingLobby(len(names))

    def config(seat: int) -> NodeConfig:
        return NodeConfig(
            name=names[seat],
            decide=deciders[seat],
            ui=seating if seat == 0 else QuietLobby(),
            timeouts=timeouts,
            transcript=transcript if seat == 0 else None,
            data_dir=data_dir,
            bind="127.0.0.1",
            on_progress=on_progress if seat == 0 else (lambda t: None),
            on_wait=on_wait if seat == 0 else (lambda t, w: None),
            entropy=entropies[seat],
            keep_transcript=seat == 0,
            journal=False,
            # The bots of this process are no players met: they are new every game, and a
            # friend named like one of them would be taken for them with a new key.
            known_players=False,
            leave_on_signals=leave_on_signals and seat == 0,
            bot=seat in bots,
        )

    async with trio.open_nursery() as nursery:

        async def host(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
            outcomes[0] = await host_game(
                config(0),
                players=len(names),
                rules=rules,
                code=code,
                game_id=game_id,
                game=game,
                task_status=task_status,
            )
            nursery.cancel_scope.cancel()  # seat 0 is done: stop any node still lingering

        port = await nursery.start(host)
        for seat in range(1, len(names)):

            async def join(seat: int = seat) -> None:
                await seating.seated[seat].wait()  # seat k joins once seats 0..k-1 are in
                with contextlib.suppress(PeerUnreachable):
                    outcomes[seat] = await join_game(config(seat), host="127.0.0.1", port=port, code=code)

            nursery.start_soon(join)
    return outcomes[0]


class NetworkUI(LobbyUI):
    """The terminal of a player (or bot owner) at ``host`` or ``join``.

    The table view appears once the roster is known; until then the lobby
    shows who has joined. The game's screen is chosen then, by the game the
    table plays. ``human`` is False for a bot seat: the moves are then printed
    as they happen, as in ``play --watch``.
    """

    def __init__(self, console: Console, *, human: bool, rules_intro: bool = True) -> None:
        self.console = console
        self.human = human
        self.watcher: TableWatcher | None = None
        self.decider: HumanDecider | None = None
        self.screen: Screen | None = None
        self._last_names: tuple[str, ...] = ()
        self.names: tuple[str, ...] = ()
        """The players' names as shown (cleaned, look-alikes told apart), once the roster is known."""
        self.clock: Any = None
        """The table's clock (``Timeouts``), once the session knows it."""
        self.away: dict[bytes, float] = {}
        """Players whose link broke, by key: when their time to come back ends (``time.monotonic``)."""
        self.on_invitation: Callable[[str, int, PortMapping | None], None] = lambda code, port, mapped: None
        """How the command prints the invitation (it knows the address to give out)."""
        self.leave_chosen = trio.Event()
        """Set once the player chose to leave while it is not their turn (the runner looks at once)."""

    def invitation(self, code: str, port: int, mapped: PortMapping | None = None) -> None:
        self.on_invitation(code, port, mapped)

    def lobby(self, names: Sequence[str], players: int) -> None:
        # The host sends these names: shown cleaned, like everything that comes from a peer.
        if tuple(names) != self._last_names:
            self._last_names = tuple(names)
            tr = self.console.tr
            shown = [clean(n, NAME_LIMIT) or "?" for n in names]
            self.console.say(tr("lobby", names=tr.join(shown), n=len(names), players=players))

    def info(self, text: str) -> None:
        # Lobby notices quote joiners' names and hosts' refusals: one clean line each.
        if isinstance(text, Notice):  # said in the player's language
            text = self.console.tr(text.key, **text.values)
        self.console.say(f"  {clean(text, TEXT_LIMIT)}")

    def warning(self, text: str) -> None:
        if isinstance(text, Notice):
            text = self.console.tr(text.key, **text.values)
        self.console.say(self.console.style.bold(f"!! {clean(text, 2 * TEXT_LIMIT)}"))

    def table_ready(self, fingerprint: TableFingerprint, table: SeatTable) -> None:
        """Show the table fingerprint, and ask the players to compare it (see README), unless
        this seat's answer is signed already (a seat back from a crash)."""
        if self.watcher is None:
            self._attach(table)
        tr, style = self.console.tr, self.console.style
        said = tr("fingerprint", fingerprint=fingerprint.text)
        self.console.say(style.bold(fingerprint_line(said, fingerprint.text, fold_width())))
        self.console.say("  " + tr("fingerprint_compare"))
        if self.decider is not None and not table.fingerprint_answered():  # a person: their answer is signed
            if self.watcher is not None:
                self.watcher.hold()  # the question stays on screen until it is answered
            self.decider.ask_fingerprint()

    def _screen_for(self, table: Any) -> Screen:
        """The game's screen for the table in play (a continued match's: its own seats)."""
        from p2pcards.ui.screen import make_screen

        current = getattr(table, "current", table)
        screen = make_screen(
            current.GAME,
            self.console,
            list(table_names(current.roster)),
            me=current.seat,
            rules=current.rules,
            watch=not self.human,
            pause_between_hands=False,
            match=lambda: table.match,
            verified=True,
        )
        self.screen = screen
        if self.decider is not None:
            self.decider.screen = screen
        return screen

    def _attach(self, table: SeatTable) -> None:
        # The events begin at the match's first table, whose seats they name, also when
        # this node resumes a match that went on at another table since (a Sitting).
        tables = getattr(table, "tables", [table])
        first = tables[0]
        resumed = len(tables) > 1 or first.step > 1
        names = list(table_names(first.roster))
        self.names = tuple(names)
        screen = self._screen_for(first)
        self.watcher = TableWatcher(screen, clock=self.clock, on_continued=self._screen_for, away=self.away)
        if self.human:
            watcher = self.watcher
            self.decider = HumanDecider(
                screen=screen,
                release=watcher.release,
                confirm_quit=True,
                turn_time=lambda: self.clock.turn if self.clock is not None else None,
                table=lambda: watcher.table,
                on_leave=self._left,
            )
            watcher.on_hand_end = self.decider.hand_ended
            watcher.on_match_over = self.decider.match_over
            watcher.hold_after_hand = True
            self.decider.watch_typing()
        if not resumed:  # (a resumed seat is linked again peer by peer, as it says)
            self.console.say(self.console.tr("linked", names=self.console.tr.join(names)))
        screen.intro(None)  # the host chose the rules: say which are in force
        if resumed:
            self.watcher.catch_up(table)

    def _left(self) -> None:
        """The player chose to leave while it is not their turn: nothing more of the table is
        shown to them (held until the end, then dropped), and the runner looks at once."""
        if self.watcher is not None:
            self.watcher.hold()
        self.leave_chosen.set()

    def progress(self, table: SeatTable) -> None:
        if self.watcher is None:
            self._attach(table)
        assert self.watcher is not None
        self.watcher(table)

    def leaving(self) -> bool:
        """The player chose to leave while it was not their turn (the runner asks)."""
        return self.decider is not None and self.decider.leaving

    def confirming(self) -> bool | None:
        """The player's answer on the table fingerprint, once given (the runner asks)."""
        return self.decider.fingerprint_same if self.decider is not None else None

    def peer_link(self, key: bytes, what: str, seconds: float) -> None:
        if what == "lost":
            self.away[key] = time.monotonic() + seconds
        else:  # back, reached through the others, or judged gone: no longer waited for as away
            self.away.pop(key, None)
        if self.watcher is not None and self.watcher.table is not None:
            self.watcher.refresh()

    def table_clock(self, timeouts: Any) -> None:
        self.clock = timeouts
        if self.watcher is not None:
            self.watcher.clock = timeouts

    def waiting(self, table: SeatTable, waited: float) -> None:
        """The table has waited a while: the status line says for whom, and how long is left."""
        if self.watcher is None:
            self._attach(table)
        assert self.watcher is not None
        self.watcher.waiting(table, waited)

    async def decide(self, table: SeatTable) -> Any:
        if self.decider is None:
            self._attach(table)
        assert self.decider is not None
        return await self.decider(table)

    def finished(self, outcome: Outcome) -> None:
        """Say how the match ended, whom this node blames, and where the transcript is."""
        if self.decider is not None:
            self.decider.match_over()
        if self.watcher is not None:
            if outcome.status == "aborted":  # this player left: what came after is not theirs to see
                self.watcher.drop_held()
            else:
                self.watcher.release()
        for line in describe_outcome(outcome, self.console.tr):
            self.console.say(line)


def describe_outcome(outcome: Outcome, tr: Translator) -> list[str]:
    """Lines telling a person how a networked match ended (names, not seat numbers).

    The problem may quote a peer (the reason it gave for stopping) and names come
    from the peers: both are cleaned, so that they stay text on one line.
    """
    from p2pcards.net.verdicts import INTERRUPTED, TURN_TIMED_OUT
    from p2pcards.protocol.sitting import Sitting

    if outcome.table is not None:
        names = list(table_names(outcome.table.roster))
        # A match that went on without a seat scores the seats of its last table.
        playing = list(table_names(getattr(outcome.table, "current", outcome.table).roster))
    else:
        names = playing = [clean(n, NAME_LIMIT) or "?" for n in outcome.names]
    why = clean(outcome.problem or "", TEXT_LIMIT)
    if outcome.status == "over":
        lines = [tr("net_over")]
    elif outcome.status == "aborted":
        key = {INTERRUPTED: "net_you_left_interrupted", TURN_TIMED_OUT: "net_you_timed_out"}.get(
            outcome.problem or ""
        )
        lines = [tr(key or "net_you_left")]
    elif outcome.status == "left" and isinstance(outcome.table, Sitting) and outcome.table.left_alone:
        name, reason = outcome.table.left_alone
        reason = leave_reason(tr, clean(reason, TEXT_LIMIT))
        lines = [tr("net_others_left", name=clean(name, NAME_LIMIT), reason=reason)]
    elif outcome.blamed:
        who = tr.join([names[s] for s in outcome.blamed if s < len(names)])  # look-alikes carry a tag
        lines = [tr("net_stopped_blame", who=who, why=problem_text(tr, why, playing))]
    else:
        lines = [tr("net_stopped", why=problem_text(tr, why, playing))]
    kept = _leavers_totals(outcome.table) if outcome.table is not None else []
    if kept:  # the score table shows the seats of the last table only
        lines.append(tr("net_final_left", kept=", ".join(f"{clean(n, NAME_LIMIT)} {t}" for n, t in kept)))
    match = outcome.table.match if outcome.table is not None else None
    hands = getattr(match, "played_before", 0) + len(match.results) if match is not None else 0
    if outcome.status != "over" and match is not None and hands:  # (hands of earlier tables count)
        scores = ", ".join(f"{playing[s]} {t}" for s, t in enumerate(match.totals) if s < len(playing))
        lines.append(tr.n("net_standings", hands, hands=hands, scores=scores))
    if outcome.transcript is not None:
        lines.append(tr("transcript_saved", path=outcome.transcript))
    return lines
