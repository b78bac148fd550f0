"""The package others install: a wheel built from this tree gives a working ``p2pcards``
in a fresh environment, with its languages (the catalogs are package data)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


def run(*args: str | Path, cwd: Path | None = None, env: dict[str, str] | None = None,
        input: str | None = None) -> subprocess.CompletedProcess[str]:  # fmt: skip
    done = subprocess.run([str(a) for a in args], cwd=cwd, env=env, input=input, capture_output=True,
                          text=True, timeout=600, check=False)  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return done


def test_a_wheel_installs_a_working_p2pcards_in_a_fresh_environment(tmp_path: Path) -> None:
    source = tmp_path / "source"  # a copy: building leaves a build/ folder beside what it builds
    shutil.copytree(ROOT / "p2pcards", source / "p2pcards", ignore=shutil.ignore_patterns("__pycache__"))
    for part in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / part, source / part)
    wheels = tmp_path / "wheels"
    run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--wheel-dir", wheels, source)
    (wheel,) = wheels.glob("p2pcards-*.whl")
    venv = tmp_path / "venv"
    run(sys.executable, "-m", "venv", venv)
    bin_dir = venv / ("Scripts" if os.name == "nt" else "bin")
    run(bin_dir / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check", wheel)
    env = {**os.environ, "P2PCARDS_HOME": str(tmp_path / "home"), "COLUMNS": "80"}
    env.pop("PYTHONPATH", None)
    exe = bin_dir / "p2pcards"
    assert "play" in run(exe, "--help", env=env, cwd=tmp_path).stdout
    game = run(exe, "play", "--offline", "--seed", "1", "--lang", "fr", env=env, cwd=tmp_path, input="q\no\n")
    assert "Partie abandonnée." in game.stdout, game.stdout  # the French catalog came with the wheel
    where = run(bin_dir / "python", "-c", "import p2pcards; print(p2pcards.__file__)", env=env, cwd=tmp_path)
    assert str(venv) in where.stdout  # the installed copy, not this tree
