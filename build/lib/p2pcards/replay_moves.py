"""The moves of a recorded hand in words, and the table after each: what both replays show.

The terminal replay (:mod:`p2pcards.replay`) and the web page
(:mod:`p2pcards.replay_html`) read the same record (``docs/record.md``, only
after the audit verified the transcript) and say each move in the same
sentence (``Bob plays 9♣ and names diamonds (♦)``), in the reader's language (a
:class:`~p2pcards.ui.i18n.Translator`: English unless told); each seat's cards are
kept sorted as the game screen sorts them (:func:`sort_cards`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from p2pcards.cards import hand_sort_key, parse_card
from p2pcards.crypto.identity import fingerprint
from p2pcards.errors import CardParseError
from p2pcards.safetext import label_names
from p2pcards.ui.i18n import SUIT_WORDS, Translator
from p2pcards.ui.neuf_render import neuf_sort

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
NAME_LIMIT = 32
ENGLISH = Translator()
"""The replay's sentences in English: the default of every function that says one."""


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


def seat_name(names: Sequence[str], seat: Any, tr: Translator = ENGLISH) -> str:
    return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else tr("audit_seat", seat=seat)


def _suit(suit: Any, tr: Translator = ENGLISH) -> str:
    return SUIT_SYMBOLS[suit] if suit in SUIT_SYMBOLS else tr("rp_no_trump")


def suit_word(suit: Any, tr: Translator = ENGLISH) -> str:
    """A suit's name in the reader's language (anything else as it is)."""
    return SUIT_WORDS[tr.lang][suit] if suit in SUIT_SYMBOLS else str(suit)


def _remove(cards: list[str], card: str) -> None:
    """Take ``card`` out of a hand (a double deck's two copies are alike: either will do)."""
    if card in cards:
        cards.remove(card)


def by_seat(values: Sequence[Any], names: Sequence[str], tr: Translator = ENGLISH) -> str:
    return ", ".join(f"{seat_name(names, s, tr)} {v}" for s, v in enumerate(values))


# ---------------------------------------------------------------------------
# Positions: the table after each move of a hand


def nines_positions(
    hand: Mapping[str, Any], names: Sequence[str], rules: Mapping[str, Any], tr: Translator = ENGLISH
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
        who = seat_name(names, seat, tr)
        seat_hand = hands[seat] if isinstance(seat, int) and 0 <= seat < len(hands) else []
        if kind == "declare":
            suit = e.get("suit")
            text = tr("rp_declare", who=who, suit=suit_word(suit, tr), symbol=_suit(suit, tr))
        elif kind == "play" and "cards" in e:
            cards = [str(c) for c in e["cards"]]
            for c in cards:
                _remove(seat_hand, c)
            top, suit, pile = cards[-1], e.get("suit"), pile + len(cards)
            shown = tr("rp_and").join(card_text(c) for c in cards)
            named = {"suit": suit_word(suit, tr), "symbol": _suit(suit, tr)}
            text = tr("rp_play_together", who=who, cards=shown, **named)
        elif kind == "play":
            card = str(e.get("card"))
            _remove(seat_hand, card)
            top, pile = card, pile + 1
            suit = e.get("suit", card[-1:])
            text = tr("rp_play", who=who, card=card_text(card))
            if "suit" in e:
                text += tr("rp_and_names", suit=suit_word(suit, tr), symbol=_suit(suit, tr))
        elif kind == "draw":
            card = str(e.get("card"))
            if stock:
                stock.pop(0)
            seat_hand.append(card)
            text = tr("rp_draw", who=who, card=card_text(card))
            if e.get("forced"):
                text += tr("rp_draw_forced")
            elif keeps_rule:
                after = events[i + 1] if i + 1 < len(events) else {}
                played = after.get("type") == "play" and after.get("seat") == seat
                text += tr("rp_draw_plays") if played and after.get("card") == card else tr("rp_draw_keeps")
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


def neuf_positions(
    hand: Mapping[str, Any], names: Sequence[str], tr: Translator = ENGLISH
) -> list[dict[str, Any]]:
    """The table of a hand of Le Neuf after the deal, each exchange turn and each card played.

    A seat that takes the dummy swaps its whole hand with the cards lying in
    the dummy's place (``docs/record.md``); the trick on the table stays shown,
    with its winner, until the next card is led.
    """
    hands = [list(cards) for cards in hand.get("dealt", [])]
    dummy = list(hand.get("dummy", []))
    won = [0] * len(hands)
    trick: list[list[Any]] = []
    dealer = seat_name(names, hand.get("dealer"), tr)
    trump = hand.get("trump")
    trumps = tr("rp_no_trump")
    if trump:
        trumps = tr("rp_trumps_are", suit=suit_word(trump, tr), symbol=_suit(trump, tr))
    text = tr.n("rp_neuf_deal", len(dummy), dealer=dealer, n=len(dummy)) + trumps

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
                _remove(hands[seat], card)
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


def hand_result(
    game: str, hand: Mapping[str, Any], names: Sequence[str], tr: Translator = ENGLISH
) -> list[str]:
    """How a hand ended, in a few sentences (shown after its last move)."""
    lines = []
    if game == "neuf":
        lines.append(tr("rp_tricks_won", seats=by_seat(hand.get("won", []), names, tr)))
        lines.append(tr("rp_neuf_scores", seats=by_seat(hand.get("scores", []), names, tr)))
    else:
        if hand.get("end") == "out":
            lines.append(tr("rp_went_out", who=seat_name(names, hand.get("out"), tr)))
        elif hand.get("end") == "stall":
            lines.append(tr("rp_stalled"))
        lines.append(tr("rp_penalties", seats=by_seat(hand.get("penalties", []), names, tr)))
        if hand.get("playoff"):
            lines.append(tr("rp_playoff_totals"))
    lines.append(tr("rp_totals", seats=by_seat(hand.get("totals", []), names, tr)))
    return lines
