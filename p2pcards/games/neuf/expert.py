"""The expert's knowledge of Le Neuf: deals consistent with a seat's view, a fast rollout, a score.

What a seat knows (and the deals drawn here respect): its own cards, every
card played, the dummy once it looked at it (or when its own old hand lies
there), any hand that moved through the dummy while it knew the dummy, and
the suits each seat has shown void in. The other cards are dealt at random
among the hands it does not know, each getting its count, never a card of a
suit it is void in (the dummy takes any card).

Looking at the dummy costs nothing and tells a seat more, so the expert always
looks when it may; the search then weighs taking the dummy against keeping its
hand over deals of the hidden cards, and each card it may play, with the
heuristic playing every seat to the end of the hand. Cards of one suit with no
card left out between them (the K and Q once the A is played) win the same
tricks: only one of them is searched.

The score is each seat's chance of winning the match from the totals after
the hand: exact when the hand ends the match (a total at 0 or below; the
lowest wins), else a softmax whose temperature grows with the points left.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from p2pcards.bots.expert import Budget, ExpertBot
from p2pcards.cards import ALL_CARDS, CARDS_PER_DECK, SUIT_OF, Card
from p2pcards.games.neuf.bots import NeufHeuristicBot
from p2pcards.games.neuf.rules import (
    PAR,
    PLAYERS,
    POWER,
    Action,
    ExchangeRecord,
    HandState,
    Look,
    NeufRules,
    NeufView,
    Phase,
    PlayCard,
    Trick,
)

DECK = ALL_CARDS[:CARDS_PER_DECK]
DUMMY = PLAYERS
"""The dummy's index among the holders (seats 0-2, then the dummy)."""


@dataclass(frozen=True, slots=True)
class NeufObservation:
    """A seat's knowledge of a Le Neuf hand, copied out of its view."""

    seat: int
    rules: NeufRules
    dealer: int
    number: int
    phase: Phase
    turn: int
    leader: int
    current: tuple[tuple[int, Card], ...]
    tricks: tuple[Trick, ...]
    won: tuple[int, ...]
    exchanges: tuple[ExchangeRecord, ...]
    looked: bool
    """The seat to act (this one) has looked at the dummy this turn."""
    known: tuple[tuple[Card, ...] | None, ...]
    """Per holder (seats, then the dummy): its cards when this seat knows them."""
    counts: tuple[int, ...]
    voids: tuple[frozenset[str], ...]
    unseen: tuple[Card, ...]
    totals: tuple[int, ...]
    events: tuple[Action, ...]
    """The public history with this seat's own looks: the heuristic reads it in rollouts."""


def observe(view: NeufView, legal: Sequence[Action] = ()) -> NeufObservation:
    """Everything ``view`` shows that a deal must respect (see the module doc)."""
    seat = view.seat
    known: list[tuple[Card, ...] | None] = [view.known_cards(s) for s in range(PLAYERS)]
    known.append(view.dummy_cards)
    counts = [view.count(s) for s in range(PLAYERS)] + [13]
    seen = set(view.played())
    for cards in known:
        if cards is not None:
            seen.update(cards)
    unseen = tuple(c for c in DECK if c not in seen)
    events = view.events
    looked = (
        view.phase is Phase.EXCHANGE
        and bool(events)
        and isinstance(events[-1], Look)
        and events[-1].seat == seat
    )
    return NeufObservation(
        seat=seat,
        rules=view.rules,
        dealer=view.dealer,
        number=view.number,
        phase=view.phase,
        turn=seat,
        leader=view.leader,
        current=view.current,
        tricks=view.tricks,
        won=view.won,
        exchanges=view.exchanges,
        looked=looked,
        known=tuple(known),
        counts=tuple(counts),
        voids=(*(view.shown_void(s) for s in range(PLAYERS)), frozenset()),
        unseen=unseen,
        totals=tuple(view.totals) if view.totals else (view.rules.start,) * PLAYERS,
        events=events,
    )


class NeufSearch:
    """Le Neuf for :class:`~p2pcards.bots.expert.Search`; see the module doc."""

    def __init__(self, base: NeufHeuristicBot | None = None) -> None:
        self.base = base or NeufHeuristicBot()
        """The base policy: the incumbent move, and every seat's play in the rollouts."""

    def observe(self, view: NeufView, legal: Sequence[Action]) -> NeufObservation:
        return observe(view, legal)

    def candidates(
        self, view: NeufView, legal: Sequence[Action], rng: random.Random
    ) -> tuple[Action, list[Action]]:
        """Look whenever it may (a look only adds to what the seat knows); else the heuristic's
        move and the others, where cards of a suit with nothing left between them are one move."""
        for a in legal:
            if isinstance(a, Look):
                return a, [a]
        incumbent = self.base.choose(view, legal, rng)
        if view.phase is not Phase.PLAY:
            return incumbent, list(legal)
        played = set(view.played())
        out_there = [c for c in DECK if c not in played]
        out: list[Action] = []
        last: PlayCard | None = None
        ordered = sorted(
            (a for a in legal if isinstance(a, PlayCard)), key=lambda a: (SUIT_OF[a.card], POWER[a.card])
        )
        for a in ordered:
            if (
                last is not None
                and SUIT_OF[last.card] == SUIT_OF[a.card]
                and not any(
                    SUIT_OF[c] == SUIT_OF[a.card] and POWER[last.card] < POWER[c] < POWER[a.card]
                    for c in out_there
                )
            ):
                if a == incumbent:
                    out[-1] = a
                last = a
                continue
            out.append(a)
            last = a
        return incumbent, out

    def determinise(self, obs: NeufObservation, rng: random.Random) -> HandState:
        holders = [h for h in range(PLAYERS + 1) if obs.known[h] is None]
        hands: list[list[Card]] = [list(k) if k is not None else [] for k in obs.known]
        dealt = _deal(obs, holders, rng)
        for h in holders:
            hands[h] = dealt[h]
        state = _template(obs)
        state.hands = hands[:PLAYERS]  # type: ignore[assignment]
        state.dummy = hands[DUMMY]  # type: ignore[assignment]
        state.events = list(obs.events)
        return state

    def clone(self, state: HandState) -> HandState:
        return state.copy()

    def apply(self, state: HandState, action: Action, rng: random.Random) -> None:
        state.apply(action)

    def rollout(self, state: HandState, rng: random.Random) -> None:
        base = self.base
        while state.phase is not Phase.OVER:
            legal = state.legal_actions()
            state.apply(legal[0] if len(legal) == 1 else base.choose(NeufView(state, state.turn), legal, rng))

    def reward(self, obs: NeufObservation, state: HandState) -> float:
        """The seat's chance to win the match, estimated from the totals after this hand."""
        totals = [t + PAR - w for t, w in zip(obs.totals, state.won, strict=True)]
        low = min(totals)
        if low <= 0:
            winners = sum(1 for t in totals if t == low)
            return 1.0 / winners if totals[obs.seat] == low else 0.0
        temperature = 0.8 + 0.3 * low
        weights = [math.exp(-(t - low) / temperature) for t in totals]
        return weights[obs.seat] / sum(weights)


def _deal(obs: NeufObservation, holders: list[int], rng: random.Random) -> dict[int, list[Card]]:
    """The unseen cards dealt among ``holders``, each to its count and never into a void suit."""
    pool = list(obs.unseen)
    for _attempt in range(20):
        rng.shuffle(pool)
        room = {h: obs.counts[h] for h in holders}
        out: dict[int, list[Card]] = {h: [] for h in holders}
        # Cards with the fewest possible holders first, so that no card is left homeless.
        fits = {c: [h for h in holders if SUIT_OF[c] not in obs.voids[h]] for c in pool}
        order = sorted(pool, key=lambda c: len(fits[c]))
        ok = True
        for c in order:
            places = [h for h in fits[c] if room[h] > 0]
            if not places:
                ok = False
                break
            weights = [room[h] for h in places]
            h = rng.choices(places, weights)[0] if len(places) > 1 else places[0]
            out[h].append(c)
            room[h] -= 1
        if ok:
            return out
    # (The voids admit no deal this way: deal ignoring them; only the search's accuracy suffers.)
    rng.shuffle(pool)
    out = {}
    for h in holders:
        out[h] = [pool.pop() for _ in range(obs.counts[h])]
    return out


_TEMPLATES: dict[tuple[object, ...], HandState] = {}


def _template(obs: NeufObservation) -> HandState:
    """A hand with the observation's public state; the hands and the dummy are set after."""
    key = (obs.rules, obs.dealer, obs.number)
    base = _TEMPLATES.get(key)
    if base is None:
        if len(_TEMPLATES) > 64:
            _TEMPLATES.clear()
        base = _TEMPLATES[key] = HandState(
            obs.rules, obs.dealer, list(DECK), number=obs.number, check_follow=False
        )
    state = base.copy()
    state.phase = obs.phase
    state.turn = obs.turn
    state._looked = obs.looked
    state.exchanges = list(obs.exchanges)
    state.leader = obs.leader
    state.current = list(obs.current)
    state.tricks = list(obs.tricks)
    state.won = list(obs.won)
    state.events = []
    return state


def make_expert(budget: Budget | None = None, name: str = "expert") -> ExpertBot:
    """The expert Le Neuf player."""
    return ExpertBot(NeufSearch(), budget, name)
