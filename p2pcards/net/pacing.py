"""Sending the table's frames, and how long a peer may hold this seat up.

Two clocks bound a peer that is slow without being silent: its answers to the steps a
program answers at once (a shuffle, a lock, a key) may be late beyond ``QUICK`` only by a
lateness allowance over the match (``SLOW_ALLOWANCE``, counted by the runner), and this
seat's frames may wait for it to take them only so long (``STUCK_SHARE`` of a step at once,
``HOLD_ALLOWANCE`` of the allowance in all), since a seat whose send blocks answers nobody.
Time this node itself did not run (``Stalls``: a stopped process, a starved machine) is no
peer's lateness: what came meanwhile waited for this node, not the other way round.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

import trio

from p2pcards.errors import RemoteProtocolError
from p2pcards.net.link import LinkClosed
from p2pcards.net.verdicts import READ_SLOWLY, STOPPED_READING
from p2pcards.protocol.sitting import Sitting


class Sender(Protocol):
    """A way to one peer: its own link, or a relayed one."""

    async def send(self, frame: bytes) -> None: ...

QUICK = 10.0
"""Seconds a step other than a turn (a shuffle, a lock, a key: what a program answers at
once) may take a seat without counting against it: room for a slow path's round trips and a
slow machine's arithmetic. At a step clock shorter than twice this, half the clock
(``quick_time``)."""


QUICK_SHARE = 0.5


def quick_time(step_clock: float) -> float:
    """What a step other than a turn may take a seat without counting (``QUICK``): at a short
    step clock, ``QUICK_SHARE`` of it, so that a seat that holds each answer to just before
    a clock of 10 s or less is counted late too, not only one that does so at a longer clock."""
    return min(QUICK, QUICK_SHARE * step_clock)


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


STUCK_SHARE = 0.5
"""Of the ``timeout`` a frame is sent with, the share it may wait to be delivered before its peer
counts as one that stopped reading. While the frame waits, this seat sends and signs nothing:
at the whole step's timeout the others' clocks for this seat's next record would run out at the
same moment, and they would name this seat as it names the peer that stopped reading."""


STALL_PULSE = 0.25
"""Seconds between two wake-ups of this node's own pulse (``Stalls``)."""


STALL_MIN = 1.0
"""A pulse this much later than due means this node did not run meanwhile (``Stalls``): a
stopped process (SIGSTOP, Ctrl-Z), a machine too busy to schedule it. A shorter lag is a busy
moment, not counted."""


class Stalls:
    """The time this node itself did not run, as its own pulse (``watch``) finds it.

    A node that did not run reads, once it runs again, every record that came meanwhile at
    once: counted from its own clock, each would look late by the whole stall, and a clock
    that ran out during it would name a peer whose record was already waiting to be read.
    The runner stops its clocks for what ``frozen`` says. A stall that is still being found
    (this node runs again, its pulse not yet) counts already, so that whatever looks first
    after it sees it."""

    def __init__(self, now: float) -> None:
        self._total = 0.0
        self._last = now

    def frozen(self, now: float) -> float:
        """Seconds this node did not run, in all, up to ``now``."""
        late = now - self._last - STALL_PULSE
        return self._total + (late if late > STALL_MIN else 0.0)

    async def watch(self) -> None:
        """The pulse: wake every ``STALL_PULSE`` seconds, and count what a wake-up is late."""
        while True:
            await trio.sleep(STALL_PULSE)
            now = trio.current_time()
            self._total, self._last = self.frozen(now), now


@dataclass(slots=True)
class Holds:
    """How long this seat's frames waited for each peer to take them (``HOLD_ALLOWANCE``):
    in each step, ``READ_FREE`` in all is free, and the rest counts over the match. Per step,
    not per frame: a peer that takes each frame just under ``READ_FREE`` late, and makes this
    seat send it many (answers to its ``need`` frames), would hold it up for as long."""

    counted: dict[int, float] = field(default_factory=dict)
    """Each peer's time counted so far, over the match."""
    stalls: Stalls | None = None
    """This node's own stalls, which no frame's wait counts (none: every wait counts)."""
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


async def send_all(
    table: Sitting, links: Mapping[int, Sender], timeout: float, held: Holds | None = None
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
            began, stalled = trio.current_time(), _stalled(held)
            with trio.move_on_after(timeout) as scope, contextlib.suppress(LinkClosed):
                await link.send(frame)  # a closed link: its reader reports it
            if scope.cancelled_caught:
                stuck.append(peer)
            elif held is not None and (took := trio.current_time() - began - _stalled(held) + stalled) > 0:
                step = (getattr(table, "current", None), table.step)
                if held.waited(peer, took, step) > most and peer not in slow:
                    slow.append(peer)
    if stuck:
        with contextlib.suppress(RemoteProtocolError):
            table.blame(stuck[0], STOPPED_READING.format(seconds=f"{timeout:g}"))
    elif slow:
        with contextlib.suppress(RemoteProtocolError):
            table.blame(slow[0], READ_SLOWLY.format(seconds=f"{most:g}"))


def _stalled(held: Holds | None) -> float:
    """This node's stalls so far, which no frame's wait for its peer counts."""
    if held is None or held.stalls is None:
        return 0.0
    return held.stalls.frozen(trio.current_time())


async def to_every_peer(links: Mapping[int, Sender], frame: bytes, timeout: float) -> None:
    """Send a notice to every peer, giving up on one that takes no frame in ``timeout``."""
    for link in list(links.values()):
        with trio.move_on_after(timeout), contextlib.suppress(LinkClosed):
            await link.send(frame)
