"""Le Neuf: the rules engine of the three-player trick-taking game with a dummy hand.

Deterministic and replica-friendly, like the Nines engine: the shuffled deck
comes in from outside (``Match.start_hand(deck)``) and nothing here draws
randomness. It runs with full information (the local game, the audit) or with
hidden cards, where a seat's replica passes ``None`` for every card it cannot
see. Every rule that public information allows is checked live; with full
information every rule is. ``docs/rules-neuf.md`` is the rule book this engine
plays; the decisions it takes where the traditional rules are silent are listed
there and summed up here:

* Seats 0, 1, 2 sit clockwise: seat ``s + 1`` is on the left of seat ``s``.
  The dummy is not a seat.
* First dealer: every seat cuts one card, the highest rank deals (Ace high,
  suits do not rank); seats tied for the highest cut again among themselves.
  The cut picks the dealer only: seats never move.
* The deal goes one card at a time clockwise from the dealer's left, the dummy
  last in every round: left of the dealer, the third player, the dealer, the
  dummy, and again (deck positions ``k, k + 4, k + 8...``).
* Exchange, in order dealer, left of the dealer, third player. ``Look`` is an
  action of its own, at most one per seat, allowed only with open exchanges; it
  is public that a seat looked, never what it saw. Looking is optional: a seat
  may take or leave the dummy unseen. ``Exchange`` swaps the whole hand with the
  hand lying in the dummy's place at that moment; ``Decline`` keeps it.
* The dummy is out of play after the exchanges and is never looked at again.
  At the end of a hand a replica knows it anyway: the 13 cards nobody played.
* Must follow: a replica that cannot see a hand cannot tell a discard from a
  revoke. A revoke comes to light when that seat later plays a card of the suit
  it failed to follow (all 13 cards are played), and every replica refuses that
  play (rule ``follow-suit``), naming the trick of the revoke.
  :meth:`HandState.revokes` lists every revoke of a hand from its tricks, and
  :func:`replay_hand` replays a hand with full information, letting revokes
  through so that it can report each one with its trick and seat.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from enum import Enum
from typing import Any, Literal

from p2pcards.cards import ALL_CARDS, CARDS_PER_DECK, RANK_OF, SUIT_OF, SUITS, Card, parse_suit
from p2pcards.errors import CardParseError, IllegalAction, RuleOptionError, UsageError
from p2pcards.games.base import Game, Parts, Shuffler
from p2pcards.games.rule_words import ENGLISH as RULES_ENGLISH
from p2pcards.games.rule_words import illegal, rule_error, where_seen
from p2pcards.say import Say

PLAYERS = 3
"""Le Neuf is for exactly three players."""
HAND_SIZE = 13
"""Cards in each hand and in the dummy; also the number of tricks."""
PAR = 4
"""Tricks that leave a total unchanged: each hand adds ``PAR - tricks won``."""

Trump = str | None
"""A trump suit letter (``S H D C``), or None for a no-trump hand."""

TRUMPS_SPADES_FIRST: tuple[Trump, ...] = ("S", "H", "C", "D", None)
"""The default rotation: spades, hearts, clubs, diamonds, no trump."""
TRUMPS_HEARTS_FIRST: tuple[Trump, ...] = ("H", "D", "S", "C", None)
"""The other traditional rotation: hearts, diamonds, spades, clubs, no trump."""

_TRUMP_PRESETS = {"spades-first": TRUMPS_SPADES_FIRST, "hearts-first": TRUMPS_HEARTS_FIRST}
_NO_TRUMP_WORDS = frozenset({"N", "NT", "NONE", "-"})

ExchangeRule = Literal["open", "blind"]

MAX_START = 30
"""The highest starting total a match may set: the totals drop by one a hand in all, so a
match of start ``s`` lasts at most ``3s - 2`` hands (25 at the main rules' 9)."""


# ---------------------------------------------------------------------------
# Rule options


@dataclass(frozen=True, slots=True, kw_only=True)
class NeufRules:
    """Every rule option of Le Neuf; the defaults are the main profile."""

    trumps: tuple[Trump, ...] = TRUMPS_SPADES_FIRST
    """Trump of hand 1, 2, 3... in rotation (None: no trump); it starts again after the last."""
    exchange: ExchangeRule = "open"
    """``open``: a seat may look at the dummy before choosing; ``blind``: nobody looks."""
    start: int = 9
    """Every total at the start of the match."""

    def __post_init__(self) -> None:
        # Records come from other nodes (from_dict): a wrong type is refused, not coerced.
        t = self.trumps
        if type(t) is not tuple or not 1 <= len(t) <= 5:
            raise rule_error("rule_err_trumps_count")
        for x in t:
            if x is not None and (type(x) is not str or x not in SUITS or len(x) != 1):
                raise rule_error("rule_err_trump", value=repr(x))
        if len(set(t)) != len(t):
            raise rule_error("rule_err_trump_twice")
        if type(self.exchange) is not str or self.exchange not in ("open", "blind"):
            raise rule_error("rule_err_exchange", value=repr(self.exchange))
        if type(self.start) is not int:
            raise rule_error("rule_err_whole", name="start", value=repr(self.start))
        if not 1 <= self.start <= MAX_START:
            raise rule_error("rule_err_range", name="start", lo=1, hi=MAX_START, value=self.start)

    @property
    def deck_size(self) -> int:
        """One 52-card deck."""
        return CARDS_PER_DECK

    def trump_of(self, number: int) -> Trump:
        """The trump of hand ``number`` (from 1)."""
        return self.trumps[(number - 1) % len(self.trumps)]

    def to_dict(self) -> dict[str, object]:
        """Every option by name (the ``rules`` object of a record); trumps as a JSON list."""
        return {"trumps": list(self.trumps), "exchange": self.exchange, "start": self.start}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> NeufRules:
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise rule_error("rule_err_unknown_options", names=", ".join(sorted(unknown)))
        values = dict(data)
        if isinstance(values.get("trumps"), list):
            values["trumps"] = tuple(values["trumps"])  # type: ignore[arg-type]
        try:
            return cls(**values)  # type: ignore[arg-type]
        except TypeError as e:
            raise RuleOptionError(str(e)) from None

    @classmethod
    def parse(cls, specs: Iterable[str]) -> NeufRules:
        """Build from CLI words: ``exchange=blind``, ``start=5``, ``trumps=hearts-first``,
        ``trumps=HDSCN`` (letters, N for no trump) or ``trumps=H,D,S,C,NT``."""
        values: dict[str, object] = {}
        for spec in specs:
            name, eq, raw = spec.partition("=")
            key = name.strip().lower().replace("-", "_")
            raw = raw.strip()
            if key == "blind_exchange" and not eq:
                values["exchange"] = "blind"
                continue
            if key not in ("trumps", "exchange", "start"):
                raise rule_error("rule_err_unknown", name=repr(name), known="trumps, exchange, start")
            if not eq or not raw:
                raise rule_error("rule_err_needs_value", name=name, example="exchange=blind")
            if key == "start":
                try:
                    values[key] = int(raw)
                except ValueError:
                    raise rule_error("rule_err_whole", name="start", value=repr(raw)) from None
            elif key == "exchange":
                values[key] = raw.lower()
            else:
                values[key] = _parse_trumps(raw)
        return cls(**values)  # type: ignore[arg-type]


def _parse_trumps(raw: str) -> tuple[Trump, ...]:
    preset = _TRUMP_PRESETS.get(raw.lower())
    if preset is not None:
        return preset
    tokens = [t.strip() for t in raw.split(",")] if "," in raw else list(raw)
    out: list[Trump] = []
    for token in tokens:
        if token.upper() in _NO_TRUMP_WORDS:
            out.append(None)
            continue
        try:
            out.append(parse_suit(token))
        except CardParseError:
            presets = ", ".join(_TRUMP_PRESETS)
            raise rule_error("rule_err_trump_word", value=repr(token), presets=presets) from None
    return tuple(out)


# ---------------------------------------------------------------------------
# Actions


@dataclass(frozen=True, slots=True, kw_only=True)
class Look:
    """Look at the dummy privately (open exchanges only).

    ``cards`` is what the looking seat saw, given by that seat's own replica; the
    others pass None: that a seat looked is public, what it saw is not.
    """

    seat: int
    cards: tuple[Card, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Exchange:
    """Swap the whole hand with the hand lying in the dummy's place.

    ``cards`` is what the seat takes, for its own replica when it had not seen
    them; everybody else passes None.
    """

    seat: int
    cards: tuple[Card, ...] | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class Decline:
    """Keep one's own hand and leave the dummy where it lies."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayCard:
    """Play one card to the trick in progress."""

    seat: int
    card: Card


Action = Look | Exchange | Decline | PlayCard


class Phase(Enum):
    """Who must act, and how."""

    EXCHANGE = "exchange"  # the seat to act may look (open), then exchange or decline
    PLAY = "play"  # the seat to act plays a card to the trick
    OVER = "over"


@dataclass(frozen=True, slots=True)
class ExchangeRecord:
    """What the table saw of one seat's exchange turn."""

    seat: int
    looked: bool
    took: bool


@dataclass(frozen=True, slots=True)
class Trick:
    """A finished trick: its leader, the cards in order of play, and who won it."""

    leader: int
    plays: tuple[tuple[int, Card], ...]
    winner: int

    @property
    def led(self) -> str:
        """The suit led."""
        return SUIT_OF[self.plays[0][1]]


@dataclass(frozen=True, slots=True)
class Revoke:
    """A seat failed to follow suit: it played ``card`` on ``suit`` led while holding ``held``."""

    trick: int
    seat: int
    card: Card
    suit: str
    held: Card


# ---------------------------------------------------------------------------
# Precomputed tables

POWER: tuple[int, ...] = tuple(14 if RANK_OF[c] == 1 else RANK_OF[c] for c in ALL_CARDS)
"""``POWER[card]``: rank strength within a suit, 2 (a two) to 14 (an Ace)."""

_PLAYS = tuple(tuple(PlayCard(seat=s, card=c) for c in ALL_CARDS[:CARDS_PER_DECK]) for s in range(PLAYERS))
_LOOKS = tuple(Look(seat=s) for s in range(PLAYERS))
_EXCHANGES = tuple(Exchange(seat=s) for s in range(PLAYERS))
_DECLINES = tuple(Decline(seat=s) for s in range(PLAYERS))


def trick_winner(plays: Sequence[tuple[int, Card]], trump: Trump) -> int:
    """The seat that wins ``plays``: the highest trump, else the highest card of the suit led."""
    led = SUIT_OF[plays[0][1]]
    best_seat, best_card = plays[0]
    best_trump = SUIT_OF[best_card] == trump
    for seat, card in plays[1:]:
        suit = SUIT_OF[card]
        if suit == trump:
            if not best_trump or POWER[card] > POWER[best_card]:
                best_seat, best_card, best_trump = seat, card, True
        elif not best_trump and suit == led and POWER[card] > POWER[best_card]:
            best_seat, best_card = seat, card
    return best_seat


def next_seat(seat: int, steps: int = 1) -> int:
    """The seat ``steps`` places to the left (clockwise) of ``seat``."""
    return (seat + steps) % PLAYERS


# ---------------------------------------------------------------------------
# One hand


class HandState:
    """One hand in progress. Mutable for speed; ``apply`` is all-or-nothing.

    ``apply`` checks an action completely before changing anything, so an
    illegal action raises :class:`IllegalAction` and leaves the state as it was.
    ``check_follow=False`` lets a revoke through, to be reported by
    :meth:`revokes` (the full-information replay does this to find every revoke).
    """

    __slots__ = (
        "_looked",
        "_shown_void",
        "check_follow",
        "current",
        "dealer",
        "dealt",
        "dummy",
        "dummy_dealt",
        "events",
        "exchanges",
        "hands",
        "leader",
        "number",
        "phase",
        "rules",
        "tricks",
        "trump",
        "turn",
        "won",
    )

    players = PLAYERS

    def __init__(
        self,
        rules: NeufRules,
        dealer: int,
        deck: Sequence[Card | None],
        *,
        number: int = 1,
        check_follow: bool = True,
    ) -> None:
        """Deal ``deck`` (top card first; None where hidden) for hand ``number`` of the match."""
        if not isinstance(rules, NeufRules):
            raise UsageError(f"not Le Neuf rules: {rules!r}")
        if type(dealer) is not int or not 0 <= dealer < PLAYERS:
            raise UsageError(f"no seat {dealer!r}: Le Neuf seats are 0, 1 and 2")
        if type(number) is not int or number < 1:
            raise UsageError(f"hand numbers start at 1, not {number!r}")
        if type(check_follow) is not bool:
            raise UsageError(f"check_follow is yes or no, not {check_follow!r}")
        if len(deck) != CARDS_PER_DECK:
            raise UsageError(f"deck has {len(deck)} cards, Le Neuf needs {CARDS_PER_DECK}")
        known = [c for c in deck if c is not None]
        if len(set(known)) != len(known) or not all(type(c) is Card and c < CARDS_PER_DECK for c in known):
            raise UsageError("deck holds a card twice, a non-card or a card of a second deck")
        self.rules = rules
        self.dealer = dealer
        self.number = number
        self.trump: Trump = rules.trump_of(number)
        self.check_follow = check_follow
        # One card at a time from the dealer's left, the dummy last in each round.
        order = [next_seat(dealer, 1), next_seat(dealer, 2), dealer]
        self.hands: list[list[Card | None]] = [[] for _ in range(PLAYERS)]
        self.dealt: list[list[Card | None]] = [[] for _ in range(PLAYERS)]
        for k, s in enumerate(order):
            self.hands[s] = list(deck[k :: PLAYERS + 1])
            self.dealt[s] = list(deck[k :: PLAYERS + 1])
        self.dummy: list[Card | None] = list(deck[PLAYERS :: PLAYERS + 1])
        self.dummy_dealt: tuple[Card | None, ...] = tuple(self.dummy)
        self.phase = Phase.EXCHANGE
        self.turn = dealer
        self._looked = False
        self.exchanges: list[ExchangeRecord] = []
        self.leader = next_seat(dealer)
        self.current: list[tuple[int, Card]] = []
        self.tricks: list[Trick] = []
        self.won = [0] * PLAYERS
        self._shown_void: list[dict[str, int]] = [{} for _ in range(PLAYERS)]
        self.events: list[Action] = []

    # -- public read-only helpers ------------------------------------------

    @property
    def to_act(self) -> int | None:
        """The seat that must act next, or None when the hand is over."""
        return None if self.phase is Phase.OVER else self.turn

    @property
    def trick_number(self) -> int:
        """The number of the trick in progress (from 1); 14 once the hand is over."""
        return len(self.tricks) + 1

    @property
    def led_suit(self) -> str | None:
        """The suit led to the trick in progress, or None before its first card."""
        return SUIT_OF[self.current[0][1]] if self.current else None

    @property
    def looked(self) -> bool:
        """Whether the seat in its exchange turn has looked at the dummy already."""
        return self._looked

    def counts(self) -> list[int]:
        return [len(h) for h in self.hands]

    def played(self) -> list[Card]:
        """Every card played so far, in order."""
        out = [c for t in self.tricks for _, c in t.plays]
        out.extend(c for _, c in self.current)
        return out

    def shown_void(self, seat: int) -> dict[str, int]:
        """Suits ``seat`` failed to follow, each with the first trick where it did (public)."""
        return dict(self._shown_void[seat])

    def where_visible(self, card: Card) -> str | None:
        """Where this replica sees ``card`` (a hand, the dummy, the tricks), or None.

        A card a replica can see somewhere cannot also be hidden in a seat's
        hand: this is how a replica catches a peer playing a card it cannot hold.
        """
        for s, hand in enumerate(self.hands):
            if card in hand:
                return where_seen("illegal_in_hand", seat=s)
        if card in self.dummy:
            return where_seen("illegal_in_dummy")
        if card in self.played():
            return where_seen("illegal_played_already")
        return None

    # -- legal actions ------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act. To play, that seat's hand must be known."""
        ph = self.phase
        seat = self.turn
        if ph is Phase.OVER:
            return []
        if ph is Phase.EXCHANGE:
            if self.rules.exchange == "open" and not self._looked:
                return [_LOOKS[seat], _EXCHANGES[seat], _DECLINES[seat]]
            return [_EXCHANGES[seat], _DECLINES[seat]]
        hand = self.hands[seat]
        if None in hand:
            raise UsageError(f"seat {seat}'s hand is hidden from this replica")
        plays = _PLAYS[seat]
        if self.current:
            led = SUIT_OF[self.current[0][1]]
            follow = [plays[c] for c in hand if SUIT_OF[c] == led]  # type: ignore[index]
            if follow:
                return follow  # type: ignore[return-value]
        return [plays[c] for c in hand]  # type: ignore[index]

    # -- applying -----------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Check ``action`` against every rule this replica can check, then apply it."""
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise UsageError(f"not a Le Neuf action: {action!r}")
        seat = action.seat
        if self.phase is Phase.OVER:
            raise illegal(seat, "hand-over", "illegal_hand_over")
        if seat != self.turn or type(seat) is not int:
            raise illegal(seat, "turn-order", "illegal_turn", turn=self.turn, seat=repr(seat))
        handler(self, action)

    def _exchange_turn(self, seat: int, key: str) -> None:
        """Refuse a move of the exchanges (``key`` says which) once they are over."""
        if self.phase is not Phase.EXCHANGE:
            raise illegal(seat, "phase", key)

    def _check_dummy_claim(self, seat: int, cards: object, rule: str) -> list[Card]:
        """``cards`` can be the dummy's cards as far as this replica can tell."""
        size = len(self.dummy)
        if not isinstance(cards, tuple | list) or len(cards) != size:
            raise illegal(seat, rule, "illegal_dummy_size", n=size)
        if not all(type(c) is Card and c < CARDS_PER_DECK for c in cards):
            raise illegal(seat, rule, "illegal_dummy_not_card")
        if len(set(cards)) != size:
            raise illegal(seat, rule, "illegal_dummy_twice")
        claimed = set(cards)
        for c in self.dummy:
            if c is not None and c not in claimed:
                raise illegal(seat, rule, "illegal_dummy_leaves_out", card=c)
        for c in cards:
            if c not in self.dummy:
                where = self.where_visible(c)
                if where is not None:
                    raise illegal(seat, rule, "illegal_dummy_seen", card=c, place=where)
        return list(cards)

    def _learn_dummy(self, cards: list[Card] | None) -> None:
        """Fill in the dummy's hidden cards with what its viewer saw."""
        if cards is not None and None in self.dummy:
            self.dummy = cards  # type: ignore[assignment]

    def _known(self, cards: list[Card | None]) -> tuple[Card, ...] | None:
        return None if None in cards else tuple(cards)  # type: ignore[arg-type]

    def _apply_look(self, a: Look) -> None:
        seat = a.seat
        self._exchange_turn(seat, "illegal_look_over")
        if self.rules.exchange == "blind":
            raise illegal(seat, "blind-exchange", "illegal_blind")
        if self._looked:
            raise illegal(seat, "look-once", "illegal_look_once")
        seen = None if a.cards is None else self._check_dummy_claim(seat, a.cards, "look")
        self._learn_dummy(seen)
        self._looked = True
        self.events.append(Look(seat=seat, cards=self._known(self.dummy)))

    def _apply_exchange(self, a: Exchange) -> None:
        seat = a.seat
        self._exchange_turn(seat, "illegal_exchange_over")
        taken = None if a.cards is None else self._check_dummy_claim(seat, a.cards, "exchange")
        self._learn_dummy(taken)
        self.hands[seat], self.dummy = self.dummy, self.hands[seat]
        self.exchanges.append(ExchangeRecord(seat, self._looked, True))
        self.events.append(Exchange(seat=seat, cards=self._known(self.hands[seat])))
        self._next_exchange()

    def _apply_decline(self, a: Decline) -> None:
        seat = a.seat
        self._exchange_turn(seat, "illegal_decline_over")
        self.exchanges.append(ExchangeRecord(seat, self._looked, False))
        self.events.append(Decline(seat=seat))
        self._next_exchange()

    def _next_exchange(self) -> None:
        self._looked = False
        if len(self.exchanges) == PLAYERS:
            self.phase = Phase.PLAY
            self.turn = self.leader
        else:
            self.turn = next_seat(self.turn)

    def _apply_play(self, a: PlayCard) -> None:
        seat, card = a.seat, a.card
        if self.phase is not Phase.PLAY:
            raise illegal(seat, "phase", "illegal_play_before_exchanges")
        if type(card) is not Card or card >= CARDS_PER_DECK:
            raise illegal(seat, "card-held", "illegal_not_a_card", thing=repr(card))
        hand = self.hands[seat]
        if card not in hand:
            if None not in hand:
                raise illegal(seat, "card-held", "illegal_not_held", cards=card)
            where = self.where_visible(card)
            if where is not None:
                raise illegal(seat, "card-held", "illegal_seen_elsewhere", card=card, place=where)
        suit = SUIT_OF[card]
        led = SUIT_OF[self.current[0][1]] if self.current else None
        if self.check_follow:
            if led is not None and suit != led:
                for c in hand:
                    if c is not None and SUIT_OF[c] == led:
                        raise illegal(seat, "follow-suit", "illegal_follow", card=card, led=led, other=c)
            void_at = self._shown_void[seat].get(suit)
            if void_at is not None:
                raise illegal(seat, "follow-suit", "illegal_revoked", card=card, suit=suit, trick=void_at)
        # All checks done: change the state.
        if card in hand:
            hand.remove(card)
        else:
            hand.remove(None)
        if led is not None and suit != led:
            self._shown_void[seat].setdefault(led, len(self.tricks) + 1)
        self.current.append((seat, card))
        self.events.append(_PLAYS[seat][card])
        if len(self.current) < PLAYERS:
            self.turn = next_seat(seat)
            return
        winner = trick_winner(self.current, self.trump)
        self.tricks.append(Trick(self.leader, tuple(self.current), winner))
        self.won[winner] += 1
        self.current = []
        self.leader = self.turn = winner
        if len(self.tricks) == HAND_SIZE:
            self._finish()

    def _finish(self) -> None:
        self.phase = Phase.OVER
        if None in self.dummy:
            # Every other card was played: the dummy is what nobody played.
            gone = set(self.played()) | {c for c in self.dummy if c is not None}
            rest = [c for c in ALL_CARDS[:CARDS_PER_DECK] if c not in gone]
            if len(rest) == self.dummy.count(None):
                known = [c for c in self.dummy if c is not None]
                self.dummy = sorted(known + rest)  # type: ignore[assignment]

    # -- checks and scores --------------------------------------------------

    def revokes(self) -> tuple[Revoke, ...]:
        """Every play off the suit led by a seat that still held that suit.

        What a seat held at a trick is read from the cards it played later and
        the cards still in its hand, so any replica can tell at the end of a
        hand, when every card of the three hands has been played.
        """
        tricks = [*self.tricks]
        if self.current:
            tricks.append(Trick(self.leader, tuple(self.current), -1))
        later: list[list[Card]] = [[c for c in h if c is not None] for h in self.hands]
        found: list[Revoke] = []
        for number in range(len(tricks), 0, -1):
            t = tricks[number - 1]
            led = t.led
            for seat, card in reversed(t.plays):  # the whole list is reversed at the end
                if SUIT_OF[card] != led:
                    held = [c for c in later[seat] if SUIT_OF[c] == led]
                    if held:
                        found.append(Revoke(number, seat, card, led, min(held, key=POWER.__getitem__)))
            for seat, card in t.plays:
                later[seat].append(card)
        found.reverse()
        return tuple(found)

    def scores(self) -> list[int]:
        """What each seat adds to its total for this hand: 4 - tricks won."""
        if self.phase is not Phase.OVER:
            raise UsageError("the hand is not over")
        return [PAR - w for w in self.won]

    def copy(self) -> HandState:
        """An independent copy, to try an action without touching this hand."""
        trial = copy.copy(self)
        trial.hands = [list(h) for h in self.hands]
        trial.dealt = [list(h) for h in self.dealt]
        trial.dummy = list(self.dummy)
        trial.exchanges = list(self.exchanges)
        trial.current = list(self.current)
        trial.tricks = list(self.tricks)
        trial.won = list(self.won)
        trial._shown_void = [dict(v) for v in self._shown_void]
        trial.events = list(self.events)
        return trial

    def public_copy(self) -> HandState:
        """A copy that knows what every seat knows and no more (no card of a hand or of the
        dummy; the cards played, and who showed a suit void, stay): a move it refuses is
        refused by every replica alike, at the same step."""
        trial = self.copy()
        trial.hands = [[None] * len(h) for h in self.hands]
        trial.dummy = [None] * len(self.dummy)
        return trial


# Each handler takes the action of its key's type: the argument's type is the key's.
_HANDLERS: dict[type, Callable[[HandState, Any], None]] = {
    Look: HandState._apply_look,
    Exchange: HandState._apply_exchange,
    Decline: HandState._apply_decline,
    PlayCard: HandState._apply_play,
}


# ---------------------------------------------------------------------------
# Full-information replay (the audit)


@dataclass(frozen=True, slots=True)
class Problem:
    """One rule broken in a replayed hand."""

    action: int | None
    """Index of the offending action in the replayed list."""
    trick: int | None
    """The trick it happened in (None during the exchanges)."""
    seat: int | None
    rule: str
    detail: str


@dataclass(frozen=True, slots=True)
class HandReplay:
    """The outcome of :func:`replay_hand`: the replayed hand and every problem found."""

    hand: HandState
    problems: tuple[Problem, ...]

    @property
    def valid(self) -> bool:
        return not self.problems

    @property
    def complete(self) -> bool:
        """All 13 tricks were played."""
        return self.hand.phase is Phase.OVER


def replay_hand(
    rules: NeufRules, dealer: int, deck: Sequence[Card], actions: Sequence[Action], *, number: int = 1
) -> HandReplay:
    """Replay a hand with every card known and report what was wrong with it.

    Revokes do not stop the replay: each is reported with its trick and seat
    (rule ``follow-suit``). Any other illegal action stops it, since what
    follows it has no meaning; that action is reported.
    """
    if None in deck:
        raise UsageError("a full-information replay needs every card of the deck")
    h = HandState(rules, dealer, deck, number=number, check_follow=False)
    problems: list[Problem] = []
    played_at: dict[Card, int] = {}
    for i, a in enumerate(actions):
        trick = h.trick_number if h.phase is Phase.PLAY else None
        try:
            h.apply(a)
        except IllegalAction as e:
            problems.append(Problem(i, trick, e.seat, e.rule, e.detail))
            break
        if isinstance(a, PlayCard):
            played_at[a.card] = i
    for r in h.revokes():
        detail = f"played {r.card} on {r.suit} led while holding {r.held}: must follow suit"
        problems.append(Problem(played_at[r.card], r.trick, r.seat, "follow-suit", detail))
    problems.sort(key=lambda p: -1 if p.action is None else p.action)
    return HandReplay(h, tuple(problems))


# ---------------------------------------------------------------------------
# The match


def cut_highest(shown: Mapping[int, Card]) -> list[int]:
    """Seats tied for the highest cut card (Ace high, suits do not rank)."""
    high = max(POWER[c] for c in shown.values())
    return sorted(s for s, c in shown.items() if POWER[c] == high)


def dealer_from_cut(rounds: Sequence[Mapping[int, Card]]) -> int:
    """The first dealer from the rounds of a cut, checking that they follow the rule.

    Round one has every seat; each next round has exactly the seats tied for the
    highest card of the round before; the last round has a single highest card.
    """
    seats = list(range(PLAYERS))
    if not rounds:
        raise illegal(None, "cut", "illegal_no_cut")
    for i, shown in enumerate(rounds):
        if sorted(shown) != seats:
            raise illegal(None, "cut", "illegal_cut_seats", round=i + 1, seats=seats)
        cards = list(shown.values())
        if not all(type(c) is Card and c < CARDS_PER_DECK for c in cards) or len(set(cards)) != len(cards):
            raise illegal(None, "cut", "illegal_cut_cards", round=i + 1)
        seats = cut_highest(shown)
        if len(seats) == 1:
            if i != len(rounds) - 1:
                raise illegal(None, "cut", "illegal_cut_decided", round=i + 1)
            return seats[0]
    raise illegal(None, "cut", "illegal_cut_tied", seats=seats)


@dataclass(frozen=True, slots=True)
class HandResult:
    number: int
    dealer: int
    trump: Trump
    won: tuple[int, ...]
    scores: tuple[int, ...]
    totals: tuple[int, ...]


@dataclass(slots=True)
class Match:
    """A match of Le Neuf: hands in trump rotation, totals from 9 down, the deal passing left."""

    rules: NeufRules
    dealer: int
    totals: list[int] = field(default_factory=list)
    results: list[HandResult] = field(default_factory=list)
    hand: HandState | None = None
    winners: tuple[int, ...] | None = None
    history: list[HandState] = field(default_factory=list)
    """Every finished hand, kept for the full-information record."""
    played_before: int = 0
    """Hands scored before this match object took over (a continued match)."""

    def __post_init__(self) -> None:
        if not isinstance(self.rules, NeufRules):
            raise UsageError(f"not Le Neuf rules: {self.rules!r}")
        if type(self.dealer) is not int or not 0 <= self.dealer < PLAYERS:
            raise UsageError(f"no seat {self.dealer!r}: Le Neuf seats are 0, 1 and 2")
        if not self.totals:
            self.totals = [self.rules.start] * PLAYERS

    @property
    def over(self) -> bool:
        return self.winners is not None

    @property
    def playoff(self) -> bool:
        """Le Neuf has no playoff: a tie is shared."""
        return False

    @property
    def hand_number(self) -> int:
        """The number of the current (or next) hand, from 1."""
        return self.played_before + len(self.results) + 1

    @property
    def trump(self) -> Trump:
        """The trump of the current (or next) hand."""
        return self.rules.trump_of(self.hand_number)

    def start_hand(self, deck: Sequence[Card | None], *, check_follow: bool = True) -> HandState:
        """Deal the next hand from ``deck`` (top card first; None where hidden)."""
        if self.over:
            raise UsageError("the match is over")
        if self.hand is not None:
            raise UsageError("a hand is still in progress")
        self.hand = HandState(
            self.rules, self.dealer, deck, number=self.hand_number, check_follow=check_follow
        )
        return self.hand

    def close_hand(self) -> HandResult:
        """Score the finished hand, then pass the deal left or end the match."""
        hand = self.hand
        if hand is None or hand.phase is not Phase.OVER:
            raise UsageError("no finished hand to close")
        scores = hand.scores()
        self.totals = [t + s for t, s in zip(self.totals, scores, strict=True)]
        result = HandResult(
            number=hand.number,
            dealer=hand.dealer,
            trump=hand.trump,
            won=tuple(hand.won),
            scores=tuple(scores),
            totals=tuple(self.totals),
        )
        self.results.append(result)
        self.history.append(hand)
        self.hand = None
        low = min(self.totals)
        if low <= 0:
            self.winners = tuple(s for s, t in enumerate(self.totals) if t == low)
        else:
            self.dealer = next_seat(self.dealer)
        return result


# ---------------------------------------------------------------------------
# What one seat may see


class NeufView:
    """A read-only window on a hand for ``seat``: public state plus what this seat knows.

    It never exposes cards the seat has not seen, so a strategy built on it
    cannot cheat even when the engine underneath has full information. A seat
    knows its own hand, the dummy once it has looked at it, and any hand that
    moved between the dummy and a seat while this seat knew it.
    """

    __slots__ = ("_hand", "seat", "totals")

    def __init__(self, hand: HandState, seat: int, totals: tuple[int, ...] = ()) -> None:
        self._hand = hand
        self.seat = seat
        self.totals = totals

    @property
    def my_cards(self) -> tuple[Card, ...]:
        return tuple(c for c in self._hand.hands[self.seat] if c is not None)

    @property
    def rules(self) -> NeufRules:
        return self._hand.rules

    @property
    def phase(self) -> Phase:
        return self._hand.phase

    @property
    def trump(self) -> Trump:
        return self._hand.trump

    @property
    def number(self) -> int:
        return self._hand.number

    @property
    def dealer(self) -> int:
        return self._hand.dealer

    @property
    def to_act(self) -> int | None:
        return self._hand.to_act

    @property
    def leader(self) -> int:
        """The seat that leads (or led) the trick in progress."""
        return self._hand.leader

    @property
    def current(self) -> tuple[tuple[int, Card], ...]:
        """The cards of the trick in progress, in order of play."""
        return tuple(self._hand.current)

    @property
    def led_suit(self) -> str | None:
        return self._hand.led_suit

    @property
    def tricks(self) -> tuple[Trick, ...]:
        return tuple(self._hand.tricks)

    @property
    def won(self) -> tuple[int, ...]:
        return tuple(self._hand.won)

    @property
    def exchanges(self) -> tuple[ExchangeRecord, ...]:
        return tuple(self._hand.exchanges)

    @property
    def players(self) -> int:
        return PLAYERS

    def next_seat(self, seat: int, steps: int = 1) -> int:
        return next_seat(seat, steps)

    def count(self, seat: int) -> int:
        return len(self._hand.hands[seat])

    def played(self) -> list[Card]:
        """Every card played so far in this hand, in order."""
        return self._hand.played()

    def shown_void(self, seat: int) -> frozenset[str]:
        """The suits ``seat`` has failed to follow this hand (public)."""
        return frozenset(self._hand.shown_void(seat))

    def _knowledge(self) -> list[bool]:
        """Per holder (seats 0-2, then the dummy): does this seat know those cards?"""
        known = [s == self.seat for s in range(PLAYERS)] + [False]
        for e in self._hand.events:
            if isinstance(e, Look) and e.seat == self.seat:
                known[PLAYERS] = True
            elif isinstance(e, Exchange):
                known[e.seat], known[PLAYERS] = known[PLAYERS], known[e.seat]
            known[self.seat] = True  # a seat always knows its own hand, even one taken unseen
        return known

    def known_cards(self, seat: int) -> tuple[Card, ...] | None:
        """The cards ``seat`` holds now if this seat knows them, else None."""
        if seat == self.seat:
            return self.my_cards
        if not self._knowledge()[seat]:
            return None
        cards = self._hand.hands[seat]
        return None if None in cards else tuple(cards)  # type: ignore[arg-type]

    @property
    def dummy_cards(self) -> tuple[Card, ...] | None:
        """The dummy's cards if this seat knows them (it looked, or its old hand lies there)."""
        if not self._knowledge()[PLAYERS]:
            return None
        cards = self._hand.dummy
        return None if None in cards else tuple(cards)  # type: ignore[arg-type]

    @property
    def events(self) -> tuple[Action, ...]:
        """Public history of the hand: the cards another seat saw or took are hidden."""
        out: list[Action] = []
        for e in self._hand.events:
            if isinstance(e, Look) and e.seat != self.seat and e.cards is not None:
                e = Look(seat=e.seat)
            elif isinstance(e, Exchange) and e.seat != self.seat and e.cards is not None:
                e = Exchange(seat=e.seat)
            out.append(e)
        return tuple(out)


__all__ = [
    "HAND_SIZE",
    "PAR",
    "PLAYERS",
    "POWER",
    "TRUMPS_HEARTS_FIRST",
    "TRUMPS_SPADES_FIRST",
    "Action",
    "Decline",
    "Exchange",
    "ExchangeRecord",
    "HandReplay",
    "HandResult",
    "HandState",
    "Look",
    "Match",
    "NeufRules",
    "NeufView",
    "Phase",
    "PlayCard",
    "Problem",
    "Revoke",
    "Trick",
    "Trump",
    "cut_highest",
    "dealer_from_cut",
    "next_seat",
    "replay_hand",
    "trick_winner",
]


# ---------------------------------------------------------------------------
# The game's entry in the registry (p2pcards.games.base)


class NeufGame:
    """Le Neuf as :class:`p2pcards.games.base.Game` sees it."""

    name = "neuf"
    title = "Le Neuf"
    min_players = PLAYERS
    max_players = PLAYERS
    hand_points = "sim_pts_hand"
    parts = Parts(
        table="p2pcards.games.neuf.adapter:NeufTable",
        screen="p2pcards.games.neuf.screen:NeufScreen",
        record="p2pcards.games.neuf.record:build_neuf_record",
        replay="p2pcards.games.neuf.replay",
        bots="p2pcards.games.neuf.bots:BOTS",
        expert="p2pcards.games.neuf.expert:make_expert",
        card_order="p2pcards.games.neuf.render:card_order",
        words="p2pcards.games.neuf.words:WORDS",
    )

    def ahead(self, totals: Sequence[int]) -> tuple[int, ...]:
        """The lowest total leads (the winners of a match that ends on these totals)."""
        low = min(totals)
        return tuple(s for s, t in enumerate(totals) if t == low)

    def parse_rules(self, specs: Iterable[str]) -> NeufRules:
        return NeufRules.parse(specs)

    def describe_rules(self, rules: NeufRules, say: Say = RULES_ENGLISH) -> list[str]:
        """Every option in words, one sentence each (the audit's checklist), in ``say``'s language."""
        rotation = ", ".join(say(f"rules_neuf_{t or 'none'}") for t in rules.trumps)
        if len(rules.trumps) == 1:
            trumps = say("rules_neuf_trumps_fixed", suits=rotation)
        else:
            trumps = say("rules_neuf_trumps_rotate", suits=rotation)
        exchange = say("rules_neuf_open" if rules.exchange == "open" else "rules_neuf_blind")
        return [say("rules_neuf", start=rules.start), trumps, say("rules_neuf_exchange", exchange=exchange)]

    def rules_from_dict(self, data: Mapping[str, object]) -> NeufRules:
        return NeufRules.from_dict(data)

    def deck_copies(self, rules: NeufRules) -> int:
        return 1

    def cut_keeps(self, shown: Mapping[int, Card]) -> list[int]:
        return cut_highest(shown)

    def new_match(self, rules: NeufRules, players: int, dealer: int) -> Match:
        if players != PLAYERS:
            raise UsageError(f"Le Neuf is for exactly {PLAYERS} players, not {players}")
        return Match(rules=rules, dealer=dealer)

    def view(self, hand: HandState, seat: int, totals: Sequence[int]) -> NeufView:
        return NeufView(hand, seat, tuple(totals))

    def restock(self, hand: HandState, shuffler: Shuffler) -> None:
        return None  # every card is dealt at once


GAME: Game[NeufRules, Match, HandState, NeufView, Action] = NeufGame()
"""Le Neuf in the registry of games (:mod:`p2pcards.games.base`), checked against its interface."""
