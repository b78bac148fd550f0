"""Strategies for Le Neuf: a uniformly random player and a rule-of-thumb one.

Both have the interface of the Nines bots, ``choose(view, legal, rng)``, but
read a :class:`~p2pcards.games.neuf.NeufView`: a seat's own cards, what it has
seen of the dummy and the public play, never a hidden card.

The heuristic wants tricks (each one over four lowers its total, each one
short of four raises it) and plays like a careful player at a real table:

* Exchange: estimate the tricks a hand is worth under this hand's trump (high
  cards, trump length, short side suits to ruff with). With open exchanges it
  always looks (a look costs nothing and may tell it another seat's hand later)
  and takes the dummy when it is worth more. Blind, it takes the dummy when its
  own hand is below an average hand, counting a dummy that another seat has
  just given up as somewhat worse than average.
* Counting: every card played, the dummy when seen, hands it knows because they
  moved through the dummy, and the suits each opponent has shown void in. A card
  is a sure winner when no opponent can hold a higher card of its suit nor ruff it.
* Lead: cash sure winners, drawing trumps first when it holds most of those
  left; else lead a singleton to ruff later; else lead low from the longest
  side suit.
* Follow: last to play, win as cheaply as possible or play the lowest card;
  second, win only with a card the third player cannot beat, else play low.
  Void: ruff (or overruff) as cheaply as wins, else discard the card least
  likely to take a trick, from the shortest suit.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Sequence
from typing import Protocol

from p2pcards.cards import ALL_CARDS, CARDS_PER_DECK, RANK_OF, SUIT_OF, SUITS, Card
from p2pcards.games.neuf.rules import (
    PLAYERS,
    POWER,
    Action,
    Decline,
    Exchange,
    Look,
    NeufView,
    Phase,
    PlayCard,
    Trump,
)

DECK = ALL_CARDS[:CARDS_PER_DECK]


class NeufStrategy(Protocol):
    name: str

    def choose(self, view: NeufView, legal: Sequence[Action], rng: random.Random) -> Action:
        """Pick one of ``legal`` (never empty) using only ``view``."""
        ...


class NeufRandomBot:
    """The baseline: a uniformly random legal move."""

    name = "random"

    def choose(self, view: NeufView, legal: Sequence[Action], rng: random.Random) -> Action:
        return legal[rng.randrange(len(legal))]


# ---------------------------------------------------------------------------
# Hand strength


SMALL_CARD_TRICKS = 1.6
"""Tricks a hand picks up beyond its counted values (small cards winning late, stray ruffs),
measured between careful players."""


def estimate_tricks(cards: Iterable[Card], trump: Trump) -> float:
    """Rough number of tricks ``cards`` should take as a 13-card hand with ``trump``."""
    by_suit: dict[str, list[int]] = {s: [] for s in SUITS}
    for c in cards:
        by_suit[SUIT_OF[c]].append(POWER[c])
    trumps = len(by_suit[trump]) if trump is not None else 0
    total = SMALL_CARD_TRICKS
    for suit, powers in by_suit.items():
        powers.sort(reverse=True)
        n = len(powers)
        if suit == trump:
            total += _honours(powers, (1.0, 0.9, 0.75, 0.5))
            total += 0.85 * max(0, n - 3)
            continue
        total += _honours(powers, (0.95, 0.7, 0.35, 0.15))
        if trump is None:
            if n > 4 and powers[0] >= 13:
                total += 0.5 * (n - 4)
        elif trumps > 0:
            # Short side suits let spare trumps ruff.
            spare = max(0, trumps - 2)
            total += min(spare, 2) * 0.45 if n == 0 else min(spare, 1) * 0.3 if n == 1 else 0.0
    return min(total, 13.0)


def _honours(powers: list[int], worth: tuple[float, float, float, float]) -> float:
    """Worth of A, K, Q, J in a suit, each counted only with enough guards below it."""
    n = len(powers)
    out = 0.0
    for k, top in enumerate((14, 13, 12, 11)):
        if top in powers and n > k:
            out += worth[k]
        elif top in powers:
            out += worth[k] * 0.3
    return out


_MEAN_CACHE: dict[Trump, float] = {}


def average_estimate(trump: Trump) -> float:
    """The mean :func:`estimate_tricks` of a random hand (fixed sample: deterministic)."""
    if trump not in _MEAN_CACHE:
        rng = random.Random(f"neuf-average:{trump}")
        pack = list(DECK)
        total = 0.0
        samples = 400
        for _ in range(samples):
            rng.shuffle(pack)
            total += estimate_tricks(pack[:13], trump)
        _MEAN_CACHE[trump] = total / samples
    return _MEAN_CACHE[trump]


# ---------------------------------------------------------------------------
# What the seat knows during play


class _Count:
    """Who may still hold what, from this seat's point of view."""

    __slots__ = ("maybe", "me", "trump")

    def __init__(self, view: NeufView) -> None:
        self.me = view.seat
        self.trump = view.trump
        mine = set(view.my_cards)
        gone = set(view.played()) | mine
        dummy = view.dummy_cards
        if dummy is not None:
            gone |= set(dummy)
        known = {s: view.known_cards(s) for s in range(PLAYERS) if s != self.me}
        for cards in known.values():
            if cards is not None:
                gone |= set(cards)
        pool = [c for c in DECK if c not in gone]
        self.maybe: dict[int, set[Card]] = {}
        for s, cards in known.items():
            if cards is not None:
                self.maybe[s] = set(cards)
            else:
                void = view.shown_void(s)
                self.maybe[s] = {c for c in pool if SUIT_OF[c] not in void}

    def higher(self, card: Card, seats: Iterable[int]) -> bool:
        """Some seat in ``seats`` may hold a higher card of ``card``'s suit."""
        suit, p = SUIT_OF[card], POWER[card]
        return any(SUIT_OF[c] == suit and POWER[c] > p for s in seats for c in self.maybe[s])

    def may_ruff(self, seat: int, suit: str) -> bool:
        """``seat`` may be out of ``suit`` and hold a trump."""
        t = self.trump
        if t is None or suit == t:
            return False
        held = self.maybe[seat]
        return not any(SUIT_OF[c] == suit for c in held) and any(SUIT_OF[c] == t for c in held)

    def sure_winner(self, card: Card, seats: Sequence[int]) -> bool:
        """Nobody in ``seats`` can beat ``card`` if its suit is led (or it ruffs)."""
        if self.higher(card, seats):
            return False
        suit = SUIT_OF[card]
        if suit == self.trump:
            return True
        return not any(self.may_ruff(s, suit) for s in seats)

    def trumps_out(self) -> int:
        t = self.trump
        if t is None:
            return 0
        return len({c for s, held in self.maybe.items() for c in held if SUIT_OF[c] == t})


# ---------------------------------------------------------------------------
# The heuristic player


class NeufHeuristicBot:
    """Counts cards and takes what tricks it safely can; see the module doc."""

    name = "heuristic"

    def __init__(
        self, take_margin: float = 0.1, blind_margin: float = 0.0, given_penalty: float = 0.5
    ) -> None:
        self.take_margin = take_margin
        """Open exchange: take the dummy when it is worth this many tricks more."""
        self.blind_margin = blind_margin
        """Blind exchange: take an untouched dummy when the own hand is this far below average."""
        self.given_penalty = given_penalty
        """Blind exchange: a dummy another seat just gave up is taken as this much below average."""

    def choose(self, view: NeufView, legal: Sequence[Action], rng: random.Random) -> Action:
        if len(legal) == 1:
            return legal[0]
        if view.phase is Phase.EXCHANGE:
            return self._exchange(view, legal)
        return self._play(view, [a.card for a in legal if isinstance(a, PlayCard)])

    # -- exchange ------------------------------------------------------------

    def _exchange(self, view: NeufView, legal: Sequence[Action]) -> Action:
        seat = view.seat
        looks = [a for a in legal if isinstance(a, Look)]
        if looks:
            return looks[0]
        take = Exchange(seat=seat)
        keep = Decline(seat=seat)
        own = estimate_tricks(view.my_cards, view.trump)
        dummy = view.dummy_cards
        if dummy is not None:
            return take if estimate_tricks(dummy, view.trump) > own + self.take_margin else keep
        expected = average_estimate(view.trump)
        if any(x.took for x in view.exchanges):
            expected -= self.given_penalty
        return take if own < expected - self.blind_margin else keep

    # -- play ----------------------------------------------------------------

    def _play(self, view: NeufView, cards: list[Card]) -> PlayCard:
        count = _Count(view)
        me = view.seat
        after = [view.next_seat(me, k) for k in range(1, PLAYERS - len(view.current))]
        if view.current:
            return PlayCard(seat=me, card=self._follow(view, count, cards, after))
        return PlayCard(seat=me, card=self._lead(view, count, after))

    def _lead(self, view: NeufView, count: _Count, others: list[int]) -> Card:
        hand = list(view.my_cards)
        trump = view.trump
        winners = [c for c in hand if count.sure_winner(c, others)]
        my_trumps = [c for c in hand if SUIT_OF[c] == trump]
        out = count.trumps_out()
        trump_winners = [c for c in winners if SUIT_OF[c] == trump]
        if trump_winners and out > 0 and len(my_trumps) >= out:
            return max(trump_winners, key=POWER.__getitem__)  # draw their trumps
        side = [c for c in winners if SUIT_OF[c] != trump]
        if side:
            return max(side, key=lambda c: (_suit_len(hand, SUIT_OF[c]), POWER[c]))
        if winners:
            return max(winners, key=POWER.__getitem__)
        by_suit = _group(hand)
        non_trump = {s: cs for s, cs in by_suit.items() if s != trump and cs}
        if my_trumps and out > 0:
            singles = [cs[0] for cs in non_trump.values() if len(cs) == 1]
            if singles:
                return min(singles, key=POWER.__getitem__)
        if non_trump:
            longest = max(non_trump.values(), key=lambda cs: (len(cs), -min(POWER[c] for c in cs)))
            return min(longest, key=POWER.__getitem__)
        return min(hand, key=POWER.__getitem__)

    def _follow(self, view: NeufView, count: _Count, cards: list[Card], after: list[int]) -> Card:
        trump = view.trump
        led = view.led_suit
        assert led is not None  # (called with a trick in progress)
        plays = view.current
        best = _best(plays, trump)
        hand = list(view.my_cards)
        beating = [c for c in cards if _beats(c, best, led, trump)]
        cheapest = sorted(beating, key=lambda c: (SUIT_OF[c] == trump and led != trump, POWER[c]))
        if SUIT_OF[cards[0]] == led:  # following suit
            if not after:
                return cheapest[0] if cheapest else _lowest(cards)
            safe = [c for c in cheapest if count.sure_winner(c, after)]
            return safe[0] if safe else _lowest(cards)
        # Out of the suit led: ruff if it wins, else discard.
        if cheapest:
            if not after:
                return cheapest[0]
            safe = [c for c in cheapest if not count.higher(c, after) or not count.may_ruff(after[0], led)]
            if safe:
                return safe[0]
        return self._discard(view, count, hand, cards)

    def _discard(self, view: NeufView, count: _Count, hand: list[Card], cards: list[Card]) -> Card:
        """The card least likely to take a trick later, from the shortest suit."""
        trump = view.trump
        others = [s for s in range(PLAYERS) if s != view.seat]

        def worth(c: Card) -> tuple[int, int, int, int]:
            suit = SUIT_OF[c]
            return (
                suit == trump,
                count.sure_winner(c, others),
                POWER[c],
                _suit_len(hand, suit),
            )

        return min(cards, key=worth)


# ---------------------------------------------------------------------------
# Helpers


def _group(cards: Iterable[Card]) -> dict[str, list[Card]]:
    out: dict[str, list[Card]] = {s: [] for s in SUITS}
    for c in cards:
        out[SUIT_OF[c]].append(c)
    return out


def _suit_len(cards: Iterable[Card], suit: str) -> int:
    return sum(1 for c in cards if SUIT_OF[c] == suit)


def _lowest(cards: Sequence[Card]) -> Card:
    return min(cards, key=lambda c: (POWER[c], RANK_OF[c]))


def _best(plays: Sequence[tuple[int, Card]], trump: Trump) -> Card:
    """The card winning the trick so far."""
    led = SUIT_OF[plays[0][1]]
    best = plays[0][1]
    for _, c in plays[1:]:
        if _beats(c, best, led, trump):
            best = c
    return best


def _beats(card: Card, best: Card, led: str | None, trump: Trump) -> bool:
    """``card`` would win over ``best``, the winning card so far."""
    s, b = SUIT_OF[card], SUIT_OF[best]
    if s == b:
        return POWER[card] > POWER[best]
    return s == trump


BOTS = {"random": NeufRandomBot, "heuristic": NeufHeuristicBot}
"""The strategies of Le Neuf, by the names ``--bot`` takes."""
