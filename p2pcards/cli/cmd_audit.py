"""``p2pcards audit``: a transcript verified offline."""

from __future__ import annotations

import sys
import textwrap

import click

from p2pcards.cli.group import (
    MESSAGE_LIMIT,
    _echo,
    _echo_json,
    _lang_option,
    _language,
    _Localized,
    _said,
    _to_terminal,
    _transcript_named,
)


@click.command(cls=_Localized)
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--json", "as_json", is_flag=True, help="Print the full-information record (docs/record.md) as JSON."
)
@_lang_option
def audit(file: str, as_json: bool, lang: str | None) -> None:
    """Verify a game's signed transcript offline, and say what was checked.

    FILE is a transcript, or the number p2pcards history gives a game (1, the
    newest).

    Exit status: 0 valid (a finished game, every record verified); 1 invalid
    (a problem was found: each names the seat at fault, or nobody, and the
    record; damage to the file's structure is one, with its byte offset) or
    incomplete (the game or the file stops before the end, and no fault is
    proven); 2 the file cannot be read or is not a p2pcards transcript.
    """

    from p2pcards.errors import TranscriptError
    from p2pcards.protocol.audit import audit_file
    from p2pcards.safetext import clean
    from p2pcards.ui.i18n import Translator

    tr = Translator(_language(lang))
    file = _transcript_named(file, tr)
    try:
        report = audit_file(file)
    except TranscriptError as e:
        _echo(tr("cmd_error", error=clean(_said(e, tr), MESSAGE_LIMIT)), err=True)
        sys.exit(2)
    if as_json:  # (the record is for programs: its words stay English)
        _echo_json(report.to_record())
    else:
        import shutil

        from p2pcards.ui.render import fingerprint_line, visible_len, wrap

        # The summary is folded for 80 columns; a narrower terminal gets it folded again.
        width = min(shutil.get_terminal_size((80, 24)).columns - 1, 79)
        summary = report.summary(tr)
        lines = summary.split("\n") if width >= 79 else _unfolded(summary)
        # Names and problems come from the players' records: one clean line each
        # (keeping the summary's own indentation).
        for line in lines:
            indent = line[: len(line) - len(line.lstrip(" "))]
            text = indent + clean(line, 4 * MESSAGE_LIMIT) if line.strip() else ""
            # (the verdict is one line whatever its length, for a program that reads it; a
            # person at a terminal gets it folded, as any line too wide)
            fits = visible_len(text) <= width or not _to_terminal()
            _echo(text if width >= 79 and fits else wrap(text, width))
        fingerprint = report.compared_fingerprint()
        if fingerprint is not None:
            said = tr("fingerprint", fingerprint=fingerprint)
            _echo(said if width >= 79 else fingerprint_line(said, fingerprint.text, width))
            for line in textwrap.wrap(report.comparison(say=tr), min(78, width - 2)):
                _echo("  " + clean(line, 4 * MESSAGE_LIMIT))
    sys.exit(0 if report.valid else 1)


def _unfolded(summary: str) -> list[str]:
    """The audit's summary with each line joined to its continuations again (the lines it
    folded at 80 columns, indented four spaces), to be folded anew for a narrower terminal."""
    lines: list[str] = []
    for line in summary.split("\n"):
        if line.startswith("    ") and not line.startswith("     ") and lines and lines[-1].strip():
            lines[-1] += " " + line.strip()
        else:
            lines.append(line)
    return lines
