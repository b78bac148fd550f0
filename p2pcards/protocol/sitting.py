"""One seat's whole match, across the tables it takes when seats leave.

A match starts on one table. When a seat leaves for good (it signed a
``leave`` record, or this node judged it gone: it stayed away past its grace,
or let its turn run out) and at least two seats remain, the others continue
on a new table without it (:meth:`TableCore.continued_without`): fresh ids and
keys, the roster without the leaver, a fresh cut and deal, the totals carried.
:class:`Sitting` is what the network layer talks to across those tables: it
keeps the seat numbers of the first table on its side (peers, links, blame)
and translates them to the current table's, routes each record to the table
its game id names, and holds records of a continuation this node has not
decided on yet. Like the tables, it is sans-IO.

Each node decides by its own judgment who is gone; a continuation proposed by
another seat is never followed on its word alone (otherwise one seat could
push out another that is merely thinking). Seats that judge differently end
up waiting for each other, and the ordinary timeouts settle it.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Sequence
from typing import Any

from p2pcards.crypto.identity import verify_signature
from p2pcards.errors import RemoteProtocolError
from p2pcards.protocol.core import TableCore, continuation_id
from p2pcards.protocol.events import Event
from p2pcards.protocol.messages import Continue, Player
from p2pcards.protocol.steplog import MAX_QUEUED
from p2pcards.protocol.wire import (
    SIGN_PREFIX,
    Evidence,
    Frame,
    SignedRecord,
    WireError,
    decode_frame,
    quote_claim,
)

MIN_TO_CONTINUE = 2
"""Seats that must remain for the match to go on without one that left."""


class Sitting:
    """The seat's current table, with the seat numbers of the first table outside.

    Attributes not defined here (``step``, ``spec``, ``match``, ``view``, ``act``...)
    are the current table's: they use its seat numbers, as its events do.
    """

    def __init__(self, table: TableCore) -> None:
        self.tables: list[TableCore] = [table]
        self.current = table
        self._old: list[int] = list(range(table.n))
        """The first table's seat of each seat of the current table."""
        self._ahead: dict[bytes, list[SignedRecord]] = {}
        self._events: deque[Event] = deque()
        self._outbox: list[bytes] = []
        self._journal: list[SignedRecord] = []
        self._failure: tuple[RemoteProtocolError, RemoteProtocolError] | None = None
        self._without_me: dict[bytes, set[int]] = {}  # table -> seats that went on without this one

    def __getattr__(self, name: str) -> Any:
        return getattr(self.current, name)

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

    @property
    def failure(self) -> RemoteProtocolError | None:
        failure = self.current.failure
        if failure is None or failure.peer is None:
            return failure
        if self._failure is None or self._failure[0] is not failure:
            mapped = RemoteProtocolError(self._old[failure.peer], failure.problem, record=failure.record)
            self._failure = (failure, mapped)
        return self._failure[1]

    def _index(self, seat: int) -> int | None:
        return self._old.index(seat) if seat in self._old else None

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
            self.blame(peer, f"malformed frame: {e}")
            return
        self.receive_frame(peer, frame)

    def receive_frame(self, peer: int, frame: Frame) -> None:
        """A frame from ``peer``'s link. A seat that left is no longer heard."""
        index = self._index(peer)
        if index is None:
            return
        routed = self._route(frame)
        if routed is not None:
            self.current.receive_frame(index, routed)
        self._follow_leaves()

    def receive_relayed(self, relay: int, origin: int, frame: Frame) -> None:
        r, o = self._index(relay), self._index(origin)
        if r is None or o is None:
            return
        routed = self._route(frame)
        if routed is not None:
            self.current.receive_relayed(r, o, routed)
        self._follow_leaves()

    def receive_record(self, rec: SignedRecord) -> None:
        """A record read from a file (the audit, an observer): the first record of a
        continuation moves the observer to it; the records prove what it checks."""
        t = self.current
        if t.seat is None and rec.record.game_id != t.game_id and len(self._old) - 1 >= MIN_TO_CONTINUE:
            body = rec.record.body
            left = next((s for s in range(t.n) if rec.record.game_id == continuation_id(t.game_id, s)), None)
            if left is not None:  # its step 0 then checks every claim, this one's too
                self.continue_without(self._old[left], body.reason if isinstance(body, Continue) else "")
        gid = rec.record.game_id
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
        me = self.current.seat
        if me is not None and gid == continuation_id(self.current.game_id, me):
            self._pushed_out(rec)
            return False
        for s in range(self.current.n):
            if s != self.current.seat and gid == continuation_id(self.current.game_id, s):
                held = self._ahead.setdefault(gid, [])
                if len(held) < MAX_QUEUED:
                    held.append(rec)
                return False
        return True  # another game's: the table blames whoever sent it

    def _pushed_out(self, rec: SignedRecord) -> None:
        """A record of the table that continues without this seat. Once every other
        seat has signed its ``continue`` there, they all judged this seat gone (its
        link or its clock may be to blame: nobody is named); one seat's word alone
        changes nothing."""
        t = self.current
        assert t.seat is not None
        body, author = rec.record.body, rec.record.seat
        others = [p for s, p in enumerate(t.roster) if s != t.seat]
        if (
            not isinstance(body, Continue)
            or body.game != t.game_id
            or not 0 <= author < len(others)
            or not verify_signature(others[author].key, rec.sig, SIGN_PREFIX + rec.raw)
        ):
            return
        signed = self._without_me.setdefault(t.game_id, set())
        signed.add(author)
        if len(signed) == len(others) and t.failure is None and t.status in ("running", "disputed"):
            t.stop("the others went on without this seat: every one of them judged it gone")

    def _follow_leaves(self) -> None:
        """A seat signed that it leaves: go on without it."""
        for seat, reason in sorted(self.current.departed.items()):
            running = self.current.status in ("running", "disputed")
            if seat == self.current.seat or not running:
                continue
            if len(self._old) - 1 < MIN_TO_CONTINUE:  # nobody to go on with: the match stops here
                name = self.current.roster[seat].name
                self.current.blame(seat, f"{name} left the match (it said: {quote_claim(reason)})")
            self.drop(self._old[seat], reason)
            return

    def drop(self, seat: int, problem: str) -> bool:
        """``seat`` is gone (it left, or stayed silent too long): continue without it
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
        """Move to the table that continues the match without ``seat`` (first table's number)."""
        index = self._old.index(seat)
        old = self.current
        nxt = old.continued_without(index, reason)
        self._outbox += old.drain()
        self._journal += old.drain_journal()
        while (event := old.next_event()) is not None:
            self._events.append(event)
        self.tables.append(nxt)
        self.current = nxt
        del self._old[index]
        held = self._ahead.pop(nxt.game_id, [])
        self._ahead.clear()
        if nxt.seat is not None:
            nxt.start()
        for rec in held:
            if nxt.failure is None:
                try:
                    nxt.receive_record(rec)
                except RemoteProtocolError:
                    break

    def leave(self, reason: str) -> None:
        """This seat leaves the match for good (it signs so)."""
        self.current.leave(reason)

    def blame(self, peer: int, problem: str) -> None:
        index = self._index(peer)
        if index is not None:
            self.current.blame(index, problem)

    def restore(self, records: Sequence[SignedRecord]) -> None:
        """Back from a crash: the first table from its records, then each continuation
        this seat had signed into, from its own ``continue`` record."""
        groups: dict[bytes, list[SignedRecord]] = {}
        for rec in records:
            groups.setdefault(rec.record.game_id, []).append(rec)
        self.current.restore(groups.pop(self.current.game_id, []))
        while groups:
            mine = next(
                (
                    r
                    for r in groups.get(_continuation_of(self.current, groups), [])
                    if r.record.seat == self.current.seat and isinstance(r.record.body, Continue)
                ),
                None,
            )
            if mine is None:
                break
            body = mine.record.body
            assert isinstance(body, Continue)
            old = self.current
            nxt = old.continued_without(body.left, body.reason)
            while (event := old.next_event()) is not None:
                self._events.append(event)
            self.tables.append(nxt)
            self.current = nxt
            del self._old[body.left]
            nxt.restore(groups.pop(nxt.game_id))
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

    def records_to_save(self) -> list[SignedRecord]:
        """Every table's records, in the order the match took them."""
        return [r for t in self.tables for r in t.records_to_save()]


def _continuation_of(table: TableCore, groups: dict[bytes, list[SignedRecord]]) -> bytes:
    """The id among ``groups`` of a table that continues ``table`` (or b"")."""
    for s in range(table.n):
        gid = continuation_id(table.game_id, s)
        if gid in groups:
            return gid
    return b""
