"""The card ledger: every position of a hand, how it was shuffled and locked, and its keys.

Game-blind mental poker bookkeeping. A hand has one or more *rounds* (round 0
is the deal; a game may add rounds, as Nines does when it recycles the
discards). A round starts from a list of card indices encoded as group
elements; every seat in turn shuffles it, then every seat in turn locks it;
the last lock is the round's face-down deck, and ``(round, index)`` names a
*position*. A position opens when a key of every seat is known for it.

The ledger never blames anyone itself: a check returns the problem as text and
the table turns it into a fault of the seat that wrote the record. Which
positions belong to whom, and who may look, is the game's business.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from p2pcards.crypto import encoding, group, poker
from p2pcards.protocol.messages import KeyShare

Pos = tuple[int, int]
"""A deck position: (round, index in that round's deck)."""


@dataclass(slots=True)
class Round:
    """One shuffle round of a hand."""

    cards: tuple[int, ...]  # card indices in the order they were encoded
    base: tuple[bytes, ...]
    shuffles: dict[int, tuple[bytes, ...]] = field(default_factory=dict)
    locks: dict[int, tuple[bytes, ...]] = field(default_factory=dict)
    keys: dict[int, dict[int, int]] = field(default_factory=dict)  # index -> seat -> key
    key_steps: dict[int, dict[int, int]] = field(default_factory=dict)  # index -> seat -> step

    @property
    def size(self) -> int:
        return len(self.base)


@dataclass(frozen=True, slots=True)
class LedgerFault:
    """A seat's pass or key that does not follow from its revealed secret."""

    seat: int
    problem: str
    step: int


class CardLedger:
    """The positions of one hand at one node (``secret`` is this seat's, None for an observer)."""

    def __init__(self, seats: int, deck_size: int, seat: int | None, secret: bytes | None) -> None:
        self.n = seats
        self.deck_size = deck_size
        self.seat = seat
        self.secret = secret
        self.rounds: list[Round] = []
        self.pass_steps: dict[tuple[str, int, int], int] = {}

    # -- building rounds ---------------------------------------------------------

    def new_round(self, cards: Sequence[int]) -> int:
        """Start a round from ``cards`` (card indices, in order); returns its number."""
        cards = tuple(int(c) for c in cards)
        self.rounds.append(Round(cards=cards, base=encoding.encode_deck(cards)))
        return len(self.rounds) - 1

    def pass_input(self, kind: str, rnd: int, seat: int) -> tuple[bytes, ...]:
        """The deck ``seat`` must shuffle or lock in round ``rnd``."""
        rd = self.rounds[rnd]
        if kind == "shuffle":
            return rd.base if seat == 0 else rd.shuffles[seat - 1]
        return rd.shuffles[self.n - 1] if seat == 0 else rd.locks[seat - 1]

    def my_pass(self, kind: str, rnd: int) -> tuple[bytes, ...]:
        """This seat's shuffle or lock pass of round ``rnd``."""
        assert self.secret is not None and self.seat is not None
        deck_in = self.pass_input(kind, rnd, self.seat)
        make = poker.shuffle_pass if kind == "shuffle" else poker.lock_pass
        return make(self.secret, rnd, deck_in)

    def my_key(self, pos: Pos) -> int:
        assert self.secret is not None
        return poker.lock_key(self.secret, *pos)

    def my_keys(self, positions: Iterable[Pos]) -> tuple[KeyShare, ...]:
        return tuple(KeyShare(round=r, pos=p, key=self.my_key((r, p))) for r, p in positions)

    def check_pass(
        self, kind: str, rnd: int, seat: int, body_round: int, deck: Sequence[bytes], step: int
    ) -> str | None:
        """Record ``seat``'s pass; the problem if it is not a valid deck of this round."""
        rd = self.rounds[rnd]
        if body_round != rnd or len(deck) != rd.size:
            return f"{kind} pass for the wrong round or of the wrong size"
        try:
            poker.check_deck(deck, rd.size)
        except group.InvalidElement as e:
            return f"{kind} pass is not a valid deck: {e}"
        self.pass_steps[(kind, rnd, seat)] = step
        (rd.shuffles if kind == "shuffle" else rd.locks)[seat] = tuple(deck)
        return None

    def store_keys(
        self, seat: int, keys: Sequence[KeyShare], expected: Iterable[Pos], step: int
    ) -> str | None:
        """Record the keys ``seat`` published; the problem if they are for other
        positions or outside the group order (checked before any key is used)."""
        if sorted((k.round, k.pos) for k in keys) != sorted(expected):
            return "published keys for the wrong positions"
        if any(not 0 < k.key < group.ORDER for k in keys):
            return "published a key outside the group order"
        for k in keys:
            self.add_key((k.round, k.pos), seat, k.key, step)
        return None

    def add_key(self, pos: Pos, seat: int, key: int, step: int) -> None:
        rd = self.rounds[pos[0]]
        rd.keys.setdefault(pos[1], {})[seat] = key
        rd.key_steps.setdefault(pos[1], {})[seat] = step

    # -- opening -------------------------------------------------------------------

    def point(self, pos: Pos) -> bytes:
        return self.rounds[pos[0]].locks[self.n - 1][pos[1]]

    def open(self, pos: Pos, extra: Mapping[int, int] | None = None) -> int | None:
        """The card at ``pos`` with every published key (plus ``extra``); None if the
        keys are not all there or the point is not a card of this deck."""
        keys = dict(self.rounds[pos[0]].keys.get(pos[1], {}))
        if extra:
            keys.update(extra)
        if len(keys) != self.n:
            return None
        card = poker.open_card(self.point(pos), keys.values())
        if card is None or card >= self.deck_size:
            return None
        return card

    def open_mine(self, pos: Pos) -> int | None:
        """A position this seat holds, opened with its own key."""
        assert self.seat is not None
        return self.open(pos, {self.seat: self.my_key(pos)})

    # -- the end of the hand ---------------------------------------------------------

    def verify_seat(self, seat: int, secret: bytes) -> LedgerFault | None:
        """The first pass or key of ``seat`` that its revealed secret does not give."""
        for rnd, rd in enumerate(self.rounds):
            if seat in rd.shuffles:
                deck_in = self.pass_input("shuffle", rnd, seat)
                if not poker.verify_shuffle_pass(secret, rnd, deck_in, rd.shuffles[seat]):
                    return LedgerFault(
                        seat, f"dishonest shuffle in round {rnd}", self.pass_steps[("shuffle", rnd, seat)]
                    )
            if seat in rd.locks:
                deck_in = self.pass_input("lock", rnd, seat)
                if not poker.verify_lock_pass(secret, rnd, deck_in, rd.locks[seat]):
                    return LedgerFault(
                        seat, f"dishonest lock in round {rnd}", self.pass_steps[("lock", rnd, seat)]
                    )
            for pos, by_seat in sorted(rd.keys.items()):
                if seat in by_seat and by_seat[seat] != poker.lock_key(secret, rnd, pos):
                    return LedgerFault(
                        seat,
                        f"published a wrong key for position {pos} of round {rnd}",
                        rd.key_steps[pos][seat],
                    )
        return None

    def orders(self, secrets: Mapping[int, bytes]) -> list[list[int]]:
        """Every complete round's cards in deck order, from the revealed secrets
        (once every pass is verified): position i holds base[π_0[π_1[...π_{n-1}[i]]]]."""
        decks: list[list[int]] = []
        for rnd, rd in enumerate(self.rounds):
            if len(rd.locks) != self.n:
                decks.append([])
                continue
            order = list(range(rd.size))
            for seat in reversed(range(self.n)):
                perm = poker.shuffle_permutation(secrets[seat], rnd, rd.size)
                order = [perm[i] for i in order]
            decks.append([rd.cards[i] for i in order])
        return decks
