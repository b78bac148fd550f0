"""The expert's knowledge of Nines: deals consistent with a seat's view, a fast rollout, a score.

What a seat knows (and the deals drawn here respect):

* its own cards, the discard pile, the up card, every card count and the
  stock's size; every card not in its hand nor on the pile is in another hand
  or in the stock, in an order it cannot know;
* an opponent who drew or passed at the start of a turn held no legal card
  then: no card of the active suit, none of the top card's rank, no 9. Those
  cards it still holds avoid that set; the cards it drew since may be
  anything. With ``m`` cards drawn since, at least ``count - m`` of its cards
  are old ones, and older constraints nest inside newer ones, so a deal is
  drawn oldest constraint first (the fullest forbidden set), then freer cards.

The position is rebuilt from those facts alone; the engine's hidden fields
(direction, the count of quiet turns towards a stall) are read off the public
history, and the public history itself goes into the deal, so that the
heuristic playing every seat in the rollouts reads the same signs (who drew
under which suit) as at the real table.

Candidate moves: the heuristic's, and every other that differs in effect (two
copies of a card are one move, so are any two 9s, and a 9 declares only the
two suits held most or the heuristic's suit). Going out is never searched.

The score estimates each seat's chance of winning the match from the totals
after the hand: exact when the hand ends the match (the lowest total wins),
else a softmax of the totals whose temperature grows with the points left
before the target (an early hand decides little).
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from p2pcards.bots.expert import Budget, ExpertBot
from p2pcards.cards import ALL_CARDS, NINES, RANK_OF, SUIT_OF, SUITS, Card, penalty
from p2pcards.games.nines.bots import HeuristicBot, HistoryReader
from p2pcards.games.nines.rules import (
    Action,
    Declare,
    Draw,
    HandState,
    NinesRules,
    Pass,
    Phase,
    Play,
    PlayNines,
    Recycle,
    SeatView,
)


@dataclass(frozen=True, slots=True)
class NinesObservation:
    """A seat's knowledge of a Nines hand, copied out of its view."""

    seat: int
    players: int
    seats: tuple[int, ...]
    rules: NinesRules
    phase: Phase
    mine: tuple[Card, ...]
    counts: tuple[int, ...]
    discards: tuple[Card, ...]
    stock_size: int
    active_suit: str
    up_card: Card
    direction: int
    quiet_turns: int
    """Turns in a row that ended with no card played (a stall ends the hand)."""
    totals: tuple[int, ...]
    events: tuple[Action, ...]
    """The public history (other seats' drawn cards hidden): the heuristic reads it in rollouts."""
    unseen: tuple[Card, ...]
    """Cards in other hands or in the stock, in a fixed order."""
    constraints: tuple[tuple[tuple[int, frozenset[Card]], ...], ...]
    """Per seat, oldest first: (cards it has held since, cards those avoid)."""


def observe(view: SeatView, legal: Sequence[Action] = ()) -> NinesObservation:
    """Everything ``view`` shows that a deal must respect (see the module doc)."""
    seat = view.seat
    seats = view.seats
    rules = view.rules
    events = view.events
    mine = view.my_cards
    discards = view.discards
    counts = tuple(view.count(s) for s in range(view.players))
    i = seats.index(seat)
    direction = 1 if len(seats) < 3 or view.next_seat(seat) == seats[(i + 1) % len(seats)] else -1
    gone = list(mine) + list(discards)
    unseen = _minus([c for c in ALL_CARDS[: rules.deck_size]], gone)
    # Replay the public history: what was legal at each draw, and the quiet turns.
    active = view.up_card.suit
    top = view.up_card
    found: dict[int, list[tuple[int, frozenset[Card]]]] = {s: [] for s in seats}
    draws_at: dict[int, list[int]] = {s: [] for s in seats}
    """Per seat, the event index of each card it drew."""
    quiet = 0
    prev: Action | None = None
    for k, e in enumerate(events):
        if isinstance(e, Declare):
            active = e.suit
        elif isinstance(e, Play):
            dup_play = rules.draw_until_playable and isinstance(prev, Draw) and prev.seat == e.seat
            active = e.suit if e.card in NINES else SUIT_OF[e.card]  # type: ignore[assignment]
            top = e.card
            quiet = quiet + 1 if dup_play else 0
        elif isinstance(e, PlayNines):
            active, top, quiet = e.suit, e.cards[1], 0
        elif isinstance(e, Draw):
            draws_at[e.seat].append(k)
            if e.forced:
                prev = e
                continue
            follows = (
                rules.draw_until_playable
                and isinstance(prev, Draw)
                and prev.seat == e.seat
                and not prev.forced
            )
            if not follows:
                found[e.seat].append((k, _forbidden(rules, active, top)))
            nxt = events[k + 1] if k + 1 < len(events) else None
            kept = not rules.draw_until_playable and not (isinstance(nxt, Play) and nxt.seat == e.seat)
            if kept and (nxt is not None or e.seat != seat or view.phase is not Phase.DRAWN):
                quiet += 1
        elif isinstance(e, Pass):
            follows = isinstance(prev, Draw) and prev.seat == e.seat
            if not follows:
                found[e.seat].append((k, _forbidden(rules, active, top)))
            quiet += 1
        prev = e
    constraints: list[tuple[tuple[int, frozenset[Card]], ...]] = []
    for s in range(view.players):
        if s == seat or s not in seats:
            constraints.append(())
            continue
        out = []
        for k, bad in found[s]:
            drawn_since = sum(1 for d in draws_at[s] if d >= k)
            old = counts[s] - drawn_since
            if old > 0:
                out.append((old, bad))
        # Cards held since an older event were held at every later one: they avoid every later set.
        nested = []
        for j, (old, _) in enumerate(out):
            union = frozenset().union(*(b for _, b in out[j:]))
            nested.append((old, union))
        constraints.append(tuple(nested))
    return NinesObservation(
        seat=seat,
        players=view.players,
        seats=seats,
        rules=rules,
        phase=view.phase,
        mine=mine,
        counts=counts,
        discards=discards,
        stock_size=view.stock_size,
        active_suit=view.active_suit,
        up_card=view.up_card,
        direction=direction,
        quiet_turns=quiet,
        totals=tuple(view.totals) if view.totals else (0,) * view.players,
        events=events,
        unseen=tuple(unseen),
        constraints=tuple(constraints),
    )


def _forbidden(rules: NinesRules, active: str, top: Card) -> frozenset[Card]:
    """The cards legal under ``active`` and ``top``: a seat that had to draw held none of them."""
    rank = RANK_OF[top]
    return frozenset(
        c for c in ALL_CARDS[: rules.deck_size] if c in NINES or SUIT_OF[c] == active or RANK_OF[c] == rank
    )


def _minus(cards: list[Card], gone: Sequence[Card]) -> list[Card]:
    """``cards`` without one copy of each of ``gone`` (two decks hold each card twice)."""
    out = list(cards)
    for c in gone:
        out.remove(c)
    return out


class NinesSearch:
    """Nines for :class:`~p2pcards.bots.expert.Search`; see the module doc."""

    def __init__(self, base: HeuristicBot | None = None) -> None:
        self.base = base or HeuristicBot()
        """The base policy: the incumbent move, and every seat's play in the rollouts."""

    def observe(self, view: SeatView, legal: Sequence[Action]) -> NinesObservation:
        return observe(view, legal)

    def candidates(
        self, view: SeatView, legal: Sequence[Action], rng: random.Random
    ) -> tuple[Action, list[Action]]:
        """The heuristic's move and the distinct others: going out is taken at once; two copies
        of a card (two decks) are one move, so are any two 9s, and a 9 declares only the suits
        that matter (the two held most, or the heuristic's)."""
        incumbent = self.base.choose(view, legal, rng)
        n = len(view.my_cards)
        for a in legal:
            if (isinstance(a, Play) and n == 1) or (isinstance(a, PlayNines) and n == 2):
                return a, [a]
        suits = set(_held_most(view.my_cards)[:2])
        if isinstance(incumbent, Play | PlayNines | Declare) and incumbent.suit is not None:
            suits.add(incumbent.suit)
        seen: set[object] = set()
        out: list[Action] = []
        for a in legal:
            if isinstance(a, Play):
                nine = a.card in NINES
                if nine and a.suit not in suits and a != incumbent:
                    continue
                key: object = ("9", a.suit) if nine else ("card", RANK_OF[a.card], SUIT_OF[a.card])
            elif isinstance(a, PlayNines):
                if a.suit not in suits and a != incumbent:
                    continue
                key = ("99", a.suit)
            else:
                key = a
            if key in seen:
                if a == incumbent:  # the incumbent stands for its equivalents
                    out = [incumbent if _same(b, key) else b for b in out]
                continue
            seen.add(key)
            out.append(a)
        if incumbent not in out:
            out.append(incumbent)
        return incumbent, out

    def determinise(self, obs: NinesObservation, rng: random.Random) -> HandState:
        pool = list(obs.unseen)
        rng.shuffle(pool)
        hands: list[list[Card | None]] = [[] for _ in range(obs.players)]
        hands[obs.seat] = list(obs.mine)
        others = [s for s in obs.seats if s != obs.seat]
        rng.shuffle(others)
        # The most constrained seats first, so that they find the cards they may hold.
        others.sort(key=lambda s: -sum(n for n, _ in obs.constraints[s]))
        for s in others:
            hand: list[Card | None] = []
            for old, bad in obs.constraints[s]:
                want = old - len(hand)
                if want <= 0:
                    continue
                k = 0
                while k < len(pool) and want > 0:
                    if pool[k] not in bad:
                        hand.append(pool.pop(k))
                        want -= 1
                    else:
                        k += 1
            while len(hand) < obs.counts[s]:
                hand.append(pool.pop())
            hands[s] = hand
        state = _template(obs)
        state.hands = hands
        state.stock = list[Card | None](pool)  # bottom..top: shuffled, so any order will do
        state.discards = list(obs.discards)
        state.events = list(obs.events)
        return state

    def clone(self, state: HandState) -> HandState:
        return state.copy()

    def apply(self, state: HandState, action: Action, rng: random.Random) -> None:
        state.apply_legal(action)  # one of the legal moves of the view this state was dealt from
        _restock(state, rng)

    def rollout(self, state: HandState, rng: random.Random) -> None:
        """The heuristic for every seat, reading the history as it grows (not again at each move),
        on the engine's trusted path (every move is one of ``legal_actions``)."""
        choose = self.base.choose_reading
        reader = HistoryReader(state.seats, state.up_card.suit)
        steps = 0
        while state.phase is not Phase.OVER:
            legal = state.legal_actions()
            if len(legal) == 1:
                action = legal[0]
            else:
                seat = state.turn
                reader.feed(state.events)
                action = choose(SeatView(state, seat), legal, reader.reading(seat))
            state.apply_legal(action)
            _restock(state, rng)
            steps += 1
            if steps > 400:  # a hand going round for ever: score it as a stall would
                state._finish("stall", None)

    def reward(self, obs: NinesObservation, state: HandState) -> float:
        """The seat's chance to win the match, estimated from the totals after this hand."""
        rules = obs.rules
        nine = rules.nine_penalty
        totals = list(obs.totals)
        for s in obs.seats:
            if s != state.out:
                totals[s] += sum(penalty(c, nine) for c in state.hands[s] if c is not None)
        playing = obs.seats
        high = max(totals[s] for s in playing)
        low = min(totals[s] for s in playing)
        if rules.hands is None and high >= rules.target:
            winners = sum(1 for s in playing if totals[s] == low)
            return 1.0 / winners if totals[obs.seat] == low else 0.0
        left = max(0, rules.target - high) if rules.hands is None else 60
        temperature = 6.0 + 0.45 * left
        weights = {s: math.exp(-(totals[s] - low) / temperature) for s in playing}
        return weights[obs.seat] / sum(weights.values())


def _held_most(cards: Sequence[Card]) -> list[str]:
    """Suits by natural cards held, most first (then by their penalties)."""
    count = {s: (0, 0) for s in SUITS}
    for c in cards:
        if c not in NINES:
            n, p = count[SUIT_OF[c]]
            count[SUIT_OF[c]] = (n + 1, p + penalty(c))
    return sorted(SUITS, key=lambda s: count[s], reverse=True)


def _same(a: Action, key: object) -> bool:
    if isinstance(a, Play) and a.card not in NINES:
        return key == ("card", RANK_OF[a.card], SUIT_OF[a.card])
    return False


_TEMPLATES: dict[tuple[object, ...], HandState] = {}


def _template(obs: NinesObservation) -> HandState:
    """A hand of these rules and seats with the observation's public state; hands and stock are set after."""
    key = (obs.rules, obs.players, obs.seats)
    base = _TEMPLATES.get(key)
    if base is None:
        deck = list(ALL_CARDS[: obs.rules.deck_size])
        base = _TEMPLATES[key] = HandState(obs.rules, obs.players, obs.seats[0], deck, obs.seats)
    state = base.copy()
    state.turn_direction(obs.direction)  # a Queen may have reversed it
    state.active_suit = obs.active_suit
    state.up_card = obs.up_card
    state.turn = obs.seat
    state.phase = obs.phase
    state.quiet_turns = obs.quiet_turns
    state._forced_left = 0  # a searched decision is never in the middle of an Ace's forced draws
    state.events = []
    state.dealt = [[] for _ in range(obs.players)]
    state.end = None
    state.out = None
    return state


def _restock(state: HandState, rng: random.Random) -> None:
    """Rebuild the stock when a draw finds it empty (the table's step, shuffled by ``rng``)."""
    if (
        state.phase is not Phase.OVER
        and not state.stock
        and len(state.discards) > 1
        and state.needs_recycle()
    ):
        under = state.discards[:-1]
        rng.shuffle(under)
        state.apply(Recycle(stock=tuple(under)))


def make_expert(budget: Budget | None = None, name: str = "expert") -> ExpertBot:
    """The expert Nines player."""
    return ExpertBot(NinesSearch(), budget, name)
