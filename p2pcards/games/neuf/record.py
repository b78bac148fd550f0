"""A match of Le Neuf as a full-information record (``docs/record.md``, "Le Neuf records").

Each hand keeps the cards dealt to each seat and to the dummy, the exchange turns
in order and the 13 tricks, which is all a replay needs.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from p2pcards.cards import Card
from p2pcards.games.neuf import rules as neuf
from p2pcards.record import FORMAT, Player, cut_entry, full_card_text, player_entry


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
        "players": [player_entry(seat, p) for seat, p in enumerate(players)],
        "verdict": dict(verdict) if verdict is not None else {"valid": True, "problems": []},
        "cut": [cut_entry(r) for r in cut_rounds],
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
        "dealt": [[full_card_text(c) for c in cards] for cards in h.dealt],
        "dummy": [full_card_text(c) for c in h.dummy_dealt],
        "exchanges": [{"seat": e.seat, "looked": e.looked, "took": e.took} for e in h.exchanges],
        "tricks": [
            {
                "leader": t.leader,
                "plays": [{"seat": seat, "card": full_card_text(card)} for seat, card in t.plays],
                "winner": t.winner,
            }
            for t in h.tricks
        ],
        "won": list(r.won),
        "scores": list(r.scores),
        "totals": list(r.totals),
    }
