"""Helpers for protocol tests: in-memory tables, bot matches on a LocalNetwork, transcripts.

Everything is deterministic: identities, entropy and the game id derive from
``seed`` and the seat, and the network and bots draw from ``random.Random(seed)``,
so a test that fails replays exactly.
"""

from __future__ import annotations

import functools
import hashlib
import random
from collections.abc import Iterable, Mapping

from p2pcards.bots import Strategy
from p2pcards.bots.random_bot import RandomBot
from p2pcards.crypto.identity import Identity
from p2pcards.games.nines import NinesRules
from p2pcards.protocol.loopback import LocalNetwork, Tamper, play_bots
from p2pcards.protocol.messages import Player
from p2pcards.protocol.table import Table
from p2pcards.protocol.transcript import encode_file
from p2pcards.protocol.wire import SignedRecord

SHORT_RULES = NinesRules(target=30)
"""A target of 30 points: a match of one to a few hands, fast to play and to audit."""


def _derive(label: str, seed: int, seat: int = 0) -> bytes:
    return hashlib.sha256(f"p2pcards-tests/{label}/{seed}/{seat}".encode()).digest()


def identity_for(seat: int, seed: int = 0) -> Identity:
    """The signing identity of ``seat`` in the tables built with ``seed``."""
    return Identity.from_bytes(_derive("identity", seed, seat))


def entropy_for(seat: int, seed: int = 0) -> bytes:
    """The 32 bytes of entropy ``seat`` derives its secrets from."""
    return _derive("entropy", seed, seat)


def game_id_for(seed: int = 0) -> bytes:
    return _derive("game", seed)[:16]


def make_roster(n: int, seed: int = 0) -> tuple[Player, ...]:
    """Players ``p0``..``p{n-1}`` with the keys of :func:`identity_for`."""
    return tuple(Player(name=f"p{s}", key=identity_for(s, seed).public_key) for s in range(n))


def make_tables(
    n: int,
    rules: NinesRules | None = None,
    seed: int = 0,
    table_classes: Mapping[int, type[Table]] | None = None,
    game_id: bytes | None = None,
) -> dict[int, Table]:
    """One table per seat of an ``n``-player game.

    ``table_classes`` maps a seat to a :class:`Table` subclass, to play a dishonest
    seat by overriding one of its authoring methods; other seats are honest.
    ``game_id`` overrides the one derived from ``seed`` (same players, another game).
    """
    roster = make_roster(n, seed)
    classes = table_classes or {}
    return {
        s: classes.get(s, Table)(
            game_id=game_id if game_id is not None else game_id_for(seed),
            roster=roster,
            rules=rules if rules is not None else NinesRules(),
            seat=s,
            identity=identity_for(s, seed),
            entropy=entropy_for(s, seed),
        )
        for s in range(n)
    }


def run_match(
    tables: dict[int, Table],
    seed: int = 0,
    tamper: Tamper | None = None,
    bots: Mapping[int, Strategy] | None = None,
) -> LocalNetwork:
    """Play the match with bots (random by default) until it ends or stalls.

    Faults do not raise: each table's fault is in ``net.failures`` (and
    ``table.failure``), so the test can check who was blamed.
    """
    net = LocalNetwork(tables, rng=random.Random(seed), tamper=tamper)
    players = bots if bots is not None else {s: RandomBot() for s in tables}
    play_bots(net, players, random.Random(seed))
    return net


def transcript_bytes(table: Table) -> bytes:
    """The transcript file ``table`` would save now."""
    return encode_file(table.transcript.records(), saved_by=table.seat, status=table.status)


def records_file(records: Iterable[SignedRecord], *, saved_by: int | None = 0, status: str = "over") -> bytes:
    """A transcript file of exactly ``records`` with a correct checksum (for edited record lists)."""
    return encode_file(records, saved_by=saved_by, status=status)


@functools.cache
def honest_transcript(n: int = 3, rules: NinesRules = SHORT_RULES, seed: int = 0) -> bytes:
    """Seat 0's transcript of a finished honest match (computed once per arguments)."""
    tables = make_tables(n, rules, seed)
    net = run_match(tables, seed)
    if net.failures or any(t.status != "over" for t in tables.values()):
        raise AssertionError(f"the honest match did not finish cleanly: {net.failures}")
    return transcript_bytes(tables[0])
