"""The local game: one human (or nobody, when watching) against bots, for any game.

Three things are kept apart so that a networked game can swap one and keep
the rest: the *shuffler* (a seeded ``random.Random`` offline, the mental-poker
protocol between loopback nodes otherwise), the *sources of moves* (one per
seat with a single ``choose(view, legal, rng)`` method: a bot strategy or the
human at the game's screen), and the *screen* (the game's own, chosen by its
name: :func:`p2pcards.ui.screen.make_screen`).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from p2pcards.bots import make_bot
from p2pcards.cards import Card
from p2pcards.errors import IllegalAction, UsageError
from p2pcards.games.base import Game, MatchLoop, RandomShuffler, check_players
from p2pcards.games.base import game as game_named
from p2pcards.protocol.events import HandStarted
from p2pcards.protocol.notice import Notice
from p2pcards.record import build_game_record, dumps_record
from p2pcards.ui.i18n import Translator
from p2pcards.ui.prompt import SPECTATOR_DELAY, Console, QuitGame
from p2pcards.ui.render import Style
from p2pcards.ui.screen import Screen, make_screen, probe

if TYPE_CHECKING:
    from p2pcards.net.runner import Decider


BOT_NAMES = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace")


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayOptions:
    players: int = 4
    bot: str = "heuristic"
    seed: int | None = None
    rules: object | None = None
    """The rules of ``game``; None for the game's defaults (see :attr:`game_rules`)."""
    record: Path | None = None
    watch: bool = False
    name: str | None = None
    lang: str = "en"
    offline: bool = False
    transcript: Path | None = None
    game: str = "nines"
    """The game's name in the registry (``nines``, ``neuf``)."""
    delay: float = 0.0
    """With ``watch``: seconds between two moves, so that a person can follow the match."""

    @property
    def game_rules(self) -> Any:
        """The rules in force: those given, or the game's defaults."""
        return self.rules if self.rules is not None else game_named(self.game).parse_rules(())


def seat_names(players: int, human: str | None) -> list[str]:
    """The human (if any) in seat 0, bots named in order, skipping the human's name."""
    pool = [n for n in BOT_NAMES if human is None or n.lower() != human.lower()]
    if human is None:
        return pool[:players]
    return [human, *pool[: players - 1]]


def save_record(console: Console, path: Path, doc: dict[str, object], *, hands: int, partial: bool) -> int:
    """Write a game's JSON record and say so; the exit status (1 if it could not be written)."""
    tr = console.tr
    try:
        path.write_text(dumps_record(doc), encoding="utf-8")
    except OSError as e:
        console.say(tr("record_failed", path=path, error=e))
        return 1
    if partial:
        console.say(tr.n("record_partial", hands, path=path, n=hands))
    else:
        console.say(tr("record_written", path=path))
    return 0


class OnScreen:
    """The match loop's observer for a local match: it tells the game's screen what
    happens, as a networked table's events tell it (so both show the same table)."""

    __slots__ = ("loop", "screen")

    def __init__(self, screen: Screen, loop: Callable[[], MatchLoop | None]) -> None:
        self.screen = screen
        self.loop = loop

    def cut(self, rounds: Sequence[Sequence[tuple[int, Card]]], dealer: int) -> None:
        self.screen.cut(rounds, dealer)

    def hand_start(self, hand: Any) -> None:
        loop = self.loop()
        assert loop is not None and loop.match is not None
        match = loop.match
        self.screen.hand_start(HandStarted(hand, match.hand_number, match.playoff))

    def move(self, action: Any) -> None:
        self.screen.move(action)

    def hand_end(self, hand: Any, result: Any, match: Any) -> None:
        self.screen.hand_end(hand, result, match)

    def match_end(self, match: Any) -> None:
        self.screen.match_end(match)


# ---------------------------------------------------------------------------
# The whole `p2pcards play` session


@dataclass(slots=True)
class Played:
    """What a finished (or quit) session leaves behind for the record and the user."""

    match: Any
    cut_rounds: list[list[tuple[int, Card]]]
    transcript: Path | None = None
    problem: str | None = None
    interrupted: bool = False
    """The program was interrupted (Ctrl-C, a closed terminal): it exits with status 130."""
    unsaved: Notice | None = None
    """Why the transcript could not be saved (then the program exits with status 1)."""


class _Quit(Exception):
    def __init__(self, game: Played) -> None:
        self.game = game


def _run_offline(opts: PlayOptions, spec: Game, seed: int, console: Console, screen: Screen) -> Played:
    """The match in this process, shuffled by a seeded generator (no protocol): any game
    on the one match loop, the human's moves asked through the game's screen."""
    rules = opts.game_rules
    bots = [make_bot(opts.bot, spec.name) for _ in range(opts.players)]
    rng = random.Random(f"p2pcards-bots:{seed}")
    shuffler = RandomShuffler(spec.deck_copies(rules), random.Random(f"p2pcards-shuffle:{seed}"))
    me = None if opts.watch else 0
    loop: MatchLoop | None = None

    def explain(action: Any) -> IllegalAction | None:
        return None if loop is None or loop.hand is None else probe(loop.hand, action)

    def choose(seat: int, view: Any, legal: Sequence[Any]) -> Any:
        if seat == me:
            return screen.ask(view, legal, explain, rng)
        return bots[seat].choose(view, legal, rng)

    loop = MatchLoop(spec, rules, opts.players, shuffler, choose, OnScreen(screen, lambda: loop))
    console.score_text = lambda: screen.scores(loop.match) if loop.match else console.tr("row_total")
    try:
        loop.run()
    except (QuitGame, KeyboardInterrupt) as e:
        interrupted = isinstance(e, KeyboardInterrupt) or e.interrupted
        raise _Quit(Played(loop.match, loop.cut_rounds, interrupted=interrupted)) from None
    return Played(loop.match, loop.cut_rounds)


def _run_networked(
    opts: PlayOptions, seed: int, names: list[str], console: Console, screen: Screen
) -> Played:
    """Every seat a node on loopback TCP; the screen follows seat 0's own replica."""
    import hashlib

    import trio

    from p2pcards.net.session import Timeouts
    from p2pcards.net.verdicts import INTERRUPTED
    from p2pcards.protocol.sitting import SeatTable
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

    def waiting(t: SeatTable, waited: float) -> None:
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
        unsaved=outcome.unsaved,
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
    engine alone, on the same screen.
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
            game = _run_offline(opts, spec, seed, console, screen)
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
    if game.unsaved is not None:  # the player asked for a transcript, and has none: say so
        console.say(tr("cmd_error", error=game.unsaved))
        status = status or 1
    if game.problem is not None:
        console.say(game.problem)
    console.say(tr("seed", seed=seed))
    return status
