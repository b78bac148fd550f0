"""A player's process is killed (SIGKILL) mid-match and the same ``join`` command,
run again, brings that seat back into the match from its journal: real processes
on loopback TCP, as a player would do it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from e2e_helpers import LOCAL, processes, run_cli, start_host

from p2pcards.net.words import new_code
from p2pcards.protocol.transcript import load

pytestmark = pytest.mark.slow

TIMEOUTS = ["--turn-timeout", "20", "--step-timeout", "20", "--grace", "60"]


def test_a_killed_joiner_comes_back_with_the_same_command(tmp_path: Path) -> None:
    code = new_code()
    files = [tmp_path / f"t{i}.p2pt" for i in range(3)]
    with processes(tmp_path) as procs:
        host, port = start_host(
            procs,
            ["-n", "3", "--bot", "random", "--name", "Hal", "--code", code, "--rule", "target=60",
             "--transcript", str(files[0]), *TIMEOUTS],
            home=tmp_path / "home0",
        )  # fmt: skip

        def join(name: str, i: int, label: str):  # type: ignore[no-untyped-def]
            args = ["join", f"{LOCAL}:{port}", "--bind", LOCAL, "--bot", "random", "--name", name,
                    "--transcript", str(files[i]), *TIMEOUTS]  # fmt: skip
            return procs.spawn(label, args, home=tmp_path / f"home{i}", P2PCARDS_CODE=code)

        jo = join("Jo", 1, "jo")
        kim = join("Kim", 2, "kim")
        assert host.wait_for("Hand 1", timeout=30), host.tail()
        assert kim.popen.poll() is None, "the match ended too soon"
        kim.popen.kill()  # no goodbye: its journal stays in its data directory
        kim.popen.wait(5)
        journals = list((tmp_path / "home2" / "journals").glob("*.journal"))
        assert len(journals) == 1
        listed = run_cli(["resume", "--list"], home=tmp_path / "home2")
        assert all(n in listed.stdout for n in ("Hal", "Jo", "Kim")), listed.stdout
        assert "Nines at 127.0.0.1:" in listed.stdout and "(you: seat " in listed.stdout, listed.stdout
        again = join("Kim", 2, "kim-again")  # the very same command
        statuses = [p.finish(timeout=120) for p in (host, jo, again)]
        outputs = [p.output() for p in (host, jo, again)]
    assert statuses == [0, 0, 0], outputs
    assert "Resuming your unfinished game" in outputs[2]
    assert re.search(r"Kim \(seat \d\) lost connection: reconnecting", outputs[0]), outputs[0]
    assert re.search(r"Kim \(seat \d\) is back", outputs[0]), outputs[0]
    # Kim, who was away, is told it links again with the others, not that they went away.
    assert re.search(r"linked again with Hal \(seat 0\)", outputs[2]), outputs[2]
    assert "Hal (seat 0) lost connection" not in outputs[2], outputs[2]
    records = {load(f).records for f in files}
    assert len(records) == 1, "the three transcripts differ"
    for f in files:
        audited = run_cli(["audit", str(f)], home=tmp_path / "auditor")
        assert audited.returncode == 0 and audited.stdout.startswith("VALID"), audited.stdout
    assert not list((tmp_path / "home2" / "journals").glob("*.journal"))  # removed at the end


def test_a_seat_resumes_a_match_that_went_on_without_a_player(tmp_path: Path) -> None:
    """Lu leaves during hand 2 and the match goes on at a new table of three; then Jo's
    process (a bot) is killed. Jo's ``resume`` (no ``--bot``: its journal says which bot
    played the seat, and that bot plays on) shows the match from its first table (four
    seats: the cut named Lu) to the new one, and plays on there, with no traceback. (Jo's
    journal may end before Lu's leave: Jo hears of it once linked.)"""
    import os
    import signal
    import time

    code = new_code()
    clock = ["--turn-timeout", "5", "--step-timeout", "5", "--short-clocks"]
    with processes(tmp_path) as procs:
        host, port = start_host(
            procs,
            ["-n", "4", "--bot", "random", "--name", "Hal", "--code", code, "--rule", "hands=50", *clock],
            home=tmp_path / "home0",
        )
        joiners = []
        for i, name in ((1, "Jo"), (2, "Kim"), (3, "Lu")):
            args = ["join", f"{LOCAL}:{port}", "--bind", LOCAL, "--name", name, "--bot", "random"]
            joiners.append(procs.spawn(name, args, home=tmp_path / f"home{i}", P2PCARDS_CODE=code))
            assert host.wait_for(f"{name} joined", 20), host.tail()
        assert host.wait_for("Hand 2", 60), host.tail()
        joiners[2].popen.send_signal(signal.SIGINT)
        joiners[2].finish(20)
        assert host.wait_for("Lu left the match", 30), host.tail()
        time.sleep(0.5)
        os.kill(joiners[0].pid, signal.SIGKILL)
        joiners[0].popen.wait(5)
        resumed = procs.spawn("resume", ["resume"], home=tmp_path / "home1")
        shown = resumed.wait_for("Lu left the match", 30)
        before = resumed.output().find("Lu left the match")  # it may have played on already
        played = re.compile(r"You (played|drew)")
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and not played.search(resumed.output()[before:]):
            time.sleep(0.2)
        out = resumed.output()
    assert "Traceback" not in out, out[-3000:]
    assert "The bot random played this seat, and plays on" in out, out[:2000]
    assert shown and played.search(out[before:]), out[-3000:]  # it plays on at the new table
    assert "Everyone is linked" not in out, out[-3000:]  # (it is linked again peer by peer)
