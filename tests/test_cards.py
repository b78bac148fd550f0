"""The card model: notations, decks, copies, penalties, formatting, sorting."""

from __future__ import annotations

import pytest

from p2pcards.cards import (
    ALL_CARDS,
    NINES,
    RANK_OF,
    SUIT_NAMES,
    SUIT_OF,
    SUIT_SYMBOLS,
    SUITS,
    Card,
    deck,
    format_card,
    format_suit,
    hand_sort_key,
    parse_card,
    parse_cards,
    parse_suit,
    penalty,
)
from p2pcards.errors import CardParseError, UsageError

RANKS = {"A": 1, "J": 11, "Q": 12, "K": 13, **{str(r): r for r in range(2, 11)}}


@pytest.mark.parametrize(
    ("text", "rank", "suit"),
    [
        ("9S", 9, "S"),
        ("9s", 9, "S"),
        ("  9s\n", 9, "S"),
        ("10H", 10, "H"),
        ("10h", 10, "H"),
        ("Th", 10, "H"),
        ("TH", 10, "H"),
        ("tc", 10, "C"),
        ("AD", 1, "D"),
        ("ad", 1, "D"),
        ("jc", 11, "C"),
        ("Qs", 12, "S"),
        ("kh", 13, "H"),
        ("2C", 2, "C"),
        ("9♠", 9, "S"),
        ("10♥", 10, "H"),
        ("q♦", 12, "D"),
        ("A♣", 1, "C"),
        # white (outline) suit symbols
        ("9♤", 9, "S"),
        ("K♡", 13, "H"),
        ("3♢", 3, "D"),
        ("t♧", 10, "C"),
        # emoji presentation selector, as phones type it
        ("9♥\ufe0f", 9, "H"),
    ],
)
def test_parse_card_accepts_every_notation(text: str, rank: int, suit: str) -> None:
    card = parse_card(text)
    assert (card.rank, card.suit, card.copy) == (rank, suit, 0)
    assert card == Card.of(rank, suit)


@pytest.mark.parametrize(
    "junk",
    [
        "1S",
        "11H",
        "9X",
        "",
        "   ",
        "10",
        "S9",
        "0S",
        "99S",
        "9 S",
        "AS9",
        "♠9",
        "10SS",
        "T",
        "9",
        "S",
        "9♠♠",
        "Z",
    ],
)
def test_parse_card_rejects_junk_clearly(junk: str) -> None:
    with pytest.raises(CardParseError) as info:
        parse_card(junk)
    # one error class for the user's typo, usable as ValueError too, naming the input
    assert isinstance(info.value, UsageError) and isinstance(info.value, ValueError)
    assert repr(junk) in str(info.value)


@pytest.mark.parametrize("junk", [None, 9, b"9S"])
def test_parse_card_rejects_non_text(junk: object) -> None:
    with pytest.raises(CardParseError):
        parse_card(junk)  # type: ignore[arg-type]


def test_text_round_trip_for_all_104_cards() -> None:
    cards = deck(2)
    assert len(cards) == 104
    for c in cards:
        text = c.text()
        assert str(c) == text
        assert (
            text == f"{'A' if c.rank == 1 else {11: 'J', 12: 'Q', 13: 'K'}.get(c.rank, str(c.rank))}{c.suit}"
        )
        assert parse_card(text, copy=c.copy) == c
        assert parse_card(text.lower(), copy=c.copy) == c
        assert parse_card(format_card(c, unicode=True), copy=c.copy) == c


def test_card_fields_agree_with_card_of_for_every_card() -> None:
    seen = set()
    for copy in (0, 1):
        for suit in SUITS:
            for rank in range(1, 14):
                c = Card.of(rank, suit, copy)
                assert (c.rank, c.suit, c.copy) == (rank, suit, copy)
                assert (RANK_OF[c], SUIT_OF[c]) == (rank, suit)
                assert c.is_nine == (rank == 9) == (c in NINES)
                seen.add(c)
    assert seen == set(ALL_CARDS)
    assert len(NINES) == 8


@pytest.mark.parametrize(("rank", "suit", "copy"), [(0, "S", 0), (14, "H", 0), (9, "X", 0), (9, "S", 2)])
def test_card_of_rejects_impossible_cards(rank: int, suit: str, copy: int) -> None:
    with pytest.raises(ValueError):
        Card.of(rank, suit, copy)


@pytest.mark.parametrize("index", [-1, 104, 1000])
def test_card_index_out_of_range(index: int) -> None:
    with pytest.raises(ValueError):
        Card(index)


def test_deck_sizes_and_distinct_cards() -> None:
    one = deck()
    assert len(one) == 52 and len(set(one)) == 52
    assert {(c.rank, c.suit) for c in one} == {(r, s) for r in range(1, 14) for s in SUITS}
    assert all(c.copy == 0 for c in one)
    two = deck(2)
    assert len(two) == 104 and len(set(two)) == 104
    faces = [(c.rank, c.suit) for c in two]
    assert all(faces.count(f) == 2 for f in set(faces))
    assert sorted(c.copy for c in two) == [0] * 52 + [1] * 52
    with pytest.raises(ValueError):
        deck(3)


def test_second_copy_is_the_same_face_but_a_different_card() -> None:
    a = Card.of(9, "S", 0)
    b = Card.of(9, "S", 1)
    assert a != b and hash(a) != hash(b)
    assert (a.rank, a.suit, a.text()) == (b.rank, b.suit, b.text())
    assert repr(a) == "Card(9S)" and repr(b) == "Card(9S')"


def test_parse_cards_gives_the_second_copy_for_a_repeat() -> None:
    cards = parse_cards(["9S", "QH", "9s", "10d"])
    assert [c.text() for c in cards] == ["9S", "QH", "9S", "10D"]
    assert [c.copy for c in cards] == [0, 0, 1, 0]
    assert len(set(cards)) == 4
    # the same card in two notations is still a repeat
    again = parse_cards(["9♠", "9S"])
    assert [c.copy for c in again] == [0, 1]


def test_parse_cards_refuses_a_third_copy() -> None:
    with pytest.raises(CardParseError):
        parse_cards(["9S", "9S", "9S"])


def test_parse_cards_propagates_junk() -> None:
    with pytest.raises(CardParseError):
        parse_cards(["9S", "1S"])


@pytest.mark.parametrize(
    ("text", "suit"),
    [
        ("S", "S"),
        ("s", "S"),
        (" h ", "H"),
        ("♠", "S"),
        ("♤", "S"),
        ("♥", "H"),
        ("♡", "H"),
        ("♦", "D"),
        ("♢", "D"),
        ("♣", "C"),
        ("♧", "C"),
        ("♥\ufe0f", "H"),
        ("spades", "S"),
        ("Hearts", "H"),
        ("DIAMONDS", "D"),
        ("cl", "C"),
    ],
)
def test_parse_suit(text: str, suit: str) -> None:
    assert parse_suit(text) == suit


@pytest.mark.parametrize("junk", ["", "X", "SH", "spadesx", "9", None])
def test_parse_suit_rejects_junk(junk: object) -> None:
    with pytest.raises(CardParseError):
        parse_suit(junk)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("rank", "value"),
    [(1, 1), (2, 2), (3, 3), (4, 4), (5, 5), (6, 6), (7, 7), (8, 8), (10, 10), (11, 10), (12, 10), (13, 10)],
)
def test_penalty_values(rank: int, value: int) -> None:
    for suit in SUITS:
        for copy in (0, 1):
            card = Card.of(rank, suit, copy)
            assert penalty(card) == value
            assert penalty(card, 25) == value  # hard nines change only the 9s


def test_penalty_of_nines_normal_and_hard() -> None:
    for c in NINES:
        assert penalty(c) == 15
        assert penalty(c, 25) == 25


def test_format_card_plain_unicode_and_colour() -> None:
    assert format_card(parse_card("10H")) == "10H"
    assert format_card(parse_card("9S"), unicode=True) == "9♠"
    assert format_card(parse_card("QD"), unicode=True) == "Q♦"
    assert format_card(parse_card("AC"), unicode=True) == "A♣"
    assert format_card(parse_card("KH"), unicode=True) == "K♥"
    for c in deck():
        plain = format_card(c, unicode=True)
        coloured = format_card(c, unicode=True, color=True)
        if c.suit in "HD":
            assert coloured == f"\x1b[31m{plain}\x1b[0m"
        else:
            assert coloured == plain  # black suits are never wrapped in escape codes
        assert "\x1b" not in format_card(c)  # no colour unless asked


def test_format_suit() -> None:
    for s in SUITS:
        assert format_suit(s) == s
        assert format_suit(s, unicode=True) == SUIT_SYMBOLS[s]
        red = format_suit(s, unicode=True, color=True)
        assert ("\x1b[31m" in red) == (s in "HD")
    assert set(SUIT_NAMES) == set(SUIT_SYMBOLS) == set(SUITS)


def test_hand_sort_key_orders_by_suit_then_rank_with_nines_last() -> None:
    hand = parse_cards(["9H", "KC", "2S", "9S", "AS", "10D", "QH", "3H"])
    ordered = sorted(hand, key=hand_sort_key)
    assert [c.text() for c in ordered] == ["AS", "2S", "3H", "QH", "10D", "KC", "9S", "9H"]
