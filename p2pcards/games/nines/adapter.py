"""Nines on the protocol: the deal, the turns and the draws of one hand.

The generic table (:class:`~p2pcards.protocol.core.TableCore`) runs the steps
every game shares: joining, the cut, the commitments, the shuffle and lock
rounds, the reveal with every pass and key verified, and the signed result.
This adapter adds what is Nines: who holds which position after the deal, the
up card and the stock; the ``deal``, ``turn`` and ``draw-keys`` steps; a
recycle of the discards as a new shuffle round; how a move maps to a record
body; and the full-information replay that checks the hidden-card rules at
the end of the hand.

Step sequence of a hand: ``shuffle`` x n -> ``lock`` x n (each lock of round 0
carries its author's deal keys, so the hand is dealt when the last completes)
-> turns (one author each) with ``draw-keys`` (all but the drawer) after each
draw and ``shuffle``/``lock`` rounds when a draw finds the stock empty ->
``reveal`` (whose records carry the commitments of the next hand). From the
second hand on, round 0 was shuffled and locked while the hand before was
played: each seat's pass rode in one of its turn or draw-keys records (see
``TableCore.AHEAD_STEPS``), its deal keys in its reveal, so the hand begins with
its first turn. Seats that leave the commitments or the deal keys out add a
``commit`` step before the shuffles or a ``deal`` step after the locks. A ``dispute`` record (a seat's private
card did not open) or a public card that does not open jumps to ``reveal``.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from p2pcards.cards import ALL_CARDS, Card
from p2pcards.crypto import group, poker
from p2pcards.errors import IllegalAction, LocalProtocolError
from p2pcards.games.nines import rules as nines
from p2pcards.games.nines.rules import Match, Phase, SeatView, hand_size
from p2pcards.protocol import faults
from p2pcards.protocol.core import HandCrypto, StepSpec, TableCore
from p2pcards.protocol.events import HandStarted
from p2pcards.protocol.ledger import CardLedger, Pos
from p2pcards.protocol.messages import (
    AcceptSkip,
    Body,
    DeclareSuit,
    Dispute,
    DrawCard,
    KeepCard,
    Keys,
    PassTurn,
    PlayCards,
    Shown,
    Shuffle,
)

GAME_NAME = "nines"


@dataclass(slots=True)
class NinesHand(HandCrypto):
    """A hand's positions as Nines uses them."""

    holdings: dict[int, list[Pos]] = field(default_factory=dict)
    stock: list[Pos] = field(default_factory=list)  # top first
    up: Pos = (0, 0)
    known: dict[Pos, Card] = field(default_factory=dict)
    last_drawn: dict[int, Pos] = field(default_factory=dict)
    pending_draw: int | None = None  # seat whose draw waits for a recycle
    draw_step: int = 0  # step of the latest draw request (for blame)


class NinesTable(TableCore):
    """One seat's replica of a match of Nines."""

    GAME = GAME_NAME
    GAME_STEPS: ClassVar[dict[str, str]] = {
        "deal": "_on_deal",
        "turn": "_on_turn",
        "draw-keys": "_on_draw_keys",
    }
    AHEAD_STEPS: ClassVar[tuple[str, ...]] = ("turn", "draw-keys")
    """A turn or draw-keys record may carry its author's pass of the next hand's round 0."""
    hand: NinesHand | None
    match: Match | None

    # -- the hooks of TableCore ----------------------------------------------------

    def _new_hand(self, number: int, secret: bytes | None, ledger: CardLedger) -> NinesHand:
        return NinesHand(number=number, secret=secret, ledger=ledger)

    def _deck_ready(self, rnd: int) -> None:
        if rnd == 0:
            self._deal()
        else:
            self._recycled(rnd)

    def _game_body(self, kind: str) -> Body | None:
        h = self.hand
        assert h is not None and self.seat is not None
        if kind == "deal":
            return self._keys_body(self._deal_positions(self.seat))
        if kind == "draw-keys":
            return self._keys_body([h.stock[0]])
        return None

    def _view(self, hand: nines.HandState, seat: int, totals: tuple[int, ...]) -> SeatView:
        return SeatView(hand, seat, totals)

    def _replay(self, decks: list[list[int]]) -> nines.HandState | None:
        h = self.hand
        assert h is not None and self.match is not None
        hand = self.match.hand
        if hand is None:
            return None
        full = nines.HandState(self.rules, self.n, hand.dealer, [ALL_CARDS[c] for c in decks[0]], hand.seats)
        for action, act_step in h.actions:
            if isinstance(action, nines.Recycle):
                rnd = 1 + sum(1 for e in full.events if isinstance(e, nines.Recycle))
                action = nines.Recycle(stock=tuple(ALL_CARDS[c] for c in decks[rnd]))
            elif isinstance(action, nines.Draw):
                action = nines.Draw(seat=action.seat)
            try:
                full.apply(action)
            except IllegalAction as e:
                self._fail(
                    e.seat,
                    faults.ILLEGAL_SEEN.format(detail=e.detail, rule=e.rule),
                    step=act_step,
                )
        if full.phase is not Phase.OVER and h.dispute is None:
            raise AssertionError("the full replay must end where the replica ended")
        return full

    # -- the deal, the turns, the draws ----------------------------------------------

    def _body_for_action(self, action: nines.Action) -> Body:
        h = self.hand
        assert h is not None and h.secret is not None and self.seat is not None
        if isinstance(action, nines.Declare):
            return DeclareSuit(suit=action.suit)
        if isinstance(action, nines.Play | nines.PlayNines):
            cards = (action.card,) if isinstance(action, nines.Play) else action.cards
            shown = []
            used: set[Pos] = set()
            for card in cards:
                pos = self._position_of(card, used)
                used.add(pos)
                shown.append(
                    Shown(round=pos[0], pos=pos[1], card=int(card), key=poker.lock_key(h.secret, *pos))
                )
            return PlayCards(cards=tuple(shown), suit=action.suit)
        if isinstance(action, nines.Draw):
            return DrawCard()
        if isinstance(action, nines.Keep):
            return KeepCard()
        if isinstance(action, nines.Pass):
            return PassTurn()
        if isinstance(action, nines.AcceptSkip):
            return AcceptSkip()
        raise LocalProtocolError(f"cannot send {action!r}")

    def _position_of(self, card: Card, used: set[Pos]) -> Pos:
        h = self.hand
        assert h is not None and self.seat is not None
        assert self.match is not None and self.match.hand is not None
        if self.match.hand.phase is Phase.DRAWN:
            return h.last_drawn[self.seat]
        for pos in h.holdings[self.seat]:
            if pos not in used and h.known.get(pos) == card:
                return pos
        raise LocalProtocolError(f"this seat does not hold {card}")

    def _deal_order(self, dealer: int | None = None, seats: tuple[int, ...] | None = None) -> list[int]:
        """The playing seats in the order they are dealt: from the dealer's left, the dealer
        last (this hand's, unless another dealer and playing seats are given)."""
        assert self.match is not None
        if dealer is None:
            dealer, seats = self.match.dealer, self.match.playoff_seats
        seats = seats or tuple(range(self.n))
        i = seats.index(dealer)
        return [seats[(i + k) % len(seats)] for k in range(1, len(seats) + 1)]

    def _deal_layout(self, order: list[int] | None = None) -> tuple[dict[int, list[Pos]], Pos, list[Pos]]:
        """Positions of round 0 dealt to each seat, the up card, and the stock (top first)."""
        order = self._deal_order() if order is None else order
        size = hand_size(len(order))
        holdings: dict[int, list[Pos]] = {s: [] for s in range(self.n)}
        for k in range(size * len(order)):
            holdings[order[k % len(order)]].append((0, k))
        up = size * len(order)
        return holdings, (0, up), [(0, p) for p in range(up + 1, self.rules.deck_size)]

    def _first_to_act(self) -> int | None:
        """The seat left of the dealer (the dealer declares first when the up card is a
        9, which nobody knows before the deal)."""
        return self._deal_order()[0]

    def _deal_positions(self, seat: int, order: list[int] | None = None) -> list[Pos]:
        """Round-0 positions whose keys ``seat`` publishes at the deal: all but its own."""
        holdings, up, _ = self._deal_layout(order)
        out = [p for s, ps in holdings.items() if s != seat for p in ps]
        out.append(up)
        return sorted(out)

    def _next_deal_positions(self, seat: int) -> list[Pos] | None:
        """The next hand is dealt by the seat left of this hand's dealer, to every seat,
        unless it may be a playoff (``tie=playoff``: which seats play is known only once
        this hand is scored); then the deal keys wait for a ``deal`` step."""
        assert self.match is not None
        if self.rules.tie == "playoff" or self.match.playoff_seats is not None:
            return None
        return self._deal_positions(seat, self._deal_order((self.match.dealer + 1) % self.n, None))

    def _on_deal(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        h = self.hand
        assert h is not None and self.match is not None
        for seat, body in bodies.items():
            self._store_keys(seat, body, self._deal_positions(seat), step)  # type: ignore[arg-type]
        holdings, up, stock = self._deal_layout()
        h.holdings, h.up, h.stock = holdings, up, stock
        deck: list[Card | None] = [None] * self.rules.deck_size
        up_card = h.ledger.open(up)
        if up_card is None:
            h.dispute = (None, faults.UP_CARD)
            self._start_reveal()
            return
        deck[up[1]] = ALL_CARDS[up_card]
        if self.seat is not None:
            for pos in holdings[self.seat]:
                card = h.ledger.open_mine(pos)
                if card is None:
                    h.dispute = (self.seat, faults.DEALT_NOT_CARD.format(pos=pos[1]))
                else:
                    h.known[pos] = ALL_CARDS[card]
                    deck[pos[1]] = ALL_CARDS[card]
            if len(set(h.known.values())) != len(h.known):
                h.dispute = (self.seat, faults.DEALT_TWICE)
        hand = self.match.start_hand(deck)
        self._events.append(
            HandStarted(hand, self.match.hand_number, self.match.playoff_seats is not None)
        )
        self._next_turn()

    def _next_turn(self) -> None:
        """Choose the next step from the engine's phase."""
        assert self.match is not None and self.match.hand is not None and self.hand is not None
        hand = self.match.hand
        if hand.phase is Phase.OVER:
            self._start_reveal()
            return
        if hand.phase is Phase.RECYCLE:
            self._start_recycle(hand.turn)
            return
        if hand.phase is Phase.FORCED_DRAW:
            self._next("draw-keys", [s for s in self._all() if s != hand.turn], Keys, Dispute, seat=hand.turn)
            return
        self._next(
            "turn",
            (hand.turn,),
            DeclareSuit,
            PlayCards,
            DrawCard,
            KeepCard,
            PassTurn,
            AcceptSkip,
            Dispute,
        )

    def _on_turn(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        h = self.hand
        assert h is not None and self.match is not None and self.match.hand is not None
        hand = self.match.hand
        seat = spec.authors[0]
        body = bodies[seat]
        if isinstance(body, Dispute):
            h.dispute = (seat, faults.DISPUTED.format(reason=body.reason))
            self._start_reveal()
        elif isinstance(body, DeclareSuit):
            self._engine_apply(nines.Declare(seat=seat, suit=body.suit), seat, step)
            self._next_turn()
        elif isinstance(body, PlayCards):
            self._on_play(seat, body, step)
        elif isinstance(body, DrawCard):
            self._check_dry_run(nines.Draw(seat=seat), seat, step)
            h.draw_step = step
            if not hand.stock and len(hand.discards) > 1:
                self._start_recycle(seat)
            else:
                self._next("draw-keys", [s for s in self._all() if s != seat], Keys, Dispute, seat=seat)
        elif isinstance(body, KeepCard):
            self._engine_apply(nines.Keep(seat=seat), seat, step)
            self._next_turn()
        elif isinstance(body, PassTurn):
            self._engine_apply(nines.Pass(seat=seat), seat, step)
            self._next_turn()
        elif isinstance(body, AcceptSkip):
            self._engine_apply(nines.AcceptSkip(seat=seat), seat, step)
            self._next_turn()

    def _check_dry_run(self, action: nines.Action, seat: int, step: int) -> None:
        """Check a draw request now, although it is applied once the card is known."""
        assert self.match is not None and self.match.hand is not None
        trial = self.match.hand.copy()
        if not trial.stock and len(trial.discards) > 1:
            try:
                trial.apply(nines.Recycle(stock=(None,) * (len(trial.discards) - 1)))
            except IllegalAction as e:
                self._fail(seat, faults.ILLEGAL_MOVE.format(detail=e.detail, rule=e.rule), step=step)
        self._engine_check(action, seat, step, trial)

    def _on_play(self, seat: int, body: PlayCards, step: int) -> None:
        h = self.hand
        assert h is not None and self.match is not None and self.match.hand is not None
        hand = self.match.hand
        cards = [ALL_CARDS[shown.card] for shown in body.cards]
        if len(cards) == 1:
            action: nines.Action = nines.Play(seat=seat, card=cards[0], suit=body.suit)
        else:
            if body.suit is None:
                self._fail(seat, faults.TWO_NINES, step=step)
            action = nines.PlayNines(seat=seat, cards=(cards[0], cards[1]), suit=body.suit)
        positions = [(s.round, s.pos) for s in body.cards]
        if len(set(positions)) != len(positions):
            self._fail(seat, faults.SAME_POSITION, step=step)
        for shown in body.cards:
            pos = (shown.round, shown.pos)
            if pos not in h.holdings.get(seat, []):
                self._fail(
                    seat, faults.NEITHER_DEALT.format(pos=pos), step=step
                )
            if hand.phase is Phase.DRAWN and pos != h.last_drawn.get(seat):
                self._fail(seat, faults.ONLY_DRAWN, step=step)
            if not 0 < shown.key < group.ORDER:  # checked before the key is used
                self._fail(seat, faults.KEY_OUTSIDE_GROUP, step=step)
        # The claim first: a card the rules refuse (played already, seen elsewhere, not
        # legal now) is proof whatever its position holds, and a reveal could be stalled.
        self._engine_check(action, seat, step)
        for shown in body.cards:
            pos = (shown.round, shown.pos)
            opened = h.ledger.open(pos, {seat: shown.key})
            if opened is None or opened != shown.card:
                h.dispute = (
                    seat,
                    faults.SHOWED_OTHER.format(card=ALL_CARDS[shown.card], pos=pos),
                )
                self._start_reveal()
                return
        self._engine_apply(action, seat, step)
        for shown in body.cards:
            pos = (shown.round, shown.pos)
            h.holdings[seat].remove(pos)
            h.ledger.add_key(pos, seat, shown.key, step)
        self._next_turn()

    def _start_recycle(self, drawer: int) -> None:
        h = self.hand
        assert h is not None and self.match is not None and self.match.hand is not None
        under = self.match.hand.discards[:-1]
        cards = tuple(int(c) for c in under)
        rnd = self._new_round(cards)
        h.pending_draw = drawer
        self._next("shuffle", (0,), Shuffle, rnd=rnd, seat=0)

    def _recycled(self, rnd: int) -> None:
        h = self.hand
        assert h is not None and self.match is not None and self.match.hand is not None
        size = h.ledger.rounds[rnd].size
        self._engine_apply(nines.Recycle(stock=(None,) * size), None, self.step - 1)
        h.stock = [(rnd, p) for p in range(size)]
        drawer = h.pending_draw
        h.pending_draw = None
        assert drawer is not None
        self._next("draw-keys", [s for s in self._all() if s != drawer], Keys, Dispute, seat=drawer)

    def _on_draw_keys(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        h = self.hand
        assert h is not None and self.match is not None
        drawer = spec.seat
        for seat, body in bodies.items():
            if isinstance(body, Dispute):
                h.dispute = (seat, faults.DISPUTED.format(reason=body.reason))
                self._start_reveal()
                return
        pos = h.stock[0]
        for seat, body in bodies.items():
            self._store_keys(seat, body, [pos], step)  # type: ignore[arg-type]
        card: Card | None = None
        if drawer == self.seat:
            opened = h.ledger.open_mine(pos)
            if opened is None:
                h.dispute = (self.seat, faults.DRAWN_NOT_CARD.format(pos=pos))
            else:
                card = ALL_CARDS[opened]
                h.known[pos] = card
        h.stock.pop(0)
        h.holdings[drawer].append(pos)
        h.last_drawn[drawer] = pos
        forced = self.match.hand is not None and self.match.hand.phase is Phase.FORCED_DRAW
        self._engine_apply(nines.Draw(seat=drawer, card=card), drawer, step if forced else h.draw_step)
        self._next_turn()
