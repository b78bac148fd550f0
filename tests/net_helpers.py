"""Helpers for network tests: bot nodes on 127.0.0.1, in-memory links, stream wrappers.

Real-socket tests run every node as a task of one trio run, each with its own
identity, table and TCP links (as across the internet). In-memory tests wire
``Link`` objects over ``trio.testing`` streams so that they can run under the
``autojump_clock`` and meet their timeouts in virtual time.
"""

from __future__ import annotations

import random
import socket
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import trio
import trio.testing

from p2pcards.bots import make_bot
from p2pcards.crypto.identity import Identity
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import Action, NinesRules
from p2pcards.net import tls
from p2pcards.net.link import Link
from p2pcards.net.node import NodeConfig, Outcome, host_game, join_game
from p2pcards.net.runner import Decider, RunResult, run_table
from p2pcards.net.session import LobbyUI, Timeouts

LOCALHOST = "127.0.0.1"
CODE = "7-amber-lantern"

FAST = Timeouts(handshake=10.0, mesh=20.0, turn=20.0, step=20.0, lobby=60.0, grace=3.0)
"""Real-socket tests: generous for a loaded machine, short enough that a hang shows."""


def bot(seed: int, name: str = "random") -> Decider:
    """A bot decider with its own seeded random stream."""
    strategy = make_bot(name)
    rng = random.Random(seed)

    async def decide(table: Table) -> Action:
        view = table.view()
        assert view is not None
        return strategy.choose(view, table.legal_actions(), rng)

    return decide


def stuck() -> Decider:
    """A decider that never answers (a player who walked away)."""

    async def decide(table: Table) -> Action:
        await trio.sleep_forever()
        raise AssertionError("unreachable")

    return decide


def frozen() -> tuple[Decider, Callable[[], None]]:
    """A decider that never answers and cannot be cancelled until released: a node
    that hangs in the middle of its own turn (its runner never gets to sign that it
    leaves). Returns it and the function that releases it (call it before the end)."""
    hang = trio.CancelScope(shield=True)

    async def decide(table: Table) -> Action:
        with hang:
            await trio.sleep_forever()
        raise AssertionError("unreachable")

    def release() -> None:
        hang.shield = False  # the cancellation waiting outside gets in

    return decide, release


@dataclass
class RecordingUI(LobbyUI):
    """Keeps what the lobby told this node, and wakes tests waiting for it."""

    infos: list[str] = field(default_factory=list)
    lobbies: list[tuple[str, ...]] = field(default_factory=list)
    invitations: list[tuple[str, int]] = field(default_factory=list)
    changed: trio.Event = field(default_factory=trio.Event)

    def _changed(self) -> None:
        self.changed.set()
        self.changed = trio.Event()

    def invitation(self, code: str, port: int, mapped: object = None) -> None:
        self.invitations.append((code, port))
        self._changed()

    def lobby(self, names: Sequence[str], players: int) -> None:
        self.lobbies.append(tuple(names))
        self._changed()

    def info(self, text: str) -> None:
        self.infos.append(text)
        self._changed()

    async def wait_for(self, predicate: Callable[[RecordingUI], bool]) -> None:
        while not predicate(self):
            await self.changed.wait()


def config(
    tmp_path: Path,
    label: str,
    *,
    name: str | None = None,
    decide: Decider | None = None,
    seed: int = 0,
    identity: Identity | None = None,
    ui: LobbyUI | None = None,
    timeouts: Timeouts = FAST,
    on_progress: Callable[[Table], None] = lambda t: None,
) -> NodeConfig:
    """A bot node listening on 127.0.0.1 whose transcript goes to ``tmp_path/label.p2pt``."""
    return NodeConfig(
        identity=identity or Identity.generate(),
        name=name or label,
        decide=decide or bot(seed),
        ui=ui or RecordingUI(),
        timeouts=timeouts,
        transcript=tmp_path / f"{label}.p2pt",
        data_dir=tmp_path / f"home-{label}",
        bind=LOCALHOST,
        on_progress=on_progress,
    )


async def start_host(
    nursery: trio.Nursery,
    cfg: NodeConfig,
    *,
    players: int,
    rules: Any,
    outcomes: dict[int, Outcome],
    code: str = CODE,
    game: str = "nines",
) -> int:
    """Start ``host_game`` in ``nursery``; returns its port (its outcome lands in ``outcomes[0]``)."""

    async def host(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
        outcomes[0] = await host_game(
            cfg, players=players, rules=rules, code=code, game=game, task_status=task_status
        )

    return await nursery.start(host)


async def join_seat(
    nursery: trio.Nursery,
    port: int,
    cfg: NodeConfig,
    seat: int,
    outcomes: dict[int, Outcome],
    host_ui: RecordingUI,
    *,
    code: str = CODE,
    scope: trio.CancelScope | None = None,
) -> None:
    """Start a joiner task and wait until the host has seated it (as ``seat``).

    Joining one at a time makes seats follow the order of the calls, so a test
    knows which node sits where. The task runs inside ``scope`` if given (to kill it).
    """

    async def join() -> None:
        with scope or trio.CancelScope():
            outcomes[seat] = await join_game(cfg, host=LOCALHOST, port=port, code=code)

    nursery.start_soon(join)
    await host_ui.wait_for(lambda ui: bool(ui.lobbies) and ui.lobbies[-1][seat : seat + 1] == (cfg.name,))


async def last_joins_and_all_end(
    nursery: trio.Nursery, cfg: NodeConfig, port: int, seat: int, outcomes: dict[int, Outcome], players: int
) -> None:
    """The last seat joins at 127.0.0.1:``port`` (a relay's, say); once all ``players`` nodes
    have ended, the nursery's other tasks (the relay) stop."""

    async def join() -> None:
        outcomes[seat] = await join_game(cfg, host=LOCALHOST, port=port, code=CODE)

    nursery.start_soon(join)
    while len(outcomes) < players:
        await trio.sleep(0.05)
    nursery.cancel_scope.cancel()


async def play_match(
    tmp_path: Path,
    n: int,
    rules: NinesRules,
    *,
    seed: int = 0,
    prefix: str = "s",
    timeouts: Timeouts = FAST,
) -> dict[int, Outcome]:
    """A full bot match of ``n`` nodes on 127.0.0.1; the outcomes by seat."""
    outcomes: dict[int, Outcome] = {}
    host_ui = RecordingUI()
    async with trio.open_nursery() as nursery:
        host_cfg = config(tmp_path, f"{prefix}0", seed=seed * 10, ui=host_ui, timeouts=timeouts)
        port = await start_host(nursery, host_cfg, players=n, rules=rules, outcomes=outcomes)
        joiners = [
            config(tmp_path, f"{prefix}{k}", seed=seed * 10 + k, timeouts=timeouts) for k in range(1, n)
        ]
        for seat, cfg in enumerate(joiners, start=1):
            await join_seat(nursery, port, cfg, seat, outcomes, host_ui)
    return outcomes


@contextmanager
def closed_port() -> Iterator[int]:
    """A 127.0.0.1 port that refuses connections: bound (so nobody else takes it), never listening."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((LOCALHOST, 0))
        yield int(s.getsockname()[1])


async def read_until_closed(stream: trio.abc.Stream, limit: float = 5.0) -> bytes:
    """Everything the peer sends until it closes (or resets) the connection."""
    data = b""
    with trio.fail_after(limit):
        while True:
            try:
                chunk = await stream.receive_some(65536)
            except trio.BrokenResourceError:
                return data
            if not chunk:
                return data
            data += chunk


# ---------------------------------------------------------------------------
# TLS, as every p2pcards connection speaks it


async def tls_connect(host: str, port: int, **kwargs: object) -> trio.SSLStream[trio.abc.Stream]:
    """A TLS connection to a p2pcards node, handshake done (its key is not checked: the
    test speaks lobby frames to it by hand)."""
    stream = tls.client(await trio.open_tcp_stream(host, port, **kwargs))  # type: ignore[arg-type]
    await tls.handshake(stream)
    return stream


async def tls_serve(stream: trio.abc.Stream, identity: Identity) -> trio.SSLStream[trio.abc.Stream]:
    """The server end of an accepted connection, presenting ``identity``'s key (a fake host or seat)."""
    secured = tls.server(stream, tls.server_context(identity))
    await tls.handshake(secured)
    return secured


async def knock(port: int, data: bytes, *, secure: bool = True, limit: float = 15) -> bytes:
    """Send ``data`` (then EOF) to the host on a fresh connection, inside TLS unless ``secure``
    is false; what the host answered before closing (decrypted if inside TLS)."""
    stream: trio.abc.Stream = (
        await tls_connect(LOCALHOST, port) if secure else await trio.open_tcp_stream(LOCALHOST, port)
    )
    reply = b""
    async with trio.open_nursery() as nursery:

        async def send() -> None:
            try:
                await stream.send_all(data)
                await tls.send_eof(stream)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                pass

        nursery.start_soon(send)
        reply = await read_until_closed(stream, limit=limit)
    await stream.aclose()
    return reply


# ---------------------------------------------------------------------------
# Stream wrappers


class WrappedStream(trio.abc.HalfCloseableStream):
    """Delegates to ``inner``; subclasses change one direction."""

    def __init__(self, inner: trio.abc.Stream) -> None:
        self.inner = inner

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.inner.send_all(data)

    async def wait_send_all_might_not_block(self) -> None:
        await self.inner.wait_send_all_might_not_block()

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self.inner.receive_some(max_bytes)

    async def send_eof(self) -> None:
        send_eof = getattr(self.inner, "send_eof", None)
        if send_eof is not None:
            await send_eof()

    async def aclose(self) -> None:
        await self.inner.aclose()


class TapStream(WrappedStream):
    """Keeps a copy of every byte sent and received."""

    def __init__(self, inner: trio.abc.Stream) -> None:
        super().__init__(inner)
        self.sent = bytearray()
        self.received = bytearray()

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.inner.send_all(data)
        self.sent += data

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        data = await self.inner.receive_some(max_bytes)
        self.received += data
        return data


class TrickleStream(WrappedStream):
    """Sends every frame one byte per ``send_all`` and hands the reader one byte at a time."""

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        for i in range(len(data)):
            await self.inner.send_all(bytes(data[i : i + 1]))

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        return await self.inner.receive_some(1)


class CutStream(WrappedStream):
    """Passes the first ``frames`` sends whole and half of the next one, then drops everything
    (a peer gone mute in the middle of a frame). ``Link`` sends one frame per ``send_all``."""

    def __init__(self, inner: trio.abc.Stream, frames: int) -> None:
        super().__init__(inner)
        self.frames = frames
        self.sends = 0

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        self.sends += 1
        if self.sends <= self.frames:
            await self.inner.send_all(data)
        elif self.sends == self.frames + 1:
            await self.inner.send_all(bytes(data[: len(data) // 2]))
        else:
            await trio.lowlevel.checkpoint()


class DeafStream(WrappedStream):
    """Never reads what the peer sends (a frozen process whose buffers are full)."""

    async def receive_some(self, max_bytes: int | None = None) -> bytes | bytearray:
        await trio.sleep_forever()
        raise AssertionError("unreachable")


Wrap = Callable[[int, int, trio.abc.Stream], trio.abc.Stream]
"""``wrap(seat, peer, stream)``: what ``seat`` uses for its end of the link to ``peer``."""


def memory_links(
    n: int,
    wrap: Wrap = lambda seat, peer, stream: stream,
    *,
    pair: Callable[[], tuple[trio.abc.Stream, trio.abc.Stream]] = trio.testing.memory_stream_pair,
    pairs: Mapping[frozenset[int], Callable[[], tuple[trio.abc.Stream, trio.abc.Stream]]] | None = None,
) -> dict[int, dict[int, Link]]:
    """A full mesh of in-memory links: ``links[seat][peer]`` is seat's end towards peer."""
    links: dict[int, dict[int, Link]] = {s: {} for s in range(n)}
    for a in range(n):
        for b in range(a + 1, n):
            make = (pairs or {}).get(frozenset((a, b)), pair)
            end_a, end_b = make()
            links[a][b] = Link(wrap(a, b, end_a), peer=f"seat {b}")
            links[b][a] = Link(wrap(b, a, end_b), peer=f"seat {a}")
    return links


async def close_all(links: dict[int, dict[int, Link]]) -> None:
    for ends in links.values():
        for link in ends.values():
            await link.aclose()


class Lagging(trio.abc.SendStream):
    """A sending end whose bytes arrive ``delay`` seconds after they are sent, in order, and
    without holding up the sender (a seat that sits on what it has to say, or a slow path);
    with ``gate``, each also waits while ``gate()`` (an event) is not set (a path that stops)."""

    def __init__(
        self,
        inner: trio.abc.SendStream,
        delay: float,
        nursery: trio.Nursery,
        gate: Callable[[], trio.Event] | None = None,
    ) -> None:
        self.inner = inner
        self.delay = delay
        self.gate = gate
        self.queue, out = trio.open_memory_channel[tuple[float, bytes]](10_000)
        nursery.start_soon(self._pump, out)

    async def _pump(self, out: trio.MemoryReceiveChannel[tuple[float, bytes]]) -> None:
        async for due, data in out:
            await trio.sleep_until(due)
            if self.gate is not None:
                await self.gate().wait()
            try:
                await self.inner.send_all(data)
            except (trio.BrokenResourceError, trio.ClosedResourceError):
                return
        await self.inner.aclose()

    async def send_all(self, data: bytes | bytearray | memoryview) -> None:
        await self.queue.send((trio.current_time() + self.delay, bytes(data)))

    async def wait_send_all_might_not_block(self) -> None:
        await trio.lowlevel.checkpoint()

    async def aclose(self) -> None:
        self.queue.close()
        await trio.lowlevel.checkpoint()


async def play_bots(
    tables: Mapping[int, Any], links: Mapping[int, dict[int, Link]], timeouts: Timeouts
) -> dict[int, RunResult]:
    """Play every seat of ``tables`` by a bot on ``links`` (seat -> peer -> link) until each
    stops (in virtual time, a day at most); each seat's result."""
    results: dict[int, RunResult] = {}

    async def seat(s: int) -> None:
        results[s] = await run_table(tables[s], links[s], bot(s), timeouts=timeouts)

    with trio.fail_after(24 * 3600):
        async with trio.open_nursery() as nursery:
            for s in tables:
                nursery.start_soon(seat, s)
    return results
