"""``p2pcards history``: the games saved on this computer (see :mod:`p2pcards.history`)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from p2pcards.cli.group import _echo, _echo_json, _lang_option, _language, _Localized


@click.command(cls=_Localized)
@click.argument("path", required=False, type=click.Path(exists=True, file_okay=True, dir_okay=True))
@click.option(
    "--verify/--no-verify",
    default=True,
    show_default=True,
    help="Audit every file in full (--no-verify only reads the join and result records).",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of objects.")
@click.option("-n", "--limit", type=click.IntRange(min=1), default=20, show_default=True,
              help="Show at most this many games, the newest.")  # fmt: skip
@_lang_option
def history(path: str | None, verify: bool, as_json: bool, limit: int, lang: str | None) -> None:
    """List the games saved on this computer, newest first.

    One line per transcript: its number (p2pcards replay N shows it), date,
    game, players (yours marked, and those who left), result, and whether the
    transcript verifies. Each file's verdict is kept in the data directory, so
    the next listing audits only new or changed files. PATH lists another data
    directory or folder of transcripts.
    """
    from p2pcards import history as hist
    from p2pcards.net import storage
    from p2pcards.safetext import clean
    from p2pcards.ui.i18n import Translator

    tr = Translator(_language(lang))
    folder = hist.transcripts_folder(Path(path)) if path else storage.data_dir() / "transcripts"
    found = hist.find(folder)
    shown, older = found[:limit], len(found) - min(len(found), limit)
    if not shown:
        if as_json:
            _echo("[]")
        else:
            _echo(tr("hist_none", folder=clean(str(folder), 200)))
        return
    verdicts = hist.Verdicts(storage.data_dir() / hist.VERDICTS_FILE) if verify else None
    todo = [e for e in shown if verdicts is not None and verdicts.get(hist.digest_of(e.path) or "") is None]
    if len(todo) > 3 and not as_json:
        _echo(tr.n("hist_verifying", len(todo), n=len(todo)), err=True)
    bots = storage.bot_transcripts()
    if len(todo) > 3:
        with click.progressbar(shown, label=tr("hist_auditing"), file=sys.stderr) as bar:
            for entry in bar:
                hist.read(entry, verify=True, verdicts=verdicts, bot_files=bots)
    else:
        for entry in shown:
            hist.read(entry, verify=verify, verdicts=verdicts, bot_files=bots)
    if verdicts is not None:
        verdicts.save()
    if as_json:
        _echo_json([e.to_dict(k) for k, e in enumerate(shown, start=1)])
        return
    import shutil

    from p2pcards.ui.render import wrap

    columns = shutil.get_terminal_size((hist.WIDTH + 1, 24)).columns  # (COLUMNS obeyed; 80 on a pipe)
    for line in hist.listing(shown, tr=tr, width=columns - 1):
        _echo(line)
    if older:
        _echo(wrap(tr.n("hist_older", older, n=older, more=limit + older), columns - 1))
    if not path and any(e.game is not None for e in shown):
        _echo(wrap(tr("hist_replay_hint"), columns - 1))
