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

import contextlib
import itertools
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
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
from p2pcards.protocol.messages import Join, Leave
from p2pcards.protocol.sitting import Sitting
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
from p2pcards.safetext import clean


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
    """The table the match ended on (the last one, when seats left and it continued)."""
    sitting: Sitting | None = None
    """Every table of the match, the first one first."""
    records: int = 0
    internal_error: bool = False
    """True if a record made the audit itself fail (a bug to fix, reported as a problem)."""
    unfinished: list[Problem] = field(default_factory=list)
    """The problems that only say the file stops early (the game, or the file, is
    cut short): when they are all there is, the verdict is INCOMPLETE, not INVALID."""
    cut: bool = False
    """The file itself is cut short: only its first ``records`` records are complete."""
    damaged: int = 0
    """Spots where the file's own structure (outside the signed records) is damaged:
    its records were read around them."""
    saved_by: int | None = None
    """The seat the file says saved it (not signed)."""
    status: str = ""
    """The saver's note on how the game ended (not signed: its word only)."""
    saved_on: str | None = None
    """The file's modification date, when audited from a file (not signed)."""

    @property
    def valid(self) -> bool:
        return not self.problems

    @property
    def incomplete(self) -> bool:
        """The file stops before the end, and everything in it verifies: no fault is proven."""
        return bool(self.problems) and all(p in self.unfinished for p in self.problems)

    @property
    def hands_verified(self) -> int:
        """Hands whose every shuffle, key and move was checked with all secrets revealed."""
        return sum(len(t.match.results) for t in self._tables() if t.match is not None)

    def _tables(self) -> list[TableCore]:
        if self.sitting is not None:
            return self.sitting.tables
        return [] if self.table is None else [self.table]

    @property
    def shuffles_verified(self) -> int:
        """Shuffle rounds (every seat's shuffle, then every seat's lock) re-derived from
        the secrets revealed at the end of the hands verified to their end."""
        return sum(
            len(h.rounds)
            for t in self._tables()
            if t.match is not None
            for h in t.hands_crypto[: len(t.match.results)]
        )

    @property
    def players(self) -> list[tuple[str, str]]:
        if self.table is None:
            return []
        return [(p.name, p.key.hex()) for p in self.table.roster]

    def saved(self, who: Callable[[int], str]) -> str:
        """When and by whom the file says it was saved (``on 2026-11-30 by Ann (seat 0)``;
        empty if it says neither), with ``who`` naming a seat."""
        parts = []
        if self.saved_on is not None:
            parts.append(f"on {self.saved_on}")
        if self.saved_by is not None:
            parts.append(f"by {who(self.saved_by)}")
        return " ".join(parts)

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
        record = self._table_record(t, self.verdict())
        if t.carried is not None:
            record["left"] = self._departures()
            tables = self._tables()
            record["earlier"] = [
                self._table_record(e, None, counted=after.carried_hands - e.carried_hands)
                for e, after in itertools.pairwise(tables)
                if e.match is not None and after.carried is not None
            ]
        return record

    @staticmethod
    def _table_record(
        t: TableCore, verdict: dict[str, Any] | None, counted: int | None = None
    ) -> dict[str, Any]:
        """The record of one table of the match: the last one with the verdict; an earlier
        one (``verdict`` None) with the ``counted`` hands the match went on from."""
        assert t.match is not None
        players = [(p.name, p.key.hex()) for p in t.roster]
        record = build_game_record(t.GAME, t.match, players, t.cut_rounds, verdict)
        if t.carried is not None:
            record["carried"] = {"hands": t.carried_hands, "totals": list(t.carried)}
        if verdict is None:
            del record["verdict"], record["format"]
            record["hands"] = record["hands"][:counted]
        return record

    def _departures(self) -> list[dict[str, Any]]:
        """The players who left, in the order they left (see ``docs/record.md``)."""
        out = []
        for t in self._tables()[1:]:
            if t.carry is None or t.carried is None:
                continue  # its first step did not complete: nothing was carried yet
            prev = t.carry.table
            out += [
                {
                    "name": prev.roster[s].name,
                    "key": prev.roster[s].key.hex(),
                    "after_hands": t.carried_hands,
                    "total": t.leaver_totals[s],
                    "signed": s in prev.departed,
                    "reason": prev.departed.get(s, t.carry.reason),
                }
                for s in t.carry.left
            ]
        return out

    def summary(self) -> str:
        """A short human verdict: what was checked, in words a non-expert can follow."""
        if self.valid:
            return "\n".join(self._valid_lines())
        if self.incomplete:
            return "\n".join(self._incomplete_lines())
        return "\n".join(self._invalid_lines())

    # -- the three verdicts

    def _names(self) -> list[str]:
        return [clean(n, 40) for n, _ in self.players]

    def _who(self, seat: int) -> str:
        names = self._names()
        return f"{names[seat]} (seat {seat})" if 0 <= seat < len(names) else f"seat {seat}"

    def _valid_lines(self) -> list[str]:
        t = self.table
        assert t is not None and t.match is not None
        m = t.match
        names = self._names()
        winners = m.winners or ()
        k = self.hands_verified  # every table's, when players left and the others went on
        hands = f"{k} hand{'s' if k != 1 else ''}"
        seated = self._tables()[0].n
        players = f"{seated} players" + (f" ({len(names)} finished it)" if seated > len(names) else "")
        lines = [f"VALID: a finished game of {game(t.GAME).title}, {players}, {hands}."]
        lines += _wrap("Totals: " + ", ".join(f"{names[s]} {m.totals[s]}" for s in range(len(names))))
        lines += _wrap(f"Winner{'s' if len(winners) > 1 else ''}: " + _and([names[s] for s in winners]))
        lines += self._departure_lines()
        lines += self._about_lines()
        lines += ["", "What the audit checked:"]
        lines += self._shuffle_lines(k)
        lines.append("\u2713 every move legal, including the rules that depend on hidden cards")
        lines.append("\u2713 scores recomputed hand by hand: the totals above, signed by all")
        lines += _wrap(
            f"\u2713 winner{'s' if len(winners) > 1 else ''} recomputed: " + _and([names[s] for s in winners])
        )
        lines.append(f"\u2713 every one of the {self.records} records is signed, chained and verified.")
        return lines

    def _incomplete_lines(self) -> list[str]:
        t = self.table
        title = game(t.GAME).title if t is not None else "cards"
        n = len(self.players)
        lines = [
            f"INCOMPLETE: a game of {title}, {n} players, in a file cut short."
            if self.cut
            else f"INCOMPLETE: an unfinished game of {title}, {n} players; no fault is proven."
        ]
        k = self.hands_verified
        m = t.match if t is not None else None
        over = m is not None and m.over
        if over:
            lines.append(f"All {k} hand{'s were' if k != 1 else ' was'} played and verified to the end.")
        elif k:
            lines.append(
                f"{_hands(k)} verified to {'their' if k > 1 else 'its'} end; it stops in hand {k + 1}."
            )
        elif t is not None and t.hand is not None:
            lines.append("No hand was verified to its end; it stops in hand 1.")
        else:
            lines.append("No hand was verified: it stops before the first hand was dealt.")
        if self.cut:
            last = self.records - 1
            lines.append(f"The file is cut short after record {last}; everything before it verifies.")
            lines.append("No fault is proven.")
        elif t is not None and t.status == "running":
            waiting = [self._who(s) for s in t.waiting_for]
            lines += _wrap(
                f"It ends at step {t.step} ({t.spec.kind}), waiting for a record from " + _and(waiting) + "."
            )
            lines.append("(Whoever stopped may have had a reason this file cannot show.)")
        elif over:
            lines.append("It ends before every player signed the result.")
        if m is not None and k:
            lines += _wrap(
                ("Totals: " if over else f"Totals after hand {k}: ")
                + ", ".join(f"{name} {m.totals[s]}" for s, name in enumerate(self._names()))
            )
        lines += self._about_lines()
        lines += ["", "What the audit checked:"]
        lines += self._shuffle_lines(k)
        if k:
            lines.append(
                f"\u2713 every move of {'the' if k > 1 else 'that'} hand{'s' if k > 1 else ''} "
                "legal, even those depending on hidden cards"
            )
        lines.append(
            f"\u2713 every one of the {self.records} records is signed and chained; none shows a fault."
        )
        return lines

    def _invalid_lines(self) -> list[str]:
        t = self.table
        names = self._names()
        lines = []
        of = f" in a game of {game(t.GAME).title}" if t is not None else ""
        lines.append(
            f"INVALID: {len(self.problems)} problem{'s' if len(self.problems) > 1 else ''} found{of}."
        )
        k = self.hands_verified
        lines.append(
            f"Hand{'s 1-' + str(k) if k > 1 else ' 1'} verified"
            + (" from the records read." if self.damaged else " before the first problem.")
            if k
            else "No hand was verified to its end."
        )
        if self.damaged:
            lines += _wrap(
                "The file itself is damaged outside its signed records: the records around the damage "
                "were read and audited, and such damage blames nobody."
            )
        for p in self.problems:
            who = "nobody in particular" if p.seat is None else f"seat {p.seat}"
            if p.seat is not None and p.seat < len(names):
                key = fingerprint(bytes.fromhex(self.players[p.seat][1]))
                who = f"{names[p.seat]} (seat {p.seat}, key {key})"
            where = [] if p.record is None else [f"record {p.record}"]
            if p.hand is not None:
                where.append(f"hand {p.hand}")
            lines += _wrap(f"- {', '.join(where) or 'file'}: {p.what} - blame {who}")
        return lines

    # -- shared parts

    def _about_lines(self) -> list[str]:
        """The players, the rules in force, and the file's date and saver."""
        t = self.table
        lines = []
        if self.players:
            lines.append("Players (with the start of each key's fingerprint):")
            for seat, (name, (_, key)) in enumerate(zip(self._names(), self.players, strict=True)):
                lines.append(f"  seat {seat}: {name}, key {fingerprint(bytes.fromhex(key))[:9]}")
        if t is not None:
            lines += rules_in_words(t.GAME, t.rules)
            clock = self._tables()[0].clock
            if clock is not None:
                turn, step, grace = clock
                lines += _wrap(
                    f"Clock, signed by every player: {_seconds(turn)} per turn, {_seconds(step)} "
                    f"for any other step, {_seconds(grace)} to come back after a lost connection."
                )
        saved = self.saved(self._who)
        if saved:
            lines += _wrap(f"File saved {saved} - the file's own word, not signed.")
        if self.status and not self.valid:
            lines += _wrap(f'Its note on how the game ended: "{clean(self.status, 200)}"')
        return lines

    def _departure_lines(self) -> list[str]:
        """Who left, when, and how the match went on without them."""
        lines = []
        for d in self._departures():
            name = clean(d["name"], 40)
            how = "signed that they leave" if d["signed"] else "were judged gone by the others"
            scored = d["after_hands"]
            lines += _wrap(
                f"{name} left after {scored} hand{'s' if scored != 1 else ''} ({how}: "
                f"\"{clean(d['reason'], 200)}\"); the hand in progress was void and the others "
                f"played on from a fresh deal; {name}'s total stays {d['total']}."
            )
        return lines

    def _shuffle_lines(self, hands: int) -> list[str]:
        if not hands:
            return []
        n = self.shuffles_verified
        return _wrap(
            f"\u2713 {n} shuffle{'s' if n != 1 else ''} re-derived from the secrets revealed "
            "at the end of each hand"
        )


def rules_in_words(game_name: str, rules: Any) -> list[str]:
    """The rules in force, every option, in words (the game says them: see ``Game``)."""
    return [line for sentence in game(game_name).describe_rules(rules) for line in _wrap(sentence)]


WIDTH = 79
"""Every line of the summary fits in 80 columns."""


def _wrap(text: str) -> list[str]:
    return textwrap.wrap(text, WIDTH, subsequent_indent="    ", break_on_hyphens=False) or [""]


def _and(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items) or "nobody"
    return ", ".join(items[:-1]) + " and " + items[-1]


def _seconds(n: int) -> str:
    """A duration for people: 45 s, 2 min, 1 h 30 min."""
    if n < 120 or n % 60:
        return f"{n} s"
    hours, minutes = divmod(n // 60, 60)
    return f"{hours} h {minutes} min" if hours and minutes else (f"{hours} h" if hours else f"{minutes} min")


def _hands(k: int) -> str:
    return "Hand 1 was" if k == 1 else f"Hands 1-{k} were"


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
    report = AuditReport(records=len(tf.records), cut=tf.cut, saved_by=tf.saved_by, status=tf.status)
    if tf.cut:
        # Not a fault of anyone's: the records before the cut are audited as they are.
        cut = Problem(
            None,
            None,
            len(tf.records),
            f"the file is cut short after record {len(tf.records) - 1}: the rest, "
            "and the file's checksum, are missing",
        )
        report.problems.append(cut)
        report.unfinished.append(cut)
    elif not tf.checksum_ok:
        report.problems.append(Problem(None, None, None, "file checksum mismatch: the file was altered"))
    # Located but never blamed: bytes outside the signed records prove nothing about a seat.
    report.problems.extend(Problem(None, None, d.record, d.what) for d in tf.damage)
    report.damaged = len(tf.damage)
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
    sitting = report.sitting = Sitting(table)
    index_of = {}
    for i, rec in records:
        index_of.setdefault(rec.raw, i)
    failed_at = None
    last: tuple[int, int, int] = (-1, -1, -1)
    for i, rec in records:
        try:
            sitting.receive_record(rec)
            table = report.table = sitting.current
            place = (_segment(sitting, rec), rec.record.step, rec.record.seat)
            if isinstance(rec.record.body, Leave):  # a side record: saved after its table's others
                continue
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
        ends = Problem(
            _hand(table),
            None,
            None,
            f"the transcript ends before the match did (step {table.step} waits for seat {who})",
        )
        report.problems.append(ends)
        report.unfinished.append(ends)
    return report


def _segment(sitting: Sitting, rec: SignedRecord) -> int:
    """Which of the match's tables ``rec`` belongs to (a continued match has several)."""
    ids = [t.game_id for t in sitting.tables]
    return ids.index(rec.record.game_id) if rec.record.game_id in ids else len(ids)


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
        return cls(game_id=r.game_id, roster=roster, rules=rules, seat=None, clock=r.body.clock)
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
    report = audit_bytes(data)
    with contextlib.suppress(OSError, ValueError, OverflowError):
        report.saved_on = datetime.fromtimestamp(Path(path).stat().st_mtime).strftime("%Y-%m-%d %H:%M")
    return report
