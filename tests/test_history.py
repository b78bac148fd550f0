"""``p2pcards history``: the saved games of this computer, newest first, each checked.

Real transcripts (Nines and Le Neuf, finished, cut short, with a cheat, with a
hostile name) are written into a temporary data directory beside files that
are not transcripts at all.
"""

from __future__ import annotations

import datetime
import json
import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner
from protocol_helpers import (
    SHORT_RULES,
    RawRecord,
    honest_transcript,
    make_tables,
    raw_records_file,
    rechain,
    record_map,
    run_match,
    sign_map,
    transcript_bytes,
)
from test_neuf_protocol import build, run

from p2pcards.cli import main
from p2pcards.history import VERDICTS_FILE, WIDTH, GameEntry
from p2pcards.protocol.transcript import decode_file
from p2pcards.ui.render import visible_len

NINES = "nines-2026-11-28-aaaaaaaaaaaa-s1.p2pt"
NEUF = "neuf-2026-11-30-bbbbbbbbbbbb-s0.p2pt"
CUT_SHORT = "nines-2026-11-29-cccccccccccc-s0.p2pt"
TRUNCATED = "nines-2026-11-26-dddddddddddd-s0.p2pt"
GARBAGE = "notes.txt"  # dated 2026-11-27 by its modification time
ESCAPES = "\x1b]0;pwned\x07\x1b[2J\nevil wins!"


def _records(data: bytes) -> list[RawRecord]:
    return [RawRecord(raw, sig) for raw, sig in decode_file(data).records]  # type: ignore[arg-type]


def _renamed(data: bytes, seat: int, name: str) -> bytes:
    """The transcript with ``seat``'s name changed in every join record, all re-signed."""
    out = []
    for r in _records(data):
        obj = record_map(r.raw)
        if obj["type"] == "join":
            obj["body"]["roster"][seat][0] = name
            r = sign_map(obj, obj["seat"])
        out.append(r)
    return raw_records_file(rechain(out, -1))


def _cheated(data: bytes) -> bytes:
    """Seat 1 commits to another hand secret than the one it reveals (re-signed, rechained):
    its commitment for hand 1 travels in its cut reveal."""
    recs = _records(data)
    k = next(i for i, r in enumerate(recs) if record_map(r.raw)["type"] == "reveal"
             and record_map(r.raw)["seat"] == 1)  # fmt: skip
    obj = record_map(recs[k].raw)
    obj["body"]["next"] = bytes(32)
    recs[k] = sign_map(obj, 1)
    return raw_records_file(rechain(recs, k))


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("home")
    folder = root / "transcripts"
    folder.mkdir()
    tables = make_tables(3, SHORT_RULES, seed=1)
    run_match(tables, seed=1)
    assert {t.status for t in tables.values()} == {"over"}
    (folder / NINES).write_bytes(transcript_bytes(tables[1]))
    neuf = build(2)
    run(neuf, 2)
    neuf_data = transcript_bytes(neuf[0])
    (folder / NEUF).write_bytes(neuf_data)
    honest = honest_transcript(3)
    (folder / CUT_SHORT).write_bytes(raw_records_file(_records(honest)[:20], status="running"))
    (folder / TRUNCATED).write_bytes(neuf_data[: len(neuf_data) // 2])
    (folder / GARBAGE).write_text("not a game\n")
    day = datetime.datetime(2026, 11, 27, 12).timestamp()
    os.utime(folder / GARBAGE, (day, day))
    return root


def _history(*args: str, home: Path | None = None) -> tuple[int, str, str]:
    env = {"P2PCARDS_HOME": str(home)} if home is not None else {}
    result = CliRunner().invoke(main, ["history", *args], env=env, catch_exceptions=False)
    return result.exit_code, result.stdout, result.stderr


def game_lines(out: str) -> list[str]:
    """The lines of the listing that are games (not the notes in brackets after them)."""
    return [line for line in out.splitlines() if not line.startswith("(")]


def test_the_listing_is_newest_first_with_every_field(home: Path) -> None:
    (home / VERDICTS_FILE).unlink(missing_ok=True)  # every file audited, as on a first listing
    code, out, err = _history(home=home)
    assert code == 0
    lines = game_lines(out)
    assert [line[:2] for line in lines] == [" 1", " 2", " 3", " 4", " 5"]
    assert [line[3:13] for line in lines] == [
        "2026-11-30", "2026-11-29", "2026-11-28", "2026-11-27", "2026-11-26"
    ]  # fmt: skip
    neuf, short, nines, garbage, truncated = lines
    assert "Le Neuf" in neuf and "p0 (you), p1, p2" in neuf and " won with " in neuf
    assert neuf.endswith("✓ verified")
    assert "Nines" in nines and "p0, p1 (you), p2" in nines and nines.endswith("✓ verified")
    assert "unfinished at hand 1" in short and short.endswith("… incomplete")
    assert "notes.txt: not a p2pcards transcript" in garbage
    # A file cut short: its complete records may still be read (then it is not finished).
    assert f"{TRUNCATED}: not a p2pcards transcript" in truncated or truncated.endswith("incomplete")
    assert all(len(line) < 80 for line in out.splitlines())
    assert "Verifying 5 games" in err  # a full audit of each, said so


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_a_transcript_that_cannot_be_read_is_not_called_no_transcript(
    tmp_path: Path, lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file the listing may not open (no read permission) is said to be unreadable, in the
    player's language; "not a p2pcards transcript" would send its owner to delete it."""
    from p2pcards.ui.i18n import Translator

    folder = tmp_path / "transcripts"
    folder.mkdir()
    (folder / "locked.p2pt").write_bytes(honest_transcript(3))
    opened = os.open

    def refuse(path: object, *args: object, **kwargs: object) -> int:
        if str(path).endswith("locked.p2pt"):
            raise PermissionError(13, "Permission denied", str(path))
        return opened(path, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(os, "open", refuse)
    code, out, _ = _history("--lang", lang, home=tmp_path)
    tr = Translator(lang)
    assert code == 0
    assert f"locked.p2pt: {tr('hist_unreadable')}" in out, out
    assert tr("hist_not_transcript") not in out
    assert tr("hist_unreadable") != Translator("en")("hist_unreadable") or lang == "en"


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_copy_cut_short_before_its_first_record_is_said_so(tmp_path: Path, lang: str) -> None:
    """A transcript copied in part (its header and a little more) was "not a p2pcards
    transcript" in the listing, where the audit says it is cut short before its first record."""
    from p2pcards.ui.i18n import Translator

    folder = tmp_path / "transcripts"
    folder.mkdir()
    whole = honest_transcript(3)
    for size in (30, 120):
        (folder / f"cut{size}.p2pt").write_bytes(whole[:size])
    (folder / "foreign.p2pt").write_bytes(b"PK\x03\x04 a zip file, not a transcript")
    code, out, _ = _history("--lang", lang, home=tmp_path)
    tr = Translator(lang)
    assert code == 0
    assert f"cut30.p2pt: {tr('hist_cut_short')}" in out and f"cut120.p2pt: {tr('hist_cut_short')}" in out, out
    assert f"foreign.p2pt: {tr('hist_not_transcript')}" in out, out


def test_json_is_a_list_of_objects(home: Path) -> None:
    code, out, _ = _history("--json", home=home)
    assert code == 0
    games = json.loads(out)
    assert isinstance(games, list) and len(games) == 5
    neuf = games[0]
    assert neuf["game"] == "neuf" and neuf["title"] == "Le Neuf" and neuf["date"] == "2026-11-30"
    assert neuf["verified"] == "verified" and neuf["finished"] is True
    assert [p["name"] for p in neuf["players"]] == ["p0", "p1", "p2"]
    assert [p["you"] for p in neuf["players"]] == [True, False, False]
    assert len(neuf["totals"]) == 3 and neuf["winners"]
    assert games[1]["verified"] == "incomplete" and games[1]["hand"] == 1 and not games[1]["finished"]
    assert games[2]["saved_by"] == 1
    assert games[3]["transcript"] is False and games[3]["game"] is None
    assert games[3]["result"] == "not a p2pcards transcript"


def test_no_verify_only_reads_the_join_and_result_records(home: Path) -> None:
    code, out, err = _history("--no-verify", home=home)
    assert code == 0 and "Verifying" not in err
    lines = game_lines(out)
    assert len(lines) == 5
    assert all("verified" not in line or line.endswith("· unchecked") for line in lines)
    assert "p0, p1 (you), p2" in lines[2] and " won with " in lines[2]
    assert "unfinished at hand 1" in lines[1]
    games = json.loads(_history("--no-verify", "--json", home=home)[1])
    assert [g["verified"] for g in games][:4] == ["unchecked", "unchecked", "unchecked", None]
    verified = json.loads(_history("--json", home=home)[1])
    assert games[0]["totals"] == verified[0]["totals"] and games[0]["winners"] == verified[0]["winners"]


def test_limit_shows_the_newest_and_says_how_many_are_left(home: Path) -> None:
    code, out, _ = _history("-n", "2", home=home)
    lines = out.splitlines()
    assert code == 0 and len(game_lines(out)) == 2
    assert lines[0].startswith(" 1 2026-11-30") and lines[1].startswith(" 2 2026-11-29")
    assert "3 older games not shown" in lines[2] and "-n 5" in lines[2]
    assert len(json.loads(_history("--limit", "1", "--json", home=home)[1])) == 1


def test_a_path_argument_lists_another_directory(home: Path, tmp_path: Path) -> None:
    code, out, _ = _history(str(home), "--no-verify", home=tmp_path)
    assert code == 0 and len(out.splitlines()) == 5
    code, out, _ = _history(str(home / "transcripts"), "-n", "1", home=tmp_path)
    assert code == 0 and out.startswith(" 1 2026-11-30")


def test_no_saved_game_is_one_friendly_line(tmp_path: Path) -> None:
    code, out, _ = _history(home=tmp_path)
    assert code == 0
    assert out == f"No saved game yet: games are saved in {tmp_path / 'transcripts'}\n"
    assert _history("--json", home=tmp_path)[1] == "[]\n"


def test_a_cheat_names_the_seat_the_audit_blames(tmp_path: Path) -> None:
    folder = tmp_path / "transcripts"
    folder.mkdir()
    (folder / "nines-2026-12-01-eeeeeeeeeeee-s0.p2pt").write_bytes(_cheated(honest_transcript(3)))
    code, out, _ = _history(home=tmp_path)
    assert code == 0
    assert "failed: p1" in out and game_lines(out)[0].endswith("✗ invalid")
    (game,) = json.loads(_history("--json", home=tmp_path)[1])
    assert game["blamed"] == 1 and game["verified"] == "invalid" and game["problems"]


def test_hostile_names_reach_no_terminal(tmp_path: Path) -> None:
    folder = tmp_path / "transcripts"
    folder.mkdir()
    honest = honest_transcript(3)
    # Allowed by the schema, yet messy on screen: a pile of accents and wide spaces.
    messy = "Eve" + "\u0301" * 12 + "\u2003\u2003x"
    (folder / "nines-2026-12-02-ffffffffffff-s0.p2pt").write_bytes(_renamed(honest, 2, messy))
    # Refused by the schema: escapes that would retitle the window and clear the screen.
    (folder / "nines-2026-12-01-ffffffffffff-s0.p2pt").write_bytes(_renamed(honest, 1, ESCAPES))
    for args in ((), ("--no-verify",)):
        code, out, _ = _history(*args, home=tmp_path)
        assert code == 0
        lines = game_lines(out)
        assert len(lines) == 2
        assert "Eve" + "\u0301" * 4 + " x" in lines[0] and "\u0301" * 5 not in lines[0]
        assert "not a p2pcards transcript" in lines[1]
        assert not any(c in out for c in "\x1b\x07\r\u2003") and "evil wins" not in out
    code, out, _ = _history("--json", home=tmp_path)
    assert json.loads(out)[0]["players"][2]["name"] == messy  # as signed, for a JSON reader


def test_a_line_never_obeys_a_name_nor_overflows() -> None:
    entry = GameEntry(path=Path("x.p2pt"), date="2026-12-03", mtime=0.0, game="nines", check="verified")
    entry.names = [ESCAPES, "b" * 32, "c" * 32, "d" * 32, "e" * 32, "f" * 32]
    entry.keys = [bytes([i]).hex() * 32 for i in range(6)]
    entry.saved_by, entry.finished, entry.winners, entry.totals = 0, True, [1, 2], [1, 2, 3, 4, 5, 6]
    line = entry.line(1, 40)
    assert len(line) <= WIDTH and line.endswith("✓ verified")
    assert not any(c in line for c in "\x1b\x07\n") and "]0;" not in line


@pytest.mark.parametrize("earlier", [(), (0, 1, 2), (1,)], ids=["current", "earlier", "mixed"])
def test_the_unverified_hand_count_matches_the_verified_one(tmp_path: Path, earlier: tuple[int, ...]) -> None:
    """Without verifying, hands are counted from where their commitments came: commit steps
    (seats that send them apart), or reveals that carry them: whichever the seats did."""
    from protocol_helpers import EarlierTable

    from p2pcards.history import read

    tables = make_tables(3, SHORT_RULES, seed=2, table_classes=dict.fromkeys(earlier, EarlierTable))
    run_match(tables, seed=2)
    path = tmp_path / "game.p2pt"
    path.write_bytes(transcript_bytes(tables[0]))
    glanced = read(GameEntry(path=path, date="2026-11-30", mtime=0.0), verify=False)
    verified = read(GameEntry(path=path, date="2026-11-30", mtime=0.0))
    assert verified.check == "verified" and glanced.check == "unchecked"
    assert glanced.hand == verified.hand == len(tables[0].match.results) > 0  # type: ignore[union-attr]


def test_a_player_who_left_is_still_listed_and_marked(tmp_path: Path) -> None:
    """The match ended at a table without the leaver, but they sat down and played: the
    listing names everyone, marks who left, and gives the leaver's total too."""
    from test_leave import left_match_file

    folder = tmp_path / "transcripts"
    folder.mkdir()
    (folder / "nines-2026-12-02-aaaaaaaaaaaa-s0.p2pt").write_bytes(left_match_file("nines"))
    (folder / "neuf-2026-12-01-bbbbbbbbbbbb-s0.p2pt").write_bytes(left_match_file("neuf"))
    for args in ((), ("--no-verify",)):
        code, out, _ = _history(*args, home=tmp_path)
        assert code == 0
        nines, neuf = game_lines(out)
        assert "p0 (you), p1, p2 (left), p3" in nines, out
        assert "p0 (you), p1 (left), p2" in neuf, out
    nines, neuf = json.loads(_history("--json", home=tmp_path)[1])
    assert [p["left"] for p in nines["players"]] == [False, False, True, False]
    assert nines["left"] == [{"seat": 2, "hand": 2}] and neuf["left"] == [{"seat": 1, "hand": 2}]
    assert len(nines["totals"]) == 4 and nines["finished"] and neuf["finished"]


def test_each_game_is_one_line_in_80_columns_with_the_number_replay_takes(home: Path) -> None:
    """The path of a file is long and only ``--json`` had it: the listing numbers the
    games instead: ``p2pcards replay N`` shows game N, and ``p2pcards audit N`` audits it."""
    code, out, _ = _history(home=home)
    assert code == 0 and all(len(line) < 80 for line in out.splitlines())
    lines = game_lines(out)
    assert [int(line.split()[0]) for line in lines] == list(range(1, len(lines) + 1))
    assert "p2pcards replay N" in out
    numbers = [g["number"] for g in json.loads(_history("--json", home=home)[1])]
    assert numbers == list(range(1, len(lines) + 1))
    env = {"P2PCARDS_HOME": str(home), "COLUMNS": "80"}
    for command, sign in (("replay", "── Hand 1"), ("audit", "VALID")):
        for number, name in ((1, NEUF), (3, NINES)):
            shown = CliRunner().invoke(main, [command, str(number)], env=env)
            by_path = CliRunner().invoke(main, [command, str(home / "transcripts" / name)], env=env)
            assert shown.exit_code == 0 and shown.output == by_path.output and sign in shown.output
        missing = CliRunner().invoke(main, [command, "#9"], env=env)
        assert missing.exit_code == 2 and "there is no game 9 in the history" in missing.output
        n = len(lines)
        for which in ("0", "#0", "12345"):
            said = CliRunner().invoke(main, [command, which, "--lang", "it"], env=env)
            assert said.exit_code == 2, said.output
            assert f"nella cronologia: le sue partite sono numerate da 1 a {n}" in said.output


def test_a_history_of_one_game_says_it_holds_one(home: Path, tmp_path: Path) -> None:
    """Not "numbered 1 to 1": the history holds one game, number 1."""
    (tmp_path / "transcripts").mkdir()
    shutil.copy2(home / "transcripts" / NINES, tmp_path / "transcripts" / NINES)
    said = CliRunner().invoke(main, ["replay", "2"], env={"P2PCARDS_HOME": str(tmp_path)})
    assert said.exit_code == 2 and "it holds one game, number 1" in said.output, said.output


def test_a_player_named_you_is_not_marked_you_twice(tmp_path: Path) -> None:
    """A person who gave no name plays as "you": the name says it already."""
    folder = tmp_path / "transcripts"
    folder.mkdir()
    (folder / "nines-2026-12-02-ffffffffffff-s0.p2pt").write_bytes(_renamed(honest_transcript(3), 0, "you"))
    code, out, _ = _history(home=tmp_path)
    assert code == 0 and "you, p1, p2" in out and "(you)" not in out


def test_a_result_says_who_won_with_what() -> None:
    """``9/9`` read as a score, not as the winners' totals: the result names the total won with."""
    entry = GameEntry(path=Path("x.p2pt"), date="2026-12-03", mtime=0.0, game="neuf", check="verified")
    entry.names, entry.keys = ["erin", "robo", "bob"], [bytes([i]).hex() * 32 for i in range(3)]
    entry.finished, entry.winners, entry.totals = True, [0, 1], [9, 9, 12]
    assert entry.result() == "erin & robo won with 9 each"
    entry.winners = [2]
    assert entry.result() == "bob won with 12"


@pytest.fixture
def audits(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the full audits made (each appends the size of the file audited)."""
    from p2pcards.protocol import audit

    made: list[int] = []
    real = audit.audit_bytes

    def counted(data: bytes) -> audit.AuditReport:
        made.append(len(data))
        return real(data)

    monkeypatch.setattr(audit, "audit_bytes", counted)
    return made


def test_a_second_listing_reads_the_verdicts_instead_of_auditing_again(
    home: Path, tmp_path: Path, audits: list[int]
) -> None:
    """Fifty games took eleven seconds to list, every time: a file's verdict is kept,
    by the digest of its bytes, and only a new file is audited."""
    shutil.copytree(home / "transcripts", tmp_path / "transcripts", copy_function=shutil.copy2)
    first = _history(home=tmp_path)
    assert first[0] == 0 and "Verifying 5 games" in first[2]
    assert len(audits) == 4  # notes.txt is no transcript: nothing to audit
    assert (tmp_path / VERDICTS_FILE).is_file()
    again = _history(home=tmp_path)
    assert again[:2] == first[:2] and len(audits) == 4 and "Verifying" not in again[2]
    assert _history("--json", home=tmp_path)[1] == _history("--json", home=tmp_path)[1] and len(audits) == 4


def test_a_changed_file_is_audited_again(home: Path, tmp_path: Path, audits: list[int]) -> None:
    """The verdict is the file's, not its name's: other bytes under the same name are audited."""
    shutil.copytree(home / "transcripts", tmp_path / "transcripts", copy_function=shutil.copy2)
    before = game_lines(_history(home=tmp_path)[1])
    audits.clear()
    (tmp_path / "transcripts" / NINES).write_bytes(_cheated(honest_transcript(3)))
    after = game_lines(_history(home=tmp_path)[1])
    assert len(audits) == 1
    assert "failed: p1" in after[2] and "failed" not in before[2] and after[:2] == before[:2]


@pytest.mark.parametrize(
    "damage",
    ["missing", "not json", "wrong shape", "a name short", "a winner not seated", "another version"],
)
def test_a_damaged_or_missing_file_of_verdicts_costs_only_an_audit(
    home: Path, tmp_path: Path, audits: list[int], damage: str
) -> None:
    """The file of verdicts is only this computer's note: whatever became of it, the
    listing is the same, the files it cannot vouch for are audited again, and it is
    written anew."""
    shutil.copytree(home / "transcripts", tmp_path / "transcripts", copy_function=shutil.copy2)
    listed = _history(home=tmp_path)[1]
    cache = tmp_path / VERDICTS_FILE
    doc = json.loads(cache.read_text(encoding="utf-8"))
    if damage == "missing":
        cache.unlink()
    elif damage == "not json":
        cache.write_bytes(b"\x00{ not json")
    elif damage in ("wrong shape", "a name short", "a winner not seated"):
        digest, fields = next(iter(doc["verdicts"].items()))
        wrong = {
            "wrong shape": {"names": 5},
            "a name short": {"names": fields["names"][:-1]},  # (each name needs its key)
            "a winner not seated": {"winners": [7]},
        }[damage]
        doc["verdicts"][digest] = {**fields, **wrong}
        cache.write_text(json.dumps(doc), encoding="utf-8")
    else:
        cache.write_text(json.dumps({**doc, "version": "0.0.0-another"}), encoding="utf-8")
    audits.clear()
    code, out, _ = _history(home=tmp_path)
    assert code == 0 and out == listed
    assert len(audits) == (4 if damage in ("missing", "not json", "another version") else 1)
    assert json.loads(cache.read_text(encoding="utf-8"))["verdicts"].keys() == doc["verdicts"].keys()


def test_a_watched_game_marks_no_seat_as_the_person(tmp_path: Path) -> None:
    """``play --watch`` saves the file of a seat a bot played: it is not the person's seat."""
    env = {"P2PCARDS_HOME": str(tmp_path)}
    played = CliRunner().invoke(main, ["play", "--watch", "-n", "2", "-r", "target=20", "-s", "3"], env=env)
    assert played.exit_code == 0, played.output
    code, out, _ = _history(home=tmp_path)
    (line,) = game_lines(out)
    assert code == 0 and "(you)" not in line and "(your bot)" in line
    (game,) = json.loads(_history("--json", home=tmp_path)[1])
    assert game["saved_by_bot"] is True and not any(p["you"] for p in game["players"])


def _two_games(home: Path, names: tuple[str, str, str]) -> None:
    """Two games in ``home``'s transcripts: the newer with these long names, the older not."""
    folder = home / "transcripts"
    folder.mkdir()
    data = honest_transcript(3)
    for seat, name in enumerate(names):
        data = _renamed(data, seat, name)
    (folder / "nines-2026-12-02-ffffffffffff-s0.p2pt").write_bytes(data)
    (folder / "nines-2026-12-01-eeeeeeeeeeee-s0.p2pt").write_bytes(honest_transcript(3))


@pytest.mark.parametrize("columns", [80, 250])
def test_a_wider_terminal_shows_more_of_the_players(tmp_path: Path, columns: int) -> None:
    """In 80 columns each name is cut at 16 characters (``--json`` has every name), and
    players too many for a game's line put each game on three lines, so that every player
    shows; a terminal of 120 columns or more shows names whole (32 characters at most) and
    gives the players' column the columns it has more, up to a line of ``MAX_WIDTH`` (250
    columns show these three whole on one line); the verdicts still line up after the results."""
    from p2pcards.history import MAX_WIDTH

    _two_games(tmp_path, ("Annabelle-Marguerite", "Bartholomew-Fitzgerald", "Constantinople-Jones"))
    env = {"P2PCARDS_HOME": str(tmp_path), "COLUMNS": str(columns)}
    out = CliRunner().invoke(main, ["history"], env=env).stdout
    lines = game_lines(out)
    width = min(columns - 1, MAX_WIDTH)
    assert all(len(line) <= width for line in lines), out
    names = ("Annabelle-Marguerite", "Bartholomew-Fitzgerald", "Constantinople-Jones")
    if columns > 80:
        assert len(lines) == 2 and all(n in lines[0] for n in names), out
        assert len({line.rindex("✓") for line in lines}) == 1, out  # the verdicts in one column
    else:
        assert len(lines) == 6 and lines[0].endswith("✓ verified") and lines[3].endswith("✓ verified"), out
        assert lines[1] == "   Annabelle-Margu… (you), Bartholomew-Fit…, Constantinople-…", out


@pytest.mark.parametrize("width", [80, 100])
def test_a_line_too_narrow_for_every_player_keeps_this_computers_seat_and_its_mark(width: int) -> None:
    """Four long names at 80 columns: the players' column is cut, and this computer's seat
    (the last here) comes first with its mark, where it was cut off; in seat order when all fit."""
    from p2pcards.history import GameEntry

    names = ["Margherita", "Bartholomew", "Christabel", "Maximilian"]
    entry = GameEntry(
        path=Path("x.p2pt"), date="2026-12-06", mtime=0.0, game="nines", names=names,
        keys=["aa" * 32, "bb" * 32, "cc" * 32, "dd" * 32], saved_by=3, finished=True,
        winners=[0], totals=[10, 20, 30, 40], hand=5, check="verified",
    )  # fmt: skip
    line = entry.line(1, width=width)
    assert len(line) <= width and "Maximilian (you)" in line, line
    full = entry.players()
    assert full.startswith("Margherita, ") and full.endswith("Maximilian (you)")
    wide = entry.line(1, players_width=len(full), width=200)
    assert full in wide, wide  # room for all: in seat order


@pytest.mark.parametrize(("columns", "lang"), [(60, "en"), (60, "fr"), (40, "it"), (31, "en")])
def test_a_narrow_terminal_gets_each_game_on_three_lines_that_fit(
    tmp_path: Path, columns: int, lang: str
) -> None:
    """Below 80 columns a game's line would wrap: it takes three lines instead (number, date,
    game and verdict; the players; how it ended), each cut to the width, and the hint after
    them is folded (narrower still, the lines are folded: tests/test_narrow.py)."""
    from p2pcards.history import NARROW

    _two_games(tmp_path, ("Annabelle-Marguerite", "Bartholomew", "Constantinople-Jones"))
    env = {"P2PCARDS_HOME": str(tmp_path), "COLUMNS": str(columns), "P2PCARDS_LANG": None}
    out = CliRunner().invoke(main, ["--lang", lang, "history"], env=env).stdout  # (LANG put back after)
    lines = out.splitlines()
    width = max(columns - 1, NARROW)
    assert len(lines) >= 7 and all(visible_len(line) <= width for line in lines), out
    assert lines[0].startswith(" 1 2026-12-02 Nines  ✓"), out  # the verdict's mark
    assert lines[1].startswith("   Annabelle-Margu") and lines[3].startswith(" 2 2026-12-01 Nines")
    assert lines[2].startswith("   ") and not lines[2].startswith("    "), out


@pytest.mark.parametrize(
    ("lang", "you", "other"), [("en", "you", "vous"), ("it", "tu", "vous"), ("fr", "vous", "tu")]
)
def test_the_word_for_you_is_said_in_the_readers_language(
    tmp_path: Path, lang: str, you: str, other: str
) -> None:
    """``play`` names the person at the terminal by the word for "you" in the language they
    played in. A reader of another language reads it in theirs, in the history, the audit
    and the replay, never a French ``vous`` in an English or Italian text."""
    folder = tmp_path / "transcripts"
    folder.mkdir()
    path = folder / "nines-2026-12-02-ffffffffffff-s0.p2pt"
    path.write_bytes(_renamed(honest_transcript(3), 0, other))
    env = {"P2PCARDS_HOME": str(tmp_path), "COLUMNS": "100", "P2PCARDS_LANG": lang}
    said = {
        command: CliRunner().invoke(main, [command, *args], env=env).output
        for command, args in (("history", []), ("audit", [str(path)]), ("replay", [str(path)]))
    }
    for command, out in said.items():
        assert out.strip(), command
        assert not re.search(rf"\b{other}\b", out), (command, out)
        assert re.search(rf"\b{you}\b", out), (command, out)
