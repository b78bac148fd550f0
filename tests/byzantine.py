"""A harness for matches where one or two seats are Byzantine.

Every seat runs a real :class:`~p2pcards.protocol.table.Table` on a
:class:`~p2pcards.protocol.loopback.LocalNetwork`. The Byzantine seats run an
honest table too (a *shadow*: it knows the current step, the chain digest and
the seat's secrets), but everything it sends goes through an :class:`Adversary`
that may, per frame and per receiver, pass it, drop it, hold it back, duplicate
it, replace it or add frames of its own; and whenever a Byzantine seat receives
a frame it may inject crafted frames on any of its links. Crafted frames are
always validly signed with the Byzantine seat's own key (or are records of
others that it holds, unchanged).

Two joiners may have no link of their own (``Scenario.relayed``): as in
``p2pcards.net.runner``, every frame between them then travels inside a ``relay``
frame through the host, seat 0, and is read as ``relay.carry`` reads it. An honest
host passes such frames on unchanged; a Byzantine host's adversary decides, per
carried frame, what it delivers to whom (``Adversary.on_carry``), and may split the
joiners (carry nothing between two groups, strip their records from its own frames,
equivocate its own record per group).

Honest seats play random legal moves, announce their verdict with an ``abort``
frame when they fail (as ``p2pcards.net.runner`` does), and ask for missing
records when nothing moves (``settle``, which also concludes stalled disputes,
as the runner's timeouts do).

:func:`check_invariants` states what must hold for the honest seats whatever
the Byzantine ones do; each invariant is a function of its own.

Use: ``run = ByzantineRun(scenario, adversary); run.play(); check_invariants(run)``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import random
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st
from protocol_helpers import game_id_for, identity_for, make_tables

from p2pcards.bots.random_bot import RandomBot
from p2pcards.crypto import encoding, group
from p2pcards.errors import RemoteProtocolError
from p2pcards.games.nines import rules as nines
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import NinesRules
from p2pcards.protocol import messages as m
from p2pcards.protocol.audit import AuditReport, audit_bytes
from p2pcards.protocol.loopback import LocalNetwork
from p2pcards.protocol.transcript import encode_file
from p2pcards.protocol.wire import (
    MAX_EVIDENCE,
    SIGN_PREFIX,
    Abort,
    Evidence,
    Need,
    Record,
    Relay,
    SignedRecord,
    WireError,
    decode_frame,
    pack,
)

ORDER = group.ORDER
MAX_ROUNDS = 20_000
"""Bot rounds before the driver gives up (a match of the short rules needs a few hundred)."""

RULES: dict[str, NinesRules] = {
    "one-hand": NinesRules(hands=1),
    "target-30": NinesRules(target=30),
    "playoff": NinesRules(target=20, tie="playoff"),
    "draw-until-playable": NinesRules(hands=2, draw_until_playable=True),  # recycles the stock
    "double-nines": NinesRules(
        hands=1, double_nines=True, stacking_nines=True, action_cards=True, no_nine_out=True
    ),
}


# ---------------------------------------------------------------------------
# Scenario, shadow tables, the run


@dataclass(frozen=True, slots=True)
class Scenario:
    n: int
    byzantine: frozenset[int]
    rules: str = "one-hand"
    seed: int = 0
    net_seed: int | None = None
    """Seeds the interleaving of the links and the bots' moves (default: ``seed``)."""
    relayed: frozenset[frozenset[int]] = frozenset()
    """Pairs of joiners (seats >= 1) with no link of their own: every frame between the
    two goes inside ``relay`` frames through their carriers, the host, seat 0, and the
    joiners linked with both (protocol.md 2.2 and 7.2, *Relayed seats*;
    ``relay.RelayedLink``)."""

    def __post_init__(self) -> None:
        for pair in self.relayed:
            assert len(pair) == 2 and all(1 <= s < self.n for s in pair), f"not a pair of joiners: {pair}"

    @property
    def honest(self) -> list[int]:
        return [s for s in range(self.n) if s not in self.byzantine]

    def is_relayed(self, a: int, b: int) -> bool:
        """True if seats ``a`` and ``b`` reach each other only through the host."""
        return frozenset((a, b)) in self.relayed

    def relayed_with(self, seat: int) -> set[int]:
        """The peers ``seat`` reaches only through the host (the runner's RelayedLinks)."""
        return {p for p in range(self.n) if p != seat and self.is_relayed(seat, p)}


class ShadowTable(Table):
    """The honest table a Byzantine seat runs to know where the match stands. It also
    keeps the bodies of the legal actions it did not choose, for equivocation."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.alternatives: dict[int, list[m.Body]] = {}
        self.next_turn: dict[int, dict[bytes, tuple[str, int]]] = {}
        """step -> body bytes -> (phase, seat to act) once that body is applied."""

    def act(self, action: nines.Action) -> None:
        alts = []
        outcomes: dict[bytes, tuple[str, int]] = {}
        for a in self.legal_actions():
            with contextlib.suppress(Exception):  # a shadow's own trouble is no finding
                body = self._body_for_action(a)
                trial = self.match.hand.copy()  # type: ignore[union-attr]
                trial.apply(a)
                outcomes[pack(body.to_wire())] = (trial.phase.name, trial.turn)
                if a != action:
                    alts.append(body)
        self.alternatives[self.step] = alts
        self.next_turn[self.step] = outcomes
        super().act(action)

    def outcome(self, step: int, body: m.Body) -> tuple[str, int] | None:
        """(phase, seat to act) after this seat's ``body`` at its turn ``step``."""
        return self.next_turn.get(step, {}).get(pack(body.to_wire()))


@dataclass(slots=True)
class Crash:
    """An honest node raised something other than RemoteProtocolError."""

    seat: int
    where: str
    error: BaseException
    trace: str


class _Stop(Exception):
    """Ends a run at the first crash of an honest node."""


class ByzantineNetwork(LocalNetwork):
    """LocalNetwork (its delivery order and rules unchanged) whose deliveries the run
    observes, and whose quiet moments the adversary may use.

    A relayed pair of joiners (``Scenario.relayed``) has no link: what one of them
    sends the other is queued, inside a ``relay`` frame, on its links to the host and
    to every joiner it is linked with (``relay.RelayedLink.send``), and a relay frame
    is handled at its receiver as ``relay.carry`` does (see :meth:`ByzantineRun.deliver`).
    (What a Byzantine joiner carries is the adversary's, ``Adversary.joiner_carry``, as
    what a Byzantine host carries is, ``Adversary.on_carry``.)"""

    run: ByzantineRun

    def _queue(self, sender: int, receiver: int, frame: bytes) -> None:
        if not self.run.scenario.is_relayed(sender, receiver):
            super()._queue(sender, receiver, frame)
            return
        # Everything the sender's node writes for that peer, its need answers and its
        # abort included, goes through the host. A Byzantine sender's adversary sees
        # the frame as meant for the peer; what it sends instead is wrapped (inject).
        out = frame if self.tamper is None else self.tamper(sender, receiver, frame)
        if out is not None:
            self.inject(sender, receiver, out)

    def inject(self, sender: int, receiver: int, frame: bytes) -> None:
        scenario = self.run.scenario
        if not scenario.is_relayed(sender, receiver):
            self.put(sender, receiver, frame)
            return
        # To every seat the sender is linked with (relay.RelayedLink.carrier_seats): the
        # host, and the joiners that pass it on if they are linked with the receiver.
        wrapped = Relay(sender, receiver, frame).to_frame()
        for carrier in range(scenario.n):
            if carrier not in (sender, receiver) and not scenario.is_relayed(sender, carrier):
                self.put(sender, carrier, wrapped)

    def put(self, sender: int, receiver: int, frame: bytes) -> None:
        """Queue ``frame`` on the link sender->receiver, as it is (no relay, no tamper)."""
        self.frames += 1
        self.bytes_sent += len(frame)
        self._links[(sender, receiver)].append(frame)

    def deliver_one(self) -> bool:
        # LocalNetwork.deliver_one (the same choice of link), delivering through the run.
        self.run.last_delivery = None
        self._collect()
        busy = [link for link, q in self._links.items() if q and not self.tables[link[1]].my_turn]
        if not busy:
            return False
        sender, receiver = busy[self.rng.randrange(len(busy))]
        frame = self._links[(sender, receiver)].popleft()
        self.run.deliver(sender, receiver, frame)
        self._collect()
        if self.run.last_delivery is not None:
            self.run.after_delivery(*self.run.last_delivery)
        return True

    def settle(self) -> bool:
        before = self.run.snapshot()
        self.run.adversary.on_quiet(self.run)
        self.pump()
        moved = super().settle()
        self.run.announce_failures()  # a seat that concluded a dispute says so
        self.pump()
        return moved or self.run.snapshot() != before


class ByzantineRun:
    """One match: honest seats, Byzantine seats with their shadows, and the adversary."""

    def __init__(self, scenario: Scenario, adversary: Adversary | None = None) -> None:
        self.scenario = scenario
        self.byzantine = scenario.byzantine
        self.honest = scenario.honest
        self.adversary = adversary if adversary is not None else Adversary()
        self.rules = RULES[scenario.rules]
        self.tables = make_tables(
            scenario.n,
            self.rules,
            scenario.seed,
            table_classes=dict.fromkeys(scenario.byzantine, ShadowTable),
        )
        net_seed = scenario.seed if scenario.net_seed is None else scenario.net_seed
        self.net = ByzantineNetwork(self.tables, rng=random.Random(net_seed), tamper=self._tamper)
        self.net.run = self
        self.last_delivery: tuple[int, int] | None = None
        for seat, table in self.tables.items():
            self._watch(seat, table)
            self._stall_rule(seat, table)
        self.bots = {s: RandomBot() for s in self.tables}
        self.rng = random.Random(net_seed)
        self.crash: Crash | None = None
        self.shadow_crashes: list[Crash] = []
        self.announced: set[int] = set()
        self.sent_honest: dict[int, list[SignedRecord]] = {s: [] for s in self.byzantine}
        """Records each Byzantine shadow authored (whatever the adversary did with them)."""
        self.sent_crafted: dict[int, list[SignedRecord]] = {s: [] for s in self.byzantine}
        self.carried: list[SignedRecord] = []
        """Records a Byzantine host saw in the frames it carried (its to swap in)."""
        self.log: list[str] = []
        """What the adversary did, for the failure message."""
        self.finished_driver = False

    # -- identities ------------------------------------------------------------

    def sign(self, seat: int, record: Record) -> SignedRecord:
        """``record`` signed with the key of ``seat``; a Byzantine seat's is noted as crafted."""
        signed = sign_record(seat, self.scenario.seed, record)
        if seat in self.byzantine:
            self.note_crafted(seat, signed)
        return signed

    def variant(self, seat: int, rec: SignedRecord, **changes: Any) -> SignedRecord:
        """``rec`` with some fields changed (game_id, step, seat, prev, body), signed by ``seat``."""
        r = rec.record
        fields = {"game_id": r.game_id, "step": r.step, "seat": r.seat, "prev": r.prev, "body": r.body}
        fields.update(changes)
        return self.sign(seat, Record(**fields))

    @property
    def other_game_id(self) -> bytes:
        return game_id_for(self.scenario.seed + 1000)

    # -- network hooks ----------------------------------------------------------

    def _tamper(self, sender: int, receiver: int, frame: bytes) -> bytes | None:
        if sender not in self.byzantine:
            return frame
        try:
            f = decode_frame(frame)
        except Exception:
            f = None
        own = isinstance(f, SignedRecord) and f.record.seat == sender
        if own and all(r.raw != f.raw for r in self.sent_honest[sender]):  # type: ignore[union-attr]
            self.sent_honest[sender].append(f)  # type: ignore[arg-type]
        if isinstance(f, Evidence) and self._exposes_a_lie(f):
            return None  # a Byzantine seat never proves its own lie (its shadow would)
        for out in self.adversary.on_frame(self, sender, receiver, frame):
            self.net.inject(sender, receiver, out)
        return None

    def _exposes_a_lie(self, ev: Evidence) -> bool:
        lies = {(r.record.seat, r.record.step) for seat in self.byzantine for r in self.sent_crafted[seat]}
        return any(
            r.record.seat in self.byzantine and (r.record.seat, r.record.step) in lies for r in ev.records
        )

    def send_crafted(self, sender: int, receiver: int, frame: bytes) -> None:
        """Put a crafted frame of a Byzantine seat on one link (after what is queued)."""
        assert sender in self.byzantine and receiver != sender
        self.net.inject(sender, receiver, frame)

    def note_crafted(self, sender: int, rec: SignedRecord) -> None:
        if all(r.raw != rec.raw for r in self.sent_crafted[sender]):
            self.sent_crafted[sender].append(rec)

    def _watch(self, seat: int, table: Table) -> None:
        """Wrap the table's entry points that the network calls: a RemoteProtocolError
        passes (the network records it), anything else is a crash of that seat."""

        def watched(name: str, describe: Callable[..., str]) -> None:
            inner = getattr(table, name)

            def call(*args: Any) -> None:
                if name == "receive":
                    self.last_delivery = (args[0], seat)
                try:
                    inner(*args)
                except RemoteProtocolError:
                    raise
                except Exception as e:
                    self._crashed(seat, describe(*args), e)
                    raise RemoteProtocolError(None, f"shadow crashed: {e!r}") from e

            setattr(table, name, call)

        watched("receive", lambda peer, data: f"receive({peer}, {_describe(data)})")
        watched("receive_relayed", lambda relay, origin, f: f"receive_relayed({relay}, {origin}, {f!r})")
        watched("blame", lambda peer, problem: f"blame({peer}, {problem!r})")
        watched("nudge", lambda: "nudge()")
        watched("conclude_stalled", lambda: "conclude_stalled()")

    def _stall_rule(self, seat: int, table: Table) -> None:
        """A chain dispute that saw no proof in time: ``runner._time_out`` names its suspect
        unless it reaches that seat only through the host (then nobody, the record unkept)."""
        concluded = table.conclude_stalled

        def conclude() -> None:
            suspect = table.log.suspect
            if suspect is not None and suspect[0] in self.scenario.relayed_with(seat):
                table.stop(
                    f"a chain dispute about seat {suspect[0]} saw no proof; "
                    "it is reached only through a relay"
                )
                return
            concluded()

        table.conclude_stalled = conclude  # type: ignore[method-assign]

    def snapshot(self) -> list[tuple[int, str]]:
        return [(t.step, t.status) for t in self.tables.values()]

    def receive_now(self, sender: int, receiver: int, frame: bytes) -> None:
        """Deliver one frame at once, outside the match loop (for reproductions)."""
        with contextlib.suppress(_Stop, RemoteProtocolError):
            self.tables[receiver].receive(sender, frame)

    # -- relay frames (relay.carry) ---------------------------------------------

    def deliver(self, sender: int, receiver: int, frame: bytes) -> None:
        """Hand one frame of the link sender->receiver to its receiver's node. A relay
        frame is not the table's to read: the node's runner handles it (``_carry``)."""
        relay = _relay_in(frame)
        if relay is not None and receiver == 0:
            self.carry(sender, relay)
            return
        if receiver in self.net.failures:
            return  # a node that failed has hung up
        table = self.tables[receiver]
        try:
            if relay is not None:
                self.last_delivery = (sender, receiver)
                self._read_relayed(receiver, sender, relay)
            else:
                table.receive(sender, frame)
        except RemoteProtocolError as e:
            self.net.failures[receiver] = e

    def _read_relayed(self, seat: int, peer: int, relay: Relay) -> None:
        """A relay frame at a joiner: the checks of ``relay.carry``, in its order and
        with its verdicts. One for another seat is a request to carry it (``from`` must
        be ``peer``), passed on if this seat is linked with the target; one for this
        seat is read (``receive_relayed``) if its origin has no link with it. A relayed
        abort is only its origin's claim."""
        table = self.tables[seat]
        if relay.target != seat:
            if relay.origin != peer:
                table.blame(
                    peer, f"sent a relay frame in the name of seat {relay.origin}, for seat {relay.target}"
                )
            if not 0 <= relay.target < self.scenario.n or self.scenario.is_relayed(seat, relay.target):
                return  # not linked with it: another carrier may be
            try:
                problem = table.carriable(peer, relay.inner())
            except WireError as e:
                problem = f"a malformed frame ({e})"
            if problem is not None:
                table.blame(peer, f"gave this seat, to carry to seat {relay.target}, {problem}")
            if seat in self.byzantine:  # a Byzantine carrier does what it likes with it
                for receiver, out in self.adversary.joiner_carry(self, seat, relay):
                    if receiver != seat and not self.scenario.is_relayed(seat, receiver):
                        self.net.put(seat, receiver, out)  # (on the links it has)
                return
            self.net.put(seat, relay.target, relay.to_frame())
            return
        if relay.origin not in self.scenario.relayed_with(seat):
            return  # the two are linked: dropped unread, blaming nobody (relay.carry)
        try:
            inner = relay.inner()
        except WireError as e:
            table.blame(peer, f"carried a malformed frame: {e}")
            return
        table.receive_relayed(peer, relay.origin, inner)

    def carry(self, sender: int, relay: Relay) -> None:
        """A relay frame reached the host on ``sender``'s link. An honest host passes it
        on as ``relay.carry`` does (also once its match is over: ``_linger``; not
        once it failed: its runner has announced and hung up). A Byzantine host's
        adversary decides what it puts on which of its links instead."""
        if 0 in self.byzantine:
            for rec in _records_in(relay.frame):
                if all(r.raw != rec.raw for r in self.carried):
                    self.carried.append(rec)
            for receiver, out in self.adversary.on_carry(self, sender, relay):
                if receiver != 0:
                    self.net.put(0, receiver, out)
            return
        host = self.tables[0]
        if 0 in self.net.failures or host.failure is not None:
            return
        if relay.origin != sender:
            self.last_delivery = (sender, 0)  # its verdict is announced
            try:
                host.blame(
                    sender, f"sent a relay frame in the name of seat {relay.origin}, for seat {relay.target}"
                )
            except RemoteProtocolError as e:
                self.net.failures[0] = e
            return
        if not 1 <= relay.target < self.scenario.n:
            return  # no link to that seat
        try:  # the host reads what it carries, and blames the seat that gave it a bad frame
            problem = host.carriable(sender, relay.inner())
        except WireError as e:
            problem = f"a malformed frame ({e})"
        if problem is not None:
            self.last_delivery = (sender, 0)
            try:
                host.blame(sender, f"gave this seat, to carry to seat {relay.target}, {problem}")
            except RemoteProtocolError as e:
                self.net.failures[0] = e
            return
        self.net.put(0, relay.target, relay.to_frame())

    def guard(self, seat: int, where: str, call: Callable[[], None]) -> None:
        try:
            call()
        except RemoteProtocolError as e:
            self.net.failures[seat] = e
        except Exception as e:
            self._crashed(seat, where, e)

    def _crashed(self, seat: int, where: str, e: Exception) -> None:
        crash = Crash(seat, where, e, traceback.format_exc())
        if seat in self.byzantine:
            self.shadow_crashes.append(crash)
            self.net.failures[seat] = RemoteProtocolError(None, f"shadow crashed: {e!r}")
            return
        self.crash = crash
        raise _Stop from e

    def after_delivery(self, sender: int, receiver: int) -> None:
        self.announce_failures()
        if receiver in self.byzantine:
            self.adversary.on_received(self, receiver, sender)

    def announce_failures(self) -> None:
        """A seat that fails sends its proof (already queued) and then says it stops,
        as ``runner._announce`` does. A Byzantine shadow's notice goes through the adversary."""
        for seat, table in self.tables.items():
            if table.failure is None or seat in self.announced:
                continue
            self.announced.add(seat)
            self.net._collect()  # the proof first, as the runner sends it
            peer = table.failure.peer
            who = "nobody" if peer is None else f"p{peer} (seat {peer})"
            frame = Abort(f"{who} at fault: {table.failure.problem}", table.step).to_frame()
            for other in self.tables:
                if other != seat:
                    self.net._queue(seat, other, frame)

    # -- the match ----------------------------------------------------------------

    def play(self) -> ByzantineRun:
        with contextlib.suppress(_Stop):
            self._play()
        return self

    def _play(self) -> None:
        for seat, table in self.tables.items():
            self.guard(seat, "start", table.start)
        self.net.pump()
        for _ in range(MAX_ROUNDS):
            moved = False
            for seat in self.tables:
                if self.act(seat):
                    moved = True
                    self.net.pump()
            if not moved and not self.net.settle():
                self.finished_driver = True
                return
        raise AssertionError(f"the match did not end in {MAX_ROUNDS} bot rounds")

    def act(self, seat: int) -> bool:
        """The seat's bot moves if it is its turn (True if it did)."""
        table = self.tables[seat]
        if seat in self.net.failures or not table.my_turn:
            return False
        view = table.view()
        legal = table.legal_actions()
        if view is None or not legal:
            return False
        action = self.bots[seat].choose(view, legal, self.rng)
        self.guard(seat, f"act({action})", lambda: table.act(action))
        self.announce_failures()
        return True

    def nudge(self, seat: int) -> None:
        """An honest seat's wait ran long (or its player is deciding: the heartbeat): it sends
        ``need`` to every peer."""
        if seat not in self.net.failures:
            self.guard(seat, "nudge", self.tables[seat].nudge)

    # -- results ------------------------------------------------------------------

    def transcript_file(self, seat: int) -> bytes:
        t = self.tables[seat]
        return encode_file(t.records_to_save(), saved_by=seat, status=t.status)

    def audit(self, seat: int) -> AuditReport:
        return audit_bytes(self.transcript_file(seat))

    def describe(self) -> str:
        lines = [f"scenario: {self.scenario}"]
        for s, t in self.tables.items():
            role = "byzantine" if s in self.byzantine else "honest"
            f = t.failure
            lines.append(
                f"  seat {s} ({role}): status={t.status} step={t.step} kind={t.spec.kind}"
                f" waiting_for={t.waiting_for} stopped={sorted(t.stopped)}"
                + ("" if f is None else f" blamed={f.peer}: {f.problem}")
            )
        lines.append(f"  adversary ({len(self.log)} actions):")
        lines += [f"    {x}" for x in self.log[:40]]
        if self.crash is not None:
            lines.append(self.crash.trace)
        return "\n".join(lines)


def _relay_in(frame: bytes) -> Relay | None:
    try:
        f = decode_frame(frame)
    except Exception:
        return None
    return f if isinstance(f, Relay) else None


def _records_in(frame: bytes) -> list[SignedRecord]:
    """The signed records a frame holds (a record, or an evidence frame's)."""
    try:
        f = decode_frame(frame)
    except Exception:
        return []
    if isinstance(f, SignedRecord):
        return [f]
    return list(f.records) if isinstance(f, Evidence) else []


def _describe(frame: bytes) -> str:
    try:
        f = decode_frame(frame)
    except Exception as e:
        return f"malformed frame ({e})"
    return describe_frame(f)


def describe_frame(f: Any) -> str:
    if isinstance(f, SignedRecord):
        r = f.record
        return f"record(step={r.step}, seat={r.seat}, {r.body.TYPE})"
    if isinstance(f, Evidence):
        return "evidence[" + ", ".join(describe_frame(x) for x in f.records) + "]"
    if isinstance(f, Need):
        return f"need(step={f.step}, have={list(f.have)})"
    if isinstance(f, Abort):
        return f"abort(step={f.step}, {f.reason[:40]!r})"
    if isinstance(f, Relay):
        try:
            inner = describe_frame(f.inner())
        except Exception as e:
            inner = f"malformed frame ({e})"
        return f"relay({f.origin}->{f.target}: {inner})"
    return repr(f)


# ---------------------------------------------------------------------------
# Invariants


class InvariantError(AssertionError):
    """An invariant failed. Each check raises from its own line, so that hypothesis
    tells different broken invariants apart (it distinguishes failures by origin)."""


class KnownFinding(InvariantError):
    """An invariant failed in the way of a finding already reported (see KNOWN_FINDINGS):
    property tests may expect it (xfail raises=KnownFinding) and still fail on anything else."""


KNOWN_FINDINGS: dict[str, tuple[str, Callable[[ByzantineRun, int], bool]]] = {}
"""Findings reported and not fixed yet: id -> (what, a precise test of its symptom at one
seat). While one is listed the property tests expect KnownFinding (and fail on anything
else); remove the entry once its reproduction in test_byzantine.py passes. F1-F11 are fixed;
F4's entry was ``"F4": ("honest evidence counted as idle", lambda run, seat: "proves nothing"
in str(run.tables[seat].failure))``."""


def _known(run: ByzantineRun, seat: int, what: str) -> None:
    """Raise KnownFinding if the broken invariant at ``seat`` is a known finding's."""
    for key, (_, matches) in KNOWN_FINDINGS.items():
        if matches(run, seat):
            raise KnownFinding(_message(run, f"[{key}] {what}"))


def _message(run: ByzantineRun, what: str) -> str:
    return f"{what}\n{run.describe()}"


def check_no_honest_crash(run: ByzantineRun) -> None:
    """No honest node raises anything but RemoteProtocolError (its table's own failure)."""
    if run.crash is not None:
        c = run.crash
        what = f"honest seat {c.seat} raised {c.error!r} in {c.where}"
        _known(run, c.seat, what)
        raise InvariantError(_message(run, what))


def check_driver_finished(run: ByzantineRun) -> None:
    """The match ended or stalled within the round budget (no livelock)."""
    if run.crash is None and not run.finished_driver:
        raise InvariantError(_message(run, "the driver stopped before the match ended or stalled"))


def check_honest_never_blamed(run: ByzantineRun) -> None:
    """An honest node blames a Byzantine seat or nobody, never an honest seat."""
    for s in run.honest:
        f = run.tables[s].failure
        if f is None or f.peer is None or f.peer in run.byzantine:
            continue
        what = f"honest seat {s} blamed honest seat {f.peer}: {f.problem}"
        _known(run, s, what)
        raise InvariantError(_message(run, what))


def check_finished_agree(run: ByzantineRun) -> None:
    """Honest nodes that finished agree on totals, winners and their transcript."""
    done = [s for s in run.honest if run.tables[s].status == "over"]
    if not done:
        return
    first = run.tables[done[0]]
    assert first.match is not None
    for s in done[1:]:
        t = run.tables[s]
        assert t.match is not None
        if (t.match.totals, t.match.winners) != (first.match.totals, first.match.winners):
            raise InvariantError(_message(run, f"seats {done[0]} and {s} finished with different results"))
        if [r.raw for r in t.transcript.records()] != [r.raw for r in first.transcript.records()]:
            raise InvariantError(
                _message(run, f"seats {done[0]} and {s} finished with different transcripts")
            )


def stuck_blames(run: ByzantineRun, seat: int) -> set[int]:
    """Seats a stuck node would blame when its wait times out (``runner._time_out``): those
    it waits for that did not say they stopped, but never one it reaches only through the
    host (if those are all it waits for, it stops blaming nobody)."""
    t = run.tables[seat]
    silent = set(t.waiting_for) - set(t.stopped)
    return silent - run.scenario.relayed_with(seat)


def check_timeouts(run: ByzantineRun) -> None:
    """A node still waiting at the end would time out blaming the seats it waits for
    that did not say they stopped: those must be Byzantine."""
    for s in run.honest:
        t = run.tables[s]
        if t.failure is None and t.status == "running":
            wrong = stuck_blames(run, s) - run.byzantine
            if wrong:
                _known(run, s, f"honest seat {s} is stuck waiting for honest seat(s) {sorted(wrong)}")
                raise InvariantError(
                    _message(run, f"honest seat {s} is stuck waiting for honest seat(s) {sorted(wrong)}")
                )


def check_audit_runs(run: ByzantineRun, seat: int) -> AuditReport:
    """The audit of an honest node's file never raises and never fails inside."""
    try:
        report = run.audit(seat)
    except Exception as e:
        raise InvariantError(
            _message(run, f"the audit of honest seat {seat}'s file raised {e!r}\n{traceback.format_exc()}")
        ) from e
    if report.internal_error:
        raise InvariantError(
            _message(run, f"the audit of seat {seat}'s file hit an internal error: {report.problems}")
        )
    return report


def check_audits(run: ByzantineRun) -> None:
    """Each honest node's transcript audits without error; a finished node's is valid,
    a stopped node's names only Byzantine seats (or nobody); and the audit agrees with
    the node's live verdict (it blames the same seat first, or nobody)."""
    for s in run.honest:
        t = run.tables[s]
        report = check_audit_runs(run, s)
        probs = [(p.seat, p.record, p.what) for p in report.problems]
        if t.status == "over":
            if not report.valid:
                raise InvariantError(_message(run, f"seat {s} finished but its file does not audit: {probs}"))
            continue
        if any(p.seat is not None and p.seat not in run.byzantine for p in report.problems):
            _known(run, s, f"the audit of seat {s}'s file blames an honest seat: {probs}")
            raise InvariantError(
                _message(
                    run, f"the audit of honest seat {s}'s file ({t.status}) blames an honest seat: {probs}"
                )
            )
        if report.valid:
            raise InvariantError(
                _message(run, f"seat {s} did not finish ({t.status}) yet its file audits valid")
            )
        live = t.failure.peer if t.failure is not None else None
        if live is not None and report.problems[0].seat not in (live, None):
            _known(run, s, f"seat {s}'s audit disagrees with its live verdict: {probs}")
            raise InvariantError(
                _message(run, f"seat {s} blamed seat {live} live, its audit first blames another: {probs}")
            )


INVARIANTS: tuple[Callable[[ByzantineRun], None], ...] = (
    check_no_honest_crash,
    check_driver_finished,
    check_honest_never_blamed,
    check_finished_agree,
    check_timeouts,
    check_audits,
)


def check_invariants(run: ByzantineRun) -> None:
    for check in INVARIANTS:
        check(run)


def check_honest_match_finishes(run: ByzantineRun) -> None:
    """With an adversary that did nothing, every seat finishes (a sanity check of the harness)."""
    if any(t.status != "over" for t in run.tables.values()) or run.net.failures:
        raise InvariantError(_message(run, "a match without attacks did not finish cleanly"))


# ---------------------------------------------------------------------------
# Adversaries


class Adversary:
    """Passes every frame as it is (an honest seat); subclasses attack."""

    def on_frame(self, run: ByzantineRun, sender: int, receiver: int, frame: bytes) -> list[bytes]:
        """The frames to put on the link instead of ``frame`` (in order)."""
        return [frame]

    def on_received(self, run: ByzantineRun, seat: int, sender: int) -> None:
        """Byzantine ``seat`` just received a frame from ``sender``: it may inject frames."""

    def on_quiet(self, run: ByzantineRun) -> None:
        """Nothing moves even after every stalled seat asked for what it lacks."""

    def on_carry(self, run: ByzantineRun, sender: int, relay: Relay) -> list[tuple[int, bytes]]:
        """A Byzantine host got ``relay`` on ``sender``'s link: the frames to put on its
        links instead, as (receiver, frame). This one carries it as an honest host would."""
        return faithful(run, relay)

    def joiner_carry(self, run: ByzantineRun, carrier: int, relay: Relay) -> list[tuple[int, bytes]]:
        """Byzantine joiner ``carrier`` is asked to carry ``relay`` to a seat it is linked
        with: the frames it puts on its links instead, as (receiver, frame). This one
        passes it on."""
        return [(relay.target, relay.to_frame())]


def faithful(run: ByzantineRun, relay: Relay) -> list[tuple[int, bytes]]:
    """What an honest host does with a relay frame: pass it on to the seat it names."""
    return [(relay.target, relay.to_frame())] if 1 <= relay.target < run.scenario.n else []


# -- value pools (boundary and absurd values) ----------------------------------------

SCALARS = (1, 2, ORDER - 1, ORDER, ORDER + 1, 2**256 - 1, 0)
"""Scalars for keys: valid, at and beyond the group order; 0 (refused by the parser)."""
CARDS = (0, 1, 51, 52, 103)
POSITIONS = (0, 1, 7, 21, 51, 52, 103)
ROUNDS = (0, 1, 2, 1000)
SUITS = ("S", "H", "D", "C")
TEXTS = ("", "x", "p0 (seat 0) at fault: equivocation", "\x1b[2J\u202e", "é" * 300)
ELEMENTS = (encoding.encode_card(0), encoding.encode_card(51), bytes(32), b"\xff" * 32, b"\x01" * 32)


def other_secret(label: str, *parts: object) -> bytes:
    return hashlib.sha256(("byzantine/" + label + "/" + "/".join(map(str, parts))).encode()).digest()


def valid_scalar(*parts: object) -> int:
    return int.from_bytes(other_secret("scalar", *parts), "big") % (ORDER - 1) + 1


class HypothesisAdversary(Adversary):
    """An adversary whose every decision is drawn by hypothesis.

    ``triggers`` are the indices of the *opportunities* (a Byzantine frame for one
    receiver, a frame received by a Byzantine seat, a quiet network) at which it
    acts; everywhere else it lets the shadow's honest frames through unchanged,
    so matches run deep before the first attack. Policies it installs (a muted
    link, a silent seat, frames held back) then apply to every later frame.
    """

    FRAME_ACTIONS = (
        "drop",
        "duplicate",
        "hold",
        "mutate",
        "replace",
        "extra-after",
        "extra-before",
        "mute-link",
        "silence",
        "equivocate",
        "split",
        "replay",
    )
    TICK_ACTIONS = ("inject", "equivocate", "evidence-of-others", "need", "abort", "timing")
    HOST_ACTIONS = ("partition",)
    """Frame and tick actions of a Byzantine host that carries relay frames."""
    HOST_TICK_ACTIONS = ("relay-forge", "partition")
    CARRY_ACTIONS = (
        "drop",
        "duplicate",
        "hold",
        "cut",
        "alter",
        "swap",
        "wrong-seat",
        "relabel",
        "unwrap",
        "craft",
        "partition",
    )
    """What a Byzantine host may do with one frame it carries: drop it, copy it, hold it
    back, drop that path from now on, alter a byte of what it carries, carry another
    record it holds (or a frame of its own) instead, deliver it to another seat (as it is,
    or addressed to that seat), name another origin, deliver the carried frame bare on
    its own link, or split the joiners (``partition``)."""

    JOINER_CARRY_ACTIONS = ("drop", "duplicate", "alter", "swap", "wrong-seat", "relabel", "unwrap", "craft")
    """What a Byzantine joiner may do with one frame it carries: the host's actions that keep
    no state."""

    def __init__(
        self, draw: Callable[..., Any], triggers: Sequence[int], carry_triggers: Sequence[int] = ()
    ) -> None:
        self.draw = draw
        self.triggers = set(triggers)
        self.count = 0
        self.carry_triggers = set(carry_triggers)
        """The frames a Byzantine joiner is asked to carry (counted from 0) that it meddles with."""
        self.joiner_carried = 0
        self.muted: set[tuple[int, int]] = set()
        self.silent: set[int] = set()
        self.held: dict[tuple[int, int], list[tuple[int, bytes]]] = {}
        self.link_count: dict[tuple[int, int], int] = {}
        self.split: dict[bytes, dict[int, bytes]] = {}
        """A record's raw bytes -> the version each receiver is shown instead (split)."""
        self.actions = 0
        self.carry_count: dict[tuple[int, int], int] = {}
        self.held_carry: dict[tuple[int, int], list[tuple[int, int, bytes]]] = {}
        """(origin, target) -> carried frames held back: (release at, receiver, frame)."""
        self.cut: set[tuple[int, int]] = set()
        """(origin, target) paths whose frames the host no longer carries."""
        self.partition: dict[int, int] | None = None
        """A Byzantine host's split of the joiners into groups: it carries nothing between
        two groups, strips their records from its own frames, and may show the second
        group another version of its next record (``partition_lie``)."""
        self.partition_lie = False

    def _opportunity(self) -> bool:
        self.count += 1
        return self.count - 1 in self.triggers

    # -- hooks ---------------------------------------------------------------

    def on_frame(self, run: ByzantineRun, sender: int, receiver: int, frame: bytes) -> list[bytes]:
        link = (sender, receiver)
        k = self.link_count[link] = self.link_count.get(link, 0) + 1
        held = self.held.get(link, [])
        released = [f for at, f in held if at <= k]
        self.held[link] = [(at, f) for at, f in held if at > k]
        planned = self.split.get(frame)
        if planned is not None and receiver in planned:
            return [*released, planned[receiver]]
        if sender in self.silent or link in self.muted:
            return []
        if sender == 0 and self.partition is not None and receiver in self.partition:
            parted = self._partition_frame(run, receiver, frame)
            if parted is None:
                return released
            frame = parted
        out = [frame]
        if self._opportunity():
            out = self._frame_action(run, sender, receiver, frame)
        return released + out

    def on_received(self, run: ByzantineRun, seat: int, sender: int) -> None:
        if seat in self.silent or not self._opportunity():
            return
        self._tick_action(run, seat)

    def on_quiet(self, run: ByzantineRun) -> None:
        # Frames still held back: the adversary may let them go now.
        for (sender, receiver), held in list(self.held.items()):
            free = held and (sender, receiver) not in self.muted and sender not in self.silent
            if free and self._opportunity() and self.draw(st.booleans(), label="release held"):
                for _, f in held:
                    run.send_crafted(sender, receiver, f)
                self.held[(sender, receiver)] = []
        for path, held_c in list(self.held_carry.items()):
            free = held_c and 0 not in self.silent and self._opportunity()
            if free and self.draw(st.booleans(), label="release held carried"):
                for _, receiver, f in held_c:
                    run.net.put(0, receiver, f)
                self.held_carry[path] = []
        for seat in sorted(run.byzantine):
            if seat not in self.silent and self._opportunity():
                self._tick_action(run, seat)

    def on_carry(self, run: ByzantineRun, sender: int, relay: Relay) -> list[tuple[int, bytes]]:
        path = (relay.origin, relay.target)
        k = self.carry_count[path] = self.carry_count.get(path, 0) + 1
        held = self.held_carry.get(path, [])
        released = [(r, f) for at, r, f in held if at <= k]
        self.held_carry[path] = [x for x in held if x[0] > k]
        if 0 in self.silent or (0, relay.target) in self.muted:
            return []
        if path in self.cut or self._parted(*path):
            return released
        out = faithful(run, relay)
        if self._opportunity():
            out = self._carry_action(run, relay)
        return released + out

    def joiner_carry(self, run: ByzantineRun, carrier: int, relay: Relay) -> list[tuple[int, bytes]]:
        if carrier in self.silent or (carrier, relay.target) in self.muted:
            return []
        self.joiner_carried += 1
        if self.joiner_carried - 1 not in self.carry_triggers:
            return [(relay.target, relay.to_frame())]
        action = self.draw(st.sampled_from(self.JOINER_CARRY_ACTIONS), label="joiner carry action")
        self.actions += 1
        out = self._carried_instead(run, carrier, relay, action)
        described = ", ".join(f"to {r}: {_describe(f)}" for r, f in out)
        run.log.append(
            f"#{self.count - 1} seat {carrier} carries {_describe(relay.to_frame())} {action}: [{described}]"
        )
        return out

    # -- a Byzantine host ------------------------------------------------------------

    def _carry_action(self, run: ByzantineRun, relay: Relay) -> list[tuple[int, bytes]]:
        action = self.draw(st.sampled_from(self.CARRY_ACTIONS), label="carry action")
        self.actions += 1
        origin, target = relay.origin, relay.target
        out: list[tuple[int, bytes]]
        if action == "hold":
            later = self.draw(st.integers(1, 4), label="hold for carried frames")
            path = (origin, target)
            self.held_carry.setdefault(path, []).extend(
                (self.carry_count[path] + later, r, f) for r, f in faithful(run, relay)
            )
            out = []
        elif action == "cut":
            self.cut.add((origin, target))
            out = []
        elif action == "partition":
            self._start_partition(run)
            out = [] if self._parted(origin, target) else faithful(run, relay)
        else:
            out = self._carried_instead(run, 0, relay, action)
        described = ", ".join(f"to {r}: {_describe(f)}" for r, f in out)
        run.log.append(
            f"#{self.count - 1} host carries {_describe(relay.to_frame())} {action}: [{described}]"
        )
        return out

    def _carried_instead(
        self, run: ByzantineRun, carrier: int, relay: Relay, action: str
    ) -> list[tuple[int, bytes]]:
        """What Byzantine ``carrier`` (the host or a joiner) puts on its links instead of
        ``relay``, for one of the actions that keep no state (``JOINER_CARRY_ACTIONS``)."""
        origin, target, inner = relay.origin, relay.target, relay.frame
        if action == "drop":
            return []
        if action == "duplicate":
            return [(target, relay.to_frame())] * 2
        if action == "alter":
            if not inner:
                return []
            altered = bytearray(inner)
            if self.draw(st.booleans(), label="alter the signature"):  # the end of a record frame
                i = len(altered) - 1 - self.draw(st.integers(0, min(63, len(altered) - 1)), label="at")
            else:
                i = self.draw(st.integers(0, len(altered) - 1), label="alter at")
            altered[i] ^= self.draw(st.integers(1, 255), label="xor")
            return [(target, Relay(origin, target, bytes(altered)).to_frame())]
        if action == "swap":
            pool = self._held_by(run, carrier)
            if not pool:
                return []
            if self.draw(st.booleans(), label="swap a record"):
                rec = self._pick(pool, "swapped record")
                return [(target, Relay(origin, target, rec.to_frame()).to_frame())]
            k = self.draw(st.integers(1, 3), label="swapped evidence size")
            recs = tuple(self._pick(pool, "swapped evidence") for _ in range(k))
            return [(target, Relay(origin, target, Evidence(recs).to_frame()).to_frame())]
        if action == "wrong-seat":
            others = [j for j in range(1, run.scenario.n) if j not in (target, carrier)]
            if not others:
                return []
            to = self.draw(st.sampled_from(others), label="wrong seat")
            named = to if self.draw(st.booleans(), label="readdressed") else target
            return [] if named == origin else [(to, Relay(origin, named, inner).to_frame())]
        if action == "relabel":
            o2 = self.draw(st.sampled_from([s for s in range(run.scenario.n) if s != target]), label="origin")
            return [(target, Relay(o2, target, inner).to_frame())]
        if action == "unwrap":
            return [(target, inner)]
        assert action == "craft", action
        return [(target, Relay(origin, target, self.craft_frame(run, carrier, target)).to_frame())]

    def _start_partition(self, run: ByzantineRun) -> None:
        joiners = list(range(1, run.scenario.n))
        groups = self.draw(
            st.lists(st.integers(0, 1), min_size=len(joiners), max_size=len(joiners)), label="groups"
        )
        self.partition = dict(zip(joiners, groups, strict=True))
        self.partition_lie = self.draw(st.booleans(), label="lie to the second group")
        lie = self.partition_lie
        run.log.append(f"#{self.count - 1} host splits the joiners {self.partition} (lie: {lie})")

    def _parted(self, a: int, b: int) -> bool:
        p = self.partition
        return p is not None and a in p and b in p and p[a] != p[b]

    def _partition_frame(self, run: ByzantineRun, receiver: int, frame: bytes) -> bytes | None:
        """The host's own frame for ``receiver`` while it splits the joiners: without the
        records of the joiners of another group, and its first record after the split in
        another version for the second group. None: nothing left to send."""
        assert self.partition is not None
        group = self.partition[receiver]
        try:
            f = decode_frame(frame)
        except Exception:
            return frame
        if isinstance(f, SignedRecord):
            author = f.record.seat
            if self._parted(author, receiver):
                return None
            if author == 0 and group == 1 and self.partition_lie:
                self.partition_lie = False
                alts = list(getattr(run.tables[0], "alternatives", {}).get(f.record.step, []))
                if alts and self.draw(st.booleans(), label="another legal move"):
                    body = alts[self.draw(st.integers(0, len(alts) - 1), label="alternative")]
                    lie = run.variant(0, f, body=body).to_frame()
                else:
                    lie = self._mutated_frame(run, 0, receiver, frame)
                self.split[frame] = {j: lie if g == 1 else frame for j, g in self.partition.items()}
                return lie
            return frame
        if isinstance(f, Evidence):
            kept = tuple(r for r in f.records if not self._parted(r.record.seat, receiver))
            return Evidence(kept).to_frame() if kept else None
        return frame

    def _forge_relay(self, run: ByzantineRun) -> None:
        """A frame the host claims to carry for a joiner's relayed peer."""
        paths = sorted((a, b) for pair in run.scenario.relayed for a in pair for b in pair if a != b)
        origin, target = self.draw(st.sampled_from(paths), label="forged path")
        kind = self.draw(st.sampled_from(("need", "abort", "record", "evidence", "garbage")), label="forged")
        if kind == "need":
            inner = self.craft_need(run, 0, target)
        elif kind == "abort":
            inner = self.craft_abort(run, 0, target)
        elif kind == "record":
            rec = self._pick(self._held_by(run, 0), "forged record")
            inner = rec.to_frame() if rec is not None else self.craft_record(run, 0, target).to_frame()
        elif kind == "evidence":
            inner = self.craft_evidence(run, 0, target)
        else:
            inner = self.draw(st.sampled_from((b"", b"\xc1", pack([1]))), label="garbage")
        frame = Relay(origin, target, inner).to_frame()
        run.net.put(0, target, frame)
        run.log.append(f"#{self.count - 1} host forges {_describe(frame)}")

    # -- actions -----------------------------------------------------------------

    def _frame_action(self, run: ByzantineRun, sender: int, receiver: int, frame: bytes) -> list[bytes]:
        hosting = sender == 0 and run.scenario.relayed
        actions = self.FRAME_ACTIONS + self.HOST_ACTIONS if hosting else self.FRAME_ACTIONS
        action = self.draw(st.sampled_from(actions), label="frame action")
        self.actions += 1
        what = _describe(frame)
        out: list[bytes]
        if action == "drop":
            out = []
        elif action == "duplicate":
            out = [frame, frame]
        elif action == "hold":
            later = self.draw(st.integers(1, 4), label="hold for frames")
            link = (sender, receiver)
            self.held.setdefault(link, []).append((self.link_count[link] + later, frame))
            out = []
            what += f" for {later}"
        elif action == "mute-link":
            self.muted.add((sender, receiver))
            out = []
        elif action == "silence":
            self.silent.add(sender)
            out = []
        elif action in ("mutate", "equivocate"):
            out = [self._mutated_frame(run, sender, receiver, frame)]
            for _ in range(self.draw(st.integers(0, 2), label="frames after the lie")):
                out.append(self.craft_frame(run, sender, receiver))
            if self.draw(st.integers(0, 3), label="silent after the lie") == 0:
                self.silent.add(sender)
        elif action == "split":
            out = [self._split(run, sender, receiver, frame)]
            if self.draw(st.integers(0, 2), label="silent after the split") == 0:
                self.silent.add(sender)  # the other receivers still get their version
        elif action == "replay":
            old = self._pick(run.sent_honest[sender], "replayed record")
            out = [frame] + ([old.to_frame()] if old is not None else [])
        elif action == "partition":
            self._start_partition(run)
            parted = self._partition_frame(run, receiver, frame)  # the host's receivers are joiners
            out = [] if parted is None else [parted]
        else:
            crafted = [
                self.craft_frame(run, sender, receiver)
                for _ in range(self.draw(st.integers(1, 2), label="crafted frames"))
            ]
            out = (
                crafted
                if action == "replace"
                else [frame, *crafted]
                if action == "extra-after"
                else [*crafted, frame]
            )
        run.log.append(f"#{self.count - 1} {sender}->{receiver} {action} on {what}: {_describe_all(out)}")
        return out

    def _split(self, run: ByzantineRun, sender: int, receiver: int, frame: bytes) -> bytes:
        """Choose, for every receiver at once, which version of this record it is shown:
        the real one, another legal move of the same turn, or a mutation."""
        rec = record_in(frame)
        if rec is None or rec.record.seat != sender:
            return self._mutated_frame(run, sender, receiver, frame)
        alts = list(getattr(run.tables[sender], "alternatives", {}).get(rec.record.step, []))
        plan: dict[int, bytes] = {}
        for other in run.tables:
            if other == sender:
                continue
            k = self.draw(st.integers(0, len(alts) + 1), label=f"version for seat {other}")
            if k == 0:
                plan[other] = frame
            elif k <= len(alts):
                plan[other] = run.variant(sender, rec, body=alts[k - 1]).to_frame()
            else:
                plan[other] = self._mutated_frame(run, sender, other, frame)
        self.split[frame] = plan
        return plan[receiver]

    def _tick_action(self, run: ByzantineRun, seat: int) -> None:
        hosting = seat == 0 and run.scenario.relayed
        actions = self.TICK_ACTIONS + self.HOST_TICK_ACTIONS if hosting else self.TICK_ACTIONS
        action = self.draw(st.sampled_from(actions), label="tick action")
        self.actions += 1
        if action == "timing":
            self._timing(run)
            return
        if action == "relay-forge":
            self._forge_relay(run)
            return
        if action == "partition":
            self._start_partition(run)
            return
        peers = [s for s in run.tables if s != seat]
        receivers = self.draw(
            st.lists(st.sampled_from(peers), min_size=1, max_size=len(peers), unique=True), label="receivers"
        )
        for receiver in receivers:
            if action == "inject":
                frame = self.craft_frame(run, seat, receiver)
            elif action == "equivocate":
                base = self._latest_own(run, seat)
                if base is None:
                    continue
                frame = self._mutated_frame(run, seat, receiver, base.to_frame())
            elif action == "evidence-of-others":
                frame = self.craft_evidence(run, seat, receiver)
            elif action == "need":
                frame = self.craft_need(run, seat, receiver)
            else:
                frame = self.craft_abort(run, seat, receiver)
            run.send_crafted(seat, receiver, frame)
            run.log.append(f"#{self.count - 1} {seat}->{receiver} {action}: {_describe(frame)}")

    def _timing(self, run: ByzantineRun) -> None:
        """Not an attack: the moments honest seats pick in a real network. A seat whose
        wait runs long asks for what it lacks while frames are still in flight, and a
        player may move before frames already sent reach its node."""
        seat = self.draw(st.sampled_from(run.honest), label="honest seat")
        if self.draw(st.booleans(), label="nudge or act"):
            run.nudge(seat)
            run.log.append(f"#{self.count - 1} honest seat {seat} nudges")
        elif run.act(seat):
            run.log.append(f"#{self.count - 1} honest seat {seat} moves at once")

    def _latest_own(self, run: ByzantineRun, seat: int) -> SignedRecord | None:
        own = run.sent_honest[seat]
        return own[-1] if own else None

    def _pick(self, pool: Sequence[Any], label: str) -> Any:
        if not pool:
            return None
        # index 0 is the most recent: shrinking goes to the freshest record
        i = self.draw(st.integers(0, len(pool) - 1), label=label)
        return pool[len(pool) - 1 - i]

    # -- crafting ------------------------------------------------------------------

    def _mutated_frame(self, run: ByzantineRun, sender: int, receiver: int, frame: bytes) -> bytes:
        try:
            f = decode_frame(frame)
        except Exception:
            f = None
        if not isinstance(f, SignedRecord) or f.record.seat != sender:
            own = self._latest_own(run, sender)
            if own is None:
                return self.craft_frame(run, sender, receiver)
            f = own
        rec = self.mutate_record(run, sender, f)
        signed = run.sign(sender, rec)
        run.note_crafted(sender, signed)
        return signed.to_frame()

    def mutate_record(self, run: ByzantineRun, seat: int, base: SignedRecord) -> Record:
        """Another record of ``seat`` in place of ``base``: its body changed (the same
        step and chain: an equivocation if both are seen), or one header field."""
        r = base.record
        where = self.draw(st.sampled_from(("body", "body", "body", "header")), label="mutate what")
        if where == "body":
            body = self.mutate_body(run, seat, r)
            return Record(game_id=r.game_id, step=r.step, seat=r.seat, prev=r.prev, body=body)
        field_ = self.draw(st.sampled_from(("step", "prev", "game", "seat")), label="header field")
        if field_ == "step":
            step = self.draw(
                st.sampled_from((r.step + 1, r.step - 1, r.step + 2, 0, 2**32 - 1)), label="step"
            )
            return Record(game_id=r.game_id, step=max(step, 0), seat=r.seat, prev=r.prev, body=r.body)
        if field_ == "prev":
            prev = self.draw(st.sampled_from(self._prevs(run, seat, None)), label="prev")
            return Record(game_id=r.game_id, step=r.step, seat=r.seat, prev=prev, body=r.body)
        if field_ == "game":
            return Record(game_id=run.other_game_id, step=r.step, seat=r.seat, prev=r.prev, body=r.body)
        seat2 = self.draw(st.integers(0, 5), label="seat field")
        return Record(game_id=r.game_id, step=r.step, seat=seat2, prev=r.prev, body=r.body)

    def mutate_body(self, run: ByzantineRun, seat: int, r: Record) -> m.Body:
        body = r.body
        shadow = run.tables[seat]
        draw = self.draw
        choice = draw(st.integers(0, 9), label="body mutation")
        if choice == 9:
            return self.craft_body(run, seat)
        if choice == 8:
            alts: list[m.Body] = list(getattr(shadow, "alternatives", {}).get(r.step, []))
            alts.append(m.Dispute(reason="the card did not open"))
            return alts[draw(st.integers(0, len(alts) - 1), label="alternative")]
        salt = draw(st.integers(0, 3), label="salt")
        if isinstance(body, m.Commit):
            return m.Commit(commit=other_secret("commit", r.step, salt))
        if isinstance(body, m.Reveal):
            which = draw(st.sampled_from(("secret", "next", "no next")), label="reveal mutation")
            if which == "secret":
                return m.Reveal(secret=other_secret("secret", r.step, salt), next=body.next)
            if which == "next":  # a commitment to another secret for the next hand
                return m.Reveal(secret=body.secret, next=other_secret("next", r.step, salt))
            return m.Reveal(secret=body.secret)  # as an earlier version writes it
        if isinstance(body, m.Lock) and draw(st.booleans(), label="mutate the lock's keys"):
            keys = self.mutate_keys(body.keys or (), r.step, salt)
            return m.Lock(round=body.round, deck=body.deck, keys=keys)
        if isinstance(body, m.Shuffle | m.Lock):
            deck = list(body.deck)
            how = draw(st.sampled_from(("swap", "element", "size", "round")), label="deck mutation")
            if how == "swap" and len(deck) > 1:
                i = draw(st.integers(0, len(deck) - 2), label="swap at")
                deck[i], deck[i + 1] = deck[i + 1], deck[i]
            elif how == "element":
                i = draw(st.integers(0, len(deck) - 1), label="element at")
                deck[i] = draw(st.sampled_from((*ELEMENTS, deck[-1 - i])), label="element")
            elif how == "size":
                size = draw(st.sampled_from((len(deck) - 1, len(deck) + 1, 1, 104)), label="deck size")
                deck = (deck * 3)[: max(size, 1)]
            else:
                return dataclasses.replace(body, round=draw(st.sampled_from(ROUNDS), label="round"))
            return dataclasses.replace(body, deck=tuple(deck))
        if isinstance(body, m.Keys):
            return m.Keys(keys=self.mutate_keys(body.keys, r.step, salt))
        if isinstance(body, m.PlayCards):
            cards = list(body.cards)
            i = draw(st.integers(0, len(cards) - 1), label="shown at")
            c = cards[i]
            how = draw(st.sampled_from(("key", "card", "pos", "suit")), label="play mutation")
            if how == "key":
                k = draw(st.sampled_from((valid_scalar(r.step, salt), *SCALARS)), label="key")
                cards[i] = m.Shown(round=c.round, pos=c.pos, card=c.card, key=k)
            elif how == "card":
                card = draw(st.sampled_from((*CARDS, (c.card + 1) % 52)), label="card")
                cards[i] = m.Shown(round=c.round, pos=c.pos, card=card, key=c.key)
            elif how == "pos":
                p = draw(st.sampled_from(POSITIONS), label="pos")
                cards[i] = m.Shown(round=c.round, pos=p, card=c.card, key=c.key)
            else:
                return m.PlayCards(cards=tuple(cards), suit=draw(st.none() | st.sampled_from(SUITS)))
            return m.PlayCards(cards=tuple(cards), suit=body.suit)
        if isinstance(body, m.DeclareSuit):
            return m.DeclareSuit(suit=draw(st.sampled_from(SUITS), label="suit"))
        if isinstance(body, m.Result):
            totals = list(body.totals)
            i = draw(st.integers(0, len(totals) - 1), label="total at")
            totals[i] = draw(st.sampled_from((0, totals[i] + 1, 1 << 30)), label="total")
            winners = draw(st.sampled_from((body.winners, (0,), tuple(range(len(totals))))), label="winners")
            return m.Result(totals=tuple(totals), winners=winners)
        if isinstance(body, m.Join):
            how = draw(st.sampled_from(("roster", "rules", "version")), label="join mutation")
            if how == "roster":
                return m.Join(
                    version=body.version,
                    game=body.game,
                    rules=body.rules,
                    roster=tuple(reversed(body.roster)),
                )
            if how == "rules":
                return m.Join(
                    version=body.version, game=body.game, rules=(("target", 1),), roster=body.roster
                )
            return m.Join(version=2, game=body.game, rules=body.rules, roster=body.roster)
        return self.craft_body(run, seat)

    def mutate_keys(self, shares: tuple[m.KeyShare, ...], step: int, salt: int) -> tuple[m.KeyShare, ...]:
        """Published keys with one key, position or share changed, added or dropped."""
        draw = self.draw
        keys = list(shares)
        how = draw(st.sampled_from(("key", "pos", "drop", "add")), label="keys mutation")
        if not keys or how == "add":
            keys.append(
                m.KeyShare(
                    round=draw(st.sampled_from(ROUNDS), label="round"),
                    pos=draw(st.sampled_from(POSITIONS), label="pos"),
                    key=valid_scalar(step, salt),
                )
            )
        elif how == "key":
            i = draw(st.integers(0, len(keys) - 1), label="key at")
            k = draw(st.sampled_from((valid_scalar(step, salt), *SCALARS)), label="key")
            keys[i] = m.KeyShare(round=keys[i].round, pos=keys[i].pos, key=k)
        elif how == "pos":
            i = draw(st.integers(0, len(keys) - 1), label="key at")
            p = draw(st.sampled_from(POSITIONS), label="pos")
            keys[i] = m.KeyShare(round=keys[i].round, pos=p, key=keys[i].key)
        else:
            keys.pop(draw(st.integers(0, len(keys) - 1), label="drop key"))
        return tuple(keys)

    def craft_body(self, run: ByzantineRun, seat: int) -> m.Body:
        """A body of any type with fields from the value pools."""
        draw = self.draw
        shadow = run.tables[seat]
        size = 52
        if shadow.hand is not None and shadow.hand.rounds:
            size = shadow.hand.rounds[-1].size
        kind = draw(st.sampled_from(sorted(m.BODY_TYPES)), label="body type")
        cls = m.BODY_TYPES[kind]
        if cls is m.Join:
            return shadow._join
        if cls is m.Commit:
            return m.Commit(commit=draw(st.sampled_from((bytes(32), other_secret("c", seat)))))
        if cls is m.Reveal:
            secret = draw(st.sampled_from((bytes(32), other_secret("s", seat))))
            return m.Reveal(secret=secret, next=draw(st.sampled_from((None, other_secret("n", seat)))))
        if cls in (m.Shuffle, m.Lock):
            n = draw(st.sampled_from((size, size - 1, size + 1, 1, 104)), label="deck size")
            elems = draw(st.sampled_from(("valid", "mixed")), label="deck elements")
            deck = list(encoding.encode_deck(range(min(n, 104))))[: max(n, 1)]
            if elems == "mixed":
                deck[0] = draw(st.sampled_from(ELEMENTS), label="element")
            rnd = draw(st.sampled_from(ROUNDS), label="round")
            if cls is m.Lock and draw(st.booleans(), label="lock keys"):
                return m.Lock(round=rnd, deck=tuple(deck), keys=self.mutate_keys((), 0, 0))
            return cls(round=rnd, deck=tuple(deck))
        if cls in (m.Relock, m.Unlock):
            n = draw(st.sampled_from((13, 12, 1, 104)), label="points")
            points = list(encoding.encode_deck(range(n)))
            if draw(st.booleans(), label="mixed points"):
                points[0] = draw(st.sampled_from(ELEMENTS), label="element")
            return cls(layer=draw(st.sampled_from(ROUNDS), label="layer"), points=tuple(points))
        if cls is m.Keys:
            shares = draw(
                st.lists(
                    st.builds(
                        lambda r, p, k: m.KeyShare(round=r, pos=p, key=k),
                        st.sampled_from(ROUNDS),
                        st.sampled_from(POSITIONS),
                        st.sampled_from(SCALARS),
                    ),
                    max_size=3,
                ),
                label="key shares",
            )
            return m.Keys(keys=tuple(shares))
        if cls is m.PlayCards:
            shown = draw(
                st.lists(
                    st.builds(
                        lambda r, p, c, k: m.Shown(round=r, pos=p, card=c, key=k),
                        st.sampled_from(ROUNDS),
                        st.sampled_from(POSITIONS),
                        st.sampled_from(CARDS),
                        st.sampled_from(SCALARS),
                    ),
                    min_size=1,
                    max_size=2,
                ),
                label="shown cards",
            )
            return m.PlayCards(cards=tuple(shown), suit=draw(st.none() | st.sampled_from(SUITS)))
        if cls is m.DeclareSuit:
            return m.DeclareSuit(suit=draw(st.sampled_from(SUITS)))
        if cls is m.Dispute:
            return m.Dispute(reason=draw(st.sampled_from(TEXTS[:3]), label="reason"))
        if cls is m.Result:
            n = run.scenario.n
            totals = draw(st.lists(st.sampled_from((0, 1, 30, 1 << 30)), min_size=n, max_size=n))
            winners = draw(st.lists(st.integers(0, 5), min_size=1, max_size=2, unique=True))
            return m.Result(totals=tuple(totals), winners=tuple(winners))
        if cls is m.Leave:
            return m.Leave(reason=draw(st.sampled_from(TEXTS[:3]), label="reason"))
        if cls is m.Continue:
            return m.Continue(
                game=draw(st.sampled_from((shadow.game_id, run.other_game_id)), label="continues"),
                left=tuple(draw(st.sets(st.integers(0, 5), min_size=1, max_size=4).map(sorted))),
                reason=draw(st.sampled_from(TEXTS[:3]), label="reason"),
                steps=draw(st.sampled_from((0, 1, shadow.step, 1 << 30)), label="steps"),
                last=draw(st.sampled_from((bytes(32), shadow.transcript.last_digest)), label="last"),
                hands=draw(st.sampled_from((0, 1, 1 << 20)), label="hands"),
            )
        if cls is getattr(m, "Confirm", None):  # a side record, as leave
            return cls(  # type: ignore[call-arg]
                fingerprint=draw(
                    st.sampled_from((bytes(32), other_secret("fingerprint"))), label="fingerprint"
                ),
                same=draw(st.booleans(), label="same"),
            )
        return cls()  # the bodies without fields

    def _steps(self, run: ByzantineRun, seat: int, receiver: int | None) -> list[int]:
        mine = run.tables[seat].step
        theirs = run.tables[receiver].step if receiver is not None else mine
        out = []
        for base in (theirs, mine):
            for d in (0, 1, -1, 2, -2):
                if base + d >= 0 and base + d not in out:
                    out.append(base + d)
        return [*out, 0, 2**32 - 1]

    def _prevs(self, run: ByzantineRun, seat: int, receiver: int | None) -> list[bytes]:
        t = run.tables[receiver] if receiver is not None else run.tables[seat]
        digests = t.transcript.digests
        out = [t.transcript.last_digest, run.tables[seat].transcript.last_digest]
        if len(digests) >= 2:
            out.append(digests[-2])
        return [*out, bytes(32), other_secret("prev")]

    def craft_record(self, run: ByzantineRun, seat: int, receiver: int) -> SignedRecord:
        how = self.draw(st.sampled_from(("mutate", "fresh")), label="record how")
        own = self._latest_own(run, seat)
        if how == "mutate" and own is not None:
            base = self._pick(run.sent_honest[seat], "base record")
            rec = self.mutate_record(run, seat, base)
        else:
            rec = Record(
                game_id=self.draw(st.sampled_from((run.tables[seat].game_id, run.other_game_id))),
                step=self.draw(st.sampled_from(self._steps(run, seat, receiver)), label="step"),
                seat=self.draw(st.sampled_from((seat, *range(6))), label="seat field"),
                prev=self.draw(st.sampled_from(self._prevs(run, seat, receiver)), label="prev"),
                body=self.craft_body(run, seat),
            )
        signed = run.sign(seat, rec)
        run.note_crafted(seat, signed)
        return signed

    def _held_by(self, run: ByzantineRun, seat: int) -> list[SignedRecord]:
        """Every record the Byzantine seat holds: its shadow's, its own, what it crafted."""
        t = run.tables[seat]
        pool = list(t.records_to_save())
        pool += _queued_records(t)
        pool += run.sent_honest[seat] + run.sent_crafted[seat]
        if seat == 0:
            pool += run.carried  # a host holds what it carries
        for other in run.byzantine:  # colluding seats share what they sign
            if other != seat:
                pool += run.sent_crafted[other] + run.sent_honest[other]
        seen: set[bytes] = set()
        out = []
        for r in pool:
            if r.raw not in seen:
                seen.add(r.raw)
                out.append(r)
        return out

    def craft_evidence(self, run: ByzantineRun, seat: int, receiver: int) -> bytes:
        pool = self._held_by(run, seat)
        if pool and self.draw(st.integers(0, 5), label="bulk evidence") == 0:
            start = self.draw(st.integers(0, max(len(pool) - 1, 0)), label="bulk from")
            return Evidence(tuple(pool[start : start + MAX_EVIDENCE])).to_frame()
        k = self.draw(st.integers(1, 3), label="evidence size")
        recs = []
        for _ in range(k):
            if not pool or self.draw(st.integers(0, 4), label="fresh in evidence") == 0:
                recs.append(self.craft_record(run, seat, receiver))
            else:
                recs.append(self._pick(pool, "evidence record"))
        return Evidence(tuple(recs)).to_frame()

    def craft_need(self, run: ByzantineRun, seat: int, receiver: int) -> bytes:
        step = self.draw(st.sampled_from(self._steps(run, seat, receiver)), label="need step")
        have = self.draw(st.lists(st.integers(0, 5), max_size=6, unique=True), label="have")
        fields = getattr(Need, "__dataclass_fields__", {})
        if "last" not in fields:
            return Need(step, tuple(sorted(have))).to_frame()
        digests = run.tables[receiver].transcript.digests
        lasts = [digests[step - 1]] if 0 < step <= len(digests) else []
        lasts += [bytes(32), *digests[-2:], other_secret("last")]
        last = self.draw(st.sampled_from(lasts), label="need last digest")
        return Need(step, tuple(sorted(have)), last=last).to_frame()  # type: ignore[call-arg]

    def craft_abort(self, run: ByzantineRun, seat: int, receiver: int) -> bytes:
        step = self.draw(st.sampled_from(self._steps(run, seat, receiver)), label="abort step")
        reason = self.draw(st.sampled_from(TEXTS), label="abort reason")
        return Abort(reason, step).to_frame()

    def craft_frame(self, run: ByzantineRun, seat: int, receiver: int) -> bytes:
        kind = self.draw(
            st.sampled_from(("record", "evidence", "need", "abort", "relay", "garbage")),
            label="crafted frame",
        )
        if kind == "record":
            return self.craft_record(run, seat, receiver).to_frame()
        if kind == "evidence":
            return self.craft_evidence(run, seat, receiver)
        if kind == "need":
            return self.craft_need(run, seat, receiver)
        if kind == "abort":
            return self.craft_abort(run, seat, receiver)
        if kind == "relay":  # a frame "carried" for another seat by a joiner, while the host is there
            others = sorted(set(range(run.scenario.n)) - {receiver})
            origin = self.draw(st.sampled_from(others), label="origin")
            return Relay(origin, receiver, self.craft_record(run, seat, receiver).to_frame()).to_frame()
        return self.draw(
            st.sampled_from((b"", b"\xc1", pack({"v": 1, "kind": "record"}), pack([1, 2, 3]))),
            label="garbage",
        )


def _queued_records(table: Table) -> list[SignedRecord]:
    """Records a table holds for later steps (an internal queue: empty if it moved)."""
    for owner in (getattr(table, "log", None), table):
        inbox = getattr(owner, "_inbox", None)
        if isinstance(inbox, dict):
            return [r for q in inbox.values() for r in q.values()]
    return []


def _describe_all(frames: Sequence[bytes]) -> str:
    return "[" + ", ".join(_describe(f) for f in frames) + "]" if frames else "[]"


# ---------------------------------------------------------------------------
# Hypothesis strategies

OPPORTUNITIES = {
    # rough number of adversary opportunities in a whole match, by seats and rules
    3: {"one-hand": 80, "target-30": 160, "playoff": 140, "draw-until-playable": 400, "double-nines": 190},
    4: {"one-hand": 155, "target-30": 350, "playoff": 300, "draw-until-playable": 570, "double-nines": 285},
}


@st.composite
def scenarios(draw: Callable[..., Any]) -> Scenario:
    n = draw(st.sampled_from((3, 4)), label="seats")
    if draw(st.integers(0, 3), label="topology") == 0:
        return draw(relayed_scenarios(n), label="relayed")
    count = draw(st.sampled_from((1, 1, 2)), label="byzantine seats")
    byz = draw(
        st.lists(st.integers(0, n - 1), min_size=count, max_size=count, unique=True), label="byzantine"
    )
    rules = draw(st.sampled_from(tuple(RULES)), label="rules")
    seed = draw(st.integers(0, 3), label="seed")
    net_seed = draw(st.integers(0, 2**16), label="interleaving seed")
    return Scenario(n=n, byzantine=frozenset(byz), rules=rules, seed=seed, net_seed=net_seed)


@st.composite
def relayed_scenarios(draw: Callable[..., Any], n: int) -> Scenario:
    """Some pairs of joiners relayed through the host, and who is Byzantine: the host
    (alone, or with a joiner), or, beside an honest host that carries for the others, a
    joiner of a relayed pair or (with four seats) of none."""
    pairs = [frozenset(p) for p in ((1, 2), (1, 3), (2, 3)) if max(p) < n]
    relayed = frozenset(draw(st.sets(st.sampled_from(pairs), min_size=1), label="relayed pairs"))
    outsiders = [j for j in range(1, n) if not any(j in p for p in relayed)]
    insiders = sorted({j for p in relayed for j in p})
    who = draw(
        st.sampled_from(("host", "host", "host and a joiner", "joiner", "outsider", "outsider")), label="who"
    )
    if who == "outsider" and outsiders:
        byz = {draw(st.sampled_from(outsiders), label="outsider")}
    elif who == "joiner":
        byz = {draw(st.sampled_from(insiders), label="relayed joiner")}
    elif who == "host and a joiner":
        byz = {0, draw(st.integers(1, n - 1), label="byzantine joiner")}
    else:
        byz = {0}
    rules = draw(st.sampled_from(tuple(RULES)), label="rules")
    seed = draw(st.integers(0, 3), label="seed")
    net_seed = draw(st.integers(0, 2**16), label="interleaving seed")
    return Scenario(n, frozenset(byz), rules, seed=seed, net_seed=net_seed, relayed=relayed)


@st.composite
def carrier_scenarios(draw: Callable[..., Any]) -> Scenario:
    """Four seats, one pair of joiners relayed, and the third joiner, linked with both, a
    Byzantine carrier (alone, or beside a Byzantine host)."""
    pair = draw(st.sampled_from(((1, 2), (1, 3), (2, 3))), label="relayed pair")
    carrier = ({1, 2, 3} - set(pair)).pop()
    byz = {carrier, 0} if draw(st.booleans(), label="the host too") else {carrier}
    rules = draw(st.sampled_from(tuple(RULES)), label="rules")
    seed = draw(st.integers(0, 3), label="seed")
    net_seed = draw(st.integers(0, 2**16), label="interleaving seed")
    relayed = frozenset({frozenset(pair)})
    return Scenario(4, frozenset(byz), rules, seed=seed, net_seed=net_seed, relayed=relayed)


def _carries_for_a_pair(scenario: Scenario, seat: int) -> bool:
    """Whether joiner ``seat`` is linked with both seats of some relayed pair (and so is
    asked to carry between them)."""
    return any(seat not in p and not any(scenario.is_relayed(seat, q) for q in p) for p in scenario.relayed)


def play_drawn(data: Any, drawn: st.SearchStrategy[Scenario] | None = None) -> ByzantineRun:
    """One match chosen by hypothesis: the scenario (from ``drawn``, else any), when the
    adversary acts, and how."""
    scenario = data.draw(scenarios() if drawn is None else drawn, label="scenario")
    horizon = OPPORTUNITIES[scenario.n][scenario.rules] * len(scenario.byzantine)
    if 0 in scenario.byzantine:  # a host also has a chance per frame it carries
        horizon += OPPORTUNITIES[scenario.n][scenario.rules] * len(scenario.relayed) // 2
    triggers = data.draw(
        st.lists(st.integers(0, horizon), min_size=1, max_size=6, unique=True), label="triggers"
    )
    carry_triggers: list[int] = []
    if any(s != 0 and _carries_for_a_pair(scenario, s) for s in scenario.byzantine):
        # a joiner that carries for a relayed pair is asked to carry 40 frames or more a match
        carry_triggers = data.draw(
            st.lists(st.integers(0, 60), max_size=4, unique=True), label="carry triggers"
        )
    adversary = HypothesisAdversary(data.draw, sorted(triggers), carry_triggers)
    return ByzantineRun(scenario, adversary).play()


# ---------------------------------------------------------------------------
# Scripted adversaries for deterministic reproductions


class Scripted(Adversary):
    """An adversary from plain functions (for small deterministic tests):
    ``frame(run, sender, receiver, frame) -> frames``, ``received(run, seat, sender)`` and,
    for a Byzantine host, ``carry(run, sender, relay) -> [(receiver, frame), ...]``."""

    def __init__(
        self,
        frame: Callable[[ByzantineRun, int, int, bytes], list[bytes]] | None = None,
        received: Callable[[ByzantineRun, int, int], None] | None = None,
        carry: Callable[[ByzantineRun, int, Relay], list[tuple[int, bytes]]] | None = None,
    ) -> None:
        self._frame = frame
        self._received = received
        self._carry = carry

    def on_carry(self, run: ByzantineRun, sender: int, relay: Relay) -> list[tuple[int, bytes]]:
        return self._carry(run, sender, relay) if self._carry else faithful(run, relay)

    def on_frame(self, run: ByzantineRun, sender: int, receiver: int, frame: bytes) -> list[bytes]:
        return self._frame(run, sender, receiver, frame) if self._frame else [frame]

    def on_received(self, run: ByzantineRun, seat: int, sender: int) -> None:
        if self._received:
            self._received(run, seat, sender)


def sign_record(seat: int, seed: int, record: Record) -> SignedRecord:
    """``record`` signed with the key of ``seat`` in the tables of ``seed``."""
    raw = record.to_bytes()
    return SignedRecord(raw, identity_for(seat, seed).sign(SIGN_PREFIX + raw), record)


def record_in(frame: bytes) -> SignedRecord | None:
    try:
        f = decode_frame(frame)
    except Exception:
        return None
    return f if isinstance(f, SignedRecord) else None


# ---------------------------------------------------------------------------
# Hand-driven links for reproductions that need one exact delivery order


class ManualLinks:
    """FIFO links between tables where the test chooses every delivery.

    ``collect()`` moves what the tables drained onto the links (``tamper`` as in
    LocalNetwork); ``deliver(a, b)`` hands the oldest frame of link a->b to b;
    ``flow()`` delivers everything except on the ``blocked`` links until nothing moves.
    Faults land in ``table.failure``; any other exception propagates.
    """

    def __init__(
        self, tables: dict[int, Table], tamper: Callable[[int, int, bytes], bytes | None] | None = None
    ) -> None:
        self.tables = tables
        self.tamper = tamper
        self.links: dict[tuple[int, int], list[bytes]] = {
            (a, b): [] for a in tables for b in tables if a != b
        }

    def collect(self) -> None:
        for sender, table in self.tables.items():
            outgoing = [(r, f) for f in table.drain() for r in self.tables if r != sender]
            outgoing += [(r, f) for r, fs in table.drain_replies().items() for f in fs]
            for receiver, frame in outgoing:
                out = frame if self.tamper is None else self.tamper(sender, receiver, frame)
                if out is not None:
                    self.links[(sender, receiver)].append(out)

    def deliver(self, sender: int, receiver: int) -> Any:
        """Deliver the oldest frame on sender->receiver; returns the decoded frame (None
        if it does not decode)."""
        self.collect()
        frame = self.links[(sender, receiver)].pop(0)
        table = self.tables[receiver]
        if table.failure is None:
            with contextlib.suppress(RemoteProtocolError):
                table.receive(sender, frame)
        self.collect()
        try:
            return decode_frame(frame)
        except Exception:
            return None

    def send(self, sender: int, receiver: int, frame: bytes) -> None:
        """Queue a frame of the test's own on one link."""
        self.links[(sender, receiver)].append(frame)

    def flow(self, blocked: Sequence[tuple[int, int]] = (), until: Callable[[], bool] | None = None) -> None:
        """Deliver (link by link, in a fixed order) until nothing moves or ``until()``."""
        moved = True
        while moved:
            self.collect()
            moved = False
            for link, queue in self.links.items():
                if until is not None and until():
                    return
                if queue and link not in blocked:
                    self.deliver(*link)
                    moved = True

    def start(self) -> None:
        for t in self.tables.values():
            t.start()
        self.collect()
