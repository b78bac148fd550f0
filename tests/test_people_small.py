"""Small things a person noticed at a networked table, each checked through the real command.

The moves since a player's last turn all print before the table is drawn, an
Ace's cards are told in one line, the host's hint does not promise an address
that nobody else can reach, look-alike names are told apart in the lobby too,
and Le Neuf's headings fit a narrow terminal.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from click.testing import CliRunner, Result
from e2e_helpers import LOCAL, free_port, processes

from p2pcards.cli import main


def play(*args: str, input: str = "", env: dict[str, str] | None = None) -> Result:
    result = CliRunner().invoke(main, ["play", *args], input=input, env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.output
    return result


def turn_boxes(output: str) -> list[list[str]]:
    """The lines of each table drawn at the player's turn, from its heading to the hand."""
    lines = output.splitlines()
    boxes = []
    for i, line in enumerate(lines):
        if line.startswith("──") and "your turn" in line:
            end = next(j for j in range(i, len(lines)) if "Your hand" in lines[j])
            boxes.append(lines[i:end])
    return boxes


@pytest.mark.parametrize(("seed", "rules"), [(2, []), (3, ["--rule", "action-cards"])])
def test_at_a_networked_table_the_moves_since_a_turn_print_before_the_table(seed: int, rules: list) -> None:
    out = play("--seed", str(seed), "--rule", "hands=1", *rules, "--lang", "en", input="1\n" * 300).output
    boxes = turn_boxes(out)
    assert len(boxes) > 3, out
    for box in boxes:  # the players, the top card, then nothing but blank lines before the hand
        top = next(k for k, line in enumerate(box) if line.startswith("   Top"))
        assert not any(line.strip() for line in box[top + 1 :]), "\n".join(box)
    if rules:  # an Ace's two cards are one line, not two lines of one card
        assert re.search(r"^   \w+ had to draw 2 \(Ace\)$", out, re.M), out
        assert not re.search(r"had to draw 1 \(Ace\)", out), out


@pytest.mark.parametrize(("lang", "words"), [("en", "this computer only"), ("fr", "cet ordinateur"),
                                             ("it", "questo computer")])  # fmt: skip
def test_a_host_bound_to_loopback_is_told_that_nobody_else_can_use_its_address(
    lang: str, words: str, tmp_path: Path
) -> None:
    with processes(tmp_path) as procs:
        args = ["host", "--bind", LOCAL, "--port", str(free_port()), "--name", "ann", "--lang", lang]
        host = procs.spawn("host", [*args, "--no-discovery"], home=tmp_path)
        assert host.wait_for("P2PCARDS_CODE", timeout=20)
        text = host.output()
    assert words in text, text
    assert "this network" not in text and "ce réseau" not in text and "questa rete" not in text, text
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if words in line)
    assert len(lines[first]) <= 80 and len(lines[first + 1]) <= 80, lines[first : first + 2]


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
@pytest.mark.parametrize("columns", [40, 50])
def test_le_neufs_headings_fit_a_narrow_terminal_on_one_line(lang: str, columns: int) -> None:
    out = play("--game", "neuf", "--offline", "--seed", "3", "--lang", lang, input="n\n" * 3 + "1\n" * 40,
               env={"COLUMNS": str(columns)}).output  # fmt: skip
    lines = out.splitlines()
    headings = [i for i, line in enumerate(lines) if line.startswith("──")]
    assert len(headings) > 5, out
    for i in headings:  # one line, ending with its bar (a folded heading ends with a word)
        assert len(lines[i]) <= columns and lines[i].endswith("─"), lines[i : i + 2]
