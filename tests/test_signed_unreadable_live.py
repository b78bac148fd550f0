"""A record that does not read (its body breaks the schema), yet carries its author's valid
signature, is its author's fault live as in the audit (protocol.md 2.3): the node that gets
it blames the author whoever delivered it, forwards it alone in an evidence frame, and keeps
it at the end of its file, which then audits INVALID naming the author. A record that does
not read and that its named seat did not sign blames whoever delivered it, as before."""

from __future__ import annotations

import msgpack
import pytest
from test_protocol_threats import CHEAT, GAME_ID, build, identities, nth_frame_tamper, run

from p2pcards.errors import RemoteProtocolError
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.sitting import Sitting
from p2pcards.protocol.transcript import decode_file, encode_file
from p2pcards.protocol.wire import SIGN_PREFIX, SignedRecord, decode_frame, pack


def _schema_broken(frame: bytes, signer: int = CHEAT) -> bytes:
    """The cheater's record frame with an unknown key in its body, signed by ``signer``."""
    rec = decode_frame(frame)
    assert isinstance(rec, SignedRecord)
    obj = msgpack.unpackb(rec.raw, raw=False)
    obj["body"] = {**obj["body"], "extra": 1}
    raw = pack(obj)
    return pack({"v": 1, "kind": "record", "raw": raw, "sig": identities(3)[signer].sign(SIGN_PREFIX + raw)})


def _file(table) -> bytes:  # type: ignore[no-untyped-def]
    extra = [table.unreadable] if table.unreadable is not None else []
    return encode_file([*table.records_to_save(), *extra], saved_by=table.seat, status="failed")


@pytest.mark.parametrize("to_all", [True, False], ids=["to every seat", "to seat 0 only"])
def test_a_signed_record_breaking_the_schema_blames_its_signer_live_and_in_every_file(to_all: bool) -> None:
    def change(receiver: int, frame: bytes) -> bytes | None:
        if to_all or receiver == 0:
            return _schema_broken(frame)
        return None  # seat 2 learns of it only from seat 0's evidence

    net = run(build(3), tamper=nth_frame_tamper(3, change))
    for s in (0, 2):
        table = net.tables[s]
        err = net.failures.get(s) or table.failure
        assert err is not None and err.peer == CHEAT, (s, err)
        assert "malformed record" in err.problem, err.problem
        assert table.unreadable is not None
        tf = decode_file(_file(table))
        assert list(tf.records[-1]) == list(table.unreadable)  # the proof is the file's last record
        report = audit_bytes(_file(table))
        assert not report.valid and not report.incomplete and not report.internal_error
        assert {p.seat for p in report.problems} == {CHEAT}, report.summary()


def test_an_unreadable_record_its_named_seat_did_not_sign_blames_the_deliverer() -> None:
    # Seat 1 delivers bytes naming seat 1 but signed with seat 2's key: seat 2 made nothing.
    tables = build(3)
    frames: list[bytes] = []

    def change(receiver: int, frame: bytes) -> bytes:
        frames.append(frame)
        return _schema_broken(frame, signer=2)

    net = run(tables, tamper=nth_frame_tamper(3, change))
    assert frames
    for s in (0, 2):
        err = net.failures.get(s) or net.tables[s].failure
        assert err is not None and err.peer == CHEAT and "malformed frame" in err.problem, (s, err)
        assert net.tables[s].unreadable is None


def test_a_seat_that_forwards_a_signed_unreadable_record_is_not_blamed() -> None:
    """Seat 2 hands seat 0 a record of seat 1's that does not read, in an evidence frame:
    seat 0 blames seat 1, who signed it, through its Sitting (the runner's path)."""
    tables = build(3)
    sitting = Sitting(tables[0])
    sitting.start()
    broken = msgpack.unpackb(_schema_broken(_first_record_frame(1)), raw=False)
    evidence = pack({"v": 1, "kind": "evidence", "records": [[broken["raw"], broken["sig"]]]})
    with pytest.raises(RemoteProtocolError):
        sitting.receive(2, evidence)
    err = sitting.failure
    assert err is not None and err.peer == 1 and "malformed record" in err.problem, err
    pairs = sitting.pairs_to_save()
    assert pairs[-1] == (broken["raw"], broken["sig"])
    assert GAME_ID in broken["raw"]


def _first_record_frame(seat: int) -> bytes:
    """Seat ``seat``'s first record (its join) as a frame, from a fresh table of ``build``."""
    table = build(3)[seat]
    table.start()
    frames = table.drain()
    return next(f for f in frames if isinstance(decode_frame(f), SignedRecord))
