"""``p2pcards play``: a game in this terminal against bots (see :mod:`p2pcards.ui.local`)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from p2pcards.cli.group import _lang_option, _language, _Localized, _said, _usable_name
from p2pcards.games.base import folder_names

_PLAY_RULES_HELP = "A rule option of the game, repeatable: see the lists below."

_PLAY_RULES_EPILOG = """\b
Rule options of Nines (-r RULE, repeatable):
  target=N             the match ends when a total reaches N (default 100)
  hands=N              play exactly N hands instead
  tie=playoff          players tied for the lowest total play one more hand
                       (default: tie=share, they share the win)
  draw-until-playable  with nothing to play, draw until you can play
  action-cards         J skips the next player, Q reverses, A: the next
                       player draws two and loses the turn
  double-nines         two decks; two 9s played together change the suit and
                       skip the next player
  stacking-nines       a 9 cancels the skip of two 9s (needs double-nines)
  hard-nines           a 9 left in hand costs 25 instead of 15
  no-nine-out          a 9 may not be your last card

\b
Rule options of Le Neuf (--game neuf):
  trumps=hearts-first  the trumps of hand 1, 2, 3... (default:
                       spades-first), or letters such as HDSCN (N: no trump)
  exchange=blind       the dummy is taken or left unseen (also
                       blind-exchange; default: exchange=open)
  start=N              every total at the start (default 9)
"""

DEFAULT_DELAY = 0.6
"""Seconds between two moves of a watched match on a terminal: about a move a breath."""


@click.command(cls=_Localized, epilog=_PLAY_RULES_EPILOG)
@click.option(
    "--game",
    "game_name",
    type=click.Choice(folder_names()),
    default=folder_names()[0],
    show_default=True,
    help="The game: nines, or neuf for Le Neuf (3 players, trick-taking with a dummy).",
)
@click.option(
    "-n",
    "--players",
    type=int,
    default=None,
    help="Number of players: 2 to 6 for Nines (default 4); Le Neuf is for 3.",
)
@click.option("-b", "--bot", default=None, metavar="[heuristic|random|expert]",
              help="Bots: heuristic (the default), random or expert (expert:0.5 thinks 0.5 s a move; "
                   "default 0.2).")  # fmt: skip
@click.option("-l", "--level", type=click.Choice(["easy", "normal", "hard"]), default=None,
              help="How strong the bots are: easy (random), normal (heuristic) "
                   "or hard (expert).")  # fmt: skip
@click.option("-s", "--seed", type=int, default=None, help="Seed of the shuffles, to replay the same game.")
@click.option("-r", "--rule", "rules", multiple=True, metavar="RULE", help=_PLAY_RULES_HELP)
@click.option(
    "--record",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Write the full-information JSON record of the match to this file.",
)
@click.option(
    "--transcript",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Save the signed transcript here (default: a file in the data directory); not with --offline.",
)
@click.option(
    "--offline",
    is_flag=True,
    help="Play in this process with the rules engine only (no network, no crypto, no transcript).",
)
@click.option("-w", "--watch", is_flag=True, help="Bots only: watch a whole match, move by move.")
@click.option(
    "--delay",
    type=click.FloatRange(0, 60),
    default=None,
    metavar="SECONDS",
    help=f"With --watch: seconds between two moves (default {DEFAULT_DELAY} on a terminal, else 0).",
)
@click.option("--name", default=None, help="Your name at the table (default: you).")
@_lang_option
def play(
    game_name: str,
    players: int | None,
    bot: str | None,
    level: str | None,
    seed: int | None,
    rules: tuple[str, ...],
    record: str | None,
    transcript: str | None,
    offline: bool,
    watch: bool,
    delay: float | None,
    name: str | None,
    lang: str | None,
) -> None:
    """Play Nines or Le Neuf in this terminal against bots (or watch bots play).

    Every bot is a separate node on loopback TCP and the whole protocol runs
    (mental-poker shuffle, signed transcript), exactly as across the internet;
    --offline plays in this process with the rules engine alone.
    """

    from p2pcards.bots import LEVELS, check_bot
    from p2pcards.errors import UsageError
    from p2pcards.games.base import check_players, game
    from p2pcards.ui.i18n import Translator
    from p2pcards.ui.local import PlayOptions, play_local

    # A mistake on the command line is a usage error (exit 2, with the usage), as click's own.
    spec = game(game_name)
    if players is None:
        players = 4 if spec.max_players >= 4 else spec.max_players
    tr = Translator(_language(lang))
    try:
        check_players(spec, players, tr)
    except UsageError as e:
        raise click.BadParameter(str(e), param_hint="'-n' / '--players'") from None
    if bot is not None and level is not None:
        raise click.BadParameter(tr("usage_bot_and_level"), param_hint="'-l' / '--level'")
    bot = LEVELS[level] if level is not None else bot or "heuristic"
    try:
        check_bot(bot)
    except UsageError as e:
        raise click.BadParameter(_said(e, tr), param_hint="'-b' / '--bot'") from None
    try:
        table_rules = spec.parse_rules(rules)
    except UsageError as e:
        raise click.BadParameter(_said(e, tr), param_hint="'-r' / '--rule'") from None
    if offline and transcript is not None:
        raise click.BadParameter(tr("usage_offline_transcript"), param_hint="'--transcript'")
    if delay is not None and not watch:
        raise click.BadParameter(tr("usage_delay_without_watch"), param_hint="'--delay'")
    language = _language(lang)
    if name is not None:
        name = _usable_name(name, language)
    if delay is None:  # a person at a terminal follows the match; a pipe or a test need not wait
        delay = DEFAULT_DELAY if watch and sys.stdout.isatty() else 0.0
    opts = PlayOptions(
        game=spec.name,
        players=players,
        bot=bot,
        seed=seed,
        rules=table_rules,
        record=Path(record) if record else None,
        transcript=Path(transcript) if transcript else None,
        offline=offline,
        watch=watch,
        delay=delay,
        name=name,
        lang=language,
    )
    try:
        status = play_local(opts, write=click.echo, echo=not sys.stdin.isatty())
    except UsageError as e:  # (the command line was checked above: this comes from the table)
        raise click.ClickException(str(e)) from None
    if status:
        sys.exit(status)
