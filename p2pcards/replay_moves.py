"""The moves of a recorded hand in words, and the table after each: what both replays show.

The terminal replay (:mod:`p2pcards.replay`) and the web page
(:mod:`p2pcards.replay_html`) read the same record (``docs/record.md``, only
after the audit verified the transcript) and say each move in the same
sentence (``Bob plays 9♣ and names diamonds (♦)``); each seat's cards are
kept sorted as the game screen sorts them (:func:`sort_cards`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from p2pcards.cards import hand_sort_key, parse_card
from p2pcards.crypto.identity import fingerprint
from p2pcards.errors import CardParseError
from p2pcards.safetext import label_names
from p2pcards.ui.neuf_render import neuf_sort

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
NAME_LIMIT = 32


def card_text(card: str) -> str:
    """``QH`` as ``Q♥`` (anything else as it is)."""
    if isinstance(card, str) and len(card) >= 2 and card[-1] in SUIT_SYMBOLS:
        return card[:-1] + SUIT_SYMBOLS[card[-1]]
    return str(card)


def sort_cards(cards: Sequence[str], game: str, trump: Any = None) -> list[str]:
    """``cards`` in the order the game screen shows a hand: Nines by suit with the 9s
    last (:func:`p2pcards.cards.hand_sort_key`), Le Neuf by suit from the trump, each
    suit from the Ace down (:func:`p2pcards.ui.neuf_render.neuf_sort`). A list that
    holds something other than a card is left as it is."""
    try:
        parsed = [parse_card(str(c)) for c in cards]
    except CardParseError:
        return list(cards)
    if game == "neuf":
        ordered = neuf_sort(parsed, trump if trump in SUIT_SYMBOLS else None)
    else:
        ordered = sorted(parsed, key=hand_sort_key)
    return [c.text() for c in ordered]


def tables(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Every table of the match, the first first: a match that went on without a player
    keeps the tables before the last in ``earlier`` (``docs/record.md``)."""
    earlier = record.get("earlier", [])
    return (
        [*(t for t in earlier if isinstance(t, Mapping)), record] if isinstance(earlier, list) else [record]
    )


def first_seats(table: Mapping[str, Any], first: Mapping[str, Any]) -> list[int]:
    """The seat at the first table of each player of ``table`` (matched by key): a table
    that went on without a player renumbers the seats."""
    keys = [str(p.get("key", "")) for p in first.get("players", [])]
    out = []
    for seat, p in enumerate(table.get("players", [])):
        key = str(p.get("key", ""))
        out.append(keys.index(key) if key and key in keys else seat)
    return out


def gone_between(
    before: Mapping[str, Any], after: Mapping[str, Any], record: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The entries of ``record["left"]`` for the players at ``before`` who are not at ``after``."""
    staying = {str(p.get("key", "")) for p in after.get("players", [])}
    going = [str(p.get("key", "")) for p in before.get("players", []) if str(p.get("key", "")) not in staying]
    left = [d for d in record.get("left", []) if isinstance(d, dict)]
    return [d for d in left if str(d.get("key", "")) in going]


def player_names(record: Mapping[str, Any]) -> list[str]:
    """The names as shown: cleaned like the terminal's, and look-alikes told apart by key."""
    players = record.get("players", [])
    names = [str(p.get("name", "?")) for p in players]
    tags = [_tag(str(p.get("key", ""))) for p in players]
    return label_names(names, tags, limit=NAME_LIMIT, width=NAME_LIMIT)


def _tag(key_hex: str) -> str:
    try:
        return fingerprint(bytes.fromhex(key_hex)).replace("-", "") if key_hex else "?"
    except ValueError:
        return "?"


def seat_name(names: Sequence[str], seat: Any) -> str:
    return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else f"seat {seat}"


def _suit(suit: Any) -> str:
    return SUIT_SYMBOLS.get(suit, "no trump") if suit is not None else "no trump"


def _remove(cards: list[str], card: str) -> None:
    """Take ``card`` out of a hand (a double deck's two copies are alike: either will do)."""
    if card in cards:
        cards.remove(card)


def by_seat(values: Sequence[Any], names: Sequence[str]) -> str:
    return ", ".join(f"{seat_name(names, s)} {v}" for s, v in enumerate(values))


# ---------------------------------------------------------------------------
# Positions: the table after each move of a hand


def nines_positions(
    hand: Mapping[str, Any], names: Sequence[str], rules: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The table of a hand of Nines before its first move, then after each event.

    Each position holds every seat's cards (sorted as the game screen sorts a
    hand), the top of the discard pile, the suit to follow, the stock (size and
    next card) and one sentence saying the move. A drawn card that was kept
    leaves no event (``docs/record.md``): the sentence of the draw says so, by
    the same rule a reader of the record uses.
    """
    hands = [list(cards) for cards in hand.get("dealt", [])]
    stock = list(hand.get("stock", []))
    up = str(hand.get("up_card", ""))
    top, suit, pile = up, (None if up[:-1] == "9" else up[-1:]), 1
    dealer = seat_name(names, hand.get("dealer"))
    playing = [names[s] for s, cards in enumerate(hands) if cards and s < len(names)]
    each = max((len(c) for c in hands), default=0)
    text = f"{dealer} deals {each} cards each; the up card is {card_text(up)}"
    if hand.get("playoff"):
        text = f"Playoff: {', '.join(playing)} play again for the win. " + text
    if suit is None:
        text += ": a 9, so the dealer names the suit"
    events = list(hand.get("events", []))
    keeps_rule = not rules.get("draw_until_playable", False)

    def snap(text: str, seat: Any, drawn: str | None = None) -> dict[str, Any]:
        return {
            "hands": [sort_cards(c, "nines") for c in hands],
            "drawn": drawn,
            "top": top,
            "suit": suit,
            "stock": len(stock),
            "next": stock[0] if stock else None,
            "pile": pile,
            "seat": seat,
            "text": text,
        }

    out = [snap(text + ".", None)]
    for i, e in enumerate(events):
        kind, seat = e.get("type"), e.get("seat")
        who = seat_name(names, seat)
        seat_hand = hands[seat] if isinstance(seat, int) and 0 <= seat < len(hands) else []
        if kind == "declare":
            suit = e.get("suit")
            text = f"{who} names {SUIT_NAMES.get(suit, suit)} ({_suit(suit)}) as the suit to follow"
        elif kind == "play" and "cards" in e:
            cards = [str(c) for c in e["cards"]]
            for c in cards:
                _remove(seat_hand, c)
            top, suit, pile = cards[-1], e.get("suit"), pile + len(cards)
            shown = " and ".join(card_text(c) for c in cards)
            text = f"{who} plays {shown} together and names {SUIT_NAMES.get(suit, suit)} ({_suit(suit)})"
        elif kind == "play":
            card = str(e.get("card"))
            _remove(seat_hand, card)
            top, pile = card, pile + 1
            suit = e.get("suit", card[-1:])
            text = f"{who} plays {card_text(card)}"
            if "suit" in e:
                text += f" and names {SUIT_NAMES.get(suit, suit)} ({_suit(suit)})"
        elif kind == "draw":
            card = str(e.get("card"))
            if stock:
                stock.pop(0)
            seat_hand.append(card)
            text = f"{who} draws {card_text(card)}"
            if e.get("forced"):
                text += " (forced by an Ace)"
            elif keeps_rule:
                after = events[i + 1] if i + 1 < len(events) else {}
                played = after.get("type") == "play" and after.get("seat") == seat
                text += " and plays it" if played and after.get("card") == card else " and keeps it"
        elif kind == "recycle":
            stock = [str(c) for c in e.get("stock", [])]
            pile = 1
            text = f"The stock is empty: the discards under {card_text(top)} become the new stock"
            text += f" ({len(stock)} cards)"
        elif kind == "pass":
            text = f"{who} has nothing to draw and passes"
        else:
            text = ", ".join(f"{k} {v}" for k, v in e.items())
        drawn = str(e.get("card")) if kind == "draw" else None
        out.append(snap(text + ".", seat if isinstance(seat, int) else None, drawn))
    return out


def neuf_positions(hand: Mapping[str, Any], names: Sequence[str]) -> list[dict[str, Any]]:
    """The table of a hand of Le Neuf after the deal, each exchange turn and each card played.

    A seat that takes the dummy swaps its whole hand with the cards lying in
    the dummy's place (``docs/record.md``); the trick on the table stays shown,
    with its winner, until the next card is led.
    """
    hands = [list(cards) for cards in hand.get("dealt", [])]
    dummy = list(hand.get("dummy", []))
    won = [0] * len(hands)
    trick: list[list[Any]] = []
    dealer = seat_name(names, hand.get("dealer"))
    trump = hand.get("trump")
    text = f"{dealer} deals {len(dummy)} cards to each player and to the dummy; " + (
        f"trumps are {SUIT_NAMES.get(trump, trump)} ({_suit(trump)})" if trump else "no trump"
    )

    def snap(text: str, seat: Any, number: int, winner: Any = None) -> dict[str, Any]:
        return {
            "hands": [sort_cards(c, "neuf", trump) for c in hands],
            "dummy": sort_cards(dummy, "neuf", trump),
            "trick": [list(p) for p in trick],
            "trick_no": number,
            "winner": winner,
            "won": list(won),
            "seat": seat,
            "text": text,
        }

    out = [snap(text + ".", None, 0)]
    for e in hand.get("exchanges", []):
        seat = e.get("seat")
        who = seat_name(names, seat)
        looked, took = bool(e.get("looked")), bool(e.get("took"))
        if took and isinstance(seat, int) and 0 <= seat < len(hands):
            hands[seat], dummy = dummy, hands[seat]
        if looked:
            text = f"{who} looks at the dummy and " + ("takes it" if took else "keeps the hand")
        else:
            text = f"{who} takes the dummy without looking" if took else f"{who} keeps the hand, unseen dummy"
        out.append(snap(text + ".", seat, 0))
    for number, t in enumerate(hand.get("tricks", []), start=1):
        trick = []
        plays = list(t.get("plays", []))
        for i, p in enumerate(plays):
            seat, card = p.get("seat"), str(p.get("card"))
            if isinstance(seat, int) and 0 <= seat < len(hands):
                _remove(hands[seat], card)
            trick.append([seat, card])
            who = seat_name(names, seat)
            text = f"Trick {number}: {who} {'leads' if i == 0 else 'plays'} {card_text(card)}"
            winner = None
            if i == len(plays) - 1:
                winner = t.get("winner")
                if isinstance(winner, int) and 0 <= winner < len(won):
                    won[winner] += 1
                text += f"; {seat_name(names, winner)} wins the trick"
            out.append(snap(text + ".", seat, number, winner))
    return out


def hand_result(game: str, hand: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """How a hand ended, in a few sentences (shown after its last move)."""
    lines = []
    if game == "neuf":
        lines.append("Tricks won: " + by_seat(hand.get("won", []), names) + ".")
        lines.append("Scores (4 − tricks won): " + by_seat(hand.get("scores", []), names) + ".")
    else:
        if hand.get("end") == "out":
            lines.append(f"{seat_name(names, hand.get('out'))} went out.")
        elif hand.get("end") == "stall":
            lines.append("The hand stalled: a full round with no card played.")
        lines.append("Penalties: " + by_seat(hand.get("penalties", []), names) + ".")
        if hand.get("playoff"):
            lines.append("A playoff decides the winner only: the totals do not change.")
    lines.append("Totals: " + by_seat(hand.get("totals", []), names) + ".")
    return lines
