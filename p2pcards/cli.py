"""The ``p2pcards`` command line: one click group, errors turned into one line."""

from __future__ import annotations

import contextlib
import errno
import inspect
import io
import os
import sys
import textwrap
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import click

from p2pcards.protocol.messages import MAX_CLOCK

MESSAGE_LIMIT = 500
NAME_LIMIT = 40
"""Longest error line shown; errors may quote what a peer sent (a refusal, a name)."""


def _check_name(name: str) -> str:
    """A usable name for the table, or UsageError: the other nodes would refuse the rest."""
    from p2pcards.errors import UsageError
    from p2pcards.protocol.messages import MAX_NAME
    from p2pcards.safetext import has_unsafe

    name = name.strip()[:MAX_NAME].strip()
    if not name:
        raise UsageError("a name cannot be empty")
    if has_unsafe(name):
        raise UsageError("a name cannot contain control, bidi or invisible characters")
    return name


def _usable_name(name: str) -> str:
    """``--name`` checked as the table will check it: a bad one is a usage error (exit 2)."""
    from p2pcards.errors import UsageError

    try:
        return _check_name(name)
    except UsageError as e:
        raise click.BadParameter(str(e), param_hint="'--name'") from None


NODE_EXIT_CODES = (
    "Exit status: 0 the match ended, or you left it; 1 it stopped for another reason "
    "(the others named, or a timeout); 2 a mistake on the command line; 130 interrupted (Ctrl-C)."
)


# --- help in the player's language -----------------------------------------

_LANG_META = "p2pcards.lang"


def _lang_in(args: list[str]) -> str | None:
    """The value of ``--lang`` on the command line, read before click parses it (``--help`` is
    answered first, whatever the order of the options)."""
    for i, arg in enumerate(args):
        if arg == "--":
            break
        if arg == "--lang" and i + 1 < len(args):
            return args[i + 1]
        if arg.startswith("--lang="):
            return arg.split("=", 1)[1]
    return None


def help_lang(ctx: click.Context | None = None) -> str:
    """The language of the help: ``--lang``, else P2PCARDS_LANG, else the locale's; English otherwise."""
    from p2pcards.ui.i18n import DEFAULT_LANG, LANGS, detect_lang

    for value in (ctx.meta.get(_LANG_META) if ctx is not None else None, os.environ.get("P2PCARDS_LANG")):
        if value and value.lower() in LANGS:
            return value.lower()
        if value:
            return DEFAULT_LANG
    return detect_lang()


def _help_texts(command: click.Command, name: str, ctx: click.Context) -> list[tuple[str, str]]:
    """(key, English) of every help text of a command: its help, epilog and options."""
    out = []
    if command.help:
        out.append((f"help_{name}", inspect.cleandoc(command.help)))
    if command.epilog:
        out.append((f"help_{name}_epilog", inspect.cleandoc(command.epilog)))
    for param in command.get_params(ctx):
        text = getattr(param, "help", None)
        if text and not getattr(param, "hidden", False):
            option = "help" if param.name == "_click_default_help" else param.name  # (click's -h)
            out.append((f"help_{name}_{option}", inspect.cleandoc(text)))
    return out


def help_messages() -> list[tuple[str, str]]:
    """(key, English) of every help text of the command line, each English text once (the
    options that host, join and resume share are translated once)."""
    seen: dict[str, str] = {}
    commands = [("main", main), *((n, main.commands[n]) for n in sorted(main.commands))]
    for name, command in commands:
        with click.Context(command, info_name=name) as ctx:
            for key, text in _help_texts(command, name, ctx):
                seen.setdefault(text, key)
    return [(key, text) for text, key in seen.items()]


def _say_help(text: str | None, tr: Any, keys: dict[str, str]) -> str | None:
    """``text`` in the translator's language (as it is, when it is no message of the catalogs)."""
    if not text:
        return text
    english = inspect.cleandoc(text)
    key = keys.get(english)
    return tr.text(key, english) if key else text


class _Localized(click.Command):
    """A command whose help is written in the player's language."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        found = _lang_in(args)
        if found is not None:
            ctx.meta[_LANG_META] = found
        return super().parse_args(ctx, args)

    def format_help(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from p2pcards.ui.i18n import Translator

        tr = Translator(help_lang(ctx))
        keys = {text: key for key, text in help_messages()}
        with contextlib.ExitStack() as stack:
            for obj, attr in [(self, "help"), (self, "epilog"), *((p, "help") for p in self.get_params(ctx))]:
                original = getattr(obj, attr, None)
                if original:
                    setattr(obj, attr, _say_help(original, tr, keys))
                    stack.callback(setattr, obj, attr, original)
            ctx.meta["p2pcards.tr"], ctx.meta["p2pcards.keys"] = tr, keys
            super().format_help(ctx, formatter)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from p2pcards.ui.i18n import Translator

        tr = ctx.meta.get("p2pcards.tr") or Translator(help_lang(ctx))
        pieces = " ".join(self.collect_usage_pieces(ctx))
        formatter.write_usage(ctx.command_path, pieces, tr("click_usage") + " ")

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        tr = ctx.meta["p2pcards.tr"]
        rows = []
        for param in self.get_params(ctx):
            record = param.get_help_record(ctx)
            if record is not None and not isinstance(param, click.Argument):
                said = tr("click_default") + " "
                text = record[1].replace("[default: ", f"[{said}").replace("; default: ", f"; {said}")
                rows.append((record[0], text))
        if rows:
            with formatter.section(tr("click_options")):
                formatter.write_dl(rows)


class _LocalizedGroup(_Localized, click.Group):
    """The ``p2pcards`` group: its help and the list of its commands in the player's language."""

    command_class = _Localized

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        super().format_options(ctx, formatter)
        self.format_commands(ctx, formatter)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        tr, keys = ctx.meta["p2pcards.tr"], ctx.meta["p2pcards.keys"]
        listed = [(n, self.get_command(ctx, n)) for n in self.list_commands(ctx)]
        commands = [(n, c) for n, c in listed if c is not None and not c.hidden]
        if not commands:
            return
        limit = formatter.width - 6 - max(len(n) for n, _ in commands)
        rows = []
        for name, command in commands:
            original = command.help
            command.help = _say_help(original, tr, keys)
            try:
                rows.append((name, command.get_short_help_str(limit)))
            finally:
                command.help = original
        with formatter.section(tr("click_commands")):
            formatter.write_dl(rows)


    def main(self, args: Any = None, prog_name: str | None = None, complete_var: str | None = None,
             standalone_mode: bool = True, **extra: Any) -> Any:  # fmt: skip
        """As click's own, with its errors said in the player's language (``Error:``, the usage,
        ``Try ... --help``, an unknown option, a missing argument, an invalid value)."""
        if not standalone_mode:
            return super().main(args, prog_name, complete_var, False, **extra)
        from p2pcards.ui.i18n import LANGS, Translator

        found = _lang_in(list(sys.argv[1:] if args is None else args))
        tr = Translator(found.lower() if found and found.lower() in LANGS else help_lang())
        try:
            rv = super().main(args, prog_name, complete_var, False, **extra)
        except click.ClickException as e:
            _show_error(e, tr)
            sys.exit(e.exit_code)
        except click.Abort:
            click.echo(tr("click_aborted"), err=True)
            sys.exit(1)
        sys.exit(rv if isinstance(rv, int) else 0)


def _show_error(error: click.ClickException, tr: Any) -> None:
    """What click's ``error.show()`` prints, in the translator's language."""
    ctx = error.ctx if isinstance(error, click.UsageError) else None
    if ctx is not None:
        hint = ""
        if ctx.command.get_help_option(ctx) is not None:
            option = max(ctx.command.get_help_option_names(ctx), key=len)
            hint = tr("click_try", command=ctx.command_path, option=option) + "\n"
        click.echo(f"{ctx.get_usage()}\n{hint}", err=True, color=ctx.color)
    click.echo(tr("cmd_error", error=_click_message(error, tr)), err=True, color=ctx.color if ctx else None)


def _click_message(error: click.ClickException, tr: Any) -> str:
    """The message of one of click's errors in the translator's language (the words a value's
    own check gives stay as they are)."""
    import re

    def possibilities(found: list[str] | None) -> str:
        if not found:
            return ""
        names = ", ".join(repr(p) for p in sorted(found))
        return " " + tr.n("click_did_you_mean", len(found), options=names)

    if isinstance(error, click.NoSuchOption):
        return tr("click_no_such_option", name=repr(error.option_name)) + possibilities(error.possibilities)
    if isinstance(error, click.exceptions.NoSuchCommand):
        return tr("click_no_such_command", name=repr(error.command_name)) + possibilities(error.possibilities)
    if isinstance(error, click.MissingParameter) and not error.message:
        hint = error.param_hint
        if hint is None and error.param is not None:
            hint = error.param.get_error_hint(error.ctx)
        kind = error.param_type or (error.param.param_type_name if error.param is not None else "parameter")
        shown = hint if isinstance(hint, str) else " / ".join(f"'{h}'" for h in hint or ())
        key = {"argument": "click_missing_argument", "option": "click_missing_option"}.get(kind)
        if key is not None and shown:
            return tr(key, name=shown)
        return error.format_message()
    if isinstance(error, click.BadParameter) and not isinstance(error, click.MissingParameter):
        hint = error.param_hint
        if hint is None and error.param is not None:
            hint = error.param.get_error_hint(error.ctx)
        if hint is None:
            return tr("click_invalid_value", message=error.message)
        shown = hint if isinstance(hint, str) else " / ".join(f"'{h}'" for h in hint)
        return tr("click_invalid_value_for", name=shown, message=error.message)
    extra = re.fullmatch(r"Got unexpected extra arguments? \((.*)\)", error.message)
    if extra is not None:
        words = extra.group(1).split(" ")
        return tr.n("click_extra_arguments", len(words), arguments=extra.group(1))
    return error.format_message()


@click.group(cls=_LocalizedGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="p2pcards")
def main() -> None:
    """Peer-to-peer card games with no server and no trusted dealer."""
    _fallback_streams()


def _fallback_streams() -> None:
    """On a terminal that is not UTF-8 nothing may crash: what the output's encoding lacks
    is written as its ASCII look-alike (``♠`` as ``S``), what the input cannot decode as ``?``."""
    from p2pcards.ui.render import FALLBACK_ERRORS

    for stream in (sys.stdout, sys.stderr):
        if isinstance(stream, io.TextIOWrapper) and stream.errors == "strict":
            with contextlib.suppress(ValueError, OSError):
                stream.reconfigure(errors=FALLBACK_ERRORS)
    if isinstance(sys.stdin, io.TextIOWrapper) and sys.stdin.errors == "strict":
        with contextlib.suppress(ValueError, OSError):
            sys.stdin.reconfigure(errors="replace")


def _echo(text: str = "", *, err: bool = False) -> None:
    """``click.echo`` of text the stream can print: on an ASCII terminal ``✓`` is ``+``, and
    so on (click writes UTF-8 to a stream it finds ASCII, which such a terminal garbles)."""
    from p2pcards.ui.render import encodable

    stream = sys.stderr if err else sys.stdout
    click.echo(encodable(text, getattr(stream, "encoding", None)), err=err)


_LANG_HELP = "Language: en, fr or it (default: from LC_ALL / LANG)."

_lang_option = click.option(
    "--lang", default=None, envvar="P2PCARDS_LANG", metavar="[en|fr|it]", help=_LANG_HELP
)
"""``--lang`` of every command."""


def _language(lang: str | None) -> str:
    """The language asked for (``--lang`` or P2PCARDS_LANG), else the locale's; a usage error if unknown."""
    from p2pcards.ui.i18n import LANGS, detect_lang

    if lang is not None and lang.lower() not in LANGS:
        raise click.BadParameter(f"unknown language {lang!r}; choose from {', '.join(LANGS)}",
                                 param_hint="'--lang'")  # fmt: skip
    return lang.lower() if lang else detect_lang()


# --- play -------------------------------------------------------------------
# (owned by the local-game work; see p2pcards/ui/)


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


@main.command(epilog=_PLAY_RULES_EPILOG)
@click.option(
    "--game",
    "game_name",
    type=click.Choice(["nines", "neuf"]),
    default="nines",
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
@click.option("-b", "--bot", default="heuristic", show_default=True, metavar="[heuristic|random]",
              help="Bots: heuristic or random.")  # fmt: skip
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
    bot: str,
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
    import sys
    from pathlib import Path

    from p2pcards.bots import BOT_NAMES
    from p2pcards.errors import UsageError
    from p2pcards.games.base import check_players, game
    from p2pcards.ui.local import PlayOptions, play_local

    # A mistake on the command line is a usage error (exit 2, with the usage), as click's own.
    spec = game(game_name)
    if players is None:
        players = 4 if spec.max_players >= 4 else spec.max_players
    try:
        check_players(spec, players)
    except UsageError as e:
        raise click.BadParameter(str(e), param_hint="'-n' / '--players'") from None
    if bot not in BOT_NAMES:
        raise click.BadParameter(f"unknown bot {bot!r}; choose from {', '.join(BOT_NAMES)}",
                                 param_hint="'-b' / '--bot'")  # fmt: skip
    try:
        table_rules = spec.parse_rules(rules)
    except UsageError as e:
        raise click.BadParameter(str(e), param_hint="'-r' / '--rule'") from None
    if offline and transcript is not None:
        raise click.BadParameter("an --offline game has no transcript to save", param_hint="'--transcript'")
    if delay is not None and not watch:
        raise click.BadParameter("paces a watched match: use it with --watch", param_hint="'--delay'")
    language = _language(lang)
    if name is not None:
        name = _usable_name(name)
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


# --- simulate ---------------------------------------------------------------
# (owned by the simulator work; see p2pcards/sim.py)

_SIM_RULES_HELP = (
    "A rule option of the game, repeatable. Nines: target=N, hands=N, tie=share|playoff, "
    "draw-until-playable, action-cards, double-nines, stacking-nines (needs double-nines), hard-nines, "
    "no-nine-out. Le Neuf: trumps=HDSCN (the rotation, N for no trump), exchange=open|blind, start=N."
)


@main.command()
@click.option("--game", "game_name", type=click.Choice(["nines", "neuf"]), default="nines", show_default=True,
              help="The game: nines (2 to 6 players) or neuf (Le Neuf, 3 players).")  # fmt: skip
@click.option("-n", "--players", type=click.IntRange(2, 6), default=None,
              help="Seats at the table: 2 to 6 for Nines (default 4), 3 for Le Neuf.")  # fmt: skip
@click.option("-g", "--games", type=click.IntRange(min=1), default=1000, show_default=True,
              help="Matches to play.")  # fmt: skip
@click.option("-b", "--bots", default="heuristic,random", show_default=True,
              help="Comma-separated strategies, cycled over the seats and rotated every match.")  # fmt: skip
@click.option("-s", "--seed", type=int, default=0, show_default=True, help="Same seed, same numbers.")
@click.option("-r", "--rule", "rules", multiple=True, metavar="RULE[=VALUE]", help=_SIM_RULES_HELP)
@click.option("--json", "as_json", is_flag=True, help="Print the result as JSON instead of a table.")
@_lang_option
def simulate(
    game_name: str,
    players: int | None,
    games: int,
    bots: str,
    seed: int,
    rules: tuple[str, ...],
    as_json: bool,
    lang: str | None,
) -> None:
    """Play many bot-only matches of Nines or Le Neuf; report win rates and speed.

    A strategy's win rate is its wins per seat held; a shared win counts 1/k
    to each of the k tied winners.
    """
    import json

    from p2pcards import sim
    from p2pcards.bots import BOT_NAMES
    from p2pcards.errors import RuleOptionError, UsageError
    from p2pcards.games.base import check_players, game

    spec = game(game_name)
    if players is None:
        players = 4 if spec.max_players >= 4 else spec.max_players
    try:
        check_players(spec, players)
    except UsageError as e:
        raise click.BadParameter(str(e), param_hint="'--players'") from None
    names = [b.strip() for b in bots.split(",") if b.strip()]
    if not names:
        raise click.BadParameter("name at least one bot", param_hint="'--bots'")
    for b in names:
        if b not in BOT_NAMES:
            raise click.BadParameter(
                f"unknown bot {b!r}; choose from {', '.join(BOT_NAMES)}", param_hint="'--bots'"
            )
    try:
        table_rules = spec.parse_rules(rules)
    except RuleOptionError as e:
        raise click.BadParameter(str(e), param_hint="'--rule'") from None
    try:
        result = sim.simulate(players, games, names, seed=seed, rules=table_rules, game=spec.name)
    except UsageError as e:
        raise click.ClickException(str(e)) from None
    if as_json:  # (for programs: its words stay English)
        click.echo(json.dumps(result.to_dict(), indent=2))
    else:
        from p2pcards.ui.i18n import Translator

        click.echo(result.format_table(Translator(_language(lang))))


# --- audit ------------------------------------------------------------------


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option(
    "--json", "as_json", is_flag=True, help="Print the full-information record (docs/record.md) as JSON."
)
@_lang_option
def audit(file: str, as_json: bool, lang: str | None) -> None:
    """Verify a game's signed transcript offline, and say what was checked.

    Exit status: 0 valid (a finished game, every record verified); 1 invalid
    (a problem was found: each names the seat at fault, or nobody, and the
    record; damage to the file's structure is one, with its byte offset) or
    incomplete (the game or the file stops before the end, and no fault is
    proven); 2 the file cannot be read or is not a p2pcards transcript.
    """
    import sys

    from p2pcards.errors import TranscriptError
    from p2pcards.protocol.audit import audit_file
    from p2pcards.protocol.fingerprint import TableFingerprint
    from p2pcards.safetext import clean
    from p2pcards.ui.i18n import Translator

    tr = Translator(_language(lang))
    try:
        report = audit_file(file)
    except TranscriptError as e:
        _echo(tr("cmd_error", error=clean(str(e), MESSAGE_LIMIT)), err=True)
        sys.exit(2)
    if as_json:  # (the record is for programs: its words stay English)
        _echo_json(report.to_record())
    else:
        # Names and problems come from the players' records: one clean line each
        # (keeping the summary's own indentation).
        for line in report.summary(tr).split("\n"):
            indent = line[: len(line) - len(line.lstrip(" "))]
            _echo(indent + clean(line, 4 * MESSAGE_LIMIT) if line.strip() else "")
        fingerprint = TableFingerprint.of_table(report.table) if report.table is not None else None
        if fingerprint is not None:
            _echo(tr("fingerprint", fingerprint=fingerprint))
            for line in textwrap.wrap(report.comparison(say=tr), 78):
                _echo("  " + clean(line, 4 * MESSAGE_LIMIT))
    sys.exit(0 if report.valid else 1)


def _echo_json(document: object) -> None:
    """Print ``document`` as JSON (:func:`_json_for_terminal`); where the output's encoding lacks
    a character, every non-ASCII one is a ``\\uXXXX`` escape: the same document, never a crash."""
    import json

    text = _json_for_terminal(document)
    try:
        text.encode(getattr(sys.stdout, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        text = json.dumps(document, indent=2)
    click.echo(text)


def _json_for_terminal(document: object) -> str:
    """JSON whose strings keep their characters, except those a terminal would obey
    (C1 controls, bidi, invisible ones), written as ``\\uXXXX`` escapes: the same
    document for a JSON reader, inert on a screen. (``json`` escapes C0 itself.)"""
    import json

    from p2pcards.safetext import has_unsafe

    text = json.dumps(document, indent=2, ensure_ascii=False)
    if not has_unsafe(text.replace("\n", "")):  # the indentation's line breaks are the only C0 left
        return text
    return "".join(json.dumps(c)[1:-1] if c != "\n" and has_unsafe(c) else c for c in text)


# --- host and join ----------------------------------------------------------


_DISCOVERY_PORT = click.option(
    "--discovery-port",
    type=click.IntRange(1, 65535),
    default=None,
    envvar="P2PCARDS_DISCOVERY_PORT",
    hidden=True,
    help="UDP port of LAN discovery (default 7777; both ends must use the same).",
)
"""Hidden: host and join must agree on it (tests run their own)."""


def _network_options(f):  # type: ignore[no-untyped-def]
    """Options shared by ``host`` and ``join``."""
    options = [
        click.option("--name", default=None, help="Your name at the table (remembered for next time)."),
        click.option("-b", "--bot", default=None, metavar="[heuristic|random]",
                     help="Let a bot play this seat: heuristic or random."),
        click.option("--bind", default="", help="Address to listen on (default: all, IPv6 and IPv4)."),
        click.option(
            "--transcript",
            type=click.Path(dir_okay=False, writable=True),
            default=None,
            help="Save the signed transcript here (default: a file in the data directory).",
        ),
        click.option(
            "--turn-timeout",
            type=click.FloatRange(1, MAX_CLOCK),
            default=600,
            show_default=True,
            help="Seconds for a turn.",
        ),
        click.option(
            "--step-timeout",
            type=click.FloatRange(1, MAX_CLOCK),
            default=60,
            show_default=True,
            help="Seconds for any other step (shuffles, key reveals).",
        ),
        click.option(
            "--grace",
            type=click.FloatRange(1, MAX_CLOCK),
            default=120,
            show_default=True,
            help="Seconds a player whose connection broke has to come back before the match stops.",
        ),
        _lang_option,
        click.option(
            "--no-port-mapping",
            is_flag=True,
            envvar="P2PCARDS_NO_PORT_MAPPING",
            help="Do not ask the router (UPnP, NAT-PMP, PCP) to forward the port this seat listens on.",
        ),
    ]
    for option in reversed(options):
        f = option(f)
    return f


def _run_node(kind: str, run, *, name: str | None, bot: str | None, transcript: str | None, lang: str | None,
              turn_timeout: float, step_timeout: float, grace: float, bind: str,
              port: int, no_port_mapping: bool) -> None:  # fmt: skip
    """Set up identity, name, terminal and deciders, then run ``run(config)`` under trio."""
    import getpass
    import random
    import sys
    from pathlib import Path

    import trio

    from p2pcards.bots import BOT_NAMES
    from p2pcards.errors import P2PCardsError
    from p2pcards.net import storage
    from p2pcards.net.node import NodeConfig
    from p2pcards.net.runner import INTERRUPTED
    from p2pcards.net.session import Timeouts
    from p2pcards.safetext import clean
    from p2pcards.ui.i18n import Translator
    from p2pcards.ui.netgame import NetworkUI, bot_decider
    from p2pcards.ui.prompt import Console
    from p2pcards.ui.render import Style

    # Mistakes on the command line are usage errors (exit 2, with the usage), as click's own.
    language = _language(lang)
    if bot is not None and bot not in BOT_NAMES:
        raise click.BadParameter(f"unknown bot {bot!r}; choose from {', '.join(BOT_NAMES)}",
                                 param_hint="'-b' / '--bot'")  # fmt: skip
    if name is not None:
        name = _usable_name(name)
    tr = Translator(language)
    try:
        console = Console(
            tr=tr, style=Style.detect(), read=input, write=click.echo, echo=not sys.stdin.isatty()
        )
        if name is None:
            name = storage.remembered_name() or getpass.getuser() or "player"
        name = _check_name(name)
        identity = storage.load_identity()
        storage.remember_name(name)
        ui = NetworkUI(console, human=bot is None)
        decide = bot_decider(bot, random.Random()) if bot is not None else ui.decide
        config = NodeConfig(
            identity=identity,
            name=name,
            decide=decide,
            bot=bot is not None,
            ui=ui,
            timeouts=Timeouts(turn=turn_timeout, step=step_timeout, grace=grace),
            transcript=Path(transcript) if transcript else None,
            bind=bind,
            port=port,
            port_mapping=not no_port_mapping,
            on_progress=ui.progress,
            on_wait=ui.waiting,
            on_table_ready=ui.table_ready,
            leaving=ui.leaving,
            confirming=ui.confirming,
            leave_on_signals=True,
        )
        outcome = trio.run(run, config)
    except BaseException as e:  # trio nurseries wrap errors in groups: look at what is inside
        leaves = _leaves(e)
        if any(isinstance(x, KeyboardInterrupt) for x in leaves):
            click.echo(tr("cmd_interrupted"), err=True)
            sys.exit(130)
        ours = next((x for x in leaves if isinstance(x, P2PCardsError)), None)
        if ours is not None:  # may quote a peer: a host's refusal, a seat's name
            raise click.ClickException(clean(_said(ours, tr), MESSAGE_LIMIT)) from None
        system = next((x for x in leaves if isinstance(x, OSError)), None)
        if system is not None and system.errno == errno.EADDRINUSE:
            raise click.ClickException(_port_taken(kind, port, tr)) from None
        if system is not None:
            raise click.ClickException(f"{kind}: {system.strerror or system}") from None
        raise
    with contextlib.suppress(OSError):  # a terminal that was closed (SIGHUP) shows nothing
        ui.finished(outcome)
    if outcome.status == "aborted" and outcome.problem == INTERRUPTED:
        sys.exit(130)  # as a program stopped by Ctrl-C
    sys.exit(0 if outcome.status in ("over", "aborted", "left") else 1)


def _port_taken(kind: str, port: int, tr: Any) -> str:
    """What to do when the port to listen on is taken (rather than "Address already in use")."""
    if port:
        return tr("cmd_port_taken", kind=kind, port=port, other=port + 1 if port < 65535 else 7777)
    return tr("cmd_port_taken_resume", kind=kind)


def _said(error: BaseException, tr: Any) -> str:
    """An error's message in the player's language: a layer below the interface that raises
    it with a :class:`~p2pcards.protocol.notice.Notice` gives its key and values."""
    from p2pcards.protocol.notice import Notice

    message = error.args[0] if len(error.args) == 1 else None
    return tr(message.key, **message.values) if isinstance(message, Notice) else str(error)


def _leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, or the exception itself."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for sub in error.exceptions for leaf in _leaves(sub)]
    return [error]


DEFAULT_PORT = 7777
"""The host's port when an address names none (``host``'s default port)."""


def _parse_address(address: str) -> tuple[str, int]:
    """HOST:PORT, [IPv6]:PORT, or a host alone (then port 7777, ``host``'s default)."""
    a = address.strip()
    host, port = a, str(DEFAULT_PORT)
    if a.startswith("["):
        close = a.find("]")
        host, rest = (a[1:close], a[close + 1 :]) if close > 0 else ("", "")
        if rest:
            port = rest[1:] if rest.startswith(":") else ""
    elif a.count(":") == 1:
        host, port = a.split(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise click.BadParameter(
            f"{address!r} is not HOST or HOST:PORT with a port from 1 to 65535"
            " (for example 203.0.113.5:7777), nor an invitation code (43-robin-maple)"
        )
    return host, int(port)


CODE_TRIES = 3
"""How many times a person may type the invitation code before ``join`` gives up."""


def _ask_code(code: str | None, tr: Any) -> str:
    """The invitation code, asked for when it was not given."""
    if code:
        return code
    if not sys.stdin.isatty():
        raise click.UsageError(tr("join_no_code"))
    click.echo(tr("join_ask_code"))
    return _type_code(tr)


def _type_code(tr: Any) -> str:
    from p2pcards.net.words import WORDS
    from p2pcards.ui.keyboard import ask_code

    while True:
        try:
            typed = ask_code(tr("join_code_prompt"), WORDS)
        except EOFError:
            raise click.Abort() from None
        if typed:
            return typed


async def _joined_asking_again(join: Callable[[str], Awaitable[Any]], code: str, typed: bool, tr: Any) -> Any:
    """``join(code)``; when the code was typed here and the host says it is wrong, the
    person types it again (``CODE_TRIES`` in all) instead of starting over."""
    from p2pcards.errors import JoinRefused

    for attempt in range(1, CODE_TRIES + 1):
        try:
            return await join(code)
        except BaseException as e:  # (trio may wrap it in an exception group)
            refused = next((x for x in _leaves(e) if isinstance(x, JoinRefused)), None)
            if not typed or refused is None or refused.reason != "wrong-code" or attempt == CODE_TRIES:
                raise
        left = CODE_TRIES - attempt
        click.echo(tr.n("join_wrong_code", left, left=left))
        import trio

        code = await trio.to_thread.run_sync(_type_code, tr)
    raise AssertionError("unreachable")


INVITATION_WIDTH = 80
"""The invitation fits a terminal of 80 columns, in every language."""


def invitation_lines(tr: Any, *, game: str, players: int, code: str, port: int, where: str, others: list[str],
                     mapped: Any, discovering: bool, command: str) -> list[str]:  # fmt: skip
    """What the host prints for the others: the command to join, and how the internet reaches it."""
    from p2pcards.net.addresses import show_address

    lines: list[str] = []

    def say(text: str) -> None:  # each line folded to 80 columns, a continued line indented by one
        for line in text.split("\n"):
            lines.extend(textwrap.wrap(line, INVITATION_WIDTH, subsequent_indent=" ", break_on_hyphens=False))

    say(tr("host_hosting", game=game, players=players, port=port))
    say(tr("host_code", code=code))
    say(tr("host_others_join"))
    lines.append(f"  {command} join {show_address(where, port)} --code {code}")
    if where == "ADDRESS":
        say(tr("host_address_hint"))
    elif others:
        say(tr("host_other_addresses", addresses=", ".join(others)))
    m = mapped.mapping if mapped is not None else None
    if m is not None and m.behind_another_router:
        outside = show_address(m.external_address, m.external_port)
        say(tr("host_double_nat", outside=outside, how=m.method))
    elif m is not None:
        say(tr("host_internet"))
        lines.append(f"  {command} join {show_address(m.external_address, m.external_port)} --code {code}")
        say(tr("host_mapped", port=port, how=m.method))
    elif where != "ADDRESS" and _is_loopback(where):
        say(tr("host_loopback"))
    elif where != "ADDRESS" and _is_private(where):
        if mapped is not None and mapped.enabled:
            say(tr("host_no_mapping", port=port, why="; ".join(mapped.tried)))
        else:
            say(tr("host_private", port=port))
    if discovering:  # a command is never folded: it goes on a line of its own when it does not fit
        lan = f"{command} join {code}"
        said = tr("host_lan", command=lan)
        if len(said) <= INVITATION_WIDTH:
            lines.append(said)
        else:
            before, _, after = tr("host_lan", command="\0").partition("\0")
            say(before.rstrip())
            lines.append(f"  {lan}{after}")
    say(tr("host_env"))
    return lines


def _local_addresses() -> list[str]:
    """This machine's IPv4 addresses, the one its default route uses first (no packet is sent)."""
    import socket

    found: list[str] = []
    with contextlib.suppress(OSError), socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.connect(("192.0.2.1", 9))  # TEST-NET: connecting a UDP socket only picks a route
        found.append(probe.getsockname()[0])
    with contextlib.suppress(OSError):
        for info in socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET):
            if info[4][0] not in found:
                found.append(str(info[4][0]))
    return [a for a in found if a != "0.0.0.0"]


def _is_loopback(address: str) -> bool:
    """``127.0.0.1``, ``::1``: an address that only this computer reaches."""
    import ipaddress

    try:
        return ipaddress.ip_address(address.split("%")[0]).is_loopback
    except ValueError:
        return address == "localhost"


def _is_private(address: str) -> bool:
    import ipaddress

    try:
        return ipaddress.ip_address(address).is_private
    except ValueError:
        return False


def _command_name() -> str:
    """How to run this p2pcards again: ``p2pcards`` if that is on the PATH, else its path."""
    import shutil

    me = Path(sys.argv[0]).resolve()
    found = shutil.which("p2pcards")
    if found is not None and Path(found).resolve() == me:
        return "p2pcards"
    return str(me) if me.name == "p2pcards" else "p2pcards"


@main.command(epilog=NODE_EXIT_CODES)
@click.option(
    "--game",
    "game_name",
    type=click.Choice(["nines", "neuf"]),
    default="nines",
    show_default=True,
    help="The game: nines (2 to 6 players) or neuf for Le Neuf (3 players).",
)
@click.option(
    "-n",
    "--players",
    type=int,
    default=None,
    help="Seats at the table: 2 to 6 for Nines (default 4); Le Neuf is for 3.",
)
@click.option(
    "-p", "--port", type=click.IntRange(0, 65535), default=7777, show_default=True, help="Port to listen on."
)
@click.option(
    "-r",
    "--rule",
    "rules",
    multiple=True,
    metavar="RULE",
    help="Rule option of the game, repeatable (see play).",
)
@click.option(
    "--code", envvar="P2PCARDS_CODE", default=None, help="Use this invitation code instead of a new one."
)
@click.option(
    "--no-discovery",
    is_flag=True,
    help="Do not answer searches on this network for the code's number (then the others need the address).",
)
@_DISCOVERY_PORT
@_network_options
def host(
    game_name: str,
    players: int | None,
    port: int,
    rules: tuple[str, ...],
    code: str | None,
    no_discovery: bool,
    discovery_port: int | None,
    **opts,
) -> None:  # type: ignore[no-untyped-def]
    """Host a table of Nines or Le Neuf: print an invitation, wait for the others, play.

    The others join with the command printed; the game and its rules come
    from the host. On the same network the code alone finds this host
    (p2pcards join 43-robin-maple): while its lobby is open, the host answers
    searches for the code's number (never its words) on UDP port 7777.
    """
    import functools

    from p2pcards.errors import UsageError
    from p2pcards.games.base import check_players, game
    from p2pcards.net import discovery
    from p2pcards.net.node import host_game
    from p2pcards.net.words import new_code
    from p2pcards.ui.i18n import Translator

    spec = game(game_name)
    if players is None:
        players = 4 if spec.max_players >= 4 else spec.max_players
    try:
        check_players(spec, players)
    except UsageError as e:
        raise click.BadParameter(str(e), param_hint="'-n' / '--players'") from None
    try:
        table_rules = spec.parse_rules(rules)
    except UsageError as e:
        raise click.BadParameter(str(e), param_hint="'-r' / '--rule'") from None
    invite = code or new_code()
    bind = opts["bind"]

    from p2pcards.net.portmap import PortMapping

    def invitation(code: str, port: int, mapped: PortMapping | None, tr: Translator) -> None:
        others: list[str] = []
        if bind in ("0.0.0.0", "::", ""):
            found = _local_addresses()
            others = [a for a in found if not a.startswith("127.")]
            where = others.pop(0) if others else "ADDRESS"
        else:
            where = bind
        lines = invitation_lines(
            tr, game=spec.title, players=players, code=code, port=port, where=where, others=others,
            mapped=mapped, discovering=discovering, command=_command_name(),
        )  # fmt: skip
        for line in lines:
            click.echo(line)

    number = discovery.code_number(invite)
    udp_port = discovery_port or discovery.DISCOVERY_PORT
    discovering = False

    async def run(config):  # type: ignore[no-untyped-def]
        nonlocal discovering
        config.ui.on_invitation = functools.partial(invitation, tr=config.ui.console.tr)
        play = functools.partial(host_game, players=players, rules=table_rules, code=invite, game=spec.name)
        sockets = None
        tr = config.ui.console.tr
        if no_discovery:
            pass
        elif number is None:
            click.echo(tr("host_lan_off_no_number"), err=True)
        else:
            try:  # the table goes on without it: the others can still join at the address
                sockets = await discovery.open_responder(bind, udp_port)
            except UsageError as e:
                click.echo(tr("host_lan_off", why=_said(e, tr)), err=True)
            except OSError as e:
                click.echo(tr("host_lan_off_udp", port=udp_port, error=e.strerror or e), err=True)
        if sockets is None:
            return await play(config)
        discovering = True
        return await discovery.hosting(play, config, number=number, sockets=sockets)

    _run_node("host", run, port=port, **opts)


@main.command(epilog=NODE_EXIT_CODES)
@click.argument("address", required=False, metavar="[ADDRESS|CODE]")
@click.option(
    "--code",
    envvar="P2PCARDS_CODE",
    default=None,
    help="The invitation code (or set P2PCARDS_CODE; asked for if missing).",
)
@click.option(
    "-p",
    "--port",
    type=click.IntRange(0, 65535),
    default=0,
    help="Port to listen on for the other seats (default: any).",
)
@click.option(
    "--no-listen",
    is_flag=True,
    help="Accept no connection (when nobody can reach this computer): the others reach you through the host.",
)
@_DISCOVERY_PORT
@_network_options
def join(
    address: str | None, code: str | None, port: int, no_listen: bool, discovery_port: int | None, **opts
) -> None:  # type: ignore[no-untyped-def]
    """Join the table at ADDRESS (HOST:PORT) with its invitation code, or find it by the code alone.

    p2pcards join 43-robin-maple finds the host on this network: it asks
    (broadcast on UDP port 7777) which host has a code numbered 43, never
    sending the words, then proves the code to the one that answers. With no
    ADDRESS or CODE the code is asked for (or taken from P2PCARDS_CODE, which
    keeps it out of the process list) and the host is found the same way.

    The host chooses the game (Nines or Le Neuf) and its rules; this node
    learns them when it joins.
    """
    from p2pcards.net import discovery
    from p2pcards.net.addresses import show_address
    from p2pcards.net.node import join_game, resume_game, unfinished_games
    from p2pcards.protocol.lobby import normalize_code
    from p2pcards.safetext import clean
    from p2pcards.ui.i18n import Translator
    from p2pcards.ui.render import NAME_LIMIT as SHOWN_NAME

    tr = Translator(_language(opts["lang"]))
    if address is not None and discovery.code_number(address) is not None:
        if code and normalize_code(code) != normalize_code(address):
            raise click.UsageError(tr("join_two_codes"))
        address, code = None, address
    typed = not code
    if address is None:  # find the host on this network by the code's public number
        code = _ask_code(code, tr)
        number = discovery.code_number(code)
        if number is None:
            raise click.UsageError(tr("join_code_no_number"))
        udp_port = discovery_port or discovery.DISCOVERY_PORT
        unfinished = bool(unfinished_games())

        async def find_and_join(config):  # type: ignore[no-untyped-def]
            click.echo(tr("join_looking", code=discovery.shown(number)))
            try:
                hosts = await discovery.locate(code, port=udp_port, bind=opts["bind"])
            except discovery.NoHostAnswered as e:
                if unfinished:  # a started game's host answers no search: `resume` goes back into it
                    raise discovery.NoHostAnswered(tr("join_no_host_resume", error=_said(e, tr))) from None
                raise
            where = ", ".join(show_address(*h) for h in hosts)
            if len(hosts) == 1:
                click.echo(tr("join_found", where=where))
            else:  # an impostor among them gets one guess of the code, nothing more
                click.echo(tr("join_found_many", n=len(hosts), where=where))
            (host_name, host_port), *others = hosts

            async def join(code: str):  # type: ignore[no-untyped-def]
                where = {"host": host_name, "port": host_port, "alternatives": others}
                return await join_game(config, code=code, no_listen=no_listen, **where)

            return await _joined_asking_again(join, code, typed, tr)

        _run_node("join", find_and_join, port=port, **opts)
        return
    host_name, host_port = _parse_address(address)
    # The same command again after a crash: back into the game this node had not finished.
    earlier = [u for u in unfinished_games() if u.host_address == (host_name, host_port)]
    if earlier:
        names = ", ".join(clean(n, SHOWN_NAME) or "?" for n in earlier[0].names)  # the journal's roster
        click.echo(tr("join_resuming", address=clean(address, MESSAGE_LIMIT), names=names))
        _check_resumable(earlier[0].path, tr)

        async def resume(config):  # type: ignore[no-untyped-def]
            return await resume_game(config, earlier[0].path)

        _run_node("join", resume, port=0, **opts)
        return
    code = _ask_code(code, tr)

    async def run(config):  # type: ignore[no-untyped-def]
        async def join(code: str):  # type: ignore[no-untyped-def]
            return await join_game(config, host=host_name, port=host_port, code=code, no_listen=no_listen)

        return await _joined_asking_again(join, code, typed, tr)

    _run_node("join", run, port=port, **opts)


@main.command(epilog=NODE_EXIT_CODES)
@click.argument("which", required=False)
@click.option("--list", "list_only", is_flag=True, help="Only list the unfinished games.")
@_network_options
def resume(which: str | None, list_only: bool, **opts) -> None:  # type: ignore[no-untyped-def]
    """Go back into a game this computer had not finished (after a crash or a closed terminal).

    Every node keeps a journal of its game until the game ends. With no WHICH,
    the only unfinished game is resumed (or they are listed, if there are
    several); WHICH is a number from the list or a journal file. The others
    wait for a player who lost its connection (see --grace).
    """
    import datetime
    from pathlib import Path

    from p2pcards.net.node import resume_game, unfinished_games
    from p2pcards.safetext import clean
    from p2pcards.ui.i18n import Translator
    from p2pcards.ui.render import NAME_LIMIT as SHOWN_NAME

    tr = Translator(_language(opts["lang"]))
    games = unfinished_games()
    if which is not None and not which.isdigit():
        path = Path(which)
    else:
        if not games:
            click.echo(tr("resume_none"))
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
                game = clean(u.game, SHOWN_NAME)
                click.echo(tr("resume_line", i=i, when=when, game=game, at=at, names=names, seat=u.seat))
            if not list_only:
                click.echo(tr("resume_hint"))
            return
        index = int(which) if which is not None else 1
        if not 1 <= index <= len(games):
            raise click.BadParameter(tr("resume_choose", n=len(games)), param_hint="WHICH")
        path = games[index - 1].path
    _check_resumable(path, tr)

    async def run(config):  # type: ignore[no-untyped-def]
        return await resume_game(config, path)

    _run_node("resume", run, port=0, **opts)


def _check_resumable(path: Path, tr: Any) -> None:
    """Refuse a journal that cannot be resumed in one sentence naming the file, before
    anything runs: the journal stays as it is, so nothing of the game is lost (a mended
    copy, or a newer p2pcards, may still resume it). The network session is what
    :func:`p2pcards.net.node.resume_game` reads: the seats' addresses, the host's and
    the port this seat listened on."""
    from p2pcards.errors import TranscriptError
    from p2pcards.protocol.journal import read_journal
    from p2pcards.safetext import clean

    shown = clean(str(path), MESSAGE_LIMIT)
    try:
        header = read_journal(path.read_bytes()).header
    except OSError as e:
        raise click.ClickException(tr("resume_unreadable", path=shown, error=e.strerror or e)) from None
    except TranscriptError as e:
        raise click.ClickException(tr("resume_damaged", path=shown, error=e)) from None
    session = header.session
    seats, host = session.get("seats"), session.get("host_address")
    usable = (
        isinstance(seats, list)
        and len(seats) == len(header.roster)
        and all(isinstance(s, list) and len(s) in (2, 3) and type(s[1]) is int for s in seats)  # 3: with also
        and "host_address" in session
        and (host is None or (isinstance(host, list) and len(host) == 2 and type(host[1]) is int))
        and type(session.get("listen_port")) is int
    )
    if not usable:
        raise click.ClickException(tr("resume_no_session", path=shown))


# --- history ----------------------------------------------------------------
# (owned by the history work; see p2pcards/history.py)


@main.command()
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
    for line in hist.listing(shown, tr=tr):
        _echo(line)
    if older:
        _echo(tr.n("hist_older", older, n=older, more=limit + older))
    if not path and any(e.game is not None for e in shown):
        _echo(tr("hist_replay_hint"))


@main.command()
@click.argument("file", type=click.Path(dir_okay=False))
@click.option("--step", is_flag=True, help="Wait for Enter after each hand (in a terminal).")
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
    from p2pcards.ui.render import line_width

    tr = Translator(_language(lang))

    if not Path(file).exists():
        from p2pcards import history as hist
        from p2pcards.net import storage

        try:
            numbered = hist.numbered(file, storage.data_dir() / "transcripts")
        except LookupError as e:
            _echo(tr("cmd_error", error=clean(str(e), MESSAGE_LIMIT)), err=True)
            sys.exit(2)
        file = str(numbered) if numbered is not None else file
    try:
        report = audit_file(file)
    except TranscriptError as e:
        _echo(tr("cmd_error", error=clean(str(e), MESSAGE_LIMIT)), err=True)
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
            _echo(tr("replay_cannot_write", path=path, error=e.strerror or e), err=True)
            sys.exit(2)
        hands = report.hands_verified
        _echo(tr.n("replay_wrote", hands, path=clean(html_path, MESSAGE_LIMIT), n=hands))
        return
    blocks = list(replay_blocks(report.to_record(), line_width(), tr))
    for i, block in enumerate(blocks):
        for line in block:
            _echo(line)
        _echo("")
        if step and 0 < i < len(blocks) - 1 and sys.stdin.isatty():
            click.prompt(tr("replay_press_enter"), default="", show_default=False)


@main.command()
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
    for p in entries:
        games = tr.n("players_games", p.games, n=p.games, first=p.first, last=p.last)
        _echo(f"{clean(p.name, NAME_LIMIT):<20} {fingerprint(p.key)}  {games}")


if __name__ == "__main__":
    main()
