"""Benchmark groups of Crypto: group operations and whole-deck passes."""


from __future__ import annotations

import hashlib
import os
import random
import statistics
import time
from dataclasses import dataclass

from benches.common import Row, group
from p2pcards.crypto import group as cgroup
from p2pcards.crypto import poker
from p2pcards.crypto.encoding import encode_deck
from p2pcards.crypto.pake import Pake, Side


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


