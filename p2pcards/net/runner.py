"""Drive one seat's table over its links until the match ends, fails or times out.

One reader task per peer feeds a bounded channel; the main task owns the table
(no locking needed around it), sends what it drains to every link, asks the
local decider when it is this seat's turn (in a task of its own, while the main
task goes on reading the links: ``_Deciding``), and enforces the step timeouts: a
turn may take ``Timeouts.turn`` seconds, any other step ``Timeouts.step``. A
silent peer is named, and the match ends with the transcript kept. A peer that
hangs up is named once the table needs a record from it (see ``_play``), and
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
import hashlib
import math
from collections import deque
from collections.abc import Awaitable, Callable, Collection, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

import trio

from p2pcards.errors import LocalProtocolError, RemoteProtocolError
from p2pcards.net.link import Link, LinkClosed
from p2pcards.net.session import WAIT_NOTICE, Timeouts
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

QUICK = 10.0
"""Seconds a step other than a turn (a shuffle, a lock, a key: what a program answers at
once) may take a seat without counting against it: room for a slow path's round trips and a
slow machine's arithmetic."""

SLOW_ALLOWANCE = 2.0
"""Step clocks (at least ``SLOW_ALLOWANCE_MIN`` seconds) that a seat's answers to steps other
than turns may take beyond ``QUICK`` each, in all over the match. Once it is spent, such a step
gives that seat ``QUICK`` only, so that a seat that answers each step just before its clock runs
out (a step clock of 60 s: 120 s of lateness in all) cannot stall the table for the match."""

SLOW_ALLOWANCE_MIN = 60.0


def lateness_allowance(step_clock: float) -> float:
    """A seat's lateness allowance over the match at this step clock (``SLOW_ALLOWANCE``)."""
    return max(SLOW_ALLOWANCE_MIN, SLOW_ALLOWANCE * step_clock)

READ_FREE = 1.0
"""Seconds this seat's frames may wait in all, in each step, for a peer to take them without
counting against that peer (``HOLD_ALLOWANCE``)."""

HOLD_ALLOWANCE = 0.5
"""Of a peer's lateness allowance (``SLOW_ALLOWANCE``), the share that this seat's frames may
wait for that peer to take them, beyond ``READ_FREE`` in each step, in all over the match, before it
counts as one that reads too slowly. While a frame waits, this seat reads and answers nothing:
a peer that takes each frame a few seconds late, never long enough to count as one that
stopped reading (``STUCK_SHARE``), would make this seat's answers late to every other seat,
and they would name it once its lateness allowance is spent. Half of it: this seat names the
peer that holds it up first."""

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


ALLOWANCE_SPENT = "away {seconds} s in all over the match, the most a player may be"
"""What a peer that was away too long over the match is said to have done (``ABSENCE_ALLOWANCE``)."""

STAYED_AWAY = "it did not come back"
"""Why a peer counts as gone when no attempt to relink it failed with an error of its own."""


async def _relink(
    peer: int, relinker: Relinker, deadline: float, out: trio.MemorySendChannel[tuple[int, Any]]
) -> None:
    """Dial ``peer`` again until a new link is up or ``deadline`` comes (it stayed away)."""
    async with out:
        last = STAYED_AWAY
        with trio.move_on_at(deadline):
            while True:
                try:
                    link = await relinker.relink(peer)
                except (LinkClosed, OSError, WireError) as e:
                    last = str(e) or type(e).__name__
                    await trio.sleep(RETRY)
                    continue
                await out.send((peer, (None, NewLink(link))))
                return
        await out.send((peer, (None, StayedAway(last, deadline))))


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


def _carried_cleanly(table: Sitting, links: dict[int, Any], peer: int, item: Any) -> bool:
    """A relay frame from ``peer`` for another seat that this seat passes on (or drops, not
    linked with its target) finding no fault in it: carried at once even while this seat's
    own decision is due, since the seats relayed through this one must not wait on its
    player (their clocks for the step before run out meanwhile). One that shows a fault
    waits, as any frame (``_read_after_deciding``)."""
    if not isinstance(item, Relay) or item.target == table.seat or item.origin != peer:
        return False
    target = links.get(item.target)
    if target is None or isinstance(target, RelayedLink):
        return True
    try:
        return table.carriable(peer, item.inner()) is None
    except WireError:
        return False


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


STUCK_SHARE = 0.5
"""Of the ``timeout`` a frame is sent with, the share it may wait to be delivered before its peer
counts as one that stopped reading. While the frame waits, this seat sends and signs nothing:
at the whole step's timeout the others' clocks for this seat's next record would run out at the
same moment, and they would name this seat as it names the peer that stopped reading."""


@dataclass(slots=True)
class _Holds:
    """How long this seat's frames waited for each peer to take them (``HOLD_ALLOWANCE``):
    in each step, ``READ_FREE`` in all is free, and the rest counts over the match. Per step,
    not per frame: a peer that takes each frame just under ``READ_FREE`` late, and makes this
    seat send it many (answers to its ``need`` frames), would hold it up for as long."""

    counted: dict[int, float] = field(default_factory=dict)
    """Each peer's time counted so far, over the match."""
    in_step: dict[int, float] = field(default_factory=dict)
    step: object = None

    def waited(self, peer: int, seconds: float, step: object) -> float:
        """``peer`` took ``seconds`` to take a frame in ``step``: its count over the match."""
        if step != self.step:
            self.step, self.in_step = step, {}
        before = self.in_step.get(peer, 0.0)
        self.in_step[peer] = before + seconds
        more = max(0.0, before + seconds - READ_FREE) - max(0.0, before - READ_FREE)
        self.counted[peer] = self.counted.get(peer, 0.0) + more
        return self.counted[peer]


async def _send_all(
    table: Sitting, links: dict[int, PeerLink], timeout: float, held: _Holds | None = None
) -> None:
    """Send the table's new frames to every peer, and its answers to the peers that asked.

    A peer that takes no frame for ``STUCK_SHARE`` of ``timeout`` (it stopped reading and its
    buffers are full) is blamed: otherwise the send would block this seat, and with
    it every timeout, forever. With ``held`` (``timeout`` being the step's clock), so is a
    peer whose frames waited longer in all than ``HOLD_ALLOWANCE`` of a lateness allowance.
    """
    most = HOLD_ALLOWANCE * lateness_allowance(timeout)
    timeout *= STUCK_SHARE
    present = set(table.present)  # a seat that left hears nothing more from this table
    now = [(p, lk) for p, lk in links.items() if p in present]  # links may be replaced while this sends
    out = [(frame, now) for frame in table.drain()]
    for peer, frames in table.drain_replies().items():
        if peer in links:
            out.extend((frame, [(peer, links[peer])]) for frame in frames)
    stuck: list[int] = []
    slow: list[int] = []
    for frame, targets in out:
        for peer, link in targets:
            if peer in stuck:
                continue  # the others still get every frame, this seat's record first of all
            began = trio.current_time()
            with trio.move_on_after(timeout) as scope, contextlib.suppress(LinkClosed):
                await link.send(frame)  # a closed link: its reader reports it
            if scope.cancelled_caught:
                stuck.append(peer)
            elif held is not None and (took := trio.current_time() - began) > 0:
                step = (getattr(table, "current", None), table.step)
                if held.waited(peer, took, step) > most and peer not in slow:
                    slow.append(peer)
    if stuck:
        with contextlib.suppress(RemoteProtocolError):
            table.blame(stuck[0], STOPPED_READING.format(seconds=f"{timeout:g}"))
    elif slow:
        with contextlib.suppress(RemoteProtocolError):
            table.blame(slow[0], READ_SLOWLY.format(seconds=f"{most:g}"))


async def _to_every_peer(links: dict[int, PeerLink], frame: bytes, timeout: float) -> None:
    """Send a notice to every peer, giving up on one that takes no frame in ``timeout``."""
    for link in list(links.values()):
        with trio.move_on_after(timeout), contextlib.suppress(LinkClosed):
            await link.send(frame)


FINGERPRINT_DIFFERED = "the table fingerprint differed"
"""The reason a seat signs when its player leaves because they read other digits than the
others (a split table): the others are told it as such."""

async def _announce(links: dict[int, PeerLink], reason: str, step: int) -> None:
    """Tell every peer that this seat stops at ``step``, and why, before it hangs up."""
    await _to_every_peer(links, Abort(reason, step).to_frame(), 1)


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
            await _to_every_peer(quiet, table.need_frame(), WAIT_NOTICE)


class RelayedLink:
    """A peer this seat has no link with: its frames go wrapped in ``relay`` frames
    through every seat this one is linked with, each of which passes them on if it is
    linked with the peer (the host is, unless its own link with the peer broke: then
    another seat may be). Records are signed end to end, so a carrier can delay or drop
    them, not forge them; the peer reads the first copy."""

    def __init__(
        self,
        me: int,
        peer: int,
        links: dict[int, Any],
        present: Callable[[], Collection[int]] = lambda: range(6),
    ) -> None:
        self.me, self.peer, self.links, self.present = me, peer, links, present
        self.bytes_sent = self.frames_sent = 0

    def carriers(self) -> list[Link]:
        """The links of :meth:`carrier_seats`."""
        return [self.links[s] for s in self.carrier_seats()]

    def carrier_seats(self) -> list[int]:
        """Every seat this one has a link with but the peer (still at the table: one
        that left no longer carries)."""
        here = self.present()
        return [
            s
            for s, lk in sorted(self.links.items())
            if s != self.peer and s in here and not isinstance(lk, RelayedLink)
        ]

    def judges(self) -> list[int]:
        """The carriers whose word on the peer this seat weighs: all of them. It follows them
        (``_follow_the_others``) only when there are ``MIN_JUDGES`` or more: a single carrier
        (the host, for a pair of joiners it relays between) could hold back the peer's frames
        and then say it is gone, pushing a live seat out of the match."""
        return self.carrier_seats()

    async def send(self, frame: bytes) -> None:
        wrapped = Relay(self.me, self.peer, frame).to_frame()
        sent = False
        for link in self.carriers():
            with contextlib.suppress(LinkClosed):
                await link.send(wrapped)
                sent = True
        if not sent:
            raise LinkClosed(f"no seat linked with this one is here to carry its frames to seat {self.peer}")
        self.bytes_sent += len(frame)
        self.frames_sent += 1


PeerLink = Link | RelayedLink
"""How this seat reaches one peer: its own link, or through the seats that carry relays."""


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
    floods: _Floods = field(default_factory=lambda: _Floods())
    """What this seat carried for the others, and how many notices each peer sent it."""
    late: dict[int, float] = field(default_factory=dict)
    """Each peer's lateness so far: the time beyond ``QUICK`` its answers to steps other than
    turns took (``SLOW_ALLOWANCE``)."""
    held: _Holds = field(default_factory=lambda: _Holds())
    """The time this seat's frames waited for each peer to take them (``HOLD_ALLOWANCE``)."""

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

    def lateness_left(self, peer: int, step_clock: float) -> float:
        """What ``peer``'s answers to steps other than turns may still take beyond ``QUICK``."""
        return max(0.0, lateness_allowance(step_clock) - self.late.get(peer, 0.0))

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

    def link_lost(self, peer: int, now: float, theirs: bool = True) -> None:
        """Start getting ``peer`` back: its grace runs from now, as long as what is left of its
        allowance (``theirs`` False: this node was away, not the peer; nothing is charged)."""
        assert self.relinker is not None
        self.links.pop(peer, None)
        self.linked_since.pop(peer, None)
        grace = self.grace if not theirs else min(self.grace, self.allowance_left(peer))
        if not theirs:
            self.not_theirs.add(peer)
        self.away[peer] = until = now + grace
        self.lost_at[peer] = now
        self.given[peer] = grace
        self.on_link(peer, "lost", grace)
        if self.relinker.dials(peer):
            self.nursery.start_soon(_relink, peer, self.relinker, until, self.send.clone())
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
                        await _play(
                            table,
                            mesh,
                            decide,
                            receive,
                            timeouts,
                            on_progress,
                            on_wait,
                            result,
                            restore,
                            journal,
                            leaving,
                            confirming or (lambda: None),
                            deciding,
                        )
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
    held: _Holds | None = None,
) -> None:
    """Make the table's new records durable, then send its frames (write-ahead); ``held``
    as for ``_send_all``."""
    _make_durable(table, journal)
    await _send_all(table, links, timeout, held)


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


async def _play(
    table: Sitting,
    mesh: _Mesh,
    decide: Decider,
    receive: trio.MemoryReceiveChannel[tuple[int, Any]],
    timeouts: Timeouts,
    on_progress: Callable[[SeatTable], None],
    on_wait: Callable[[SeatTable, float], None],
    result: RunResult,
    restore: Sequence[SignedRecord] | None,
    journal: Callable[[list[SignedRecord]], None],
    leaving: Callable[[], bool],
    confirming: Callable[[], bool | None],
    nursery: trio.Nursery,
) -> None:
    links = mesh.links
    thinking: _Deciding | None = None
    """This seat's decision in progress, if any."""
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
            await _resend(table, peer, link, timeouts.step)
    await _flush(table, links, timeouts.step, journal, mesh.held)
    step: tuple[object, int] = (None, -1)
    returned: set[int] = set()
    """The seats back from away in this step: each gets one whole step from its return."""
    timed_late = False
    """Whether the current step charges the seats' answers to their lateness (SLOW_ALLOWANCE)."""
    late_judged: set[int] = set()
    """The seats the current step awaits whose lateness counts, as last looked at."""
    silent = 0.0
    """The time in the current step this node heard from no peer, in silences longer than a
    live peer's (``DEAF``): its own connection may have been down, which is nobody's lateness."""
    differed = False  # this seat's player said the table fingerprint differed
    deadline, notice, started, wait = 0.0, 0.0, 0.0, 0.0
    asked = 0.0  # when this node last asked the others for records it lacks
    asked_early = False  # whether it asked EARLY_ASK into the current step (or later)
    looked = 0.0  # when this node last looked at the paths of the seats it waits for
    heard = trio.current_time()  # when a frame last came from any peer
    heard_before = heard  # (as last looked at: the silence between the two may count, above)
    closed: dict[int, str] = {}
    away_too_long: set[int] = set()  # closed, and not back within the grace: gone for good
    trial: dict[int, tuple[float, str]] = {}
    """Peers whose own link did not come back, reached through the others until the time given:
    heard from that way, they are still at the table; not heard, they are gone (the reason)."""
    stop_deadline = math.inf
    confirmed = False  # this seat's answer about the fingerprint was taken
    held: deque[tuple[int, tuple[Any, Any]]] = deque()
    """Frames that came while this seat's decision was due (``_read_after_deciding``)."""
    released: deque[tuple[int, tuple[Any, Any]]] = deque()
    """Those frames, read before any new one once the decision is made or withdrawn."""
    nobody_back = restore is not None and mesh.relinker is not None and bool(mesh.away)
    """Back from a crash, and no peer linked again yet: nothing is asked of this seat's
    player, whose move could reach nobody (a table that ended meanwhile answers never)."""
    while True:
        if held and not (thinking is not None and thinking.due(table)):
            released.extend(held)
            held.clear()
        if thinking is not None and not thinking.is_for(table):
            await thinking.cancel()  # its turn went away (a new table): asked again there
            if thinking.outcome is None or thinking.outcome[0] not in ("quit", "raise"):
                thinking = None  # (a player who chose to leave leaves all the same)
        for peer, (until, why) in list(trial.items()):
            if trio.current_time() >= until:  # nothing came from it through the others either
                del trial[peer]
                closed[peer] = why
                away_too_long.add(peer)
                mesh.on_link(peer, "gone", mesh.grace)
        _follow_the_others(table, mesh, closed, away_too_long, trial)
        # A peer that hung up is blamed when the table needs its record, not before:
        # an honest seat that stopped because of someone else's fault closes its links
        # too, and whichever hang-up arrives first must not decide who is blamed.
        if nobody_back and not mesh.away and not trial and table.failure is None:
            with contextlib.suppress(RemoteProtocolError):
                table.stop(NOBODY_ANSWERED.format(seconds=f"{mesh.grace:g}"))
        # (Back from a crash with no peer linked again: the others' silence is this seat's
        # absence, said once every grace is over, NOBODY_ANSWERED above, naming each of them.)
        gone = [s for s in table.waiting_for if s in closed and s not in table.stopped]
        if away_too_long:  # judged gone here, and another seat already went on without it
            gone += sorted((away_too_long & table.proposed_without()) - set(gone) - set(table.stopped))
            gone = [s for s in gone if s in table.present]
        if gone and table.failure is None and not nobody_back:
            with contextlib.suppress(RemoteProtocolError):
                if not [lk for lk in links.values() if not isinstance(lk, RelayedLink)]:
                    # every link is down: this node cannot tell who is at fault
                    table.stop(LOST_EVERY.format(step=table.step))
                elif gone[0] in away_too_long:
                    if table.drop(gone[0], closed[gone[0]]):  # the others go on without it, if they can
                        # (this seat's first record there)
                        await _flush(table, links, timeouts.step, journal, mesh.held)
                        continue
                else:
                    table.blame(gone[0], closed[gone[0]])
        if table.status == "over":
            result.status = "over"
            on_progress(table)
            await _linger(table, mesh, receive)
            if table.failure is not None:  # a peer proved, once this seat finished, that a seat lied
                result.status, result.problem = "failed", table.failure.problem
                result.blamed = () if table.failure.peer is None else (table.failure.peer,)
                on_progress(table)
            return
        if table.failure is not None:
            # "left": another seat signed its leave and none remain to play on (nobody's fault)
            result.status = "left" if getattr(table, "left_alone", None) else "failed"
            result.problem = table.failure.problem
            if table.failure.peer is None:
                result.blamed = ()
            elif table.failure.peer not in result.blamed:
                result.blamed = (table.failure.peer,)
            on_progress(table)
            await _flush(table, links, timeouts.step, journal)  # the proof, so that others can check it
            at_fault = table.failure.peer
            who = "nobody" if at_fault is None else f"{table.roster[at_fault].name} (seat {at_fault})"
            await _announce(links, f"{who} at fault: {table.failure.problem}", table.step)
            return
        if trio.current_time() >= stop_deadline and not table.stopped:
            stop_deadline = math.inf  # the seat that said it stops has left the table since
        if trio.current_time() >= stop_deadline:
            # A peer stopped and this node reached no verdict of its own in the grace
            # period: its reason is only its claim.
            peer, (_, why) = next(iter(table.stopped.items()))
            said = STOPPED_CLAIM_RELAYED if table.stopped_by_relay(peer) else STOPPED_CLAIM
            name = f"{table.roster[peer].name} (seat {peer})"
            table.stop(said.format(names=name, claim=quote_claim(why)))
            continue
        answer = None if confirmed else confirming()
        if answer is not None:
            confirmed = True
            differed = answer is False
            if table.confirm(answer):  # the player's word, signed: the audit says who compared
                await _flush(table, links, timeouts.step, journal, mesh.held)
        if leaving() and table.seat is not None and table.status in ("running", "disputed"):
            # Said to the others as the reason: a player who read other digits left for that.
            why = FINGERPRINT_DIFFERED if differed else "quit"
            await _leave(table, links, timeouts.step, journal, result, why)
            return
        # A silence of every peer that just ended: this node may have been the one cut off.
        if heard - heard_before > DEAF:
            silent += max(0.0, heard - max(heard_before, started))
        heard_before = heard
        # The seats whose answer came since the last look, charged what it took beyond QUICK
        # and beyond the time this node heard nobody.
        same_step = (table.current, table.step) == step
        answered = late_judged - set(table.waiting_for) if same_step else late_judged
        if answered and timed_late:
            late = trio.current_time() - started - QUICK - silent - _silence(heard, started)
            for s in answered:
                if late > 0 and s not in returned and not isinstance(links.get(s), RelayedLink):
                    mesh.late[s] = mesh.late.get(s, 0.0) + late
        late_judged -= answered  # (each answer is charged once)
        if (table.current, table.step) != step:  # a new step, or the first of a table that continues
            step = (table.current, table.step)
            decision = table.spec.kind in table.DECISIONS
            wait = timeouts.turn if decision else timeouts.step
            # Steps other than turns are answered by the program at once: what a seat's answers
            # take beyond QUICK comes out of its lateness allowance (SLOW_ALLOWANCE). Not the
            # first step of a table, which waits for the links to form.
            timed_late = not decision and table.step != 0 and wait > QUICK and not nobody_back
            started = trio.current_time()
            silent = 0.0
            clock_from = started  # where the wait shown to the player counts from
            turn_ends = started + wait  # the table's clock, for the seat whose turn it is
            deadline = turn_ends + (LEAVE_WAIT if decision else 0.0)
            returned = set()
            asked_early = False
            if table.step == 0 and table.current is table.tables[0]:
                # A seat writes its join once its links with the others are formed (hole
                # punching, dials that time out): that may take the mesh's time first.
                deadline += timeouts.mesh
            notice = started + WAIT_NOTICE
        # A peer that is away has until its grace ends before its silence counts.
        # (Once per step: a seat that came back in this step and went away again gets no more
        # time, or leaving and coming back would stall the table for ever.)
        waiting_away = [mesh.away[s] + 1 for s in table.waiting_for if s in mesh.away and s not in returned]
        waiting_away += [trial[s][0] + 1 for s in table.waiting_for if s in trial and s not in returned]
        if nobody_back:  # this seat's own absence: no step's clock runs out before the others' graces
            waiting_away += [until + 1 for until in mesh.away.values()]
        # A seat reached only through a relay may have hung up: while this node's judges for
        # it (RelayedLink.judges) say they wait for it too, they may be about to judge it gone
        # (at the end of its grace and relay trial), and this node, which cannot judge it,
        # follows them then (_follow_the_others). A judge that holds its record and does not
        # pass it on gets no more time.
        waiting_away += [
            deadline + mesh.grace + RELAY_TRIAL + 1
            for s in table.waiting_for
            if isinstance(lk := links.get(s), RelayedLink)
            and s not in trial
            and s not in table.stopped
            and lk.judges()
            and all(table.waits_too(c, s) for c in lk.judges())
        ]
        # A relayed seat's records reach this node only through its own links: while every
        # one of them is down within its grace, that seat's silence tells nothing.
        carriers_back = [mesh.away[c] + 1 for c in mesh.away if c not in returned]
        if carriers_back:
            waiting_away += [
                max(carriers_back)
                for s in table.waiting_for
                if isinstance(lk := links.get(s), RelayedLink) and not lk.carrier_seats()
            ]
        wait_until = max([deadline, *waiting_away])
        # A seat judged here on its own link, not away nor back in this step, whose lateness
        # allowance runs out before the step's clock does, is named when it does.
        late_judged = set()
        late_at = math.inf
        if timed_late and table.status == "running" and not nobody_back:
            late_judged = {
                s
                for s in table.waiting_for
                if s != table.seat
                and s not in returned
                and s not in mesh.away
                and s not in trial
                and s not in table.stopped
                and not isinstance(links.get(s), RelayedLink)
            }
            if late_judged:
                left = min(mesh.lateness_left(s, timeouts.step) for s in late_judged)
                late_at = started + QUICK + silent + _silence(heard, started) + left
        if trio.current_time() - heard > WAIT_NOTICE + 1:
            # Every peer silent longer than a live one ever is: this node's own connection may
            # be down. A clock shorter than the silence that shows it (DEAF) waits for that
            # silence, so that a node cut off names nobody instead of the others.
            wait_until = max(wait_until, heard + DEAF + 0.5)
        # The records of a seat that is away may reach this node only through the others,
        # who may still be receiving them: ask again often, not only at each notice.
        ask_at = asked + AWAY_ASK if waiting_away else math.inf
        if not asked_early and table.waiting_for:
            # A record its author sent to some seats only (or that a path lost) reaches this
            # one through the others' answers: ask soon, not only at the first notice.
            ask_at = min(ask_at, started + EARLY_ASK)
        if table.waiting_for and table.others_ahead:
            # Another seat is past this step, so it holds what this node lacks (a record that
            # its author's path lost on the way here, say): ask it each EARLY_ASK, not only
            # at each notice.
            ask_at = min(ask_at, max(asked, started) + EARLY_ASK)
        # A path that died is seen within a second or two of the system's first retransmissions
        # (Link.stalled), and the link taken for broken then, not at the clock: a new link
        # carries as soon as the network is back, where the old one waits out back-offs.
        look_at = max(looked, started) + LOOK_EVERY if table.waiting_for and mesh.relinker else math.inf
        on_progress(table)
        if table.my_turn and thinking is None and not nobody_back:
            thinking = _Deciding((table.current, table.step), turn_ends)
            nursery.start_soon(thinking.run, decide, table)
        if thinking is not None and thinking.done.is_set():
            outcome, current, thinking = thinking.outcome, thinking.is_for(table), None
            if outcome is None:
                continue  # withdrawn before it asked anything: asked again if the turn comes back
            kind, action = outcome
            if kind in ("action", "timeout") and not current:
                continue  # (its turn went away as it was answered: asked again if it comes back)
            if kind == "raise":
                raise action
            if kind == "quit":
                await _leave(table, links, timeouts.step, journal, result, action)
                return
            if kind == "timeout":
                # The seat leaves, signed, as a player who quits does: the others play on
                # without it, or (too few left) the match ends there, with nobody at fault.
                why = NO_PLAY.format(seconds=f"{wait:g}")
                await _leave(table, links, timeouts.step, journal, result, why)
                result.problem = TURN_TIMED_OUT
                return
            try:
                table.act(action)
            except RemoteProtocolError:
                continue  # recorded in table.failure
            except LocalProtocolError as e:
                raise AssertionError(f"the decider chose an illegal action: {e}") from e
            await _flush(table, links, timeouts.step, journal, mesh.held)
            continue
        try:
            trial_ends = min((until for until, _ in trial.values()), default=math.inf)
            # (Not woken for lateness while every peer is silent: nobody is named then.)
            late_wake = late_at if trio.current_time() - heard <= WAIT_NOTICE + 1 else math.inf
            wake_at = min(wait_until, notice, stop_deadline, ask_at, trial_ends, look_at, late_wake)
            if thinking is not None:  # this seat's own turn: its decision's clock rules the wait
                wake_at = min(stop_deadline, trial_ends)
            with trio.move_on_at(wake_at) as scope:
                if thinking is not None:
                    thinking.wake = scope
                if released:  # what came while this seat decided, in its order
                    peer, (source, item) = released.popleft()
                else:
                    peer, (source, item) = await receive.receive()
        except trio.EndOfChannel:  # every peer's connection has ended: nothing more can come
            if table.stopped:
                stop_deadline = trio.current_time()
                continue
            table.stop(EVERY_CLOSED.format(step=table.step, kind=table.spec.kind))
            continue
        now = trio.current_time()
        if scope.cancelled_caught and (now >= stop_deadline or thinking is not None):
            continue
        if scope.cancelled_caught and now < wait_until:
            looked = now
            # (Every seat's link, not only those waited for: a seat cut off waits for one of
            # them, and the next step may wait for all.)
            if dead := _dead_paths(table, links, mesh, False, returned, table.present):
                _take_for_broken(mesh, dead, now)
                continue
            if now >= late_at and now - heard <= WAIT_NOTICE + 1:
                # (Not while every peer is silent: this node's own connection may be down.)
                over = [
                    s
                    for s in sorted(late_judged)
                    if started + QUICK + silent + mesh.lateness_left(s, timeouts.step) <= now
                ]
                if over:
                    relayed = {p for p, lk in links.items() if isinstance(lk, RelayedLink)}
                    allowance = lateness_allowance(timeouts.step)
                    _time_out(table, now - started, False, result, relayed, late=(over, allowance))
                continue
            if now < min(notice, ask_at, trial_ends):
                continue  # (woke to look at the paths only)
            if now >= notice:
                on_wait(table, now - clock_from)
                notice = now + WAIT_NOTICE
            table.nudge()  # ask for what we may lack; also tells the others we are alive
            asked = now
            asked_early = asked_early or now >= started + EARLY_ASK
            await _flush(table, links, timeouts.step, journal, mesh.held)
            continue
        # Heard from nobody for DEAF seconds: this node's own connection was cut off, unless
        # the system of a seat it waits for acknowledged all it sent meanwhile (the path
        # carries: that seat's program is silent, as a frozen one is, and is named as any).
        unheard = now - heard > DEAF
        deaf = unheard and not _systems_answer(links, table.waiting_for)
        if scope.cancelled_caught and (
            dead := _dead_paths(table, links, mesh, deaf, returned, table.waiting_for)
        ):
            # The path is dead, not the player: the link counts as broken, as the system would
            # say later (tls.DEAD_PATH), and the seat has its grace to link again and a whole
            # step once back, as for any break (protocol.md 7.2).
            _take_for_broken(mesh, dead, now)
            continue
        if scope.cancelled_caught and now - heard > WAIT_NOTICE + 1 and not unheard:
            continue  # every peer silent: the wait goes on until that shows this node cut off
        if scope.cancelled_caught:
            # Live peers are heard every WAIT_NOTICE seconds (their needs and heartbeats).
            relayed = {p for p, lk in links.items() if isinstance(lk, RelayedLink)}
            _time_out(table, now - started, deaf, result, relayed)
            continue
        if isinstance(item, _LookAgain):
            continue
        if isinstance(item, NewLink):
            # The newest link of a seat still at the table is the one it talks on, even one
            # this seat did not miss yet (the peer saw the old path break first).
            running = table.status in ("running", "disputed")
            if running and peer in table.present and peer not in away_too_long:
                was_away = peer in mesh.away or peer in trial or isinstance(links.get(peer), RelayedLink)
                lost_at = mesh.lost_at.pop(peer, now)
                away_for = now - lost_at
                # Its absence comes out of its allowance, unless this node was the one cut off.
                others = [s for s in table.present if s not in (peer, table.seat)]
                charged = peer not in mesh.not_theirs and mesh.theirs(peer, lost_at, others)
                mesh.not_theirs.discard(peer)
                if charged:
                    mesh.charge(peer, away_for)
                mesh.away.pop(peer, None)
                trial.pop(peer, None)
                mesh.adopt(peer, item.link)
                await _resend(table, peer, item.link, timeouts.step)
                nobody_back_before = nobody_back
                if nobody_back:  # the first peer back after a crash: the step's clocks start now
                    nobody_back = False
                    step = (None, -1)
                if not was_away:  # it found the old path broken before this seat did: said as a break
                    mesh.on_link(peer, "lost", mesh.grace)
                # A peer back from a break that the step waits for gets a whole step, once (so does
                # one that may carry the frames of a relayed seat the step waits for); one the step
                # does not need needs no time (its record is here), so none is given back to it,
                # nor charged: a blip while another seat thinks costs it only its time away.
                needed = peer in table.waiting_for or any(
                    isinstance(links.get(s), RelayedLink) for s in table.waiting_for
                )
                if peer not in returned and needed:
                    if now + wait > deadline:
                        clock_from = now  # its time is shown from its return, as its own clock runs
                    if charged and not nobody_back_before:  # (after a crash the clocks start then anyway)
                        mesh.charge(peer, now + wait - deadline)  # the time given back, from its allowance
                    deadline = max(deadline, now + wait)
                    returned.add(peer)
                mesh.on_link(peer, "back", away_for)
            else:  # a seat gone from the table is told so, then hung up on
                mesh.nursery.start_soon(_turn_away, item.link, table.went_on_frame(peer))
            continue
        if isinstance(item, StayedAway):
            if mesh.away.get(peer) == item.until:
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
                    trial[peer] = (now + RELAY_TRIAL, why)
                    table.nudge()  # through the others: its answer shows it is still here
                    asked = now
                    await _flush(table, links, timeouts.step, journal, mesh.held)
                else:
                    closed[peer] = why
                    away_too_long.add(peer)
                    mesh.on_link(peer, "gone", mesh.grace)
            continue
        if source is not links.get(peer):
            continue  # from a link that has been replaced since
        if isinstance(item, Need) and not mesh.floods.worth_reading(peer, now):
            heard = now
            continue  # more than an honest seat asks (RELAY_NOTICE_RATE): dropped unread, blaming nobody
        if isinstance(item, Relay) and item.target == table.seat and item.origin in trial:
            del trial[item.origin]  # it is still here: reached through the others from now on
            mesh.lost_at.pop(item.origin, None)
            mesh.on_link(item.origin, "relayed", 0.0)
        if (
            thinking is not None
            and thinking.is_for(table)  # (made or not: until acted on, its record is owed)
            and _read_after_deciding(item)
            and not _carried_cleanly(table, links, peer, item)
        ):
            # This seat owes the step's record: a fault found now would stop it before
            # writing it, and the others would blame it (protocol.md 7.3). Read once the
            # record is out (a leave, or a link that breaks, is dealt with at once, and
            # what it carries for others without a fault is passed on).
            heard = now
            held.append((peer, (source, item)))
            continue
        if isinstance(item, Relay):
            heard = now
            if await _carry(table, links, peer, item, timeouts.step, mesh.floods):  # an abort, relayed
                stop_deadline = min(stop_deadline, now + ABORT_GRACE)
            await _flush(table, links, timeouts.step, journal, mesh.held)
            continue
        if not isinstance(item, LinkClosed):
            heard = now
        # A RemoteProtocolError is kept in table.failure and ends the loop above.
        with contextlib.suppress(RemoteProtocolError):
            if isinstance(item, LinkClosed):
                if peer not in table.present:
                    links.pop(peer, None)  # it left: nobody waits for it
                elif mesh.relinker is not None and table.status in ("running", "disputed"):
                    mesh.link_lost(peer, now)
                    # Its last records may have reached only some of us: ask the others now,
                    # before its grace ends, so that every node judges from the same step.
                    table.nudge()
                    asked = now
                else:
                    closed[peer] = item.reason
            elif isinstance(item, WireError):
                table.blame(peer, f"malformed frame: {item}")
            else:
                if isinstance(item, Abort) and peer in table.present:
                    stop_deadline = min(stop_deadline, now + ABORT_GRACE)
                table.receive_frame(peer, item)
        await _flush(table, links, timeouts.step, journal, mesh.held)


NOBODY_ANSWERED = (
    "none of the others answered within {seconds} s of this seat's return: the match may have "
    "ended, or gone on without it"
)
"""Why a seat back from a crash stops when no peer links with it again within its grace."""
LOST_EVERY = (
    "lost every connection at step {step} and none came back in time: this node's own connection "
    "may be down"
)
EVERY_CLOSED = "every connection closed at step {step} ({kind}); this node cannot tell who left"
HEARD_NOBODY = (
    "heard from nobody while waiting {seconds} s for {names} at step {step}: this node's own "
    "connection may be down"
)
STOPPED_BEFORE = "{names} stopped before step {step}; this node cannot tell why"
SILENT_PLAY = "timed out: {names} did not play within {seconds} s"
SILENT_ANSWER = "timed out: {names} did not answer within {seconds} s"
SLOW_ANSWER = (
    "timed out: {names} did not answer within {seconds} s, having been late {allowance} s in all"
    " already, the most a seat may be over the match"
)
RELAYED_SILENT = (
    "timed out waiting for {names} at step {step}, reached only through a relay "
    "(the seats linked with both may drop what they carry): cannot tell who is at fault"
)
RELAYED_DISPUTE = (
    "a chain dispute about {names} saw no proof in time; it is reached only through a relay: "
    "cannot tell who is at fault"
)
STOPPED_CLAIM = "{names} stopped the match; its claim: {claim}"
STOPPED_READING = "stopped reading: a frame waited {seconds} s to be delivered"
READ_SLOWLY = (
    "read too slowly: this seat's frames waited {seconds} s in all to be taken, the most a seat"
    " may hold another up over the match"
)
RELAY_IN_NAME = "sent a relay frame in the name of seat {origin}, for seat {seat}"
GAVE_TO_CARRY = "gave this seat, to carry to seat {seat}, {problem}"
CARRIED_MALFORMED = "carried a malformed frame: {error}"
MALFORMED_TO_CARRY = "a malformed frame ({error})"
WENT_ON_WITHOUT = "{name} went on without {gone}"
WENT_ON_RELAYED = (
    "timed out waiting for {names} at step {step}: {who}, whom this node reaches only through a relay "
    "too: cannot tell who is at fault"
)
NOT_FOLLOWED = (
    "{names} did not go on without {gone} within {seconds} s (they may still hear from {gone}): "
    "cannot tell who is at fault"
)
STOPPED_CLAIM_RELAYED = (
    "{names} stopped the match (said through a relay, which may have made it up); its claim: {claim}"
)
"""The problems of a match that stops for lack of connections or answers, as the node says
them (the interface says them in the player's language: ``p2pcards.ui.problems``)."""

NO_PLAY = "did not play within {seconds} s"
"""The reason a seat signs when it leaves because its own turn's time ran out (read back in
the player's language by ``p2pcards.ui.netgame.leave_reason``)."""

LEFT_BEHIND = "the seats that passed on its messages went on without it"
"""Why a node judges gone a seat it reaches only through a relay (``_follow_the_others``)."""


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
    it from here, and ``_play`` follows them. One carrier alone is not followed: it could
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
        await _send_all(table, links, min(timeout, LEAVE_SEND))
        await _announce(links, f"{name} left the match", table.step)


LEAVE_SEND = 3.0
"""Seconds at most this seat spends sending its signed leave (``_leave``), whatever else stops."""

TURN_TIMED_OUT = "timed out"
"""The problem of a run this seat left because its own turn time ran out (status "aborted")."""
INTERRUPTED = "interrupted"
"""The problem of a run this seat left because the program was interrupted (status "aborted")."""

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
"""Seconds the others wait past a player's turn time for its signed leave (``_play``):
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
            await _to_every_peer({p: links[p] for p in order}, frame, 1)
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
                    mesh.nursery.start_soon(_relink, peer, mesh.relinker, ends, mesh.send.clone())
                continue
            if isinstance(item, Relay):
                if item.target == table.seat and item.origin in present:
                    with contextlib.suppress(WireError):
                        if item.inner() == sign:
                            done.add(item.origin)
                await _carry(table, links, peer, item, 1, mesh.floods)
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
            await _send_all(table, links, 1)


RELAY_NOTICES = 8.0
"""Unsigned frames (``need``, ``abort``) a seat carries from one origin to one target in a burst
(and ``need`` frames it reads from one seat, on its own link or carried: each is answered from
the transcript)..."""
RELAY_NOTICE_RATE = 4.0
"""...and per second after it: an honest seat sends a relayed peer a ``need`` every second or so
at most (``EARLY_ASK``, ``AWAY_ASK``, the keep-alive); the rest is dropped unread, blaming nobody."""


class _Floods:
    """Bounds on what a peer's frames make this seat do. A signed record is carried once per
    target: copies carried on would queue in front of this seat's own frames to the target
    (which reads them all before the records of the match), and cost this seat a signature
    check each; dropping one loses nothing, since a target that lacks a record asks for it
    (``need``) and every seat at the table holds it. Unsigned notices (``need``, ``abort``)
    are carried, and ``need`` frames read (each is answered from the transcript), at
    ``RELAY_NOTICE_RATE`` from one origin. The records carried from one origin to one target
    are bounded too (``CARRY_SLACK``): an origin signs as many records of its own as it
    likes, each new, and a path to the target slower than the origin's to this seat would
    hold this seat's own frames up behind them, and its reading too."""

    def __init__(self) -> None:
        self._records: dict[int, set[bytes]] = {}
        self._tokens: dict[tuple[int, int | None], tuple[float, float]] = {}
        self._room: dict[tuple[int, int], tuple[int, int]] = {}
        """For each origin and target, the bytes of records that may still be carried, and the
        bytes of the records this seat held when that was counted (``CARRY_SLACK``)."""
        self._held: dict[int, tuple[int, int]] = {}

    def worth_carrying(self, origin: int, target: int, inner: Any, now: float, table: Sitting) -> bool:
        """Whether ``inner`` is worth carrying from ``origin`` to ``target`` (a notice, as it is
        asked, takes one of the pair's tokens)."""
        if isinstance(inner, SignedRecord | Evidence):
            seen = self._records.get(target, set())
            new = [r for r in _records_of(inner) if _digest(r) not in seen]
            held = self.held_bytes(table)
            room, then = self._room.get((origin, target), (CARRY_SLACK, held))
            room = min(CARRY_SLACK, room + held - then)
            self._room[origin, target] = (room, held)
            return bool(new) and sum(len(r.raw) + len(r.sig) for r in new) <= room
        return self._take((origin, target), now)

    def held_bytes(self, table: Sitting) -> int:
        """The bytes of the records this seat holds of the match (its tables' transcripts)."""
        total = 0
        for i, t in enumerate(table.tables):
            steps = t.transcript.steps
            counted, size = self._held.get(i, (0, 0))
            if counted > len(steps):
                counted, size = 0, 0
            size += sum(len(r.raw) + len(r.sig) for step in steps[counted:] for r in step)
            self._held[i] = (len(steps), size)
            total += size
        return total

    def worth_reading(self, origin: int, now: float) -> bool:
        """Whether a ``need`` of ``origin``'s (on its own link, or carried) is read: one token."""
        return self._take((origin, None), now)

    def carried(self, origin: int, target: int, inner: Any) -> None:
        """``inner`` (checked) goes to ``target``: its records are not carried there again."""
        if isinstance(inner, SignedRecord | Evidence):
            seen = self._records.setdefault(target, set())
            new = {_digest(r): len(r.raw) + len(r.sig) for r in _records_of(inner)}
            more = sum(size for digest, size in new.items() if digest not in seen)
            room, then = self._room.get((origin, target), (CARRY_SLACK, 0))
            self._room[origin, target] = (room - more, then)
            seen.update(new)

    def forget(self, target: int) -> None:
        """A new link with ``target``: what went on the old one may have been lost with it."""
        self._records.pop(target, None)
        for pair in [pair for pair in self._room if pair[1] == target]:
            del self._room[pair]

    def _take(self, key: tuple[int, int | None], now: float) -> bool:
        tokens, then = self._tokens.get(key, (RELAY_NOTICES, now))
        tokens = min(RELAY_NOTICES, tokens + (now - then) * RELAY_NOTICE_RATE)
        self._tokens[key] = (tokens - 1, now) if tokens >= 1 else (tokens, now)
        return tokens >= 1


CARRY_SLACK = MAX_FRAME
"""Bytes of records a seat carries from one origin to one target at once: the room for them,
full when its link with the target forms, fills again by as much as the records this seat holds
of the match grow (an honest origin passes each record of the match on once, and is a few
records ahead of this seat at most); what finds no room is dropped unread, blaming nobody (the
target asks for what it lacks)."""


def _records_of(inner: SignedRecord | Evidence) -> tuple[SignedRecord, ...]:
    return (inner,) if isinstance(inner, SignedRecord) else inner.records


def _digest(rec: SignedRecord) -> bytes:
    """A record as signed (a copy with another ``raw`` under the same signature is another one,
    and is checked: its carrier blames who gave it)."""
    return hashlib.sha256(rec.raw + rec.sig).digest()


async def _carry(
    table: Sitting, links: dict[int, Any], peer: int, relay: Relay, timeout: float, floods: _Floods
) -> bool:
    """A relay frame from ``peer``: one ``peer`` asks this seat to carry (``from`` is
    ``peer``), passed on if this seat is linked with its target (and it is worth carrying:
    ``_Floods``); or one carried to this seat, read as from its origin. True if that was an
    ``abort`` (a claim of its origin's, never a fault of it)."""
    with contextlib.suppress(RemoteProtocolError):
        if relay.target != table.seat:
            if relay.origin != peer:
                table.blame(peer, RELAY_IN_NAME.format(origin=relay.origin, seat=relay.target))
            target = links.get(relay.target)
            if target is None or isinstance(target, RelayedLink):
                return False  # not linked with it (or it is away): another carrier may be
            inner: Any = None
            try:  # the receiver blames the carrier for what it carries: so the carrier reads it first
                inner = relay.inner()
                if not floods.worth_carrying(peer, relay.target, inner, trio.current_time(), table):
                    return False  # a copy of what went there already, or too much, or notices too many
                problem = table.carriable(peer, inner)
            except WireError as e:
                problem = MALFORMED_TO_CARRY.format(error=e)
            if problem is not None:
                table.blame(peer, GAVE_TO_CARRY.format(seat=relay.target, problem=problem))
            floods.carried(peer, relay.target, inner)
            # As long as this seat's own frames may wait (STUCK_SHARE): a send cut there hangs the
            # link up, and the target, which stopped reading, has its grace to link again.
            with trio.move_on_after(timeout * STUCK_SHARE), contextlib.suppress(LinkClosed):
                await target.send(relay.to_frame())
            return False
        if isinstance(links.get(relay.origin), Link):
            return False  # the two have a link: the origin may have sent it to get the carrier blamed
        try:
            inner = relay.inner()
        except WireError as e:
            table.blame(peer, CARRIED_MALFORMED.format(error=e))
            return False
        if isinstance(inner, Need) and not floods.worth_reading(relay.origin, trio.current_time()):
            return False  # asked more often than an honest seat asks, whoever carried it
        table.receive_relayed(peer, relay.origin, inner)
        return isinstance(inner, Abort)
    return False


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
    longer than a live peer's (``DEAF``), as ``_play`` counts its silences."""
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
    deaf: bool,
    result: RunResult,
    relayed: Collection[int] = (),
    late: tuple[Sequence[int], float] | None = None,
) -> None:
    """The step's time ran out: stop the table, blaming only what this node can tell.

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
        table.blame(direct[0], said.format(names=silent_names, seconds=f"{waited:.0f}", allowance=allowance))
