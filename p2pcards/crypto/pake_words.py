"""What is wrong with a SPAKE2 message a peer sent (a :class:`~p2pcards.crypto.pake.BadPakeMessage`),
as templates.

The invitation code's key exchange refuses a message that is not one it can use; its text
lands on the screen of the player who received it (the host's line refusing a connection, a
joiner's line on a host that sent something unreadable). The interface reads it back
against these templates, as what was wrong with a peer's bytes (:mod:`p2pcards.ui.problems`),
and says it in the player's language under the template's key (:data:`PAKE_WORDS`).
``size`` is a number.
"""

from __future__ import annotations

SIZE = "a SPAKE2 message is {size} bytes"
WRONG_SIDE = "the SPAKE2 message is not from the other side"
NOT_CANONICAL = "the SPAKE2 message is not the canonical encoding of its element"
NOT_ELEMENT = "the SPAKE2 message is not a usable group element"

PAKE_WORDS: dict[str, str] = {
    f"pake_{name.lower()}": text for name, text in dict(globals()).items() if name.isupper()
}
"""Every template above by its key (``pake_`` and the constant's name)."""
