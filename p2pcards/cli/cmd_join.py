"""``p2pcards join``: a seat at a table found by its address or by the invitation code alone."""

from __future__ import annotations

import functools
import sys
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

import click

from p2pcards.cli.group import MESSAGE_LIMIT, _language, _Localized, _said
from p2pcards.cli.network import (
    _DISCOVERY_PORT,
    NODE_EXIT_CODES,
    _check_resumable,
    _nameable,
    _network_options,
    _refusal,
    _run_node,
    _seat_identity,
    _seat_name,
)

if TYPE_CHECKING:  # imported where used: a command loads only what it runs
    from p2pcards.net.node import JoiningSeat, NodeConfig, Outcome

DEFAULT_PORT = 7777
"""The host's port when an address names none (``host``'s default port)."""


def _parse_address(address: str, tr: Any) -> tuple[str, int]:
    """HOST:PORT, [IPv6]:PORT, or a host alone (then port 7777, ``host``'s default); a
    usage error, said by ``tr``, for anything else."""
    a = address.strip()
    host, port = a, str(DEFAULT_PORT)
    if a.startswith("["):
        close = a.find("]")
        host, rest = (a[1:close], a[close + 1 :]) if close > 0 else ("", "")
        if rest:
            port = rest[1:] if rest.startswith(":") else ""
    elif a.count(":") == 1:
        host, port = a.split(":")
    if not host or not port.isdigit() or not 0 < int(port) < 65536 or not _nameable(host):
        raise click.BadParameter(tr("join_bad_address", address=repr(address)))
    head, _, last = a.rpartition(":")
    if a == host and ":" in host and not _ip(host):
        # ::1:49070 (49070 is no group of an IPv6 address): a port written without brackets
        if _ip(head) and last.isdigit() and 0 < int(last) < 65536:
            raise click.BadParameter(tr("join_ipv6_no_address", address=a, host=head, port=last))
        raise click.BadParameter(tr("join_bad_address", address=repr(address)))
    if a == host and ":" in head and last.isdigit() and 1024 <= int(last) < 65536:
        # 2001:db8::5:7777 is an IPv6 address (port 7777 by default); say how a port is written
        click.echo(tr("join_ipv6_port", address=a, host=head, port=last))
    return host, int(port)


def _ip(text: str) -> bool:
    """``text`` is an IP address (an IPv6 one with a zone, ``fe80::1%eth0``, too)."""
    import ipaddress

    try:
        ipaddress.ip_address(text.split("%")[0])
    except ValueError:
        return False
    return True


CODE_TRIES = 3
"""How many times a person may type the invitation code before ``join`` gives up."""


def _at_terminal() -> bool:
    """A person types at this terminal (asked again rather than stopped)."""
    return sys.stdin.isatty()


def _is_code(text: str | None) -> bool:
    """``text`` on the command line is a code, whole or not (``43-robin-maple``, ``43-robin``),
    rather than an address."""
    from p2pcards.net import discovery
    from p2pcards.net.words import unfinished

    return text is not None and (discovery.code_number(text) is not None or unfinished(text))


def _doubt(code: str, tr: Any, *, by_code: bool) -> str | None:
    """Why ``code``, given on the command line (or in P2PCARDS_CODE), cannot be the host's,
    said to the person; None when it may be. ``by_code``: the code alone is to find the host,
    so it needs the number in front."""
    from p2pcards.net import discovery
    from p2pcards.net.words import likely_meant, unfinished

    if unfinished(code):
        return str(tr("join_code_unfinished", code=code.strip()))
    if by_code and discovery.code_number(code) is None:
        return str(tr("join_code_no_number"))
    meant = likely_meant(code)
    if meant is not None:
        return str(tr("join_code_typo_given", word=meant[0], code=meant[1]))
    return None


def _ask_code(code: str | None, tr: Any, *, by_code: bool = False) -> tuple[str, bool]:
    """The invitation code, asked for when it was not given, or given as no host's code can
    be (unfinished, a mistyped word): ``(code, typed here)``. No host hears a code that cannot
    be right: at a terminal the person types it again, elsewhere it is a usage error."""
    from p2pcards.protocol.lobby import normalize_code
    from p2pcards.ui.render import wrap

    if code:
        problem = _doubt(code, tr, by_code=by_code)
        if problem is None:
            return code, False
        if not _at_terminal():
            raise click.UsageError(problem)
        click.echo(wrap(problem))
        return _type_code(tr, by_code=by_code, doubted=normalize_code(code)), True
    if not _at_terminal():
        raise click.UsageError(tr("join_no_code"))
    click.echo(wrap(tr("join_ask_code")))
    return _type_code(tr, by_code=by_code), True


def _type_code(tr: Any, *, by_code: bool = False, doubted: str | None = None) -> str:
    """A code typed at the prompt; ``quit`` or the end of the input (Ctrl-D) stops the command there, with
    status 0, as leaving a table does (Ctrl-C: 130, as an interrupted program). A word that is no code
    word but close to one, or a code left unfinished, is pointed out before any host hears the code (a try
    at the host is worth more than a line here); the same code typed again is sent as it is (a host may
    choose its own). ``by_code``: the code alone finds the host, so a code without its number and two
    words is asked again whatever it is (no host could be found by it). ``doubted``: a code already
    pointed out (given on the command line)."""
    from p2pcards.net import discovery
    from p2pcards.net.words import WORDS, likely_meant, unfinished
    from p2pcards.protocol.lobby import normalize_code
    from p2pcards.ui.i18n import COMMAND_WORDS
    from p2pcards.ui.keyboard import ask_code
    from p2pcards.ui.render import wrap

    while True:
        try:
            typed = ask_code(tr("join_code_prompt"), WORDS)
        except EOFError:  # Ctrl-D: the line ends here, so that what follows is not said on the prompt's
            click.echo()
            typed = None
        command = "quit" if typed is None else COMMAND_WORDS.get(typed.strip().lower())
        if command == "quit":  # quit, or the end of the input, as at every prompt of the game
            click.echo(wrap(tr("join_code_none")))
            raise click.exceptions.Exit(0)
        if not typed:  # Enter alone: what to type
            click.echo(wrap(tr("join_code_help")))
            continue
        if command == "help":  # a word that works at every prompt of the game works here too
            click.echo(wrap(tr("join_code_help")))
            continue
        left_unfinished = unfinished(typed)
        if by_code and (left_unfinished or discovery.code_number(typed) is None):
            said = tr("join_code_unfinished", code=typed) if left_unfinished else tr("join_code_no_number")
            click.echo(wrap(said))
            continue
        meant = likely_meant(typed)
        if (meant is None and not left_unfinished) or normalize_code(typed) == doubted:
            return typed
        doubted = normalize_code(typed)
        if meant is None:
            click.echo(wrap(tr("join_code_unfinished", code=typed)))
        else:
            click.echo(wrap(tr("join_code_typo", word=meant[0], code=meant[1])))


def _point_out_typo(code: str, tr: Any) -> None:
    """After the host refused a code given on the command line: the word that is likely mistyped."""
    from p2pcards.net.words import likely_meant
    from p2pcards.ui.render import wrap

    meant = likely_meant(code)
    if meant is not None:
        click.echo(wrap(tr("join_code_typo_given", word=meant[0], code=meant[1])), err=True)


def _nobody_has(error: BaseException) -> int | None:
    """The code number no host on this network answered for, if that is what ``error`` says."""
    from p2pcards.cli.network import _leaves
    from p2pcards.net.discovery import NobodyHasIt

    return next((x.number for x in _leaves(error) if isinstance(x, NobodyHasIt) and x.number), None)


async def _joined_asking_again(
    join: Callable[[str], Awaitable[Any]], code: str, typed: bool, tr: Any, *, by_code: bool = False
) -> Any:
    """``join(code)``; when the code was typed here and the host says it is wrong, or no host
    on this network has it (``by_code``: found by the code alone), the person types it again
    (``CODE_TRIES`` in all) instead of starting over."""
    from p2pcards.net.discovery import shown

    for attempt in range(1, CODE_TRIES + 1):
        try:
            return await join(code)
        except BaseException as e:
            refused = _refusal(e)
            wrong = refused is not None and refused.reason == "wrong-code"
            nobody = _nobody_has(e)
            if wrong and not typed:
                _point_out_typo(code, tr)
            if not typed or not (wrong or nobody) or attempt == CODE_TRIES:
                raise
        left = CODE_TRIES - attempt
        if nobody:
            click.echo(tr.n("join_no_host_code", left, code=shown(nobody), left=left))
        else:
            click.echo(tr.n("join_wrong_code", left, left=left))
        import trio

        try:  # (abandoned on Ctrl-C, which trio delivers here: the read is left to the exit)
            code = await trio.to_thread.run_sync(
                functools.partial(_type_code, tr, by_code=by_code), abandon_on_cancel=True
            )
        except KeyboardInterrupt:
            click.echo()  # (the prompt's line ends before the program says it was interrupted)
            raise
    raise AssertionError("unreachable")


@click.command(cls=_Localized, epilog=NODE_EXIT_CODES)
@click.argument("address", required=False, metavar="[ADDRESS|CODE]")
@click.argument("then", required=False, metavar="[CODE]")
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
@_network_options(host=False)
def join(
    address: str | None,
    then: str | None,
    code: str | None,
    port: int,
    no_listen: bool,
    discovery_port: int | None,
    **opts: Any,
) -> None:
    """Join the table at ADDRESS (HOST:PORT) with its invitation code, or find it by the code alone.

    p2pcards join 43-robin-maple finds the host on this network: it asks
    (broadcast on UDP port 7777) which host has a code numbered 43, never
    sending the words, then proves the code to the one that answers. With no
    ADDRESS or CODE the code is asked for (or taken from P2PCARDS_CODE, which
    keeps it out of the process list) and the host is found the same way.

    The code may also follow the address, as a person reads an invitation
    out: p2pcards join 203.0.113.5:7777 43-robin-maple (or the code first).

    The host chooses the game (Nines or Le Neuf) and its rules; this node
    learns them when it joins.
    """
    from p2pcards.errors import P2PCardsError
    from p2pcards.net import discovery, node
    from p2pcards.net.addresses import show_address
    from p2pcards.protocol.lobby import normalize_code
    from p2pcards.safetext import clean
    from p2pcards.ui.i18n import Translator
    from p2pcards.ui.render import NAME_LIMIT as SHOWN_NAME

    tr = Translator(_language(opts["lang"]))
    if then is not None:  # ADDRESS CODE, or CODE ADDRESS
        if _is_code(address) and not _is_code(then):
            address, then = then, address
        if code and normalize_code(code) != normalize_code(then or ""):
            raise click.UsageError(tr("join_two_codes"))
        code = then
    if address is not None and _is_code(address):  # a code, whole or not, is no host name
        if code and normalize_code(code) != normalize_code(address):
            raise click.UsageError(tr("join_two_codes"))
        address, code = None, address
    if address is None:  # find the host on this network by the code's public number
        wanted, typed = _ask_code(code, tr, by_code=True)
        udp_port = discovery_port or discovery.DISCOVERY_PORT
        unfinished = bool(node.unfinished_games())

        async def find_and_join(config: NodeConfig) -> Outcome:
            found: dict[int, list[tuple[str, int]]] = {}  # the hosts that answered, by code number

            async def join(code: str, seat: JoiningSeat) -> Outcome:
                number = discovery.code_number(code)
                assert number is not None  # (a code without one is asked again, or refused, first)
                if number not in found:
                    click.echo(tr("join_looking", code=discovery.shown(number)))
                    try:
                        hosts = await discovery.locate(code, port=udp_port, bind=opts["bind"])
                    except discovery.NobodyHasIt as e:
                        if unfinished:  # a started game's host answers no search: `resume` goes back into it
                            said = tr("join_no_host_resume", error=_said(e, tr))
                            raise discovery.NobodyHasIt(said, number=e.number) from None
                        raise
                    where = ", ".join(show_address(*h) for h in hosts)
                    if len(hosts) == 1:
                        click.echo(tr("join_found", where=where))
                    else:  # an impostor among them gets one guess of the code, nothing more
                        click.echo(tr("join_found_many", n=len(hosts), where=where))
                    found[number] = hosts
                (host_name, host_port), *others = found[number]
                return await node.join_game(
                    config,
                    host=host_name,
                    port=host_port,
                    alternatives=others,
                    code=code,
                    no_listen=no_listen,
                    seat=seat,
                )

            # One listener and one port mapping for every try (beside the search, not before it).
            async with node.joining(config, no_listen=no_listen) as seat:
                return await _joined_asking_again(
                    functools.partial(join, seat=seat), wanted, typed, tr, by_code=True
                )

        _run_node("join", find_and_join, port=port, **opts)
        return
    host_name, host_port = _parse_address(address, tr)
    # The same command again after a crash: back into the game this node had not finished.
    # Only a game this seat played: a person and a bot may have joined one host from here.
    try:
        seat_name = _seat_name(opts["name"], opts["bot"], opts["lang"])
        me: bytes | None = _seat_identity(seat_name, opts["bot"]).public_key
    except P2PCardsError:  # (said when the node starts)
        me = None
    earlier = [u for u in node.unfinished_games() if u.host_address == (host_name, host_port) and u.key == me]
    if earlier:
        names = ", ".join(clean(n, SHOWN_NAME) or "?" for n in earlier[0].names)  # the journal's roster
        click.echo(tr("join_resuming", address=clean(address, MESSAGE_LIMIT), names=names))
        seat_key = _check_resumable(earlier[0].path, tr).key  # (a bot's is found by its --bot)

        async def resume(config: NodeConfig) -> Outcome:
            return await node.resume_game(config, earlier[0].path)

        _run_node("join", resume, port=0, seat_key=seat_key, **opts)
        return
    code, typed = _ask_code(code, tr)

    async def run(config: NodeConfig) -> Outcome:
        async with node.joining(config, no_listen=no_listen) as seat:

            async def join(code: str) -> Outcome:
                return await node.join_game(
                    config, host=host_name, port=host_port, code=code, no_listen=no_listen, seat=seat
                )

            return await _joined_asking_again(join, code, typed, tr)

    _run_node("join", run, port=port, **opts)
