"""SRA-style mental poker steps: shuffle, lock, open, and the checks that replay them.

One shuffle round (``rnd``: 0 for the hand's deal, r >= 1 for the r-th recycle of the discards)
goes through every seat twice. With ``e`` the seat's shuffle scalar, ``π`` its permutation and
``k[c]`` its lock key for position ``c``, all derived from the seat's secret:

* shuffle pass: ``out[i] = e · in[π[i]]`` - output position ``i`` takes the input card at
  position ``π[i]``, multiplied by ``e``;
* lock pass: ``out[c] = (k[c] · e⁻¹ mod n) · in[c]`` - removes the seat's shuffle layer and adds
  a per-position lock, one multiplication per card.

After every seat's shuffle pass and then every seat's lock pass, position ``c`` holds
``(Π_j k_j[c]) · M`` for one card element ``M``: the shuffle scalars cancel, and the card comes
out only when all the lock keys of that position are known. ``open_point`` removes any set of
lock layers with one multiplication by the inverse of their product.

The ``verify_*`` functions replay a pass from the revealed secret. They expect ``deck_in`` to have
been checked already (every received element is checked on receipt); an invalid element there
raises :class:`~p2pcards.crypto.group.InvalidElement`, because the fault lies with whoever
published ``deck_in``, not with the pass being verified.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from p2pcards.crypto.encoding import decode_card
from p2pcards.crypto.group import (
    ORDER,
    InvalidElement,
    check_element,
    inverse,
    iter_mul,
    mul,
    mul_many,
    product,
)
from p2pcards.crypto.kdf import derive_permutation, derive_scalar

SHUFFLE_LABEL = "shuffle"
PERMUTE_LABEL = "permute"
LOCK_LABEL = "lock"


def check_deck(deck: Sequence[bytes], size: int) -> tuple[bytes, ...]:
    """Check a received deck: ``size`` valid elements, all distinct; raise InvalidElement otherwise.

    Honest passes never make two positions equal (each pass maps distinct elements to distinct
    elements), so a repeated element is proof of a dishonest pass, caught before any replay.
    """
    if len(deck) != size:
        raise InvalidElement(f"a deck of {size} elements was expected, got {len(deck)}")
    checked = tuple(check_element(x) for x in deck)
    if len(set(checked)) != size:
        raise InvalidElement("a deck holds the same element twice")
    return checked


def shuffle_scalar(secret: bytes, rnd: int) -> int:
    """The seat's shuffle scalar ``e`` for round ``rnd``."""
    return derive_scalar(secret, SHUFFLE_LABEL, rnd)


def shuffle_permutation(secret: bytes, rnd: int, size: int) -> tuple[int, ...]:
    """The seat's permutation ``π`` of ``range(size)`` for round ``rnd``."""
    return derive_permutation(secret, PERMUTE_LABEL, size, rnd)


def lock_key(secret: bytes, rnd: int, position: int) -> int:
    """The seat's lock key ``k[position]`` for round ``rnd`` (what it reveals to open a card)."""
    return derive_scalar(secret, LOCK_LABEL, rnd, position)


def lock_keys(secret: bytes, rnd: int, size: int) -> tuple[int, ...]:
    """``lock_key`` for positions ``0..size-1``."""
    return tuple(lock_key(secret, rnd, c) for c in range(size))


def shuffle_pass(secret: bytes, rnd: int, deck: Sequence[bytes]) -> tuple[bytes, ...]:
    """``out[i] = e · deck[π[i]]``: re-encrypt the whole deck under ``e`` and permute it."""
    perm = shuffle_permutation(secret, rnd, len(deck))
    return mul_many(shuffle_scalar(secret, rnd), (deck[p] for p in perm))


def _lock_scalars(secret: bytes, rnd: int, size: int) -> list[int]:
    e_inv = inverse(shuffle_scalar(secret, rnd))
    return [lock_key(secret, rnd, c) * e_inv % ORDER for c in range(size)]


def lock_pass(secret: bytes, rnd: int, deck: Sequence[bytes]) -> tuple[bytes, ...]:
    """``out[c] = (k[c] · e⁻¹ mod n) · deck[c]``: swap the shuffle layer for per-position locks."""
    scalars = _lock_scalars(secret, rnd, len(deck))
    return tuple(mul(s, x) for s, x in zip(scalars, deck, strict=True))


def verify_shuffle_pass(secret: bytes, rnd: int, deck_in: Sequence[bytes], deck_out: Sequence[bytes]) -> bool:
    """True if ``deck_out`` is exactly ``shuffle_pass(secret, rnd, deck_in)``."""
    if len(deck_out) != len(deck_in):
        return False
    perm = shuffle_permutation(secret, rnd, len(deck_in))
    expected = iter_mul(shuffle_scalar(secret, rnd), (deck_in[p] for p in perm))
    # Lazily, element by element: a dishonest pass is usually rejected after one multiplication.
    return all(x == out for x, out in zip(expected, deck_out, strict=True))


def verify_lock_pass(secret: bytes, rnd: int, deck_in: Sequence[bytes], deck_out: Sequence[bytes]) -> bool:
    """True if ``deck_out`` is exactly ``lock_pass(secret, rnd, deck_in)``."""
    if len(deck_out) != len(deck_in):
        return False
    scalars = _lock_scalars(secret, rnd, len(deck_in))
    return all(mul(s, x) == out for s, x, out in zip(scalars, deck_in, deck_out, strict=True))


def open_point(point: bytes, keys: Iterable[int]) -> bytes:
    """Remove the lock layers ``keys`` from ``point`` with one multiplication."""
    return mul(inverse(product(keys)), point)


def open_card(point: bytes, keys: Iterable[int]) -> int | None:
    """The card index under ``point`` once ``keys`` are removed, or None if that is no card."""
    return decode_card(open_point(point, keys))


# ---------------------------------------------------------------------------
# Relock layers: opening positions to one seat only.
#
# Keys published in records are public, so they open a position to everyone
# who lacks no other key. To open positions to seat B alone when other seats
# still hold unpublished locks on them, B first adds a fresh lock of its own
# (a relock pass), then each of those seats removes its lock from B's relocked
# points (an unlock pass). What is left is locked by B's fresh key and by keys
# everyone knows: only B can open it, and the observers learn nothing.

RELOCK_LABEL = "relock"


def relock_key(secret: bytes, layer: int, index: int) -> int:
    """The seat's fresh lock key for item ``index`` of relock layer ``layer``."""
    return derive_scalar(secret, RELOCK_LABEL, layer, index)


def relock_pass(secret: bytes, layer: int, points: Sequence[bytes]) -> tuple[bytes, ...]:
    """``out[j] = r[j] · points[j]``: lock every point again with a fresh key."""
    return tuple(mul(relock_key(secret, layer, j), x) for j, x in enumerate(points))


def unlock_pass(keys: Sequence[int], points: Sequence[bytes]) -> tuple[bytes, ...]:
    """``out[j] = k[j]⁻¹ · points[j]``: remove one's own lock ``k[j]`` from every point."""
    return tuple(mul(inverse(k), x) for k, x in zip(keys, points, strict=True))


def verify_relock_pass(
    secret: bytes, layer: int, points_in: Sequence[bytes], points_out: Sequence[bytes]
) -> bool:
    """True if ``points_out`` is exactly ``relock_pass(secret, layer, points_in)``."""
    if len(points_out) != len(points_in):
        return False
    return all(
        mul(relock_key(secret, layer, j), x) == out
        for j, (x, out) in enumerate(zip(points_in, points_out, strict=True))
    )


def verify_unlock_pass(keys: Sequence[int], points_in: Sequence[bytes], points_out: Sequence[bytes]) -> bool:
    """True if ``points_out`` is exactly ``unlock_pass(keys, points_in)``."""
    if len(points_out) != len(points_in):
        return False
    return all(mul(inverse(k), x) == out for k, x, out in zip(keys, points_in, points_out, strict=True))
