"""What every benchmark group shares: a row of the table and the registry of groups."""


from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from p2pcards.games.nines.rules import NinesRules


@dataclass(frozen=True, slots=True, kw_only=True)
class Row:
    area: str
    measure: str
    value: str
    notes: str = ""


GroupFn = Callable[[bool], list[Row]]
GROUPS: dict[str, tuple[str, GroupFn]] = {}
"""Group name -> (one-line description, row-producing function), in run order."""


def group(name: str, description: str) -> Callable[[GroupFn], GroupFn]:
    """Register a row-producing function under ``name`` (selectable with ``--only``)."""

    def register(fn: GroupFn) -> GroupFn:
        if name in GROUPS:
            raise ValueError(f"benchmark group {name!r} registered twice")
        GROUPS[name] = (description, fn)
        return fn

    return register


ALL_VARIANTS = NinesRules.parse(
    [
        "draw-until-playable",
        "action-cards",
        "double-nines",
        "stacking-nines",
        "hard-nines",
        "no-nine-out",
        "tie=playoff",
    ]
)


