"""Offline audit of a transcript file: replay it as an observer table.

The audit trusts nothing in the file but the signatures: it reads the table
(game id, rules, roster) from the signed join records, then feeds every record
to a :class:`~p2pcards.protocol.table.Table` with no seat. That replica checks
signatures, chaining, every crypto step against the secrets revealed at the
end of each hand, and every move with full information, exactly as the players'
nodes did. The first fault stops the replay and is reported with the seat to
blame and the index of the record that shows it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from p2pcards.crypto.identity import fingerprint, is_valid_public_key, verify_signature
from p2pcards.errors import (
    LocalProtocolError,
    RemoteProtocolError,
    RuleOptionError,
    TranscriptError,
    UsageError,
)
from p2pcards.games.base import game
from p2pcards.protocol.messages import Join
from p2pcards.protocol.table import GAME_NAME, TableCore, table_class
from p2pcards.protocol.transcript import decode_file
from p2pcards.protocol.wire import (
    MAX_RECORD,
    SIGN_PREFIX,
    SignedRecord,
    WireError,
    parse_record,
    unpack_untrusted,
)
from p2pcards.record import FORMAT, build_game_record


@dataclass(frozen=True, slots=True)
class Problem:
    """One violation: the hand, the seat to blame, the record that shows it."""

    hand: int | None
    seat: int | None
    record: int | None
    what: str

    def to_dict(self) -> dict[str, Any]:
        return {"hand": self.hand, "seat": self.seat, "record": self.record, "what": self.what}


@dataclass(slots=True)
class AuditReport:
    problems: list[Problem] = field(default_factory=list)
    table: TableCore | None = None
    records: int = 0
    internal_error: bool = False
    """True if a record made the audit itself fail (a bug to fix, reported as a problem)."""

    @property
    def valid(self) -> bool:
        return not self.problems

    @property
    def hands_verified(self) -> int:
        """Hands whose every shuffle, key and move was checked with all secrets revealed."""
        m = self.table.match if self.table is not None else None
        return len(m.results) if m is not None else 0

    @property
    def players(self) -> list[tuple[str, str]]:
        if self.table is None:
            return []
        return [(p.name, p.key.hex()) for p in self.table.roster]

    def verdict(self) -> dict[str, Any]:
        return {"valid": self.valid, "problems": [p.to_dict() for p in self.problems]}

    def to_record(self) -> dict[str, Any]:
        """The record of ``docs/record.md`` (as far as the transcript goes) with the verdict."""
        t = self.table
        if t is None or t.match is None:
            return {
                "format": FORMAT,
                "game": GAME_NAME if t is None else t.GAME,
                "rules": None if t is None else t.rules.to_dict(),
                "players": [{"seat": i, "name": n, "key": k} for i, (n, k) in enumerate(self.players)],
                "verdict": self.verdict(),
                "cut": [],
                "hands": [],
                "result": {"winners": [], "totals": [], "finished": False},
            }
        return build_game_record(t.GAME, t.match, self.players, t.cut_rounds, self.verdict())

    def summary(self) -> str:
        """A short human verdict."""
        lines = []
        t = self.table
        names = [n for n, _ in self.players]
        if self.valid:
            assert t is not None and t.match is not None
            m = t.match
            winners = ", ".join(names[s] for s in m.winners or ())
            hands = f"{len(m.results)} hand{'s' if len(m.results) != 1 else ''}"
            lines.append(f"VALID: a finished game of {game(t.GAME).title}, {len(names)} players, {hands}.")
            lines.append("Totals: " + ", ".join(f"{names[s]} {m.totals[s]}" for s in range(len(names))))
            lines.append(f"Winner{'s' if len(m.winners or ()) > 1 else ''}: {winners}")
            lines.append(f"Every one of the {self.records} records is signed, chained and verified.")
        else:
            of = f" in a game of {game(t.GAME).title}" if t is not None else ""
            lines.append(
                f"INVALID: {len(self.problems)} problem{'s' if len(self.problems) > 1 else ''} found{of}."
            )
            k = self.hands_verified
            lines.append(
                f"Hand{'s 1-' + str(k) if k > 1 else ' 1'} verified before the first problem."
                if k
                else "No hand was verified to its end."
            )
            for p in self.problems:
                who = "nobody in particular" if p.seat is None else f"seat {p.seat}"
                if p.seat is not None and p.seat < len(names):
                    who += f" ({names[p.seat]}, key {fingerprint(bytes.fromhex(self.players[p.seat][1]))})"
                where = [] if p.record is None else [f"record {p.record}"]
                if p.hand is not None:
                    where.append(f"hand {p.hand}")
                lines.append(f"- {', '.join(where) or 'file'}: {p.what} - blame {who}")
        return "\n".join(lines)


def audit_bytes(data: bytes) -> AuditReport:
    """Audit a transcript file's bytes. Raises TranscriptError if it is not a transcript at all.

    Every value in the file is checked before use: a problem is reported with the
    seat whose signature is on the faulty record, or nobody when no valid
    signature ties it to a seat (the file itself was altered). Problems that do
    not depend on each other are all reported: the file checksum, each record
    that cannot be read, the first fault of the replay, and every later record
    whose signature does not verify.
    """
    tf = decode_file(data)
    report = AuditReport(records=len(tf.records))
    if not tf.checksum_ok:
        report.problems.append(Problem(None, None, None, "file checksum mismatch: the file was altered"))
    records: list[tuple[int, SignedRecord]] = []
    unreadable: list[tuple[int, object, object, str]] = []
    for i, (raw, sig) in enumerate(tf.records):
        try:
            records.append((i, parse_record(raw, sig)))
        except WireError as e:
            unreadable.append((i, raw, sig, str(e)))
    if not records:
        report.problems.extend(
            Problem(None, None, i, f"malformed record: {why}") for i, _, _, why in unreadable
        )
        report.problems.append(Problem(None, None, None, "the transcript holds no record"))
        return report
    first_index, first_rec = records[0]
    table = _observer(first_index, first_rec, report)
    for i, raw, sig, why in unreadable:
        report.problems.append(Problem(None, _signer(table, raw, sig), i, f"malformed record: {why}"))
    if table is None:
        return report
    report.table = table
    index_of = {}
    for i, rec in records:
        index_of.setdefault(rec.raw, i)
    failed_at = None
    last: tuple[int, int] = (-1, -1)
    for i, rec in records:
        place = (rec.record.step, rec.record.seat)
        try:
            table.receive_record(rec)
            if place <= last and table.status != "disputed":
                # Accepted as a copy or as a late record: the file was edited after it
                # was saved (a node writes records in step order, then its proof).
                report.problems.append(
                    Problem(_hand(table), None, i, "record out of order or repeated: the file was edited")
                )
        except RemoteProtocolError as e:
            culprit = table.culprit_record
            where = index_of.get(culprit.raw, i) if culprit is not None else i
            report.problems.append(Problem(_hand(table), e.peer, where, e.problem))
            failed_at = i
            break
        except Exception as e:  # a bug of the audit, never a verdict on a player
            report.problems.append(
                Problem(_hand(table), None, i, f"the audit could not check this record ({e!r})")
            )
            report.internal_error = True
            failed_at = i
            break
        last = max(last, place)
    if failed_at is not None:
        for i, rec in records:
            if i > failed_at and not _signed(table, rec):
                report.problems.append(Problem(None, None, i, "the record's signature does not verify"))
    elif table.status == "disputed":
        seat, why = table.suspect or (None, "broken chain")
        culprit = table.proof[0] if table.proof else None
        where = index_of.get(culprit.raw) if culprit is not None else None
        report.problems.append(Problem(_hand(table), seat, where, why))
    elif table.status == "running" and not report.problems:
        who = ", ".join(str(s) for s in table.waiting_for)
        # Nobody is blamed: a seat may have stopped because of another's fault that
        # this file cannot show; the text says whose records are missing.
        report.problems.append(
            Problem(
                _hand(table),
                None,
                None,
                f"the transcript ends before the match did (step {table.step} waits for seat {who})",
            )
        )
    return report


def _hand(table: TableCore) -> int | None:
    return table.hand.number if table.hand is not None else None


def _observer(index: int, rec: SignedRecord, report: AuditReport) -> TableCore | None:
    """The table named by the first record, or None (with the problem reported)."""
    r = rec.record
    if not isinstance(r.body, Join):
        report.problems.append(Problem(None, None, index, "the first record is not a join record"))
        return None
    roster = r.body.roster
    own = roster[r.seat].key if r.seat < len(roster) else None
    if (
        own is None
        or not is_valid_public_key(own)
        or not verify_signature(own, rec.sig, SIGN_PREFIX + rec.raw)
    ):
        report.problems.append(
            Problem(
                None, None, index, "the first record is not validly signed by a seat of the roster it names"
            )
        )
        return None
    try:
        cls = table_class(r.body.game)
        rules = game(r.body.game).rules_from_dict(dict(r.body.rules))
        return cls(game_id=r.game_id, roster=roster, rules=rules, seat=None)
    except (RuleOptionError, LocalProtocolError, UsageError, ValueError) as e:
        report.problems.append(
            Problem(None, r.seat, index, f"signed a join record that names an impossible table: {e}")
        )
        return None


def _signer(table: TableCore | None, raw: object, sig: object) -> int | None:
    """The seat whose valid signature is on an unreadable record, if any."""
    if table is None or type(raw) is not bytes or type(sig) is not bytes:
        return None
    try:
        obj = unpack_untrusted(raw, MAX_RECORD)
    except WireError:
        obj = None
    seat = obj.get("seat") if type(obj) is dict else None
    if type(seat) is not int or not 0 <= seat < table.n:
        return None
    return seat if verify_signature(table.roster[seat].key, sig, SIGN_PREFIX + raw) else None


def _signed(table: TableCore, rec: SignedRecord) -> bool:
    seat = rec.record.seat
    return 0 <= seat < table.n and verify_signature(table.roster[seat].key, rec.sig, SIGN_PREFIX + rec.raw)


def audit_file(path: str | Path) -> AuditReport:
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise TranscriptError(f"cannot read {path}: {e.strerror or e}") from None
    return audit_bytes(data)
