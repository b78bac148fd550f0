"""High Card on the protocol: the deal of two cards each, and one turn per seat.

The generic table runs the cut, the shuffle and lock rounds, the reveal and the
result; this adds who holds which dealt position, the ``deal`` and ``turn``
steps, a move as a record (the card and the key that opens it), and the replay
with every card shown.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import ClassVar

from p2pcards.cards import ALL_CARDS, Card
from p2pcards.crypto import group, poker
from p2pcards.errors import IllegalAction, LocalProtocolError
from p2pcards.protocol.core import HandCrypto, StepSpec, TableCore
from p2pcards.protocol.events import HandStarted
from p2pcards.protocol.ledger import CardLedger, Pos
from p2pcards.protocol.messages import Body, Dispute, PlayCards, Shown
from third_game.rules import CARDS_EACH, NAME, HandState, Match, PlayCard, SeatView


@dataclass(slots=True)
class HighCardHand(HandCrypto):
    holdings: dict[int, list[Pos]] = field(default_factory=dict)
    known: dict[Pos, Card] = field(default_factory=dict)


class HighCardTable(TableCore):
    """One seat's replica of a match of High Card."""

    GAME = NAME
    GAME_STEPS: ClassVar[dict[str, str]] = {"deal": "_on_deal", "turn": "_on_turn"}
    hand: HighCardHand | None
    match: Match | None

    def _new_hand(self, number: int, secret: bytes | None, ledger: CardLedger) -> HighCardHand:
        return HighCardHand(number=number, secret=secret, ledger=ledger)

    def _deck_ready(self, rnd: int) -> None:
        if rnd != 0:
            raise LocalProtocolError("High Card shuffles once a hand")
        self._deal()

    def _game_body(self, kind: str) -> Body | None:
        if kind == "deal":
            assert self.seat is not None
            return self._keys_body(self._deal_positions(self.seat))
        return None

    def _view(self, hand: HandState, seat: int, totals: tuple[int, ...]) -> SeatView:
        return SeatView(hand, seat, totals)

    def _order(self) -> list[int]:
        assert self.match is not None
        return [(self.match.dealer + k) % self.n for k in range(1, self.n + 1)]

    def _holdings(self) -> dict[int, list[Pos]]:
        order = self._order()
        out: dict[int, list[Pos]] = {s: [] for s in range(self.n)}
        for k in range(CARDS_EACH * self.n):
            out[order[k % self.n]].append((0, k))
        return out

    def _first_to_act(self) -> int | None:
        return self._order()[0]

    def _deal_positions(self, seat: int) -> list[Pos]:
        return sorted(p for s, ps in self._holdings().items() if s != seat for p in ps)

    def _on_deal(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        h = self.hand
        assert h is not None and self.match is not None
        for seat, body in bodies.items():
            self._store_keys(seat, body, self._deal_positions(seat), step)  # type: ignore[arg-type]
        h.holdings = self._holdings()
        deck: list[Card | None] = [None] * self.rules.deck_size
        if self.seat is not None:
            for pos in h.holdings[self.seat]:
                card = h.ledger.open_mine(pos)
                if card is None:
                    h.dispute = (self.seat, f"dealt position {pos[1]} does not open to a card")
                else:
                    h.known[pos] = deck[pos[1]] = ALL_CARDS[card]
        hand = self.match.start_hand(deck)
        self._events.append(HandStarted(hand, self.match.hand_number, False))
        self._next_turn()

    def _next_turn(self) -> None:
        assert self.match is not None and self.match.hand is not None
        seat = self.match.hand.to_act
        if seat is None:
            self._start_reveal()
        else:
            self._next("turn", (seat,), PlayCards, Dispute)

    def _on_turn(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        h = self.hand
        assert h is not None
        seat = spec.authors[0]
        body = bodies[seat]
        if isinstance(body, Dispute):
            h.dispute = (seat, f"disputed a card ({body.reason})")
            self._start_reveal()
            return
        assert isinstance(body, PlayCards)
        if len(body.cards) != 1 or body.suit is not None:
            self._fail(seat, "plays one card, with no suit", step=step)
        shown = body.cards[0]
        pos = (shown.round, shown.pos)
        if pos not in h.holdings.get(seat, []):
            self._fail(seat, f"plays from position {pos} that it does not hold", step=step)
        if not 0 < shown.key < group.ORDER:
            self._fail(seat, "shows a key outside the group order", step=step)
        opened = h.ledger.open(pos, {seat: shown.key})
        if opened is None or opened != shown.card:
            h.dispute = (seat, f"showed {ALL_CARDS[shown.card]} from {pos}, which holds another card")
            self._start_reveal()
            return
        self._engine_apply(PlayCard(seat, ALL_CARDS[shown.card]), seat, step)
        h.holdings[seat].remove(pos)
        h.ledger.add_key(pos, seat, shown.key, step)
        self._next_turn()

    def _body_for_action(self, action: PlayCard) -> Body:
        h = self.hand
        assert h is not None and h.secret is not None and self.seat is not None
        for pos in h.holdings[self.seat]:
            if h.known.get(pos) == action.card:
                key = poker.lock_key(h.secret, *pos)
                shown = Shown(round=pos[0], pos=pos[1], card=int(action.card), key=key)
                return PlayCards(cards=(shown,), suit=None)
        raise LocalProtocolError(f"this seat does not hold {action.card}")

    def _replay(self, decks: list[list[int]]) -> HandState | None:
        h = self.hand
        assert h is not None and self.match is not None
        hand = self.match.hand
        if hand is None:
            return None
        full = HandState(self.rules, self.n, hand.dealer, [ALL_CARDS[c] for c in decks[0]])
        for action, act_step in h.actions:
            try:
                full.apply(action)
            except IllegalAction as e:
                self._fail(e.seat, f"illegal move seen with all cards shown: {e.detail}", step=act_step)
        return full
