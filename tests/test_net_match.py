"""Whole matches between nodes on 127.0.0.1: every node a host_game or join_game task.

Each node has its own identity, table, TCP links and transcript file, as across
the internet; the matches only share the trio run.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest
import trio
from net_helpers import RecordingUI, bot, config, join_seat, play_match, start_host

from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import NinesRules
from p2pcards.net.node import Outcome
from p2pcards.net.runner import Decider
from p2pcards.protocol.audit import audit_file
from p2pcards.protocol.transcript import load
from p2pcards.protocol.wire import Evidence, SignedRecord, parse_record

TABLES = {
    2: NinesRules(target=30),
    3: NinesRules(target=30),
    4: NinesRules(),  # one whole match to 100
    5: NinesRules(hands=2),
    6: NinesRules(hands=1),
}


@pytest.fixture(autouse=True)
def _private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing here may touch the user's data directory."""
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path / "home"))


def records_of(path: Path) -> list[SignedRecord]:
    return [parse_record(raw, sig) for raw, sig in load(path).records]


def steps_of(records: list[SignedRecord]) -> list[list[SignedRecord]]:
    by_step: dict[int, list[SignedRecord]] = defaultdict(list)
    for rec in records:
        by_step[rec.record.step].append(rec)
    assert sorted(by_step) == list(range(len(by_step)))
    return [by_step[s] for s in range(len(by_step))]


def check_finished_match(n: int, outcomes: dict[int, Outcome]) -> int:
    """Every node of an ``n``-seat match agrees on a valid, finished match; returns its draws."""
    assert sorted(outcomes) == list(range(n))
    for seat, o in outcomes.items():
        assert (o.status, o.problem, o.blamed) == ("over", None, ()), (n, seat, o.problem)
        assert o.table is not None and o.table.seat == seat
        assert o.names == outcomes[0].names and len(o.names) == n
    assert len({o.winners for o in outcomes.values()}) == 1 and outcomes[0].winners
    totals = {tuple(o.table.match.totals) for o in outcomes.values()}  # type: ignore[union-attr]
    assert len(totals) == 1

    files = {seat: o.transcript for seat, o in outcomes.items()}
    assert all(path is not None and path.exists() for path in files.values())
    records = {seat: load(path).records for seat, path in files.items()}  # type: ignore[arg-type]
    assert all(r == records[0] for r in records.values()), "transcripts differ between nodes"
    for seat, path in files.items():
        report = audit_file(path)  # type: ignore[arg-type]
        assert report.valid, (n, seat, report.summary())
        assert report.table is not None and report.table.match is not None
        assert tuple(report.table.match.winners or ()) == outcomes[0].winners
        assert tuple(report.table.match.totals) in totals

    recs = records_of(files[0])  # type: ignore[arg-type]
    # Once finished, a node passes the last step's records on to every peer, once.
    last = tuple(r for r in recs if r.record.step == recs[-1].record.step)
    final = len(Evidence(last).to_frame()) * (n - 1)
    for seat, o in outcomes.items():
        # Every record a node wrote went once to every peer, besides a few handshake frames.
        own = [r for r in recs if r.record.seat == seat]
        record_bytes = sum(len(r.to_frame()) for r in own) * (n - 1)
        assert o.frames_sent > len(own) * (n - 1) > 0
        assert o.frames_sent - len(own) * (n - 1) <= 3 * n * (n - 1) + (n - 1)
        assert record_bytes < o.bytes_sent <= record_bytes + final + 2048 * (n - 1)
    return count_draws(n, steps_of(recs))


def count_draws(n: int, steps: list[list[SignedRecord]]) -> int:
    """Checks that a draw costs one step of parallel messages; returns how many draws there were.

    After a ``draw`` step the next step holds the ``keys`` of the n-1 other seats
    (all at once, not one after another) and the step after it is the drawer's
    decision, unless the stock must be recycled first (a ``shuffle`` step).
    """
    draws = 0
    for i, step in enumerate(steps):
        if [r.record.body.TYPE for r in step] != ["draw"]:
            continue
        drawer = step[0].record.seat
        after = steps[i + 1]
        if after[0].record.body.TYPE == "shuffle":
            continue  # a recycle round first
        draws += 1
        assert [r.record.body.TYPE for r in after] == ["keys"] * (n - 1)
        assert sorted(r.record.seat for r in after) == [s for s in range(n) if s != drawer]
        assert {r.record.seat for r in steps[i + 2]} == {drawer}
        assert steps[i + 2][0].record.body.TYPE in ("play", "keep")
    return draws


@pytest.mark.slow
async def test_matches_of_two_to_six_nodes_agree_and_audit_valid(tmp_path: Path) -> None:
    results: dict[int, dict[int, Outcome]] = {}
    with trio.fail_after(120):
        async with trio.open_nursery() as nursery:
            for n, rules in TABLES.items():

                async def one(n: int = n, rules: NinesRules = rules) -> None:
                    results[n] = await play_match(tmp_path, n, rules, seed=n, prefix=f"n{n}-s")

                nursery.start_soon(one)
    draws = {n: check_finished_match(n, outcomes) for n, outcomes in results.items()}
    assert sum(draws.values()) > 0
    # The full match to 100 really went on to the target.
    full = results[4][0].table.match  # type: ignore[union-attr]
    assert full is not None and max(full.totals) >= 100
    assert len(results[6][0].table.match.results) == 1  # type: ignore[union-attr]


def killer(seat_decider: Decider, scope: trio.CancelScope, at_turn: int) -> Decider:
    """A decider that kills its node (cancels ``scope``) at its ``at_turn``-th turn of hand 1."""
    turns = 0

    async def decide(table: Table) -> object:
        nonlocal turns
        if table.match is not None and not table.match.results:
            turns += 1
            if turns == at_turn:
                scope.cancel()
                await trio.lowlevel.checkpoint()
        return await seat_decider(table)

    return decide  # type: ignore[return-value]


@pytest.mark.parametrize("at_turn", [1, 2])
async def test_a_peer_killed_mid_hand_is_left_behind_and_the_others_finish(
    tmp_path: Path, at_turn: int
) -> None:
    n, dead = 4, 2
    outcomes: dict[int, Outcome] = {}
    host_ui = RecordingUI()
    kill = trio.CancelScope()
    with trio.fail_after(60):
        async with trio.open_nursery() as nursery:
            host = config(tmp_path, "s0", seed=0, ui=host_ui)
            port = await start_host(nursery, host, players=n, rules=NinesRules(), outcomes=outcomes)
            for seat in range(1, n):
                decide = killer(bot(seat), kill, at_turn) if seat == dead else bot(seat)
                cfg = config(tmp_path, f"s{seat}", decide=decide)
                await join_seat(
                    nursery, port, cfg, seat, outcomes, host_ui, scope=kill if seat == dead else None
                )
    assert kill.cancelled_caught and dead not in outcomes  # killed mid-hand
    assert sorted(outcomes) == [s for s in range(n) if s != dead]
    for seat, o in outcomes.items():
        # Its links broke; it had the grace period to come back, did not, and the
        # three others played the match to its end without it.
        assert o.status == "over" and o.blamed == (), (seat, o.problem)
        assert o.table is not None and o.table.present == (0, 1, 3)
        assert o.names[dead] == f"s{dead}"
    for seat in outcomes:
        report = audit_file(tmp_path / f"s{seat}.p2pt")
        assert report.valid, report.summary()
        text = " ".join(report.summary().split())
        assert f"s{dead} left after 0 hands (were judged gone by the others" in text, text
        assert "did not come back within 3 s" in text, text
    # The victim saved what it had: it ends where it was killed, blaming nobody.
    report = audit_file(tmp_path / f"s{dead}.p2pt")
    assert report.incomplete and all(p.seat is None for p in report.problems), report.summary()
    # The nodes that stayed hold the same records.
    kept = {seat: load(tmp_path / f"s{seat}.p2pt").records for seat in outcomes}
    assert len(set(kept.values())) == 1
