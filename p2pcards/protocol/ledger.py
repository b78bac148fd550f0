"""The card ledger: every position of a hand, how it was shuffled and locked, and its keys.

Game-blind mental poker bookkeeping. A hand has one or more *rounds* (round 0
is the deal; a game may add rounds, as Nines does when it recycles the
discards). A round starts from a list of card indices encoded as group
elements; every seat in turn shuffles it, then every seat in turn locks it;
the last lock is the round's face-down deck, and ``(round, index)`` names a
*position*. A position opens when a key of every seat is known for it.

Keys published in records are public. To open positions to one seat only
while other seats still hold unpublished locks on them, a game adds a *relock
layer*: that seat locks the positions again with fresh keys, then each seat
with an unpublished lock removes it (an unlock pass); what remains is locked by
the fresh keys and by published keys, so only that seat can open it. Each
position therefore carries a set of *locks*, one per seat for its round plus one
per relock layer, and each lock is either published (its key is in a record)
or pending.

The ledger never blames anyone itself: a check returns the problem as text and
the table turns it into a fault of the seat that wrote the record. Which
positions belong to whom, and who may look, is the game's business.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from p2pcards.crypto import encoding, group, poker
from p2pcards.protocol import faults
from p2pcards.protocol.messages import KeyShare

Pos = tuple[int, int]
"""A deck position: (round, index in that round's deck)."""

ROUND_LOCK = -1
"""The layer number of a seat's lock from the shuffle round itself."""


@dataclass(slots=True)
class Round:
    """One shuffle round of a hand."""

    cards: tuple[int, ...]  # card indices in the order they were encoded
    base: tuple[bytes, ...]
    lock_order: tuple[int, ...]  # the seats in the order they lock (the first locks the last shuffle)
    shuffles: dict[int, tuple[bytes, ...]] = field(default_factory=dict)
    locks: dict[int, tuple[bytes, ...]] = field(default_factory=dict)
    keys: dict[int, dict[int, int]] = field(default_factory=dict)  # index -> seat -> key
    key_steps: dict[int, dict[int, int]] = field(default_factory=dict)  # index -> seat -> step

    @property
    def size(self) -> int:
        return len(self.base)


@dataclass(slots=True)
class Layer:
    """A relock layer: seat ``by`` locks ``positions`` again, then each of
    ``unlockers`` in turn removes its pending lock from them."""

    number: int
    by: int
    positions: tuple[Pos, ...]
    unlockers: tuple[int, ...]
    base: tuple[bytes, ...]
    index: dict[Pos, int]
    passes: list[tuple[int, tuple[bytes, ...]]] = field(default_factory=list)  # (seat, points), in order
    removed: dict[int, tuple[int, ...]] = field(default_factory=dict)  # unlocker -> layer of each lock
    steps: dict[int, int] = field(default_factory=dict)  # seat -> step of its pass
    keys: dict[int, int] = field(default_factory=dict)  # j -> by's published key
    key_steps: dict[int, int] = field(default_factory=dict)

    @property
    def done(self) -> bool:
        return len(self.passes) == 1 + len(self.unlockers)

    def points_in(self, k: int) -> tuple[bytes, ...]:
        """The points the ``k``-th pass (0: the relock) works on."""
        return self.base if k == 0 else self.passes[k - 1][1]


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
        self.layers: list[Layer] = []
        self._points: dict[Pos, bytes] = {}  # positions whose point a layer changed
        self._layer_locks: dict[Pos, list[tuple[int, int]]] = {}  # (seat, layer) added by relocks
        self._removed: dict[Pos, set[tuple[int, int]]] = {}  # (seat, layer) removed by unlocks

    # -- building rounds ---------------------------------------------------------

    def new_round(self, cards: Sequence[int], lock_order: Sequence[int] | None = None) -> int:
        """Start a round from ``cards`` (card indices, in order), locked by the seats in
        ``lock_order`` (seat order if None); returns its number."""
        cards = tuple(int(c) for c in cards)
        order = tuple(range(self.n)) if lock_order is None else tuple(lock_order)
        if sorted(order) != list(range(self.n)):
            raise ValueError(f"a lock order must name every seat once: {order}")
        self.rounds.append(Round(cards=cards, base=encoding.encode_deck(cards), lock_order=order))
        return len(self.rounds) - 1

    def pass_input(self, kind: str, rnd: int, seat: int) -> tuple[bytes, ...]:
        """The deck ``seat`` must shuffle or lock in round ``rnd``."""
        rd = self.rounds[rnd]
        if kind == "shuffle":
            return rd.base if seat == 0 else rd.shuffles[seat - 1]
        i = rd.lock_order.index(seat)
        return rd.shuffles[self.n - 1] if i == 0 else rd.locks[rd.lock_order[i - 1]]

    def my_pass(self, kind: str, rnd: int) -> tuple[bytes, ...]:
        """This seat's shuffle or lock pass of round ``rnd``."""
        assert self.secret is not None and self.seat is not None
        deck_in = self.pass_input(kind, rnd, self.seat)
        make = poker.shuffle_pass if kind == "shuffle" else poker.lock_pass
        return make(self.secret, rnd, deck_in)

    def my_key(self, pos: Pos) -> int:
        """This seat's key for its pending lock on ``pos`` (its round lock if none is pending)."""
        assert self.secret is not None and self.seat is not None
        lock = self.pending_lock(pos, self.seat)
        return self._derive(self.secret, pos, ROUND_LOCK if lock is None else lock[1])

    def _derive(self, secret: bytes, pos: Pos, layer: int) -> int:
        """A seat's key (from its secret) for its lock of ``layer`` on ``pos``."""
        if layer == ROUND_LOCK:
            return poker.lock_key(secret, *pos)
        return poker.relock_key(secret, layer, self.layers[layer].index[pos])

    def my_keys(self, positions: Iterable[Pos]) -> tuple[KeyShare, ...]:
        return tuple(KeyShare(round=r, pos=p, key=self.my_key((r, p))) for r, p in positions)

    def check_pass(
        self, kind: str, rnd: int, seat: int, body_round: int, deck: Sequence[bytes], step: int
    ) -> str | None:
        """Record ``seat``'s pass; the problem if it is not a valid deck of this round."""
        rd = self.rounds[rnd]
        if body_round != rnd or len(deck) != rd.size:
            return faults.PASS_WRONG_ROUND.format(kind=kind)
        try:
            poker.check_deck(deck, rd.size)
        except group.InvalidElement as e:
            return faults.PASS_NOT_DECK.format(kind=kind, error=e)
        self.pass_steps[(kind, rnd, seat)] = step
        (rd.shuffles if kind == "shuffle" else rd.locks)[seat] = tuple(deck)
        return None

    def store_keys(
        self, seat: int, keys: Sequence[KeyShare], expected: Iterable[Pos], step: int
    ) -> str | None:
        """Record the keys ``seat`` published; the problem if they are for other
        positions or outside the group order (checked before any key is used)."""
        if sorted((k.round, k.pos) for k in keys) != sorted(expected):
            return faults.KEYS_WRONG_POSITIONS
        if any(not 0 < k.key < group.ORDER for k in keys):
            return faults.KEY_OUTSIDE_ORDER
        for k in keys:
            self.add_key((k.round, k.pos), seat, k.key, step)
        return None

    def add_key(self, pos: Pos, seat: int, key: int, step: int) -> None:
        """Publish ``seat``'s key for its pending lock on ``pos``."""
        lock = self.pending_lock(pos, seat)
        if lock is not None and lock[1] != ROUND_LOCK:
            layer = self.layers[lock[1]]
            j = layer.index[pos]
            layer.keys[j] = key
            layer.key_steps[j] = step
            return
        rd = self.rounds[pos[0]]
        rd.keys.setdefault(pos[1], {})[seat] = key
        rd.key_steps.setdefault(pos[1], {})[seat] = step

    # -- locks -----------------------------------------------------------------------

    def locks(self, pos: Pos) -> list[tuple[int, int]]:
        """The locks on ``pos`` now, as (seat, layer)."""
        out = [(s, ROUND_LOCK) for s in range(self.n)]
        out.extend(self._layer_locks.get(pos, ()))
        removed = self._removed.get(pos)
        return [lk for lk in out if not removed or lk not in removed]

    def published_key(self, pos: Pos, lock: tuple[int, int]) -> int | None:
        seat, layer = lock
        if layer == ROUND_LOCK:
            return self.rounds[pos[0]].keys.get(pos[1], {}).get(seat)
        lay = self.layers[layer]
        return lay.keys.get(lay.index[pos]) if seat == lay.by else None

    def pending_lock(self, pos: Pos, seat: int) -> tuple[int, int] | None:
        """``seat``'s lock on ``pos`` whose key nobody has published (at most one)."""
        for lock in self.locks(pos):
            if lock[0] == seat and self.published_key(pos, lock) is None:
                return lock
        return None

    def pending(self, pos: Pos) -> tuple[int, ...]:
        """The seats whose key ``pos`` still needs, from the public records alone."""
        return tuple(sorted({s for s, _ in self.locks(pos) if self.pending_lock(pos, s) is not None}))

    # -- relock layers -------------------------------------------------------------

    def new_layer(self, positions: Sequence[Pos], by: int, unlockers: Sequence[int]) -> int:
        """Start a relock layer of ``positions`` for seat ``by``; returns its number."""
        positions = tuple(positions)
        layer = Layer(
            number=len(self.layers),
            by=by,
            positions=positions,
            unlockers=tuple(unlockers),
            base=tuple(self.point(p) for p in positions),
            index={p: j for j, p in enumerate(positions)},
        )
        self.layers.append(layer)
        return layer.number

    def my_layer_pass(self, number: int) -> tuple[bytes, ...]:
        """This seat's next pass of layer ``number``: the relock, or its unlock."""
        assert self.secret is not None and self.seat is not None
        layer = self.layers[number]
        points = layer.points_in(len(layer.passes))
        if not layer.passes:
            return poker.relock_pass(self.secret, number, points)
        keys = [self.my_key(p) for p in layer.positions]
        return poker.unlock_pass(keys, points)

    def check_layer_pass(
        self, number: int, seat: int, body_layer: int, points: Sequence[bytes], step: int
    ) -> str | None:
        """Record ``seat``'s relock or unlock pass of layer ``number``; the problem if it
        is not a valid list of points for it."""
        layer = self.layers[number]
        kind = "unlock" if layer.passes else "relock"
        if body_layer != number or len(points) != len(layer.positions):
            return faults.PASS_WRONG_LAYER.format(kind=kind)
        try:
            poker.check_deck(points, len(layer.positions))
        except group.InvalidElement as e:
            return faults.PASS_NOT_POINTS.format(kind=kind, error=e)
        points = tuple(points)
        if kind == "relock":
            for p in layer.positions:
                self._layer_locks.setdefault(p, []).append((seat, number))
        else:
            removed = []
            for p in layer.positions:
                lock = self.pending_lock(p, seat)
                assert lock is not None, "an unlocker always holds a pending lock"
                self._removed.setdefault(p, set()).add(lock)
                removed.append(lock[1])
            layer.removed[seat] = tuple(removed)
        layer.passes.append((seat, points))
        layer.steps[seat] = step
        for p, x in zip(layer.positions, points, strict=True):
            self._points[p] = x
        return None

    # -- opening -------------------------------------------------------------------

    def point(self, pos: Pos) -> bytes:
        """The point at ``pos`` now (its round's, or the last relock or unlock pass's)."""
        rd = self.rounds[pos[0]]
        return self._points.get(pos) or rd.locks[rd.lock_order[-1]][pos[1]]

    def open(self, pos: Pos, extra: Mapping[int, int] | None = None) -> int | None:
        """The card at ``pos`` with every published key (plus ``extra``: keys of
        seats' pending locks); None if a key is missing or the point is not a
        card of this deck."""
        keys = []
        for lock in self.locks(pos):
            key = self.published_key(pos, lock)
            if key is None and extra is not None:
                key = extra.get(lock[0])
            if key is None:
                return None
            keys.append(key)
        card = poker.open_card(self.point(pos), keys)
        if card is None or card >= self.deck_size:
            return None
        return card

    def open_mine(self, pos: Pos) -> int | None:
        """A position this seat holds, opened with its own pending key."""
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
                        seat,
                        faults.DISHONEST_SHUFFLE.format(round=rnd),
                        self.pass_steps[("shuffle", rnd, seat)],
                    )
            if seat in rd.locks:
                deck_in = self.pass_input("lock", rnd, seat)
                if not poker.verify_lock_pass(secret, rnd, deck_in, rd.locks[seat]):
                    return LedgerFault(
                        seat, faults.DISHONEST_LOCK.format(round=rnd), self.pass_steps[("lock", rnd, seat)]
                    )
            for pos, by_seat in sorted(rd.keys.items()):
                if seat in by_seat and by_seat[seat] != poker.lock_key(secret, rnd, pos):
                    return LedgerFault(
                        seat,
                        faults.WRONG_ROUND_KEY.format(pos=pos, round=rnd),
                        rd.key_steps[pos][seat],
                    )
        for layer in self.layers:
            fault = self._verify_layer(layer, seat, secret)
            if fault is not None:
                return fault
        return None

    def _verify_layer(self, layer: Layer, seat: int, secret: bytes) -> LedgerFault | None:
        n = layer.number
        for k, (author, points) in enumerate(layer.passes):
            if author != seat:
                continue
            if k == 0:
                ok = poker.verify_relock_pass(secret, n, layer.base, points)
            else:
                removed = zip(layer.positions, layer.removed[seat], strict=True)
                keys = [self._derive(secret, p, lay) for p, lay in removed]
                ok = poker.verify_unlock_pass(keys, layer.points_in(k), points)
            if not ok:
                kind = "unlock" if k else "relock"
                return LedgerFault(seat, faults.DISHONEST_LAYER.format(kind=kind, layer=n), layer.steps[seat])
        if seat == layer.by:
            for j, key in sorted(layer.keys.items()):
                if key != poker.relock_key(secret, n, j):
                    return LedgerFault(
                        seat, faults.WRONG_LAYER_KEY.format(item=j, layer=n), layer.key_steps[j]
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
