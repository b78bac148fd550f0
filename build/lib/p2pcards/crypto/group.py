"""The commutative group of the mental-poker layer: P-256 points named by their x-coordinate.

An *element* is the 32-byte big-endian x-coordinate of a point of NIST P-256 (all points but
the point at infinity). ``mul(k, x)`` is the x-coordinate of ``k·P`` for either point ``P``
whose x-coordinate is ``x``: ``k·(-P) = -(k·P)`` has the same x-coordinate, so the map is well
defined on x-coordinates, it commutes (``mul(a, mul(b, x)) == mul(b, mul(a, x))``), and a
scalar is undone by its inverse modulo the (prime) group order. The arithmetic runs inside
OpenSSL through an ECDH exchange, which is about a hundred times faster than pure Python.

A *scalar* is an ``int`` in ``[1, ORDER - 1]``; on the wire it is 32 bytes, big-endian.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import lru_cache

from cryptography.hazmat.primitives.asymmetric import ec

ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551
"""n, the prime order of the P-256 group (its cofactor is 1)."""

FIELD_PRIME = 2**256 - 2**224 + 2**192 + 2**96 - 1
"""p, the prime of the field the coordinates live in."""

CURVE_B = 0x5AC635D8AA3A93E7B3EBBD55769886BC651D06B0CC53B0F63BCE3C3E27D2604B
"""b in the curve equation y² = x³ - 3x + b."""

ELEMENT_SIZE = 32
SCALAR_SIZE = 32

_CURVE = ec.SECP256R1()
_ECDH = ec.ECDH()
_PUBLIC_KEY_CACHE_SIZE = 4096


class InvalidElement(ValueError):
    """Bytes that are not a group element (wrong length, or not an x-coordinate on the curve)."""


class InvalidScalar(InvalidElement):
    """An integer or 32 bytes that is not a scalar in [1, n-1]."""


class OpCounter:
    """Counts group multiplications, so benchmarks can report work in operations, not seconds."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def reset(self) -> None:
        self.count = 0


OPS = OpCounter()
"""Incremented once per scalar multiplication (``mul``, and each element of ``mul_many``)."""


@lru_cache(maxsize=_PUBLIC_KEY_CACHE_SIZE)
def _public_key(x: bytes) -> ec.EllipticCurvePublicKey:
    # Cached because a node decodes most points twice: once when it checks a published deck,
    # and again when it multiplies or verifies that deck. Points are public, so caching is safe.
    if len(x) != ELEMENT_SIZE:
        raise InvalidElement(f"an element is {ELEMENT_SIZE} bytes, got {len(x)}")
    if int.from_bytes(x, "big") >= FIELD_PRIME:
        raise InvalidElement("x-coordinate not below the field prime")
    try:
        return ec.EllipticCurvePublicKey.from_encoded_point(_CURVE, b"\x02" + x)
    except ValueError:
        raise InvalidElement("not the x-coordinate of a point on P-256") from None


def _as_bytes(x: object) -> bytes:
    if isinstance(x, bytes):
        return x
    if isinstance(x, bytearray | memoryview):
        return bytes(x)
    raise InvalidElement(f"an element is bytes, got {type(x).__name__}")


def check_element(x: bytes) -> bytes:
    """Return ``x`` if it is a valid element; raise :class:`InvalidElement` otherwise."""
    x = _as_bytes(x)
    _public_key(x)
    return x


def is_element(x: object) -> bool:
    """True if ``x`` is a valid element (never raises)."""
    try:
        check_element(x)  # type: ignore[arg-type]
    except InvalidElement:
        return False
    return True


def check_scalar(k: int) -> int:
    """Return ``k`` if it is a scalar in [1, n-1]; raise :class:`InvalidScalar` otherwise."""
    if isinstance(k, bool) or not isinstance(k, int):
        raise InvalidScalar(f"a scalar is an int, got {type(k).__name__}")
    if not 0 < k < ORDER:
        raise InvalidScalar("scalar out of range [1, n-1]")
    return k


def _private_key(k: int) -> ec.EllipticCurvePrivateKey:
    return ec.derive_private_key(check_scalar(k), _CURVE)


def mul(k: int, x: bytes) -> bytes:
    """x(k·P): multiply the element ``x`` by the scalar ``k`` (validates both)."""
    public = _public_key(_as_bytes(x))
    OPS.count += 1
    return _private_key(k).exchange(_ECDH, public)


def iter_mul(k: int, xs: Iterable[bytes]) -> Iterator[bytes]:
    """``mul(k, x)`` for each ``x`` in turn, building the private key for ``k`` only once."""
    private = _private_key(k)
    for x in xs:
        public = _public_key(_as_bytes(x))
        OPS.count += 1
        yield private.exchange(_ECDH, public)


def mul_many(k: int, xs: Iterable[bytes]) -> tuple[bytes, ...]:
    """``tuple(mul(k, x) for x in xs)``, building the private key for ``k`` only once."""
    return tuple(iter_mul(k, xs))


def inverse(k: int) -> int:
    """k⁻¹ mod n, the scalar that undoes ``k``."""
    return pow(check_scalar(k), -1, ORDER)


def product(keys: Iterable[int]) -> int:
    """The product of scalars mod n (1 for no scalars): one multiplication applies them all."""
    result = 1
    for k in keys:
        result = result * check_scalar(k) % ORDER
    return result


def scalar_to_bytes(k: int) -> bytes:
    """The wire form of a scalar: 32 bytes, big-endian."""
    return check_scalar(k).to_bytes(SCALAR_SIZE, "big")


def scalar_from_bytes(b: bytes) -> int:
    """Parse a wire scalar; raise :class:`InvalidScalar` unless 32 bytes encoding [1, n-1]."""
    if not isinstance(b, bytes | bytearray | memoryview):
        raise InvalidScalar(f"a scalar is bytes on the wire, got {type(b).__name__}")
    if len(b) != SCALAR_SIZE:
        raise InvalidScalar(f"a scalar is {SCALAR_SIZE} bytes, got {len(b)}")
    return check_scalar(int.from_bytes(b, "big"))
