"""What one seat may see of a hand: the only thing a bot or a UI is given."""

from __future__ import annotations

from p2pcards.cards import Card
from p2pcards.games.nines import Action, HandState, NinesRules, Phase


class SeatView:
    """A read-only window on a hand for ``seat``: public state plus its own cards.

    It never exposes other seats' cards or the stock order, so a strategy built
    on it cannot cheat even when the engine underneath has full information.
    """

    __slots__ = ("_hand", "seat", "totals")

    def __init__(self, hand: HandState, seat: int, totals: tuple[int, ...] = ()) -> None:
        self._hand = hand
        self.seat = seat
        self.totals = totals

    @property
    def my_cards(self) -> tuple[Card, ...]:
        return tuple(c for c in self._hand.hands[self.seat] if c is not None)

    @property
    def top(self) -> Card:
        return self._hand.top

    @property
    def active_suit(self) -> str:
        return self._hand.active_suit

    @property
    def phase(self) -> Phase:
        return self._hand.phase

    @property
    def stock_size(self) -> int:
        return len(self._hand.stock)

    @property
    def discards(self) -> tuple[Card, ...]:
        return tuple(self._hand.discards)

    @property
    def rules(self) -> NinesRules:
        """The rule options in force (public: every seat agreed to them)."""
        return self._hand.rules

    @property
    def up_card(self) -> Card:
        """The card turned up at the deal (it stays public after recycles)."""
        return self._hand.up_card

    @property
    def seats(self) -> tuple[int, ...]:
        return self._hand.seats

    @property
    def players(self) -> int:
        return self._hand.players

    def count(self, seat: int) -> int:
        return len(self._hand.hands[seat])

    def next_seat(self, seat: int, steps: int = 1) -> int:
        return self._hand.next_seat(seat, steps)

    @property
    def events(self) -> tuple[Action, ...]:
        """Public history of the hand; cards drawn by other seats are hidden."""
        from p2pcards.games.nines import Draw, Recycle

        out: list[Action] = []
        for e in self._hand.events:
            if isinstance(e, Draw) and e.seat != self.seat and e.card is not None:
                e = Draw(seat=e.seat, card=None, forced=e.forced)
            elif isinstance(e, Recycle):
                e = Recycle(stock=tuple(None for _ in e.stock))
            out.append(e)
        return tuple(out)
