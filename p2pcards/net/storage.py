"""Where a node keeps what outlives a game: its identity key, its name, transcripts.

The data directory is ``$P2PCARDS_HOME`` if set, else the system's own place for
an application's data (``platformdirs``): on Linux ``$XDG_DATA_HOME/p2pcards``,
else ``~/.local/share/p2pcards``; on macOS ``~/Library/Application
Support/p2pcards``; on Windows ``%LOCALAPPDATA%\\p2pcards``.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import time
import unicodedata
from pathlib import Path

import platformdirs

from p2pcards.crypto.identity import Identity
from p2pcards.errors import KeyFileError, UsageError
from p2pcards.files import replace_with
from p2pcards.protocol.notice import Notice
from p2pcards.say import system_said


def data_dir() -> Path:
    home = os.environ.get("P2PCARDS_HOME")
    if home:
        return Path(home)
    return Path(platformdirs.user_data_dir("p2pcards", appauthor=False))


def private_dir(path: Path, directory: Path | None = None) -> Path:
    """``path``, a folder in the data directory (``directory``, else :func:`data_dir`), made
    if missing, the data directory first: each folder this makes is readable only by this
    user (the folders above the data directory are left to the system)."""
    base = directory or data_dir()
    base.mkdir(parents=True, exist_ok=True, mode=0o700)
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def load_identity(directory: Path | None = None, *, bot: str | None = None) -> Identity:
    """This user's Ed25519 identity, created (mode 0600) on first use; with ``bot``, the
    identity of the bot seated under that name. A bot is not the person: it signs with a
    key of its own, so that a person may seat one beside themself at a table (a table
    refuses a key twice), and its key stays the same from game to game, as a person's."""
    base = directory or data_dir()
    path = base / "identity.key" if bot is None else base / BOTS / f"{_name_digest(bot)}.key"
    with contextlib.suppress(OSError):  # (a folder that cannot be made is said by the key's own error)
        private_dir(path.parent, base)
    try:
        return Identity.load_or_create(path)
    except KeyFileError as e:  # (said in the person's language; the file is left as it is)
        key = "keyfile_" + e.kind.replace("-", "_")
        raise UsageError(Notice(key, path=e.path, detail=e.detail)) from None
    except OSError as e:  # no key yet, and none can be made here (a read-only or full folder)
        raise UsageError(Notice("keyfile_cannot_create", folder=path.parent, error=system_said(e))) from None


BOTS = "bots"
"""The folder of the data directory that holds the bots' identities, one file by name."""


def _name_digest(name: str) -> str:
    """A file name for any seat name (names may hold any letter of any script)."""
    return hashlib.sha256(unicodedata.normalize("NFC", name).encode()).hexdigest()[:24]


def identity_for(key: bytes, directory: Path | None = None) -> Identity | None:
    """The identity kept here whose public key is ``key``: the user's or a bot's; None if
    none is (a journal copied from another computer)."""
    base = directory or data_dir()
    paths = [base / "identity.key", *sorted((base / BOTS).glob("*.key"))]
    for path in paths:
        try:
            identity = Identity.load(path)
        except UsageError:  # missing, unreadable or damaged: not this one
            continue
        if identity.public_key == key:
            return identity
    return None


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
    replace_with(path, (json.dumps(data, indent=2) + "\n").encode())


def transcript_path(game_id: bytes, seat: int, directory: Path | None = None, *, game: str = "nines") -> Path:
    """The default file for this node's transcript of a game: the game's name, the date
    the game started here, its id and the seat (``neuf-2026-11-30-0123456789ab-s2.p2pt``),
    in the data directory's ``transcripts`` folder (made readable only by this user)."""
    day = time.strftime("%Y-%m-%d")
    base = directory or data_dir()
    folder = base / "transcripts"
    with contextlib.suppress(OSError):  # (a folder that cannot be made is said when the file is saved)
        private_dir(folder, base)
    return folder / f"{game}-{day}-{game_id.hex()[:12]}-s{seat}.p2pt"


BOT_TRANSCRIPTS = "bot-transcripts.json"
"""The transcripts this computer saved from a seat a bot played (a watched game, ``--bot``)."""


def remember_bot_transcript(data: bytes, directory: Path | None = None) -> None:
    """Note that a bot played the seat that saved the transcript ``data``: the file says
    only which seat saved it, and ``p2pcards history`` must not call that seat the
    person's. Kept by the SHA-256 of the file's bytes; a note that cannot be written is lost."""
    path = (directory or data_dir()) / BOT_TRANSCRIPTS
    digests = sorted(bot_transcripts(directory) | {hashlib.sha256(data).hexdigest()})
    with contextlib.suppress(OSError):
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        replace_with(path, (json.dumps(digests) + "\n").encode())


def bot_transcripts(directory: Path | None = None) -> frozenset[str]:
    """The SHA-256 of each transcript a bot's seat saved here (none if the note is unreadable)."""
    try:
        data = json.loads(((directory or data_dir()) / BOT_TRANSCRIPTS).read_text())
    except (OSError, ValueError):
        return frozenset()
    return frozenset(d for d in data if type(d) is str) if type(data) is list else frozenset()


def journal_dir(directory: Path | None = None) -> Path:
    return (directory or data_dir()) / "journals"


def journal_path(game_id: bytes, seat: int, directory: Path | None = None) -> Path:
    """The write-ahead journal of this node's seat in a game (kept only while the game runs)."""
    return journal_dir(directory) / f"{game_id.hex()}-s{seat}.journal"


class JournalInUse(OSError):
    """Another process plays the game from this journal now (it holds the file's lock)."""


def _lock(fd: int) -> bool:
    """Take the exclusive lock of an open file for as long as it stays open; False if another
    process holds it. (Where the system has no ``flock``, nothing is locked.)"""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True


def journal_in_use(path: Path) -> bool:
    """Whether another process plays the game from the journal at ``path`` now."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        return not _lock(fd)
    finally:
        os.close(fd)  # (the lock, if taken, goes with it)


class JournalFile:
    """An append-only journal file: each write is made durable (fsync) before it returns.

    The file holds the seat's secret entropy: it is created with mode 0600 in a
    0700 directory, and removed once the game has ended and its transcript is saved.
    """

    def __init__(self, path: Path, *, truncate_at: int | None = None) -> None:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        self.path = path
        self._fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
        # Held while this node plays from the file: a second process on the same journal (the
        # game still running, or resumed twice at once) would cut off what the first appends.
        if not _lock(self._fd):
            os.close(self._fd)
            self._fd = -1
            raise JournalInUse(path)
        os.ftruncate(self._fd, truncate_at or 0)  # a torn tail is dropped before anything is added
        self._sync_dir()

    def _sync_dir(self) -> None:
        try:
            fd = os.open(self.path.parent, os.O_RDONLY)
        except OSError:
            return
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def write(self, data: bytes) -> None:
        view = memoryview(data)
        while view:
            n = os.write(self._fd, view)
            view = view[n:]
        os.fsync(self._fd)

    def close(self, *, remove: bool = False) -> None:
        if self._fd >= 0:
            os.close(self._fd)
            self._fd = -1
        if remove:
            with contextlib.suppress(OSError):
                self.path.unlink()
