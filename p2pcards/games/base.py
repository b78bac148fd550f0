"""What every game provides, and the one match loop that runs any of them.

A game is a rules engine (its ``HandState`` and ``Match``) plus the few facts
the code around it needs: its name, table sizes, how its rule options are
parsed, how many decks it uses, who stays in after a round of the cut, what a
seat may see, and whether a hand ever needs fresh cards from the shuffler
(Nines' recycled stock). Everything else - the local game, the simulator, the
record, the protocol's table, the terminal - drives a game through :class:`Game`,
its :class:`Parts` and :class:`MatchLoop`, so adding a game means adding one folder
to ``games/`` (``games/nines/``, ``games/neuf/``) and its name to :data:`PACKAGES`
(or calling :func:`register`).

The loop plays with full information (local games, simulations). A seat sees
only its :meth:`Game.view`; the shuffler is the only source of card order.
"""

from __future__ import annotations

import importlib
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, Self, TypeVar

from p2pcards.cards import Card, deck
from p2pcards.errors import UsageError
from p2pcards.games.rule_words import ENGLISH
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
"""``BIT_LENGTH[n]`` is ``n.bit_length()``, looked up faster than asked (once a card shuffled, once
a random bot's move)."""

_SWAPS = tuple(tuple((i, BIT_LENGTH[i + 1]) for i in range(n - 1, 0, -1)) for n in range(105))
"""``_SWAPS[n]``: the steps of shuffling ``n`` cards (two decks at most), each the position ``i``
filled and the bits of each draw of its partner in ``0..i``."""


def _shuffle(rng: random.Random, items: list[Any]) -> None:
    """``rng.shuffle(items)``: the same draws and the same order, without a method call per
    card (a simulation shuffles a deck every hand)."""
    if type(rng) is not random.Random or len(items) >= len(_SWAPS):
        rng.shuffle(items)
        return
    swaps = _SWAPS[len(items)]
    getrandbits = rng.getrandbits
    for i, k in swaps:
        j = getrandbits(k)  # rng._randbelow(i + 1): k bits, drawn again until at most i
        while j > i:
            j = getrandbits(k)
        items[i], items[j] = items[j], items[i]


@dataclass(frozen=True, slots=True, kw_only=True)
class Parts:
    """Where a game's pieces beyond its rules live, each as ``"module:name"``.

    They sit in later layers (the protocol, the terminal), which the rules may
    name but not import: generic code loads a part with :func:`load` when it
    needs it, so a game is one folder and nothing generic names it.
    """

    table: str
    """Its table on the protocol: a subclass of ``p2pcards.protocol.core.TableCore``."""
    screen: str
    """Its terminal: a class with the constructor and methods of ``p2pcards.ui.screen.Screen``."""
    record: str
    """Its record writer: ``(match, players, cut_rounds, verdict) -> dict``."""
    replay: str
    """The module that replays its records (a module name alone, no ``:name``): what
    ``p2pcards.replay_moves.GameReplay`` lists."""
    bots: str
    """Its strategies: a mapping of bot name to a factory of strategies."""
    card_order: str
    """How its screen sorts a hand's cards: ``(cards, trump) -> list of cards``."""
    expert: str | None = None
    """Its side of the ``expert``'s search (``(budget, name) -> strategy``), if it has one."""
    words: str | None = None
    """The English of its own messages (a ``dict`` of key to text), if it has any beyond
    those every game shares; the catalogs in ``p2pcards/locale`` hold their translations."""


def load(ref: str) -> Any:
    """The object a :class:`Parts` entry names (``"package.module:name"``, or a module alone),
    imported on first use."""
    module, _, name = ref.partition(":")
    loaded = importlib.import_module(module)
    return getattr(loaded, name) if name else loaded


A = TypeVar("A")
A_co = TypeVar("A_co", covariant=True)
H_co = TypeVar("H_co", covariant=True)
H_contra = TypeVar("H_contra", contravariant=True)
M_co = TypeVar("M_co", covariant=True)
Result_co = TypeVar("Result_co", covariant=True)
R = TypeVar("R", bound="Rules")
V_co = TypeVar("V_co", covariant=True)


class Rules(Protocol):
    """A game's rule options: agreed at the table, written in every record."""

    def to_dict(self) -> dict[str, Any]:
        """The options as a record's ``rules`` map (what ``Game.rules_from_dict`` reads back)."""
        ...


class Hand(Protocol[A]):
    """One hand being played, with full information (the local game, a replica's replay).

    ``A`` is the game's action: what a seat does, and what the hand logs."""

    @property
    def to_act(self) -> int | None:
        """The seat that acts next; None when the hand is over."""
        ...

    @property
    def events(self) -> Sequence[A]:
        """What happened so far, as the engine logged it (a drawn card named)."""
        ...

    def legal_actions(self) -> list[A]:
        """Every action the seat to act may take now (never empty while it is to act)."""
        ...

    def apply(self, action: A) -> None:
        """Play ``action`` (IllegalAction naming the rule otherwise; the hand is unchanged)."""
        ...

    def copy(self) -> Self:
        """An independent copy, to try an action on (:func:`p2pcards.ui.screen.probe`)."""
        ...

    def public_copy(self) -> Self:
        """A copy that knows what every seat knows and no more (no hidden card's identity):
        a move it refuses, every replica refuses alike (``TableCore._engine_check``)."""
        ...


class Match(Protocol[H_co, Result_co]):
    """A match: hands dealt in turn until it is over, and the totals it keeps."""

    @property
    def over(self) -> bool: ...

    @property
    def hand_number(self) -> int:
        """The number of the hand being played (or next dealt), from 1."""
        ...

    @property
    def playoff(self) -> bool:
        """Whether that hand is a playoff between tied seats."""
        ...

    @property
    def totals(self) -> Sequence[int]: ...

    @property
    def results(self) -> Sequence[Result_co]: ...

    def start_hand(self, deck: Sequence[Card | None]) -> H_co:
        """Deal the next hand from ``deck`` (top card first)."""
        ...

    def close_hand(self) -> Result_co:
        """Score the hand just played into the totals."""
        ...


class Game(Protocol[R, M_co, H_contra, V_co, A_co]):
    """The facts about one game that the code around its engine needs.

    Typed by the game's rules ``R``, its match ``M_co``, its hand ``H_contra``, what a
    seat sees ``V_co`` and its action ``A_co``, so that a type checker holds each game to
    the interface (``GAME: Game[NinesRules, Match, HandState, SeatView, Action]``).
    """



    name: str
    """Its name in records, commands and the first record of a transcript."""
    title: str
    min_players: int
    max_players: int
    hand_points: str
    """The message that names what a hand scores, as a column of the simulator's table
    (``sim_pen_hand``: penalties; ``sim_pts_hand``: points)."""
    parts: Parts
    """Where its table, screen, record, replay and bots are (loaded with :func:`load`)."""

    def parse_rules(self, specs: Iterable[str]) -> R:
        """Rule options from ``--rule`` texts (UsageError naming a bad one)."""
        ...

    def rules_from_dict(self, data: Mapping[str, object]) -> R:
        """Rule options from a record's ``rules`` map (type-checked)."""
        ...

    def describe_rules(self, rules: R, say: Say = ...) -> list[str]:
        """Every rule option in words, one sentence each (for people reading an audit), in
        English or in the language of ``say``."""
        ...

    def deck_copies(self, rules: R) -> int:
        """How many 52-card decks a hand is dealt from."""
        ...

    def cut_keeps(self, shown: Mapping[int, Card]) -> list[int]:
        """After one round of the cut, the seats still in (one: the first dealer)."""
        ...

    def ahead(self, totals: Sequence[int]) -> tuple[int, ...]:
        """The seats ahead on these totals: the winners of a match that ends there."""
        ...

    def new_match(self, rules: R, players: int, dealer: int) -> M_co:
        """A match at its start."""
        ...

    def view(self, hand: H_contra, seat: int, totals: Sequence[int]) -> V_co:
        """What ``seat`` may see of ``hand``: the only thing a strategy is given."""
        ...

    def restock(self, hand: H_contra, shuffler: Shuffler) -> A_co | None:
        """The action that refills the hand from the shuffler, when it needs one now."""
        ...


AnyGame = Game[Any, Any, Any, Any, Any]
"""A game found by its name: what its types are is known only to the game's own code."""


def check_players(game: AnyGame, players: int, say: Say | None = None) -> None:
    """UsageError unless ``game`` is played by ``players`` seats (said by ``say``, English by default)."""
    if not game.min_players <= players <= game.max_players:
        said = say or ENGLISH
        lo, hi = game.min_players, game.max_players
        if lo == hi:
            raise UsageError(said("rules_players_exactly", game=game.title, n=lo, players=players))
        raise UsageError(said("rules_players_span", game=game.title, lo=lo, hi=hi, players=players))


def cut_for_deal(game: AnyGame, shuffler: Cutter, players: int) -> tuple[list[list[tuple[int, Card]]], int]:
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

    game: AnyGame
    rules: Any
    players: int
    shuffler: Shuffler
    choose: Choose
    observer: Observer = field(default_factory=Silent)
    match: Any = None
    hand: Any = None
    cut_rounds: list[list[tuple[int, Card]]] = field(default_factory=list)
    pick: Callable[[Sequence[Any]], Any] | None = None
    """``choose`` for every seat without the seat or its view, where no seat's strategy
    needs either (random bots only): ``pick(legal)`` is one of ``legal``, drawn as
    ``choose`` would. With a silent observer and an engine whose hand has
    ``play_out(pick, shuffler)``, the engine then plays each hand itself, with no view
    built and no move looked up (most of a simulation of random bots)."""

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
        """Play one hand: by the engine itself (its ``play_out``) when ``pick`` makes every
        choice and nothing watches, otherwise move by move (:meth:`_play_moves`)."""
        match, shuffler, observer = self.match, self.shuffler, self.observer
        hand = match.start_hand(shuffler.deal())
        self.hand = hand
        observer.hand_start(hand)
        play_out = getattr(hand, "play_out", None)
        if self.pick is not None and type(observer) is Silent and play_out is not None:
            play_out(self.pick, shuffler)  # no views, no look-ups: most of a simulation of random bots
        else:
            self._play_moves(hand)
        result = match.close_hand()
        self.hand = None
        observer.hand_end(hand, result, match)

    def _play_moves(self, hand: Any) -> None:
        """Play ``hand`` to its end, one ``choose`` a move. A move that is one of the
        ``legal_actions`` just listed goes through the engine's ``apply_legal`` where it has
        one (no check could fail); any other move, and every restock, through the checked
        ``apply``. An engine's ``decision()``, where it has one, answers the restock check,
        ``to_act`` and ``legal_actions`` in one call (it is asked on every move)."""
        game, shuffler, choose, observer = self.game, self.shuffler, self.choose, self.observer
        move = None if type(observer) is Silent else observer.move
        apply_legal = getattr(hand, "apply_legal", hand.apply)
        decision = getattr(hand, "decision", None)
        totals = tuple(self.match.totals)
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


PACKAGES = ("p2pcards.games.nines", "p2pcards.games.neuf")
"""The folders of the games that come with p2pcards; each package's ``GAME`` is its entry."""

GAMES: dict[str, AnyGame] = {}
"""Every game by name; filled by :func:`game` on first use (engines load lazily)."""


def register(entry: AnyGame) -> None:
    """Make ``entry`` playable by its name everywhere (a game from outside :data:`PACKAGES`)."""
    _load_games()
    GAMES[entry.name] = entry


def names() -> tuple[str, ...]:
    """The names of every game, in the order :data:`PACKAGES` lists them."""
    _load_games()
    return tuple(GAMES)


def folder_names() -> tuple[str, ...]:
    """The names of the games of :data:`PACKAGES`, without loading them (a game's name is
    its folder's name): the choices a command offers."""
    return tuple(p.rpartition(".")[2] for p in PACKAGES)


def default_game() -> str:
    """The game a command plays when none is named (the first of :data:`PACKAGES`)."""
    return names()[0]


_ALL_LOADED = False
"""Whether every package of :data:`PACKAGES` is in :data:`GAMES` (else only some are, by
:func:`game`, and nothing registered yet: :func:`register` loads them all first)."""


def _load_games() -> None:
    global _ALL_LOADED
    if not _ALL_LOADED:
        GAMES.clear()  # in the order of PACKAGES, whichever of them loaded first
        for package in PACKAGES:
            entry: AnyGame = importlib.import_module(package).GAME
            GAMES.setdefault(entry.name, entry)
        _ALL_LOADED = True


def game(name: str) -> AnyGame:
    """The game called ``name`` (UsageError listing the names otherwise)."""
    if name not in GAMES and not _ALL_LOADED and name in folder_names():
        # Only this game's engine: a host of Nines starts without loading Le Neuf's rules.
        entry: AnyGame = importlib.import_module(PACKAGES[folder_names().index(name)]).GAME
        GAMES.setdefault(entry.name, entry)
    if name not in GAMES:
        _load_games()
    try:
        return GAMES[name]
    except KeyError:
        raise UsageError(f"unknown game {name!r}; choose from {', '.join(sorted(GAMES))}") from None
