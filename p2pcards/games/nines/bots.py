"""A rule-of-thumb Nines player built on the strategy tips of the rule documents.

It sees only a :class:`~p2pcards.games.nines.SeatView` (its own cards and public
information) and scores every legal action; the best score wins, ties going
to the first legal action, so the choice never depends on the random
generator. The tips it follows (``seeds/000`` and ``001``, "Conseils"):

* Shed high-penalty cards early: a card's penalty counts for more the closer
  an opponent is to going out (the *risk* of being caught holding it).
* Keep a 9 for the critical moment, not to the end: a 9 in hand is worth a
  sure play later, but that worth shrinks as the risk grows and as the hand
  runs long. It is played when nothing else is legal, when it goes out, when
  an opponent is about to go out, or when its keeping value has run out.
* When playing a 9, declare the suit held most (by count, then penalty), with
  the suits the next players seem short in as the tie-break. An opponent who
  drew or passed while a suit was active is taken to be short in it; the
  belief fades with every card they draw afterwards.
* Watch card counts: when the next player holds one or two cards, prefer a
  move that leaves them a suit they are short in, skips them or makes them draw.
* After drawing, play the drawn card when it is legal (a drawn 9 is kept only
  when it is clearly worth more as the last card).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

from p2pcards.bots.random_bot import RandomBot
from p2pcards.cards import NINES, PENALTIES, RANK_OF, SUIT_OF, SUITS, Card, penalty
from p2pcards.games.nines.rules import (
    Action,
    Declare,
    Draw,
    Keep,
    NinesRules,
    Pass,
    Phase,
    Play,
    PlayNines,
    Recycle,
    SeatView,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Weights:
    """The knobs of the score; the defaults were tuned against random players."""

    shed: float = 1.0
    """Per penalty point shed, times the risk that the hand ends soon."""
    suit_length: float = 1.0
    """Per card kept in the suit that becomes active (more chances to play next turn)."""
    follow: float = 4.0
    """Bonus for keeping at least one natural card that follows the new suit or rank."""
    nine_keep: float = 25.0
    """Worth of holding the first 9 (a sure play later), before risk and hand length."""
    spare_nine: float = 0.4
    """Fraction of ``nine_keep`` that a second or later 9 is worth."""
    long_hand_rounds: float = 10.0
    """After this many moves per player in a hand, a held 9 loses most of its keeping worth."""
    block: float = 12.0
    """Per unit of belief that the next player is short in the new suit, when they are close to out."""
    tie_penalty: float = 0.005
    """Per penalty point kept in the new suit: prefer the suit whose cards cost most to keep."""
    tie_short: float = 0.1
    """Per unit of belief, summed over opponents, that they are short in the new suit."""
    skip: float = 10.0
    """Skipping a player (Jack, double 9) or making them draw (Ace), scaled up near their going out."""
    base_risk: float = 0.25
    """Risk of being caught with a card when nobody is close to going out."""
    keep_margin: float = 5.0
    """After a draw, keep a playable drawn card only when keeping scores this much better."""


_RISK_BY_COUNT = {1: 1.0, 2: 0.7, 3: 0.45}
_DECAY_PER_DRAW = 0.7
"""How much a shortness belief keeps after the player draws another card."""


@dataclass(frozen=True, slots=True)
class _Reading:
    """What the public history says: who seems short in what, and how long the hand has run."""

    short: dict[int, dict[str, float]]
    rounds: float
    """Moves so far (plays, draws, passes) per player: how long the hand has run."""


@dataclass(slots=True)  # not frozen: built at every move of every rollout, and never changed
class _Decision:
    """What every action of one decision is scored against: the hand's make-up by suit
    and rank, the next players' counts, the beliefs summed by suit (read once, not per action)."""

    rules: NinesRules
    players: int
    risk: float
    reading: _Reading
    held: int
    nines: int
    naturals: int
    suit_count: dict[str, int]
    suit_penalty: dict[str, int]
    """Per suit, the penalty points of the natural cards held in it."""
    rank_count: dict[int, int]
    """Per rank, the natural cards held of it."""
    short_sum: dict[str, float]
    """Per suit, the beliefs of every opponent that it is short in that suit, summed."""
    no_nine_out: bool
    shed_penalty: tuple[int, ...]
    """Per card, what it costs left in hand under these rules."""
    victim_cards: int
    prev_cards: int
    turn_worth: float
    victim_short: dict[str, float]
    active_suit: str

    @classmethod
    def read(
        cls, view: SeatView, reading: _Reading, hand: Sequence[Card], risk: float, w: Weights
    ) -> _Decision:
        suit_count = dict.fromkeys(SUITS, 0)
        suit_penalty = dict.fromkeys(SUITS, 0)
        rank_count: dict[int, int] = {}
        nines = 0
        for c in hand:
            if c in NINES:
                nines += 1
                continue
            suit = SUIT_OF[c]
            suit_count[suit] += 1
            suit_penalty[suit] += PENALTIES[15][c]
            rank = RANK_OF[c]
            rank_count[rank] = rank_count.get(rank, 0) + 1
        short_sum = {}
        for suit in SUITS:
            total = 0.0
            for b in reading.short.values():  # summed in the same order as ever: same float
                total += b[suit]
            short_sum[suit] = total
        me = view.seat
        rules = view.rules
        victim = view.next_seat(me)
        victim_cards = view.count(victim)
        players = view.players
        return cls(
            rules=rules,
            players=players,
            risk=risk,
            reading=reading,
            held=len(hand),
            nines=nines,
            naturals=len(hand) - nines,
            suit_count=suit_count,
            suit_penalty=suit_penalty,
            rank_count=rank_count,
            short_sum=short_sum,
            no_nine_out=rules.no_nine_out,
            shed_penalty=PENALTIES[rules.nine_penalty],
            victim_cards=victim_cards,
            prev_cards=view.count(view.next_seat(me, -1)),
            turn_worth=w.skip * (_threat(victim_cards) + (1 if players == 2 else 0)),
            victim_short=reading.short.get(victim, {}),
            active_suit=view.active_suit,
        )


class HeuristicBot:
    """Scores each legal action with :class:`Weights`; see the module doc for the tips."""

    name = "heuristic"

    def __init__(self, weights: Weights | None = None) -> None:
        self.weights = weights or Weights()

    # -- entry point ---------------------------------------------------------

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        if len(legal) == 1:
            return legal[0]
        return self.choose_reading(view, legal, read_history(view))

    def choose_reading(self, view: SeatView, legal: Sequence[Action], reading: _Reading) -> Action:
        """:meth:`choose` with the public history already read (a rollout keeps one
        :class:`HistoryReader` for the whole hand instead of replaying it every move)."""
        if len(legal) == 1:
            return legal[0]
        phase = view.phase
        if phase is Phase.DECLARE:
            return self._declare(view, legal, reading)
        hand = view.my_cards
        plays = [a for a in legal if isinstance(a, Play | PlayNines)]
        if not plays:
            return legal[0]
        # Going out ends the hand at once with 0 points: nothing beats it.
        for a in plays:
            if len(_played(a)) == len(hand):
                return a
        at = _Decision.read(view, reading, hand, self._risk(view), self.weights)
        best = self._best(at, plays)
        if phase is Phase.DRAWN:
            keep = [a for a in legal if isinstance(a, Keep)]
            if keep:
                margin = self._score(at, keep[0]) - self._score(at, best)
                if margin > self.weights.keep_margin:
                    return keep[0]
            return best
        return self._best(at, legal)

    def _best(self, at: _Decision, acts: Sequence[Action]) -> Action:
        """The highest-scoring action; the first one listed wins a tie."""
        best = acts[0]
        best_score = float("-inf")
        for a in acts:
            s = self._score(at, a)
            if s > best_score:
                best, best_score = a, s
        return best

    # -- phases --------------------------------------------------------------

    def _declare(self, view: SeatView, legal: Sequence[Action], reading: _Reading) -> Action:
        """Up card is a 9: name the suit held most, tie-broken by the next player's shortness."""
        hand = view.my_cards
        nxt = view.next_seat(view.seat)

        def value(a: Action) -> tuple[float, float, float]:
            if not isinstance(a, Declare):
                return (0, 0, 0.0)  # names no suit: holds none of it
            suit = a.suit
            naturals = [c for c in hand if not c.is_nine and c.suit == suit]
            return (
                len(naturals),
                sum(penalty(c) for c in naturals),
                reading.short.get(nxt, {}).get(suit, 0.0),
            )

        return max(legal, key=value)

    # -- scoring -------------------------------------------------------------

    def _score(self, at: _Decision, a: Action) -> float:
        """How good ``a`` looks from the decision ``at`` (what every action shares is read once there)."""
        w = self.weights
        risk = at.risk
        if not isinstance(a, Play | PlayNines):
            # Not playing keeps every card: only the worth of the 9s held counts.
            return self._nines_worth(at.nines, risk, at.reading)
        played = _played(a)
        first = played[0]
        natural = first not in NINES  # a Play of a natural card; 9s never count among naturals
        new_suit = SUIT_OF[first] if natural else a.suit
        assert new_suit is not None
        new_rank = RANK_OF[played[-1]]
        cost = at.shed_penalty
        score = w.shed * risk * (cost[first] if len(played) == 1 else cost[played[0]] + cost[played[1]])
        in_suit = at.suit_count[new_suit] - natural
        score += w.suit_length * in_suit
        score += w.tie_penalty * (at.suit_penalty[new_suit] - (PENALTIES[15][first] if natural else 0))
        score += w.tie_short * at.short_sum[new_suit]
        if in_suit or at.rank_count.get(new_rank, 0) - natural > 0:
            score += w.follow
        score += self._nines_worth(at.nines - (len(played) - natural), risk, at.reading)
        if at.no_nine_out and at.naturals - natural == 0 and at.held > len(played):
            score -= w.nine_keep  # only 9s left: they cannot go out, so the next turn is a draw
        # Tempo and blocking against the player who acts next.
        # A lost turn matters when its victim is close to out; with two players it is a turn gained.
        turn_worth = at.turn_worth
        rules = at.rules
        skipped = False
        if type(a) is PlayNines:
            skipped = True
            if rules.stacking_nines:
                score += turn_worth * 0.5  # the victim may cancel it with a 9
                skipped = False
        elif rules.action_cards and natural:
            r = RANK_OF[first]
            if r == 11 or (r == 12 and at.players == 2):
                skipped = True
            elif r == 1:
                score += turn_worth * 1.5  # loses the turn and draws two
            elif r == 12:
                # A reverse gives the next turn to the player before: good if the one after is closer to out.
                score += w.skip * 0.5 * (_threat(at.victim_cards) - _threat(at.prev_cards))
        if skipped:
            score += turn_worth
        if at.victim_cards <= 2 and not skipped:
            short = at.victim_short
            score += w.block * short.get(new_suit, 0.0)
            if new_suit == at.active_suit and short.get(new_suit, 0.0) == 0.0:
                score -= w.block * 0.25  # leaving the suit they just faced without drawing
        return score

    def _risk(self, view: SeatView) -> float:
        """How likely the hand is to end before this seat plays again, from the smallest opponent hand."""
        low = min(view.count(s) for s in view.seats if s != view.seat)
        return max(self.weights.base_risk, _RISK_BY_COUNT.get(low, 0.0))

    def _nines_worth(self, nines: int, risk: float, reading: _Reading) -> float:
        """Worth of keeping ``nines`` 9s in hand: a sure play later, fading with risk and time."""
        if nines == 0:
            return 0.0
        w = self.weights
        fade = 1.0 - risk
        if reading.rounds > w.long_hand_rounds:
            fade *= 0.3
        worth = w.nine_keep * fade
        return worth * (1 + w.spare_nine * (nines - 1))


# ---------------------------------------------------------------------------
# Reading the public history


def read_history(view: SeatView) -> _Reading:
    """Replay the public events: who drew or passed under which suit, and this seat's turns."""
    reader = HistoryReader(view.seats, view.discards[0].suit)
    reader.feed(view.events)
    return reader.reading(view.seat)


class HistoryReader:
    """The public history read for every seat at once, one new event at a time.

    A rollout asks for a reading at every move of a hand whose history only
    grows: feeding it the new events keeps that linear in the hand's length.

    The active suit before the first play is the up card's suit, known while
    the bottom discard is still the up card: once a recycle shows up, the
    history is read again from the start with that suit unknown.
    """

    __slots__ = ("_up_suit", "active", "done", "moves", "seats", "short")

    def __init__(self, seats: Sequence[int], up_suit: str) -> None:
        self.seats = tuple(seats)
        self._up_suit: str | None = up_suit
        self._restart()

    def _restart(self) -> None:
        self.short: dict[int, dict[str, float]] = {s: dict.fromkeys(SUITS, 0.0) for s in self.seats}
        self.active: str | None = self._up_suit
        self.moves = 0
        self.done = 0
        """How many events of the history are read."""

    def feed(self, events: Sequence[Action]) -> None:
        """Read ``events[done:]``; ``events`` is the whole history, of which ``done`` were fed before."""
        short = self.short
        active = self.active
        moves = self.moves
        for k in range(self.done, len(events)):
            e = events[k]
            if isinstance(e, Declare):
                active = e.suit
            elif isinstance(e, Play):
                moves += 1
                if e.card in NINES:
                    active = e.suit
                else:
                    active = SUIT_OF[e.card]
                    short[e.seat][active] = 0.0
            elif isinstance(e, PlayNines):
                active = e.suit
                moves += 1
            elif isinstance(e, Draw):
                beliefs = short[e.seat]
                for s in SUITS:
                    beliefs[s] *= _DECAY_PER_DRAW
                if not e.forced:
                    moves += 1
                    if active is not None:
                        beliefs[active] = 1.0
            elif isinstance(e, Pass):
                moves += 1
                if active is not None:
                    short[e.seat][active] = 1.0
            elif isinstance(e, Recycle) and self._up_suit is not None:
                self._up_suit = None
                self._restart()
                self.feed(events)
                return
        self.active, self.moves, self.done = active, moves, len(events)

    def reading(self, seat: int) -> _Reading:
        """What ``seat`` reads in the history fed so far (its own entries left out)."""
        return _Reading(
            short={s: b for s, b in self.short.items() if s != seat}, rounds=self.moves / len(self.seats)
        )


def _threat(cards: int) -> int:
    """How close a player holding ``cards`` cards is to going out: 2 (one card), 1 (two), else 0."""
    return max(0, 3 - cards)


def _played(a: Action) -> tuple[Card, ...]:
    if isinstance(a, Play):
        return (a.card,)
    if isinstance(a, PlayNines):
        return a.cards
    return ()


BOTS = {"random": RandomBot, "heuristic": HeuristicBot}
"""The strategies of Nines, by the names ``--bot`` takes."""
