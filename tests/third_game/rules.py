"""The rules of High Card: pure and deterministic, every move checked."""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from p2pcards.cards import CARDS_PER_DECK, RANK_OF, SUIT_OF, Card
from p2pcards.errors import IllegalAction, RuleOptionError, UsageError
from p2pcards.games.base import Game, Parts, Shuffler
from p2pcards.say import Say

NAME = "highcard"
CARDS_EACH = 2
SUIT_ORDER = ("C", "D", "H", "S")


def strength(card: Card) -> tuple[int, int]:
    """Rank first (Ace high), then suit."""
    rank = RANK_OF[card]  # 1 for the Ace ... 13 for the King
    return 14 if rank == 1 else rank, SUIT_ORDER.index(SUIT_OF[card])


@dataclass(frozen=True, slots=True)
class HighCardRules:
    hands: int = 3

    @property
    def deck_size(self) -> int:
        return CARDS_PER_DECK

    def to_dict(self) -> dict[str, object]:
        return {"hands": self.hands}

    @classmethod
    def from_dict(cls, data: Mapping[str, object]) -> HighCardRules:
        hands = data.get("hands", 3)
        if set(data) - {"hands"} or type(hands) is not int or not 1 <= hands <= 20:
            raise RuleOptionError(f"not High Card rules: {dict(data)!r}")
        return cls(hands=hands)

    @classmethod
    def parse(cls, specs: Iterable[str]) -> HighCardRules:
        hands = 3
        for spec in specs:
            key, _, value = spec.partition("=")
            if key != "hands" or not value.isdigit():
                raise RuleOptionError(f"unknown rule {spec!r}")
            hands = int(value)
        return cls.from_dict({"hands": hands})


@dataclass(frozen=True, slots=True)
class PlayCard:
    seat: int
    card: Card


Action = PlayCard


@dataclass(frozen=True, slots=True)
class HandResult:
    number: int
    winner: int
    points: tuple[int, ...]
    totals: tuple[int, ...]


class HandState:
    """One hand: two cards each (None where this replica cannot see them)."""

    def __init__(self, rules: HighCardRules, players: int, dealer: int, deck: Sequence[Card | None]) -> None:
        self.rules = rules
        self.players = players
        self.dealer = dealer
        self.order = [(dealer + k) % players for k in range(1, players + 1)]
        self.hands: list[list[Card | None]] = [[] for _ in range(players)]
        for k in range(CARDS_EACH * players):
            self.hands[self.order[k % players]].append(deck[k])
        self.dealt = [list(h) for h in self.hands]
        self.events: list[Action] = []

    @property
    def to_act(self) -> int | None:
        return self.order[len(self.events)] if len(self.events) < self.players else None

    @property
    def over(self) -> bool:
        return self.to_act is None

    def legal_actions(self) -> list[Action]:
        seat = self.to_act
        if seat is None:
            return []
        return [PlayCard(seat, c) for c in self.hands[seat] if c is not None]

    def apply(self, action: Action) -> None:
        if not isinstance(action, PlayCard):
            raise IllegalAction(None, "highcard-action", f"{action!r} is not a move of High Card")
        if action.seat != self.to_act:
            raise IllegalAction(action.seat, "highcard-turn", "it is not this seat's turn")
        held = self.hands[action.seat]
        if action.card in held:
            held.remove(action.card)
        elif None in held:  # a card this replica cannot see: the protocol opened it
            held.remove(None)
        else:
            raise IllegalAction(action.seat, "highcard-held", f"{action.card} is not in this seat's hand")
        self.events.append(action)

    def winner(self) -> int:
        best = max(self.events, key=lambda a: strength(a.card))
        return best.seat

    def copy(self) -> HandState:
        return copy.deepcopy(self)

    def public_copy(self) -> HandState:
        trial = self.copy()
        trial.hands = [[None] * len(h) for h in self.hands]
        return trial


@dataclass(slots=True)
class Match:
    rules: HighCardRules
    players: int
    dealer: int
    totals: list[int] = field(default_factory=list)
    results: list[HandResult] = field(default_factory=list)
    history: list[HandState] = field(default_factory=list)
    hand: HandState | None = None
    played_before: int = 0

    def __post_init__(self) -> None:
        if not self.totals:
            self.totals = [0] * self.players

    @property
    def over(self) -> bool:
        return self.played_before + len(self.results) >= self.rules.hands

    @property
    def winners(self) -> tuple[int, ...] | None:
        return GAME.ahead(self.totals) if self.over else None

    @property
    def hand_number(self) -> int:
        return self.played_before + len(self.results) + 1

    @property
    def playoff(self) -> bool:
        return False

    def start_hand(self, deck: Sequence[Card | None]) -> HandState:
        if self.over or self.hand is not None:
            raise UsageError("no hand to start")
        self.hand = HandState(self.rules, self.players, self.dealer, deck)
        return self.hand

    def close_hand(self) -> HandResult:
        hand = self.hand
        if hand is None or not hand.over:
            raise UsageError("the hand is not over")
        winner = hand.winner()
        points = tuple(1 if s == winner else 0 for s in range(self.players))
        self.totals = [t + p for t, p in zip(self.totals, points, strict=True)]
        result = HandResult(self.hand_number, winner, points, tuple(self.totals))
        self.results.append(result)
        self.history.append(hand)
        self.hand = None
        self.dealer = (self.dealer + 1) % self.players
        return result


class SeatView:
    """What one seat sees: its own cards and the cards played so far."""

    __slots__ = ("_hand", "seat", "totals")

    def __init__(self, hand: HandState, seat: int, totals: tuple[int, ...] = ()) -> None:
        self._hand = hand
        self.seat = seat
        self.totals = totals

    @property
    def my_cards(self) -> tuple[Card, ...]:
        return tuple(c for c in self._hand.hands[self.seat] if c is not None)

    @property
    def played(self) -> tuple[Action, ...]:
        return tuple(self._hand.events)


class HighCardGame:
    name = NAME
    title = "High Card"
    min_players = 2
    max_players = 6
    hand_points = "sim_pts_hand"
    parts = Parts(
        table="third_game.adapter:HighCardTable",
        screen="third_game.screen:HighCardScreen",
        record="third_game.record:build_record",
        replay="third_game.replay",
        bots="third_game.bots:BOTS",
        card_order="third_game.replay:card_order",
    )

    def parse_rules(self, specs: Iterable[str]) -> HighCardRules:
        return HighCardRules.parse(specs)

    def rules_from_dict(self, data: Mapping[str, object]) -> HighCardRules:
        return HighCardRules.from_dict(data)

    def describe_rules(self, rules: HighCardRules, say: Say | None = None) -> list[str]:
        return [f"High Card: {rules.hands} hands; the highest card played wins each hand's point."]

    def deck_copies(self, rules: HighCardRules) -> int:
        return 1

    def cut_keeps(self, shown: Mapping[int, Card]) -> list[int]:
        best = max(strength(c) for c in shown.values())
        return sorted(s for s, c in shown.items() if strength(c) == best)

    def ahead(self, totals: Sequence[int]) -> tuple[int, ...]:
        top = max(totals)
        return tuple(s for s, t in enumerate(totals) if t == top)

    def new_match(self, rules: HighCardRules, players: int, dealer: int) -> Match:
        return Match(rules=rules, players=players, dealer=dealer)

    def view(self, hand: HandState, seat: int, totals: Sequence[int]) -> SeatView:
        return SeatView(hand, seat, tuple(totals))

    def restock(self, hand: HandState, shuffler: Shuffler) -> None:
        return None


GAME: Game[HighCardRules, Match, HandState, SeatView, Action] = HighCardGame()

