"""Card encoding: each card index becomes a fixed group element whose discrete log nobody knows.

Hash-to-curve by try-and-increment: for ``ctr = 0, 1, 2, ...`` take
``x = SHA-256(b"p2pcards/v1/card" || u16(index) || u8(ctr))`` (big-endian integers) and keep the
first ``x`` that is below the field prime and the x-coordinate of a point on P-256. Because the
points come out of a hash, no one knows a scalar relating two cards, which is what keeps a locked
card from being recognised. The 104 points (two copies of a 52-card deck, numbered as in
:mod:`p2pcards.cards`) are computed once at import; it takes a few milliseconds.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable

from p2pcards.cards import CARDS_PER_DECK
from p2pcards.crypto.group import FIELD_PRIME, InvalidElement, check_element

CARD_DOMAIN = b"p2pcards/v1/card"
CARD_COUNT = 2 * CARDS_PER_DECK
"""Number of encodable cards: indices 0..103 (copy 1 of the double deck is 52..103)."""


def hash_to_element(index: int) -> tuple[int, bytes]:
    """``(ctr, x)`` for card ``index``: the try-and-increment search written out."""
    if not 0 <= index < 2**16:
        raise ValueError(f"card index out of range: {index}")
    for ctr in range(256):
        x = hashlib.sha256(CARD_DOMAIN + index.to_bytes(2, "big") + ctr.to_bytes(1, "big")).digest()
        if int.from_bytes(x, "big") >= FIELD_PRIME:
            continue
        try:
            return ctr, check_element(x)
        except InvalidElement:
            continue
    # About half of all x are valid, so 256 failures in a row has probability 2^-256.
    raise AssertionError(f"no curve point found for card {index}")  # pragma: no cover


def encode_card(index: int) -> bytes:
    """The element of card ``index`` (0..103)."""
    if not 0 <= index < CARD_COUNT:
        raise ValueError(f"card index out of range: {index}")
    return CARD_POINTS[index]


def encode_deck(indices: Iterable[int]) -> tuple[bytes, ...]:
    """The elements of the given card indices, in the same order."""
    return tuple(encode_card(i) for i in indices)


def decode_card(x: bytes) -> int | None:
    """The card index whose element is ``x``, or None if ``x`` is no card."""
    if isinstance(x, bytearray | memoryview):
        x = bytes(x)
    return _INDEX_OF.get(x) if isinstance(x, bytes) else None


CARD_POINTS: tuple[bytes, ...] = tuple(hash_to_element(i)[1] for i in range(CARD_COUNT))
"""Element of card ``i`` at position ``i``."""

_INDEX_OF: dict[bytes, int] = {x: i for i, x in enumerate(CARD_POINTS)}
assert len(_INDEX_OF) == CARD_COUNT, "two cards share an element"
