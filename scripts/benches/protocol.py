"""Benchmark groups of Protocol: whole matches in one process (every seat's table, in-memory
links)."""


from __future__ import annotations

import dataclasses
import hashlib
import random
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from benches.common import Row, group
from benches.crypto import op_cost_us
from p2pcards.bots.random_bot import RandomBot
from p2pcards.crypto import group as cgroup
from p2pcards.crypto import poker
from p2pcards.crypto.identity import Identity
from p2pcards.games.nines import rules as nines
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import NinesRules
from p2pcards.protocol.audit import AuditReport, audit_bytes
from p2pcards.protocol.loopback import LocalNetwork, play_bots
from p2pcards.protocol.messages import Lock, Player, Reveal
from p2pcards.protocol.table import TableCore
from p2pcards.protocol.transcript import encode_file


def _derive(label: str, seed: int, seat: int = 0) -> bytes:
    return hashlib.sha256(f"p2pcards-bench/{label}/{seed}/{seat}".encode()).digest()


def steps_apart(table_cls: type[TableCore]) -> type[TableCore]:
    """``table_cls`` as nodes played before reveals carried the next hand's commitment and
    seat 0's first shuffle, and locks the deal keys: each hand has its ``commit``, first
    ``shuffle`` and ``deal`` steps again."""

    class StepsApart(table_cls):  # type: ignore[valid-type,misc]
        def _author(self, body: Any) -> None:
            if isinstance(body, Reveal):
                body = dataclasses.replace(body, next=None, shuffle=None)
            elif isinstance(body, Lock):
                body = dataclasses.replace(body, keys=None)
            super()._author(body)

    return StepsApart


def make_tables(
    players: int, rules: Any, seed: int, table_cls: type[TableCore] = Table
) -> dict[int, TableCore]:
    """One honest table per seat, with identities and entropy derived from ``seed``."""
    ids = [Identity.from_bytes(_derive("identity", seed, s)) for s in range(players)]
    roster = tuple(Player(name=f"p{s}", key=ids[s].public_key) for s in range(players))
    return {
        s: table_cls(
            game_id=_derive("game", seed)[:16],
            roster=roster,
            rules=rules,
            seat=s,
            identity=ids[s],
            entropy=_derive("entropy", seed, s),
        )
        for s in range(players)
    }


@dataclass(slots=True)
class CryptoClock:
    """Seconds spent in scalar multiplications and in element checks."""

    mul: float = 0.0
    check: float = 0.0


@contextmanager
def timed_crypto() -> Iterator[CryptoClock]:
    """Time every group call the protocol makes (through :mod:`p2pcards.crypto.poker`).

    The wrappers cost two clock reads per call, well under 1% of a multiplication.
    """
    clock = CryptoClock()
    names = ("mul", "mul_many", "iter_mul", "check_element")
    saved = {name: getattr(poker, name) for name in names}

    def timed(fn: Callable[..., object], attr: str) -> Callable[..., object]:
        def wrapper(*args: object) -> object:
            t = time.perf_counter()
            try:
                return fn(*args)
            finally:
                setattr(clock, attr, getattr(clock, attr) + time.perf_counter() - t)

        return wrapper

    def timed_iter_mul(k: int, xs: object) -> Iterator[bytes]:
        inner = saved["iter_mul"](k, xs)
        while True:
            t = time.perf_counter()
            x = next(inner, None)
            clock.mul += time.perf_counter() - t
            if x is None:
                return
            yield x

    poker.mul = timed(saved["mul"], "mul")  # type: ignore[assignment]
    poker.mul_many = timed(saved["mul_many"], "mul")  # type: ignore[assignment]
    poker.iter_mul = timed_iter_mul  # type: ignore[assignment]
    poker.check_element = timed(saved["check_element"], "check")  # type: ignore[assignment]
    try:
        yield clock
    finally:
        for name, fn in saved.items():
            setattr(poker, name, fn)


@dataclass(slots=True)
class MatchRun:
    tables: dict[int, Any]
    net: LocalNetwork
    elapsed: float
    ops: int
    clock: CryptoClock = field(default_factory=CryptoClock)

    @property
    def hands(self) -> int:
        m = self.tables[0].match
        return 0 if m is None else len(m.results)


def run_local_match(
    players: int,
    rules: Any,
    seed: int,
    *,
    table_cls: type[TableCore] = Table,
    bots: Mapping[int, Any] | None = None,
) -> MatchRun:
    """A whole bot match (random bots unless ``bots`` is given), every seat's table in this
    process; raises unless it ends cleanly."""
    tables = make_tables(players, rules, seed, table_cls)
    net = LocalNetwork(tables, rng=random.Random(seed))  # type: ignore[arg-type]
    if bots is None:
        bots = {s: RandomBot() for s in tables}
    # Start cold: points decoded by an earlier run (same seed, same elements) would make this one
    # look cheaper than a real node's first sight of them.
    cgroup._public_key.cache_clear()
    with timed_crypto() as clock:
        cgroup.OPS.reset()
        t = time.perf_counter()
        play_bots(net, bots, random.Random(seed))
        elapsed = time.perf_counter() - t
        ops = cgroup.OPS.count
    if net.failures or any(t.status != "over" for t in tables.values()):
        raise RuntimeError(f"the benchmark match did not end cleanly: {net.failures}")
    return MatchRun(tables=tables, net=net, elapsed=elapsed, ops=ops, clock=clock)


@dataclass(frozen=True, slots=True)
class Floor:
    """The fewest group operations one node needs for its hands, by what they are for."""

    passes: int
    opened: int

    @property
    def total(self) -> int:
        return self.passes + self.opened


def floor_ops(table: Table) -> Floor:
    """Per round of ``size`` cards: own shuffle and lock passes (2·size) plus replaying every
    other seat's two passes at the hand's end (2·size each); plus one operation per card this
    node opens: its dealt cards, the up card, every card played, its own draws."""
    assert table.match is not None and table.seat is not None
    seat, n = table.seat, table.n
    passes = opened = 0
    for crypto, hand in zip(table.hands_crypto, table.match.history, strict=True):
        passes += sum(2 * n * rd.size for rd in crypto.rounds)
        opened += len(hand.dealt[seat]) + 1
        for e in hand.events:
            if isinstance(e, nines.Play):
                opened += 1
            elif isinstance(e, nines.PlayNines):
                opened += 2
            elif isinstance(e, nines.Draw) and e.seat == seat:
                opened += 1
    return Floor(passes=passes, opened=opened)


def transcript_of(table: Table) -> bytes:
    """The transcript file ``table`` would save now."""
    return encode_file(table.transcript.records(), saved_by=table.seat, status=table.status)


def timed_audit(data: bytes) -> tuple[float, int, AuditReport]:
    """(seconds, group operations, report) of auditing a transcript."""
    cgroup.OPS.reset()
    t = time.perf_counter()
    report = audit_bytes(data)
    elapsed = time.perf_counter() - t
    return elapsed, cgroup.OPS.count, report


def keep_invalid(transcripts: Iterable[bytes]) -> Path:
    """Save transcripts that failed their audit where they outlive the run, for inspection."""
    keep = Path(tempfile.mkdtemp(prefix="p2pcards-bench-invalid-"))
    for seat, data in enumerate(transcripts):
        (keep / f"t{seat}.p2pt").write_bytes(data)
    return keep


def invalid_row(area: str, report: AuditReport, transcripts: Iterable[bytes]) -> Row:
    problem = report.problems[0].what if report.problems else "?"
    return Row(
        area=area,
        measure="audit of the transcript",
        value="INVALID",
        notes=f"{problem} (kept in {keep_invalid(transcripts)})",
    )


@group("protocol", "whole matches in memory (every seat's table in one process): time, crypto, audit")
def protocol_rows(quick: bool) -> list[Row]:
    runs = 1 if quick else 3
    op_us = op_cost_us(200, random.Random(11))
    main_runs = sorted(
        (run_local_match(4, NinesRules(target=100), seed=1) for _ in range(runs)), key=lambda r: r.elapsed
    )
    run = main_runs[len(main_runs) // 2]
    n, hands = 4, run.hands
    per = n * hands
    floors = [floor_ops(t) for t in run.tables.values()]
    floor = sum(f.total for f in floors) / per
    floor_passes = sum(f.passes for f in floors) / per
    floor_opened = sum(f.opened for f in floors) / per
    actual = run.ops / per
    crypto_ms = 1000 * (run.clock.mul + run.clock.check) / per
    floor_ms = floor * op_us / 1000
    crypto_share = (run.clock.mul + run.clock.check) / run.elapsed
    kib_node = run.net.bytes_sent / (n - 1) / per / 1024
    rows = [
        Row(
            area="protocol",
            measure="4 players, match to 100, in memory",
            value=f"{run.elapsed:.2f} s",
            notes=f"{hands} hands, all 4 nodes in one process on one core, random bots, seed 1"
            + ("" if runs == 1 else f"; median of {runs} runs"),
        ),
        Row(
            area="protocol",
            measure="group operations per node per hand",
            value=f"{actual:.1f}",
            notes=f"{run.ops} ops (group.OPS) / {n} nodes / {hands} hands",
        ),
        Row(
            area="protocol",
            measure="floor of group operations per node per hand",
            value=f"{floor:.1f}",
            notes=f"passes {floor_passes:.1f} (own 2 + 2 per other seat, x deck size, per round) "
            f"+ cards opened {floor_opened:.1f}",
        ),
        Row(
            area="protocol",
            measure="actual / floor, group operations",
            value=f"{actual / floor:.2f}x",
            notes="target: within 2x",
        ),
        Row(
            area="protocol",
            measure="crypto time per node per hand",
            value=f"{crypto_ms:.1f} ms",
            notes=f"multiplications {1000 * run.clock.mul / per:.1f} ms + element checks "
            f"{1000 * run.clock.check / per:.1f} ms; {100 * crypto_share:.0f}% of the match time "
            "(the 4 nodes share one point cache here)",
        ),
        Row(
            area="protocol",
            measure="actual / floor, crypto time",
            value=f"{crypto_ms / floor_ms:.2f}x",
            notes=f"floor {floor:.1f} ops x {op_us:.1f} µs (one fresh group.mul) = {floor_ms:.1f} ms",
        ),
        Row(
            area="protocol",
            measure="frames authored per node per hand",
            value=f"{run.net.frames / (n - 1) / per:.1f}",
            notes=f"{kib_node:.1f} KiB of frames, each sent to {n - 1} peers "
            f"({run.net.bytes_sent / hands / 1024:.1f} KiB per hand on all links together)",
        ),
    ]
    data = transcript_of(run.tables[0])
    records = len(run.tables[0].transcript.records())
    audit_s, audit_ops, report = timed_audit(data)
    if not report.valid:
        return [*rows, invalid_row("protocol", report, [transcript_of(t) for t in run.tables.values()])]
    rows += [
        Row(
            area="protocol",
            measure="audit of that match's transcript",
            value=f"{audit_s:.2f} s",
            notes=f"audit_bytes: {records} records, {audit_ops} group ops ({audit_ops / hands:.0f} per hand)",
        ),
        Row(
            area="protocol",
            measure="transcript bytes per hand",
            value=f"{len(data) / hands / 1024:.1f} KiB",
            notes=f"{len(data):,} bytes for {hands} hands",
        ),
        Row(
            area="protocol",
            measure="transcript records per hand",
            value=f"{records / hands:.1f}",
            notes=f"{records} records",
        ),
    ]
    seeds = (1,) if quick else (1, 2, 3)
    cases: list[tuple[int, NinesRules, str]] = [(p, NinesRules(target=50), "") for p in range(2, 7)]
    cases.append((6, NinesRules(target=50, double_nines=True), ", double-nines (104 cards)"))
    for players, rules, label in cases:
        elapsed = ops = hands = 0.0
        for seed in seeds:
            r = run_local_match(players, rules, seed)
            elapsed, ops, hands = elapsed + r.elapsed, ops + r.ops, hands + r.hands
        rows.append(
            Row(
                area="protocol",
                measure=f"{players} players{label}, match to 50: time per hand",
                value=f"{1000 * elapsed / hands:.0f} ms",
                notes=f"{hands:.0f} hands in {len(seeds)} match{'es' if len(seeds) > 1 else ''}, "
                f"{elapsed:.2f} s; {ops / players / hands:.0f} group ops per node per hand",
            )
        )
    return rows


