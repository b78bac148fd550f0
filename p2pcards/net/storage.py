"""Where a node keeps what outlives a game: its identity key, its name, transcripts.

The data directory is ``$P2PCARDS_HOME`` if set, else ``$XDG_DATA_HOME/p2pcards``,
else ``~/.local/share/p2pcards``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from p2pcards.crypto.identity import Identity


def data_dir() -> Path:
    home = os.environ.get("P2PCARDS_HOME")
    if home:
        return Path(home)
    xdg = os.environ.get("XDG_DATA_HOME")
    base = Path(xdg) if xdg else Path.home() / ".local" / "share"
    return base / "p2pcards"


def load_identity(directory: Path | None = None) -> Identity:
    """This user's Ed25519 identity, created (mode 0600) on first use."""
    return Identity.load_or_create((directory or data_dir()) / "identity.key")


def _config_path(directory: Path | None) -> Path:
    return (directory or data_dir()) / "config.json"


def remembered_name(directory: Path | None = None) -> str | None:
    try:
        data = json.loads(_config_path(directory).read_text())
    except (OSError, ValueError):
        return None
    name = data.get("name") if isinstance(data, dict) else None
    return name if isinstance(name, str) and name else None


def remember_name(name: str, directory: Path | None = None) -> None:
    path = _config_path(directory)
    try:
        data = json.loads(path.read_text())
        if not isinstance(data, dict):
            data = {}
    except (OSError, ValueError):
        data = {}
    data["name"] = name
    path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, indent=2) + "\n")
    os.replace(tmp, path)


def transcript_path(game_id: bytes, seat: int, directory: Path | None = None) -> Path:
    """The default file for this node's transcript of a game (named after the game and seat)."""
    return (directory or data_dir()) / "transcripts" / f"nines-{game_id.hex()[:12]}-s{seat}.p2pt"
