"""The invitation code is proven with SPAKE2: one online guess per connection, nothing to test offline.

What is shown: the bytes of protocol.md section 9 (its test vector is read back from
the spec and recomputed, and an implementation written here from the spec's formulas
alone, with its own Edwards arithmetic after RFC 8032, agrees with the reference for
any code and entropy); that no message of any shape crashes the exchange; that a
confirmation made on another TLS session or for another key is a wrong code; and,
over real sockets, that a fake host which records everything a joiner sends cannot
single the code out of a dictionary that holds it, that a relay in the middle
cannot splice two honest handshakes, and that a joiner beside a spoofer that answers
first is seated at the real table.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest
import trio
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from hypothesis import given, settings
from hypothesis import strategies as st
from net_helpers import CODE, FAST, LOCALHOST, RecordingUI, tls_serve

from p2pcards.crypto import pake as pake_module
from p2pcards.crypto.identity import Identity
from p2pcards.crypto.pake import BadPakeMessage, Pake, Side
from p2pcards.errors import JoinRefused
from p2pcards.games.nines.rules import NinesRules
from p2pcards.net import tls
from p2pcards.net.link import Link, LinkClosed
from p2pcards.net.session import HostLobby, join_table
from p2pcards.net.words import WORDS
from p2pcards.protocol.admission import Admission, DoorLimits, Proven, Refuse, SendChallenge
from p2pcards.protocol.lobby import (
    Auth,
    Challenge,
    Hello,
    Refused,
    Role,
    Seat,
    confirmation,
    decode_lobby_object,
    encode_lobby,
    link_message,
    pake_binding,
)

ROOT = Path(__file__).resolve().parent.parent
SPEC = (ROOT / "protocol.md").read_text(encoding="utf-8")

# ---------------------------------------------------------------------------
# Ed25519 arithmetic from RFC 8032 (section 5.1), written here so that the spec's
# formulas are checked against something that is not the reference's library.

P = 2**255 - 19
L = 2**252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)
Point = tuple[int, int, int, int]  # extended coordinates (X, Y, Z, T)
IDENTITY: Point = (0, 1, 1, 0)


def add(a: Point, b: Point) -> Point:
    x1, y1, z1, t1 = a
    x2, y2, z2, t2 = b
    aa = (y1 - x1) * (y2 - x2) % P
    bb = (y1 + x1) * (y2 + x2) % P
    cc = 2 * t1 * t2 * D % P
    dd = 2 * z1 * z2 % P
    e, f, g, h = bb - aa, dd - cc, dd + cc, bb + aa
    return (e * f % P, g * h % P, f * g % P, e * h % P)


def mul(k: int, a: Point) -> Point:
    out = IDENTITY
    while k:
        if k & 1:
            out = add(out, a)
        a = add(a, a)
        k >>= 1
    return out


def neg(a: Point) -> Point:
    x, y, z, t = a
    return (-x % P, y, z, -t % P)


def same(a: Point, b: Point) -> bool:
    return (a[0] * b[2] - b[0] * a[2]) % P == 0 and (a[1] * b[2] - b[1] * a[2]) % P == 0


def encode(a: Point) -> bytes:
    zi = pow(a[2], P - 2, P)
    x, y = a[0] * zi % P, a[1] * zi % P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def decode(s: bytes) -> Point | None:
    """RFC 8032 5.1.3, strict: None unless ``s`` is a canonical encoding of a curve point."""
    n = int.from_bytes(s, "little")
    sign, y = n >> 255, n & ((1 << 255) - 1)
    if y >= P:
        return None
    u, v = (y * y - 1) % P, (D * y * y + 1) % P
    x = u * pow(v, 3, P) * pow(u * pow(v, 7, P), (P - 5) // 8, P) % P
    if (v * x * x - u) % P:
        x = x * SQRT_M1 % P
        if (v * x * x - u) % P:
            return None
    if x == 0 and sign:
        return None
    if x & 1 != sign:
        x = P - x
    return (x, y, 1, x * y % P)


G = decode((4 * pow(5, P - 2, P) % P).to_bytes(32, "little"))
assert G is not None


def spec_hex(name: str) -> bytes:
    """A value of protocol.md's SPAKE2 block or test vector, read from the spec itself."""
    found = re.findall(rf"^{re.escape(name)}\s+=\s+([0-9a-f]{{64,}})$", SPEC, re.M)
    assert len(found) == 1, f"protocol.md names {name} {len(found)} times"
    return bytes.fromhex(found[0])


M = decode(spec_hex("M"))
N = decode(spec_hex("N"))


@dataclass(frozen=True)
class SpecSide:
    """One side of the exchange, exactly as protocol.md section 9 writes it."""

    code: str
    entropy: bytes
    joiner: bool

    @property
    def password(self) -> bytes:
        return b"p2pcards/v2/code\x00" + self.code.encode()

    @property
    def w(self) -> int:
        hkdf = HKDF(algorithm=hashes.SHA256(), length=48, salt=b"", info=b"SPAKE2 pw")
        return int.from_bytes(hkdf.derive(self.password), "big") % L

    @property
    def scalar(self) -> int:
        return int.from_bytes(self.entropy, "big") % L

    @property
    def element(self) -> Point:
        assert M is not None and N is not None
        return add(mul(self.scalar, G), mul(self.w, M if self.joiner else N))

    @property
    def message(self) -> bytes:
        return (b"A" if self.joiner else b"B") + encode(self.element)

    def key(self, peer_message: bytes) -> bytes:
        assert M is not None and N is not None
        peer = decode(peer_message[1:])
        assert peer is not None
        k = mul(self.scalar, add(peer, neg(mul(self.w, N if self.joiner else M))))
        x, y = (self.message, peer_message) if self.joiner else (peer_message, self.message)
        h = hashlib.sha256
        return h(
            h(self.password).digest()
            + h(b"p2pcards/v2/joiner").digest()
            + h(b"p2pcards/v2/host").digest()
            + x[1:]
            + y[1:]
            + encode(k)
        ).digest()


def spec_binding(
    game: bytes, jk: bytes, hk: bytes, nj: bytes, nh: bytes, pj: bytes, ph: bytes, ch: bytes
) -> bytes:
    return b"p2pcards/v2/pake\x00" + game + jk + hk + nj + nh + pj + ph + bytes([len(ch)]) + ch


def spec_proof(key: bytes, joiner: bool, binding: bytes) -> bytes:
    role = b"p2pcards/v2/confirm-joiner\x00" if joiner else b"p2pcards/v2/confirm-host\x00"
    return hmac.digest(key, role + binding, "sha256")


# ---------------------------------------------------------------------------
# The bytes


VECTOR_CODE = "43-robin-maple"
VECTOR = dict(
    game=bytes(range(16)),
    jk=b"\x11" * 32,
    hk=b"\x22" * 32,
    nj=b"\x33" * 32,
    nh=b"\x44" * 32,
    ch=b"\x55" * 32,
)


def test_the_test_vector_of_the_spec_is_what_the_reference_computes() -> None:
    assert "`43-robin-maple`" in SPEC  # the inputs below are the spec's
    joiner = Pake.start(Side.JOINER, VECTOR_CODE, bytes(range(64)))
    host = Pake.start(Side.HOST, VECTOR_CODE, bytes(range(64, 128)))
    assert joiner.message == spec_hex("joiner's pake")
    assert host.message == spec_hex("host's pake")
    key = joiner.finish(host.message)
    assert key == host.finish(joiner.message) == spec_hex("key")
    v = VECTOR
    binding = pake_binding(
        v["game"], v["jk"], v["hk"], v["nj"], v["nh"], joiner.message, host.message, v["ch"]
    )
    assert confirmation(key, Role.JOINER, binding) == spec_hex("proof_joiner")
    assert confirmation(key, Role.HOST, binding) == spec_hex("proof_host")


def test_the_spec_formulas_alone_give_the_test_vector() -> None:
    joiner = SpecSide(VECTOR_CODE, bytes(range(64)), joiner=True)
    host = SpecSide(VECTOR_CODE, bytes(range(64, 128)), joiner=False)
    assert (joiner.message, host.message) == (spec_hex("joiner's pake"), spec_hex("host's pake"))
    key = joiner.key(host.message)
    assert key == host.key(joiner.message) == spec_hex("key")
    v = VECTOR
    binding = spec_binding(
        v["game"], v["jk"], v["hk"], v["nj"], v["nh"], joiner.message, host.message, v["ch"]
    )
    assert spec_proof(key, True, binding) == spec_hex("proof_joiner")
    assert spec_proof(key, False, binding) == spec_hex("proof_host")


def test_the_blinding_elements_of_the_spec_are_the_references_and_in_the_group() -> None:
    assert (spec_hex("M"), spec_hex("N")) == (pake_module.M, pake_module.N)
    for e in M, N:
        assert e is not None and same(mul(L, e), IDENTITY) and not same(e, IDENTITY)


codes = st.builds(
    lambda n, a, b: f"{n}-{a}-{b}", st.integers(2, 99), st.sampled_from(WORDS), st.sampled_from(WORDS)
)


@settings(max_examples=25, deadline=None)
@given(
    code=codes, other=codes, ej=st.binary(min_size=64, max_size=64), eh=st.binary(min_size=64, max_size=64)
)
def test_the_spec_and_the_reference_agree_for_any_code_and_entropy(
    code: str, other: str, ej: bytes, eh: bytes
) -> None:
    joiner, host = Pake.start(Side.JOINER, code, ej), Pake.start(Side.HOST, other, eh)
    sj, sh = SpecSide(code, ej, joiner=True), SpecSide(other, eh, joiner=False)
    assert (joiner.message, host.message) == (sj.message, sh.message)
    kj, kh = joiner.finish(host.message), host.finish(joiner.message)
    assert (kj, kh) == (sj.key(sh.message), sh.key(sj.message))
    assert (kj == kh) == (code == other)  # the keys agree exactly when the codes do


# ---------------------------------------------------------------------------
# Unusable messages


@pytest.mark.parametrize(
    "message, why",
    [
        (b"A" + pake_module.M, "the joiner's side byte, sent to the joiner"),
        (b"B" + bytes(32), "not 33 bytes"),
        (b"B" + bytes([1]) + bytes(31), "the identity"),
        (b"B" + (P - 1).to_bytes(32, "little"), "a point of order 2"),
        (b"B" + (P + 1).to_bytes(32, "little"), "the identity, encoded with y >= p"),
        (b"B" + (1 | 1 << 255).to_bytes(32, "little"), "the identity with a negative zero x"),
        (b"B" + (2).to_bytes(32, "little"), "y = 2 is on no point of the curve"),
        (b"B" + bytes([1]) + bytes(30), "too short by one"),
    ],
)
def test_an_unusable_message_is_refused_as_such(message: bytes, why: str) -> None:
    joiner = Pake.start(Side.JOINER, CODE, os.urandom(64))
    with pytest.raises(BadPakeMessage):
        joiner.finish(message)


def test_a_point_outside_the_prime_order_subgroup_is_refused() -> None:
    # A valid element plus a point of order 2: on the curve, but not in the group.
    assert N is not None
    mixed = encode(add(N, (0, P - 1, 1, 0)))
    assert decode(mixed) is not None and not same(mul(L, decode(mixed)), IDENTITY)  # type: ignore[arg-type]
    with pytest.raises(BadPakeMessage, match="group element"):
        Pake.start(Side.JOINER, CODE, os.urandom(64)).finish(b"B" + mixed)


def test_a_reflected_message_is_refused() -> None:
    # The host's own element sent back with the joiner's side byte.
    host = Pake.start(Side.HOST, CODE, os.urandom(64))
    with pytest.raises(BadPakeMessage):
        host.finish(b"A" + host.message[1:])


@settings(max_examples=300, deadline=None)
@given(message=st.binary(min_size=0, max_size=40), side=st.sampled_from(Side))
def test_any_bytes_are_a_key_or_an_unusable_message(message: bytes, side: Side) -> None:
    pake = Pake.start(side, CODE, os.urandom(64))
    try:
        key = pake.finish(message)
    except BadPakeMessage:
        point = decode(message[1:]) if len(message) == 33 else None
        expected = b"B" if side is Side.JOINER else b"A"
        assert (
            point is None
            or message[:1] != expected
            or not same(mul(L, point), IDENTITY)
            or same(point, IDENTITY)
            or encode(point) == pake.message[1:]
        )
    else:
        point = decode(message[1:])
        assert len(key) == 32 and point is not None and same(mul(L, point), IDENTITY)


def test_a_side_finishes_once() -> None:
    joiner = Pake.start(Side.JOINER, CODE, os.urandom(64))
    host = Pake.start(Side.HOST, CODE, os.urandom(64))
    joiner.finish(host.message)
    with pytest.raises(ValueError, match="finished already"):
        joiner.finish(host.message)


# ---------------------------------------------------------------------------
# The binding: a confirmation proves the code only on its own connection, between its own keys

HOST = Identity.from_bytes(bytes([1]) * 32)
GAME = bytes(range(16))
CHANNEL = b"\xcb" * 48


def admitted(channel_seen_by_joiner: bytes, host_key_seen_by_joiner: bytes) -> Proven | Refuse:
    """One joiner with the right code, whose view of the connection may differ from the host's."""
    door = Admission[str](
        game_id=GAME,
        host=Seat(name="host", key=HOST.public_key, host="", port=0),
        players=3,
        code=CODE,
        limits=DoorLimits(),
    )
    me = Identity.from_bytes(bytes([7]) * 32)
    nj = os.urandom(32)
    joiner = Pake.start(Side.JOINER, CODE, os.urandom(64))
    hello = Hello(name="ann", key=me.public_key, nonce=nj, port=1, pake=joiner.message)
    door.connected("c", "198.18.0.5", 0.0, os.urandom(32), os.urandom(64))
    ch = door.hello("c", hello, CHANNEL)
    assert isinstance(ch, SendChallenge)
    key = joiner.finish(ch.pake)
    binding = pake_binding(
        GAME,
        me.public_key,
        host_key_seen_by_joiner,
        nj,
        ch.nonce,
        joiner.message,
        ch.pake,
        channel_seen_by_joiner,
    )
    sig = me.sign(link_message(GAME, ch.nonce, me.public_key, HOST.public_key))
    return door.auth("c", Auth(proof=confirmation(key, Role.JOINER, binding), sig=sig), 0.1)


def test_the_right_code_on_the_same_connection_is_proven() -> None:
    assert isinstance(admitted(CHANNEL, HOST.public_key), Proven)


@pytest.mark.parametrize(
    "channel, host_key",
    [(b"\xcc" * 48, HOST.public_key), (CHANNEL[:32], HOST.public_key), (CHANNEL, b"\x22" * 32)],
    ids=["another TLS session", "another TLS hash", "another host key"],
)
def test_the_right_code_confirmed_for_another_connection_or_key_is_a_wrong_code(
    channel: bytes, host_key: bytes
) -> None:
    decision = admitted(channel, host_key)
    assert isinstance(decision, Refuse) and decision.reason.value == "wrong-code"


# ---------------------------------------------------------------------------
# Over real sockets: a fake host, a relay in the middle, a spoofer beside the real host


def dictionary(real: str, size: int) -> list[str]:
    """``size`` codes of the real code's number, the real one among them."""
    number = real.split("-")[0]
    others = [f"{number}-{a}-{b}" for a in WORDS[:16] for b in WORDS[:16] if f"{number}-{a}-{b}" != real]
    return sorted([real, *others[: size - 1]])


REAL = "7-amber-lantern"
assert REAL == CODE


@dataclass
class FakeHost:
    """A TLS server that plays the host's part with a code it guesses, and records the joiner.

    It knows its own SPAKE2 scalar (it drew it), which is all an attacker at this end
    can know; after the joiner's ``auth`` it refuses ``wrong-code``, as a host would."""

    guess: str
    me: Identity = field(default_factory=Identity.generate)
    entropy: bytes = field(default_factory=lambda: os.urandom(64))
    seen: list[tuple[Hello, Challenge, Auth, bytes]] = field(default_factory=list)

    async def handle(self, stream: trio.abc.Stream) -> None:
        try:
            secured = await tls_serve(stream, self.me)
            link = Link(secured)
            hello = decode_lobby_object(await link.receive())
            assert isinstance(hello, Hello)
            ch = Challenge(
                game=bytes(16),
                key=self.me.public_key,
                nonce=os.urandom(32),
                pake=SpecSide(self.guess, self.entropy, joiner=False).message,
                play="nines",
                rules=tuple(sorted(NinesRules().to_dict().items())),
                players=3,
            )
            await link.send(encode_lobby(ch))
            auth = decode_lobby_object(await link.receive())
            assert isinstance(auth, Auth)
            self.seen.append((hello, ch, auth, tls.channel_binding(secured)))
            await link.send(encode_lobby(Refused(reason="wrong-code", message="try again")))
            await secured.aclose()
        except (LinkClosed, trio.BrokenResourceError, tls.TLSError):
            pass

    def matches(self, candidates: list[str]) -> list[str]:
        """Every code the recorded confirmation is consistent with, tried offline."""
        assert M is not None and N is not None
        (hello, ch, auth, channel) = self.seen[0]
        y = int.from_bytes(self.entropy, "big") % L
        x_point = decode(hello.pake[1:])
        assert x_point is not None
        binding = spec_binding(
            ch.game, hello.key, ch.key, hello.nonce, ch.nonce, hello.pake, ch.pake, channel
        )
        found = []
        for code in candidates:
            side = SpecSide(code, self.entropy, joiner=False)
            k = mul(y, add(x_point, neg(mul(side.w, M))))
            h = hashlib.sha256
            key = h(
                h(side.password).digest()
                + h(b"p2pcards/v2/joiner").digest()
                + h(b"p2pcards/v2/host").digest()
                + hello.pake[1:]
                + ch.pake[1:]
                + encode(k)
            ).digest()
            if hmac.compare_digest(spec_proof(key, True, binding), auth.proof):
                found.append(code)
        return found


async def serve(handler: object, nursery: trio.Nursery) -> int:
    listeners = await trio.open_tcp_listeners(0, host=LOCALHOST)
    nursery.start_soon(trio.serve_listeners, handler, listeners)
    return int(listeners[0].socket.getsockname()[1])


async def join(
    port: int, alternatives: tuple[tuple[str, int], ...] = (), ui: RecordingUI | None = None
) -> object:
    return await join_table(
        host=LOCALHOST,
        port=port,
        code=REAL,
        identity=Identity.generate(),
        name="ann",
        listen_port=1,
        ui=ui or RecordingUI(),
        timeouts=FAST,
        alternatives=alternatives,
    )


@pytest.mark.parametrize(
    "guess, expected", [("7-acid-acid", []), (REAL, [REAL])], ids=["wrong guess", "right"]
)
async def test_a_fake_host_that_records_the_joiner_cannot_single_out_the_code(
    guess: str, expected: list[str]
) -> None:
    words = dictionary(REAL, 48)
    assert REAL in words and guess in [*words, "7-acid-acid"]
    fake = FakeHost(guess=guess)
    async with trio.open_nursery() as nursery:
        port = await serve(fake.handle, nursery)
        with trio.fail_after(20), pytest.raises(JoinRefused) as caught:
            await join(port)
        nursery.cancel_scope.cancel()
    assert caught.value.reason == "wrong-code"
    assert len(fake.seen) == 1
    # Everything the joiner sent is in ``seen``: a wrong guess rules out no code and
    # confirms none (no code of the dictionary matches, the real one included); only a
    # host that ran the exchange with the right code sees it confirmed.
    assert fake.matches(words) == expected


def host_lobby(ui: RecordingUI) -> HostLobby:
    return HostLobby(
        identity=Identity.generate(),
        name="host",
        rules=NinesRules(hands=1),
        players=3,
        code=REAL,
        game_id=os.urandom(16),
        ui=ui,
        timeouts=FAST,
    )


def replaced(body: Hello | Challenge | Auth, **fields: object) -> Hello | Challenge | Auth:
    return type(body)(**{**{f: getattr(body, f) for f in body.SCHEMA if hasattr(body, f)}, **fields})


@pytest.mark.parametrize(
    "takes_the_seat, refusal",
    [(False, "bad-signature"), (True, "wrong-code")],
    ids=["passes the joiner on", "takes the seat itself"],
)
async def test_a_relay_in_the_middle_cannot_splice_two_honest_handshakes(
    takes_the_seat: bool, refusal: str
) -> None:
    """A relay holds a TLS session with the joiner (its own certificate, and its own key in
    the challenge, since with the host's the joiner's pin check stops it at once) and one
    with the host, and passes the SPAKE2 messages and the joiner's confirmation on
    unchanged. Passing the joiner on, the joiner's signature names the relay's key and
    the host refuses it; taking the seat itself (its own key in the hello, its own
    signature), the joiner's confirmation names the other session and keys, so the
    right code counts as a wrong one. Either way nobody is seated."""
    host_ui = RecordingUI()
    lobby = host_lobby(host_ui)
    relay_id = Identity.generate()
    told: list[Refused] = []

    async def relay(stream: trio.abc.Stream) -> None:
        joiner = Link(await tls_serve(stream, relay_id))
        secured = tls.client(await trio.open_tcp_stream(LOCALHOST, host_port))
        await tls.handshake(secured)
        host = Link(secured)
        hello = decode_lobby_object(await joiner.receive())
        assert isinstance(hello, Hello)
        if takes_the_seat:
            hello = replaced(hello, key=relay_id.public_key)
        await host.send(encode_lobby(hello))
        ch = decode_lobby_object(await host.receive())
        assert isinstance(ch, Challenge)
        await joiner.send(encode_lobby(replaced(ch, key=relay_id.public_key)))
        auth = decode_lobby_object(await joiner.receive())
        assert isinstance(auth, Auth)
        if takes_the_seat:
            signed = link_message(ch.game, ch.nonce, relay_id.public_key, ch.key)
            auth = replaced(auth, sig=relay_id.sign(signed))
        await host.send(encode_lobby(auth))
        answer = decode_lobby_object(await host.receive())
        assert isinstance(answer, Refused)
        told.append(answer)
        await joiner.send(encode_lobby(answer))

    async with trio.open_nursery() as nursery:
        host_port = await serve(lobby.handle, nursery)
        relay_port = await serve(relay, nursery)
        with trio.fail_after(20), pytest.raises(JoinRefused) as caught:
            await join(relay_port)
        nursery.cancel_scope.cancel()
    assert [t.reason for t in told] == [refusal] and caught.value.reason == refusal
    assert lobby.refused[refusal] == 1 and not any(len(names) > 1 for names in host_ui.lobbies)


async def test_a_joiner_beside_a_spoofer_that_answers_first_is_seated_at_the_real_table() -> None:
    host_ui = RecordingUI()
    lobby = host_lobby(host_ui)
    fake = FakeHost(guess="7-acid-acid")
    ui = RecordingUI()
    async with trio.open_nursery() as nursery:
        fake_port = await serve(fake.handle, nursery)
        real_port = await serve(lobby.handle, nursery)

        async def seat() -> None:
            await join(fake_port, alternatives=((LOCALHOST, real_port),), ui=ui)

        nursery.start_soon(seat)
        with trio.fail_after(20):
            await host_ui.wait_for(lambda u: bool(u.lobbies) and "ann" in u.lobbies[-1])
        nursery.cancel_scope.cancel()
    assert len(fake.seen) == 1 and fake.matches(dictionary(REAL, 16)) == []
    assert any("trying the next host" in str(line) for line in ui.infos)  # told that it moves on
