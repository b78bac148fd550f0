"""``p2pcards players``: the players this node has met, and forgetting some."""

from __future__ import annotations

import sys
from collections import Counter

import click

from p2pcards.cli.group import (
    MESSAGE_LIMIT,
    NAME_LIMIT,
    _echo,
    _echo_json,
    _lang_option,
    _language,
    _Localized,
    _to_terminal,
)


@click.command(cls=_Localized)
@click.option("--forget", "forget", metavar="NAME|KEY", default=None,
              help="Forget the players of this name, or whose key fingerprint starts so.")  # fmt: skip
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of objects.")
@_lang_option
def players(forget: str | None, as_json: bool, lang: str | None) -> None:
    """List the players this node has played with (name and key), or forget some.

    Before a networked game's first shuffle, a known name with a key never seen, or a
    known key under another name, is announced loudly: a host may have seated a puppet.
    """
    from p2pcards.crypto.identity import fingerprint
    from p2pcards.net import storage
    from p2pcards.net.known import KnownPlayers
    from p2pcards.safetext import clean
    from p2pcards.ui.i18n import Translator
    from p2pcards.ui.render import pad, wrap

    tr = Translator(_language(lang))
    known = KnownPlayers.load(storage.data_dir())
    if known.problem is not None:
        _echo(tr("players_note", problem=clean(known.problem, MESSAGE_LIMIT)), err=True)
    if forget is not None:
        gone = known.forget(forget)
        if not gone:
            _echo(tr("players_no_such", name=repr(clean(forget, NAME_LIMIT))), err=True)
            sys.exit(1)
        for p in gone:
            _echo(tr("players_forgot", name=clean(p.name, NAME_LIMIT), fingerprint=fingerprint(p.key)))
        return
    entries = sorted(known.players.values(), key=lambda p: (p.name.casefold(), p.first))
    if as_json:
        _echo_json([p.to_json() | {"fingerprint": fingerprint(p.key)} for p in entries])
        return
    if not entries:
        _echo(tr("players_none"))
        return
    # A name met with two keys is two players: a host may have seated a puppet under it.
    names = Counter(p.name.casefold() for p in entries)
    for p in entries:
        key = "players_games" if p.last != p.first else "players_games_day"  # not "from X to X"
        games = tr.n(key, p.games, n=p.games, first=p.first, last=p.last)
        row = f"{pad(clean(p.name, NAME_LIMIT), 20)} {fingerprint(p.key)}  {games}"
        if names[p.name.casefold()] > 1:
            row += f"  {tr('players_same_name')}"
        _echo(wrap(row) if _to_terminal() else row)  # (one line a player for a program that reads it)
