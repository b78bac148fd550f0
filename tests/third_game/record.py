"""High Card's hands in the JSON record."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from p2pcards.record import FORMAT, CutRounds, Player, cut_entry, full_card_text, player_entry
from third_game.rules import NAME, Match


def build_record(
    match: Match, players: Sequence[Player], cut_rounds: CutRounds, verdict: Mapping[str, Any] | None = None
) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "game": NAME,
        "rules": match.rules.to_dict(),
        "players": [player_entry(seat, p) for seat, p in enumerate(players)],
        "verdict": dict(verdict) if verdict is not None else {"valid": True, "problems": []},
        "cut": [cut_entry(r) for r in cut_rounds],
        "hands": [
            {
                "number": r.number,
                "dealer": h.dealer,
                "dealt": [[full_card_text(c) for c in cards] for cards in h.dealt],
                "plays": [{"seat": a.seat, "card": a.card.text()} for a in h.events],
                "winner": r.winner,
                "totals": list(r.totals),
            }
            for h, r in zip(match.history, match.results, strict=True)
        ],
        "result": {
            "winners": list(match.winners) if match.winners is not None else [],
            "totals": list(match.totals),
            "finished": match.over,
        },
    }
