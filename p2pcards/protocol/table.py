"""The table: one seat's sans-IO replica of a match (or an observer's, for audits).

Rules of the state machine (h11 style: written down first, enforced in one place)

1. The match is a sequence of *steps*. Each step has a kind and a fixed set of
   expected authors, both derived deterministically from the steps before it,
   so every honest node expects exactly the same records.
2. Every record is signed by its author, sent directly by its author to every
   other seat, names its step and carries ``prev`` = digest of the step before.
   A record arriving on the link of seat X must be authored by X.
3. Records of a future step are queued per author (bounded); an author's
   records must come in step order, one per step where it is expected. A
   record for a step already passed is a replay, a record jumping over a step
   where its author was expected is a reorder: both blame the author.
4. A step completes when every expected author's record is in; the records
   are then applied in seat order. The first bad record blames its author.
5. After any remote fault the table stays failed: ``failure`` names the seat,
   nothing more is accepted, and the transcript keeps every completed step.

Step sequence: ``join`` (all) -> ``cut-commit`` (all) -> ``cut-reveal`` (all)
-> per hand: ``commit`` (all) -> ``shuffle`` x n (seat order) -> ``lock`` x n ->
``deal`` (all publish keys) -> turns (one author each) with ``draw-keys`` (all
but the drawer) after each draw and ``shuffle``/``lock`` rounds when a draw
finds the stock empty -> ``reveal`` (all reveal the hand secret; full
verification and scoring) -> next hand or ``result`` (all sign the outcome).

A ``dispute`` record (a seat's private card did not open) or a public card that
does not open jumps to ``reveal``: the revealed secrets show who lied, and the
match stops with that seat blamed.

The table never touches sockets or clocks and draws no randomness: secrets are
derived from the ``entropy`` passed in. Outgoing frames are collected and
handed out by :meth:`Table.drain`; each must be sent to every other seat.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NoReturn

from p2pcards.cards import ALL_CARDS, Card
from p2pcards.crypto import encoding, group, kdf, poker
from p2pcards.crypto.identity import Identity, is_valid_public_key, verify_signature
from p2pcards.errors import IllegalAction, LocalProtocolError, RemoteProtocolError
from p2pcards.games import nines
from p2pcards.games.nines import Match, NinesRules, Phase, cut_lowest, hand_size
from p2pcards.games.view import SeatView
from p2pcards.protocol.messages import (
    AcceptSkip,
    Body,
    Commit,
    DeclareSuit,
    Dispute,
    DrawCard,
    Join,
    KeepCard,
    Keys,
    KeyShare,
    Lock,
    PassTurn,
    PlayCards,
    Player,
    Result,
    Reveal,
    Shown,
    Shuffle,
)
from p2pcards.protocol.transcript import GENESIS, Transcript
from p2pcards.protocol.wire import (
    MAX_EVIDENCE,
    PROTOCOL_VERSION,
    SIGN_PREFIX,
    Abort,
    Evidence,
    Frame,
    Need,
    Record,
    SignedRecord,
    WireError,
    decode_frame,
    pack,
    quote_claim,
)

GAME_NAME = "nines"
MAX_QUEUED = 512
"""Records accepted ahead of time from one peer before it counts as flooding."""
IDLE_EVIDENCE = 2
"""Evidence frames that bring nothing new tolerated from one peer, beyond one per
``need`` this node sent: an honest peer sends at most one dispute notice and one
verdict's proof, and one answer per need, any of which may cross the records it
holds (they arrived by another path in the meantime)."""

Pos = tuple[int, int]
"""A deck position: (shuffle round, index in that round's deck)."""


@dataclass(frozen=True, slots=True)
class StepSpec:
    """What the current step expects: its kind, its authors, the bodies allowed."""

    kind: str
    authors: tuple[int, ...]
    allowed: tuple[type[Body], ...]
    round: int = 0
    seat: int = -1  # the shuffling/locking seat, or the drawer for draw-keys


@dataclass(slots=True)
class _Round:
    """One shuffle round: round 0 deals the hand, round r >= 1 is the r-th recycle."""

    cards: tuple[int, ...]  # card indices in the order they were encoded
    base: tuple[bytes, ...]
    shuffles: dict[int, tuple[bytes, ...]] = field(default_factory=dict)
    locks: dict[int, tuple[bytes, ...]] = field(default_factory=dict)
    keys: dict[int, dict[int, int]] = field(default_factory=dict)  # pos -> seat -> key
    key_steps: dict[int, dict[int, int]] = field(default_factory=dict)  # pos -> seat -> step

    @property
    def size(self) -> int:
        return len(self.base)


@dataclass(slots=True)
class _HandCrypto:
    """Everything one hand needs beyond the rules engine: positions, keys, secrets."""

    number: int
    secret: bytes | None
    commits: dict[int, bytes] = field(default_factory=dict)
    rounds: list[_Round] = field(default_factory=list)
    pass_steps: dict[tuple[str, int, int], int] = field(default_factory=dict)
    holdings: dict[int, list[Pos]] = field(default_factory=dict)
    stock: list[Pos] = field(default_factory=list)  # top first
    up: Pos = (0, 0)
    known: dict[Pos, Card] = field(default_factory=dict)
    last_drawn: dict[int, Pos] = field(default_factory=dict)
    actions: list[tuple[nines.Action, int]] = field(default_factory=list)  # with their step
    pending_draw: int | None = None  # seat whose draw waits for a recycle
    draw_step: int = 0  # step of the latest draw request (for blame)
    dispute: tuple[int | None, str] | None = None
    """(seat to blame if every key and pass verifies, what went wrong)."""


class Table:
    """One seat's replica (``seat`` and ``identity`` set) or an observer (``seat=None``)."""

    def __init__(
        self,
        *,
        game_id: bytes,
        roster: Sequence[Player],
        rules: NinesRules,
        seat: int | None,
        identity: Identity | None = None,
        entropy: bytes | None = None,
    ) -> None:
        if len(game_id) != 16:
            raise LocalProtocolError("game id must be 16 bytes")
        if not 2 <= len(roster) <= 6:
            raise LocalProtocolError("a table has 2 to 6 seats")
        if seat is not None:
            if identity is None or entropy is None or len(entropy) != 32:
                raise LocalProtocolError("a seat needs its identity and 32 bytes of entropy")
            if roster[seat].key != identity.public_key:
                raise LocalProtocolError("the identity does not match the roster entry of this seat")
        for i, player in enumerate(roster):
            if not is_valid_public_key(player.key):
                raise LocalProtocolError(f"seat {i} has an unusable public key")
        self.game_id = game_id
        self.roster = tuple(roster)
        self.rules = rules
        self.seat = seat
        self.n = len(roster)
        self._identity = identity
        self._entropy = entropy
        self.transcript = Transcript()
        self.failure: RemoteProtocolError | None = None
        self.status = "running"
        self.match: Match | None = None
        self.cut_rounds: list[list[tuple[int, Card]]] = []
        self.hand: _HandCrypto | None = None
        self.hands_crypto: list[_HandCrypto] = []  # every hand's, for measurements
        self.suspect: tuple[int, str] | None = None
        self.proof: list[SignedRecord] = []
        """Signed records beyond the transcript that prove this node's verdict."""
        self.culprit_record: SignedRecord | None = None
        """The record that shows the fault this node failed on, if one does."""
        self.stopped: dict[int, tuple[int, str]] = {}
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
        self._current: dict[int, SignedRecord] = {}
        self._cut_commits: dict[int, bytes] = {}
        self._join = Join(
            version=PROTOCOL_VERSION,
            game=GAME_NAME,
            rules=tuple(sorted(rules.to_dict().items())),
            roster=self.roster,
        )
        self.spec = StepSpec("join", tuple(range(self.n)), (Join,))

    # ------------------------------------------------------------------ API

    @property
    def step(self) -> int:
        return len(self.transcript.steps)

    def start(self) -> None:
        """Send this seat's join record (call once, before anything else)."""
        self._author_auto()

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
            self.blame(peer, f"malformed frame: {e}")
            return  # after the end of the match: ignored
        self.receive_frame(peer, frame)

    def receive_frame(self, peer: int, frame: Frame) -> None:
        """Like :meth:`receive` for a frame already decoded by a stream decoder."""
        if not 0 <= peer < self.n or peer == self.seat:
            raise LocalProtocolError(f"no peer {peer}")
        if isinstance(frame, Need) and self.failure is None:
            self._receive_need(peer, frame)  # a finished seat still helps the others finish
            return
        if self.failure is not None:
            raise self.failure
        if self.status not in ("running", "disputed"):
            return
        if isinstance(frame, Evidence):
            self._receive_evidence(peer, frame)
        elif isinstance(frame, Abort):
            self._receive_abort(peer, frame)
        else:
            self._accept_record(frame, sender=peer, direct=True)
        self._advance()

    def blame(self, peer: int | None, problem: str) -> None:
        """Fail the table because of ``peer`` (a broken link, a timeout, bad bytes).
        A finished match stays finished: nothing a peer does afterwards changes it."""
        if self.failure is not None:
            raise self.failure
        if self.status == "over":
            return
        self._fail(peer, problem)

    def stop(self, problem: str) -> None:
        """Fail the table with nobody blamed: this node cannot tell who is at fault."""
        if self.failure is None:
            self.failure = RemoteProtocolError(None, problem)
            self.status = "failed"

    def receive_record(self, rec: SignedRecord) -> None:
        """Feed a record read from a transcript file (the audit): any order, any copy.

        In a dispute the rest of the file is read as evidence, as a live node would.
        """
        if self.failure is not None:
            raise self.failure
        if not 0 <= rec.record.seat < self.n:
            self._fail(None, f"record by seat {rec.record.seat}, not in the roster", rec=rec)
        if self.status == "over":
            held = self._held(rec.record.seat, rec.record.step)
            if held is not None and held.raw == rec.raw:
                return  # a copy
            self._check_signed(rec, None)
            if held is not None:
                self._equivocation(held, rec)
            self._fail(rec.record.seat, f"record for step {rec.record.step} after the match ended", rec=rec)
        if self.status == "disputed":
            self._receive_evidence(None, Evidence((rec,)), audit=True)
            return
        self._accept_record(rec, sender=None, direct=False)
        self._advance()

    def nudge(self) -> None:
        """The I/O layer has waited a while: ask every peer for the records we lack."""
        if self.status in ("running", "disputed") and self.failure is None:
            self._outbox.append(self.need_frame())

    def need_frame(self) -> bytes:
        """A ``need`` frame for where this table stands, to send to every peer (also a
        sign of life). Each may bring one answer per peer that holds nothing new."""
        self._needs_sent += 1
        have = tuple(sorted(self._current)) if self.status == "running" else tuple(range(self.n))
        return Need(self.step, have, self.transcript.last_digest).to_frame()

    def act(self, action: nines.Action) -> None:
        """This seat's decision at its turn (an engine action of this seat)."""
        if self.failure is not None:
            raise self.failure
        if not self.my_turn:
            raise LocalProtocolError("it is not this seat's turn to decide")
        if action not in self.legal_actions():
            raise LocalProtocolError(f"not a legal action now: {action}")
        body = self._body_for_action(action)
        self._author(body)
        self._advance()

    def conclude_stalled(self) -> None:
        """Called by the I/O layer when a chaining dispute saw no proof in time."""
        if self.suspect is not None and self.failure is None:
            seat, why = self.suspect
            assert self._disputed is not None
            self._fail(seat, why, rec=self._disputed, proof=(self._disputed,))

    @property
    def waiting_for(self) -> tuple[int, ...]:
        """Seats whose record the current step still needs."""
        if self.status != "running":
            return ()
        return tuple(s for s in self.spec.authors if s not in self._current)

    def records_to_save(self) -> list[SignedRecord]:
        """Every completed step, then the records already in for the step in progress,
        then the records that prove this node's verdict (a second record of an
        equivocator, a record out of place): an audit of the file reaches the same
        verdict, or names exactly the seats still awaited."""
        out = self.transcript.records() + [r for _, r in sorted(self._current.items())]
        seen = {r.raw for r in out}
        for r in self.proof:
            if r.raw not in seen:
                seen.add(r.raw)
                out.append(r)
        return out

    @property
    def my_turn(self) -> bool:
        """True when the table waits for a decision of this seat (see :meth:`act`)."""
        return (
            self.status == "running"
            and self.spec.kind == "turn"
            and self.seat in self.spec.authors
            and self.seat not in self._current
            and self.failure is None
        )

    def legal_actions(self) -> list[nines.Action]:
        if not self.my_turn or self.match is None or self.match.hand is None:
            return []
        return self.match.hand.legal_actions()

    def view(self) -> SeatView | None:
        """What this seat may see of the current hand (None between hands)."""
        if self.match is None or self.match.hand is None or self.seat is None:
            return None
        return SeatView(self.match.hand, self.seat, tuple(self.match.totals))

    # ------------------------------------------------------------ receiving

    def _fail(
        self,
        seat: int | None,
        problem: str,
        *,
        step: int | None = None,
        rec: SignedRecord | None = None,
        proof: Sequence[SignedRecord] = (),
    ) -> NoReturn:
        """Stop the table blaming ``seat``.

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
            # Its latest records, newest first: one of them may be the other face of an
            # equivocation that a peer holds and this node never knew about.
            held = [*self.transcript.records(), *self._current.values()]
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
            self._fail(sender, f"sent a record by seat {r.seat}, which is not at this table")
        if r.game_id != self.game_id:
            self._fail(sender, "sent a record of another game")
        if not verify_signature(self.roster[r.seat].key, rec.sig, SIGN_PREFIX + rec.raw):
            self._fail(
                sender, f"bad signature: its record for step {r.step} is not validly signed by seat {r.seat}"
            )

    def _held(self, author: int, step: int) -> SignedRecord | None:
        """The record of ``author`` for ``step`` this node already holds, if any."""
        if step < self.step:
            return self.transcript.find(step, author)
        if step == self.step and author in self._current:
            return self._current[author]
        return self._inbox[author].get(step)

    def _accept_record(self, rec: SignedRecord, *, sender: int | None, direct: bool) -> bool:
        """Take one record, received from its author (``direct``) or forwarded.

        Returns True if it was new. An identical copy of a record already held is
        ignored (records may reach a seat by several paths); a different record
        for the same step is equivocation, proven by the two signatures.
        """
        r = rec.record
        if direct and r.seat != sender:
            self._fail(sender, f"sent a record authored by seat {r.seat} on its own link")
        held = self._held(r.seat, r.step) if 0 <= r.seat < self.n else None
        if held is not None and held.raw == rec.raw:
            if direct and self._direct_last[r.seat] >= r.step:
                self._fail(r.seat, f"replayed its record for step {r.step}", rec=held)
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
                self._fail(
                    author,
                    f"sent its records out of order (step {step} after step {last})",
                    rec=rec,
                    proof=(rec,),
                )
            self._direct_last[author] = step
        if step < self.step:
            self._out_of_place(rec)
        queue = self._inbox[author]
        if sender is not None and len(queue) >= MAX_QUEUED:
            self._fail(author, "sent too many records ahead of the game", rec=rec, proof=(rec,))
        queue[step] = rec
        return True

    def _equivocation(self, first: SignedRecord, second: SignedRecord) -> NoReturn:
        step = second.record.step
        self._fail(
            second.record.seat,
            f"equivocation: two different signed records for step {step}",
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
        self._fail(
            rec.record.seat,
            f"sent a record for step {step}, where it was not expected",
            rec=rec,
            proof=(rec,),
        )

    def _receive_evidence(self, sender: int | None, ev: Evidence, *, audit: bool = False) -> None:
        """Forwarded records. Each must be validly signed by a seat of this table
        (else the forwarder is blamed). A frame that brings nothing new - no
        equivocation, no record this node lacked - is a fault of its forwarder
        beyond what an honest peer may send (IDLE_EVIDENCE)."""
        new = False
        for rec in ev.records:
            r = rec.record
            if not 0 <= r.seat < self.n:
                self._fail(sender, f"forwarded a record by seat {r.seat}, which is not at this table")
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
            new = self._accept_record(rec, sender=sender, direct=False) or new
        if audit or new or sender is None:
            return
        self._idle_evidence[sender] = self._idle_evidence.get(sender, 0) + 1
        if self._idle_evidence[sender] > IDLE_EVIDENCE + self._needs_sent:
            self._fail(sender, "forwarded evidence that proves nothing (copies of records already held)")

    def _receive_abort(self, peer: int, abort: Abort) -> None:
        """A peer says it stops. If it owed the record this step needs and says it
        is at this step, it is the seat that stopped the match; otherwise its
        reason is only its claim, and this node reaches its own verdict."""
        self.stopped[peer] = (abort.step, abort.reason)
        if peer in self.waiting_for and abort.step >= self.step:
            self._fail(
                peer,
                f"stopped instead of sending its record for step {self.step}"
                f" (it said: {quote_claim(abort.reason)})",
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
        later += [r for _, r in sorted(self._current.items())]
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
            for author in self.spec.authors:
                if author in self._current or author == self.seat:
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
                if not isinstance(rec.record.body, self.spec.allowed):
                    self._fail(
                        author,
                        f"sent a {rec.record.body.TYPE} record where a {self.spec.kind} step expects "
                        + " or ".join(b.TYPE for b in self.spec.allowed),
                        rec=rec,
                        proof=(rec,),
                    )
                self._current[author] = rec
                progressed = True
            if len(self._current) == len(self.spec.authors):
                self._complete_step()
                progressed = True
            if not progressed:
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
        author, step = rec.record.seat, rec.record.step
        view_step = min(step, self.step) - 1
        recent = self.transcript.steps[view_step] if 0 <= view_step < len(self.transcript.steps) else []
        self._outbox.append(Evidence((rec, *recent)[:MAX_EVIDENCE]).to_frame())
        what = (
            f"skipped step {self.step} (sent step {step} first)"
            if skipped
            else (f"broken chain: its record for step {step} follows another history")
        )
        self.suspect = (author, what)
        self._disputed = rec
        self.proof = [rec]
        self.status = "disputed"

    # ------------------------------------------------------------- authoring

    def _author(self, body: Body) -> None:
        assert self.seat is not None and self._identity is not None
        rec = Record(
            game_id=self.game_id,
            step=self.step,
            seat=self.seat,
            prev=self.transcript.last_digest,
            body=body,
        )
        raw = rec.to_bytes()
        signed = SignedRecord(raw, self._identity.sign(SIGN_PREFIX + raw), rec)
        self._current[self.seat] = signed
        self._outbox.append(signed.to_frame())

    def _author_auto(self) -> None:
        """Write this seat's record for the new step when it needs no decision."""
        if self.seat is None or self.seat not in self.spec.authors or self.status != "running":
            return
        h = self.hand
        if (
            h is not None
            and h.dispute is not None
            and h.dispute[0] == self.seat
            and Dispute in self.spec.allowed
        ):
            self._author(Dispute(reason=h.dispute[1]))
            return
        kind = self.spec.kind
        body: Body | None = None
        if kind == "join":
            body = self._join
        elif kind == "cut-commit":
            body = Commit(commit=kdf.commitment(self._cut_secret(), self._commit_context(0, self.seat)))
        elif kind == "cut-reveal":
            body = Reveal(secret=self._cut_secret())
        elif kind == "commit":
            assert h is not None and h.secret is not None
            body = Commit(commit=kdf.commitment(h.secret, self._commit_context(h.number, self.seat)))
        elif kind == "shuffle":
            body = self._shuffle_body()
        elif kind == "lock":
            body = self._lock_body()
        elif kind == "deal":
            body = self._keys_body(self._deal_positions(self.seat))
        elif kind == "draw-keys":
            assert h is not None
            body = self._keys_body([h.stock[0]])
        elif kind == "reveal":
            assert h is not None and h.secret is not None
            body = Reveal(secret=h.secret)
        elif kind == "result":
            assert self.match is not None and self.match.winners is not None
            body = Result(totals=tuple(self.match.totals), winners=self.match.winners)
        if body is not None:
            self._author(body)

    # Overridable in tests that play a dishonest seat.
    def _shuffle_body(self) -> Body:
        assert self.hand is not None and self.hand.secret is not None
        rnd = self.spec.round
        deck_in = self._pass_input("shuffle", rnd, self.seat)  # type: ignore[arg-type]
        return Shuffle(round=rnd, deck=poker.shuffle_pass(self.hand.secret, rnd, deck_in))

    def _lock_body(self) -> Body:
        assert self.hand is not None and self.hand.secret is not None
        rnd = self.spec.round
        deck_in = self._pass_input("lock", rnd, self.seat)  # type: ignore[arg-type]
        return Lock(round=rnd, deck=poker.lock_pass(self.hand.secret, rnd, deck_in))

    def _keys_body(self, positions: Sequence[Pos]) -> Body:
        assert self.hand is not None and self.hand.secret is not None
        s = self.hand.secret
        return Keys(keys=tuple(KeyShare(round=r, pos=p, key=poker.lock_key(s, r, p)) for r, p in positions))

    def _body_for_action(self, action: nines.Action) -> Body:
        h = self.hand
        assert h is not None and h.secret is not None and self.seat is not None
        if isinstance(action, nines.Declare):
            return DeclareSuit(suit=action.suit)
        if isinstance(action, nines.Play | nines.PlayNines):
            cards = (action.card,) if isinstance(action, nines.Play) else action.cards
            shown = []
            used: set[Pos] = set()
            for card in cards:
                pos = self._position_of(card, used)
                used.add(pos)
                shown.append(
                    Shown(round=pos[0], pos=pos[1], card=int(card), key=poker.lock_key(h.secret, *pos))
                )
            return PlayCards(cards=tuple(shown), suit=action.suit)
        if isinstance(action, nines.Draw):
            return DrawCard()
        if isinstance(action, nines.Keep):
            return KeepCard()
        if isinstance(action, nines.Pass):
            return PassTurn()
        if isinstance(action, nines.AcceptSkip):
            return AcceptSkip()
        raise LocalProtocolError(f"cannot send {action!r}")

    def _position_of(self, card: Card, used: set[Pos]) -> Pos:
        h = self.hand
        assert h is not None and self.seat is not None
        assert self.match is not None and self.match.hand is not None
        if self.match.hand.phase is Phase.DRAWN:
            return h.last_drawn[self.seat]
        for pos in h.holdings[self.seat]:
            if pos not in used and h.known.get(pos) == card:
                return pos
        raise LocalProtocolError(f"this seat does not hold {card}")

    # --------------------------------------------------------------- helpers

    def _cut_secret(self) -> bytes:
        assert self._entropy is not None
        return kdf.derive(self._entropy, "cut-secret")

    def _commit_context(self, hand_number: int, seat: int) -> bytes:
        return self.game_id + hand_number.to_bytes(4, "big") + bytes([seat])

    def _pass_input(self, kind: str, rnd: int, seat: int) -> tuple[bytes, ...]:
        assert self.hand is not None
        rd = self.hand.rounds[rnd]
        if kind == "shuffle":
            return rd.base if seat == 0 else rd.shuffles[seat - 1]
        return rd.shuffles[self.n - 1] if seat == 0 else rd.locks[seat - 1]

    def _point(self, pos: Pos) -> bytes:
        assert self.hand is not None
        return self.hand.rounds[pos[0]].locks[self.n - 1][pos[1]]

    def _deal_layout(self) -> tuple[dict[int, list[Pos]], Pos, list[Pos]]:
        """Positions of round 0 dealt to each seat, the up card, and the stock (top first)."""
        assert self.match is not None
        seats = self.match.playoff_seats or tuple(range(self.n))
        dealer = self.match.dealer
        i = seats.index(dealer)
        order = [seats[(i + k) % len(seats)] for k in range(1, len(seats) + 1)]
        size = hand_size(len(seats))
        holdings: dict[int, list[Pos]] = {s: [] for s in range(self.n)}
        for k in range(size * len(seats)):
            holdings[order[k % len(seats)]].append((0, k))
        up = size * len(seats)
        return holdings, (0, up), [(0, p) for p in range(up + 1, self.rules.deck_size)]

    def _deal_positions(self, seat: int) -> list[Pos]:
        """Round-0 positions whose keys ``seat`` publishes at the deal: all but its own."""
        holdings, up, _ = self._deal_layout()
        out = [p for s, ps in holdings.items() if s != seat for p in ps]
        out.append(up)
        return sorted(out)

    # ------------------------------------------------------------ the steps

    def _complete_step(self) -> None:
        spec = self.spec
        step = self.step
        records = dict(sorted(self._current.items()))
        for seat, rec in records.items():
            if rec.record.step != step:  # own records always match; peers' checked in _advance
                self._fail(seat, f"record for step {rec.record.step} in step {step}", step=step)
        self.transcript.append_step(records.values())
        self._current = {}
        bodies = {s: r.record.body for s, r in records.items()}
        handler = getattr(self, "_on_" + spec.kind.replace("-", "_"))
        handler(spec, bodies, step)
        # A record queued for a step that has now passed was never expected there.
        for queue in self._inbox.values():
            for old in [queue.pop(s) for s in sorted(queue) if s < self.step]:
                self._out_of_place(old)
                return
        self._author_auto()

    def _next(
        self, kind: str, authors: Sequence[int], *allowed: type[Body], rnd: int = 0, seat: int = -1
    ) -> None:
        self.spec = StepSpec(kind, tuple(authors), tuple(allowed), rnd, seat)

    def _all(self) -> tuple[int, ...]:
        return tuple(range(self.n))

    def _on_join(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        mine = pack(self._join.to_wire())
        for seat, body in bodies.items():
            # Compared as encoded: in Python 0 == False, on the wire they differ.
            if pack(body.to_wire()) != mine:
                self._fail(seat, "disagrees on the table (version, game, rules or roster)", step=step)
        self._next("cut-commit", self._all(), Commit)

    def _on_cut_commit(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        self._cut_commits = {s: b.commit for s, b in bodies.items()}  # type: ignore[attr-defined]
        self._next("cut-reveal", self._all(), Reveal)

    def _on_cut_reveal(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        secrets = {}
        for seat, body in bodies.items():
            secret = body.secret  # type: ignore[attr-defined]
            if kdf.commitment(secret, self._commit_context(0, seat)) != self._cut_commits[seat]:
                self._fail(seat, "cut secret does not match its commitment", step=step)
            secrets[seat] = secret
        seed = hashlib.sha256(
            b"p2pcards/v1/cut-seed\x00" + b"".join(secrets[s] for s in range(self.n))
        ).digest()
        contenders = list(range(self.n))
        while True:  # each round of the cut deals from a freshly shuffled deck
            order = kdf.derive_permutation(seed, "cut", 52, len(self.cut_rounds))
            shown = {s: ALL_CARDS[order[i]] for i, s in enumerate(contenders)}
            self.cut_rounds.append(sorted(shown.items()))
            contenders = cut_lowest(shown)
            if len(contenders) == 1:
                break
        self.match = Match(rules=self.rules, players=self.n, dealer=contenders[0])
        self._begin_hand()

    def _begin_hand(self) -> None:
        number = 1 if self.hand is None else self.hand.number + 1
        secret = None if self._entropy is None else kdf.derive(self._entropy, "hand-secret", number)
        self.hand = _HandCrypto(number=number, secret=secret)
        self.hands_crypto.append(self.hand)
        self._next("commit", self._all(), Commit)

    def _on_commit(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        h = self.hand
        assert h is not None
        for seat, body in bodies.items():
            h.commits[seat] = body.commit  # type: ignore[attr-defined]
        size = self.rules.deck_size
        h.rounds.append(_Round(cards=tuple(range(size)), base=encoding.encode_deck(range(size))))
        self._next("shuffle", (0,), Shuffle, rnd=0, seat=0)

    def _check_deck(self, seat: int, body: Shuffle | Lock, spec: StepSpec, step: int) -> tuple[bytes, ...]:
        assert self.hand is not None
        rd = self.hand.rounds[spec.round]
        if body.round != spec.round or len(body.deck) != rd.size:
            self._fail(seat, f"{body.TYPE} pass for the wrong round or of the wrong size", step=step)
        try:
            poker.check_deck(body.deck, rd.size)
        except group.InvalidElement as e:
            self._fail(seat, f"{body.TYPE} pass is not a valid deck: {e}", step=step)
        self.hand.pass_steps[(body.TYPE, spec.round, seat)] = step
        return body.deck

    def _on_shuffle(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        assert self.hand is not None
        seat = spec.seat
        deck = self._check_deck(seat, bodies[seat], spec, step)  # type: ignore[arg-type]
        self.hand.rounds[spec.round].shuffles[seat] = deck
        if seat + 1 < self.n:
            self._next("shuffle", (seat + 1,), Shuffle, rnd=spec.round, seat=seat + 1)
        else:
            self._next("lock", (0,), Lock, rnd=spec.round, seat=0)

    def _on_lock(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        assert self.hand is not None
        seat = spec.seat
        deck = self._check_deck(seat, bodies[seat], spec, step)  # type: ignore[arg-type]
        self.hand.rounds[spec.round].locks[seat] = deck
        if seat + 1 < self.n:
            self._next("lock", (seat + 1,), Lock, rnd=spec.round, seat=seat + 1)
        elif spec.round == 0:
            self._next("deal", self._all(), Keys)
        else:
            self._recycled(spec.round)

    def _store_keys(self, seat: int, body: Keys, expected: Sequence[Pos], step: int) -> None:
        assert self.hand is not None
        got = sorted((k.round, k.pos) for k in body.keys)
        if got != sorted(expected):
            self._fail(seat, "published keys for the wrong positions", step=step)
        for k in body.keys:
            rd = self.hand.rounds[k.round]
            if not 0 < k.key < group.ORDER:
                self._fail(seat, "published a key outside the group order", step=step)
            rd.keys.setdefault(k.pos, {})[seat] = k.key
            rd.key_steps.setdefault(k.pos, {})[seat] = step

    def _open(self, pos: Pos, extra: dict[int, int] | None = None) -> int | None:
        """Open a position with every published key (plus ``extra``); None if not a card."""
        assert self.hand is not None
        keys = dict(self.hand.rounds[pos[0]].keys.get(pos[1], {}))
        if extra:
            keys.update(extra)
        if len(keys) != self.n:
            return None
        card = poker.open_card(self._point(pos), keys.values())
        if card is None or card >= self.rules.deck_size:
            return None
        return card

    def _open_mine(self, pos: Pos) -> int | None:
        assert self.hand is not None and self.hand.secret is not None and self.seat is not None
        return self._open(pos, {self.seat: poker.lock_key(self.hand.secret, *pos)})

    def _on_deal(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        h = self.hand
        assert h is not None and self.match is not None
        for seat, body in bodies.items():
            self._store_keys(seat, body, self._deal_positions(seat), step)  # type: ignore[arg-type]
        holdings, up, stock = self._deal_layout()
        h.holdings, h.up, h.stock = holdings, up, stock
        deck: list[Card | None] = [None] * self.rules.deck_size
        up_card = self._open(up)
        if up_card is None:
            h.dispute = (None, "the up card does not open to a card")
            self._start_reveal()
            return
        deck[up[1]] = ALL_CARDS[up_card]
        if self.seat is not None:
            for pos in holdings[self.seat]:
                card = self._open_mine(pos)
                if card is None:
                    h.dispute = (self.seat, f"dealt position {pos[1]} does not open to a card")
                else:
                    h.known[pos] = ALL_CARDS[card]
                    deck[pos[1]] = ALL_CARDS[card]
            if len(set(h.known.values())) != len(h.known):
                h.dispute = (self.seat, "dealt the same card twice")
        self.match.start_hand(deck)
        self._next_turn()

    def _next_turn(self) -> None:
        """Choose the next step from the engine's phase."""
        assert self.match is not None and self.match.hand is not None and self.hand is not None
        hand = self.match.hand
        if hand.phase is Phase.OVER:
            self._start_reveal()
            return
        if hand.phase is Phase.RECYCLE:
            self._start_recycle(hand.turn)
            return
        if hand.phase is Phase.FORCED_DRAW:
            self._next("draw-keys", [s for s in self._all() if s != hand.turn], Keys, Dispute, seat=hand.turn)
            return
        self._next(
            "turn",
            (hand.turn,),
            DeclareSuit,
            PlayCards,
            DrawCard,
            KeepCard,
            PassTurn,
            AcceptSkip,
            Dispute,
        )

    def _engine_apply(self, action: nines.Action, seat: int | None, step: int) -> None:
        assert self.match is not None and self.match.hand is not None and self.hand is not None
        try:
            self.match.hand.apply(action)
        except IllegalAction as e:
            self._fail(seat, f"illegal move: {e.detail} (rule {e.rule})", step=step)
        self.hand.actions.append((action, step))

    def _on_turn(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        h = self.hand
        assert h is not None and self.match is not None and self.match.hand is not None
        hand = self.match.hand
        seat = spec.authors[0]
        body = bodies[seat]
        if isinstance(body, Dispute):
            h.dispute = (seat, f"disputed a card ({body.reason})")
            self._start_reveal()
        elif isinstance(body, DeclareSuit):
            self._engine_apply(nines.Declare(seat=seat, suit=body.suit), seat, step)
            self._next_turn()
        elif isinstance(body, PlayCards):
            self._on_play(seat, body, step)
        elif isinstance(body, DrawCard):
            self._check_dry_run(nines.Draw(seat=seat), seat, step)
            h.draw_step = step
            if not hand.stock and len(hand.discards) > 1:
                self._start_recycle(seat)
            else:
                self._next("draw-keys", [s for s in self._all() if s != seat], Keys, Dispute, seat=seat)
        elif isinstance(body, KeepCard):
            self._engine_apply(nines.Keep(seat=seat), seat, step)
            self._next_turn()
        elif isinstance(body, PassTurn):
            self._engine_apply(nines.Pass(seat=seat), seat, step)
            self._next_turn()
        elif isinstance(body, AcceptSkip):
            self._engine_apply(nines.AcceptSkip(seat=seat), seat, step)
            self._next_turn()

    def _check_dry_run(self, action: nines.Action, seat: int, step: int) -> None:
        """Check a draw request now, although it is applied once the card is known."""
        assert self.match is not None and self.match.hand is not None
        trial = self.match.hand.copy()
        if not trial.stock and len(trial.discards) > 1:
            try:
                trial.apply(nines.Recycle(stock=(None,) * (len(trial.discards) - 1)))
            except IllegalAction as e:
                self._fail(seat, f"illegal move: {e.detail} (rule {e.rule})", step=step)
        try:
            trial.apply(action)
        except IllegalAction as e:
            self._fail(seat, f"illegal move: {e.detail} (rule {e.rule})", step=step)

    def _on_play(self, seat: int, body: PlayCards, step: int) -> None:
        h = self.hand
        assert h is not None and self.match is not None and self.match.hand is not None
        hand = self.match.hand
        cards = []
        positions = [(s.round, s.pos) for s in body.cards]
        if len(set(positions)) != len(positions):
            self._fail(seat, "shows the same position twice", step=step)
        for shown in body.cards:
            pos = (shown.round, shown.pos)
            if pos not in h.holdings.get(seat, []):
                self._fail(seat, f"plays from position {pos} that it does not hold", step=step)
            if hand.phase is Phase.DRAWN and pos != h.last_drawn.get(seat):
                self._fail(seat, "after drawing only the drawn card may be played", step=step)
            if not 0 < shown.key < group.ORDER:  # checked before the key is used
                self._fail(seat, "shows a key outside the group order", step=step)
            opened = self._open(pos, {seat: shown.key})
            if opened is None or opened != shown.card:
                h.dispute = (
                    seat,
                    f"showed {ALL_CARDS[shown.card]} from position {pos}, which holds another card",
                )
                self._start_reveal()
                return
            cards.append(ALL_CARDS[shown.card])
        if len(cards) == 1:
            action: nines.Action = nines.Play(seat=seat, card=cards[0], suit=body.suit)
        else:
            if body.suit is None:
                self._fail(seat, "two 9s must declare a suit", step=step)
            action = nines.PlayNines(seat=seat, cards=(cards[0], cards[1]), suit=body.suit)  # type: ignore[arg-type]
        self._engine_apply(action, seat, step)
        for shown in body.cards:
            pos = (shown.round, shown.pos)
            h.holdings[seat].remove(pos)
            rd = self.hand.rounds[pos[0]]  # type: ignore[union-attr]
            rd.keys.setdefault(pos[1], {})[seat] = shown.key
            rd.key_steps.setdefault(pos[1], {})[seat] = step
        self._next_turn()

    def _start_recycle(self, drawer: int) -> None:
        h = self.hand
        assert h is not None and self.match is not None and self.match.hand is not None
        under = self.match.hand.discards[:-1]
        cards = tuple(int(c) for c in under)
        h.rounds.append(_Round(cards=cards, base=encoding.encode_deck(cards)))
        h.pending_draw = drawer
        self._next("shuffle", (0,), Shuffle, rnd=len(h.rounds) - 1, seat=0)

    def _recycled(self, rnd: int) -> None:
        h = self.hand
        assert h is not None and self.match is not None and self.match.hand is not None
        size = h.rounds[rnd].size
        self._engine_apply(nines.Recycle(stock=(None,) * size), None, self.step - 1)
        h.stock = [(rnd, p) for p in range(size)]
        drawer = h.pending_draw
        h.pending_draw = None
        assert drawer is not None
        self._next("draw-keys", [s for s in self._all() if s != drawer], Keys, Dispute, seat=drawer)

    def _on_draw_keys(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        h = self.hand
        assert h is not None and self.match is not None
        drawer = spec.seat
        for seat, body in bodies.items():
            if isinstance(body, Dispute):
                h.dispute = (seat, f"disputed a card ({body.reason})")
                self._start_reveal()
                return
        pos = h.stock[0]
        for seat, body in bodies.items():
            self._store_keys(seat, body, [pos], step)  # type: ignore[arg-type]
        card: Card | None = None
        if drawer == self.seat:
            opened = self._open_mine(pos)
            if opened is None:
                h.dispute = (self.seat, f"the drawn position {pos} does not open to a card")
            else:
                card = ALL_CARDS[opened]
                h.known[pos] = card
        h.stock.pop(0)
        h.holdings[drawer].append(pos)
        h.last_drawn[drawer] = pos
        forced = self.match.hand is not None and self.match.hand.phase is Phase.FORCED_DRAW
        self._engine_apply(nines.Draw(seat=drawer, card=card), drawer, step if forced else h.draw_step)
        self._next_turn()

    # ------------------------------------------------------------ hand end

    def _start_reveal(self) -> None:
        self._next("reveal", self._all(), Reveal)

    def _on_reveal(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        h = self.hand
        assert h is not None and self.match is not None
        secrets: dict[int, bytes] = {}
        for seat, body in bodies.items():
            secrets[seat] = body.secret  # type: ignore[attr-defined]
        full_hand = self._verify_hand(secrets, step)
        if h.dispute is not None:
            seat, why = h.dispute
            if seat is None:
                raise LocalProtocolError("a public card failed to open, yet every step verified")
            self._fail(seat, f"{why}: false, every key and pass of the hand verified", step=step)
        assert full_hand is not None
        self.match.hand = full_hand
        self.match.close_hand()
        if self.match.over:
            self._next("result", self._all(), Result)
        else:
            self._begin_hand()

    def _verify_hand(self, secrets: dict[int, bytes], step: int) -> nines.HandState | None:
        """Check every commitment, pass and key against the revealed secrets, then
        replay the hand with full information; return the full-information hand
        (None when a dispute stopped the hand before it was dealt)."""
        h = self.hand
        assert h is not None and self.match is not None
        for seat in range(self.n):
            secret = secrets[seat]
            if kdf.commitment(secret, self._commit_context(h.number, seat)) != h.commits[seat]:
                self._fail(seat, "hand secret does not match its commitment", step=step)
        for seat in range(self.n):
            if seat == self.seat and h.dispute is None:
                continue  # this node made its own passes and keys
            self._verify_seat(seat, secrets[seat])
        # With every pass verified, each round's final order follows from the
        # permutations alone: position i holds base[π_0[π_1[...π_{n-1}[i]]]].
        decks: list[list[int]] = []
        for rnd, rd in enumerate(h.rounds):
            if len(rd.locks) != self.n:
                decks.append([])
                continue
            order = list(range(rd.size))
            for seat in reversed(range(self.n)):
                perm = poker.shuffle_permutation(secrets[seat], rnd, rd.size)
                order = [perm[i] for i in order]
            decks.append([rd.cards[i] for i in order])
        hand = self.match.hand
        if hand is None:
            return None
        full = nines.HandState(
            self.rules,
            self.n,
            hand.dealer,
            [ALL_CARDS[c] for c in decks[0]],
            hand.seats,
        )
        for action, act_step in h.actions:
            if isinstance(action, nines.Recycle):
                rnd = 1 + sum(1 for e in full.events if isinstance(e, nines.Recycle))
                action = nines.Recycle(stock=tuple(ALL_CARDS[c] for c in decks[rnd]))
            elif isinstance(action, nines.Draw):
                action = nines.Draw(seat=action.seat)
            try:
                full.apply(action)
            except IllegalAction as e:
                self._fail(
                    e.seat,
                    f"illegal move seen with all cards shown: {e.detail} (rule {e.rule})",
                    step=act_step,
                )
        if full.phase is not Phase.OVER and h.dispute is None:
            raise AssertionError("the full replay must end where the replica ended")
        return full

    def _verify_seat(self, seat: int, secret: bytes) -> None:
        """Blame ``seat`` if any pass or key it published differs from its secret's."""
        h = self.hand
        assert h is not None
        for rnd, rd in enumerate(h.rounds):
            if seat in rd.shuffles:
                deck_in = rd.base if seat == 0 else rd.shuffles[seat - 1]
                if not poker.verify_shuffle_pass(secret, rnd, deck_in, rd.shuffles[seat]):
                    self._fail(
                        seat, f"dishonest shuffle in round {rnd}", step=h.pass_steps[("shuffle", rnd, seat)]
                    )
            if seat in rd.locks:
                deck_in = rd.shuffles[self.n - 1] if seat == 0 else rd.locks[seat - 1]
                if not poker.verify_lock_pass(secret, rnd, deck_in, rd.locks[seat]):
                    self._fail(seat, f"dishonest lock in round {rnd}", step=h.pass_steps[("lock", rnd, seat)])
            for pos, by_seat in sorted(rd.keys.items()):
                if seat in by_seat and by_seat[seat] != poker.lock_key(secret, rnd, pos):
                    self._fail(
                        seat,
                        f"published a wrong key for position {pos} of round {rnd}",
                        step=rd.key_steps[pos][seat],
                    )

    def _on_result(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        assert self.match is not None
        for seat, body in bodies.items():
            if body.totals != tuple(self.match.totals) or body.winners != self.match.winners:  # type: ignore[attr-defined]
                self._fail(seat, "signed a different result", step=step)
        self.status = "over"
        self.spec = StepSpec("over", (), ())
