"""The audit as people read it: a checklist for a valid game, INCOMPLETE for a game
or a file that stops early (naming who the table waited for), and a plain
"not a p2pcards transcript" for any other file, never a traceback.
"""

from __future__ import annotations

import json
import random
import re
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner, Result
from protocol_helpers import (
    entropy_for,
    game_id_for,
    identity_for,
    make_roster,
    make_tables,
    record_map,
    records_file,
    run_match,
    sign_map,
    transcript_bytes,
)
from test_leave import file_of, leaves, left_match, left_match_file, sittings

from p2pcards.bots import make_bot
from p2pcards.cli import main
from p2pcards.crypto.identity import fingerprint
from p2pcards.errors import TranscriptError
from p2pcards.games.neuf.adapter import NeufTable
from p2pcards.games.neuf.rules import NeufRules
from p2pcards.games.nines.rules import NinesRules
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.loopback import LocalNetwork, play_bots
from p2pcards.protocol.messages import Continue, Join, Leave
from p2pcards.protocol.table import TableCore
from p2pcards.protocol.transcript import decode_file
from p2pcards.protocol.wire import SignedRecord, parse_record
from p2pcards.ui.i18n import Translator
from p2pcards.ui.netgame import TableWatcher
from p2pcards.ui.prompt import Console
from p2pcards.ui.render import Style, table_names
from p2pcards.ui.screen import make_screen

README = Path(__file__).resolve().parent.parent / "README.md"
NINES_RULES = NinesRules(target=30, action_cards=True, hard_nines=True)
NEUF_RULES = NeufRules(start=3, exchange="blind", trumps=("H", "D", None))


@cache
def nines_tables(seed: int = 3) -> dict[int, TableCore]:
    tables = make_tables(4, NINES_RULES, seed)
    net = run_match(tables, seed)  # type: ignore[arg-type]
    assert not net.failures and all(t.status == "over" for t in tables.values())
    return tables  # type: ignore[return-value]


@cache
def neuf_tables(seed: int = 2) -> dict[int, TableCore]:
    roster = make_roster(3, seed)
    tables = {
        s: NeufTable(
            game_id=game_id_for(seed),
            roster=roster,
            rules=NEUF_RULES,
            seat=s,
            identity=identity_for(s, seed),
            entropy=entropy_for(s, seed),
        )
        for s in range(3)
    }
    net = LocalNetwork(tables, rng=random.Random(seed))
    play_bots(net, {s: make_bot("random", "neuf") for s in tables}, random.Random(seed))
    assert not net.failures and all(t.status == "over" for t in tables.values())
    return tables  # type: ignore[return-value]


def audit_cli(path: Path) -> Result:
    result = CliRunner().invoke(main, ["audit", str(path)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert "Traceback" not in result.output
    return result


def lines_fit(text: str) -> None:
    for line in text.splitlines():
        assert len(line) < 80, line


def check_players(out: str, tables: dict[int, TableCore]) -> None:
    assert "Players (with the start of each key's fingerprint):" in out
    for seat, player in enumerate(tables[0].roster):
        assert re.search(rf"^  seat {seat}: {player.name}, key {fingerprint(player.key)[:9]}$", out, re.M), (
            out
        )


# ---------------------------------------------------------------------------
# A valid game: the checklist


def test_a_finished_game_of_nines_reads_as_a_checklist(tmp_path: Path) -> None:
    tables = nines_tables()
    path = tmp_path / "nines.p2pt"
    path.write_bytes(transcript_bytes(tables[0]))  # type: ignore[arg-type]
    result = audit_cli(path)
    assert result.exit_code == 0, result.output
    out, lines = result.output, result.output.splitlines()
    match = tables[0].match
    hands = len(match.results)
    assert lines[0] == f"VALID: a finished game of Nines, 4 players, {hands} hand{'s' if hands > 1 else ''}."
    assert lines[1] == "Totals: " + ", ".join(f"p{s} {match.totals[s]}" for s in range(4))
    assert lines[2].startswith("Winner")
    check_players(out, tables)
    assert "Rules: the game ends when a total reaches 30 points; the lowest total wins;" in out
    flat = " ".join(out.split())  # long lines wrap
    assert re.search(r"Variants on: action cards \(J skips[^;]*; hard nines \([^;]*\)\. ", flat), out
    assert "File saved by p0 (seat 0) - the file's own word, not signed." in flat, out
    # The date is the disk's, and said to be: the file holds none.
    date = r"\d{4}-\d\d-\d\d \d\d:\d\d"
    assert re.search(rf"Last changed on {date} by this disk's clock \(the file holds no date\)", flat), out
    shuffles = sum(len(h.rounds) for h in tables[0].hands_crypto)
    assert shuffles >= hands
    assert f"\u2713 {shuffles} shuffles re-derived from the secrets revealed at the end of each hand" in out
    assert "\u2713 every move legal, including the rules that depend on hidden cards" in out
    assert "\u2713 scores recomputed hand by hand" in out
    winners = " and ".join(f"p{s}" for s in match.winners)
    assert re.search(rf"^\u2713 winners? recomputed: {winners}$", out, re.M), out
    n = len(tables[0].transcript.records())
    assert f"\u2713 every one of the {n} records is signed, chained and verified." in out
    assert re.fullmatch(r"Table fingerprint: \d{4} \d{4} \d{4}", lines[-2]), lines[-2:]
    assert lines[-1] == "  Nobody confirmed comparing it with the other players."  # bots: nobody was asked
    assert "INCOMPLETE" not in out and "INVALID" not in out
    lines_fit(out)


def test_a_finished_game_of_le_neuf_reads_as_a_checklist(tmp_path: Path) -> None:
    tables = neuf_tables()
    path = tmp_path / "neuf.p2pt"
    path.write_bytes(transcript_bytes(tables[1]))  # type: ignore[arg-type]
    result = audit_cli(path)
    assert result.exit_code == 0, result.output
    out, lines = result.output, result.output.splitlines()
    hands = len(tables[1].match.results)
    assert re.fullmatch(rf"VALID: a finished game of Le Neuf, 3 players, {hands} hands?\.", lines[0])
    check_players(out, tables)
    assert "Rules: everyone starts at 3 and counts down;" in out
    assert "Trumps change each hand: hearts, diamonds, no trump, then again." in out
    assert "Exchanges with the dummy: blind (nobody looks at the dummy)." in out
    assert "by p1 (seat 1)" in out
    shuffles = sum(len(h.rounds) for h in tables[1].hands_crypto)
    assert re.search(rf"^\u2713 {shuffles} shuffles? re-derived from the secrets", out, re.M), out
    assert "\u2713 every move legal, including the rules that depend on hidden cards" in out
    lines_fit(out)


# ---------------------------------------------------------------------------
# A game that stops early: INCOMPLETE, with the names of those the table waited for


def cut_in_hand_two(tables: dict[int, TableCore]) -> int:
    """How many records to keep so that the file stops in the middle of hand 2."""
    records = tables[0].transcript.records()
    for k in range(len(records) // 2, len(records)):
        report = audit_bytes(records_file(records[:k]))
        if report.hands_verified == 1 and report.table.hand.number == 2 and report.table.spec.kind == "turn":
            return k
    raise AssertionError("the match has no second hand")


def test_an_unfinished_game_is_incomplete_and_names_who_it_waited_for(tmp_path: Path) -> None:
    tables = nines_tables()
    assert len(tables[0].match.results) > 1
    records = tables[0].transcript.records()
    k = cut_in_hand_two(tables)
    note = "aborted: p2 (seat 2): lost connection\x1b]0;pwned\x07\nVALID: fake"
    path = tmp_path / "stopped.p2pt"
    path.write_bytes(records_file(records[:k], saved_by=1, status=note))
    report = audit_bytes(path.read_bytes())
    assert report.incomplete and not report.valid
    waiting = report.table.waiting_for
    result = audit_cli(path)
    assert result.exit_code == 1, result.output
    out = result.output
    assert out.startswith("INCOMPLETE: an unfinished game of Nines, 4 players; no fault is proven.\n")
    assert "INVALID" not in out and "blame" not in out
    assert "Hand 1 was verified to its end; it stops in hand 2." in out
    who = " and ".join(f"p{s} (seat {s})" for s in waiting)
    assert f"which has no record yet from {who}." in " ".join(out.split()), out
    # The saver's note is said (how, then why quoted), on its own line, stripped of controls.
    assert 'Its note on how the game ended: this player left ("p2 (seat 2): lost connection' in out
    assert "\x1b" not in out and "\x07" not in out and "pwned" not in out
    assert not any(line.startswith("VALID") for line in out.splitlines())
    assert f"\u2713 every one of the {k} records is signed and chained; none shows a fault." in out
    check_players(out, tables)
    lines_fit(out)


def test_a_game_that_ends_where_the_player_to_move_left_says_so(tmp_path: Path) -> None:
    """At a table of two, the player to move leaves instead of playing (quit, or their turn's
    time ran out): the other's file ends at that step without their move, and the audit
    says why, not that a missing record proves nothing."""
    from test_leave import play_until, started

    tables = sittings(2, NinesRules(), 5)
    net, rng = started(tables, 5)
    play_until(net, rng, lambda: tables[0].current.spec.kind == "turn" and tables[0].current.step > 8)
    (mover,) = tables[0].current.waiting_for
    other = 1 - mover
    leaves(net, mover, "did not play within 15 s")
    path = tmp_path / "left.p2pt"
    path.write_bytes(file_of(tables[other], other))
    out = " ".join(audit_cli(path).output.split())
    step = tables[other].current.step
    said = f"It ends at step {step} (turn), where p{mover} (seat {mover}) left the match (below) instead of"
    assert f"{said} playing" in out, out
    assert "no record yet" not in out and 'signed that they leave: "did not play within 15 s"' in out, out


@pytest.mark.timeout(60)
def test_a_device_or_a_pipe_is_refused_not_read_for_ever(tmp_path: Path) -> None:
    """``audit /dev/zero`` would read (and keep) bytes for ever, and a pipe nobody writes to
    would never answer: anything but a file is refused at once, with a clear error."""
    import os

    from p2pcards.protocol.audit import audit_file

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    for path in ("/dev/zero", str(fifo)):
        with pytest.raises(TranscriptError) as caught:
            audit_file(path)
        assert "it is not a file (a device or a pipe, say)" in str(caught.value), caught.value
    result = audit_cli(Path("/dev/zero"))
    assert result.exit_code == 2 and "not a file" in result.output, result.output


def test_replay_of_a_name_the_system_refuses_is_an_error_not_a_crash(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["replay", str(tmp_path / ("y" * 300 + ".p2pt"))])
    assert result.exit_code == 2 and "File name too long" in result.output, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception


def test_output_read_in_part_or_not_written_is_never_a_verdict(tmp_path: Path) -> None:
    """``audit FILE | head -1``: the reader goes away, and ``audit`` ends quietly with the
    status of a program the pipe stopped (141), never 1 (which says the game is invalid);
    an output that cannot be written (a full disk) is one line, status 2, no traceback."""
    import subprocess

    from e2e_helpers import CLI, node_env

    path = tmp_path / "valid.p2pt"
    path.write_bytes(records_file(nines_tables()[0].transcript.records()))
    env = node_env(tmp_path / "home")
    command = [str(CLI), "audit", str(path)]
    proc = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before anything is written
    assert proc.wait(timeout=60) == 141
    assert proc.stderr.read() == b""
    if Path("/dev/full").exists():
        with open("/dev/full", "w") as full:
            done = subprocess.run(command, stdout=full, stderr=subprocess.PIPE, env=env, timeout=60)
        said = done.stderr.decode()
        assert done.returncode == 2 and "cannot write the output" in said and "Traceback" not in said, said


def test_a_result_not_signed_by_all_is_not_shown_as_the_end_of_the_match(tmp_path: Path) -> None:
    """The file of a finished match stops before the signed result (a copy cut short): every
    hand verifies, but nobody signed who won. The audit says INCOMPLETE; replay shows the
    totals the hands give and says that they were not signed; the history lists no winner."""
    records = nines_tables()[0].transcript.records()
    last = records[-1].record.step
    kept = [r for r in records if r.record.step != last]  # the result step, every seat's record
    home = tmp_path / "home"
    (home / "transcripts").mkdir(parents=True)
    path = home / "transcripts" / "nines-2026-01-01-cut.p2pt"
    path.write_bytes(records_file(kept))
    out = audit_cli(path).output
    assert out.startswith("INCOMPLETE") and f"It ends at step {last} (result)" in out, out
    shown = CliRunner().invoke(main, ["replay", str(path)])
    text = " ".join(shown.output.split())
    assert shown.exit_code == 0 and "Winner" in text, shown.output
    assert "The file stops before every player signed this result" in text, shown.output
    listed = CliRunner().invoke(main, ["history"], env={"P2PCARDS_HOME": str(home)})
    assert listed.exit_code == 0 and "incomplete" in listed.output, listed.output
    assert " won " not in listed.output, listed.output


def test_records_after_a_missing_one_are_said_to_be_unchecked(tmp_path: Path) -> None:
    """A record taken out of the middle: the records after it wait for it, and the audit
    says how many, instead of counting them as chained."""
    tables = nines_tables()
    records = tables[0].transcript.records()
    k = cut_in_hand_two(tables)
    gone = records[k]
    kept = records[:k] + records[k + 1 :]
    path = tmp_path / "gap.p2pt"
    path.write_bytes(records_file(kept, saved_by=0, status="over"))
    report = audit_bytes(path.read_bytes())
    assert report.incomplete and not report.valid
    assert report.table.step == gone.record.step and gone.record.seat in report.table.waiting_for
    # Every record of the step it belongs to, read before the gap, is held for the step; the rest wait.
    read = sum(1 for r in kept if r.record.step <= gone.record.step)
    assert report.ahead == len(kept) - read > 0
    out = " ".join(audit_cli(path).output.split())
    assert (
        f"\u2713 every one of the {len(kept)} records is signed; the {read} up to step {gone.record.step} "
        "are chained, and none shows a fault." in out
    ), out
    assert f"{report.ahead} records of steps after step {gone.record.step} are in the file too" in out
    assert "signed and chained" not in out


def test_a_player_who_leaves_before_the_first_deal_left_no_hand_in_progress() -> None:
    """Seat 2 signs that it leaves at the cut: the others' audit says it left before hand 1
    was dealt (no hand was void), and the leaver's own file says it stops where its saver left."""
    tables = sittings(4, NinesRules(target=30), 4)
    net, rng = LocalNetwork(tables, rng=random.Random(4)), random.Random(4)  # type: ignore[arg-type]
    for table in tables.values():
        table.start()
    while tables[2].step < 1 and net.deliver_one():  # until the join step completes at seat 2
        pass
    assert tables[2].step == 1 and tables[2].tables[0].match is None  # at the cut: nothing dealt
    rest = leaves(net, 2, "dinner is ready")
    play_bots(rest, {s: make_bot("random") for s in rest.tables}, rng, start=False)
    assert tables[0].status == "over", tables[0].failure
    text = " ".join(audit_bytes(file_of(tables[0], 0)).summary().split())
    said = 'p2 left after 0 hands (signed that they leave: "dinner is ready") at step 1, before the cards'
    assert said in text, text
    assert "of hand 1 were dealt; the others played on from a fresh deal; p2's total stays 0." in text
    assert "seat 2: p2, key" in text and "left before hand 1 was dealt" in text
    assert "void" not in text and "during hand" not in text
    own = " ".join(audit_bytes(file_of(tables[2], 2)).summary().split())
    assert own.startswith("INCOMPLETE"), own
    assert "It ends at step 1 (cut-commit), where p2, who saved this file, left the match" in own
    assert "may have had a reason" not in own


def test_the_json_record_of_a_table_left_before_its_cut_says_who_left_it() -> None:
    """docs/record.md: `leaving` lists who signed that they leave the table the record ends
    on, also when that table stopped before its cut; a table that went on from another, its
    step 0 complete, has `carried`, `left` and `earlier` even before its own cut."""
    tables = sittings(4, NinesRules(target=30), 4)
    net = LocalNetwork(tables, rng=random.Random(4))  # type: ignore[arg-type]
    for table in tables.values():
        table.start()
    while tables[2].step < 1 and net.deliver_one():  # until the join step completes at seat 2
        pass
    rest = leaves(net, 2, "dinner is ready")
    own = audit_bytes(file_of(tables[2], 2)).to_record()
    assert own["cut"] == [] and own["result"] == {"winners": [], "totals": [], "finished": False}
    assert [(d["seat"], d["step"], d["how"], d["reason"]) for d in own["leaving"]] == [
        (2, 1, "signed", "dinner is ready")
    ]
    records = tables[0].records_to_save()  # the table that went on: cut just after its step 0
    k = max(i for i, r in enumerate(records) if isinstance(r.record.body, Continue))
    mid = audit_bytes(records_file(records[: k + 1], saved_by=0, status="over")).to_record()
    assert mid["cut"] == [] and "leaving" not in mid and len(mid["players"]) == 3
    assert mid["carried"] == {"hands": 0, "totals": [0, 0, 0]}
    assert [(d["seat"], d["signed"], d["reason"]) for d in mid["left"]] == [(2, True, "dinner is ready")]
    assert mid["earlier"] == []  # the table left had no cut
    del rest


def test_a_proven_fault_stays_invalid_and_names_the_seat(tmp_path: Path) -> None:
    tables = nines_tables()
    records = tables[0].transcript.records()
    i = len(records) // 3
    obj = record_map(records[i].raw)
    obj["prev"] = bytes(32)  # a record its author signed on another history...
    seat = obj["seat"]
    forged = sign_map(obj, seat, seed=3)
    # ...and, at the end of the file, its record for the same step on this one: equivocation
    path = tmp_path / "fault.p2pt"
    path.write_bytes(records_file([*records[:i], forged, *records[i + 1 :], records[i]]))  # type: ignore[list-item]
    result = audit_cli(path)
    assert result.exit_code == 1, result.output
    assert result.output.startswith("INVALID: ")
    assert f"blame p{seat} (seat {seat}" in " ".join(result.output.split())
    lines_fit(result.output)


def test_a_record_on_another_history_alone_is_invalid_and_names_nobody(tmp_path: Path) -> None:
    """Without the other record of its author, a record that follows another history does not
    show who is at fault: its author, or whoever changed a record before it and saved the file
    (re-signing a record of its own), which would otherwise frame the next seat to write."""
    steps = nines_tables()[0].transcript.steps
    t = next(t for t in range(len(steps) // 3, len(steps)) if _others_before(steps, t))
    seat, result = _on_another_history(tmp_path, t)
    said = " ".join(result.output.split())
    assert result.output.startswith("INVALID: ") and "blame nobody" in said and "blame p" not in said, said
    assert f"the record of p{seat} (seat {seat}) for step {t} does not follow" in said
    lines_fit(result.output)


def _others_before(steps: list[list[Any]], t: int) -> bool:
    """Step ``t - 1`` holds a record of another seat than the first record of step ``t``."""
    author = steps[t][0].record.seat
    return any(r.record.seat != author for r in steps[t - 1])


def _on_another_history(tmp_path: Path, t: int) -> tuple[int, Result]:
    """The audit of the file whose first record of step ``t`` its author signed again on
    another history (another ``prev``), and whose seat that is."""
    tables = nines_tables()
    steps = tables[0].transcript.steps
    records = tables[0].transcript.records()
    i = records.index(steps[t][0])
    obj = record_map(records[i].raw)
    obj["prev"] = bytes(32)
    seat = obj["seat"]
    forged = sign_map(obj, seat, seed=3)
    path = tmp_path / f"chain-{t}.p2pt"
    path.write_bytes(records_file([*records[:i], forged, *records[i + 1 :]]))  # type: ignore[list-item]
    result = audit_cli(path)
    assert result.exit_code == 1, result.output
    return seat, result


@pytest.mark.parametrize("kind", ["shuffle", "lock", "play", "keep"])
def test_a_record_on_another_version_of_its_own_records_names_its_author(tmp_path: Path, kind: str) -> None:
    """When every record of the step before is the disputed record's own author's, no saver
    could have framed it: every earlier record follows the file's history, so the author held
    those records of its own, and it signed a record that follows another version of them."""
    steps = nines_tables()[0].transcript.steps
    t = next(
        t
        for t in range(1, len(steps))
        if not _others_before(steps, t) and record_map(steps[t - 1][0].raw)["type"] == kind
    )
    seat, result = _on_another_history(tmp_path, t)
    said = " ".join(result.output.split())
    assert result.output.startswith("INVALID: ") and f"blame p{seat} (seat {seat}" in said, said
    assert f"its record for step {t} does not follow the records of step {t - 1} in this file" in said
    lines_fit(result.output)


# ---------------------------------------------------------------------------
# Files that are not transcripts, and transcripts cut short


@pytest.mark.parametrize(
    "content",
    [
        README.read_bytes(),
        random.Random(3).randbytes(5000),
        b"",
        b'{"format": "p2pcards-transcript"}\n',
        b"\x93\x01\x02\x03trailing",
    ],
    ids=["readme", "garbage", "empty", "json", "msgpack"],
)
def test_a_file_that_is_not_a_transcript_says_so(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "file"
    path.write_bytes(content)
    result = audit_cli(path)
    assert result.exit_code == 2, result.output
    assert "not a p2pcards transcript" in result.output
    assert "trailing bytes after the msgpack" not in result.output and "msgpack" not in result.output
    assert len(result.output.strip().splitlines()) == 1


@pytest.mark.parametrize(
    ("lang", "said"),
    [
        ("fr", ["Erreur : ce n'est pas une transcription p2pcards : le fichier est vide",
                "Erreur : ce n'est pas une transcription p2pcards (pas de marque de format)",
                "Erreur : le fichier de transcription s'arrête avant son premier enregistrement (tronqué)",
                "Erreur : impossible de lire {missing} : fichier ou dossier introuvable"]),
        ("it", ["Errore: non è una trascrizione p2pcards: il file è vuoto",
                "Errore: non è una trascrizione p2pcards (manca il marcatore di formato)",
                "Errore: il file della trascrizione si interrompe prima della prima registrazione (troncato)",
                "Errore: impossibile leggere {missing}: file o cartella inesistente"]),
    ],
)  # fmt: skip
def test_a_file_that_cannot_be_read_is_said_in_the_players_language(
    tmp_path: Path, lang: str, said: list[str]
) -> None:
    data = transcript_bytes(nines_tables()[0])  # type: ignore[arg-type]
    files = {"empty": b"", "readme": README.read_bytes(), "cut": data[:300]}
    for name, content in files.items():
        (tmp_path / name).write_bytes(content)
    missing = tmp_path / "missing"
    for command in ("audit", "replay"):
        out = [
            CliRunner().invoke(main, [command, "--lang", lang, str(tmp_path / name)]).output.strip()
            for name in [*files, "missing"]
        ]
        assert out == [line.format(missing=missing) for line in said], command


def complete_records(data: bytes, records: list[SignedRecord], keep: int) -> int:
    """How many records lie entirely in the first ``keep`` bytes of ``data``."""
    return sum(1 for r in records if data.find(r.sig) + len(r.sig) <= keep)


def test_a_transcript_cut_anywhere_verifies_what_it_holds() -> None:
    tables = nines_tables()
    data = transcript_bytes(tables[0])  # type: ignore[arg-type]
    records = tables[0].transcript.records()
    rng = random.Random(5)
    offsets = sorted(
        {1, 30, 100, len(data) - 1000, len(data) - 40, len(data) - 1}
        | {rng.randrange(1, len(data)) for _ in range(40)}
    )
    for keep in offsets:
        expected = complete_records(data, records, keep)
        try:
            report = audit_bytes(data[:keep])
        except TranscriptError as e:
            assert expected == 0, (keep, str(e))
            assert "truncated" in str(e) or "not a p2pcards transcript" in str(e)
            continue
        assert report.cut and report.records == expected, keep
        assert report.incomplete, (keep, report.problems)
        assert all(p.seat is None for p in report.problems)
        text = report.summary()
        assert text.startswith("INCOMPLETE: ")
        assert f"The file is cut short after record {expected - 1}; everything before it verifies." in text
        lines_fit(text)


@pytest.mark.parametrize("missing", [1, 40, 1000, 5000])
def test_the_cli_on_a_cut_transcript(tmp_path: Path, missing: int) -> None:
    tables = nines_tables()
    data = transcript_bytes(tables[0])  # type: ignore[arg-type]
    path = tmp_path / "cut.p2pt"
    path.write_bytes(data[:-missing])
    result = audit_cli(path)
    assert result.exit_code == 1, result.output
    assert result.output.startswith("INCOMPLETE: a game of Nines, 4 players, in a file cut short")
    assert "The file is cut short after record " in result.output
    assert "INVALID" not in result.output
    lines_fit(result.output)


def test_the_cli_on_a_transcript_cut_before_its_first_record(tmp_path: Path) -> None:
    data = transcript_bytes(nines_tables()[0])  # type: ignore[arg-type]
    for keep in (5, 90):
        path = tmp_path / f"cut{keep}.p2pt"
        path.write_bytes(data[:keep])
        result = audit_cli(path)
        assert result.exit_code == 2, result.output
        assert "Error: " in result.output and "msgpack" not in result.output


# ---------------------------------------------------------------------------
# A match that a player left


def test_the_json_record_of_le_neuf_ended_by_a_leave_has_its_rules_and_standings(tmp_path: Path) -> None:
    """Two players cannot play Le Neuf on: their table ends where it stands, with no hand
    of its own, yet with the rules of the match and the standings as its result."""
    path = tmp_path / "neuf-left.p2pt"
    path.write_bytes(left_match_file("neuf"))
    result = CliRunner().invoke(main, ["audit", "--json", str(path)])
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exc_info
    assert result.exit_code == 0, result.output
    record = json.loads(result.output)
    assert record["rules"] == NeufRules().to_dict() == record["earlier"][0]["rules"]
    assert record["hands"] == [] and len(record["earlier"][0]["hands"]) == 1
    totals = record["carried"]["totals"]
    assert record["result"] == {
        "winners": [s for s, t in enumerate(totals) if t == min(totals)],
        "totals": totals,
        "finished": True,
    }
    assert [d["name"] for d in record["left"]] == ["p1"]


def test_le_neuf_left_during_its_first_hand_ends_with_no_winner(tmp_path: Path) -> None:
    """Le Neuf needs three: a player who leaves before any hand is scored ends the match with
    nobody ahead of anybody. The audit, its JSON record and the history say there is no
    winner, not that the two left "share the win" after 0 hands."""
    path = tmp_path / "neuf-left-early.p2pt"
    path.write_bytes(left_match_file("neuf", first_hand=True))
    result = audit_cli(path)
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    title = "VALID: a game of Le Neuf, 3 players (2 finished it), that ended before any hand was finished."
    assert lines[0] == title, result.output
    assert "Winner: nobody (no hand was finished)" in lines, result.output
    assert not any(line.startswith("Winners:") for line in lines), result.output
    record = json.loads(CliRunner().invoke(main, ["audit", "--json", str(path)]).output)
    assert record["result"]["winners"] == [] and record["result"]["finished"] is True
    assert len(record["earlier"][0]["hands"]) == 0
    for replay in (["replay", str(path)], ["replay", str(path), "--html", str(tmp_path / "page.html")]):
        shown = CliRunner().invoke(main, replay)
        assert shown.exit_code == 0, shown.output
    page = (tmp_path / "page.html").read_text()
    assert "Winner: nobody (no hand was finished)" in shown.output + page.replace("\n", " ")
    assert "Winner: nobody" in CliRunner().invoke(main, ["replay", str(path)]).output
    listing = CliRunner().invoke(main, ["history", str(tmp_path)])
    assert listing.exit_code == 0 and "no winner" in listing.output, listing.output
    assert " won" not in listing.output, listing.output


@pytest.mark.parametrize(("lang", "said"), [("en", "before any hand was finished"),
                                           ("fr", "avant la fin d'une"),
                                           ("it", "prima della fine di una mano")])  # fmt: skip
def test_the_table_says_a_match_left_in_its_first_hand_ends_with_no_winner(lang: str, said: str) -> None:
    """What the two left are told at the table: the match ends with no winner, not that
    they "share the win" after 0 hands."""
    tables = left_match("neuf", first_hand=True)
    out: list[str] = []
    console = Console(tr=Translator(lang), style=Style(), read=lambda prompt: "", write=out.append)
    names = table_names(tables[0].roster)
    screen = make_screen("neuf", console, names, me=0, rules=NeufRules(), watch=False,
                         pause_between_hands=False, verified=True)  # fmt: skip
    TableWatcher(screen)(tables[0])
    text = " ".join(" ".join(out).split())
    assert said in text, text
    assert "9" not in text.split(said, 1)[1], text  # no totals, no winner's points after it


@pytest.mark.parametrize("how", ["signed", "timed out", "judged gone"])
def test_the_audit_names_everyone_who_sat_down_and_who_left_when_and_how(tmp_path: Path, how: str) -> None:
    """A player who left is still one of the players: listed with the others, with the
    total they keep, and the audit says in which hand and at which step they went, and
    whether they signed a leave, timed out or were judged gone."""
    data = left_match_file("nines", how)
    path = tmp_path / "nines-left.p2pt"
    path.write_bytes(data)
    result = audit_cli(path)
    assert result.exit_code == 0, result.output
    out, flat = result.output, " ".join(result.output.split())
    records = [parse_record(raw, sig).record for raw, sig in decode_file(data).records]  # type: ignore[arg-type]
    join = next(r.body for r in records if isinstance(r.body, Join))
    claims = [r.body for r in records if isinstance(r.body, Continue)]
    (seat,) = claims[0].left
    for s, player in enumerate(join.roster):  # everyone, numbered as they sat down
        mark = f", left during hand {claims[0].hands + 1}" if s == seat else ""
        assert re.search(
            rf"^  seat {s}: {player.name}, key {fingerprint(player.key)[:9]}{mark}$", out, re.M
        ), out
    name = join.roster[seat].name
    leaves = [r.step for r in records if isinstance(r.body, Leave)]
    step = leaves[0] if leaves else min(c.steps for c in claims)
    said = {
        "signed": 'signed that they leave: "dinner is ready"',
        "timed out": "were judged gone by the others when their time to come back ran out",
        "judged gone": 'were judged gone by the others: "lost connection"',
    }[how]
    assert f"{name} left after {claims[0].hands} hand{'s' if claims[0].hands != 1 else ''} ({said}" in flat
    assert f"during hand {claims[0].hands + 1} at step {step};" in flat, out
    assert re.search(rf"^Totals: .*; {name} left with -?\d+$", out, re.M), out
    lines_fit(out)


def test_the_score_table_after_a_player_left_adds_up() -> None:
    """The match went on at a new table without a player: its score table starts with one row
    for the hands played before (the totals the table began with), so that its rows add up
    to the totals shown under them, and its title counts every hand of the match."""
    tables = left_match("nines")
    current = tables[0].current
    match = current.match
    assert match is not None and match.played_before >= 1 and match.results
    out: list[str] = []
    console = Console(tr=Translator("en"), style=Style(), read=lambda prompt: "", write=out.append)
    names = table_names(current.roster)
    screen = make_screen("nines", console, names, me=0, rules=current.rules, watch=False,
                         pause_between_hands=False, verified=True)  # fmt: skip
    text = screen.scores(match)
    played = match.played_before + len(match.results)
    assert f"Scores after hand {played}" in text, text
    rows = [line.split() for line in text.splitlines() if line[:1].isdigit()]
    first = "1" if match.played_before == 1 else f"1-{match.played_before}"
    assert rows[0][0] == first, text
    sums = [sum(int(row[1 + s].rstrip("*")) for row in rows) for s in range(len(names))]
    assert sums == list(match.totals), text


def test_a_player_who_leaves_in_the_first_hand_is_said_without_totals_of_no_hand() -> None:
    """Nines goes on without a player who left during the first hand: the others are told
    so, without "totals after 0 hands" (no hand was scored yet)."""
    tables = left_match("nines", first_hand=True)
    out: list[str] = []
    console = Console(tr=Translator("en"), style=Style(), read=lambda prompt: "", write=out.append)

    def screen_of(table: TableCore) -> Any:  # (a table that goes on has seats of its own)
        return make_screen("nines", console, table_names(table.roster), me=0, rules=table.rules,
                           watch=False, pause_between_hands=False, verified=True)  # fmt: skip

    TableWatcher(screen_of(tables[0].tables[0]), on_continued=lambda t: screen_of(t.current))(tables[0])
    text = " ".join(" ".join(out).split())
    said = "left the match (dinner is ready) before any hand was finished; the others play on"
    assert said in text and "after 0 hands" not in text, text


@pytest.mark.parametrize(("lang", "quit_word"), [("fr", "départ volontaire"), ("it", "uscita volontaria")])
def test_the_programs_own_leave_reason_is_said_in_the_readers_language(
    tmp_path: Path, lang: str, quit_word: str
) -> None:
    """A player who typed quit signs "quit", the program's word: an audit or a replay in
    French or Italian says it in that language (as the table did), while a reason the player
    wrote is quoted as written."""
    from p2pcards.ui.i18n import Translator

    assert Translator(lang)("reason_quit") == quit_word
    env = {"P2PCARDS_LANG": lang}
    for reason, shown, hidden in (("quit", quit_word, "quit"), ("dinner is ready", "dinner is ready", None)):
        path = tmp_path / f"left-{reason[:4]}.p2pt"
        path.write_bytes(left_match_file("neuf", reason=reason))
        for args in (["audit", str(path)], ["replay", str(path)]):
            out = " ".join(CliRunner().invoke(main, args, env=env).output.split())
            assert shown in out, (args, out)
            if hidden is not None:
                assert not re.search(rf"[«\"] ?{hidden} ?[»\"]", out), (args, out)


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_a_verdict_wider_than_80_columns_is_folded_on_a_terminal(
    tmp_path: Path, lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Le Neuf left before any hand was finished has a verdict of more than 80 columns: a
    person at an 80-column terminal gets it folded at spaces (the terminal would cut a word
    in two), while a program reading the output still gets it on one line."""
    from p2pcards.cli import cmd_audit
    from p2pcards.ui.render import visible_len

    path = tmp_path / "neuf-left-early.p2pt"
    path.write_bytes(left_match_file("neuf", first_hand=True))
    env = {"P2PCARDS_LANG": lang, "COLUMNS": "80"}
    piped = CliRunner().invoke(main, ["audit", str(path)], env=env)
    assert visible_len(piped.output.splitlines()[0]) > 80  # (the case this test is about)
    monkeypatch.setattr(cmd_audit, "_to_terminal", lambda: True)
    shown = CliRunner().invoke(main, ["audit", str(path)], env=env)
    assert shown.exit_code == piped.exit_code == 0
    lines = shown.output.splitlines()
    assert max(visible_len(line) for line in lines) <= 79, lines
    assert " ".join(shown.output.split()) == " ".join(piped.output.split())


@pytest.mark.parametrize(("columns", "lang"), [(60, "it"), (50, "fr"), (40, "en")])
def test_the_audit_folds_to_a_narrow_terminal(tmp_path: Path, columns: int, lang: str) -> None:
    """The summary is written for 80 columns; a narrower terminal gets each paragraph folded
    again to its width, with no word cut and nothing lost."""
    path = tmp_path / "left.p2pt"
    path.write_bytes(left_match_file("nines", reason="quit"))
    from p2pcards.ui.render import visible_len

    said = {
        width: CliRunner().invoke(main, ["audit", str(path)], env={"P2PCARDS_LANG": lang, "COLUMNS": width})
        for width in ("100", str(columns))
    }
    wide, narrow = said["100"], said[str(columns)]
    assert narrow.exit_code == wide.exit_code
    lines = narrow.output.splitlines()
    assert max(visible_len(line) for line in lines) <= columns - 1, lines
    assert " ".join(narrow.output.split()) == " ".join(wide.output.split())


# Guards audit.py Report._labels: names that look alike (a Cyrillic "а" for a Latin "a")
# carry the start of their key's fingerprint in the audit's text, as in the game's lines and
# in replay; the totals and the winner read "Hаna" alone, a puppet's win as Hana's.
def test_look_alike_names_are_told_apart_in_the_audit() -> None:
    from protocol_helpers import SHORT_RULES, make_tables

    seed = 5
    tables = make_tables(3, SHORT_RULES, seed=seed, names=("Hana", "H\u0430na", "Bob"))
    roster = tables[0].roster
    net = run_match(tables, seed)  # type: ignore[arg-type]
    assert not net.failures and all(t.status == "over" for t in tables.values())
    text = audit_bytes(transcript_bytes(tables[0])).summary()  # type: ignore[arg-type]
    tags = [fingerprint(p.key).replace("-", "")[:4] for p in roster]
    totals = next(line for line in text.splitlines() if line.startswith("Totals:"))
    assert f"Hana#{tags[0]} " in totals and f"H\u0430na#{tags[1]} " in totals, totals
    assert "Bob " in totals and "Bob#" not in totals, totals
    assert f"seat 1: H\u0430na#{tags[1]}, key" in text, text
