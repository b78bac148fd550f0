"""The ``p2pcards`` group and what its commands share: help and click's errors in the player's
language, ``--lang``, names checked as the table checks them, and printing text and JSON that
any terminal shows."""

from __future__ import annotations

import contextlib
import inspect
import io
import os
import sys
from collections.abc import Iterator
from typing import Any

import click

MESSAGE_LIMIT = 500
NAME_LIMIT = 40
"""Longest error line shown; errors may quote what a peer sent (a refusal, a name)."""


def _check_name(name: str) -> str:
    """A usable name for the table, or UsageError: the other nodes would refuse the rest."""
    from p2pcards.errors import UsageError
    from p2pcards.protocol.messages import MAX_NAME
    from p2pcards.protocol.notice import Notice
    from p2pcards.safetext import has_unsafe

    name = name.strip()[:MAX_NAME].strip()
    if not name:
        raise UsageError(Notice("usage_name_empty"))
    if has_unsafe(name):
        raise UsageError(Notice("usage_name_unsafe"))
    return name


def _usable_name(name: str, lang: str | None = None) -> str:
    """``--name`` checked as the table will check it: a bad one is a usage error (exit 2),
    said in ``lang`` (the command's ``--lang``, else the environment's)."""
    from p2pcards.errors import UsageError
    from p2pcards.ui.i18n import Translator

    try:
        return _check_name(name)
    except UsageError as e:
        raise click.BadParameter(_said(e, Translator(_language(lang))), param_hint="'--name'") from None


def _to_terminal() -> bool:
    """Whether what a command prints is read on a terminal (by a person, who gets long lines
    folded), not by a program (which gets one line each)."""
    return sys.stdout.isatty()


def _said(error: BaseException, tr: Any) -> str:
    """An error's message in the player's language: a layer below the interface that raises
    it with a :class:`~p2pcards.protocol.notice.Notice` gives its key and values, and so does
    a usage error said by its key (a refused rule option, a bot's budget)."""
    from p2pcards.errors import UsageError
    from p2pcards.protocol.notice import message_of

    return str(tr.said(error if isinstance(error, UsageError) and error.key else message_of(error)))


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


def _say_metavar(metavar: str, tr: Any) -> str:
    """A metavar (``FILE``, ``[ADDRESS|CODE]``, ``INTEGER RANGE``) in the translator's language,
    word by word; the values of a choice (``[nines|neuf]``) are typed as they are, so they stay."""
    import re

    def word(m: re.Match[str]) -> str:
        key = "metavar_" + m.group(0).replace(" ", "_").lower()
        return str(tr(key)) if tr.has(key) else m.group(0)

    return re.sub(r"INTEGER RANGE|FLOAT RANGE|[A-Z]+", word, metavar)


@contextlib.contextmanager
def _metavars_said(command: click.Command, ctx: click.Context, tr: Any) -> Iterator[None]:
    """While inside: ``command``'s placeholders in the usage line and option list in the
    translator's language (put back after, as the help texts are)."""
    if ctx.meta.get("p2pcards.metavars"):  # already said (the usage line within the help)
        yield
        return
    with contextlib.ExitStack() as stack:
        for param in command.get_params(ctx):
            if getattr(param, "is_flag", False) or getattr(param, "count", False):
                continue
            original = param.metavar
            param.metavar = _say_metavar(original or param.make_metavar(ctx), tr)
            stack.callback(setattr, param, "metavar", original)
        for attr in ("options_metavar", "subcommand_metavar"):
            if isinstance(getattr(command, attr, None), str):
                stack.callback(setattr, command, attr, getattr(command, attr))
                setattr(command, attr, _say_metavar(getattr(command, attr), tr))
        ctx.meta["p2pcards.metavars"] = True
        stack.callback(ctx.meta.pop, "p2pcards.metavars", None)
        yield


SCRIPT_NAME = "P2PCARDS_SCRIPT"
"""Set by ``scripts/play`` to the name it was run by: ``p2pcards play`` is then called by that
name in its usage line and in the hint after an error, which a player can type as it is."""


HELP_NARROW = 52
"""Below this many columns click would still lay its help out in 50 and the terminal cut it
mid-word: the help takes the terminal's own width instead (:class:`_NarrowHelp`)."""


class _NarrowHelp(click.HelpFormatter):
    """click's help on a terminal narrower than :data:`HELP_NARROW`: every line within its
    width, each option or command on a line of its own with what it does folded below it (two
    columns would leave the second a few letters wide)."""

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        import textwrap

        lead = " " * self.current_indent
        usage = f"{'Usage: ' if prefix is None else prefix}{prog} {args}"
        lines = textwrap.wrap(usage, self.width, initial_indent=lead, subsequent_indent=lead + "    ",
                              break_long_words=False, break_on_hyphens=False)  # fmt: skip
        self.write("\n".join(lines) + "\n")

    def write_text(self, text: str) -> None:
        """As click's, but a block it would keep as written (``\\b``, a list of rule options in
        two columns) is laid out again: each option on its line, what it does below it."""
        import re

        if "\b" not in text:
            super().write_text(text)
            return
        for k, paragraph in enumerate(re.split(r"\n\s*\n", text)):
            if k:
                self.write_paragraph()
            if not paragraph.lstrip().startswith("\b"):
                super().write_text(paragraph)
                continue
            title, rows = None, []  # (term, what it does)
            for line in paragraph.lstrip()[1:].strip("\n").split("\n"):
                row = re.fullmatch(r"\s*(\S.*?) {2,}(\S.*)", line)
                if row is not None:
                    rows.append((row.group(1), row.group(2)))
                elif line.startswith("   ") and rows:  # (what the row above does, continued)
                    rows[-1] = (rows[-1][0], f"{rows[-1][1]} {line.strip()}")
                elif line.strip():
                    title = line.strip() if title is None else f"{title} {line.strip()}"
            if title is not None:
                super().write_text(title)
            with self.indentation():
                self.write_dl(rows)

    def write_dl(self, rows: Any, col_max: int = 30, col_spacing: int = 2) -> None:
        from p2pcards.ui.render import fill

        for first, second in rows:
            lead = " " * self.current_indent
            self.write("\n".join(fill(first, self.width, lead, lead + "  ")) + "\n")
            if second:
                self.write("\n".join(fill(second, self.width, lead + "    ")) + "\n")


class _Context(click.Context):
    def make_formatter(self) -> click.HelpFormatter:
        """click's formatter, or on a terminal narrower than :data:`HELP_NARROW` one as wide as
        the terminal (click would lay the help out in 50 columns all the same)."""
        import shutil

        columns = shutil.get_terminal_size().columns
        if self.terminal_width is not None or columns >= HELP_NARROW:
            return super().make_formatter()
        return _NarrowHelp(width=max(columns - 1, 12), max_width=self.max_content_width)

    @property
    def command_path(self) -> str:
        script = os.environ.get(SCRIPT_NAME)
        if script and self.info_name == "play" and self.parent is not None and self.parent.parent is None:
            return script
        return super().command_path


class _Localized(click.Command):
    """A command whose help is written in the player's language."""

    context_class = _Context

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
            stack.enter_context(_metavars_said(self, ctx, tr))
            super().format_help(ctx, formatter)

    def format_usage(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        from p2pcards.ui.i18n import Translator

        tr = ctx.meta.get("p2pcards.tr") or Translator(help_lang(ctx))
        with _metavars_said(self, ctx, tr):
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
        if isinstance(formatter, _NarrowHelp):  # (said below each command's name, folded)
            limit = 45
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
        from p2pcards.ui.i18n import DEFAULT_LANG, LANGS, Translator

        found = _lang_in(list(sys.argv[1:] if args is None else args))
        # An unknown --lang is refused in English, as its --help is, usage line and all (the
        # locale's language would say the refusal around words it cannot translate).
        known = found.lower() if found and found.lower() in LANGS else None
        tr = Translator(known or (DEFAULT_LANG if found else help_lang()))
        _SPOKEN.clear()  # (what an earlier command in this process chose is not this one's)
        try:
            try:
                rv = super().main(args, prog_name, complete_var, False, **extra)
            except click.ClickException as e:
                _show_error(e, Translator(_SPOKEN["lang"]) if "lang" in _SPOKEN else tr)
                sys.exit(e.exit_code)
            except click.Abort as e:
                # Ctrl-C at a prompt (click turns it into Abort): said and ended as every interrupted
                # command is ("Interrupted.", status 130).
                interrupted = isinstance(e.__cause__ or e.__context__, KeyboardInterrupt)
                click.echo(tr("cmd_interrupted" if interrupted else "click_aborted"), err=True)
                sys.exit(130 if interrupted else 1)
            sys.exit(rv if isinstance(rv, int) else 0)
        except SystemExit as e:
            exit_now_if_a_read_is_left(e.code)
            raise


def exit_now_if_a_read_is_left(code: object) -> None:
    """End the program at once, with status ``code``, if a read of the terminal is still in
    progress (a question withdrawn as the match ended, ``ui.keyboard.a_read_is_left``): its
    thread holds standard input, and the interpreter's shutdown would abort on it (status
    134). The exit functions run first (the terminal's modes are restored), and the output
    is flushed."""
    keyboard = sys.modules.get("p2pcards.ui.keyboard")  # (not loaded: no read was ever made)
    if keyboard is None or not keyboard.a_read_is_left():
        return
    if code is None:
        status = 0
    elif isinstance(code, int):
        status = code
    else:
        print(code, file=sys.stderr)
        status = 1
    import atexit

    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):
            stream.flush()
    os._exit(status)


_SPOKEN: dict[str, str] = {}
"""The language a command speaks once it knows more than its command line said (``resume``:
the one its journal names), for what :meth:`_Localized.main` says after it (``Error:``)."""


def speak(lang: str) -> None:
    """From now on this command speaks ``lang`` (one of ``LANGS``), its errors included."""
    _SPOKEN["lang"] = lang


def _show_error(error: click.ClickException, tr: Any) -> None:
    """What click's ``error.show()`` prints, in the translator's language."""
    if isinstance(error, click.exceptions.NoArgsIsHelpError):  # a command typed alone: its help
        click.echo(error.format_message(), err=True, color=error.ctx.color)
        return
    ctx = error.ctx if isinstance(error, click.UsageError) else None
    if ctx is not None:
        hint = ""
        if ctx.command.get_help_option(ctx) is not None:
            option = max(ctx.command.get_help_option_names(ctx), key=len)
            hint = tr("click_try", command=ctx.command_path, option=option) + "\n"
        click.echo(f"{ctx.get_usage()}\n{hint}", err=True, color=ctx.color)
        with _metavars_said(ctx.command, ctx, tr):  # ("Missing argument 'FILE'" names its placeholder)
            said = _click_message(error, tr)
    else:
        said = _click_message(error, tr)
    click.echo(tr("cmd_error", error=said), err=True, color=ctx.color if ctx else None)


def _click_message(error: click.ClickException, tr: Any) -> str:
    """The message of one of click's errors in the translator's language (the words a value's
    own check gives stay as they are)."""
    import re

    ctx = getattr(error, "ctx", None)
    command = ctx.command if isinstance(ctx, click.Context) else None
    hidden = {
        name
        for p in (command.params if command is not None else ())
        if getattr(p, "hidden", False)
        for name in (*p.opts, *p.secondary_opts)
    }

    def possibilities(found: list[str] | None) -> str:
        found = [p for p in found or () if p not in hidden]  # (an option --help does not list)
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
        message = _path_message(error.message, tr)
        if hint is None:
            return tr("click_invalid_value", message=message)
        shown = hint if isinstance(hint, str) else " / ".join(f"'{h}'" for h in hint)
        return tr("click_invalid_value_for", name=shown, message=message)
    needs = re.fullmatch(r"Option '(.*)' requires an argument\.", error.message)
    if needs is not None:
        return tr("click_option_needs_value", name=repr(needs.group(1)))
    extra = re.fullmatch(r"Got unexpected extra arguments? \((.*)\)", error.message)
    if extra is not None:
        words = extra.group(1).split(" ")
        return tr.n("click_extra_arguments", len(words), arguments=extra.group(1))
    return error.format_message()


_PATH_CHECKS = {
    "does not exist": "click_path_missing",
    "is a directory": "click_path_is_folder",
    "is a file": "click_path_is_file",
    "is not readable": "click_path_unreadable",
    "is not writable": "click_path_unwritable",
}
"""What :class:`click.Path` says of a path it refuses, and the key that says it in words."""


def _path_message(message: str, tr: Any) -> str:
    """``message`` in the translator's language when it is one of :class:`click.Path`'s own
    refusals (``File 'x' is a directory.``: a folder given for a transcript) or of click's
    checks of a number or a choice (``'x' is not a valid integer.``, ``-1 is not in the range
    0<=x<=60.``, ``'chess' is not one of 'nines', 'neuf'.``), else as it is."""
    import re

    found = re.fullmatch(r"(?:File|Directory|Path) ('.*') (" + "|".join(_PATH_CHECKS) + r")\.", message)
    if found is not None:
        return tr(_PATH_CHECKS[found.group(2)], path=found.group(1))
    found = re.fullmatch(r"(.+) is not a valid (integer|float)(?: range)?\.", message, re.DOTALL)
    if found is not None:
        key = "click_not_whole_number" if found.group(2) == "integer" else "click_not_number"
        return tr(key, value=found.group(1))
    found = re.fullmatch(r"(.+) is not in the range (\S+)\.", message, re.DOTALL)
    if found is not None:
        return tr("click_not_in_range", value=found.group(1), range=found.group(2))
    found = re.fullmatch(r"('.*') is not (?:one of )?('.*')\.", message, re.DOTALL)
    if found is not None:
        return tr("click_not_a_choice", value=found.group(1), choices=found.group(2))
    return message


_LANG_HELP = "Language: en, fr or it (default: from LC_ALL / LANG)."
_RESUME_LANG_HELP = "Language: en, fr or it (default: the one the game was played in)."
_GROUP_LANG_HELP = "Language of every command: en, fr or it (default: from LC_ALL / LANG)."

@click.group(cls=_LocalizedGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="p2pcards")
@click.option("--lang", "group_lang", default=None, metavar="[en|fr|it]", help=_GROUP_LANG_HELP)
def main(group_lang: str | None) -> None:
    """Peer-to-peer card games with no server and no trusted dealer."""
    _fallback_streams()
    if group_lang is not None:  # (before the command's name: the command's own --lang, for it)
        os.environ["P2PCARDS_LANG"] = _language(group_lang)


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


def _transcript_named(file: str, tr: Any) -> str:
    """The transcript ``file`` names: a file, or, where no such file exists, the number that
    ``p2pcards history`` gives a game (1, the newest). No such game: one line, status 2."""
    from pathlib import Path

    try:
        exists = Path(file).exists()
    except OSError:  # (a name too long, a folder that may not be opened: said when it is read)
        exists = True
    if exists:
        return file
    from p2pcards import history as hist
    from p2pcards.net import storage
    from p2pcards.safetext import clean

    try:
        numbered = hist.numbered(file, storage.data_dir() / "transcripts")
    except LookupError as e:
        _echo(tr("cmd_error", error=clean(_said(e, tr), MESSAGE_LIMIT)), err=True)
        sys.exit(2)
    return str(numbered) if numbered is not None else file


def _echo(text: str = "", *, err: bool = False) -> None:
    """``click.echo`` of text the stream can print: on an ASCII terminal ``✓`` is ``+``, and
    so on (click writes UTF-8 to a stream it finds ASCII, which such a terminal garbles)."""
    from p2pcards.ui.render import encodable, stream_encoding

    stream = sys.stderr if err else sys.stdout
    with _written():
        click.echo(encodable(text, stream_encoding(stream)), err=err)


OUTPUT_CLOSED = 141
"""The exit status once the reader of the output went away (``p2pcards audit FILE | head -1``):
a program killed by the pipe's signal (128 + SIGPIPE), as ``cat`` ends there, never a verdict."""

_CANNOT_WRITE = frozenset({"ENOSPC", "EDQUOT", "EFBIG", "EIO"})


@contextlib.contextmanager
def _written() -> Iterator[None]:
    """A write of the output: a reader gone away ends the program quietly (:data:`OUTPUT_CLOSED`),
    and an output that cannot take more (a full disk) is said on one line, status 2."""
    import errno

    try:
        yield
    except BrokenPipeError:
        _drop_stdout()
        sys.exit(OUTPUT_CLOSED)
    except OSError as e:
        if errno.errorcode.get(e.errno or 0) not in _CANNOT_WRITE:
            raise
        _drop_stdout()
        from p2pcards.ui.i18n import Translator

        tr = Translator(help_lang(click.get_current_context(silent=True)))
        with contextlib.suppress(OSError):
            click.echo(tr("cmd_error", error=tr("cmd_cannot_write", error=e)), err=True)
        sys.exit(2)


def _drop_stdout() -> None:
    """Standard output goes nowhere from now on: the interpreter's last flush would fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())



_lang_option = click.option(
    "--lang", default=None, envvar="P2PCARDS_LANG", metavar="[en|fr|it]", help=_LANG_HELP
)
"""``--lang`` of every command."""

_resume_lang_option = click.option(
    "--lang", default=None, envvar="P2PCARDS_LANG", metavar="[en|fr|it]", help=_RESUME_LANG_HELP
)
"""``--lang`` of ``resume``: by default, the language its journal says the seat spoke."""


def _language(lang: str | None) -> str:
    """The language asked for (``--lang`` or P2PCARDS_LANG), else the locale's; a usage error if unknown."""
    from p2pcards.ui.i18n import LANGS, detect_lang

    if lang is not None and lang.lower() not in LANGS:
        raise click.BadParameter(f"unknown language {lang!r}; choose from {', '.join(LANGS)}",
                                 param_hint="'--lang'")  # fmt: skip
    return lang.lower() if lang else detect_lang()


def _echo_json(document: object) -> None:
    """Print ``document`` as JSON (:func:`_json_for_terminal`); where the output's encoding lacks
    a character, every non-ASCII one is a ``\\uXXXX`` escape: the same document, never a crash."""
    import json

    text = _json_for_terminal(document)
    try:
        text.encode(getattr(sys.stdout, "encoding", None) or "utf-8")
    except (UnicodeEncodeError, LookupError):
        text = json.dumps(document, indent=2)
    with _written():
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
