"""Seats that reach each other only through the others: relayed links, and carrying for them.

A seat with no link of its own to a peer wraps its frames in ``relay`` frames and sends them
through every seat it is linked with (:class:`RelayedLink`); each carrier passes them on
(:func:`carry`). Records are signed end to end, so a carrier can delay or drop them, never
forge them, and it blames whoever gave it a fault to carry. What a peer may make a carrier do
is bounded (:class:`Floods`).
"""

from __future__ import annotations

import contextlib
import hashlib
from collections.abc import Callable, Collection
from typing import Any

import trio

from p2pcards.errors import RemoteProtocolError
from p2pcards.net.link import Link, LinkClosed
from p2pcards.net.pacing import STUCK_SHARE
from p2pcards.net.verdicts import CARRIED_MALFORMED, GAVE_TO_CARRY, MALFORMED_TO_CARRY, RELAY_IN_NAME
from p2pcards.protocol.notice import Notice
from p2pcards.protocol.sitting import Sitting
from p2pcards.protocol.wire import MAX_FRAME, Abort, Evidence, Need, Relay, SignedRecord, WireError


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
        (the runner's ``_follow_the_others``) only when there are ``MIN_JUDGES`` or more: a single carrier
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
            raise LinkClosed(Notice("relink_no_carrier", seat=self.peer))
        self.bytes_sent += len(frame)
        self.frames_sent += 1


PeerLink = Link | RelayedLink
"""How this seat reaches one peer: its own link, or through the seats that carry relays."""


RELAY_NOTICES = 8.0
"""Unsigned frames (``need``, ``abort``) a seat carries from one origin to one target in a burst
(and ``need`` frames it reads from one seat, on its own link or carried: each is answered from
the transcript)..."""


RELAY_NOTICE_RATE = 4.0
"""...and per second after it: an honest seat sends a relayed peer a ``need`` every second or so
at most (``EARLY_ASK``, ``AWAY_ASK``, the keep-alive); the rest is dropped unread, blaming nobody."""


class Floods:
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


async def carry(
    table: Sitting, links: dict[int, Any], peer: int, relay: Relay, timeout: float, floods: Floods
) -> bool:
    """A relay frame from ``peer``: one ``peer`` asks this seat to carry (``from`` is
    ``peer``), passed on if this seat is linked with its target (and it is worth carrying:
    ``Floods``); or one carried to this seat, read as from its origin. True if that was an
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
            except WireError as e:  # (a record in it that its signer signed blames its signer)
                problem = MALFORMED_TO_CARRY.format(error=e)
                table.blame_unreadable(peer, GAVE_TO_CARRY.format(seat=relay.target, problem=problem), e)
                return False  # (signed by a seat gone from the table: dropped)
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
            table.blame_unreadable(peer, CARRIED_MALFORMED.format(error=e), e)
            return False
        if isinstance(inner, Need) and not floods.worth_reading(relay.origin, trio.current_time()):
            return False  # asked more often than an honest seat asks, whoever carried it
        table.receive_relayed(peer, relay.origin, inner)
        return isinstance(inner, Abort)
    return False


def carried_cleanly(table: Sitting, links: dict[int, Any], peer: int, item: Any) -> bool:
    """A relay frame from ``peer`` for another seat that this seat passes on (or drops, not
    linked with its target) finding no fault in it: carried at once even while this seat's
    own decision is due, since the seats relayed through this one must not wait on its
    player (their clocks for the step before run out meanwhile). One that shows a fault
    waits, as any frame (the runner's ``_read_after_deciding``)."""
    if not isinstance(item, Relay) or item.target == table.seat or item.origin != peer:
        return False
    target = links.get(item.target)
    if target is None or isinstance(target, RelayedLink):
        return True
    try:
        return table.carriable(peer, item.inner()) is None
    except WireError:
        return False
