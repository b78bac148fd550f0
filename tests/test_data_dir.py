"""Where the data directory is: ``$P2PCARDS_HOME``, else each system's own place for it.

Linux keeps the place it always had (``$XDG_DATA_HOME/p2pcards``, else
``~/.local/share/p2pcards``); macOS and Windows get theirs from ``platformdirs``.
"""

from __future__ import annotations

import sys
from pathlib import Path

import platformdirs
import pytest

from p2pcards.net import storage


def test_p2pcards_home_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path / "mine"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert storage.data_dir() == tmp_path / "mine"


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the Linux places")
def test_on_linux_the_place_is_the_one_it_always_was(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("P2PCARDS_HOME", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert storage.data_dir() == tmp_path / "xdg" / "p2pcards"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert storage.data_dir() == tmp_path / "home" / ".local" / "share" / "p2pcards"


def test_elsewhere_the_system_says_where(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """What each system calls an application's data (the place ``platformdirs`` gives)."""
    monkeypatch.delenv("P2PCARDS_HOME", raising=False)
    seen: list[tuple[str, object]] = []

    def user_data_dir(appname: str, appauthor: object = None) -> str:
        seen.append((appname, appauthor))
        return str(tmp_path / "Application Support" / appname)

    monkeypatch.setattr(platformdirs, "user_data_dir", user_data_dir)
    assert storage.data_dir() == tmp_path / "Application Support" / "p2pcards"
    assert seen == [("p2pcards", False)]  # no vendor folder above it (Windows)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX modes")
@pytest.mark.parametrize("first", ["a bot's key", "the person's key", "a transcript's folder"])
def test_the_data_directory_is_made_readable_only_by_its_user_whoever_writes_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, first: str
) -> None:
    """``scripts/play`` seats bots, whose keys may be written before the person's: the data
    directory is made readable only by its user all the same, and so is its transcripts folder
    (a game's hands are there); the folders above it are left as they were."""
    above = tmp_path / "share"
    home = above / "p2pcards"
    monkeypatch.setenv("P2PCARDS_HOME", str(home))
    if first == "a bot's key":
        storage.load_identity(bot="Alice")
    elif first == "the person's key":
        storage.load_identity()
    else:
        storage.transcript_path(bytes(16), 0)
    assert home.stat().st_mode & 0o777 == 0o700
    folder = storage.transcript_path(bytes(16), 0).parent
    assert folder == home / "transcripts" and folder.stat().st_mode & 0o777 == 0o700
    probe = tmp_path / "probe"
    probe.mkdir()  # a folder as the system makes it: the one above the data directory is made so
    assert above.stat().st_mode & 0o777 == probe.stat().st_mode & 0o777


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("en", "cannot create your identity key in {folder}: Read-only file system; give p2pcards a folder"
         " it can write with P2PCARDS_HOME=FOLDER"),
        ("fr", "impossible de créer votre clé d'identité dans {folder} : système de fichiers en lecture"
         " seule"),
        ("it", "impossibile creare la tua chiave d'identità in {folder}: file system di sola lettura"),
    ],
)
def test_a_data_folder_where_no_key_can_be_made_is_named_with_what_to_do(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, lang: str, said: str
) -> None:
    """``host`` (or ``join``) with a data folder it cannot write, and no key there yet: the
    person is told which folder, why in their language, and how to give it another; not
    ``host: Read-only file system``, which names neither."""
    import errno

    from click.testing import CliRunner

    from p2pcards.cli import main
    from p2pcards.crypto.identity import Identity

    def read_only(self: Identity, path: object, *, overwrite: bool = True) -> None:
        raise OSError(errno.EROFS, "Read-only file system", str(path))

    monkeypatch.setattr(Identity, "save", read_only)
    home = tmp_path / "home"
    env = {"P2PCARDS_HOME": str(home), "P2PCARDS_LANG": None}
    args = ["host", "--no-port-mapping", "--no-discovery", "--lang", lang]
    result = CliRunner().invoke(main, args, env=env)
    assert result.exit_code == 1, result.output
    text = " ".join(result.output.split())
    assert said.format(folder=home) in text, text
    assert not list(home.rglob("*.key"))
