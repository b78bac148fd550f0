"""Checks that no other test guarded: each test here fails when its check is removed.

Each test plays a match (3 seats, short rules) with one dishonest seat, a
:class:`Table` subclass that overrides how it writes its records, and checks
that every honest node blames that seat for the right reason, and that the
audit of an honest node's transcript agrees. The comment above each test names
the check it guards; removing that check makes the test fail (either the
honest nodes blame nobody or the wrong seat, or they crash).
"""

from __future__ import annotations

import hashlib
from typing import ClassVar

import pytest
from protocol_helpers import SHORT_RULES, make_tables, records_file, run_match

from p2pcards.crypto import kdf
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.loopback import LocalNetwork
from p2pcards.protocol.messages import Body, Dispute, Keys, KeyShare, Result, Reveal
from p2pcards.protocol.table import Table
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
    assert_blamed(net, CHEAT, "signed a different result")


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
