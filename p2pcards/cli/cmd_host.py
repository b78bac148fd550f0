"""``p2pcards host``: a table, its invitation, and LAN discovery while its lobby is open."""

from __future__ import annotations

import contextlib
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from p2pcards.cli.cmd_play import _PLAY_RULES_EPILOG, _PLAY_RULES_HELP
from p2pcards.cli.group import _language, _Localized, _said
from p2pcards.cli.network import _DISCOVERY_PORT, NODE_EXIT_CODES, _network_options, _run_node, check_clocks
from p2pcards.games.base import folder_names
from p2pcards.say import Number

if TYPE_CHECKING:  # imported where used: a command loads only what it runs
    from p2pcards.net.node import NodeConfig, Outcome
    from p2pcards.ui.i18n import Translator

INVITATION_WIDTH = 80
"""The invitation fits a terminal of 80 columns, in every language (a narrower one: its width)."""


def invitation_lines(tr: Any, *, game: str, players: int, code: str, port: int, where: str, others: list[str],
                     mapped: Any, discovering: bool, command: str) -> list[str]:  # fmt: skip
    """What the host prints for the others: the command to join, and how the internet reaches it."""
    from p2pcards.net.addresses import show_address
    from p2pcards.protocol.notice import Notices
    from p2pcards.ui.render import fold_width

    lines: list[str] = []
    width = min(INVITATION_WIDTH, fold_width())  # (a narrower terminal: no word cut in two)

    def say(text: str) -> None:  # each line folded to 80 columns, a continued line indented by one
        if width < INVITATION_WIDTH:  # (lines broken for 80 columns: folded again as one)
            text = text.replace("\n ", " ")
        for line in text.split("\n"):
            lines.extend(textwrap.wrap(line, width, subsequent_indent=" ", break_on_hyphens=False))

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
            say(tr("host_no_mapping", port=port, why=Notices(mapped.tried)))
        else:
            say(tr("host_private", port=port))
    if discovering:  # a command is never folded: it goes on a line of its own when it does not fit
        lan = f"{command} join {code}"
        said = tr("host_lan", command=lan)
        if len(said) <= width:
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


@click.command(cls=_Localized, epilog=_PLAY_RULES_EPILOG + "\n\n" + NODE_EXIT_CODES)
@click.option(
    "--game",
    "game_name",
    type=click.Choice(folder_names()),
    default=folder_names()[0],
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
    help=_PLAY_RULES_HELP,
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
@_network_options(host=True)
def host(
    game_name: str,
    players: int | None,
    port: int,
    rules: tuple[str, ...],
    code: str | None,
    no_discovery: bool,
    discovery_port: int | None,
    **opts: Any,
) -> None:
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
    from p2pcards.ui.netgame import NetworkUI

    spec = game(game_name)
    if players is None:
        players = 4 if spec.max_players >= 4 else spec.max_players
    tr = Translator(_language(opts["lang"]))
    check_clocks(opts, tr)
    try:
        check_players(spec, players, tr)
    except UsageError as e:
        raise click.BadParameter(str(e), param_hint="'-n' / '--players'") from None
    try:
        table_rules = spec.parse_rules(rules)
    except UsageError as e:
        raise click.BadParameter(_said(e, tr), param_hint="'-r' / '--rule'") from None
    invite = code or new_code()
    bind = opts["bind"]
    _warn_short_clock(min(opts["turn_timeout"], opts["step_timeout"]), Translator(_language(opts["lang"])))

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

    async def run(config: NodeConfig) -> Outcome:
        nonlocal discovering
        ui = config.ui
        assert isinstance(ui, NetworkUI)  # (what _run_node sets up)
        ui.on_invitation = functools.partial(invitation, tr=ui.console.tr)
        play = functools.partial(host_game, players=players, rules=table_rules, code=invite, game=spec.name)
        sockets = None
        tr = ui.console.tr
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
                click.echo(tr("host_lan_off_udp", port=udp_port, error=e), err=True)
        if sockets is None:
            return await play(config)
        assert number is not None  # (the responder is open only for a code with a number)
        discovering = True
        return await discovery.hosting(play, config, number=number, sockets=sockets)

    _run_node("host", run, port=port, **opts)


def _warn_short_clock(seconds: float, tr: Translator) -> None:
    """Say, on the error stream, that a clock this short may take a connection that stopped
    carrying anything for longer than it (a Wi-Fi dropout) for a frozen player: a node that
    cannot ask its system (Linux only: ``Link.stalled``, ``tls.DEAD_PATH``) cannot tell the two
    apart. Under ``tls.DEAD_PATH`` seconds and a keep-alive the clock is short for any node."""
    from p2pcards.net.session import WAIT_NOTICE
    from p2pcards.net.tls import DEAD_PATH

    enough = DEAD_PATH + 2 * WAIT_NOTICE
    if seconds < enough:
        click.echo(tr("host_short_clock", seconds=Number(seconds), enough=Number(enough)), err=True)
