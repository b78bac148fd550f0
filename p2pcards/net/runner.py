"""Drive one seat's table over its links until the match ends, fails or times out.

One reader task per peer feeds a bounded channel; the main task owns the table
(no locking needed around it), sends what it drains to every link, asks the
local decider when it is this seat's turn, and enforces the step timeouts: a
turn may take ``Timeouts.turn`` seconds, any other step ``Timeouts.step``. A
silent peer is named, and the match ends with the transcript kept. A peer that
hangs up is named once the table needs a record from it (see ``_play``), and
one that stops reading once a frame to it waits ``Timeouts.step`` seconds.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import trio

from p2pcards.errors import LocalProtocolError, RemoteProtocolError
from p2pcards.net.link import Link, LinkClosed
from p2pcards.net.session import Timeouts
from p2pcards.protocol.table import Table
from p2pcards.protocol.wire import Abort, WireError, decode_frame_object, quote_claim

Decider = Callable[[Table], Awaitable[Any]]
"""Returns this seat's next action, one of ``table.legal_actions()`` (called only
when ``table.my_turn``); the game decides what an action is."""


WAIT_NOTICE = 5.0
"""Seconds of silence after which ``on_wait`` tells the user whom the table waits for."""


class QuitMatch(Exception):
    """The local player chose to leave the match."""


ABORT_GRACE = 2.0
"""Seconds a seat keeps going after a peer announced it stops, to reach its own verdict."""


@dataclass(slots=True)
class RunResult:
    """How the match ended for this seat.

    ``status``: "over", "failed" (a fault, a timeout, or a peer stopped it) or
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
                await out.send((peer, e))
                return
            await out.send((peer, frame))


async def _send_all(table: Table, links: dict[int, Link], timeout: float) -> None:
    """Send the table's new frames to every peer, and its answers to the peers that asked.

    A peer that takes no frame for ``timeout`` seconds (it stopped reading and its
    buffers are full) is blamed: otherwise the send would block this seat, and with
    it every timeout, forever.
    """
    out = [(frame, links.items()) for frame in table.drain()]
    for peer, frames in table.drain_replies().items():
        if peer in links:
            out.extend((frame, [(peer, links[peer])]) for frame in frames)
    stuck: list[int] = []
    for frame, targets in out:
        for peer, link in targets:
            if peer in stuck:
                continue  # the others still get every frame, this seat's record first of all
            with trio.move_on_after(timeout) as scope, contextlib.suppress(LinkClosed):
                await link.send(frame)  # a closed link: its reader reports it
            if scope.cancelled_caught:
                stuck.append(peer)
    if stuck:
        with contextlib.suppress(RemoteProtocolError):
            table.blame(stuck[0], f"stopped reading: a frame waited {timeout:g} s to be delivered")


async def _to_every_peer(links: dict[int, Link], frame: bytes, timeout: float) -> None:
    """Send a notice to every peer, giving up on one that takes no frame in ``timeout``."""
    for link in links.values():
        with trio.move_on_after(timeout), contextlib.suppress(LinkClosed):
            await link.send(frame)


async def _announce(links: dict[int, Link], reason: str, step: int) -> None:
    """Tell every peer that this seat stops at ``step``, and why, before it hangs up."""
    await _to_every_peer(links, Abort(reason, step).to_frame(), 1)


async def _heartbeat(table: Table, links: dict[int, Link]) -> None:
    """While this seat's player decides, tell the others it is alive (a ``need``
    frame, which also fetches any record it lacks). Peers waiting for this seat
    then know their own connection works."""
    while True:
        await trio.sleep(WAIT_NOTICE)
        if not table.my_turn:
            continue  # the main task nudges the others while it waits for them
        await _to_every_peer(links, table.need_frame(), WAIT_NOTICE)


async def run_table(
    table: Table,
    links: dict[int, Link],
    decide: Decider,
    *,
    timeouts: Timeouts,
    on_progress: Callable[[Table], None] = lambda t: None,
    on_wait: Callable[[Table, float], None] = lambda t, waited: None,
) -> RunResult:
    """Play the match on ``table``; returns how it ended (never raises for peers' faults)."""
    send, receive = trio.open_memory_channel[tuple[int, Any]](64)
    result = RunResult(status="running")
    async with trio.open_nursery() as nursery:
        for peer, link in links.items():
            nursery.start_soon(_reader, peer, link, send.clone())
        send.close()
        nursery.start_soon(_heartbeat, table, links)
        try:
            await _play(table, links, decide, receive, timeouts, on_progress, on_wait, result)
        except KeyboardInterrupt:
            if table.seat is not None:  # Ctrl-C: this player leaves; say so before hanging up
                with trio.CancelScope(shield=True):
                    await _announce(links, f"{table.roster[table.seat].name} left the match", table.step)
            raise
        finally:
            nursery.cancel_scope.cancel()
    return result


async def _play(
    table: Table,
    links: dict[int, Link],
    decide: Decider,
    receive: trio.MemoryReceiveChannel[tuple[int, Any]],
    timeouts: Timeouts,
    on_progress: Callable[[Table], None],
    on_wait: Callable[[Table, float], None],
    result: RunResult,
) -> None:
    table.start()
    await _send_all(table, links, timeouts.step)
    step, deadline, notice, started = -1, 0.0, 0.0, 0.0
    heard = trio.current_time()  # when a frame last came from any peer
    closed: dict[int, str] = {}
    stop_deadline = math.inf
    while True:
        # A peer that hung up is blamed when the table needs its record, not before:
        # an honest seat that stopped because of someone else's fault closes its links
        # too, and whichever hang-up arrives first must not decide who is blamed.
        gone = [s for s in table.waiting_for if s in closed and s not in table.stopped]
        if gone and table.failure is None:
            with contextlib.suppress(RemoteProtocolError):
                table.blame(gone[0], closed[gone[0]])
        if table.status == "over":
            result.status = "over"
            on_progress(table)
            return
        if table.failure is not None:
            result.status = "failed"
            result.problem = table.failure.problem
            if table.failure.peer is None:
                result.blamed = ()
            elif table.failure.peer not in result.blamed:
                result.blamed = (table.failure.peer,)
            on_progress(table)
            await _send_all(table, links, timeouts.step)  # the proof, so that others can check it
            peer = table.failure.peer
            who = "nobody" if peer is None else f"{table.roster[peer].name} (seat {peer})"
            await _announce(links, f"{who} at fault: {table.failure.problem}", table.step)
            return
        if trio.current_time() >= stop_deadline:
            # A peer stopped and this node reached no verdict of its own in the grace
            # period: its reason is only its claim.
            peer, (_, why) = next(iter(table.stopped.items()))
            table.stop(
                f"{table.roster[peer].name} (seat {peer}) stopped the match; its claim: {quote_claim(why)}"
            )
            continue
        if table.step != step:
            step = table.step
            wait = timeouts.turn if table.spec.kind == "turn" else timeouts.step
            started = trio.current_time()
            deadline = started + wait
            notice = started + WAIT_NOTICE
        on_progress(table)
        if table.my_turn:
            try:
                action = await decide(table)
            except QuitMatch:
                result.status = "aborted"
                await _announce(links, f"{table.roster[table.seat].name} left the match", table.step)  # type: ignore[index]
                return
            try:
                table.act(action)
            except RemoteProtocolError:
                continue  # recorded in table.failure
            except LocalProtocolError as e:
                raise AssertionError(f"the decider chose an illegal action: {e}") from e
            await _send_all(table, links, timeouts.step)
            continue
        try:
            with trio.move_on_at(min(deadline, notice, stop_deadline)) as scope:
                peer, item = await receive.receive()
        except trio.EndOfChannel:  # every peer's connection has ended: nothing more can come
            if table.stopped:
                stop_deadline = trio.current_time()
                continue
            table.stop(
                f"every connection closed at step {table.step} ({table.spec.kind}); "
                "this node cannot tell who left"
            )
            continue
        now = trio.current_time()
        if scope.cancelled_caught and now >= stop_deadline:
            continue
        if scope.cancelled_caught and now < deadline:
            on_wait(table, now - started)
            table.nudge()  # ask for what we may lack; also tells the others we are alive
            await _send_all(table, links, timeouts.step)
            notice = now + WAIT_NOTICE
            continue
        if scope.cancelled_caught:
            # Live peers are heard every WAIT_NOTICE seconds (their needs and heartbeats).
            _time_out(table, now - started, now - heard > 2 * WAIT_NOTICE + 1, result)
            continue
        if not isinstance(item, LinkClosed):
            heard = now
        # A RemoteProtocolError is kept in table.failure and ends the loop above.
        with contextlib.suppress(RemoteProtocolError):
            if isinstance(item, LinkClosed):
                closed[peer] = item.reason
            elif isinstance(item, WireError):
                table.blame(peer, f"malformed frame: {item}")
            else:
                if isinstance(item, Abort):
                    stop_deadline = min(stop_deadline, now + ABORT_GRACE)
                table.receive_frame(peer, item)
        await _send_all(table, links, timeouts.step)


def _time_out(table: Table, waited: float, deaf: bool, result: RunResult) -> None:
    """The step's time ran out: stop the table, blaming only what this node can tell."""
    with contextlib.suppress(RemoteProtocolError):
        if table.status == "disputed":
            table.conclude_stalled()
            return
        waiting = table.waiting_for
        names = ", ".join(f"{table.roster[s].name} (seat {s})" for s in waiting)
        if deaf:
            # Heard from nobody the whole wait: this node's own connection is the
            # likeliest cause, and it can prove nobody else at fault.
            table.stop(
                f"heard from nobody while waiting {waited:.0f} s for {names} at step {table.step}: "
                "this node's own connection may be down"
            )
            return
        silent = [s for s in waiting if s not in table.stopped]
        if not silent:
            table.stop(f"{names} stopped before step {table.step}; this node cannot tell why")
            return
        result.blamed = tuple(silent)
        table.blame(silent[0], f"timed out waiting for {names} at step {table.step} ({table.spec.kind})")
