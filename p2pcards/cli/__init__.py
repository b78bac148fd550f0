"""The ``p2pcards`` command line: one click group, one module per command, errors turned into one line.

:mod:`~p2pcards.cli.group` holds the group and what every command shares (help and click's
errors in the player's language, ``--lang``, printing); :mod:`~p2pcards.cli.network` what the
networked commands share (their options, running a node). Each ``cmd_*`` module holds one
command, and imports what it runs only when it runs, so that ``p2pcards --help`` starts fast.
"""

from __future__ import annotations

from p2pcards.cli.cmd_audit import audit
from p2pcards.cli.cmd_history import history
from p2pcards.cli.cmd_host import INVITATION_WIDTH, host, invitation_lines
from p2pcards.cli.cmd_join import _joined_asking_again, join
from p2pcards.cli.cmd_play import play
from p2pcards.cli.cmd_players import players
from p2pcards.cli.cmd_replay import replay
from p2pcards.cli.cmd_resume import resume
from p2pcards.cli.cmd_simulate import simulate
from p2pcards.cli.group import (
    MESSAGE_LIMIT,
    NAME_LIMIT,
    _json_for_terminal,
    _said,
    help_lang,
    help_messages,
    main,
)
from p2pcards.cli.network import NODE_EXIT_CODES, _port_taken

for _command in (play, simulate, audit, host, join, resume, history, replay, players):
    main.add_command(_command)

__all__ = [
    "INVITATION_WIDTH",
    "MESSAGE_LIMIT",
    "NAME_LIMIT",
    "NODE_EXIT_CODES",
    "_joined_asking_again",
    "_json_for_terminal",
    "_port_taken",
    "_said",
    "help_lang",
    "help_messages",
    "invitation_lines",
    "main",
]
