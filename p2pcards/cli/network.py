"""What ``host``, ``join`` and ``resume`` share: their options, running a node under trio and
turning its errors into one line, and refusing a journal that cannot be resumed."""

from __future__ import annotations

import contextlib
import errno
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from p2pcards.cli.group import (
    MESSAGE_LIMIT,
    _check_name,
    _lang_option,
    _language,
    _resume_lang_option,
    _said,
    _usable_name,
)

MAX_CLOCK = 86_400
"""``p2pcards.protocol.messages.MAX_CLOCK`` (a test keeps them equal): the longest timeout the
others accept. Written here so that ``p2pcards --help`` does not load the message schemas."""

MIN_TURN = 15
"""The shortest turn a host may set on the command line: time for a person to read the table
and choose a move (the others accept any clock from 1 s: ``MIN_CLOCK`` on the wire)."""
MIN_STEP = 10
"""The shortest clock a host may set for the other steps: ``net.pacing.QUICK``, the time a
program's answer may take across the internet before it counts as late."""
MIN_GRACE = 10
"""The shortest grace a host may set: time for a broken connection to be dialled again."""
CLOCK_MINIMUMS = {"turn_timeout": MIN_TURN, "step_timeout": MIN_STEP, "grace": MIN_GRACE}
"""The least each clock option of ``host`` takes (``--short-clocks``, hidden, lifts them for tests)."""

if TYPE_CHECKING:  # imported where used: a command loads only what it runs
    from p2pcards.crypto.identity import Identity
    from p2pcards.errors import JoinRefused
    from p2pcards.net.node import NodeConfig, Outcome

NODE_EXIT_CODES = (
    "Exit status: 0 the match ended, or you left it; 1 it stopped for another reason "
    "(the others named, or a timeout); 2 a mistake on the command line; 130 interrupted (Ctrl-C)."
)


_DISCOVERY_PORT = click.option(
    "--discovery-port",
    type=click.IntRange(1, 65535),
    default=None,
    envvar="P2PCARDS_DISCOVERY_PORT",
    hidden=True,
    help="UDP port of LAN discovery (default 7777; both ends must use the same).",
)
"""Hidden: host and join must agree on it (tests run their own)."""


Command = TypeVar("Command", bound=Callable[..., Any])


class _HostClock(click.FloatRange):
    """A clock of the host's: 1 s to a day, as every seat takes it, its help showing the least
    a host may set (:func:`check_clocks` refuses less, unless the hidden ``--short-clocks``)."""

    def __init__(self, least: int) -> None:
        super().__init__(1, MAX_CLOCK)
        self.least = least

    def _describe_range(self) -> str:
        return f"{self.least}<=x<={MAX_CLOCK}"


def _clock_type(name: str, hidden: bool) -> click.FloatRange:
    return click.FloatRange(1, MAX_CLOCK) if hidden else _HostClock(CLOCK_MINIMUMS[name])


def _clock_options(*, hidden: bool) -> list[Callable[[Command], Command]]:
    """The table's clock. Only the host's counts: a joiner plays by the clock the host
    announces, and a resumed seat by its journal's. ``join`` and ``resume`` still accept the
    options, unlisted, so that one script may start every seat with the same arguments."""
    return [
        click.option(
            "--turn-timeout",
            type=_clock_type("turn_timeout", hidden),
            default=600,
            show_default=True,
            hidden=hidden,
            help="Seconds for a turn, 15 or more (every seat plays by the host's clock).",
        ),
        click.option(
            "--step-timeout",
            type=_clock_type("step_timeout", hidden),
            default=60,
            show_default=True,
            hidden=hidden,
            help="Seconds for any other step (shuffles, key reveals), 10 or more.",
        ),
        click.option(
            "--grace",
            type=_clock_type("grace", hidden),
            default=120,
            show_default=True,
            hidden=hidden,
            help="Seconds a player whose connection broke has to come back, 10 or more; then the others "
            "play on without them (at a table of two, the match ends).",
        ),
        click.option(
            "--short-clocks",
            is_flag=True,
            hidden=True,
            help="Let the host set clocks under the least a person plays by (tests of the clocks).",
        ),
    ]


def check_clocks(opts: dict[str, Any], tr: Any) -> None:
    """Refuse, as a mistake on the command line, a clock shorter than a host may set
    (:data:`CLOCK_MINIMUMS`), in one sentence that says why and how long it may be."""
    if opts.get("short_clocks"):
        return
    from p2pcards.say import Number

    for name, least in CLOCK_MINIMUMS.items():
        seconds = opts[name]
        if seconds < least:
            most = Number(MAX_CLOCK, ",d")
            said = tr(f"clock_too_short_{name}", seconds=Number(seconds), least=least, most=most)
            raise click.BadParameter(said, param_hint=f"'--{name.replace('_', '-')}'")


def _network_options(*, host: bool, resume: bool = False) -> Callable[[Command], Command]:
    """Options shared by ``host``, ``join`` and ``resume``; the clock is listed for the host only,
    and ``--name`` not for ``resume`` (a resumed seat keeps the name its journal holds)."""

    def decorate(f: Command) -> Command:
        options = [
            click.option("--name", default=None, hidden=resume,
                         help="Your name at the table (remembered for next time)."),
            click.option("-b", "--bot", default=None, metavar="[heuristic|random|expert]",
                         help="Let a bot play this seat: heuristic, random or expert (expert:0.5 thinks "
                              "0.5 s a move; default 0.2)."),
            click.option("--bind", default="", help="Address to listen on (default: all, IPv6 and IPv4)."),
            click.option(
                "--transcript",
                type=click.Path(dir_okay=False, writable=True),
                default=None,
                help="Save the signed transcript here (default: a file in the data directory).",
            ),
            *_clock_options(hidden=not host),
            _resume_lang_option if resume else _lang_option,
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

    return decorate


def _seat_name(name: str | None, bot: str | None, lang: str | None = None) -> str:
    """The name this seat sits under: the one given (refused in ``lang``), else a person's
    remembered name (or their login), a bot's strategy (``Expert`` for ``--bot expert:0.5``)."""
    import getpass

    from p2pcards.net import storage

    if name is not None:
        return _usable_name(name, lang)
    if bot is not None:
        return _check_name(bot.split(":")[0].capitalize())
    try:
        login = getpass.getuser()
    except (OSError, KeyError):  # (no login name anywhere: a container, a service)
        login = ""
    return _check_name(storage.remembered_name() or login or "player")


def _seat_identity(name: str, bot: str | None) -> Identity:
    """Who signs for this seat: the person's key, or the key of the bot of that name."""
    from p2pcards.net import storage

    return storage.load_identity(bot=name if bot is not None else None)


def _nameable(host: str) -> bool:
    """``host`` is an address, or a name that DNS could hold (labels of 1 to 63 characters)."""
    try:
        host.encode("idna")
    except UnicodeError:
        return False
    return True


BOT_NAMES = 8
"""How many names a bot joining under its strategy's name tries (``Random``, ``Random 2``...)."""


def _renamed_when_taken(
    run: Callable[[NodeConfig], Awaitable[Outcome]],
) -> Callable[[NodeConfig], Awaitable[Outcome]]:
    """``run``, again under ``Random 2``, ``Random 3``... while the host says the name is
    taken: a person seating two bots of one strategy need not name them. Each name is a
    bot of its own, with its own key."""
    from dataclasses import replace

    from p2pcards.net import storage

    async def renamed(config: NodeConfig) -> Outcome:
        base = config.name
        for k in range(2, BOT_NAMES + 1):
            try:
                return await run(config)
            except BaseException as e:
                refused = _refusal(e)
                if refused is None or refused.reason != "name-taken":
                    raise
            name = f"{base} {k}"
            config = replace(config, name=name, identity=storage.load_identity(bot=name))
        return await run(config)  # the last name: its refusal is the answer

    return renamed


def _run_node(kind: str, run: Callable[[NodeConfig], Awaitable[Outcome]], *, name: str | None,
              bot: str | None, transcript: str | None, lang: str | None,
              turn_timeout: float, step_timeout: float, grace: float, bind: str,
              port: int, no_port_mapping: bool, short_clocks: bool = False,
              seat_key: bytes | None = None) -> None:  # fmt: skip
    """Set up identity, name, terminal and deciders, then run ``run(config)`` under trio.
    ``seat_key``: a journal's seat is resumed with the identity kept here under that key
    (``short_clocks``: checked by ``host`` already, see :func:`check_clocks`)."""
    import random
    from pathlib import Path

    import trio

    from p2pcards.bots import check_bot
    from p2pcards.errors import P2PCardsError
    from p2pcards.net import storage
    from p2pcards.net.node import NodeConfig
    from p2pcards.net.session import Timeouts
    from p2pcards.safetext import clean
    from p2pcards.ui.i18n import Translator
    from p2pcards.ui.netgame import NetworkUI, bot_decider
    from p2pcards.ui.prompt import Console
    from p2pcards.ui.render import Style

    # Mistakes on the command line are usage errors (exit 2, with the usage), as click's own.
    language = _language(lang)
    if bot is not None:
        try:
            check_bot(bot)
        except P2PCardsError as e:
            raise click.BadParameter(_said(e, Translator(language)), param_hint="'-b' / '--bot'") from None
    if name is not None:
        name = _usable_name(name, language)
    tr = Translator(language)
    if bind and not _nameable(bind):
        raise click.BadParameter(tr("bind_bad", address=repr(bind)), param_hint="'--bind'")
    try:
        console = Console(
            tr=tr, style=Style.detect(), read=input, write=click.echo, echo=not sys.stdin.isatty()
        )
        given, name = name, _seat_name(name, bot, language)
        found = None if seat_key is None else storage.identity_for(seat_key)
        identity = found or _seat_identity(name, bot)
        ui = NetworkUI(console, human=bot is None)

        def seated(fingerprint: Any, table: Any, name: str = name) -> None:
            # The name is remembered once a table took it (a refused join keeps the old one),
            # and only a person's (a bot's name is not the person's).
            if bot is None and kind != "resume":  # (a resumed seat sits under its journal's name)
                with contextlib.suppress(OSError):
                    storage.remember_name(name)
            ui.table_ready(fingerprint, table)
        decide = bot_decider(bot, random.Random()) if bot is not None else ui.decide
        config = NodeConfig(
            identity=identity,
            name=name,
            decide=decide,
            bot=bot is not None,
            bot_kind=bot,
            lang=language,
            ui=ui,
            timeouts=Timeouts(turn=turn_timeout, step=step_timeout, grace=grace),
            transcript=Path(transcript) if transcript else None,
            bind=bind,
            port=port,
            port_mapping=not no_port_mapping,
            on_progress=ui.progress,
            on_wait=ui.waiting,
            on_table_ready=seated,
            leaving=ui.leaving,
            leave_chosen=ui.leave_chosen,
            confirming=ui.confirming if bot is None else None,
            leave_on_signals=True,
            known_players=bot is None,  # (the person remembers whom they met, once)
        )
        if kind == "join" and bot is not None and given is None:
            run = _renamed_when_taken(run)
        outcome = trio.run(run, config)
    except BaseException as e:  # trio nurseries wrap errors in groups: look at what is inside
        leaves = _leaves(e)
        stop = next((x for x in leaves if isinstance(x, click.exceptions.Exit)), None)
        if stop is not None:  # the person chose to stop before any table (quit at the code prompt)
            raise stop from None
        if any(isinstance(x, KeyboardInterrupt) for x in leaves):
            with contextlib.suppress(OSError):  # (a terminal that was closed shows nothing)
                click.echo(tr("cmd_interrupted"), err=True)
            sys.exit(130)
        ours = next((x for x in leaves if isinstance(x, P2PCardsError)), None)
        if ours is not None:  # may quote a peer: a host's refusal, a seat's name
            raise click.ClickException(clean(_said(ours, tr), MESSAGE_LIMIT)) from None
        system = next((x for x in leaves if isinstance(x, OSError)), None)
        if system is not None and system.errno == errno.EADDRINUSE:
            raise click.ClickException(_port_taken(kind, port, tr)) from None
        if system is not None:
            raise click.ClickException(f"{kind}: {tr.system(system)}") from None
        raise
    with contextlib.suppress(OSError):  # a terminal that was closed (SIGHUP) shows nothing
        ui.finished(outcome)
    from p2pcards.net.verdicts import INTERRUPTED

    if outcome.status == "aborted" and outcome.problem == INTERRUPTED:
        sys.exit(130)  # as a program stopped by Ctrl-C
    sys.exit(0 if outcome.status in ("over", "aborted", "left") else 1)


def _port_taken(kind: str, port: int, tr: Any) -> str:
    """What to do when the port to listen on is taken (rather than "Address already in use")."""
    if port:
        return tr("cmd_port_taken", kind=kind, port=port, other=port + 1 if port < 65535 else 7777)
    return tr("cmd_port_taken_resume", kind=kind)


def _leaves(error: BaseException) -> list[BaseException]:
    """The exceptions inside (nested) exception groups, or the exception itself."""
    if isinstance(error, BaseExceptionGroup):
        return [leaf for sub in error.exceptions for leaf in _leaves(sub)]
    return [error]


def _refusal(error: BaseException) -> JoinRefused | None:
    """The host's refusal that ``error`` is or holds (trio may wrap it in an exception group)."""
    from p2pcards.errors import JoinRefused

    return next((x for x in _leaves(error) if isinstance(x, JoinRefused)), None)


@dataclass(frozen=True, slots=True)
class Resumable:
    """What ``resume`` reads of a journal before the node starts."""

    key: bytes
    """The public key of the journal's seat."""
    bot: str | None
    """The bot that played the seat (``--bot`` as it was given), or None for a person."""
    lang: str | None = None
    """The language the seat's interface spoke (None: the journal does not say, or names
    a language this version does not speak)."""


def _check_resumable(path: Path, tr: Any) -> Resumable:
    """Refuse a journal that cannot be resumed in one sentence naming the file, before
    anything runs: the journal stays as it is, so nothing of the game is lost (a mended
    copy, or a newer p2pcards, may still resume it). The network session is what
    :func:`p2pcards.net.node.resume_game` reads: the seats' addresses, the host's and
    the port this seat listened on. A bot named there that this version does not know
    is not one: the seat is resumed as a person's."""
    from p2pcards.errors import P2PCardsError, TranscriptError
    from p2pcards.net.storage import journal_in_use
    from p2pcards.protocol.journal import read_journal
    from p2pcards.safetext import clean

    shown = clean(str(path), MESSAGE_LIMIT)
    if journal_in_use(path):  # (first: its tail may be a write in progress, not damage)
        from p2pcards.protocol.notice import Notice

        raise click.ClickException(str(tr.said(Notice("journal_in_use", path=shown))))
    try:
        contents = read_journal(path.read_bytes())
    except OSError as e:
        raise click.ClickException(tr("resume_unreadable", path=shown, error=e)) from None
    except TranscriptError as e:
        raise click.ClickException(tr("resume_damaged", path=shown, error=_said(e, tr))) from None
    if contents.damaged:  # records this seat signed may lie past the damage: it would sign again
        raise click.ClickException(tr("resume_damaged_inside", path=shown, at=contents.sound,
                                      n=contents.dropped))  # fmt: skip
    header = contents.header
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
    bot = session.get("bot")
    if bot is not None:
        from p2pcards.bots import check_bot

        try:
            check_bot(bot if isinstance(bot, str) else "")
        except P2PCardsError:
            bot = None
    from p2pcards.ui.i18n import LANGS

    lang = session.get("lang")
    lang = lang if isinstance(lang, str) and lang in LANGS else None
    return Resumable(key=bytes(header.roster[header.seat].key), bot=bot, lang=lang)
