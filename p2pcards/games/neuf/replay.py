"""A hand of Le Neuf, from its record, as the positions a replay steps through."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from p2pcards.replay_moves import (
    ENGLISH,
    SUIT_SYMBOLS,
    by_seat,
    card_text,
    cards_line,
    numbered,
    remove_card,
    seat_name,
    sort_cards,
    suit_symbol,
    suit_word,
)
from p2pcards.ui.i18n import Translator
from p2pcards.ui.render import fill


def positions(
    hand: Mapping[str, Any], names: Sequence[str], rules: Mapping[str, Any], tr: Translator = ENGLISH
) -> list[dict[str, Any]]:
    """The table of a hand of Le Neuf after the deal, each exchange turn and each card played.

    A seat that takes the dummy swaps its whole hand with the cards lying in
    the dummy's place (``docs/record.md``); the trick on the table stays shown,
    with its winner, until the next card is led. ``center`` says the middle of
    the table as the replay page shows it, and ``notes`` each seat's tricks
    (``replay_html``).
    """
    hands = [list(cards) for cards in hand.get("dealt", [])]
    dummy = list(hand.get("dummy", []))
    won = [0] * len(hands)
    trick: list[list[Any]] = []
    dealer = seat_name(names, hand.get("dealer"), tr)
    trump = hand.get("trump")
    trumps = tr("rp_no_trump")
    if trump:
        trumps = tr("rp_trumps_are", suit=suit_word(trump, tr), symbol=suit_symbol(trump, tr))
    text = tr.n("rp_neuf_deal", len(dummy), dealer=dealer, n=len(dummy)) + trumps

    named = f"{suit_word(trump, tr)} {SUIT_SYMBOLS[trump]}" if trump in SUIT_SYMBOLS else tr("rp_no_trump")

    def snap(text: str, seat: Any, number: int, winner: Any = None) -> dict[str, Any]:
        shown = sort_cards(dummy, "neuf", trump)
        return {
            "hands": [sort_cards(c, "neuf", trump) for c in hands],
            "seat": seat,
            "text": text,
            "center": [
                {"id": "trump", "label": tr("rph_trump"), "text": named},
                {
                    "id": "trick",
                    "label": tr("rph_trick_of", n=number) if number else tr("rph_trick"),
                    "plays": [list(p) for p in trick],
                    "winner": winner,
                },
                {"id": "dummy", "label": tr.n("rph_dummy", len(shown), n=len(shown)), "cards": shown},
            ],
            "notes": [tr.n("rph_tricks", w, n=w) for w in won],
        }

    out = [snap(text + ".", None, 0)]
    for e in hand.get("exchanges", []):
        seat = e.get("seat")
        who = seat_name(names, seat, tr)
        looked, took = bool(e.get("looked")), bool(e.get("took"))
        if took and isinstance(seat, int) and 0 <= seat < len(hands):
            hands[seat], dummy = dummy, hands[seat]
        if looked:
            text = tr("rp_looks_takes" if took else "rp_looks_keeps", who=who)
        else:
            text = tr("rp_blind_takes" if took else "rp_blind_keeps", who=who)
        out.append(snap(text + ".", seat, 0))
    for number, t in enumerate(hand.get("tricks", []), start=1):
        trick = []
        plays = list(t.get("plays", []))
        for i, p in enumerate(plays):
            seat, card = p.get("seat"), str(p.get("card"))
            if isinstance(seat, int) and 0 <= seat < len(hands):
                remove_card(hands[seat], card)
            trick.append([seat, card])
            who = seat_name(names, seat, tr)
            key = "rp_trick_leads" if i == 0 else "rp_trick_plays"
            text = tr(key, n=number, who=who, card=card_text(card))
            winner = None
            if i == len(plays) - 1:
                winner = t.get("winner")
                if isinstance(winner, int) and 0 <= winner < len(won):
                    won[winner] += 1
                text += tr("rp_wins_trick", who=seat_name(names, winner, tr))
            out.append(snap(text + ".", seat, number, winner))
    return out


def _trick(trick: Mapping[str, Any], names: Sequence[str], tr: Translator) -> str:
    """``p2 leads 5♣, p0 plays 8♣, p1 plays 10♣: p1 wins.``"""
    plays = [p for p in trick.get("plays", []) if isinstance(p, Mapping)]
    said = [
        tr(
            "rp_trick_lead" if i == 0 else "rp_trick_play",
            who=seat_name(names, p.get("seat"), tr),
            card=card_text(str(p.get("card"))),
        )
        for i, p in enumerate(plays)
    ]
    return tr("rp_trick_won", plays=", ".join(said), who=seat_name(names, trick.get("winner"), tr))


def heading(hand: Mapping[str, Any], tr: Translator) -> str:
    """The hand's trump (or that it has none)."""
    trump = hand.get("trump")
    if trump in SUIT_SYMBOLS:
        return tr("rp_heading_trumps", suit=suit_word(trump, tr), symbol=SUIT_SYMBOLS[trump])
    return tr("rp_heading_no_trump")


def hand_body(
    hand: Mapping[str, Any], names: Sequence[str], moves: Sequence[str], width: int, tr: Translator
) -> list[str]:
    """The dummy as dealt, the exchanges, then the tricks, each in one sentence."""
    dummy = cards_line(sort_cards(list(hand.get("dummy", [])), "neuf", hand.get("trump")))
    lines = fill(tr("rp_dummy", cards=dummy), width, "  ", "    ")
    exchanges = len(hand.get("exchanges", []))
    lines.append("  " + tr("rp_exchanges"))
    lines += numbered(moves[:exchanges], width)
    lines.append("  " + tr("rp_tricks"))
    lines += numbered([_trick(t, names, tr) for t in hand.get("tricks", [])], width)
    return lines


def hand_result(hand: Mapping[str, Any], names: Sequence[str], tr: Translator) -> list[str]:
    """The tricks each seat won and what they scored."""
    return [
        tr("rp_tricks_won", seats=by_seat(hand.get("won", []), names, tr)),
        tr("rp_neuf_scores", seats=by_seat(hand.get("scores", []), names, tr)),
    ]


def start_total(rules: Mapping[str, Any]) -> int:
    """Le Neuf counts down from ``start``."""
    start = rules.get("start", 0)
    return start if isinstance(start, int) else 0


def goal(rules: Mapping[str, Any]) -> int | None:
    """The match ends when a total reaches 0."""
    return 0
