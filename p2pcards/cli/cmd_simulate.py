"""``p2pcards simulate``: many bot-only matches (see :mod:`p2pcards.sim`)."""

from __future__ import annotations

import click

from p2pcards.cli.group import _lang_option, _language, _Localized, _said
from p2pcards.games.base import folder_names

_SIM_RULES_HELP = (
    "A rule option of the game, repeatable. Nines: target=N, hands=N, tie=share|playoff, "
    "draw-until-playable, action-cards, double-nines, stacking-nines (needs double-nines), hard-nines, "
    "no-nine-out. Le Neuf: trumps=HDSCN (the rotation, N for no trump), exchange=open|blind, start=N."
)


@click.command(cls=_Localized)
@click.option("--game", "game_name", type=click.Choice(folder_names()), default=folder_names()[0],
              show_default=True,
              help="The game: nines (2 to 6 players) or neuf (Le Neuf, 3 players).")  # fmt: skip
@click.option("-n", "--players", type=click.IntRange(2, 6), default=None,
              help="Seats at the table: 2 to 6 for Nines (default 4), 3 for Le Neuf.")  # fmt: skip
@click.option("-g", "--games", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Matches to play.")  # fmt: skip
@click.option("-b", "--bots", default="heuristic,random", show_default=True,
              help="Comma-separated strategies (random, heuristic, expert; expert:0.5 thinks 0.5 s a "
                   "move, expert:300i searches 300 deals a move), cycled over the seats and rotated every "
                   "match.")  # fmt: skip
@click.option("-s", "--seed", type=int, default=0, show_default=True, help="Same seed, same numbers.")
@click.option("-r", "--rule", "rules", multiple=True, metavar="RULE[=VALUE]", help=_SIM_RULES_HELP)
@click.option("-j", "--jobs", type=click.IntRange(min=1), default=1, show_default=True,
              help="Processes to spread the matches over (the same numbers with any count).")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON instead of a table.")
@_lang_option
def simulate(
    game_name: str,
    players: int | None,
    games: int,
    bots: str,
    seed: int,
    rules: tuple[str, ...],
    jobs: int,
    as_json: bool,
    lang: str | None,
) -> None:
    """Play many bot-only matches of Nines or Le Neuf; report win rates and speed.

    A strategy's win rate is its wins per seat held; a shared win counts 1/k
    to each of the k tied winners.
    """
    import json

    from p2pcards import sim
    from p2pcards.bots import check_bot
    from p2pcards.errors import RuleOptionError, UsageError
    from p2pcards.games.base import check_players, game
    from p2pcards.ui.i18n import Translator

    spec = game(game_name)
    if players is None:
        players = 4 if spec.max_players >= 4 else spec.max_players
    try:
        check_players(spec, players, Translator(_language(lang)))
    except UsageError as e:
        raise click.BadParameter(str(e), param_hint="'--players'") from None
    names = [b.strip() for b in bots.split(",") if b.strip()]
    if not names:
        raise click.BadParameter(Translator(_language(lang))("usage_no_bot"), param_hint="'--bots'")
    for b in names:
        try:
            check_bot(b)
        except UsageError as e:
            raise click.BadParameter(_said(e, Translator(_language(lang))), param_hint="'--bots'") from None
    try:
        table_rules = spec.parse_rules(rules)
    except RuleOptionError as e:
        raise click.BadParameter(_said(e, Translator(_language(lang))), param_hint="'--rule'") from None
    try:
        result = sim.simulate(players, games, names, seed=seed, rules=table_rules, game=spec.name, jobs=jobs)
    except UsageError as e:
        raise click.ClickException(str(e)) from None
    if as_json:  # (for programs: its words stay English)
        click.echo(json.dumps(result.to_dict(), indent=2))
    else:
        click.echo(result.format_table(Translator(_language(lang))))
