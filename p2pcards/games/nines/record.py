"""A match of Nines as a full-information record (``p2pcards-record/1``, ``docs/record.md``).

It is built from the engine's own history, so the local game and the audit of a
networked one yield the same document. ``Keep`` and ``AcceptSkip`` leave no event
(the events around them imply both); every hand has ``"playoff"``; cards are
written ``10H``, the two copies of a card of the double deck alike.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from p2pcards.cards import Card
from p2pcards.games.nines.rules import (
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
from p2pcards.record import FORMAT, Player, cut_entry, full_card_text, player_entry


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
        "players": [player_entry(seat, p) for seat, p in enumerate(players)],
        "verdict": dict(verdict) if verdict is not None else {"valid": True, "problems": []},
        "cut": [cut_entry(r) for r in cut_rounds],
        "hands": [_hand(h, r) for h, r in zip(match.history, match.results, strict=True)],
        "result": {
            "winners": list(match.winners) if match.winners is not None else [],
            "totals": list(match.totals),
            "finished": match.over,
        },
    }


def _hand(h: HandState, r: HandResult) -> dict[str, Any]:
    return {
        "number": r.number,
        "dealer": r.dealer,
        "playoff": r.playoff,
        "dealt": [[full_card_text(c) for c in cards] for cards in h.dealt],
        "up_card": h.up_card.text(),
        "stock": [full_card_text(c) for c in h.initial_stock],
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
        out: dict[str, Any] = {"type": "play", "seat": e.seat, "card": full_card_text(e.card)}
        if e.card.is_nine:
            out["suit"] = e.suit
        return out
    if isinstance(e, PlayNines):
        return {"type": "play", "seat": e.seat, "cards": [full_card_text(c) for c in e.cards], "suit": e.suit}
    if isinstance(e, Draw):
        out = {"type": "draw", "seat": e.seat, "card": full_card_text(e.card)}
        if e.forced:
            out["forced"] = True
        return out
    if isinstance(e, Recycle):
        return {"type": "recycle", "stock": [full_card_text(c) for c in e.stock]}
    if isinstance(e, Pass):
        return {"type": "pass", "seat": e.seat}
    raise ValueError(f"no record event for {e!r}")
