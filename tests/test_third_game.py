"""A game is one folder: High Card (``tests/third_game/``), a game no line outside its
folder names, registers, plays in this process and through the real protocol
(mental-poker deal, signed transcript over loopback TCP between separate nodes),
audits VALID, replays, and keeps out of the games that come with p2pcards."""

from __future__ import annotations

import ast
import random
from collections.abc import Iterator
from pathlib import Path

import pytest
from protocol_helpers import entropy_for, game_id_for, identity_for, make_roster
from third_game import GAME
from third_game.rules import HighCardRules, strength

from p2pcards.bots import make_bot
from p2pcards.games import base
from p2pcards.games.base import MatchLoop, RandomShuffler, check_players
from p2pcards.protocol.audit import audit_bytes, audit_file
from p2pcards.protocol.loopback import LocalNetwork, play_bots
from p2pcards.protocol.table import table_class
from p2pcards.protocol.transcript import encode_file
from p2pcards.record import build_game_record
from p2pcards.replay import replay
from p2pcards.ui.local import PlayOptions, play_local
from p2pcards.ui.render import Style

FOLDER = Path(__file__).resolve().parent / "third_game"
PACKAGE = Path(base.__file__).resolve().parent.parent


@pytest.fixture(autouse=True)
def registered() -> Iterator[None]:
    base.register(GAME)
    yield
    base.GAMES.pop(GAME.name, None)


def test_the_game_is_found_by_its_name_with_every_part() -> None:
    assert base.game("highcard") is GAME
    assert table_class("highcard").GAME == "highcard"
    assert make_bot("heuristic", "highcard").name == "heuristic"
    check_players(GAME, 6)
    with pytest.raises(Exception, match="2 to 6 players"):
        check_players(GAME, 7)


def test_nothing_in_p2pcards_names_the_third_game() -> None:
    named = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*.py")
        if "highcard" in path.read_text(encoding="utf-8").lower()
        or "third_game" in path.read_text(encoding="utf-8")
    ]
    assert named == []


def test_the_folder_imports_only_p2pcards_and_itself() -> None:
    for path in FOLDER.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                top = node.module.split(".")[0]
                assert top in {"__future__", "p2pcards", "third_game", "collections", "dataclasses", "typing",
                               "copy", "random"}, (path.name, node.module)  # fmt: skip


def test_the_match_loop_plays_it_and_the_highest_card_wins_each_hand() -> None:
    bots = [make_bot("random", "highcard") for _ in range(3)]
    rng = random.Random(1)
    loop = MatchLoop(
        GAME,
        HighCardRules(hands=4),
        3,
        RandomShuffler(1, random.Random(2)),
        lambda seat, view, legal: bots[seat].choose(view, legal, rng),
    )
    match = loop.run()
    assert match.over and len(match.results) == 4 and sum(match.totals) == 4
    for hand, result in zip(match.history, match.results, strict=True):
        best = max(hand.events, key=lambda a: strength(a.card))
        assert result.winner == best.seat
        assert sorted(a.seat for a in hand.events) == [0, 1, 2]
    doc = build_game_record("highcard", match, ["a", "b", "c"], loop.cut_rounds)
    assert doc["game"] == "highcard" and len(doc["hands"]) == 4


@pytest.mark.parametrize("offline", [True, False], ids=["offline", "loopback-nodes"])
def test_play_shows_it_on_its_own_screen(
    offline: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path / "home"))
    out: list[str] = []
    opts = PlayOptions(
        game="highcard", players=3, bot="heuristic", seed=5, lang="en", watch=True, offline=offline,
        record=tmp_path / "r.json", transcript=None if offline else tmp_path / "t.p2pt",
    )  # fmt: skip
    assert play_local(opts, read=lambda prompt: "", write=out.append, style=Style()) == 0
    text = "\n".join(out)
    assert "High Card:" in text and text.count("wins hand") == 3 and "Winner:" in text
    if not offline:
        report = audit_file(tmp_path / "t.p2pt")
        assert report.valid and not report.incomplete, report.problems


def test_a_person_plays_it_at_the_prompt(tmp_path: Path) -> None:
    answers = iter(["7", "1"] * 10)
    out: list[str] = []
    opts = PlayOptions(game="highcard", players=2, bot="random", seed=3, lang="en", offline=True, name="Zoe")
    assert play_local(opts, read=lambda prompt: next(answers), write=out.append, style=Style()) == 0
    text = "\n".join(out)
    assert "Type a number from 1 to" in text and text.count("Zoe plays") == 3


def test_it_plays_through_the_real_protocol_and_audits_valid() -> None:
    rules = HighCardRules(hands=3)
    roster = make_roster(4, 9)
    cls = table_class("highcard")
    tables = {
        s: cls(game_id=game_id_for(9), roster=roster, rules=rules, seat=s, identity=identity_for(s, 9),
               entropy=entropy_for(s, 9))
        for s in range(4)
    }  # fmt: skip
    net = LocalNetwork(tables, rng=random.Random(9))
    play_bots(net, {s: make_bot("heuristic", "highcard") for s in tables}, random.Random(9))
    assert not net.failures
    assert all(t.status == "over" for t in tables.values())
    totals = {tuple(t.match.totals) for t in tables.values()}
    assert len(totals) == 1 and sum(next(iter(totals))) == 3
    data = encode_file(tables[2].transcript.records(), saved_by=2, status="over")
    report = audit_bytes(data)
    assert report.valid and not report.incomplete, report.problems
    doc = report.to_record()
    assert doc["game"] == "highcard" and [h["winner"] for h in doc["hands"]] == [
        r.winner for r in tables[0].match.results
    ]
    text = "\n".join(line for block in replay(doc) for line in block)
    assert "High Card" in text and text.count("wins the point") == 3


def test_a_seat_that_plays_a_card_it_does_not_hold_is_blamed() -> None:
    rules = HighCardRules(hands=1)
    roster = make_roster(3, 4)
    honest = table_class("highcard")

    class Cheat(honest):  # type: ignore[misc,valid-type]
        def _body_for_action(self, action):  # type: ignore[no-untyped-def]
            body = super()._body_for_action(action)
            shown = body.cards[0]
            moved = type(shown)(round=0, pos=(shown.pos + 1) % 6, card=shown.card, key=shown.key)
            return type(body)(cards=(moved,), suit=None)

    tables = {
        s: (Cheat if s == 1 else honest)(game_id=game_id_for(4), roster=roster, rules=rules, seat=s,
                                          identity=identity_for(s, 4), entropy=entropy_for(s, 4))
        for s in range(3)
    }  # fmt: skip
    net = LocalNetwork(tables, rng=random.Random(4))
    play_bots(net, {s: make_bot("random", "highcard") for s in tables}, random.Random(4))
    for seat in (0, 2):
        failure = tables[seat].failure
        assert tables[seat].status == "failed" and failure is not None
        assert failure.peer == 1 and "does not hold" in str(failure)
