"""The ``p2pcards`` command line: one click group, errors turned into one line."""

from __future__ import annotations

import click


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="p2pcards")
def main() -> None:
    """Peer-to-peer card games with no server and no trusted dealer."""


# --- play -------------------------------------------------------------------
# (owned by the local-game work; see p2pcards/ui/)


# --- simulate ---------------------------------------------------------------
# (owned by the simulator work; see p2pcards/sim.py)
