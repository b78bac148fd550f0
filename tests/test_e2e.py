"""End to end: the real ``p2pcards`` command, one process per player, on 127.0.0.1.

Each node has its own data directory, as on its own machine. These tests show
what a person sees: a whole match between four processes whose four transcripts
agree and audit valid, a human seat played through a terminal (in English and
French, to the end or until they quit), a peer killed or frozen in the middle
of a hand, the one-line errors of ``join`` and ``audit``, and the
``scripts/play`` demo.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import random
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import pytest
from e2e_helpers import (
    CLI,
    COMPARED,
    DRAWN,
    ENGLISH,
    FRENCH,
    LOCAL,
    MOVE,
    NEXT_HAND,
    REPO,
    SUIT,
    HumanSeat,
    Proc,
    close_human,
    cmdline,
    free_port,
    node_env,
    processes,
    run_cli,
    seat_of,
    spawn_human,
    start_host,
)
from e2e_helpers import audit_json as audit
from net_helpers import closed_port

from p2pcards.net.words import new_code
from p2pcards.protocol.transcript import load

pytestmark = pytest.mark.slow

FAST = ["--turn-timeout", "5", "--step-timeout", "5", "--grace", "3", "--short-clocks"]
"""Bots answer at once; a stuck peer should end the others quickly."""

HAL = ["-n", "3", "--bot", "random", "--name", "Hal"]
"""A bot host for three seats."""


def join_args(address: str, name: str, bot: str | None) -> list[str]:
    return ["join", address, "--bind", LOCAL, "--name", name, *(["--bot", bot] if bot else [])]


def no_traceback(*texts: str) -> None:
    for text in texts:
        assert "Traceback" not in text, text


# ---------------------------------------------------------------------------
# 1. A whole match between four processes


def test_four_processes_play_a_match_whose_transcripts_agree_and_audit_valid(tmp_path: Path) -> None:
    code = new_code()
    names = ["Hal", "j1", "j2", "j3"]
    bots = ["random", "heuristic", "random", "heuristic"]
    files = [tmp_path / f"t{i}.p2pt" for i in range(4)]
    homes = [tmp_path / f"home{i}" for i in range(4)]
    with processes(tmp_path) as procs:
        host, port = start_host(
            procs,
            ["-n", "4", "--bot", bots[0], "--name", names[0], "--code", code, "--transcript", str(files[0])],
            home=homes[0],
        )
        assert f"Hosting Nines for 4 players on port {port}." in host.output()
        joiners: list[Proc] = []
        for i in (1, 2, 3):
            args = ["join", f"{LOCAL}:{port}", "--bind", LOCAL, "--bot", bots[i], "--name", names[i]]
            args += ["--transcript", str(files[i])]
            joiner = procs.spawn(f"join{i}", args, home=homes[i], P2PCARDS_CODE=code)
            shown = cmdline(joiner.pid)  # what `ps` shows (None without /proc)
            assert all(code not in a for a in joiner.argv)
            assert shown is None or all(code not in a for a in shown), shown
            joiners.append(joiner)
        nodes = [host, *joiners]
        statuses = [node.finish(timeout=90) for node in nodes]
        outputs = [node.output() for node in nodes]
    assert statuses == [0, 0, 0, 0], "\n".join(node.tail() for node in nodes)
    no_traceback(*outputs)
    for out, path in zip(outputs, files, strict=True):
        assert "The match is over; every node verified every move." in out
        assert f"Signed transcript (check it with p2pcards audit FILE):\n  {path}" in out

    audits = [audit(path, home=tmp_path / "auditor") for path in files]
    assert [status for status, _ in audits] == [0, 0, 0, 0]
    records = [record for _, record in audits]
    for record in records:
        assert record["verdict"] == {"valid": True, "problems": []}
        assert record["result"]["finished"] is True
        assert record["players"] == records[0]["players"]
        assert record["result"] == records[0]["result"]
        assert record["hands"] == records[0]["hands"]
    players = records[0]["players"]
    assert sorted(p["name"] for p in players) == sorted(names)
    assert len({p["key"] for p in players}) == 4  # four data directories, four identities
    assert records[0]["result"]["winners"]

    loaded = [load(path) for path in files]
    assert all(f.checksum_ok for f in loaded)
    assert all(f.records == loaded[0].records for f in loaded)
    assert len(loaded[0].records) > 0
    # Each file was saved by the node of that seat.
    assert [f.saved_by for f in loaded] == [seat_of(records[0], name) for name in names]
    assert {f.status for f in loaded} == {"over"}
    # Everyone printed the same winner line, in their own words ("You win" for the winner).
    winner = players[records[0]["result"]["winners"][0]]["name"]
    for name, out in zip(names, outputs, strict=True):
        assert ("You win" if name == winner else f"{winner} wins") in out or " share the win " in out


# ---------------------------------------------------------------------------
# 2. A human seat, through its terminal


@dataclass(frozen=True, slots=True)
class HumanRun:
    seat: HumanSeat
    screen: str
    status: int | None
    others: list[tuple[str, int, str]]  # name, exit status, output
    human_file: Path
    other_files: list[Path]


def human_match(
    tmp_path: Path,
    *,
    rules: list[str],
    lang: list[str],
    screens,  # type: ignore[no-untyped-def]
    commands: list[str] = (),  # type: ignore[assignment]
    quit_word: str | None = None,
    rng_seed: int = 7,
) -> HumanRun:
    """A bot host, a bot joiner, then Ann at a terminal, driven by a :class:`HumanSeat`."""
    code = new_code()
    rule_args = [a for r in rules for a in ("--rule", r)]
    files = [tmp_path / f"t{i}.p2pt" for i in range(3)]
    with processes(tmp_path) as procs:
        host, port = start_host(
            procs,
            [*HAL, "--code", code, "--transcript", str(files[0]), *rule_args, *FAST],
            home=tmp_path / "home0",
        )
        address = f"{LOCAL}:{port}"
        bob = procs.spawn(
            "bob",
            [*join_args(address, "Bob", "heuristic"), "--transcript", str(files[1]), *FAST],
            home=tmp_path / "home1",
            P2PCARDS_CODE=code,
        )
        assert host.wait_for("At the table (2 of 3)", timeout=20), host.tail()
        child = spawn_human(
            ["join", address, "--bind", LOCAL, "--name", "Ann", "--transcript", str(files[2]), *lang],
            home=tmp_path / "home2",
            log=tmp_path / "ann.screen",
            P2PCARDS_CODE=code,
        )
        status = None
        try:
            seat = HumanSeat(
                child=child,
                screens=screens,
                rng=random.Random(rng_seed),
                commands=commands,
                quit_word=quit_word,
            )
            seat.play()
        finally:
            status = close_human(child)
        others = [(p.name, p.finish(timeout=30), p.output()) for p in (host, bob)]
    screen = (tmp_path / "ann.screen").read_text(encoding="utf-8", errors="replace")
    return HumanRun(seat, screen, status, others, files[2], files[:2])


def test_bots_seated_from_the_hosts_own_computer_sign_with_keys_of_their_own(tmp_path: Path) -> None:
    """One data directory for the host and three bots joining it (a person adding bots from
    another terminal): each bot signs with its own key, kept by its name, so the table
    takes them; the person's remembered name is not theirs, nor theirs the person's. A
    second bot of one strategy, not named, takes the next free name (Random 2)."""
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.json").write_text('{"name": "Ann"}')
    code = new_code()
    with processes(tmp_path) as procs:
        hal = ["-n", "4", "--bot", "random", "--name", "Hal", "--code", code]
        host, port = start_host(procs, hal, home=home)
        joiners = []
        bots = [["--bot", "random"], ["--bot", "heuristic", "--name", "Robo"], ["--bot", "random"]]
        for i, extra in enumerate(bots):
            args = ["join", f"{LOCAL}:{port}", "--bind", LOCAL, *extra]
            joiners.append(procs.spawn(f"join{i}", args, home=home, P2PCARDS_CODE=code))
            assert host.wait_for(f"At the table ({i + 2} of 4)", timeout=30), host.tail()
        nodes = [host, *joiners]
        statuses = [node.finish(timeout=90) for node in nodes]
    assert statuses == [0, 0, 0, 0], "\n".join(node.tail() for node in nodes)
    assert "At the table (4 of 4): Hal, Random, Robo and Random 2" in host.output(), host.tail()
    assert json.loads((home / "config.json").read_text()) == {"name": "Ann"}
    assert len(list((home / "bots").glob("*.key"))) == 4
    assert not (home / "known_players.json").exists()  # bots remember nobody


def test_human_seat_plays_a_whole_match_at_a_terminal(tmp_path: Path) -> None:
    run = human_match(
        tmp_path, rules=["hands=2"], lang=[], screens=ENGLISH, commands=["xyzzy", "help", "score"]
    )
    seat, screen = run.seat, run.screen
    no_traceback(screen, *(out for _, _, out in run.others))
    assert run.status == 0, screen[-3000:]
    assert [(name, status) for name, status, _ in run.others] == [("host-0", 0), ("bob", 0)]
    # The typo, help and score were each answered, and the same prompt came back.
    assert "xyzzy is not a card" in seat.replies["xyzzy"]
    assert "How to play Nines" in seat.replies["help"]
    assert "Total" in seat.replies["score"]
    assert all(name in seat.replies["score"] for name in ("Hal", "Bob", "Ann"))
    # Only legal move numbers were typed: no answer was refused.
    for refusal in ENGLISH.refusals:
        assert refusal not in screen
    assert seat.moves > 0 and seat.menus > 0
    assert seat.answered[NEXT_HAND] == 1  # two hands: one pause between them
    # The table took the person's name: it is remembered for the next game.
    assert json.loads((tmp_path / "home2" / "config.json").read_text())["name"] == "Ann"
    assert "Scores after hand 1" in screen
    assert "Everyone is linked: Hal, Bob and Ann." in screen
    assert "Final scores" in screen
    assert "The match is over; every node verified every move." in screen
    assert str(run.human_file) in screen  # where her transcript is, said in French
    status, record = audit(run.human_file, home=tmp_path / "auditor")
    assert status == 0 and record["verdict"]["valid"]
    assert record["result"]["finished"] is True
    assert [p["name"] for p in record["players"]] == ["Hal", "Bob", "Ann"]
    # The score table Ann saw ends with the audited totals.
    total_rows = [line.split() for line in screen.splitlines() if line.startswith("Total ")]
    assert [int(x) for x in total_rows[-1][1:]] == record["result"]["totals"]
    assert [load(p).records for p in run.other_files] == [load(run.human_file).records] * 2
    # Ann was asked once whether the digits matched, said yes, and every file says so.
    assert seat.answered[COMPARED] == 1
    for path in (run.human_file, *run.other_files):
        said = run_cli(["audit", str(path)], home=tmp_path / "auditor").stdout
        assert "Ann (seat 2) confirmed that every player read these digits." in " ".join(said.split()), said


@pytest.fixture(scope="module")
def french_quit(tmp_path_factory: pytest.TempPathFactory) -> HumanRun:
    """Ann plays in French, sees the scores of hand 1 of 3, then types ``quitter``."""
    return human_match(
        tmp_path_factory.mktemp("french"),
        rules=["hands=3"],
        lang=["--lang", "fr"],
        screens=FRENCH,
        commands=["aide", "n'importe"],
        quit_word="quitter",
    )


KIM_TIMED_OUT = (
    r"because of Kim: timed out: (?:Kim did not answer within \d+ s"
    r"|the table's turn clock of \d+ s ran out, and Kim neither played nor left)"
)
"""Kim, frozen, named at a step's clock or at its turn's (the clock the table agreed)."""


def awaited(problem: str) -> set[int]:
    """The seats an audit problem "... (step N waits for seat 1, 2)" says the transcript waits for."""
    found = re.search(r"waits for seat ([\d, ]+)\)", problem)
    assert found, problem
    return {int(x) for x in found.group(1).split(",")}


def stopped_line(out: str) -> str:
    """The sentence saying why a node's match stopped (with its wrapped continuation lines)."""
    lines = out.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("The match stopped"):
            rest = []
            for more in lines[i + 1 :]:
                if not more.startswith("  ") or more.strip().startswith("/"):
                    break
                rest.append(more.strip())
            return " ".join([line, *rest])
    return ""


def test_french_human_seat_quits_and_the_others_go_on_without_her(french_quit: HumanRun) -> None:
    run = french_quit
    screen = run.screen
    no_traceback(screen, *(out for _, _, out in run.others))
    assert run.seat.quit_sent, screen[-3000:]
    assert "Votre main" in screen and "Coups permis :" in screen
    assert "Scores après la manche 1" in screen
    assert "Comment jouer à Nines" in run.seat.replies["aide"]
    assert "n'importe n'est pas une carte" in run.seat.replies["n'importe"]
    for refusal in FRENCH.refusals:
        assert refusal not in screen
    assert run.status == 0  # she chose to leave (and confirmed): not a failure, not a crash
    assert "Quitter la partie ?" in screen and "Vous restez à la table." in screen  # asked, twice
    assert "Classement après 1 manche, à l'arrêt : " in screen  # the standings when she left
    assert str(run.human_file) in screen  # where her transcript is, said in French
    status, record = audit(run.human_file, home=run.human_file.parent / "auditor")
    ann = seat_of(record, "Ann")
    # Her own transcript stops where she left (at her turn if she left at a move prompt; at a
    # prompt between hands, where the others' records of the next step may not have come):
    # the audit names nobody.
    assert status == 1 and record["verdict"]["valid"] is False
    problems = record["verdict"]["problems"]
    assert len(problems) == 1 and "ends before the match did" in problems[0]["what"], problems
    if run.seat.quit_at in (MOVE, SUIT, DRAWN):
        assert awaited(problems[0]["what"]) == {ann}, problems
    assert problems[0]["seat"] is None
    # She signed that she leaves: the two others play the match to its end without her.
    for (name, status, out), path in zip(run.others, run.other_files, strict=True):
        assert status == 0, f"{name}\n{out}"
        assert continued_line(out).startswith("Ann left the match (quit)."), out
        assert "The match is over" in out, out
        status, record = audit(path, home=path.parent / "auditor")
        assert status == 0 and record["verdict"]["valid"], record["verdict"]
        assert [p["name"] for p in record["players"]] == ["Hal", "Bob"]
    assert len({load(p).records for p in run.other_files}) == 1


def test_french_human_seat_sees_the_end_of_the_match_in_french(french_quit: HumanRun) -> None:
    last_lines = french_quit.screen.strip().splitlines()[-3:]
    for english in ("You left the match", "Signed transcript", "check it with"):
        assert all(english not in line for line in last_lines), last_lines


def test_the_others_say_that_ann_left(french_quit: HumanRun) -> None:
    for _, _, out in french_quit.others:
        line = continued_line(out)
        assert "Ann left the match" in line and "Totals after 1 hand: " in line, line


# ---------------------------------------------------------------------------
# 3. A peer killed, or frozen, in the middle of a hand


@dataclass(frozen=True, slots=True)
class BrokenRun:
    survivors: list[tuple[str, int, str]]  # name, exit status, output
    files: list[Path]
    home: Path


def three_bots(procs, tmp: Path, code: str, files: list[Path], timeouts: list[list[str]], hands: int = 100):  # type: ignore[no-untyped-def]
    """Hal hosts a match of ``hands`` hands, Jo and Kim join; returns the three processes
    once hand 1 is on. At 100 hands the match cannot end before the test breaks it."""
    host, port = start_host(
        procs,
        [*HAL, "--code", code, "--rule", f"hands={hands}", "--transcript", str(files[0]), *timeouts[0]],
        home=tmp / "home0",
    )
    joiners = [
        procs.spawn(
            name,
            [*join_args(f"{LOCAL}:{port}", name, "random"), "--transcript", str(files[i]), *timeouts[i]],
            home=tmp / f"home{i}",
            P2PCARDS_CODE=code,
        )
        for i, name in ((1, "Jo"), (2, "Kim"))
    ]
    assert host.wait_for("Hand 1", timeout=30), host.tail()
    assert all(p.popen.poll() is None for p in joiners), "the match ended too soon"
    return host, *joiners


@pytest.fixture(scope="module")
def killed_peer(tmp_path_factory: pytest.TempPathFactory) -> BrokenRun:
    """Kim's process is killed with SIGKILL during hand 1 of 4."""
    tmp = tmp_path_factory.mktemp("killed")
    files = [tmp / f"t{i}.p2pt" for i in range(3)]
    with processes(tmp) as procs:
        host, jo, kim = three_bots(procs, tmp, new_code(), files, [FAST] * 3, hands=4)
        kim.popen.kill()  # no goodbye, no transcript
        kim.popen.wait(5)
        survivors = [(p.name, p.finish(timeout=45), p.output()) for p in (host, jo)]
    return BrokenRun(survivors, files, tmp)


def continued_line(out: str) -> str:
    """The sentence saying that a seat left and the match goes on without it (unwrapped)."""
    text = " ".join(out.split())
    found = re.search(r"(\S+ (?:left the match|a quitté la partie) \(.*?(?:Totals|Totaux)[^.]*\.)", text)
    if found is None:  # (left before any hand was scored: no totals to give)
        found = re.search(r"(\S+ left the match \(.*? before any hand was finished[^.]*\.)", text)
    return found.group(1) if found else ""


def test_killed_peer_is_left_behind_and_the_others_finish_the_match(killed_peer: BrokenRun) -> None:
    run = killed_peer
    for name, status, out in run.survivors:
        no_traceback(out)
        assert status == 0, f"{name}\n{out}"
        line = continued_line(out)
        assert line.startswith("Kim left the match (lost connection and did not come back within 3 s"), out
        assert "The match is over" in out, out
    for path, (_, _, out) in zip(run.files[:2], run.survivors, strict=True):
        assert path.exists()
        assert f"Signed transcript (check it with p2pcards audit FILE):\n  {path}" in out
        proc = run_cli(["audit", str(path)], home=run.home / "auditor")
        assert proc.returncode == 0 and proc.stdout.startswith("VALID: "), proc.stdout
        text = " ".join(proc.stdout.split())
        assert "Kim left after" in text and "were judged gone by the others" in text, text
    assert load(run.files[0]).records == load(run.files[1]).records
    assert not run.files[2].exists()  # SIGKILL leaves Kim no chance to save


@pytest.fixture(scope="module")
def frozen_peer(tmp_path_factory: pytest.TempPathFactory) -> BrokenRun:
    """Kim's process is stopped (SIGSTOP) during hand 1; Jo gives up after 3 s, Hal after 10 s
    (far enough apart that Jo's own verdict comes first even if its link with Hal breaks and
    comes back on a loaded machine, which gives Jo's step a whole timeout from the return)."""
    tmp = tmp_path_factory.mktemp("frozen")
    files = [tmp / f"t{i}.p2pt" for i in range(3)]
    patient = ["--turn-timeout", "10", "--step-timeout", "10", "--short-clocks"]
    hasty = ["--turn-timeout", "3", "--step-timeout", "3", "--short-clocks"]
    with processes(tmp) as procs:
        host, jo, kim = three_bots(procs, tmp, new_code(), files, [patient, hasty, patient])
        os.kill(kim.pid, signal.SIGSTOP)  # silent, its connections still open (killed on the way out)
        survivors = [(p.name, p.finish(timeout=30), p.output()) for p in (host, jo)]
    return BrokenRun(survivors, files, tmp)


def test_frozen_peer_is_named_by_the_timeout(frozen_peer: BrokenRun) -> None:
    (_, host_status, host_out), (_, jo_status, jo_out) = frozen_peer.survivors
    no_traceback(jo_out, host_out)
    _, record = audit(frozen_peer.files[1], home=frozen_peer.home / "auditor")
    kim = seat_of(record, "Kim")
    assert jo_status == 1 and host_status == 1
    said = stopped_line(jo_out)
    assert re.search(KIM_TIMED_OUT, said), jo_out
    # Hal stops too (when Jo hangs up, or at its own timeout); a timeout can only be Kim's.
    host_line = stopped_line(host_out)
    assert host_line, host_out
    assert "timed out" not in host_line or re.search(KIM_TIMED_OUT, host_line), host_line
    problems = record["verdict"]["problems"]  # Jo's transcript
    assert len(problems) == 1 and problems[0]["seat"] in (kim, None), problems
    assert kim in awaited(problems[0]["what"]), problems
    status, _ = audit(frozen_peer.files[0], home=frozen_peer.home / "auditor")
    assert status == 1


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads the system's view of a connection")
def test_at_a_table_of_two_a_frozen_peer_is_named_not_taken_for_this_nodes_own_cut(tmp_path: Path) -> None:
    """At two seats a frozen joiner is all this node hears from: silence from everyone read as
    its own connection cut (nobody named, so a losing player could freeze to stop the match).
    The joiner's system still acknowledges what the host sends: the host names it."""
    files = [tmp_path / f"t{i}.p2pt" for i in range(2)]
    code = new_code()
    clock = ["--turn-timeout", "5", "--step-timeout", "5", "--grace", "10", "--short-clocks"]
    with processes(tmp_path) as procs:
        host, port = start_host(
            procs,
            ["-n", "2", "--bot", "random", "--name", "Hal", "--code", code, "--rule", "hands=100",
             "--transcript", str(files[0]), *clock],
            home=tmp_path / "home0",
        )  # fmt: skip
        kim = procs.spawn(
            "Kim",
            [*join_args(f"{LOCAL}:{port}", "Kim", "random"), "--transcript", str(files[1]), *clock],
            home=tmp_path / "home1",
            P2PCARDS_CODE=code,
        )
        assert host.wait_for("Hand 1", timeout=30), host.tail()
        os.kill(kim.pid, signal.SIGSTOP)  # silent, its system still answering (killed on the way out)
        status = host.finish(timeout=60)
        out = host.output()
    no_traceback(out)
    assert status == 1, out
    said = stopped_line(out)
    assert re.search(KIM_TIMED_OUT, said), out
    _, record = audit(files[0], home=tmp_path / "auditor")
    problems = record["verdict"]["problems"]  # (a file cannot prove a timeout: it waits for Kim)
    kim = seat_of(record, "Kim")
    assert len(problems) == 1 and problems[0]["seat"] in (kim, None), problems
    assert kim in awaited(problems[0]["what"]), problems


@pytest.mark.slow
def test_a_node_that_did_not_run_for_a_while_names_nobody_for_it(tmp_path: Path) -> None:
    """Kim's process is stopped for longer than the clocks, then goes on. The others name
    Kim; Kim, whose clocks ran out while it was stopped, with the others' records waiting
    to be read, must not name them: it names Hal or Jo for a turn they had played."""
    files = [tmp_path / f"t{i}.p2pt" for i in range(3)]
    clock = ["--turn-timeout", "4", "--step-timeout", "4", "--grace", "4", "--short-clocks"]
    with processes(tmp_path) as procs:
        host, jo, kim = three_bots(procs, tmp_path, new_code(), files, [clock] * 3)
        os.kill(kim.pid, signal.SIGSTOP)
        time.sleep(14)  # (longer than a silence of every peer that a node takes for its own cut)
        os.kill(kim.pid, signal.SIGCONT)
        ended = [(p.name, p.finish(timeout=60), p.output()) for p in (host, jo, kim)]
    for name, status, out in ended:
        no_traceback(out)
        assert status == 1, f"{name}\n{out}"
    for _, _, out in ended[:2]:
        said = stopped_line(out)
        assert re.search(KIM_TIMED_OUT, said), out
    kim_said = stopped_line(ended[2][2])
    assert kim_said and not re.search(r"because of (Hal|Jo)\b", kim_said), ended[2][2]


# ---------------------------------------------------------------------------
# 4. Errors: one line, a non-zero status, never a traceback


def one_error_line(proc: subprocess.CompletedProcess[str]) -> str:
    no_traceback(proc.stdout, proc.stderr)
    lines = [line for line in (proc.stdout + proc.stderr).splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith("Error: "), lines
    return lines[0]


def test_join_with_a_wrong_code_is_refused_and_the_host_keeps_waiting(tmp_path: Path) -> None:
    with processes(tmp_path) as procs:
        host, port = start_host(
            procs, ["-n", "2", "--bot", "random", "--name", "Hal", "--code", new_code()], home=tmp_path / "h0"
        )
        wrong = run_cli(
            ["join", f"{LOCAL}:{port}", "--bind", LOCAL, "--bot", "random", "--name", "Eve"],
            home=tmp_path / "h1",
            P2PCARDS_CODE="1-wrong-guess",
        )
        assert wrong.returncode == 1
        assert "wrong invitation code" in one_error_line(wrong)
        assert host.wait_for("refused 'Eve'", timeout=10)
        assert host.popen.poll() is None  # still waiting for the player it invited
        # A person refused keeps the name it had: a name is remembered once a table takes it.
        home = tmp_path / "h2"
        home.mkdir()
        (home / "config.json").write_text('{"name": "Ann"}')
        args = ["join", f"{LOCAL}:{port}", "--bind", LOCAL, "--name", "Eve"]
        person = run_cli(args, home=home, P2PCARDS_CODE="1-wrong-guess")
        assert person.returncode == 1 and "wrong invitation code" in person.stderr, person.stderr
        assert json.loads((home / "config.json").read_text()) == {"name": "Ann"}


def test_join_an_unreachable_host(tmp_path: Path) -> None:
    closed = free_port()
    proc = run_cli(
        ["join", f"{LOCAL}:{closed}", "--bind", LOCAL, "--bot", "random"],
        home=tmp_path,
        P2PCARDS_CODE="1-any-code",
    )
    assert proc.returncode == 1
    assert f"cannot reach the host at {LOCAL}:{closed}" in one_error_line(proc)


@pytest.mark.parametrize("address", [":7777", "127.0.0.1:port", "127.0.0.1:0", "[::1", "host:70000"])
def test_join_a_malformed_address_is_a_usage_error(tmp_path: Path, address: str) -> None:
    proc = run_cli(["join", address, "--bot", "random"], home=tmp_path, P2PCARDS_CODE="1-any-code")
    no_traceback(proc.stdout, proc.stderr)
    assert proc.returncode == 2
    assert "Usage: p2pcards join" in proc.stderr
    errors = [line for line in proc.stderr.splitlines() if line.startswith("Error:")]
    assert len(errors) == 1 and "is not HOST or HOST:PORT" in errors[0], proc.stderr


def test_join_an_address_without_a_port_dials_port_7777(tmp_path: Path) -> None:
    proc = run_cli(["join", "127.0.0.1", "--bot", "random"], home=tmp_path, P2PCARDS_CODE="1-any-code")
    no_traceback(proc.stdout, proc.stderr)
    assert proc.returncode == 1
    assert "the host at 127.0.0.1:7777" in one_error_line(proc)


def test_join_asks_for_a_missing_code_and_shows_it_as_typed(tmp_path: Path) -> None:
    """The code is no password (SPAKE2 makes a guess cost a connection): a typo must be seen."""
    pexpect = pytest.importorskip("pexpect")
    with closed_port() as closed:
        child = pexpect.spawn(
            str(CLI),
            ["join", f"{LOCAL}:{closed}", "--bot", "random"],
            env=node_env(tmp_path),
            encoding="utf-8",
            timeout=20,
        )
        try:
            child.expect("P2PCARDS_CODE")
            child.expect("Invitation code: ")
            child.sendline("7-secret-walrus")
            child.expect(pexpect.EOF)
        finally:
            child.close()
    assert "7-secret-walrus" in child.before  # echoed
    assert f"cannot reach the host at {LOCAL}:{closed}" in child.before
    assert child.exitstatus == 1


def test_join_a_port_out_of_range_is_a_usage_error(tmp_path: Path) -> None:
    proc = run_cli(["join", f"{LOCAL}:99999", "--bot", "random"], home=tmp_path, P2PCARDS_CODE="1-any-code")
    assert proc.returncode == 2
    assert "Usage: p2pcards join" in proc.stderr


def test_join_without_a_code_is_a_usage_error(tmp_path: Path) -> None:
    proc = run_cli(["join", f"{LOCAL}:7777", "--bot", "random"], home=tmp_path)
    no_traceback(proc.stdout, proc.stderr)
    assert proc.returncode == 2
    assert "--code" in proc.stderr


def test_audit_unreadable_and_altered_files(tmp_path: Path) -> None:
    missing = run_cli(["audit", str(tmp_path / "missing.p2pt")], home=tmp_path)
    assert missing.returncode == 2
    assert "cannot read" in one_error_line(missing)

    noise = tmp_path / "noise.p2pt"
    noise.write_bytes(random.Random(1).randbytes(4096))
    garbled = run_cli(["audit", str(noise)], home=tmp_path)
    assert garbled.returncode == 2
    assert "not a p2pcards transcript" in one_error_line(garbled)

    # A real transcript, from the all-bots demo, audits valid ...
    good = tmp_path / "good.p2pt"
    demo = run_cli(
        ["play", "--watch", "--bot", "random", "-n", "2", "--seed", "5", "--transcript", str(good)],
        home=tmp_path / "demo",
        timeout=60,
    )
    assert demo.returncode == 0, demo.stdout[-2000:] + demo.stderr
    assert run_cli(["audit", str(good)], home=tmp_path).returncode == 0
    # ... and no longer does with any one byte flipped.
    data = good.read_bytes()
    for where in sorted({0, 1, len(data) // 3, len(data) // 2, len(data) - 40, len(data) - 1}):
        bad = tmp_path / f"flipped-{where}.p2pt"
        bad.write_bytes(data[:where] + bytes([data[where] ^ 0x01]) + data[where + 1 :])
        proc = run_cli(["audit", str(bad)], home=tmp_path)
        no_traceback(proc.stdout, proc.stderr)
        assert proc.returncode in (1, 2), f"flipped byte {where}: exit {proc.returncode}\n{proc.stdout}"
        assert (proc.stdout + proc.stderr).strip()


# ---------------------------------------------------------------------------
# 5. The demo script


def test_scripts_play_watch_runs_a_match(tmp_path: Path) -> None:
    venv = REPO / ".venv"
    stamp = venv / ".installed-runtime"  # what scripts/play checks (scripts/_venv.sh)
    wanted = hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()
    if not stamp.exists() or stamp.read_text().strip() != wanted or not (venv / "bin" / "p2pcards").exists():
        pytest.skip(".venv is missing or older than pyproject.toml: scripts/play would reinstall it")
    home = tmp_path / "home"
    proc = subprocess.run(
        [str(REPO / "scripts" / "play"), "--watch", "--bot", "random", "-n", "3", "--seed", "1"],
        env=node_env(home),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        timeout=90,
        check=False,
    )
    no_traceback(proc.stdout, proc.stderr)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr
    assert "Setting up" not in proc.stderr
    assert "Final scores" in proc.stdout
    saved = list((home / "transcripts").glob("*.p2pt"))
    assert len(saved) == 1 and str(saved[0]) in proc.stdout
    assert run_cli(["audit", str(saved[0])], home=home).returncode == 0


def test_scripts_play_is_called_by_its_own_name_in_its_usage_and_hints(tmp_path: Path) -> None:
    """A typo after ``scripts/play`` is answered with a hint a player can type as it is
    (``scripts/play --help``, not ``p2pcards play --help``, which is not on the path)."""
    venv = REPO / ".venv"
    stamp = venv / ".installed-runtime"
    wanted = hashlib.sha256((REPO / "pyproject.toml").read_bytes()).hexdigest()
    if not stamp.exists() or stamp.read_text().strip() != wanted or not (venv / "bin" / "p2pcards").exists():
        pytest.skip(".venv is missing or older than pyproject.toml: scripts/play would reinstall it")
    script = REPO / "scripts" / "play"
    run = functools.partial(
        subprocess.run, env=node_env(tmp_path), capture_output=True, text=True, timeout=60, check=False
    )
    typo = run([str(script), "--bogus"])
    assert typo.returncode == 2, typo.stderr
    assert f"Try '{script} --help' for help." in typo.stderr, typo.stderr
    assert f"Usage: {script} [OPTIONS]" in typo.stderr, typo.stderr
    helped = run([str(script), "--help"])
    assert helped.stdout.startswith(f"Usage: {script} [OPTIONS]"), helped.stdout
    direct = run([str(venv / "bin" / "p2pcards"), "play", "--bogus"])
    assert "Try 'p2pcards play --help' for help." in direct.stderr, direct.stderr


def test_python_dash_m_runs_the_command_line(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "p2pcards.cli", "--help"],
        env=node_env(tmp_path),
        capture_output=True,
        text=True,
        timeout=30,
        check=False,
    )
    assert proc.returncode == 0
    assert "Usage:" in proc.stdout


def test_ctrl_c_on_a_node_ends_it_cleanly_and_the_others_go_on_without_it(tmp_path: Path) -> None:
    files = [tmp_path / f"t{i}.p2pt" for i in range(3)]
    with processes(tmp_path) as procs:
        host, jo, kim = three_bots(procs, tmp_path, new_code(), files, [FAST] * 3, hands=4)
        kim.popen.send_signal(signal.SIGINT)
        kim_status = kim.finish(timeout=20)
        others = [(p.name, p.finish(timeout=30), p.output()) for p in (host, jo)]
        kim_out = kim.output()
    assert kim_status == 130, kim_out
    assert "Interrupted" in kim_out and "Traceback" not in kim_out
    assert files[2].exists()  # its transcript so far is kept
    for name, status, out in others:
        no_traceback(out)
        assert status == 0, f"{name}\n{out}"
        # Kim signs that she leaves, and the others go on at once. (If Ctrl-C cut one of
        # her sends short, that TLS link is broken and its peer only sees her hang up: it
        # goes on once her grace has run out, having judged her gone.)
        line = continued_line(out)
        signed = line.startswith("Kim left the match (interrupted)")
        assert signed or line.startswith("Kim left the match (lost connection"), out
        proc = run_cli(["audit", str(files[0 if name == "Hal" else 1])], home=tmp_path / "auditor")
        assert proc.returncode == 0, proc.stdout
        text = " ".join(proc.stdout.split())
        how = 'signed that they leave: "interrupted"' if signed else "were judged gone by the others"
        assert how in text, text


def kim_joins_again(procs, host, home: Path, *options: str) -> tuple[int, str]:  # type: ignore[no-untyped-def]
    """Kim runs ``join`` again at Hal's table (its address and code read off Hal's screen),
    from ``home``; her exit status and what she was told, on one line."""
    port = re.search(r"127\.0\.0\.1:(\d+)", host.output())
    code = re.search(r"Invitation code: (\S+)", host.output())
    assert port is not None and code is not None, host.tail()
    again = procs.spawn(
        "Kim again",
        [*join_args(f"{LOCAL}:{port.group(1)}", "Kim", "random"), *options, *FAST],
        home=home,
        P2PCARDS_CODE=code.group(1),
    )
    status = again.finish(timeout=30)
    return status, " ".join(again.output().split())


def test_a_player_who_left_and_joins_again_is_told_they_cannot_come_back(tmp_path: Path) -> None:
    """Kim leaves with Ctrl-C and, while the others play on, runs the same join again: the
    host refuses her at once, saying that she left and the game went on without her (not
    seated again, not a port error), and names her attempt on its own screen."""
    files = [tmp_path / f"t{i}.p2pt" for i in range(3)]
    with processes(tmp_path) as procs:
        host, jo, kim = three_bots(procs, tmp_path, new_code(), files, [FAST] * 3)
        kim.popen.send_signal(signal.SIGINT)
        assert kim.finish(timeout=20) == 130, kim.output()
        assert host.wait_for("Kim left the match", timeout=30), host.tail()
        status, said = kim_joins_again(procs, host, tmp_path / "home2")
        assert status != 0 and "you left this game" in said and "cannot come back" in said, said
        assert "Traceback" not in said and "port" not in said, said
        assert host.wait_for("refused Kim", timeout=10), host.tail()
        assert "they left the game" in " ".join(host.output().split()), host.tail()
        assert jo.popen.poll() is None and host.popen.poll() is None  # the others play on


def test_a_player_still_in_the_game_who_runs_join_again_is_sent_to_resume(tmp_path: Path) -> None:
    """Kim's program is killed, and she joins again with her key but from a data directory
    without its journal (another copy of her files), listening on another port: her seat is
    still hers (the others wait out her grace), but the roster holds her first run's port.
    She is told that her seat goes back to the game with ``resume`` from that run's data
    directory, in her language, not that the host listed some port. (From the same data
    directory, ``join`` finds the journal and resumes.)"""
    files = [tmp_path / f"t{i}.p2pt" for i in range(3)]
    with socket.socket() as spare:
        spare.bind(("127.0.0.1", 0))
        other_port = spare.getsockname()[1]
    with processes(tmp_path) as procs:
        host, _jo, kim = three_bots(procs, tmp_path, new_code(), files, [FAST] * 3)
        kim.popen.kill()
        kim.popen.wait(5)
        shutil.copytree(tmp_path / "home2", tmp_path / "copy", ignore=shutil.ignore_patterns("journals"))
        elsewhere = ("--lang", "fr", "--port", str(other_port))
        status, said = kim_joins_again(procs, host, tmp_path / "copy", *elsewhere)
    assert status != 0 and "p2pcards resume" in said and "lancement précédent" in said, said
    assert "l'hôte a inscrit" not in said and "the host listed" not in said, said
    assert "Traceback" not in said, said


# ---------------------------------------------------------------------------
# 6. The table fingerprint, and what a peer's text can do to a terminal

FINGERPRINT = re.compile(r"^Table fingerprint: (\d{4} \d{4} \d{4})$", re.MULTILINE)


def test_every_seat_shows_one_table_fingerprint_and_the_audit_prints_it(tmp_path: Path) -> None:
    """Three processes on three "machines": each prints the same fingerprint once, before
    the first hand, with the advice to compare it; each transcript's audit prints it too."""
    code = new_code()
    files = [tmp_path / f"t{i}.p2pt" for i in range(3)]
    with processes(tmp_path) as procs:
        host, port = start_host(
            procs,
            [*HAL, "--code", code, "--rule", "hands=1", "--transcript", str(files[0]), *FAST],
            home=tmp_path / "home0",
        )
        joiners = [
            procs.spawn(
                name,
                [*join_args(f"{LOCAL}:{port}", name, "random"), "--transcript", str(files[i]), *FAST],
                home=tmp_path / f"home{i}",
                P2PCARDS_CODE=code,
            )
            for i, name in ((1, "Jo"), (2, "Kim"))
        ]
        nodes = [host, *joiners]
        statuses = [node.finish(timeout=60) for node in nodes]
        outputs = [node.output() for node in nodes]
    assert statuses == [0, 0, 0], "\n".join(node.tail() for node in nodes)
    no_traceback(*outputs)
    shown = [FINGERPRINT.findall(out) for out in outputs]
    assert all(len(found) == 1 for found in shown), shown
    assert len({found[0] for found in shown}) == 1, shown
    for out in outputs:
        assert out.index("Everyone is linked") < out.index("Table fingerprint") < out.index("Hand 1")
        assert "compare it with the other players (read it aloud)" in out.replace("\n  ", " ").lower()
    for path in files:
        proc = run_cli(["audit", str(path)], home=tmp_path / "auditor")
        assert proc.returncode == 0, proc.stdout + proc.stderr
        assert f"Table fingerprint: {shown[0][0]}\n" in proc.stdout


EVIL_NODE = '''
"""A dishonest node: joins with any name and, at its first turn, stops with any reason."""
import sys

import trio

from p2pcards.net import runner
from p2pcards.net.node import NodeConfig, join_game
from p2pcards.net.session import LobbyUI, Timeouts
from p2pcards.protocol.wire import Abort

host, port, code, name, reason = sys.argv[1:6]
links = {}
real_run_table = runner.run_table  # (the node loads it when the match starts)


async def run_table(table, table_links, decide, **options):
    links.update(table_links)
    return await real_run_table(table, table_links, decide, **options)


runner.run_table = run_table


async def decide(table):
    for link in links.values():
        await link.send(Abort(reason).to_frame())
    await trio.sleep_forever()


async def main():
    config = NodeConfig(
        name=name, decide=decide, ui=LobbyUI(), bind="127.0.0.1", keep_transcript=False,
        timeouts=Timeouts(turn=30, step=30),
    )
    try:
        outcome = await join_game(config, host=host, port=int(port), code=code)
    except Exception as e:
        print("refused:", ascii(e), flush=True)
        sys.exit(3)
    print("ended:", outcome.status, flush=True)


trio.run(main)
'''

INJECTION = "\x1b]0;pwned\x07\x1b[2J\x9b31m\nevil wins with 0 points!\r\u202e"
"""Sets the window title, clears the screen, and prints a line that looks like the game's."""


def spawn_evil(procs, tmp: Path, port: int, code: str, name: str, reason: str = "") -> Proc:  # type: ignore[no-untyped-def]
    """The dishonest node above, as its own process (with its own data directory)."""
    script = tmp / "evil_node.py"
    script.write_text(EVIL_NODE, encoding="utf-8")
    argv = [sys.executable, str(script), LOCAL, str(port), code, name, reason]
    log = tmp / "evil.out"
    with log.open("wb") as out:
        popen = subprocess.Popen(
            argv,
            env=node_env(tmp / "evil-home"),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
    proc = Proc(name="evil", argv=argv, log=log, popen=popen)
    procs.started.append(proc)
    return proc


def injected(out: str) -> list[str]:
    """The lines of a terminal's output that obey a peer: a control character, or a line
    that the peer's text started."""
    bad = [line for line in out.split("\n") if any(c in line for c in "\x1b\x07\x9b\r\u202e")]
    return bad + [line for line in out.split("\n") if line.lstrip().startswith("evil wins")]


def test_a_name_made_of_escapes_is_refused_and_reaches_no_terminal(tmp_path: Path) -> None:
    code = new_code()
    with processes(tmp_path) as procs:
        two = ["-n", "2", "--bot", "random", "--name", "Hal"]
        host, port = start_host(
            procs, [*two, "--code", code, "--rule", "hands=1", *FAST], home=tmp_path / "h0"
        )
        name = "Eve\x1b]0;pwn\x07\nevil wins with 0!"  # within the 32 characters of a name
        evil = spawn_evil(procs, tmp_path, port, code, name=name)
        assert evil.finish(timeout=30) == 3, evil.tail()  # refused: the host never seats that name
        assert "control, bidi or invisible" in evil.output(), evil.tail()
        assert host.popen.poll() is None  # still waiting for a player it can seat
        jo_args = [*join_args(f"{LOCAL}:{port}", "Jo", "random"), *FAST]
        jo = procs.spawn("jo", jo_args, home=tmp_path / "h1", P2PCARDS_CODE=code)
        statuses = [p.finish(timeout=60) for p in (host, jo)]
        outputs = [p.output() for p in (host, jo)]
    assert statuses == [0, 0], "\n".join(outputs)
    no_traceback(*outputs)
    for out in outputs:
        assert not injected(out), injected(out)
        assert "Everyone is linked: Hal and Jo." in out


def test_a_stop_reason_made_of_escapes_stays_one_line_of_text(tmp_path: Path) -> None:
    """Mal stops at its first turn with a reason that would retitle the window, clear the
    screen and print a fake result line; Hal and Jo show it, on one inert line."""
    code = new_code()
    with processes(tmp_path) as procs:
        host, port = start_host(
            procs, [*HAL, "--code", code, "--rule", "hands=100", *FAST], home=tmp_path / "h0"
        )
        jo_args = [*join_args(f"{LOCAL}:{port}", "Jo", "random"), *FAST]
        jo = procs.spawn("jo", jo_args, home=tmp_path / "h1", P2PCARDS_CODE=code)
        assert host.wait_for("At the table (2 of 3)", timeout=20), host.tail()
        evil = spawn_evil(procs, tmp_path, port, code, name="Mal", reason=INJECTION)
        statuses = [p.finish(timeout=60) for p in (host, jo)]
        outputs = [p.output() for p in (host, jo)]
        evil_out = evil.output()
    assert statuses == [1, 1], "\n".join(outputs) + evil_out
    no_traceback(*outputs)
    for out in outputs:
        assert not injected(out), injected(out)
        assert "Mal (seat 2)" in stopped_line(out), out


def test_a_french_host_is_told_how_to_invite_in_french(tmp_path: Path) -> None:
    """The invitation, then the lobby's notices (a joiner's arrival), in the host's language."""
    with processes(tmp_path) as procs:
        port = free_port()
        host = procs.spawn(
            "host",
            ["host", "--port", str(port), "--bind", LOCAL, "--lang", "fr", "--code", "3-ember-lantern",
             "-n", "3", "--bot", "random", "--name", "Ann", "--no-discovery"],
            home=tmp_path / "ann",
        )  # fmt: skip
        assert host.wait_for("Code d'invitation : 3-ember-lantern", timeout=20), host.tail()
        assert "Les autres rejoignent la table avec :" in host.output()
        joiner = procs.spawn(
            "bob", ["join", f"{LOCAL}:{port}", "--bot", "random", "--name", "Bob"],
            home=tmp_path / "bob", P2PCARDS_CODE="3-ember-lantern",
        )  # fmt: skip
        assert host.wait_for("Bob a rejoint la table depuis 127.0.0.1", timeout=20), host.tail()
        assert joiner.wait_for("seated at a table of Nines (3 players)", timeout=20), joiner.tail()
        assert "Invitation code" not in host.output() and "joined from" not in host.output()
