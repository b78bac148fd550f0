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
