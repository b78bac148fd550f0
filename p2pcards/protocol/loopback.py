"""Tables linked in memory: the local game and the protocol tests run a match here.

No sockets: every frame a table drains is queued on a FIFO link to every other
table, and :meth:`LocalNetwork.pump` delivers them (in a seeded random
interleaving across links, as a real network might) until nothing moves. A
``tamper`` hook lets tests play a dishonest network or peer.
"""

from __future__ import annotations

import random
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from p2pcards.errors import RemoteProtocolError
from p2pcards.protocol.table import TableCore as Table


class Strategy(Protocol):
    """Anything that picks one of ``legal`` from a seat's view (a bot)."""

    def choose(self, view: Any, legal: Sequence[Any], rng: random.Random) -> Any: ...


Tamper = Callable[[int, int, bytes], bytes | None]
"""``tamper(sender, receiver, frame)`` returns the frame to deliver, or None to drop it."""


@dataclass
class LocalNetwork:
    tables: dict[int, Table]
    rng: random.Random = field(default_factory=lambda: random.Random(0))
    tamper: Tamper | None = None
    failures: dict[int, RemoteProtocolError] = field(default_factory=dict)
    frames: int = 0
    bytes_sent: int = 0
    _links: dict[tuple[int, int], deque[bytes]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        seats = list(self.tables)
        self._links = {(a, b): deque() for a in seats for b in seats if a != b}

    def _collect(self) -> None:
        for sender, table in self.tables.items():
            for frame in table.drain():
                for receiver in self.tables:
                    if receiver != sender:
                        self._queue(sender, receiver, frame)
            for receiver, frames in table.drain_replies().items():
                for frame in frames:
                    self._queue(sender, receiver, frame)

    def _queue(self, sender: int, receiver: int, frame: bytes) -> None:
        out = frame if self.tamper is None else self.tamper(sender, receiver, frame)
        if out is not None:
            self.frames += 1
            self.bytes_sent += len(out)
            self._links[(sender, receiver)].append(out)

    def deliver_one(self) -> bool:
        """Deliver one queued frame (from a random busy link); False when all are empty."""
        self._collect()
        # Like a node's runner, a seat reads nothing more while its own decision is
        # due: it never stops for someone else's fault while it owes a record.
        busy = [link for link, q in self._links.items() if q and not self.tables[link[1]].my_turn]
        if not busy:
            return False
        sender, receiver = busy[self.rng.randrange(len(busy))]
        frame = self._links[(sender, receiver)].popleft()
        if receiver not in self.failures:
            try:
                self.tables[receiver].receive(sender, frame)
            except RemoteProtocolError as e:
                self.failures[receiver] = e
        self._collect()
        return True

    def inject(self, sender: int, receiver: int, frame: bytes) -> None:
        """Queue ``frame`` on one link only (a seat that tells one peer something)."""
        self._links[(sender, receiver)].append(frame)

    def pump(self) -> None:
        """Deliver frames until every link is empty."""
        while self.deliver_one():
            pass

    def settle(self) -> bool:
        """Every stalled table asks its peers for the records it lacks (as a node does
        when a wait runs long); True if that moved a table. If not, the waits run
        out: a disputed table concludes (blames its suspect); others stay as they are."""
        before = {s: (t.step, t.status) for s, t in self.tables.items()}
        for seat, table in self.tables.items():
            if seat not in self.failures and table.status in ("running", "disputed"):
                table.nudge()
        self.pump()
        if any((t.step, t.status) != before[s] for s, t in self.tables.items()):
            return True
        for seat, table in self.tables.items():
            if seat not in self.failures and table.status == "disputed":
                try:
                    table.conclude_stalled()
                except RemoteProtocolError as e:
                    self.failures[seat] = e
        self.pump()
        return False

    def start(self) -> None:
        for table in self.tables.values():
            table.start()
        self.pump()


def play_bots(
    net: LocalNetwork,
    bots: Mapping[int, Strategy],
    rng: random.Random,
    *,
    max_rounds: int = 1_000_000,
    start: bool = True,
) -> None:
    """Drive every table with its bot until the match ends or nothing can move
    (``start=False``: the tables were started already)."""
    if start:
        net.start()
    for _ in range(max_rounds):
        moved = False
        for seat, table in net.tables.items():
            if seat in net.failures or not table.my_turn:
                continue
            view = table.view()
            legal = table.legal_actions()
            if view is None or not legal:
                continue
            try:
                table.act(bots[seat].choose(view, legal, rng))
            except RemoteProtocolError as e:
                net.failures[seat] = e
            moved = True
            net.pump()
        if not moved and not net.settle():
            return

