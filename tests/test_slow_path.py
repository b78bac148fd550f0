"""Joining over a slow path: long latency, or packets lost and sent again.

A handshake takes several round trips (TLS, hello and challenge, auth and welcome, or a
mesh link's hellos and signatures). Each step has the handshake timeout from the step
before (``session.Progress``), and the whole a few of them: a path whose round trip takes
most of a step still joins, where one timeout for the sum cut it; a joiner whose path is
too slow even so tries again a few times, then is told plainly why, in its language.

The clock tests carry every byte through an in-memory path that delivers it ``delay``
seconds later, in order (latency without loss); the last test goes through a delaying TCP
relay on loopback, in real time.
"""

from __future__ import annotations

import contextlib
import math
import os
import socket
from collections.abc import Callable
from typing import Any

import pytest
import trio
import trio.testing
from net_helpers import CODE, LOCALHOST, RecordingUI, WrappedStream

from p2pcards.cli.network import _said
from p2pcards.crypto.identity import Identity
from p2pcards.errors import PeerUnreachable
from p2pcards.games.nines.rules import NinesRules
from p2pcards.net import session, tls
from p2pcards.net.session import (
    EARLY_BREAKS,
    HostLobby,
    Progress,
    SessionInfo,
    Timeouts,
    _link_handshake,
    form_mesh,
    join_table,
)
from p2pcards.protocol.lobby import Seat
from p2pcards.ui.i18n import Translator

SLOW = Timeouts(handshake=10.0, lobby=3600.0)


class _Late(trio.abc.SendStream):
    """One direction of a slow path: what is sent arrives ``delay`` seconds later, in order."""

    def __init__(
        self,
        out: trio.abc.SendStream,
        delay: float,
        nursery: trio.Nursery,
        lost: Callable[[], bool] | None = None,
        end_late: float = 0.0,
    ) -> None:
        self.out = out
        self.delay = delay
        self.end_late = end_late
        """Seconds more the end of the stream takes (its FIN sent again and again)."""
        self.lost = lost or (lambda: False)
        """Whether what is due now is lost on the way (a path that stops carrying one way)."""
        self._send, receive = trio.open_memory_channel[tuple[float, bytes]](math.inf)
        nursery.start_soon(self._carry, receive)

    async def _carry(self, receive: trio.MemoryReceiveChannel[tuple[float, bytes]]) -> None:
        async with receive:
            async for due, data in receive:
                await trio.sleep_until(due)
                if self.lost():  # (its end too)
                    continue
                if not data:
                    await self.out.aclose()
                    return
                try:
                    await self.out.send_all(data)
                except (trio.BrokenResourceError, trio.ClosedResourceError):
                    return

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        if data:
            self._send.send_nowait((trio.current_time() + self.delay, bytes(data)))

    async def wait_send_all_might_not_block(self) -> None:
        pass

    async def aclose(self) -> None:
        with_end = trio.current_time() + self.delay + self.end_late
        with contextlib.suppress(trio.ClosedResourceError, trio.BrokenResourceError):
            self._send.send_nowait((with_end, b""))
        await self._send.aclose()


def slow_pair(
    nursery: trio.Nursery, delay: float, lost_to_a: Callable[[], bool] | None = None, a_end_late: float = 0.0
) -> tuple[trio.StapledStream, trio.StapledStream]:  # type: ignore[type-arg]
    """Two ends of a connection whose every byte takes ``delay`` seconds each way (what goes
    to ``a`` while ``lost_to_a()`` is lost; the end of ``a``'s stream ``a_end_late`` more)."""
    a_out, b_in = trio.testing.memory_stream_one_way_pair()
    b_out, a_in = trio.testing.memory_stream_one_way_pair()
    a = trio.StapledStream(_Late(a_out, delay, nursery, end_late=a_end_late), a_in)
    b = trio.StapledStream(_Late(b_out, delay, nursery, lost_to_a), b_in)
    return a, b


class _From(WrappedStream):
    """A memory stream end that says where its peer is, as a TCP socket stream does."""

    class _Socket:
        def getpeername(self) -> tuple[str, int]:
            return ("198.51.100.7", 50000)

    def __init__(self, inner: trio.abc.Stream) -> None:
        super().__init__(inner)
        self.socket = self._Socket()


def make_lobby(timeouts: Timeouts) -> tuple[HostLobby, RecordingUI]:
    ui = RecordingUI()
    lobby = HostLobby(
        identity=Identity.generate(),
        name="host",
        rules=NinesRules(target=30),
        players=3,
        code=CODE,
        game_id=os.urandom(16),
        ui=ui,
        timeouts=timeouts,
    )
    return lobby, ui


def dial_through(
    nursery: trio.Nursery,
    lobby: HostLobby,
    delay: float,
    dials: list[float],
    lost: Callable[[], bool] | None = None,
    first_end_late: float = 0.0,
) -> Callable[[str, int], object]:
    """The joiner's dial of the host (``session.open_reusable``): a new slow path each time,
    its time noted in ``dials`` (what the host sends while ``lost()`` is lost; the joiner's
    end of its first connection reaches the host ``first_end_late`` s late)."""

    async def connect(host: str, port: int) -> trio.abc.Stream:
        dials.append(trio.current_time())
        getattr(lost, "dialled", lambda: None)()  # a new path carries again
        end_late = first_end_late if len(dials) == 1 else 0.0
        joiner_end, host_end = slow_pair(nursery, delay, lost, end_late)
        nursery.start_soon(lobby.handle, _From(host_end))
        return joiner_end

    return connect


async def join(lobby_ui: RecordingUI, timeouts: Timeouts) -> SessionInfo:
    return await join_table(
        host=LOCALHOST,
        port=7777,
        code=CODE,
        identity=Identity.generate(),
        name="ann",
        listen_port=1,
        ui=lobby_ui,
        timeouts=timeouts,
    )


async def test_progress_gives_each_step_its_time_and_the_whole_a_bound(
    autojump_clock: trio.testing.MockClock,
) -> None:
    start = trio.current_time()
    with pytest.raises(trio.TooSlowError), Progress(10.0, 30.0) as steps:
        await trio.sleep(9)
        steps.step_done()
        await trio.sleep(9)  # 18 s in all, each step within its 10
        steps.step_done()
        await trio.sleep(9)
        steps.step_done()
        await trio.sleep(9)  # a stranger that trickles its steps: cut at the whole's bound
    assert trio.current_time() - start == pytest.approx(30.0)
    start = trio.current_time()
    with pytest.raises(trio.TooSlowError), Progress(10.0, 30.0) as steps:
        await trio.sleep(4)
        steps.step_done()
        await trio.sleep(60)  # a step that stalls: cut at its own time
    assert trio.current_time() - start == pytest.approx(14.0)


@pytest.mark.parametrize("delay", [2.5, 3.0])
async def test_a_joiner_whose_every_trip_takes_seconds_is_seated(
    autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch, delay: float
) -> None:
    """2.5 s each way: the host's one deadline of 10 s for TLS, hello and auth cut every try
    (they take five one-way trips from the connection); now each step takes two, and fits
    (three for the TLS handshake here: a memory stream has no socket to wait on for the
    joiner's first bytes, a step of their own over TCP)."""
    lobby, host_ui = make_lobby(SLOW)
    ui = RecordingUI()
    dials: list[float] = []
    seated: list[float] = []
    async with trio.open_nursery() as nursery:
        monkeypatch.setattr(session, "open_reusable", dial_through(nursery, lobby, delay, dials))

        async def joiner() -> None:
            with pytest.raises(trio.Cancelled):  # waits in the lobby for the others
                await join(ui, SLOW)

        nursery.start_soon(joiner)
        while not lobby.names()[1:]:
            await trio.sleep(0.5)
        seated.append(trio.current_time())
        await trio.sleep(3 * delay)
        nursery.cancel_scope.cancel()
    assert lobby.names() == ["host", "ann"] and len(dials) == 1, ui.infos  # at the first try
    assert seated[0] - dials[0] <= 6 * delay + 1
    assert any(line.startswith("seated at a table of Nines") for line in ui.infos), ui.infos
    assert lobby.refused == {} and host_ui.infos == ["ann joined from 198.51.100.7"]


async def test_a_joiner_whose_path_is_too_slow_tries_again_then_is_told_why(
    autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """6 s each way: a TLS handshake (a round trip) cannot fit in a step of 10 s. The joiner
    tries again a few times (no guess of the code is spent: it never got to prove it), then
    says that the path is too slow, not that the host closed the connection."""
    lobby, _ = make_lobby(SLOW)
    ui = RecordingUI()
    dials: list[float] = []
    async with trio.open_nursery() as nursery:
        monkeypatch.setattr(session, "open_reusable", dial_through(nursery, lobby, 6.0, dials))
        with pytest.raises(PeerUnreachable) as caught:
            await join(ui, SLOW)
        nursery.cancel_scope.cancel()
    assert len(dials) == EARLY_BREAKS + 1
    retries = [line for line in ui.infos if "too slow" in line and "trying again" in line]
    assert len(retries) == EARLY_BREAKS, ui.infos
    said = str(caught.value)
    assert said.startswith("could not join the host at 127.0.0.1:7777: the network path to it is too slow"), (
        said
    )
    assert "closed the connection" not in said
    assert lobby.admission.door.wrong_total == 0 and lobby.pending == 0
    assert _said(caught.value, Translator("fr")).startswith(
        "impossible de rejoindre l'hôte à 127.0.0.1:7777 : le chemin réseau"
    )
    assert _said(caught.value, Translator("it")).startswith(
        "impossibile unirsi all'host a 127.0.0.1:7777: il percorso di rete"
    )


async def test_a_host_whose_deadline_cut_the_handshake_says_so_and_the_joiner_tries_again(
    autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The host's deadline cuts the handshake after TLS (here the joiner's hello comes late,
    after its router's answer): the host says ``slow`` rather than hang up, the joiner tries
    again, and at the end says the host's reason."""
    host_times = Timeouts(handshake=3.0, lobby=3600.0)
    lobby, host_ui = make_lobby(host_times)
    ui = RecordingUI()
    dials: list[float] = []

    async def router() -> tuple[str, int] | None:
        await trio.sleep(4)
        return None

    async with trio.open_nursery() as nursery:
        monkeypatch.setattr(session, "open_reusable", dial_through(nursery, lobby, 0.5, dials))
        with pytest.raises(PeerUnreachable) as caught:
            await join_table(
                host=LOCALHOST,
                port=7777,
                code=CODE,
                identity=Identity.generate(),
                name="ann",
                listen_port=1,
                ui=ui,
                timeouts=SLOW,
                outside=router,
            )
        nursery.cancel_scope.cancel()
    assert len(dials) == EARLY_BREAKS + 1 and lobby.refused["slow"] == EARLY_BREAKS + 1
    assert lobby.admission.door.wrong_total == 0  # no proof was checked: none came in time
    assert str(caught.value) == (
        "could not join the host at 127.0.0.1:7777: the network path to it is too slow or loses too many"
        " packets (the host gave up waiting for a step of the handshake)"
    )
    assert _said(caught.value, Translator("it")) == (
        "impossibile unirsi all'host a 127.0.0.1:7777: il percorso di rete fino a esso è troppo lento o perde"
        " troppi pacchetti (l'host ha smesso di aspettare un passo dello scambio)"
    )
    assert host_ui.infos == []  # (it never said hello: a stall, not a joiner)


async def test_a_mesh_link_handshake_over_a_slow_path_completes(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The dialler waits for the other end's link hello two trips after the TLS handshake,
    four after it connected; the accepting end for the link-auth five: each step is two."""
    ids = [Identity.generate() for _ in range(3)]
    roster = tuple(
        Seat(name=f"s{i}", key=me.public_key, host=LOCALHOST, port=1 + i) for i, me in enumerate(ids)
    )
    game = os.urandom(16)
    low = SessionInfo(game_id=game, rules=NinesRules(), roster=roster, seat=1)
    high = SessionInfo(game_id=game, rules=NinesRules(), roster=roster, seat=2)
    got: dict[str, int] = {}
    async with trio.open_nursery() as nursery:
        dialler_end, acceptor_end = slow_pair(nursery, 3.0)
        dialler = session._lobby_link(tls.client(dialler_end), "s1")
        acceptor = session._lobby_link(tls.server(acceptor_end, tls.server_context(ids[1])), "s2")

        async def accept() -> None:
            got["accepted"] = await _link_handshake(acceptor, low, ids[1], lambda s: s == 2, SLOW.handshake)

        nursery.start_soon(accept)
        got["dialled"] = await _link_handshake(dialler, high, ids[2], lambda s: s == 1, SLOW.handshake, pin=1)
        with trio.fail_after(10):
            while "accepted" not in got:
                await trio.sleep(0.5)
        nursery.cancel_scope.cancel()
    assert got == {"dialled": 1, "accepted": 2}


@pytest.mark.slow
async def test_a_joiner_through_a_delaying_relay_is_seated(tmp_path: object) -> None:
    """Real sockets, real time: a relay that holds every chunk 0.8 s each way, and a handshake
    timeout of 2 s (as 2 s each way is to the 10 s of the reference). The host's one deadline
    for TLS, hello and auth (five trips from the relay's connection, 4 s) cut every try; each
    step now takes two trips at most (the joiner's first bytes, which the relay holds 0.8 s,
    are a step of their own)."""
    from test_flaky_network import FlakyRelay

    timeouts = Timeouts(handshake=2.0, lobby=60.0)
    lobby, host_ui = make_lobby(timeouts)
    listeners = await trio.open_tcp_listeners(0, host=LOCALHOST)
    port = listeners[0].socket.getsockname()[1]
    ui = RecordingUI()
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.serve_listeners, lobby.handle, listeners)
            relay = FlakyRelay(port, 1, delay=(0.8, 0.8), stall_every=10**9, breaks_at=())
            await relay.serve(nursery)
            start = trio.current_time()

            async def joiner() -> None:
                with pytest.raises(trio.Cancelled):
                    await join_table(
                        host=LOCALHOST,
                        port=relay.port,
                        code=CODE,
                        identity=Identity.generate(),
                        name="ann",
                        listen_port=1,
                        ui=ui,
                        timeouts=timeouts,
                    )

            nursery.start_soon(joiner)
            while not lobby.names()[1:]:
                await trio.sleep(0.1)
            took = trio.current_time() - start
            nursery.cancel_scope.cancel()
    assert relay.connections == 1, ui.infos  # at the first try
    assert 5 * 0.8 <= took < 5 * 0.8 + 2, took
    assert lobby.refused == {} and host_ui.infos == ["ann joined from 127.0.0.1"]


@pytest.mark.slow
async def test_a_seat_waits_for_a_slow_link_under_way_before_it_relays_the_pair(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Seat 2 dials seat 1 through a relay that holds each chunk 0.5 s: the link's handshake
    takes 2.5 s at seat 1, longer than seat 1 waits before it punches, and than its punch (to
    a closed port) lasts. Seat 1 used to take the pair for relayed then, and cut the handshake
    under way while seat 2 took the link for made: each seat saw the pair differently, and
    the link broke at the first frame. Now seat 1 lets the handshake end first."""
    from test_flaky_network import FlakyRelay

    monkeypatch.setattr(session, "PUNCH_AFTER", 0.3)
    monkeypatch.setattr(session, "PUNCH_WINDOW", 1.0)
    timeouts = Timeouts(handshake=2.0, mesh=20.0, lobby=60.0)
    ids = [Identity.generate() for _ in range(3)]
    listeners = [await trio.open_tcp_listeners(0, host=LOCALHOST) for _ in range(2)]
    closed = trio.socket.socket()
    await closed.bind((LOCALHOST, 0))
    nobody = closed.getsockname()[1]  # bound, not listening: a punch there is refused
    uis = [RecordingUI(), RecordingUI()]
    with trio.fail_after(30):
        async with trio.open_nursery() as nursery:
            relay = FlakyRelay(
                listeners[0][0].socket.getsockname()[1], 3, delay=(0.5, 0.5), stall_every=10**9, breaks_at=()
            )
            await relay.serve(nursery)
            roster = (
                Seat(name="s0", key=ids[0].public_key, host="", port=0),
                Seat(name="s1", key=ids[1].public_key, host=LOCALHOST, port=relay.port, seen=nobody),
                Seat(
                    name="s2",
                    key=ids[2].public_key,
                    host=LOCALHOST,
                    port=listeners[1][0].socket.getsockname()[1],
                    seen=nobody,
                ),
            )
            game = os.urandom(16)
            infos = [
                SessionInfo(
                    game_id=game, rules=NinesRules(), roster=roster, seat=s, punch=(socket.AF_INET, 0)
                )
                for s in (1, 2)
            ]
            async with trio.open_nursery() as mesh:
                for i in range(2):
                    mesh.start_soon(form_mesh, infos[i], ids[1 + i], listeners[i], uis[i], timeouts)
            nursery.cancel_scope.cancel()
    closed.close()
    assert (set(infos[0].links), infos[0].relayed) == ({2}, set()), uis[0].infos
    assert (set(infos[1].links), infos[1].relayed) == ({1}, set()), uis[1].infos
    assert relay.connections == 1


async def test_a_joiner_sends_a_fresh_syn_every_second_while_the_host_does_not_answer(
    autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """On a lossy path the first SYNs are lost: the system would send the next after 1, 3 and
    7 s, and a connection whose SYN was sent again starts slower. A fresh attempt starts each
    second beside those still waiting; the first that connects is used, the others dropped."""
    from p2pcards.net import dial

    started: list[float] = []
    connected = object()

    async def lossy(sock: trio.socket.SocketType, address: tuple[str, int]) -> object:
        started.append(trio.current_time())
        try:
            if len(started) <= 2:  # these SYNs (and every one sent again) are lost
                await trio.sleep_forever()
            await trio.sleep(0.05)  # the third gets through
            return connected
        finally:
            sock.close()

    monkeypatch.setattr(dial, "_connect", lossy)
    begin = trio.current_time()
    with trio.fail_after(10):
        assert await dial.open_reusable(LOCALHOST, 7777) is connected
    assert [round(t - begin, 2) for t in started] == [0.0, 1.0, 2.0]


async def test_a_joiner_whose_connection_is_refused_stops_at_once(
    autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A refusal is an answer (nothing listens there: the host has left), whichever attempt
    gets it: no more fresh attempts."""
    from p2pcards.net import dial

    started: list[float] = []

    async def refusing(sock: trio.socket.SocketType, address: tuple[str, int]) -> object:
        started.append(trio.current_time())
        try:
            if len(started) == 1:
                await trio.sleep_forever()  # a lost SYN
            raise ConnectionRefusedError(111, "Connection refused")
        finally:
            sock.close()

    monkeypatch.setattr(dial, "_connect", refusing)
    begin = trio.current_time()
    with trio.fail_after(10), pytest.raises(ConnectionRefusedError):
        await dial.open_reusable(LOCALHOST, 7777)
    assert trio.current_time() - begin == pytest.approx(1.0) and len(started) == 2


def answers_lost_after_the_proof(lobby: HostLobby, tries: int) -> Callable[[], bool]:
    """From the moment the host reads a joiner's auth, on each of its first ``tries``
    connections, until the next one, nothing the host sends reaches the joiner (its welcome,
    or its ``wrong-code``, lost on a path that stopped carrying)."""
    checked = lobby.admission.auth
    state = {"proofs": 0, "lost": False}

    def auth(connection: Any, message: Any, now: float) -> Any:
        state["proofs"] += 1
        state["lost"] = state["proofs"] <= tries
        return checked(connection, message, now)

    def lost() -> bool:
        return bool(state["lost"])

    lobby.admission.auth = auth  # type: ignore[method-assign]
    lost.dialled = lambda: state.update(lost=False)  # type: ignore[attr-defined]
    return lost


@pytest.mark.parametrize(("code", "end_late"), [(CODE, 0.0), (CODE, 10.0), ("9-wrong-guess", 0.0)])
async def test_a_joiner_whose_proof_goes_unanswered_tries_again_once(
    autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch, code: str, end_late: float
) -> None:
    """The host's answer to the auth is lost (a welcome, or a wrong-code), and nothing comes
    for 20 s. With the right code the host had seated the joiner: only joining again brings
    the welcome, so it tries again, once, and is seated. With a wrong code that try costs the
    table one more check of a code, and no more: a second silence ends it, said plainly.
    ``end_late``: the host sees the first connection end only that late, and refuses the
    second try's name (and key) as seated already meanwhile: which shows the code was right, so the
    joiner joins again until the host has seen it (as after a break in the lobby)."""
    lobby, _ = make_lobby(SLOW)
    ui = RecordingUI()
    dials: list[float] = []
    outcome: list[BaseException] = []
    lost = answers_lost_after_the_proof(lobby, tries=1 if code == CODE else 2)
    async with trio.open_nursery() as nursery:
        monkeypatch.setattr(
            session, "open_reusable", dial_through(nursery, lobby, 0.1, dials, lost, end_late)
        )

        async def joiner() -> None:
            try:
                await join_table(
                    host=LOCALHOST,
                    port=7777,
                    code=code,
                    identity=Identity.generate(),
                    name="ann",
                    listen_port=1,
                    ui=ui,
                    timeouts=SLOW,
                )
            except PeerUnreachable as e:
                outcome.append(e)

        nursery.start_soon(joiner)
        with trio.fail_after(120):
            while not outcome and not any("seated at a table" in line for line in ui.infos):
                await trio.sleep(0.5)
        nursery.cancel_scope.cancel()
    retries = [line for line in ui.infos if "within 20 s of proving the code" in line]
    assert len(retries) == 1, ui.infos
    if end_late:  # tried again (refused same-key) until the host saw the first connection end
        assert len(dials) > 2 and any("already taken at this table): joining again" in x for x in ui.infos), (
            ui.infos
        )
    else:
        assert len(dials) == 2, ui.infos
    if code == CODE:
        assert lobby.names() == ["host", "ann"] and not outcome
        assert lobby.admission.door.wrong_total == 0
    else:
        assert lobby.admission.door.wrong_total == 2  # one more than a first try, not more
        assert len(outcome) == 1 and str(outcome[0]) == (
            "could not join the host at 127.0.0.1:7777: the network path to it is too slow or loses too many"
            " packets (no answer from the host within 20 s of proving the code)"
        )
