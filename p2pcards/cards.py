"""Cards: the model, every notation of ``docs/rules-nines.md``, formatting and penalty values.

A card is a small immutable integer (an ``int`` subclass) so that the engine can
hash, compare and index it at full speed, while it still prints as ``9S``.

Numbering: ``index = copy * 52 + suit * 13 + (rank - 1)`` with suits in the
order S, H, D, C and ranks 1 (ace) to 13 (king). The copy is 0 for a single
deck; the double-deck variant adds copy 1, so its 104 cards are all distinct
while ``9S`` of either copy has the same rank and suit. The same index is used
by the card encoding of the mental-poker layer and by the wire format.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from p2pcards.errors import CardParseError

SUITS = "SHDC"
"""Suit letters in index order: spades, hearts, diamonds, clubs."""

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_NAMES = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_TEXT = {1: "A", 11: "J", 12: "Q", 13: "K"}
RED_SUITS = frozenset("HD")
CARDS_PER_DECK = 52
WILD_RANK = 9

_SYMBOL_TO_SUIT = {v: k for k, v in SUIT_SYMBOLS.items()}
# Also accept the white (outline) suit symbols some keyboards produce.
_SYMBOL_TO_SUIT.update({"♤": "S", "♡": "H", "♢": "D", "♧": "C"})
_RANK_WORDS = {"A": 1, "J": 11, "Q": 12, "K": 13, "T": 10}
_CARD_RE = re.compile(r"(10|[2-9]|[AJQKT])([SHDC♠♥♦♣♤♡♢♧])")
# Phones append an emoji or text presentation selector to the suit symbols (♥️).
_PRESENTATION = str.maketrans("", "", "\ufe0e\ufe0f")


class Card(int):
    """One physical card; compares and hashes as its deck index."""

    __slots__ = ()

    def __new__(cls, index: int) -> Card:
        if not 0 <= index < 2 * CARDS_PER_DECK:
            raise ValueError(f"card index out of range: {index}")
        return int.__new__(cls, index)

    @classmethod
    def of(cls, rank: int, suit: str, copy: int = 0) -> Card:
        """The card of ``rank`` (1..13) and ``suit`` (one of ``SHDC``)."""
        if not 1 <= rank <= 13 or suit not in SUITS or copy not in (0, 1):
            raise ValueError(f"no such card: rank={rank} suit={suit!r} copy={copy}")
        return ALL_CARDS[copy * CARDS_PER_DECK + SUITS.index(suit) * 13 + rank - 1]

    # The properties read precomputed tables: the engine asks them millions of times.
    @property
    def rank(self) -> int:
        return RANK_OF[self]

    @property
    def suit(self) -> str:
        return SUIT_OF[self]

    @property
    def copy(self) -> int:
        return 1 if self >= CARDS_PER_DECK else 0

    @property
    def is_nine(self) -> bool:
        return self in NINES

    def text(self) -> str:
        """Canonical notation (``docs/rules-nines.md``), e.g. ``10H`` (the copy is not shown)."""
        return rank_text(self.rank) + self.suit

    def __str__(self) -> str:
        return self.text()

    def __repr__(self) -> str:
        suffix = "" if self.copy == 0 else "'"
        return f"Card({self.text()}{suffix})"


ALL_CARDS: tuple[Card, ...] = tuple(int.__new__(Card, i) for i in range(2 * CARDS_PER_DECK))
RANK_OF: tuple[int, ...] = tuple(i % 13 + 1 for i in range(2 * CARDS_PER_DECK))
"""``RANK_OF[card]`` is ``card.rank``, as a table for hot loops."""
SUIT_OF: tuple[str, ...] = tuple(SUITS[(i // 13) % 4] for i in range(2 * CARDS_PER_DECK))
"""``SUIT_OF[card]`` is ``card.suit``, as a table for hot loops."""
NINES: frozenset[Card] = frozenset(c for c in ALL_CARDS if RANK_OF[c] == WILD_RANK)
"""The wild cards of both deck copies."""


def rank_text(rank: int) -> str:
    return RANK_TEXT.get(rank, str(rank))


def deck(copies: int = 1) -> tuple[Card, ...]:
    """A fresh ordered deck: 52 cards, or 104 distinct cards with ``copies=2``."""
    if copies not in (1, 2):
        raise ValueError("a deck has 1 or 2 copies")
    return ALL_CARDS[: copies * CARDS_PER_DECK]


def parse_suit(text: str) -> str:
    """A suit from ``S``/``spades``/``♠`` (any case), or :class:`CardParseError`."""
    if not isinstance(text, str):
        raise CardParseError(f"not a suit: {text!r}")
    t = text.strip().translate(_PRESENTATION)
    if t in _SYMBOL_TO_SUIT:
        return _SYMBOL_TO_SUIT[t]
    u = t.upper()
    if len(u) == 1 and u in SUITS:
        return u
    for letter, name in SUIT_NAMES.items():
        if u and name.upper().startswith(u) and len(u) >= 2:
            return letter
    raise CardParseError(f"not a suit: {text!r} (use S, H, D, C or ♠ ♥ ♦ ♣)")


def parse_card(text: str, copy: int = 0) -> Card:
    """Parse ``9S``, ``10h``, ``Th``, ``9♠``; anything else is a :class:`CardParseError`."""
    if not isinstance(text, str):
        raise CardParseError(f"not a card: {text!r}")
    t = text.strip().translate(_PRESENTATION).upper()
    m = _CARD_RE.fullmatch(t)
    if not m:
        raise CardParseError(f"not a card: {text!r} (write rank then suit, e.g. 9S, 10H, TH, QC or 9♠)")
    rank_s, suit_s = m.groups()
    rank = _RANK_WORDS[rank_s] if rank_s in _RANK_WORDS else int(rank_s)
    return Card.of(rank, _SYMBOL_TO_SUIT.get(suit_s, suit_s), copy)


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    """Parse several cards; a repeated card takes the second deck copy.

    A card named a third time does not exist even in two decks: CardParseError.
    """
    seen: set[Card] = set()
    out = []
    for t in texts:
        c = parse_card(t)
        if c in seen:
            c = parse_card(t, copy=1)
            if c in seen:
                raise CardParseError(f"{c} named more than twice: not even two decks hold it")
        seen.add(c)
        out.append(c)
    return tuple(out)


def penalty(card: Card, nine_value: int = 15) -> int:
    """Penalty of a card left in hand: A=1, 2-8 and 10 face value, J/Q/K=10, 9=15."""
    r = card.rank
    if r == WILD_RANK:
        return nine_value
    return 10 if r > 10 else r


PENALTIES = {nine: tuple(penalty(c, nine) for c in ALL_CARDS) for nine in (15, 25)}
"""``PENALTIES[nine_value][card]``: :func:`penalty`, looked up (the engine and the bots ask it
at every hand's end and every move)."""


def hand_sort_key(card: Card) -> tuple[int, int, int]:
    """Sort by suit, then rank, with the 9s (wild) last."""
    return (1 if card.is_nine else 0, SUITS.index(card.suit), card.rank)


def format_card(card: Card, *, unicode: bool = False, color: bool = False) -> str:
    """``9S`` or ``9♠``; red hearts and diamonds with ANSI colour when asked."""
    suit = SUIT_SYMBOLS[card.suit] if unicode else card.suit
    s = rank_text(card.rank) + suit
    if color and card.suit in RED_SUITS:
        return f"\x1b[31m{s}\x1b[0m"
    return s


def format_suit(suit: str, *, unicode: bool = False, color: bool = False) -> str:
    s = SUIT_SYMBOLS[suit] if unicode else suit
    if color and suit in RED_SUITS:
        return f"\x1b[31m{s}\x1b[0m"
    return s
