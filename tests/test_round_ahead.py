"""A hand's round 0 is shuffled and locked while the hand before it is played
(protocol.md section 5, *Round 0 ahead*): each pass rides in a turn or draw-keys
record of that hand, its deal keys in the reveal, so a hand that follows a hand
waits only for the players. Every pass is still checked when the record that
carries it completes, and against its author's secret at its own hand's reveal;
a seat that sends a bad one is blamed, an honest one never; a seat that crashes
in the middle of it comes back; the audit follows.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import itertools
import random
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from protocol_helpers import (
    entropy_for,
    game_id_for,
    identity_for,
    make_roster,
    make_tables,
    run_match,
    transcript_bytes,
)

from p2pcards.bots import make_bot
from p2pcards.crypto import group
from p2pcards.crypto.encoding import encode_deck
from p2pcards.errors import RemoteProtocolError
from p2pcards.games.base import game
from p2pcards.games.neuf.adapter import NeufTable
from p2pcards.games.neuf.rules import NeufRules
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import NinesRules
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.journal import JournalHeader, encode_header, encode_record, read_journal
from p2pcards.protocol.loopback import LocalNetwork, play_bots
from p2pcards.protocol.messages import AheadPass, Body, KeyShare, Reveal
from p2pcards.protocol.table import TableCore
from p2pcards.protocol.transcript import encode_file

CHEAT = 1
RULES = NinesRules(hands=2)


def steps_of(table: TableCore) -> list[tuple[str, tuple[int, ...]]]:
    """(kind, authors) of every step of ``table``'s transcript, as an observer replays it."""
    observer = type(table)(game_id=table.game_id, roster=table.roster, rules=table.rules, seat=None)
    out = []
    for records in table.transcript.steps:
        kind = observer.spec.kind
        out.append((kind, tuple(rec.record.seat for rec in records)))
        try:
            for rec in records:
                observer.receive_record(rec)
        except RemoteProtocolError:
            break
    return out


def hand_kinds(table: TableCore) -> list[list[str]]:
    """The step kinds of each hand (after the cut's reveal or a hand's, through its reveal)."""
    hands: list[list[str]] = []
    current: list[str] | None = None
    for kind, _ in steps_of(table):
        if kind in ("cut-reveal", "reveal"):
            if current is not None:
                hands.append([*current, kind])
            current = []
        elif current is not None and kind != "result":
            current.append(kind)
    return hands


def carried(table: TableCore) -> list[tuple[int, int, str]]:
    """(step, seat, kind) of every pass of a next hand carried in the transcript."""
    return [
        (r.record.step, r.record.seat, r.record.body.ahead.kind)  # type: ignore[attr-defined]
        for r in table.transcript.records()
        if getattr(r.record.body, "ahead", None) is not None
    ]


def finished_alike(tables: dict[int, Any], net: LocalNetwork) -> None:
    assert not net.failures, net.failures
    assert {t.status for t in tables.values()} == {"over"}
    assert len({tuple(r.raw for r in t.transcript.records()) for t in tables.values()}) == 1
    for t in tables.values():
        report = audit_bytes(transcript_bytes(t))
        assert report.valid, report.problems
        assert report.hands_verified == len(t.match.results)


def without_ahead(cls: type[Table]) -> type[Table]:
    class WithoutAhead(cls):  # type: ignore[valid-type,misc]
        AHEAD_STEPS = ()

    return WithoutAhead


def blamed_by_the_others(net: LocalNetwork, tables: dict[int, Any], cheat: int, words: str) -> None:
    for s, table in tables.items():
        if s != cheat:
            err = net.failures.get(s) or table.failure
            assert err is not None and err.peer == cheat and words in err.problem, (s, err)
            report = audit_bytes(transcript_bytes(table))
            assert not report.valid and report.problems[0].seat == cheat, report.problems
            assert words in report.problems[0].what, report.problems[0].what


# -- the order and what it saves ---------------------------------------------------------------


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_the_next_hands_round_0_rides_in_this_hands_records_in_its_fixed_order(players: int) -> None:
    tables = make_tables(players, RULES, 3)
    finished_alike(tables, run_match(tables, 3))  # type: ignore[arg-type]
    passes = carried(tables[0])
    # Every seat's shuffle from seat 0 on, then every lock from seat n-1 on, each in a later step.
    locks = (players - 1, *range(players - 1))
    order = [("shuffle", s) for s in range(players)] + [("lock", s) for s in locks]
    reveal = steps_of(tables[0]).index(("reveal", tuple(range(players))))
    first_hand = [p for p in passes if p[0] < reveal]
    assert [(kind, seat) for _, seat, kind in first_hand] == order
    assert all(a[0] < b[0] for a, b in itertools.pairwise(first_hand))
    # ... so hand 2 has no shuffle or lock step: the first move follows the reveal, dealt at once.
    hands = hand_kinds(tables[0])
    assert "shuffle" not in hands[1] and "lock" not in hands[1] and "deal" not in hands[1]
    assert hands[1][0] == "turn"
    # Hand 1 (after the cut) is shuffled and locked in steps of its own, as before.
    assert hands[0][: 2 * players - 1] == ["shuffle"] * (players - 1) + ["lock"] * players


def test_a_hand_after_a_hand_saves_its_round_0_steps_and_trips() -> None:
    for players in (3, 6):
        ahead = make_tables(players, RULES, 1)
        finished_alike(ahead, run_match(ahead, 1))  # type: ignore[arg-type]
        classes = dict.fromkeys(range(players), without_ahead(Table))
        apart = make_tables(players, RULES, 1, table_classes=classes)
        finished_alike(apart, run_match(apart, 1))  # type: ignore[arg-type]
        with_kinds, without_kinds = hand_kinds(ahead[0]), hand_kinds(apart[0])
        assert with_kinds[0] == without_kinds[0]  # the same first hand
        # The same second hand (same cards, same moves), 2n - 1 steps fewer: n - 1 shuffles, n locks.
        assert [k for k in without_kinds[1] if k not in ("shuffle", "lock")] == with_kinds[1]
        assert len(without_kinds[1]) - len(with_kinds[1]) == 2 * players - 1
        assert ahead[0].match.results == apart[0].match.results  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "scripts" / "bench.py"
    if str(path.parent) not in sys.path:  # its groups are the benches package beside it
        sys.path.insert(0, str(path.parent))
    spec = importlib.util.spec_from_file_location("p2pcards_bench_for_tests", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_a_6_seat_hand_after_a_hand_takes_less_virtual_time_at_100_ms(bench: ModuleType) -> None:
    """Every seat runs ``run_table`` over links that delay each frame 100 ms (virtual time)."""
    latency = sys.modules["benches.latency"]
    run = latency.run_delayed(6, RULES, Table, 0.1, seed=1)
    before = latency.run_delayed(6, RULES, without_ahead(Table), 0.1, seed=1)
    assert run.hand_steps[0] == before.hand_steps[0] and run.hands_s[0] == pytest.approx(before.hands_s[0])
    assert run.hand_steps[1] == before.hand_steps[1] - 11
    # 11 steps fewer, 10 of them a trip of their own (seat 5 locks right after its shuffle).
    assert before.hands_s[1] - run.hands_s[1] == pytest.approx(1.0, abs=0.05)
    kinds = [s.kind for s in run.steps]
    second = kinds[kinds.index("reveal") + 1 :]
    assert "shuffle" not in second and "lock" not in second
    # The hand after the first waits on the players alone: each of its steps is a turn,
    # the keys of a card drawn, or its reveal, one trip each.
    secs, steps, own = latency._later_hands(run)
    assert own == steps and secs[0] == pytest.approx(0.1 * steps[0], abs=0.05)


def test_with_playoffs_possible_the_deal_keys_wait_for_a_deal_step() -> None:
    """Which seats play a playoff hand is known only once the hand before is scored: with
    ``tie=playoff`` no reveal carries deal keys, and a ``deal`` step follows it."""
    rules = NinesRules(hands=2, tie="playoff")
    tables = make_tables(3, rules, 3)
    finished_alike(tables, run_match(tables, 3))  # type: ignore[arg-type]
    hands = hand_kinds(tables[0])
    assert "deal" not in hands[0] and hands[1][0] == "deal" and "lock" not in hands[1]
    reveals = [r for r in tables[0].transcript.records() if isinstance(r.record.body, Reveal)]
    assert all(r.record.body.keys is None for r in reveals)  # type: ignore[attr-defined]


# -- hostile records in the overlapped phase ---------------------------------------------------


class ShufflesOutOfTurn(Table):
    """Seat 1 sends a shuffle pass of the next hand at once, before seat 0's."""

    def _with_ahead(self, body: Body) -> Body:
        a = self.ahead
        if a is not None and not a.done and self.spec.kind in self.AHEAD_STEPS and hasattr(body, "ahead"):
            deck = encode_deck(range(self.rules.deck_size))[::-1]  # a valid deck: only its turn is wrong
            nxt = self._next_commitment(a.number)
            ahead = AheadPass(kind="shuffle", deck=deck, next=nxt)
            return dataclasses.replace(body, ahead=ahead)  # type: ignore[type-var]
        return super()._with_ahead(body)


class Tampered(Table):
    """Seat 1's carried pass of the next hand, changed by ``change``."""

    change: Any = None

    def _with_ahead(self, body: Body) -> Body:
        body = super()._with_ahead(body)
        ahead = getattr(body, "ahead", None)
        if ahead is None:
            return body
        return dataclasses.replace(body, ahead=type(self).change(ahead))  # type: ignore[type-var]


def tampered(change: Any) -> type[Table]:
    return type("TamperedAhead", (Tampered,), {"change": staticmethod(change)})


def play(cheat_cls: type[Table], seed: int = 3) -> tuple[dict[int, Any], LocalNetwork]:
    tables = make_tables(3, RULES, seed, table_classes={CHEAT: cheat_cls})
    return tables, run_match(tables, seed)


def test_a_pass_of_the_next_hand_out_of_its_turn_is_blamed_when_its_step_completes() -> None:
    tables, net = play(ShufflesOutOfTurn)
    blamed_by_the_others(net, tables, CHEAT, "out of its turn")
    for s in (0, 2):
        assert steps_of(tables[s])[-1] == ("turn", (CHEAT,)) or steps_of(tables[s])[-1][0] == "draw-keys"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda a: dataclasses.replace(a, deck=(a.deck[0], *a.deck[:-1])), "not a valid deck"),  # repeat
        (lambda a: dataclasses.replace(a, deck=a.deck[:-1]), "wrong size"),
        (lambda a: dataclasses.replace(a, deck=(b"\xff" * 32, *a.deck[1:])), "not a valid deck"),
        (lambda a: dataclasses.replace(a, next=None if a.kind == "shuffle" else bytes(32)), "commitment"),
        (lambda a: dataclasses.replace(a, kind={"shuffle": "lock"}.get(a.kind, "shuffle")), "its turn"),
    ],
    ids=["repeated-element", "short", "invalid-element", "commitment", "wrong-kind"],
)
def test_a_malformed_pass_of_the_next_hand_is_blamed_on_its_author_at_once(change: Any, words: str) -> None:
    tables, net = play(tampered(change))
    blamed_by_the_others(net, tables, CHEAT, words)
    for s in (0, 2):
        assert tables[s].match.results == []  # found during hand 1, not at hand 2's reveal
        assert steps_of(tables[s])[-1][1].count(CHEAT) == 1


def test_a_dishonest_pass_of_the_next_hand_is_blamed_at_that_hands_reveal() -> None:
    """A valid-looking deck that its author's secret does not give: found when the hand it
    shuffled is revealed, and blamed on the author of the record that carried it."""
    swap = tampered(lambda a: dataclasses.replace(a, deck=(a.deck[1], a.deck[0], *a.deck[2:])))
    tables, net = play(swap)
    blamed_by_the_others(net, tables, CHEAT, "shuffle")
    for s in (0, 2):
        assert len(tables[s].match.results) == 1 and tables[s].hand.number == 2
        report = audit_bytes(transcript_bytes(tables[s]))
        index = report.problems[0].record
        assert index is not None
        rec = tables[s].transcript.records()[index]
        assert rec.record.seat == CHEAT and getattr(rec.record.body, "ahead", None) is not None


class CommitsTwice(Table):
    """Its reveal commits to another secret for the next hand than its carried shuffle did."""

    def _author(self, body: Body) -> None:
        if isinstance(body, Reveal) and self.hand is not None and self.hand.number == 1:
            body = dataclasses.replace(body, next=bytes(32))
        super()._author(body)


class KeysWithoutItsLock(Table):
    """Never carries its lock pass of the next hand, yet sends deal keys with its reveal."""

    def _with_ahead(self, body: Body) -> Body:
        a = self.ahead
        if a is not None and a.due() == ("lock", self.seat):
            return body
        return super()._with_ahead(body)

    def _ahead_keys(self, number: int) -> Any:
        assert self.ahead is not None
        positions = self._next_deal_positions(self.seat)  # type: ignore[arg-type]
        return self.ahead.ledger.my_keys(positions)  # type: ignore[arg-type]


class KeysInTheCutReveal(Table):
    """Sends deal keys with its reveal of the cut, before any pass of the first hand."""

    def _author(self, body: Body) -> None:
        if isinstance(body, Reveal) and self.hand is None:
            body = dataclasses.replace(body, keys=(KeyShare(round=0, pos=0, key=1),))
        super()._author(body)


class NothingAheadButKeys(Table):
    """Seat 0 that never carries a pass of the next hand (so nobody can), yet sends deal keys
    with its reveal of hand 1."""

    def _with_ahead(self, body: Body) -> Body:
        return body

    def _author(self, body: Body) -> None:
        if isinstance(body, Reveal) and self.hand is not None and self.hand.number == 1:
            body = dataclasses.replace(body, keys=(KeyShare(round=0, pos=0, key=1),))
        super()._author(body)


class KeysOneShort(Table):
    """Its reveal's deal keys leave out the up card's."""

    def _ahead_keys(self, number: int) -> Any:
        keys = super()._ahead_keys(number)
        return None if keys is None else keys[:-1]


class WrongKeyInItsReveal(Table):
    """Its reveal's deal key for the next seat's first card is wrong: only that seat sees
    its card fail to open; the reveal of that hand names the key's author."""

    def _ahead_keys(self, number: int) -> Any:
        keys = super()._ahead_keys(number)
        if keys is None:
            return None
        victim = (CHEAT + 1) % self.n
        nxt = self._deal_order((self.match.dealer + 1) % self.n, None)  # type: ignore[union-attr]
        target = self._deal_layout(nxt)[0][victim][0]
        return tuple(
            dataclasses.replace(k, key=k.key * 3 % group.ORDER) if (k.round, k.pos) == target else k
            for k in keys
        )


def test_a_reveal_that_commits_otherwise_than_the_carried_shuffle_is_blamed() -> None:
    tables, net = play(CommitsTwice)
    blamed_by_the_others(net, tables, CHEAT, "another secret")


def test_deal_keys_in_a_reveal_before_the_lock_pass_are_blamed() -> None:
    tables, net = play(KeysWithoutItsLock)
    blamed_by_the_others(net, tables, CHEAT, "before its lock pass")


def test_deal_keys_in_the_cut_reveal_are_blamed() -> None:
    tables, net = play(KeysInTheCutReveal)
    blamed_by_the_others(net, tables, CHEAT, "before its lock pass")
    for s in (0, 2):
        assert tables[s].match.results == [] and steps_of(tables[s])[-1][0] == "cut-reveal"


def test_deal_keys_in_a_reveal_when_nothing_was_carried_ahead_are_blamed() -> None:
    tables = make_tables(3, RULES, 3, table_classes={0: NothingAheadButKeys})
    net = run_match(tables, 3)
    blamed_by_the_others(net, tables, 0, "before its lock pass")
    for s in (1, 2):
        assert len(tables[s].match.results) == 1 and steps_of(tables[s])[-1][0] == "reveal"


def test_deal_keys_for_other_positions_in_a_reveal_are_blamed_at_the_reveal() -> None:
    tables, net = play(KeysOneShort)
    blamed_by_the_others(net, tables, CHEAT, "wrong positions")
    for s in (0, 2):
        assert steps_of(tables[s])[-1][0] == "reveal" and len(tables[s].match.results) == 1


def test_a_wrong_deal_key_in_a_reveal_is_blamed_on_its_author_at_the_next_reveal() -> None:
    tables, net = play(WrongKeyInItsReveal)
    blamed_by_the_others(net, tables, CHEAT, "wrong key")
    for s in (0, 2):
        assert tables[s].hand.number == 2


class NeufKeysAhead(NeufTable):
    """A seat of Le Neuf (whose hands shuffle in steps of their own) that adds a pass of
    the next hand to every record that has room for one."""

    def _author(self, body: Body) -> None:
        if hasattr(body, "ahead"):
            deck = encode_deck(range(self.rules.deck_size))
            body = dataclasses.replace(body, ahead=AheadPass(kind="shuffle", deck=deck, next=bytes(32)))
        super()._author(body)


def test_a_pass_of_the_next_hand_where_no_step_may_carry_one_is_blamed() -> None:
    roster = make_roster(3, 7)
    classes = {CHEAT: NeufKeysAhead}
    tables = {
        s: classes.get(s, NeufTable)(
            game_id=game_id_for(7),
            roster=roster,
            rules=NeufRules(start=2),
            seat=s,
            identity=identity_for(s, 7),
            entropy=entropy_for(s, 7),
        )
        for s in range(3)
    }
    net = LocalNetwork(tables, rng=random.Random(7))  # type: ignore[arg-type]
    play_bots(net, {s: make_bot("random", "neuf") for s in tables}, random.Random(7))
    blamed_by_the_others(net, tables, CHEAT, "carries a pass of the next hand")


# -- a seat that crashes while the next hand's round 0 is under way ----------------------------


def journalled(tables: dict[int, Any], seed: int) -> tuple[LocalNetwork, dict[int, bytearray]]:
    """Tables linked in memory, each with a write-ahead journal made durable before any
    frame of it leaves (as the network layer does)."""
    net = LocalNetwork(tables, rng=random.Random(seed))
    journals = {
        s: bytearray(
            encode_header(
                JournalHeader(
                    game=t.GAME,
                    game_id=t.game_id,
                    rules=t.rules.to_dict(),
                    roster=t.roster,
                    seat=s,
                    entropy=entropy_for(s, seed),
                    session={"host": "127.0.0.1", "port": 7777},
                )
            )
        )
        for s, t in tables.items()
    }
    collect = net._collect

    def journalled_collect() -> None:
        for seat in net.tables:
            persist(net, journals, seat)
        collect()

    net._collect = journalled_collect  # type: ignore[method-assign]
    return net, journals


def persist(net: LocalNetwork, journals: dict[int, bytearray], seat: int) -> None:
    for r in net.tables[seat].drain_journal():
        journals[seat].extend(encode_record(r))


def crash_and_restore(net: LocalNetwork, journals: dict[int, bytearray], victim: int, seed: int) -> None:
    """The victim crashes (what it had not sent, and what was in flight, is lost) and
    comes back from its journal, linked again with every peer."""
    old = net.tables[victim]
    persist(net, journals, victim)
    old.drain()
    old.drain_replies()
    for (sender, receiver), queue in net._links.items():
        if victim in (sender, receiver):
            queue.clear()
    contents = read_journal(bytes(journals[victim]))
    new = Table(
        game_id=contents.header.game_id,
        roster=contents.header.roster,
        rules=game("nines").rules_from_dict(contents.header.rules),
        seat=victim,
        identity=identity_for(victim, seed),
        entropy=contents.header.entropy,
    )
    new.restore(contents.records)
    # Back where it was: the same passes of the next hand made, the same one due.
    assert old.ahead is not None and new.ahead is not None
    assert new.ahead.done == old.ahead.done and new.ahead.commits == old.ahead.commits
    net.tables[victim] = new
    for s, other in net.tables.items():
        if s != victim:
            for frame in other.link_reset(victim):
                net.inject(s, victim, frame)
            for frame in new.link_reset(s):
                net.inject(victim, s, frame)


@pytest.mark.parametrize("victim", [0, 1, 2])
def test_a_seat_that_crashes_midway_through_the_next_hands_round_0_comes_back(victim: int) -> None:
    seed = 3
    tables = make_tables(3, RULES, seed)
    net, journals = journalled(tables, seed)  # type: ignore[arg-type]
    bots = {s: make_bot("random", "nines") for s in tables}
    rng = random.Random(seed)
    crashed = False

    def midway(t: Any) -> bool:
        a = t.ahead
        return t.status == "running" and a is not None and 2 <= len(a.done) < len(a.order) - 1

    for t in tables.values():
        t.start()
    for _ in range(200_000):
        if not crashed and midway(net.tables[victim]):
            crash_and_restore(net, journals, victim, seed)
            crashed = True
        moved = False
        for seat, table in net.tables.items():
            if table.my_turn and seat not in net.failures:
                table.act(bots[seat].choose(table.view(), table.legal_actions(), rng))
                moved = True
                break
        if not moved and net.deliver_one():
            moved = True
        if not moved and not net.settle():
            break
    assert crashed, "the victim never stood midway through the next hand's round 0"
    assert not net.failures, net.failures
    assert {t.status for t in net.tables.values()} == {"over"}
    assert len({tuple(r.raw for r in t.transcript.records()) for t in net.tables.values()}) == 1
    for s, t in net.tables.items():
        report = audit_bytes(encode_file(t.transcript.records(), saved_by=s, status=t.status))
        assert report.valid, report.problems
    assert "shuffle" not in hand_kinds(net.tables[0])[1]


def test_the_latency_group_prints_its_rows_as_json_with_the_table_beside(
    bench: ModuleType, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``scripts/bench.py --only latency --json``: a list of rows on stdout, the table on stderr."""
    import json

    def fake(quick: bool) -> list[Any]:
        bench.LATENCY_JSON[:] = [
            {"game": "nines", "players": 6, "steps_per_hand": 43.0, "seconds_per_hand_at_100ms": 4.3}
        ]
        return [bench.Row(area="latency", measure="Nines, 6 players", value="4.30 s")]

    monkeypatch.setitem(bench.GROUPS, "latency", ("latency", fake))
    assert bench.main(["--only", "latency", "--json"]) == 0
    out, err = capsys.readouterr()
    rows = json.loads(out)
    assert rows == [{"game": "nines", "players": 6, "steps_per_hand": 43.0, "seconds_per_hand_at_100ms": 4.3}]
    assert "Nines, 6 players" in err and "4.30 s" in err
    assert bench.main(["--only", "latency"]) == 0  # without --json: the table alone, on stdout
    out, _ = capsys.readouterr()
    assert "Nines, 6 players" in out and not out.lstrip().startswith("[")


# -- the audit of edited passes carried ahead (as tests/test_audit_mutations.py does) ---------


def honest_records() -> list[Any]:
    from protocol_helpers import RawRecord, honest_transcript

    from p2pcards.protocol.transcript import decode_file

    data = honest_transcript(3, RULES, 3)
    return [RawRecord(raw, sig) for raw, sig in decode_file(data).records]  # type: ignore[arg-type]


def carriers(records: list[Any]) -> list[tuple[int, dict[str, Any]]]:
    from protocol_helpers import record_map

    out = []
    for i, r in enumerate(records):
        obj = record_map(r.raw)
        if isinstance(obj.get("body"), dict) and "ahead" in obj["body"]:
            out.append((i, obj))
    return out


def audit_edit(records: list[Any], i: int, obj: dict[str, Any], *, rechained: bool) -> Any:
    from protocol_helpers import raw_records_file, rechain, sign_map

    edited = [*records[:i], sign_map(obj, obj["seat"], 3), *records[i + 1 :]]
    if rechained:
        edited = rechain(edited, i, 3)
    return audit_bytes(raw_records_file(edited))


EDITS: list[tuple[str, Any, str]] = [
    ("a repeated element", lambda a: a[1].__setitem__(3, a[1][0]), "not a valid deck"),
    ("one element short", lambda a: a[1].pop(), "wrong size"),
    ("an invalid element", lambda a: a[1].__setitem__(0, b"\xff" * 32), "not a valid deck"),
    ("its kind swapped", lambda a: a.__setitem__(0, "lock" if a[0] == "shuffle" else "shuffle"), "its turn"),
    ("its commitment out or in", lambda a: a.__setitem__(2, None if a[2] else bytes(32)), "commitment"),
]


@pytest.mark.parametrize(("what", "edit", "words"), EDITS, ids=[e[0] for e in EDITS])
def test_an_edited_carried_pass_blames_its_signer_at_its_record(what: str, edit: Any, words: str) -> None:
    records = honest_records()
    found = carriers(records)
    # Every pass of hand 2's round 0 (3 shuffles, 3 locks), then of hand 3's, which never
    # comes (the match ends): each is checked all the same when its step completes.
    assert len(found) == 12
    for i, obj in found:
        edit(obj["body"]["ahead"])
        report = audit_edit(records, i, obj, rechained=False)
        assert not report.valid
        first = next(p for p in report.problems if p.seat is not None)
        assert (first.seat, first.record) == (obj["seat"], i) and words in first.what, (what, i, first)
        assert all(p.seat in (None, obj["seat"]) for p in report.problems)


def test_a_dishonest_but_valid_carried_pass_is_blamed_at_the_next_hands_reveal() -> None:
    records = honest_records()
    (i, obj), (j, nxt) = carriers(records)[:2]  # seat 0's shuffle, then seat 1's over it
    deck = obj["body"]["ahead"][1]
    deck[0], deck[1] = deck[1], deck[0]
    report = audit_edit(records, i, obj, rechained=True)
    assert not report.valid and report.hands_verified == 1
    first = next(p for p in report.problems if p.seat is not None)
    # Seat 0's pass does not follow from its secret, and seat 1's pass (over the edited
    # deck) does not give what seat 1 published: both are provably inconsistent, and the
    # reveal checks seat by seat: seat 0, at the record that carried its pass.
    assert (first.seat, first.record) == (0, i) and "shuffle" in first.what, first
    assert nxt["seat"] == 1 and j > i


def test_a_pass_left_out_is_no_fault_and_the_next_one_then_comes_out_of_its_turn() -> None:
    """A record need not carry a pass: the last pass of the hand that never comes left out
    (chain rebuilt) is another honest history. The first one left out, the next seat's
    pass then comes before its turn: that seat signed it, and is blamed."""
    records = honest_records()
    i, obj = carriers(records)[-1]
    del obj["body"]["ahead"]
    assert audit_edit(records, i, obj, rechained=True).valid
    (i, obj), (j, nxt) = carriers(records)[6:8]  # hand 3's first two passes
    del obj["body"]["ahead"]
    report = audit_edit(records, i, obj, rechained=True)
    first = next(p for p in report.problems if p.seat is not None)
    assert (first.seat, first.record) == (nxt["seat"], j) and "its turn" in first.what, first
