"""Known players: a known name with a new key, or a known key under a new name, is said
loudly before the first shuffle; ``p2pcards players`` lists and forgets them.

A host that seats each joiner against a puppet of the other passes every check of the
protocol: the puppet has a key of its own. What gives it away is that key: a node
that played with the real player before knows theirs.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import trio
from click.testing import CliRunner
from net_helpers import RecordingUI, config, join_seat, start_host

from p2pcards.cli import main
from p2pcards.crypto.identity import Identity, fingerprint
from p2pcards.games.nines.rules import NinesRules
from p2pcards.net.known import FILE_NAME, KnownPlayers
from p2pcards.net.node import Outcome
from p2pcards.ui.i18n import Translator

BOB = Identity.from_bytes(bytes([2]) * 32)
PUPPET = Identity.from_bytes(bytes([3]) * 32)
CAROL = Identity.from_bytes(bytes([4]) * 32)
ANN = Identity.from_bytes(bytes([5]) * 32)


def roster(*pairs: tuple[str, Identity]) -> list[tuple[str, bytes]]:
    return [(name, who.public_key) for name, who in pairs]


def test_a_first_meeting_is_quiet_and_remembered(tmp_path: Path) -> None:
    known = KnownPlayers.load(tmp_path)
    table = roster(("me", CAROL), ("bob", BOB))
    assert known.check(table, me=0) == []
    known.remember(table, me=0, day="2026-12-01")
    again = KnownPlayers.load(tmp_path)
    assert [(p.name, p.key, p.games) for p in again.players.values()] == [("bob", BOB.public_key, 1)]
    assert again.check(table, me=0) == []  # the same bob with the same key: nothing to say
    again.remember(table, me=0, day="2026-12-02")
    assert KnownPlayers.load(tmp_path).players[BOB.public_key].games == 2


def test_a_known_name_with_a_new_key_is_a_warning(tmp_path: Path) -> None:
    known = KnownPlayers.load(tmp_path)
    known.remember(roster(("me", CAROL), ("Bob", BOB)), me=0, day="2026-12-01")
    warnings = known.check(roster(("me", CAROL), ("BOB", PUPPET)), me=0)  # names compared case-folded
    assert [w.key for w in warnings] == ["notice_known_new_key"]
    text = str(warnings[0])
    assert "BOB (seat 1)" in text and fingerprint(PUPPET.public_key)[:9] in text
    assert fingerprint(BOB.public_key)[:9] in text and "2026-12-01" in text and "fingerprint" in text


def test_a_known_key_under_another_name_is_a_warning(tmp_path: Path) -> None:
    known = KnownPlayers.load(tmp_path)
    known.remember(roster(("me", CAROL), ("bob", BOB)), me=0, day="2026-12-01")
    warnings = known.check(roster(("me", CAROL), ("dave", BOB)), me=0)
    assert [w.key for w in warnings] == ["notice_known_renamed"]
    assert "dave (seat 1)" in str(warnings[0]) and "knew as bob" in str(warnings[0])


def test_this_nodes_own_seat_is_never_checked(tmp_path: Path) -> None:
    known = KnownPlayers.load(tmp_path)
    known.remember(roster(("bob", BOB), ("carol", CAROL)), me=1)
    assert CAROL.public_key not in known.players  # this node's own key is not a "known player"
    assert known.check(roster(("carol", CAROL), ("bob", PUPPET)), me=1) == []


def test_a_damaged_list_is_set_aside_and_a_new_one_begun(tmp_path: Path) -> None:
    (tmp_path / FILE_NAME).write_text('{"version": 1, "players": [{"key": "zz"}]}')
    known = KnownPlayers.load(tmp_path)
    assert known.problem is not None and "moved to" in known.problem and known.players == {}
    assert (tmp_path / (FILE_NAME + ".damaged")).exists()
    known.remember(roster(("me", CAROL), ("bob", BOB)), me=0)
    assert json.loads((tmp_path / FILE_NAME).read_text())["players"][0]["name"] == "bob"


def test_a_second_damaged_list_never_overwrites_the_first_one_set_aside(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each damaged list is kept under a name of its own; one that cannot be moved aside (a
    folder where nothing can be renamed) is said to be left where it is, and nothing is
    written over it."""
    (tmp_path / FILE_NAME).write_text('{"first damaged list')
    assert KnownPlayers.load(tmp_path).problem is not None
    (tmp_path / FILE_NAME).write_text('{"second damaged list')
    second = KnownPlayers.load(tmp_path)
    assert second.problem is not None and f"moved to {FILE_NAME}.damaged-2" in second.problem
    assert (tmp_path / (FILE_NAME + ".damaged")).read_text() == '{"first damaged list'
    assert (tmp_path / (FILE_NAME + ".damaged-2")).read_text() == '{"second damaged list'
    second.remember(roster(("me", CAROL), ("bob", BOB)), me=0)
    assert json.loads((tmp_path / FILE_NAME).read_text())["players"][0]["name"] == "bob"

    other = tmp_path / "other"
    other.mkdir()
    (other / FILE_NAME).write_text('{"damaged, in a folder where nothing can be renamed')

    def refuse(*args: object) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(os, "rename", refuse)
    stuck = KnownPlayers.load(other)
    assert stuck.problem is not None and "moved to" not in stuck.problem and "left as it is" in stuck.problem
    stuck.remember(roster(("me", CAROL), ("bob", BOB)), me=0)
    assert (other / FILE_NAME).read_text() == '{"damaged, in a folder where nothing can be renamed'


def test_the_players_command_lists_and_forgets(tmp_path: Path) -> None:
    env = {"P2PCARDS_HOME": str(tmp_path)}
    runner = CliRunner()
    empty = runner.invoke(main, ["players"], env=env)
    assert empty.exit_code == 0 and "No known players yet" in empty.output
    known = KnownPlayers.load(tmp_path)
    known.remember(roster(("me", CAROL), ("bob", BOB), ("eve\x1b[2J", PUPPET)), me=0, day="2026-12-01")
    listed = runner.invoke(main, ["players"], env=env)
    assert listed.exit_code == 0 and fingerprint(BOB.public_key) in listed.output
    assert "\x1b" not in listed.output and "bob" in listed.output
    as_json = json.loads(runner.invoke(main, ["players", "--json"], env=env).output)
    assert sorted(p["fingerprint"] for p in as_json) == sorted(
        fingerprint(k.public_key) for k in (BOB, PUPPET)
    )
    gone = runner.invoke(main, ["players", "--forget", "BOB"], env=env)
    assert gone.exit_code == 0 and "Forgot bob" in gone.output
    by_key = runner.invoke(main, ["players", "--forget", fingerprint(PUPPET.public_key)[:9]], env=env)
    assert by_key.exit_code == 0 and "Forgot" in by_key.output
    assert KnownPlayers.load(tmp_path).players == {}
    missing = runner.invoke(main, ["players", "--forget", "nobody"], env=env)
    assert missing.exit_code == 1 and "No known player" in missing.output


def test_the_players_rows_fold_on_a_narrow_terminal(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from p2pcards.cli import cmd_players
    from p2pcards.ui.render import visible_len

    monkeypatch.setattr(cmd_players, "_to_terminal", lambda: True)
    env = {"P2PCARDS_HOME": str(tmp_path), "COLUMNS": "40"}
    KnownPlayers.load(tmp_path).remember(roster(("me", CAROL), ("bob", BOB)), me=0, day="2026-12-01")
    listed = CliRunner().invoke(main, ["players"], env=env)
    lines = listed.output.splitlines()
    assert listed.exit_code == 0 and max(visible_len(line) for line in lines) <= 40, lines
    assert fingerprint(BOB.public_key) in listed.output.replace("\n", " ")
    wide = CliRunner().invoke(main, ["players"], env={**env, "COLUMNS": "200"})
    assert len(wide.output.splitlines()) == 1  # one row a player where it fits


async def one_game(tmp_path: Path, joiner: Identity, name: str, host_ui: RecordingUI) -> dict[int, Outcome]:
    outcomes: dict[int, Outcome] = {}
    async with trio.open_nursery() as nursery:
        host = config(tmp_path, "h", identity=Identity.from_bytes(bytes([9]) * 32), ui=host_ui)
        port = await start_host(nursery, host, players=2, rules=NinesRules(hands=1), outcomes=outcomes)
        cfg = config(tmp_path, f"j-{name}-{joiner.public_key.hex()[:4]}", name=name, identity=joiner, seed=1)
        await join_seat(nursery, port, cfg, 1, outcomes, host_ui)
    return outcomes


async def test_a_puppet_in_a_known_players_seat_is_announced_before_the_first_shuffle(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from p2pcards.net import runner  # (the node loads it when the match starts)

    said_before_play: list[list[str]] = []
    real_run_table = runner.run_table

    async def run_table(table, *args, **kwargs):  # type: ignore[no-untyped-def]
        said_before_play.append([i for i in host_ui.infos if "WARNING" in i])
        return await real_run_table(table, *args, **kwargs)

    monkeypatch.setattr(runner, "run_table", run_table)
    with trio.fail_after(60):
        host_ui = RecordingUI()
        await one_game(tmp_path, BOB, "bob", host_ui)
        assert not [i for i in host_ui.infos if "WARNING" in i]
        host_ui = RecordingUI()
        outcomes = await one_game(tmp_path, PUPPET, "bob", host_ui)
    warned = [i for i in host_ui.infos if getattr(i, "key", "") == "notice_known_new_key"]
    assert len(warned) == 1 and "bob (seat 1)" in warned[0], host_ui.infos
    assert outcomes[0].status == "over"  # a warning, not a refusal: the people decide
    # The host's node said it before its table's first step (the run of the second game).
    assert said_before_play[-2] == warned or said_before_play[-1] == warned, said_before_play


def test_a_game_against_the_bots_of_this_computer_remembers_nobody(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bots of ``play`` are new every game: remembering them would warn, at a later
    table, that a friend named Bob has a new key."""
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path))
    for seed in (1, 2):
        result = CliRunner().invoke(
            main, ["play", "-n", "3", "--seed", str(seed), "--lang", "en"], input="score\nquit\ny\n"
        )
        assert "Game abandoned" in result.output, result.output
    assert list(tmp_path.glob("transcripts/*.p2pt"))  # the games were played, as nodes
    assert KnownPlayers.load(tmp_path).players == {}


def test_the_players_list_marks_a_name_met_with_two_keys(tmp_path: Path) -> None:
    """Two keys under one name are two players (a host may have seated a puppet under a known
    name): each row says so, in the reader's language; a name met with one key is left plain."""
    env = {"P2PCARDS_HOME": str(tmp_path), "P2PCARDS_LANG": None}
    known = KnownPlayers.load(tmp_path)
    known.remember(roster(("me", CAROL), ("bob", BOB)), me=0, day="2026-12-01")
    known.remember(roster(("me", CAROL), ("Bob", PUPPET)), me=0, day="2026-12-02")
    known.remember(roster(("me", CAROL), ("ann", ANN)), me=0, day="2026-12-02")
    for lang in ("en", "fr", "it"):
        listed = CliRunner().invoke(main, ["players", "--lang", lang], env=env)
        mark = Translator(lang)("players_same_name")
        rows = {line.split()[0]: line for line in listed.output.splitlines()}
        assert listed.exit_code == 0 and set(rows) == {"bob", "Bob", "ann"}, listed.output
        assert mark in rows["bob"] and mark in rows["Bob"] and mark not in rows["ann"], listed.output
