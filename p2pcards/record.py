"""The full-information game record (``p2pcards-record/1``) from a finished match.

``docs/record.md`` describes the document field by field: the card notation,
every event kind, the moves that leave no event and why, an unfinished match,
and the verdict that ``audit --json`` adds.

The record is built from the engine's own history (``Match.history``, each
hand's ``events``), so whatever produced the match (the local game, the audit
of a networked one) yields the same document. Field names are a contract with
tools outside the project: add fields, never rename.

In short: ``Keep`` and ``AcceptSkip`` leave no event (the events around them
imply both); every hand has ``"playoff"``; ``result.finished`` tells a
complete match from one left before its end (then ``winners`` is empty and the
hand in progress is omitted); cards are written ``10H``, the two copies of a
card of the double deck alike.

Le Neuf has its own form of the same format (``docs/record.md``, "Le Neuf
records"), written by :func:`build_neuf_record`: each hand keeps the cards
dealt to each seat and to the dummy, the exchange turns in order and the 13
tricks, which is all a replay needs. :func:`build_game_record` picks the
writer by the game's name.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from p2pcards.cards import Card
from p2pcards.games.nines import (
    Action,
    Declare,
    Draw,
    HandResult,
    HandState,
    Match,
    Pass,
    Play,
    PlayNines,
    Recycle,
)

if TYPE_CHECKING:
    from p2pcards.games import neuf

FORMAT = "p2pcards-record/1"

Player = str | tuple[str, str] | Mapping[str, str]
"""A player as a name, a ``(name, key)`` pair, or a mapping with ``name`` and ``key``."""


def build_record(
    match: Match,
    players: Sequence[Player],
    cut_rounds: Sequence[Sequence[tuple[int, Card]] | Mapping[int, Card]],
    verdict: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The record (``docs/record.md``) of ``match`` (finished hands only).

    ``cut_rounds`` are the rounds of the first-dealer cut, each a list of
    ``(seat, card)`` or a mapping seat -> card; ``verdict`` defaults to valid.
    """
    if len(players) != match.players:
        raise ValueError(f"{len(players)} players given for a match of {match.players}")
    return {
        "format": FORMAT,
        "game": "nines",
        "rules": match.rules.to_dict(),
        "players": [_player(seat, p) for seat, p in enumerate(players)],
        "verdict": dict(verdict) if verdict is not None else {"valid": True, "problems": []},
        "cut": [_cut_round(r) for r in cut_rounds],
        "hands": [_hand(h, r) for h, r in zip(match.history, match.results, strict=True)],
        "result": {
            "winners": list(match.winners) if match.winners is not None else [],
            "totals": list(match.totals),
            "finished": match.over,
        },
    }


def _player(seat: int, p: Player) -> dict[str, Any]:
    if isinstance(p, str):
        name, key = p, ""
    elif isinstance(p, tuple):
        name, key = p
    else:
        name, key = p["name"], p.get("key", "")
    return {"seat": seat, "name": name, "key": key}


def _cut_round(r: Sequence[tuple[int, Card]] | Mapping[int, Card]) -> list[dict[str, Any]]:
    pairs = sorted(r.items()) if isinstance(r, Mapping) else list(r)
    return [{"seat": seat, "card": card.text()} for seat, card in pairs]


def _text(card: Card | None) -> str:
    if card is None:
        raise ValueError("a full-information record needs every card; this hand has hidden cards")
    return card.text()


def _hand(h: HandState, r: HandResult) -> dict[str, Any]:
    return {
        "number": r.number,
        "dealer": r.dealer,
        "playoff": r.playoff,
        "dealt": [[_text(c) for c in cards] for cards in h.dealt],
        "up_card": h.up_card.text(),
        "stock": [_text(c) for c in h.initial_stock],
        "events": [_event(e) for e in h.events],
        "end": r.end,
        "out": r.out,
        "penalties": list(r.penalties),
        "totals": list(r.totals),
    }


def _event(e: Action) -> dict[str, Any]:
    if isinstance(e, Declare):
        return {"type": "declare", "seat": e.seat, "suit": e.suit}
    if isinstance(e, Play):
        out: dict[str, Any] = {"type": "play", "seat": e.seat, "card": _text(e.card)}
        if e.card.is_nine:
            out["suit"] = e.suit
        return out
    if isinstance(e, PlayNines):
        return {"type": "play", "seat": e.seat, "cards": [_text(c) for c in e.cards], "suit": e.suit}
    if isinstance(e, Draw):
        out = {"type": "draw", "seat": e.seat, "card": _text(e.card)}
        if e.forced:
            out["forced"] = True
        return out
    if isinstance(e, Recycle):
        return {"type": "recycle", "stock": [_text(c) for c in e.stock]}
    if isinstance(e, Pass):
        return {"type": "pass", "seat": e.seat}
    raise ValueError(f"no record event for {e!r}")


# ---------------------------------------------------------------------------
# Le Neuf


def build_neuf_record(
    match: neuf.Match,
    players: Sequence[Player],
    cut_rounds: Sequence[Sequence[tuple[int, Card]] | Mapping[int, Card]],
    verdict: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The record of a match of Le Neuf (finished hands only), arguments as for :func:`build_record`."""
    if len(players) != len(match.totals):
        raise ValueError(f"{len(players)} players given for a match of Le Neuf")
    return {
        "format": FORMAT,
        "game": "neuf",
        "rules": match.rules.to_dict(),
        "players": [_player(seat, p) for seat, p in enumerate(players)],
        "verdict": dict(verdict) if verdict is not None else {"valid": True, "problems": []},
        "cut": [_cut_round(r) for r in cut_rounds],
        "hands": [_neuf_hand(h, r) for h, r in zip(match.history, match.results, strict=True)],
        "result": {
            "winners": list(match.winners) if match.winners is not None else [],
            "totals": list(match.totals),
            "finished": match.over,
        },
    }


def _neuf_hand(h: neuf.HandState, r: neuf.HandResult) -> dict[str, Any]:
    return {
        "number": r.number,
        "dealer": r.dealer,
        "trump": r.trump,
        "dealt": [[_text(c) for c in cards] for cards in h.dealt],
        "dummy": [_text(c) for c in h.dummy_dealt],
        "exchanges": [{"seat": e.seat, "looked": e.looked, "took": e.took} for e in h.exchanges],
        "tricks": [
            {
                "leader": t.leader,
                "plays": [{"seat": seat, "card": _text(card)} for seat, card in t.plays],
                "winner": t.winner,
            }
            for t in h.tricks
        ],
        "won": list(r.won),
        "scores": list(r.scores),
        "totals": list(r.totals),
    }


RECORD_WRITERS: dict[str, Any] = {"nines": build_record, "neuf": build_neuf_record}
"""The record writer of each game, by the game's name."""


def build_game_record(
    game: str,
    match: Any,
    players: Sequence[Player],
    cut_rounds: Sequence[Sequence[tuple[int, Card]] | Mapping[int, Card]],
    verdict: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The record of ``match``, a match of the game called ``game`` (``nines`` or ``neuf``)."""
    try:
        writer = RECORD_WRITERS[game]
    except KeyError:
        raise ValueError(f"no record format for the game {game!r}") from None
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
