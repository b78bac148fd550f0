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
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio

from p2pcards.bots import make_bot
from p2pcards.errors import PeerUnreachable
from p2pcards.net.node import NodeConfig, Outcome, host_game, join_game
from p2pcards.net.runner import Decider, QuitMatch
from p2pcards.net.session import LobbyUI, Timeouts
from p2pcards.net.words import new_code
from p2pcards.protocol.events import CutDone, Event, HandEnded, HandStarted, MatchOver, Moved
from p2pcards.protocol.fingerprint import TableFingerprint
from p2pcards.protocol.table import TableCore
from p2pcards.safetext import clean
from p2pcards.ui.i18n import COMMAND_WORDS, Translator
from p2pcards.ui.prompt import Console, QuitGame
from p2pcards.ui.render import NAME_LIMIT, table_names
from p2pcards.ui.screen import Screen, make_screen, probe

TEXT_LIMIT = 400
"""Longest notice shown from the network (a peer's reason for stopping is at most 300 characters)."""


@dataclass(slots=True)
class TableWatcher:
    """Feeds a game's screen from the events of one seat's table (``TableCore.next_event``)."""

    screen: Screen
    hands_ended: int = 0
    on_hand_end: Callable[[], None] = field(default=lambda: None)
    hold_after_hand: bool = False
    """For a player: after a hand's scores, hold what follows until :meth:`release`."""
    table: TableCore | None = None
    """The table last seen (for the score table on demand)."""
    _held: list[Callable[[], None]] | None = None

    def release(self) -> None:
        """Show what was held back since the end of the last hand."""
        held, self._held = self._held or [], None
        for show in held:
            show()

    def _show(self, show: Callable[[], None]) -> None:
        if self._held is not None:
            self._held.append(show)
        else:
            show()

    def __call__(self, table: TableCore) -> None:
        self.table = table
        while (event := table.next_event()) is not None:
            self._event(event)

    def _event(self, event: Event) -> None:
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
            self.on_hand_end()
            if self.hold_after_hand and not event.match.over:
                self._held = []
        elif isinstance(event, MatchOver):
            self.release()
            screen.match_end(event.match)


def bot_decider(name: str, rng: random.Random) -> Decider:
    """A bot strategy deciding from the seat's view only, for whichever game the table plays.

    An unknown strategy is refused at once; the game's own strategy of that
    name is made at the first decision (a joiner learns the game from the host).
    """
    make_bot(name)
    bots: dict[str, Any] = {}

    async def decide(table: TableCore) -> Any:
        bot = bots.get(table.GAME)
        if bot is None:
            bot = bots[table.GAME] = make_bot(name, table.GAME)
        view = table.view()
        assert view is not None
        return bot.choose(view, table.legal_actions(), rng)

    return decide


TURN_WARNINGS = (60, 10)
"""Seconds left on the table's clock at which a player deciding is warned."""


@dataclass(slots=True)
class HumanDecider:
    """The keyboard: asks in a worker thread; pauses first when a hand has ended."""

    screen: Screen
    pause_pending: bool = False
    rng: random.Random = field(default_factory=random.Random)
    release: Callable[[], None] = field(default=lambda: None)
    """Shows what the display held back while the player read the scores."""
    confirm_quit: bool = False
    """Ask before leaving: at a table of people, leaving ends the match for everyone."""
    turn_time: Callable[[], float | None] = field(default=lambda: None)
    """Seconds a turn may take on the table's clock (None: no warning)."""

    def hand_ended(self) -> None:
        self.pause_pending = True

    def _really_leave(self) -> bool:
        """Ask once more; anything but yes keeps the player at the table."""
        console = self.screen.console
        try:
            line = console.read(f"{console.tr('net_confirm_leave')} > ")
        except (EOFError, KeyboardInterrupt):
            return True
        if console.echo:
            console.write(line)
        if COMMAND_WORDS.get(line.strip().lower()) == "yes":
            return True
        console.say(console.tr("net_stay"))
        return False

    async def __call__(self, table: TableCore) -> Any:
        view = table.view()
        assert view is not None
        legal = table.legal_actions()
        console = self.screen.console

        def explain(action: Any) -> object:
            hand = table.match.hand if table.match is not None else None
            return None if hand is None else probe(hand, action)

        def ask() -> Any:
            while True:
                try:
                    if self.pause_pending:
                        console.ask(console.tr("prompt_continue"))
                        self.pause_pending = False
                        self.release()
                    return self.screen.ask(view, legal, explain, self.rng)  # type: ignore[arg-type]
                except QuitGame:
                    if not self.confirm_quit or self._really_leave():
                        raise

        async def warn(total: float) -> None:
            start = trio.current_time()
            for left in TURN_WARNINGS:
                if total > left + 5:  # not at the very start of a short turn
                    await trio.sleep_until(start + total - left)
                    console.say("")  # end the prompt's line first
                    console.say(console.tr("turn_warning", left=left))

        action: Any = None
        leaving = False
        async with trio.open_nursery() as nursery:  # (nothing is raised inside it: no group)
            total = self.turn_time()
            if total is not None:
                nursery.start_soon(warn, total)
            try:
                action = await trio.to_thread.run_sync(ask, abandon_on_cancel=True)
            except QuitGame:
                leaving = True
            nursery.cancel_scope.cancel()
        if leaving:
            raise QuitMatch()
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
    on_progress: Callable[[TableCore], None],
    on_wait: Callable[[TableCore, float], None] = lambda t, w: None,
    entropies: Sequence[bytes | None] | None = None,
    transcript: Path | None = None,
    data_dir: Path | None = None,
    timeouts: Timeouts | None = None,
    game_id: bytes | None = None,
    game: str = "nines",
) -> Outcome:
    """Seat 0 hosts a table of ``game`` on 127.0.0.1 and every other seat joins it as a separate node.

    Each node has its own identity, secrets, table and TCP links, exactly as
    across the internet; only seat 0's progress is shown. Returns seat 0's outcome.
    """
    code = new_code()
    timeouts = timeouts or Timeouts()
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
        self.clock: Any = None
        """The table's clock (``Timeouts``), once the session knows it."""
        """The players' names as shown (cleaned, look-alikes told apart), once the roster is known."""
        self.on_invitation: Callable[[str, int], None] = lambda code, port: None
        """How the command prints the invitation (it knows the address to give out)."""

    def invitation(self, code: str, port: int) -> None:
        self.on_invitation(code, port)

    def lobby(self, names: Sequence[str], players: int) -> None:
        # The host sends these names: shown cleaned, like everything that comes from a peer.
        if tuple(names) != self._last_names:
            self._last_names = tuple(names)
            tr = self.console.tr
            shown = [clean(n, NAME_LIMIT) or "?" for n in names]
            self.console.say(tr("lobby", names=tr.join(shown), n=len(names), players=players))

    def info(self, text: str) -> None:
        # Lobby notices quote joiners' names and hosts' refusals: one clean line each.
        self.console.say(f"  {clean(text, TEXT_LIMIT)}")

    def table_ready(self, fingerprint: TableFingerprint, table: TableCore) -> None:
        """Show the table fingerprint, and ask the players to compare it (see README)."""
        if self.watcher is None:
            self._attach(table)
        tr, style = self.console.tr, self.console.style
        self.console.say(style.bold(tr("fingerprint", fingerprint=fingerprint.text)))
        self.console.say("  " + tr("fingerprint_compare"))

    def _attach(self, table: TableCore) -> None:
        names = list(table_names(table.roster))
        self.names = tuple(names)
        screen = make_screen(
            table.GAME,
            self.console,
            names,
            me=table.seat,
            rules=table.rules,
            watch=not self.human,
            pause_between_hands=False,
            match=lambda: table.match,
            verified=True,
        )
        self.screen = screen
        self.watcher = TableWatcher(screen)
        if self.human:
            self.decider = HumanDecider(
                screen=screen,
                release=self.watcher.release,
                confirm_quit=True,
                turn_time=lambda: self.clock.turn if self.clock is not None else None,
            )
            self.watcher.on_hand_end = self.decider.hand_ended
            self.watcher.hold_after_hand = True
        self.console.say(self.console.tr("linked", names=self.console.tr.join(names)))
        screen.intro(None)  # the host chose the rules: say which are in force

    def progress(self, table: TableCore) -> None:
        if self.watcher is None:
            self._attach(table)
        assert self.watcher is not None
        self.watcher(table)

    def table_clock(self, timeouts: Any) -> None:
        self.clock = timeouts

    def waiting(self, table: TableCore, waited: float) -> None:
        names = self.names or table_names(table.roster)
        who = [names[s] for s in table.waiting_for]
        if not who:
            return
        if self.clock is None:
            self.console.say(
                self.console.tr("waiting_for", names=self.console.tr.join(who), seconds=int(waited))
            )
            return
        # The table's clock (the host's, the same at every seat): how long is left.
        limit = self.clock.turn if table.spec.kind in table.DECISIONS else self.clock.step
        left = max(0, int(limit - waited))
        clock = f"{left // 60}:{left % 60:02d}"
        self.console.say(self.console.tr("waiting_left", names=self.console.tr.join(who), left=clock))

    async def decide(self, table: TableCore) -> Any:
        if self.decider is None:
            self._attach(table)
        assert self.decider is not None
        return await self.decider(table)

    def finished(self, outcome: Outcome) -> None:
        """Say how the match ended, whom this node blames, and where the transcript is."""
        if self.watcher is not None:
            self.watcher.release()
        for line in describe_outcome(outcome, self.console.tr):
            self.console.say(line)


def describe_outcome(outcome: Outcome, tr: Translator) -> list[str]:
    """Lines telling a person how a networked match ended (names, not seat numbers).

    The problem may quote a peer (the reason it gave for stopping) and names come
    from the peers: both are cleaned, so that they stay text on one line.
    """
    if outcome.table is not None:
        names = list(table_names(outcome.table.roster))
    else:
        names = [clean(n, NAME_LIMIT) or "?" for n in outcome.names]
    why = clean(outcome.problem or "", TEXT_LIMIT)
    if outcome.status == "over":
        lines = [tr("net_over")]
    elif outcome.status == "aborted":
        lines = [tr("net_you_left")]
    elif outcome.blamed:
        who = tr.join([f"{names[s]} (seat {s})" for s in outcome.blamed if s < len(names)])
        lines = [tr("net_stopped_blame", who=who, why=why)]
    else:
        lines = [tr("net_stopped", why=why)]
    match = outcome.table.match if outcome.table is not None else None
    if outcome.status != "over" and match is not None and match.results:
        scores = ", ".join(f"{names[s]} {t}" for s, t in enumerate(match.totals) if s < len(names))
        lines.append(tr("net_standings", hands=len(match.results), scores=scores))
    if outcome.transcript is not None:
        lines.append(tr("transcript_saved", path=outcome.transcript))
    return lines
