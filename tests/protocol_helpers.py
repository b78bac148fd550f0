"""Helpers for protocol tests: in-memory tables, bot matches on a LocalNetwork, transcripts.

Everything is deterministic: identities, entropy and the game id derive from
``seed`` and the seat, and the network and bots draw from ``random.Random(seed)``,
so a test that fails replays exactly.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace

from p2pcards.bots import Strategy
from p2pcards.bots.random_bot import RandomBot
from p2pcards.crypto.identity import Identity
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import NinesRules
from p2pcards.protocol.loopback import LocalNetwork, Tamper, play_bots
from p2pcards.protocol.messages import Body, Lock, Player, Reveal
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


class EarlierTable(Table):
    """A seat as nodes wrote before reveals carried the next hand's commitment (and seat
    0's first shuffle), locks the deal keys and moves the passes of the next hand: its
    records leave them out, so each hand has a ``commit`` step, seat 0's shuffle step
    and a ``deal`` step (protocol.md section 5), as the transcripts of that time show."""

    def _author(self, body: Body) -> None:
        if isinstance(body, Reveal):
            body = dataclasses.replace(body, next=None, shuffle=None, keys=None)
        elif isinstance(body, Lock):
            body = dataclasses.replace(body, keys=None)
        elif getattr(body, "ahead", None) is not None:  # nor passes of the next hand
            body = dataclasses.replace(body, ahead=None)  # type: ignore[type-var]
        super()._author(body)


class PreviousTable(Table):
    """A seat as nodes played before a hand's round 0 was made while the hand before it
    was played (protocol.md section 5, *Round 0 ahead*): no record carries a pass of the
    next hand, and every hand shuffles and locks in steps of its own, as the
    transcripts of that time show (they must audit as they did)."""

    AHEAD_STEPS = ()


def make_tables(
    n: int,
    rules: NinesRules | None = None,
    seed: int = 0,
    table_classes: Mapping[int, type[Table]] | None = None,
    game_id: bytes | None = None,
    names: Sequence[str] | None = None,
) -> dict[int, Table]:
    """One table per seat of an ``n``-player game.

    ``table_classes`` maps a seat to a :class:`Table` subclass, to play a dishonest
    seat by overriding one of its authoring methods; other seats are honest.
    ``game_id`` overrides the one derived from ``seed`` (same players, another game);
    ``names``, the players' names (the same keys).
    """
    roster = make_roster(n, seed)
    if names is not None:
        roster = tuple(replace(p, name=name) for p, name in zip(roster, names, strict=True))
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
def honest_transcript(
    n: int = 3, rules: NinesRules = SHORT_RULES, seed: int = 0, table_class: type[Table] = Table
) -> bytes:
    """Seat 0's transcript of a finished honest match (computed once per arguments), every
    seat a ``table_class``."""
    tables = make_tables(n, rules, seed, table_classes=dict.fromkeys(range(n), table_class))
    net = run_match(tables, seed)
    if net.failures or any(t.status != "over" for t in tables.values()):
        raise AssertionError(f"the honest match did not finish cleanly: {net.failures}")
    return transcript_bytes(tables[0])


# --- edited transcripts: records re-signed by their authors, chains rebuilt -----------
# (imported here rather than at the top, so that this block stays an appendix)

from typing import Any, NamedTuple  # noqa: E402

import msgpack  # noqa: E402

from p2pcards.protocol.wire import SIGN_PREFIX, pack  # noqa: E402


class RawRecord(NamedTuple):
    """A record as a transcript file holds it: the signed bytes and the signature.

    Unlike :class:`SignedRecord` it need not parse, so a test can store a record
    that breaks the schema and yet is validly signed by its author.
    """

    raw: bytes
    sig: bytes


def raw_records_file(
    records: Iterable[RawRecord | SignedRecord], *, saved_by: int | None = 0, status: str = "over"
) -> bytes:
    """Like :func:`records_file`, for records that may not parse."""
    return encode_file(records, saved_by=saved_by, status=status)  # type: ignore[arg-type]


def record_map(raw: bytes) -> dict[str, Any]:
    """The decoded msgpack map of a record's signed bytes (edit it, then :func:`sign_map`)."""
    obj = msgpack.unpackb(raw, raw=False, strict_map_key=False)
    assert isinstance(obj, dict)
    return obj


def sign_map(obj: Mapping[str, Any], signer: int, seed: int = 0) -> RawRecord:
    """Pack a record map and sign it with the key of seat ``signer`` of the tables of ``seed``."""
    raw = pack(dict(obj))
    return RawRecord(raw, identity_for(signer, seed).sign(SIGN_PREFIX + raw))


def step_digest_of(prev: bytes, step: int, records: Iterable[tuple[int, bytes]]) -> bytes:
    """protocol.md section 4: the digest of ``step`` from its (seat, raw) records."""
    h = hashlib.sha256(b"p2pcards/v1/step\x00" + prev + step.to_bytes(4, "big"))
    for seat, raw in sorted(records, key=lambda r: r[0]):
        h.update(bytes([seat]) + hashlib.sha256(raw).digest())
    return h.digest()


def rechain(records: Sequence[RawRecord | SignedRecord], after: int, seed: int = 0) -> list[RawRecord]:
    """The records, with every record after index ``after`` given the ``prev`` of the
    history as edited and re-signed by its author: the file then shows a history
    that every seat signed, the edited record included."""
    by_step: dict[int, list[tuple[int, bytes]]] = {}
    digests: dict[int, bytes] = {-1: bytes(32)}

    def digest(step: int) -> bytes:
        if step not in digests:
            digests[step] = step_digest_of(digest(step - 1), step, by_step.get(step, []))
        return digests[step]

    out = []
    for k, r in enumerate(records):
        obj = record_map(r.raw)
        rec = RawRecord(r.raw, r.sig)
        if k > after:
            obj["prev"] = digest(obj["step"] - 1)
            rec = sign_map(obj, obj["seat"], seed)
        by_step.setdefault(obj["step"], []).append((obj["seat"], rec.raw))
        out.append(rec)
    return out
