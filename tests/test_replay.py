"""``p2pcards replay FILE``: a verified game shown hand by hand with every card."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from protocol_helpers import SHORT_RULES, make_tables, run_match, transcript_bytes
from test_leave import file_of, leaves, left_match_file, play_until, sittings, started
from test_neuf_protocol import build as build_neuf
from test_neuf_protocol import run as run_neuf

from p2pcards.cards import hand_sort_key, parse_card
from p2pcards.cli import main
from p2pcards.games.base import game as game_named
from p2pcards.games.neuf.render import neuf_sort
from p2pcards.games.nines.rules import NinesRules
from p2pcards.protocol.audit import audit_bytes
from p2pcards.replay import card_text
from p2pcards.replay_moves import SUIT_NAMES

FIXTURES = Path(__file__).parent / "fixtures"


def replay(path: Path, columns: int = 80) -> tuple[int, str]:
    result = CliRunner().invoke(main, ["replay", str(path)], env={"COLUMNS": str(columns)})
    return result.exit_code, result.output


def screen_order(cards: list[str], game: str = "nines", trump: str | None = None) -> str:
    """The cards as the game screen shows a hand: its own sort, by its own key."""
    parsed = [parse_card(c) for c in cards]
    ordered = neuf_sort(parsed, trump) if game == "neuf" else sorted(parsed, key=hand_sort_key)
    return " ".join(card_text(c.text()) for c in ordered)


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
            assert screen_order(cards) in out
        assert out.count(". p") >= len(hand["events"])  # one numbered line per move
    names = [p["name"] for p in record["players"]]
    totals = ", ".join(f"{n} {t}" for n, t in zip(names, record["result"]["totals"], strict=True))
    assert f"Final totals: {totals}" in out


def test_a_drawn_card_played_at_once_is_one_draw_then_one_play(tmp_path: Path) -> None:
    """A card drawn and played at once reads as two moves, each said once: the draw, then the
    play (not "draws it and plays it", then "plays it" again)."""
    tables = make_tables(3, SHORT_RULES, seed=5)
    run_match(tables, seed=5)
    data = transcript_bytes(tables[0])
    path = tmp_path / "nines.p2pt"
    path.write_bytes(data)
    code, out = replay(path, columns=200)
    assert code == 0, out
    record = audit_bytes(data).to_record()
    played_at_once = [
        (e, after)
        for hand in record["hands"]
        for e, after in zip(hand["events"], hand["events"][1:], strict=False)
        if e["type"] == "draw" and after["type"] == "play" and after.get("card") == e.get("card")
    ]
    assert played_at_once, "the match has no card drawn and played at once"
    assert "and plays it" not in out and "draws" in out
    for _draw, play in played_at_once:
        shown = card_text(str(play["card"]))
        assert f"draws {shown}." in out and f"plays {shown}" in out


def test_a_game_of_le_neuf_shows_the_dummy_exchanges_and_tricks(tmp_path: Path) -> None:
    tables = build_neuf(2)
    run_neuf(tables, 2)
    path = tmp_path / "neuf.p2pt"
    path.write_bytes(transcript_bytes(tables[1]))
    code, out = replay(path)
    assert code == 0, out
    record = audit_bytes(path.read_bytes()).to_record()
    first = record["hands"][0]
    assert "Dummy: " + screen_order(first["dummy"], "neuf", first["trump"]) in out
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
            assert screen_order(cards, record["game"], hand.get("trump")) in out
    (gone,) = record["left"]
    assert f"{gone['name']} left" in out


def test_a_player_who_leaves_the_table_the_others_went_on_at_is_said_and_they_played_on(
    tmp_path: Path,
) -> None:
    """Three players; p1 leaves in hand 1, p0 and p2 play on at a new table, and p0 leaves
    there in its hand 1 and saves its file. The replay says that the others played on after
    p1 left (two can play Nines), and that p0 left where the file ends, as the audit does."""
    tables = sittings(3, NinesRules(target=100), seed=3)
    net, rng = started(tables, 3)
    play_until(net, rng, lambda: tables[0].tables[0].hand is not None)
    rest = leaves(net, 1, "interrupted")
    play_until(rest, rng, lambda: len(tables[0].tables) == 2 and tables[0].current.hand is not None)
    assert len(tables[0].tables) == 2 and tables[0].current.hand is not None
    tables[0].leave("dinner is ready")
    path = tmp_path / "left-twice.p2pt"
    path.write_bytes(file_of(tables[0], 0))
    code, out = replay(path)
    assert code == 0, out
    flat = " ".join(out.split())
    assert "p1 left after 0 hands" in flat and "the others played on from a fresh deal" in flat, out
    assert "too few to play on" not in flat, out
    said = 'p0 left during hand 1 (signed that they leave: "dinner is ready"); the file ends there.'
    assert said in flat, out
    report = audit_bytes(path.read_bytes())
    # The match's players are counted, whatever table the file ends at (as in the leaver's file).
    assert "INCOMPLETE: an unfinished game of Nines, 3 players" in report.summary(), report.summary()
    assert "3 players" in audit_bytes(file_of(tables[1], 1)).summary().split("\n")[0]
    record = report.to_record()
    assert [d["name"] for d in record["left"]] == ["p1"]
    assert [(d["name"], d["hand"], d["key"]) for d in record["leaving"]] == [
        ("p0", 1, record["players"][0]["key"])
    ]


def test_the_replay_reads_like_the_game_screen(tmp_path: Path) -> None:
    """A person reads it, not a program: the rules in words (no ``key=False``), hands
    sorted as on the game screen, and each move a sentence with a verb."""
    path = FIXTURES / "nines-4p-variants.p2pt"
    code, out = replay(path)
    assert code == 0, out
    record = audit_bytes(path.read_bytes()).to_record()
    spec = game_named("nines")
    flat = " ".join(out.split())
    for sentence in spec.describe_rules(spec.rules_from_dict(record["rules"])):
        assert sentence in flat, sentence
    assert not any(word in out for word in ("=False", "=True", "None", "looked True", "took False"))
    names = [p["name"] for p in record["players"]]
    plays = 0
    for hand in record["hands"]:
        for cards in hand["dealt"]:
            assert screen_order(cards) in out
        for e in hand["events"]:
            if e["type"] == "play" and "suit" in e and "card" in e:
                named = f"{names[e['seat']]} plays {card_text(e['card'])} and names {SUIT_NAMES[e['suit']]}"
                assert named in flat, named
                plays += 1
            elif e["type"] == "draw":
                assert f"{names[e['seat']]} draws {card_text(e['card'])}" in flat
    assert plays, "the fixture names a suit somewhere"


@pytest.mark.parametrize("columns", [80, 56])
def test_every_line_of_the_replay_fits_the_terminal(tmp_path: Path, columns: int) -> None:
    """The stock of a hand is a long list and a hand of Le Neuf has 13 cards: folded,
    they stay within the terminal's width (80 columns when it is not a terminal)."""
    neuf = tmp_path / "neuf.p2pt"
    neuf.write_bytes(left_match_file("neuf"))
    for path in (FIXTURES / "nines-4p-variants.p2pt", neuf):
        code, out = replay(path, columns)
        assert code == 0, out
        lines = out.splitlines()
        assert max(len(line) for line in lines) <= columns
        assert max(len(line) for line in lines) > columns - 12  # folded near the edge, not short


@pytest.mark.parametrize("stop", ["q", "quitter", "\x04"])
def test_a_replay_stepped_hand_by_hand_stops_at_q_or_ctrl_d(stop: str) -> None:
    """In a terminal, ``--step`` waits after each hand: Enter shows the next, ``q`` (in any
    language the program speaks) or Ctrl-D stops there, cleanly (status 0)."""
    import sys

    import pexpect

    path = FIXTURES / "nines-4p-variants.p2pt"
    child = pexpect.spawn(
        sys.executable, ["-m", "p2pcards", "replay", "--step", str(path)], encoding="utf-8", timeout=30,
        dimensions=(40, 100),
    )  # fmt: skip
    prompt = r"Enter: the next hand; q: stop here > "
    child.expect(prompt)
    assert "Hand 1" in child.before and "Hand 2" not in child.before
    child.send("\r")
    child.expect(prompt)
    assert "Hand 2" in child.before and "Total" in child.before
    child.send(stop if stop == "\x04" else stop + "\r")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0, child.before
    assert "winner" not in child.before.casefold() and "VALID" not in child.before, child.before


@pytest.mark.parametrize(("lang", "next_hand", "interrupted"), [
    ("en", r"Enter: the next hand; q: stop here > ", "Interrupted."),
    ("it", r"Invio: la mano seguente; q: fermarsi qui > ", "Interrotto."),
])  # fmt: skip
def test_ctrl_c_in_a_stepped_replay_stops_it_as_an_interrupted_program(
    lang: str, next_hand: str, interrupted: str
) -> None:
    """Ctrl-C at the "next hand" prompt stops the replay at once, with status 130 and the
    word every command interrupted at a prompt says (it ended with no word at all), and no
    traceback."""
    import sys

    import pexpect

    path = FIXTURES / "nines-4p-variants.p2pt"
    child = pexpect.spawn(
        sys.executable, ["-m", "p2pcards", "replay", "--step", str(path), "--lang", lang], encoding="utf-8",
        timeout=30, dimensions=(40, 100),
    )  # fmt: skip
    child.expect(next_hand)
    child.sendintr()
    child.expect_exact(interrupted)
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 130, (child.exitstatus, child.signalstatus, child.before)
    assert "Traceback" not in child.before and "Hand 2" not in child.before, child.before
