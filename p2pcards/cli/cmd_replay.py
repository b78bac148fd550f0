"""``p2pcards replay``: a game shown hand by hand, in the terminal or as a web page."""

from __future__ import annotations

import sys

import click

from p2pcards.cli.group import (
    MESSAGE_LIMIT,
    _echo,
    _lang_option,
    _language,
    _Localized,
    _said,
    _transcript_named,
)

STOP_WORDS = frozenset({"q", "quit", "quitter", "esci", "stop"})
"""What ends a replay stepped hand by hand (in each language the program speaks)."""


@click.command(cls=_Localized)
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--step", is_flag=True, help="Wait for Enter after each hand, q to stop (in a terminal).")
@click.option(
    "--html",
    "html_path",
    type=click.Path(dir_okay=False, writable=True),
    default=None,
    help="Write the game as one self-contained web page to this file instead, to step through it.",
)
@_lang_option
def replay(file: str, step: bool, html_path: str | None, lang: str | None) -> None:
    """Show a game hand by hand with every card: the cards as dealt, every move, the scores.

    FILE is a transcript, or the number p2pcards history gives a game (1, the
    newest). The transcript is audited first: only what verifies is shown. With --html
    the same game is written as a web page that works offline. Exit status:
    0 shown, 1 the transcript is invalid (nothing is shown, no page is
    written), 2 it cannot be read (or the page cannot be written).
    """
    from p2pcards.errors import TranscriptError
    from p2pcards.protocol.audit import audit_file
    from p2pcards.replay import replay as replay_blocks
    from p2pcards.safetext import clean
    from p2pcards.ui.i18n import Translator
    from p2pcards.ui.render import layout_width, wrap

    tr = Translator(_language(lang))

    file = _transcript_named(file, tr)
    try:
        report = audit_file(file)
    except TranscriptError as e:
        _echo(tr("cmd_error", error=clean(_said(e, tr), MESSAGE_LIMIT)), err=True)
        sys.exit(2)
    if not report.valid and not report.incomplete:
        _echo(report.summary(tr).split("\n")[0], err=True)
        _echo(tr("replay_not_shown"), err=True)
        if html_path is not None:
            _echo(tr("replay_no_page", path=clean(html_path, MESSAGE_LIMIT)), err=True)
        sys.exit(1)
    if html_path is not None:
        from p2pcards.replay_html import write_page

        try:
            write_page(report, html_path, tr)
        except OSError as e:
            path = clean(html_path, MESSAGE_LIMIT)
            _echo(tr("replay_cannot_write", path=path, error=e), err=True)
            sys.exit(2)
        hands = report.hands_verified
        _echo(tr.n("replay_wrote", hands, path=clean(html_path, MESSAGE_LIMIT), n=hands))
        return
    record, width = report.to_record(), layout_width()
    blocks = list(replay_blocks(record, width, tr))
    for i in range(len(blocks)):
        if layout_width() != width:  # the terminal was resized: what is left fits its new width
            width = layout_width()
            blocks = list(replay_blocks(record, width, tr))
        block = blocks[i]
        for line in block:
            _echo(line)
        _echo("")
        if step and 0 < i < len(blocks) - 1 and sys.stdin.isatty():
            try:
                # (folded at its spaces, room left for the answer: a narrow terminal cut it)
                typed = input(wrap(tr("replay_press_enter"), layout_width() - 3) + " ")
            except EOFError:  # Ctrl-D: the replay stops here
                _echo("")
                return
            except KeyboardInterrupt:  # Ctrl-C: stops too, said and ended as every interrupted command
                _echo("")
                _echo(tr("cmd_interrupted"), err=True)
                sys.exit(130)
            if typed.strip().casefold() in STOP_WORDS:
                return
