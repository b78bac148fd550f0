"""Le Neuf on the protocol: the deal with a dummy, the private looks, the exchanges, the tricks.

The generic table runs joining, the cut, the commitments, the shuffle and lock
round, the reveal with every pass and key verified, and the signed result.
This adapter adds what is Le Neuf:

* The deal: deck position ``k`` goes to the ``k mod 4``-th of (left of the
  dealer, the third player, the dealer, the dummy), like the engine's deal.
  Every seat publishes its keys for the two other seats' positions with its
  lock (or in a ``deal`` step, a seat that does not); nobody publishes a key
  of the dummy, so it stays locked by all.
* An exchange turn (``exchange`` step, one author) holds ``look``,
  ``exchange`` (take the dummy) or ``decline``. A look, and a take by a seat
  that has not looked, opens the dummy's positions to that seat alone: if the
  seat still holds a lock on them, the other seats that do publish their keys
  (``open-keys``), which leaves a lock only the seat can remove; otherwise the
  seat relocks them with fresh keys (``relock``) and each seat with a pending
  lock removes it (``unlock``, one step per seat, in seat order). A take moves
  the positions publicly: everybody sees who took the dummy, nobody sees it.
* A play (``turn`` step) shows one card with the key of the player's pending
  lock on its position. Following suit depends on hidden cards: a replica
  refuses a play it can prove wrong (a suit the seat has shown it lacks), and
  the full replay at the end of the hand reports every revoke.

Step sequence of a hand: ``shuffle`` x 3 -> ``lock`` x 3 (the deal keys with
them) -> three exchange turns, each with its opening steps -> 39 ``turn``
steps -> ``reveal``. A ``dispute`` (a seat's card did not open) jumps to
``reveal``, where every key and pass is checked.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import ClassVar

from p2pcards.cards import ALL_CARDS, Card
from p2pcards.crypto import group
from p2pcards.errors import IllegalAction, LocalProtocolError
from p2pcards.games.neuf import rules as neuf
from p2pcards.games.neuf.rules import Match, NeufView, Phase
from p2pcards.protocol import faults
from p2pcards.protocol.core import HandCrypto, StepSpec, TableCore
from p2pcards.protocol.events import HandStarted
from p2pcards.protocol.ledger import CardLedger, Pos
from p2pcards.protocol.messages import (
    Body,
    Dispute,
    Keys,
    LeavePile,
    LookAtPile,
    PlayCards,
    Relock,
    Shown,
    TakePile,
    Unlock,
)

GAME_NAME = "neuf"
DUMMY = -1
"""The dummy in the deal order: it belongs to no seat."""


@dataclass(slots=True)
class Opening:
    """Positions being opened to one seat, and the move that asked for it."""

    seat: int
    positions: tuple[Pos, ...]
    move: str  # "look" or "exchange"
    step: int
    layer: int = -1
    unlockers: tuple[int, ...] = ()


@dataclass(slots=True)
class NeufHand(HandCrypto):
    """A hand's positions as Le Neuf uses them."""

    holdings: dict[int, list[Pos]] = field(default_factory=dict)
    dummy: list[Pos] = field(default_factory=list)
    known: dict[Pos, Card] = field(default_factory=dict)  # what this seat has opened
    opening: Opening | None = None


class NeufTable(TableCore):
    """One seat's replica of a match of Le Neuf."""

    GAME = GAME_NAME
    DECISIONS = ("exchange", "turn")
    GAME_STEPS: ClassVar[dict[str, str]] = {
        "deal": "_on_deal",
        "exchange": "_on_exchange",
        "open-keys": "_on_open_keys",
        "relock": "_on_relock",
        "unlock": "_on_unlock",
        "turn": "_on_turn",
    }
    hand: NeufHand | None
    match: Match | None

    def __init__(self, **kwargs: object) -> None:
        roster = kwargs.get("roster")
        # A table that continues without a seat that left may have fewer: it only signs the result.
        if roster is not None and len(roster) != neuf.PLAYERS and kwargs.get("carry") is None:  # type: ignore[arg-type]
            raise LocalProtocolError(f"Le Neuf is for {neuf.PLAYERS} players")
        super().__init__(**kwargs)  # type: ignore[arg-type]

    # -- the hooks of TableCore ----------------------------------------------------

    def _new_hand(self, number: int, secret: bytes | None, ledger: CardLedger) -> NeufHand:
        return NeufHand(number=number, secret=secret, ledger=ledger)

    def _deck_ready(self, rnd: int) -> None:
        if rnd != 0:
            raise LocalProtocolError("Le Neuf deals from one shuffle round")
        self._deal()

    def _game_body(self, kind: str) -> Body | None:
        h = self.hand
        assert h is not None and self.seat is not None
        if kind == "deal":
            return self._keys_body(self._deal_positions(self.seat))
        if kind == "open-keys":
            assert h.opening is not None
            return self._keys_body(self._open_keys_positions(self.seat))
        if kind in ("relock", "unlock"):
            assert h.opening is not None
            points = h.ledger.my_layer_pass(h.opening.layer)
            cls = Relock if kind == "relock" else Unlock
            return cls(layer=h.opening.layer, points=points)
        return None

    def _view(self, hand: neuf.HandState, seat: int, totals: tuple[int, ...]) -> NeufView:
        return NeufView(hand, seat, totals)

    def _replay(self, decks: list[list[int]]) -> neuf.HandState | None:
        h = self.hand
        assert h is not None and self.match is not None
        hand = self.match.hand
        if hand is None:
            return None
        deck = [ALL_CARDS[c] for c in decks[0]]
        actions = [a for a, _ in h.actions]
        replay = neuf.replay_hand(self.rules, hand.dealer, deck, actions, number=hand.number)
        if replay.problems:
            p = replay.problems[0]
            step = h.actions[p.action][1] if p.action is not None else self.step - 1
            if p.trick is not None:
                problem = faults.ILLEGAL_SEEN_IN_TRICK.format(trick=p.trick, detail=p.detail, rule=p.rule)
            else:
                problem = faults.ILLEGAL_SEEN.format(detail=p.detail, rule=p.rule)
            self._fail(p.seat, problem, step=step)
        if not replay.complete and h.dispute is None:
            raise AssertionError("the full replay must end where the replica ended")
        return replay.hand

    # -- the deal ----------------------------------------------------------------------

    def _deal_layout(self) -> tuple[dict[int, list[Pos]], list[Pos]]:
        """Round-0 positions of each seat and of the dummy, in deal order."""
        assert self.match is not None
        dealer = self.match.dealer
        order = [neuf.next_seat(dealer, 1), neuf.next_seat(dealer, 2), dealer, DUMMY]
        holdings: dict[int, list[Pos]] = {s: [] for s in range(self.n)}
        dummy: list[Pos] = []
        for k in range(self.rules.deck_size):
            owner = order[k % len(order)]
            (dummy if owner == DUMMY else holdings[owner]).append((0, k))
        return holdings, dummy

    def _first_to_act(self) -> int | None:
        """The dealer, whose exchange turn comes first."""
        assert self.match is not None
        return self.match.dealer

    def _deal_positions(self, seat: int) -> list[Pos]:
        """Positions whose keys ``seat`` publishes at the deal: the two other hands."""
        holdings, _ = self._deal_layout()
        return sorted(p for s, ps in holdings.items() if s != seat for p in ps)

    def _on_deal(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        h = self.hand
        assert h is not None and self.match is not None
        for seat, body in bodies.items():
            self._store_keys(seat, body, self._deal_positions(seat), step)  # type: ignore[arg-type]
        h.holdings, h.dummy = self._deal_layout()
        deck: list[Card | None] = [None] * self.rules.deck_size
        if self.seat is not None:
            for pos in h.holdings[self.seat]:
                card = h.ledger.open_mine(pos)
                if card is None:
                    h.dispute = (self.seat, faults.DEALT_NOT_CARD.format(pos=pos[1]))
                    continue
                h.known[pos] = ALL_CARDS[card]
            if len(set(h.known.values())) != len(h.known):
                h.dispute = (self.seat, faults.DEALT_TWICE)
            if h.dispute is None:
                for pos, card in h.known.items():
                    deck[pos[1]] = card
        hand = self.match.start_hand(deck)
        self._events.append(HandStarted(hand, self.match.hand_number, False))
        self._next_step()

    # -- choosing the next step ----------------------------------------------------------

    def _next_step(self) -> None:
        assert self.match is not None and self.match.hand is not None
        hand = self.match.hand
        if hand.phase is Phase.OVER:
            self._start_reveal()
        elif hand.phase is Phase.EXCHANGE:
            self._next("exchange", (hand.turn,), LookAtPile, TakePile, LeavePile, Dispute)
        else:
            self._next("turn", (hand.turn,), PlayCards, Dispute)

    def _for_replay(self, action: neuf.Action) -> neuf.Action:
        # The full replay gets the move without what this seat alone saw.
        if isinstance(action, neuf.Look | neuf.Exchange):
            return type(action)(seat=action.seat)
        return action

    def _dry_run(self, action: neuf.Action, seat: int, step: int) -> None:
        """Check a move now, although it is applied once its positions are open."""
        assert self.match is not None and self.match.hand is not None
        try:
            self.match.hand.copy().apply(action)
        except IllegalAction as e:
            self._fail(seat, faults.ILLEGAL_MOVE.format(detail=e.detail, rule=e.rule), step=step)

    # -- the exchanges ---------------------------------------------------------------------

    def _on_exchange(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        h = self.hand
        assert h is not None and self.match is not None and self.match.hand is not None
        seat = spec.authors[0]
        body = bodies[seat]
        if isinstance(body, Dispute):
            h.dispute = (seat, faults.DISPUTED.format(reason=body.reason))
            self._start_reveal()
        elif isinstance(body, LeavePile):
            self._engine_apply(neuf.Decline(seat=seat), seat, step)
            self._next_step()
        elif isinstance(body, LookAtPile):
            self._dry_run(neuf.Look(seat=seat), seat, step)
            self._open_to(Opening(seat, tuple(h.dummy), "look", step))
        elif isinstance(body, TakePile):
            self._dry_run(neuf.Exchange(seat=seat), seat, step)
            looked = self.match.hand.looked
            h.holdings[seat], h.dummy = h.dummy, h.holdings[seat]
            if looked:  # the seat has seen what it takes
                self._engine_apply(neuf.Exchange(seat=seat), seat, step)
                self._next_step()
            else:
                self._open_to(Opening(seat, tuple(h.holdings[seat]), "exchange", step))

    def _open_to(self, opening: Opening) -> None:
        """Open ``opening.positions`` to its seat alone, then finish its move."""
        h = self.hand
        assert h is not None
        h.opening = opening
        pending = {s for p in opening.positions for s in h.ledger.pending(p)}
        if pending <= {opening.seat}:
            self._opened()
        elif opening.seat in pending:
            others = sorted(pending - {opening.seat})
            self._next("open-keys", others, Keys, seat=opening.seat)
        else:
            opening.unlockers = tuple(sorted(pending))
            opening.layer = h.ledger.new_layer(opening.positions, opening.seat, opening.unlockers)
            self._next("relock", (opening.seat,), Relock, seat=opening.seat)

    def _open_keys_positions(self, seat: int) -> list[Pos]:
        h = self.hand
        assert h is not None and h.opening is not None
        return sorted(p for p in h.opening.positions if seat in h.ledger.pending(p))

    def _on_open_keys(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        expected = {seat: self._open_keys_positions(seat) for seat in bodies}
        for seat, body in bodies.items():
            self._store_keys(seat, body, expected[seat], step)  # type: ignore[arg-type]
        self._opened()

    def _layer_pass(self, seat: int, body: Relock | Unlock, step: int) -> None:
        h = self.hand
        assert h is not None and h.opening is not None
        problem = h.ledger.check_layer_pass(h.opening.layer, seat, body.layer, body.points, step)
        if problem is not None:
            self._fail(seat, problem, step=step)

    def _on_relock(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        h = self.hand
        assert h is not None and h.opening is not None
        self._layer_pass(spec.seat, bodies[spec.seat], step)  # type: ignore[arg-type]
        first = h.opening.unlockers[0]
        self._next("unlock", (first,), Unlock, seat=first)

    def _on_unlock(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        h = self.hand
        assert h is not None and h.opening is not None
        self._layer_pass(spec.seat, bodies[spec.seat], step)  # type: ignore[arg-type]
        rest = h.opening.unlockers[h.opening.unlockers.index(spec.seat) + 1 :]
        if rest:
            self._next("unlock", (rest[0],), Unlock, seat=rest[0])
        else:
            self._opened()

    def _opened(self) -> None:
        """The positions are open to their seat: it reads them, and its move is applied."""
        h = self.hand
        assert h is not None and h.opening is not None
        o = h.opening
        h.opening = None
        cards: tuple[Card, ...] | None = None
        if o.seat == self.seat and h.dispute is None:
            cards = self._read_mine(o.positions)
        make = neuf.Look if o.move == "look" else neuf.Exchange
        if cards is not None:
            try:
                self.match.hand.copy().apply(make(seat=o.seat, cards=cards))  # type: ignore[union-attr]
            except IllegalAction as e:
                h.dispute = (o.seat, faults.DUMMY_IMPOSSIBLE.format(detail=e.detail))
                cards = None
        self._engine_apply(make(seat=o.seat, cards=cards), o.seat, o.step)
        self._next_step()

    def _read_mine(self, positions: Sequence[Pos]) -> tuple[Card, ...] | None:
        """Open positions with this seat's own key; None (and a dispute) if one fails."""
        h = self.hand
        assert h is not None and self.seat is not None
        cards = []
        for pos in positions:
            card = h.ledger.open_mine(pos)
            if card is None:
                h.dispute = (self.seat, faults.DUMMY_NOT_CARD.format(pos=pos[1]))
                return None
            cards.append(ALL_CARDS[card])
            h.known[pos] = ALL_CARDS[card]
        return tuple(cards)

    # -- the tricks -----------------------------------------------------------------------

    def _body_for_action(self, action: neuf.Action) -> Body:
        h = self.hand
        assert h is not None and self.seat is not None
        if isinstance(action, neuf.Look):
            return LookAtPile()
        if isinstance(action, neuf.Exchange):
            return TakePile()
        if isinstance(action, neuf.Decline):
            return LeavePile()
        if isinstance(action, neuf.PlayCard):
            for pos in h.holdings[self.seat]:
                if h.known.get(pos) == action.card:
                    shown = Shown(round=pos[0], pos=pos[1], card=int(action.card), key=h.ledger.my_key(pos))
                    return PlayCards(cards=(shown,), suit=None)
            raise LocalProtocolError(f"this seat does not hold {action.card}")
        raise LocalProtocolError(f"cannot send {action!r}")

    def _on_turn(self, spec: StepSpec, bodies: dict[int, Body], step: int) -> None:
        h = self.hand
        assert h is not None and self.match is not None
        seat = spec.authors[0]
        body = bodies[seat]
        if isinstance(body, Dispute):
            h.dispute = (seat, faults.DISPUTED.format(reason=body.reason))
            self._start_reveal()
            return
        if not isinstance(body, PlayCards):
            self._fail(seat, faults.PLAY_WRONG_TYPE.format(kind=body.TYPE), step=step)
        if len(body.cards) != 1 or body.suit is not None:
            self._fail(seat, faults.NEUF_ONE_CARD, step=step)
        shown = body.cards[0]
        pos = (shown.round, shown.pos)
        if pos not in h.holdings[seat]:
            self._fail(seat, faults.NOT_HELD.format(pos=pos), step=step)
        if not 0 < shown.key < group.ORDER:  # checked before the key is used
            self._fail(seat, faults.KEY_OUTSIDE_GROUP, step=step)
        play = neuf.PlayCard(seat=seat, card=ALL_CARDS[shown.card])
        # The claim first (10.4): a card the rules refuse as every seat knows the hand (played
        # already, of a suit its author showed void in) is proof whatever the position holds,
        # where a reveal could be stalled by its author.
        self._engine_check(play, seat, step)
        opened = h.ledger.open(pos, {seat: shown.key})
        if opened is None or opened != shown.card:
            card = ALL_CARDS[shown.card]
            h.dispute = (seat, faults.SHOWED_OTHER.format(card=card, pos=pos))
            self._start_reveal()
            return
        self._engine_apply(play, seat, step)
        h.holdings[seat].remove(pos)
        h.ledger.add_key(pos, seat, shown.key, step)
        self._next_step()
