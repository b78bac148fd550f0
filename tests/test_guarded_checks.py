"""Checks that no other test guarded: each test here fails when its check is removed.

Most tests play a match (3 seats, short rules) with one dishonest seat, a
:class:`Table` subclass that overrides how it writes its records, and check
that every honest node blames that seat for the right reason, and that the
audit of an honest node's transcript agrees. A check that no match can reach
on its own (another check before it catches the same fault) is tested on the
part that holds it: the card ledger, the audit of an edited file. The comment
above each test names the check it guards; removing that check makes the test
fail (either the honest nodes blame nobody or the wrong seat, or they crash).
"""

from __future__ import annotations

import dataclasses
import hashlib
from typing import Any, ClassVar

import pytest
from protocol_helpers import (
    SHORT_RULES,
    RawRecord,
    honest_transcript,
    make_tables,
    raw_records_file,
    record_map,
    records_file,
    run_match,
    sign_map,
)

from p2pcards.crypto import kdf, poker
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.ledger import CardLedger
from p2pcards.protocol.loopback import LocalNetwork
from p2pcards.protocol.messages import Body, Dispute, Keys, KeyShare, PlayCards, Result, Reveal
from p2pcards.protocol.transcript import decode_file
from p2pcards.protocol.wire import MAX_FRAME, FrameDecoder, StreamDecoder, WireError

N = 3
SEED = 0
CHEAT = 1
ORDER = 0xFFFFFFFF00000000FFFFFFFFFFFFFFFFBCE6FAADA7179E84F3B9CAC2FC632551  # protocol.md 3.1


def play(cheat_cls: type[Table], cheat: int = CHEAT, seed: int = SEED) -> LocalNetwork:
    tables = make_tables(N, SHORT_RULES, seed, table_classes={cheat: cheat_cls})
    return run_match(tables, seed)


def assert_blamed(net: LocalNetwork, culprit: int, words: str) -> None:
    """Every honest node stopped blaming ``culprit`` for ``words``, and so does the audit
    of each honest node's transcript."""
    for seat, table in net.tables.items():
        if seat == culprit:
            continue
        err = net.failures.get(seat) or table.failure
        assert err is not None, f"honest seat {seat} blamed nobody (status {table.status})"
        assert err.peer == culprit, f"honest seat {seat} blamed seat {err.peer}: {err}"
        assert words in err.problem, f"honest seat {seat}: {err.problem!r} lacks {words!r}"
        report = audit_bytes(records_file(table.records_to_save(), saved_by=seat, status=table.status))
        assert not report.valid
        blamed = [p for p in report.problems if p.seat is not None]
        assert blamed, f"the audit of seat {seat}'s file blames nobody: {report.problems}"
        first = blamed[0]
        assert (first.seat, words in first.what) == (culprit, True), (
            f"audit of seat {seat}: {report.problems}"
        )


def commit_context(game_id: bytes, hand: int, seat: int) -> bytes:
    """protocol.md section 5: ctx = game_id || u32(h) || u8(j)."""
    return game_id + hand.to_bytes(4, "big") + bytes([seat])


# --- (a) ------------------------------------------------------------------------------


class CommitsToAnotherSecret(Table):
    """Commits to one hand secret, then shuffles, locks, publishes keys with and reveals
    another: every pass and key verifies against the revealed secret, only the
    commitment does not."""

    def _next_commitment(self, number: int) -> bytes:  # sent in the reveal before the hand
        ctx = commit_context(self.game_id, number, self.seat)  # type: ignore[arg-type]
        return kdf.commitment(hashlib.sha256(b"another secret").digest(), ctx)


# Guards table.py _verify_hand: "hand secret does not match its commitment".
def test_a_hand_secret_other_than_the_committed_one_is_blamed() -> None:
    net = play(CommitsToAnotherSecret)
    assert_blamed(net, CHEAT, "hand secret does not match its commitment")


# --- (b) ------------------------------------------------------------------------------


def first_dealer(secrets: list[bytes]) -> int:
    """protocol.md section 5, the cut: who deals first with these revealed cut secrets."""
    seed = hashlib.sha256(b"p2pcards/v1/cut-seed\x00" + b"".join(secrets)).digest()
    contenders = list(range(len(secrets)))
    k = 0
    while len(contenders) > 1:
        order = kdf.derive_permutation(seed, "cut", 52, k)
        rank = {s: order[i] % 13 + 1 for i, s in enumerate(contenders)}  # ace low, suits do not rank
        low = min(rank.values())
        contenders = [s for s in contenders if rank[s] == low]
        k += 1
    return contenders[0]


class ChoosesTheDealer(Table):
    """The last seat to reveal its cut secret (it waits for the others' secrets: here
    it is simply told them) reveals, instead of its committed secret, one that makes it
    the first dealer."""

    others: ClassVar[dict[int, bytes]] = {}

    def _author(self, body: Body) -> None:
        if isinstance(body, Reveal) and self.spec.kind == "cut-reveal":
            body = Reveal(secret=self.chosen_secret())
        super()._author(body)

    def chosen_secret(self) -> bytes:
        for k in range(10_000):
            candidate = hashlib.sha256(b"grind %d" % k).digest()
            secrets = [self.others.get(s, candidate) for s in range(self.n)]
            if first_dealer(secrets) == self.seat:
                return candidate
        raise AssertionError("no secret makes this seat the dealer")


# Guards table.py _on_cut_reveal: "cut secret does not match its commitment"
# (without it the last seat to reveal chooses the first dealer).
def test_a_cut_secret_other_than_the_committed_one_is_blamed() -> None:
    honest_tables = make_tables(N, SHORT_RULES, SEED)
    committed = [t._cut_secret() for t in honest_tables.values()]
    run_match(honest_tables, SEED)
    assert honest_tables[0].match is not None
    assert first_dealer(committed) == honest_tables[0].match.dealer  # this file's cut is the table's
    assert first_dealer(committed) != CHEAT  # so the cheater has something to gain

    tables = make_tables(N, SHORT_RULES, SEED, table_classes={CHEAT: ChoosesTheDealer})
    ChoosesTheDealer.others = {s: committed[s] for s in range(N) if s != CHEAT}
    cheater = tables[CHEAT]
    assert isinstance(cheater, ChoosesTheDealer)
    chosen = cheater.chosen_secret()
    assert first_dealer([*committed[:CHEAT], chosen, *committed[CHEAT + 1 :]]) == CHEAT
    net = run_match(tables, SEED)
    assert_blamed(net, CHEAT, "cut secret does not match its commitment")


# --- (c) ------------------------------------------------------------------------------


class SignsOtherWinners(Table):
    """Signs the right totals but names other winners."""

    def _author(self, body: Body) -> None:
        if isinstance(body, Result):
            others = tuple(s for s in range(self.n) if s not in body.winners) or (
                (body.winners[0] + 1) % self.n,
            )
            body = Result(totals=body.totals, winners=others)
        super()._author(body)


# Guards table.py _on_result: the winners are compared, not only the totals.
def test_a_result_naming_other_winners_with_the_right_totals_is_blamed() -> None:
    net = play(SignsOtherWinners)
    assert_blamed(net, CHEAT, "signed totals or winners other than the scores of the hands played")


# --- (d) ------------------------------------------------------------------------------


class FalseDisputeAtDrawKeys(Table):
    """At the first draw-keys step where it publishes a key (another seat drew), writes a
    dispute instead, although every card it was dealt opened fine."""

    disputed_drawer: int | None = None

    def _author(self, body: Body) -> None:
        if (
            isinstance(body, Keys)
            and self.spec.kind == "draw-keys"
            and FalseDisputeAtDrawKeys.disputed_drawer is None
        ):
            FalseDisputeAtDrawKeys.disputed_drawer = self.spec.seat
            body = Dispute(reason="my card does not open (a lie)")
        super()._author(body)


# Guards table.py _on_draw_keys: a dispute at a draw-keys step is held against the seat
# that disputed (the false dispute blames the disputer, not the drawer).
def test_a_false_dispute_at_a_draw_keys_step_blames_the_disputer_not_the_drawer() -> None:
    FalseDisputeAtDrawKeys.disputed_drawer = None
    net = play(FalseDisputeAtDrawKeys)
    drawer = FalseDisputeAtDrawKeys.disputed_drawer
    assert drawer is not None and drawer != CHEAT, "the dishonest seat never published a draw key"
    assert_blamed(net, CHEAT, "disputed a card")


# --- (e) ------------------------------------------------------------------------------


class KeyOfTheGroupOrder(Table):
    """Publishes the group order n itself (not a scalar: 1..n-1) as one of its keys, at a
    position where a key is due: the up card or a card dealt to another seat in its deal
    keys (sent with its lock of round 0), or the drawn card at the first draw-keys step."""

    where = "up"
    value = ORDER

    def _keys_body(self, positions):  # type: ignore[no-untyped-def]
        body = super()._keys_body(positions)
        kind = self.spec.kind
        if kind in ("deal", "lock") and self.where in ("up", "dealt"):  # the deal keys travel with the lock
            holdings, up, _ = self._deal_layout()
            target = up if self.where == "up" else holdings[(self.seat + 1) % self.n][0]  # type: ignore[operator]
        elif kind == "draw-keys" and self.where == "draw":
            target = (body.keys[0].round, body.keys[0].pos)  # type: ignore[attr-defined]
        else:
            return body
        return Keys(
            keys=tuple(
                KeyShare(round=k.round, pos=k.pos, key=self.value) if (k.round, k.pos) == target else k
                for k in body.keys  # type: ignore[attr-defined]
            )
        )


# Guards table.py _store_keys: the upper bound of a key in a keys record ("published a key
# outside the group order"), for a key at exactly the positions due.
@pytest.mark.parametrize("value", [ORDER, ORDER + 1, 2**256 - 1], ids=["n", "n+1", "2^256-1"])
@pytest.mark.parametrize("where", ["up", "dealt", "draw"])
def test_a_key_not_below_the_group_order_is_blamed_on_its_author(where: str, value: int) -> None:
    cls = type("KeyOutOfRange", (KeyOfTheGroupOrder,), {"where": where, "value": value})
    net = play(cls)
    assert_blamed(net, CHEAT, "published a key outside the group order")


# Guards messages.py _scalar: a key of 0 is refused as soon as the record is read (a
# record that does not read, signed by the seat that sent it: held against it, and kept as
# the proof, so that its file blames it too).
@pytest.mark.parametrize("where", ["up", "dealt", "draw"])
def test_a_key_of_zero_is_refused_from_the_seat_that_sends_it(where: str) -> None:
    cls = type("KeyOfZero", (KeyOfTheGroupOrder,), {"where": where, "value": 0})
    net = play(cls)
    for seat, table in net.tables.items():
        if seat != CHEAT:
            err = net.failures.get(seat) or table.failure
            assert err is not None and err.peer == CHEAT, (seat, err)
            assert err.problem.startswith("malformed record: ") and "must not be zero" in err.problem, err
            assert table.unreadable is not None


class PlaysWithKeyZero(Table):
    """Shows its first card played with a key of 0."""

    def _body_for_action(self, action: Any) -> Body:
        body = super()._body_for_action(action)
        if isinstance(body, PlayCards):
            first = dataclasses.replace(body.cards[0], key=0)
            return PlayCards(cards=(first, *body.cards[1:]), suit=body.suit)
        return body


# Guards nines.py _on_play: "shows a key outside the group order" for a key of 0, which only
# the author's own replica reads unparsed (the others refuse the frame, as above); without
# it that replica opens the card with a key of 0 and crashes.
def test_a_play_with_a_key_of_zero_is_refused_everywhere() -> None:
    net = play(PlaysWithKeyZero)
    own = net.failures.get(CHEAT) or net.tables[CHEAT].failure
    assert own is not None and own.peer == CHEAT and own.problem == "shows a key outside the group order", own
    for seat, table in net.tables.items():
        if seat != CHEAT:
            err = net.failures.get(seat) or table.failure
            assert err is not None and err.peer == CHEAT and "must not be zero" in err.problem, (seat, err)


# --- (f) ------------------------------------------------------------------------------

ITEM = 4096
"""Bytes of each bin item of the endless frame (an item is parsed, and leaves the
decoder's buffer, long before the frame is complete)."""


def endless_frame() -> tuple[bytes, bytes]:
    """A msgpack array header announcing 256 items (the most allowed), and one item: a
    bin of 4 KiB. 256 such items are 1 MiB, so the frame cannot complete within
    MAX_FRAME; only the bytes counted since its first byte can stop it."""
    header = b"\xdc" + (256).to_bytes(2, "big")
    item = b"\xc5" + ITEM.to_bytes(2, "big") + bytes(ITEM)
    return header, item


# Guards wire.py StreamDecoder._check_size on the frame still in progress: an oversized frame
# that never completes is refused as soon as it passes MAX_FRAME bytes.
@pytest.mark.parametrize("decoder", [StreamDecoder, FrameDecoder])
@pytest.mark.parametrize("chunk", [1000, ITEM + 3, 64 * 1024])
def test_an_unfinished_frame_is_refused_as_soon_as_it_passes_the_bound(
    decoder: type[StreamDecoder], chunk: int
) -> None:
    header, item = endless_frame()
    stream = header + item * 128  # 512 KiB: twice the bound, half the announced items
    dec = decoder()
    fed = 0
    with pytest.raises(WireError, match="more than"):
        while fed < len(stream):
            piece = stream[fed : fed + chunk]
            fed += len(piece)
            assert dec.feed(piece) == []
    assert MAX_FRAME < fed <= MAX_FRAME + chunk, f"refused after {fed} bytes"
    assert dec.failed is not None
    with pytest.raises(WireError):
        dec.feed(b"\x80")  # and the decoder stays dead


def test_an_unfinished_frame_just_within_the_bound_is_not_refused() -> None:
    """The other side of the bound: MAX_FRAME bytes of a frame in progress are fine."""
    header, item = endless_frame()
    stream = (header + item * 64)[:MAX_FRAME]
    dec = StreamDecoder()
    for k in range(0, len(stream), 5000):
        assert dec.feed(stream[k : k + 5000]) == []
    assert dec.failed is None


# --- (g) ------------------------------------------------------------------------------

SECRETS = [hashlib.sha256(b"seat %d" % s).digest() for s in range(3)]


def relocked_ledger() -> tuple[CardLedger, int]:
    """An observer's ledger of a 4-card round shuffled and locked by 3 seats, honestly;
    seats 0 and 2 publish their keys for position 0 (seat 1 holds it), then seat 2
    looks: it relocks the position (layer 0) and seat 1 removes its pending lock."""
    ledger = CardLedger(3, 4, seat=None, secret=None)
    ledger.new_round([0, 1, 2, 3])
    for kind, make in (("shuffle", poker.shuffle_pass), ("lock", poker.lock_pass)):
        for s in range(3):
            deck = make(SECRETS[s], 0, ledger.pass_input(kind, 0, s))
            assert ledger.check_pass(kind, 0, s, 0, deck, step=1) is None
    for s in (0, 2):
        ledger.add_key((0, 0), s, poker.lock_key(SECRETS[s], 0, 0), step=2)
    layer = ledger.new_layer([(0, 0)], by=2, unlockers=(1,))
    base = ledger.layers[layer].base
    assert ledger.check_layer_pass(layer, 2, layer, poker.relock_pass(SECRETS[2], layer, base), 3) is None
    unlock = poker.unlock_pass([poker.lock_key(SECRETS[1], 0, 0)], ledger.layers[layer].points_in(1))
    assert ledger.check_layer_pass(layer, 1, layer, unlock, 4) is None
    assert ledger.pending((0, 0)) == (2,)
    return ledger, layer


# Guards ledger.py _verify_layer: the relocking seat's published keys of a layer are checked
# against its revealed secret at the reveal (protocol.md 3.8), as its passes are.
def test_a_relock_key_the_revealed_secret_does_not_give_is_blamed_at_the_reveal() -> None:
    ledger, layer = relocked_ledger()
    key = poker.relock_key(SECRETS[2], layer, 0)
    assert ledger.open((0, 0), {2: key}) is not None  # seat 2 alone can open it, with that key
    ledger.add_key((0, 0), 2, key, step=5)  # seat 2 plays the card
    assert [ledger.verify_seat(s, SECRETS[s]) for s in range(3)] == [None] * 3
    ledger, layer = relocked_ledger()
    ledger.add_key((0, 0), 2, poker.relock_key(SECRETS[0], layer, 0), step=5)  # another secret's key
    fault = ledger.verify_seat(2, SECRETS[2])
    assert fault is not None and (fault.seat, fault.step) == (2, 5), fault
    assert fault.problem == "published a wrong key for item 0 of layer 0"


# Guards ledger.py store_keys: a key of 0 is not a scalar (nor is n or more), checked before
# it is used: the wire schema refuses a zero key too, and neither check relies on the other.
@pytest.mark.parametrize("value", [0, ORDER], ids=["0", "n"])
def test_a_published_key_of_zero_is_refused_by_the_ledger(value: int) -> None:
    ledger, _ = relocked_ledger()
    share = KeyShare(round=0, pos=1, key=value)
    assert ledger.store_keys(0, [share], [(0, 1)], step=5) == "published a key outside the group order"
    assert ledger.rounds[0].keys.get(1) is None  # nothing was stored


# --- (h) ------------------------------------------------------------------------------


# Guards audit.py audit_bytes: after the first fault of the replay, every later record whose
# signature does not verify is still reported (the fault does not hide an edited file).
def test_the_audit_reports_bad_signatures_after_the_first_fault() -> None:
    records = [RawRecord(raw, sig) for raw, sig in decode_file(honest_transcript()).records]
    second = record_map(records[3].raw)  # seat 0's cut commitment (step 1) ...
    assert (second["step"], second["seat"], second["type"]) == (1, 0, "commit")
    second["body"] = {"commit": bytes(32)}  # ... and another one, which it signed too
    records.insert(4, sign_map(second, 0))
    for k in (12, 30):
        records[k] = RawRecord(records[k].raw, bytes(64))
    report = audit_bytes(raw_records_file(records))
    found = [(p.seat, p.record, p.what) for p in report.problems]
    assert found == [
        (0, 4, "equivocation: two different signed records for step 1"),
        (None, 12, "the record's signature does not verify"),
        (None, 30, "the record's signature does not verify"),
    ], found
