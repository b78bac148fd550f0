"""Start-up: ``p2pcards --help`` loads only what the command line itself needs.

A short match is mostly start-up, so the command line defers every module a command does not
need yet; this keeps the protocol, the network and the cryptography out of its first imports.
"""

from __future__ import annotations

import subprocess
import sys

from p2pcards.cli.network import MAX_CLOCK as CLI_MAX_CLOCK
from p2pcards.protocol.messages import MAX_CLOCK

HEAVY = ("p2pcards.protocol", "p2pcards.net", "p2pcards.crypto", "trio", "cryptography", "spake2", "msgpack")


def _loaded_after(code: str) -> set[str]:
    """The modules a fresh interpreter holds after running ``code``."""
    out = subprocess.run(
        [sys.executable, "-c", f"{code}\nimport sys\nprint('\\n'.join(sys.modules))"],
        capture_output=True, text=True, check=True,
    )  # fmt: skip
    return set(out.stdout.split())


def test_the_command_line_loads_no_protocol_network_or_crypto() -> None:
    assert {m for m in _loaded_after("import p2pcards.cli") if m.startswith(HEAVY)} == set()


def test_the_option_limits_are_the_protocols() -> None:
    assert CLI_MAX_CLOCK == MAX_CLOCK
