"""Key derivation: every key of a hand comes from one 32-byte secret through labelled HMAC calls.

Deriving instead of drawing means a player's whole hand can be re-checked once it reveals its
secret: the commitment pins the secret, and the secret pins every scalar and permutation.

Byte layouts (``u32(v)`` is 4 bytes big-endian, ``||`` concatenation):

* ``commitment(s, ctx) = SHA-256(b"p2pcards/v1/commit" || u32(len(ctx)) || ctx || s)``
* ``derive(s, label, v1..vk) = HMAC-SHA256(key=s, msg=b"p2pcards/v1/" || label || 0x00 || u32(v1)
  || ... || u32(vk))``: the label is non-empty ASCII without NUL, so the 0x00 ends it and the
  fixed-width numbers follow; different (label, numbers) never give the same message.
* ``derive_scalar(s, label, v...)``: ``B_j = derive(s, "scalar/" + label, v..., j)``;
  ``k = int(B_0 || B_1) mod (n - 1) + 1``. Reducing 512 bits modulo a 256-bit number leaves a
  bias below 2^-255, so ``k`` is uniform in [1, n-1] for every practical purpose.
* ``derive_permutation(s, label, size, v...)``: a stream of 32-bit words, read big-endian from
  ``B_0 || B_1 || ...`` with ``B_j = derive(s, "permutation/" + label, v..., size, j)``, drives a
  Fisher-Yates shuffle of ``[0, 1, ..., size-1]``: for ``i = size-1`` down to ``1``, draw words
  until one is below ``2^32 - (2^32 mod (i+1))`` (rejection keeps it unbiased), take
  ``j = word mod (i+1)`` and swap items ``i`` and ``j``.

Labels starting with ``scalar/`` or ``permutation/`` are reserved for the last two.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Callable

from p2pcards.crypto.group import ORDER

SECRET_SIZE = 32
"""Bytes in a per-hand secret."""

DOMAIN = b"p2pcards/v1/"
COMMIT_DOMAIN = b"p2pcards/v1/commit"
MAX_PERMUTATION_SIZE = 2**16
_U32 = 2**32


def _check_secret(secret: bytes) -> bytes:
    # A fixed size keeps HMAC from hashing long keys, which would make two secrets equivalent.
    if not isinstance(secret, bytes) or len(secret) != SECRET_SIZE:
        raise ValueError(f"a secret is {SECRET_SIZE} bytes")
    return secret


def _u32(v: int) -> bytes:
    if isinstance(v, bool) or not isinstance(v, int) or not 0 <= v < _U32:
        raise ValueError(f"KDF numbers are integers in [0, 2^32), got {v!r}")
    return v.to_bytes(4, "big")


def _label_bytes(label: str) -> bytes:
    if not label or not label.isascii() or "\x00" in label:
        raise ValueError(f"a label is non-empty ASCII without NUL, got {label!r}")
    return label.encode("ascii")


def commitment(secret: bytes, context: bytes) -> bytes:
    """The published commitment to ``secret``, bound to ``context`` (game id, hand, seat)."""
    _check_secret(secret)
    if not isinstance(context, bytes) or len(context) >= _U32:
        raise ValueError("the context is bytes shorter than 2^32")
    return hashlib.sha256(COMMIT_DOMAIN + _u32(len(context)) + context + secret).digest()


def derive(secret: bytes, label: str, *numbers: int) -> bytes:
    """32 pseudo-random bytes named by ``label`` and ``numbers`` (layout in the module doc)."""
    msg = DOMAIN + _label_bytes(label) + b"\x00" + b"".join(_u32(v) for v in numbers)
    return hmac.digest(_check_secret(secret), msg, "sha256")


def derive_scalar(secret: bytes, label: str, *numbers: int) -> int:
    """A scalar in [1, n-1] named by ``label`` and ``numbers``."""
    tagged = "scalar/" + label
    wide = derive(secret, tagged, *numbers, 0) + derive(secret, tagged, *numbers, 1)
    return int.from_bytes(wide, "big") % (ORDER - 1) + 1


def derive_permutation(secret: bytes, label: str, size: int, *numbers: int) -> tuple[int, ...]:
    """A uniformly random-looking permutation of ``range(size)`` named by ``label`` and ``numbers``."""
    if isinstance(size, bool) or not isinstance(size, int) or not 0 <= size <= MAX_PERMUTATION_SIZE:
        raise ValueError(f"permutation size must be in [0, {MAX_PERMUTATION_SIZE}], got {size!r}")
    tagged = "permutation/" + label
    words = _WordStream(lambda block: derive(secret, tagged, *numbers, size, block))
    items = list(range(size))
    for i in range(size - 1, 0, -1):
        j = _draw_below(words.next, i + 1)
        items[i], items[j] = items[j], items[i]
    return tuple(items)


def _draw_below(next_word: Callable[[], int], bound: int) -> int:
    """A uniform integer in [0, bound) from 32-bit words, rejecting those past the last full cycle."""
    limit = _U32 - _U32 % bound
    word = next_word()
    while word >= limit:
        word = next_word()
    return word % bound


class _WordStream:
    """Big-endian 32-bit words from consecutive blocks ``block(0) || block(1) || ...``."""

    __slots__ = ("_block", "_buffer", "_index", "_next_block")

    def __init__(self, block: Callable[[int], bytes]) -> None:
        self._block = block
        self._buffer: list[int] = []
        self._index = 0
        self._next_block = 0

    def next(self) -> int:
        if self._index == len(self._buffer):
            data = self._block(self._next_block)
            self._next_block += 1
            self._buffer = [int.from_bytes(data[o : o + 4], "big") for o in range(0, len(data), 4)]
            self._index = 0
        word = self._buffer[self._index]
        self._index += 1
        return word
