"""The table of a match, chosen by the game its join record names.

The generic replica is :class:`~p2pcards.protocol.core.TableCore`; each game
adds its steps in its own folder (the ``table`` part of its
:class:`~p2pcards.games.base.Parts`, such as ``p2pcards/games/nines/adapter.py``).
The protocol finds a game's table through the games' registry and never names
a game.
"""

from __future__ import annotations

from p2pcards.errors import UsageError
from p2pcards.games.base import game, load
from p2pcards.protocol.core import StepSpec, TableCore

__all__ = ["StepSpec", "TableCore", "table_class"]


def table_class(name: str) -> type[TableCore]:
    """The table class for the game called ``name`` (UsageError naming the games otherwise)."""
    try:
        cls: type[TableCore] = load(game(name).parts.table)
    except UsageError:
        raise UsageError(f"the protocol does not play {name!r} yet; it plays {', '.join(_names())}") from None
    return cls


def _names() -> list[str]:
    from p2pcards.games.base import names

    return sorted(names())
