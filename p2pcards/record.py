"""The full-information game record (``p2pcards-record/1``) from a finished match.

``docs/record.md`` describes the document field by field: the card notation,
every event kind, the moves that leave no event and why, an unfinished match,
and the verdict that ``audit --json`` adds.

The record is built from the engine's own history (``Match.history``, each
hand's ``events``), so whatever produced the match (the local game, the audit
of a networked one) yields the same document. Field names are a contract with
tools outside the project: add fields, never rename.

Each game writes its own hands (its folder's ``record`` module, such as
``p2pcards/games/nines/record.py``) with the pieces here (the players, the cut,
a card); ``result.finished`` tells a complete match from one left before its
end (then ``winners`` is empty and the hand in progress is omitted).
:func:`build_game_record` picks the writer by the game's name.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from p2pcards.cards import Card
from p2pcards.errors import UsageError
from p2pcards.games.base import game as game_named
from p2pcards.games.base import load

FORMAT = "p2pcards-record/1"

Player = str | tuple[str, str] | Mapping[str, str]
"""A player as a name, a ``(name, key)`` pair, or a mapping with ``name`` and ``key``."""

CutRounds = Sequence[Sequence[tuple[int, Card]] | Mapping[int, Card]]
"""The rounds of the cut for the deal, each the card shown by each seat that cut."""

RecordWriter = Callable[[Any, Sequence[Player], CutRounds, Mapping[str, Any] | None], dict[str, Any]]
"""A game's record writer: ``(match, players, cut_rounds, verdict)`` to the document."""


def build_game_record(
    game: str,
    match: Any,
    players: Sequence[Player],
    cut_rounds: Sequence[Sequence[tuple[int, Card]] | Mapping[int, Card]],
    verdict: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The record of ``match``, a match of the game called ``game``, by the game's own
    writer (the ``record`` part of its :class:`~p2pcards.games.base.Parts`)."""
    try:
        entry = game_named(game)
    except UsageError:
        raise ValueError(f"no record format for the game {game!r}") from None
    writer: RecordWriter = load(entry.parts.record)
    return writer(match, players, cut_rounds, verdict)


# ---------------------------------------------------------------------------
# JSON text


def dumps_record(doc: Any, width: int = 100) -> str:
    """JSON for people too: each small object or list on one line, long card lists folded."""
    return _dump(doc, 0, width) + "\n"


def _dump(value: Any, level: int, width: int) -> str:
    flat = json.dumps(value, ensure_ascii=False)
    pad = " " * (level * 2)
    if len(pad) + len(flat) <= width or not isinstance(value, dict | list) or not value:
        return flat
    inner = " " * ((level + 1) * 2)
    if isinstance(value, list) and all(not isinstance(v, dict | list) for v in value):
        lines, line = [], ""
        for item in (json.dumps(v, ensure_ascii=False) for v in value):
            candidate = f"{line}, {item}" if line else item
            if line and len(inner) + len(candidate) + 1 > width:
                lines.append(line + ",")
                line = item
            else:
                line = candidate
        lines.append(line)
        return "[\n" + "\n".join(inner + x for x in lines) + "\n" + pad + "]"
    if isinstance(value, list):
        items = [inner + _dump(v, level + 1, width) for v in value]
        return "[\n" + ",\n".join(items) + "\n" + pad + "]"
    items = [f"{inner}{json.dumps(k)}: {_dump(v, level + 1, width)}" for k, v in value.items()]
    return "{\n" + ",\n".join(items) + "\n" + pad + "}"


def player_entry(seat: int, p: Player) -> dict[str, Any]:
    if isinstance(p, str):
        name, key = p, ""
    elif isinstance(p, tuple):
        name, key = p
    else:
        name, key = p["name"], p.get("key", "")
    return {"seat": seat, "name": name, "key": key}


def cut_entry(r: Sequence[tuple[int, Card]] | Mapping[int, Card]) -> list[dict[str, Any]]:
    pairs = sorted(r.items()) if isinstance(r, Mapping) else list(r)
    return [{"seat": seat, "card": card.text()} for seat, card in pairs]


def full_card_text(card: Card | None) -> str:
    if card is None:
        raise ValueError("a full-information record needs every card; this hand has hidden cards")
    return card.text()
