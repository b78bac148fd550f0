"""Benchmark groups of Latency: a hand is a chain of steps, each one network trip after the last."""


from __future__ import annotations

import itertools
import random
import statistics
import time
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

import trio
import trio.testing

from benches.common import Row, group
from benches.delay_relay import DelayedStream
from benches.neuf import plural
from benches.protocol import MatchRun, make_tables, run_local_match, steps_apart
from p2pcards.bots import make_bot
from p2pcards.games.neuf import rules as neuf
from p2pcards.games.neuf.adapter import NeufTable
from p2pcards.games.neuf.rules import NeufRules
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import NinesRules
from p2pcards.protocol.table import TableCore

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
SEEDS = tuple(range(1, 9))
"""The matches the rows average (each of random bots, seeded)."""


@dataclass(frozen=True, slots=True)
class Step:
    kind: str
    authors: tuple[int, ...]


def transcript_steps(table: TableCore) -> list[Step]:
    """Every step of ``table``'s transcript with its kind and authors, replayed by an
    observer table (no seat) record by record."""
    observer = type(table)(
        game_id=table.game_id, roster=table.roster, rules=table.rules, seat=None, clock=table.clock
    )
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


@dataclass(frozen=True, slots=True)
class Sample:
    """The matches both latency tables average: eight whole matches, since hands of random
    play vary a lot in length and a few hands can be far from the average (two-hand
    matches of one seed with --quick)."""

    nines: NinesRules
    neuf: NeufRules
    seeds: tuple[int, ...]
    nines_matches: str
    neuf_matches: str

    @classmethod
    def of(cls, quick: bool) -> Sample:
        if quick:
            return cls(NinesRules(hands=2), NeufRules(start=2), (1,), "2-hand matches", "matches from 2")
        return cls(NinesRules(), NeufRules(), SEEDS, "matches to 100", "matches from 9")


def _seeds(seeds: tuple[int, ...]) -> str:
    return f"{seeds[0]}-{seeds[-1]}" if len(seeds) > 2 else ", ".join(map(str, seeds))


def _ms(seconds: float) -> str:
    return f"{1000 * seconds:.0f} ms"


@group("latency", "steps per hand (one-way trips in a row), wait at 100 and 300 ms, checked in virtual time")
def latency_rows(quick: bool) -> list[Row]:
    # (label, players, rules, game, seeds, what the matches are)
    sample = Sample.of(quick)
    cases: list[tuple[str, int, Any, str, tuple[int, ...], str]] = [
        *(
            (f"Nines, {p} players", p, sample.nines, "nines", sample.seeds, sample.nines_matches)
            for p in (2, 4, 6)
        ),
        ("Le Neuf, 3 players", neuf.PLAYERS, sample.neuf, "neuf", sample.seeds, sample.neuf_matches),
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
                f"{'s' if len(seeds) > 1 else ''} {_seeds(seeds)}); "
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


PLAYERS_OWN = ("turn", "draw-keys", "reveal")
"""Step kinds that wait on a player's move (a turn, the keys of the card it drew, the hand's
reveal): what remains of a hand's critical path once its shuffle rides in the hand before."""


def _later_hands(run: DelayedRun) -> tuple[list[float], list[int], list[int]]:
    """For each hand after the first of ``run``: its virtual seconds, its steps, and how many of
    those are :data:`PLAYERS_OWN` steps."""
    kinds = [st.kind for st in run.steps]
    ends = [i + 1 for i, k in enumerate(kinds) if k in ("cut-reveal", "reveal")]
    own = [sum(1 for k in kinds[a:b] if k in PLAYERS_OWN) for a, b in itertools.pairwise(ends)]
    return list(run.hands_s[1:]), list(run.hand_steps[1:]), own[1:]


def _ahead_rows(quick: bool) -> list[Row]:
    """Hands that follow a hand: their round 0 was shuffled and locked while the hand before
    was played, so they wait only for the players. Each hand from the second on, against
    the same hands (same seed, same moves) played by seats that shuffle every hand in steps
    of its own; fills ``LATENCY_JSON``."""
    area, delay = "latency", DELAYS[0]
    sample = Sample.of(quick)
    seeds = sample.seeds
    cases: list[tuple[str, str, int, Any, type[TableCore]]] = [
        ("Nines", "nines", 2, sample.nines, Table),
        ("Nines", "nines", 4, sample.nines, Table),
        ("Nines", "nines", 6, sample.nines, Table),
        ("Le Neuf", "neuf", neuf.PLAYERS, sample.neuf, NeufTable),
    ]
    rows: list[Row] = []
    LATENCY_JSON.clear()
    for label, game_name, players, rules, table_cls in cases:
        secs_all: list[float] = []
        steps_all: list[int] = []
        own_all: list[int] = []
        before_secs: list[float] = []
        before_steps: list[int] = []
        firsts: list[tuple[float, int]] = []
        for seed in seeds:
            run = run_delayed(players, rules, table_cls, delay, seed=seed)
            before = run_delayed(players, rules, without_ahead(table_cls), delay, seed=seed)
            secs, steps, own = _later_hands(run)
            secs_all += secs
            steps_all += steps
            own_all += own
            before_secs += before.hands_s[1:]
            before_steps += before.hand_steps[1:]
            firsts.append((run.hands_s[0], run.hand_steps[0]))
        later = len(secs_all)
        mean_s, mean_steps = statistics.fmean(secs_all), statistics.fmean(steps_all)
        mean_own = statistics.fmean(own_all)
        mean_before_s, mean_before_steps = statistics.fmean(before_secs), statistics.fmean(before_steps)
        first_s = statistics.fmean(f for f, _ in firsts)
        first_steps = statistics.fmean(n for _, n in firsts)
        every_s = (sum(secs_all) + sum(f for f, _ in firsts)) / (later + len(firsts))
        kind = sample.nines_matches if game_name == "nines" else sample.neuf_matches
        matches = f"{len(seeds)} {kind} (seed{'s' if len(seeds) > 1 else ''} {_seeds(seeds)})"
        rows.append(
            Row(
                area=area,
                measure=f"{label}, {players} players, a hand after a hand at {_ms(delay)}: virtual time",
                value=f"{mean_s:.2f} s",
                notes=f"mean of the {later} hands after the first of {matches}, {mean_steps:.1f} steps a "
                f"hand, of which {mean_own:.1f} wait on a player (turns, the keys of drawn cards, the "
                f"reveal: {mean_own * delay:.2f} s); the same hands shuffled and locked in steps of their "
                f"own: {mean_before_s:.2f} s, {mean_before_steps:.1f} steps (round 0 made while the hand "
                f"before is played saves {mean_before_s - mean_s:.2f} s a hand); the first hands "
                f"{first_s:.2f} s, {first_steps:.1f} steps; every hand, the first included, "
                f"{every_s:.2f} s",
            )
        )
        LATENCY_JSON.append(
            {
                "game": game_name,
                "players": players,
                "steps_per_hand": round(mean_steps, 2),
                "seconds_per_hand_at_100ms": round(mean_s, 3),
                "hands": later,
                "players_own_steps_per_hand": round(mean_own, 2),
                "first_hand_steps": round(first_steps, 2),
                "first_hand_seconds_at_100ms": round(first_s, 3),
                "every_hand_seconds_at_100ms": round(every_s, 3),
                "steps_per_hand_without_ahead": round(mean_before_steps, 2),
                "seconds_per_hand_at_100ms_without_ahead": round(mean_before_s, 3),
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


