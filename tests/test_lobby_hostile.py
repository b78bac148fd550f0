"""Strangers at the host's door: floods, guessing, silence, oversized frames, impostors.

Real-socket tests run the host on 127.0.0.1; the flood comes from another
loopback address (127.0.0.2), as a flood from another machine would, and the
honest joiners from 127.0.0.1. Tests of deadlines and waits run
``HostLobby.handle`` over ``trio.testing`` memory streams that say which
address they come from, under the ``autojump_clock``: what is checked is what
had happened by a given virtual time, never how long anything took for real.
"""

from __future__ import annotations

import os
import socket
from collections import Counter
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager, suppress
from dataclasses import dataclass, replace
from typing import Any, TypeVar

import msgpack
import pytest
import trio
import trio.testing
from net_helpers import CODE, FAST, LOCALHOST, RecordingUI, WrappedStream, knock, tls_connect, tls_serve

from p2pcards.cli.network import _said
from p2pcards.crypto.identity import Identity
from p2pcards.crypto.pake import Pake, Side
from p2pcards.errors import JoinRefused, PeerUnreachable
from p2pcards.games.nines.rules import NinesRules
from p2pcards.net import session, tls
from p2pcards.net.link import Link, LinkClosed
from p2pcards.net.session import HostLobby, SessionInfo, Timeouts, address_group, form_mesh, join_table
from p2pcards.protocol.lobby import (
    MAX_LOBBY_FRAME,
    Auth,
    Challenge,
    Hello,
    LinkAuth,
    Refused,
    Role,
    Seat,
    Welcome,
    confirmation,
    decode_lobby,
    decode_lobby_object,
    encode_lobby,
    link_message,
    pake_binding,
)
from p2pcards.protocol.lobby import Link as LinkHello
from p2pcards.protocol.messages import Body
from p2pcards.protocol.wire import MAX_FRAME, pack
from p2pcards.ui.i18n import Translator

ONE_HAND = NinesRules(hands=1)
RULES = tuple(sorted(ONE_HAND.to_dict().items()))
NO_RETRY = replace(FAST, busy=0.0)
BIG = 20 * 1024
"""Over the lobby's bound, well under the game's."""


def _loopback_alias_works() -> bool:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        try:
            s.bind(("127.0.0.2", 0))
        except OSError:
            return False
    return True


needs_loopback_aliases = pytest.mark.skipif(
    not _loopback_alias_works(),
    reason="this system cannot send from 127.0.0.2 (only 127.0.0.1 is configured)",
)


def make_lobby(
    players: int = 3, *, timeouts: Timeouts = FAST, **limits: Any
) -> tuple[HostLobby, RecordingUI]:
    ui = RecordingUI()
    lobby = HostLobby(
        identity=Identity.generate(),
        name="host",
        rules=ONE_HAND,
        players=players,
        code=CODE,
        game_id=os.urandom(16),
        ui=ui,
        timeouts=timeouts,
        **limits,
    )
    return lobby, ui


@asynccontextmanager
async def serving(lobby: HostLobby) -> AsyncIterator[int]:
    """``lobby`` answering on a 127.0.0.1 port (yielded) until the block ends."""
    listeners = await trio.open_tcp_listeners(0, host=LOCALHOST)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, lobby.handle, listeners)
        yield listeners[0].socket.getsockname()[1]
        nursery.cancel_scope.cancel()


async def join(
    port: int, name: str, *, ui: RecordingUI | None = None, timeouts: Timeouts = FAST
) -> SessionInfo:
    return await join_table(
        host=LOCALHOST,
        port=port,
        code=CODE,
        identity=Identity.generate(),
        name=name,
        listen_port=1,
        ui=ui or RecordingUI(),
        timeouts=timeouts,
    )


async def receive(link: Link) -> Body:
    return decode_lobby_object(await link.receive())


E = TypeVar("E", bound=Exception)


async def refused_by(
    fake_host: Callable[[trio.abc.Stream], Awaitable[None]], kind: type[E] = JoinRefused  # type: ignore[assignment]
) -> E:
    """How a joiner's ``join`` fails (``kind``) at ``fake_host``, a hostile host served on a
    loopback port."""
    listeners = await trio.open_tcp_listeners(0, host=LOCALHOST)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, fake_host, listeners)
        with trio.fail_after(10), pytest.raises(kind) as caught:
            await join(listeners[0].socket.getsockname()[1], "ann")
        nursery.cancel_scope.cancel()
    return caught.value


async def say_hello(link: Link, me: Identity, name: str = "stranger") -> Body:
    """Send a hello; the host's answer (a challenge or a refusal)."""
    pake = Pake.start(Side.JOINER, CODE, os.urandom(64)).message
    await link.send(
        encode_lobby(Hello(name=name, key=me.public_key, nonce=os.urandom(32), port=1, pake=pake))
    )
    return await receive(link)


async def answer(link: Link, me: Identity, challenge: Challenge, proof: bytes | None = None) -> Body:
    """Answer ``challenge`` with ``proof`` (a random one unless given), duly signed; the host's reply."""
    sig = me.sign(link_message(challenge.game, challenge.nonce, me.public_key, challenge.key))
    await link.send(encode_lobby(Auth(proof=proof or os.urandom(32), sig=sig)))
    return await receive(link)


# ---------------------------------------------------------------------------
# Hostile clients over loopback TCP


async def guess_once(port: int, source: str) -> str:
    """One wrong-code attempt from ``source`` (a random proof: no scrypt); how the host answered."""
    me = Identity.generate()
    link = Link(await tls_connect(LOCALHOST, port, local_address=source))
    try:
        reply = await say_hello(link, me)
        if isinstance(reply, Challenge):
            reply = await answer(link, me, reply)
        return reply.reason if isinstance(reply, Refused) else reply.TYPE
    except LinkClosed:
        return "closed"
    finally:
        await link.aclose()


async def squat_once(port: int, source: str) -> str:
    """Hello, then silence until the host lets go; how the host answered."""
    link = Link(await tls_connect(LOCALHOST, port, local_address=source))
    try:
        reply = await say_hello(link, Identity.generate())
        if isinstance(reply, Refused):
            return reply.reason
        await link.receive()
        return "answered silence"
    except LinkClosed:
        return "dropped"
    finally:
        await link.aclose()


async def keep_at(
    attempt: Callable[[int, str], Awaitable[str]], port: int, source: str, seen: Counter[str]
) -> None:
    """Repeat ``attempt`` from ``source`` until cancelled, counting the answers."""
    while True:
        seen[await attempt(port, source)] += 1
        await trio.sleep(0.05)


@needs_loopback_aliases
async def test_honest_joiners_are_seated_while_strangers_flood_the_host_from_one_address() -> None:
    lobby, _ = make_lobby(3)
    guesses: Counter[str] = Counter()
    squats: Counter[str] = Counter()
    uis = {name: RecordingUI() for name in ("ann", "bob")}
    infos: dict[str, SessionInfo] = {}
    async with serving(lobby) as port, trio.open_nursery() as flood:
        for _ in range(32):
            flood.start_soon(keep_at, guess_once, port, "127.0.0.2", guesses)
        for _ in range(8):
            flood.start_soon(keep_at, squat_once, port, "127.0.0.2", squats)
        with trio.fail_after(20):
            while not (guesses["wrong-code"] and guesses["busy"]):  # the flood is in full swing
                await trio.sleep(0.01)
            async with trio.open_nursery() as honest:
                for name, ui in uis.items():

                    async def seat(name: str = name, ui: RecordingUI = ui) -> None:
                        infos[name] = await join(port, name, ui=ui)

                    honest.start_soon(seat)
                started = await lobby.start()
        flood.cancel_scope.cancel()
    assert sorted(s.name for s in started.roster) == ["ann", "bob", "host"]
    assert sorted(infos) == ["ann", "bob"]
    # The flood came from another address: it never made an honest joiner wait.
    assert not any("busy" in line for ui in uis.values() for line in ui.infos)
    # Strangers were refused (once the table filled, as late).
    assert set(guesses) <= {"wrong-code", "busy", "table-full", "started"}, guesses
    assert set(squats) <= {"busy", "dropped", "table-full", "started"}, squats
    for info in (started, *infos.values()):
        for link in info.links.values():
            await link.aclose()


async def test_a_joiner_tries_a_busy_host_again_until_a_place_frees() -> None:
    lobby, host_ui = make_lobby(3, max_pending=2, evict_after=3600)  # the two below keep their places
    ui = RecordingUI()
    async with serving(lobby) as port, trio.open_nursery() as nursery:
        silent = [await trio.open_tcp_stream(LOCALHOST, port) for _ in range(2)]
        with trio.fail_after(10):
            while lobby.pending < 2:
                await trio.sleep(0.01)

        async def seat() -> None:
            await join(port, "ann", ui=ui)

        nursery.start_soon(seat)
        with trio.fail_after(10):
            await ui.wait_for(lambda ui: any("the host is busy; trying again" in i for i in ui.infos))
            for stream in silent:
                await stream.aclose()
            await host_ui.wait_for(lambda ui: bool(ui.lobbies) and "ann" in ui.lobbies[-1])
        assert lobby.refused["busy"] >= 1
        nursery.cancel_scope.cancel()


# ---------------------------------------------------------------------------
# In memory, in virtual time


@dataclass(frozen=True)
class FakeSocket:
    address: str

    def getpeername(self) -> tuple[str, int]:
        return (self.address, 50000)


class FromAddress(WrappedStream):
    """A memory stream end that, like a TCP socket stream, tells where its peer is."""

    def __init__(self, inner: trio.abc.Stream, address: str) -> None:
        super().__init__(inner)
        self.socket = FakeSocket(address)


async def dial(nursery: trio.Nursery, lobby: HostLobby, address: str) -> Link:
    """A connection to ``lobby`` from ``address``, TLS handshake done; the host handles it in
    ``nursery``."""
    client, server = trio.testing.memory_stream_pair()
    nursery.start_soon(lobby.handle, FromAddress(server, address))
    secured = tls.client(client)
    await tls.handshake(secured)
    return Link(secured)


async def seat_by_hand(nursery: trio.Nursery, lobby: HostLobby, address: str, name: str) -> Body:
    """Join with the right code, step by step; the host's last answer (a welcome, or why not)."""
    me = Identity.generate()
    link = await dial(nursery, lobby, address)
    nonce = os.urandom(32)
    pake = Pake.start(Side.JOINER, CODE, os.urandom(64))
    await link.send(encode_lobby(Hello(name=name, key=me.public_key, nonce=nonce, port=1, pake=pake.message)))
    challenge = await receive(link)
    if not isinstance(challenge, Challenge):
        return challenge
    channel = tls.channel_binding(link.stream)
    binding = pake_binding(
        lobby.game_id,
        me.public_key,
        challenge.key,
        nonce,
        challenge.nonce,
        pake.message,
        challenge.pake,
        channel,
    )
    return await answer(link, me, challenge, confirmation(pake.finish(challenge.pake), Role.JOINER, binding))


async def hung_up(link: Link) -> None:
    """Fails unless the host has closed this connection (it may have sent a last word first)."""
    with trio.fail_after(0.1), pytest.raises(LinkClosed):
        while True:
            await link.receive()


async def test_a_wrong_code_is_answered_at_once_and_keeps_no_place(
    autojump_clock: trio.testing.MockClock,
) -> None:
    lobby, _ = make_lobby(3, max_pending=1)  # one place: a guesser held in it would shut the door
    me = Identity.generate()
    async with trio.open_nursery() as nursery:
        guesser = await dial(nursery, lobby, "198.51.100.7")
        challenge = await say_hello(guesser, me)
        assert isinstance(challenge, Challenge)
        sig = me.sign(link_message(challenge.game, challenge.nonce, me.public_key, challenge.key))
        await guesser.send(encode_lobby(Auth(proof=os.urandom(32), sig=sig)))
        await trio.testing.wait_all_tasks_blocked()
        # The host has dealt with the guess: someone from elsewhere gets the place now.
        other = await dial(nursery, lobby, "203.0.113.9")
        assert isinstance(await say_hello(other, Identity.generate()), Challenge)
        refused = await receive(guesser)
        assert isinstance(refused, Refused) and refused.reason == "wrong-code"
        nursery.cancel_scope.cancel()


def kinds(replies: list[Body]) -> list[str]:
    """What the host answered, step by step: a message type, or a refusal's reason."""
    return [r.reason if isinstance(r, Refused) else r.TYPE for r in replies]


async def test_after_a_wrong_code_only_that_address_waits_and_the_wait_grows(
    autojump_clock: trio.testing.MockClock,
) -> None:
    lobby, _ = make_lobby(3)
    guesser = "198.51.100.7"

    async def attempt(address: str) -> list[Body]:
        """Hello, and a wrong proof if challenged: the host's answers."""
        me = Identity.generate()
        link = await dial(nursery, lobby, address)
        replies = [await say_hello(link, me)]
        if isinstance(replies[0], Challenge):
            replies.append(await answer(link, me, replies[0]))
        return replies

    async with trio.open_nursery() as nursery:
        assert kinds(await attempt(guesser)) == ["challenge", "wrong-code"]  # the first: wait 0.5 s
        # Turned away at the door, before any challenge (no proof is checked).
        waiting = await attempt(guesser)
        assert kinds(waiting) == ["busy"]
        assert "wrong codes from your address" in waiting[0].message  # type: ignore[attr-defined]
        assert kinds(await attempt("203.0.113.9")) == ["challenge", "wrong-code"]  # others go on
        await trio.sleep(0.6)
        assert kinds(await attempt(guesser)) == ["challenge", "wrong-code"]  # the second: wait 1 s
        await trio.sleep(0.6)
        assert kinds(await attempt(guesser)) == ["busy"]
        await trio.sleep(0.5)
        assert isinstance(await seat_by_hand(nursery, lobby, guesser, "ann"), Welcome)
        nursery.cancel_scope.cancel()
    assert lobby.names() == ["host", "ann"]


async def test_parallel_guesses_from_one_address_get_one_proof_checked(
    autojump_clock: trio.testing.MockClock,
) -> None:
    lobby, _ = make_lobby(3)
    ids = [Identity.generate() for _ in range(3)]
    async with trio.open_nursery() as nursery:
        links = [await dial(nursery, lobby, "198.51.100.7") for _ in ids]
        challenges = [await say_hello(link, me) for link, me in zip(links, ids, strict=True)]
        assert all(isinstance(c, Challenge) for c in challenges)
        replies = [
            await answer(link, me, c)  # type: ignore[arg-type]
            for link, me, c in zip(links, ids, challenges, strict=True)
        ]
        nursery.cancel_scope.cancel()
    assert kinds(replies) == ["wrong-code", "busy", "busy"]
    assert lobby.refused["wrong-code"] == 1


async def test_connections_are_limited_per_address_and_seated_joiners_do_not_count(
    autojump_clock: trio.testing.MockClock,
) -> None:
    lobby, _ = make_lobby(4, per_address=2)
    async with trio.open_nursery() as nursery:
        held = [await dial(nursery, lobby, "198.51.100.7") for _ in range(2)]
        for link in held:
            assert isinstance(await say_hello(link, Identity.generate()), Challenge)
        third = await say_hello(await dial(nursery, lobby, "198.51.100.7"), Identity.generate())
        assert isinstance(third, Refused) and third.reason == "busy"
        assert "from your address" in third.message
        assert isinstance(
            await say_hello(await dial(nursery, lobby, "203.0.113.9"), Identity.generate()), Challenge
        )
        for link in held:
            await link.aclose()
        await trio.testing.wait_all_tasks_blocked()
        # Players behind one address (one home, one NAT) all get seated, one after the other.
        for name in ("ann", "bob", "cat"):
            assert isinstance(await seat_by_hand(nursery, lobby, "192.0.2.1", name), Welcome)
        nursery.cancel_scope.cancel()
    assert lobby.names() == ["host", "ann", "bob", "cat"]


async def test_when_every_place_is_taken_the_longest_waiting_stranger_makes_room(
    autojump_clock: trio.testing.MockClock,
) -> None:
    lobby, _ = make_lobby(3, max_pending=2, evict_after=2.0)
    async with trio.open_nursery() as nursery:
        first = await dial(nursery, lobby, "198.51.100.1")
        await trio.sleep(0.5)
        second = await dial(nursery, lobby, "198.51.100.2")
        await trio.sleep(1.0)  # they have waited 1.5 s and 1 s: both keep their places
        early = await say_hello(await dial(nursery, lobby, "198.51.100.3"), Identity.generate())
        assert kinds([early]) == ["busy"]
        await trio.sleep(0.6)  # the first has now waited 2.1 s
        assert isinstance(
            await say_hello(await dial(nursery, lobby, "198.51.100.4"), Identity.generate()), Challenge
        )
        # The first was told the host is busy (a slow joiner would try again) and let go.
        assert kinds([await receive(first)]) == ["busy"]
        await hung_up(first)
        assert lobby.pending == 2  # the second and the newcomer
        assert isinstance(await say_hello(second, Identity.generate()), Challenge)
        nursery.cancel_scope.cancel()


def test_an_ipv6_subscriber_is_one_address() -> None:
    assert address_group("2001:db8:1:2::1") == address_group("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert address_group("2001:db8:1:3::1") != address_group("2001:db8:1:2::1")
    assert address_group("::ffff:192.0.2.1") == address_group("192.0.2.1") == "192.0.2.1"
    assert address_group("192.0.2.1") != address_group("192.0.2.2")
    assert address_group("") == ""


SLOW = Timeouts(handshake=10.0, lobby=3600.0)


async def test_a_connection_that_never_says_hello_is_dropped_after_the_handshake_timeout(
    autojump_clock: trio.testing.MockClock,
) -> None:
    lobby, _ = make_lobby(3, timeouts=SLOW)
    async with trio.open_nursery() as nursery:
        silent = await dial(nursery, lobby, "198.51.100.7")
        await trio.sleep(SLOW.handshake - 1)
        assert lobby.pending == 1  # still held
        await trio.sleep(2)
        assert lobby.pending == 0
        await hung_up(silent)
        nursery.cancel_scope.cancel()


async def test_each_step_of_the_handshake_has_the_handshake_timeout_and_a_slow_joiner_is_told(
    autojump_clock: trio.testing.MockClock,
) -> None:
    """The hello and the auth each come a round trip after the host's last word: each has the
    handshake timeout from it, not one timeout for both (a slow path takes most of it for each)."""
    lobby, ui = make_lobby(3, timeouts=SLOW)
    async with trio.open_nursery() as nursery:
        slow = await dial(nursery, lobby, "198.51.100.7")
        await trio.sleep(SLOW.handshake - 1)
        assert isinstance(await say_hello(slow, Identity.generate(), "ann"), Challenge)
        await trio.sleep(SLOW.handshake - 1)  # well past one handshake timeout in all
        assert lobby.pending == 1  # still waited on: its auth may be on its way
        await trio.sleep(2)  # the auth never comes
        assert lobby.pending == 0
        refused = await receive(slow)  # told why, not just hung up on
        assert isinstance(refused, Refused) and refused.reason == "slow"
        await hung_up(slow)
        nursery.cancel_scope.cancel()
    assert lobby.refused["slow"] == 1 and lobby.admission.door.wrong_total == 0
    assert ui.infos == [
        "'ann' (from 198.51.100.7) did not finish joining in time: the network path is too slow or loses"
        " too many packets"
    ]


async def test_a_joiner_gives_up_on_a_host_that_stays_busy(
    autojump_clock: trio.testing.MockClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    lobby, _ = make_lobby(3, max_pending=0)  # busy for everyone, for ever
    ui = RecordingUI()
    outcome: list[BaseException] = []
    async with trio.open_nursery() as nursery:

        async def connect(host: str, port: int) -> trio.abc.Stream:
            client, server = trio.testing.memory_stream_pair()
            nursery.start_soon(lobby.handle, FromAddress(server, host))
            return client

        monkeypatch.setattr(session, "open_reusable", connect)  # the joiner's dial of the host

        async def joiner() -> None:
            try:
                await join(7777, "ann", ui=ui, timeouts=Timeouts(busy=30.0))
            except JoinRefused as e:
                outcome.append(e)

        nursery.start_soon(joiner)
        await trio.sleep(29)
        assert not outcome  # still trying
        await trio.sleep(2)
    assert len(outcome) == 1 and isinstance(outcome[0], JoinRefused)
    assert outcome[0].reason == "busy" and "still busy after 30 s" in str(outcome[0])
    assert _said(outcome[0], Translator("fr")) == (  # in the player's language, reason and all
        "l'hôte refuse : l'hôte a trop de connexions en attente ; réessayez dans un instant"
        " (toujours occupé après 30 s de nouvelles tentatives)"
    )
    retries = [i for i in ui.infos if i.startswith("the host is busy; trying again in")]
    assert len(retries) >= 5 and lobby.refused["busy"] == len(retries) + 1


# ---------------------------------------------------------------------------
# Frame bounds: the lobby's until the match starts, then the game's


def big_hello() -> bytes:
    body = {"name": "x" * BIG, "key": bytes(32), "nonce": bytes(32), "port": 1}
    return pack({"v": 1, "kind": "hello", "body": body})


async def test_a_hello_over_the_lobby_bound_is_refused_and_the_host_keeps_serving() -> None:
    assert BIG > MAX_LOBBY_FRAME
    lobby, ui = make_lobby(2)
    async with serving(lobby) as port, trio.open_nursery() as nursery:
        reply = decode_lobby(await knock(port, big_hello()))
        assert isinstance(reply, Refused) and reply.reason == "protocol"
        assert f"more than {MAX_LOBBY_FRAME} bytes" in reply.message
        assert any(f"more than {MAX_LOBBY_FRAME} bytes" in i for i in ui.infos)

        async def seat() -> None:
            await join(port, "ann")

        nursery.start_soon(seat)
        with trio.fail_after(10):
            await ui.wait_for(lambda ui: bool(ui.lobbies) and "ann" in ui.lobbies[-1])
        nursery.cancel_scope.cancel()


async def test_a_joiner_reads_the_host_with_the_lobby_bound() -> None:
    async def fat_host(stream: trio.abc.Stream) -> None:
        link = Link(await tls_serve(stream, Identity.generate()))
        await link.receive()  # the hello
        fat = {
            "game": bytes(16),
            "key": bytes(32),
            "nonce": bytes(32),
            "rules": {},
            "players": 2,
            "pad": "x" * BIG,
        }
        await link.send(pack({"v": 1, "kind": "challenge", "body": fat}))
        await trio.sleep_forever()

    assert f"more than {MAX_LOBBY_FRAME} bytes" in str(await refused_by(fat_host, PeerUnreachable))


async def exchange_big_frames(a: Link, b: Link) -> None:
    """A frame over the lobby's bound goes through both ways."""
    for sender, receiver in ((a, b), (b, a)):
        assert receiver.frame_limit == MAX_FRAME
        await sender.send(msgpack.packb([b"z" * BIG]))
        assert len((await receiver.receive())[0]) == BIG


async def test_links_take_the_games_frames_once_the_match_starts() -> None:
    lobby, _ = make_lobby(2)
    async with serving(lobby) as port, trio.open_nursery() as nursery:
        joined: list[SessionInfo] = []

        async def seat() -> None:
            joined.append(await join(port, "ann"))

        nursery.start_soon(seat)
        with trio.fail_after(10):
            host = await lobby.start()
            while not joined:
                await trio.sleep(0.01)
        await exchange_big_frames(host.links[1], joined[0].links[0])
        for link in (host.links[1], joined[0].links[0]):
            await link.aclose()
        nursery.cancel_scope.cancel()


async def mesh_of_three() -> tuple[
    list[Identity], dict[int, SessionInfo], dict[int, list[trio.SocketListener]]
]:
    """Seats 1 and 2 of a three-seat roster, each listening, each already linked to seat 0."""
    ids = [Identity.generate() for _ in range(3)]
    game = os.urandom(16)
    listeners = {s: await trio.open_tcp_listeners(0, host=LOCALHOST) for s in (1, 2)}
    ports = {0: 1} | {s: ls[0].socket.getsockname()[1] for s, ls in listeners.items()}
    roster = tuple(Seat(name=f"p{s}", key=ids[s].public_key, host=LOCALHOST, port=ports[s]) for s in range(3))
    infos = {s: SessionInfo(game_id=game, rules=ONE_HAND, roster=roster, seat=s) for s in (1, 2)}
    for info in infos.values():
        info.links[0] = Link(trio.testing.memory_stream_pair()[0])
    return ids, infos, listeners


async def test_mesh_links_take_the_games_frames_once_authenticated() -> None:
    ids, infos, listeners = await mesh_of_three()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            for s in (1, 2):
                nursery.start_soon(form_mesh, infos[s], ids[s], listeners[s], RecordingUI(), FAST)
        await exchange_big_frames(infos[1].links[2], infos[2].links[1])
    for info in infos.values():
        for link in info.links.values():
            await link.aclose()


# ---------------------------------------------------------------------------
# Checks that keep impostors out


async def test_a_join_proof_relayed_for_another_key_is_a_wrong_code() -> None:
    # Mallory sits between Ann and the host: she passes Ann's nonce and Ann's proof on
    # under her own key (with her own, valid, signature). The proof covers Ann's key.
    # (Ann's TLS ends at Mallory, so Mallory puts her own key in the challenge she passes
    # on: with the host's, Ann would stop at once; see test_tls.py.)
    lobby, _ = make_lobby(3)
    mallory = Identity.generate()
    host_said: list[Body] = []

    async with serving(lobby) as host_port, trio.open_nursery() as nursery:

        async def relay(stream: trio.abc.Stream) -> None:
            ann = Link(await tls_serve(stream, mallory))
            host = Link(await tls_connect(LOCALHOST, host_port))
            hello = await receive(ann)
            assert isinstance(hello, Hello)
            await host.send(
                encode_lobby(
                    Hello(name="mallory", key=mallory.public_key, nonce=hello.nonce, port=1, pake=hello.pake)
                )
            )
            challenge = await receive(host)
            assert isinstance(challenge, Challenge)
            await ann.send(encode_lobby(replace(challenge, key=mallory.public_key)))
            auth = await receive(ann)
            assert isinstance(auth, Auth)
            host_said.append(await answer(host, mallory, challenge, auth.proof))
            await ann.send(encode_lobby(host_said[-1]))
            await trio.sleep_forever()

        listeners = await trio.open_tcp_listeners(0, host=LOCALHOST)
        nursery.start_soon(trio.serve_listeners, relay, listeners)
        with trio.fail_after(10), pytest.raises((JoinRefused, PeerUnreachable)):
            await join(listeners[0].socket.getsockname()[1], "ann", timeouts=NO_RETRY)
        nursery.cancel_scope.cancel()
    assert len(host_said) == 1
    assert isinstance(host_said[0], Refused) and host_said[0].reason == "wrong-code"
    assert lobby.names() == ["host"]


async def test_a_stranger_with_a_key_of_its_own_cannot_take_a_seat_on_the_mesh() -> None:
    # Seat 2 may dial seat 1; a stranger says it is seat 2, with its own key, and
    # proves that key perfectly. It is still not seat 2's key in the roster.
    ids, infos, listeners = await mesh_of_three()
    seat1_ui = RecordingUI()
    stranger = Identity.generate()
    game = infos[1].game_id
    hung_up = trio.Event()
    seat1_done = trio.Event()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:

            async def seat1() -> None:
                await form_mesh(infos[1], ids[1], listeners[1], seat1_ui, FAST)
                seat1_done.set()

            async def intrude() -> None:
                link = Link(await tls_connect(LOCALHOST, infos[1].roster[1].port))
                try:
                    theirs = await receive(link)
                    assert isinstance(theirs, LinkHello)
                    mine = LinkHello(game=game, seat=2, key=stranger.public_key, nonce=os.urandom(32))
                    await link.send(encode_lobby(mine))
                    if isinstance(await receive(link), LinkAuth):
                        sig = stranger.sign(
                            link_message(game, theirs.nonce, stranger.public_key, ids[1].public_key)
                        )
                        await link.send(encode_lobby(LinkAuth(sig=sig)))
                        await link.receive()  # an accepted link stays quiet until the match
                except LinkClosed:
                    hung_up.set()

            nursery.start_soon(seat1)
            nursery.start_soon(intrude)
            async with trio.open_nursery() as first:

                async def wait_for(event: trio.Event) -> None:
                    await event.wait()
                    first.cancel_scope.cancel()

                first.start_soon(wait_for, hung_up)
                first.start_soon(wait_for, seat1_done)
            assert hung_up.is_set() and 2 not in infos[1].links, "seat 1 took a stranger for seat 2"
            assert any("claims seat 2, which it may not take" in i for i in seat1_ui.infos)
            # The real seat 2 still links.
            await form_mesh(infos[2], ids[2], listeners[2], RecordingUI(), FAST)
            await seat1_done.wait()
    assert set(infos[1].links) == {0, 2}
    for info in infos.values():
        for link in info.links.values():
            await link.aclose()


async def test_a_host_that_cannot_prove_the_code_is_an_impostor() -> None:
    impostor = Identity.generate()

    async def fake_host(stream: trio.abc.Stream) -> None:
        link = Link(await tls_serve(stream, impostor))
        hello = await receive(link)
        assert isinstance(hello, Hello)
        game, nh = os.urandom(16), os.urandom(32)
        await link.send(
            encode_lobby(
                Challenge(
                    game=game,
                    key=impostor.public_key,
                    nonce=nh,
                    pake=Pake.start(Side.HOST, "7-guessed-wrong", os.urandom(64)).message,
                    play="nines",
                    rules=RULES,
                    players=2,
                )
            )
        )
        await receive(link)  # the joiner's auth: useless without the code
        sig = impostor.sign(link_message(game, hello.nonce, impostor.public_key, hello.key))
        await link.send(encode_lobby(Welcome(seat=1, proof=os.urandom(32), sig=sig)))
        await link.aclose()

    caught = await refused_by(fake_host)
    assert caught.reason == "impostor"
    assert "could not prove it knows the code" in str(caught)
    assert _said(caught, Translator("it")) == (
        "l'host non ha potuto provare di conoscere il codice: non è il tavolo a cui eri invitato"
    )


@pytest.mark.parametrize(
    ("option", "value"), [("target", 1001), ("target", 10**9), ("hands", 101), ("hands", 2**40)]
)
async def test_a_host_whose_match_would_not_end_is_refused_before_a_guess_is_spent(
    option: str, value: int
) -> None:
    """A hostile host's terms that set a match no sitting ends (a target of a billion points)
    are refused by the joiner as terms it cannot play, before it proves the code: it sends
    nothing after its ``hello``, and the table is never seated (protocol.md 2.4)."""
    host = Identity.generate()
    after_hello: list[bytes] = []

    async def fake_host(stream: trio.abc.Stream) -> None:
        link = Link(await tls_serve(stream, host))
        await receive(link)  # the hello
        rules = tuple(sorted({**dict(RULES), option: value}.items()))
        pake = Pake.start(Side.HOST, CODE, os.urandom(64)).message
        await link.send(
            encode_lobby(
                Challenge(game=os.urandom(16), key=host.public_key, nonce=os.urandom(32), pake=pake,
                          play="nines", rules=rules, players=2)
            )
        )  # fmt: skip
        with trio.move_on_after(5):
            with suppress(LinkClosed):
                after_hello.append(await link.receive())
        await link.aclose()

    caught = await refused_by(fake_host)
    assert caught.reason == "version"
    assert f"rule {option} must be from 1 to" in str(caught)
    assert after_hello == [], "the joiner proved the code to a table it cannot play"
    top = {"target": 1000, "hands": 100}[option]
    assert _said(caught, Translator("fr")) == (
        f"l'hôte joue une partie que cette version ne sait pas jouer : la règle {option} va de 1 à {top},"
        f" pas {value}"
    )


@pytest.mark.parametrize("blank", ["", "   ", "\u00a0", "\u3000\u3000"])
def test_a_start_that_gives_any_seat_a_blank_name_is_refused_before_anything_is_signed(blank: str) -> None:
    """A hostile host gave one joiner a roster whose host name is blank and the other a
    proper one: the first would sign a ``join`` its own records' schema refuses, and the
    second would blame it for that. A ``start`` with a blank name (empty, or only white
    space) does not read, so no honest joiner signs it (protocol.md 2.4 and 9)."""
    from p2pcards.protocol.lobby import Seat, Start, decode_lobby
    from p2pcards.protocol.wire import WireError

    def start(name: str) -> bytes:
        seats = (
            Seat(name=name, key=bytes([1]) * 32, host="", port=0),
            Seat(name="Ann", key=bytes([2]) * 32, host="192.0.2.11", port=4000),
        )
        return encode_lobby(Start(roster=seats))

    assert isinstance(decode_lobby(start("Host")), Start)
    with pytest.raises(WireError, match="must not be blank"):
        decode_lobby(start(blank))


@pytest.mark.parametrize("players", [0, 1, 7])
def test_a_challenge_for_a_table_no_game_seats_does_not_read(players: int) -> None:
    """A table seats 2 to 6: a host's ``challenge`` for 0, 1 or 7 seats does not read, so a
    joiner proves the code to no such table (protocol.md 9)."""
    from p2pcards.protocol.lobby import Challenge, decode_lobby
    from p2pcards.protocol.wire import WireError

    def challenge(n: int) -> bytes:
        return encode_lobby(
            Challenge(game=bytes(16), key=bytes(32), nonce=bytes(32), pake=bytes(33), play="nines",
                      rules=(("target", 100),), players=n)
        )  # fmt: skip

    assert isinstance(decode_lobby(challenge(4)), Challenge)
    with pytest.raises(WireError, match="players"):
        decode_lobby(challenge(players))
