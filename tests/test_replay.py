"""``p2pcards replay FILE``: a verified game shown hand by hand with every card."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from protocol_helpers import SHORT_RULES, make_tables, run_match, transcript_bytes
from test_leave import left_match_file
from test_neuf_protocol import build as build_neuf
from test_neuf_protocol import run as run_neuf

from p2pcards.cli import main
from p2pcards.protocol.audit import audit_bytes
from p2pcards.replay import card_text


def replay(path: Path) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["replay", str(path)])
    return result.exit_code, result.output


def test_a_game_of_nines_is_shown_with_every_card_and_move(tmp_path: Path) -> None:
    tables = make_tables(3, SHORT_RULES, seed=4)
    run_match(tables, seed=4)
    data = transcript_bytes(tables[0])
    path = tmp_path / "nines.p2pt"
    path.write_bytes(data)
    code, out = replay(path)
    assert code == 0, out
    record = audit_bytes(data).to_record()
    assert len(record["hands"]) >= 1
    for hand in record["hands"]:
        assert f"── Hand {hand['number']} ·" in out
        for cards in hand["dealt"]:  # every dealt hand, card for card
            assert " ".join(card_text(c) for c in cards) in out
        assert out.count(". p") >= len(hand["events"])  # one numbered line per move
    names = [p["name"] for p in record["players"]]
    totals = ", ".join(f"{n} {t}" for n, t in zip(names, record["result"]["totals"], strict=True))
    assert f"Final totals: {totals}" in out


def test_a_game_of_le_neuf_shows_the_dummy_exchanges_and_tricks(tmp_path: Path) -> None:
    tables = build_neuf(2)
    run_neuf(tables, 2)
    path = tmp_path / "neuf.p2pt"
    path.write_bytes(transcript_bytes(tables[1]))
    code, out = replay(path)
    assert code == 0, out
    record = audit_bytes(path.read_bytes()).to_record()
    first = record["hands"][0]
    assert "Dummy: " + " ".join(card_text(c) for c in first["dummy"]) in out
    assert "Exchanges:" in out and "Tricks:" in out
    assert out.startswith("Le Neuf: p0, p1, p2.")


def test_what_does_not_verify_is_not_shown(tmp_path: Path) -> None:
    readme = tmp_path / "README.md"
    readme.write_text("# not a game\n")
    code, out = replay(readme)
    assert code == 2 and "not a p2pcards transcript" in out and "Hand" not in out
    tables = make_tables(3, SHORT_RULES, seed=4)
    run_match(tables, seed=4)
    data = bytearray(transcript_bytes(tables[0]))
    records = tables[0].transcript.records()
    raw = records[5].raw
    at = bytes(data).index(raw) + len(raw) // 2
    data[at] ^= 0x01  # one changed bit in a signed record
    bad = tmp_path / "bad.p2pt"
    bad.write_bytes(bytes(data))
    code, out = replay(bad)
    assert code in (1, 2) and "── Hand" not in out, out


@pytest.mark.parametrize("game", ["nines", "neuf"])
def test_a_match_that_a_player_left_is_replayed_with_every_hand(tmp_path: Path, game: str) -> None:
    """The hands before the leave are on the table the leaver sat at (the record's
    ``earlier``): they are shown too, with the leaver's cards, and so is the departure.
    A Le Neuf match ends at the leave, on a table that plays no hand at all."""
    path = tmp_path / f"{game}-left.p2pt"
    path.write_bytes(left_match_file(game))
    code, out = replay(path)
    assert code == 0, out
    record = audit_bytes(path.read_bytes()).to_record()
    hands = [h for t in record["earlier"] for h in t["hands"]] + record["hands"]
    assert hands and [h["number"] for h in hands] == list(range(1, len(hands) + 1))
    for hand in hands:
        assert f"── Hand {hand['number']} ·" in out
        for cards in hand["dealt"]:
            assert all(card_text(c) in out for c in cards)
    (gone,) = record["left"]
    assert f"{gone['name']} left" in out
