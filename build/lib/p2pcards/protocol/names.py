"""Players' names as every screen shows them: known by their keys, look-alikes told apart."""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.crypto.identity import fingerprint
from p2pcards.safetext import label_names


def names_by_key(
    names: Sequence[str], keys: Sequence[bytes], *, limit: int = 32, width: int = 10
) -> list[str]:
    """:func:`~p2pcards.safetext.label_names` for players known by their public keys: a name
    that looks like another one carries the start of its key's fingerprint, ``alice#1a2b``."""
    return label_names(names, [fingerprint(k).replace("-", "") for k in keys], limit=limit, width=width)
