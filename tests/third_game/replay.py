"""High Card's hands stepped through by the replays."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from p2pcards.cards import Card
from p2pcards.replay_moves import card_text, numbered, seat_name
from p2pcards.ui.i18n import Translator
from third_game.rules import strength


def card_order(cards: list[Card], trump: str | None = None) -> list[Card]:
    return sorted(cards, key=strength, reverse=True)


def positions(
    hand: Mapping[str, Any], names: Sequence[str], rules: Mapping[str, Any], tr: Translator
) -> list[dict[str, Any]]:
    hands = [list(c) for c in hand.get("dealt", [])]
    out = [{"text": f"{len(hands)} hands of two cards dealt", "hands": [list(h) for h in hands]}]
    for play in hand.get("plays", []):
        seat, card = play.get("seat"), play.get("card")
        if isinstance(seat, int) and 0 <= seat < len(hands) and card in hands[seat]:
            hands[seat].remove(card)
        said = f"{seat_name(names, seat, tr)} plays {card_text(str(card))}"
        out.append({"text": said, "hands": [list(h) for h in hands]})
    return out


def heading(hand: Mapping[str, Any], tr: Translator) -> str:
    return ""


def hand_body(
    hand: Mapping[str, Any], names: Sequence[str], moves: Sequence[str], width: int, tr: Translator
) -> list[str]:
    return ["  Plays:", *numbered(moves, width)]


def hand_result(hand: Mapping[str, Any], names: Sequence[str], tr: Translator) -> list[str]:
    return [f"{seat_name(names, hand.get('winner'), tr)} wins the point."]


def start_total(rules: Mapping[str, Any]) -> int:
    return 0


def goal(rules: Mapping[str, Any]) -> int | None:
    return None
