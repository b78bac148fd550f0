"""Benchmarks: print one table of measured numbers (they never assert anything).

Run: ``.venv/bin/python scripts/bench.py [--quick] [--only GROUP]...``

Each group is a function ``(quick) -> list[Row]`` registered with
:func:`group`; to add numbers, write another such function (here or in a
module imported here). ``--only`` runs the named groups, ``--quick`` makes every
group small enough for a smoke run (its numbers are then rough).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import hashlib
import itertools
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

import trio
import trio.testing

from p2pcards.bots import make_bot
from p2pcards.bots.random_bot import RandomBot
from p2pcards.crypto import group as cgroup
from p2pcards.crypto import poker
from p2pcards.crypto.encoding import encode_deck
from p2pcards.crypto.identity import Identity
from p2pcards.crypto.pake import Pake, Side
from p2pcards.games.base import game
from p2pcards.games.neuf import rules as neuf
from p2pcards.games.neuf.adapter import NeufTable
from p2pcards.games.neuf.rules import NeufRules
from p2pcards.games.nines import rules as nines
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import NinesRules
from p2pcards.protocol.audit import AuditReport, audit_bytes
from p2pcards.protocol.loopback import LocalNetwork, play_bots
from p2pcards.protocol.messages import Keys, Lock, Player, Reveal
from p2pcards.protocol.table import TableCore
from p2pcards.protocol.transcript import decode_file, encode_file
from p2pcards.protocol.wire import parse_record
from p2pcards.sim import simulate


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    area: str
    measure: str
    value: str
    notes: str = ""


GroupFn = Callable[[bool], list[Row]]
GROUPS: dict[str, tuple[str, GroupFn]] = {}
"""Group name -> (one-line description, row-producing function), in run order."""


def group(name: str, description: str) -> Callable[[GroupFn], GroupFn]:
    """Register a row-producing function under ``name`` (selectable with ``--only``)."""

    def register(fn: GroupFn) -> GroupFn:
        if name in GROUPS:
            raise ValueError(f"benchmark group {name!r} registered twice")
        GROUPS[name] = (description, fn)
        return fn

    return register


ALL_VARIANTS = NinesRules.parse(
    [
        "draw-until-playable",
        "action-cards",
        "double-nines",
        "stacking-nines",
        "hard-nines",
        "no-nine-out",
        "tie=playoff",
    ]
)


# ---------------------------------------------------------------------------
# Groups


@group("engine", "rules-engine throughput: random bots, one process, hands per second")
def engine_rows(quick: bool) -> list[Row]:
    games = 20 if quick else 300
    rows = []
    for players in range(2, 7):
        r = simulate(players, games, ["random"], seed=1)
        rows.append(
            Row(
                area="engine",
                measure=f"{players} players, random bots, default rules",
                value=f"{r.hands_per_second:,.0f} hands/s",
                notes=f"{r.hands_played} hands in {r.elapsed:.2f} s, one core",
            )
        )
    r = simulate(4, games, ["random"], seed=1, rules=ALL_VARIANTS)
    rows.append(
        Row(
            area="engine",
            measure="4 players, random bots, every variant on",
            value=f"{r.hands_per_second:,.0f} hands/s",
            notes=f"{r.hands_played} hands in {r.elapsed:.2f} s, one core",
        )
    )
    for exchange in ("open", "blind"):
        r = simulate(
            3,
            games,
            ["random"],
            seed=1,
            game="neuf",
            rules=game("neuf").parse_rules([f"exchange={exchange}"]),
        )
        rows.append(
            Row(
                area="engine",
                measure=f"Le Neuf, 3 players, random bots, {exchange} exchanges",
                value=f"{r.hands_per_second:,.0f} hands/s",
                notes=f"{r.hands_played} hands in {r.elapsed:.2f} s, one core",
            )
        )
    return rows


def _spiel_hands(pyspiel: Any, players: int, hands: int, seed: int) -> float:
    """CPU seconds for ``hands`` games of OpenSpiel's ``crazy_eights`` (default parameters),
    random play: every chance outcome and every move drawn uniformly, as the Nines bots do."""
    spiel_game = pyspiel.load_game("crazy_eights", {"players": players})
    rng = random.Random(seed)
    start = time.process_time()
    for _ in range(hands):
        state = spiel_game.new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                outcomes = state.chance_outcomes()  # uniform in this game: the deal and the draws
                state.apply_action(outcomes[rng.randrange(len(outcomes))][0])
            else:
                legal = state.legal_actions()
                state.apply_action(legal[rng.randrange(len(legal))])
    return time.process_time() - start


@group("openspiel", "Nines beside OpenSpiel's crazy_eights (if pyspiel imports): random play, hands/s")
def openspiel_rows(quick: bool) -> list[Row]:
    try:
        import pyspiel  # type: ignore[import-not-found]
    except ImportError:
        return [
            Row(
                area="openspiel",
                measure="Nines beside OpenSpiel crazy_eights",
                value="skipped",
                notes="pyspiel does not import here: `pip install open_spiel` into the environment that runs "
                "this script (it is no dependency of p2pcards)",
            )
        ]
    runs, games = (3, 10) if quick else (15, 20)
    rows = []
    for players in (2, 4, 6):
        nines_s = spiel_s = 0.0
        hands = 0
        for run in range(runs):  # alternating runs: a busy machine slows both sides alike
            start = time.process_time()
            r = simulate(players, games, ["random"], seed=run)
            nines_s += time.process_time() - start
            spiel_s += _spiel_hands(pyspiel, players, r.hands_played, run)
            hands += r.hands_played
        rows.append(
            Row(
                area="openspiel",
                measure=f"{players} players: Nines hands/s over crazy_eights hands/s",
                value=f"{spiel_s / nines_s:.2f}x",
                notes=f"Nines {hands / nines_s:,.0f}, crazy_eights {hands / spiel_s:,.0f} hands/s; "
                f"{hands} hands each in {runs} alternating runs, random play, CPU time, one core",
            )
        )
    return rows


@group("bots", "heuristic vs random: 4-player matches to 100, 1 heuristic + 3 random seats")
def bot_rows(quick: bool) -> list[Row]:
    games = 200 if quick else 2000
    r = simulate(4, games, ["heuristic", "random", "random", "random"], seed=2024)
    h, rnd = r.stats("heuristic"), r.stats("random")
    rows = []
    for s in (h, rnd):
        low, high = s.win_interval
        rows.append(
            Row(
                area="bots",
                measure=f"{s.name} win rate per seat",
                value=f"{100 * s.win_rate:.1f}%",
                notes=f"95% CI {100 * low:.1f}-{100 * high:.1f}%, {s.seats} seats in {games} matches "
                "(baseline 25%, shared wins count 1/k)",
            )
        )
    for s in (h, rnd):
        rows.append(
            Row(
                area="bots",
                measure=f"{s.name} mean penalty per hand",
                value=f"{s.mean_penalty:.2f}",
                notes=f"over {s.hands} seat-hands; went out {s.outs} times",
            )
        )
    rows.append(
        Row(
            area="bots",
            measure="match length, 1 heuristic + 3 random",
            value=f"{r.hands_per_match:.2f} hands/match",
            notes=f"{r.matches_per_second:,.1f} matches/s, {r.hands_per_second:,.0f} hands/s",
        )
    )
    return rows


class TimedBot:
    """A strategy that times each decision with a choice (a forced move costs nothing)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.name = inner.name
        self.times: list[float] = []
        """Wall-clock seconds of each decision with a choice."""
        self.cpu: list[float] = []
        """Processor seconds of the same decisions (what the expert's budget counts)."""

    def choose(self, view: Any, legal: Any, rng: random.Random) -> Any:
        start, cpu = time.perf_counter(), time.thread_time()
        action = self.inner.choose(view, legal, rng)
        if len(legal) > 1:
            self.times.append(time.perf_counter() - start)
            self.cpu.append(time.thread_time() - cpu)
        return action


@group("expert", "expert vs heuristic: 1 expert (0.05 s a move) + 3 heuristic in Nines, + 2 in Le Neuf "
       "(--quick: one-hand matches)")
def expert_rows(quick: bool) -> list[Row]:
    rows = []
    cases = (
        ("nines", 4, NinesRules(hands=1) if quick else NinesRules(), 4 if quick else 100),
        ("neuf", 3, NeufRules(start=1 if quick else 9), 3 if quick else 30),
    )
    for game_name, players, rules, games in cases:
        bot = TimedBot(make_bot("expert:0.05", game_name))
        names: list[Any] = [bot] + ["heuristic"] * (players - 1)
        r = simulate(players, games, names, seed=2024, rules=rules, game=game_name)
        s = r.stats(bot.name)
        low, high = s.win_interval
        title = game(game_name).title
        rows.append(
            Row(
                area="expert",
                measure=f"{title}: expert:0.05 win rate, 1 of {players}",
                value=f"{100 * s.win_rate:.1f}%",
                notes=f"95% CI {100 * low:.1f}-{100 * high:.1f}%, {games} matches "
                f"(baseline {100 / players:.1f}%; README has the long runs)",
            )
        )
        times = sorted(bot.times)
        rows.append(
            Row(
                area="expert",
                measure=f"{title}: expert:0.05 time per searched decision",
                value=f"{1000 * sum(bot.cpu) / len(bot.cpu):.1f} ms CPU mean",
                notes=f"wall clock {1000 * sum(times) / len(times):.1f} ms mean, "
                f"{1000 * times[-1]:.1f} ms max, over {len(times)} decisions; "
                f"{r.elapsed / games:.1f} s per match",
            )
        )
    return rows


# ---------------------------------------------------------------------------
# Crypto: group operations and whole-deck passes


def _scalar(rng: random.Random) -> int:
    return rng.randrange(1, cgroup.ORDER)


def _fresh_elements(count: int, rng: random.Random) -> list[bytes]:
    """Elements nobody has decoded yet, so each first use pays for decoding, as on receipt."""
    cards = encode_deck(range(52))
    return [cgroup.mul(_scalar(rng), cards[i % 52]) for i in range(count)]


def _median_us(samples: list[float]) -> float:
    return 1e6 * statistics.median(samples)


def op_cost_us(samples: int, rng: random.Random) -> float:
    """Median time of one ``group.mul`` (fresh scalar, fresh element), in microseconds."""
    times = []
    for x in _fresh_elements(samples, rng):
        k = _scalar(rng)
        t = time.perf_counter()
        cgroup.mul(k, x)
        times.append(time.perf_counter() - t)
    return _median_us(times)


@dataclass(frozen=True, slots=True)
class PassCost:
    shuffle_s: float
    lock_s: float
    ops: int

    @property
    def total_s(self) -> float:
        return self.shuffle_s + self.lock_s


def deck_passes(players: int, size: int, repeats: int) -> PassCost:
    """Every seat's shuffle pass, then every seat's lock pass, over a ``size``-card deck: the
    pass work one node does per hand (its own two passes plus replaying everyone else's).
    The fastest of ``repeats`` runs, each with new secrets so no decoded point is reused."""
    best: PassCost | None = None
    for rep in range(repeats):
        secrets = [
            hashlib.sha256(f"bench/{players}/{size}/{rep}/{s}".encode()).digest() for s in range(players)
        ]
        cgroup.OPS.reset()
        deck = encode_deck(range(size))
        t0 = time.perf_counter()
        for secret in secrets:
            deck = poker.shuffle_pass(secret, 0, deck)
        t1 = time.perf_counter()
        for secret in secrets:
            deck = poker.lock_pass(secret, 0, deck)
        t2 = time.perf_counter()
        cost = PassCost(shuffle_s=t1 - t0, lock_s=t2 - t1, ops=cgroup.OPS.count)
        if best is None or cost.total_s < best.total_s:
            best = cost
    assert best is not None
    return best


def _spake2_row(samples: int) -> Row:
    """What proving the invitation code costs one side: start plus finish of SPAKE2."""
    other = Pake.start(Side.HOST, "7-amber-lantern", os.urandom(64)).message
    times = []
    for _ in range(samples):
        t = time.perf_counter()
        Pake.start(Side.JOINER, "7-amber-lantern", os.urandom(64)).finish(other)
        times.append(time.perf_counter() - t)
    return Row(
        area="crypto",
        measure="SPAKE2, one side of a join (start + finish)",
        value=f"{statistics.median(times) * 1000:.1f} ms",
        notes=f"median of {samples}; the spake2 package, pure Python; once per connection at each end",
    )


@group("crypto", "group operation cost; shuffle + lock of a whole deck, per player count")
def crypto_rows(quick: bool) -> list[Row]:
    rng = random.Random(7)
    samples = 200 if quick else 2000
    repeats = 1 if quick else 3
    rows = []
    op_us = op_cost_us(samples, rng)
    rows.append(
        Row(
            area="crypto",
            measure="one group operation (group.mul)",
            value=f"{op_us:.1f} µs",
            notes=f"median of {samples}, fresh scalar and element each (decoding and key setup included)",
        )
    )
    fresh = _fresh_elements(samples, rng)
    times = []
    for x in fresh:
        t = time.perf_counter()
        cgroup.check_element(x)
        times.append(time.perf_counter() - t)
    rows.append(
        Row(
            area="crypto",
            measure="element check of a received point",
            value=f"{_median_us(times):.1f} µs",
            notes=f"median of {samples} fresh points; not a group operation (decoded once, then cached)",
        )
    )
    xs = _fresh_elements(52, rng)
    cgroup.OPS.reset()
    t = time.perf_counter()
    cgroup.mul_many(_scalar(rng), xs)
    rows.append(
        Row(
            area="crypto",
            measure="group operation inside mul_many (one scalar)",
            value=f"{1e6 * (time.perf_counter() - t) / cgroup.OPS.count:.1f} µs",
            notes="52 fresh elements under one key, as in a shuffle pass",
        )
    )
    rows.append(_spake2_row(20 if quick else 200))
    cases = [(p, 52) for p in range(2, 7)] + [(p, 104) for p in (5, 6)]
    for players, size in cases:
        c = deck_passes(players, size, repeats)
        rows.append(
            Row(
                area="crypto",
                measure=f"{players} players, {size} cards: every shuffle + lock pass",
                value=f"{1000 * c.total_s:.0f} ms",
                notes=f"{c.ops} group ops ({1e6 * c.total_s / c.ops:.1f} µs each); shuffles "
                f"{1000 * c.shuffle_s:.0f} ms, locks {1000 * c.lock_s:.0f} ms"
                + ("" if repeats == 1 else f"; best of {repeats}"),
            )
        )
    return rows


# ---------------------------------------------------------------------------
# Protocol: whole matches in one process (every seat's table, in-memory links)


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


# ---------------------------------------------------------------------------
# Le Neuf on the protocol: whole matches in one process, bots at every seat


@dataclass(frozen=True, slots=True)
class NeufFloor:
    """The fewest group operations one node of a Le Neuf match needs, by what they are for."""

    passes: int
    """Its own shuffle and lock passes, and replaying every other seat's two at the reveal."""
    dealt: int
    """Opening each card dealt to it."""
    plays: int
    """Opening each card another seat plays (its own plays are cards it has opened already)."""
    looks: int
    """Opening the dummy's positions when they are opened to it (a look, or a take unseen)."""
    layers: int
    """Every relock and unlock pass: made if its own, else verified at the reveal."""

    @property
    def total(self) -> int:
        return self.passes + self.dealt + self.plays + self.looks + self.layers


def neuf_floor(table: Any) -> NeufFloor:
    """Per hand, for the node of ``table`` (a NeufTable after its match):

    * passes: ``2·n·52`` - its own shuffle and lock pass (52 operations each) and, at the
      reveal, the replay of each other seat's shuffle and lock pass (52 each);
    * dealt: one per card dealt to it (13), opened with its own key;
    * plays: one per card another seat plays (26), opened with the key shown; its own plays
      need none, it opened those cards when it was dealt them or saw them in the dummy;
    * looks: one per dummy position (13) each time the dummy is opened to it - it looked, or
      it took the dummy unseen; keys the others publish (``open-keys``) cost nothing;
    * layers: one per position per pass of every relock layer (the opener's relock, then one
      unlock per seat with a pending lock): each node either makes a pass or replays it at
      the reveal, never both.

    Publishing, checking or deriving keys and checking received points are no group
    operations; the reveal's deck orders come from the permutations alone."""
    assert table.match is not None and table.seat is not None
    seat, n = table.seat, table.n
    passes = dealt = plays = looks = layers = 0
    for crypto, hand in zip(table.hands_crypto, table.match.history, strict=True):
        passes += sum(2 * n * rd.size for rd in crypto.rounds)
        dealt += len(hand.dealt[seat])
        plays += sum(1 for t in hand.tricks for s, _ in t.plays if s != seat)
        looks += sum(len(hand.dummy) for ex in hand.exchanges if ex.seat == seat and (ex.looked or ex.took))
        layers += sum(len(lay.positions) * (1 + len(lay.unlockers)) for lay in crypto.ledger.layers)
    return NeufFloor(passes=passes, dealt=dealt, plays=plays, looks=looks, layers=layers)


def own_plays_of(table: Any) -> int:
    """The cards the node of ``table`` played in its match."""
    return sum(1 for hand in table.match.history for t in hand.tricks for s, _ in t.plays if s == table.seat)


def plural(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


@dataclass(frozen=True, slots=True)
class NeufSteps:
    """What the exchanges did over a run's hands, counted from one node's transcript."""

    looks: int
    takes: int
    declines: int
    open_keys: int
    """``open-keys`` steps (the other seats publish their keys of the dummy)."""
    open_keys_records: int
    relocks: int
    unlocks: int


def neuf_steps(matches: Iterable[tuple[Iterable[Any], int]]) -> NeufSteps:
    """Count exchange moves and opening steps in the signed records of matches, given
    as (records, hands) (in each hand, the deal is the one ``Keys`` step that is no
    ``open-keys`` step)."""
    kinds: dict[str, int] = {}
    open_keys = 0
    hands = 0
    for records, match_hands in matches:
        key_steps: set[int] = set()
        for rec in records:
            body = rec.record.body
            kinds[type(body).__name__] = kinds.get(type(body).__name__, 0) + 1
            if isinstance(body, Keys):
                key_steps.add(rec.record.step)
        open_keys += len(key_steps) - match_hands
        hands += match_hands
    return NeufSteps(
        looks=kinds.get("LookAtPile", 0),
        takes=kinds.get("TakePile", 0),
        declines=kinds.get("LeavePile", 0),
        open_keys=open_keys,
        open_keys_records=kinds.get("Keys", 0) - neuf.PLAYERS * hands,
        relocks=kinds.get("Relock", 0),
        unlocks=kinds.get("Unlock", 0),
    )


@dataclass(slots=True)
class NeufRuns:
    """Matches of Le Neuf with one bot line-up, played one after the other (seeds 1, 2...)."""

    runs: list[MatchRun]

    @property
    def hands(self) -> int:
        return sum(r.hands for r in self.runs)

    @property
    def elapsed(self) -> float:
        return sum(r.elapsed for r in self.runs)


def run_neuf_matches(bot: str, min_hands: int, rules: NeufRules) -> NeufRuns:
    """Whole matches with ``bot`` at all three seats, until at least ``min_hands`` hands."""
    runs: list[MatchRun] = []
    seed = 0
    while sum(r.hands for r in runs) < min_hands:
        seed += 1
        bots = {s: make_bot(bot, "neuf") for s in range(neuf.PLAYERS)}
        runs.append(run_local_match(neuf.PLAYERS, rules, seed, table_cls=NeufTable, bots=bots))
    return NeufRuns(runs)


@group("neuf", "Le Neuf in memory (3 nodes, one process), random and heuristic bots: ops vs floor, audit")
def neuf_rows(quick: bool) -> list[Row]:
    min_hands = 6 if quick else 40
    rules = NeufRules()
    n = neuf.PLAYERS
    rows: list[Row] = []
    for bot in ("random", "heuristic"):
        area = "neuf"
        who = f"3 {bot} bots"
        runs = run_neuf_matches(bot, min_hands, rules)
        hands, elapsed = runs.hands, runs.elapsed
        per = n * hands
        ops = sum(r.ops for r in runs.runs)
        crypto_s = sum(r.clock.mul + r.clock.check for r in runs.runs)
        floors = [neuf_floor(t) for r in runs.runs for t in r.tables.values()]
        floor = sum(f.total for f in floors) / per
        actual = ops / per
        own_plays = sum(own_plays_of(t) for r in runs.runs for t in r.tables.values()) / per
        byte_sum = sum(r.net.bytes_sent for r in runs.runs)
        frames = sum(r.net.frames for r in runs.runs)
        records = [r.tables[0].transcript.records() for r in runs.runs]
        openings = sum(
            1
            for r in runs.runs
            for hand in r.tables[0].match.history
            for ex in hand.exchanges
            if ex.looked or ex.took
        )
        steps = neuf_steps(zip(records, (r.hands for r in runs.runs), strict=True))
        matches = len(runs.runs)
        seeds = "seed 1" if matches == 1 else f"seeds 1-{matches}"

        def mean(attr: str, floors: list[NeufFloor] = floors, per: int = per) -> float:
            return sum(getattr(f, attr) for f in floors) / per

        rows += [
            Row(
                area=area,
                measure=f"{who}: time per hand",
                value=f"{1000 * elapsed / hands:.0f} ms",
                notes=f"{hands} hands in {plural(matches, 'match', 'matches')} ({seeds}), {elapsed:.2f} s; "
                f"all 3 nodes in one process on one core, open exchanges; crypto "
                f"{100 * crypto_s / elapsed:.0f}% of it (the 3 nodes share one point cache)",
            ),
            Row(
                area=area,
                measure=f"{who}: group operations per node per hand",
                value=f"{actual:.1f}",
                notes=f"{ops} ops (group.OPS) / {n} nodes / {hands} hands",
            ),
            Row(
                area=area,
                measure=f"{who}: floor of group operations per node per hand",
                value=f"{floor:.1f}",
                notes=f"passes {mean('passes'):.0f} (own shuffle + lock 2x52, the 2 other seats' 2 each "
                f"verified at the reveal 4x52) + dealt cards {mean('dealt'):.0f} + others' plays "
                f"{mean('plays'):.0f} (its own: opened already) + dummy opened to it {mean('looks'):.1f} "
                f"(13 per look or unseen take) + relock/unlock passes {mean('layers'):.1f} "
                "(13 per pass, made or verified by every node)",
            ),
            Row(
                area=area,
                measure=f"{who}: actual / floor, group operations",
                value=f"{actual / floor:.2f}x",
                notes=f"{actual - floor:+.1f} ops per node per hand over the floor; a node opens each of its "
                f"own plays again ({own_plays:.1f} per hand), which the floor counts as known "
                f"(counting every card played, as the Nines floor does: {actual / (floor + own_plays):.2f}x)",
            ),
            Row(
                area=area,
                measure=f"{who}: frame bytes per hand, all links",
                value=f"{byte_sum / hands / 1024:.1f} KiB",
                notes=f"LocalNetwork.bytes_sent: {frames / hands:.0f} frames per hand "
                f"({byte_sum / per / (n - 1) / 1024:.1f} KiB authored per node, each sent to {n - 1} peers)",
            ),
        ]
        recs = sum(len(r) for r in records)
        data = [transcript_of(r.tables[0]) for r in runs.runs]
        audit_s = 0.0
        audit_ops = 0
        bad: tuple[AuditReport, MatchRun] | None = None
        for blob, run in zip(data, runs.runs, strict=True):
            s, o, report = timed_audit(blob)
            audit_s, audit_ops = audit_s + s, audit_ops + o
            if not report.valid and bad is None:
                bad = (report, run)
        rows.append(
            Row(
                area=area,
                measure=f"{who}: transcript records per hand",
                value=f"{recs / hands:.1f}",
                notes=f"{recs} records in seat 0's transcripts; "
                f"{sum(len(d) for d in data) / hands / 1024:.1f} KiB of transcript file per hand",
            )
        )
        if bad is not None:
            report, run = bad
            rows.append(invalid_row(area, report, [transcript_of(t) for t in run.tables.values()]))
        else:
            rows.append(
                Row(
                    area=area,
                    measure=f"{who}: audit time per hand",
                    value=f"{1000 * audit_s / hands:.0f} ms",
                    notes=f"audit_bytes of seat 0's transcript of each match, {audit_s:.2f} s in all "
                    f"(valid); {audit_ops / hands:.0f} group ops per hand",
                )
            )
        rows.append(
            Row(
                area=area,
                measure=f"{who}: looks / relocks / unlocks per hand",
                value=" / ".join(f"{x / hands:.2f}" for x in (steps.looks, steps.relocks, steps.unlocks)),
                notes=f"3 exchange turns: takes {steps.takes / hands:.2f}, declines "
                f"{steps.declines / hands:.2f}; open-keys steps {steps.open_keys / hands:.2f} "
                f"({steps.open_keys_records / max(steps.open_keys, 1):.1f} Keys records each); the dummy "
                f"was opened {openings / hands:.2f} times (a look or an unseen take), each by open-keys "
                "or by a relock and its unlocks",
            )
        )
    return rows


# ---------------------------------------------------------------------------
# Latency: a hand is a chain of steps, each one network trip after the last


MATCH_STEPS = ("join", "cut-commit", "cut-reveal", "result")
"""Step kinds played once per match, not per hand."""
HAND_STEPS = (
    "commit",
    "shuffle",
    "lock",
    "deal",
    "exchange",
    "open-keys",
    "relock",
    "unlock",
    "turn",
    "draw-keys",
    "reveal",
)
"""Step kinds of a hand (of either game), in the order they are listed."""
DELAYS = (0.1, 0.3)
"""One-way delays projected and emulated, in seconds."""


@dataclass(frozen=True, slots=True)
class Step:
    kind: str
    authors: tuple[int, ...]


def transcript_steps(table: TableCore) -> list[Step]:
    """Every step of ``table``'s transcript with its kind and authors, replayed by an
    observer table (no seat) record by record."""
    observer = type(table)(game_id=table.game_id, roster=table.roster, rules=table.rules, seat=None)
    steps = []
    for records in table.transcript.steps:
        kind = observer.spec.kind
        for rec in records:
            observer.receive_record(rec)
        steps.append(Step(kind, tuple(rec.record.seat for rec in records)))
    return steps


def trips_done(steps: list[Step], n: int) -> list[int]:
    """For each step, the one-way trips until the last seat has it complete, with every
    trip as long and no CPU time: a seat writes its record of a step as soon as the step
    before is complete at that seat, and a record reaches each other seat one trip later
    (its author has it at once). So a seat that writes two steps in a row (a Le Neuf trick
    won by its last card, then the lead) costs no trip: this is the critical path, at most
    one trip per step."""
    done = [0] * n
    out = []
    for step in steps:
        done = [max(done[a] + (a != j) for a in step.authors) for j in range(n)]
        out.append(max(done))
    return out


def hand_span(steps: list[Step], trips: list[int]) -> tuple[int, int]:
    """(steps, trips) of the hands of a match: from the step after the cut's reveal through
    the last ``reveal`` (the hands follow one another with nothing in between)."""
    kinds = [s.kind for s in steps]
    first = kinds.index("cut-reveal") + 1
    last = len(kinds) - 1 - kinds[::-1].index("reveal")
    return last - first + 1, trips[last] - trips[first - 1]


@dataclass(slots=True)
class StepCounts:
    """Steps of every kind over some matches, with the CPU time they took."""

    players: int
    kinds: Counter[str] = field(default_factory=Counter)
    hands: int = 0
    matches: int = 0
    hand_steps: int = 0
    hand_trips: int = 0
    elapsed: float = 0.0

    def add(self, run: MatchRun) -> None:
        steps = transcript_steps(run.tables[0])
        span, trips = hand_span(steps, trips_done(steps, self.players))
        self.kinds.update(s.kind for s in steps)
        self.hands += run.hands
        self.matches += 1
        self.hand_steps += span
        self.hand_trips += trips
        self.elapsed += run.elapsed

    def per_hand(self, kind: str) -> float:
        return self.kinds[kind] / self.hands


def count_steps(players: int, rules: Any, seeds: Iterable[int], game_name: str) -> StepCounts:
    """Random-bot matches in memory, one per seed, their steps counted from seat 0's transcript."""
    counts = StepCounts(players)
    table_cls: type[TableCore] = NeufTable if game_name == "neuf" else Table
    for seed in seeds:
        bots = {s: make_bot("random", game_name) for s in range(players)}
        counts.add(run_local_match(players, rules, seed, table_cls=table_cls, bots=bots))
    if counts.hand_steps != sum(counts.kinds[k] for k in HAND_STEPS):
        raise RuntimeError(f"steps of unknown kinds: {counts.kinds}")
    return counts


class DelayedStream(trio.abc.HalfCloseableStream):
    """Delivers every chunk sent ``delay`` seconds after it was sent, in order (one
    direction of a link with a constant one-way delay); receiving is unchanged.

    ``send_all`` only queues the chunk, so a seat sending to several peers reaches
    them all after one delay; :meth:`pump` (a background task) delivers the queue."""

    def __init__(self, inner: trio.abc.Stream, delay: float) -> None:
        self.inner = inner
        self.delay = delay
        self._queue, self._due = trio.open_memory_channel[tuple[float, bytes]](math.inf)

    async def pump(self) -> None:
        async for due, data in self._due:
            await trio.sleep_until(due)
            try:
                await self.inner.send_all(data)
            except (trio.ClosedResourceError, trio.BrokenResourceError):
                return  # the other end hung up: what was in flight is lost, as on a real link
        with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
            await self.inner.aclose()  # closed after what was sent before it, as TCP's FIN

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        self._queue.send_nowait((trio.current_time() + self.delay, bytes(data)))
        await trio.lowlevel.checkpoint()

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self.inner.receive_some(max_bytes)

    async def send_eof(self) -> None:
        await trio.lowlevel.checkpoint()

    async def aclose(self) -> None:
        self._queue.close()  # the pump delivers what is queued, then closes the stream
        await trio.lowlevel.checkpoint()


def delayed_links(players: int, delay: float) -> tuple[list[DelayedStream], dict[int, dict[int, Any]]]:
    """A full mesh of in-memory links delaying every frame by ``delay``: the streams (each
    needs its :meth:`DelayedStream.pump` running) and every seat's links by peer."""
    from p2pcards.net.link import Link

    streams: list[DelayedStream] = []
    links: dict[int, dict[int, Any]] = {s: {} for s in range(players)}
    for a in range(players):
        for b in range(a + 1, players):
            end_a, end_b = trio.testing.memory_stream_pair()
            for me, peer, end in ((a, b, end_a), (b, a, end_b)):
                stream = DelayedStream(end, delay)
                streams.append(stream)
                links[me][peer] = Link(stream, peer=f"seat {peer}")
    return streams, links


async def run_seats(streams: list[DelayedStream], seats: list[Callable[[], Any]]) -> None:
    """Run every seat's task to its end while the delayed links deliver."""
    async with trio.open_nursery() as pumps:
        for stream in streams:
            pumps.start_soon(stream.pump)
        async with trio.open_nursery() as nursery:
            for seat in seats:
                nursery.start_soon(seat)
        pumps.cancel_scope.cancel()


@dataclass(frozen=True, slots=True)
class DelayedRun:
    hand_s: float
    """Virtual seconds from the last seat completing the cut's reveal (the hand's first
    step begins) to the last seat completing the hand's reveal."""
    match_s: float
    """Virtual seconds of the whole match (join, cut and result steps included)."""
    steps: list[Step]
    wall_s: float
    hands_s: tuple[float, ...] = ()
    """Each hand's virtual seconds: from the last seat completing the step before it (the
    cut's reveal, or the last hand's) to the last seat completing its reveal."""
    hand_steps: tuple[int, ...] = ()
    """Each hand's steps, counted the same way (its reveal included, the one before not)."""


async def _delayed_match(
    players: int, rules: Any, table_cls: type[TableCore], delay: float, seed: int
) -> DelayedRun:
    """Every seat runs ``run_table`` over in-memory links that delay each frame by ``delay``."""
    from p2pcards.net.runner import run_table
    from p2pcards.net.session import Timeouts

    tables = make_tables(players, rules, seed, table_cls)
    streams, links = delayed_links(players, delay)
    entered: dict[int, list[tuple[int, float]]] = {s: [] for s in tables}
    game_name = table_cls.GAME
    start = trio.current_time()

    def seat_task(s: int) -> Callable[[], Any]:
        bot, rng = make_bot("random", game_name), random.Random(1000 * seed + s)

        async def decide(table: Any) -> Any:
            return bot.choose(table.view(), table.legal_actions(), rng)

        def progress(table: Any) -> None:
            if not entered[s] or entered[s][-1][0] != table.step:
                entered[s].append((table.step, trio.current_time() - start))

        async def run() -> None:
            table: Any = tables[s]
            result = await run_table(table, links[s], decide, timeouts=Timeouts(), on_progress=progress)
            if result.status != "over":
                raise RuntimeError(f"seat {s} ended {result.status}: {result.problem}")

        return run

    real_start = time.perf_counter()
    await run_seats(streams, [seat_task(s) for s in tables])
    match_s = trio.current_time() - start

    steps = transcript_steps(tables[0])
    kinds = [st.kind for st in steps]
    first, after = kinds.index("cut-reveal") + 1, len(kinds) - 1 - kinds[::-1].index("reveal") + 1

    def last_seat_at(step: int) -> float:
        return max(next(t for k, t in entered[s] if k >= step) for s in tables)

    ends = [i + 1 for i, k in enumerate(kinds) if k in ("cut-reveal", "reveal")]
    return DelayedRun(
        hand_s=last_seat_at(after) - last_seat_at(first),
        match_s=match_s,
        steps=steps,
        wall_s=time.perf_counter() - real_start,
        hands_s=tuple(last_seat_at(b) - last_seat_at(a) for a, b in itertools.pairwise(ends)),
        hand_steps=tuple(b - a for a, b in itertools.pairwise(ends)),
    )


def without_ahead(table_cls: type[TableCore]) -> type[TableCore]:
    """``table_cls`` as nodes played before a hand's round 0 was shuffled and locked while
    the hand before it was played: every hand shuffles and locks in steps of its own."""

    class WithoutAhead(table_cls):  # type: ignore[valid-type,misc]
        AHEAD_STEPS = ()

    return WithoutAhead


LATENCY_JSON: list[dict[str, Any]] = []
"""The latency group's rows for ``--json``: one per game and table size."""


def run_delayed(players: int, rules: Any, table_cls: type[TableCore], delay: float, seed: int) -> DelayedRun:
    """:func:`_delayed_match` in virtual time: delays cost no real time, CPU costs no virtual time."""
    clock = trio.testing.MockClock(autojump_threshold=0)
    return trio.run(_delayed_match, players, rules, table_cls, delay, seed, clock=clock)


def _ms(seconds: float) -> str:
    return f"{1000 * seconds:.0f} ms"


@group("latency", "steps per hand (one-way trips in a row), wait at 100 and 300 ms, checked in virtual time")
def latency_rows(quick: bool) -> list[Row]:
    # (label, players, rules, game, seeds, what the matches are)
    nines_rules, nines_seeds = (NinesRules(hands=2), (1,)) if quick else (NinesRules(), (1, 2, 3))
    neuf_rules, neuf_seeds = (NeufRules(start=2), (1,)) if quick else (NeufRules(), (1, 2))
    nines_match = "2-hand matches" if quick else "matches to 100"
    neuf_match = "matches from 2" if quick else "matches from 9"
    cases: list[tuple[str, int, Any, str, tuple[int, ...], str]] = [
        *((f"Nines, {p} players", p, nines_rules, "nines", nines_seeds, nines_match) for p in (2, 4, 6)),
        ("Le Neuf, 3 players", neuf.PLAYERS, neuf_rules, "neuf", neuf_seeds, neuf_match),
    ]
    area = "latency"
    rows: list[Row] = []
    for label, players, rules, game_name, seeds, match in cases:
        c = count_steps(players, rules, seeds, game_name)
        steps = c.hand_steps / c.hands
        trips = c.hand_trips / c.hands
        split = ", ".join(f"{k} {c.per_hand(k):.1f}".removesuffix(".0") for k in HAND_STEPS if c.kinds[k])
        matches = plural(c.matches, "match", "matches")
        cpu = c.elapsed / c.hands
        rows += [
            Row(
                area=area,
                measure=f"{label}: steps per hand",
                value=f"{steps:.1f}",
                notes=f"{split}; {plural(c.hands, 'hand', 'hands')} in {matches} ({match}, random bots, seed"
                f"{'s' if len(seeds) > 1 else ''} {', '.join(map(str, seeds))}); "
                f"plus {len(MATCH_STEPS)} per match ({', '.join(MATCH_STEPS)})",
            ),
            Row(
                area=area,
                measure=f"{label}: projected wait per hand at " + " / ".join(_ms(d) for d in DELAYS),
                value=" / ".join(f"{steps * d:.1f} s" for d in DELAYS),
                notes=f"steps x one-way delay; critical path {trips:.1f} trips per hand "
                f"({' / '.join(f'{trips * d:.1f} s' for d in DELAYS)})"
                + (
                    ": a step costs no trip of its own when its one author had the step before complete "
                    "a trip ahead of the last seat (in Le Neuf: the lead after a trick won by the last card)"
                    if f"{trips:.1f}" != f"{steps:.1f}"
                    else ""
                ),
            ),
            Row(
                area=area,
                measure=f"{label}: CPU per hand",
                value=_ms(cpu),
                notes=f"all {players} nodes in one process on one core ({_ms(cpu / players)} per node); "
                f"the wait at {_ms(DELAYS[0])} is {steps * DELAYS[0] / cpu:.0f}x this",
            ),
        ]
    emulated: list[tuple[str, int, Any, type[TableCore]]] = [
        ("Nines, 2 players", 2, NinesRules(hands=1), Table),
        ("Nines, 4 players", 4, NinesRules(hands=1), Table),
        ("Nines, 6 players", 6, NinesRules(hands=1), Table),
        ("Le Neuf, 3 players", neuf.PLAYERS, NeufRules(start=1), NeufTable),
    ]
    for label, players, rules, table_cls in emulated:
        for delay in DELAYS:
            run = run_delayed(players, rules, table_cls, delay, seed=1)
            steps, trips = hand_span(run.steps, trips_done(run.steps, players))
            rows.append(
                Row(
                    area=area,
                    measure=f"{label}, one hand at {_ms(delay)} one-way: virtual time",
                    value=f"{run.hand_s:.2f} s",
                    notes=f"projected {steps} steps x {_ms(delay)} = {steps * delay:.2f} s, critical path "
                    f"{trips} trips = {trips * delay:.2f} s; whole match {run.match_s:.2f} s "
                    f"({len(run.steps)} steps); run_table per seat over in-memory links delaying every "
                    f"frame, MockClock (CPU takes no virtual time), {run.wall_s:.2f} s of real time",
                )
            )
            if delay != DELAYS[0]:
                continue
            # The same hand (same seed, same moves) by seats that send the commitments, seat 0's
            # first pass and the deal keys in steps of their own, as before: what carrying them saves.
            apart = run_delayed(players, rules, steps_apart(table_cls), delay, seed=1)
            apart_steps, _ = hand_span(apart.steps, trips_done(apart.steps, players))
            saved = apart.hand_s - run.hand_s
            rows.append(
                Row(
                    area=area,
                    measure=f"{label}, the same hand with its commit, first shuffle and deal steps: "
                    "virtual time",
                    value=f"{apart.hand_s:.2f} s",
                    notes=f"{apart_steps} steps; carrying the commitments and seat 0's first pass in the "
                    f"reveal and the deal keys in the locks saves {apart_steps - steps} steps, "
                    f"{saved:.2f} s a hand ({100 * saved / apart.hand_s:.1f}%) and "
                    f"{apart.match_s - run.match_s:.2f} s a match",
                )
            )
    rows += _ahead_rows(quick)
    return rows


def _ahead_rows(quick: bool) -> list[Row]:
    """Hands that follow a hand: their round 0 was shuffled and locked while the hand before
    was played, so they wait only for the players. Each hand from the second on, against
    the same hands (same seed, same moves) played by seats that shuffle every hand in steps
    of its own; fills ``LATENCY_JSON``."""
    area, delay = "latency", DELAYS[0]
    hands = 2 if quick else 4
    cases: list[tuple[str, str, int, Any, type[TableCore]]] = [
        ("Nines", "nines", 2, NinesRules(hands=hands), Table),
        ("Nines", "nines", 4, NinesRules(hands=hands), Table),
        ("Nines", "nines", 6, NinesRules(hands=hands), Table),
        ("Le Neuf", "neuf", neuf.PLAYERS, NeufRules(start=hands), NeufTable),
    ]
    rows: list[Row] = []
    LATENCY_JSON.clear()
    for label, game_name, players, rules, table_cls in cases:
        run = run_delayed(players, rules, table_cls, delay, seed=1)
        before = run_delayed(players, rules, without_ahead(table_cls), delay, seed=1)
        after_first = len(run.hands_s) - 1
        secs = statistics.fmean(run.hands_s[1:])
        secs_before = statistics.fmean(before.hands_s[1:])
        steps = statistics.fmean(run.hand_steps[1:])
        steps_before = statistics.fmean(before.hand_steps[1:])
        rows.append(
            Row(
                area=area,
                measure=f"{label}, {players} players, a hand after a hand at {_ms(delay)}: virtual time",
                value=f"{secs:.2f} s",
                notes=f"mean of hands 2 to {after_first + 1} of a {after_first + 1}-hand match (seed 1), "
                f"{steps:.1f} steps a hand; the same hands shuffled and locked in steps of their own: "
                f"{secs_before:.2f} s, {steps_before:.1f} steps (round 0 made while the hand before "
                f"is played saves {secs_before - secs:.2f} s a hand); the first hand "
                f"{run.hands_s[0]:.2f} s, {run.hand_steps[0]} steps",
            )
        )
        LATENCY_JSON.append(
            {
                "game": game_name,
                "players": players,
                "steps_per_hand": round(steps, 2),
                "seconds_per_hand_at_100ms": round(secs, 3),
                "hands": after_first,
                "first_hand_steps": run.hand_steps[0],
                "first_hand_seconds_at_100ms": round(run.hands_s[0], 3),
                "steps_per_hand_without_ahead": round(steps_before, 2),
                "seconds_per_hand_at_100ms_without_ahead": round(secs_before, 3),
            }
        )
    return rows


@dataclass(frozen=True, slots=True)
class LeaveRun:
    gone_s: float
    """Virtual seconds from the leaver's last record to the remaining seats' judging it gone."""
    continued_s: float
    """From then to the last remaining seat completing the new table's first step."""
    dealt_s: float
    """From then to the last remaining seat reaching the new table's first deal."""
    over: bool
    wall_s: float


async def _leave_match(players: int, delay: float, how: str, grace: float, seed: int) -> LeaveRun:
    """Seat ``players - 1`` leaves mid-match, signed (``how == "signed"``) or by vanishing
    (``"away"``: its links close and it never comes back); the others go on."""
    from p2pcards.net.link import Link, LinkClosed
    from p2pcards.net.runner import run_table
    from p2pcards.net.session import Timeouts
    from p2pcards.protocol.sitting import Sitting

    leaver = players - 1
    tables = {s: Sitting(t) for s, t in make_tables(players, NinesRules(target=200), seed, Table).items()}
    streams, links = delayed_links(players, delay)
    start = trio.current_time()
    marks: dict[str, float] = {}
    reached: dict[int, dict[str, float]] = {s: {} for s in tables if s != leaver}

    class Nowhere:
        async def relink(self, peer: int) -> Link:
            await trio.sleep(1)
            raise LinkClosed("unreachable")

    def seat_task(s: int) -> Callable[[], Any]:
        bot, rng = make_bot("random", "nines"), random.Random(1000 * seed + s)

        async def decide(table: Any) -> Any:
            return bot.choose(table.view(), table.legal_actions(), rng)

        def progress(table: Any) -> None:
            if s == leaver or len(table.tables) < 2:
                return
            now = trio.current_time() - start
            reached[s].setdefault("gone", now)
            if table.current.step >= 1:
                reached[s].setdefault("continued", now)
            if table.current.match is not None and table.current.match.hand is not None:
                reached[s].setdefault("dealt", now)

        def leaving() -> bool:
            if s == leaver and tables[s].current.step >= 30:
                marks.setdefault("left", trio.current_time() - start)
                return how == "signed"
            return False

        async def run() -> None:
            result = await run_table(
                tables[s],  # type: ignore[arg-type]
                links[s],
                decide,
                timeouts=Timeouts(grace=grace),
                on_progress=progress,
                relinker=Nowhere(),  # type: ignore[arg-type]
                grace=grace,
                leaving=leaving,
            )
            if s == leaver:
                for link in links[s].values():
                    await link.aclose()
            elif result.status != "over":
                raise RuntimeError(f"seat {s} ended {result.status}: {result.problem}")

        async def vanish() -> None:  # "away": the seat stops dead at step 30, links cut
            with trio.CancelScope() as scope:
                async with trio.open_nursery() as inner:
                    inner.start_soon(run)
                    while tables[s].current.step < 30:
                        await trio.sleep(0.001)
                    marks.setdefault("left", trio.current_time() - start)
                    scope.cancel()
            for link in links[s].values():
                await link.aclose()

        return vanish if s == leaver and how == "away" else run

    real_start = time.perf_counter()
    await run_seats(streams, [seat_task(s) for s in tables])
    left = marks["left"]

    def last(key: str) -> float:
        return max(r[key] for r in reached.values())

    return LeaveRun(
        gone_s=last("gone") - left,
        continued_s=last("continued") - last("gone"),
        dealt_s=last("dealt") - last("gone"),
        over=all(tables[s].status == "over" for s in reached),
        wall_s=time.perf_counter() - real_start,
    )


@group("leave", "a seat leaves for good: how long the others wait before they deal again, in virtual time")
def leave_rows(quick: bool) -> list[Row]:
    rows: list[Row] = []
    grace = 120.0
    for players in (3,) if quick else (3, 6):
        remaining = players - 1
        trips = 3 + 2 * remaining  # continue, cut-commit, cut-reveal, then n shuffles + n locks
        for how in ("signed", "away"):
            clock = trio.testing.MockClock(autojump_threshold=0)
            run = trio.run(_leave_match, players, DELAYS[0], how, grace, 1, clock=clock)
            what = "signs that it leaves" if how == "signed" else f"vanishes (grace {grace:.0f} s)"
            rows.append(
                Row(
                    area="leave",
                    measure=f"Nines, {players} players, one {what}: judged gone / first step / deal again",
                    value=f"{run.gone_s:.2f} s / {run.continued_s:.2f} s / {run.dealt_s:.2f} s",
                    notes=f"at {_ms(DELAYS[0])} one-way; the {remaining} others "
                    f"{'finished' if run.over else 'did NOT finish'} the match; projected from the judgment "
                    f"to the deal: {trips} steps x {_ms(DELAYS[0])} = {trips * DELAYS[0]:.1f} s; "
                    f"run_table per seat, MockClock, {run.wall_s:.1f} s of real time",
                )
            )
    return rows


# ---------------------------------------------------------------------------
# Network: one process per node over loopback TCP


@dataclass(frozen=True, slots=True)
class NodeFigures:
    records: int
    frame_bytes: int


def own_frames(data: bytes, seat: int) -> NodeFigures:
    """The records ``seat`` authored in a transcript, and the sum of their frame sizes."""
    count = size = 0
    for raw, sig in decode_file(data).records:
        rec = parse_record(raw, sig)
        if rec.record.seat == seat:
            count += 1
            size += len(rec.to_frame())
    return NodeFigures(records=count, frame_bytes=size)


def _wait_for_port(out: Path, proc: subprocess.Popen[bytes], deadline: float) -> int:
    while time.perf_counter() < deadline:
        for line in out.read_text(errors="replace").splitlines():
            if line.startswith("Hosting") and " on port " in line:
                return int(line.rsplit(" on port ", 1)[1].rstrip("."))
        if proc.poll() is not None:
            raise RuntimeError(f"the host exited early with status {proc.returncode}")
        time.sleep(0.01)
    raise RuntimeError("the host did not start listening in time")


@dataclass(frozen=True, slots=True)
class NetworkRun:
    wall_s: float
    listening_s: float
    exit_codes: tuple[int, ...]
    transcripts: tuple[bytes, ...]


def run_network_match(players: int, target: int, timeout: float = 120.0) -> NetworkRun:
    """Host + joiners as separate ``p2pcards`` processes on 127.0.0.1, random bots."""
    from p2pcards.net.words import new_code

    exe = Path(sys.executable).parent / "p2pcards"
    code = new_code()
    procs: list[subprocess.Popen[bytes]] = []
    with tempfile.TemporaryDirectory(prefix="p2pcards-bench-") as tmp:
        root = Path(tmp)

        def spawn(i: int, args: list[str]) -> subprocess.Popen[bytes]:
            env = dict(
                os.environ,
                P2PCARDS_HOME=str(root / f"home{i}"),
                P2PCARDS_CODE=code,
                P2PCARDS_LANG="en",
                P2PCARDS_NO_PORT_MAPPING="1",  # loopback: no router to ask
            )
            with open(root / f"out{i}", "wb") as out, open(root / f"err{i}", "wb") as err:
                p = subprocess.Popen(
                    [str(exe), *args, "--bind", "127.0.0.1", "--bot", "random", "--name", f"n{i}",
                     "--transcript", str(root / f"t{i}.p2pt")],
                    env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                )  # fmt: skip
            procs.append(p)
            return p

        try:
            start = time.perf_counter()
            deadline = start + timeout
            rule = [] if target == 100 else ["-r", f"target={target}"]
            host = spawn(0, ["host", "-n", str(players), "--port", "0", "--code", code, *rule])
            port = _wait_for_port(root / "out0", host, deadline)
            listening = time.perf_counter() - start
            for i in range(1, players):
                spawn(i, ["join", f"127.0.0.1:{port}"])
            while any(p.poll() is None for p in procs):
                if time.perf_counter() > deadline:
                    raise RuntimeError(f"the network match did not end within {timeout:.0f} s")
                time.sleep(0.005)
            ended = time.perf_counter()
            codes = tuple(p.returncode for p in procs)
            if any(codes):
                err = (root / f"err{codes.index(next(c for c in codes if c))}").read_text(errors="replace")
                raise RuntimeError(f"a node failed (exit codes {codes}): {err.strip()[-300:]}")
            transcripts = tuple((root / f"t{i}.p2pt").read_bytes() for i in range(players))
        finally:
            for p in procs:
                if p.poll() is None:
                    p.kill()
                    p.wait()
    return NetworkRun(wall_s=ended - start, listening_s=listening, exit_codes=codes, transcripts=transcripts)


@group("network", "4 processes over loopback TCP: match to 100 with random bots, wall time and traffic")
def network_rows(quick: bool) -> list[Row]:
    n = 4
    try:
        run = run_network_match(n, 100)
    except (RuntimeError, OSError) as e:
        return [
            Row(
                area="network",
                measure="4 players, match to 100, 4 processes, TCP",
                value="FAILED",
                notes=str(e),
            )
        ]
    wall = Row(
        area="network",
        measure="4 players, match to 100, 4 processes, TCP",
        value=f"{run.wall_s:.2f} s",
        notes=f"host start to last exit, incl. start-up (host listening after {run.listening_s:.2f} s) "
        "and the closing linger",
    )
    audit_s, _, report = timed_audit(run.transcripts[0])
    if not report.valid or report.table is None or report.table.match is None:
        return [wall, invalid_row("network", report, run.transcripts)]
    hands = len(report.table.match.results)
    figures = [own_frames(data, seat) for seat, data in enumerate(run.transcripts)]
    recs = [f.records for f in figures]
    sent = [f.frame_bytes * (n - 1) for f in figures]
    sizes = [len(d) for d in run.transcripts]
    return [
        Row(area="network", measure=wall.measure, value=wall.value, notes=f"{hands} hands; {wall.notes}"),
        Row(
            area="network",
            measure="messages (records) authored per node",
            value=f"{statistics.mean(recs):.0f}",
            notes=f"range {min(recs)}-{max(recs)}, {statistics.mean(recs) / hands:.1f} per hand; "
            f"each sent to {n - 1} peers",
        ),
        Row(
            area="network",
            measure="bytes sent per node",
            value=f"{statistics.mean(sent) / 1024:.0f} KiB",
            notes=f"sum of frame sizes of its own records x {n - 1} peers (range {min(sent) / 1024:.0f}-"
            f"{max(sent) / 1024:.0f} KiB); lobby, mesh handshake and TCP/IP headers not counted",
        ),
        Row(
            area="network",
            measure="bytes per hand, all links",
            value=f"{sum(sent) / hands / 1024:.0f} KiB",
            notes=f"{sum(sent) / 1024:.0f} KiB over {hands} hands",
        ),
        Row(
            area="network",
            measure="transcript file per node",
            value=f"{statistics.mean(sizes) / 1024:.0f} KiB",
            notes=f"{statistics.mean(sizes) / hands / 1024:.1f} KiB per hand",
        ),
        Row(
            area="network",
            measure="audit of one node's transcript",
            value=f"{audit_s:.2f} s",
            notes="audit_bytes of the host's file (valid)",
        ),
    ]


# ---------------------------------------------------------------------------
# Reach: a table of three linking through real NAT routers (the tests' NAT lab)

REACH_CELLS = [
    # host, first joiner, second joiner: where each machine sits (natlab.PLACES)
    ("open", "open", "internet"),
    ("home+pcp", "home+pcp", "strict"),
    ("home+pcp", "home", "home"),
    ("internet", "home", "home"),
    ("internet", "strict", "home"),
]


def _linked_at(procs: Iterable[Any], text: str, timeout: float) -> float:
    """The moment (time.monotonic) by which every process has printed ``text``."""
    deadline = time.monotonic() + timeout
    waiting = list(procs)
    while waiting:
        waiting = [p for p in waiting if text not in p.output()]
        if time.monotonic() > deadline:
            raise RuntimeError(f"no {text!r} from {', '.join(p.name for p in waiting)} in {timeout:.0f} s")
        time.sleep(0.02)
    return time.monotonic()


def reach_cell(where: tuple[str, str, str], directory: Path) -> tuple[float, str]:
    """Seconds from the host seating the last joiner to every seat showing the table
    fingerprint (every pair linked and the join step done), and how Ann and Bea linked."""
    from e2e_helpers import processes, spawn_on
    from natlab import nat_lab, place
    from test_reach_lab import INVITED, how_linked

    from p2pcards.net.words import new_code

    code = new_code()
    with nat_lab(skip=False) as lab, processes(directory) as procs:
        machines = [place(lab, w) for w in where]
        args = ["--bot", "random", "--no-discovery", "--rule", "hands=1"]
        host = spawn_on(
            procs,
            machines[0],
            "Hal",
            ["host", "-n", "3", "--port", "7777", *args],
            directory / "h0",
            P2PCARDS_CODE=code,
        )
        host.wait_for("P2PCARDS_CODE", timeout=20)
        invited = INVITED.search(host.output())  # the address its router granted
        if invited is not None:
            address = f"{invited[1]}:{invited[2]}"
        else:
            address = f"{lab.routers[0].wan if where[0] == 'open' else machines[0].address}:7777"
        joiners = []
        for seat, name in ((1, "Ann"), (2, "Bea")):
            argv = ["join", address, *args[:2], "--name", name]
            joiners.append(
                spawn_on(procs, machines[seat], name, argv, directory / f"h{seat}", P2PCARDS_CODE=code)
            )
            _linked_at([host], f"{name} joined", 30)
        seated = time.monotonic()
        linked = _linked_at([host, *joiners], "Table fingerprint", 60)
        how = how_linked(joiners[1].output(), "Ann")
    return linked - seated, how


@group("reach", "NAT lab (root, nftables): a table of 3 links every pair, by where each machine sits")
def reach_rows(quick: bool) -> list[Row]:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from natlab import unavailable_reason

    reason = unavailable_reason()
    if reason is not None:
        return [Row(area="reach", measure="link every pair of a table of 3", value="skipped", notes=reason)]
    rows = []
    for where in REACH_CELLS[:2] if quick else REACH_CELLS:
        measure = f"host {where[0]}, Ann {where[1]}, Bea {where[2]}"
        with tempfile.TemporaryDirectory() as tmp:
            try:
                seconds, how = reach_cell(where, Path(tmp))
            except (RuntimeError, AssertionError, OSError) as e:
                rows.append(Row(area="reach", measure=measure, value="FAILED", notes=str(e)[:200]))
                continue
        rows.append(
            Row(
                area="reach",
                measure=measure,
                value=f"{seconds:.2f} s",
                notes=f"Ann-Bea {how}; from the last seat taken to every seat showing the table "
                "fingerprint (TLS links, join step); real processes, port mapping on",
            )
        )
    return rows


# ---------------------------------------------------------------------------
# Lobby: honest joiners while strangers flood the host's door (one process, loopback TCP)


@dataclass(frozen=True, slots=True)
class FloodRun:
    seated_s: float
    """From the honest joiners' first dial to the table being full."""
    opened: int
    """Hostile connections opened by then."""
    answers: dict[str, int]
    """What those hostile connections had been told by then (a refusal's reason, or what happened)."""
    retries: int
    """``busy`` answers the honest joiners had to wait out."""


def _stranger_sources(spread: int) -> list[str]:
    """Loopback addresses the strangers dial from; the honest joiners use 127.0.0.1."""
    import socket

    sources = [f"127.0.{k // 250}.{k % 250 + 2}" for k in range(spread)]
    with socket.socket() as s:
        try:
            s.bind((sources[-1], 0))
        except OSError:  # only 127.0.0.1 is configured here: strangers share the joiners' address
            return ["127.0.0.1"]
    return sources


async def _flood(concurrency: int, attempts: int, sources: list[str], players: int = 3) -> FloodRun:
    """Seat ``players - 1`` honest joiners while ``attempts`` hostile connections are made,
    ``concurrency`` at a time: every other one sends a wrong code (a random proof: no scrypt),
    the rest send a hello and then nothing until the host lets go."""
    import trio

    from p2pcards.net import tls
    from p2pcards.net.link import Link, LinkClosed
    from p2pcards.net.session import HostLobby, LobbyUI, Timeouts, join_table
    from p2pcards.protocol.lobby import (
        Auth,
        Challenge,
        Hello,
        Refused,
        decode_lobby_object,
        encode_lobby,
        link_message,
    )

    code = "7-amber-lantern"
    lobby = HostLobby(
        identity=Identity.generate(),
        name="host",
        rules=NinesRules(),
        players=players,
        code=code,
        game_id=os.urandom(16),
        ui=LobbyUI(),
        timeouts=Timeouts(),
    )
    answers: dict[str, int] = {}
    opened = 0
    retries = 0

    class Counting(LobbyUI):
        def info(self, text: str) -> None:
            nonlocal retries
            retries += text.startswith("the host is busy")

    async def stranger(port: int, k: int) -> str:
        me = Identity.generate()
        try:
            tcp = await trio.open_tcp_stream("127.0.0.1", port, local_address=sources[k % len(sources)])
        except OSError:
            return "could not connect"
        secured = tls.client(tcp)  # every connection to a host is TLS, strangers' too
        link = Link(secured)
        try:
            try:
                await tls.handshake(secured)
            except tls.TLSError:
                return "refused during the TLS handshake"
            pake = Pake.start(Side.JOINER, "7-amber-lantern", os.urandom(64)).message
            hello = Hello(name="x", key=me.public_key, nonce=os.urandom(32), port=1, pake=pake)
            await link.send(encode_lobby(hello))
            reply = decode_lobby_object(await link.receive())
            if isinstance(reply, Challenge) and k % 2 == 0:
                sig = me.sign(link_message(reply.game, reply.nonce, me.public_key, reply.key))
                await link.send(encode_lobby(Auth(proof=os.urandom(32), sig=sig)))
                reply = decode_lobby_object(await link.receive())
            elif isinstance(reply, Challenge):  # silence until the host lets go
                last = decode_lobby_object(await link.receive())
                return "let go for a newcomer" if isinstance(last, Refused) else last.TYPE
            return reply.reason if isinstance(reply, Refused) else reply.TYPE
        except LinkClosed:
            return "dropped after the handshake timeout"
        finally:
            await link.aclose()

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    flowing = trio.Event()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, lobby.handle, listeners)
        pending = iter(range(attempts))

        async def worker() -> None:
            nonlocal opened
            for k in pending:
                opened += 1
                outcome = await stranger(port, k)
                answers[outcome] = answers.get(outcome, 0) + 1
                flowing.set()

        for _ in range(concurrency):
            nursery.start_soon(worker)
        if concurrency:
            await flowing.wait()  # the flood is under way
        t = time.perf_counter()
        for seat in range(1, players):
            nursery.start_soon(
                partial(
                    join_table,
                    host="127.0.0.1",
                    port=port,
                    code=code,
                    identity=Identity.generate(),
                    name=f"p{seat}",
                    listen_port=1,
                    ui=Counting(),
                    timeouts=Timeouts(),
                )
            )
        with trio.fail_after(120):
            await lobby.full.wait()
        seated = time.perf_counter() - t
        run = FloodRun(seated_s=seated, opened=opened, answers=dict(answers), retries=retries)
        nursery.cancel_scope.cancel()
    return run


@group("lobby", "honest joiners seated while strangers flood the host (wrong codes, hello then silence)")
def lobby_rows(quick: bool) -> list[Row]:
    import trio

    attempts = 200
    # (strangers at a time, addresses they come from; 0: the honest joiners' own address)
    cases = [(0, 1), (1, 1), (32, 1), (200, 1)] + ([] if quick else [(200, 200), (32, 0)])
    rows = []
    for concurrency, spread in cases:
        sources = _stranger_sources(spread) if spread else ["127.0.0.1"]
        if spread > 1 and len(sources) == 1:
            continue  # no loopback addresses besides 127.0.0.1 here
        if not concurrency:
            measure = "2 honest joiners seated, no strangers"
        else:
            where = {0: "the joiners' address", 1: "one address"}.get(spread, f"{spread} addresses")
            measure = f"2 honest joiners seated, {attempts} strangers {concurrency} at a time from {where}"
        try:
            run = trio.run(_flood, concurrency, attempts, sources)
        except trio.TooSlowError:
            rows.append(Row(area="lobby", measure=measure, value="FAILED", notes="not seated within 120 s"))
            continue
        told = ", ".join(f"{n} {what}" for what, n in sorted(run.answers.items(), key=lambda kv: -kv[1]))
        notes = (
            "2 joiners of a 3-seat table, SPAKE2 included"
            if not concurrency
            else f"{run.opened} strangers had dialled by then, told: {told or 'nothing yet'}; "
            f"the joiners waited out {run.retries} busy answers"
            + (
                "; only 127.0.0.1 here, the strangers shared the joiners' address"
                if spread and sources == ["127.0.0.1"]
                else ""
            )
        )
        rows.append(Row(area="lobby", measure=measure, value=f"{1000 * run.seated_s:.0f} ms", notes=notes))
    return rows


def _child_env() -> dict[str, str]:
    """This process's p2pcards for a child ``python``, with a data folder of its own and
    bytecode caches written as in any installation."""
    import p2pcards

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        PYTHONPATH=str(Path(p2pcards.__file__).resolve().parent.parent),
        P2PCARDS_HOME=tempfile.mkdtemp(prefix="p2pcards-bench-home-"),
        P2PCARDS_NO_PORT_MAPPING="1",
        P2PCARDS_LANG="en",
    )
    return env


def _run_child(args: list[str], env: dict[str, str], until: str | None = None) -> tuple[float, float, str]:
    """(wall ms, CPU ms, stderr) of ``python ARGS`` run to its end, or stopped once a line of its
    output holds ``until`` (its CPU time then includes its last moments, spent waiting)."""
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, *args],
        stdout=subprocess.DEVNULL if until is None else subprocess.PIPE,
        stderr=subprocess.PIPE if until is None else subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=env,
        text=True,
    )
    err = ""
    if until is None:
        assert child.stderr is not None
        err = child.stderr.read()
        child.stderr.close()
    else:
        assert child.stdout is not None
        for line in child.stdout:
            if until in line:
                break
        child.kill()
        child.stdout.close()
    _, _, usage = os.wait4(child.pid, 0)  # the child's own CPU time
    wall = time.perf_counter() - start
    child.returncode = 0
    return 1000 * wall, 1000 * (usage.ru_utime + usage.ru_stime), err


@group("startup", "start-up: importing the command line, p2pcards --help, a host reaching its lobby")
def startup_rows(quick: bool) -> list[Row]:
    runs = 3 if quick else 7
    env = _child_env()
    host = ["-m", "p2pcards", "host", "--bot", "random", "--players", "2", "--port", "0"]
    host += ["--bind", "127.0.0.1", "--no-discovery", "--name", "Bench", "--code", "7-apple-banana"]
    cases = [
        ("python -c pass (the interpreter alone)", ["-c", "pass"], None),
        ("import p2pcards.cli", ["-X", "importtime", "-c", "import p2pcards.cli"], None),
        ("p2pcards --help", ["-m", "p2pcards", "--help"], None),
        # the line the others type to join: the lobby is open
        ("p2pcards host: start to its invitation", host, "--code"),
    ]
    rows = []
    for measure, args, until in cases:
        _run_child(args, env, until)  # a first run writes the bytecode caches
        walls, cpus, imports = [], [], []
        for _ in range(runs):
            wall, cpu, err = _run_child(args, env, until)
            walls.append(wall)
            cpus.append(cpu)
            mine = [line for line in err.splitlines() if line.rstrip().endswith("| p2pcards.cli")]
            if mine:
                imports.append(int(mine[-1].split("|")[1]) / 1000)
        extra = f"; -X importtime: {statistics.median(imports):.0f} ms" if imports else ""
        rows.append(
            Row(
                area="startup",
                measure=measure,
                value=f"{statistics.median(cpus):.0f} ms CPU",
                notes=f"wall {statistics.median(walls):.0f} ms{extra}; median of {runs} fresh processes",
            )
        )
    return rows


# ---------------------------------------------------------------------------
# Files: hostile transcripts, audited by the command a player runs

FIXTURE = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "nines-3p-target30.p2pt"


class Pair(NamedTuple):
    """A ``[raw, sig]`` pair of a transcript file, whether or not it is a record."""

    raw: bytes
    sig: bytes


def junk_file(records: int) -> bytes:
    """The first 10 records of an honest match, then junk up to ``records`` records in all
    (each an empty ``[raw, sig]`` pair: 5 bytes): the 5 MB file of issue 16 at a million."""
    honest = [Pair(raw, sig) for raw, sig in decode_file(FIXTURE.read_bytes()).records[:10]]  # type: ignore[arg-type]
    junk = [Pair(b"", b"")] * (records - len(honest))
    return encode_file([*honest, *junk], saved_by=0, status="over")  # type: ignore[list-item]


def run_measured(args: list[str]) -> tuple[float, float, int]:
    """(seconds, peak resident MB, exit code) of ``python -m p2pcards ARGS`` in a fresh process,
    with this process's p2pcards (the child's own peak, from wait4)."""
    import p2pcards

    env = {**os.environ, "PYTHONPATH": str(Path(p2pcards.__file__).resolve().parent.parent)}
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, "-m", "p2pcards", *args],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        env=env,
    )
    _, status, usage = os.wait4(child.pid, 0)
    elapsed = time.perf_counter() - start
    child.returncode = os.waitstatus_to_exitcode(status)
    peak_mb = usage.ru_maxrss / 1024 if sys.platform != "darwin" else usage.ru_maxrss / 2**20
    return elapsed, peak_mb, child.returncode


@group("files", "hostile transcript files: p2pcards audit and replay of a file of junk records")
def files_rows(quick: bool) -> list[Row]:
    records = 100_000 if quick else 1_000_000
    data = junk_file(records)
    rows = []
    with tempfile.TemporaryDirectory(prefix="p2pcards-bench-files-") as root:
        path = Path(root) / "junk.p2pt"
        path.write_bytes(data)
        for command in ("audit", "replay"):
            seconds, peak, code = run_measured([command, str(path)])
            what = f"p2pcards {command} of a {len(data) / 1e6:.0f} MB junk file"
            notes = (
                f"{records:,} records, 10 of an honest match then empty pairs; a fresh process, exit {code}"
            )
            rows.append(Row(area="files", measure=f"{what}: seconds", value=f"{seconds:.1f} s", notes=notes))
            rows.append(
                Row(area="files", measure=f"{what}: peak MB", value=f"{peak:.0f} MB", notes="max RSS")
            )
    return rows


# ---------------------------------------------------------------------------
# Running and printing


def format_rows(rows: list[Row]) -> str:
    header = Row(area="area", measure="measure", value="value", notes="notes")
    table = [header, *rows]
    widths = [max(len(getattr(r, f)) for r in table) for f in ("area", "measure", "value")]
    lines = []
    for k, r in enumerate(table):
        lines.append(
            f"{r.area:<{widths[0]}}  {r.measure:<{widths[1]}}  {r.value:>{widths[2]}}  {r.notes}".rstrip()
        )
        if k == 0:
            lines.append("  ".join("-" * w for w in widths) + "  -----")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small runs: a smoke test, rough numbers")
    parser.add_argument(
        "--only",
        action="append",
        metavar="GROUP",
        choices=list(GROUPS),
        help="run only this group (repeatable)",
    )
    parser.add_argument("--list", action="store_true", help="list the groups and exit")
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the latency group's rows as JSON on stdout (the table goes to stderr)",
    )
    args = parser.parse_args(argv)
    if args.list:
        for name, (description, _) in GROUPS.items():
            print(f"{name:<10} {description}")
        return 0
    selected = args.only or list(GROUPS)
    rows: list[Row] = []
    start = time.perf_counter()
    for name in selected:
        description, fn = GROUPS[name]
        print(f"running {name}: {description} ...", file=sys.stderr, flush=True)
        rows.extend(fn(args.quick))
    kind = "quick" if args.quick else "full"
    took = time.perf_counter() - start
    table = sys.stderr if args.json else sys.stdout
    print(format_rows(rows), file=table)
    print(f"\n({kind} run, {took:.1f} s; Python {sys.version.split()[0]})", file=table)
    if args.json:
        print(json.dumps(LATENCY_JSON, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
