"""The step log: one node's signed, chained record of a match, and who is to blame.

It knows nothing of cards or games. Its owner (the table) tells it which seats
write the current step and which record types they may write (:meth:`expect`),
authors this seat's records through it (:meth:`author`), and is handed each
completed step (:meth:`StepOwner.step_complete`). Everything about records as
such lives here:

* Records reach a node on their author's link or forwarded (``evidence``,
  answers to ``need``); an identical copy is ignored, a different record for
  the same step is equivocation, proven by the two signatures.
* Records of future steps wait; a record's ``prev`` must be the digest of the
  node's last step, or the node disputes it and shows its view of that step.
* An ``abort`` is a claim; a ``need`` is answered with the records the asker
  lacks, or with ours of the step before if its digest differs.
* A fault blames the seat whose signature shows it, keeps the proof for the
  transcript file, and forwards it so that every other seat can check it.

The rules are written down in ``protocol.md`` (sections 4 and 7).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NoReturn, Protocol

from p2pcards.crypto.identity import Identity, verify_signature
from p2pcards.errors import LocalProtocolError, RemoteProtocolError
from p2pcards.protocol import faults
from p2pcards.protocol.messages import SIDE_BODIES, Body, Leave, Player
from p2pcards.protocol.transcript import GENESIS, Transcript
from p2pcards.protocol.wire import (
    MAX_EVIDENCE,
    SIGN_PREFIX,
    Abort,
    Evidence,
    Frame,
    Need,
    Record,
    Relay,
    SignedRecord,
    UnreadableFrame,
    WireError,
    claimed_seat,
    decode_frame,
    evidence_frame,
    quote_claim,
)

MAX_QUEUED = 512
"""Records accepted ahead of time from one peer before it counts as flooding."""
IDLE_EVIDENCE = 3
"""Evidence frames that bring nothing new tolerated from one peer, beyond one per
``need`` this node sent: an honest peer sends at most one dispute notice, one
verdict's proof and, once it finished, the last step's records, and one answer per
need, any of which may cross the records it holds (they arrived by another path in
the meantime)."""

HISTORY_SHOWN = 8
"""Records of its last complete steps (newest first) a node forwards when it stops
blaming a seat: the history its own latest records follow."""
WITHHELD_LIMIT = 3
"""Steps at which a seat's own record may reach this node first as its answer to a
``need`` before that seat is named for withholding its records. An honest node sends
each record it signs on every link before any later frame there (its answers to
``need`` included), so for it this never happens; the bound only keeps one odd
delivery from being a verdict."""

ANOTHER_GAME = faults.ANOTHER_GAME
"""What ``carriable`` says of a record whose game id is not this table's."""


def _signed(key: bytes, sig: bytes, raw: bytes) -> bool:
    return verify_signature(key, sig, SIGN_PREFIX + raw)


def unreadable_seat(
    roster: Sequence[Player], raw: bytes, sig: bytes, signed: Callable[[bytes, bytes, bytes], bool] = _signed
) -> int | None:
    """The seat of ``roster`` whose valid signature is on ``raw``, a record that does not read:
    the seat its bytes name, read past what is wrong (section 7.1), if ``sig`` verifies with
    its key (``signed(key, sig, raw)``: the audit passes a cached check); else None."""
    seat = claimed_seat(raw)
    if seat is None or not 0 <= seat < len(roster):
        return None
    return seat if signed(roster[seat].key, sig, raw) else None


def unreadable_signer(
    roster: Sequence[Player], own_seat: int | None, error: WireError
) -> tuple[int, bytes, bytes, str] | None:
    """``(seat, raw, sig, why)`` of a record in a frame that does not read (``error``) which
    itself does not read, yet carries the valid signature of the seat its bytes name
    (:func:`unreadable_seat`, another than ``own_seat``): only that seat can have made it, so
    it is that seat's fault whoever delivered it (protocol.md 2.3), and it proves the fault."""
    if not isinstance(error, UnreadableFrame):
        return None
    for raw, sig, why in error.unreadable_records():
        seat = unreadable_seat(roster, raw, sig)
        if seat is not None and seat != own_seat:
            return seat, raw, sig, why
    return None


class StepOwner(Protocol):
    """What the step log needs from the table it serves."""

    def step_complete(self, records: dict[int, SignedRecord]) -> None:
        """Process a completed step (records by seat); call :meth:`StepLog.expect` for the next."""
        ...

    def step_began(self) -> None:
        """The next step may begin: author this seat's record if it needs no decision."""
        ...


class StepLog:
    """One node's log of a match: ``seat`` None for an observer (the audit)."""

    def __init__(
        self,
        owner: StepOwner,
        *,
        game_id: bytes,
        roster: Sequence[Player],
        seat: int | None,
        identity: Identity | None,
    ) -> None:
        self.owner = owner
        self.game_id = game_id
        self.roster = tuple(roster)
        self.n = len(self.roster)
        self.seat = seat
        self._identity = identity
        self.transcript = Transcript()
        self.failure: RemoteProtocolError | None = None
        self.status = "running"
        """``running``, ``disputed`` (a chain dispute awaits proof), ``failed`` or ``over``."""
        self.kind = ""
        self.authors: tuple[int, ...] = ()
        self.allowed: tuple[type[Body], ...] = ()
        self.current: dict[int, SignedRecord] = {}
        """Records in for the current step, by seat."""
        self.suspect: tuple[int, str] | None = None
        self.proof: list[SignedRecord] = []
        """Signed records beyond the transcript that prove this node's verdict."""
        self.unreadable: tuple[bytes, bytes] | None = None
        """``(raw, sig)`` of a record that does not read, validly signed by the seat blamed for
        it: kept at the end of the file, as the audit blames the signer of such a record."""
        self.culprit_record: SignedRecord | None = None
        """The record that shows the fault this node failed on, if one does."""
        self.stopped: dict[int, tuple[int, str]] = {}
        self._said_on_its_link: set[int] = set()  # seats whose abort came on their own link
        """Peers that announced they stop: (their step, their claim)."""
        self._outbox: list[bytes] = []
        self._replies: dict[int, list[bytes]] = {}
        self._inbox: dict[int, dict[int, SignedRecord]] = {s: {} for s in range(self.n)}
        self._direct_last: dict[int, int] = dict.fromkeys(range(self.n), -1)
        self._disputed: SignedRecord | None = None
        self._answered: dict[int, set[tuple[int, int]]] = {}  # records sent to a peer on its need
        self._forked: dict[int, int] = {}  # peer -> step whose records we sent it, its digest differing
        self._idle_evidence: dict[int, int] = {}  # peer -> evidence frames that brought nothing
        self._needs_sent = 0
        self._withheld: dict[int, int] = {}  # peer -> steps its record came only when asked
        self._asked: tuple[int, frozenset[int]] = (-1, frozenset())
        """The step of this node's latest ``need``, and the seats whose record of it that need
        asked for: a record that comes in an evidence frame unasked was not withheld."""
        self.last_need: dict[int, Need] = {}
        """Each peer's latest ``need`` frame on its own link: where it says it is stuck."""
        self._journal: list[SignedRecord] = []  # records to make durable, in order
        self._restored: dict[int, SignedRecord] = {}  # own records from a journal, by step
        self.left: dict[int, SignedRecord] = {}
        """Each seat's signed ``leave`` record, if it left (a side record, see _accept_side)."""
        self.confirmed: dict[int, SignedRecord] = {}
        """Each seat's signed ``confirm`` record, if its person compared the table fingerprint."""

    @property
    def step(self) -> int:
        return len(self.transcript.steps)

    def expect(self, kind: str, authors: Sequence[int], allowed: Sequence[type[Body]]) -> None:
        """The current step is a ``kind`` step written by ``authors`` with ``allowed`` bodies."""
        self.kind, self.authors, self.allowed = kind, tuple(authors), tuple(allowed)

    def finish(self) -> None:
        """The match is over: nothing more is expected."""
        self.status = "over"
        self.expect("over", (), ())

    def advance(self) -> None:
        """Consume what waits, after the owner changed the expectations or authored."""
        self._advance()

    def drain(self) -> list[bytes]:
        """Frames produced since the last call; each goes to every other seat."""
        out, self._outbox = self._outbox, []
        return out

    def drain_replies(self) -> dict[int, list[bytes]]:
        """Frames meant for one peer only (answers to its ``need``), by peer."""
        out, self._replies = self._replies, {}
        return out

    def receive(self, peer: int, data: bytes) -> None:
        """Feed one frame received on ``peer``'s link. Raises RemoteProtocolError on a fault."""
        if self.failure is not None:
            raise self.failure
        try:
            frame = decode_frame(data)
        except WireError as e:
            self.blame_unreadable(peer, faults.MALFORMED_FRAME.format(error=e), e)
            return  # after the end of the match: ignored
        self.receive_frame(peer, frame)

    def blame_unreadable(self, peer: int, problem: str, error: WireError) -> None:
        """``peer`` delivered something that does not read (``problem`` says what): blame it,
        or the signer of a record in it (see :func:`unreadable_signer`)."""
        found = unreadable_signer(self.roster, self.seat, error)
        if found is None:
            self.blame(peer, problem)
        else:
            seat, raw, sig, why = found
            self.blame_signer(seat, raw, sig, faults.MALFORMED_RECORD.format(error=why))

    def receive_frame(self, peer: int, frame: Frame) -> None:
        """Like :meth:`receive` for a frame already decoded by a stream decoder."""
        if not 0 <= peer < self.n or peer == self.seat:
            raise LocalProtocolError(f"no peer {peer}")
        self._take(peer, frame)

    def receive_relayed(self, relay: int, origin: int, frame: Frame) -> None:
        """A frame ``origin`` wrote for this seat, carried by ``relay`` (the host, or a
        seat linked with both once the host is gone) because the two have no link.
        Records count as forwarded ones (a bad signature blames the relay, the order
        of a link does not apply); a ``need`` is answered to ``origin`` (through its
        carriers); an ``abort`` is noted as ``origin``'s claim but never blames it,
        since the relay could have made it up."""
        if not 0 <= origin < self.n or origin in (self.seat, relay):
            self.fail(relay, faults.RELAYED_UNCARRIABLE.format(origin=origin))
        self._take(relay, frame, origin=origin)

    def carriable(self, frame: Frame) -> str | None:
        """Why a seat must not carry ``frame`` in a relay frame (None: it may). A carrier
        reads what it carries: a receiver blames the carrier for a relayed frame that is
        malformed, nested, or holds a record of another game or badly signed, so the
        carrier checks these first and blames the seat that gave it the frame instead.
        (What the carrier cannot check, the receiver does not blame it for.)"""
        if isinstance(frame, Relay):
            return faults.RELAY_IN_RELAY
        records = (
            frame.records
            if isinstance(frame, Evidence)
            else (frame,)
            if isinstance(frame, SignedRecord)
            else ()
        )
        for rec in records:
            r = rec.record
            if not 0 <= r.seat < self.n:
                return faults.RECORD_NOT_AT_TABLE.format(seat=r.seat)
            if r.game_id != self.game_id:
                return ANOTHER_GAME
            if not verify_signature(self.roster[r.seat].key, rec.sig, SIGN_PREFIX + rec.raw):
                return faults.RECORD_NOT_SIGNED.format(step=r.step, seat=r.seat)
        return None

    def _take(self, sender: int, frame: Frame, *, origin: int | None = None) -> None:
        """One frame from ``sender``'s link: its own (``origin`` None) or carried for ``origin``."""
        if self.failure is not None:
            if isinstance(frame, Evidence) and self.status == "failed" and self.failure.peer is None:
                self._proof_after_stop(frame)
            raise self.failure
        if isinstance(frame, Need):
            # Answered even once finished: a finished seat still helps the others finish.
            if origin is None:
                self.last_need[sender] = frame
            self._receive_need(sender if origin is None else origin, frame)
            return
        if self.status == "over" and isinstance(frame, Evidence):
            self._evidence_after_end(frame)
            return
        if self.status not in ("running", "disputed"):
            return
        if isinstance(frame, Relay):
            why = faults.RELAY_WHERE_TABLE if origin is None else faults.RELAYED_RELAY
            self.fail(sender, why)
        if isinstance(frame, Evidence):
            self._receive_evidence(sender, frame, relayed=origin is not None)
        elif isinstance(frame, Abort):
            if origin is None:
                self._receive_abort(sender, frame)
            else:
                self.stopped.setdefault(origin, (frame.step, frame.reason))
        else:
            self._accept_record(frame, sender=sender, direct=origin is None)
        self._advance()

    def receive_record(self, rec: SignedRecord) -> None:
        """Feed a record read from a transcript file (the audit): any order, any copy.

        In a dispute the rest of the file is read as evidence, as a live node would.
        """
        if self.failure is not None:
            raise self.failure
        if not 0 <= rec.record.seat < self.n:
            self.fail(None, faults.RECORD_NOT_IN_ROSTER.format(seat=rec.record.seat), rec=rec)
        if isinstance(rec.record.body, SIDE_BODIES):
            self._accept_side(rec, None)
            return
        if self.status == "over":
            held = self._held(rec.record.seat, rec.record.step)
            if held is not None and held.raw == rec.raw:
                return  # a copy
            self._check_signed(rec, None)
            if held is not None:
                self._equivocation(held, rec)
            self.fail(rec.record.seat, faults.RECORD_AFTER_END.format(step=rec.record.step), rec=rec)
        if self.status == "disputed":
            self._receive_evidence(None, Evidence((rec,)))
            return
        self._accept_record(rec, sender=None, direct=False)
        self._advance()

    def blame(self, peer: int | None, problem: str) -> None:
        """Fail the log because of ``peer`` (a broken link, a timeout, bad bytes).
        A finished match stays finished: nothing a peer does afterwards changes it."""
        if self.failure is not None:
            raise self.failure
        if self.status == "over":
            return
        self.fail(peer, problem)

    def blame_signer(self, seat: int, raw: bytes, sig: bytes, problem: str) -> None:
        """Fail the log because ``seat`` validly signed ``raw``, which does not read as a
        record (whoever delivered it). The record is this verdict's proof: it goes first to
        every peer alone in an evidence frame (an evidence frame that holds it does not read,
        so it holds nothing else), which blames its signer there too, then to the file."""
        if self.failure is not None:
            raise self.failure
        if self.status == "over":
            return
        self.unreadable = (raw, sig)
        self._outbox.append(evidence_frame([(raw, sig)]))
        self.fail(seat, problem)

    def stop(self, problem: str, show: Sequence[SignedRecord] = ()) -> None:
        """Fail the log with nobody blamed: this node cannot tell who is at fault. A chain
        dispute cut short so leaves no record behind (its file blames nobody either).
        ``show``: records that made this node stop, forwarded to every peer, so that one
        shown another record by the same author proves the lie instead of waiting for, or
        blaming, this node."""
        if self.failure is None:
            if self.status == "disputed":
                self.proof = []
            if show:
                self._outbox.append(Evidence(tuple(show[:MAX_EVIDENCE])).to_frame())
            self.failure = RemoteProtocolError(None, problem)
            self.status = "failed"

    def nudge(self) -> None:
        """The I/O layer has waited a while: ask every peer for the records we lack."""
        if self.status in ("running", "disputed") and self.failure is None:
            self._outbox.append(self.need_frame())

    def last_step_frame(self) -> bytes | None:
        """The records of the last complete step as an evidence frame, which a node that
        finished sends every peer once: a seat whose link with one of their authors went
        through a host that left completes the last step too, before this node is gone."""
        if not self.transcript.steps:
            return None
        return Evidence(tuple(self.transcript.steps[-1])[:MAX_EVIDENCE]).to_frame()

    def need_frame(self) -> bytes:
        """A ``need`` frame for where this node stands, to send to every peer (also a
        sign of life). Each may bring one answer per peer that holds nothing new."""
        self._needs_sent += 1
        have = tuple(sorted(self.current)) if self.status == "running" else tuple(range(self.n))
        self._asked = (self.step, frozenset(range(self.n)) - set(have))
        return Need(self.step, have, self.transcript.last_digest).to_frame()

    def conclude_stalled(self) -> None:
        """Called by the I/O layer when a chaining dispute saw no proof in time."""
        if self.suspect is not None and self.failure is None:
            seat, why = self.suspect
            assert self._disputed is not None
            self.fail(seat, why, rec=self._disputed, proof=(self._disputed,))

    @property
    def waiting_for(self) -> tuple[int, ...]:
        """Seats whose record the current step still needs."""
        if self.status != "running":
            return ()
        return tuple(s for s in self.authors if s not in self.current)

    def stopped_by_relay(self, peer: int) -> bool:
        """Whether ``peer``'s word that it stops came only through a relay (a carrier could
        have made it up), not on its own link."""
        return peer in self.stopped and peer not in self._said_on_its_link

    @property
    def held_ahead(self) -> int:
        """Records held for steps after the current one: read, signature checked, not yet
        chained (they wait for the records before them)."""
        return sum(len(q) for q in self._inbox.values())

    @property
    def others_ahead(self) -> bool:
        """Whether another seat is past the current step: a record of a later step is held,
        or a peer's latest ``need`` names a later step. That seat holds every record of
        this step, those this node still lacks too."""
        later = any(step > self.step for queue in self._inbox.values() for step in queue)
        return later or any(need.step > self.step for need in self.last_need.values())

    def records_to_save(self) -> list[SignedRecord]:
        """Every completed step, then the records already in for the step in progress,
        then the records that prove this node's verdict (a second record of an
        equivocator, a record out of place): an audit of the file reaches the same
        verdict, or names exactly the seats still awaited."""
        out = self.transcript.records() + [r for _, r in sorted(self.current.items())]
        out += [r for _, r in sorted(self.left.items())]
        out += [r for _, r in sorted(self.confirmed.items())]
        seen = {r.raw for r in out}
        for r in self.proof:
            if r.raw not in seen:
                seen.add(r.raw)
                out.append(r)
        return out

    def drain_journal(self) -> list[SignedRecord]:
        """Records this node signed or accepted since the last call, in order: the I/O
        layer makes them durable before it sends anything the table produced."""
        out, self._journal = self._journal, []
        return out

    def restore_own(self, records: Sequence[SignedRecord]) -> None:
        """Own records from a journal: each is used, as it is, when its step comes."""
        self._restored = {
            r.record.step: r
            for r in records
            if r.record.seat == self.seat and not isinstance(r.record.body, SIDE_BODIES)
        }

    def has_restored(self) -> bool:
        return self.step in self._restored

    def link_reset(self, peer: int) -> list[bytes]:
        """``peer`` is on a new link (it reconnected, or one of us restarted from its
        journal). Records in flight on the old link may be lost, so the order of
        records on a link starts again, what we gave ``peer`` on its ``need`` is
        forgotten, and this returns the frames to send first on the new link: this
        seat's own records of every step ``peer`` may lack (from the step of the
        latest record of ``peer`` this node holds), in step order, as they were,
        but for those not sent yet, which follow them with the other new frames."""
        self._answered.pop(peer, None)
        self._forked.pop(peer, None)
        self._idle_evidence.pop(peer, None)
        self._direct_last[peer] = -1
        if self.seat is None:
            return []
        theirs = [r.record.step for st in self.transcript.steps for r in st if r.record.seat == peer]
        theirs += [r.record.step for r in self.current.values() if r.record.seat == peer]
        theirs += list(self._inbox[peer])
        since = max(theirs, default=0)
        mine = [r for st in self.transcript.steps[since:] for r in st if r.record.seat == self.seat]
        own_now = self.current.get(self.seat)
        if own_now is not None:
            mine.append(own_now)
        mine += [r for step, r in sorted(self._restored.items()) if step >= since]
        unsent = set(self._outbox)  # these go to every peer anyway, after the others
        return [f for f in (r.to_frame() for r in mine) if f not in unsent]

    def author(self, body: Body | None) -> None:
        """Sign and send this seat's record of the current step. A record restored from
        the journal for this step is used instead, unchanged, and not sent again: peers
        that lack it ask for it."""
        assert self.seat is not None and self._identity is not None
        restored = self._restored.pop(self.step, None)
        if restored is not None:
            self.current[self.seat] = restored
            return
        assert body is not None
        rec = Record(
            game_id=self.game_id,
            step=self.step,
            seat=self.seat,
            prev=self.transcript.last_digest,
            body=body,
        )
        raw = rec.to_bytes()
        signed = SignedRecord(raw, self._identity.sign(SIGN_PREFIX + raw), rec)
        self.current[self.seat] = signed
        self._journal.append(signed)
        self._outbox.append(signed.to_frame())

    def author_side(self, body: Body) -> None:
        """Sign and send a side record of the current step (``leave``, ``confirm``)."""
        assert self.seat is not None and self._identity is not None
        rec = Record(
            game_id=self.game_id, step=self.step, seat=self.seat, prev=self.transcript.last_digest, body=body
        )
        raw = rec.to_bytes()
        signed = SignedRecord(raw, self._identity.sign(SIGN_PREFIX + raw), rec)
        self._side(body)[self.seat] = signed
        self._journal.append(signed)
        self._outbox.append(signed.to_frame())

    def _side(self, body: Body) -> dict[int, SignedRecord]:
        return self.left if isinstance(body, Leave) else self.confirmed

    def _accept_side(self, rec: SignedRecord, sender: int | None) -> bool:
        """A side record (``leave``, ``confirm``): beside its author's record of that step
        (so it is never equivocation with it), at most one of each type per seat. It is
        passed on to every peer once, so that a seat whose link with its author is
        down learns it too. Returns True if it was new."""
        seat = rec.record.seat
        store = self._side(rec.record.body)
        held = store.get(seat) if 0 <= seat < self.n else None
        if held is not None and held.raw == rec.raw:
            return False
        self._check_signed(rec, sender)
        if held is not None:
            self._equivocation(held, rec)
        store[seat] = rec
        self._journal.append(rec)
        if sender is not None and seat != self.seat:
            self._outbox.append(Evidence((rec,)).to_frame())
        return True

    def fail(
        self,
        seat: int | None,
        problem: str,
        *,
        step: int | None = None,
        rec: SignedRecord | None = None,
        proof: Sequence[SignedRecord] = (),
    ) -> NoReturn:
        """Stop the match blaming ``seat``.

        ``rec`` is the record that shows the fault, ``proof`` the signed records
        that prove it beyond the transcript: they are kept for the file. The
        proof and the blamed seat's records of the step at hand are forwarded to
        every peer, so that a seat that did not receive them (the culprit may
        have sent them to this seat only) reaches the same verdict by its own
        checks instead of waiting for, or blaming, this seat.
        """
        # Only this verdict's proof is kept: a dispute record that a later, other fault
        # cut short proves nothing against its author.
        self.proof = list(proof)
        saved = self.records_to_save()
        if rec is None and step is not None and seat is not None:
            rec = next((r for r in saved if (r.record.step, r.record.seat) == (step, seat)), None)
        if rec is not None:
            self.culprit_record = rec
        index = None if rec is None else next((i for i, r in enumerate(saved) if r.raw == rec.raw), None)
        forward = list(proof)
        if seat is not None and seat != self.seat:
            if rec is not None and rec.record.seat == seat:
                forward.append(rec)
            # This node's view of the last steps, newest first: its own latest records
            # follow that history, and a peer shown another one by some third seat
            # disputes them once this node is gone; these records let it prove who lied.
            forward += [r for step in reversed(self.transcript.steps) for r in step][:HISTORY_SHOWN]
            # Its latest records, newest first: one of them may be the other face of an
            # equivocation that a peer holds and this node never knew about.
            held = [*self.transcript.records(), *self.current.values()]
            forward += [r for r in reversed(held) if r.record.seat == seat][: MAX_EVIDENCE // 2]
        unique = list({r.raw: r for r in forward}.values())
        if unique:
            self._outbox.append(Evidence(tuple(unique[:MAX_EVIDENCE])).to_frame())
        self.failure = RemoteProtocolError(seat, problem, record=index)
        self.status = "failed"
        raise self.failure

    def _check_signed(self, rec: SignedRecord, sender: int | None) -> None:
        """Blame ``sender`` (or, reading a file, nobody) unless ``rec`` is a record of
        this game validly signed by a seat of this table."""
        r = rec.record
        if not 0 <= r.seat < self.n:
            self.fail(sender, faults.SENT_NOT_AT_TABLE.format(seat=r.seat))
        if r.game_id != self.game_id:
            self.fail(sender, faults.SENT_ANOTHER_GAME)
        if not verify_signature(self.roster[r.seat].key, rec.sig, SIGN_PREFIX + rec.raw):
            # A seat that passed on another's record (a carrier, one that forwards) is told
            # apart from its author: "its record" would read as the sender's own.
            passed_on = sender is not None and sender != r.seat
            said = faults.FORWARDED_BAD_SIGNATURE if passed_on else faults.BAD_SIGNATURE
            self.fail(sender, said.format(step=r.step, seat=r.seat))

    def _held(self, author: int, step: int) -> SignedRecord | None:
        """The record of ``author`` for ``step`` this node already holds, if any."""
        if step < self.step:
            return self.transcript.find(step, author)
        if step == self.step and author in self.current:
            return self.current[author]
        return self._inbox[author].get(step)

    def _accept_record(self, rec: SignedRecord, *, sender: int | None, direct: bool) -> bool:
        """Take one record, received from its author (``direct``) or forwarded.

        Returns True if it was new. An identical copy of a record already held is
        ignored (records may reach a seat by several paths); a different record
        for the same step is equivocation, proven by the two signatures.
        """
        r = rec.record
        if direct and r.seat != sender:
            self.fail(sender, faults.OWN_LINK.format(seat=r.seat))
        if isinstance(r.body, SIDE_BODIES):
            return self._accept_side(rec, sender)
        held = self._held(r.seat, r.step) if 0 <= r.seat < self.n else None
        if held is not None and held.raw == rec.raw:
            if direct and self._direct_last[r.seat] >= r.step:
                self.fail(r.seat, faults.REPLAYED.format(step=r.step), rec=held)
            if direct:
                self._direct_last[r.seat] = r.step
            return False
        self._check_signed(rec, sender)
        author, step = r.seat, r.step
        if held is not None:
            self._equivocation(held, rec)
        if direct:
            last = self._direct_last[author]
            if step <= last:
                self.fail(
                    author,
                    faults.OUT_OF_ORDER.format(step=step, last=last),
                    rec=rec,
                    proof=(rec,),
                )
            self._direct_last[author] = step
        if step < self.step:
            self._out_of_place(rec)
        queue = self._inbox[author]
        if sender is not None and len(queue) >= MAX_QUEUED:
            self.fail(author, faults.TOO_MANY_AHEAD, rec=rec, proof=(rec,))
        queue[step] = rec
        self._journal.append(rec)
        return True

    def _equivocation(self, first: SignedRecord, second: SignedRecord) -> NoReturn:
        step = second.record.step
        self.fail(
            second.record.seat,
            faults.EQUIVOCATION.format(step=step),
            rec=second,
            proof=(first, second),
        )

    def _out_of_place(self, rec: SignedRecord) -> None:
        """A record for a step that completed without it: its author was not expected
        there, unless it saw another history (then the chain dispute decides)."""
        step = rec.record.step
        prev = self.transcript.digests[step - 1] if step > 0 else GENESIS
        if rec.record.prev != prev:
            self._dispute(rec)
            return
        self.fail(
            rec.record.seat,
            faults.NOT_EXPECTED.format(step=step),
            rec=rec,
            proof=(rec,),
        )

    def _receive_evidence(self, sender: int | None, ev: Evidence, *, relayed: bool = False) -> None:
        """Forwarded records. Each must be validly signed by a seat of this table
        (else the forwarder is blamed). A frame that brings nothing new - no
        equivocation, no record this node lacked - is a fault of its forwarder
        beyond what an honest peer may send (IDLE_EVIDENCE)."""
        new = False
        for rec in ev.records:
            r = rec.record
            if not 0 <= r.seat < self.n:
                self.fail(sender, faults.FORWARDED_NOT_AT_TABLE.format(seat=r.seat))
            if isinstance(r.body, SIDE_BODIES):  # passed on once by each peer: never idle
                self._accept_side(rec, sender)
                new = True
                continue
            held = self._held(r.seat, r.step)
            if (
                held is None
                and self._disputed is not None
                and self._disputed.record.seat == r.seat
                and self._disputed.record.step == r.step
            ):
                held = self._disputed
            if held is not None and held.raw == rec.raw:
                continue
            self._check_signed(rec, sender)
            if held is not None:
                self._equivocation(held, rec)
            if self.status == "disputed" or r.step < self.step:
                # Not an equivocation; in a dispute only proof counts, and a record
                # for a completed step that we never held was out of place.
                if r.step < self.step and self.status == "running":
                    self._out_of_place(rec)
                new = True
                continue
            fresh = self._accept_record(rec, sender=sender, direct=False)
            # (A frame carried for another seat is that seat's answer, not the carrier's.)
            asked = self._asked[0] == r.step and sender in self._asked[1] and not relayed
            if fresh and sender is not None and r.seat == sender and r.step == self.step and asked:
                self._note_withheld(sender)
            new = fresh or new
        if new or sender is None or relayed:  # None: read from a file, where nobody forwards
            return  # (relayed: the relay cannot know what this seat holds, nor prove who sent it)
        self._idle_evidence[sender] = self._idle_evidence.get(sender, 0) + 1
        if self._idle_evidence[sender] > IDLE_EVIDENCE + self._needs_sent:
            self.fail(sender, faults.PROVES_NOTHING)

    def _evidence_after_end(self, ev: Evidence) -> None:
        """Records forwarded once this node finished. A peer that another seat showed other
        records stops and forwards them (section 7.3), possibly after this node's last step:
        a second record of one author for one step is proof all the same, and this node's
        verdict becomes that author's equivocation. Nothing else changes a finished match,
        so nothing here blames a forwarder (a record badly signed, of another game: ignored)."""
        for rec in ev.records:
            r = rec.record
            if r.game_id != self.game_id or not 0 <= r.seat < self.n or isinstance(r.body, SIDE_BODIES):
                continue
            held = self._held(r.seat, r.step)
            if held is None or held.raw == rec.raw:
                continue
            if verify_signature(self.roster[r.seat].key, rec.sig, SIGN_PREFIX + rec.raw):
                self._equivocation(held, rec)

    def proof_after_stop(self, rec: SignedRecord) -> None:
        """A record read from a file after a stop that blamed nobody (the audit): a second
        record of its author for one step this log holds proves that author's equivocation,
        as it would have for a live node that read on (:meth:`_proof_after_stop`)."""
        if self.failure is not None and self.status == "failed" and self.failure.peer is None:
            self._proof_after_stop(Evidence((rec,)))

    def _proof_after_stop(self, ev: Evidence) -> None:
        """Records forwarded once this node stopped blaming nobody. A peer that stopped at
        the same moment for the same reason forwards the records that made it stop (section
        7.3): if it was shown another record by one of their authors than this node was (a
        host that told two joiners other terms, each in a join of its own that agrees with
        that joiner's), the two records prove that author's equivocation, and this node's
        verdict becomes it. Nothing else changes a verdict reached: nothing here blames a
        forwarder."""
        for rec in ev.records:
            r = rec.record
            if r.game_id != self.game_id or not 0 <= r.seat < self.n or isinstance(r.body, SIDE_BODIES):
                continue
            held = self.transcript.find(r.step, r.seat) or self._held(r.seat, r.step)
            if held is None or held.raw == rec.raw:
                continue
            if verify_signature(self.roster[r.seat].key, rec.sig, SIGN_PREFIX + rec.raw):
                self._equivocation(held, rec)

    def _receive_abort(self, peer: int, abort: Abort) -> None:
        """A peer says it stops. If it owed the record this step needs and says it
        is at this step, it is the seat that stopped the match; otherwise its
        reason is only its claim, and this node reaches its own verdict."""
        self.stopped[peer] = (abort.step, abort.reason)
        self._said_on_its_link.add(peer)
        if peer in self.waiting_for:
            self._fail_if_stopped(peer)

    def _fail_if_stopped(self, peer: int) -> None:
        """Blame ``peer`` if it owes the current step's record and said it stopped at this
        step or later (so the record will not come): whether its abort came while this
        node was at the step or before it got there. Only an abort on its own link
        counts: its link delivered every record it sent before it; a relay could have
        made one up."""
        said = self.stopped.get(peer)
        if self.kind == "continue":
            # The first step of a table that continues the match: an abort may be the
            # sender's stop on the table before (it has not judged the leaver gone, and
            # says a step of that table), which is no fault here.
            return
        if said is not None and said[0] >= self.step and peer in self._said_on_its_link:
            self.fail(
                peer,
                faults.STOPPED_INSTEAD.format(step=self.step, said=quote_claim(said[1])),
            )

    def _note_withheld(self, peer: int) -> None:
        """``peer``'s own record of the current step came first in its answer to a
        ``need``, not on its own as it was signed: it makes every step wait for
        the asking. Named once it has done so WITHHELD_LIMIT times in the match."""
        count = self._withheld[peer] = self._withheld.get(peer, 0) + 1
        if count >= WITHHELD_LIMIT:
            self.fail(
                peer,
                faults.WITHHOLDS.format(count=count),
            )

    def _receive_need(self, peer: int, need: Need) -> None:
        """Send ``peer`` the records it says it lacks: those of ``need.step`` by seats
        not in ``need.have``, then every later one this node holds. Links deliver in
        order, so no record is sent twice to one peer: asking again costs nothing."""
        if need.step > self.step:
            return
        if need.step > 0 and need.last != self.transcript.digests[need.step - 1]:
            # The asker completed that step with other records than ours: someone showed
            # us different things. Our records of it let the asker prove who (once per step).
            if self._forked.get(peer) != need.step:
                self._forked[peer] = need.step
                fork = self.transcript.steps[need.step - 1]
                self._replies.setdefault(peer, []).append(Evidence(tuple(fork)).to_frame())
            return
        sent = self._answered.setdefault(peer, set())
        later = [r for st in self.transcript.steps[need.step :] for r in st]
        later += [r for _, r in sorted(self.current.items())]
        records = [
            r
            for r in later
            if (r.record.step, r.record.seat) not in sent
            and (r.record.step > need.step or r.record.seat not in need.have)
            and r.record.seat != peer
        ][:MAX_EVIDENCE]
        if records:
            sent.update((r.record.step, r.record.seat) for r in records)
            self._replies.setdefault(peer, []).append(Evidence(tuple(records)).to_frame())

    def _advance(self) -> None:
        """Consume queued records into the current step; complete steps while possible."""
        while self.status == "running":
            progressed = False
            for author in self.authors:
                if author in self.current or author == self.seat:
                    continue
                queue = self._inbox[author]
                rec = queue.pop(self.step, None)
                if rec is None:
                    later = min(queue, default=None)
                    if self._direct_last[author] > self.step and later is not None:
                        # Its own link delivered a later record first: it skipped this
                        # step, unless it saw another history (then the chain shows it).
                        self._dispute(queue[later], skipped=True)
                        return
                    continue
                if not self._check_chain(rec):
                    return
                if not isinstance(rec.record.body, self.allowed):
                    self.fail(
                        author,
                        faults.WRONG_RECORD.format(
                            sent_kind=rec.record.body.TYPE,
                            kind=self.kind,
                            kinds=" or ".join(b.TYPE for b in self.allowed),
                        ),
                        rec=rec,
                        proof=(rec,),
                    )
                self.current[author] = rec
                progressed = True
            if len(self.current) == len(self.authors):
                self._complete_step()
                progressed = True
            if not progressed:
                for author in self.waiting_for:
                    if not self._inbox[author]:  # nothing of it left to read
                        self._fail_if_stopped(author)
                return

    def _check_chain(self, rec: SignedRecord) -> bool:
        """False (and the table disputed) if ``rec`` does not follow our last step."""
        if rec.record.prev == self.transcript.last_digest:
            return True
        self._dispute(rec)
        return False

    def _dispute(self, rec: SignedRecord, *, skipped: bool = False) -> None:
        """``rec`` follows another history than ours. Either its author lies, or
        someone showed the two of us different records for the last step. Show
        everyone the record and our view of that step: an honest author whose
        view differs then holds two records of the equivocator and proves it;
        without such proof the I/O layer later blames the author (conclude_stalled)."""
        if self.status == "disputed":
            return  # one dispute at a time: its notice is out, and it waits for proof
        author, step = rec.record.seat, rec.record.step
        view_step = min(step, self.step) - 1
        recent = self.transcript.steps[view_step] if 0 <= view_step < len(self.transcript.steps) else []
        self._outbox.append(Evidence((rec, *recent)[:MAX_EVIDENCE]).to_frame())
        if skipped:
            what = faults.SKIPPED.format(step=self.step, sent=step)
        else:
            what = faults.BROKEN_CHAIN.format(step=step)
        self.suspect = (author, what)
        self._disputed = rec
        self.proof = [rec]
        self.status = "disputed"

    def _complete_step(self) -> None:
        step = self.step
        records = dict(sorted(self.current.items()))
        for seat, rec in records.items():
            if rec.record.step != step:  # own records always match; peers' checked in _advance
                self.fail(seat, faults.RECORD_IN_STEP.format(step=rec.record.step, in_step=step), step=step)
        self.transcript.append_step(records.values())
        self.current = {}
        self.owner.step_complete(records)
        # A record queued for a step that has now passed was never expected there.
        for queue in self._inbox.values():
            for old in [queue.pop(s) for s in sorted(queue) if s < self.step]:
                self._out_of_place(old)
                return
        self.owner.step_began()
