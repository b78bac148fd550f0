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
from p2pcards.cards import SUITS, Card, penalty
from p2pcards.games.nines.rules import (
    AcceptSkip,
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


class HeuristicBot:
    """Scores each legal action with :class:`Weights`; see the module doc for the tips."""

    name = "heuristic"

    def __init__(self, weights: Weights | None = None) -> None:
        self.weights = weights or Weights()

    # -- entry point ---------------------------------------------------------

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        if len(legal) == 1:
            return legal[0]
        phase = view.phase
        if phase is Phase.DECLARE:
            return self._declare(view, legal)
        rules = view.rules
        reading = read_history(view)
        hand = list(view.my_cards)
        plays = [a for a in legal if isinstance(a, Play | PlayNines)]
        if not plays:
            return legal[0]
        # Going out ends the hand at once with 0 points: nothing beats it.
        for a in plays:
            if len(_played(a)) == len(hand):
                return a
        best = self._best(view, rules, reading, hand, plays)
        if phase is Phase.DRAWN:
            keep = [a for a in legal if isinstance(a, Keep)]
            if keep:
                margin = self._score(view, rules, reading, hand, keep[0]) - self._score(
                    view, rules, reading, hand, best
                )
                if margin > self.weights.keep_margin:
                    return keep[0]
            return best
        return self._best(view, rules, reading, hand, legal)

    def _best(
        self, view: SeatView, rules: NinesRules, reading: _Reading, hand: list[Card], acts: Sequence[Action]
    ) -> Action:
        """The highest-scoring action; the first one listed wins a tie."""
        best = acts[0]
        best_score = float("-inf")
        for a in acts:
            s = self._score(view, rules, reading, hand, a)
            if s > best_score:
                best, best_score = a, s
        return best

    # -- phases --------------------------------------------------------------

    def _declare(self, view: SeatView, legal: Sequence[Action]) -> Action:
        """Up card is a 9: name the suit held most, tie-broken by the next player's shortness."""
        hand = view.my_cards
        reading = read_history(view)
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

    def _score(
        self, view: SeatView, rules: NinesRules, reading: _Reading, hand: list[Card], a: Action
    ) -> float:
        w = self.weights
        me = view.seat
        risk = self._risk(view)
        nine_pen = rules.nine_penalty
        if isinstance(a, Keep | AcceptSkip | Draw | Pass):
            # Not playing keeps every card: only the worth of the 9s held counts.
            return self._nines_worth(sum(1 for c in hand if c.is_nine), risk, reading)
        played = _played(a)
        assert isinstance(a, Play | PlayNines)  # what is left plays cards (_played is empty otherwise)
        rest = list(hand)
        for c in played:
            rest.remove(c)
        new_suit = a.suit if isinstance(a, PlayNines) or played[0].is_nine else played[0].suit
        assert new_suit is not None
        new_rank = played[-1].rank
        score = w.shed * risk * sum(penalty(c, nine_pen) for c in played)
        naturals = [c for c in rest if not c.is_nine]
        in_suit = [c for c in naturals if c.suit == new_suit]
        score += w.suit_length * len(in_suit)
        score += w.tie_penalty * sum(penalty(c) for c in in_suit)
        score += w.tie_short * sum(b[new_suit] for b in reading.short.values())
        if in_suit or any(c.rank == new_rank for c in naturals):
            score += w.follow
        nines = sum(1 for c in rest if c.is_nine)
        score += self._nines_worth(nines, risk, reading)
        if rules.no_nine_out and naturals == [] and rest:
            score -= w.nine_keep  # only 9s left: they cannot go out, so the next turn is a draw
        # Tempo and blocking against the player who acts next.
        # A lost turn matters when its victim is close to out; with two players it is a turn gained.
        victim = view.next_seat(me)
        victim_cards = view.count(victim)
        turn_worth = w.skip * (_threat(victim_cards) + (1 if view.players == 2 else 0))
        skipped = False
        if isinstance(a, PlayNines):
            skipped = True
            if rules.stacking_nines:
                score += turn_worth * 0.5  # the victim may cancel it with a 9
                skipped = False
        elif rules.action_cards and not played[0].is_nine:
            r = played[0].rank
            if r == 11 or (r == 12 and view.players == 2):
                skipped = True
            elif r == 1:
                score += turn_worth * 1.5  # loses the turn and draws two
            elif r == 12:
                # A reverse gives the next turn to the player before: good if the one after is closer to out.
                prev = view.next_seat(me, -1)
                score += w.skip * 0.5 * (_threat(victim_cards) - _threat(view.count(prev)))
        if skipped:
            score += turn_worth
        if victim_cards <= 2 and not skipped:
            short = reading.short.get(victim, {})
            score += w.block * short.get(new_suit, 0.0)
            if new_suit == view.active_suit and short.get(new_suit, 0.0) == 0.0:
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
    """Replay the public events: who drew or passed under which suit, and this seat's turns.

    The active suit before the first play is the up card's suit, known while
    the bottom discard is still the up card (no recycle yet).
    """
    me = view.seat
    events = view.events
    short: dict[int, dict[str, float]] = {s: dict.fromkeys(SUITS, 0.0) for s in view.seats if s != me}
    recycled = any(isinstance(e, Recycle) for e in events)
    active: str | None = None if recycled else view.discards[0].suit
    moves = 0
    for e in events:
        if isinstance(e, Declare):
            active = e.suit
        elif isinstance(e, Play):
            active = e.suit if e.card.is_nine else e.card.suit
            moves += 1
            if e.seat != me and not e.card.is_nine:
                short[e.seat][e.card.suit] = 0.0
        elif isinstance(e, PlayNines):
            active = e.suit
            moves += 1
        elif isinstance(e, Draw):
            if not e.forced:
                moves += 1
            if e.seat == me:
                continue
            beliefs = short[e.seat]
            for s in SUITS:
                beliefs[s] *= _DECAY_PER_DRAW
            if not e.forced and active is not None:
                beliefs[active] = 1.0
        elif isinstance(e, Pass):
            moves += 1
            if e.seat != me and active is not None:
                short[e.seat][active] = 1.0
    return _Reading(short=short, rounds=moves / len(view.seats))


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
