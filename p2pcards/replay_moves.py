"""The moves of a recorded hand in words, and the table after each: what both replays show.

The terminal replay (:mod:`p2pcards.replay`) and the web page
(:mod:`p2pcards.replay_html`) read the same record (``docs/record.md``, only
after the audit verified the transcript) and say each move in the same
sentence (``Bob plays 9♣ and names diamonds (♦)``), in the reader's language (a
:class:`~p2pcards.ui.i18n.Translator`: English unless told); each seat's cards are
kept sorted as the game screen sorts them (:func:`sort_cards`). Each game steps
through its own hands (the ``positions`` part of its :class:`~p2pcards.games.base.Parts`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol

from p2pcards.cards import Card, hand_sort_key, parse_card
from p2pcards.crypto.identity import fingerprint
from p2pcards.errors import CardParseError, UsageError
from p2pcards.games.base import game as game_named
from p2pcards.games.base import load
from p2pcards.safetext import clean, label_names
from p2pcards.ui.i18n import SUIT_WORDS, Translator, you_words
from p2pcards.ui.render import fill

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
    """``cards`` in the order the screen of ``game`` shows a hand (the ``card_order`` of
    its :class:`~p2pcards.games.base.Parts`; ``trump`` is the hand's trump, if the game
    has one). A list that holds something other than a card is left as it is."""
    try:
        parsed = [parse_card(str(c)) for c in cards]
    except CardParseError:
        return list(cards)
    try:
        order: Callable[[list[Card], str | None], list[Card]] = load(game_named(game).parts.card_order)
    except UsageError:
        order = lambda cards, trump: sorted(cards, key=hand_sort_key)  # noqa: E731 (a game this version lacks)
    return [c.text() for c in order(parsed, trump if trump in SUIT_SYMBOLS else None)]


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


def player_names(record: Mapping[str, Any], tr: Translator = ENGLISH) -> list[str]:
    """The names as shown: cleaned like the terminal's, and look-alikes told apart by key.
    A player called by the word for "you" (``play``'s name for the person, in any language)
    is shown by seat, ``seat 0 (you)``: the moves are said in the third person."""
    players = record.get("players", [])
    names = [str(p.get("name", "?")) for p in players]
    tags = [_tag(str(p.get("key", ""))) for p in players]
    shown = label_names(names, tags, limit=NAME_LIMIT, width=NAME_LIMIT)
    return [
        tr("rp_you_seat", seat=s, you=tr.person(name)) if name.strip().casefold() in you_words() else shown[s]
        for s, name in enumerate(names)
    ]


def _tag(key_hex: str) -> str:
    try:
        return fingerprint(bytes.fromhex(key_hex)).replace("-", "") if key_hex else "?"
    except ValueError:
        return "?"


def seat_name(names: Sequence[str], seat: Any, tr: Translator = ENGLISH) -> str:
    return names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else tr("audit_seat", seat=seat)


def final_totals(record: Mapping[str, Any], names: Sequence[str], tr: Translator) -> str:
    """The totals the match ended on, those of the players who left it after them: ``Ann 12,
    Bob 11 (and, who left: Cy 3)``."""
    totals = record.get("result", {}).get("totals", [])
    final = ", ".join(f"{seat_name(names, s, tr)} {t}" for s, t in enumerate(totals))
    kept = [
        f"{tr.person(clean(str(d.get('name', '?')), 40))} {d.get('total')}"
        for d in record.get("left", [])
        if isinstance(d, Mapping)
    ]
    if kept:
        final += tr("rp_final_left", kept=", ".join(kept))
    return final


def suit_symbol(suit: Any, tr: Translator = ENGLISH) -> str:
    return SUIT_SYMBOLS[suit] if suit in SUIT_SYMBOLS else tr("rp_no_trump")


def suit_word(suit: Any, tr: Translator = ENGLISH) -> str:
    """A suit's name in the reader's language (anything else as it is)."""
    return SUIT_WORDS[tr.lang][suit] if suit in SUIT_SYMBOLS else str(suit)


def remove_card(cards: list[str], card: str) -> None:
    """Take ``card`` out of a hand (a double deck's two copies are alike: either will do)."""
    if card in cards:
        cards.remove(card)


def by_seat(values: Sequence[Any], names: Sequence[str], tr: Translator = ENGLISH) -> str:
    return ", ".join(f"{seat_name(names, s, tr)} {v}" for s, v in enumerate(values))


# ---------------------------------------------------------------------------
# Positions: the table after each move of a hand


class GameReplay(Protocol):
    """What a game's ``replay`` module (the ``replay`` part of its
    :class:`~p2pcards.games.base.Parts`) gives the replays of its records."""

    def positions(
        self, hand: Mapping[str, Any], names: Sequence[str], rules: Mapping[str, Any], tr: Translator
    ) -> list[dict[str, Any]]:
        """The table before the hand's first move, then after each: ``text`` says the move."""
        ...

    def heading(self, hand: Mapping[str, Any], tr: Translator) -> str:
        """What the hand's heading adds after its number and dealer (Le Neuf's trump)."""
        ...

    def hand_body(
        self, hand: Mapping[str, Any], names: Sequence[str], moves: Sequence[str], width: int, tr: Translator
    ) -> list[str]:
        """The lines after the cards dealt: what else was dealt, then ``moves`` (one
        sentence each, from :meth:`positions`), laid out as the game reads best."""
        ...

    def hand_result(self, hand: Mapping[str, Any], names: Sequence[str], tr: Translator) -> list[str]:
        """How a hand ended, in a few sentences (shown after its last move)."""
        ...

    def start_total(self, rules: Mapping[str, Any]) -> int:
        """Every seat's total before the first hand (Le Neuf counts down from ``start``)."""
        ...

    def goal(self, rules: Mapping[str, Any]) -> int | None:
        """The total that ends the match, if the rules have one."""
        ...


def game_title(game: str) -> str:
    """The title of the game called ``game`` (its name, cleaned, for a game this version lacks)."""
    try:
        return game_named(game).title
    except UsageError:
        return clean(game, 20)


def replay_of(game: str) -> GameReplay:
    """The replay of the game called ``game`` (UsageError for a game this version lacks)."""
    module: GameReplay = load(game_named(game).parts.replay)
    return module


def hand_result(
    game: str, hand: Mapping[str, Any], names: Sequence[str], tr: Translator = ENGLISH
) -> list[str]:
    """How a hand ended, in a few sentences (shown after its last move), then the totals."""
    lines = replay_of(game).hand_result(hand, names, tr)
    lines.append(tr("rp_totals", seats=by_seat(hand.get("totals", []), names, tr)))
    return lines


def cards_line(cards: Sequence[str]) -> str:
    return " ".join(card_text(c) for c in cards) if cards else "-"


def numbered(texts: Sequence[str], width: int) -> list[str]:
    out = []
    for i, text in enumerate(texts, start=1):
        head = f"    {i}. "
        out += fill(text, width, head, " " * len(head))
    return out or ["    -"]
