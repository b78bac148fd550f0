"""The host's admission machine on its own: no sockets, no trio, no clock, no randomness.

Time is a float the test passes in, nonces, SPAKE2 entropy and the TLS channel
binding are fixed bytes, and each joiner's SPAKE2 side is derived from its name,
so that a test can rebuild what it sent. What is
shown: every refusal reason with the message a joiner reads, the order of the
checks (the same as protocol.md section 9, which is read back and compared),
the door's limits per address (an IPv6 /64 is one address) and in all, the
eviction of the longest waiting stranger, the growing waits after wrong codes,
a seat freed by a joiner who leaves before the start, the roster at the start,
and, for any interleaving, distinct names and keys, never more seats than the
table has, and a started table that seats nobody.
"""

from __future__ import annotations

import itertools
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, precondition, rule

from p2pcards.crypto.identity import Identity
from p2pcards.crypto.pake import Pake, Side
from p2pcards.errors import LocalProtocolError
from p2pcards.protocol import admission as admission_module
from p2pcards.protocol.admission import (
    MAX_REFUSAL,
    Admission,
    Door,
    DoorLimits,
    Enter,
    Evict,
    Left,
    Proven,
    Reason,
    Refuse,
    Seated,
    SendChallenge,
    Stage,
    Started,
    address_group,
    network_group,
)
from p2pcards.protocol.lobby import (
    REFUSALS,
    Auth,
    Hello,
    Role,
    Seat,
    VersionMismatch,
    confirmation,
    link_message,
    pake_binding,
)
from p2pcards.protocol.notice import Notice, refusal
from p2pcards.protocol.wire import WireError

ROOT = Path(__file__).resolve().parent.parent
GAME = bytes(range(16))
CODE = "7-amber-lantern"
WRONG = "7-amber-lentern"
"""A wrong code (one letter off)."""
CHANNEL = bytes([0xCB]) * 32
"""Stands for the connection's TLS ``tls-unique``."""
ENTROPY = bytes([0xE7]) * 64
"""The host's SPAKE2 entropy (the same for every connection: fine for a test, never in play)."""
HOST = Identity.from_bytes(bytes([1]) * 32)
HOST_SEAT = Seat(name="host", key=HOST.public_key, host="", port=0)
UNUSABLE_KEY = bytes(32)
"""A small-order point: no private key behind it (protocol.md 3.7)."""


def identity(n: int) -> Identity:
    return Identity.from_bytes(bytes([n + 100]) * 32)


def admission(players: int = 3, host_name: str = "host", **limits: float) -> Admission[str]:
    host = Seat(name=host_name, key=HOST.public_key, host="", port=0)
    return Admission(game_id=GAME, host=host, players=players, code=CODE, limits=DoorLimits(**limits))


@dataclass
class Joiner:
    """What a joiner sends, built the way ``join_table`` builds it (or wrongly, on request)."""

    name: str
    me: Identity = field(default_factory=lambda: identity(0))
    nonce: bytes = bytes([0xAA]) * 32
    port: int = 4000
    key: bytes | None = None
    """The key announced in the hello (the identity's unless set)."""

    @property
    def announced(self) -> bytes:
        return self.key if self.key is not None else self.me.public_key

    def pake(self, code: str = CODE) -> Pake | MemoPake:
        """The joiner's SPAKE2 side, the same every time for this name and nonce."""
        return joiner_pake(code, self.name, self.nonce)

    def hello(self, code: str = CODE) -> Hello:
        pake = self.pake(code).message
        return Hello(name=self.name, key=self.announced, nonce=self.nonce, port=self.port, pake=pake)

    def auth(self, ch: SendChallenge, *, code: str = CODE, signer: Identity | None = None) -> Auth:
        pake = self.pake(code)
        key = pake.finish(ch.pake)
        binding = pake_binding(
            GAME, self.announced, HOST.public_key, self.nonce, ch.nonce, pake.message, ch.pake, CHANNEL
        )
        sig = (signer or self.me).sign(link_message(GAME, ch.nonce, self.announced, HOST.public_key))
        return Auth(proof=confirmation(key, Role.JOINER, binding), sig=sig)


def host_confirmation(joiner: Joiner, ch: SendChallenge) -> bytes:
    """What the host's ``welcome`` proves with, computed from the joiner's side."""
    pake = joiner.pake()
    key = pake.finish(ch.pake)
    binding = pake_binding(
        GAME, joiner.announced, HOST.public_key, joiner.nonce, ch.nonce, pake.message, ch.pake, CHANNEL
    )
    return confirmation(key, Role.HOST, binding)


def joiner_pake(code: str, name: str, nonce: bytes) -> Pake | MemoPake:
    entropy = (name.encode() + nonce + bytes(64))[:64]
    return MemoPake.start(Side.JOINER, code, entropy)


def host_message(code: str = CODE) -> bytes:
    """A host's SPAKE2 message for ``code`` (what ``hello`` answers with, given ``ENTROPY``)."""
    return MemoPake.start(Side.HOST, code, ENTROPY).message


_nonces = itertools.count(1)


def fresh_nonce() -> bytes:
    return next(_nonces).to_bytes(32, "big")


def challenge(
    adm: Admission[str], conn: str, joiner: Joiner, peer: str = "192.0.2.1", now: float = 0.0
) -> SendChallenge:
    """Connect and say hello; the host's challenge (fails unless challenged)."""
    assert isinstance(adm.connected(conn, peer, now, fresh_nonce(), ENTROPY), Enter | Evict)
    answer = adm.hello(conn, joiner.hello(), CHANNEL)
    assert isinstance(answer, SendChallenge), answer
    return answer


def join(
    adm: Admission[str],
    conn: str,
    joiner: Joiner,
    peer: str = "192.0.2.1",
    now: float = 0.0,
    *,
    code: str = CODE,
    signer: Identity | None = None,
    gone: frozenset[int] = frozenset(),
) -> Seated | Refuse:
    """A whole join: connect, hello, auth (the right code unless told otherwise), seat
    (``gone``: the seats the match went on without)."""
    door = adm.connected(conn, peer, now, fresh_nonce(), ENTROPY)
    if isinstance(door, Refuse):
        return door
    answer = adm.hello(conn, joiner.hello(code), CHANNEL)
    if isinstance(answer, Refuse):
        return answer
    proven = adm.auth(conn, joiner.auth(answer, code=code, signer=signer), now)
    if isinstance(proven, Refuse):
        return proven
    return adm.seat(conn, gone)


def seated(adm: Admission[str], conn: str, name: str, n: int, peer: str = "203.0.113.5") -> Seated:
    decision = join(adm, conn, Joiner(name, identity(n)), peer=peer)
    assert isinstance(decision, Seated), decision
    return decision


def reason(decision: object) -> str:
    assert isinstance(decision, Refuse), decision
    return str(decision.reason)


def message(decision: object) -> str:
    assert isinstance(decision, Refuse), decision
    return decision.message


def test_the_machine_loads_without_trio_or_the_network_layer() -> None:
    probe = (
        "import sys, p2pcards.protocol.admission; "
        "print(sorted(m for m in sys.modules if m == 'trio' or m.startswith('p2pcards.net')))"
    )
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert loaded.stdout.strip() == "[]"


# ---------------------------------------------------------------------------
# Seated


def test_a_joiner_with_the_code_is_seated_and_gets_what_proves_the_host() -> None:
    adm = admission(3)
    ann = Joiner("ann", identity(1), nonce=bytes([5]) * 32, port=4242)
    assert isinstance(adm.connected("c", "192.0.2.1", 0.0, bytes([9]) * 32, ENTROPY), Enter)
    assert adm.stage("c") is Stage.HELLO and adm.pending == 1
    ch = adm.hello("c", ann.hello(), CHANNEL)
    assert ch == SendChallenge(bytes([9]) * 32, host_message())
    assert adm.stage("c") is Stage.AUTH and adm.pending == 1
    assert adm.auth("c", ann.auth(ch), 1.0) == Proven()
    assert adm.stage("c") is Stage.PROVEN and adm.pending == 0  # a proven joiner holds no place
    decision = adm.seat("c")
    assert decision == Seated(
        seat=1,
        proof=host_confirmation(ann, ch),
        to_sign=link_message(GAME, ann.nonce, HOST.public_key, ann.me.public_key),
        note="ann joined from 192.0.2.1",
    )
    assert adm.stage("c") is None and adm.seated() == ("c",)
    assert adm.names() == ("host", "ann") and not adm.full and not adm.started


# ---------------------------------------------------------------------------
# Every refusal, with what the joiner reads


def test_a_wrong_code_is_refused_and_the_host_is_told_who_tried() -> None:
    adm = admission(3)
    decision = join(adm, "c", Joiner("eve"), peer="198.51.100.7", code=WRONG)
    assert decision == Refuse(
        Reason.WRONG_CODE, "wrong invitation code", "refused 'eve' from 198.51.100.7: wrong invitation code"
    )
    assert adm.names() == ("host",) and adm.stage("c") is None and adm.pending == 0


def test_a_full_table_refuses_at_the_hello_and_a_started_one_once_the_code_is_proven() -> None:
    """Once started, every hello is challenged: a stranger without the code learns nothing,
    not even that the game started, and a latecomer with it hears ``started``."""
    adm = admission(2)
    seated(adm, "ann", "ann", 1)
    assert adm.full
    adm.connected("late", "192.0.2.1", 0.0, fresh_nonce(), ENTROPY)
    assert adm.hello("late", Joiner("bob", identity(2)).hello(), CHANNEL) == Refuse(
        Reason.TABLE_FULL, "the table is full"
    )
    assert isinstance(adm.start(), Started)
    assert reason(join(adm, "guess", Joiner("eve", identity(4)), code=WRONG)) == "wrong-code"
    assert reason(join(adm, "later", Joiner("cat", identity(3)), peer="192.0.2.9")) == "started"
    assert adm.pending == 0 and adm.names() == ("host", "ann")  # nobody holds a place or a seat


def test_a_seat_the_match_went_on_without_is_refused_left_not_seated_again() -> None:
    """Bob left (or was judged gone) and the others went on: proving the code again gets him
    a refusal that says so, and the host's note says who tried; Ann, still at the table,
    would be seated again."""
    adm = admission(3)
    seated(adm, "ann", "ann", 1)
    seated(adm, "bob", "bob", 2)
    assert isinstance(adm.start(), Started)
    answer = join(adm, "bob back", Joiner("bob", identity(2)), "198.51.100.4", 5.0, gone=frozenset({2}))
    assert isinstance(answer, Refuse) and answer.reason == Reason.LEFT, answer
    assert "cannot come back" in answer.message
    assert answer.note == "refused bob from 198.51.100.4: they left the game, which went on without them"
    again = join(adm, "ann back", Joiner("ann", identity(1)), "198.51.100.5", 6.0, gone=frozenset({2}))
    assert isinstance(again, Seated) and again.again and again.seat == 1
    assert adm.pending == 0


def test_a_seat_whose_start_was_lost_joins_again_at_its_seat() -> None:
    """A joiner of the roster that proves the code again after the start (its connection broke
    as ``start`` went out) is seated again at its roster seat, whatever name it gives now;
    the roster does not change, and the host's key or a stranger's is no seat."""
    adm = admission(3)
    seated(adm, "ann", "ann", 1)
    seated(adm, "bob", "bob", 2)
    started = adm.start()
    assert isinstance(started, Started)
    bob = Joiner("robert", identity(2), nonce=bytes([7]) * 32)
    door = adm.connected("bob again", "198.51.100.4", 5.0, bytes([3]) * 32, ENTROPY)
    assert isinstance(door, Enter)
    ch = adm.hello("bob again", bob.hello(), CHANNEL)
    assert isinstance(ch, SendChallenge)
    assert adm.auth("bob again", bob.auth(ch), 5.0) == Proven()
    assert adm.seat("bob again") == Seated(
        seat=2,
        proof=host_confirmation(bob, ch),
        to_sign=link_message(GAME, bob.nonce, HOST.public_key, identity(2).public_key),
        note="bob joined again from 198.51.100.4: the start had not reached them",
        again=True,
    )
    assert adm.seating.roster() == started.roster and adm.seated() == ("ann", "bob")
    assert reason(join(adm, "bob, wrong code", Joiner("bob", identity(2)), code=WRONG)) == "wrong-code"
    host_key = Joiner("host", HOST)
    assert reason(join(adm, "the host's key", host_key, peer="192.0.2.77")) == "started"
    assert reason(join(adm, "eve", Joiner("eve", identity(5)), peer="192.0.2.78")) == "started"
    assert adm.pending == 0


def test_the_hello_reveals_nothing_about_who_is_seated() -> None:
    adm = admission(4)
    seated(adm, "ann", "ann", 1)
    # A taken name and a taken key are challenged like any other hello: only the code opens that.
    challenge(adm, "twin", Joiner("ANN", identity(1)))


def test_a_name_taken_ignoring_case_or_blank_is_refused() -> None:
    adm = admission(5, host_name="Alice")
    assert join(adm, "c1", Joiner("alice", identity(1))) == Refuse(
        Reason.NAME_TAKEN, "the name 'alice' is already taken at this table"
    )
    blank = join(adm, "c2", Joiner("   ", identity(1)))
    assert isinstance(blank, Refuse) and blank.reason is Reason.NAME_TAKEN
    assert blank.message.startswith("a name of nothing but spaces is no name")  # not "already taken"
    assert str(refusal("name-taken", "   ")) == blank.message  # and the joiner says the same
    seated(adm, "s", "Straße", 2)
    assert reason(join(adm, "c3", Joiner("STRASSE", identity(3)))) == "name-taken"  # Unicode case folding
    odd = "\ue000" * 32  # private use: its quoted form is six times as long
    seated(adm, "s2", odd, 4)
    refused = join(adm, "c4", Joiner(odd, identity(5)))
    assert isinstance(refused, Refuse) and refused.reason is Reason.NAME_TAKEN
    assert len(refused.message) == MAX_REFUSAL and refused.message.endswith("...")  # cut to fit the schema
    assert adm.names() == ("Alice", "Straße", odd)


def test_one_key_takes_one_seat_the_hosts_included() -> None:
    adm = admission(4)
    assert join(adm, "c1", Joiner("copy", HOST)) == Refuse(
        Reason.SAME_KEY, "that key already has a seat at this table"
    )
    seated(adm, "first", "first", 1)
    assert reason(join(adm, "c2", Joiner("second", identity(1)))) == "same-key"
    assert adm.names() == ("host", "first")


def test_an_unusable_key_and_a_signature_by_another_key_are_refused() -> None:
    adm = admission(3)
    assert join(adm, "c1", Joiner("zero", identity(1), key=UNUSABLE_KEY)) == Refuse(
        Reason.BAD_KEY, "that public key cannot be used"
    )
    assert join(adm, "c2", Joiner("mallory", identity(2)), signer=identity(3)) == Refuse(
        Reason.BAD_SIGNATURE, "the join signature does not match the key"
    )
    assert adm.names() == ("host",)


def test_a_proof_relayed_for_another_key_is_a_wrong_code() -> None:
    adm = admission(3)
    ann, mallory = Joiner("ann", identity(1)), Joiner("mallory", identity(2))
    nh = challenge(adm, "c", mallory)
    relayed = Auth(proof=ann.auth(nh).proof, sig=mallory.auth(nh).sig)  # Ann's proof, Mallory's signature
    assert reason(adm.auth("c", relayed, 0.0)) == "wrong-code"


def test_another_protocol_version_or_garbage_is_refused_and_the_host_told() -> None:
    adm = admission(3)
    adm.connected("old", "192.0.2.1", 0.0, fresh_nonce(), ENTROPY)
    assert adm.unreadable("old", VersionMismatch(1)) == Refuse(
        Reason.VERSION, "protocol version mismatch: this host speaks 2, you sent 1"
    )
    adm.connected("junk", "192.0.2.2", 0.0, fresh_nonce(), ENTROPY)
    assert adm.unreadable("junk", WireError("a lobby frame must be a map")) == Refuse(
        Reason.PROTOCOL,
        "protocol error: a lobby frame must be a map",
        "refused a connection from 192.0.2.2: a lobby frame must be a map",
    )
    adm.connected("rude", "192.0.2.3", 0.0, fresh_nonce(), ENTROPY)
    nh = SendChallenge(fresh_nonce(), host_message())
    assert adm.hello("rude", Joiner("x").auth(nh), CHANNEL) == Refuse(
        Reason.PROTOCOL,
        "protocol error: expected hello, got auth",
        "refused a connection from 192.0.2.3: expected hello, got auth",
    )
    challenge(adm, "twice", Joiner("y"), peer="192.0.2.4")
    assert reason(adm.auth("twice", Joiner("y").hello(), 0.0)) == "protocol"
    assert adm.pending == 0


def test_every_reason_is_a_known_refusal_and_listed_in_the_spec() -> None:
    assert {str(r) for r in Reason} == set(REFUSALS) | {"protocol"}
    spec = section_9()
    listed = spec[spec.index("Refusal reasons:") :]
    for r in Reason:
        assert f"`{r}`" in listed, r


# ---------------------------------------------------------------------------
# The order of the checks


def section_9() -> str:
    text = (ROOT / "protocol.md").read_text(encoding="utf-8")
    return text[text.index("## 9. Joining a table") :]


ORDER = ["bad-key", "bad-signature", "busy", "wrong-code", "started", "table-full", "name-taken", "same-key"]
"""The checks after an auth, first first."""


def test_the_spec_lists_the_checks_in_this_order() -> None:
    spec = section_9()
    steps = spec[spec.index("The host then checks") : spec.index("Checks 5 to 8")]
    items = re.split(r"\n(?=\d\. )", steps)[1:]
    listed = []
    for item in items:
        found = re.search(r"else `([a-z-]+)`", " ".join(item.split()))
        assert found is not None, item
        listed.append(found.group(1))
    assert listed == ORDER


def attempt(faults: frozenset[str]) -> Seated | Refuse:
    """One join with the given faults, each made to happen where it would: the faults of the
    joiner's own messages in them, the others by other joiners between its hello and its auth."""
    adm = admission(5)
    seated(adm, "ann", "ann", 1)
    seated(adm, "bob", "bob", 2)
    me = Joiner(
        "ANN" if "name-taken" in faults else "zoe",
        identity(2) if "same-key" in faults else identity(9),
        key=UNUSABLE_KEY if "bad-key" in faults else None,
    )
    nh = challenge(adm, "me", me, peer="192.0.2.1", now=0.0)
    if "busy" in faults:  # another connection from the same address guesses wrong meanwhile
        assert reason(join(adm, "guess", Joiner("x", identity(10)), "192.0.2.1", 0.05, code=WRONG)) == (
            "wrong-code"
        )
    if faults & {"table-full", "started"}:
        seated(adm, "cat", "cat", 3)
        seated(adm, "dan", "dan", 4)
    if "started" in faults:
        assert isinstance(adm.start(), Started)
    auth = me.auth(
        nh,
        code=WRONG if "wrong-code" in faults else CODE,
        signer=identity(11) if "bad-signature" in faults else None,
    )
    proven = adm.auth("me", auth, 0.1)
    return proven if isinstance(proven, Refuse) else adm.seat("me")


def test_without_a_fault_the_attempt_seats() -> None:
    assert isinstance(attempt(frozenset()), Seated)


@pytest.mark.parametrize("fault", ORDER)
def test_each_fault_alone_is_refused_by_its_reason(fault: str) -> None:
    assert reason(attempt(frozenset({fault}))) == fault


COMPATIBLE = [
    (a, b)
    for a, b in itertools.combinations(ORDER, 2)
    if {a, b} != {"bad-key", "same-key"}  # one key cannot be both unusable and a seated joiner's
    and {a, b} != {"started", "same-key"}  # a seated joiner's key after the start: seated again
]


def test_after_the_start_a_seated_joiners_key_is_that_seat_again_not_a_refusal() -> None:
    again = attempt(frozenset({"started", "same-key"}))
    assert isinstance(again, Seated) and again.again and again.seat == 2


@pytest.mark.parametrize(("first", "later"), COMPATIBLE)
def test_the_first_check_in_order_decides(first: str, later: str) -> None:
    assert reason(attempt(frozenset({first, later}))) == first


def test_all_faults_at_once_are_a_bad_key() -> None:
    assert reason(attempt(frozenset(ORDER) - {"same-key"})) == "bad-key"


def test_a_busy_address_is_refused_before_its_proof_is_checked() -> None:
    adm = admission(3)
    nh = challenge(adm, "a", Joiner("a", identity(1)))
    assert reason(join(adm, "b", Joiner("b", identity(2)), now=0.01, code=WRONG)) == "wrong-code"
    # Right code or wrong, the proof is not looked at while the address waits: no new wrong code counted.
    assert reason(adm.auth("a", Joiner("a", identity(1)).auth(nh, code=WRONG), 0.2)) == "busy"
    wrong = adm.door.wrong_codes("192.0.2.1")
    assert wrong is not None and wrong.count == 1


def test_at_the_door_a_wait_beats_the_address_limit_which_beats_the_overall_limit() -> None:
    door: Door[str] = Door(DoorLimits(max_pending=2, per_address=1, evict_after=2.0))
    assert isinstance(door.arrive("a", "192.0.2.1", 0.0), Enter)
    assert isinstance(door.arrive("b", "192.0.2.2", 0.0), Enter)
    door.wrong_code("192.0.2.1", 0.5)  # 192.0.2.1 waits until 1.0
    # Every place is taken, and each address below is at its limit too (but 192.0.2.3).
    assert message(door.arrive("c", "192.0.2.1", 0.8)).startswith("too many wrong codes")
    assert message(door.arrive("d", "192.0.2.2", 0.8)).startswith("too many connections from your address")
    assert door.arrive("e", "192.0.2.3", 0.8) == Refuse(Reason.BUSY, REFUSALS["busy"])
    assert door.arrive("f", "192.0.2.3", 2.0) == Evict("a", Refuse(Reason.BUSY, REFUSALS["busy"]))


# ---------------------------------------------------------------------------
# The door


def test_strangers_are_limited_per_address_and_an_ipv6_64_is_one_address() -> None:
    adm = admission(3)
    for k in range(4):
        assert isinstance(
            adm.connected(f"v6-{k}", f"2001:db8:1:2::{k + 1}", 0.0, fresh_nonce(), ENTROPY), Enter
        )
    assert adm.connected("v6-more", "2001:db8:1:2:ffff::9", 0.0, fresh_nonce(), ENTROPY) == Refuse(
        Reason.BUSY, "too many connections from your address at once; try again shortly"
    )
    assert isinstance(adm.connected("next-64", "2001:db8:1:3::1", 0.0, fresh_nonce(), ENTROPY), Enter)
    for k in range(4):
        assert isinstance(adm.connected(f"v4-{k}", "::ffff:192.0.2.1", 0.0, fresh_nonce(), ENTROPY), Enter)
    assert (
        reason(adm.connected("v4-more", "192.0.2.1", 0.0, fresh_nonce(), ENTROPY)) == "busy"
    )  # mapped = plain IPv4
    assert isinstance(adm.connected("v4-next", "192.0.2.2", 0.0, fresh_nonce(), ENTROPY), Enter)
    adm.gone("v6-0")  # one leaves: room for one more from that /64
    assert isinstance(adm.connected("v6-again", "2001:db8:1:2::77", 0.0, fresh_nonce(), ENTROPY), Enter)


def test_an_address_group_is_an_ipv4_address_or_an_ipv6_64() -> None:
    assert address_group("2001:db8:1:2::1") == address_group("2001:db8:1:2:ffff::9") == "2001:db8:1:2::/64"
    assert address_group("fe80::1%eth0") == "fe80::/64"
    assert address_group("::ffff:192.0.2.1") == address_group("192.0.2.1") == "192.0.2.1"
    assert address_group("192.0.2.1") != address_group("192.0.2.2")
    assert address_group("") == "" and address_group("not an address") == "not an address"


def test_a_joiner_that_sent_its_auth_holds_no_place_so_one_address_seats_everyone() -> None:
    adm = admission(4, per_address=1)
    for k, name in enumerate(("ann", "bob", "cat"), start=1):
        assert isinstance(join(adm, name, Joiner(name, identity(k)), peer="192.0.2.1"), Seated)
    assert adm.names() == ("host", "ann", "bob", "cat") and adm.pending == 0


def test_when_every_place_is_taken_the_longest_waiting_makes_room_after_the_delay() -> None:
    adm = admission(3, max_pending=2, evict_after=2.0)
    assert isinstance(adm.connected("first", "198.51.100.1", 0.0, fresh_nonce(), ENTROPY), Enter)
    assert isinstance(adm.connected("second", "198.51.100.2", 0.5, fresh_nonce(), ENTROPY), Enter)
    assert adm.connected("early", "198.51.100.3", 1.5, fresh_nonce(), ENTROPY) == Refuse(
        Reason.BUSY, REFUSALS["busy"]
    )
    assert adm.connected("late", "198.51.100.4", 2.1, fresh_nonce(), ENTROPY) == Evict(
        "first", Refuse(Reason.BUSY, REFUSALS["busy"])
    )
    assert adm.pending == 2 and adm.stage("first") is Stage.EVICTED
    # Whatever the evicted one sends next is answered busy, even a good hello.
    assert reason(adm.hello("first", Joiner("ann", identity(1)).hello(), CHANNEL)) == "busy"
    assert adm.stage("first") is None
    # The second has waited only 1.6 s: it keeps its place, and can still join.
    assert reason(adm.connected("again", "198.51.100.5", 2.1, fresh_nonce(), ENTROPY)) == "busy"
    nh = adm.hello("second", Joiner("bob", identity(2)).hello(), CHANNEL)
    assert isinstance(nh, SendChallenge)
    assert adm.auth("second", Joiner("bob", identity(2)).auth(nh), 2.2) == Proven()


def test_a_network_holding_more_than_its_share_gives_up_a_place_to_another_at_once() -> None:
    """A flood that renews its connections faster than ``evict_after`` from a few networks
    (the red team's: 80 silent connections from 20 addresses, each renewed every 1.9 s) kept
    every place young, so no newcomer got in; now a crowded network makes room at once."""
    door: Door[str] = Door(DoorLimits(max_pending=4, per_address=4, evict_after=2.0))
    for i, src in enumerate(["198.51.100.1", "198.51.100.2", "198.51.100.3", "203.0.113.1"]):
        assert isinstance(door.arrive(f"flood{i}", src, 0.1 * i), Enter)
    joined = door.arrive("friend", "192.0.2.7", 0.5)  # all young: it takes a place of the crowded /24
    assert joined == Evict("flood0", Refuse(Reason.BUSY, REFUSALS["busy"]))
    # The flood cannot take the friend's place back, from its own networks or a new one.
    assert door.arrive("again", "198.51.100.9", 0.6) == Refuse(Reason.BUSY, REFUSALS["busy"])
    assert door.arrive("more", "203.0.113.5", 0.7) == Refuse(Reason.BUSY, REFUSALS["busy"])
    assert isinstance(door.arrive("new-net", "233.252.0.1", 0.8), Evict)  # the /24 holding 2 gives one up
    assert door.holds("friend")
    # An IPv6 /48 is one network: its /64s share one fair share.
    assert network_group("2001:db8:0:1::/64") == network_group("2001:db8:0:2::/64") == "2001:db8::/48"
    assert network_group("198.51.100.200") == "198.51.100.0/24"


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    flood=st.lists(
        st.tuples(st.integers(0, 2), st.integers(0, 255), st.floats(0, 0.5), st.booleans()), max_size=80
    ),
    late=st.lists(st.tuples(st.integers(0, 5), st.integers(0, 255)), max_size=40),
)
def test_a_flood_from_fewer_networks_than_places_never_keeps_a_joiner_out_nor_pushes_it_out(
    flood: list[tuple[int, int, float, bool]], late: list[tuple[int, int]]
) -> None:
    """Whatever a flood from three networks does (arrive, hang up, at any pace), a joiner from
    a fourth is let in at once, and within ``evict_after`` no newcomer takes its place (even
    one from a new network: one of the flood's gives up a place first)."""
    door: Door[str] = Door(DoorLimits(max_pending=8, per_address=4, evict_after=2.0))
    now, held = 0.0, []
    for k, (net, host, pause, leaves) in enumerate(flood):
        now += pause
        name = f"flood{k}"
        if isinstance(door.arrive(name, f"198.51.{100 + net}.{host}", now), Enter | Evict):
            held.append(name)
        if leaves and held:
            door.leave(held.pop(0))
    assert isinstance(door.arrive("friend", "192.0.2.7", now), Enter | Evict)
    for k, (net, host) in enumerate(late):  # more flood, and newcomers from new networks
        source = f"198.51.{100 + net}.{host}" if net < 3 else f"203.0.{net}.{host}"
        door.arrive(f"late{k}", source, now + 1.9 * k / max(1, len(late)))
        assert door.holds("friend"), k


def test_a_stranger_evicted_while_its_auth_was_on_the_way_is_busy() -> None:
    adm = admission(3, max_pending=1, evict_after=2.0)
    ann = Joiner("ann", identity(1))
    nh = challenge(adm, "slow", ann)
    assert isinstance(adm.connected("new", "198.51.100.9", 3.0, fresh_nonce(), ENTROPY), Evict)
    assert reason(adm.auth("slow", ann.auth(nh), 3.0)) == "busy"  # the right code, but its place is gone
    assert adm.names() == ("host",)


def test_no_places_at_all_means_busy_for_everyone() -> None:
    adm = admission(3, max_pending=0)
    assert adm.connected("c", "192.0.2.1", 100.0, fresh_nonce(), ENTROPY) == Refuse(
        Reason.BUSY, REFUSALS["busy"]
    )


def test_after_wrong_codes_an_address_waits_longer_each_time_up_to_a_bound() -> None:
    door: Door[str] = Door()
    now = 0.0
    for count in range(1, 15):
        assert door.wrong_code("198.51.100.7", now) == Refuse(Reason.WRONG_CODE, "wrong invitation code")
        wait = min(5.0, 0.5 * count)
        assert door.wrong_codes("198.51.100.7") is not None
        assert door.wait_left("198.51.100.7", now) == pytest.approx(wait)
        assert reason(door.arrive(f"c{count}", "198.51.100.7", now + wait - 0.01)) == "busy"
        assert door.may_guess("198.51.100.7", now + wait - 0.01) is not None
        assert door.may_guess("203.0.113.9", now) is None  # only that address waits
        now += wait
        assert door.may_guess("198.51.100.7", now) is None
    assert door.wait_left("198.51.100.7", now) == 0.0


def test_the_busy_message_says_how_long_to_wait() -> None:
    adm = admission(3)
    assert reason(join(adm, "g1", Joiner("g", identity(1)), peer="198.51.100.7", code=WRONG)) == (
        "wrong-code"
    )
    assert adm.connected("g2", "198.51.100.7", 0.2, fresh_nonce(), ENTROPY) == Refuse(
        Reason.BUSY, "too many wrong codes from your address; try again in 1 s"
    )
    assert isinstance(
        adm.connected("other", "203.0.113.9", 0.2, fresh_nonce(), ENTROPY), Enter
    )  # others go on
    assert reason(join(adm, "g3", Joiner("g", identity(1)), "198.51.100.7", 0.6, code=WRONG)) == (
        "wrong-code"
    )
    assert (
        reason(adm.connected("g4", "198.51.100.7", 1.2, fresh_nonce(), ENTROPY)) == "busy"
    )  # the second waits 1 s
    assert isinstance(join(adm, "ann", Joiner("ann", identity(1)), "198.51.100.7", 1.7), Seated)


def test_after_too_many_wrong_codes_in_all_no_code_is_checked_and_the_host_is_warned() -> None:
    """A guesser spread over many addresses waits at none of them; the wrong codes in all
    bound its chance: past ``max_wrong_codes`` even the right code is refused unchecked."""
    adm = admission(3, max_wrong_codes=3)
    answers = [
        join(adm, f"g{k}", Joiner(f"g{k}", identity(k)), peer=f"198.51.{100 + k}.7", code=WRONG)
        for k in range(3)
    ]
    assert [reason(a) for a in answers] == ["wrong-code"] * 3
    first, last = answers[0], answers[-1]
    assert isinstance(first, Refuse) and isinstance(last, Refuse)
    assert not first.loud and first.note == Notice("notice_wrong_code", name="'g0'", peer="198.51.100.7")
    assert last.loud and last.note == Notice("notice_code_closed", count=3)
    # From a new address, with the right code: refused without its proof being checked.
    refused = join(adm, "ann", Joiner("ann", identity(9)), peer="203.0.113.5", now=10.0)
    assert reason(refused) == "code-closed" and adm.door.wrong_total == 3
    assert adm.names() == ("host",)
    assert "new code" in message(refused)


def close_to_codes(adm: Admission[str], wrong: int, now: float = 1.0) -> None:
    """A guesser spread over ``wrong`` addresses spends every check of the code."""
    for k in range(wrong):
        guess = join(adm, f"g{k}", Joiner(f"g{k}", identity(20 + k)), f"198.51.{100 + k}.7", now, code=WRONG)
        assert reason(guess) == "wrong-code"
    assert adm.door.closed_to_codes


def test_a_seated_joiner_whose_lobby_connection_broke_joins_again_once_no_code_is_checked() -> None:
    """Those seated keep their seats: a joiner whose connection broke in the lobby (which frees its
    seat) proves the code again with the key that proved it before, and is seated again; a new
    key is refused unchecked, and so is the joiner's key if it was never proved here."""
    adm = admission(3, max_wrong_codes=3)
    seated(adm, "ann", "ann", 1)
    close_to_codes(adm, 3)
    assert adm.gone("ann") is not None  # its lobby connection broke: the seat is free
    back = join(adm, "ann again", Joiner("ann", identity(1), nonce=bytes([5]) * 32), "203.0.113.5", 9.0)
    assert isinstance(back, Seated) and back.seat == 1 and not back.again, back
    assert reason(join(adm, "eve", Joiner("eve", identity(9)), "203.0.113.6", 9.0)) == "code-closed"
    assert adm.door.wrong_total == 3 and adm.names() == ("host", "ann")


def test_a_seat_whose_start_was_lost_joins_again_once_no_code_is_checked() -> None:
    """A seat of the match dialling the host again never stops the match for want of codes:
    one whose ``start`` was lost with its connection joins again with a hello, and is seated again."""
    adm = admission(3, max_wrong_codes=3)
    seated(adm, "ann", "ann", 1)
    seated(adm, "bob", "bob", 2)
    assert isinstance(adm.start(), Started)
    close_to_codes(adm, 3, now=5.0)
    back = join(adm, "bob again", Joiner("bob", identity(2), nonce=bytes([6]) * 32), "198.51.100.4", 9.0)
    assert isinstance(back, Seated) and back.again and back.seat == 2, back
    assert reason(join(adm, "eve", Joiner("eve", identity(9)), "203.0.113.6", 9.0)) == "code-closed"


def test_parallel_guesses_from_one_address_get_one_proof_checked() -> None:
    adm = admission(3)
    joiners = [Joiner(f"g{k}", identity(k)) for k in range(3)]
    nonces = [challenge(adm, f"g{k}", j, peer="198.51.100.7") for k, j in enumerate(joiners)]
    answers = [
        adm.auth(f"g{k}", j.auth(nh, code=WRONG), 0.1)
        for k, (j, nh) in enumerate(zip(joiners, nonces, strict=True))
    ]
    assert [reason(a) for a in answers] == ["wrong-code", "busy", "busy"]
    wrong = adm.door.wrong_codes("198.51.100.7")
    assert wrong is not None and wrong.count == 1


def test_the_door_forgets_the_address_whose_wait_ends_first_when_it_remembers_too_many() -> None:
    door: Door[str] = Door(DoorLimits(tracked_addresses=2))
    door.wrong_code("a", 0.0)
    door.wrong_code("b", 0.0)
    door.wrong_code("b", 1.0)  # b's wait ends at 2.0, a's at 0.5
    door.wrong_code("c", 1.0)
    assert door.wrong_codes("a") is None
    assert door.wrong_codes("b") is not None and door.wrong_codes("c") is not None


# ---------------------------------------------------------------------------
# Seats, leaving and the start


def test_a_joiner_who_leaves_before_the_start_frees_its_seat_and_the_others_move_up() -> None:
    adm = admission(3)
    seated(adm, "ann", "ann", 1, peer="192.0.2.10")
    assert seated(adm, "bob", "bob", 2, peer="192.0.2.11").seat == 2
    assert adm.full
    assert adm.gone("ann") == Left(name="ann", note="ann left the table")
    assert not adm.full and adm.names() == ("host", "bob")
    assert adm.start() is None  # not full: nothing starts
    assert adm.gone("ann") is None  # already gone
    assert seated(adm, "cat", "ann", 3, peer="192.0.2.12").seat == 2  # the name is free again too
    started = adm.start()
    assert started == Started(
        roster=(
            HOST_SEAT,
            Seat(name="bob", key=identity(2).public_key, host="192.0.2.11", port=4000),
            Seat(name="ann", key=identity(3).public_key, host="192.0.2.12", port=4000),
        ),
        connections=("bob", "cat"),
    )


def test_once_started_the_roster_is_fixed_and_nobody_is_seated() -> None:
    adm = admission(3)
    seated(adm, "ann", "ann", 1)
    nh = challenge(adm, "bob", Joiner("bob", identity(2)))
    cat = Joiner("cat", identity(3))
    cat_nonce = challenge(adm, "cat", cat)
    assert adm.auth("bob", Joiner("bob", identity(2)).auth(nh), 0.0) == Proven()
    assert isinstance(adm.seat("bob"), Seated)
    assert adm.auth("cat", cat.auth(cat_nonce), 0.0) == Proven()  # challenged before the table filled
    assert isinstance(adm.start(), Started)
    assert reason(adm.seat("cat")) == "started"
    assert adm.gone("ann") is None  # leaving after the start changes nothing here
    assert adm.names() == ("host", "ann", "bob")
    with pytest.raises(LocalProtocolError):
        adm.start()


def test_calling_the_machine_out_of_order_is_a_local_error() -> None:
    adm = admission(3)
    with pytest.raises(LocalProtocolError):
        adm.hello("nobody", Joiner("x").hello(), CHANNEL)
    adm.connected("c", "192.0.2.1", 0.0, fresh_nonce(), ENTROPY)
    with pytest.raises(LocalProtocolError):
        adm.connected("c", "192.0.2.1", 0.0, fresh_nonce(), ENTROPY)
    with pytest.raises(LocalProtocolError):
        adm.auth("c", Joiner("x").auth(SendChallenge(bytes(32), host_message())), 0.0)  # no hello yet
    with pytest.raises(LocalProtocolError):
        adm.seat("c")


# ---------------------------------------------------------------------------
# Any interleaving


NAMES = ["ann", "ANN", "bob", "Bob", "cat", "dan", "eve", "fay", "host", "Straße", "STRASSE", "  "]
KEYS = [identity(k) for k in range(8)] + [HOST]
PEERS = ["192.0.2.1", "::ffff:192.0.2.1", "192.0.2.2", "2001:db8::1", "2001:db8::2", "2001:db8:0:1::1"]


class MemoPake:
    """``Pake`` with its results remembered: the same side, code, entropy and peer message give
    the same message and key, so the interleavings below spend their time on the door and the
    seats rather than on redoing the same Ed25519 arithmetic."""

    messages: ClassVar[dict[tuple[Side, str, bytes], bytes]] = {}
    keys: ClassVar[dict[tuple[Side, str, bytes, bytes], bytes]] = {}

    def __init__(self, side: Side, code: str, entropy: bytes) -> None:
        self.side, self.code, self.entropy = side, code, entropy
        start = (side, code, entropy)
        if start not in self.messages:
            self.messages[start] = Pake.start(side, code, entropy).message
        self.message = self.messages[start]

    @classmethod
    def start(cls, side: Side, code: str, entropy: bytes) -> MemoPake:
        return cls(side, code, entropy)

    def finish(self, peer_message: bytes) -> bytes:
        done = (self.side, self.code, self.entropy, peer_message)
        if done not in self.keys:
            self.keys[done] = Pake.start(self.side, self.code, self.entropy).finish(peer_message)
        return self.keys[done]


class AnyInterleaving(RuleBasedStateMachine):
    """Joins, wrong codes, bad signatures, hang-ups, garbage and the start, in any order and timing."""

    def __init__(self) -> None:
        super().__init__()
        self._real_pake = admission_module.Pake
        admission_module.Pake = MemoPake  # type: ignore[misc,assignment]
        self.adm: Admission[int] = Admission(game_id=GAME, host=HOST_SEAT, players=3, code=CODE)
        self.now = 0.0
        self.next = 0
        self.hellos: dict[int, Hello] = {}
        self.nonces: dict[int, bytes] = {}
        self.challenges: dict[int, SendChallenge] = {}
        self.roster_at_start: tuple[Seat, ...] | None = None

    @initialize(
        players=st.integers(2, 6),
        max_pending=st.sampled_from([32, 4, 2, 1, 0]),
        per_address=st.integers(1, 4),
    )
    def table(self, players: int, max_pending: int, per_address: int) -> None:
        limits = DoorLimits(max_pending=max_pending, per_address=per_address, evict_after=2.0)
        self.adm = Admission(game_id=GAME, host=HOST_SEAT, players=players, code=CODE, limits=limits)

    def at(self, stage: Stage) -> list[int]:
        return [c for c in range(self.next) if self.adm.stage(c) is stage]

    @rule(dt=st.sampled_from([0.0, 0.1, 0.6, 2.5, 6.0]))
    def tick(self, dt: float) -> None:
        self.now += dt

    @rule(peer=st.sampled_from(PEERS))
    def connect(self, peer: str) -> None:
        conn, self.next = self.next, self.next + 1
        self.nonces[conn] = conn.to_bytes(32, "big")
        self.adm.connected(conn, peer, self.now, self.nonces[conn], ENTROPY)

    @rule(peer=st.sampled_from(PEERS), name=st.sampled_from(NAMES), who=st.integers(0, len(KEYS) - 1))
    def join(self, peer: str, name: str, who: int) -> None:
        """An honest joiner, all at once (so that tables fill and start often)."""
        self.connect(peer)
        conn = self.next - 1
        if self.adm.stage(conn) is not Stage.HELLO:
            return
        self.hello_from(conn, name, who)
        if self.adm.stage(conn) is Stage.AUTH:
            self.answer(conn, right_code=True, good_sig=True)
        if self.adm.stage(conn) is Stage.PROVEN:
            self.sit(conn)

    @precondition(lambda self: self.at(Stage.HELLO) or self.at(Stage.EVICTED))
    @rule(data=st.data(), name=st.sampled_from(NAMES), who=st.integers(0, len(KEYS) - 1))
    def hello(self, data: st.DataObject, name: str, who: int) -> None:
        self.hello_from(data.draw(st.sampled_from(self.at(Stage.HELLO) + self.at(Stage.EVICTED))), name, who)

    def hello_from(self, conn: int, name: str, who: int) -> None:
        evicted = self.adm.stage(conn) is Stage.EVICTED
        nonce = bytes([who]) * 32
        pake = joiner_pake(CODE, name, nonce).message
        hello = Hello(name=name, key=KEYS[who].public_key, nonce=nonce, port=1000 + who, pake=pake)
        answer = self.adm.hello(conn, hello, CHANNEL)
        if evicted:
            assert reason(answer) == "busy"
        elif self.adm.full and not self.adm.started:
            assert reason(answer) == "table-full"
        else:
            assert answer == SendChallenge(self.nonces[conn], host_message())
            self.hellos[conn] = hello
            self.challenges[conn] = answer

    @precondition(lambda self: self.at(Stage.AUTH) or self.at(Stage.EVICTED))
    @rule(data=st.data(), right_code=st.booleans(), good_sig=st.booleans())
    def auth(self, data: st.DataObject, right_code: bool, good_sig: bool) -> None:
        conn = data.draw(st.sampled_from(self.at(Stage.AUTH) + self.at(Stage.EVICTED)))
        self.answer(conn, right_code=right_code, good_sig=good_sig)

    def answer(self, conn: int, *, right_code: bool, good_sig: bool) -> None:
        hello = self.hellos.get(conn)
        ch = self.challenges.get(conn, SendChallenge(self.nonces[conn], host_message()))
        key = KEYS[0].public_key if hello is None else hello.key
        signer = next(i for i in KEYS if i.public_key == key) if good_sig else identity(50)
        who = Joiner(
            "x" if hello is None else hello.name, signer, bytes(32) if hello is None else hello.nonce
        )
        who.key = key
        proof = who.auth(ch, code=CODE if right_code else WRONG).proof
        sig = signer.sign(link_message(GAME, ch.nonce, key, HOST.public_key))
        answer = self.adm.auth(conn, Auth(proof=proof, sig=sig), self.now)
        if not (right_code and good_sig):
            assert isinstance(answer, Refuse)

    @precondition(lambda self: self.at(Stage.PROVEN))
    @rule(data=st.data())
    def seat(self, data: st.DataObject) -> None:
        self.sit(data.draw(st.sampled_from(self.at(Stage.PROVEN))))

    def sit(self, conn: int) -> None:
        before = self.adm.names()
        answer = self.adm.seat(conn)
        if self.roster_at_start is not None:  # only a seat of the roster, again, at its seat
            key = self.hellos[conn].key
            seats = [i for i, s in enumerate(self.roster_at_start) if i > 0 and s.key == key]
            if seats:
                assert isinstance(answer, Seated) and answer.again and answer.seat == seats[0], answer
            else:
                assert reason(answer) == "started"
            return
        if isinstance(answer, Seated):
            assert answer.seat == len(before) and self.adm.names() == (*before, self.hellos[conn].name)

    @precondition(lambda self: self.next > 0)
    @rule(data=st.data())
    def hang_up(self, data: st.DataObject) -> None:
        self.adm.gone(data.draw(st.integers(0, self.next - 1)))

    @precondition(lambda self: self.at(Stage.HELLO) or self.at(Stage.AUTH))
    @rule(data=st.data())
    def garbage(self, data: st.DataObject) -> None:
        conn = data.draw(st.sampled_from(self.at(Stage.HELLO) + self.at(Stage.AUTH)))
        assert reason(self.adm.unreadable(conn, WireError("nested too deeply"))) == "protocol"

    @precondition(lambda self: not self.adm.started)
    @rule()
    def start(self) -> None:
        full = self.adm.full
        started = self.adm.start()
        assert (started is not None) == full
        if started is not None:
            assert started.roster == self.adm.seating.roster()
            assert len(started.roster) == self.adm.seating.players
            assert started.roster[0].key == HOST.public_key
            self.roster_at_start = started.roster

    def teardown(self) -> None:
        admission_module.Pake = self._real_pake  # type: ignore[misc]

    @invariant()
    def seats_are_distinct_and_bounded(self) -> None:
        roster = self.adm.seating.roster()
        assert len(roster) <= self.adm.seating.players
        assert len({s.name.casefold() for s in roster}) == len(roster)
        assert len({s.key for s in roster}) == len(roster)
        assert all(s.name.strip() for s in roster)

    @invariant()
    def a_started_table_keeps_its_roster(self) -> None:
        if self.roster_at_start is not None:
            assert self.adm.seating.roster() == self.roster_at_start

    @invariant()
    def the_door_stays_within_its_limits(self) -> None:
        door = self.adm.door
        assert door.pending <= door.limits.max_pending
        for peer in PEERS:
            assert door.waiting_from(address_group(peer)) <= door.limits.per_address


AnyInterleaving.TestCase.settings = settings(
    max_examples=200,
    stateful_step_count=50,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
test_any_interleaving = AnyInterleaving.TestCase
