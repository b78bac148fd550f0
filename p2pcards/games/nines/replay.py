"""A hand of Nines, from its record, as the positions a replay steps through."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from p2pcards.replay_moves import (
    ENGLISH,
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
    """The table of a hand of Nines before its first move, then after each event.

    Each position holds every seat's cards (sorted as the game screen sorts a
    hand), the card just drawn, the seat that moved, one sentence saying the
    move, and ``center``: the middle of the table as the replay page shows it
    (``replay_html``), the top of the discard pile, the suit to follow and the
    stock (size and next card). A drawn card that was kept
    leaves no event (``docs/record.md``): the sentence of the draw says so, by
    the same rule a reader of the record uses.
    """
    hands = [list(cards) for cards in hand.get("dealt", [])]
    stock = list(hand.get("stock", []))
    up = str(hand.get("up_card", ""))
    top, suit, pile = up, (None if up[:-1] == "9" else up[-1:]), 1
    dealer = seat_name(names, hand.get("dealer"), tr)
    playing = [names[s] for s, cards in enumerate(hands) if cards and s < len(names)]
    each = max((len(c) for c in hands), default=0)
    text = tr.n("rp_nines_deal", each, dealer=dealer, n=each, card=card_text(up))
    if hand.get("playoff"):
        text = tr("rp_playoff_again", names=", ".join(playing)) + text
    if suit is None:
        text += tr("rp_up_nine")
    events = list(hand.get("events", []))
    keeps_rule = not rules.get("draw_until_playable", False)

    def snap(text: str, seat: Any, drawn: str | None = None) -> dict[str, Any]:
        left = tr.n("rph_stock_cards", len(stock), n=len(stock))
        if stock:
            left += tr("rph_next_card", card=card_text(stock[0]))
        named = f"{suit_word(suit, tr)} {suit_symbol(suit, tr)}" if suit else tr("rph_to_be_named")
        return {
            "hands": [sort_cards(c, "nines") for c in hands],
            "drawn": drawn,
            "seat": seat,
            "text": text,
            "center": [
                {"id": "pile", "label": tr("rph_pile", n=pile), "cards": [top]},
                {
                    "id": "suit",
                    "label": tr("rph_suit_to_follow"),
                    "text": named,
                    "data": {"suit": suit or ""},
                },
                {"id": "stock", "label": tr("rph_stock"), "text": left, "data": {"count": len(stock)}},
            ],
        }

    out = [snap(text + ".", None)]
    for i, e in enumerate(events):
        kind, seat = e.get("type"), e.get("seat")
        who = seat_name(names, seat, tr)
        seat_hand = hands[seat] if isinstance(seat, int) and 0 <= seat < len(hands) else []
        if kind == "declare":
            suit = e.get("suit")
            text = tr("rp_declare", who=who, suit=suit_word(suit, tr), symbol=suit_symbol(suit, tr))
        elif kind == "play" and "cards" in e:
            cards = [str(c) for c in e["cards"]]
            for c in cards:
                remove_card(seat_hand, c)
            top, suit, pile = cards[-1], e.get("suit"), pile + len(cards)
            shown = tr("rp_and").join(card_text(c) for c in cards)
            named = {"suit": suit_word(suit, tr), "symbol": suit_symbol(suit, tr)}
            text = tr("rp_play_together", who=who, cards=shown, **named)
        elif kind == "play":
            card = str(e.get("card"))
            remove_card(seat_hand, card)
            top, pile = card, pile + 1
            suit = e.get("suit", card[-1:])
            text = tr("rp_play", who=who, card=card_text(card))
            if "suit" in e:
                text += tr("rp_and_names", suit=suit_word(suit, tr), symbol=suit_symbol(suit, tr))
        elif kind == "draw":
            card = str(e.get("card"))
            if stock:
                stock.pop(0)
            seat_hand.append(card)
            text = tr("rp_draw", who=who, card=card_text(card))
            if e.get("forced"):
                text += tr("rp_draw_forced")
            elif keeps_rule:  # (a drawn card played is the next move: said there, once)
                after = events[i + 1] if i + 1 < len(events) else {}
                played = after.get("type") == "play" and after.get("seat") == seat
                if not (played and after.get("card") == card):
                    text += tr("rp_draw_keeps")
        elif kind == "recycle":
            stock = [str(c) for c in e.get("stock", [])]
            pile = 1
            text = tr.n("rp_recycle", len(stock), card=card_text(top), n=len(stock))
        elif kind == "pass":
            text = tr("rp_pass", who=who)
        else:
            text = ", ".join(f"{k} {v}" for k, v in e.items())
        drawn = str(e.get("card")) if kind == "draw" else None
        out.append(snap(text + ".", seat if isinstance(seat, int) else None, drawn))
    return out


def heading(hand: Mapping[str, Any], tr: Translator) -> str:
    """Nines adds nothing to a hand's heading."""
    return ""


def hand_body(
    hand: Mapping[str, Any], names: Sequence[str], moves: Sequence[str], width: int, tr: Translator
) -> list[str]:
    """The stock as dealt, then every move, numbered."""
    stock = list(hand.get("stock", []))
    said = tr.n("rp_stock", len(stock), n=len(stock), cards=cards_line(stock))
    lines = fill(said, width, "  ", "    ")
    lines.append("  " + tr("rp_moves"))
    lines += numbered(moves, width)
    return lines


def hand_result(hand: Mapping[str, Any], names: Sequence[str], tr: Translator) -> list[str]:
    """Who went out (or that the hand stalled) and the penalties."""
    lines = []
    if hand.get("end") == "out":
        lines.append(tr("rp_went_out", who=seat_name(names, hand.get("out"), tr)))
    elif hand.get("end") == "stall":
        lines.append(tr("rp_stalled"))
    lines.append(tr("rp_penalties", seats=by_seat(hand.get("penalties", []), names, tr)))
    if hand.get("playoff"):
        lines.append(tr("rp_playoff_totals"))
    return lines


def start_total(rules: Mapping[str, Any]) -> int:
    """Penalties start from 0."""
    return 0


def goal(rules: Mapping[str, Any]) -> int | None:
    """The target, but none in a match of a fixed number of hands (``hands``), where the
    target is ignored."""
    if rules.get("hands") is not None:
        return None
    target = rules.get("target")
    return target if type(target) is int else None
