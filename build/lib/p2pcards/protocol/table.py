"""The table of a match, chosen by the game its join record names.

The generic replica is :class:`~p2pcards.protocol.core.TableCore`; each game
adds its steps in an adapter under :mod:`p2pcards.protocol.adapters`. This
module is the adapters' registry, the one place of the protocol layer that
lists the games it can play.
"""

from __future__ import annotations

from p2pcards.errors import UsageError
from p2pcards.protocol.adapters.neuf import NeufTable
from p2pcards.protocol.adapters.nines import GAME_NAME, NinesTable
from p2pcards.protocol.core import StepSpec, TableCore

TABLES: dict[str, type[TableCore]] = {NinesTable.GAME: NinesTable, NeufTable.GAME: NeufTable}
"""Every game the protocol plays, by the name in its join record."""

Table = NinesTable
"""The table of Nines (the name most callers know it by)."""

__all__ = ["GAME_NAME", "TABLES", "StepSpec", "Table", "TableCore", "table_class"]


def table_class(game: str) -> type[TableCore]:
    """The table class for ``game`` (UsageError naming the games otherwise)."""
    try:
        return TABLES[game]
    except KeyError:
        raise UsageError(
            f"the protocol does not play {game!r} yet; it plays {', '.join(sorted(TABLES))}"
        ) from None
