"""Who a seat links with is who the roster says: the host it pinned, the peers' roster keys.

Two checks of the lobby that a lying host or a replaying stranger would slip past:

* a joiner pins the host's key at the challenge (the key its TLS ended at, which the
  host's confirmation and signature then vouch for); the roster the host announces at the
  start must hold that key in seat 0, or the joiner would link with, and sign a join
  record for, someone else in the host's seat;
* a mesh link's ``link-auth`` signs the other end's fresh nonce, so a ``link-auth`` seen
  on one link (made for another nonce) proves nothing on the next.

The fake host here does the lobby handshake with the host's own admission machine
(:class:`p2pcards.protocol.admission.Admission`), so that only what it announces is a lie.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import replace

import pytest
import trio
import trio.testing
from net_helpers import CODE, FAST, LOCALHOST, RecordingUI, tls_connect, tls_serve

from p2pcards.crypto.identity import Identity, verify_signature
from p2pcards.errors import JoinRefused, PeerUnreachable
from p2pcards.games.nines.rules import NinesRules
from p2pcards.net import tls
from p2pcards.net.link import Link, LinkClosed
from p2pcards.net.session import SessionInfo, Timeouts, form_mesh, join_table
from p2pcards.protocol.admission import Admission, Enter, Proven, Seated, SendChallenge, Started
from p2pcards.protocol.lobby import (
    Challenge,
    LinkAuth,
    LobbyUpdate,
    Seat,
    Start,
    Welcome,
    decode_lobby_object,
    encode_lobby,
    link_message,
)
from p2pcards.protocol.lobby import Link as LinkHello
from p2pcards.protocol.messages import Body

RULES = NinesRules(hands=1)


async def receive(link: Link) -> Body:
    return decode_lobby_object(await link.receive())


def fake_host(
    host: Identity,
    announce: Identity | None,
    joiner_port: int | None = None,
    chatter: bool = False,
    hang_up_after: float | None = None,
) -> object:
    """A host of a two-seat table that admits one joiner by the book, then announces a
    roster with ``announce``'s key in seat 0 (its own key if None: the truth), and the
    joiner with ``joiner_port`` (if given) instead of the port of its hello; or, with
    ``chatter``, sends lobby updates for ever instead, hanging up ``hang_up_after`` seconds
    after each seating if that is given (and seating the joiner anew when it comes back)."""
    game = os.urandom(16)

    async def serve(stream: trio.abc.Stream) -> None:
        link = Link(await tls_serve(stream, host))
        me = Seat(name="host", key=host.public_key, host=LOCALHOST, port=1)
        admission: Admission[object] = Admission(game_id=game, host=me, players=2, code=CODE)
        now = trio.current_time()
        assert isinstance(admission.connected(link, LOCALHOST, now, os.urandom(32), os.urandom(64)), Enter)
        hello = await receive(link)
        challenge = admission.hello(link, hello, tls.channel_binding(link.stream))
        assert isinstance(challenge, SendChallenge), challenge
        rules = tuple(sorted(RULES.to_dict().items()))
        await link.send(
            encode_lobby(
                Challenge(
                    game=game,
                    key=host.public_key,
                    nonce=challenge.nonce,
                    pake=challenge.pake,
                    play="nines",
                    rules=rules,
                    players=2,
                )
            )
        )
        assert isinstance(admission.auth(link, await receive(link), trio.current_time()), Proven)
        seated = admission.seat(link)
        assert isinstance(seated, Seated), seated
        welcome = Welcome(seat=seated.seat, proof=seated.proof, sig=host.sign(seated.to_sign))
        await link.send(encode_lobby(welcome))
        seated_at = trio.current_time()
        while chatter:
            if hang_up_after is not None and trio.current_time() - seated_at >= hang_up_after:
                await link.aclose()
                return
            await link.send(encode_lobby(LobbyUpdate(names=("host", "ann"), players=3)))
            await trio.sleep(0.2)
        started = admission.start()
        assert isinstance(started, Started)
        roster = started.roster
        if announce is not None:
            roster = (replace(roster[0], key=announce.public_key), *roster[1:])
        if joiner_port is not None:
            roster = (roster[0], replace(roster[1], port=joiner_port))
        await link.send(encode_lobby(Start(roster=roster)))
        await trio.sleep_forever()

    return serve


async def join_fake_host(
    announce: Identity | None,
    host: Identity,
    joiner_port: int | None = None,
    chatter: bool = False,
    timeouts: Timeouts = FAST,
    hang_up_after: float | None = None,
) -> SessionInfo:
    """Join the fake host as ``ann`` (raises as :func:`join_table` does)."""
    listeners = await trio.open_tcp_listeners(0, host=LOCALHOST)
    got: list[SessionInfo | Exception] = []
    async with trio.open_nursery() as nursery:
        serve = fake_host(host, announce, joiner_port, chatter, hang_up_after)
        nursery.start_soon(trio.serve_listeners, serve, listeners)
        with trio.fail_after(10):
            try:
                got.append(
                    await join_table(
                        host=LOCALHOST,
                        port=listeners[0].socket.getsockname()[1],
                        code=CODE,
                        identity=Identity.generate(),
                        name="ann",
                        listen_port=1,
                        ui=RecordingUI(),
                        timeouts=timeouts,
                    )
                )
            except (JoinRefused, PeerUnreachable) as e:
                got.append(e)
        nursery.cancel_scope.cancel()
    if isinstance(got[0], Exception):
        raise got[0]
    return got[0]


async def test_a_joiner_takes_the_roster_the_host_it_pinned_announces() -> None:
    """The fake host is a good host when it tells the truth (so the test below fails for
    its lie alone)."""
    host = Identity.generate()
    info = await join_fake_host(None, host)
    assert info.seat == 1 and info.roster[0].key == host.public_key
    await info.links[0].aclose()


# Guards session.py _join: "roster[0].key != ch.key" (seat 0 of the announced roster holds
# the key the joiner pinned at the challenge).
async def test_a_roster_with_another_key_in_the_hosts_seat_is_refused() -> None:
    with pytest.raises(PeerUnreachable, match="inconsistent roster"):
        await join_fake_host(Identity.generate(), Identity.generate())


# Guards session.py join_table: the host lists each joiner with the port of its hello. With
# port 0 ("does not listen") every link of that seat would go through the host, which could
# then hold back what passes between the seats without anyone being able to tell who did.
async def test_a_roster_that_lists_this_seat_with_another_port_is_refused() -> None:
    with pytest.raises(
        PeerUnreachable, match=r"lists this seat with port 0, not the port this program listens on \(1\)"
    ):
        await join_fake_host(None, Identity.generate(), joiner_port=0)


# Guards session.py _join: the lobby's wait is one deadline, not one per frame.
async def test_a_host_that_sends_lobby_updates_for_ever_holds_a_joiner_only_the_lobby_timeout() -> None:
    short = replace(FAST, lobby=2.0)
    with pytest.raises(PeerUnreachable, match=r"did not start within 0\.0333 minutes"):
        await join_fake_host(None, Identity.generate(), chatter=True, timeouts=short)


# Guards session.py _join_retrying: the deadline set at the first seating holds across the
# joins again after a break, so a host that hangs up and seats the joiner anew cannot hold it
# one lobby timeout per seating.
async def test_a_host_that_hangs_up_and_seats_a_joiner_again_holds_it_only_the_lobby_timeout() -> None:
    short = replace(FAST, lobby=2.5)
    ui_started = trio.current_time()
    with pytest.raises(PeerUnreachable, match=r"did not start within 0\.0417 minutes"):
        await join_fake_host(None, Identity.generate(), chatter=True, timeouts=short, hang_up_after=0.8)
    assert trio.current_time() - ui_started < short.lobby + 3  # not a lobby timeout per seating


# Guards lobby.py link_message and session.py _link_handshake: a link-auth signs the other
# end's fresh nonce, so one made for another nonce (seen on an earlier link) is refused.
async def test_a_link_auth_replayed_with_another_nonce_is_refused() -> None:
    ids = [Identity.generate() for _ in range(3)]
    game = os.urandom(16)
    listeners = {s: await trio.open_tcp_listeners(0, host=LOCALHOST) for s in (1, 2)}
    ports = {0: 1} | {s: ls[0].socket.getsockname()[1] for s, ls in listeners.items()}
    roster = tuple(Seat(name=f"p{s}", key=ids[s].public_key, host=LOCALHOST, port=ports[s]) for s in range(3))
    infos = {s: SessionInfo(game_id=game, rules=RULES, roster=roster, seat=s) for s in (1, 2)}
    for info in infos.values():
        info.links[0] = Link(trio.testing.memory_stream_pair()[0])
    seen_nonce = os.urandom(32)  # seat 1's nonce on an earlier link with seat 2
    signed = link_message(game, seen_nonce, ids[2].public_key, ids[1].public_key)
    seen = ids[2].sign(signed)  # seat 2's genuine link-auth of that link
    assert verify_signature(ids[2].public_key, seen, signed)
    seat1_ui = RecordingUI()
    hung_up = trio.Event()
    seat1_done = trio.Event()
    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:

            async def seat1() -> None:
                await form_mesh(infos[1], ids[1], listeners[1], seat1_ui, FAST)
                seat1_done.set()

            async def replay() -> None:
                link = Link(await tls_connect(LOCALHOST, ports[1]))
                try:
                    theirs = await receive(link)
                    assert isinstance(theirs, LinkHello) and theirs.nonce != seen_nonce
                    mine = LinkHello(game=game, seat=2, key=ids[2].public_key, nonce=os.urandom(32))
                    await link.send(encode_lobby(mine))
                    if isinstance(await receive(link), LinkAuth):
                        await link.send(encode_lobby(LinkAuth(sig=seen)))
                        await link.receive()  # an accepted link stays quiet until the match
                except LinkClosed:
                    hung_up.set()

            nursery.start_soon(seat1)
            nursery.start_soon(replay)
            async with trio.open_nursery() as first:

                async def wait_for(event: trio.Event) -> None:
                    await event.wait()
                    first.cancel_scope.cancel()

                first.start_soon(wait_for, hung_up)
                first.start_soon(wait_for, seat1_done)
            assert hung_up.is_set() and 2 not in infos[1].links, "seat 1 took a replayed link-auth"
            assert any("could not prove it holds seat 2's key" in i for i in seat1_ui.infos), seat1_ui.infos
            # The real seat 2 still links.
            await form_mesh(infos[2], ids[2], listeners[2], RecordingUI(), FAST)
            await seat1_done.wait()
    assert set(infos[1].links) == {0, 2}
    for info in infos.values():
        for link in info.links.values():
            await link.aclose()


async def test_a_dial_that_reaches_another_key_fails_plainly_and_says_nothing_of_the_time() -> None:
    """Seat 2 dials seat 1 and finds at its address a node with another key: the mesh stops
    with that reason at once, and says of no seat that it sent no link in the mesh's time
    (its time was cut short by the failure, not run out)."""
    ids = [Identity.generate() for _ in range(4)]
    impostor = Identity.generate()
    game = os.urandom(16)
    fake = await trio.open_tcp_listeners(0, host=LOCALHOST)
    mine = await trio.open_tcp_listeners(0, host=LOCALHOST)
    ports = {0: 1, 1: fake[0].socket.getsockname()[1], 2: mine[0].socket.getsockname()[1], 3: 1}
    roster = tuple(Seat(name=f"p{s}", key=ids[s].public_key, host=LOCALHOST, port=ports[s]) for s in range(4))
    info = SessionInfo(game_id=game, rules=RULES, roster=roster, seat=2)
    info.links[0] = Link(trio.testing.memory_stream_pair()[0])
    ui = RecordingUI()

    async def serve(stream: trio.abc.Stream) -> None:
        with contextlib.suppress(Exception):
            link = Link(await tls_serve(stream, impostor))
            await link.receive()

    with trio.fail_after(10):
        async with trio.open_nursery() as nursery:
            nursery.start_soon(trio.serve_listeners, serve, fake)
            with pytest.raises(PeerUnreachable) as caught:
                await form_mesh(info, ids[2], mine, ui, replace(FAST, mesh=30.0))
            nursery.cancel_scope.cancel()
    # (Failed, not timed out: the mesh's 30 s would have run out within trio.fail_after(10) else.)
    assert str(caught.value).startswith("link to p1 (seat 1) failed"), caught.value
    assert not any("no link from it" in line for line in ui.infos), ui.infos
