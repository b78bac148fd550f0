"""The P-256 x-coordinate group and the card encoding, checked against a pure-Python reference."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pcards.crypto import group
from p2pcards.crypto.encoding import (
    CARD_COUNT,
    CARD_POINTS,
    decode_card,
    encode_card,
    encode_deck,
    hash_to_element,
)
from p2pcards.crypto.group import (
    FIELD_PRIME,
    ORDER,
    InvalidElement,
    InvalidScalar,
    check_element,
    inverse,
    is_element,
    mul,
    mul_many,
    product,
    scalar_from_bytes,
    scalar_to_bytes,
)

# --- an independent pure-Python P-256, written from the curve's published parameters --------

P = 0xFFFFFFFF00000001000000000000000000000000FFFFFFFFFFFFFFFFFFFFFFFF
N = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
A = P - 3
B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
GX = 0x6B17D1F2E12C4247F8BCE6E563A440F277037D812DEB33A0F4A13945D898C296


def rhs(x: int) -> int:
    return (x * x * x + A * x + B) % P


def is_x_coordinate(x: int) -> bool:
    """Euler's criterion: y² = rhs(x) has a solution iff rhs(x) is 0 or a square mod p."""
    value = rhs(x)
    return value == 0 or pow(value, (P - 1) // 2, P) == 1


def lift_x(x: int) -> tuple[int, int]:
    y = pow(rhs(x), (P + 1) // 4, P)  # p ≡ 3 (mod 4)
    assert y * y % P == rhs(x)
    return x, y


def point_add(p1: tuple[int, int] | None, p2: tuple[int, int] | None) -> tuple[int, int] | None:
    if p1 is None:
        return p2
    if p2 is None:
        return p1
    (x1, y1), (x2, y2) = p1, p2
    if x1 == x2 and (y1 + y2) % P == 0:
        return None
    numerator, denominator = (3 * x1 * x1 + A, 2 * y1) if p1 == p2 else (y2 - y1, x2 - x1)
    slope = numerator * pow(denominator, -1, P) % P
    x3 = (slope * slope - x1 - x2) % P
    return x3, (slope * (x1 - x3) - y1) % P


def reference_mul(k: int, x: bytes) -> bytes:
    result, addend = None, lift_x(int.from_bytes(x, "big"))
    while k:
        if k & 1:
            result = point_add(result, addend)
        addend = point_add(addend, addend)
        k >>= 1
    assert result is not None
    return result[0].to_bytes(32, "big")


scalars = st.integers(min_value=1, max_value=N - 1)
X_G = GX.to_bytes(32, "big")


# --- group constants and multiplication ---------------------------------------------------


def test_constants_are_p256() -> None:
    assert FIELD_PRIME == P
    assert ORDER == N
    assert group.CURVE_B == B
    assert is_x_coordinate(GX)


@settings(max_examples=10, deadline=None)
@given(k=scalars)
def test_mul_matches_reference_arithmetic(k: int) -> None:
    assert mul(k, X_G) == reference_mul(k, X_G)
    assert mul(k, CARD_POINTS[0]) == reference_mul(k, CARD_POINTS[0])


def test_published_mul_vector() -> None:
    vector = "0ea22c5d38438b8cea2a2c8711ed5f39d5404e18b6372b1b838a2eb634192cea"  # protocol.md
    assert reference_mul(2, CARD_POINTS[0]).hex() == vector
    assert mul(2, CARD_POINTS[0]).hex() == vector


def test_mul_small_scalars_match_reference() -> None:
    for k in (1, 2, 3, N - 1, N - 2):
        assert mul(k, CARD_POINTS[7]) == reference_mul(k, CARD_POINTS[7])


def test_mul_by_one_and_by_minus_one_keep_x() -> None:
    # (n-1)·P = -P has the same x-coordinate: a check that ORDER is the curve's order.
    for x in CARD_POINTS[:5]:
        assert mul(1, x) == x
        assert mul(N - 1, x) == x
    assert mul(2, X_G) != X_G


@settings(max_examples=15, deadline=None)
@given(k1=scalars, k2=scalars, card=st.integers(0, CARD_COUNT - 1))
def test_mul_commutes(k1: int, k2: int, card: int) -> None:
    x = CARD_POINTS[card]
    assert mul(k1, mul(k2, x)) == mul(k2, mul(k1, x))
    assert mul(k1, mul(k2, x)) == mul(k1 * k2 % N, x)


@settings(max_examples=15, deadline=None)
@given(k=scalars, card=st.integers(0, CARD_COUNT - 1))
def test_inverse_undoes_mul(k: int, card: int) -> None:
    x = CARD_POINTS[card]
    assert k * inverse(k) % N == 1
    assert mul(inverse(k), mul(k, x)) == x
    assert mul(k, mul(inverse(k), x)) == x


def test_product_of_scalars() -> None:
    assert product([]) == 1
    assert product([2, 3, N - 1]) == (6 * (N - 1)) % N
    x = CARD_POINTS[3]
    assert mul(product([5, 7, 11]), x) == mul(5, mul(7, mul(11, x)))
    with pytest.raises(InvalidScalar):
        product([2, 0])


def test_mul_many_and_counter() -> None:
    xs = CARD_POINTS[:6]
    group.OPS.reset()
    assert group.OPS.count == 0
    assert mul_many(12345, xs) == tuple(mul(12345, x) for x in xs)
    assert group.OPS.count == 12
    mul(3, xs[0])
    assert group.OPS.count == 13
    group.OPS.reset()
    assert group.OPS.count == 0


@pytest.mark.parametrize("k", [0, -1, N, N + 1, 2**256, True, 1.0, "1"])
def test_mul_rejects_non_scalars(k: object) -> None:
    with pytest.raises(InvalidScalar):
        mul(k, CARD_POINTS[0])  # type: ignore[arg-type]
    with pytest.raises(InvalidScalar):
        inverse(k)  # type: ignore[arg-type]


# --- element validation -------------------------------------------------------------------


def first_non_x_coordinate() -> int:
    x = 0
    while is_x_coordinate(x):
        x += 1
    return x


def test_check_element_accepts_points() -> None:
    for x in CARD_POINTS:
        assert check_element(x) == x
    assert check_element(X_G) == X_G
    assert check_element(bytearray(X_G)) == X_G
    assert check_element(mul(99, CARD_POINTS[0])) == mul(99, CARD_POINTS[0])
    assert is_element(X_G)


@pytest.mark.parametrize("length", [0, 1, 31, 33, 64, 65])
def test_check_element_rejects_wrong_length(length: int) -> None:
    with pytest.raises(InvalidElement):
        check_element(X_G[:length] if length <= 32 else X_G + bytes(length - 32))
    assert not is_element(bytes(length))


def first_x_coordinate() -> int:
    x = 0
    while not is_x_coordinate(x):
        x += 1
    return x


@pytest.mark.parametrize("x", [P, P + 1, P + first_x_coordinate(), 2**256 - 1])
def test_check_element_rejects_x_not_below_p(x: int) -> None:
    # p + (a valid x) reduces mod p to a valid x: only the range check can catch it.
    with pytest.raises(InvalidElement):
        check_element(x.to_bytes(32, "big"))
    with pytest.raises(InvalidElement):
        mul(5, x.to_bytes(32, "big"))


def test_check_element_rejects_points_off_the_curve() -> None:
    bad = first_non_x_coordinate()
    assert not is_x_coordinate(bad)
    with pytest.raises(InvalidElement):
        check_element(bad.to_bytes(32, "big"))
    with pytest.raises(InvalidElement):
        mul(5, bad.to_bytes(32, "big"))
    # About half of all x are off the curve; every one must be refused.
    checked = 0
    for i in range(200):
        x = int.from_bytes(hashlib.sha256(b"off-curve-%d" % i).digest(), "big") % P
        assert is_element(x.to_bytes(32, "big")) == is_x_coordinate(x)
        checked += not is_x_coordinate(x)
    assert checked > 50


@pytest.mark.parametrize("value", ["a" * 32, None, 12, [0] * 32])
def test_check_element_rejects_non_bytes(value: object) -> None:
    with pytest.raises(InvalidElement):
        check_element(value)  # type: ignore[arg-type]
    assert not is_element(value)


# --- scalar encoding ----------------------------------------------------------------------


@settings(max_examples=50, deadline=None)
@given(k=scalars)
def test_scalar_bytes_round_trip(k: int) -> None:
    b = scalar_to_bytes(k)
    assert len(b) == 32
    assert int.from_bytes(b, "big") == k
    assert scalar_from_bytes(b) == k


def test_scalar_edges() -> None:
    assert scalar_to_bytes(1) == bytes(31) + b"\x01"
    assert scalar_from_bytes((N - 1).to_bytes(32, "big")) == N - 1


@pytest.mark.parametrize(
    "data", [bytes(32), N.to_bytes(32, "big"), (N + 1).to_bytes(32, "big"), b"\xff" * 32, b"\x01", bytes(33)]
)
def test_scalar_from_bytes_rejects(data: bytes) -> None:
    with pytest.raises(InvalidScalar):
        scalar_from_bytes(data)
    with pytest.raises(ValueError):  # InvalidScalar is a ValueError (and an InvalidElement)
        scalar_from_bytes(data)


@pytest.mark.parametrize("k", [0, -5, N, 2**256])
def test_scalar_to_bytes_rejects(k: int) -> None:
    with pytest.raises(InvalidScalar):
        scalar_to_bytes(k)


# --- card encoding ------------------------------------------------------------------------

# Published in protocol.md: card index -> (ctr, x).
CARD_VECTORS = {
    0: (0, "2b174f2a223f93996817fd3aa45050b9b140943a8484c05b51e140b7c2ebe9c7"),
    8: (0, "25da0dc96fa852bcfff155bb2e8c3fc2f265d402f2a5c2557031ef9f43a32bb4"),
    11: (3, "b03243f604137230463992244f8199f2f648bc9eae5b20f146c5e2c62db23977"),
    50: (9, "81daa7ab8e32c826cc0842267fb31875dd266d737894c54a19591fe584677584"),
    51: (1, "aeb08c4e0317cf34d565f897e199bf7bdf7555fd79989a5a78e19fbbb01c1540"),
    52: (0, "aad225466c0fbceef9ff16032eb7e6eb04e555c92cce997dc603ab60c8014f0b"),
    88: (6, "239057f70d894faa04fa7df1e12989b1022af314d6d937e08e51e8f59bdeb97b"),
    103: (0, "7b4bb19606ddbb398ba5d2959e4dbcc4bc9b440ff6e379cdb71e23819d05aacf"),
}
ALL_CARDS_DIGEST = "7090e0b8e406651c0d6abbf1e352aa91a5283155b733d2c9b331703c12a383b0"


def independent_card_point(index: int) -> tuple[int, bytes]:
    """Try-and-increment straight from the spec, with hashlib and Euler's criterion."""
    for ctr in range(256):
        digest = hashlib.sha256(b"p2pcards/v1/card" + bytes([index >> 8, index & 0xFF, ctr])).digest()
        x = int.from_bytes(digest, "big")
        if x < P and is_x_coordinate(x):
            return ctr, digest
    raise AssertionError("unreachable")


def test_card_points_match_independent_recomputation() -> None:
    recomputed = [independent_card_point(i) for i in range(CARD_COUNT)]
    assert tuple(x for _, x in recomputed) == CARD_POINTS
    for i in range(CARD_COUNT):
        assert hash_to_element(i) == recomputed[i]
    # The published vectors are what the spec gives, and what the code gives.
    for index, (ctr, x_hex) in CARD_VECTORS.items():
        assert recomputed[index] == (ctr, bytes.fromhex(x_hex))
        assert encode_card(index).hex() == x_hex
    assert hashlib.sha256(b"".join(x for _, x in recomputed)).hexdigest() == ALL_CARDS_DIGEST


def test_card_points_distinct_valid_and_decodable() -> None:
    assert len(CARD_POINTS) == CARD_COUNT == 104
    assert len(set(CARD_POINTS)) == 104
    for i, x in enumerate(CARD_POINTS):
        assert len(x) == 32
        assert check_element(x) == x
        assert decode_card(x) == i
        assert decode_card(bytearray(x)) == i
        assert encode_card(i) == x


def test_decode_card_rejects_non_cards() -> None:
    assert decode_card(mul(2, CARD_POINTS[0])) is None
    assert decode_card(X_G) is None
    assert decode_card(b"") is None
    assert decode_card(CARD_POINTS[0][:31]) is None
    assert decode_card(None) is None  # type: ignore[arg-type]
    assert decode_card(10**9) is None  # type: ignore[arg-type]
    assert decode_card(memoryview(CARD_POINTS[4])) == 4


def test_encode_deck_keeps_order() -> None:
    assert encode_deck([5, 0, 103]) == (CARD_POINTS[5], CARD_POINTS[0], CARD_POINTS[103])
    assert encode_deck(range(52)) == CARD_POINTS[:52]
    assert encode_deck([]) == ()


@pytest.mark.parametrize("index", [-1, 104, 1000])
def test_encode_card_rejects_out_of_range(index: int) -> None:
    with pytest.raises(ValueError):
        encode_card(index)
    with pytest.raises(ValueError):
        encode_deck([0, index])
