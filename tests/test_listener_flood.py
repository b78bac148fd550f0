"""A seat's listening port during a match takes connections from anyone: a flood of them
must not end the match for that seat (file descriptors run out: every later open fails,
the accept loop raised, and the seat's node stopped, its transcript unsaved)."""

from __future__ import annotations

import contextlib
import errno
import logging

import pytest
import trio
import trio.testing

from p2pcards.crypto.identity import Identity
from p2pcards.games.nines.rules import NinesRules
from p2pcards.net import session
from p2pcards.net.session import MAX_STRANGERS, Relinks, SessionInfo, Timeouts, _accept_loop
from p2pcards.protocol.lobby import Seat


class _Listener:
    """Accepts: first out of file descriptors, then one stream, then nothing more."""

    def __init__(self, stream: trio.abc.Stream) -> None:
        self.results: list[object] = [OSError(errno.EMFILE, "Too many open files"), stream]

    async def accept(self) -> trio.abc.Stream:
        if not self.results:
            await trio.sleep_forever()
        result = self.results.pop(0)
        if isinstance(result, BaseException):
            raise result
        assert isinstance(result, trio.abc.Stream)
        return result


# Guards session.py _accept_loop: an accept that fails for want of file descriptors is
# waited out, as trio.serve_listeners does; it ended the seat's match.
async def test_the_accept_loop_goes_on_when_file_descriptors_run_out() -> None:
    stream, _ = trio.testing.memory_stream_pair()
    handled: list[trio.abc.Stream] = []

    async def handler(s: trio.abc.Stream) -> None:
        handled.append(s)

    with trio.move_on_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(_accept_loop, _Listener(stream), handler, nursery)  # type: ignore[arg-type]
            while not handled:
                await trio.sleep(0.01)
            nursery.cancel_scope.cancel()
    assert handled == [stream]


def _relinks() -> Relinks:
    me, other = Identity.generate(), Identity.generate()
    roster = (
        Seat(name="a", key=other.public_key, host="", port=0),
        Seat(name="b", key=me.public_key, host="127.0.0.1", port=1),
    )
    info = SessionInfo(game_id=bytes(16), rules=NinesRules(), roster=roster, seat=1)
    return Relinks(info, me, Timeouts(handshake=30.0))


# Guards session.py Relinks.accept: at most MAX_STRANGERS connections are authenticated at
# once; one more is closed at once instead of holding a file descriptor for a handshake
# timeout (a seat flooded with idle connections ran out of them and its node stopped).
async def test_a_seat_holds_a_bounded_number_of_unauthenticated_connections() -> None:
    relinks = _relinks()
    clients = []
    async with trio.open_nursery() as nursery:
        for _ in range(MAX_STRANGERS):
            client, server = trio.testing.memory_stream_pair()
            clients.append(client)
            nursery.start_soon(relinks.accept, server)
        await trio.testing.wait_all_tasks_blocked()
        assert relinks.strangers == MAX_STRANGERS
        client, server = trio.testing.memory_stream_pair()
        with trio.fail_after(1):
            await relinks.accept(server)  # one more: closed at once
        with trio.fail_after(1):
            assert await client.receive_some() == b""  # the other end was closed
        for c in clients:
            await c.aclose()
    assert relinks.strangers == 0
    assert session.MAX_STRANGERS == MAX_STRANGERS


# Guards session.py form_mesh: while the mesh forms (up to Timeouts.mesh), a seat's listener
# takes anyone too: at most MAX_STRANGERS are authenticated at once, and only the first few
# links refused are said (a flood of connections that fail at once filled the screen).
async def test_while_the_mesh_forms_a_flood_holds_a_bounded_number_and_is_said_a_few_times() -> None:
    from dataclasses import replace

    from net_helpers import FAST, LOCALHOST, RecordingUI

    from p2pcards.net.link import Link
    from p2pcards.net.session import REFUSED_SAID, form_mesh

    ids = [Identity.generate() for _ in range(3)]
    listeners = await trio.open_tcp_listeners(0, host=LOCALHOST)
    port = listeners[0].socket.getsockname()[1]
    ports = {0: 1, 1: port, 2: 1}
    roster = tuple(Seat(name=f"p{s}", key=ids[s].public_key, host=LOCALHOST, port=ports[s]) for s in range(3))
    info = SessionInfo(game_id=bytes(16), rules=NinesRules(), roster=roster, seat=1)
    info.links[0] = Link(trio.testing.memory_stream_pair()[0])  # the host's, from the lobby
    ui = RecordingUI()
    timeouts = replace(FAST, handshake=2.0, mesh=4.0)  # seat 2 never dials: the mesh's time runs out
    closed_at_once = 0

    async def stranger() -> None:  # connects, and says nothing
        nonlocal closed_at_once
        stream = await trio.open_tcp_stream(LOCALHOST, port)
        with trio.move_on_after(1), contextlib.suppress(trio.BrokenResourceError):
            if await stream.receive_some() == b"":
                closed_at_once += 1
        await trio.sleep(3)
        await stream.aclose()

    async with trio.open_nursery() as nursery:
        nursery.start_soon(form_mesh, info, ids[1], listeners, ui, timeouts)
        await trio.sleep(0.2)
        for _ in range(MAX_STRANGERS):  # silent ones fill every place
            nursery.start_soon(stranger)
        await trio.sleep(0.5)
        for _ in range(12):  # more: closed before any handshake
            nursery.start_soon(stranger)
    assert closed_at_once >= 12 - 2, closed_at_once  # (a place or two may have freed meanwhile)
    refused = [i for i in ui.infos if "refused" in i.lower()]
    assert 0 < len(refused) <= REFUSED_SAID, ui.infos
    for listener in listeners:
        await listener.aclose()


# Guards session.py serve (the host's lobby listener): out of file descriptors it waits and
# goes on without a word; trio.serve_listeners logged an error with a traceback each time,
# which a flood of connections printed on the host's screen.
async def test_the_lobby_listener_waits_out_a_lack_of_file_descriptors_in_silence(
    caplog: pytest.LogCaptureFixture,
) -> None:
    from p2pcards.net.session import serve

    stream, other = trio.testing.memory_stream_pair()
    handled: list[trio.abc.Stream] = []

    async def handler(s: trio.abc.Stream) -> None:
        handled.append(s)

    with caplog.at_level(logging.DEBUG), trio.move_on_after(5):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(serve, handler, [_Listener(stream)])
            while not handled:
                await trio.sleep(0.01)
            await trio.sleep(0.1)
            nursery.cancel_scope.cancel()
    assert handled == [stream]
    assert await other.receive_some() == b""  # closed once its handler returned
    assert not caplog.records, caplog.records
