"""Drive one seat's table over its links until the match ends, fails or times out.

One reader task per peer feeds a bounded channel; the main task owns the table
(no locking needed around it), sends what it drains to every link, asks the
local decider when it is this seat's turn (in a task of its own, while the main
task goes on reading the links: ``_Deciding``), and enforces the step timeouts: a
turn may take ``Timeouts.turn`` seconds, any other step ``Timeouts.step``. A
silent peer is named, and the match ends with the transcript kept. A peer that
hangs up is named once the table needs a record from it (see ``_Match``), and
one that stops reading once a frame to it waits half of ``Timeouts.step`` (``STUCK_SHARE``).

A link that breaks is not a fault by itself. With a ``relinker`` (the session
layer's way to dial a peer again, or to wait for it to dial in) the runner
gets a new link to that peer within ``grace`` seconds, tells the table (whose
:meth:`link_reset` gives the records to resend first), and goes on; the step
timeouts wait for a peer that is away until its grace runs out. Only a peer
that stays away longer is named, as a hang-up is today, and a node that lost
every link at once blames nobody: its own connection is the likeliest cause.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import math
from collections import deque
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import trio

from p2pcards.errors import LocalProtocolError, RemoteProtocolError
from p2pcards.net.link import Link, LinkClosed, refused_why
from p2pcards.net.pacing import Holds, Stalls, lateness_allowance, quick_time, send_all, to_every_peer
from p2pcards.net.relay import Floods, PeerLink, RelayedLink, carried_cleanly, carry
from p2pcards.net.session import WAIT_NOTICE, Timeouts
from p2pcards.net.verdicts import (
    ALLOWANCE_SPENT,
    EVERY_CLOSED,
    FINGERPRINT_DIFFERED,
    HEARD_NOBODY,
    HEARD_NOBODY_REFUSED,
    INTERRUPTED,
    LEFT_BEHIND,
    LOST_EVERY,
    LOST_EVERY_REFUSED,
    NO_PLAY,
    NOBODY_ANSWERED,
    NOT_FOLLOWED,
    RELAYED_DISPUTE,
    RELAYED_LATE,
    RELAYED_SILENT,
    SILENT_ANSWER,
    SILENT_PLAY,
    SLOW_ANSWER,
    STAYED_AWAY,
    STOPPED_BEFORE,
    STOPPED_CLAIM,
    STOPPED_CLAIM_RELAYED,
    TURN_TIMED_OUT,
    WENT_ON_RELAYED,
    WENT_ON_WITHOUT,
)
from p2pcards.protocol.faults import MALFORMED_FRAME
from p2pcards.protocol.messages import Leave
from p2pcards.protocol.sitting import TIMED_OUT, SeatTable, Sitting
from p2pcards.protocol.table import TableCore as Table
from p2pcards.protocol.wire import (
    MAX_FRAME,
    Abort,
    Evidence,
    Need,
    Relay,
    SignedRecord,
    WireError,
    decode_frame_object,
    quote_claim,
    unpack_untrusted,
)


class Relinker(Protocol):
    """How a seat gets a new link to a peer whose connection broke."""

    def dials(self, peer: int) -> bool:
        """Whether this seat dials ``peer`` again; if not, ``peer`` dials in, at any time."""
        ...

    async def relink(self, peer: int) -> Link:
        """A new authenticated link to ``peer``: dialled, or the next one it dials in
        (raise LinkClosed or OSError to try again)."""
        ...


LinkNotice = Callable[[int, str, float], None]
"""``on_link(peer, what, seconds)``: ``"lost"`` (reconnecting, seconds left),
``"back"`` (seconds away), ``"relayed"`` (its own link did not come back, but it answered
through the others: it stays, reached that way), ``"gone"`` (it did not come back in time),
or ``"left behind"`` (reached only through a relay, and the seats that carry for this one went
on without it)."""

GRACE = 120.0
"""Seconds a peer whose link broke has to come back before it is named."""

ABSENCE_ALLOWANCE = 5.0
"""Grace periods a peer may be away in all, over the whole match: the time its links were down,
and the time the steps it came back in were given beyond their own clocks (a whole step from
each return). A break after that has only what is left (none: the peer is gone at once), so
that breaking the link at every turn and coming back just in time cannot stall a table for ever."""


RETRY = 1.0
"""Seconds between two attempts to relink a peer."""


@dataclass(frozen=True, slots=True)
class NewLink:
    """A peer's new link, from a relink task to the main task."""

    link: Link


@dataclass(frozen=True, slots=True)
class StayedAway:
    """A peer did not come back within the grace period that ends at ``until``."""

    reason: str
    until: float


Decider = Callable[[SeatTable], Awaitable[Any]]
"""Returns this seat's next action, one of ``table.legal_actions()`` (called only
when ``table.my_turn``); the game decides what an action is."""


class QuitMatch(Exception):
    """The local player leaves the match: ``reason`` is signed as why ("quit": they chose to;
    :data:`INTERRUPTED`: their terminal was closed as they were asked)."""

    def __init__(self, reason: str = "quit") -> None:
        super().__init__(reason)
        self.reason = reason


ABORT_GRACE = 2.0
"""Seconds a seat keeps going after a peer announced it stops, to reach its own verdict."""


@dataclass(slots=True)
class RunResult:
    """How the match ended for this seat.

    ``status``: "over", "failed" (a fault, a timeout, or a peer stopped it), "left"
    (every other seat left, signed, and this one has nobody to play on with) or
    "aborted" (this seat's player left). ``blamed``: the seats this node itself
    found at fault. ``problem``: what went wrong, for people.
    """

    status: str
    problem: str | None = None
    blamed: tuple[int, ...] = ()


async def _reader(peer: int, link: Link, out: trio.MemorySendChannel[tuple[int, Any]]) -> None:
    async with out:
        while True:
            try:
                obj = await link.receive()
                frame = decode_frame_object(obj)
            except (LinkClosed, WireError) as e:
                await out.send((peer, (link, e)))
                return
            await out.send((peer, (link, frame)))


async def _relink(
    peer: int,
    relinker: Relinker,
    deadline: float,
    out: trio.MemorySendChannel[tuple[int, Any]],
    refused: dict[int, float],
    pause: float = 0.0,
) -> None:
    """Dial ``peer`` again until a new link is up or ``deadline`` comes (it stayed away),
    noting in ``refused`` when its system last refused the connection; ``pause`` seconds
    first (a link that ended as soon as it was made: the peer hangs up on this seat)."""
    async with out:
        last = STAYED_AWAY
        with trio.move_on_at(deadline):
            await trio.sleep(pause)
            while True:
                try:
                    link = await relinker.relink(peer)
                except (LinkClosed, OSError, WireError) as e:
                    last = _why_not(e)
                    said = refused_why(e)
                    if said is not None and said.errno == errno.ECONNREFUSED:
                        refused[peer] = trio.current_time()
                    await trio.sleep(RETRY)
                    continue
                refused.pop(peer, None)
                await out.send((peer, (None, NewLink(link))))
                return
        await out.send((peer, (None, StayedAway(last, deadline))))


def _why_not(e: BaseException) -> str:
    """Why dialling a peer again failed, in English (the detail of its reason if it is judged
    gone, which the interface reads back to say it in the player's language): what the
    system said of the connection (:func:`refused_why`), else the error's own words."""
    said = refused_why(e)
    return str(said) if said is not None else str(e) or type(e).__name__


async def _take_links(peer: int, relinker: Relinker, out: trio.MemorySendChannel[tuple[int, Any]]) -> None:
    """Hand on every link ``peer`` dials in with, for the whole match.

    Never only while this seat counts the peer away: the two ends of a broken
    path notice it at different times, and a link the peer set up while this
    seat did not expect it must not be left unread (the peer would talk into it
    and be judged gone)."""
    async with out:
        while True:
            try:
                link = await relinker.relink(peer)
            except (LinkClosed, OSError, WireError):
                await trio.sleep(RETRY)
                continue
            await out.send((peer, (None, NewLink(link))))


async def _close(link: Link) -> None:
    with contextlib.suppress(Exception):
        await link.aclose()


async def _reset(link: Link) -> None:
    with contextlib.suppress(Exception):
        await link.reset()


def _read_after_deciding(item: Any) -> bool:
    """Whether a frame that comes while this seat's own decision is due waits until the
    record is written: every frame but a broken link and a ``leave`` (alone, or all an
    evidence frame holds), which take the match on without a seat at once."""
    if isinstance(item, LinkClosed):
        return False
    if isinstance(item, SignedRecord):
        return not isinstance(item.record.body, Leave)
    if isinstance(item, Evidence):
        return not all(isinstance(r.record.body, Leave) for r in item.records)
    return True


async def _turn_away(link: Link, frame: bytes | None) -> None:
    """Close a new link that the match does not take, after sending ``frame`` on it (the
    ``continue`` records of the table that went on without that seat), briefly."""
    if frame is not None:
        with trio.move_on_after(TURN_AWAY_WAIT), contextlib.suppress(Exception):
            await link.send(frame)
    await _close(link)


TURN_AWAY_WAIT = 2.0
"""Seconds a link being turned away has to take the frame that says why."""


async def _stayed_away(peer: int, deadline: float, out: trio.MemorySendChannel[tuple[int, Any]]) -> None:
    """For a peer that dials in: report at ``deadline`` that it stayed away (ignored if it came back)."""
    async with out:
        await trio.sleep_until(deadline)
        await out.send((peer, (None, StayedAway(STAYED_AWAY, deadline))))


async def _announce(links: dict[int, PeerLink], reason: str, step: int) -> None:
    """Tell every peer that this seat stops at ``step``, and why, before it hangs up."""
    await to_every_peer(links, Abort(reason, step).to_frame(), 1)


async def _heartbeat(table: Sitting, links: dict[int, PeerLink]) -> None:
    """While this seat's player decides, tell the others it is alive (a ``need``
    frame, which also fetches any record it lacks): peers waiting for this seat
    then know their own connection works. And on any link that carried nothing for
    ``WAIT_NOTICE`` seconds, a ``need`` frame as well: a path that stopped carrying
    anything then has data left unacknowledged, which the system notices
    (``tls.DEAD_PATH``), so the link breaks and is dialled again."""
    while True:
        await trio.sleep(WAIT_NOTICE)
        now = trio.current_time()
        quiet = {
            p: lk
            for p, lk in links.items()
            if table.my_turn
            or (isinstance(lk, Link) and (lk.last_sent is None or now - lk.last_sent >= WAIT_NOTICE))
        }
        if quiet:
            await to_every_peer(quiet, table.need_frame(), WAIT_NOTICE)


@dataclass(slots=True)
class _Mesh:
    """The links of this seat as they change: the current link of each peer, the
    peers away (with the time their grace ends), and how to get a peer back."""

    links: dict[int, PeerLink]
    nursery: trio.Nursery
    send: trio.MemorySendChannel[tuple[int, Any]]
    relinker: Relinker | None
    grace: float
    on_link: LinkNotice
    away: dict[int, float] = field(default_factory=dict)
    lost_at: dict[int, float] = field(default_factory=dict)
    spent: dict[int, float] = field(default_factory=dict)
    """Each peer's time away so far, and the time given back to it (``ABSENCE_ALLOWANCE``)."""
    given: dict[int, float] = field(default_factory=dict)
    """The time each peer away has to come back, from its latest break."""
    not_theirs: set[int] = field(default_factory=set)
    """Peers away because this node itself was (back from a crash): their absence is not charged."""
    linked_since: dict[int, float] = field(default_factory=dict)
    """When each peer's current link of its own was made (or the match began on it)."""
    floods: Floods = field(default_factory=lambda: Floods())
    """What this seat carried for the others, and how many notices each peer sent it."""
    late: dict[int, float] = field(default_factory=dict)
    """Each peer's lateness so far: the time beyond ``QUICK`` its answers to steps other than
    turns took (``SLOW_ALLOWANCE``)."""
    refused: dict[int, float] = field(default_factory=dict)
    """When each peer's system last refused this node's dial (nothing listens at its address:
    its program ended), while that peer stays away: this node's own connection works."""
    relay_late: dict[int, float] = field(default_factory=dict)
    """The same, for what came from each peer through relays only: its carriers may have held
    it up as well as the peer itself, so it is counted apart, and it names nobody."""
    relay_excused: dict[int, float] = field(default_factory=dict)
    """Lateness through relays not counted in ``relay_late`` because every carrier said it
    waited for that peer too (the peer may have been away from them), over the match: at most
    ``ABSENCE_ALLOWANCE`` graces, what an honest carrier lets a peer be away."""
    stalls: Stalls = field(default_factory=lambda: Stalls(trio.current_time()))
    """The time this node itself did not run, which is no peer's lateness nor silence."""
    held: Holds = field(default_factory=lambda: Holds())
    """The time this seat's frames waited for each peer to take them (``HOLD_ALLOWANCE``)."""

    def __post_init__(self) -> None:
        self.held.stalls = self.stalls

    def theirs(self, peer: int, since: float, others: Collection[int]) -> bool:
        """Whether ``peer``'s absence from ``since`` was its own, to be charged: one of the
        ``others`` at the table stayed linked with this node all the while (so this node was
        not the one cut off). At a table of two nothing can tell: it is charged, as it is at
        the other end."""
        return not others or any(self.linked_since.get(s, math.inf) <= since for s in others)

    def allowance_left(self, peer: int) -> float:
        """What ``peer`` may still be away, or be given back, over the rest of the match."""
        return max(0.0, ABSENCE_ALLOWANCE * self.grace - self.spent.get(peer, 0.0))

    def charge(self, peer: int, seconds: float) -> None:
        """``peer`` was away, or was given back, ``seconds`` more."""
        if seconds > 0:
            self.spent[peer] = self.spent.get(peer, 0.0) + seconds

    def lateness_left(self, peer: int, step_clock: float, relayed: bool = False) -> float:
        """What ``peer``'s answers to steps other than turns may still take beyond ``QUICK``
        (``relayed``: its answers that come through relays only)."""
        late = self.relay_late if relayed else self.late
        return max(0.0, lateness_allowance(step_clock) - late.get(peer, 0.0))

    def excuse_left(self, peer: int) -> float:
        """What lateness through relays may still be excused ``peer`` (``relay_excused``)."""
        return max(0.0, ABSENCE_ALLOWANCE * self.grace - self.relay_excused.get(peer, 0.0))

    def charge_late(self, peer: int, seconds: float, relayed: bool, excused: bool) -> None:
        """``peer``'s answer came ``seconds`` beyond the quick time (``excused``: through relays,
        while every carrier waited for it too, which counts against ``excuse_left`` first)."""
        if seconds <= 0:
            return
        if not relayed:
            self.late[peer] = self.late.get(peer, 0.0) + seconds
            return
        if excused:
            spared = min(seconds, self.excuse_left(peer))
            self.relay_excused[peer] = self.relay_excused.get(peer, 0.0) + spared
            seconds -= spared
        if seconds > 0:
            self.relay_late[peer] = self.relay_late.get(peer, 0.0) + seconds

    def start_reader(self, peer: int, link: Link) -> None:
        self.nursery.start_soon(_reader, peer, link, self.send.clone())

    def take_links(self, seat: int | None, n: int) -> None:
        """From the start of the match, take the new links of every peer that dials in."""
        if self.relinker is not None and seat is not None:
            for peer in range(n):
                if peer != seat and not self.relinker.dials(peer):
                    self.nursery.start_soon(_take_links, peer, self.relinker, self.send.clone())

    def adopt(self, peer: int, link: Link) -> None:
        """``link`` is ``peer``'s link from now on; the one it replaces is closed (what its
        reader still reports comes from a replaced link, and is ignored)."""
        old, self.links[peer] = self.links.get(peer), link
        self.linked_since[peer] = trio.current_time()
        self.floods.forget(peer)
        if isinstance(old, Link):
            self.nursery.start_soon(_close, old)
        self.start_reader(peer, link)

    def link_lost(self, peer: int, now: float, theirs: bool = True, said: bool = True) -> None:
        """Start getting ``peer`` back: its grace runs from now, as long as what is left of its
        allowance (``theirs`` False: this node was away, not the peer; nothing is charged;
        ``said`` False: a peer that announced it stops hangs up as it said, not news to the user)."""
        assert self.relinker is not None
        self.links.pop(peer, None)
        since = self.linked_since.pop(peer, -math.inf)
        # A link that ended as soon as it was made (a peer that hangs up on this seat, one that
        # judged it gone, say) is not dialled again at once, over and over.
        pause = RETRY if now - since < RETRY else 0.0
        grace = self.grace if not theirs else min(self.grace, self.allowance_left(peer))
        if not theirs:
            self.not_theirs.add(peer)
        self.away[peer] = until = now + grace
        self.lost_at[peer] = now
        self.given[peer] = grace
        if said:
            self.on_link(peer, "lost", grace)
        if self.relinker.dials(peer):
            again = (peer, self.relinker, until, self.send.clone(), self.refused, pause)
            self.nursery.start_soon(_relink, *again)
        else:  # its links come through _take_links
            self.nursery.start_soon(_stayed_away, peer, until, self.send.clone())


async def run_table(
    table: Table | Sitting,
    links: dict[int, Link],
    decide: Decider,
    *,
    timeouts: Timeouts,
    on_progress: Callable[[SeatTable], None] = lambda t: None,
    on_wait: Callable[[SeatTable, float], None] = lambda t, waited: None,
    relinker: Relinker | None = None,
    grace: float = GRACE,
    on_link: LinkNotice = lambda peer, what, seconds: None,
    restore: Sequence[SignedRecord] | None = None,
    journal: Callable[[list[SignedRecord]], None] = lambda records: None,
    relayed: Sequence[int] = (),
    leaving: Callable[[], bool] = lambda: False,
    confirming: Callable[[], bool | None] | None = None,
    interrupt: trio.Event | None = None,
    leave_chosen: trio.Event | None = None,
) -> RunResult:
    """Play the match on ``table``; returns how it ended (never raises for peers' faults).

    ``restore``: the journalled records of a seat that comes back after a crash
    (the table is restored from them instead of started, and every link is new).
    ``journal``: makes records durable; called before any frame is sent.
    ``relayed``: peers this seat has no link with, reached through the host.
    ``leaving``: True once this seat's player chose to leave while it was not their
    turn (between hands, say); the seat then leaves at once (checked as frames come,
    and at least every ``WAIT_NOTICE`` seconds, or as soon as ``leave_chosen`` is set).
    ``confirming``: once this seat's person has compared the table fingerprint, True
    if everyone read the same digits, False if not (None until then): signed into the
    transcript as a ``confirm`` record as soon as it is known, while the person chooses
    a move too (None for a seat nobody answers for, such as a bot).
    ``interrupt``: set when this seat's person interrupts the program (Ctrl-C, a closed
    terminal): whatever the table was waiting for, the seat signs that it leaves
    ("interrupted") and the run ends, status "aborted".

    ``table`` may be a :class:`Sitting` (the match goes on without a seat that
    leaves); a bare table is wrapped in one.
    """
    if not isinstance(table, Sitting):
        table = Sitting(table)
    send, receive = trio.open_memory_channel[tuple[int, Any]](64)
    result = RunResult(status="running")
    peers: dict[int, PeerLink] = dict(links)
    async with trio.open_nursery() as nursery:
        mesh = _Mesh(peers, nursery, send, relinker, grace, on_link)
        for peer, link in links.items():
            mesh.start_reader(peer, link)
            mesh.linked_since[peer] = trio.current_time()
        mesh.take_links(table.seat, table.n)
        for peer in relayed:
            peers[peer] = RelayedLink(
                table.seat if table.seat is not None else 0, peer, peers, lambda: table.present
            )
        nursery.start_soon(_heartbeat, table, peers)
        nursery.start_soon(mesh.stalls.watch)
        if leave_chosen is not None:
            nursery.start_soon(_look_again_when_set, leave_chosen, send)
        if confirming is not None:  # a person who may answer: signed as soon as they do
            nursery.start_soon(_sign_answer, table, peers, confirming, timeouts.step, journal)
        try:
            with trio.CancelScope() as playing:
                if interrupt is not None:
                    nursery.start_soon(_cancel_when_set, interrupt, playing)
                async with trio.open_nursery() as deciding:  # this seat's decisions (_Deciding)
                    try:
                        match = _Match(
                            table,
                            mesh,
                            decide,
                            receive,
                            timeouts,
                            on_progress,
                            on_wait,
                            result,
                            journal,
                            leaving,
                            confirming or (lambda: None),
                        )
                        await match.run(restore, deciding)
                    finally:
                        deciding.cancel_scope.cancel()  # a question still asked when the match ended
            if playing.cancelled_caught:  # interrupted: this player leaves, signed, then hangs up
                await _leave_now(table, peers, journal, result)
        except KeyboardInterrupt:
            await _leave_now(table, peers, journal, result)
            raise
        finally:
            send.close()
            nursery.cancel_scope.cancel()
    return result


ANSWER_POLL = 0.25
"""Seconds between two looks at whether the person has answered about the fingerprint."""


async def _sign_answer(
    table: Sitting,
    links: dict[int, PeerLink],
    confirming: Callable[[], bool | None],
    timeout: float,
    journal: Callable[[list[SignedRecord]], None],
) -> None:
    """Sign this seat's answer about the table fingerprint as soon as the person gives it,
    even while they are choosing a move (the main loop looks only between steps): a person
    may answer, then close the terminal before moving, and the answer must be in the files."""
    while True:
        await trio.sleep(ANSWER_POLL)
        answer = confirming()
        if answer is not None:
            if table.confirm(answer):  # False when the main loop signed it first
                await _flush(table, links, timeout, journal)
            return


@dataclass(frozen=True, slots=True)
class _LookAgain:
    """Put on the match loop's channel: something it looks at between frames changed."""


async def _look_again_when_set(
    event: trio.Event, send: trio.MemorySendChannel[tuple[int, Any]]
) -> None:
    await event.wait()
    with contextlib.suppress(trio.WouldBlock, trio.ClosedResourceError, trio.BrokenResourceError):
        send.send_nowait((-1, (None, _LookAgain())))  # (a full channel: frames wake it anyway)


async def _cancel_when_set(event: trio.Event, scope: trio.CancelScope) -> None:
    await event.wait()
    scope.cancel()


async def _leave_now(
    table: Sitting,
    links: dict[int, PeerLink],
    journal: Callable[[list[SignedRecord]], None],
    result: RunResult,
) -> None:
    """The program is interrupted: sign that this player leaves (if the match is still
    on) and send it, whatever else is being cancelled (``_leave``)."""
    if table.seat is None or table.status not in ("running", "disputed"):
        return
    await _leave(table, links, 1, journal, result, INTERRUPTED)
    result.problem = INTERRUPTED


async def _flush(
    table: Sitting,
    links: dict[int, PeerLink],
    timeout: float,
    journal: Callable[[list[SignedRecord]], None],
    held: Holds | None = None,
) -> None:
    """Make the table's new records durable, then send its frames (write-ahead); ``held``
    as for ``send_all``."""
    _make_durable(table, journal)
    await send_all(table, links, timeout, held)


def _make_durable(table: Sitting, journal: Callable[[list[SignedRecord]], None]) -> None:
    """Write the table's new records to the journal (before any frame holding them is sent)."""
    records = table.drain_journal()
    if records:
        journal(records)


class _Deciding:
    """This seat's decision in progress, in a task of its own: while the player thinks, the
    table keeps reading its links, so a seat that leaves meanwhile (or a link that breaks,
    or a peer that stops the match) is dealt with at once, not after the move. A decision
    whose turn went away (the match went on at a new table without someone) is cancelled:
    its question is withdrawn, and the new table asks again."""

    def __init__(self, key: tuple[object, int], turn_ends: float) -> None:
        self.key = key
        self.turn_ends = turn_ends
        self.scope = trio.CancelScope()
        self.done = trio.Event()
        self.outcome: tuple[str, Any] | None = None
        """("action", it), ("quit", why), ("timeout", None) or ("raise", the exception);
        None once cancelled, or when the turn had gone before anything was asked."""
        self.wake: trio.CancelScope | None = None
        """The main loop's wait for a frame, cut short when the decision is made."""

    async def run(self, decide: Decider, table: Sitting) -> None:
        with self.scope:
            try:
                # The table may have moved on between this task's start and its first step
                # (frames already queued were read first): then nothing is asked (outcome None).
                if self.is_for(table):
                    # The table's clock ends for this seat first: it signs that it leaves, and
                    # the others, who wait a moment longer, go on without it on that record.
                    with trio.move_on_at(self.turn_ends) as turn:
                        ends = TURN_ENDS.set(self.turn_ends)
                        try:
                            action = await decide(table)
                        finally:
                            TURN_ENDS.reset(ends)
                    self.outcome = ("timeout", None) if turn.cancelled_caught else ("action", action)
            except QuitMatch as e:
                self.outcome = ("quit", e.reason)
            except BaseException as e:
                if _cancelled(e):  # withdrawn (or the run ends): the scope that did it takes it
                    raise
                self.outcome = ("raise", e)  # raised where the decider was awaited before, not in a group
        self.done.set()
        if self.wake is not None:
            self.wake.cancel()

    def due(self, table: Sitting) -> bool:
        """Still being made, for the step the table waits on: this seat owes that record."""
        return not self.done.is_set() and self.is_for(table)

    def is_for(self, table: Sitting) -> bool:
        """This decision is still the one the table waits for (the same table and step)."""
        return table.my_turn and self.key == (table.current, table.step)

    async def cancel(self) -> None:
        """Withdraw the question and wait until it is gone (its prompt is abandoned first)."""
        self.scope.cancel()
        await self.done.wait()


def _cancelled(e: BaseException) -> bool:
    """``e`` is trio's cancellation, perhaps in a group (a decider's nursery raises it so)."""
    if isinstance(e, BaseExceptionGroup):
        return e.split(trio.Cancelled)[1] is None
    return isinstance(e, trio.Cancelled)


class _Match:
    """The main task of one seat's match: it alone touches the table. Each :meth:`look` takes
    stock (seats gone, the match over, the player's answers, a new step and its clocks), then
    waits for one frame, one of this seat's decisions or one of its clocks, and acts on it."""

    def __init__(
        self,
        table: Sitting,
        mesh: _Mesh,
        decide: Decider,
        receive: trio.MemoryReceiveChannel[tuple[int, Any]],
        timeouts: Timeouts,
        on_progress: Callable[[SeatTable], None],
        on_wait: Callable[[SeatTable, float], None],
        result: RunResult,
        journal: Callable[[list[SignedRecord]], None],
        leaving: Callable[[], bool],
        confirming: Callable[[], bool | None],
    ) -> None:
        self.table, self.mesh, self.links = table, mesh, mesh.links
        self.decide, self.receive, self.timeouts = decide, receive, timeouts
        self.on_progress, self.on_wait, self.result = on_progress, on_wait, result
        self.journal, self.leaving, self.confirming = journal, leaving, confirming
        self.nursery: trio.Nursery | None = None
        self.thinking: _Deciding | None = None
        """This seat's decision in progress, if any."""
        self.step: tuple[object, int] = (None, -1)
        self.returned: set[int] = set()
        """The seats back from away in this step: each gets one whole step from its return."""
        self.timed_late = False
        """Whether the current step charges the seats' answers to their lateness (SLOW_ALLOWANCE)."""
        self.late_judged: set[int] = set()
        """The seats the current step awaits whose lateness counts, as last looked at."""
        self.late_relayed: set[int] = set()
        """Of those, the seats reached only through relays (``_Mesh.relay_late``)."""
        self.carriers_wait: set[int] = set()
        """The relayed seats for which every carrier says it waits too (as last looked at), while
        that may still be excused (``_Mesh.excuse_left``)."""
        self.carriers_waited: set[int] = set()
        """The relayed seats for which, at some time in the current step, every carrier said so."""
        self.late_at = math.inf
        """When the first of them runs out of lateness allowance (as last looked at)."""
        self.silent = 0.0
        """The time in the current step this node heard from no peer, in silences longer than a
        live peer's (``DEAF``): its own connection may have been down, which is nobody's lateness."""
        self.differed = False  # this seat's player said the table fingerprint differed
        self.deadline, self.notice, self.started, self.wait = 0.0, 0.0, 0.0, 0.0
        self.quick = 0.0  # what the step may take a seat without counting against it (quick_time)
        self.clock_from = 0.0  # where the wait shown to the player counts from
        self.turn_ends = 0.0  # the table's clock, for the seat whose turn it is
        self.wait_until = 0.0  # the end of the wait for the step's records (away seats included)
        self.ask_at = math.inf  # when this node next asks the others for records it lacks
        self.look_at = math.inf  # when it next looks at the paths of the seats it waits for
        self.asked = 0.0  # when this node last asked the others for records it lacks
        self.asked_early = False  # whether it asked EARLY_ASK into the current step (or later)
        self.looked = 0.0  # when this node last looked at the paths of the seats it waits for
        self.heard = trio.current_time()  # when a frame last came from any peer
        self.heard_before = self.heard  # (as last looked at: the silence between the two may count)
        self.closed: dict[int, str] = {}
        self.away_too_long: set[int] = set()  # closed, and not back within the grace: gone for good
        self.trial: dict[int, tuple[float, str]] = {}
        """Peers whose own link did not come back, reached through the others until the time given:
        heard from that way, they are still at the table; not heard, they are gone (the reason)."""
        self.stop_deadline = math.inf
        self.confirmed = False  # this seat's answer about the fingerprint was taken
        self.held: deque[tuple[int, tuple[Any, Any]]] = deque()
        """Frames that came while this seat's decision was due (``_read_after_deciding``)."""
        self.released: deque[tuple[int, tuple[Any, Any]]] = deque()
        """Those frames, read before any new one once the decision is made or withdrawn."""
        self.nobody_back = False
        """Back from a crash, and no peer linked again yet: nothing is asked of this seat's
        player, whose move could reach nobody (a table that ended meanwhile answers never)."""
        self.frozen = mesh.stalls.frozen(trio.current_time())
        """This node's own stalls in all, as last looked at (``_thaw``)."""

    async def _flush(self) -> None:
        await _flush(self.table, self.links, self.timeouts.step, self.journal, self.mesh.held)

    async def run(self, restore: Sequence[SignedRecord] | None, nursery: trio.Nursery) -> None:
        """Play until this seat's match is over (``nursery``: where this seat's decisions run)."""
        await self._begin(restore, nursery)
        while not await self.look():
            pass

    async def _begin(self, restore: Sequence[SignedRecord] | None, nursery: trio.Nursery) -> None:
        """Start the table, or restore it from the journal of a seat back from a crash."""
        table, mesh, links = self.table, self.mesh, self.links
        self.nursery = nursery
        if restore is None:
            table.start()
        else:
            with contextlib.suppress(RemoteProtocolError):
                table.restore(restore)
            if mesh.relinker is not None:  # back from a crash: every peer still at the table is away
                for peer in table.present:
                    if peer != table.seat and peer not in links:
                        mesh.link_lost(peer, trio.current_time(), theirs=False)
            for peer, link in links.items():  # every link of a restarted node is new
                await _resend(table, peer, link, self.timeouts.step)
        await self._flush()
        self.heard = self.heard_before = trio.current_time()
        self.nobody_back = restore is not None and mesh.relinker is not None and bool(mesh.away)

    async def look(self) -> bool:
        """Take stock, then wait for one thing and act on it: True once this seat's match is over."""
        table = self.table
        self._thaw()
        if self.held and not (self.thinking is not None and self.thinking.due(table)):
            self.released.extend(self.held)
            self.held.clear()
        if self.thinking is not None and not self.thinking.is_for(table):
            await self.thinking.cancel()  # its turn went away (a new table): asked again there
            if self.thinking.outcome is None or self.thinking.outcome[0] not in ("quit", "raise"):
                self.thinking = None  # (a player who chose to leave leaves all the same)
        self._end_trials()
        _follow_the_others(table, self.mesh, self.closed, self.away_too_long, self.trial)
        if await self._judge_gone():
            return False
        if await self._ended():
            return True
        if self._stop_on_claim():
            return False
        if await self._answer_or_leave():
            return True
        self._charge_lateness()
        if (table.current, table.step) != self.step:  # a new step, or the first of a table that continues
            self._start_step()
        self._plan_wait()
        self.on_progress(table)
        if table.my_turn and self.thinking is None and not self.nobody_back:
            self.thinking = _Deciding((table.current, table.step), self.turn_ends)
            assert self.nursery is not None
            self.nursery.start_soon(self.thinking.run, self.decide, table)
        if self.thinking is not None and self.thinking.done.is_set():
            return await self._take_decision()
        try:
            trial_ends = min((until for until, _ in self.trial.values()), default=math.inf)
            # (Not woken for lateness while every peer is silent: nobody is named then.)
            late_wake = self.late_at if trio.current_time() - self.heard <= WAIT_NOTICE + 1 else math.inf
            wake_at = min(
                self.wait_until, self.notice, self.stop_deadline, self.ask_at, trial_ends, self.look_at
            )
            wake_at = min(wake_at, late_wake)
            if self.thinking is not None:  # this seat's own turn: its decision's clock rules the wait
                wake_at = min(self.stop_deadline, trial_ends)
            with trio.move_on_at(wake_at) as scope:
                if self.thinking is not None:
                    self.thinking.wake = scope
                released = bool(self.released)
                if released:  # what came while this seat decided, in its order
                    peer, (source, item) = self.released.popleft()
                else:
                    peer, (source, item) = await self.receive.receive()
        except trio.EndOfChannel:  # every peer's connection has ended: nothing more can come
            if table.stopped:
                self.stop_deadline = trio.current_time()
                return False
            table.stop(EVERY_CLOSED.format(step=table.step, kind=table.spec.kind))
            return False
        now = trio.current_time()
        if scope.cancelled_caught:
            if self._thaw():
                return False  # this node did not run for a while: its clocks stopped too
            await self._woken(now, trial_ends)
        else:
            await self._read(now, peer, source, item, released)
        return False

    def _thaw(self) -> bool:
        """This node did not run for a while (``Stalls``): the step's clocks stop for as long,
        and the silence of every peer with them (True: it did). What came meanwhile waited
        for this node; counted from its own clock, it would look late, and a clock that ran
        out meanwhile would name a peer whose record is waiting to be read."""
        now = trio.current_time()
        frozen = self.mesh.stalls.frozen(now)
        stalled, self.frozen = frozen - self.frozen, frozen
        if stalled <= 0:
            return False
        self.started += stalled
        self.clock_from += stalled
        self.turn_ends += stalled
        self.deadline += stalled
        self.stop_deadline += stalled
        self.heard = min(now, self.heard + stalled)
        self.heard_before = min(self.heard, self.heard_before + stalled)
        return True

    def _refused(self, since: float) -> str:
        """The seats whose systems refused this node's dials since ``since`` (nothing listens at
        their addresses any more: this node's own connection works), named; "" if none."""
        seats = [p for p, at in sorted(self.mesh.refused.items()) if at >= since and p in self.table.present]
        return " and ".join(f"{self.table.roster[p].name} (seat {p})" for p in seats)

    def _end_trials(self) -> None:
        """A peer reached through the others that was not heard that way in time is gone."""
        for peer, (until, why) in list(self.trial.items()):
            if trio.current_time() >= until:  # nothing came from it through the others either
                del self.trial[peer]
                self.closed[peer] = why
                self.away_too_long.add(peer)
                self.mesh.on_link(peer, "gone", self.mesh.grace)

    async def _judge_gone(self) -> bool:
        """Stop, blame or go on without the seats the table waits for that hung up or stayed
        away (True when the table went on without one: look again)."""
        table, mesh = self.table, self.mesh
        # A peer that hung up is blamed when the table needs its record, not before:
        # an honest seat that stopped because of someone else's fault closes its links
        # too, and whichever hang-up arrives first must not decide who is blamed.
        if self.nobody_back and not mesh.away and not self.trial and table.failure is None:
            with contextlib.suppress(RemoteProtocolError):
                table.stop(NOBODY_ANSWERED.format(seconds=f"{mesh.grace:g}"))
        # (Back from a crash with no peer linked again: the others' silence is this seat's
        # absence, said once every grace is over, NOBODY_ANSWERED above, naming each of them.)
        gone = [s for s in table.waiting_for if s in self.closed and s not in table.stopped]
        if self.away_too_long:  # judged gone here, and another seat already went on without it
            gone += sorted((self.away_too_long & table.proposed_without()) - set(gone) - set(table.stopped))
            gone = [s for s in gone if s in table.present]
        if gone and table.failure is None and not self.nobody_back:
            with contextlib.suppress(RemoteProtocolError):
                if not [lk for lk in self.links.values() if not isinstance(lk, RelayedLink)]:
                    # every link is down: this node cannot tell who is at fault
                    refused = self._refused(trio.current_time() - mesh.grace - RETRY)
                    if refused:  # (but its own connection works: their programs ended)
                        table.stop(LOST_EVERY_REFUSED.format(step=table.step, gone=refused))
                    else:
                        table.stop(LOST_EVERY.format(step=table.step))
                elif gone[0] in self.away_too_long:
                    if table.drop(gone[0], self.closed[gone[0]]):  # the others go on without it, if they can
                        # (this seat's first record there)
                        await self._flush()
                        return True
                else:
                    table.blame(gone[0], self.closed[gone[0]])
        return False

    async def _ended(self) -> bool:
        """The match is over, or failed, here: say how (True)."""
        table, result = self.table, self.result
        if table.status == "over":
            result.status = "over"
            self.on_progress(table)
            await _linger(table, self.mesh, self.receive)
            if table.failure is not None:  # a peer proved, once this seat finished, that a seat lied
                result.status, result.problem = "failed", table.failure.problem
                result.blamed = () if table.failure.peer is None else (table.failure.peer,)
                self.on_progress(table)
            return True
        if table.failure is None:
            return False
        if table.failure.peer is None and not getattr(table, "left_alone", None):
            await self._read_for_proof()
        # "left": another seat signed its leave and none remain to play on (nobody's fault)
        result.status = "left" if getattr(table, "left_alone", None) else "failed"
        result.problem = table.failure.problem
        if table.failure.peer is None:
            result.blamed = ()
        elif table.failure.peer not in result.blamed:
            result.blamed = (table.failure.peer,)
        self.on_progress(table)
        # The proof, so that others can check it:
        await _flush(table, self.links, self.timeouts.step, self.journal)
        at_fault = table.failure.peer
        who = "nobody" if at_fault is None else f"{table.roster[at_fault].name} (seat {at_fault})"
        await _announce(self.links, f"{who} at fault: {table.failure.problem}", table.step)
        return True

    async def _read_for_proof(self) -> None:
        """This node stopped blaming nobody. A peer that stopped at the same moment for the
        same reason sends the records that made it stop, then its ``abort`` (section 7.3): if
        one of their authors showed the two of them different records (a host that signed a
        join for each joiner it told other terms), those records prove it, and the verdict
        becomes that equivocation. So this node first sends what made it stop, then reads
        on, evidence only, until each peer still at the table has said it stops, or for
        ``ABORT_GRACE`` at most."""
        table, links = self.table, self.links
        await _flush(table, links, self.timeouts.step, self.journal)
        waiting = set(table.present) - {table.seat} - set(table.stopped)
        with trio.move_on_after(ABORT_GRACE), contextlib.suppress(trio.EndOfChannel):
            while waiting and table.failure is not None and table.failure.peer is None:
                peer, (source, item) = await self.receive.receive()
                if source is not links.get(peer):
                    continue  # (a replaced link, a new link, one that stayed away)
                origin, inner = peer, item
                if isinstance(item, Relay):
                    if item.target != table.seat:
                        continue
                    with contextlib.suppress(WireError):
                        origin, inner = item.origin, item.inner()
                if isinstance(inner, Abort):
                    waiting.discard(origin)
                elif isinstance(inner, Evidence):
                    with contextlib.suppress(RemoteProtocolError, LocalProtocolError):
                        if origin == peer:
                            table.receive_frame(peer, inner)
                        else:
                            table.receive_relayed(peer, origin, inner)

    def _stop_on_claim(self) -> bool:
        """A peer stopped and this node reached no verdict of its own in the grace period: its
        reason is only its claim (True: stopped)."""
        table = self.table
        if trio.current_time() >= self.stop_deadline and not table.stopped:
            self.stop_deadline = math.inf  # the seat that said it stops has left the table since
        if trio.current_time() < self.stop_deadline:
            return False
        peer, (_, why) = next(iter(table.stopped.items()))
        said = STOPPED_CLAIM_RELAYED if table.stopped_by_relay(peer) else STOPPED_CLAIM
        name = f"{table.roster[peer].name} (seat {peer})"
        table.stop(said.format(names=name, claim=quote_claim(why)))
        return True

    async def _answer_or_leave(self) -> bool:
        """Sign the player's answer about the fingerprint once given; leave if they chose to
        (True: left)."""
        table = self.table
        answer = None if self.confirmed else self.confirming()
        if answer is not None:
            self.confirmed = True
            self.differed = answer is False
            if table.confirm(answer):  # the player's word, signed: the audit says who compared
                await self._flush()
        if self.nobody_back:  # (back from a crash, nobody linked again yet: a leave would reach
            return False  # nobody, and the others would wait out this seat's grace; signed once one is)
        if self.leaving() and table.seat is not None and table.status in ("running", "disputed"):
            # Said to the others as the reason: a player who read other digits left for that.
            why = FINGERPRINT_DIFFERED if self.differed else "quit"
            await _leave(table, self.links, self.timeouts.step, self.journal, self.result, why)
            return True
        return False

    def _lateness_left(self, seat: int) -> float:
        """What ``seat``'s answers may still take beyond the quick time, as this step judges it."""
        return self.mesh.lateness_left(seat, self.timeouts.step, relayed=seat in self.late_relayed)

    def _charge_lateness(self) -> None:
        """Charge the seats whose answer came since the last look what it took beyond QUICK and
        beyond the time this node heard nobody."""
        table, now = self.table, trio.current_time()
        # A silence of every peer that just ended: this node may have been the one cut off.
        if self.heard - self.heard_before > DEAF:
            self.silent += max(0.0, self.heard - max(self.heard_before, self.started))
        self.heard_before = self.heard
        same_step = (table.current, table.step) == self.step
        answered = self.late_judged - set(table.waiting_for) if same_step else self.late_judged
        if answered and self.timed_late:
            late = now - self.started - self.quick - self.silent - _silence(self.heard, self.started)
            for s in answered:
                if s not in self.returned:
                    relayed = s in self.late_relayed
                    self.mesh.charge_late(s, late, relayed, excused=relayed and s in self.carriers_waited)
        self.late_judged -= answered  # (each answer is charged once)

    def _start_step(self) -> None:
        """The table is at a new step: its clocks start."""
        table, timeouts = self.table, self.timeouts
        self.step = (table.current, table.step)
        decision = table.spec.kind in table.DECISIONS
        self.wait = timeouts.turn if decision else timeouts.step
        # Steps other than turns are answered by the program at once: what a seat's answers
        # take beyond QUICK comes out of its lateness allowance (SLOW_ALLOWANCE). Not the
        # first step of a table, which waits for the links to form.
        self.quick = quick_time(timeouts.step)
        self.timed_late = not decision and table.step != 0 and not self.nobody_back
        self.started = trio.current_time()
        self.silent = 0.0
        self.clock_from = self.started
        self.turn_ends = self.started + self.wait
        self.deadline = self.turn_ends + (LEAVE_WAIT if decision else 0.0)
        self.returned = set()
        self.carriers_waited = set()
        self.asked_early = False
        if table.step == 0 and table.current is table.tables[0]:
            # A seat writes its join once its links with the others are formed (hole
            # punching, dials that time out): that may take the mesh's time first.
            self.deadline += timeouts.mesh
        self.notice = self.started + WAIT_NOTICE

    def _plan_wait(self) -> None:
        """When the wait for the step's records ends, and when to look, ask and name in between."""
        table, mesh, links, trial, returned = self.table, self.mesh, self.links, self.trial, self.returned
        # A peer that is away has until its grace ends before its silence counts.
        # (Once per step: a seat that came back in this step and went away again gets no more
        # time, or leaving and coming back would stall the table for ever.)
        waiting_away = [mesh.away[s] + 1 for s in table.waiting_for if s in mesh.away and s not in returned]
        waiting_away += [trial[s][0] + 1 for s in table.waiting_for if s in trial and s not in returned]
        if self.nobody_back:  # this seat's own absence: no step's clock runs out before the others' graces
            waiting_away += [until + 1 for until in mesh.away.values()]
        # A seat reached only through a relay may have hung up: while this node's judges for
        # it (RelayedLink.judges) say they wait for it too, they may be about to judge it gone
        # (at the end of its grace and relay trial), and this node, which cannot judge it,
        # follows them then (_follow_the_others). A judge that holds its record and does not
        # pass it on gets no more time, nor does a seat whose lateness so excused is spent (a
        # carrier that says so at every step, holding back what it carries, stalls no more).
        carriers_wait = {
            s
            for s in table.waiting_for
            if isinstance(lk := links.get(s), RelayedLink)
            and s not in trial
            and s not in table.stopped
            and lk.judges()
            and all(table.waits_too(c, s) for c in lk.judges())
            and mesh.excuse_left(s) > 0
        }
        self.carriers_wait = carriers_wait
        self.carriers_waited |= carriers_wait
        waiting_away += [self.deadline + mesh.grace + RELAY_TRIAL + 1 for s in carriers_wait]
        # A relayed seat's records reach this node only through its own links: while every
        # one of them is down within its grace, that seat's silence tells nothing.
        carriers_back = [mesh.away[c] + 1 for c in mesh.away if c not in returned]
        if carriers_back:
            waiting_away += [
                max(carriers_back)
                for s in table.waiting_for
                if isinstance(lk := links.get(s), RelayedLink) and not lk.carrier_seats()
            ]
        self.wait_until = max([self.deadline, *waiting_away])
        # A seat judged here on its own link, not away nor back in this step, whose lateness
        # allowance runs out before the step's clock does, is named when it does. A seat reached
        # only through relays that some carrier linked with this node can reach is judged
        # alike, apart (_Mesh.relay_late): when its allowance runs out, this node stops naming
        # nobody (the carriers may have held its answers up), unless its carriers said they
        # wait for it too and it may still be excused that.
        self.late_judged = set()
        self.late_relayed = set()
        self.late_at = math.inf
        if self.timed_late and table.status == "running" and not self.nobody_back:
            self.late_judged = {
                s
                for s in table.waiting_for
                if s != table.seat
                and s not in returned
                and s not in mesh.away
                and s not in trial
                and s not in table.stopped
                and (
                    not isinstance(lk := links.get(s), RelayedLink)
                    or any(c not in mesh.away for c in lk.carrier_seats())
                )
            }
            self.late_relayed = {s for s in self.late_judged if isinstance(links.get(s), RelayedLink)}
            timed = [s for s in self.late_judged if s not in carriers_wait]
            if timed:
                left = min(self._lateness_left(s) for s in timed)
                free = self.started + self.quick + self.silent  # (what the step may take them)
                self.late_at = free + _silence(self.heard, self.started) + left
        if trio.current_time() - self.heard > WAIT_NOTICE + 1:
            # Every peer silent longer than a live one ever is: this node's own connection may
            # be down. A clock shorter than the silence that shows it (DEAF) waits for that
            # silence, so that a node cut off names nobody instead of the others.
            self.wait_until = max(self.wait_until, self.heard + DEAF + 0.5)
        # The records of a seat that is away may reach this node only through the others,
        # who may still be receiving them: ask again often, not only at each notice.
        self.ask_at = self.asked + AWAY_ASK if waiting_away else math.inf
        if not self.asked_early and table.waiting_for:
            # A record its author sent to some seats only (or that a path lost) reaches this
            # one through the others' answers: ask soon, not only at the first notice.
            self.ask_at = min(self.ask_at, self.started + EARLY_ASK)
        if table.waiting_for and table.others_ahead:
            # Another seat is past this step, so it holds what this node lacks (a record that
            # its author's path lost on the way here, say): ask it each EARLY_ASK, not only
            # at each notice.
            self.ask_at = min(self.ask_at, max(self.asked, self.started) + EARLY_ASK)
        # A path that died is seen within a second or two of the system's first retransmissions
        # (Link.stalled), and the link taken for broken then, not at the clock: a new link
        # carries as soon as the network is back, where the old one waits out back-offs.
        self.look_at = (
            max(self.looked, self.started) + LOOK_EVERY if table.waiting_for and mesh.relinker else math.inf
        )

    async def _take_decision(self) -> bool:
        """This seat's decision is made: act on it (True once the seat has left)."""
        assert self.thinking is not None
        outcome, current, self.thinking = self.thinking.outcome, self.thinking.is_for(self.table), None
        if outcome is None:
            return False  # withdrawn before it asked anything: asked again if the turn comes back
        kind, action = outcome
        if kind in ("action", "timeout") and not current:
            return False  # (its turn went away as it was answered: asked again if it comes back)
        if kind == "raise":
            raise action
        if kind == "quit":
            await _leave(self.table, self.links, self.timeouts.step, self.journal, self.result, action)
            return True
        if kind == "timeout":
            # The seat leaves, signed, as a player who quits does: the others play on
            # without it, or (too few left) the match ends there, with nobody at fault.
            why = NO_PLAY.format(seconds=f"{self.wait:g}")
            await _leave(self.table, self.links, self.timeouts.step, self.journal, self.result, why)
            self.result.problem = TURN_TIMED_OUT
            return True
        try:
            self.table.act(action)
        except RemoteProtocolError:
            return False  # recorded in table.failure
        except LocalProtocolError as e:
            raise AssertionError(f"the decider chose an illegal action: {e}") from e
        await self._flush()
        return False

    async def _woken(self, now: float, trial_ends: float) -> None:
        """A clock woke this node, not a frame: look at the paths, ask, name who is late, or
        time out."""
        table, mesh, links = self.table, self.mesh, self.links
        if now >= self.stop_deadline or self.thinking is not None:
            return
        if now < self.wait_until:
            self.looked = now
            # (Every seat's link, not only those waited for: a seat cut off waits for one of
            # them, and the next step may wait for all.)
            if dead := _dead_paths(table, links, mesh, False, self.returned, table.present):
                _take_for_broken(mesh, dead, now)
                return
            if now >= self.late_at and now - self.heard <= WAIT_NOTICE + 1:
                # (Not while every peer is silent: this node's own connection may be down.)
                free = self.started + self.quick + self.silent
                over = [
                    s
                    for s in sorted(self.late_judged)
                    if free + self._lateness_left(s) <= now
                    and s not in self.carriers_wait
                ]
                if over:
                    relayed = {p for p, lk in links.items() if isinstance(lk, RelayedLink)}
                    allowance = lateness_allowance(self.timeouts.step)
                    waited = now - self.started
                    _time_out(table, waited, self.wait, False, self.result, relayed, late=(over, allowance))
                return
            if now < min(self.notice, self.ask_at, trial_ends):
                return  # (woke to look at the paths only)
            if now >= self.notice:
                self.on_wait(table, now - self.clock_from)
                self.notice = now + WAIT_NOTICE
            table.nudge()  # ask for what we may lack; also tells the others we are alive
            self.asked = now
            self.asked_early = self.asked_early or now >= self.started + EARLY_ASK
            await self._flush()
            return
        # Heard from nobody for DEAF seconds: this node's own connection was cut off, unless
        # the system of a seat it waits for acknowledged all it sent meanwhile (the path
        # carries: that seat's program is silent, as a frozen one is, and is named as any).
        unheard = now - self.heard > DEAF
        deaf = unheard and not _systems_answer(links, table.waiting_for)
        if dead := _dead_paths(table, links, mesh, deaf, self.returned, table.waiting_for):
            # The path is dead, not the player: the link counts as broken, as the system would
            # say later (tls.DEAD_PATH), and the seat has its grace to link again and a whole
            # step once back, as for any break (protocol.md 7.2).
            _take_for_broken(mesh, dead, now)
            return
        if now - self.heard > WAIT_NOTICE + 1 and not unheard:
            return  # every peer silent: the wait goes on until that shows this node cut off
        # Live peers are heard every WAIT_NOTICE seconds (their needs and heartbeats).
        relayed = {p for p, lk in links.items() if isinstance(lk, RelayedLink)}
        refused = self._refused(self.started)
        _time_out(table, now - self.started, self.wait, deaf, self.result, relayed, refused=refused)

    async def _read(self, now: float, peer: int, source: Any, item: Any, held: bool = False) -> None:
        """One item from the channel: a new link, a peer that stayed away, or a frame
        (``held``: one read on its link while this seat decided, and read now, even if that
        link closed since: what a peer said before it hung up, that it stops say, counts)."""
        if isinstance(item, _LookAgain):
            return
        if isinstance(item, NewLink):
            await self._new_link(now, peer, item)
        elif isinstance(item, StayedAway):
            await self._stayed_away(now, peer, item)
        elif held or source is self.links.get(peer):  # (not from a link that has been replaced since)
            await self._frame(now, peer, source, item)

    async def _new_link(self, now: float, peer: int, item: NewLink) -> None:
        """A peer's new link: the newest link of a seat still at the table is the one it talks
        on, even one this seat did not miss yet (the peer saw the old path break first)."""
        table, mesh, links = self.table, self.mesh, self.links
        running = table.status in ("running", "disputed")
        if not (running and peer in table.present and peer not in self.away_too_long):
            # a seat gone from the table is told so, then hung up on
            mesh.nursery.start_soon(_turn_away, item.link, table.went_on_frame(peer))
            return
        was_away = peer in mesh.away or peer in self.trial or isinstance(links.get(peer), RelayedLink)
        lost_at = mesh.lost_at.get(peer, now)
        # Its absence comes out of its allowance, unless this node was the one cut off.
        others = [s for s in table.present if s not in (peer, table.seat)]
        charged = peer not in mesh.not_theirs and mesh.theirs(peer, lost_at, others)
        if peer in self.trial and charged and mesh.allowance_left(peer) <= 0:
            # Away with nothing left of its allowance: its trial looks only for its frames
            # through the others (a break of this link alone). A link of its own is no return,
            # or coming back within the trial at every turn would get a whole step each time.
            mesh.nursery.start_soon(_turn_away, item.link, None)
            return
        mesh.lost_at.pop(peer, None)
        away_for = now - lost_at
        mesh.not_theirs.discard(peer)
        if charged:
            mesh.charge(peer, away_for)
        mesh.away.pop(peer, None)
        self.trial.pop(peer, None)
        mesh.adopt(peer, item.link)
        await _resend(table, peer, item.link, self.timeouts.step)
        nobody_back_before = self.nobody_back
        if self.nobody_back:  # the first peer back after a crash: the step's clocks start now
            self.nobody_back = False
            self.step = (None, -1)
        # A seat that announced it stops may link again as it winds down: no news to the user.
        said = peer not in table.stopped
        if not was_away and said:  # it found the old path broken before this seat did: said as a break
            mesh.on_link(peer, "lost", mesh.grace)
        # A peer back from a break that the step waits for gets a whole step, once (so does
        # one that may carry the frames of a relayed seat the step waits for); one the step
        # does not need needs no time (its record is here), so none is given back to it,
        # nor charged: a blip while another seat thinks costs it only its time away.
        needed = peer in table.waiting_for or any(
            isinstance(links.get(s), RelayedLink) for s in table.waiting_for
        )
        if peer not in self.returned and needed:
            if now + self.wait > self.deadline:
                self.clock_from = now  # its time is shown from its return, as its own clock runs
            if charged and not nobody_back_before:  # (after a crash the clocks start then anyway)
                mesh.charge(peer, now + self.wait - self.deadline)  # the time given back, from its allowance
            self.deadline = max(self.deadline, now + self.wait)
            self.returned.add(peer)
        if said:
            mesh.on_link(peer, "back", away_for)

    async def _stayed_away(self, now: float, peer: int, item: StayedAway) -> None:
        """A peer away did not come back within its grace: try the others' links, or it is gone."""
        table, mesh, links = self.table, self.mesh, self.links
        if mesh.away.get(peer) != item.until:
            return
        del mesh.away[peer]
        given = mesh.given.get(peer, mesh.grace)
        why = f"{TIMED_OUT} {given:g} s"
        if given < mesh.grace:  # (the rest of its allowance: it was away that long before)
            why += f" ({ALLOWANCE_SPENT.format(seconds=f'{ABSENCE_ALLOWANCE * mesh.grace:g}')})"
        elif item.reason != STAYED_AWAY:
            why += f" ({item.reason})"  # the last attempt's error, when there was one
        me = table.seat if table.seat is not None else 0
        through = RelayedLink(me, peer, links, lambda: table.present)
        if through.carriers():
            # Its link with this seat alone may be broken (a router that dropped the
            # path between the two): try the others' links before judging it gone.
            links[peer] = through
            self.trial[peer] = (now + RELAY_TRIAL, why)
            table.nudge()  # through the others: its answer shows it is still here
            self.asked = now
            await self._flush()
        else:
            self.closed[peer] = why
            self.away_too_long.add(peer)
            mesh.on_link(peer, "gone", mesh.grace)

    async def _frame(self, now: float, peer: int, source: Any, item: Any) -> None:
        """A frame (or the end of a link) from ``peer``'s current link."""
        table, mesh, links = self.table, self.mesh, self.links
        if isinstance(item, Need) and not mesh.floods.worth_reading(peer, now):
            self.heard = now
            return  # more than an honest seat asks (RELAY_NOTICE_RATE): dropped unread, blaming nobody
        if isinstance(item, Relay) and item.target == table.seat and item.origin in self.trial:
            del self.trial[item.origin]  # it is still here: reached through the others from now on
            mesh.lost_at.pop(item.origin, None)
            mesh.on_link(item.origin, "relayed", 0.0)
        if (
            self.thinking is not None
            and self.thinking.is_for(table)  # (made or not: until acted on, its record is owed)
            and _read_after_deciding(item)
            and not carried_cleanly(table, links, peer, item)
        ):
            # This seat owes the step's record: a fault found now would stop it before
            # writing it, and the others would blame it (protocol.md 7.3). Read once the
            # record is out (a leave, or a link that breaks, is dealt with at once, and
            # what it carries for others without a fault is passed on).
            self.heard = now
            self.held.append((peer, (source, item)))
            return
        if isinstance(item, Relay):
            self.heard = now
            if await carry(table, links, peer, item, self.timeouts.step, mesh.floods):  # an abort, relayed
                self.stop_deadline = min(self.stop_deadline, now + ABORT_GRACE)
            await self._flush()
            return
        if not isinstance(item, LinkClosed):
            self.heard = now
        # A RemoteProtocolError is kept in table.failure and ends the loop (_ended).
        with contextlib.suppress(RemoteProtocolError):
            if isinstance(item, LinkClosed):
                if peer not in table.present:
                    links.pop(peer, None)  # it left: nobody waits for it
                elif mesh.relinker is not None and table.status in ("running", "disputed"):
                    # (A peer that said it stops, in a frame still held, hangs up as it said.)
                    stops = any(isinstance(it, Abort) for p, (_, it) in self.held if p == peer)
                    mesh.link_lost(peer, now, said=peer not in table.stopped and not stops)
                    # Its last records may have reached only some of us: ask the others now,
                    # before its grace ends, so that every node judges from the same step.
                    table.nudge()
                    self.asked = now
                else:
                    self.closed[peer] = item.reason
            elif isinstance(item, WireError):
                table.blame_unreadable(peer, MALFORMED_FRAME.format(error=item), item)
            else:
                if isinstance(item, Abort) and peer in table.present:
                    self.stop_deadline = min(self.stop_deadline, now + ABORT_GRACE)
                table.receive_frame(peer, item)
        await self._flush()


def _follow_the_others(
    table: Sitting,
    mesh: _Mesh,
    closed: dict[int, str],
    away_too_long: set[int],
    trial: dict[int, tuple[float, str]],
) -> None:
    """A seat this node reaches only through a relay cannot be judged gone here (its
    carrier may drop what it sends, or it may have hung up): once its judges went on
    without it (``RelayedLink.judges``: every carrier, two at least), nothing more can reach
    it from here, and ``_Match`` follows them. One carrier alone is not followed: it could
    have held back the seat's frames to push it out (a host that relays between every pair
    of joiners could otherwise choose who plays on). This node then stops at the step's
    timeout, naming nobody. (Carriers could as well drop its frames: they can stop the
    match, never get anyone blamed or left behind by this.)"""
    relayed = {
        s: lk
        for s in table.present
        if isinstance(lk := mesh.links.get(s), RelayedLink) and s not in trial and s not in away_too_long
    }
    if not relayed or table.failure is not None or not relayed.keys() & table.proposed_without():
        return
    went_on = table.gone_on_without()
    for s, link in sorted(relayed.items()):
        judges = set(link.judges())
        if len(judges) >= MIN_JUDGES and judges <= went_on.get(s, set()):
            closed[s] = LEFT_BEHIND
            away_too_long.add(s)
            mesh.on_link(s, "left behind", 0.0)


async def _leave(
    table: Sitting,
    links: dict[int, PeerLink],
    timeout: float,
    journal: Callable[[list[SignedRecord]], None],
    result: RunResult,
    reason: str = "quit",
) -> None:
    """This seat's player leaves: sign it, so that the others go on without waiting.

    Once signed, the leave is sent even if the program is being stopped meanwhile (a
    closed terminal both ends the player's input and sends the hang-up signal), within
    ``LEAVE_SEND`` seconds counted once it is on disk (a slow disk does not use them up):
    a leave signed but never sent makes the others wait out this seat's grace."""
    result.status = "aborted"
    if result.problem is None:  # the transcript's status says why: "aborted: quit"
        result.problem = reason
    name = table.roster[table.seat].name  # type: ignore[index]
    table.leave(reason)
    _make_durable(table, journal)  # (write-ahead, as _flush does, before the time to send counts)
    with trio.CancelScope(shield=True, deadline=trio.current_time() + LEAVE_SEND):
        await send_all(table, links, min(timeout, LEAVE_SEND))
        await _announce(links, f"{name} left the match", table.step)


LEAVE_SEND = 3.0
"""Seconds at most this seat spends sending its signed leave (``_leave``), whatever else stops."""


TURN_ENDS: contextvars.ContextVar[float | None] = contextvars.ContextVar("turn_ends", default=None)
"""While this seat's decider runs: when its turn ends on the table's clock (trio time).
The turn began when the step did, which may be a while before a person's prompt."""

RELAY_TRIAL = 10.0
"""Seconds a peer whose own link did not come back within its grace is reached through the
others before it is judged gone: a frame from it that way shows it is still at the table.
Twice the keep-alive period: the two ends of a link that died in silence may notice it, and
so start relaying, that far apart (a seat reads relayed frames from a peer whose link is
down, but sends through the others only once its own grace is over)."""

EARLY_ASK = 1.0
"""Seconds into a step after which a waiting node first asks the others for the records it
lacks (then every ``WAIT_NOTICE``): the seats that hold them answer at once."""

AWAY_ASK = 1.0
"""Seconds between a waiting node's requests for the records it lacks while a seat it
waits for is away (otherwise one request per ``WAIT_NOTICE``)."""

LEAVE_WAIT = 3.0
"""Seconds the others wait past a player's turn time for its signed leave (``_Match``):
its own clock ends first, and a seat whose node still runs says that it leaves, so
that everyone goes on without it from the same record. One that says nothing by then
(frozen, or hostile) is named for the time it took."""

MIN_JUDGES = 2
"""The fewest carriers whose word makes a relayed seat gone for this node (``_follow_the_others``)."""

LOOK_EVERY = 1.0
"""Seconds between two looks at the paths of the seats a waiting node waits for
(:meth:`Link.stalled`, which the system can answer only after about 3 s of a dead path)."""

DEAF = 2 * WAIT_NOTICE + 1
"""Seconds of silence from every peer after which this node takes its own connection to be
down: live peers are heard every ``WAIT_NOTICE`` seconds (their needs and keep-alives)."""

LINGER = 10.0
"""Seconds at most a node that finished waits for each peer to show it finished too (``_linger``)."""


async def _linger(
    table: Sitting, mesh: _Mesh, receive: trio.MemoryReceiveChannel[tuple[int, Any]]
) -> None:
    """The match is over here; the others may not know it yet (a path that broke as the
    last records went, a seat reached through this one). Send every peer still at the
    table the last step's records and a ``need`` frame for the step after it holding
    every seat: the sign of a node that finished. Then, until each of them has sent
    that same sign or ``LINGER`` seconds pass, answer ``need`` frames, carry relay
    frames, take new links (and dial again those this seat dials): a seat whose link
    broke at the end finishes the same match instead of waiting out its grace."""
    links = mesh.links
    final, over = table.last_step_frame(), table.need_frame()
    sign = decode_frame_object(unpack_untrusted(over, MAX_FRAME))
    present = set(table.present) - {table.seat}
    # Relayed peers first: a carrier that has this node's sign has then carried the sign it
    # relays (one link keeps the order), and may stop once every seat has signed.
    order = sorted(present & links.keys(), key=lambda p: (not isinstance(links[p], RelayedLink), p))
    for frame in (final, over):
        if frame is not None:
            await to_every_peer({p: links[p] for p in order}, frame, 1)
    done: set[int] = set()
    ends = trio.current_time() + LINGER
    with trio.move_on_at(ends):
        while not present <= done:
            peer, (source, item) = await receive.receive()
            if isinstance(item, NewLink):
                if peer in present - done:
                    mesh.adopt(peer, item.link)
                    await _resend(table, peer, item.link, 1)  # what it lacks, then the sign
                else:  # (a seat gone from the table is told so, as during the match)
                    mesh.nursery.start_soon(_turn_away, item.link, table.went_on_frame(peer))
                continue
            if source is not links.get(peer):
                continue  # a replaced link, or a relink that stayed away
            if isinstance(item, LinkClosed | WireError):
                if peer in present - done and mesh.relinker is not None and mesh.relinker.dials(peer):
                    again = (peer, mesh.relinker, ends, mesh.send.clone(), mesh.refused)
                    mesh.nursery.start_soon(_relink, *again)
                continue
            if isinstance(item, Relay):
                if item.target == table.seat and item.origin in present:
                    with contextlib.suppress(WireError):
                        if item.inner() == sign:
                            done.add(item.origin)
                await carry(table, links, peer, item, 1, mesh.floods)
            elif isinstance(item, Need):
                if item == sign:
                    done.add(peer)
                if not mesh.floods.worth_reading(peer, trio.current_time()):
                    continue  # asked too often (RELAY_NOTICE_RATE): its sign is noted all the same
                with contextlib.suppress(RemoteProtocolError, LocalProtocolError):
                    table.receive_frame(peer, item)
            elif isinstance(item, Evidence):  # (a second record of one author proves its lie still)
                with contextlib.suppress(RemoteProtocolError, LocalProtocolError):
                    table.receive_frame(peer, item)
            if table.failure is not None:
                return  # the match this node finished is proved false: said, and no more lingering
            await send_all(table, links, 1)


async def _resend(table: Sitting, peer: int, link: PeerLink, timeout: float) -> None:
    """A new link to ``peer``: first the records it may lack, then where we stand."""
    frames = [*table.link_reset(peer), table.need_frame()]
    with trio.move_on_after(timeout), contextlib.suppress(LinkClosed):
        for frame in frames:
            await link.send(frame)


def _take_for_broken(mesh: _Mesh, dead: dict[int, Link], now: float) -> None:
    """Count each of these links as broken (the seat has its grace to link again) and reset it,
    so that the peer learns it at the first segment that gets through."""
    for peer, link in dead.items():
        mesh.link_lost(peer, now)
        mesh.nursery.start_soon(_reset, link)


def _silence(heard: float, since: float) -> float:
    """The part from ``since`` of a silence of every peer that still lasts, if it is already
    longer than a live peer's (``DEAF``), as ``_Match`` counts its silences."""
    now = trio.current_time()
    return max(0.0, now - max(heard, since)) if now - heard > DEAF else 0.0


def _dead_paths(
    table: Sitting,
    links: dict[int, PeerLink],
    mesh: _Mesh,
    deaf: bool,
    returned: set[int],
    among: Collection[int],
) -> dict[int, Link]:
    """The seats whose own link to this node is taken for broken, looked at every
    ``LOOK_EVERY`` of a wait and when a timeout runs out, if the table can still take them
    back (a clock shorter than the system's limit, tls.DEAD_PATH, would otherwise decide on
    a dropout of the network, and the old link would wait out the system's back-off):

    * a seat of ``among`` whose link shows a dead path (:meth:`Link.stalled`): what this node
      sent waits unacknowledged by that seat's system, which answers even when its program
      is frozen (a path seen dead is taken for broken at once: once it carries again, what
      that seat sent meanwhile, or what it lacked to write its record, could still wait out
      a back-off of the systems);
    * every seat with a link of its own, when this node has heard from nobody for ``DEAF``
      seconds: its own connection was cut off, and what the others sent meanwhile may come
      only after long back-offs of their systems (its own data, sent again after the path
      came back, may be acknowledged already). New links carry at once.

    A seat back in this step (``returned``) had its time: its link is not taken for broken
    again (protocol.md 7.2)."""
    if mesh.relinker is None or table.status not in ("running", "disputed"):
        return {}
    linked = {s: lk for s in table.present if isinstance(lk := links.get(s), Link) and s not in returned}
    if deaf:
        return linked
    return {s: lk for s, lk in linked.items() if s in among and lk.stalled()}


def _systems_answer(links: dict[int, PeerLink], seats: Collection[int]) -> bool:
    """Whether the system of one of ``seats`` acknowledged all that this node sent on its own
    link, the last within ``DEAF`` seconds (``Link.answering``; never where the system cannot
    say): this node is not cut off from it. A live link carries this node's keep-alives
    every ``WAIT_NOTICE`` seconds, so a path that carries shows a recent acknowledgement."""
    return any(isinstance(lk := links.get(s), Link) and lk.answering(DEAF) is True for s in seats)


def _time_out(
    table: Sitting,
    waited: float,
    clock: float,
    deaf: bool,
    result: RunResult,
    relayed: Collection[int] = (),
    late: tuple[Sequence[int], float] | None = None,
    refused: str = "",
) -> None:
    """The step's time ran out: stop the table, blaming only what this node can tell.

    ``waited``: the seconds this node waited in the step; ``clock``: the step's own clock, as
    the table agreed it (a turn's, said to name a seat for its turn: the wait adds
    ``LEAVE_WAIT`` and the time a seat away was given).

    ``refused``: the seats whose systems refused this node's dials in this step, named (their
    programs ended): if this node heard from nobody, it says so rather than that its own
    connection may be down.

    ``late``: the seats whose lateness allowance (of the seconds given) ran out before the
    step's clock, and only those: the time ran out for them alone.

    A seat in ``relayed`` reaches this node only through a relay (the host, or the
    seats linked with both), which may have dropped its records: its silence is never
    its fault here. It is named only by nodes linked with it directly; if it is all
    that is missing, this node names nobody (the relay may be honest, and the seat
    silent: this node cannot tell). Nor is a seat named that went on without one that
    this node too reaches only through a relay (a table split by broken links)."""
    with contextlib.suppress(RemoteProtocolError):
        if table.status == "disputed":
            suspect = table.suspect_seat
            if suspect is not None and suspect in relayed:
                # The proof that would clear it could only come through a relay: as for silence,
                # a seat reached only through a relay is not named (its record is not kept).
                table.stop(RELAYED_DISPUTE.format(names=f"{table.roster[suspect].name} (seat {suspect})"))
                return
            table.conclude_stalled()
            return
        waiting = table.waiting_for if late is None else tuple(late[0])
        names = ", ".join(f"{table.roster[s].name} (seat {s})" for s in waiting)
        if deaf and refused:
            # Heard from nobody, but the others' systems answer: their programs ended.
            at = {"seconds": f"{waited:.0f}", "names": names, "step": table.step, "gone": refused}
            table.stop(HEARD_NOBODY_REFUSED.format(**at))
            return
        if deaf:
            # Heard from nobody the whole wait: this node's own connection is the
            # likeliest cause, and it can prove nobody else at fault.
            table.stop(HEARD_NOBODY.format(seconds=f"{waited:.0f}", names=names, step=table.step))
            return
        silent = [s for s in waiting if s not in table.stopped]
        if not silent:
            table.stop(STOPPED_BEFORE.format(names=names, step=table.step))
            return
        direct = [s for s in silent if s not in relayed]
        if not direct and late is not None:
            # Late through relays only: the carriers may have held its answers up.
            allowance = f"{late[1]:g}"
            table.stop(RELAYED_LATE.format(names=names, seconds=f"{waited:.0f}", allowance=allowance))
            return
        if not direct:
            table.stop(RELAYED_SILENT.format(names=names, step=table.step))
            return
        # A seat that signed a table going on without one that this node too reaches only
        # through a relay judged it gone where this node cannot vouch for it: no fault.
        went_on: dict[int, set[int]] = getattr(table, "gone_on_without", dict)()
        behind = {d: g for g in sorted(went_on) if g in relayed for d in went_on[g] if d in direct}
        if behind and not [s for s in direct if s not in behind]:
            who = " and ".join(
                WENT_ON_WITHOUT.format(name=table.roster[d].name, gone=table.roster[g].name)
                for d, g in behind.items()
            )
            table.stop(WENT_ON_RELAYED.format(names=names, step=table.step, who=who))
            return
        direct = [s for s in direct if s not in behind]
        current = getattr(table, "current", table)
        if current.carry is not None and current.step == 0:
            # The first step of a table that goes on without a seat: the seats awaited may
            # not have judged that seat gone (they may still hear from it), which is no fault.
            gone = " and ".join(current.carry.table.roster[s].name for s in current.carry.left)
            table.stop(NOT_FOLLOWED.format(names=names, gone=gone, seconds=f"{waited:.0f}"))
            return
        result.blamed = tuple(direct)
        said = SILENT_PLAY if table.spec.kind in getattr(current, "DECISIONS", ()) else SILENT_ANSWER
        silent_names = " and ".join(table.roster[s].name for s in direct)
        if late is not None:
            said = SLOW_ANSWER
        allowance = "" if late is None else f"{late[1]:g}"
        seconds = f"{clock:g}" if said is SILENT_PLAY else f"{waited:.0f}"
        table.blame(direct[0], said.format(names=silent_names, seconds=seconds, allowance=allowance))
