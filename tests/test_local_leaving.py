"""Leaving a local game (``p2pcards play``) at a real terminal (pexpect).

``quit`` asks first (the game stops for the bots too) and, after scored hands,
shows where the match stood; Ctrl-C signs that the person's seat leaves, says
where the signed transcript is, and exits with status 130. A game played in one
process leaves no journal behind: ``resume --list`` has nothing to offer after it.
"""

from __future__ import annotations

import random
import re
import subprocess
from pathlib import Path

import pytest
from e2e_helpers import CLI, ENGLISH, close_human, menu_numbers, node_env, run_cli, spawn_human

pytestmark = pytest.mark.skipif(not CLI.exists(), reason="the p2pcards command is not installed in this venv")

pexpect = pytest.importorskip("pexpect")

QUESTION = r"Quit the game\? It stops here, for the bots too\. \(y/n\) > "
NEXT_HAND = r"Press Enter for the next hand\. > "
NOTHING_TO_RESUME = (
    "No unfinished game on this computer (p2pcards history lists those played)."
)

NINES_PROMPTS = {
    ENGLISH.move: "move",
    ENGLISH.suit: "suit",
    ENGLISH.drawn: "n",
}
NEUF_PROMPTS = {
    r"Look at the dummy\? \(y/n\) > ": "n",
    r"Take the dummy( without looking)?\? \(y/n\) > ": "n",
    r"Your card > ": "1",
}


def _play_first_hand(child, prompts: dict[str, str], rng: random.Random) -> None:  # type: ignore[no-untyped-def]
    """Answer every prompt with a legal move until the first hand is scored."""
    patterns = [NEXT_HAND, *prompts]
    answers = list(prompts.values())
    for _ in range(400):
        k = child.expect(patterns, timeout=30)
        if k == 0:
            return
        answer = answers[k - 1]
        screen = child.before
        if answer == "move":
            if any(hint in screen for hint in ENGLISH.press_enter):
                answer = ""
            else:
                answer = str(rng.choice(menu_numbers(screen, ENGLISH.menu)))
        elif answer == "suit":
            answer = str(rng.randint(1, 4))
        child.sendline(answer)
    raise AssertionError("the first hand does not end")


def _nothing_to_resume(home: Path) -> None:
    listed = run_cli(["resume", "--list"], home=home)
    assert listed.returncode == 0 and listed.stdout.strip() == NOTHING_TO_RESUME, listed.stdout


@pytest.mark.parametrize(
    ("game", "prompts"),
    [(["-n", "2"], NINES_PROMPTS), (["--game", "neuf"], NEUF_PROMPTS)],
    ids=["nines", "neuf"],
)
def test_quit_asks_first_and_shows_the_standings(
    tmp_path: Path, game: list[str], prompts: dict[str, str]
) -> None:
    """``quit`` asks whether to stop the game for everyone: no goes back to the prompt,
    yes ends it with the score table of the hands played, and nothing is left to resume."""
    home, log = tmp_path / "home", tmp_path / "screen"
    child = spawn_human(["play", *game, "--bot", "random", "--seed", "5"], home=home, log=log)
    try:
        _play_first_hand(child, prompts, random.Random(5))
        child.sendline("quit")
        child.expect(QUESTION)
        child.sendline("n")
        child.expect(re.escape("You stay at the table."))
        child.expect(NEXT_HAND)  # the same prompt again
        child.sendline("quit")
        child.expect(QUESTION)
        child.sendline("y")
        child.expect(pexpect.EOF, timeout=30)
    finally:
        status = close_human(child)
    screen = log.read_text(encoding="utf-8", errors="replace").replace("\r", "")
    assert status == 0, screen[-2000:]
    assert "Traceback" not in screen
    after = screen[screen.rindex("(y/n) > y") :]
    standings = after.index("Scores after hand 1")
    assert re.search(r"^Total ", after[standings:], re.M), after
    assert standings < after.index("Game abandoned.") < after.index("Signed transcript"), after
    _nothing_to_resume(home)


@pytest.mark.parametrize(
    ("game", "prompt"), [([], ENGLISH.move), (["--game", "neuf"], r"\(y/n\) > ")], ids=["nines", "neuf"]
)
def test_ctrl_c_signs_the_leave_and_says_where_the_transcript_is(
    tmp_path: Path, game: list[str], prompt: str
) -> None:
    """Ctrl-C at the person's prompt: their seat signs that it leaves ("interrupted"),
    the transcript's path is shown, the exit status is 130, and nothing is left to resume."""
    home = tmp_path / "home"
    screen = _interrupted(["play", *game, "--bot", "random", "--seed", "3"], prompt, tmp_path)
    saved = re.search(r"Signed transcript \(check it with p2pcards audit FILE\):\n\s*(\S+\.p2pt)", screen)
    assert saved is not None, screen[-2000:]
    audit = run_cli(["audit", saved[1]], home=home)
    said = " ".join(audit.stdout.split())
    assert audit.returncode == 1 and said.startswith("INCOMPLETE"), audit.stdout
    assert '"you" left (signed that they leave: "interrupted")' in said, audit.stdout
    _nothing_to_resume(home)


@pytest.mark.parametrize("game", [[], ["--game", "neuf"]], ids=["nines", "neuf"])
def test_a_local_game_leaves_no_journal_to_resume(tmp_path: Path, game: list[str]) -> None:
    """Every seat of a local game is a node in this one process: none keeps a journal,
    so ``resume`` offers no game the person never hosted (the bots' seats) afterwards."""
    home = tmp_path / "home"
    played = subprocess.run(
        [str(CLI), "play", *game, "--bot", "random", "--seed", "3"],
        input="quit\ny\n",
        env=node_env(home),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert played.returncode == 0 and "Game abandoned." in played.stdout, played.stdout + played.stderr
    _nothing_to_resume(home)


@pytest.mark.parametrize(
    ("game", "prompt"), [([], ENGLISH.move), (["--game", "neuf"], r"\(y/n\) > ")], ids=["nines", "neuf"]
)
def test_ctrl_c_in_an_offline_game_quits_with_status_130(
    tmp_path: Path, game: list[str], prompt: str
) -> None:
    """Offline there is no transcript to sign, but Ctrl-C still ends the program as one
    interrupted (status 130), after saying the game was abandoned."""
    _interrupted(["play", *game, "--offline", "--seed", "3"], prompt, tmp_path)


def _interrupted(args: list[str], prompt: str, tmp_path: Path) -> str:
    """The screen of ``p2pcards ARGS`` at a terminal, Ctrl-C pressed at ``prompt``: it ends
    with status 130, says the game was abandoned, and shows no traceback."""
    log = tmp_path / "screen"
    child = spawn_human(args, home=tmp_path / "home", log=log)
    try:
        child.expect(prompt)
        child.sendintr()
        child.expect(pexpect.EOF, timeout=30)
    finally:
        status = close_human(child)
    screen = log.read_text(encoding="utf-8", errors="replace").replace("\r", "")
    assert status == 130, screen[-2000:]
    assert "Traceback" not in screen and "Game abandoned." in screen, screen[-2000:]
    return screen
