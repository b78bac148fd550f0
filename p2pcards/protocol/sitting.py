"""One seat's whole match, across the tables it takes when seats leave.

A match starts on one table. When a seat leaves for good (it signed a
``leave`` record, or this node judged it gone: it stayed away past its grace)
and at least two seats remain, the others continue on a new table without it
(:meth:`TableCore.continued_without`): fresh ids and keys, the roster without
the leaver, a fresh cut and deal, the totals carried. :class:`Sitting` is what
the network layer talks to across those tables: it keeps the seat numbers of
the first table on its side (peers, links, blame) and translates them to the
current table's, routes each record to the table its game id names, and holds
records of a continuation this node has not decided on yet. Like the tables,
it is sans-IO.

Each node decides by its own judgment who is gone; a continuation proposed by
another seat is never followed on its word alone (otherwise one seat could
push out another that is merely thinking). A new table is named by the set of
seats gone, not by the order they were judged gone in: a node that judges a
second seat gone before the new table's first step is complete amends its
continuation to leave both out, so nodes that saw two departures in another
order still meet at one table. Seats that judge differently otherwise end up
waiting for each other, and the ordinary timeouts settle it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from itertools import combinations
from typing import Any

from p2pcards.crypto.identity import verify_signature
from p2pcards.errors import RemoteProtocolError
from p2pcards.protocol import faults
from p2pcards.protocol.core import TableCore, continuation_id
from p2pcards.protocol.events import Event
from p2pcards.protocol.fingerprint import confirm_body
from p2pcards.protocol.messages import Continue, Player
from p2pcards.protocol.steplog import ANOTHER_GAME, MAX_QUEUED, unreadable_signer
from p2pcards.protocol.wire import (
    MAX_EVIDENCE,
    SIGN_PREFIX,
    Evidence,
    Frame,
    SignedRecord,
    WireError,
    decode_frame,
    quote_claim,
)

MIN_TO_CONTINUE = 2
"""Seats that must remain for the match to go on without those that left."""

TIMED_OUT = "lost connection and did not come back within"
"""How the network layer begins its reason for judging gone a seat whose grace ran out
(``net.runner``): the audit reads such a departure as a time-out."""


class Sitting:
    """The seat's current table, with the seat numbers of the first table outside.

    Attributes not defined here (``step``, ``spec``, ``match``, ``view``, ``act``...)
    are the current table's: they use its seat numbers, as its events do.
    """

    def __init__(self, table: TableCore) -> None:
        self.tables: list[TableCore] = [table]
        self._maps: list[list[int]] = [list(range(table.n))]
        """For each table, the first table's seat of each of its seats."""
        self._ahead: dict[bytes, list[SignedRecord]] = {}
        self._ahead_by: dict[bytes, int] = {}
        """How many of the records held in ``_ahead`` each author (by key) signed: bounded by
        ``MAX_QUEUED`` across every table that may come next, as rule 5 bounds one table's."""
        self._events: deque[Event] = deque()
        self._outbox: list[bytes] = []
        self._journal: list[SignedRecord] = []
        self._failure: tuple[RemoteProtocolError, RemoteProtocolError] | None = None
        self._without_me: dict[bytes, set[int]] = {}  # table -> seats that went on without this one
        self._ids: dict[bytes, dict[bytes, tuple[int, ...]]] = {}  # table id -> continuation id -> seats
        self._forged: str | None = None  # what a frame being routed held that its seat did not sign
        self._verified: set[bytes] = set()  # signatures of held continue records found valid
        self.left_alone: tuple[str, str] | None = None
        """(name, reason) of the seat whose signed leave left this one with nobody to play on
        with: the match stops here, and nobody is at fault."""

    def __getattr__(self, name: str) -> Any:
        return getattr(self.current, name)

    @property
    def current(self) -> TableCore:
        return self.tables[-1]

    @property
    def _old(self) -> list[int]:
        """The first table's seat of each seat of the current table."""
        return self._maps[-1]

    # -- the first table's seat numbers -----------------------------------------

    @property
    def roster(self) -> tuple[Player, ...]:
        return self.tables[0].roster

    @property
    def game_id(self) -> bytes:
        """The id of the table the players joined (a continuation has its own)."""
        return self.tables[0].game_id

    @property
    def seat(self) -> int | None:
        return self.tables[0].seat

    @property
    def n(self) -> int:
        return self.tables[0].n

    @property
    def present(self) -> tuple[int, ...]:
        """The seats (first table's numbers) still at the table."""
        return tuple(self._old)

    @property
    def waiting_for(self) -> tuple[int, ...]:
        return tuple(self._old[s] for s in self.current.waiting_for)

    @property
    def stopped(self) -> dict[int, tuple[int, str]]:
        return {self._old[s]: v for s, v in self.current.stopped.items()}

    def stopped_by_relay(self, seat: int) -> bool:
        """Whether ``seat`` (first table's number) said it stops only through a relay."""
        here = self._index(seat)
        return here is not None and self.current.stopped_by_relay(here)

    @property
    def failure(self) -> RemoteProtocolError | None:
        failure = self.current.failure
        if failure is None or failure.peer is None:
            return failure
        if self._failure is None or self._failure[0] is not failure:
            mapped = RemoteProtocolError(self._old[failure.peer], failure.problem, record=failure.record)
            self._failure = (failure, mapped)
        return self._failure[1]

    @property
    def suspect_seat(self) -> int | None:
        """In a chain dispute, the seat (first table's number) whose record is disputed."""
        suspect = self.current.log.suspect
        return None if suspect is None or suspect[0] is None else self._old[suspect[0]]

    def carriable(self, origin: int, frame: Frame) -> str | None:
        """Why a seat must not carry ``frame`` for ``origin`` (see StepLog.carriable). A record
        of any table of the match may be carried, a table that may continue one of them
        included: a seat that went on without another first sends its records there."""
        if self._index(origin) is None:
            return faults.NO_LONGER_AT_TABLE.format(seat=origin)
        if isinstance(frame, Evidence):
            problems = [self._carriable_record(rec) for rec in frame.records]
            return next((p for p in problems if p is not None), None)
        if isinstance(frame, SignedRecord):
            return self._carriable_record(frame)
        return self.current.log.carriable(frame)

    def _carriable_record(self, rec: SignedRecord) -> str | None:
        problems = [t.log.carriable(rec) for t in self.tables]  # (a record of an earlier table is fine)
        if None in problems:
            return None
        seat, step = rec.record.seat, rec.record.step
        for t in self.tables:
            gone = self._continuations(t).get(rec.record.game_id)
            if gone is None:
                continue
            roster = [p for s, p in enumerate(t.roster) if s not in gone]
            if not 0 <= seat < len(roster):
                return faults.RECORD_NOT_AT_TABLE.format(seat=seat)
            if not verify_signature(roster[seat].key, rec.sig, SIGN_PREFIX + rec.raw):
                return faults.RECORD_NOT_SIGNED.format(step=step, seat=seat)
            return None
        own = [p for p in problems if p != ANOTHER_GAME]  # said by the table the record names
        return (own or problems)[-1]

    def _index(self, seat: int) -> int | None:
        return self._old.index(seat) if seat in self._old else None

    # -- the tables that may come next --------------------------------------------

    def _bases(self) -> list[int]:
        """The tables a next one may continue (by index): the current one, and the one
        before it while the current one's first step is not complete (it may be amended)."""
        t = self.current
        amendable = len(self.tables) > 1 and t.step == 0 and t.status in ("running", "disputed")
        return [len(self.tables) - 1, len(self.tables) - 2] if amendable else [len(self.tables) - 1]

    def _continuations(self, base: TableCore) -> dict[bytes, tuple[int, ...]]:
        """Every table that may continue ``base``: its id, and the seats of ``base`` it leaves out."""
        ids = self._ids.get(base.game_id)
        if ids is None:
            ids = {
                continuation_id(base.game_id, gone): gone
                for k in range(1, base.n - MIN_TO_CONTINUE + 1)
                for gone in combinations(range(base.n), k)
            }
            self._ids[base.game_id] = ids
        return ids

    def _next_table(self, gid: bytes) -> tuple[int, tuple[int, ...]] | None:
        """(base table index, seats left out) if ``gid`` names a table that may come next."""
        for b in self._bases():
            gone = self._continuations(self.tables[b]).get(gid)
            if gone is not None:
                return b, gone
        return None

    # -- input -------------------------------------------------------------------

    def start(self) -> None:
        self.current.start()

    def receive(self, peer: int, data: bytes) -> None:
        """Like :meth:`receive_frame`, for a frame's bytes."""
        if self._index(peer) is None:
            return
        try:
            frame = decode_frame(data)
        except WireError as e:
            self.blame_unreadable(peer, faults.MALFORMED_FRAME.format(error=e), e)
            return
        self.receive_frame(peer, frame)

    def blame_unreadable(self, peer: int, problem: str, error: WireError) -> None:
        """``peer`` delivered something that does not read (``problem`` says what). A record
        in it that does not read but carries the valid signature of the seat its bytes name,
        read against the first roster as the audit reads it, blames that seat instead (see
        :func:`unreadable_signer`); of a seat gone from the table, it is ignored."""
        found = unreadable_signer(self.roster, self.seat, error)
        if found is None:
            self.blame(peer, problem)
            return
        seat, raw, sig, why = found
        index = self._index(seat)
        if index is not None:
            self.current.blame_signer(index, raw, sig, faults.MALFORMED_RECORD.format(error=why))

    def receive_frame(self, peer: int, frame: Frame) -> None:
        """A frame from ``peer``'s link. A seat that left is no longer heard."""
        index = self._index(peer)
        if index is None:
            return
        routed = self._route(frame)
        self._blame_forged(index)
        if routed is not None:
            self.current.receive_frame(index, routed)
        self._follow_leaves()

    def receive_relayed(self, relay: int, origin: int, frame: Frame) -> None:
        r, o = self._index(relay), self._index(origin)
        if r is None or o is None:
            return
        routed = self._route(frame)
        self._blame_forged(r)
        if routed is not None:
            self.current.receive_relayed(r, o, routed)
        self._follow_leaves()

    def receive_record(self, rec: SignedRecord) -> None:
        """A record read from a file (the audit, an observer): the first record of a
        continuation moves the observer to it; its first step then checks every
        claim, this record's too."""
        gid = rec.record.game_id
        if self.current.seat is None and gid != self.current.game_id:
            found = self._next_table(gid)
            if found is not None:
                base, gone = found
                body = rec.record.body
                self._continue(base, gone, body.reason if isinstance(body, Continue) else "")
        if gid != self.current.game_id and any(t.game_id == gid for t in self.tables):
            return  # a record of a table the match has left
        self.current.receive_record(rec)

    def _route(self, frame: Frame) -> Frame | None:
        """The part of ``frame`` for the current table: records of a table the match
        left are dropped, those of a continuation not decided on yet are held."""
        if isinstance(frame, SignedRecord):
            return frame if self._keep(frame) else None
        if isinstance(frame, Evidence):
            kept = tuple(r for r in frame.records if self._keep(r))
            if len(kept) == len(frame.records):
                return frame
            return Evidence(kept) if kept else None
        return frame

    def _keep(self, rec: SignedRecord) -> bool:
        gid = rec.record.game_id
        if gid == self.current.game_id:
            return True
        if any(t.game_id == gid for t in self.tables):
            return False
        found = self._next_table(gid)
        if found is None:
            return True  # another game's: the table blames whoever sent it
        base, gone = found
        me = self.tables[base].seat
        if me is not None and me in gone:
            self._pushed_out(rec, base, gone)
        else:
            key = self._signed_there(rec, base, gone)
            if key is None:  # not signed by the seat it names there: whoever sent it is blamed
                self._forged = self._forged or self._forged_problem(rec, base, gone)
                return False
            if self._ahead_by.get(key, 0) < MAX_QUEUED:  # (an honest seat is never that far ahead)
                self._ahead_by[key] = self._ahead_by.get(key, 0) + 1
                self._ahead.setdefault(gid, []).append(rec)
        return False

    def _forged_problem(self, rec: SignedRecord, base: int, gone: tuple[int, ...]) -> str:
        """What a record of the table continuing ``self.tables[base]`` without ``gone`` is,
        when the seat it names there did not sign it (or no seat is there by its number)."""
        others = [p for s, p in enumerate(self.tables[base].roster) if s not in gone]
        r = rec.record
        if not 0 <= r.seat < len(others):
            return faults.SENT_NOT_AT_NEXT.format(step=r.step, seat=r.seat)
        return faults.SENT_FORGED_NEXT.format(step=r.step, name=others[r.seat].name)

    def _blame_forged(self, sender: int) -> None:
        """Blame ``sender`` (the peer that delivered it, its author or a forwarder: protocol.md
        section 12, as section 4's rule 1 for a record of the table itself) for a record of a
        table that may continue this one that the seat it names there did not sign, found
        in what it sent (:meth:`_keep`): a forged record, never the fault of the seat named."""
        problem, self._forged = self._forged, None
        c = self.current
        if problem is not None and c.status in ("running", "disputed"):
            c.blame(sender, problem)

    def _signed_there(self, rec: SignedRecord, base: int, gone: tuple[int, ...]) -> bytes | None:
        """The key of the seat that ``rec`` names at the table continuing ``self.tables[base]``
        without ``gone`` (that table's roster: this one's without them), if that seat signed
        it; else None."""
        others = [p for s, p in enumerate(self.tables[base].roster) if s not in gone]
        if not 0 <= rec.record.seat < len(others):
            return None
        key = others[rec.record.seat].key
        if rec.sig not in self._verified:
            if not verify_signature(key, rec.sig, SIGN_PREFIX + rec.raw):
                return None
            self._verified.add(rec.sig)
        return key

    def _pushed_out(self, rec: SignedRecord, base: int, gone: tuple[int, ...]) -> None:
        """A record of a table that continues without this seat. Once every other
        seat has signed its ``continue`` there, they all judged this seat gone (its
        link or its clock may be to blame: nobody is named); one seat's word alone
        changes nothing."""
        author = self._continue_signer(rec, base, gone)
        if author is None:
            return
        signed = self._without_me.setdefault(rec.record.game_id, set())
        signed.add(author)
        c = self.current
        others = self.tables[base].n - len(gone)
        if len(signed) == others and c.failure is None and c.status in ("running", "disputed"):
            c.stop(faults.WENT_ON_WITHOUT)

    def _continue_signer(self, rec: SignedRecord, base: int, gone: tuple[int, ...]) -> int | None:
        """The seat (of the table continuing ``self.tables[base]`` without ``gone``) that
        signed ``rec``, if it is a valid ``continue`` record of that table; else None."""
        t = self.tables[base]
        body, author = rec.record.body, rec.record.seat
        others = [p for s, p in enumerate(t.roster) if s not in gone]
        if (
            not isinstance(body, Continue)
            or body.game != t.game_id
            or body.left != gone
            or not 0 <= author < len(others)
        ):
            return None
        if rec.sig not in self._verified:
            if not verify_signature(others[author].key, rec.sig, SIGN_PREFIX + rec.raw):
                return None
            self._verified.add(rec.sig)
        return author

    def _follow_leaves(self) -> None:
        """A seat signed that it leaves: go on without it."""
        for seat, reason in sorted(self.current.departed.items()):
            running = self.current.status in ("running", "disputed")
            if seat == self.current.seat or not running:
                continue
            if len(self._old) - 1 < MIN_TO_CONTINUE:  # nobody to go on with: the match stops here
                name = self.current.roster[seat].name
                self.left_alone = (name, reason)  # a signed leave is no fault: nobody is blamed
                said = quote_claim(reason)
                self.current.stop(faults.LEFT_NOBODY_REMAINS.format(name=name, said=said))
            else:
                self.continue_without(self._old[seat], reason)
            return

    def proposed_without(self) -> set[int]:
        """The seats (first table's numbers) that a continuation begun by another seat
        leaves out: its first records are held here. A node that judged such a seat gone
        by itself follows at once (:meth:`drop`), even when its own table does not wait
        for that seat yet: two judgments agree, and a node that saw fewer of the gone
        seat's last records must not wait for the others at a table they have left."""
        out: set[int] = set()
        for gid in self._ahead:
            found = self._next_table(gid)
            if found is not None:
                base, gone = found
                out.update(self._maps[base][g] for g in gone)
        return out

    def gone_on_without(self) -> dict[int, set[int]]:
        """For each seat (first table's numbers) that a continuation held here leaves out,
        the seats that signed its ``continue`` record, signatures checked: those that
        went on without it. A node cannot judge a seat that it reaches only through a
        relay (the carrier may drop what it sends, or it may have hung up); it follows
        the seats that carry for it once they all went on (protocol.md section 12)."""
        out: dict[int, set[int]] = {}
        for gid, held in self._ahead.items():
            found = self._next_table(gid)
            if found is None:
                continue
            base, gone = found
            seats = [s for s in range(self.tables[base].n) if s not in gone]
            signers = (self._continue_signer(rec, base, gone) for rec in held)
            firsts = {self._maps[base][seats[a]] for a in signers if a is not None}
            for g in gone:
                out.setdefault(self._maps[base][g], set()).update(firsts)
        return out

    def waits_too(self, carrier: int, seat: int) -> bool:
        """Whether ``carrier``'s latest ``need`` on its own link says that it is stuck at
        this step without ``seat``'s record, as this node is (first table's numbers)."""
        c, s = self._index(carrier), self._index(seat)
        need = None if c is None else self.current.log.last_need.get(c)
        return need is not None and s is not None and need.step == self.current.step and s not in need.have

    def can_go_on_without(self, seat: int) -> bool:
        """Whether the match would go on (at a new table) if ``seat`` left now."""
        return seat in self._old and len(self._old) - 1 >= MIN_TO_CONTINUE

    def drop(self, seat: int, problem: str) -> bool:
        """``seat`` is gone (it left, or stayed away too long): continue without it
        if enough seats remain (True), otherwise blame it as a silent seat is
        blamed (raises RemoteProtocolError)."""
        index = self._index(seat)
        t = self.current
        if index is None:
            return True
        if (
            t.status not in ("running", "disputed")
            or t.failure is not None
            or index == t.seat
            or len(self._old) - 1 < MIN_TO_CONTINUE
        ):
            t.blame(index, problem)
            return False
        self.continue_without(seat, problem)
        return True

    def continue_without(self, seat: int, reason: str) -> None:
        """Move to the table that continues the match without ``seat`` (first table's
        number). While the current table is itself a new one whose first step is not
        complete, the seats it leaves out are left out too (its first step cannot
        complete without ``seat`` either): one table without all of them."""
        bases = self._bases()
        base = bases[-1]
        gone = {self._maps[base].index(seat)}
        if base != bases[0]:
            carry = self.current.carry
            assert carry is not None
            gone |= set(carry.left)
            reason = carry.reason
        self._continue(base, tuple(sorted(gone)), reason)

    def _continue(self, base: int, gone: tuple[int, ...], reason: str) -> None:
        """Go on at the table that continues ``self.tables[base]`` without ``gone``."""
        for old in self.tables[base:]:
            if old.failure is None and old.status in ("running", "disputed"):
                old.stop(faults.ANOTHER_TABLE)
            self._outbox += old.drain()
            self._journal += old.drain_journal()
            while (event := old.next_event()) is not None:
                self._events.append(event)
        nxt = self._switch(base, gone, reason)
        held = self._ahead.pop(nxt.game_id, [])
        self._ahead.clear()
        self._ahead_by.clear()
        if nxt.seat is not None:
            nxt.start()
        for rec in held:
            if nxt.failure is None:
                try:
                    nxt.receive_record(rec)
                except RemoteProtocolError:
                    break

    def _switch(self, base: int, gone: tuple[int, ...], reason: str) -> TableCore:
        """Make the table that continues ``self.tables[base]`` without ``gone`` the current
        one (replacing any after ``base``: a new table whose first step was left incomplete)."""
        nxt = self.tables[base].continued_without(gone, reason)
        mapping = [o for i, o in enumerate(self._maps[base]) if i not in gone]
        del self.tables[base + 1 :], self._maps[base + 1 :]
        self.tables.append(nxt)
        self._maps.append(mapping)
        return nxt

    def leave(self, reason: str) -> None:
        """This seat leaves the match for good (it signs so)."""
        self.current.leave(reason)

    def confirm(self, same: bool) -> bool:
        """This seat's person compared the table fingerprint (``same``: the digits agree):
        sign it into the first table, whose fingerprint was shown. False if too late
        (the match went on at another table, or is over) or too early (before the cut)."""
        first = self.tables[0]
        if first is not self.current:
            return False
        body = confirm_body(first, same)
        return body is not None and first.sign_confirm(body)

    def fingerprint_answered(self) -> bool:
        """No answer about the table fingerprint is still to be asked of this seat's person:
        it is signed (perhaps before a crash), or too late (the match went on at another table)."""
        first = self.tables[0]
        return first is not self.current or first.fingerprint_answered()

    def blame(self, peer: int, problem: str) -> None:
        index = self._index(peer)
        if index is not None:
            self.current.blame(index, problem)

    def restore(self, records: Sequence[SignedRecord]) -> None:
        """Back from a crash: the first table from its records, then each table this
        seat had signed into (its own ``continue`` record there; of two that continue
        one table, the later it wrote in)."""
        groups: dict[bytes, list[SignedRecord]] = {}
        for rec in records:
            groups.setdefault(rec.record.game_id, []).append(rec)
        latest = {rec.record.game_id: i for i, rec in enumerate(records)}
        self.current.restore(groups.pop(self.current.game_id, []))
        while True:
            signed = []  # (when, id, base, gone, its continue's reason) of the tables this seat signed into
            for gid, recs in groups.items():
                found = self._next_table(gid)
                if found is None:
                    continue
                base, gone = found
                seat = _seat_without(self.tables[base].seat, gone)
                own = [
                    r.record.body.reason
                    for r in recs
                    if r.record.seat == seat and isinstance(r.record.body, Continue)
                ]
                if own:
                    signed.append((latest[gid], gid, base, gone, own[0]))
            if not signed:
                break
            _, gid, base, gone, reason = max(signed, key=lambda x: x[0])
            for _, other, *_rest in signed:
                if other != gid:
                    groups.pop(other)  # a table it signed into, then amended
            while (event := self.tables[base].next_event()) is not None:
                self._events.append(event)
            self._switch(base, gone, reason).restore(groups.pop(gid))
        for gid, recs in groups.items():
            self._ahead[gid] = recs[:MAX_QUEUED]

    # -- output ------------------------------------------------------------------

    def next_event(self) -> Event | None:
        if self._events:
            return self._events.popleft()
        return self.current.next_event()

    def drain(self) -> list[bytes]:
        out, self._outbox = self._outbox, []
        return out + self.current.drain()

    def drain_replies(self) -> dict[int, list[bytes]]:
        return {self._old[p]: frames for p, frames in self.current.drain_replies().items()}

    def drain_journal(self) -> list[SignedRecord]:
        out, self._journal = self._journal, []
        return out + self.current.drain_journal()

    def link_reset(self, peer: int) -> list[bytes]:
        index = self._index(peer)
        return [] if index is None else self.current.link_reset(index)

    def went_on_frame(self, seat: int) -> bytes | None:
        """An ``evidence`` frame of the ``continue`` records this node holds of the table
        that went on without ``seat`` (first table's number), or None: sent to that seat when
        it links again, before its link is closed, so that it learns the others went on
        (protocol.md section 12) instead of waiting out its clocks."""
        for k in range(1, len(self.tables)):
            if seat not in self._maps[k]:
                records = self.tables[k].records_to_save()
                held = tuple(r for r in records if isinstance(r.record.body, Continue))[:MAX_EVIDENCE]
                return Evidence(held).to_frame() if held else None
        return None

    def records_to_save(self) -> list[SignedRecord]:
        """Every table's records, in the order the match took them."""
        return [r for t in self.tables for r in t.records_to_save()]

    def pairs_to_save(self) -> list[tuple[bytes, bytes]]:
        """``[raw, sig]`` of each record of the file: :meth:`records_to_save`, then the
        signed record that does not read, if this node blamed its signer for it."""
        pairs = [(r.raw, r.sig) for r in self.records_to_save()]
        return pairs + [t.unreadable for t in self.tables if t.unreadable is not None]


def _seat_without(seat: int | None, gone: Sequence[int]) -> int | None:
    """``seat``'s number at the table that continues its own without the seats ``gone``."""
    return None if seat is None else seat - sum(1 for s in gone if s < seat)


SeatTable = TableCore | Sitting
"""A seat's table as the network layer hands it on (to a decider, a screen, a fingerprint):
a :class:`Sitting`, whose other attributes are its current table's, or a bare table."""
