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

from p2pcards.crypto.identity import fingerprint
from p2pcards.errors import RemoteProtocolError, RuleOptionError, TranscriptError
from p2pcards.games.nines import NinesRules
from p2pcards.protocol.messages import Join
from p2pcards.protocol.table import GAME_NAME, Table
from p2pcards.protocol.transcript import decode_file
from p2pcards.protocol.wire import SignedRecord, WireError, parse_record
from p2pcards.record import FORMAT, build_record


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
    table: Table | None = None
    records: int = 0

    @property
    def valid(self) -> bool:
        return not self.problems

    @property
    def players(self) -> list[tuple[str, str]]:
        if self.table is None:
            return []
        return [(p.name, p.key.hex()) for p in self.table.roster]

    def verdict(self) -> dict[str, Any]:
        return {"valid": self.valid, "problems": [p.to_dict() for p in self.problems]}

    def to_record(self) -> dict[str, Any]:
        """The RECORD.md document (as far as the transcript goes) with the verdict."""
        t = self.table
        if t is None or t.match is None:
            return {
                "format": FORMAT,
                "game": GAME_NAME,
                "rules": None if t is None else t.rules.to_dict(),
                "players": [{"seat": i, "name": n, "key": k} for i, (n, k) in enumerate(self.players)],
                "verdict": self.verdict(),
                "cut": [],
                "hands": [],
                "result": {"winners": [], "totals": []},
            }
        return build_record(t.match, self.players, t.cut_rounds, self.verdict())

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
            lines.append(f"VALID: a finished game of Nines, {len(names)} players, {hands}.")
            lines.append("Totals: " + ", ".join(f"{names[s]} {m.totals[s]}" for s in range(len(names))))
            lines.append(f"Winner{'s' if len(m.winners or ()) > 1 else ''}: {winners}")
            lines.append(f"Every one of the {self.records} records is signed, chained and verified.")
        else:
            lines.append(
                f"INVALID: {len(self.problems)} problem{'s' if len(self.problems) > 1 else ''} found."
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
    """Audit a transcript file's bytes. Raises TranscriptError if it is not a transcript at all."""
    tf = decode_file(data)
    report = AuditReport(records=len(tf.records))
    if not tf.checksum_ok:
        report.problems.append(Problem(None, None, None, "file checksum mismatch: the file was altered"))
    records: list[SignedRecord] = []
    for i, (raw, sig) in enumerate(tf.records):
        try:
            records.append(parse_record(raw, sig))
        except WireError as e:
            report.problems.append(Problem(None, None, i, f"malformed record: {e}"))
            return report
    if not records:
        report.problems.append(Problem(None, None, None, "the transcript holds no record"))
        return report
    first = records[0].record
    if not isinstance(first.body, Join):
        report.problems.append(Problem(None, first.seat, 0, "the first record is not a join record"))
        return report
    try:
        rules = NinesRules.from_dict(dict(first.body.rules))
        table = Table(game_id=first.game_id, roster=first.body.roster, rules=rules, seat=None)
    except (RuleOptionError, ValueError) as e:
        report.problems.append(
            Problem(None, first.seat, 0, f"the join record names an impossible table: {e}")
        )
        return report
    report.table = table
    for i, rec in enumerate(records):
        try:
            if rec.record.seat >= table.n:
                raise RemoteProtocolError(None, f"record by seat {rec.record.seat}, not in the roster")
            table.receive_record(rec.record.seat, rec)
        except RemoteProtocolError as e:
            hand = table.hand.number if table.hand is not None else None
            report.problems.append(Problem(hand, e.peer, i if e.record is None else e.record, e.problem))
            return report
    if table.status == "disputed":
        seat, why = table.suspect or (None, "broken chain")
        report.problems.append(Problem(None, seat, None, why))
    elif table.status == "running":
        waiting = table.waiting_for
        who = ", ".join(str(s) for s in waiting)
        # Nobody is blamed: a seat may have stopped because of another's fault that
        # this file cannot show; the text says whose records are missing.
        report.problems.append(
            Problem(
                table.hand.number if table.hand is not None else None,
                None,
                None,
                f"the transcript ends before the match did (step {table.step} waits for seat {who})",
            )
        )
    return report


def audit_file(path: str | Path) -> AuditReport:
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise TranscriptError(f"cannot read {path}: {e.strerror or e}") from None
    return audit_bytes(data)
