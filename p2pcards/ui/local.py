"""The local game: one human (or nobody, when watching) against bots, in this process.

Three things are kept apart so that a networked game can swap one and keep
the rest: the *shuffler* (here ``random.Random``; later the mental-poker
protocol), the *sources of moves* (one object per seat with a single
``choose(view, legal, rng)`` method: a bot strategy or the human's prompt),
and the *display* (rendering and prompts, :mod:`p2pcards.ui.display`).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from p2pcards.bots import make_bot
from p2pcards.cards import Card
from p2pcards.errors import UsageError
from p2pcards.games.base import MatchLoop, Observer, RandomShuffler, Shuffler, check_players
from p2pcards.games.base import game as game_named
from p2pcards.games.nines import GAME as NINES
from p2pcards.games.nines import Action, HandResult, HandState, Match, NinesRules, SeatView
from p2pcards.record import build_game_record
from p2pcards.ui.display import ConsoleDisplay
from p2pcards.ui.i18n import Translator
from p2pcards.ui.neuf_local import play_neuf
from p2pcards.ui.play_session import PlayOptions, save_record, seat_names
from p2pcards.ui.prompt import SPECTATOR_DELAY, Console, HumanPlayer, QuitGame
from p2pcards.ui.render import Style, TableContext
from p2pcards.ui.screen import NinesScreen, Screen, make_screen, probe

if TYPE_CHECKING:
    from p2pcards.net.runner import Decider

class MoveSource(Protocol):
    """Where one seat's moves come from: a bot strategy or a human at a prompt."""

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action: ...


class LocalShuffler(RandomShuffler):
    """Shuffles a Nines match with one seeded ``random.Random``: the same seed, the same cards."""

    __slots__ = ()

    def __init__(self, rules: NinesRules, rng: random.Random) -> None:
        super().__init__(2 if rules.double_nines else 1, rng)


@dataclass(slots=True, kw_only=True)
class LocalGame:
    """Runs a match to its end on the shared match loop (:class:`~p2pcards.games.base.MatchLoop`);
    ``match``, ``hand`` and ``cut_rounds`` stay readable after a quit."""

    rules: NinesRules
    sources: Sequence[MoveSource]
    shuffler: Shuffler
    rng: random.Random
    """Randomness handed to the bots (separate from the shuffles)."""
    table: TableContext
    observer: Observer
    loop: MatchLoop | None = None

    @property
    def match(self) -> Match | None:
        return None if self.loop is None else self.loop.match

    @property
    def hand(self) -> HandState | None:
        return None if self.loop is None else self.loop.hand

    @property
    def cut_rounds(self) -> list[list[tuple[int, Card]]]:
        return [] if self.loop is None else self.loop.cut_rounds

    def run(self) -> Match:
        def choose(seat: int, view: SeatView, legal: Sequence[Action]) -> Action:
            return self.sources[seat].choose(view, legal, self.rng)

        self.loop = MatchLoop(
            NINES,
            self.rules,
            len(self.sources),
            self.shuffler,
            choose,
            _TableLog(self.table, self.observer, self),
        )
        return self.loop.run()


@dataclass(slots=True)
class _TableLog:
    """Keeps the table context's move log in step with the loop, then tells the display."""

    table: TableContext
    observer: Observer
    game: LocalGame

    def cut(self, rounds: Sequence[Sequence[tuple[int, Card]]], dealer: int) -> None:
        self.observer.cut(rounds, dealer)

    def hand_start(self, hand: HandState) -> None:
        match = self.game.match
        assert match is not None
        self.table.new_hand(
            dealer=hand.dealer, hand_number=match.hand_number, playoff=match.playoff_seats is not None
        )
        self.observer.hand_start(hand)

    def move(self, action: Action) -> None:
        self.table.record(action)
        self.observer.move(action)

    def hand_end(self, hand: HandState, result: HandResult, match: Match) -> None:
        self.observer.hand_end(hand, result, match)

    def match_end(self, match: Match) -> None:
        self.observer.match_end(match)


# ---------------------------------------------------------------------------
# The whole `p2pcards play` session


@dataclass(slots=True)
class Played:
    """What a finished (or quit) session leaves behind for the record and the user."""

    match: Match | None
    cut_rounds: list[list[tuple[int, Card]]]
    transcript: Path | None = None
    problem: str | None = None
    interrupted: bool = False
    """The program was interrupted (Ctrl-C, a closed terminal): it exits with status 130."""


class _Quit(Exception):
    def __init__(self, game: Played) -> None:
        self.game = game


def _run_offline(
    opts: PlayOptions,
    seed: int,
    names: list[str],
    console: Console,
    display: ConsoleDisplay,
    table: TableContext,
) -> Played:
    """The match in this process, shuffled by a seeded generator (no protocol)."""
    sources: list[MoveSource] = [make_bot(opts.bot) for _ in range(opts.players)]
    game = LocalGame(
        rules=opts.game_rules,
        sources=sources,
        shuffler=LocalShuffler(opts.game_rules, random.Random(f"p2pcards-shuffle:{seed}")),
        rng=random.Random(f"p2pcards-bots:{seed}"),
        table=table,
        observer=display,
    )
    if table.me is not None:
        sources[table.me] = HumanPlayer(
            console=console, table=table, explain=lambda a: None if game.hand is None else probe(game.hand, a)
        )
    console.score_text = lambda: display.scores(game.match) if game.match else console.tr("row_total")
    try:
        game.run()
    except (QuitGame, KeyboardInterrupt) as e:
        interrupted = isinstance(e, KeyboardInterrupt) or e.interrupted
        raise _Quit(Played(game.match, game.cut_rounds, interrupted=interrupted)) from None
    return Played(game.match, game.cut_rounds)


def _run_networked(
    opts: PlayOptions, seed: int, names: list[str], console: Console, screen: Screen
) -> Played:
    """Every seat a node on loopback TCP; the screen follows seat 0's own replica."""
    import hashlib

    import trio

    from p2pcards.net.runner import INTERRUPTED
    from p2pcards.net.session import Timeouts
    from p2pcards.protocol.table import TableCore
    from p2pcards.ui.netgame import (
        HumanDecider,
        TableWatcher,
        bot_decider,
        describe_outcome,
        play_on_loopback,
    )

    me = None if opts.watch else 0
    watcher = TableWatcher(screen)
    deciders = [
        bot_decider(opts.bot, random.Random(f"p2pcards-bots:{seed}:{s}")) for s in range(opts.players)
    ]
    if opts.watch and opts.delay > 0:
        deciders = [paced(d, opts.delay) for d in deciders]
    if me is not None:
        human = HumanDecider(screen=screen, release=watcher.release)
        watcher.on_hand_end = human.hand_ended
        watcher.hold_after_hand = True
        deciders[me] = human
    # A fixed seed fixes every seat's secrets, hence the shuffles: the same game again.
    entropies = [hashlib.sha256(f"p2pcards-demo:{seed}:{s}".encode()).digest() for s in range(opts.players)]

    def waiting(t: TableCore, waited: float) -> None:
        who = [names[s] for s in t.waiting_for]
        console.say(console.tr("waiting_for", names=console.tr.join(who), seconds=int(waited)))

    def score_text() -> str:
        match = watcher.table.match if watcher.table is not None else None
        return screen.scores(match) if match is not None else console.tr("row_total")

    console.score_text = score_text
    try:
        outcome = trio.run(
            lambda: play_on_loopback(
                rules=opts.game_rules,
                names=names,
                deciders=deciders,
                on_progress=watcher,
                on_wait=waiting,
                entropies=entropies,
                transcript=opts.transcript,
                game_id=hashlib.sha256(f"p2pcards-demo-game:{seed}".encode()).digest()[:16],
                game=opts.game,
                timeouts=Timeouts(turn=ALONE_WITH_BOTS),
                bots=range(opts.players) if opts.watch else (),
                leave_on_signals=True,  # Ctrl-C: the person's seat signs that it leaves
            )
        )
    except BaseException as e:  # Ctrl-C arrives wrapped in trio's exception groups
        if not _interrupted(e):
            raise
        t = watcher.table
        raise _Quit(
            Played(t.match if t else None, list(t.cut_rounds) if t else [], interrupted=True)
        ) from None
    t = outcome.table
    played = Played(
        t.match if t is not None else None,
        list(t.cut_rounds) if t is not None else [],
        outcome.transcript,
        None if outcome.status in ("over", "aborted") else describe_outcome(outcome, console.tr)[0],
        interrupted=outcome.status == "aborted" and outcome.problem == INTERRUPTED,
    )
    if outcome.status == "aborted":
        raise _Quit(played)
    return played


def paced(decide: Decider, seconds: float) -> Decider:
    """A bot seat that takes ``seconds`` over each move, so that a spectator can follow.

    The wait is a trio.sleep in the seat's own node: every node's network goes on
    meanwhile (a sleep in the display, which runs in trio's loop, would stall them all).
    """
    import trio

    async def slowly(table: Any) -> Any:
        await trio.sleep(seconds)
        return await decide(table)

    return slowly


ALONE_WITH_BOTS = 86_400.0
"""Seconds for a turn when the only person at the table plays against bots: they wait."""


def _interrupted(error: BaseException) -> bool:
    """True if ``error`` is a KeyboardInterrupt, or a (nested) exception group holding one."""
    if isinstance(error, BaseExceptionGroup):
        return any(_interrupted(e) for e in error.exceptions)
    return isinstance(error, KeyboardInterrupt)


def play_local(
    opts: PlayOptions,
    *,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    echo: bool = False,
    style: Style | None = None,
) -> int:
    """Play one match in the terminal; returns the exit status (0 also after a quit, 130
    after Ctrl-C, when the person's seat signed that it left).

    By default every seat is a separate node on loopback TCP running the full
    protocol (mental-poker shuffle, signed transcript), for Nines and Le Neuf
    alike; ``offline`` plays the same match in this process with the rules
    engine alone (Le Neuf's: :func:`p2pcards.ui.neuf_local.play_neuf`).
    A spectator's ``delay`` paces an offline match in its display, a networked one in its bots.
    """
    pacing = SPECTATOR_DELAY.set(opts.delay if opts.watch and opts.offline else 0.0)
    try:
        return _play(opts, read=read, write=write, echo=echo, style=style)
    finally:
        SPECTATOR_DELAY.reset(pacing)


def _play(
    opts: PlayOptions,
    *,
    read: Callable[[str], str],
    write: Callable[[str], None],
    echo: bool,
    style: Style | None,
) -> int:
    spec = game_named(opts.game)
    if opts.offline and opts.game == "neuf":
        return play_neuf(opts, read=read, write=write, echo=echo, style=style)
    check_players(spec, opts.players)
    tr = Translator(opts.lang)
    style = Style.detect() if style is None else style
    seed = opts.seed if opts.seed is not None else secrets.randbelow(1_000_000)
    human = None if opts.watch else (opts.name or tr("you"))
    names = seat_names(opts.players, human)
    me = None if opts.watch else 0
    console = Console(tr=tr, style=style, read=read, write=write, echo=echo, quit_question="confirm_quit")
    make_bot(opts.bot, spec.name)  # an unknown bot is an error before anything is shown
    rules = opts.game_rules
    if type(rules) is not type(spec.parse_rules(())):
        raise UsageError(f"these rule options are not those of {spec.title}")
    screen = make_screen(
        spec.name,
        console,
        names,
        me=me,
        rules=rules,
        watch=opts.watch,
        pause_between_hands=opts.offline,
        verified=not opts.offline,
    )
    screen.intro(opts.bot)
    quit_early = False
    try:
        if opts.offline:
            assert isinstance(screen, NinesScreen)
            game = _run_offline(opts, seed, names, console, screen.display, screen.context)
        else:
            game = _run_networked(opts, seed, names, console, screen)
    except _Quit as q:
        game = q.game
        quit_early = True
        if game.match is not None and game.match.results:  # where the match stood
            console.say(screen.scores(game.match))
        console.say(tr("quit"))
    status = 130 if game.interrupted else 0
    if opts.record is not None and game.match is not None:
        doc = build_game_record(spec.name, game.match, names, game.cut_rounds)
        saved = save_record(console, opts.record, doc, hands=len(game.match.results), partial=quit_early)
        status = status or saved
    if game.transcript is not None:
        console.say(tr("transcript_saved", path=game.transcript))
    if game.problem is not None:
        console.say(game.problem)
    console.say(tr("seed", seed=seed))
    return status
