"""What every game provides, and the one match loop that runs any of them.

A game is a rules engine (its ``HandState`` and ``Match``) plus the few facts
the code around it needs: its name, table sizes, how its rule options are
parsed, how many decks it uses, who stays in after a round of the cut, what a
seat may see, and whether a hand ever needs fresh cards from the shuffler
(Nines' recycled stock). Everything else - the local game, the simulator, the
record - drives a game through :class:`Game` and :func:`play_match`, so adding
a game means adding one module to ``games/`` and one entry to :data:`GAMES`.

The loop plays with full information (local games, simulations). A seat sees
only its :meth:`Game.view`; the shuffler is the only source of card order.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from p2pcards.cards import Card, deck
from p2pcards.errors import UsageError
from p2pcards.say import Say


class Cutter(Protocol):
    """Who shuffles for the cut for the deal (the network's cut needs no deck beyond it)."""

    def cut(self, seats: Sequence[int]) -> list[tuple[int, Card]]:
        """One card face up for each of ``seats``, from a freshly shuffled deck."""
        ...


class Shuffler(Cutter, Protocol):
    """Who shuffles: every card order of a match comes from here, nowhere else."""

    def deal(self) -> list[Card]:
        """A shuffled deck for the next hand, top card first."""
        ...

    def recycle(self, cards: Sequence[Card]) -> tuple[Card, ...]:
        """``cards`` shuffled (a new stock made of played cards, top first)."""
        ...


class RandomShuffler:
    """Shuffles with one seeded ``random.Random``: the same seed, the same cards."""

    __slots__ = ("copies", "rng")

    def __init__(self, copies: int, rng: random.Random) -> None:
        self.copies = copies
        self.rng = rng

    def cut(self, seats: Sequence[int]) -> list[tuple[int, Card]]:
        cards = list(deck(self.copies))
        _shuffle(self.rng, cards)
        return list(zip(seats, cards, strict=False))

    def deal(self) -> list[Card]:
        cards = list(deck(self.copies))
        _shuffle(self.rng, cards)
        return cards

    def recycle(self, cards: Sequence[Card]) -> tuple[Card, ...]:
        out = list(cards)
        _shuffle(self.rng, out)
        return tuple(out)


BIT_LENGTH = tuple(n.bit_length() for n in range(1024))
"""``BIT_LENGTH[n]`` is ``n.bit_length()``, looked up faster than asked (once a card shuffled)."""


def _shuffle(rng: random.Random, items: list[Any]) -> None:
    """``rng.shuffle(items)``: the same draws and the same order, without a method call per
    card (a simulation shuffles a deck every hand)."""
    if type(rng) is not random.Random:
        rng.shuffle(items)
        return
    if len(items) >= len(BIT_LENGTH):
        rng.shuffle(items)
        return
    getrandbits = rng.getrandbits
    for i in range(len(items) - 1, 0, -1):
        n = i + 1
        k = BIT_LENGTH[n]
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


class Game(Protocol):
    """The facts about one game that the code around its engine needs."""

    name: str
    """Its name in records, commands and the first record of a transcript."""
    title: str
    min_players: int
    max_players: int

    def parse_rules(self, specs: Iterable[str]) -> Any:
        """Rule options from ``--rule`` texts (UsageError naming a bad one)."""
        ...

    def rules_from_dict(self, data: Mapping[str, object]) -> Any:
        """Rule options from a record's ``rules`` map (type-checked)."""
        ...

    def describe_rules(self, rules: Any, say: Say = ...) -> list[str]:
        """Every rule option in words, one sentence each (for people reading an audit), in
        English or in the language of ``say``."""
        ...

    def deck_copies(self, rules: Any) -> int:
        """How many 52-card decks a hand is dealt from."""
        ...

    def cut_keeps(self, shown: Mapping[int, Card]) -> list[int]:
        """After one round of the cut, the seats still in (one: the first dealer)."""
        ...

    def ahead(self, totals: Sequence[int]) -> tuple[int, ...]:
        """The seats ahead on these totals: the winners of a match that ends there."""
        ...

    def new_match(self, rules: Any, players: int, dealer: int) -> Any:
        """A match at its start; ``start_hand(deck)``, ``close_hand()``, ``over``, ``totals``."""
        ...

    def view(self, hand: Any, seat: int, totals: Sequence[int]) -> Any:
        """What ``seat`` may see of ``hand``: the only thing a strategy is given."""
        ...

    def restock(self, hand: Any, shuffler: Shuffler) -> Any | None:
        """The action that refills the hand from the shuffler, when it needs one now."""
        ...


def check_players(game: Game, players: int) -> None:
    """UsageError unless ``game`` is played by ``players`` seats."""
    if not game.min_players <= players <= game.max_players:
        lo, hi = game.min_players, game.max_players
        span = f"exactly {lo}" if lo == hi else f"{lo} to {hi}"
        raise UsageError(f"{game.title} is for {span} players, not {players}")


def cut_for_deal(game: Game, shuffler: Cutter, players: int) -> tuple[list[list[tuple[int, Card]]], int]:
    """Cut until one seat is left; seats tied in a round cut again among themselves."""
    seats = list(range(players))
    rounds: list[list[tuple[int, Card]]] = []
    while True:
        shown = shuffler.cut(seats)
        rounds.append(shown)
        seats = game.cut_keeps(dict(shown))
        if len(seats) == 1:
            return rounds, seats[0]


Choose = Callable[[int, Any, Sequence[Any]], Any]
"""``choose(seat, view, legal)``: the move of the seat to act."""


class Observer(Protocol):
    """What a display (or a recorder) is told as the match is played."""

    def cut(self, rounds: Sequence[Sequence[tuple[int, Card]]], dealer: int) -> None: ...
    def hand_start(self, hand: Any) -> None: ...
    def move(self, action: Any) -> None: ...
    def hand_end(self, hand: Any, result: Any, match: Any) -> None: ...
    def match_end(self, match: Any) -> None: ...


class Silent:
    """An observer that watches nothing (simulations)."""

    def cut(self, rounds: Sequence[Sequence[tuple[int, Card]]], dealer: int) -> None:
        pass

    def hand_start(self, hand: Any) -> None:
        pass

    def move(self, action: Any) -> None:
        pass

    def hand_end(self, hand: Any, result: Any, match: Any) -> None:
        pass

    def match_end(self, match: Any) -> None:
        pass


@dataclass(slots=True)
class MatchLoop:
    """The one match loop: the cut, then hands (dealer rotation is the engine's)
    until the match is over. ``match``, ``hand`` and ``cut_rounds`` stay readable
    while it runs and after an interruption (a player who quits)."""

    game: Game
    rules: Any
    players: int
    shuffler: Shuffler
    choose: Choose
    observer: Observer = field(default_factory=Silent)
    match: Any = None
    hand: Any = None
    cut_rounds: list[list[tuple[int, Card]]] = field(default_factory=list)

    def run(self) -> Any:
        check_players(self.game, self.players)
        self.cut_rounds, dealer = cut_for_deal(self.game, self.shuffler, self.players)
        self.observer.cut(self.cut_rounds, dealer)
        self.match = self.game.new_match(self.rules, self.players, dealer)
        while not self.match.over:
            self.play_hand()
        self.observer.match_end(self.match)
        return self.match

    def play_hand(self) -> None:
        """Play one hand. A move that is one of the ``legal_actions`` just listed goes
        through the engine's ``apply_legal`` where it has one (no check could fail);
        any other move, and every restock, through the checked ``apply``. An engine's
        ``decision()``, where it has one, answers the restock check, ``to_act`` and
        ``legal_actions`` in one call (it is asked on every move)."""
        match = self.match
        game, shuffler, choose, observer = self.game, self.shuffler, self.choose, self.observer
        hand = match.start_hand(shuffler.deal())
        self.hand = hand
        observer.hand_start(hand)
        move = None if type(observer) is Silent else observer.move
        apply_legal = getattr(hand, "apply_legal", hand.apply)
        decision = getattr(hand, "decision", None)
        totals = tuple(match.totals)
        views: dict[int, Any] = {}  # a view is a live window: one per seat serves the whole hand
        while True:
            found = None if decision is None else decision()
            action = None if found is not None else game.restock(hand, shuffler)
            if action is None:
                if found is None:
                    seat = hand.to_act
                    if seat is None:
                        break
                    legal = hand.legal_actions()
                else:
                    seat, legal = found
                view = views.get(seat)
                if view is None:
                    view = views[seat] = game.view(hand, seat, totals)
                action = choose(seat, view, legal)
                if move is not None:
                    before = len(hand.events)
                for candidate in legal:
                    if candidate is action:
                        apply_legal(action)
                        break
                else:
                    hand.apply(action)
            elif move is not None:
                before = len(hand.events)
                hand.apply(action)
            else:
                hand.apply(action)
            if move is not None:
                if len(hand.events) > before:
                    action = hand.events[-1]  # the engine's event: the drawn card, the forced flag
                move(action)
        result = match.close_hand()
        self.hand = None
        observer.hand_end(hand, result, match)


GAMES: dict[str, Game] = {}
"""Every game by name; filled by :func:`game` on first use (engines load lazily)."""


def game(name: str) -> Game:
    """The game called ``name`` (UsageError listing the names otherwise)."""
    if not GAMES:
        from p2pcards.games.neuf import GAME as NEUF
        from p2pcards.games.nines import GAME as NINES

        GAMES.update({NINES.name: NINES, NEUF.name: NEUF})
    try:
        return GAMES[name]
    except KeyError:
        raise UsageError(f"unknown game {name!r}; choose from {', '.join(sorted(GAMES))}") from None
