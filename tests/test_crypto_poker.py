"""Key derivation and the mental-poker passes: layouts, vectors and the full round-trip property."""

from __future__ import annotations

import hashlib
import hmac
import itertools
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pcards.crypto import kdf
from p2pcards.crypto.encoding import CARD_POINTS, decode_card, encode_deck
from p2pcards.crypto.group import ORDER, InvalidElement, inverse, mul
from p2pcards.crypto.kdf import commitment, derive, derive_permutation, derive_scalar
from p2pcards.crypto.poker import (
    check_deck,
    lock_key,
    lock_keys,
    lock_pass,
    open_card,
    open_point,
    relock_key,
    relock_pass,
    shuffle_pass,
    shuffle_permutation,
    shuffle_scalar,
    unlock_pass,
    verify_lock_pass,
    verify_relock_pass,
    verify_shuffle_pass,
    verify_unlock_pass,
)

S = bytes(range(32))
"""The fixed secret of the published test vectors: bytes 0x00..0x1f."""


def seat_secret(seat: int) -> bytes:
    return hashlib.sha256(b"test seat %d" % seat).digest()


# --- independent implementations of the byte layouts in protocol.md --------------------------


def ref_derive(secret: bytes, label: str, *numbers: int) -> bytes:
    msg = b"p2pcards/v1/" + label.encode() + b"\x00" + b"".join(v.to_bytes(4, "big") for v in numbers)
    return hmac.new(secret, msg, hashlib.sha256).digest()


def ref_scalar(secret: bytes, label: str, *numbers: int) -> int:
    wide = ref_derive(secret, "scalar/" + label, *numbers, 0) + ref_derive(
        secret, "scalar/" + label, *numbers, 1
    )
    return int.from_bytes(wide, "big") % (ORDER - 1) + 1


def ref_permutation(secret: bytes, label: str, size: int, *numbers: int) -> list[int]:
    stream = b""
    block = 0
    offset = 0

    def word() -> int:
        nonlocal stream, block, offset
        if offset == len(stream):
            stream += ref_derive(secret, "permutation/" + label, *numbers, size, block)
            block += 1
        offset += 4
        return int.from_bytes(stream[offset - 4 : offset], "big")

    items = list(range(size))
    for i in reversed(range(1, size)):
        while True:
            w = word()
            if w < 2**32 - 2**32 % (i + 1):
                break
        j = w % (i + 1)
        items[i], items[j] = items[j], items[i]
    return items


# --- KDF ----------------------------------------------------------------------------------

# Published in protocol.md (secret = bytes 0x00..0x1f).
KDF_VECTORS = {
    "commitment": "e8e8d623af2081c7d9f6f455433fbd8ffc6cf94607d6580e068fdabda4ff707b",
    "derive": "c87b46a8be5e9a43d136d7c6b1af1969f9190aa47b46ce8a29dff1a27c081f97",
    "derive_no_numbers": "39a31a5e4093aa724646a1aaefaeca951abdf08f73ebc3224f84ddb9c79c1a6b",
    "scalar": 0x70218723DF6191A51389BB558F01019A0C321DFF6748E1750295B92D7E2363A7,
    "permutation": (9, 8, 2, 0, 4, 7, 5, 3, 1, 6),
    "shuffle_scalar": 0xB9475CC6646A1831C865FBDB7EF009933858A1DA981503A677A4857855BFCFF2,
    "shuffle_permutation_8": (4, 1, 6, 7, 0, 3, 2, 5),
    "lock_key_0_0": 0xF2DA6AF7F49CD2298AB1DB2610571149E4E04B8DE9540B2C125BE11A22A6CEAE,
    "lock_key_1_3": 0xE2166D4FAE4651EC735C5A87B1009037EE25C48B885130B1A81288A72C18D958,
}


def test_kdf_vectors_match_spec_and_code() -> None:
    ctx = b"example-context"
    spec_commit = hashlib.sha256(b"p2pcards/v1/commit" + len(ctx).to_bytes(4, "big") + ctx + S).hexdigest()
    assert spec_commit == KDF_VECTORS["commitment"] == commitment(S, ctx).hex()
    assert ref_derive(S, "example", 1, 2).hex() == KDF_VECTORS["derive"] == derive(S, "example", 1, 2).hex()
    assert ref_derive(S, "example").hex() == KDF_VECTORS["derive_no_numbers"] == derive(S, "example").hex()
    assert ref_scalar(S, "example", 7) == KDF_VECTORS["scalar"] == derive_scalar(S, "example", 7)
    perm = KDF_VECTORS["permutation"]
    assert tuple(ref_permutation(S, "example", 10, 7)) == perm == derive_permutation(S, "example", 10, 7)
    assert ref_scalar(S, "shuffle", 0) == KDF_VECTORS["shuffle_scalar"] == shuffle_scalar(S, 0)
    perm8 = KDF_VECTORS["shuffle_permutation_8"]
    assert tuple(ref_permutation(S, "permute", 8, 0)) == perm8 == shuffle_permutation(S, 0, 8)
    assert ref_scalar(S, "lock", 0, 0) == KDF_VECTORS["lock_key_0_0"] == lock_key(S, 0, 0)
    assert ref_scalar(S, "lock", 1, 3) == KDF_VECTORS["lock_key_1_3"] == lock_key(S, 1, 3)


@settings(max_examples=30, deadline=None)
@given(
    secret=st.binary(min_size=32, max_size=32),
    label=st.text(st.characters(min_codepoint=1, max_codepoint=127), min_size=1, max_size=20),
    numbers=st.lists(st.integers(0, 2**32 - 1), max_size=4),
)
def test_derive_matches_layout(secret: bytes, label: str, numbers: list[int]) -> None:
    assert derive(secret, label, *numbers) == ref_derive(secret, label, *numbers)
    assert derive_scalar(secret, label, *numbers) == ref_scalar(secret, label, *numbers)


def test_derive_is_deterministic_and_separates_inputs() -> None:
    outputs = [
        derive(S, "lock"),
        derive(S, "lock", 0),
        derive(S, "lock", 1),
        derive(S, "lock", 0, 0),
        derive(S, "lock", 0, 1),
        derive(S, "lock", 1, 0),
        derive(S, "lockx", 0),
        derive(S, "shuffle", 0),
        derive(S, "shuffle", 0x6C6F636B),  # the bytes "lock": the NUL after the label keeps them apart
        derive(S, "shuffle\x01lock"),
        derive(seat_secret(1), "lock", 0),
    ]
    assert len(set(outputs)) == len(outputs)
    assert derive(S, "lock", 0, 1) == derive(bytes(range(32)), "lock", 0, 1)


def test_derive_scalar_is_separate_from_derive() -> None:
    # The tag "scalar/" means a scalar never reuses the bytes of a plain derive call.
    plain = int.from_bytes(derive(S, "lock", 0, 0) + derive(S, "lock", 0, 1), "big")
    assert derive_scalar(S, "lock", 0) != plain % (ORDER - 1) + 1
    assert derive_scalar(S, "lock", 0) != derive_scalar(S, "lock", 1)
    assert derive_scalar(S, "lock", 0) != derive_scalar(S, "shuffle", 0)


@settings(max_examples=40, deadline=None)
@given(secret=st.binary(min_size=32, max_size=32), a=st.integers(0, 2**32 - 1))
def test_derive_scalar_in_range(secret: bytes, a: int) -> None:
    k = derive_scalar(secret, "shuffle", a)
    assert 1 <= k <= ORDER - 1


@settings(max_examples=40, deadline=None)
@given(size=st.integers(0, 300), a=st.integers(0, 2**32 - 1))
def test_derive_permutation_is_a_permutation(size: int, a: int) -> None:
    perm = derive_permutation(S, "permute", size, a)
    assert sorted(perm) == list(range(size))
    assert perm == derive_permutation(S, "permute", size, a)
    if size <= 60:
        assert list(perm) == ref_permutation(S, "permute", size, a)


def test_derive_permutation_depends_on_every_input() -> None:
    base = derive_permutation(S, "permute", 52, 0)
    assert derive_permutation(S, "permute", 52, 1) != base
    assert derive_permutation(S, "other", 52, 0) != base
    assert derive_permutation(seat_secret(0), "permute", 52, 0) != base
    assert derive_permutation(S, "permute", 0) == ()
    assert derive_permutation(S, "permute", 1) == (0,)


def test_derive_permutation_reaches_every_ordering() -> None:
    seen = {derive_permutation(S, "permute", 3, a) for a in range(200)}
    assert seen == set(itertools.permutations(range(3)))
    # Each card lands in each position of a 4-card deck, roughly evenly.
    counts = [[0] * 4 for _ in range(4)]
    for a in range(800):
        for pos, card in enumerate(derive_permutation(S, "permute", 4, a)):
            counts[pos][card] += 1
    assert all(120 < c < 280 for row in counts for c in row), counts


def test_draw_below_rejects_words_past_the_last_full_cycle() -> None:
    from p2pcards.crypto.kdf import _draw_below

    def words(*values: int) -> Callable[[], int]:
        return iter(values).__next__

    # 2^32 mod 3 = 1: the single word 2^32 - 1 would favour 0, so it is skipped.
    assert _draw_below(words(2**32 - 1, 5), 3) == 2
    assert _draw_below(words(2**32 - 2, 7), 3) == (2**32 - 2) % 3
    # 2^32 mod 100 = 96: the top 96 words are all skipped.
    assert _draw_below(words(2**32 - 96, 2**32 - 1, 2**32 - 97), 100) == (2**32 - 97) % 100
    assert _draw_below(words(0), 1) == 0
    assert _draw_below(words(2**32 - 1), 2**31) == 2**31 - 1


@pytest.mark.parametrize(
    "call",
    [
        lambda: derive(b"short", "lock"),
        lambda: derive(bytes(33), "lock"),
        lambda: derive("x" * 32, "lock"),
        lambda: derive(S, ""),
        lambda: derive(S, "lo\x00ck"),
        lambda: derive(S, "clé"),
        lambda: derive(S, "lock", -1),
        lambda: derive(S, "lock", 2**32),
        lambda: derive(S, "lock", True),
        lambda: derive_permutation(S, "permute", -1),
        lambda: derive_permutation(S, "permute", kdf.MAX_PERMUTATION_SIZE + 1),
        lambda: commitment(bytes(31), b""),
        lambda: commitment(S, "text"),
    ],
)
def test_kdf_rejects_bad_input(call: Callable[[], object]) -> None:
    with pytest.raises(ValueError):
        call()


def test_commitment_binds_secret_and_context() -> None:
    c = commitment(S, b"game-1/hand-0/seat-2")
    assert c == commitment(S, b"game-1/hand-0/seat-2")
    assert len(c) == 32
    assert c != commitment(S, b"game-1/hand-0/seat-3")
    assert c != commitment(seat_secret(0), b"game-1/hand-0/seat-2")
    assert commitment(S, b"") != commitment(S, b"\x00")


# --- passes -------------------------------------------------------------------------------


def test_shuffle_pass_direction() -> None:
    deck = encode_deck(range(10, 22))
    perm = shuffle_permutation(S, 0, len(deck))
    e = shuffle_scalar(S, 0)
    out = shuffle_pass(S, 0, deck)
    assert out == tuple(mul(e, deck[perm[i]]) for i in range(len(deck)))
    # Removing e shows output position i holds the input card at position perm[i].
    assert [decode_card(mul(inverse(e), x)) for x in out] == [10 + perm[i] for i in range(len(deck))]


def test_lock_pass_formula() -> None:
    deck = shuffle_pass(S, 2, encode_deck(range(7)))
    e = shuffle_scalar(S, 2)
    out = lock_pass(S, 2, deck)
    assert out == tuple(mul(lock_key(S, 2, c) * inverse(e) % ORDER, deck[c]) for c in range(7))
    assert lock_keys(S, 2, 7) == tuple(lock_key(S, 2, c) for c in range(7))


# Published in protocol.md: one seat with secret S, round 0, deck = cards 0..3.
PASS_VECTOR_PERMUTATION = (2, 1, 0, 3)
PASS_VECTOR_SHUFFLED = (
    "77036b2aa70adc80a10ce8acccbc4c65e90b4f960c2bf4705695c9599ec9d001",
    "42d6fc07043540a87a7b715085f19ea38c50dc75e6b8e82ca0c73e6727dda18b",
    "2a1b4deb7c2ebbc2406e578b7a40c2784dae45d99c47605137e1c2f6f0df306c",
    "11721cf809ff0ac146d8460732bc641132bf18a73418f937b0e1777a67bb72d4",
)
PASS_VECTOR_LOCKED = (
    "5e3883a02c0bfc9d6a00a3c30b9f722aa5ab1721db82b8bb29c9400fe558ecd8",
    "b58f11688f2f81beafe219379134487052afef82f84e4400bdf210adeb7182fc",
    "767ff36a192fb06ac1efa5785c341c983beab41bac19356d63575b150a9f4e29",
    "b1f939ff48984f032819ce69c3f34d28ee5437c8cf01d26c95911137abaa42e5",
)


def test_pass_vectors() -> None:
    deck = encode_deck(range(4))
    assert shuffle_permutation(S, 0, 4) == PASS_VECTOR_PERMUTATION
    shuffled = shuffle_pass(S, 0, deck)
    assert tuple(x.hex() for x in shuffled) == PASS_VECTOR_SHUFFLED
    locked = lock_pass(S, 0, shuffled)
    assert tuple(x.hex() for x in locked) == PASS_VECTOR_LOCKED
    assert [open_card(locked[c], [lock_key(S, 0, c)]) for c in range(4)] == list(PASS_VECTOR_PERMUTATION)


def run_round(secrets: list[bytes], rnd: int, cards: list[int]) -> tuple[bytes, ...]:
    deck = encode_deck(cards)
    for s in secrets:
        out = shuffle_pass(s, rnd, deck)
        assert verify_shuffle_pass(s, rnd, deck, out)
        deck = out
    for s in secrets:
        out = lock_pass(s, rnd, deck)
        assert verify_lock_pass(s, rnd, deck, out)
        deck = out
    return deck


@pytest.mark.parametrize(
    ("seats", "rnd", "cards"),
    [
        (2, 0, list(range(52))),
        (3, 0, list(range(52))),
        (4, 0, list(range(104))),
        (5, 0, list(range(52))),
        (6, 0, list(range(104))),
        (2, 1, [3, 9, 17, 22, 30, 31, 40, 41, 44, 47, 50, 51, 60, 71, 88, 99, 103]),
        (6, 3, [3, 9, 17, 22, 30, 31, 40, 41, 44, 47, 50, 51, 60, 71, 88, 99, 103]),
    ],
)
def test_full_round_trip(seats: int, rnd: int, cards: list[int]) -> None:
    secrets = [seat_secret(j) for j in range(seats)]
    locked = run_round(secrets, rnd, cards)
    keys = [lock_keys(s, rnd, len(cards)) for s in secrets]
    opened = [open_card(locked[c], [k[c] for k in keys]) for c in range(len(cards))]
    assert None not in opened
    assert sorted(opened) == sorted(cards)
    assert opened != cards  # shuffled (a fixed outcome for these fixed secrets)
    # No locked point is itself a card, and any missing or wrong key yields no card.
    other_round = [lock_keys(s, rnd + 1, len(cards)) for s in secrets]
    for c in range(0, len(cards), 5):
        assert decode_card(locked[c]) is None
        column = [k[c] for k in keys]
        for missing in range(seats):
            assert open_card(locked[c], column[:missing] + column[missing + 1 :]) is None
        wrong_position = [*column[:-1], keys[-1][(c + 1) % len(cards)]]
        assert open_card(locked[c], wrong_position) is None
        assert open_card(locked[c], [*column[1:], other_round[0][c]]) is None
        assert open_card(locked[c], [*column, 2]) is None


def test_dealing_in_two_steps() -> None:
    # Others reveal their keys of position c; the receiver removes its own layer last.
    secrets = [seat_secret(j) for j in range(3)]
    locked = run_round(secrets, 0, list(range(12)))
    c, receiver = 4, 1
    others = [lock_key(s, 0, c) for j, s in enumerate(secrets) if j != receiver]
    partial = open_point(locked[c], others)
    assert decode_card(partial) is None
    card = open_card(partial, [lock_key(secrets[receiver], 0, c)])
    assert card == open_card(locked[c], [lock_key(s, 0, c) for s in secrets])
    assert card is not None
    assert open_point(open_point(locked[c], others[:1]), others[1:]) == partial


def test_open_point_with_no_keys_is_identity() -> None:
    assert open_point(CARD_POINTS[9], []) == CARD_POINTS[9]
    assert open_card(CARD_POINTS[9], []) == 9
    with pytest.raises(InvalidElement):
        open_point(bytes(32) + b"\x01", [5])


# --- verification rejects dishonest passes ------------------------------------------------

DECK = encode_deck(range(20, 36))


@pytest.fixture(scope="module")
def shuffled() -> tuple[bytes, ...]:
    return shuffle_pass(S, 0, DECK)


@pytest.fixture(scope="module")
def locked(shuffled: tuple[bytes, ...]) -> tuple[bytes, ...]:
    return lock_pass(S, 0, shuffled)


def tampered(deck: tuple[bytes, ...]) -> list[tuple[bytes, ...]]:
    swapped = list(deck)
    swapped[3], swapped[11] = swapped[11], swapped[3]
    replaced = list(deck)
    replaced[7] = mul(2, replaced[7])
    last_replaced = list(deck)
    last_replaced[-1] = CARD_POINTS[0]
    return [tuple(swapped), tuple(replaced), tuple(last_replaced), deck[:-1], (*deck, deck[0]), ()]


def test_verify_shuffle_pass(shuffled: tuple[bytes, ...]) -> None:
    assert verify_shuffle_pass(S, 0, DECK, shuffled)
    assert not verify_shuffle_pass(seat_secret(1), 0, DECK, shuffled)
    assert not verify_shuffle_pass(S, 1, DECK, shuffled)
    assert not verify_shuffle_pass(seat_secret(1), 0, DECK, shuffle_pass(S, 0, DECK))
    assert not verify_shuffle_pass(S, 0, DECK, shuffle_pass(seat_secret(1), 0, DECK))
    for bad in tampered(shuffled):
        assert not verify_shuffle_pass(S, 0, DECK, bad)


def test_verify_lock_pass(shuffled: tuple[bytes, ...], locked: tuple[bytes, ...]) -> None:
    assert verify_lock_pass(S, 0, shuffled, locked)
    assert not verify_lock_pass(seat_secret(1), 0, shuffled, locked)
    assert not verify_lock_pass(S, 1, shuffled, locked)
    assert not verify_lock_pass(S, 0, shuffled, lock_pass(seat_secret(1), 0, shuffled))
    for bad in tampered(locked):
        assert not verify_lock_pass(S, 0, shuffled, bad)


def test_verify_raises_on_invalid_input_deck(shuffled: tuple[bytes, ...]) -> None:
    bad_in = (bytes(31), *DECK[1:])
    with pytest.raises(InvalidElement):
        verify_shuffle_pass(S, 0, bad_in, shuffled)
    with pytest.raises(InvalidElement):
        verify_lock_pass(S, 0, bad_in, shuffled)


def test_check_deck(shuffled: tuple[bytes, ...]) -> None:
    assert check_deck(shuffled, len(shuffled)) == shuffled
    assert check_deck(list(shuffled), len(shuffled)) == shuffled
    with pytest.raises(InvalidElement, match="expected"):
        check_deck(shuffled, len(shuffled) + 1)
    with pytest.raises(InvalidElement, match="twice"):
        check_deck((*shuffled[:-1], shuffled[0]), len(shuffled))
    with pytest.raises(InvalidElement):
        check_deck((*shuffled[:-1], b"\xff" * 32), len(shuffled))
    with pytest.raises(InvalidElement):
        check_deck((*shuffled[:-1], shuffled[0][:31]), len(shuffled))


# --- relock layers: opening positions to one seat only -------------------------------


def _locked_card(card: int, keys: list[int]) -> bytes:
    point = encode_deck([card])[0]
    for k in keys:
        point = mul(k, point)
    return point


def test_a_relock_and_unlock_open_a_card_to_the_relocker_only() -> None:
    holder_key, public_key = 12345, 67890
    looker = b"\x07" * 32
    point = _locked_card(17, [holder_key, public_key])
    relocked = relock_pass(looker, 0, [point])
    unlocked = unlock_pass([holder_key], relocked)
    # The looker removes its fresh key and the public one: the card.
    assert open_card(unlocked[0], [relock_key(looker, 0, 0), public_key]) == 17
    # Without the looker's fresh key the public keys open nothing.
    assert open_card(unlocked[0], [public_key]) != 17
    assert verify_relock_pass(looker, 0, [point], relocked)
    assert verify_unlock_pass([holder_key], relocked, unlocked)


def test_a_wrong_relock_or_unlock_pass_does_not_verify() -> None:
    looker = b"\x09" * 32
    points = [_locked_card(c, [999]) for c in (1, 2, 3)]
    relocked = relock_pass(looker, 2, points)
    assert not verify_relock_pass(looker, 3, points, relocked)  # another layer's keys
    assert not verify_relock_pass(b"\x0a" * 32, 2, points, relocked)
    assert not verify_relock_pass(looker, 2, points, relocked[:2])
    unlocked = unlock_pass([999, 999, 999], relocked)
    assert not verify_unlock_pass([999, 999, 998], relocked, unlocked)
    assert not verify_unlock_pass([999, 999, 999], relocked, unlocked[::-1])
