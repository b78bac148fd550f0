"""Nines: the rules engine, deterministic and replica-friendly.

``docs/rules-nines.md`` is the rule book this engine plays: the rules, every
rule option and every decision the engine takes where the traditional rules
are silent. ``docs/record.md`` describes the record built from its event log.

The engine never draws randomness: the shuffled deck comes in from outside
(``Match.start_hand(deck)``), and so does every recycled stock. It runs with
full information (the local game, the audit) or with hidden cards: a seat's
replica passes ``None`` for every card it cannot see. Hidden cards are tracked
as counts; every rule that can be checked from public information is checked,
and with full information every rule is.

The engine's decisions, in short (the rule book has them in full):

* Dealing is one card at a time from the dealer's left; the next card is the
  up card and the rest is the stock (its top is drawn first).
* After a draw the player always ends the turn explicitly, ``Play`` of the
  drawn card or ``Keep``: other replicas cannot tell whether it was playable.
* Stall: as many ``Keep``/``Pass`` turns in a row as there are playing seats.
  Turns lost to an action card or a double 9 are not turns.
* Action cards act only when played, never as the up card, and not on going
  out; an Ace's forced draws come first and are dropped when nothing is left.
* Draw until playable: a drawn legal card must be played; nothing left: pass.
* Double nines: any two 9s, at the start of a turn; the next seat is skipped.
  Stacking nines: that seat plays one 9 (the skip is cancelled) or
  ``AcceptSkip``. No nine to go out covers two 9s as the last two cards.
* Playoff: the tied seats play one hand, dealt by the first tied seat left of
  the last dealer; it decides the winner only (its penalties never reach the
  totals); a stalled playoff goes to the lowest penalty, and seats still tied
  play again.
* ``legal_actions`` lists each pair of 9s once, lower card first.
* ``Keep`` and ``AcceptSkip`` leave no event: both are implied by the events
  around them. A ``Draw`` may name the card drawn; where the replica knows the
  top of the stock it must be that card, and its ``forced`` flag is the
  engine's to set, never the caller's.

Hidden cards (what a replica checks, and what it cannot):

* A card a seat plays from its hidden cards, draws from a hidden stock or shows
  at the end of the hand may not be one this replica sees anywhere else: in a
  hand (its own included), on the discard pile or in the stock (rules
  ``card-held``, ``draw-top``, ``reveal``). A seat may not play more hidden
  cards than it holds.
* For a hidden hand, "must play" (no draw or pass while holding a legal card),
  "only the drawn card" (beyond the check above) and "a drawn legal card must be
  played" (draw until playable) are checked only by that seat's own replica and
  by the full-information audit. Everything about the cards it shows (suit or
  rank, declared suit, no 9 as the last card) every replica checks.
* ``needs_recycle()`` on a replica that cannot see the acting seat's hand says
  "may be needed": only that seat knows whether it must draw. The recycle is
  therefore started by the seat's announced draw (the stock is recycled at the
  moment a draw finds it empty), and the audit rejects a recycle for a seat
  that held a legal card.
* Rule options are type-checked (``True`` is not a target, ``"yes"`` is not a
  yes), since they also arrive from other nodes' records.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from enum import Enum
from operator import countOf
from typing import Any, Literal

from p2pcards.cards import ALL_CARDS, CARDS_PER_DECK, NINES, PENALTIES, RANK_OF, SUIT_OF, SUITS, Card
from p2pcards.errors import RuleOptionError, UsageError
from p2pcards.games.base import Game, Parts, Shuffler
from p2pcards.games.rule_words import ENGLISH as RULES_ENGLISH
from p2pcards.games.rule_words import illegal, rule_error, where_seen
from p2pcards.say import Say

# ---------------------------------------------------------------------------
# Rule options

TieRule = Literal["share", "playoff"]

MAX_TARGET = 1000
"""The highest target a match may set (ten times the main rules' 100)."""
MAX_HANDS = 100
"""The most hands a fixed-length match may set."""


def _word(option: str) -> str:
    """A rule option's name as typed: ``no-nine-out`` for ``no_nine_out``."""
    return option.replace("_", "-")


@dataclass(frozen=True, slots=True, kw_only=True)
class NinesRules:
    """Every rule option of Nines; the defaults are the main profile."""

    target: int = 100
    """The match ends when a total reaches this (ignored when ``hands`` is set)."""
    hands: int | None = None
    """Fixed-length match: play exactly this many hands (e.g. 5, 7, 10)."""
    tie: TieRule = "share"
    """``share``: tied lowest totals share the win; ``playoff``: one extra hand."""
    draw_until_playable: bool = False
    action_cards: bool = False
    """Jack skips, Queen reverses (a skip with two players), Ace: next draws two."""
    double_nines: bool = False
    """Two decks (104 cards); two 9s played together change suit and skip."""
    stacking_nines: bool = False
    """A player about to be skipped by a double 9 may cancel it with a 9."""
    hard_nines: bool = False
    """A 9 left in hand costs 25 instead of 15."""
    no_nine_out: bool = False
    """A 9 may not be the last card played."""

    def __post_init__(self) -> None:
        # Records come from other nodes (from_dict): a wrong type is refused, not coerced, and
        # the bounds keep a host from setting a match that never ends.
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "bool" and type(value) is not bool:
                raise rule_error("rule_err_yes_no", name=_word(f.name), value=repr(value))
        for name, value, top in (("target", self.target, MAX_TARGET), ("hands", self.hands, MAX_HANDS)):
            if value is None and name == "hands":
                continue
            if type(value) is not int:
                raise rule_error("rule_err_whole", name=name, value=repr(value))
            if not 1 <= value <= top:
                raise rule_error("rule_err_range", name=name, lo=1, hi=top, value=value)
        if self.tie not in ("share", "playoff"):
            raise rule_error("rule_err_tie", value=repr(self.tie))
        if self.stacking_nines and not self.double_nines:
            raise rule_error("rule_err_stacking")

    @property
    def deck_size(self) -> int:
        return 2 * CARDS_PER_DECK if self.double_nines else CARDS_PER_DECK

    @property
    def nine_penalty(self) -> int:
        return 25 if self.hard_nines else 15

    def to_dict(self) -> dict[str, object]:
        """Every option by name (the ``rules`` object of the record, ``docs/record.md``)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> NinesRules:
        names = {f.name for f in fields(cls)}
        unknown = set(data) - names
        if unknown:
            raise rule_error("rule_err_unknown_options", names=", ".join(sorted(unknown)))
        try:
            return cls(**data)  # type: ignore[arg-type]
        except TypeError as e:
            raise RuleOptionError(str(e)) from None

    @classmethod
    def parse(cls, specs: Iterable[str]) -> NinesRules:
        """Build from CLI words: ``hard-nines``, ``target=150``, ``tie=playoff``."""
        values: dict[str, object] = {}
        types = {f.name: f.type for f in fields(cls)}
        for spec in specs:
            name, eq, raw = spec.partition("=")
            key = name.strip().lower().replace("-", "_")
            if key not in types:
                known = ", ".join(_word(n) for n in types)
                raise rule_error("rule_err_unknown", name=repr(name), known=known)
            kind = str(types[key])
            if "bool" in kind:
                if not eq or raw.lower() in ("1", "yes", "true", "on"):
                    values[key] = True
                elif raw.lower() in ("0", "no", "false", "off"):
                    values[key] = False
                else:
                    raise rule_error("rule_err_yes_no", name=name, value=repr(raw))
            elif "int" in kind:
                if not eq:
                    raise rule_error("rule_err_needs_value", name=name, example=f"{name}=100")
                if raw.lower() in ("none", "") and "None" in kind:
                    values[key] = None
                    continue
                try:
                    values[key] = int(raw)
                except ValueError:
                    raise rule_error("rule_err_whole", name=name, value=repr(raw)) from None
            else:
                if not eq:
                    raise rule_error("rule_err_needs_value", name=name, example="tie=playoff")
                values[key] = raw.lower()
        return cls(**values)  # type: ignore[arg-type]


def hand_size(players: int) -> int:
    """7 cards each with 2-4 players, 5 with 5-6."""
    return 7 if players <= 4 else 5


# ---------------------------------------------------------------------------
# Actions (what a seat, or the table for a recycle, does)


@dataclass(frozen=True, slots=True, kw_only=True)
class Declare:
    """The dealer names the active suit because the up card is a 9."""

    seat: int
    suit: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Play:
    """Play one card; ``suit`` is the declared suit, required for a 9 only."""

    seat: int
    card: Card
    suit: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayNines:
    """Double nines: two 9s together, declaring ``suit`` and skipping the next player."""

    seat: int
    cards: tuple[Card, Card]
    suit: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Draw:
    """Draw the top of the stock. ``card`` is what the drawer saw (None if hidden).

    ``forced`` is filled in by the engine in its event log (an Ace's draws).
    """

    seat: int
    card: Card | None = None
    forced: bool = False


@dataclass(frozen=True, slots=True, kw_only=True)
class Keep:
    """Keep the drawn card and end the turn."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Pass:
    """Must draw, but the stock is empty and there is nothing to recycle."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class AcceptSkip:
    """Stacking nines: decline to cancel the skip of a double 9."""

    seat: int


@dataclass(frozen=True, slots=True, kw_only=True)
class Recycle:
    """The table rebuilds the stock from the discards under the top card.

    ``stock`` is the new stock, top card first; ``None`` for cards this replica
    cannot see (the order is secret in the networked game).
    """

    stock: tuple[Card | None, ...]


Action = Declare | Play | PlayNines | Draw | Keep | Pass | AcceptSkip | Recycle


class Phase(Enum):
    """Who must act, and how."""

    DECLARE = "declare"  # the dealer declares a suit (up card is a 9)
    TURN = "turn"  # the current player plays, draws or passes
    DRAWN = "drawn"  # the current player drew: play the drawn card or keep it
    FORCED_DRAW = "forced-draw"  # an Ace's victim draws its cards
    STACK = "stack"  # stacking nines: cancel the skip with a 9, or accept it
    RECYCLE = "recycle"  # the table must rebuild the stock before a draw
    OVER = "over"


# ---------------------------------------------------------------------------
# Precomputed tables (legal_actions and apply run millions of times in simulations)

MAX_PLAYERS = 6

_LEGAL: dict[str, tuple[frozenset[Card], ...]] = {
    suit: tuple(
        frozenset(c for c in ALL_CARDS if c in NINES or SUIT_OF[c] == suit or RANK_OF[c] == rank)
        for rank in range(14)  # indexed by the top card's rank, 1..13
    )
    for suit in SUITS
}
"""``_LEGAL[active_suit][top_rank]``: every card (both copies) that may be played."""

_PLAYS: tuple[tuple[tuple[Play, ...], ...], ...] = tuple(
    tuple(
        tuple(Play(seat=s, card=c, suit=x) for x in SUITS) if c in NINES else (Play(seat=s, card=c),)
        for c in ALL_CARDS
    )
    for s in range(MAX_PLAYERS)
)
"""``_PLAYS[seat][card]``: the ways to play ``card`` (a 9 declares one of four suits)."""

_DECK_AND_HIDDEN = {
    size: frozenset([*ALL_CARDS[:size], None]) for size in (CARDS_PER_DECK, 2 * CARDS_PER_DECK)
}
"""Every card of a one- or two-deck game, and None (a card this replica cannot see)."""

_DECLARES = tuple(tuple(Declare(seat=s, suit=x) for x in SUITS) for s in range(MAX_PLAYERS))
_DRAWS = tuple(Draw(seat=s) for s in range(MAX_PLAYERS))
_DRAW_EVENTS = tuple(tuple(Draw(seat=s, card=c) for c in ALL_CARDS) for s in range(MAX_PLAYERS))
"""``_DRAW_EVENTS[seat][card]``: the event of an ordinary draw (a frozen dataclass is slow to build)."""

_DECLARE, _TURN, _DRAWN, _FORCED_DRAW, _STACK, _RECYCLE, _OVER = (
    Phase.DECLARE,
    Phase.TURN,
    Phase.DRAWN,
    Phase.FORCED_DRAW,
    Phase.STACK,
    Phase.RECYCLE,
    Phase.OVER,
)
"""The phases as module names: looking a member up on its enum class costs ten times a
global's, and the engine asks for phases several times a move."""
_ALL_SEATS = {n: tuple(range(n)) for n in range(2, MAX_PLAYERS + 1)}
"""The playing seats of every hand but a playoff's, by table size."""
_SUCCESSORS: dict[tuple[tuple[int, ...], int], dict[int, int]] = {}
"""``HandState._succ`` by (playing seats, direction): built once, shared, never changed."""
_DEAL_ORDERS: dict[tuple[tuple[int, ...], int], tuple[int, ...]] = {}
""":func:`_deal_order` by (playing seats, dealer)."""


def _deal_order(seats: tuple[int, ...], dealer: int) -> tuple[int, ...]:
    """The playing seats from the dealer's left round to the dealer (the order of the deal),
    worked out once for each seating and dealer."""
    order = _DEAL_ORDERS.get((seats, dealer))
    if order is None:
        i, n = seats.index(dealer), len(seats)
        order = _DEAL_ORDERS[seats, dealer] = tuple(seats[(i + k) % n] for k in range(1, n + 1))
    return order


_KEEPS = tuple(Keep(seat=s) for s in range(MAX_PLAYERS))
_PASSES = tuple(Pass(seat=s) for s in range(MAX_PLAYERS))
_ACCEPTS = tuple(AcceptSkip(seat=s) for s in range(MAX_PLAYERS))


# ---------------------------------------------------------------------------
# One hand


class HandState:
    """One hand in progress. Mutable for speed; ``apply`` is all-or-nothing.

    ``apply`` validates an action completely before changing anything, so an
    illegal action raises :class:`IllegalAction` and leaves the state as it was.
    """

    __slots__ = (
        "_forced_left",
        "_full_info",
        "_nine_rules",
        "_succ",
        "active_suit",
        "dealer",
        "dealt",
        "direction",
        "discards",
        "end",
        "events",
        "hands",
        "initial_stock",
        "out",
        "phase",
        "players",
        "quiet_turns",
        "rules",
        "seats",
        "stock",
        "turn",
        "up_card",
    )

    def __init__(
        self,
        rules: NinesRules,
        players: int,
        dealer: int,
        deck: Sequence[Card | None],
        seats: Sequence[int] | None = None,
    ) -> None:
        """Deal ``deck`` (top card first). ``seats`` limits play to some seats (playoff)."""
        self.rules = rules
        self.players = players
        if type(players) is not int or not 2 <= players <= MAX_PLAYERS:
            raise UsageError(f"Nines is for 2 to {MAX_PLAYERS} players, not {players}")
        if seats is None:
            self.seats: tuple[int, ...] = _ALL_SEATS[players]  # every seat plays: valid as built
        else:
            self.seats = tuple(seats)
            if (
                len(self.seats) < 2
                or len(set(self.seats)) != len(self.seats)
                or not all(type(s) is int and 0 <= s < players for s in self.seats)
            ):
                raise UsageError(f"not a valid set of playing seats: {self.seats}")
        if dealer not in self.seats:
            raise UsageError(f"dealer {dealer} is not playing this hand")
        deck_size = rules.deck_size
        if len(deck) != deck_size:
            raise UsageError(f"deck has {len(deck)} cards, these rules need {deck_size}")
        # One set serves every check (a simulation deals a deck every hand): no card
        # twice, every card of this deck, and each one a Card (5.0 == 5, True == 1).
        cards = set(deck)
        hidden = None in cards
        if (
            len(cards) != (len(deck) - deck.count(None) + 1 if hidden else len(deck))
            or not cards <= _DECK_AND_HIDDEN[deck_size]
            or countOf(map(type, cards), Card) != len(cards) - hidden
        ):
            raise UsageError("deck holds a card twice, a non-card or a card of the wrong deck")
        self._full_info = not hidden  # no card hidden from this replica (local game, simulation, audit)
        self._nine_rules = rules.no_nine_out or rules.double_nines  # a turn's plays need _nine_variants
        self.dealer = dealer
        self.turn_direction(1)
        order = _deal_order(self.seats, dealer)
        n = len(order)
        pos = hand_size(n) * n
        cards_in_order = deck if type(deck) is list else list(deck)  # slices of a list are lists
        # One card at a time from the dealer's left: the k-th seat in order gets
        # deck positions k, k + n, k + 2n, ...
        hands: list[list[Card | None]] = [[] for _ in range(players)]
        dealt: list[list[Card | None]] = [[] for _ in range(players)]
        for k, s in enumerate(order):
            hands[s] = cards_in_order[k:pos:n]
            dealt[s] = cards_in_order[k:pos:n]
        self.hands = hands
        self.dealt = dealt
        up = deck[pos]
        if up is None:
            raise UsageError("the up card is face up: every replica must know it")
        self.up_card: Card = up
        self.discards: list[Card] = [up]
        rest = cards_in_order[:pos:-1]  # the stock, stored bottom..top so that pop() draws the top
        self.stock: list[Card | None] = rest
        self.initial_stock: tuple[Card | None, ...] = tuple(cards_in_order[pos + 1 :])
        self.active_suit: str = SUIT_OF[up]
        self.turn = order[0]
        self.quiet_turns = 0
        self._forced_left = 0
        self.events: list[Action] = []
        self.end: str | None = None
        self.out: int | None = None
        if up in NINES:
            self.phase = _DECLARE
            self.turn = dealer
        else:
            self.phase = _TURN

    # -- public read-only helpers ------------------------------------------

    @property
    def top(self) -> Card:
        return self.discards[-1]

    @property
    def stock_size(self) -> int:
        return len(self.stock)

    @property
    def to_act(self) -> int | None:
        """The seat that must act next, or None when the table acts (recycle) or over."""
        if self.phase is _RECYCLE or self.phase is _OVER:
            return None
        return self.turn

    def decision(self) -> tuple[int, list[Action]] | None:
        """The seat to act and its :meth:`legal_actions`; None when the table acts first
        (:meth:`needs_recycle`) or the hand is over. The three questions the engine's own
        loop asks before every move, in one call."""
        ph = self.phase
        if ph is _OVER or ph is _RECYCLE or (not self.stock and self.needs_recycle()):
            return None
        return self.turn, self.legal_actions()

    def counts(self) -> list[int]:
        return [len(h) for h in self.hands]

    def is_legal_card(self, card: Card) -> bool:
        """Matches the active suit or the top card's rank, or is a 9."""
        return card in _LEGAL[self.active_suit][RANK_OF[self.discards[-1]]]

    def next_seat(self, seat: int, steps: int = 1) -> int:
        """The seat ``steps`` turns after ``seat`` in the current direction."""
        if steps == 1:
            nxt = self._succ.get(seat)
            if nxt is not None:
                return nxt
        seats = self.seats
        i = seats.index(seat)
        return seats[(i + steps * self.direction) % len(seats)]

    def turn_direction(self, direction: int) -> None:
        """Set the order of play (1 or -1) and each playing seat's next seat in it (asked on
        every turn).

        One table per seating and direction serves every hand (a simulation deals
        thousands): the hands share it, so it is replaced, never changed in place."""
        self.direction = direction
        key = (self.seats, direction)
        succ = _SUCCESSORS.get(key)
        if succ is None:
            seats, n = self.seats, len(self.seats)
            succ = _SUCCESSORS[key] = {s: seats[(i + direction) % n] for i, s in enumerate(seats)}
        self._succ = succ

    def _seats_from(self, dealer: int) -> list[int]:
        """Playing seats in turn order, starting left of ``dealer``."""
        return [self.next_seat(dealer, k) for k in range(1, len(self.seats) + 1)]

    def where_visible(self, card: Card) -> str | None:
        """Where this replica sees ``card`` (a hand, the discards, the stock), or None.

        A card a replica can see somewhere cannot also be hidden in another
        seat's hand: this is how a replica catches a peer playing a card it
        cannot hold.
        """
        for s, hand in enumerate(self.hands):
            if card in hand:
                return where_seen("illegal_in_hand", seat=s)
        if card in self.discards:
            return where_seen("illegal_in_discards")
        if card in self.stock:
            return where_seen("illegal_in_stock")
        return None

    # -- legal actions ------------------------------------------------------

    def legal_actions(self) -> list[Action]:
        """Every legal action of the seat to act. Needs that seat's hand to be known.

        When :meth:`needs_recycle` is true the table acts first; the seat's
        ``Draw`` listed here becomes applicable once the stock is rebuilt.
        """
        ph = self.phase
        seat = self.turn
        if ph is _TURN:  # nearly every call: kept short
            hand = self.hands[seat]
            if not self._full_info and None in hand:
                self._known_hand(seat)
            legal = _LEGAL[self.active_suit][RANK_OF[self.discards[-1]]]
            plays = _PLAYS[seat]
            acts: list[Action] = []
            for c in hand:
                if c in legal:
                    acts += plays[c]
            if self._nine_rules:
                acts = self._nine_variants(seat, hand, acts)  # type: ignore[arg-type]
            if not acts:
                acts.append(_DRAWS[seat] if self.stock or len(self.discards) > 1 else _PASSES[seat])
            return acts
        if ph is _DRAWN:  # the next most common: after every draw
            hand = self.hands[seat] if self._full_info else self._known_hand(seat)  # type: ignore[assignment]
            drawn = hand[-1]
            rules = self.rules
            if drawn in _LEGAL[self.active_suit][RANK_OF[self.discards[-1]]] and (
                not rules.no_nine_out or len(hand) > 1 or drawn not in NINES  # _may_play, inline
            ):
                acts = list(_PLAYS[seat][drawn])
            else:
                acts = []
            if not rules.draw_until_playable:
                acts.append(_KEEPS[seat])
            elif not acts:
                acts.append(self._draw_or_pass(seat))
            return acts
        if ph is _OVER or ph is _RECYCLE:
            return []
        if ph is _DECLARE:
            return list(_DECLARES[seat])
        if ph is _FORCED_DRAW:
            return [_DRAWS[seat]]
        # _STACK
        hand = self.hands[seat] if self._full_info else self._known_hand(seat)  # type: ignore[assignment]
        acts = []
        for c in hand:
            if c in NINES and self._may_play(seat, (c,)):
                acts.extend(_PLAYS[seat][c])
        acts.append(_ACCEPTS[seat])
        return acts

    def _nine_variants(self, seat: int, hand: list[Card], acts: list[Action]) -> list[Action]:
        """``acts`` (the single plays of a turn) as the nine rules amend them: no nine to go
        out, and the pairs of a double 9. Out of :meth:`legal_actions` since most tables
        play neither."""
        rules = self.rules
        if rules.no_nine_out and len(hand) == 1 and hand[0] in NINES:
            acts = []  # a lone 9 may not be played: the seat must draw
        if rules.double_nines:
            nines = sorted(c for c in hand if c in NINES)
            if len(nines) >= 2 and not (rules.no_nine_out and len(hand) == 2):
                for i, a in enumerate(nines):
                    for b in nines[i + 1 :]:
                        acts.extend(PlayNines(seat=seat, cards=(a, b), suit=s) for s in SUITS)
        return acts

    def _known_hand(self, seat: int) -> list[Card]:
        hand = self.hands[seat]
        if None in hand:
            raise UsageError(f"seat {seat}'s hand is hidden from this replica")
        return hand  # type: ignore[return-value]

    def _draw_or_pass(self, seat: int) -> Action:
        if self.stock or len(self.discards) > 1:
            return _DRAWS[seat]
        return _PASSES[seat]

    def _may_play(self, seat: int, cards: tuple[Card, ...]) -> bool:
        """False only when 'no nine to go out' forbids ending on these 9s."""
        if not self.rules.no_nine_out:
            return True
        if len(self.hands[seat]) > len(cards):
            return True
        return not all(c in NINES for c in cards)

    def _playable_card(self, seat: int) -> Card | None:
        """A card of ``seat``'s (known) hand that it may play now, if any."""
        legal = _LEGAL[self.active_suit][RANK_OF[self.discards[-1]]]
        for c in self.hands[seat]:
            if c in legal and self._may_play(seat, (c,)):
                return c
        return None

    # -- applying -----------------------------------------------------------

    def apply(self, action: Action) -> None:
        """Check ``action`` against every rule this replica can check, then apply it."""
        ph = self.phase
        if ph is _OVER:
            raise illegal(getattr(action, "seat", None), "hand-over", "illegal_hand_over")
        handler = _HANDLERS.get(type(action))
        if handler is None:
            raise UsageError(f"not a Nines action: {action!r}")
        if type(action) is not Recycle:
            seat = action.seat  # type: ignore[union-attr]  # every action but Recycle has a seat
            if ph is _RECYCLE:
                raise illegal(seat, "recycle", "illegal_rebuild_first")
            if seat != self.turn:
                raise illegal(seat, "turn-order", "illegal_turn", turn=self.turn, seat=seat)
        handler(self, action, True)

    def apply_legal(self, action: Action) -> None:
        """Apply ``action``, one of :meth:`legal_actions` of this very state, without
        checking it again.

        The engine's own loop and rollouts take their moves from ``legal_actions``,
        so the checks of :meth:`apply` could only pass; skipping them is most of a
        move's cost. The state changes are :meth:`apply`'s own code (every handler
        runs its checks only when asked to), so both paths play the same rules;
        an action from anywhere else (a peer, a person) goes through :meth:`apply`.
        """
        _HANDLERS[type(action)](self, action, False)

    def play_out(self, pick: Callable[[list[Action]], Action], shuffler: Shuffler) -> None:
        """Play the hand to its end: every move ``pick(legal_actions())``, applied by the
        trusted path, and every stock a draw finds empty rebuilt from ``shuffler``.

        The match loop's hand when no strategy needs a view (random bots: most of a
        simulation's time). The same moves as the loop's ``decision`` and ``apply_legal``
        make, in three calls a move instead of five; ``pick`` must return one of the
        actions it is given."""
        legal_actions, handlers = self.legal_actions, _HANDLERS
        while True:
            ph = self.phase
            if ph is _OVER:
                return
            if ph is _RECYCLE or (not self.stock and self.needs_recycle()):
                self.apply(Recycle(stock=shuffler.recycle(self.discards[:-1])))
                continue
            action = pick(legal_actions())
            handlers[type(action)](self, action, False)

    def _apply_declare(self, a: Declare, check: bool) -> None:
        if check:
            if self.phase is not _DECLARE:
                raise illegal(a.seat, "declare", "illegal_declare_not_nine")
            _check_suit(a.seat, a.suit)
        self.active_suit = a.suit
        self.events.append(a)
        self.phase = _TURN
        self.turn = self.next_seat(self.dealer)

    def _check_cards(self, seat: int, cards: Sequence[object], rule: str = "card-held") -> None:
        """Every card is a card of this hand's deck."""
        size = self.rules.deck_size
        for c in cards:
            if type(c) is not Card or c >= size:
                raise illegal(seat, rule, "illegal_not_a_card", thing=repr(c))

    def _check_held(self, seat: int, cards: Sequence[Card]) -> None:
        """``seat`` holds ``cards``, as far as this replica can tell.

        A card not seen in the hand must stand for one of its hidden cards, and
        then it may not be visible anywhere else.
        """
        hand = self.hands[seat]
        missing = [c for c in cards if c not in hand]
        if not missing:
            return
        if len(missing) > hand.count(None):
            names = ", ".join(str(c) for c in missing)
            raise illegal(seat, "card-held", "illegal_not_held", cards=names)
        for c in missing:
            where = self.where_visible(c)
            if where is not None:
                raise illegal(seat, "card-held", "illegal_seen_elsewhere", card=c, place=where)

    def _remove(self, seat: int, card: Card) -> None:
        hand = self.hands[seat]
        if card in hand:
            hand.remove(card)
        else:
            hand.remove(None)

    def _apply_play(self, a: Play, check: bool) -> None:
        seat, card, ph = a.seat, a.card, self.phase
        hand = self.hands[seat]
        if check:
            self._check_play(a, hand)
        rules = self.rules
        # Under draw-until-playable a drawn legal card must be played: playing it plays
        # nothing from the hand, and a round of such turns could pass the same few
        # cards round the table for ever (stock, play, recycle, ...). It counts
        # towards the stall like a kept card.
        forced_play = False
        if ph is _DRAWN:
            hand.pop()  # the drawn card is always the last one
            forced_play = rules.draw_until_playable
        else:
            try:
                hand.remove(card)
            except ValueError:
                hand.remove(None)  # one of the cards this replica cannot see
        self.discards.append(card)
        self.active_suit = a.suit if card in NINES else SUIT_OF[card]  # type: ignore[assignment]
        self.events.append(a)
        if not forced_play:
            self.quiet_turns = 0
        if not hand:
            self._finish("out", seat)
            return
        if rules.action_cards:
            self._after_play(seat, card)
        else:  # what _after_play does without action cards, saving a call on most moves
            self.phase = _TURN
            self.turn = self._succ[seat]
        if forced_play:
            self.quiet_turns += 1  # the turn passed as the card's play said; only the count grows
            if self.quiet_turns >= len(self.seats):
                self._finish("stall", None)

    def _check_play(self, a: Play, hand: list[Card | None]) -> None:
        """Every rule of :meth:`_apply_play` this replica can check (the checked path only)."""
        seat, card, ph = a.seat, a.card, self.phase
        self._check_cards(seat, (card,))
        is_nine = card in NINES
        if ph is _DRAWN:
            drawn = hand[-1]
            if card != drawn and (drawn is not None or card in hand):
                raise illegal(seat, "play-drawn", "illegal_only_drawn", card=card)
        elif ph is _STACK:
            if not is_nine:
                raise illegal(seat, "stacking-nines", "illegal_only_nine_cancels")
        elif ph is not _TURN:
            raise illegal(seat, "phase", "illegal_play_phase", phase=ph.value)
        self._check_held(seat, (card,))
        if not is_nine and card not in _LEGAL[self.active_suit][RANK_OF[self.discards[-1]]]:
            raise illegal(
                seat,
                "match-suit-or-rank",
                "illegal_no_match",
                card=card,
                suit=self.active_suit,
                top=self.top,
            )
        if is_nine:
            _check_suit(seat, a.suit)
        elif a.suit is not None:
            raise illegal(seat, "declare", "illegal_only_nine_declares")
        if not self._may_play(seat, (card,)):
            raise illegal(seat, "no-nine-out", "illegal_nine_last")

    def _apply_play_nines(self, a: PlayNines, check: bool) -> None:
        seat, cards = a.seat, a.cards
        if check:
            if not self.rules.double_nines:
                raise illegal(seat, "double-nines", "illegal_double_needs_rule")
            if self.phase is not _TURN:
                raise illegal(seat, "phase", "illegal_double_phase", phase=self.phase.value)
            if not isinstance(cards, tuple | list) or len(cards) != 2:
                raise illegal(seat, "double-nines", "illegal_double_two_nines")
            self._check_cards(seat, cards)
            if not (cards[0] in NINES and cards[1] in NINES):
                raise illegal(seat, "double-nines", "illegal_double_two_nines")
            if cards[0] == cards[1]:
                raise illegal(seat, "card-held", "illegal_same_twice", card=cards[0])
            self._check_held(seat, cards)
            _check_suit(seat, a.suit)
            if not self._may_play(seat, cards):
                raise illegal(seat, "no-nine-out", "illegal_nines_last")
        for c in cards:
            self._remove(seat, c)
            self.discards.append(c)
        self.active_suit = a.suit
        self.events.append(a)
        self.quiet_turns = 0
        if not self.hands[seat]:
            self._finish("out", seat)
            return
        victim = self.next_seat(seat)
        if self.rules.stacking_nines:
            self.turn = victim
            self.phase = _STACK
        else:
            self.turn = self.next_seat(seat, 2)
            self.phase = _TURN

    def _after_play(self, seat: int, card: Card) -> None:
        """Pass the turn, applying an action card's power when that variant is on."""
        self.phase = _TURN
        if self.rules.action_cards:
            r = RANK_OF[card]
            if r == 11:  # Jack: skip
                self.turn = self.next_seat(seat, 2)
                return
            if r == 12:  # Queen: reverse (a skip with two players)
                if len(self.seats) == 2:
                    self.turn = seat
                else:
                    self.turn_direction(-self.direction)
                    self.turn = self.next_seat(seat)
                return
            if r == 1:  # Ace: the next player draws two and loses the turn
                self.turn = self.next_seat(seat)
                self._forced_left = 2
                self._begin_forced_draw()
                return
        self.turn = self._succ[seat]

    def _begin_forced_draw(self) -> None:
        if self._forced_left <= 0:
            self._end_forced()
        elif self.stock:
            self.phase = _FORCED_DRAW
        elif len(self.discards) > 1:
            self.phase = _RECYCLE
        else:
            self._end_forced()

    def _end_forced(self) -> None:
        self._forced_left = 0
        self.phase = _TURN
        self.turn = self.next_seat(self.turn)

    def _apply_draw(self, a: Draw, check: bool) -> None:
        seat = a.seat
        forced = self.phase is _FORCED_DRAW
        hand = self.hands[seat]
        got = self.stock.pop() if not check else self._draw_checked(a, hand, forced)
        hand.append(got)
        if got is None or forced:
            self.events.append(Draw(seat=seat, card=got, forced=forced))
        else:
            self.events.append(_DRAW_EVENTS[seat][got])
        if forced:
            self._forced_left -= 1
            self._begin_forced_draw()
            return
        self.phase = _DRAWN

    def _draw_checked(self, a: Draw, hand: list[Card | None], forced: bool) -> Card | None:
        """The checked path's draw: every rule this replica can check, then the top of the
        stock taken off; returns the card drawn (the one ``a`` names where this replica
        cannot see the top). Nothing changes unless every check passes."""
        seat, ph = a.seat, self.phase
        if ph is _TURN:
            if None not in hand:
                c = self._playable_card(seat)
                if c is not None:
                    raise illegal(seat, "must-play", "illegal_draw_holding", card=c)
        elif ph is _DRAWN:
            if not self.rules.draw_until_playable:
                raise illegal(seat, "draw-once", "illegal_draw_twice")
            drawn = hand[-1]
            if drawn is not None and self.is_legal_card(drawn) and self._may_play(seat, (drawn,)):
                raise illegal(seat, "draw-until-playable", "illegal_play_the_drawn", card=drawn)
        elif not forced:
            raise illegal(seat, "phase", "illegal_draw_phase", phase=ph.value)
        if not self.stock:
            if len(self.discards) > 1:
                raise illegal(seat, "recycle", "illegal_recycle_first")
            raise illegal(seat, "pass", "illegal_must_pass")
        top = self.stock[-1]
        got = a.card
        if got is None:
            got = top
        else:
            self._check_cards(seat, (got,))
            if top is not None and got != top:
                raise illegal(seat, "draw-top", "illegal_not_top", card=got, top=top)
            if top is None:
                where = self.where_visible(got)
                if where is not None:
                    raise illegal(seat, "draw-top", "illegal_drew_seen", card=got, place=where)
        self.stock.pop()
        return got

    def _apply_keep(self, a: Keep, check: bool) -> None:
        seat = a.seat
        if check:
            if self.phase is not _DRAWN:
                raise illegal(seat, "phase", "illegal_keep_not_drawn")
            if self.rules.draw_until_playable:
                raise illegal(seat, "draw-until-playable", "illegal_keep_until_playable")
        self._quiet_turn_ends(seat)

    def _apply_pass(self, a: Pass, check: bool) -> None:
        seat, ph = a.seat, self.phase
        if check:
            if ph is _TURN:
                if None not in self.hands[seat]:
                    c = self._playable_card(seat)
                    if c is not None:
                        raise illegal(seat, "must-play", "illegal_pass_holding", card=c)
            elif ph is _DRAWN and self.rules.draw_until_playable:
                drawn = self.hands[seat][-1]
                if drawn is not None and self.is_legal_card(drawn) and self._may_play(seat, (drawn,)):
                    raise illegal(seat, "draw-until-playable", "illegal_play_the_drawn", card=drawn)
            else:
                raise illegal(seat, "phase", "illegal_pass_phase", phase=ph.value)
            if self.stock or len(self.discards) > 1:
                raise illegal(seat, "pass", "illegal_pass_can_draw")
        self.events.append(a)
        self._quiet_turn_ends(seat)

    def _apply_accept_skip(self, a: AcceptSkip, check: bool) -> None:
        if check and self.phase is not _STACK:
            raise illegal(a.seat, "phase", "illegal_no_skip")
        self.phase = _TURN
        self.turn = self.next_seat(a.seat)

    def _quiet_turn_ends(self, seat: int) -> None:
        self.quiet_turns += 1
        if self.quiet_turns >= len(self.seats):
            self._finish("stall", None)
            return
        self.phase = _TURN
        self.turn = self._succ[seat]

    def _apply_recycle(self, a: Recycle, check: bool) -> None:
        stock = a.stock
        if check:
            if not self.needs_recycle():
                raise illegal(None, "recycle", "illegal_recycle_not_empty")
            under = self.discards[:-1]
            if not isinstance(stock, tuple | list) or len(stock) != len(under):
                raise illegal(None, "recycle", "illegal_recycle_size", n=len(under))
            known = [c for c in stock if c is not None]
            if not all(type(c) is Card for c in known) or len(set(known)) != len(known):
                raise illegal(None, "recycle", "illegal_recycle_twice")
            stray = set(known).difference(under)
            if stray:
                raise illegal(None, "recycle", "illegal_recycle_stray", card=min(stray))
        self.discards = [self.discards[-1]]
        if None in stock:
            self._full_info = False
        new = list(stock)
        new.reverse()
        self.stock = new
        self.events.append(a)
        if self.phase is _RECYCLE:
            self.phase = _FORCED_DRAW if self._forced_left else _TURN

    def needs_recycle(self) -> bool:
        """True when the stock must be rebuilt now: the seat to act must draw from an
        empty stock and there are discards under the top card.

        A replica that cannot see that seat's hand cannot tell whether it must
        draw and answers True ("may be needed"); only the seat's own replica and
        the full-information audit know, so the recycle is the acting seat's
        claim to make, and the audit checks it."""
        if self.phase is _RECYCLE:
            return True
        if self.stock or len(self.discards) <= 1:
            return False
        seat = self.turn
        hand = self.hands[seat]
        if self.phase is _TURN:
            return None in hand or self._playable_card(seat) is None
        if self.phase is _DRAWN and self.rules.draw_until_playable:
            drawn = hand[-1]
            return drawn is None or not (self.is_legal_card(drawn) and self._may_play(seat, (drawn,)))
        return False

    def _finish(self, end: str, out: int | None) -> None:
        self.phase = _OVER
        self.end = end
        self.out = out

    # -- end of hand --------------------------------------------------------

    def copy(self) -> HandState:
        """An independent copy, to try an action without touching this hand."""
        trial = copy.copy(self)
        trial.hands = [list(h) for h in self.hands]
        trial.dealt = [list(h) for h in self.dealt]
        trial.stock = list(self.stock)
        trial.discards = list(self.discards)
        trial.events = list(self.events)
        return trial

    def public_copy(self) -> HandState:
        """A copy that knows what every seat knows and no more (no card of any hand): a move
        it refuses is refused by every replica alike, at the same step."""
        trial = self.copy()
        trial.hands = [[None] * len(h) for h in self.hands]
        return trial

    def reveal(self, seat: int, cards: Sequence[Card]) -> None:
        """Replace ``seat``'s hidden cards by the cards it shows at the end of the hand."""
        hand = self.hands[seat]
        if len(cards) != len(hand):
            raise illegal(seat, "reveal", "illegal_reveal_count", n=len(cards), held=len(hand))
        self._check_cards(seat, cards, "reveal")
        if len(set(cards)) != len(cards):
            raise illegal(seat, "reveal", "illegal_reveal_twice")
        pool = list(cards)
        for c in hand:
            if c is not None:
                if c not in pool:
                    raise illegal(seat, "reveal", "illegal_reveal_hides", card=c)
                pool.remove(c)
        for c in pool:
            where = self.where_visible(c)
            if where is not None:
                raise illegal(seat, "reveal", "illegal_reveal_seen", card=c, place=where)
        self.hands[seat] = list(cards)

    def penalties(self) -> list[int]:
        """Each seat's penalty for this hand (0 for who went out and for seats sitting out)."""
        if self.phase is not _OVER:
            raise UsageError("the hand is not over")
        cost = PENALTIES[self.rules.nine_penalty].__getitem__
        out: list[int] = []
        for s, hand in enumerate(self.hands):
            try:
                out.append(0 if s == self.out else sum(map(cost, hand)))  # type: ignore[arg-type]
            except TypeError:  # a card not revealed (None) has no price; cheaper than looking first
                raise UsageError(f"seat {s}'s cards must be revealed before scoring") from None
        return out


# Each handler takes the action of its key's type: the argument's type is the key's.
_HANDLERS: dict[type, Callable[[HandState, Any, bool], None]] = {
    Play: HandState._apply_play,
    Draw: HandState._apply_draw,
    Keep: HandState._apply_keep,
    Pass: HandState._apply_pass,
    Declare: HandState._apply_declare,
    PlayNines: HandState._apply_play_nines,
    AcceptSkip: HandState._apply_accept_skip,
    Recycle: HandState._apply_recycle,
}


def _check_suit(seat: int, suit: object) -> None:
    if not isinstance(suit, str) or len(suit) != 1 or suit not in SUITS:
        raise illegal(seat, "declare", "illegal_declare_suit", thing=repr(suit))


# ---------------------------------------------------------------------------
# The match


def cut_lowest(shown: Mapping[int, Card]) -> list[int]:
    """Seats tied for the lowest cut card (Ace low, suits do not rank)."""
    low = min(c.rank for c in shown.values())
    return sorted(s for s, c in shown.items() if c.rank == low)


@dataclass(frozen=True, slots=True)
class HandResult:
    number: int
    dealer: int
    end: str
    out: int | None
    penalties: tuple[int, ...]
    totals: tuple[int, ...]
    playoff: bool


@dataclass(slots=True)
class Match:
    """A match of Nines: hands, cumulative totals, dealer rotation, match end."""

    rules: NinesRules
    players: int
    dealer: int
    totals: list[int] = field(default_factory=list)
    results: list[HandResult] = field(default_factory=list)
    hand: HandState | None = None
    winners: tuple[int, ...] | None = None
    playoff_seats: tuple[int, ...] | None = None
    history: list[HandState] = field(default_factory=list)
    """Every finished hand, kept for the full-information record."""
    played_before: int = 0
    """Hands scored before this match object took over (a match continued without a
    player who left): they count towards ``hands`` and in the hand numbers."""

    def __post_init__(self) -> None:
        if not 2 <= self.players <= 6:
            raise RuleOptionError("Nines is for 2 to 6 players")
        if not 0 <= self.dealer < self.players:
            raise UsageError(f"no seat {self.dealer}")
        if not self.totals:
            self.totals = [0] * self.players

    @property
    def over(self) -> bool:
        return self.winners is not None

    @property
    def playoff(self) -> bool:
        """Whether the hand being played (or next dealt) is a playoff between tied seats."""
        return self.playoff_seats is not None

    @property
    def hand_number(self) -> int:
        """The number of the current (or next) hand, from 1."""
        return self.played_before + len(self.results) + 1

    def start_hand(self, deck: Sequence[Card | None]) -> HandState:
        """Deal the next hand from ``deck`` (top card first; None where hidden)."""
        if self.over:
            raise UsageError("the match is over")
        if self.hand is not None:
            raise UsageError("a hand is still in progress")
        self.hand = HandState(self.rules, self.players, self.dealer, deck, self.playoff_seats)
        return self.hand

    def close_hand(self) -> HandResult:
        """Score the finished hand, then decide the next dealer or the match end."""
        hand = self.hand
        if hand is None or hand.phase is not _OVER:
            raise UsageError("no finished hand to close")
        pens = hand.penalties()
        playoff = self.playoff_seats is not None
        if not playoff:
            self.totals = [t + p for t, p in zip(self.totals, pens, strict=True)]
        result = HandResult(
            number=self.hand_number,
            dealer=hand.dealer,
            end=hand.end or "stall",
            out=hand.out,
            penalties=tuple(pens),
            totals=tuple(self.totals),
            playoff=playoff,
        )
        self.results.append(result)
        self.history.append(hand)
        self.hand = None
        if playoff:
            seats = self.playoff_seats or ()
            if hand.out is not None:
                self._decide((hand.out,))
            else:
                low = min(pens[s] for s in seats)
                self._decide(tuple(s for s in seats if pens[s] == low))
        elif self._match_ends():
            low = min(self.totals)
            self._decide(tuple(s for s, t in enumerate(self.totals) if t == low))
        else:
            self.dealer = (self.dealer + 1) % self.players
        return result

    def _match_ends(self) -> bool:
        if self.rules.hands is not None:
            return self.played_before + len(self.results) >= self.rules.hands
        return max(self.totals) >= self.rules.target

    def _decide(self, lowest: tuple[int, ...]) -> None:
        if len(lowest) == 1 or self.rules.tie == "share":
            self.winners = lowest
            self.playoff_seats = None
            return
        self.playoff_seats = lowest
        d = self.dealer
        for _ in range(self.players):
            d = (d + 1) % self.players
            if d in lowest:
                break
        self.dealer = d


# ---------------------------------------------------------------------------
# What one seat may see of a hand: the only thing a bot or a UI is given


class SeatView:
    """A read-only window on a hand for ``seat``: public state plus its own cards.

    It never exposes other seats' cards or the stock order, so a strategy built
    on it cannot cheat even when the engine underneath has full information.
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
    def top(self) -> Card:
        return self._hand.top

    @property
    def active_suit(self) -> str:
        return self._hand.active_suit

    @property
    def phase(self) -> Phase:
        return self._hand.phase

    @property
    def stock_size(self) -> int:
        return len(self._hand.stock)

    @property
    def discards(self) -> tuple[Card, ...]:
        return tuple(self._hand.discards)

    @property
    def rules(self) -> NinesRules:
        """The rule options in force (public: every seat agreed to them)."""
        return self._hand.rules

    @property
    def up_card(self) -> Card:
        """The card turned up at the deal (it stays public after recycles)."""
        return self._hand.up_card

    @property
    def seats(self) -> tuple[int, ...]:
        return self._hand.seats

    @property
    def players(self) -> int:
        return self._hand.players

    def count(self, seat: int) -> int:
        return len(self._hand.hands[seat])

    def next_seat(self, seat: int, steps: int = 1) -> int:
        return self._hand.next_seat(seat, steps)

    @property
    def events(self) -> tuple[Action, ...]:
        """Public history of the hand; cards drawn by other seats are hidden."""
        out: list[Action] = []
        for e in self._hand.events:
            if isinstance(e, Draw) and e.seat != self.seat and e.card is not None:
                e = Draw(seat=e.seat, card=None, forced=e.forced)
            elif isinstance(e, Recycle):
                e = Recycle(stock=tuple(None for _ in e.stock))
            out.append(e)
        return tuple(out)


# ---------------------------------------------------------------------------
# The game's entry in the registry (p2pcards.games.base)


class NinesGame:
    """Nines as :class:`p2pcards.games.base.Game` sees it."""

    name = "nines"
    title = "Nines"
    min_players = 2
    max_players = 6
    hand_points = "sim_pen_hand"
    parts = Parts(
        table="p2pcards.games.nines.adapter:NinesTable",
        screen="p2pcards.games.nines.screen:NinesScreen",
        record="p2pcards.games.nines.record:build_record",
        replay="p2pcards.games.nines.replay",
        bots="p2pcards.games.nines.bots:BOTS",
        expert="p2pcards.games.nines.expert:make_expert",
        card_order="p2pcards.games.nines.render:card_order",
        words="p2pcards.games.nines.words:WORDS",
    )

    def ahead(self, totals: Sequence[int]) -> tuple[int, ...]:
        """The lowest total leads (the winners of a match that ends on these totals)."""
        low = min(totals)
        return tuple(s for s, t in enumerate(totals) if t == low)

    def parse_rules(self, specs: Iterable[str]) -> NinesRules:
        return NinesRules.parse(specs)

    def rules_from_dict(self, data: Mapping[str, object]) -> NinesRules:
        return NinesRules.from_dict(data)

    def describe_rules(self, rules: NinesRules, say: Say = RULES_ENGLISH) -> list[str]:
        """Every option in words, one sentence each (the audit's checklist), in ``say``'s language."""
        if rules.hands is not None:
            end = say.n("rules_nines_hands", rules.hands, n=rules.hands)
        else:
            end = say("rules_nines_target", target=rules.target)
        tie = say("rules_nines_tie_share" if rules.tie == "share" else "rules_nines_tie_playoff")
        variants = (
            "draw_until_playable",
            "action_cards",
            "double_nines",
            "stacking_nines",
            "hard_nines",
            "no_nine_out",
        )
        on = [say("rules_nines_" + name) for name in variants if getattr(rules, name)]
        return [
            say("rules_nines", end=end, tie=tie),
            say(
                "rules_nines_variants",
                variants=say("rules_list_sep").join(on) if on else say("rules_nines_no_variant"),
            ),
        ]

    def deck_copies(self, rules: NinesRules) -> int:
        return 2 if rules.double_nines else 1

    def cut_keeps(self, shown: Mapping[int, Card]) -> list[int]:
        return cut_lowest(shown)

    def new_match(self, rules: NinesRules, players: int, dealer: int) -> Match:
        return Match(rules=rules, players=players, dealer=dealer)

    def view(self, hand: HandState, seat: int, totals: Sequence[int]) -> SeatView:
        return SeatView(hand, seat, tuple(totals))

    def restock(self, hand: HandState, shuffler: Shuffler) -> Recycle | None:
        if hand.stock and hand.phase is not _RECYCLE:
            return None  # the answer of needs_recycle on nearly every move, without the call
        if not hand.needs_recycle():
            return None
        return Recycle(stock=shuffler.recycle(hand.discards[:-1]))


GAME: Game[NinesRules, Match, HandState, SeatView, Action] = NinesGame()
"""Nines in the registry of games (:mod:`p2pcards.games.base`), checked against its interface."""
