"""Structured mutations of a real transcript, each re-signed by the right seat.

An honest 3-seat match is played (by seats that make every hand's round 0 in
steps of its own, as before round 0 was made ahead: those transcripts must
audit as they did; the passes carried ahead are edited in
``tests/test_round_ahead.py``); one of its records is decoded, one field is
set to a valid, boundary or absurd value, and the record is packed again and
signed with the key of the seat it names, so its signature is valid. The file
is rebuilt with a correct checksum and audited. The honest tables write what
the reference writes (``next`` in every reveal, seat 0's first shuffle pass of
the next hand in its reveals, the deal keys in every lock of round 0: no
``commit`` step after the cut, no shuffle step of seat 0 in round 0, no
``deal`` step); one source is played by tables that leave all three out, as an
earlier version did, so that the ``commit`` steps, seat 0's first ``shuffle``
steps and the ``deal`` steps are still edited too. Whatever the edit:

* ``audit_bytes`` never raises (and never reports an internal error);
* the report is invalid (but for the ``unused`` edits below with the chain
  rebuilt, which make another honest history: the report is then valid);
* the first problem that blames a seat names the seat and the record that
  protocol.md (sections 4, 7.1 and 8) says, no problem blames another seat, and
  when nobody is to be blamed no problem blames anyone. Problems that blame
  nobody may come on top ("the file was edited", "the transcript ends before
  the match did"): an edited file is what these tests make.

Whom protocol.md blames (``Effect`` below says which case an edit is):

``now``      The record is wrong on its own or for its step (schema, wrong round,
             deck, positions, key range, keys in a lock where no deal follows,
             a first shuffle pass in the reveal of a seat other than seat 0,
             seat 0's carried first pass of the wrong size or with an invalid
             or repeated element, illegal move, result, secret that does not
             match its commitment...): its signer, at its index (7.1).
``later``    The record is acceptable when its step completes (a valid deck, a key
             in range, another declared suit, a shown card that does not open,
             another commitment in a reveal's ``next``: "resolved at reveal").
             The file's next step then carries the ``prev`` of the original
             history: a chain dispute about the first record of that step
             (section 4, rule 6); the rest of the file holds no second record
             of the edited seat to prove equivocation, and a file cannot show
             whether the disputed record's author lied or the edited record was
             changed (by its own author, who may have saved the file): nobody is
             blamed, at the disputed record's index (sections 7.1 and 8), unless
             every record of the step before is the disputed record's author's:
             it then signed two histories, and is blamed there (section 8). With
             the chain rebuilt (below), a record of a type its step does not
             allow blames its author, who signed that history.
``terms``    A join that reads and states other terms than the file's reference join:
             nobody, at the last record of step 0 (a file cannot show whether the
             host told its author other terms or the author changed them, section
             8). A join that does not read is its signer's fault (``now``).
``chain``    A record whose ``prev`` names another history than the file's (after step
             0): its author may have signed it so, or a record before it was changed
             (re-signed by its own author, the file's saver say): nobody, at its
             index (7.1), or its author when the step before is its own alone
             (section 8). So too a later record that breaks the chain of an edit
             as signed (``later`` below).
``game``     A record of another game id: nobody, at its index (7.1).
``nobody``   A record naming a seat outside the roster: nobody, at its index (7.1).
``seat``     A record naming another seat of the roster (signed by that seat). If
             that seat has its own record of the step: equivocation, that seat at
             the second of the two records (7.1). If not, it wrote where it was
             not expected: that seat at the edited record (7.1) - or nobody,
             since rule 3 of section 4 judges such a record when its step
             completes, and the step never completes without the record the
             edit replaced (the file then just ends early).
``step``     A record moved to another step. If its author has a record of that
             step: equivocation, the author at the second record. If not, for an
             earlier step: out of place with another ``prev``, a chain dispute,
             the author at the edited record. For a later step: the record waits
             for its step, which never comes (its author's record for the step
             it left is missing): nobody (section 8: a record of a later step
             waits for its step; a file that ends early blames nobody).

With the chain rebuilt (``rechain``: every later record gets the ``prev`` of
the edited history and is re-signed by its author) the deferred checks of the
reveal are reached too:

``commit``   A commitment that the secret revealed later does not match: the
             author, at its commit or at its reveal (section 6.5 step 1). A
             commitment carried in a reveal's ``next`` is the one of the hand
             that follows (section 5, commitment context): the author, at its
             reveal of that hand.
``key``      A wrong lock key: the author at its keys or lock record (section 6.5
             step 3), unless a position it covers is opened publicly first: the
             up card when the hand is dealt (the deal step, or the last lock of
             round 0 when every lock carried its keys, section 6.2) or a card
             played later (section 6.3). The hand then goes to the reveal step
             at once, and the first record of the next step in the file, which
             is not a reveal, blames its author (a type its step does not allow,
             section 4 rule 5).
``pass``     A dishonest but valid deck in a shuffle or lock pass that is not the
             last lock, or in seat 0's first pass carried in its reveal (checked
             at the next hand's reveal): the author at its pass (for a carried
             pass, the reveal that carried it), or the author of the next pass,
             whose published input is now the edited deck (section 6.5 checks
             seat by seat, and both passes are provably inconsistent).

Edits that change which steps come (section 5, "Numbering"; rechained or not):

``unused``   A ``next``, or seat 0's ``shuffle``, that nothing reads: the match
             ends after that reveal, or a record of its step carries no ``next``
             (the commit step comes anyway, and seat 0 shuffles in a step of its
             own). An unused ``shuffle`` is read by the schema alone (1 to 104
             bin(32)): invalid or repeated elements, or too few, are unused too.
             As signed: ``later``. With the chain rebuilt: another honest
             history, and the report must be VALID.
``recommit`` A ``next`` left out of a reveal whose other records all carry one,
             a hand following: the next step is a ``commit`` step (seat 0's
             carried pass, even a broken one, is then unused), and the file's
             record of it, the hand's first shuffle (seat 1's, seat 0's having
             come with its reveal), blames its author (its chain is broken, or
             its type is not allowed there).
``unshuffled`` Seat 0's first pass left out of its reveal whose step carried every
             ``next``, a hand following: seat 0's shuffle step of round 0 is due
             (section 5, Numbering). The file's record of that step number is
             seat 1's shuffle, which waits for a step that never completes
             (section 4, rules 3 and 5), and seat 0's next record is of a later
             step: the file ends, nobody (as signed or with the chain rebuilt).
``unkeyed``  The deal keys left out of a lock of round 0 whose other locks carry
             theirs: a ``deal`` step of that seat alone follows the last lock.
             As signed, a lock that is not the last: ``later``. Otherwise the
             file's record of that step number is a turn: if it is the author's,
             it blames the author (chain or type); if not, it waits, the file
             ends: nobody.
``keyed``    Its own deal keys added to a lock of round 0 of a table whose locks
             carry none, so its keys record of the ``deal`` step is not
             expected there: with the chain rebuilt, the author at that keys
             record (out of place, section 4 rule 3). As signed: the first
             record of the next step by a seat that step expects breaks the
             chain.

Record 0 names the table (section 8: the audit reads roster, rules and game id
from the first record), so its edits have their own test with explicit
expectations.
"""

from __future__ import annotations

import copy
import functools
import hashlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from protocol_helpers import (
    SHORT_RULES,
    EarlierTable,
    PreviousTable,
    RawRecord,
    honest_transcript,
    identity_for,
    make_tables,
    raw_records_file,
    rechain,
    record_map,
    run_match,
    sign_map,
    transcript_bytes,
)

from p2pcards.cards import ALL_CARDS
from p2pcards.errors import IllegalAction
from p2pcards.games.nines import rules as nines
from p2pcards.games.nines.adapter import NinesTable
from p2pcards.games.nines.rules import NinesRules
from p2pcards.protocol.audit import AuditReport, audit_bytes
from p2pcards.protocol.transcript import decode_file
from p2pcards.protocol.wire import WireError, parse_record

N_SEATS = 3

# --- the group, from protocol.md section 3.1 (independent of p2pcards.crypto) --------

ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
FIELD_P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
CURVE_B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
MAX_KEY = 2**256 - 1
SCALAR_EDGES = (0, 1, 2, ORDER - 1, ORDER, ORDER + 1, MAX_KEY)


def is_element(x: bytes) -> bool:
    """Section 3.1: 32 bytes, below p, and x^3 - 3x + b is 0 or a square mod p."""
    if len(x) != 32:
        return False
    v = int.from_bytes(x, "big")
    if v >= FIELD_P:
        return False
    return pow((v**3 - 3 * v + CURVE_B) % FIELD_P, (FIELD_P - 1) // 2, FIELD_P) in (0, 1)


@functools.cache
def card_element(i: int) -> bytes:
    """Section 3.2: the encoding of card ``i`` by try-and-increment."""
    for ctr in range(256):
        x = hashlib.sha256(b"p2pcards/v1/card" + i.to_bytes(2, "big") + bytes([ctr])).digest()
        if is_element(x):
            return x
    raise AssertionError("no encoding")


def not_element(x: bytes) -> bytes:
    """The first value at or after ``x`` that is not an element (still 32 bytes)."""
    v = int.from_bytes(x, "big")
    while is_element(v.to_bytes(32, "big")):
        v = (v + 1) % 2**256
    return v.to_bytes(32, "big")


ELEMENT_EDGES = (
    bytes(32),  # x = 0 is a valid element (section 3.1)
    (1).to_bytes(32, "big"),
    (FIELD_P - 1).to_bytes(32, "big"),
    FIELD_P.to_bytes(32, "big"),  # not below p
    b"\xff" * 32,
    not_element(bytes(31) + b"\x05"),  # below p, not on the curve
    card_element(0),
    card_element(51),
)


def flip(b: bytes, bit: int = 0) -> bytes:
    return bytes([b[0] ^ (1 << bit)]) + b[1:]


def is_nine(card: int) -> bool:
    return card % 13 == 8


# --- the honest transcripts ----------------------------------------------------------


@dataclass(frozen=True)
class Source:
    name: str
    rules: NinesRules
    seed: int
    old: bool = False  # played by tables that leave ``next``, ``shuffle`` and lock keys out


MAIN = Source("main", SHORT_RULES, 35)
"""Short rules, 91 records: cut, two hands, a declared suit, draws and keeps."""
RECYCLES = Source("recycles", NinesRules(hands=1, draw_until_playable=True, action_cards=True), 16)
"""One hand with recycle rounds (shuffle and lock rounds >= 1) and forced draws."""
STACKING = Source(
    "stacking",
    NinesRules(hands=1, draw_until_playable=True, action_cards=True, double_nines=True, stacking_nines=True),
    11,
)
"""One hand of the 104-card variant with an accept-skip record."""
OLD = Source("old", SHORT_RULES, 35, old=True)
"""MAIN's match played by tables that write no ``next``, no first pass in a reveal and
no lock keys, as an earlier version did (``EarlierTable``; 103 records: a commit step,
seat 0's first shuffle step and a deal step per hand)."""
SOURCES = (MAIN, RECYCLES, STACKING, OLD)


def source_transcript(source: Source) -> bytes:
    if not source.old:
        return honest_transcript(N_SEATS, source.rules, source.seed, PreviousTable)
    tables = make_tables(
        N_SEATS, source.rules, source.seed, table_classes=dict.fromkeys(range(N_SEATS), EarlierTable)
    )
    net = run_match(tables, source.seed)
    assert not net.failures and all(t.status == "over" for t in tables.values()), net.failures
    return transcript_bytes(tables[0])


class Tx:
    """One honest transcript, decoded, with what the expectations need to know."""

    def __init__(self, source: Source) -> None:
        self.source = source
        self.seed = source.seed
        self.rules = source.rules
        data = source_transcript(source)
        self.data = data
        self.records = [RawRecord(raw, sig) for raw, sig in decode_file(data).records]
        self.raws = {r.raw for r in self.records}
        self.maps = [record_map(r.raw) for r in self.records]
        self.step = [m["step"] for m in self.maps]
        self.seat = [m["seat"] for m in self.maps]
        self.type = [m["type"] for m in self.maps]
        self.index = {(t, s): i for i, (t, s) in enumerate(zip(self.step, self.seat, strict=True))}
        self.first: dict[int, int] = {}
        self.authors: dict[int, set[int]] = {}
        for i, t in enumerate(self.step):
            self.first.setdefault(t, i)
            self.authors.setdefault(t, set()).add(self.seat[i])
        kind = {t: self.type[i] for t, i in self.first.items()}  # the type of each step's records
        # Hands: 0 is the cut; a hand begins with its commit step, or with its first
        # shuffle when the reveal step before it carried the commitments.
        self.hand: list[int] = []
        hand = 0
        for i, t in enumerate(self.step):
            if self.first[t] == i and (
                (kind[t] == "commit" and t > 1) or (kind[t] == "shuffle" and kind[t - 1] == "reveal")
            ):
                hand += 1
            self.hand.append(hand)
        self.reveal = {
            (self.hand[i], self.seat[i]): i for i in range(len(self.maps)) if self.type[i] == "reveal"
        }
        # Seat 0's shuffle of round 0 of a hand, carried in its reveal before that hand:
        # taken as its pass when every reveal of the step carried ``next`` and a hand
        # follows (section 5, Numbering); there is then no shuffle step of seat 0.
        self.carried: dict[int, int] = {}  # hand -> the reveal record whose ``shuffle`` is taken
        for t, first in self.first.items():
            if kind[t] == "reveal" and self.takes_first_pass(t):
                self.carried[self.hand[first] + 1] = self.index[(t, 0)]
        # Deck passes: (hand, round) -> indices of the shuffle and lock records, in order.
        self.passes: dict[tuple[int, int], list[int]] = {}
        for i, m in enumerate(self.maps):
            if self.type[i] in ("shuffle", "lock"):
                self.passes.setdefault((self.hand[i], m["body"]["round"]), []).append(i)
        # The deal: a deal step is a keys step right after the last lock of round 0.
        self.deal_steps: set[int] = set()
        self.dealt: dict[int, int] = {}  # hand -> the step whose completion deals it
        self.deal_keys: dict[int, dict[int, int]] = {}  # hand -> seat -> the record with its deal keys
        for (hand, rnd), order in self.passes.items():
            if rnd != 0:
                continue
            last = self.step[order[-1]]
            dealt = last + 1 if kind.get(last + 1) == "keys" else last
            self.dealt[hand] = dealt
            if dealt != last:
                self.deal_steps.add(dealt)
            keyed = {
                self.seat[i]: i for i in order if self.type[i] == "lock" and "keys" in self.maps[i]["body"]
            }
            dealing = {s: self.index[(dealt, s)] for s in self.authors[dealt]} if dealt != last else {}
            self.deal_keys[hand] = {**keyed, **dealing}
            assert sorted(self.deal_keys[hand]) == list(range(N_SEATS))
        self.up: dict[int, tuple[int, int]] = {}
        for hand, by_seat in self.deal_keys.items():
            [up] = set.intersection(*(self.key_positions(i) for i in by_seat.values()))
            self.up[hand] = up
        self.plays: dict[int, list[tuple[int, set[tuple[int, int]]]]] = {}
        for i, m in enumerate(self.maps):
            if self.type[i] == "play":
                shown = {(c[0], c[1]) for c in m["body"]["cards"]}
                self.plays.setdefault(self.hand[i], []).append((i, shown))

    def takes_first_pass(self, t: int) -> bool:
        """A ``shuffle`` in seat 0's reveal of reveal step ``t`` is seat 0's first pass of
        the hand that follows: every reveal of the step carries ``next`` (no commit
        step) and a hand follows (not the result step)."""
        nxt = self.first.get(t + 1)
        return (
            nxt is not None
            and self.type[nxt] != "result"
            and all("next" in self.maps[self.index[(t, o)]]["body"] for o in range(N_SEATS))
        )

    def key_positions(self, i: int) -> set[tuple[int, int]]:
        return {(k[0], k[1]) for k in self.maps[i]["body"]["keys"]}

    def held_ever(self, i: int) -> set[tuple[int, int]]:
        """Every position the author of record ``i`` holds at some time in its hand."""
        s, hand = self.seat[i], self.hand[i]
        deal = self.deal_keys[hand]
        dealt = set().union(*(self.key_positions(deal[o]) for o in range(N_SEATS) if o != s))
        dealt -= self.key_positions(deal[s])
        drawn: set[tuple[int, int]] = set()
        for k in range(len(self.maps)):
            if (
                self.hand[k] == hand
                and self.step_kind(k) == "draw-keys"
                and s not in self.authors[self.step[k]]
            ):
                drawn |= self.key_positions(k)
        return dealt | drawn

    def never_held(self, i: int) -> list[tuple[int, int]]:
        """Round-0 positions the author of record ``i`` never holds in its hand."""
        held = self.held_ever(i)
        return [(0, p) for p in range(self.rules.deck_size) if (0, p) not in held]

    def step_kind(self, i: int) -> str:
        if self.type[i] == "keys":
            return "deal" if self.step[i] in self.deal_steps else "draw-keys"
        return self.type[i]

    def deals(self, i: int) -> bool:
        """Record ``i`` carries its author's deal keys (a keys record of a deal step, or a lock)."""
        return self.deal_keys.get(self.hand[i], {}).get(self.seat[i]) == i

    def next_pass(self, i: int) -> int | None:
        """The pass whose input is the output of pass ``i`` (None for the last lock); for a
        reveal carrying seat 0's first pass, the next hand's first shuffle record."""
        if self.type[i] == "reveal":
            return self.passes[(self.hand[i] + 1, 0)][0]
        order = self.passes[(self.hand[i], self.maps[i]["body"]["round"])]
        k = order.index(i)
        return order[k + 1] if k + 1 < len(order) else None

    def refused_publicly(self, i: int, cards: list[int], suit: str | None) -> bool:
        """Whether the rules refuse the play of record ``i`` with ``cards`` (card numbers) as a
        replica of no seat knows the hand then: such a claim is refused before its positions
        are opened (protocol.md 6.3, 10.4), whatever they hold."""
        hand = self.public_hand(i).public_copy()
        held = [ALL_CARDS[c] if 0 <= c < len(ALL_CARDS) else c for c in cards]
        s = self.seat[i]
        action = nines.Play(seat=s, card=held[0], suit=suit) if len(held) == 1 else nines.PlayNines(
            seat=s, cards=(held[0], held[1]), suit=suit  # type: ignore[arg-type]
        )
        try:
            hand.apply(action)
        except IllegalAction:
            return True
        return False

    @functools.cache  # noqa: B019 (one Tx per source, cached for the whole run)
    def public_hand(self, i: int) -> Any:
        """The hand as a replica of no seat holds it when record ``i`` arrives."""
        first = parse_record(self.records[0].raw, self.records[0].sig)
        join = first.record.body
        table = NinesTable(
            game_id=first.record.game_id, roster=join.roster, rules=self.rules, seat=None,  # type: ignore[attr-defined]
            clock=join.clock,  # type: ignore[attr-defined]
        )
        for r in self.records[:i]:
            table.receive_record(parse_record(r.raw, r.sig))
        assert table.match is not None and table.match.hand is not None
        return table.match.hand

    def first_by(self, step: int, seats: set[int]) -> int | None:
        """The first record of ``step`` in the file by one of ``seats``, if any."""
        return next((i for i, t in enumerate(self.step) if t == step and self.seat[i] in seats), None)


@functools.cache
def tx_of(source: Source) -> Tx:
    return Tx(source)


# --- what an edit is, and whom it must blame ---------------------------------------


@dataclass(frozen=True)
class Effect:
    kind: str  # now, later, game, nobody, seat, step, commit, key, pass, unused, recommit,
    # unshuffled, unkeyed, keyed (see the module doc)
    arg: Any = None  # step: where to; key: the positions; commit: the hand whose reveal checks it
    signer: int | None = None  # the seat whose key signs the edited record (default: the author)


NOW = Effect("now")
LATER = Effect("later")
TERMS = Effect("terms")
CHAIN = Effect("chain")


@dataclass(frozen=True)
class Field:
    """One field of one record, the values to try, and what each value makes of the record."""

    name: str
    examples: tuple[Any, ...]  # the values of the deterministic loop
    values: st.SearchStrategy[Any]  # the values hypothesis draws
    edit: Callable[[dict[str, Any], Any], None]
    effect: Callable[[Any], Effect | None]  # None: the edit changes nothing
    header: bool = False
    quick: int = 1  # how many of the examples the quick deterministic loop tries


ANY = -1
"""As the record of an expected (None, ANY): nobody is blamed, whatever the problems' records."""


@dataclass(frozen=True)
class Expect:
    pairs: frozenset[tuple[int | None, int | None]]  # allowed (seat, record) of the verdict
    why: str


def chain_break(tx: Tx, j: int, why: str) -> Expect:
    """The verdict at record ``j``, the first that follows another history than the file's
    (as signed): nobody is blamed (its author may have lied, or the file's saver changed a
    record before it: a file cannot show which, protocol.md 7.1), unless every record of the
    step before is ``j``'s author's own: it then signed two histories (section 8)."""
    t = tx.step[j]
    if t > 0 and tx.authors[t - 1] == {tx.seat[j]}:
        return Expect(frozenset({(tx.seat[j], j)}), why + " (the step before is its author's alone)")
    return Expect(frozenset({(None, j)}), why + " (a chain break in a file: nobody)")


def after(tx: Tx, step: int, why: str, rechained: bool) -> Expect:
    """The verdict at the first record of the step after ``step``. As signed, it breaks the
    chain (:func:`chain_break`). With the chain rebuilt, its author signed that history: it
    is blamed when its record is not of a type the step the edit brought allows."""
    j = tx.first[step + 1]
    if not rechained:
        return chain_break(tx, j, why)
    return Expect(frozenset({(tx.seat[j], j)}), why)


def later(tx: Tx, i: int, why: str, rechained: bool) -> Expect:
    return after(tx, tx.step[i], why, rechained)


VALID = Expect(frozenset(), "nothing reads the edited value: another honest history, VALID")


def expected(tx: Tx, i: int, effect: Effect, rechained: bool) -> Expect:
    s, t = tx.seat[i], tx.step[i]
    signer = effect.signer if effect.signer is not None else s
    kind = effect.kind
    if kind == "now":
        return Expect(frozenset({(signer, i)}), "the record is wrong at its step: its author")
    if kind == "game":
        return Expect(frozenset({(None, i)}), "a record of another game: nobody")
    if kind == "chain":
        return chain_break(tx, i, "another history than the file's: a chain dispute")
    if kind == "terms":
        return Expect(frozenset({(None, tx.first[1] - 1)}), "other terms: a file cannot show whose fault")
    if kind == "nobody":
        return Expect(frozenset({(None, i)}), "a seat outside the roster: nobody")
    if kind == "seat":
        if (t, signer) in tx.index:
            second = max(i, tx.index[(t, signer)])
            return Expect(
                frozenset({(signer, second)}), "that seat's second record of the step: equivocation"
            )
        return Expect(
            frozenset({(signer, i), (None, ANY)}),
            "that seat was not expected at the step (or nobody: the step never completes)",
        )
    if kind == "step":
        t2 = effect.arg
        if (t2, s) in tx.index:
            second = max(i, tx.index[(t2, s)])
            return Expect(frozenset({(s, second)}), "its author's second record of that step: equivocation")
        if t2 < t:
            return Expect(frozenset({(None, i)}), "out of place with another prev: a chain dispute, nobody")
        return Expect(frozenset({(None, ANY)}), "it waits for a step that never comes: the file ends, nobody")
    hand = tx.hand[i]
    if kind == "recommit":
        why = "a commit step is due: the hand's first shuffle breaks the chain or is no commit"
        return later(tx, i, why, rechained)
    if kind == "unshuffled":
        assert tx.first_by(t + 1, {0}) is None, "seat 0's first record of the hand is its lock"
        return Expect(
            frozenset({(None, ANY)}),
            "seat 0's shuffle step is due, and the file holds no record of it: the next "
            "shuffle waits for its step (4, rule 3), which never comes: the file ends, nobody",
        )
    if kind == "unkeyed":
        if not rechained and tx.next_pass(i) is not None:
            return later(tx, i, "valid at its step: the next lock breaks the chain", rechained)
        j = tx.first_by(tx.dealt[hand] + 1, {s})
        if j is None:
            return Expect(
                frozenset({(None, ANY)}),
                "a deal step waits for the author's keys, which the file does not hold: nobody",
            )
        if not rechained:  # its next record follows the lock it signed: a chain break
            return chain_break(tx, j, "its next record breaks the chain (7.1)")
        return Expect(
            frozenset({(s, j)}), "a deal step of the author alone: its turn record there is no keys record"
        )
    if kind == "keyed":
        if rechained:
            return Expect(
                frozenset({(s, tx.deal_keys[hand][s])}),
                "keyed at its lock, so not expected at the deal step: its keys record there is out of place",
            )
        if tx.next_pass(i) is not None:
            return later(tx, i, "valid at its step: the next lock breaks the chain", rechained)
        j = tx.first_by(t + 1, set(range(N_SEATS)) - {s})
        assert j is not None
        return chain_break(tx, j, "the deal step's first record by a seat it expects breaks the chain")
    if kind == "unused":
        if rechained:
            return VALID
        return later(tx, i, "valid at its step: the next step's first record breaks the chain", rechained)
    if not rechained:
        return later(tx, i, "valid at its step: the next step's first record breaks the chain", rechained)
    if kind == "commit":
        if effect.arg is not None:
            return Expect(
                frozenset({(s, tx.reveal[(effect.arg, s)])}),
                "the commitment to the next hand's secret, broken at that hand's reveal: its author",
            )
        return Expect(
            frozenset({(s, i), (s, tx.reveal[(hand, s)])}),
            "commitment broken at the reveal: its author",
        )
    if kind == "key":
        positions = effect.arg
        if tx.deals(i) and tx.up[hand] in positions:
            return after(
                tx,
                tx.dealt[hand],
                "the up card does not open: reveal at once, the next record is not a reveal",
                rechained,
            )
        for k, shown in tx.plays.get(hand, []):
            if k > i and shown & positions:
                j = tx.first[tx.step[k] + 1]
                if tx.type[j] == "reveal":
                    break
                return later(tx, k, "a card played later does not open: reveal at once", rechained)
        return Expect(frozenset({(s, i)}), "a wrong key, found at the reveal: its author")
    if kind == "pass":
        nxt = tx.next_pass(i)
        assert nxt is not None
        return Expect(
            frozenset({(s, i), (tx.seat[nxt], nxt)}), "a dishonest pass: its author, or the next pass's"
        )
    raise AssertionError(kind)


def rechainable(f: Field, effect: Effect) -> bool:
    """Edits whose outcome with a rebuilt chain protocol.md fixes (see the module doc)."""
    return not f.header and effect.kind in (
        "now",
        "commit",
        "key",
        "pass",
        "unused",
        "recommit",
        "unshuffled",
        "unkeyed",
        "keyed",
    )


# --- the fields of each record kind --------------------------------------------------


def _set(path: tuple[Any, ...]) -> Callable[[dict[str, Any], Any], None]:
    def edit(m: dict[str, Any], v: Any) -> None:
        target: Any = m
        for p in path[:-1]:
            target = target[p]
        target[path[-1]] = v

    return edit


def _same_or(orig: Any, effect: Effect | Callable[[Any], Effect]) -> Callable[[Any], Effect | None]:
    def classify(v: Any) -> Effect | None:
        if v == orig and type(v) is type(orig):
            return None
        return effect(v) if callable(effect) else effect

    return classify


bin32 = st.binary(min_size=32, max_size=32)
not32 = st.binary(max_size=40).filter(lambda b: len(b) != 32)
junk = st.one_of(st.none(), st.booleans(), st.integers(-(2**63), 2**64 - 1), st.text(max_size=5), not32)
ints = st.integers(-(2**63), 2**64 - 1)


def header_fields(tx: Tx, i: int) -> list[Field]:
    m = tx.maps[i]
    s, t = m["seat"], m["step"]
    others = [o for o in range(N_SEATS) if o != s]

    def seat_effect(v: Any) -> Effect:
        if type(v) is not int or not 0 <= v <= 5:
            return Effect("nobody")  # not a seat at all: the record names nobody
        if v < N_SEATS:
            return Effect("seat", v, signer=v)
        return Effect("nobody", signer=v)  # signed by a key outside the roster

    def step_effect(v: Any) -> Effect:
        if type(v) is not int or not 0 <= v < 2**32:
            return NOW  # schema
        return Effect("step", v)

    retypes = {"shuffle": "lock", "lock": "shuffle", "commit": "reveal", "reveal": "commit"}
    empty = ("draw", "keep", "pass", "accept-skip")
    if tx.source is MAIN and m["type"] in empty:  # without the variants, none of these is legal instead
        retypes[m["type"]] = next(e for e in empty if e != m["type"])
    retype_examples = (retypes.get(m["type"], "declare"), "bogus", "Join")
    return [
        Field(
            "game",
            (bytes(16), flip(m["game"])),
            st.binary(min_size=16, max_size=16),
            _set(("game",)),
            _same_or(m["game"], Effect("game")),
            header=True,
        ),
        Field(
            "game size",
            (m["game"][:15],),
            st.binary(max_size=20).filter(lambda b: len(b) != 16),
            _set(("game",)),
            lambda v: NOW,
            header=True,
            quick=0,
        ),
        Field(
            "step",
            tuple(v for v in (t - 1, t + 1, 0, 2**32 - 1) if v >= 0),
            st.one_of(
                st.integers(0, 2**32 - 1), st.sampled_from([t - 1, t + 1, t + 2, 0]).filter(lambda v: v >= 0)
            ),
            _set(("step",)),
            _same_or(t, step_effect),
            header=True,
            quick=2,
        ),
        Field(
            "step range",
            (2**32, -1),
            st.one_of(st.integers(2**32, 2**64 - 1), st.integers(-(2**63), -1)),
            _set(("step",)),
            lambda v: NOW,
            header=True,
            quick=0,
        ),
        Field(
            "seat",
            (others[0], 3, others[1], 5, 6),
            st.integers(-5, 300),
            _set(("seat",)),
            _same_or(s, seat_effect),
            header=True,
            quick=2,
        ),
        Field(
            "prev",
            (flip(m["prev"]), bytes(32), b"\xff" * 32),
            bin32,
            _set(("prev",)),
            _same_or(m["prev"], NOW if tx.step[i] == 0 else CHAIN),
            header=True,
        ),
        Field("prev size", (m["prev"][:31],), not32, _set(("prev",)), lambda v: NOW, header=True, quick=0),
        Field(
            "v",
            (0, 2, True),
            st.one_of(ints, st.just(1.0), st.booleans()),
            _set(("v",)),
            _same_or(1, NOW),
            header=True,
        ),
        Field(
            "type",
            retype_examples,
            st.one_of(st.sampled_from(retype_examples), st.text(max_size=8)),
            _set(("type",)),
            _same_or(m["type"], NOW),
            header=True,
            quick=2,
        ),
        Field(
            "extra header key",
            ("x",),
            st.text(min_size=1, max_size=4).filter(lambda k: k not in m),
            lambda mm, k: mm.__setitem__(k, 0),
            lambda v: NOW,
            header=True,
            quick=0,
        ),
    ]


def join_fields(tx: Tx, i: int) -> list[Field]:
    b = tx.maps[i]["body"]
    roster = b["roster"]

    def rule(name: str) -> Callable[[dict[str, Any], Any], None]:
        return _set(("body", "rules", name))

    def roster_op(mm: dict[str, Any], op: tuple[Any, ...]) -> None:
        r = mm["body"]["roster"]
        if op[0] == "key":
            r[op[1]][1] = op[2]
        elif op[0] == "name":
            r[op[1]][0] = op[2]
        elif op[0] == "swap":
            r[op[1]], r[op[2]] = r[op[2]], r[op[1]]
        elif op[0] == "drop":
            del r[op[1]]
        elif op[0] == "add":
            r.append(["extra", op[1]])

    def roster_effect(op: tuple[Any, ...]) -> Effect | None:
        if op[0] == "key" and roster[op[1]][1] == op[2]:
            return None
        if op[0] == "name" and roster[op[1]][0] == op[2]:
            return None
        return TERMS

    valid_key = identity_for(5, tx.seed).public_key
    roster_ops = (
        ("key", 1, bytes(32)),
        ("key", 2, b"\xff" * 32),
        ("key", 0, valid_key),
        ("name", 2, "mallory"),
        ("swap", 1, 2),
        ("drop", 2),
        ("add", valid_key),
    )
    rule_names = sorted(b["rules"])
    return [
        Field(
            "version",
            (0, 2, 65535),
            st.integers(0, 65535),
            _set(("body", "version")),
            _same_or(b["version"], TERMS),
        ),
        Field(  # (a value that reads, an integer in range, states other terms; any other: schema)
            "version type", ("1", -1, 65536), junk, _set(("body", "version")), _same_or(b["version"], TERMS)
        ),
        Field(
            "game name",
            ("hearts", ""),
            st.text(max_size=41),
            _set(("body", "game")),
            _same_or(b["game"], TERMS),
        ),
        Field(
            "rules.target",
            (31, 0, 2**40),
            st.integers(-(2**31), 2**40),
            rule("target"),
            _same_or(b["rules"]["target"], TERMS),
        ),
        Field(
            "rules.hard_nines",
            (True, 0, 1),  # 0 is not false: a join body must be equal exactly (section 5)
            st.one_of(st.booleans(), st.integers(0, 1), st.none()),
            rule("hard_nines"),
            _same_or(b["rules"]["hard_nines"], TERMS),
            quick=2,
        ),
        Field(
            "rules: unknown option",
            ("bogus",),
            st.text(min_size=1, max_size=8).filter(lambda k: k not in rule_names),
            lambda mm, k: mm["body"]["rules"].__setitem__(k, True),
            lambda v: TERMS,
        ),
        Field(
            "rules: option removed",
            tuple(rule_names[:2]),
            st.sampled_from(rule_names),
            lambda mm, k: mm["body"]["rules"].pop(k),
            lambda v: TERMS,
        ),
        Field("roster", roster_ops, st.sampled_from(roster_ops), roster_op, roster_effect, quick=3),
    ]


def commit_fields(tx: Tx, i: int) -> list[Field]:
    c = tx.maps[i]["body"]["commit"]
    other = tx.maps[tx.index[(tx.step[i], (tx.seat[i] + 1) % N_SEATS)]]["body"]["commit"]
    return [
        Field(
            "commit",
            (bytes(32), other, flip(c)),
            bin32,
            _set(("body", "commit")),
            _same_or(c, Effect("commit")),
            quick=2,
        ),
        Field("commit size", (c[:31], c + b"\0"), not32, _set(("body", "commit")), lambda v: NOW),
    ]


def reveal_fields(tx: Tx, i: int) -> list[Field]:
    b = tx.maps[i]["body"]
    seat, t, hand = tx.seat[i], tx.step[i], tx.hand[i]
    s = b["secret"]
    other_body = tx.maps[tx.index[(t, (seat + 1) % N_SEATS)]]["body"]
    other = other_body["secret"]
    nxt: bytes | None = b.get("next")
    # The next hand takes its commitments from this step only if every record of it
    # carries one (section 5); nothing reads them when the match ends here.
    carried = all("next" in tx.maps[tx.index[(t, o)]]["body"] for o in range(N_SEATS) if o != seat)
    used = carried and (hand + 1, seat) in tx.reveal
    assert nxt is not None or not used, "a next added to the only reveal without one: not in these sources"
    changed = Effect("commit", hand + 1) if used else Effect("unused")
    next_examples = (
        (bytes(32), other_body.get("next", b"\x01" * 32), flip(nxt))
        if nxt is not None
        else (bytes(32), b"\x01" * 32)
    )
    fields = [
        Field("secret", (bytes(32), flip(s, 7), other), bin32, _set(("body", "secret")), _same_or(s, NOW)),
        Field("secret size", (s[:31],), not32, _set(("body", "secret")), lambda v: NOW),
        Field("next", next_examples, bin32, _set(("body", "next")), _same_or(nxt, changed), quick=2),
        Field(
            "next size",
            ((nxt or bytes(32))[:31], None, b""),
            junk,
            _set(("body", "next")),
            lambda v: NOW,  # present, so not 32 bytes (nil included): schema
        ),
    ]
    if nxt is not None:
        fields.append(
            Field(
                "next removed",
                ("drop",),
                st.just("drop"),
                lambda mm, v: mm["body"].pop("next"),
                lambda v: Effect("recommit") if used else Effect("unused"),
            )
        )
    return fields + first_pass_fields(tx, i)


def well_formed_pass(v: Any) -> bool:
    """Section 2.4: ``reveal.shuffle`` is an array of 1..104 bin(32) (elements or not)."""
    return type(v) is list and 1 <= len(v) <= 104 and all(type(x) is bytes and len(x) == 32 for x in v)


def valid_deck(v: list[bytes], size: int) -> bool:
    """Section 3.6: a deck of ``size`` elements, each valid, none twice."""
    return len(v) == size and all(is_element(x) for x in v) and len(set(v)) == len(v)


def first_pass_fields(tx: Tx, i: int) -> list[Field]:
    """``reveal.shuffle``: seat 0's shuffle pass of round 0 of the hand that follows.

    Only seat 0 may send one (another seat's blames it at once); it is taken as seat
    0's pass only when every reveal of the step carried ``next`` and a hand follows,
    and then checked at once as a shuffle step would be (size, elements, repeats),
    and against seat 0's secret at the next hand's reveal; otherwise only the schema
    reads it, and seat 0 writes its first pass in a shuffle step of its own."""
    b = tx.maps[i]["body"]
    seat, t, hand = tx.seat[i], tx.step[i], tx.hand[i]
    first: list[bytes] | None = b.get("shuffle")
    takes = seat == 0 and tx.takes_first_pass(t)
    assert takes == (tx.carried.get(hand + 1) == i), "taken when carried, carried when it would be"
    size = tx.rules.deck_size

    def judge(v: Any) -> Effect | None:
        if first is not None and v == first:  # (when absent, any value, nil included, is new)
            return None
        if seat != 0 or not well_formed_pass(v):
            return NOW  # a first pass from another seat; or not an array of 1..104 bin(32)
        if not takes:
            return Effect("unused")  # a commit step comes (seat 0 shuffles again), or the match ends
        if not valid_deck(v, size):
            return NOW  # checked at once, as its shuffle step would be
        return Effect("pass")  # checked against seat 0's secret at the next hand's reveal

    junk_items = st.lists(st.one_of(bin32, st.sampled_from(ELEMENT_EDGES), not32), max_size=3)
    odd = (("nil",), ("replace", []), ("replace", [b"x"]))
    if first is None:
        # Some deck of the file, as seat 0's first pass (added to another seat's reveal, or
        # to seat 0's when its step has a commit step: unused).
        deck = tx.maps[tx.passes[(1, 0)][0]]["body"]["deck"]
        ops: tuple[tuple[Any, ...], ...] = (("deck",), ("replace", [card_element(0)]), *odd)

        def add(mm: dict[str, Any], op: tuple[Any, ...]) -> None:
            mm["body"]["shuffle"] = list(deck) if op == ("deck",) else deck_after(None, op)

        def added(op: tuple[Any, ...]) -> Effect | None:
            return judge(list(deck) if op == ("deck",) else deck_after(None, op))

        return [
            Field(
                "shuffle added",
                ops,
                st.one_of(st.sampled_from(ops), st.tuples(st.just("replace"), junk_items)),
                add,
                added,
                quick=2,
            )
        ]
    assert seat == 0 and len(first) == size, "only seat 0 carries a first pass, a full deck"
    fresh = next(card_element(c) for c in range(104) if card_element(c) not in first)
    examples = (
        ("swap", 0, size - 1),
        ("set", 1, bytes(32)),
        ("set", 2, FIELD_P.to_bytes(32, "big")),
        ("set", 3, first[0]),
        ("set", 4, not_element(first[4])),
        ("reverse",),
        ("truncate", size - 1),
        ("truncate", 1),
        ("append", [fresh]),
        ("append", [fresh] * (105 - size)),  # 105 elements: over the schema bound
        *odd,
    )

    def edit(mm: dict[str, Any], op: tuple[Any, ...]) -> None:
        mm["body"]["shuffle"] = deck_after(mm["body"]["shuffle"], op)

    fields = [
        Field(
            "shuffle",
            examples,
            st.one_of(
                deck_ops(first, fresh), st.sampled_from(odd), st.tuples(st.just("replace"), junk_items)
            ),
            edit,
            lambda op: judge(deck_after(first, op)),
            quick=3,
        ),
        Field(
            "shuffle removed",
            ("drop",),
            st.just("drop"),
            lambda mm, v: mm["body"].pop("shuffle"),
            # Seat 0's shuffle step of round 0 is then due (section 5, Numbering).
            lambda v: Effect("unshuffled") if takes else Effect("unused"),
        ),
    ]
    if takes:
        # Without its next, a commit step comes: the pass is not taken, so not checked.
        def unkept(mm: dict[str, Any], v: Any) -> None:
            mm["body"].pop("next")
            mm["body"]["shuffle"] = deck_after(first, ("set", 2, FIELD_P.to_bytes(32, "big")))

        fields.append(
            Field(
                "next removed, pass broken",
                ("drop",),
                st.just("drop"),
                unkept,
                lambda v: Effect("recommit"),
                quick=0,
            )
        )
    return fields


def deck_after(deck: list[bytes] | None, op: tuple[Any, ...]) -> Any:
    """A copy of ``deck`` after ``op`` (``nil`` and ``replace`` set any value)."""
    if op[0] == "nil":
        return None
    if op[0] == "replace":
        return list(op[1])
    assert deck is not None
    d = list(deck)
    if op[0] == "swap":
        d[op[1]], d[op[2]] = d[op[2]], d[op[1]]
    elif op[0] == "set":
        d[op[1]] = op[2]
    elif op[0] == "truncate":
        del d[op[1] :]
    elif op[0] == "append":
        d.extend(op[1])
    elif op[0] == "reverse":
        d.reverse()
    else:
        raise AssertionError(op)
    return d


def deck_ops(deck: list[bytes], fresh: bytes) -> st.SearchStrategy[tuple[Any, ...]]:
    """Edits of ``deck``: an order changed, an element set, elements cut off or added."""
    idx = st.integers(0, len(deck) - 1)
    return st.one_of(
        st.tuples(st.just("swap"), idx, idx),
        st.tuples(
            st.just("set"), idx, st.one_of(st.sampled_from(ELEMENT_EDGES), bin32, st.sampled_from(deck))
        ),
        st.tuples(st.just("truncate"), st.integers(0, len(deck) - 1)),
        st.tuples(
            st.just("append"),
            st.lists(st.sampled_from([fresh, *ELEMENT_EDGES, deck[0]]), min_size=1, max_size=3),
        ),
        st.just(("reverse",)),
    )


def deck_fields(tx: Tx, i: int) -> list[Field]:
    b = tx.maps[i]["body"]
    deck: list[bytes] = b["deck"]
    size = len(deck)
    final = tx.next_pass(i) is None
    deferred = LATER if final else Effect("pass")
    fresh = next(card_element(c) for c in range(104) if card_element(c) not in deck)

    def edit(mm: dict[str, Any], op: tuple[Any, ...]) -> None:
        mm["body"]["deck"] = deck_after(mm["body"]["deck"], op)

    def effect(op: tuple[Any, ...]) -> Effect | None:
        if op[0] == "swap":
            return None if op[1] == op[2] else deferred
        if op[0] == "set":
            x = op[2]
            if x == deck[op[1]]:
                return None
            if not is_element(x) or x in deck:
                return NOW  # invalid element, or a repeat (section 3.6)
            return deferred
        if op[0] == "truncate":
            return NOW if op[1] < size else None
        if op[0] == "append":
            return NOW if op[1] else None
        if op[0] == "reverse":
            return None if size == 1 else deferred
        raise AssertionError(op)

    ops = deck_ops(deck, fresh)
    examples = (
        ("swap", 0, size - 1),
        ("set", 1, bytes(32)),
        ("set", 2, FIELD_P.to_bytes(32, "big")),
        ("set", 3, deck[0]),
        ("set", 4, not_element(deck[4])),
        ("reverse",),
        ("truncate", size - 1),
        ("append", [fresh]),
        ("append", [fresh] * (105 - size)),  # 105 elements: over the schema bound
    )
    return [
        Field(
            "round",
            (b["round"] + 1, 1000),
            st.integers(0, 1000),
            _set(("body", "round")),
            _same_or(b["round"], NOW),
        ),
        Field(
            "round range",
            (1001, -1),
            st.one_of(st.integers(1001, 2**32), st.integers(-(2**31), -1)),
            _set(("body", "round")),
            lambda v: NOW,
        ),
        Field("deck", examples, ops, edit, effect, quick=4),
    ]


def lock_fields(tx: Tx, i: int) -> list[Field]:
    """A lock: its pass, and its deal keys (round 0), carried or not."""
    b = tx.maps[i]["body"]
    seat, hand, rnd = tx.seat[i], tx.hand[i], b["round"]
    round0 = tx.passes[(hand, 0)]
    keyed = {tx.seat[k] for k in round0 if tx.type[k] == "lock" and "keys" in tx.maps[k]["body"]}
    fields = deck_fields(tx, i)
    if "keys" in b:
        assert rnd == 0 and keyed == set(range(N_SEATS)), "keys in every lock of round 0 or in none"
        fields += keys_fields(tx, i)
        fields.append(
            Field(
                "keys removed",
                ("drop",),
                st.just("drop"),
                lambda mm, v: mm["body"].pop("keys"),
                lambda v: Effect("unkeyed"),
            )
        )
        return fields
    own = [list(k) for k in tx.maps[tx.deal_keys[hand][seat]]["body"]["keys"]]

    def edit(mm: dict[str, Any], op: tuple[Any, ...]) -> None:
        if op[0] == "deal keys":
            mm["body"]["keys"] = [list(k) for k in own]
        elif op[0] == "some":
            mm["body"]["keys"] = [[r, pos, k.to_bytes(32, "big")] for r, pos, k in op[1]]
        elif op[0] == "nil":
            mm["body"]["keys"] = None

    def effect(op: tuple[Any, ...]) -> Effect:
        if op[0] == "deal keys" and rnd == 0:
            assert not keyed, "keys in every lock of round 0 or in none"
            return Effect("keyed")
        # Keys for other positions (or none), keys where no deal follows, nil: its author, at once.
        return NOW

    examples: tuple[tuple[Any, ...], ...] = (
        ("deal keys",),
        ("some", ()),
        ("some", ((0, 0, 1),)),
        ("nil",),
    )
    entries = st.lists(
        st.tuples(st.integers(0, 3), st.integers(0, 103), st.sampled_from(SCALAR_EDGES)), max_size=3
    ).map(tuple)
    ops = st.one_of(st.sampled_from(examples), st.tuples(st.just("some"), entries))
    fields.append(Field("keys added", examples, ops, edit, effect, quick=2))
    return fields


def keys_fields(tx: Tx, i: int) -> list[Field]:
    keys: list[list[Any]] = tx.maps[i]["body"]["keys"]
    count = len(keys)
    mine = tx.key_positions(i)

    def edit(mm: dict[str, Any], op: tuple[Any, ...]) -> None:
        ks = mm["body"]["keys"]
        if op[0] == "key":
            ks[op[1]][2] = op[2].to_bytes(32, "big")
        elif op[0] == "key bytes":
            ks[op[1]][2] = op[2]
        elif op[0] == "swap keys":
            ks[op[1]][2], ks[op[2]][2] = ks[op[2]][2], ks[op[1]][2]
        elif op[0] == "pos":
            ks[op[1]][1] = op[2]
        elif op[0] == "round":
            ks[op[1]][0] = op[2]
        elif op[0] == "drop":
            del ks[op[1]]
        elif op[0] == "dup":
            ks.append(list(ks[op[1]]))
        elif op[0] == "extra":
            ks.append([0, op[1], (7).to_bytes(32, "big")])
        elif op[0] == "short entry":
            ks[op[1]] = ks[op[1]][:2]

    def effect(op: tuple[Any, ...]) -> Effect | None:
        if op[0] == "key":
            k, v = op[1], op[2]
            if v == int.from_bytes(keys[k][2], "big"):
                return None
            if not 0 < v < ORDER:
                return NOW  # zero: schema; n or more: "a key outside the group order"
            return Effect("key", frozenset({(keys[k][0], keys[k][1])}))
        if op[0] == "key bytes":
            return NOW
        if op[0] == "swap keys":
            a, c = op[1], op[2]
            if keys[a][2] == keys[c][2]:
                return None
            return Effect("key", frozenset({(keys[a][0], keys[a][1]), (keys[c][0], keys[c][1])}))
        if op[0] in ("pos", "round"):
            k, v = op[1], op[2]
            return None if v == keys[k][1 if op[0] == "pos" else 0] else NOW
        return NOW  # another set of positions, or a broken entry

    idx = st.integers(0, count - 1)
    key_values = st.one_of(
        st.sampled_from(SCALAR_EDGES), st.integers(1, ORDER - 1), st.integers(ORDER, MAX_KEY)
    )
    ops = st.one_of(
        st.tuples(st.just("key"), idx, key_values),
        st.tuples(st.just("key bytes"), idx, not32),
        st.tuples(st.just("swap keys"), idx, idx),
        st.tuples(st.just("pos"), idx, st.integers(0, 200)),
        st.tuples(st.just("round"), idx, st.integers(0, 1200)),
        st.tuples(st.just("drop"), idx),
        st.tuples(st.just("dup"), idx),
        st.tuples(st.just("extra"), st.integers(0, 103)),
        st.tuples(st.just("short entry"), idx),
    )
    own = next(p for p in range(tx.rules.deck_size) if (0, p) not in mine)
    examples: list[tuple[Any, ...]] = [("key", 0, ORDER), ("key", 0, 1), ("pos", 0, own), ("drop", count - 1)]
    if count > 1:
        examples.append(("swap keys", 0, count - 1))
    examples += [("key", 0, 0), ("key", 0, ORDER + 1), ("key", 0, MAX_KEY), ("round", 0, 1), ("dup", 0)]
    examples += [("extra", own), ("short entry", 0)]
    return [Field("keys", tuple(examples), ops, edit, effect, quick=6)]


def play_fields(tx: Tx, i: int) -> list[Field]:
    b = tx.maps[i]["body"]
    cards: list[list[Any]] = b["cards"]
    count = len(cards)
    nines = all(is_nine(c[2]) for c in cards)
    never = tx.never_held(i)

    def edit(mm: dict[str, Any], op: tuple[Any, ...]) -> None:
        cs = mm["body"]["cards"]
        if op[0] == "key":
            cs[op[1]][3] = op[2].to_bytes(32, "big")
        elif op[0] == "card":
            cs[op[1]][2] = op[2]
        elif op[0] == "pos":
            cs[op[1]][0], cs[op[1]][1] = op[2]
        elif op[0] == "suit":
            mm["body"]["suit"] = op[1]
        elif op[0] == "same position twice":
            if count == 1:
                cs.append(list(cs[0]))
            else:
                cs[1] = list(cs[0])
        elif op[0] == "cards":
            mm["body"]["cards"] = [list(cs[0])] * op[1]

    def effect(op: tuple[Any, ...]) -> Effect | None:
        if op[0] == "key":
            k, v = op[1], op[2]
            if v == int.from_bytes(cards[k][3], "big"):
                return None
            return NOW if not 0 < v < ORDER else LATER  # a valid wrong key: the card does not open
        if op[0] == "card":
            k, v = op[1], op[2]
            if v == cards[k][2]:
                return None
            if not 0 <= v <= 103:
                return NOW  # schema
            claimed = [c[2] for c in cards]
            claimed[k] = v
            if tx.refused_publicly(i, claimed, b["suit"]):
                return NOW  # a claim the rules refuse: refused before the position is opened
            return LATER  # claims another card the rules allow: resolved at the reveal
        if op[0] == "pos":
            return NOW  # a position its author never holds
        if op[0] == "suit":
            v = op[1]
            if v == b["suit"]:
                return None
            if v in ("S", "H", "D", "C"):
                return LATER if nines else NOW  # a 9 may declare any suit; only a 9 declares
            return NOW  # no suit for a 9, or not a suit at all
        if op[0] == "same position twice":
            return NOW
        if op[0] == "cards":
            return NOW  # 0 or 3 cards: schema
        raise AssertionError(op)

    idx = st.integers(0, count - 1)
    key_values = st.one_of(
        st.sampled_from(SCALAR_EDGES), st.integers(1, ORDER - 1), st.integers(ORDER, MAX_KEY)
    )
    ops = st.one_of(
        st.tuples(st.just("key"), idx, key_values),
        st.tuples(st.just("card"), idx, st.integers(-3, 300)),
        st.tuples(st.just("pos"), idx, st.sampled_from(never)),
        st.tuples(st.just("suit"), st.one_of(st.none(), st.sampled_from("SHDC"), st.text(max_size=2))),
        st.just(("same position twice",)),
        st.tuples(st.just("cards"), st.sampled_from([0, 3])),
    )
    other_card = (cards[0][2] + 1) % 52
    examples = (
        ("key", 0, ORDER),
        ("card", 0, other_card),
        ("pos", 0, tx.up[tx.hand[i]]),
        ("suit", "S" if b["suit"] != "S" else "H"),
        ("key", 0, 1),
        ("same position twice",),
        ("key", 0, 0),
        ("key", 0, MAX_KEY),
        ("card", 0, 104),
        ("suit", None),
        ("cards", 0),
    )
    return [Field("play", examples, ops, edit, effect, quick=6)]


def declare_fields(tx: Tx, i: int) -> list[Field]:
    suit = tx.maps[i]["body"]["suit"]
    return [
        Field(
            "suit",
            ("S" if suit != "S" else "H", "X", None),
            st.one_of(st.sampled_from("SHDC"), st.text(max_size=2), st.none()),
            _set(("body", "suit")),
            _same_or(suit, lambda v: LATER if v in ("S", "H", "D", "C") else NOW),
        ),
    ]


def empty_fields(tx: Tx, i: int) -> list[Field]:
    return [
        Field(
            "extra body key",
            ("x",),
            st.text(max_size=4),
            lambda mm, k: mm["body"].__setitem__(k, 1),
            lambda v: NOW,
        ),
    ]


def result_fields(tx: Tx, i: int) -> list[Field]:
    b = tx.maps[i]["body"]
    totals, winners = b["totals"], b["winners"]

    def edit(mm: dict[str, Any], op: tuple[Any, ...]) -> None:
        if op[0] == "total":
            mm["body"]["totals"][op[1]] = op[2]
        elif op[0] == "totals":
            mm["body"]["totals"] = op[1]
        elif op[0] == "winners":
            mm["body"]["winners"] = op[1]

    def effect(op: tuple[Any, ...]) -> Effect | None:
        if op[0] == "total":
            return None if totals[op[1]] == op[2] else NOW
        if op[0] == "totals":
            return None if totals == op[1] else NOW
        if op[0] == "winners":
            return None if winners == op[1] else NOW
        raise AssertionError(op)

    ops = st.one_of(
        st.tuples(st.just("total"), st.integers(0, N_SEATS - 1), st.integers(-5, 2**31)),
        st.tuples(st.just("totals"), st.lists(st.integers(0, 200), max_size=7)),
        st.tuples(st.just("winners"), st.lists(st.integers(-1, 7), max_size=7)),
    )
    loser = next(s for s in range(N_SEATS) if s not in winners)
    examples = (
        ("total", 0, totals[0] + 1),
        ("winners", [loser]),
        ("winners", [*winners, loser]),
        ("totals", [*totals, 0]),
        ("total", 1, 2**30),
        ("total", 2, 2**30 + 1),
        ("totals", list(reversed(totals)) if totals != list(reversed(totals)) else [*totals[:2]]),
        ("winners", []),
        ("winners", [6]),
    )
    return [Field("result", examples, ops, edit, effect, quick=4)]


BODY_FIELDS: dict[str, Callable[[Tx, int], list[Field]]] = {
    "join": join_fields,
    "commit": commit_fields,
    "reveal": reveal_fields,
    "shuffle": deck_fields,
    "lock": lock_fields,
    "keys": keys_fields,
    "play": play_fields,
    "declare": declare_fields,
    "draw": empty_fields,
    "keep": empty_fields,
    "pass": empty_fields,
    "accept-skip": empty_fields,
    "result": result_fields,
}


def fields_of(tx: Tx, i: int, part: str) -> list[Field]:
    """The body fields or the header fields of record ``i``."""
    return BODY_FIELDS[tx.type[i]](tx, i) if part == "body" else header_fields(tx, i)


# --- one edit, audited ---------------------------------------------------------------


@dataclass
class Case:
    tx: Tx
    i: int
    fld: Field
    value: Any
    rechained: bool = False
    effect: Effect | None = field(init=False, default=None)
    records: list[RawRecord] | None = field(init=False, default=None)

    def __post_init__(self) -> None:
        self.effect = self.fld.effect(self.value)
        if self.effect is None:
            return
        m = copy.deepcopy(self.tx.maps[self.i])
        self.fld.edit(m, self.value)
        signer = self.effect.signer if self.effect.signer is not None else self.tx.seat[self.i]
        try:
            edited = sign_map(m, signer, self.tx.seed)
        except (OverflowError, TypeError, ValueError):  # msgpack cannot hold the value at all
            self.effect = None
            return
        if edited.raw in self.tx.raws:
            self.effect = None  # the very bytes of a record already in the file: nothing changed
            return
        if self.effect.kind == "terms":
            try:
                parse_record(edited.raw, edited.sig)
            except WireError:  # a join that does not read is its signer's
                self.effect = NOW
        records = list(self.tx.records)
        records[self.i] = edited
        if self.rechained:
            records = rechain(records, self.i, self.tx.seed)
        self.records = records

    @property
    def changed(self) -> bool:
        return self.effect is not None

    def describe(self) -> str:
        return (
            f"{self.tx.source.name} record {self.i} ({self.tx.type[self.i]}, seat {self.tx.seat[self.i]}, "
            f"step {self.tx.step[self.i]}), {self.fld.name} = {short(self.value)}"
            f"{' (chain rebuilt)' if self.rechained else ''}"
        )

    def problem(self) -> str | None:
        """None if the audit's verdict is the expected one, else what went wrong."""
        assert self.effect is not None and self.records is not None
        exp = expected(self.tx, self.i, self.effect, self.rechained)
        data = raw_records_file(self.records)
        try:
            report = audit_bytes(data)
        except Exception as e:  # the audit must never raise on a well-formed file
            return f"{self.describe()}: audit raised {type(e).__name__}: {e}"
        return verdict_problem(report, exp, self.describe())


def verdict_problem(report: AuditReport, exp: Expect, what: str) -> str | None:
    """None if the report is the verdict ``exp`` allows, else what is wrong with it."""
    wanted = f"expected one of {sorted(exp.pairs, key=str)} ({exp.why})"
    if getattr(report, "internal_error", False):
        return f"{what}: the audit failed internally: {report.problems}"
    if not exp.pairs:
        return None if report.valid else f"{what}: reported {report.problems}; expected VALID ({exp.why})"
    if report.valid:
        return f"{what}: reported VALID; {wanted}"
    blamed = [p for p in report.problems if p.seat is not None]
    if blamed:
        first = blamed[0]
        if (first.seat, first.record) not in exp.pairs:
            return f"{what}: blamed seat {first.seat} at record {first.record} ({first.what!r}); {wanted}"
        allowed = {s for s, _ in exp.pairs}
        innocent = [p for p in blamed if p.seat not in allowed]
        if innocent:
            return f"{what}: a later problem blames another seat: {innocent}"
        return None
    nobody = {r for s, r in exp.pairs if s is None}
    problems = [(p.record, p.what) for p in report.problems]
    if not nobody:
        return f"{what}: blamed nobody {problems}; {wanted}"
    if ANY not in nobody and not any(p.record in nobody for p in report.problems):
        return f"{what}: blamed nobody but at no expected record {problems}; {wanted}"
    return None


def short(v: Any) -> str:
    if isinstance(v, bytes):
        return f"<{len(v)} bytes {v[:4].hex()}..>"
    if isinstance(v, tuple | list):
        return "(" + ", ".join(short(x) for x in v) + ")"
    if isinstance(v, int) and abs(v) > 2**64:
        return hex(v)
    return repr(v)


# --- the transcripts hold what the tests need ------------------------------------------


def test_the_sources_hold_every_kind_of_record() -> None:
    kinds: set[str] = set()
    for source in SOURCES:
        tx = tx_of(source)
        assert audit_bytes(tx.data).valid
        assert raw_records_file(tx.records) == tx.data  # re-packing changes no byte
        assert all(sign_map(m, m["seat"], tx.seed) == r for m, r in zip(tx.maps, tx.records, strict=True))
        kinds |= set(tx.type)
    # Honest bots never pass (the stock never runs dry with nothing to recycle) and never dispute.
    assert kinds == set(BODY_FIELDS) - {"pass"}
    main = tx_of(MAIN)
    assert max(main.hand) >= 2 and "declare" in main.type
    assert any(r >= 1 for (_, r) in tx_of(RECYCLES).passes)  # recycle rounds
    assert tx_of(MAIN).up[1] == (0, 21)
    for source in SOURCES:
        tx = tx_of(source)
        reveals = [m["body"] for m in tx.maps if m["type"] == "reveal"]
        locks = [m["body"] for m in tx.maps if m["type"] == "lock" and m["body"]["round"] == 0]
        hand_commits = [i for i, t in enumerate(tx.type) if t == "commit" and tx.step[i] > 1]
        hands = range(1, max(tx.hand) + 1)
        # The shuffle records of round 0 of each hand, by seat: seat 0's is missing when
        # its reveal before the hand carried that pass.
        shufflers = {h: [tx.seat[k] for k in tx.passes[(h, 0)] if tx.type[k] == "shuffle"] for h in hands}
        assert not any("shuffle" in m["body"] for m in tx.maps if m["type"] == "reveal" and m["seat"] != 0)
        seat0 = [m["body"] for m in tx.maps if m["type"] == "reveal" and m["seat"] == 0]
        if source.old:  # a commit step, seat 0's shuffle step, a deal step per hand, as before
            assert not any("next" in b for b in reveals) and not any("keys" in b for b in locks)
            assert not any("shuffle" in b for b in seat0) and not tx.carried
            assert len(hand_commits) == N_SEATS * max(tx.hand) and len(tx.deal_steps) == max(tx.hand)
            assert all(shufflers[h] == list(range(N_SEATS)) for h in hands)
        else:  # every commitment and seat 0's first pass in a reveal, every deal key in a lock
            assert all("next" in b for b in reveals) and all("keys" in b for b in locks)
            assert not hand_commits and not tx.deal_steps
            assert all(len(b.get("shuffle", ())) == source.rules.deck_size for b in seat0)
            assert sorted(tx.carried) == list(hands)  # the reveal before every hand carried it
            assert all(shufflers[h] == list(range(1, N_SEATS)) for h in hands)
            assert all(tx.step[tx.passes[(h, 0)][0]] == tx.step[tx.carried[h]] + 1 for h in hands)
    assert max(tx_of(OLD).hand) >= 2 and tx_of(OLD).up[1] == (0, 21)


# --- record 0 names the table -------------------------------------------------------

OTHER_KEY = identity_for(5, MAIN.seed).public_key

# (what, edit, allowed (seat, record) of the first problem, why)
JOIN_ZERO: list[tuple[str, Callable[[dict[str, Any]], None], set[tuple[int | None, int | None]], str]] = [
    (
        "rules.target=31",
        lambda m: m["body"]["rules"].__setitem__("target", 31),
        {(None, 2)},
        "a possible table: seat 1's join is the first to disagree with it; a file cannot show whose fault",
    ),
    (
        "rules.hard_nines=True",
        lambda m: m["body"]["rules"].__setitem__("hard_nines", True),
        {(None, 2)},
        "a possible table: seat 1's join is the first to disagree with it; a file cannot show whose fault",
    ),
    (
        "roster name of seat 2",
        lambda m: m["body"]["roster"][2].__setitem__(0, "mallory"),
        {(None, 2)},
        "a possible table: seat 1's join is the first to disagree with it; a file cannot show whose fault",
    ),
    (
        "roster without seat 2",
        lambda m: m["body"]["roster"].pop(),
        {(None, 1)},
        "a 2-seat table: seat 1's join (3 seats) completes step 0 and disagrees: nobody",
    ),
    (
        "roster with a 4th seat",
        lambda m: m["body"]["roster"].append(["extra", OTHER_KEY]),
        {(None, ANY)},
        "step 0 waits for a 4th seat: joins are compared when it completes, never (or nobody on receipt)",
    ),
    (
        "rules.target=0",
        lambda m: m["body"]["rules"].__setitem__("target", 0),
        {(0, 0)},
        "seat 0 signed an impossible table",
    ),
    (
        "rules.tie='coin'",
        lambda m: m["body"]["rules"].__setitem__("tie", "coin"),
        {(0, 0)},
        "seat 0 signed an impossible table",
    ),
    (
        "rules.target='30'",
        lambda m: m["body"]["rules"].__setitem__("target", "30"),
        {(0, 0)},
        "seat 0 signed an impossible table",
    ),
    (
        "rules: unknown option",
        lambda m: m["body"]["rules"].__setitem__("bogus", True),
        {(0, 0)},
        "seat 0 signed an impossible table",
    ),
    (
        "rules.stacking_nines without double_nines",
        lambda m: m["body"]["rules"].__setitem__("stacking_nines", True),
        {(0, 0)},
        "seat 0 signed an impossible table",
    ),
    (
        "roster key of seat 1 = 32 zero bytes",
        lambda m: m["body"]["roster"][1].__setitem__(1, bytes(32)),
        {(0, 0)},
        "seat 0 signed a roster with an unusable key (section 3.7)",
    ),
    (
        "roster key of seat 2 = ff..ff",
        lambda m: m["body"]["roster"][2].__setitem__(1, b"\xff" * 32),
        {(0, 0)},
        "seat 0 signed a roster with a non-canonical key (section 3.7)",
    ),
    (
        "roster key of seat 1 = identity (01 00..00)",
        lambda m: m["body"]["roster"][1].__setitem__(1, b"\x01" + bytes(31)),
        {(0, 0)},
        "seat 0 signed a roster with a small-order key (section 3.7)",
    ),
    (
        "roster key of seat 2 = seat 0's key",
        lambda m: m["body"]["roster"][2].__setitem__(1, m["body"]["roster"][0][1]),
        {(0, 0)},
        "seat 0 signed a roster that gives two seats one key: an impossible table",
    ),
    (
        "roster: seats 1 and 2 swapped",
        lambda m: m["body"]["roster"].__setitem__(slice(1, 3), m["body"]["roster"][2:0:-1]),
        {(None, 1)},
        "seat 1's join does not verify under the key record 0 names for seat 1: nobody (7.1)",
    ),
    (
        "roster key of seat 1 = another valid key",
        lambda m: m["body"]["roster"][1].__setitem__(1, OTHER_KEY),
        {(None, 1)},
        "seat 1's join does not verify under the key record 0 names for seat 1: nobody (7.1)",
    ),
    (
        "roster key of seat 0 = another valid key",
        lambda m: m["body"]["roster"][0].__setitem__(1, OTHER_KEY),
        {(None, 0)},
        "record 0 does not verify under the key it names for its own seat: nobody (7.1)",
    ),
    (
        "game name 'hearts'",
        lambda m: m["body"].__setitem__("game", "hearts"),
        {(0, 0)},
        "seat 0 signed a join for another game",
    ),
    (
        "version 2",
        lambda m: m["body"].__setitem__("version", 2),
        {(None, 2)},
        "seat 0 signed another version than the audit's: other terms, nobody",
    ),
    (
        "header game id",
        lambda m: m.__setitem__("game", bytes(16)),
        {(None, 1)},
        "record 0 names the game id: seat 1's join is of 'another game', which blames nobody (7.1)",
    ),
    ("header prev", lambda m: m.__setitem__("prev", b"\x01" * 32), {(0, 0)}, "record 0 breaks the chain"),
    (
        "header step 1",
        lambda m: m.__setitem__("step", 1),
        {(0, 3)},
        "seat 0's two records for step 1: equivocation, at the second (its cut commit, record 3)",
    ),
    (
        "body version '1' (schema)",
        lambda m: m["body"].__setitem__("version", "1"),
        {(0, 0), (None, 0)},
        "unreadable, so not a join (7.1: nobody), or its signer, if another join's roster verifies it",
    ),
    (
        "body roster empty (schema)",
        lambda m: m["body"].__setitem__("roster", []),
        {(0, 0), (None, 0)},
        "unreadable, so not a join (7.1: nobody), or its signer, if another join's roster verifies it",
    ),
]


@pytest.mark.parametrize("case", JOIN_ZERO, ids=[c[0] for c in JOIN_ZERO])
def test_edits_of_the_first_join(
    case: tuple[str, Callable[[dict[str, Any]], None], set[tuple[int | None, int | None]], str],
) -> None:
    what, edit, allowed, why = case
    tx = tx_of(MAIN)
    m = copy.deepcopy(tx.maps[0])
    edit(m)
    records = list(tx.records)
    records[0] = sign_map(m, 0, tx.seed)
    assert records[0].raw != tx.records[0].raw
    try:
        report = audit_bytes(raw_records_file(records))
    except Exception as e:
        pytest.fail(f"record 0, {what}: audit raised {type(e).__name__}: {e}")
    problem = verdict_problem(report, Expect(frozenset(allowed), why), f"record 0, {what}")
    assert problem is None, problem


# --- a few edits by name, one verdict each (the loops below try many more) ----------------


def nth(tx: Tx, kind: str, k: int = 0) -> int:
    """Index of the k-th record of type ``kind``."""
    return [i for i, t in enumerate(tx.type) if t == kind][k]


# (id, record type, occurrence, field, value, chain rebuilt), of MAIN
NAMED: list[tuple[str, str, int, str, Any, bool]] = [
    ("play key n", "play", 0, "play", ("key", 0, ORDER), False),
    ("play key 2^256-1", "play", 0, "play", ("key", 0, MAX_KEY), False),
    ("play key 0 (schema)", "play", 0, "play", ("key", 0, 0), False),
    ("play card 104 (schema)", "play", 0, "play", ("card", 0, 104), False),
    ("play of the up card position", "play", 0, "play", ("pos", 0, (0, 21)), False),
    ("play of a non-9 declaring a suit", "play", 0, "play", ("suit", "H"), False),
    ("deal keys (in a lock) key n", "lock", 0, "keys", ("key", 0, ORDER), False),
    ("deal keys (in a lock) for its own position", "lock", 0, "keys", ("pos", 0, "own"), False),
    ("deal keys (in a lock) one short", "lock", 2, "keys", ("drop", 0), False),
    ("draw keys key n+1", "keys", 3, "keys", ("key", 0, ORDER + 1), False),
    ("shuffle with a repeated element", "shuffle", 0, "deck", ("set", 3, "deck[0]"), False),
    ("lock with an element not below p", "lock", 1, "deck", ("set", 2, FIELD_P.to_bytes(32, "big")), False),
    ("shuffle of the wrong round", "shuffle", 1, "round", 1, False),
    ("hand reveal of another secret", "reveal", 3, "secret", bytes(32), False),
    ("cut reveal of another secret", "reveal", 0, "secret", bytes(32), False),
    ("result with another total", "result", 1, "result", ("total", 0, 1), False),
    ("join (seat 1) with hard_nines 0", "join", 1, "rules.hard_nines", 0, False),
    ("join (seat 1) with hard_nines 0, chain rebuilt", "join", 1, "rules.hard_nines", 0, True),
    ("keep with a body field (schema)", "keep", 0, "extra body key", "x", False),
    ("dishonest shuffle: next step breaks the chain", "shuffle", 0, "deck", ("swap", 0, 51), False),
    ("dishonest shuffle, chain rebuilt", "shuffle", 0, "deck", ("swap", 0, 51), True),
    ("wrong deal key (in a lock), chain rebuilt", "lock", 1, "keys", ("key", 0, 1), True),
    ("wrong deal key for the up card (in a lock), chain rebuilt", "lock", 0, "keys", ("key", -1, 1), True),
    ("deal keys left out of a lock: a deal step of its author", "lock", 1, "keys removed", "drop", False),
    ("deal keys left out of a lock, chain rebuilt", "lock", 1, "keys removed", "drop", True),
    ("deal keys left out of the last lock, chain rebuilt", "lock", 2, "keys removed", "drop", True),
    ("wrong draw key, chain rebuilt", "keys", 3, "keys", ("key", 0, 1), True),
    ("cut commit broken, chain rebuilt", "commit", 0, "commit", bytes(32), True),
    ("hand commitment (cut-reveal next) broken, chain rebuilt", "reveal", 0, "next", bytes(32), True),
    ("hand commitment (reveal.next) broken, chain rebuilt", "reveal", 3, "next", bytes(32), True),
    ("hand commitment (reveal.next) broken, as signed", "reveal", 4, "next", bytes(32), False),
    ("next of the last reveal changed, chain rebuilt (unused: valid)", "reveal", -1, "next", bytes(32), True),
    ("next left out of the cut-reveal: a commit step is due", "reveal", 1, "next removed", "drop", False),
    ("next left out of a reveal, chain rebuilt", "reveal", 5, "next removed", "drop", True),
    ("next left out of the last reveal, chain rebuilt (valid)", "reveal", -2, "next removed", "drop", True),
    ("next of 31 bytes (schema)", "reveal", 2, "next size", bytes(31), False),
    (
        "seat 0's carried first pass altered: next step breaks the chain",
        "reveal",
        0,
        "shuffle",
        ("swap", 0, 51),
        False,
    ),
    ("seat 0's carried first pass altered, chain rebuilt", "reveal", 3, "shuffle", ("swap", 0, 51), True),
    (
        "seat 0's carried first pass with an element not below p",
        "reveal",
        0,
        "shuffle",
        ("set", 2, FIELD_P.to_bytes(32, "big")),
        False,
    ),
    (
        "seat 0's carried first pass with a repeated element, chain rebuilt",
        "reveal",
        3,
        "shuffle",
        ("set", 3, "shuffle[0]"),
        True,
    ),
    ("seat 0's carried first pass one element short", "reveal", 3, "shuffle", ("truncate", 51), False),
    ("seat 0's carried first pass empty (schema)", "reveal", 0, "shuffle", ("replace", []), False),
    (
        "carried pass removed: seat 0's shuffle step is due, the file ends",
        "reveal",
        0,
        "shuffle removed",
        "drop",
        False,
    ),
    ("carried pass removed, chain rebuilt", "reveal", 3, "shuffle removed", "drop", True),
    ("a carried pass from seat 1", "reveal", 1, "shuffle added", ("deck",), False),
    ("a carried pass from seat 2, chain rebuilt", "reveal", 5, "shuffle added", ("deck",), True),
    ("a carried pass from seat 1 in the last reveal", "reveal", -2, "shuffle added", ("deck",), False),
    (
        "last reveal's unused pass with a repeated element, chain rebuilt (valid)",
        "reveal",
        -3,
        "shuffle",
        ("set", 3, "shuffle[0]"),
        True,
    ),
    (
        "last reveal's unused pass of one element, chain rebuilt (valid)",
        "reveal",
        -3,
        "shuffle",
        ("truncate", 1),
        True,
    ),
    (
        "last reveal's unused pass removed, chain rebuilt (valid)",
        "reveal",
        -3,
        "shuffle removed",
        "drop",
        True,
    ),
    (
        "last reveal's unused pass of 105 elements (schema)",
        "reveal",
        -3,
        "shuffle",
        ("append", [bytes(32)] * 53),
        True,
    ),
    (
        "next left out of seat 0's reveal, its pass broken: unused, a commit step is due",
        "reveal",
        0,
        "next removed, pass broken",
        "drop",
        False,
    ),
    (
        "next left out of seat 0's reveal, its pass broken, chain rebuilt",
        "reveal",
        3,
        "next removed, pass broken",
        "drop",
        True,
    ),
    ("another declared suit: next step breaks the chain", "declare", 0, "suit", "C", False),
    ("record of another game", "draw", 0, "game", bytes(16), False),
    ("version 2 (schema)", "draw", 0, "v", 2, False),
    ("prev of another history", "shuffle", 1, "prev", bytes(32), False),
    ("shuffle moved one step ahead", "shuffle", 1, "step", "+1", False),
    ("shuffle moved one step back", "shuffle", 1, "step", "-1", False),
    ("commit moved one step ahead (equivocation with the reveal)", "commit", 1, "step", "+1", False),
    ("declare signed by a seat not at turn", "declare", 0, "seat", "+1", False),
    ("keys signed by a seat of the roster", "keys", 0, "seat", "+2", False),
    ("record of seat 3 (not in the roster)", "keys", 0, "seat", 3, False),
    ("draw retyped as keep", "draw", 0, "type", "keep", False),
    ("shuffle retyped as lock", "shuffle", 0, "type", "lock", False),
]


# The same, of another source.
NAMED_RECYCLES: list[tuple[str, str, int, str, Any, bool]] = [
    ("its deal keys in a lock of a recycle round", "lock", 3, "keys added", ("deal keys",), False),
    (
        "its deal keys in a lock of a recycle round, chain rebuilt",
        "lock",
        4,
        "keys added",
        ("deal keys",),
        True,
    ),
]
# Of OLD: the commit and deal steps of a table without next and lock keys.
NAMED_OLD: list[tuple[str, str, int, str, Any, bool]] = [
    ("deal keys key n", "keys", 0, "keys", ("key", 0, ORDER), False),
    ("deal keys for its own position", "keys", 0, "keys", ("pos", 0, "own"), False),
    ("wrong deal key, chain rebuilt", "keys", 1, "keys", ("key", 0, 1), True),
    ("hand commit broken, chain rebuilt", "commit", 3, "commit", bytes(32), True),
    ("a next nobody reads, chain rebuilt (valid)", "reveal", 1, "next", bytes(32), True),
    ("its own deal keys added to a lock", "lock", 1, "keys added", ("deal keys",), False),
    ("its own deal keys added to the last lock", "lock", 2, "keys added", ("deal keys",), False),
    ("its own deal keys added to a lock, chain rebuilt", "lock", 0, "keys added", ("deal keys",), True),
    ("empty keys added to a lock", "lock", 0, "keys added", ("some", ()), False),
    ("seat 0's first shuffle step, dishonest, chain rebuilt", "shuffle", 0, "deck", ("swap", 0, 51), True),
    (
        "a first pass added to seat 0's reveal: a commit step comes, unused",
        "reveal",
        0,
        "shuffle added",
        ("deck",),
        False,
    ),
    (
        "a first pass added to seat 0's reveal, chain rebuilt (valid)",
        "reveal",
        3,
        "shuffle added",
        ("deck",),
        True,
    ),
    (
        "a malformed first pass added to seat 0's reveal (schema)",
        "reveal",
        3,
        "shuffle added",
        ("nil",),
        True,
    ),
    ("a first pass added to seat 1's reveal", "reveal", 1, "shuffle added", ("deck",), False),
]
NAMED_ALL = (
    [(MAIN, n) for n in NAMED] + [(RECYCLES, n) for n in NAMED_RECYCLES] + [(OLD, n) for n in NAMED_OLD]
)


@pytest.mark.parametrize(
    ("source", "named"), NAMED_ALL, ids=[n[0] if s is MAIN else f"{s.name}: {n[0]}" for s, n in NAMED_ALL]
)
def test_named_edit(source: Source, named: tuple[str, str, int, str, Any, bool]) -> None:
    _, kind, k, name, value, rechained = named
    tx = tx_of(source)
    i = nth(tx, kind, k)
    m = tx.maps[i]
    if isinstance(value, tuple) and value[-1] in ("deck[0]", "shuffle[0]"):  # a repeated element
        value = (*value[:-1], m["body"][value[-1][:-3]][0])
    if isinstance(value, tuple) and value[-1] == "own":  # a position dealt to the author itself
        value = (*value[:-1], min(p for p in range(52) if (0, p) not in tx.key_positions(i)))
    if name == "step" and isinstance(value, str):
        value = m["step"] + int(value)
    if name == "seat" and isinstance(value, str):
        value = (m["seat"] + int(value)) % N_SEATS
    [f] = [f for part in ("body", "header") for f in fields_of(tx, i, part) if f.name == name]
    case = Case(tx, i, f, value, rechained)
    assert case.changed, "the edit must change the record"
    problem = case.problem()
    assert problem is None, problem


# --- every record of the first hand, a handful of edits each ---------------------------


def loop_cases(sources: tuple[Source, ...], part: str, rechained: bool, full: bool) -> Iterator[Case]:
    """Each record (of the first hand only, unless ``full``) x the examples of each field."""
    for source in sources:
        tx = tx_of(source)
        end = len(tx.maps) - 1 if full else max(i for i in range(len(tx.maps)) if tx.hand[i] == 1)
        for i in range(1, end + 1):
            for f in fields_of(tx, i, part):
                for value in f.examples if full else f.examples[: f.quick]:
                    case = Case(tx, i, f, value, rechained)
                    if case.changed and (not rechained or rechainable(f, case.effect)):  # type: ignore[arg-type]
                        yield case


def check_all(cases: Iterator[Case], minimum: int) -> None:
    problems = []
    count = 0
    for case in cases:
        count += 1
        p = case.problem()
        if p is not None:
            problems.append(p)
    assert count >= minimum
    assert not problems, f"{len(problems)} of {count} edits misjudged:\n" + "\n".join(problems)


LOOPS = [("body", False), ("body", True), ("header", False)]
LOOP_IDS = ["body-as-signed", "body-chain-rebuilt", "header-as-signed"]


@pytest.mark.parametrize(("part", "rechained"), LOOPS, ids=LOOP_IDS)
def test_every_record_of_the_first_hand(part: str, rechained: bool) -> None:
    check_all(loop_cases((MAIN,), part, rechained, full=False), minimum=150)


# --- hypothesis: any record, any field, any value --------------------------------------


def draw_case(data: st.DataObject, part: str, rechained: bool) -> Case:
    source = data.draw(st.sampled_from([MAIN, MAIN, RECYCLES, STACKING, OLD]), label="source")
    tx = tx_of(source)
    i = data.draw(st.integers(1, len(tx.maps) - 1), label="record")
    f = data.draw(st.sampled_from(fields_of(tx, i, part)), label="field")
    value = data.draw(f.values, label=f.name)
    case = Case(tx, i, f, value, rechained)
    assume(case.changed)
    assume(not rechained or rechainable(f, case.effect))  # type: ignore[arg-type]
    return case


def check_random(data: st.DataObject, part: str, rechained: bool) -> None:
    case = draw_case(data, part, rechained)
    problem = case.problem()
    assert problem is None, problem


SETTINGS = {"deadline": None, "suppress_health_check": [HealthCheck.too_slow, HealthCheck.filter_too_much]}


@settings(max_examples=100, **SETTINGS)  # type: ignore[arg-type]
@given(st.data())
def test_random_body_edit_as_signed(data: st.DataObject) -> None:
    check_random(data, "body", rechained=False)


@settings(max_examples=50, **SETTINGS)  # type: ignore[arg-type]
@given(st.data())
def test_random_body_edit_with_the_chain_rebuilt(data: st.DataObject) -> None:
    check_random(data, "body", rechained=True)


@settings(max_examples=60, **SETTINGS)  # type: ignore[arg-type]
@given(st.data())
def test_random_header_edit_as_signed(data: st.DataObject) -> None:
    check_random(data, "header", rechained=False)


# --- larger budgets: run with -m fuzz ---------------------------------------------------


def _needs_slow(request: pytest.FixtureRequest) -> None:
    if "fuzz" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("a large budget: run with -m fuzz")


@pytest.mark.fuzz
@pytest.mark.timeout(3600)
@pytest.mark.parametrize(("part", "rechained"), LOOPS, ids=LOOP_IDS)
def test_every_record_every_example_slow(request: pytest.FixtureRequest, part: str, rechained: bool) -> None:
    _needs_slow(request)
    check_all(loop_cases(SOURCES, part, rechained, full=True), minimum=1000)


@pytest.mark.fuzz
@pytest.mark.timeout(3600)
@pytest.mark.parametrize(("part", "rechained"), LOOPS, ids=LOOP_IDS)
def test_random_edits_slow(request: pytest.FixtureRequest, part: str, rechained: bool) -> None:
    _needs_slow(request)

    @settings(max_examples=2000, **SETTINGS)  # type: ignore[arg-type]
    @given(st.data())
    def run(data: st.DataObject) -> None:
        check_random(data, part, rechained)

    run()
