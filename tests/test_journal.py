"""The write-ahead journal: its format, a torn tail, and a seat that crashes at every
kind of step and comes back from its journal into the same match."""

from __future__ import annotations

import random
from typing import Any

import pytest
import trio
import trio.testing
from hypothesis import given
from hypothesis import strategies as st
from net_helpers import bot
from protocol_helpers import SHORT_RULES, entropy_for, game_id_for, identity_for, make_roster, make_tables

from p2pcards.bots import make_bot
from p2pcards.errors import TranscriptError
from p2pcards.games.base import game
from p2pcards.net.link import Link
from p2pcards.net.runner import run_table
from p2pcards.net.session import Timeouts
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.journal import JournalHeader, encode_header, encode_record, read_journal
from p2pcards.protocol.loopback import LocalNetwork
from p2pcards.protocol.table import TableCore, table_class
from p2pcards.protocol.transcript import encode_file
from p2pcards.protocol.wire import Evidence, SignedRecord, decode_frame

NEUF_RULES = game("neuf").parse_rules(["start=3"])


def header(table: TableCore, seed: int) -> JournalHeader:
    assert table.seat is not None
    return JournalHeader(
        game=table.GAME,
        game_id=table.game_id,
        rules=table.rules.to_dict(),
        roster=table.roster,
        seat=table.seat,
        entropy=entropy_for(table.seat, seed),
        session={"host": "127.0.0.1", "port": 7777},
    )


def build(game_name: str, n: int, seed: int) -> dict[int, TableCore]:
    cls = table_class(game_name)
    rules = SHORT_RULES if game_name == "nines" else NEUF_RULES
    roster = make_roster(n, seed)
    return {
        s: cls(
            game_id=game_id_for(seed),
            roster=roster,
            rules=rules,
            seat=s,
            identity=identity_for(s, seed),
            entropy=entropy_for(s, seed),
        )
        for s in range(n)
    }


def short_journal(seed: int = 0) -> tuple[bytes, list[Any]]:
    tables = build("nines", 2, seed)
    net = LocalNetwork(tables, rng=random.Random(seed))
    net.start()
    records = tables[0].drain_journal()
    data = encode_header(header(tables[0], seed)) + b"".join(encode_record(r) for r in records)
    return data, records


# --- the format ---------------------------------------------------------------------------


def test_a_journal_reads_back_what_was_written() -> None:
    data, records = short_journal()
    assert len(records) >= 4  # joins, cut commitments and reveals of both seats, and more
    got = read_journal(data)
    assert [r.raw for r in got.records] == [r.raw for r in records]
    assert got.header.seat == 0 and got.header.session["port"] == 7777
    assert got.sound == len(data) and got.dropped == 0


def test_a_torn_tail_is_dropped_at_every_cut() -> None:
    data, records = short_journal()
    ends = [len(encode_header(read_journal(data).header))]
    for r in records:
        ends.append(ends[-1] + len(encode_record(r)))
    for cut in range(ends[0], len(data)):
        got = read_journal(data[:cut])
        whole = sum(1 for e in ends[1:] if e <= cut)
        assert len(got.records) == whole
        assert got.sound == ends[whole] and got.sound + got.dropped == cut
        assert not got.damaged  # (a crash in the middle of a write: resumable)


@given(st.data())
def test_a_damaged_entry_ends_the_journal_there(data: st.DataObject) -> None:
    raw, records = short_journal()
    first = len(encode_header(read_journal(raw).header))
    at = data.draw(st.integers(first, len(raw) - 1), label="damaged byte")
    damaged = bytearray(raw)
    damaged[at] ^= data.draw(st.integers(1, 255), label="xor")
    got = read_journal(bytes(damaged))
    assert got.sound <= at
    assert [r.raw for r in got.records] == [r.raw for r in records[: len(got.records)]]


NOT_JOURNALS = [b"", b"\x00\x00\x00\x01", b"hello world", encode_file([], saved_by=0, status="x")]


@pytest.mark.parametrize("data", NOT_JOURNALS)
def test_not_a_journal_is_refused(data: bytes) -> None:
    with pytest.raises(TranscriptError):
        read_journal(data)


def test_a_journal_with_a_bad_header_is_refused() -> None:
    from p2pcards.protocol.journal import encode_entry

    good = header(build("nines", 2, 0)[0], 0).to_wire()
    for damage in ({"seat": 7}, {"entropy": b"short"}, {"version": 2}, {"roster": "x"}):
        with pytest.raises(TranscriptError):
            read_journal(encode_entry({**good, **damage}))


# Guards journal.py read_journal: an entry whose checksum is good but which is not a record
# (written by something else) ends the journal there, as a torn tail does; what follows is
# dropped, even records.
@pytest.mark.parametrize(
    "entry",
    [["not", "a record"], {"raw": b"x", "sig": b"y"}, [b"not a record", bytes(64)], 7],
    ids=["list", "map", "bytes", "int"],
)
def test_an_entry_with_a_good_checksum_that_is_not_a_record_ends_the_journal(entry: Any) -> None:
    from p2pcards.protocol.journal import encode_entry

    data, records = short_journal()
    head = len(encode_header(read_journal(data).header))
    keep = head + sum(len(encode_record(r)) for r in records[:2])
    damaged = data[:keep] + encode_entry(entry) + data[keep:]
    got = read_journal(damaged)
    assert [r.raw for r in got.records] == [r.raw for r in records[:2]]
    assert (got.sound, got.dropped) == (keep, len(damaged) - keep)


# --- a record is made durable before it is sent ----------------------------------------


class WatchedLink(Link):
    """A link that notes every record it sends that its node had not journalled yet."""

    def __init__(self, stream: trio.abc.Stream, journalled: set[bytes], early: list[SignedRecord]) -> None:
        super().__init__(stream)
        self.journalled, self.early = journalled, early
        self.records = 0

    async def send(self, frame: bytes) -> None:
        obj = decode_frame(frame)
        records: tuple[SignedRecord, ...] = ()
        if isinstance(obj, SignedRecord | Evidence):
            records = (obj,) if isinstance(obj, SignedRecord) else obj.records
        self.records += len(records)
        self.early.extend(r for r in records if r.raw not in self.journalled)
        await super().send(frame)


TIMEOUTS = Timeouts(turn=60.0, step=30.0)


# Guards runner.py _flush (write-ahead): a node journals its new records before it sends any frame.
async def test_every_record_a_node_sends_was_journalled_first(autojump_clock: trio.testing.MockClock) -> None:
    n = 3
    tables = make_tables(n, SHORT_RULES, seed=2)
    journalled: dict[int, set[bytes]] = {s: set() for s in range(n)}
    early: dict[int, list[SignedRecord]] = {s: [] for s in range(n)}
    links: dict[int, dict[int, Link]] = {s: {} for s in range(n)}
    watched: list[WatchedLink] = []
    for a in range(n):
        for b in range(a + 1, n):
            x, y = trio.testing.memory_stream_pair()
            links[a][b] = WatchedLink(x, journalled[a], early[a])
            links[b][a] = WatchedLink(y, journalled[b], early[b])
            watched += [links[a][b], links[b][a]]  # type: ignore[list-item]
    statuses: dict[int, str] = {}

    async def seat(s: int) -> None:
        def journal(records: list[SignedRecord]) -> None:
            journalled[s].update(r.raw for r in records)

        result = await run_table(tables[s], links[s], bot(s), timeouts=TIMEOUTS, journal=journal)
        statuses[s] = result.status

    with trio.fail_after(3600):
        async with trio.open_nursery() as nursery:
            for s in range(n):
                nursery.start_soon(seat, s)
    assert statuses == dict.fromkeys(range(n), "over")
    assert all(link.records > 0 for link in watched)
    assert early == {s: [] for s in range(n)}, "records sent before they were journalled"


# --- a seat that crashes and comes back --------------------------------------------------


# Every kind of step a match has (a hand's commitments travel in the reveal before it, and
# its deal keys in the locks, so there is no commit or deal step to crash in).
KINDS = {
    "nines": ["join", "cut-commit", "cut-reveal", "shuffle", "lock", "turn", "draw-keys", "reveal", "result"],
    "neuf": ["join", "cut-reveal", "shuffle", "lock", "exchange", "open-keys", "relock", "unlock", "turn",
             "reveal", "result"],
}  # fmt: skip


class JournalledNetwork(LocalNetwork):
    """Tables linked in memory, each with a write-ahead journal: a table's new records
    are made durable before any frame of it leaves (as the network layer does)."""

    def __init__(self, tables: dict[int, TableCore], seed: int) -> None:
        super().__init__(tables, rng=random.Random(seed))
        self.journals = {s: bytearray(encode_header(header(t, seed))) for s, t in tables.items()}

    def persist(self, seat: int, keep: int | None = None) -> None:
        records = self.tables[seat].drain_journal()
        for r in records[:keep]:
            self.journals[seat].extend(encode_record(r))

    def _collect(self) -> None:
        for seat in self.tables:
            self.persist(seat)
        super()._collect()


class Curious:
    """A random bot that always looks at the dummy when it may (so that looks need relocks)."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def choose(self, view: Any, legal: Any, rng: random.Random) -> Any:
        looks = [a for a in legal if type(a).__name__ == "Look"]
        return looks[0] if looks else self.inner.choose(view, legal, rng)


def play_with_a_crash(game_name: str, n: int, victim: int, kind: str, seed: int, torn: bool) -> Any:
    """Play a match; when the victim's table first stands at a ``kind`` step, it crashes
    (frames not yet sent are lost, frames in flight to or from it too, and with ``torn``
    the write of its last journal entries was cut short) and restarts from its journal."""
    tables = build(game_name, n, seed)
    net = JournalledNetwork(tables, seed)
    bots = {s: Curious(make_bot("random", game_name)) for s in tables}
    rng = random.Random(seed)
    crashed = []

    def crash() -> None:
        old = net.tables[victim]
        pending = len(old.log._journal)
        net.persist(victim, keep=pending // 2 if torn else None)
        if torn:
            net.journals[victim].extend(b"\x00\x00\x01\x00abc")  # the start of an entry, torn
        old.drain()  # never sent
        old.drain_replies()
        for (sender, receiver), queue in net._links.items():
            if victim in (sender, receiver):
                queue.clear()  # the connections broke: what was in flight is lost
        contents = read_journal(bytes(net.journals[victim]))
        assert contents.dropped == (7 if torn else 0)
        del net.journals[victim][contents.sound :]  # a restarted node drops the torn tail
        cls = table_class(contents.header.game)
        new = cls(
            game_id=contents.header.game_id,
            roster=contents.header.roster,
            rules=game(contents.header.game).rules_from_dict(contents.header.rules),
            seat=victim,
            identity=identity_for(victim, seed),
            entropy=contents.header.entropy,
        )
        new.restore(contents.records)
        net.tables[victim] = new
        for s, t in net.tables.items():
            if s != victim:
                for frame in t.link_reset(victim):
                    net.inject(s, victim, frame)
                for frame in new.link_reset(s):
                    net.inject(victim, s, frame)
        crashed.append(old.step)

    for t in tables.values():
        t.start()
    for _ in range(200_000):
        t = net.tables[victim]
        if not crashed and t.status == "running" and t.spec.kind == kind:
            crash()
        moved = False
        for seat, table in net.tables.items():
            if table.my_turn and seat not in net.failures:
                table.act(bots[seat].choose(table.view(), table.legal_actions(), rng))
                moved = True
                break  # one move, then look at the victim again
        if not moved and net.deliver_one():
            moved = True
        if not moved and not net.settle():
            break
    return net, crashed


@pytest.mark.parametrize(
    ("game_name", "kind"), [(g, k) for g, kinds in KINDS.items() for k in kinds]
)  # fmt: skip
def test_a_seat_that_crashes_comes_back_into_the_same_match(game_name: str, kind: str) -> None:
    n = 3
    seed = 11
    restarts = 0
    for victim, torn in ((1, False), (2, True), (0, True)):
        net, crashed = play_with_a_crash(game_name, n, victim, kind, seed, torn)
        if not crashed:
            continue  # this seat's table never waited at such a step between two frames
        restarts += 1
        assert not net.failures, net.failures
        assert {t.status for t in net.tables.values()} == {"over"}
        chains = {tuple(r.raw for r in t.transcript.records()) for t in net.tables.values()}
        assert len(chains) == 1, "the transcripts differ"
        for s, t in net.tables.items():
            report = audit_bytes(encode_file(t.transcript.records(), saved_by=s, status=t.status))
            assert report.valid, report.problems
    assert restarts >= 2, f"fewer than two seats crashed at a {kind} step"


def test_a_restored_seat_never_signs_a_second_record_for_a_step() -> None:
    """Restoring twice from the same journal gives byte-identical records: the journalled
    ones are reused, never signed again with other contents."""
    tables = build("neuf", 3, 5)
    net = LocalNetwork(tables, rng=random.Random(5))
    net.start()
    records = tables[1].drain_journal()
    own = [r for r in records if r.record.seat == 1]
    fresh = build("neuf", 3, 5)[1]
    fresh.restore(records)
    assert fresh.drain() == []  # nothing is re-sent unasked
    mine = [r for r in fresh.transcript.records() + list(fresh.log.current.values()) if r.record.seat == 1]
    assert {r.raw for r in own} <= {r.raw for r in mine}


# Guards journal.py _check_terms: a header whose checksum is good but whose terms are not
# those of the seat's own signed join record (the file was edited, or written by something
# else) is refused as damaged. Rebuilt from it, the table would take the other seats' joins
# for faults of theirs: resuming blamed an honest seat and removed the journal.
@pytest.mark.parametrize(
    "damage",
    [
        {"rules": {}},
        {"game_id": bytes(16)},
        {"session": {"host": "127.0.0.1", "port": 7777, "clock": [1, 1, 1]}},
        {"session": {"host": "127.0.0.1", "port": 7777, "clock": 7}},
        {"game": "neuf"},
    ],
    ids=["rules", "game id", "clock", "clock not a list", "game"],
)
def test_a_header_that_is_not_the_table_its_seat_signed_is_refused(damage: dict[str, Any]) -> None:
    from p2pcards.protocol.journal import encode_entry

    data, records = short_journal()
    head = read_journal(data).header.to_wire()
    body = data[len(encode_entry(head)) :]
    assert len(read_journal(data).records) == len(records)
    with pytest.raises(TranscriptError):
        read_journal(encode_entry({**head, **damage}) + body)


def test_a_header_whose_roster_names_are_not_text_is_refused() -> None:
    from p2pcards.protocol.journal import encode_entry

    good = header(build("nines", 2, 0)[0], 0).to_wire()
    roster = [[5, good["roster"][0][1]], good["roster"][1]]
    with pytest.raises(TranscriptError):
        read_journal(encode_entry({**good, "roster": roster}))
