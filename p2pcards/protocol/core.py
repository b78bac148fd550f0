"""The generic table: one seat's sans-IO replica of a match (or an observer's, for audits).

The table decides *what* each step is: its kind, the seats that write it and
the record types they may write, derived deterministically from the steps
before it, so every honest node expects exactly the same records. *How*
records arrive, chain, wait, get forwarded, prove equivocation and blame a
seat is the step log's job (:mod:`p2pcards.protocol.steplog`), which hands
each completed step back here; its records are then applied in seat order,
and the first one that breaks a rule blames its author. Where the cards are
is the card ledger's (:mod:`p2pcards.protocol.ledger`).

The steps every game shares: ``join`` (all) -> ``cut-commit`` (all) ->
``cut-reveal`` (all, each with its commitment for hand 1, and seat 0's with its
first shuffle pass of hand 1) -> per hand: ``shuffle`` x n-1 (seats 1 to n-1)
-> ``lock`` x n (seat n-1 first, the seat to act first after the deal last;
in round 0 each with its author's deal keys) -> the game's own steps (a game adapter, see
each game's ``adapter`` in its folder), which may add shuffle rounds and end the
hand with ``reveal`` (all reveal the hand secret and commit to the next, as
the cut's reveal does;
every pass and key is verified and the game replays the hand with every card
known) -> next hand or ``result`` (all sign the outcome). A game may let the
records of its play carry the passes of the next hand's round 0
(``AHEAD_STEPS``, :class:`Ahead`): that round is then made while the hand is
played, one pass after another in a fixed order, each checked when the record
carrying it completes, and the next hand's deal keys come with the reveal, so
that hand waits only for its players. A seat that sends
no commitment or first pass in a reveal, or no deal keys with a lock (as
earlier versions did), brings back a ``commit`` step (and seat 0's shuffle
step) before the shuffles or a ``deal`` step after the locks: every record
still has one step to go in, one trip fewer when it travels with another.

The table never touches sockets or clocks and draws no randomness: secrets are
derived from the ``entropy`` passed in. Outgoing frames are collected and
handed out by :meth:`TableCore.drain` (each goes to every other seat) and
:meth:`TableCore.drain_replies` (each to one peer).
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar, NoReturn

from p2pcards.cards import ALL_CARDS, Card
from p2pcards.crypto import kdf
from p2pcards.crypto.identity import Identity, is_valid_public_key
from p2pcards.errors import IllegalAction, LocalProtocolError, RemoteProtocolError
from p2pcards.games.base import cut_for_deal
from p2pcards.games.base import game as game_named
from p2pcards.protocol import faults
from p2pcards.protocol.events import Continued, CutDone, Event, HandEnded, MatchOver, Moved
from p2pcards.protocol.ledger import CardLedger, Pos, Round
from p2pcards.protocol.messages import (
    SIDE_BODIES,
    AheadPass,
    Body,
    Commit,
    Confirm,
    Continue,
    Dispute,
    Join,
    Keys,
    Leave,
    Lock,
    Player,
    Result,
    Reveal,
    Shuffle,
)
from p2pcards.protocol.steplog import StepLog
from p2pcards.protocol.transcript import GENESIS, Transcript
from p2pcards.protocol.wire import (
    PROTOCOL_VERSION,
    Frame,
    SignedRecord,
    pack,
)


@dataclass(frozen=True, slots=True)
class StepSpec:
    """What the current step expects: its kind, its authors, the bodies allowed."""

    kind: str
    authors: tuple[int, ...]
    allowed: tuple[type[Body], ...]
    round: int = 0
    seat: int = -1  # the shuffling/locking seat, or the drawer for draw-keys


@dataclass(slots=True)
class HandCrypto:
    """Everything one hand needs beyond the rules engine: its secret, commitments,
    card ledger, the moves with the step of their record, and a pending dispute.
    A game adds what it tracks of positions (who holds which, the stock...)."""

    number: int
    secret: bytes | None
    ledger: CardLedger
    commits: dict[int, bytes] = field(default_factory=dict)
    actions: list[tuple[Any, int]] = field(default_factory=list)  # with their step
    dispute: tuple[int | None, str] | None = None
    """(seat to blame if every key and pass verifies, what went wrong)."""
    keyed: set[int] = field(default_factory=set)
    """Seats whose lock pass of round 0 carried their deal keys."""
    commit_step: bool = False
    """The hand's commitments came in a ``commit`` step (a seat sent none with its
    reveal, as earlier versions did): its rounds lock in seat order, as theirs did."""

    @property
    def rounds(self) -> list[Round]:
        return self.ledger.rounds


@dataclass(slots=True)
class Ahead:
    """Round 0 of the hand that follows, shuffled and locked while this hand is played:
    its passes ride in this hand's records (:class:`AheadPass`), one after another in a
    fixed order (every seat's shuffle from seat 0 on, then every lock from seat n-1 on),
    each in a step after the one that carried the pass it works on."""

    number: int
    ledger: CardLedger
    order: tuple[tuple[str, int], ...]
    """The passes in the order they are made: (kind, seat)."""
    done: list[int] = field(default_factory=list)
    """The step whose record carried each pass made so far, in that order."""
    commits: dict[int, bytes] = field(default_factory=dict)
    """Each seat's commitment to its secret of that hand, from its shuffle pass."""

    def due(self) -> tuple[str, int] | None:
        """The pass that comes next, (kind, seat); None once round 0 is locked."""
        return self.order[len(self.done)] if len(self.done) < len(self.order) else None

    def made(self, kind: str, seat: int) -> bool:
        return (kind, seat) in self.order[: len(self.done)]


@dataclass(frozen=True, slots=True)
class Carry:
    """What a table that continues a match without a seat takes from the table it
    continues (see :meth:`TableCore.continued_without`)."""

    table: TableCore
    left: tuple[int, ...]
    """The seats of ``table`` that left, in increasing order."""
    reason: str


def continuation_id(game_id: bytes, left: Sequence[int]) -> bytes:
    """The game id of the table that continues table ``game_id`` without the seats
    ``left``: every remaining seat derives the same one whatever order it judged them
    gone in, and it never repeats a used id."""
    return hashlib.sha256(b"p2pcards/v1/continue\x00" + game_id + bytes(sorted(set(left)))).digest()[:16]


@dataclass(slots=True)
class Standings:
    """A match that ends where it stands: the remaining seats are too few to play on.

    It has no hand of its own, but the rules it was played by, so that its record
    (``p2pcards.record``) reads like any match's."""

    totals: list[int]
    ahead: tuple[int, ...]
    """The seats with the best total: what every seat signs as the ``result``'s winners."""
    hands: int = 0
    """Hands scored in the whole match before it stopped."""
    rules: Any = None
    results: list[Any] = field(default_factory=list)
    history: list[Any] = field(default_factory=list)
    hand: Any = None
    dealer: int = 0
    playoff_seats: Any = None

    @property
    def winners(self) -> tuple[int, ...]:
        """Who won: those ahead, once a hand was scored; nobody when the match stopped before
        its first hand was scored (everyone still stands where the match began)."""
        return self.ahead if self.hands else ()

    @property
    def over(self) -> bool:
        return True

    @property
    def players(self) -> int:
        return len(self.totals)

    @property
    def hand_number(self) -> int:
        return 1


def signed_winners(match: Any) -> tuple[int, ...]:
    """The ``winners`` every seat signs in its ``result`` record: the match's winners, or,
    for a match that stopped with too few seats to play on, those ahead on its totals
    (every seat left, all tied, when no hand was scored)."""
    return match.ahead if isinstance(match, Standings) else tuple(match.winners)


class SeededCut:
    """The cut's cards, from a seed the revealed cut secrets fix: round ``k`` gives the
    contenders, in seat order, the first cards of ``derive_permutation(seed, "cut", 52, k)``."""

    def __init__(self, seed: bytes) -> None:
        self.seed = seed
        self.rounds = 0

    def cut(self, seats: Sequence[int]) -> list[tuple[int, Card]]:
        order = kdf.derive_permutation(self.seed, "cut", 52, self.rounds)
        self.rounds += 1
        return [(s, ALL_CARDS[order[i]]) for i, s in enumerate(seats)]


class TableCore:
    """One seat's replica (``seat`` and ``identity`` set) or an observer (``seat=None``),
    for any game: a game's table subclasses it and fills in the hooks below
    (the cut's rule, the match, the deal and the game's own step kinds, the
    bodies of its moves, the full-information replay at the end of a hand)."""

    GAME = ""
    """The game's name, as the join record states it."""
    DECISIONS: tuple[str, ...] = ("turn",)
    """The step kinds whose record is a seat's decision (see :meth:`act`)."""
    AHEAD_STEPS: ClassVar[tuple[str, ...]] = ()
    """The game's step kinds whose records may carry a pass of the next hand
    (:class:`Ahead`); none: every hand shuffles in steps of its own."""
    SHARED_STEPS: ClassVar[dict[str, str]] = {
        "join": "_on_join",
        "continue": "_on_continue",
        "cut-commit": "_on_cut_commit",
        "cut-reveal": "_on_cut_reveal",
        "commit": "_on_commit",
        "shuffle": "_on_shuffle",
        "lock": "_on_lock",
        "reveal": "_on_reveal",
        "result": "_on_result",
    }
    """Every game's step kinds, each with the method that applies a completed step."""
    GAME_STEPS: ClassVar[dict[str, str]] = {}
    """The game's own step kinds (an adapter fills this in)."""
    STEPS: ClassVar[dict[str, Callable[..., None]]] = {}
    """All step kinds of this table and their handlers (built from the two above)."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        kinds = {**cls.SHARED_STEPS, **cls.GAME_STEPS}
        cls.STEPS = {kind: getattr(cls, name) for kind, name in kinds.items()}

    def __init__(
        self,
        *,
        game_id: bytes,
        roster: Sequence[Player],
        rules: Any,
        seat: int | None,
        identity: Identity | None = None,
        entropy: bytes | None = None,
        carry: Carry | None = None,
        clock: Sequence[int] | None = None,
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
            if any(other.key == player.key for other in roster[:i]):
                raise LocalProtocolError(f"seat {i} has the key of a seat before it")
        self.game_id = game_id
        self.roster = tuple(roster)
        self.rules = rules
        self.seat = seat
        self.n = len(roster)
        self._game = game_named(self.GAME)  # the engine: its match, cut rule, dealer rotation
        self._identity = identity
        self._entropy = entropy
        self.log = StepLog(self, game_id=game_id, roster=self.roster, seat=seat, identity=identity)
        self._events: deque[Event] = deque()
        self.match: Any = None
        self.cut_rounds: list[list[tuple[int, Card]]] = []
        self.hand: Any = None
        self.hands_crypto: list[Any] = []  # every hand's, for measurements
        self.ahead: Ahead | None = None
        """Round 0 of the next hand, made while this one is played (AHEAD_STEPS)."""
        self._cut_commits: dict[int, bytes] = {}
        self.carry = carry
        self.carried: tuple[int, ...] | None = None
        """The totals this table starts from (a continued match), by seat."""
        self.carried_hands = 0
        """Hands of the tables before this one whose scores count."""
        self.leaver_totals: dict[int, int] = {}
        """The totals of the seats that left (seats of the table continued), as they stay."""
        self.hand_ends: list[int] = []
        """The step at which each hand of this table was scored."""
        self.terms_of: int | None = seat
        """The seat whose terms ``_join`` states: this seat's (the terms it was given in the
        lobby), or, for an audit, the author of the file's reference join (protocol.md 7.1)."""
        self._join = Join(
            version=PROTOCOL_VERSION,
            game=self.GAME,
            rules=tuple(sorted(rules.to_dict().items())),
            roster=self.roster,
            clock=None if clock is None else tuple(clock),
        )
        if carry is None:
            self._next("join", self._all(), Join)
        else:
            self._next("continue", self._all(), Continue)

    # ------------------------------------------------------------------ API

    @property
    def step(self) -> int:
        return self.log.step

    def next_event(self) -> Event | None:
        """The next thing that happened at this table, in order; None when nothing new
        has (feed it more frames). Consumers read these instead of the table's state."""
        return self._events.popleft() if self._events else None

    # The step log's state and entry points (see p2pcards.protocol.steplog).

    @property
    def transcript(self) -> Transcript:
        return self.log.transcript

    @property
    def failure(self) -> RemoteProtocolError | None:
        return self.log.failure

    @property
    def status(self) -> str:
        return self.log.status

    @property
    def suspect(self) -> tuple[int, str] | None:
        return self.log.suspect

    @property
    def proof(self) -> list[SignedRecord]:
        return self.log.proof

    @property
    def culprit_record(self) -> SignedRecord | None:
        return self.log.culprit_record

    @property
    def stopped(self) -> dict[int, tuple[int, str]]:
        return self.log.stopped

    def stopped_by_relay(self, seat: int) -> bool:
        """Whether ``seat``'s word that it stops came only through a relay (see the log)."""
        return self.log.stopped_by_relay(seat)

    @property
    def waiting_for(self) -> tuple[int, ...]:
        """Seats whose record the current step still needs."""
        return self.log.waiting_for

    @property
    def held_ahead(self) -> int:
        """Records held for later steps, waiting for the current one to complete."""
        return self.log.held_ahead

    @property
    def others_ahead(self) -> bool:
        """Whether another seat is past the current step (so it holds what this one lacks)."""
        return self.log.others_ahead

    def drain(self) -> list[bytes]:
        """Frames produced since the last call; each goes to every other seat."""
        return self.log.drain()

    def drain_replies(self) -> dict[int, list[bytes]]:
        """Frames meant for one peer only (answers to its ``need``), by peer."""
        return self.log.drain_replies()

    def receive(self, peer: int, data: bytes) -> None:
        """Feed one frame received on ``peer``'s link. Raises RemoteProtocolError on a fault."""
        self.log.receive(peer, data)

    def receive_frame(self, peer: int, frame: Frame) -> None:
        """Like :meth:`receive` for a frame already decoded by a stream decoder."""
        self.log.receive_frame(peer, frame)

    def receive_relayed(self, relay: int, origin: int, frame: Frame) -> None:
        """A frame of ``origin``'s carried by ``relay`` (see StepLog.receive_relayed)."""
        self.log.receive_relayed(relay, origin, frame)

    def receive_record(self, rec: SignedRecord) -> None:
        """Feed a record read from a transcript file (the audit)."""
        self.log.receive_record(rec)

    def blame(self, peer: int | None, problem: str) -> None:
        """Fail the table because of ``peer`` (a broken link, a timeout, bad bytes)."""
        self.log.blame(peer, problem)

    def blame_signer(self, seat: int, raw: bytes, sig: bytes, problem: str) -> None:
        """Fail the table because ``seat`` validly signed ``raw``, a record that does not read."""
        self.log.blame_signer(seat, raw, sig, problem)

    def stop(self, problem: str) -> None:
        """Fail the table with nobody blamed: this node cannot tell who is at fault."""
        self.log.stop(problem)

    def nudge(self) -> None:
        """The I/O layer has waited a while: ask every peer for the records we lack."""
        self.log.nudge()

    def need_frame(self) -> bytes:
        """A ``need`` frame for where this table stands (also a sign of life)."""
        return self.log.need_frame()

    def last_step_frame(self) -> bytes | None:
        """The last complete step's records, for every peer once this table is over."""
        return self.log.last_step_frame()

    def conclude_stalled(self) -> None:
        """Called by the I/O layer when a chaining dispute saw no proof in time."""
        self.log.conclude_stalled()

    def records_to_save(self) -> list[SignedRecord]:
        """What a transcript file of this node holds (see StepLog.records_to_save)."""
        return self.log.records_to_save()

    @property
    def unreadable(self) -> tuple[bytes, bytes] | None:
        """The record, validly signed, that does not read, for which this node blamed its
        signer: kept last in the file as the proof (see StepLog.blame_signer)."""
        return self.log.unreadable

    def start(self) -> None:
        """Send this seat's join record (call once, before anything else)."""
        self._author_auto()

    def restore(self, records: Sequence[SignedRecord]) -> None:
        """Bring this fresh table (same identity and entropy as a node that crashed)
        back to where that node was, from its journal's records; instead of
        :meth:`start`. Its own records are used as they are when their step comes
        (never signed again); the others are accepted as from a file. Frames for
        records it had sent are not sent again: a peer that lacks one asks for it."""
        self.log.restore_own(records)
        self.start()
        for rec in records:
            if rec.record.seat != self.seat or isinstance(rec.record.body, SIDE_BODIES):
                self.receive_record(rec)  # (its own side records too: they are no step's record)
        self.log.drain_journal()  # already durable

    def drain_journal(self) -> list[SignedRecord]:
        """Records to make durable before sending anything (see StepLog.drain_journal)."""
        return self.log.drain_journal()

    def link_reset(self, peer: int) -> list[bytes]:
        """``peer`` is on a new link: the frames to send it first (see StepLog.link_reset)."""
        return self.log.link_reset(peer)

    @property
    def clock(self) -> tuple[int, ...] | None:
        """The table's clock as every seat signed it in the join records (turn, step and
        grace, in seconds), or None for a table that did not state one."""
        return self._join.clock

    @property
    def departed(self) -> dict[int, str]:
        """Seats that signed that they leave the match, with their reason."""
        return {s: r.record.body.reason for s, r in self.log.left.items()}  # type: ignore[attr-defined]

    def carriable(self, origin: int, frame: Frame) -> str | None:
        """Why a seat must not carry ``frame`` for ``origin`` (see StepLog.carriable)."""
        return self.log.carriable(frame)

    def fingerprint_answered(self) -> bool:
        """This seat signed its person's answer about the table fingerprint (perhaps before a
        crash: it is in the journal), or has no seat to sign one for."""
        return self.seat is None or self.seat in self.log.confirmed

    def sign_confirm(self, body: Confirm) -> bool:
        """Sign and send this seat's ``confirm`` (a side record) while the match runs;
        False if this seat cannot (an observer, the match over, one already sent)."""
        if self.seat is None or self.status not in ("running", "disputed") or self.seat in self.log.confirmed:
            return False
        self.log.author_side(body)
        return True

    def leave(self, reason: str) -> None:
        """This seat leaves for good: sign it (the frame goes out with :meth:`drain`),
        so that the others continue without waiting for it. The table stops here."""
        if self.seat is None or self.status not in ("running", "disputed"):
            return
        self.log.author_side(Leave(reason=reason))
        self.log.stop(faults.LEFT_MATCH.format(name=self.roster[self.seat].name))

    def hands_by(self, steps: int) -> int:
        """Hands of this table scored within its first ``steps`` steps."""
        return sum(1 for end in self.hand_ends if end < steps)

    def continued_without(self, left: Sequence[int], reason: str) -> TableCore:
        """The table on which the others continue the match without the seats ``left``
        (they left, or stayed away too long): same game and rules, the roster without
        them (seats renumbered in order), a fresh cut and deal, the totals of the
        hands every remaining seat finished. This seat writes where it stood here as
        the new table's first record; this table takes nothing more."""
        gone = tuple(sorted(set(left)))
        if not gone or any(not 0 <= s < self.n or s == self.seat for s in gone) or self.n - len(gone) < 2:
            raise LocalProtocolError(f"cannot continue without seats {gone}")
        seat = None if self.seat is None else self.seat - sum(1 for s in gone if s < self.seat)
        entropy = None if self._entropy is None else kdf.derive(self._entropy, "continue", *gone)
        nxt = type(self)(
            game_id=continuation_id(self.game_id, gone),
            roster=[p for s, p in enumerate(self.roster) if s not in gone],
            rules=self.rules,
            seat=seat,
            identity=self._identity,
            entropy=entropy,
            carry=Carry(self, gone, reason),
            clock=self._join.clock,
        )
        if self.failure is None and self.status != "over":
            names = ", ".join(self.roster[s].name for s in gone)
            self.log.stop(faults.GOES_ON_WITHOUT.format(names=names))
        return nxt

    def act(self, action: Any) -> None:
        """This seat's decision at its turn (an engine action of this seat)."""
        if self.failure is not None:
            raise self.failure
        if not self.my_turn:
            raise LocalProtocolError("it is not this seat's turn to decide")
        if action not in self.legal_actions():
            raise LocalProtocolError(f"not a legal action now: {action}")
        body = self._with_ahead(self._body_for_action(action))
        self._author(body)
        self.log.advance()

    @property
    def my_turn(self) -> bool:
        """True when the table waits for a decision of this seat (see :meth:`act`)."""
        return (
            self.status == "running"
            and self.spec.kind in self.DECISIONS
            and self.seat in self.spec.authors
            and self.seat not in self.log.current
            and self.failure is None
        )

    def legal_actions(self) -> list[Any]:
        if not self.my_turn or self.match is None or self.match.hand is None:
            return []
        return self.match.hand.legal_actions()

    def view(self) -> Any:
        """What this seat may see of the current hand (None between hands)."""
        if self.match is None or self.match.hand is None or self.seat is None:
            return None
        return self._view(self.match.hand, self.seat, tuple(self.match.totals))

    # ------------------------------------------------------------- authoring

    def _author(self, body: Body) -> None:
        """Sign and send this seat's record (a dishonest test seat overrides this)."""
        self.log.author(body)

    def _author_auto(self) -> None:
        """Write this seat's record for the new step when it needs no decision."""
        if self.seat is None or self.seat not in self.spec.authors or self.status != "running":
            return
        if self.log.has_restored():  # the record this node wrote before it crashed
            self.log.author(None)
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
        elif kind == "continue":
            body = self._continue_body()
        elif kind == "cut-commit":
            body = Commit(commit=kdf.commitment(self._cut_secret(), self._commit_context(0, self.seat)))
        elif kind == "cut-reveal":
            body = Reveal(
                secret=self._cut_secret(), next=self._next_commitment(1), shuffle=self._next_shuffle(1)
            )
        elif kind == "commit":
            assert h is not None and h.secret is not None
            body = Commit(commit=kdf.commitment(h.secret, self._commit_context(h.number, self.seat)))
        elif kind == "shuffle":
            body = self._shuffle_body()
        elif kind == "lock":
            body = self._lock_body()
        elif kind == "reveal":
            assert h is not None and h.secret is not None
            number = h.number + 1
            made = self.ahead is not None and self.ahead.number == number and bool(self.ahead.done)
            body = Reveal(
                secret=h.secret,
                next=self._next_commitment(number),
                shuffle=None if made else self._next_shuffle(number),
                keys=self._ahead_keys(number),
            )
        elif kind == "result":
            assert self.match is not None and self.match.winners is not None
            body = Result(totals=tuple(self.match.totals), winners=signed_winners(self.match))
        else:
            body = self._game_body(kind)
        if body is not None:
            self._author(self._with_ahead(body))

    # Overridable in tests that play a dishonest seat.
    def _shuffle_body(self) -> Body:
        assert self.hand is not None
        rnd = self.spec.round
        return Shuffle(round=rnd, deck=self.hand.ledger.my_pass("shuffle", rnd))

    def _lock_body(self) -> Body:
        assert self.hand is not None and self.seat is not None
        rnd = self.spec.round
        deal = self._deal_positions(self.seat) if rnd == 0 else None
        keys = None if deal is None else self._keys_body(deal).keys
        return Lock(round=rnd, deck=self.hand.ledger.my_pass("lock", rnd), keys=keys)

    def _keys_body(self, positions: Sequence[Pos]) -> Keys:
        assert self.hand is not None
        return Keys(keys=self.hand.ledger.my_keys(positions))

    def _with_ahead(self, body: Body) -> Body:
        """``body`` with this seat's pass of the next hand when that pass is due (the
        pass before it came in a complete step) and this step may carry it."""
        a = self.ahead
        if (
            a is None
            or self.spec.kind not in self.AHEAD_STEPS
            or a.due() is None
            or a.due()[1] != self.seat  # type: ignore[index]
            or not any(f.name == "ahead" for f in fields(body))  # type: ignore[arg-type]
        ):
            return body
        kind = a.due()[0]  # type: ignore[index]
        deck = a.ledger.my_pass(kind, 0)
        nxt = self._next_commitment(a.number) if kind == "shuffle" else None
        return replace(body, ahead=AheadPass(kind=kind, deck=deck, next=nxt))  # type: ignore[type-var]

    def _ahead_keys(self, number: int) -> tuple[Any, ...] | None:
        """This seat's deal keys of hand ``number``, sent with its reveal when its lock pass
        of that hand was carried ahead and the game knows that hand's deal already."""
        a = self.ahead
        if a is None or a.number != number or self.seat is None or not a.made("lock", self.seat):
            return None
        positions = self._next_deal_positions(self.seat)
        return None if positions is None else a.ledger.my_keys(positions)

    # --------------------------------------------------------------- helpers

    def _fail(
        self,
        seat: int | None,
        problem: str,
        *,
        step: int | None = None,
        rec: SignedRecord | None = None,
        proof: Sequence[SignedRecord] = (),
    ) -> NoReturn:
        self.log.fail(seat, problem, step=step, rec=rec, proof=proof)

    def _cut_secret(self) -> bytes:
        assert self._entropy is not None
        return kdf.derive(self._entropy, "cut-secret")

    def _hand_secret(self, number: int) -> bytes | None:
        return None if self._entropy is None else kdf.derive(self._entropy, "hand-secret", number)

    def _next_commitment(self, number: int) -> bytes:
        """This seat's commitment to the secret of hand ``number``, sent with the reveal
        before it: the commitments are fixed before any pass of that hand, as a commit
        step would fix them, one trip sooner."""
        secret = self._hand_secret(number)
        assert secret is not None and self.seat is not None
        return kdf.commitment(secret, self._commit_context(number, self.seat))

    def _next_shuffle(self, number: int) -> tuple[bytes, ...] | None:
        """Seat 0's shuffle pass of round 0 of hand ``number``, sent with the reveal before
        it: it starts from the unshuffled deck, so it waits for nothing (other seats: None)."""
        if self.seat != 0:
            return None
        ledger = CardLedger(self.n, self.rules.deck_size, self.seat, self._hand_secret(number))
        return ledger.my_pass("shuffle", ledger.new_round(range(self.rules.deck_size)))

    def _commit_context(self, hand_number: int, seat: int) -> bytes:
        return self.game_id + hand_number.to_bytes(4, "big") + bytes([seat])

    # ------------------------------------------------------------ the steps

    def _next(
        self, kind: str, authors: Sequence[int], *allowed: type[Body], rnd: int = 0, seat: int = -1
    ) -> None:
        if kind not in self.STEPS:
            raise LocalProtocolError(f"no step kind {kind!r} in {type(self).__name__}.STEPS")
        self.spec = StepSpec(kind, tuple(authors), tuple(allowed), rnd, seat)
        self.log.expect(kind, authors, allowed)

    # StepOwner: the log hands completed steps here.

    def step_complete(self, records: dict[int, SignedRecord]) -> None:
        spec, step = self.spec, self.step - 1
        bodies = {s: r.record.body for s, r in records.items()}
        self.STEPS[spec.kind](self, spec, bodies, step)
        for seat, body in bodies.items():  # then the passes of the next hand, in seat order
            carried = getattr(body, "ahead", None)
            if carried is not None:
                self._take_ahead(spec, seat, carried, step)

    def _take_ahead(self, spec: StepSpec, seat: int, carried: AheadPass, step: int) -> None:
        """Check and keep ``seat``'s pass of the next hand, carried by its record of ``step``:
        it must be the pass due, from that seat, the pass before it in an earlier step."""
        a = self.ahead
        if a is None or spec.kind not in self.AHEAD_STEPS:
            self._fail(seat, faults.AHEAD_WRONG_STEP.format(kind=spec.kind), step=step)
        if a.due() != (carried.kind, seat) or (a.done and a.done[-1] >= step):
            self._fail(seat, faults.AHEAD_OUT_OF_TURN.format(kind=carried.kind), step=step)
        if (carried.next is None) != (carried.kind == "lock"):
            self._fail(seat, faults.AHEAD_COMMITMENT, step=step)
        problem = a.ledger.check_pass(carried.kind, 0, seat, 0, carried.deck, step)
        if problem is not None:
            self._fail(seat, faults.NEXT_HAND.format(problem=problem), step=step)
        if carried.next is not None:
            a.commits[seat] = carried.next
        a.done.append(step)

    def _open_ahead(self, number: int) -> Ahead | None:
        """Round 0 of hand ``number``, to be made while the hand before it is played."""
        if not self.AHEAD_STEPS:
            return None
        ledger = CardLedger(self.n, self.rules.deck_size, self.seat, self._hand_secret(number))
        n = self.n
        order = (n - 1, *range(n - 1))
        ledger.new_round(range(self.rules.deck_size), order)
        passes = tuple(("shuffle", s) for s in range(n)) + tuple(("lock", s) for s in order)
        return Ahead(number=number, ledger=ledger, order=passes)

    def step_began(self) -> None:
        self._author_auto()

    def _all(self) -> tuple[int, ...]:
        return tuple(range(self.n))

    def _on_join(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        """Every join must state the terms this node's states (compared as encoded: in Python
        0 == False, on the wire they differ). Whose fault a difference is depends on who knows
        what each seat was told: only the host sets the terms, each joiner learns them from
        the host alone, and nothing signed shows what the host told whom. So the host blames
        a joiner whose terms differ from its own; a joiner blames the host whose join differs
        from what it was told; but a joiner that agrees with the host cannot tell whether
        another joiner changed its terms or was told others: it stops, blaming nobody
        (otherwise a host could make honest joiners blame each other). An audit blames
        nobody either: a file is its saver's word, and either author of two joins that
        differ could have saved it (a host that told a joiner other terms would otherwise
        be cleared by its own file, and a joiner that changed them by its own)."""
        mine = pack(self._join.to_wire())
        for seat in sorted(bodies):
            if pack(bodies[seat].to_wire()) == mine:
                continue
            name = self.roster[seat].name
            if self.seat is None:  # an audit: the reference join's author may be the liar
                ref = self.terms_of if self.terms_of is not None else 0
                self.log.stop(
                    faults.FILE_OTHER_TERMS.format(
                        name=name, seat=seat, ref_name=self.roster[ref].name, ref=ref
                    )
                )
                assert self.log.failure is not None
                raise self.log.failure
            if seat == 0 or self.terms_of == 0:
                self._fail(seat, faults.DISAGREES, step=step)
            joins = self.log.transcript.steps[step]  # (appended before the step's work)
            self.log.stop(
                faults.OTHER_TERMS.format(name=name, seat=seat),
                show=[r for r in joins if r.record.seat in (0, seat)],  # a seat shown others proves the lie
            )
            assert self.log.failure is not None
            raise self.log.failure
        self._next("cut-commit", self._all(), Commit)

    def _continue_body(self) -> Continue:
        assert self.carry is not None
        prev = self.carry.table
        return Continue(
            game=prev.game_id,
            left=self.carry.left,
            reason=self.carry.reason,
            steps=prev.step,
            last=prev.transcript.last_digest,
            hands=prev.hands_by(prev.step),
        )

    def _on_continue(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        """Every remaining seat said where it stood on the table it continues: check
        each claim against that table as far as this node holds it, and carry the
        totals of the hands every one of them finished (the fewest claimed)."""
        assert self.carry is not None
        prev, left = self.carry.table, self.carry.left
        old = [s for s in range(prev.n) if s not in left]
        held = [*prev.records_to_save()]
        hands = []
        for seat, body in bodies.items():
            assert isinstance(body, Continue)
            if body.game != prev.game_id or body.left != left:  # (left: increasing, as Carry has it)
                self._fail(seat, faults.CONTINUES_ANOTHER, step=step)
            own = [
                r.record.step
                for r in held
                if r.record.seat == old[seat] and not isinstance(r.record.body, SIDE_BODIES)
            ]
            if body.steps < max(own, default=0):  # its record of step t shows it completed t steps
                self._fail(seat, faults.FEWER_STEPS.format(steps=body.steps), step=step)
            if body.steps <= prev.step:
                if body.last != (prev.transcript.digests[body.steps - 1] if body.steps else GENESIS):
                    self.log.stop(
                        faults.OTHER_HISTORY.format(name=self.roster[seat].name, step=body.steps)
                    )
                    assert self.log.failure is not None
                    raise self.log.failure
                if body.hands != prev.hands_by(body.steps):
                    scored = faults.HANDS_BY_STEP.format(hands=body.hands, step=body.steps)
                    self._fail(seat, scored, step=step)
            elif body.hands < prev.hands_by(prev.step):
                self._fail(seat, faults.FEWER_HANDS.format(hands=body.hands), step=step)
            hands.append(body.hands)
        carried = min(hands)
        if carried > 0:
            assert prev.match is not None
            totals = list(prev.match.results[carried - 1].totals)
        elif prev.carried is not None:
            totals = list(prev.carried)
        else:
            totals = list(self._game.new_match(self.rules, prev.n, 0).totals)
        self.leaver_totals = {s: totals[s] for s in left}
        self.carried = tuple(totals[s] for s in old)
        self.carried_hands = prev.carried_hands + carried
        names = tuple(prev.roster[s].name for s in left)
        self._events.append(Continued(left, names, self.carry.reason, carried, self.carried))
        if self._game.min_players <= self.n <= self._game.max_players:
            self._next("cut-commit", self._all(), Commit)
        else:  # too few to play on: the match ends on the carried totals
            self.match = Standings(
                list(self.carried), self._game.ahead(self.carried), hands=self.carried_hands, rules=self.rules
            )
            self._next("result", self._all(), Result)

    def _on_cut_commit(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        self._cut_commits = {s: b.commit for s, b in bodies.items()}  # type: ignore[attr-defined]
        self._next("cut-reveal", self._all(), Reveal)

    def _on_cut_reveal(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        secrets = {}
        for seat, body in bodies.items():
            assert isinstance(body, Reveal)
            self._check_reveal(seat, body, step)
            secret = body.secret
            if kdf.commitment(secret, self._commit_context(0, seat)) != self._cut_commits[seat]:
                self._fail(seat, faults.CUT_SECRET, step=step)
            secrets[seat] = secret
        seed = hashlib.sha256(
            b"p2pcards/v1/cut-seed\x00" + b"".join(secrets[s] for s in range(self.n))
        ).digest()
        # The same cut as every local game's, from a deck only the revealed secrets fix.
        self.cut_rounds, dealer = cut_for_deal(self._game, SeededCut(seed), self.n)
        self.match = self._game.new_match(self.rules, self.n, dealer)
        if self.carried is not None:
            self.match.totals = list(self.carried)
            self.match.played_before = self.carried_hands
        self._events.append(CutDone(tuple(self.cut_rounds), dealer))
        self._begin_hand(bodies)

    def _begin_hand(self, reveals: dict[int, Body]) -> None:
        """The next hand begins after a reveal step (the cut's, or the last hand's):
        when every reveal carried a commitment for it, those are its commitments and
        its first shuffle follows; otherwise (a seat that does not send them) a
        ``commit`` step collects them."""
        number = 1 if self.hand is None else self.hand.number + 1
        secret = self._hand_secret(number)
        ahead = self.ahead if self.ahead is not None and self.ahead.number == number else None
        if ahead is not None and not ahead.done:
            ahead = None  # nothing was carried ahead: the hand shuffles as one without
        if ahead is None:
            ledger = CardLedger(self.n, self.rules.deck_size, self.seat, secret)
        else:
            ledger = ahead.ledger
        self.hand = self._new_hand(number, secret, ledger)
        self.hands_crypto.append(self.hand)
        self.ahead = self._open_ahead(number + 1)
        step = self.step - 1
        carried = {seat: body.next for seat, body in reveals.items()}  # type: ignore[attr-defined]
        if ahead is not None:
            self._begin_made_hand(ahead, reveals, carried, step)
            return
        for seat in sorted(reveals):  # no lock pass of this hand was carried ahead, so no deal keys
            if reveals[seat].keys is not None:  # type: ignore[attr-defined]
                self._fail(seat, faults.KEYS_BEFORE_LOCK, step=step)
        if any(c is None for c in carried.values()):
            self.hand.commit_step = True
            self._next("commit", self._all(), Commit)
            return
        self._on_commit(self.spec, {s: Commit(commit=c) for s, c in carried.items()}, step)
        first = reveals[0].shuffle  # type: ignore[attr-defined]
        if first is not None:  # seat 0's first pass came with its reveal: the step is done
            self._on_shuffle(self.spec, {0: Shuffle(round=self.spec.round, deck=first)}, step)

    def _begin_made_hand(
        self, ahead: Ahead, reveals: dict[int, Body], carried: dict[int, bytes | None], step: int
    ) -> None:
        """The hand whose round 0 was (partly) made while the last one was played: its
        commitments are those its shuffle passes carried (a reveal's ``next`` must say
        the same), seat 0's first pass is made already, and a seat whose lock pass is
        made sends its deal keys with its reveal. Round 0 goes on from the first pass
        still to make, in steps of its own; then the deal."""
        h = self.hand
        assert h is not None
        for seat, body in reveals.items():
            assert isinstance(body, Reveal)
            made = ahead.commits.get(seat)
            if made is not None and body.next is not None and body.next != made:
                self._fail(seat, faults.OTHER_SECRET_NEXT, step=step)
            if seat == 0 and body.shuffle is not None:
                self._fail(seat, faults.FIRST_SHUFFLE_AGAIN, step=step)
            if body.keys is not None:
                if not ahead.made("lock", seat):
                    self._fail(seat, faults.KEYS_BEFORE_LOCK, step=step)
                expected = self._deal_positions(seat)
                if expected is None:
                    self._fail(seat, faults.KEYS_NO_DEAL, step=step)
                self._store_keys(seat, Keys(keys=body.keys), expected, step)
                h.keyed.add(seat)
            if made is not None:
                carried[seat] = made
        h.commits.update({s: c for s, c in carried.items() if c is not None})
        if len(h.commits) < self.n:
            h.commit_step = True
            self._next("commit", self._all(), Commit)
            return
        self._go_on_round0()

    def _go_on_round0(self) -> None:
        """The next step of round 0, from the passes made so far (or the deal)."""
        assert self.hand is not None
        rd = self.hand.rounds[0]
        for seat in range(self.n):
            if seat not in rd.shuffles:
                self._next("shuffle", (seat,), Shuffle, rnd=0, seat=seat)
                return
        for seat in rd.lock_order:
            if seat not in rd.locks:
                self._next("lock", (seat,), Lock, rnd=0, seat=seat)
                return
        self._deck_ready(0)

    def _check_reveal(self, seat: int, body: Reveal, step: int) -> None:
        """Only seat 0 shuffles first: a first shuffle pass from another seat is a fault."""
        if seat != 0 and body.shuffle is not None:
            self._fail(seat, faults.FIRST_SHUFFLE_SEAT, step=step)

    def _on_commit(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        h = self.hand
        assert h is not None
        if h.rounds:  # round 0 was begun ahead: the commitments known stand
            for seat, body in bodies.items():
                if h.commits.setdefault(seat, body.commit) != body.commit:  # type: ignore[attr-defined]
                    self._fail(seat, faults.OTHER_SECRET_THIS, step=step)
            self._go_on_round0()
            return
        for seat, body in bodies.items():
            h.commits[seat] = body.commit  # type: ignore[attr-defined]
        rnd = self._new_round(range(self.rules.deck_size), last=self._first_to_act())
        self._next("shuffle", (0,), Shuffle, rnd=rnd, seat=0)

    def _new_round(self, cards: Sequence[int], last: int | None = None) -> int:
        """A new shuffle round of the hand. Its locks begin with seat n-1, which wrote the
        last shuffle and so locks at once, without waiting a trip; they end with ``last``
        (the seat to act first after the deal, which then acts at once too) when given.
        A hand with a commit step locks in seat order instead, as earlier versions did."""
        assert self.hand is not None
        n = self.n
        if self.hand.commit_step:
            order = list(range(n))
        else:
            rest = list(range(n - 1))
            if last is not None and last in rest:
                k = rest.index(last) + 1
                rest = rest[k:] + rest[:k]
            order = [n - 1, *rest]
        return self.hand.ledger.new_round(cards, order)

    def _check_pass(self, seat: int, body: Shuffle | Lock, spec: StepSpec, step: int) -> None:
        assert self.hand is not None
        problem = self.hand.ledger.check_pass(body.TYPE, spec.round, seat, body.round, body.deck, step)
        if problem is not None:
            self._fail(seat, problem, step=step)

    def _on_shuffle(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        assert self.hand is not None
        seat = spec.seat
        self._check_pass(seat, bodies[seat], spec, step)  # type: ignore[arg-type]
        if seat + 1 < self.n:
            self._next("shuffle", (seat + 1,), Shuffle, rnd=spec.round, seat=seat + 1)
        else:
            first = self.hand.rounds[spec.round].lock_order[0]
            self._next("lock", (first,), Lock, rnd=spec.round, seat=first)

    def _on_lock(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        assert self.hand is not None
        seat = spec.seat
        body = bodies[seat]
        assert isinstance(body, Lock)
        self._check_pass(seat, body, spec, step)
        if body.keys is not None:
            expected = self._deal_positions(seat) if spec.round == 0 else None
            if expected is None:
                self._fail(seat, faults.LOCK_KEYS_NO_DEAL, step=step)
            self._store_keys(seat, Keys(keys=body.keys), expected, step)
            self.hand.keyed.add(seat)
        order = self.hand.rounds[spec.round].lock_order
        i = order.index(seat)
        if i + 1 < self.n:
            self._next("lock", (order[i + 1],), Lock, rnd=spec.round, seat=order[i + 1])
        else:
            self._deck_ready(spec.round)

    def _deal(self) -> None:
        """Round 0 is locked: the seats whose lock pass carried no deal keys write them
        in a ``deal`` step; when every lock pass carried them the hand is dealt now."""
        assert self.hand is not None
        missing = tuple(s for s in self._all() if s not in self.hand.keyed)
        if missing:
            self._next("deal", missing, Keys)
        else:
            self.STEPS["deal"](self, self.spec, {}, self.step - 1)

    def _store_keys(self, seat: int, body: Keys, expected: Sequence[Pos], step: int) -> None:
        assert self.hand is not None
        problem = self.hand.ledger.store_keys(seat, body.keys, expected, step)
        if problem is not None:
            self._fail(seat, problem, step=step)

    # ------------------------------------------------------------ hand end

    def _start_reveal(self) -> None:
        self._next("reveal", self._all(), Reveal)

    def _on_reveal(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        h = self.hand
        assert h is not None and self.match is not None
        secrets: dict[int, bytes] = {}
        for seat, body in bodies.items():
            assert isinstance(body, Reveal)
            self._check_reveal(seat, body, step)
            secrets[seat] = body.secret
        full_hand = self._verify_hand(secrets, step)
        if h.dispute is not None:
            seat, why = h.dispute
            if seat is None:
                raise LocalProtocolError("a public card failed to open, yet every step verified")
            self._fail(seat, faults.DISPUTE_FALSE.format(why=why), step=step)
        assert full_hand is not None
        self.match.hand = full_hand
        self.match.close_hand()
        self.hand_ends.append(step)
        self._events.append(HandEnded(full_hand, self.match.results[-1], self.match))
        if self.match.over:
            self._next("result", self._all(), Result)
        else:
            self._begin_hand(bodies)

    def _verify_hand(self, secrets: dict[int, bytes], step: int) -> Any:
        """Check every commitment, pass and key against the revealed secrets, then
        replay the hand with full information (the game's :meth:`_replay`); return
        the full-information hand (None when a dispute stopped the hand before
        it was dealt)."""
        h = self.hand
        assert h is not None and self.match is not None
        for seat in range(self.n):
            secret = secrets[seat]
            if kdf.commitment(secret, self._commit_context(h.number, seat)) != h.commits[seat]:
                self._fail(seat, faults.HAND_SECRET, step=step)
        for seat in range(self.n):
            if seat == self.seat and h.dispute is None:
                continue  # this node made its own passes and keys
            fault = h.ledger.verify_seat(seat, secrets[seat])
            if fault is not None:
                self._fail(fault.seat, fault.problem, step=fault.step)
        return self._replay(h.ledger.orders(secrets))

    def _on_result(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        assert self.match is not None
        for seat, body in bodies.items():
            signed = (body.totals, body.winners)  # type: ignore[attr-defined]
            if signed != (tuple(self.match.totals), signed_winners(self.match)):
                self._fail(seat, faults.WRONG_RESULT, step=step)
        self.spec = StepSpec("over", (), ())
        self.log.finish()
        self._events.append(MatchOver(self.match))

    def _engine_apply(self, action: Any, seat: int | None, step: int) -> None:
        """Apply a move of the record at ``step`` to this replica's hand: a move the
        rules refuse blames ``seat``; the move is kept for the full replay, and the
        engine's event for it goes to the consumers."""
        assert self.match is not None and self.match.hand is not None and self.hand is not None
        hand = self.match.hand
        before = len(hand.events)
        try:
            hand.apply(action)
        except IllegalAction as e:
            self._fail(seat, faults.ILLEGAL_MOVE.format(detail=e.detail, rule=e.rule), step=step)
        self.hand.actions.append((self._for_replay(action), step))
        if len(hand.events) > before:
            self._events.append(Moved(hand.events[-1]))

    def _engine_check(self, action: Any, seat: int, step: int, trial: Any = None) -> None:
        """The rules' verdict on a move before the records that complete it are in or
        checked (a draw before its keys, a card before its position is opened), tried on a
        copy of the hand (``trial``; by default one that knows only what every seat knows,
        ``public_copy``, so that every replica refuses alike and none stops alone on what
        only it sees): a move the rules refuse blames ``seat`` at once, whatever the rest
        would show. An honest author's position always opens to the card it claims, so this
        only names a cheat sooner (at a reveal it could stall)."""
        assert self.match is not None and self.match.hand is not None
        trial = self.match.hand.public_copy() if trial is None else trial
        try:
            trial.apply(action)
        except IllegalAction as e:
            self._fail(seat, faults.ILLEGAL_MOVE.format(detail=e.detail, rule=e.rule), step=step)

    def _for_replay(self, action: Any) -> Any:
        """The move as the full-information replay takes it (a game may drop what only
        this seat saw)."""
        return action

    # ------------------------------------------------------------ the game's hooks

    def _new_hand(self, number: int, secret: bytes | None, ledger: CardLedger) -> HandCrypto:
        return HandCrypto(number=number, secret=secret, ledger=ledger)

    def _deck_ready(self, rnd: int) -> None:
        """Every seat has shuffled and locked round ``rnd``: choose the next step."""
        raise NotImplementedError

    def _first_to_act(self) -> int | None:
        """The seat whose step follows the deal, if the game knows it when the hand
        begins (its lock then comes last: see :meth:`_new_round`)."""
        return None

    def _deal_positions(self, seat: int) -> list[Pos] | None:
        """Round-0 positions whose keys ``seat`` publishes to deal the hand (None: the
        game has no ``deal`` step); known once the hand begins, so they travel with
        the seat's lock pass."""
        return None

    def _game_body(self, kind: str) -> Body | None:
        """This seat's record for a step kind of the game that needs no decision."""
        return None

    def _next_deal_positions(self, seat: int) -> list[Pos] | None:
        """Round-0 positions whose keys ``seat`` publishes at the deal of the next hand,
        if that deal is known before this hand's reveal (None: it is not, and the seats
        key it in a ``deal`` step)."""
        return None

    def _body_for_action(self, action: Any) -> Body:
        raise NotImplementedError

    def _view(self, hand: Any, seat: int, totals: tuple[int, ...]) -> Any:
        raise NotImplementedError

    def _replay(self, decks: list[list[int]]) -> Any:
        """The hand replayed with every card known (``decks``: each round's cards in
        order); an illegal move blames its author."""
        raise NotImplementedError
