"""The ``p2pcards`` command line: one click group, errors turned into one line."""

from __future__ import annotations

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="p2pcards")
def main() -> None:
    """Peer-to-peer card games with no server and no trusted dealer."""


# --- play -------------------------------------------------------------------
# (owned by the local-game work; see p2pcards/ui/)


@main.command()
@click.option("-n", "--players", default=4, show_default=True, help="Number of players, 2 to 6.")
@click.option("-b", "--bot", default="heuristic", show_default=True, help="Bots: heuristic or random.")
@click.option("-s", "--seed", type=int, default=None, help="Seed of the shuffles, to replay the same game.")
@click.option(
    "-r",
    "--rule",
    "rules",
    multiple=True,
    metavar="RULE",
    help="Rule option, repeatable: hard-nines, target=150, hands=5, tie=playoff...",
)
@click.option(
    "--record",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Write the full-information JSON record of the match to this file.",
)
@click.option("-w", "--watch", is_flag=True, help="Bots only: watch a whole match, move by move.")
@click.option("--name", default=None, help="Your name at the table (default: you).")
@click.option(
    "--lang",
    default=None,
    envvar="P2PCARDS_LANG",
    help="Language: en, fr or it (default: from LC_ALL / LANG).",
)
def play(
    players: int,
    bot: str,
    seed: int | None,
    rules: tuple[str, ...],
    record: str | None,
    watch: bool,
    name: str | None,
    lang: str | None,
) -> None:
    """Play Nines in this terminal against bots (or watch bots play)."""
    import sys
    from pathlib import Path

    from p2pcards.errors import UsageError
    from p2pcards.games.nines import NinesRules
    from p2pcards.ui.i18n import LANGS, detect_lang
    from p2pcards.ui.local import PlayOptions, play_local

    try:
        if lang is not None and lang.lower() not in LANGS:
            raise UsageError(f"unknown language {lang!r}; choose from {', '.join(LANGS)}")
        opts = PlayOptions(
            players=players,
            bot=bot,
            seed=seed,
            rules=NinesRules.parse(rules),
            record=Path(record) if record else None,
            watch=watch,
            name=name,
            lang=lang.lower() if lang else detect_lang(),
        )
        status = play_local(opts, write=click.echo, echo=not sys.stdin.isatty())
    except UsageError as e:
        raise click.ClickException(str(e)) from None
    if status:
        sys.exit(status)


# --- simulate ---------------------------------------------------------------
# (owned by the simulator work; see p2pcards/sim.py)

_SIM_RULES_HELP = (
    "A rule option, repeatable: target=N, hands=N, tie=share|playoff, draw-until-playable, "
    "action-cards, double-nines, stacking-nines (needs double-nines), hard-nines, no-nine-out."
)


@main.command()
@click.option("-n", "--players", type=click.IntRange(2, 6), default=4, show_default=True,
              help="Seats at the table, 2 to 6.")  # fmt: skip
@click.option("-g", "--games", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Matches to play.")  # fmt: skip
@click.option("-b", "--bots", default="heuristic,random", show_default=True,
              help="Comma-separated strategies, cycled over the seats and rotated every match.")  # fmt: skip
@click.option("-s", "--seed", type=int, default=0, show_default=True, help="Same seed, same numbers.")
@click.option("-r", "--rule", "rules", multiple=True, metavar="RULE[=VALUE]", help=_SIM_RULES_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON instead of a table.")
def simulate(players: int, games: int, bots: str, seed: int, rules: tuple[str, ...], as_json: bool) -> None:
    """Play many bot-only matches of Nines; report win rates and speed.

    A strategy's win rate is its wins per seat held; a shared win counts 1/k
    to each of the k tied winners.
    """
    import json

    from p2pcards import sim
    from p2pcards.bots import BOT_NAMES
    from p2pcards.errors import RuleOptionError, UsageError
    from p2pcards.games.nines import NinesRules

    names = [b.strip() for b in bots.split(",") if b.strip()]
    if not names:
        raise click.BadParameter("name at least one bot", param_hint="'--bots'")
    for b in names:
        if b not in BOT_NAMES:
            raise click.BadParameter(
                f"unknown bot {b!r}; choose from {', '.join(BOT_NAMES)}", param_hint="'--bots'"
            )
    try:
        table_rules = NinesRules.parse(rules)
    except RuleOptionError as e:
        raise click.BadParameter(str(e), param_hint="'--rule'") from None
    try:
        result = sim.simulate(players, games, names, seed=seed, rules=table_rules)
    except UsageError as e:
        raise click.ClickException(str(e)) from None
    click.echo(json.dumps(result.to_dict(), indent=2) if as_json else result.format_table())
