"""Benchmark groups of Le Neuf on the protocol: whole matches in one process, bots at every seat."""


from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from benches.common import Row, group
from benches.protocol import MatchRun, invalid_row, run_local_match, timed_audit, transcript_of
from p2pcards.bots import make_bot
from p2pcards.games.neuf import rules as neuf
from p2pcards.games.neuf.adapter import NeufTable
from p2pcards.games.neuf.rules import NeufRules
from p2pcards.protocol.audit import AuditReport
from p2pcards.protocol.messages import Keys


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


