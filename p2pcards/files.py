"""Writing a file so that a failure leaves nothing behind.

Used by every layer that saves something (a transcript, the remembered name, the known
players): it loads nothing of the game or the protocol, so a node can write before the
match is loaded.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path


def write_or_remove(path: Path, data: bytes) -> None:
    """Write ``data`` to the new file ``path``; if that fails (a full disk), remove what was
    written: half a file must not stay behind, taking the space, where nobody looks for it."""
    try:
        path.write_bytes(data)
    except BaseException:
        with contextlib.suppress(OSError):
            path.unlink()
        raise


def replace_with(path: Path, data: bytes) -> None:
    """Make ``data`` the content of ``path`` in one step (a temporary file beside it, then a
    rename): a crash or a full disk leaves the old file whole, and no temporary one."""
    tmp = path.with_name(path.name + ".tmp")
    write_or_remove(tmp, data)
    os.replace(tmp, path)
