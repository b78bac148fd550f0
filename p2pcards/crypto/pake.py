"""SPAKE2: proving the invitation code with one online guess per connection, never an offline test.

The joiner is side A, the host side B, of SPAKE2 over the Ed25519 group as the
``spake2`` package (the one magic-wormhole uses) implements it. Each side sends one
33-byte message (a side byte, then a group element blinded with the code); both
derive a 32-byte key that agrees only if both used the same code. A message on its
own is a uniformly random-looking group element whatever the code, so an eavesdropper,
a fake host or a fake joiner learns nothing it could test a guess against offline:
whoever plays a side tests exactly the one code it blinded its own message with,
and only by seeing the other side's key confirmation.

Key confirmation is not SPAKE2's: the lobby (``p2pcards.protocol.lobby``) binds
the key to both Ed25519 keys, both nonces, both messages and the TLS session before
either side proves anything with it.

Byte layout (protocol.md section 9 has it in full, with a test vector):

* ``w = int(HKDF-SHA256(ikm = password, salt = "", info = "SPAKE2 pw", 48 bytes)) mod L``
  (big-endian), ``password = PASSWORD_DOMAIN || normalized code``;
* A sends ``"A" || enc(x·G + w·M)``, B sends ``"B" || enc(y·G + w·N)``, with ``x``, ``y``
  uniform in ``[0, L)`` (64 random bytes, big-endian, mod L);
* A computes ``K = x·(Y - w·N)``, B ``K = y·(X - w·M)``;
* ``key = SHA-256(SHA-256(password) || SHA-256(ID_A) || SHA-256(ID_B) || X || Y || enc(K))``,
  ``X`` and ``Y`` the 32-byte elements without their side bytes.

This module is pure: the ephemeral scalar comes from the caller's 64 bytes of entropy.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from p2pcards.crypto import pake_words

if TYPE_CHECKING:
    from spake2 import SPAKE2_A, SPAKE2_B

# The ``spake2`` package (its Ed25519 group arithmetic) loads at the first exchange, not
# with the lobby's messages: a host shows its invitation before anyone has dialled it.

MESSAGE_SIZE = 33
"""Bytes in a SPAKE2 message: the side byte and a 32-byte Ed25519 element."""

ENTROPY_SIZE = 64
"""Bytes of fresh randomness one side's ephemeral scalar is drawn from."""

KEY_SIZE = 32

PASSWORD_DOMAIN = b"p2pcards/v2/code\x00"
"""Prefixed to the normalized code, so that no other use of SPAKE2 shares this password."""

ID_A = b"p2pcards/v2/joiner"
ID_B = b"p2pcards/v2/host"


def __getattr__(name: str) -> Any:
    """``M``, the joiner's blinding element (the ``spake2`` package's, from the seed ``M``),
    and ``N``, the host's (from the seed ``N``): computed when asked (``spake2`` loads late)."""
    if name in ("M", "N"):
        from spake2.parameters.ed25519 import ParamsEd25519

        return getattr(ParamsEd25519, name).to_bytes()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class Side(enum.Enum):
    """Which end of the exchange: the joiner blinds with M, the host with N."""

    JOINER = "A"
    HOST = "B"


class BadPakeMessage(ValueError):
    """The other side's message is not a usable SPAKE2 message (wrong side, not a group
    element of the prime-order subgroup, the identity, or our own message reflected); its
    text is a template of :mod:`p2pcards.crypto.pake_words`."""


def password(code: str) -> bytes:
    """The SPAKE2 password for a normalized invitation code."""
    return PASSWORD_DOMAIN + code.encode("utf-8")


@dataclass(slots=True)
class Pake:
    """One side of one exchange: :attr:`message` to send, :meth:`finish` with the other's.

    Single use: a second :meth:`finish` raises, since reusing the ephemeral scalar with
    another peer's message would let that peer test guesses.
    """

    side: Side
    message: bytes
    _state: SPAKE2_A | SPAKE2_B = field(repr=False)
    _done: bool = False

    @classmethod
    def start(cls, side: Side, code: str, entropy: bytes) -> Pake:
        """Begin as ``side`` with the normalized ``code`` and ``ENTROPY_SIZE`` fresh random bytes."""
        if len(entropy) != ENTROPY_SIZE:
            raise ValueError(f"a SPAKE2 side needs {ENTROPY_SIZE} bytes of entropy")
        supplied = [entropy]

        def entropy_f(n: int) -> bytes:
            # spake2 draws the scalar once, from exactly 64 bytes; a second draw is a bug.
            if n != ENTROPY_SIZE or not supplied:
                raise ValueError("unexpected entropy request")
            return supplied.pop()

        from spake2 import SPAKE2_A, SPAKE2_B
        from spake2.parameters.ed25519 import ParamsEd25519

        kind = SPAKE2_A if side is Side.JOINER else SPAKE2_B
        state = kind(password(code), idA=ID_A, idB=ID_B, params=ParamsEd25519, entropy_f=entropy_f)
        return cls(side=side, message=state.start(), _state=state)

    def finish(self, peer_message: bytes) -> bytes:
        """The shared 32-byte key, from the other side's message; :class:`BadPakeMessage` if unusable.

        The key agrees with the other side's only if both used the same code: nothing
        here says whether it does (key confirmation does)."""
        if self._done:
            raise ValueError("this SPAKE2 side has finished already")
        self._done = True
        if not isinstance(peer_message, bytes) or len(peer_message) != MESSAGE_SIZE:
            raise BadPakeMessage(pake_words.SIZE.format(size=MESSAGE_SIZE))
        expected = b"B" if self.side is Side.JOINER else b"A"
        if peer_message[:1] != expected:
            raise BadPakeMessage(pake_words.WRONG_SIDE)
        from spake2 import SPAKEError
        from spake2.ed25519_basic import NotOnCurve
        from spake2.parameters.ed25519 import ParamsEd25519

        try:
            element = ParamsEd25519.group.bytes_to_element(peer_message[1:])
            if element.to_bytes() != peer_message[1:]:
                # spake2 decodes y >= p and a "negative zero" x too; the spec wants one encoding per point.
                raise BadPakeMessage(pake_words.NOT_CANONICAL)
            return bytes(self._state.finish(peer_message))
        except BadPakeMessage:
            raise
        except (SPAKEError, NotOnCurve, ValueError, AssertionError) as e:  # off the curve, small order, zero
            raise BadPakeMessage(pake_words.NOT_ELEMENT) from e
