"""``p2pcards play --game neuf --offline``: Le Neuf in this process, one human (or nobody) against bots.

The match runs on the shared match loop (:class:`~p2pcards.games.base.MatchLoop`)
with the Le Neuf engine alone: a seeded shuffler, the bots of
:mod:`p2pcards.bots.neuf`, the human's prompts (:mod:`p2pcards.ui.neuf_prompt`)
and the display (:mod:`p2pcards.ui.neuf_display`), the same as over the
network (:func:`p2pcards.ui.local.play_local` without ``offline``). There is
no transcript offline; ``--record`` writes the full-information record
(:func:`p2pcards.record.build_game_record`).
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Callable, Sequence
from typing import Any

from p2pcards.bots import make_bot
from p2pcards.errors import IllegalAction, UsageError
from p2pcards.games.base import MatchLoop, RandomShuffler
from p2pcards.games.neuf import GAME as NEUF
from p2pcards.games.neuf import PLAYERS, Action, NeufRules, NeufView
from p2pcards.record import build_game_record
from p2pcards.ui.i18n import Translator
from p2pcards.ui.neuf_display import NeufDisplay
from p2pcards.ui.neuf_prompt import NeufConsole, NeufHuman
from p2pcards.ui.neuf_render import NeufTable, neuf_help
from p2pcards.ui.play_session import PlayOptions, save_record, seat_names
from p2pcards.ui.prompt import QuitGame
from p2pcards.ui.render import Style


def neuf_rules(opts: PlayOptions) -> NeufRules:
    """The Le Neuf rules of a session (its defaults when none are given)."""
    rules = opts.game_rules
    if not isinstance(rules, NeufRules):
        raise UsageError("these are rule options of Nines, not of Le Neuf")
    return rules


def play_neuf(
    opts: PlayOptions,
    *,
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
    echo: bool = False,
    style: Style | None = None,
) -> int:
    """Play one match of Le Neuf; returns the exit status (0 also after a quit)."""
    if opts.players != PLAYERS:
        raise UsageError(f"Le Neuf is for exactly {PLAYERS} players, not {opts.players}")
    if opts.transcript is not None:
        raise UsageError("an offline game has no transcript to save")
    rules = neuf_rules(opts)
    bots = [make_bot(opts.bot, NEUF.name) for _ in range(PLAYERS)]  # an unknown bot fails here
    tr = Translator(opts.lang)
    style = Style.detect() if style is None else style
    seed = opts.seed if opts.seed is not None else secrets.randbelow(1_000_000)
    human = None if opts.watch else (opts.name or tr("you"))
    names = seat_names(PLAYERS, human)
    me = None if opts.watch else 0
    table = NeufTable(names, me=me)
    console = NeufConsole(
        tr=tr,
        style=style,
        read=read,
        write=write,
        echo=echo,
        help_text=lambda: neuf_help(rules, tr, style),
        quit_question="confirm_quit",
    )
    display = NeufDisplay(console, table, rules, watch=opts.watch)
    display.intro(opts.bot)

    rng = random.Random(f"p2pcards-bots:{seed}")
    sources: list[Any] = list(bots)

    def choose(seat: int, view: NeufView, legal: Sequence[Action]) -> Action:
        return sources[seat].choose(view, legal, rng)

    loop = MatchLoop(
        NEUF, rules, PLAYERS, RandomShuffler(1, random.Random(f"p2pcards-shuffle:{seed}")), choose, display
    )

    def explain(action: Action) -> IllegalAction | None:
        """The engine's verdict on ``action`` without playing it (tried on a copy of the hand)."""
        if loop.hand is None:
            return None
        trial = loop.hand.copy()
        try:
            trial.apply(action)
        except IllegalAction as e:
            return e
        return None

    if me is not None:
        sources[me] = NeufHuman(console=console, table=table, explain=explain)
    console.score_text = lambda: display.scores(loop.match) if loop.match else tr("row_total")
    quit_early = interrupted = False
    try:
        loop.run()
    except (QuitGame, KeyboardInterrupt) as e:
        quit_early = True
        interrupted = isinstance(e, KeyboardInterrupt) or e.interrupted
        if loop.match is not None and loop.match.results:  # where the match stood
            console.say(display.scores(loop.match))
        console.say(tr("quit"))
    status = 130 if interrupted else 0  # as a program stopped by Ctrl-C
    if opts.record is not None and loop.match is not None:
        doc = build_game_record(NEUF.name, loop.match, names, loop.cut_rounds)
        saved = save_record(console, opts.record, doc, hands=len(loop.match.results), partial=quit_early)
        status = status or saved
    console.say(tr("seed", seed=seed))
    return status
