"""``p2pcards resume``: back into a game this computer had not finished."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from p2pcards.cli.group import MESSAGE_LIMIT, _language, _Localized
from p2pcards.cli.network import NODE_EXIT_CODES, _check_resumable, _network_options, _run_node

if TYPE_CHECKING:  # imported where used: a command loads only what it runs
    from p2pcards.net.node import NodeConfig, Outcome


@click.command(cls=_Localized, epilog=NODE_EXIT_CODES)
@click.argument("which", required=False)
@click.option("--list", "list_only", is_flag=True, help="Only list the unfinished games.")
@_network_options(host=False, resume=True)
def resume(which: str | None, list_only: bool, **opts: Any) -> None:
    """Go back into a game this computer had not finished (after a crash or a killed process).

    Every node keeps a journal of its game until the game ends. With no WHICH,
    the only unfinished game is resumed (or they are listed, if there are
    several); WHICH is a number from the list or a journal file. The others
    wait for a player who lost its connection as long as the host's --grace
    says (120 s unless the host chose otherwise).
    """
    import datetime

    from p2pcards.net.node import resume_game, unfinished_games
    from p2pcards.safetext import clean
    from p2pcards.ui.i18n import Translator
    from p2pcards.ui.render import NAME_LIMIT as SHOWN_NAME
    from p2pcards.ui.render import wrap

    tr = Translator(_language(opts["lang"]))
    skipped: list[Path] = []
    games = unfinished_games(skipped=skipped)
    if which is None or list_only:  # a journal that cannot be resumed is not passed over in silence
        for bad in sorted(skipped):
            click.echo(wrap(tr("resume_skipped", path=clean(str(bad), MESSAGE_LIMIT))), err=True)
    if which is not None and not which.isdigit():
        path = Path(which)
        if not path.exists():  # (an address or a code, as join takes: resume needs neither)
            shown = clean(which, MESSAGE_LIMIT)
            raise click.BadParameter(tr("resume_no_such", which=shown), param_hint=tr("metavar_which"))
    else:
        if not games:  # (a game asked for by its number that is not there: a mistake, status 2)
            click.echo(tr("resume_none"), err=which is not None and not list_only)
            if which is None and not list_only:  # (one killed while the table linked has no journal yet)
                click.echo(wrap(tr("resume_none_join")))
            if which is not None and not list_only:
                raise SystemExit(2)
            return
        if list_only or (which is None and len(games) > 1):
            for i, u in enumerate(games, start=1):
                when = datetime.datetime.fromtimestamp(u.modified).strftime("%Y-%m-%d %H:%M")
                # Everything here comes from the journal, and the names from the players.
                host = u.host_address
                at = tr("resume_you_host")
                if host:
                    at = tr("resume_at", host=clean(host[0], MESSAGE_LIMIT), port=host[1])
                names = ", ".join(clean(n, SHOWN_NAME) or "?" for n in u.names)
                game = clean(_title(u.game), SHOWN_NAME)
                line = tr("resume_line", i=i, when=when, game=game, at=at, names=names, seat=u.seat)
                click.echo(wrap(line))
            if not list_only:
                click.echo(tr("resume_hint"))
            return
        index = int(which) if which is not None else 1
        if not 1 <= index <= len(games):
            raise click.BadParameter(tr("resume_choose", n=len(games)), param_hint=tr("metavar_which"))
        path = games[index - 1].path
        tr = _played_in(games[index - 1].lang, opts, tr)
    journal = _check_resumable(path, tr)
    tr = _played_in(journal.lang, opts, tr)
    if opts["bot"] is None and journal.bot is not None:
        opts["bot"] = journal.bot  # the bot that played the seat plays on
        click.echo(tr("resume_as_bot", bot=journal.bot))

    async def run(config: NodeConfig) -> Outcome:
        return await resume_game(config, path)

    _run_node("resume", run, port=0, seat_key=journal.key, **opts)


def _played_in(lang: str | None, opts: dict[str, Any], tr: Any) -> Any:
    """The translator of the language the seat was played in (``lang``, from its journal), and
    ``opts`` set to it, unless ``--lang`` or P2PCARDS_LANG named one; else ``tr``."""
    from p2pcards.cli.group import speak
    from p2pcards.ui.i18n import LANGS, Translator

    if opts["lang"] is not None or lang not in LANGS:
        return tr
    opts["lang"] = lang
    speak(lang)  # (click's errors too: "Error:" in that language)
    return Translator(lang)


def _title(name: str) -> str:
    """A game's title (``Le Neuf``) by the name a journal holds (``neuf``); an unknown name
    as it is."""
    from p2pcards.errors import UsageError
    from p2pcards.games.base import game

    try:
        return game(name).title
    except UsageError:  # (a journal of a game this version does not play)
        return name
