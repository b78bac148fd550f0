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
import functools
import itertools
import re
import textwrap
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from p2pcards.crypto.identity import fingerprint, is_valid_public_key, verify_signature
from p2pcards.errors import (
    LocalProtocolError,
    RemoteProtocolError,
    RuleOptionError,
    UsageError,
)
from p2pcards.games.base import default_game, game
from p2pcards.protocol import faults
from p2pcards.protocol.audit_words import AUDIT_WORDS, ENGLISH
from p2pcards.protocol.core import continuation_id
from p2pcards.protocol.fingerprint import TableFingerprint, confirmations
from p2pcards.protocol.messages import MAX_SEATS, SIDE_BODIES, Continue, Join, Player
from p2pcards.protocol.sitting import MIN_TO_CONTINUE, TIMED_OUT, Sitting
from p2pcards.protocol.steplog import unreadable_seat
from p2pcards.protocol.table import TableCore, table_class
from p2pcards.protocol.transcript import decode_file, read_transcript_bytes
from p2pcards.protocol.wire import SIGN_PREFIX, SignedRecord, WireError, parse_record
from p2pcards.record import FORMAT, build_game_record
from p2pcards.safetext import clean, label_names
from p2pcards.say import Say


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
    ahead: int = 0
    """Records of an unfinished file held for steps after the one it stops at: signed, but
    never chained (a record before them is missing)."""
    saved_on: str | None = None
    """The file's modification date on the disk it was audited from: not in the file, not signed."""

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
        """The players of the table the match ended on (the seats that problems name)."""
        if self.table is None:
            return []
        return [(p.name, p.key.hex()) for p in self.table.roster]

    @property
    def seated(self) -> list[tuple[str, str]]:
        """Everyone who sat down: the first table's players, those who left included
        (the seats that the file's saver and the fingerprint confirmations name)."""
        tables = self._tables()
        return [(p.name, p.key.hex()) for p in tables[0].roster] if tables else []

    def compared_fingerprint(self) -> TableFingerprint | None:
        """The fingerprint the players were shown and asked to compare: the first table's
        (a match that went on without a player continues at new tables, never shown)."""
        tables = self._tables()
        return TableFingerprint.of_table(tables[0]) if tables else None

    def comparison(self, who: Callable[[int], str] | None = None, say: Say = ENGLISH) -> str:
        """Who confirmed the table fingerprint at the table (their signed ``confirm``
        records), or that nobody did: never a comparison the file does not show."""
        first = self._tables()[0] if self._tables() else None
        if first is None:
            return ""
        who = who or functools.partial(self._who_seated, say=say)
        said = confirmations(first)
        same = [who(c.seat) for c in said if c.matches and c.same]
        differ = [who(c.seat) for c in said if c.matches and not c.same]
        other = [who(c.seat) for c in said if not c.matches]
        parts = []
        if same:
            parts.append(say("audit_confirmed", names=_and(same, say)))
        if differ:
            parts.append(say("audit_differed", names=_and(differ, say)))
        if other:
            parts.append(say("audit_other_table", names=_and(other, say)))
        return say("audit_semicolon").join(parts) + "." if parts else say("audit_nobody_confirmed")

    def saved(self, who: Callable[[int], str], say: Say = ENGLISH) -> str:
        """What the file and the disk say of its saving, in sentences: who the file says saved
        it (not signed), and when the disk last changed it (not in the file); empty if neither."""
        parts = []
        if self.saved_by is not None:
            parts.append(say("audit_file_saved", saved=say("audit_saved_by", who=who(self.saved_by))))
        if self.saved_on is not None:
            parts.append(say("audit_file_date", date=self.saved_on))
        return " ".join(parts)

    def verdict(self) -> dict[str, Any]:
        """The record's ``verdict``: ``incomplete`` is there, true, only for an INCOMPLETE one."""
        verdict: dict[str, Any] = {"valid": self.valid, "problems": [p.to_dict() for p in self.problems]}
        if self.incomplete:
            verdict["incomplete"] = True
        return verdict

    def to_record(self) -> dict[str, Any]:
        """The record of ``docs/record.md`` (as far as the transcript goes) with the verdict."""
        t = self.table
        if t is None or t.match is None:
            record: dict[str, Any] = {
                "format": FORMAT,
                "game": default_game() if t is None else t.GAME,
                "rules": None if t is None else t.rules.to_dict(),
                "players": [{"seat": i, "name": n, "key": k} for i, (n, k) in enumerate(self.players)],
                "verdict": self.verdict(),
                "cut": [],
                "hands": [],
                "result": {"winners": [], "totals": [], "finished": False},
            }
            if t is None:
                return record
            # A table that stops before its cut still says who signed that they leave it and,
            # when it went on from another, what it carried, who left and the tables before.
            if t.carried is not None:
                record["carried"] = {"hands": t.carried_hands, "totals": list(t.carried)}
        else:
            record = self._table_record(t, self.verdict())
        leaving = self.left_here()
        if leaving:
            record["leaving"] = leaving
        if t.carried is not None:
            record["left"] = self.departures()
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

    def departures(self) -> list[dict[str, Any]]:
        """The players who left, in the order they left (see ``docs/record.md``)."""
        tables = self._tables()
        first = [p.key for p in tables[0].roster] if tables else []
        out = []
        for t in tables[1:]:
            if t.carry is None or t.carried is None:
                continue  # its first step did not complete: nothing was carried yet
            prev = t.carry.table
            for s in t.carry.left:
                key = prev.roster[s].key
                out.append(
                    {
                        "name": prev.roster[s].name,
                        "key": key.hex(),
                        "after_hands": t.carried_hands,
                        "total": t.leaver_totals[s],
                        "signed": s in prev.departed,
                        "reason": prev.departed.get(s, t.carry.reason),
                        "seat": first.index(key) if key in first else s,
                        "hand": t.carried_hands + 1,
                        "step": _left_at(prev, s),
                        "how": _how(prev, s, t.carry.reason),
                    }
                )
        return out

    def left_here(self) -> list[dict[str, Any]]:
        """Who signed that they leave the table the file ends on (the leaver's own file, or
        one saved before the others went on): the same fields as :meth:`departures`."""
        t = self.table
        if t is None:
            return []
        first = [p.key for p in self._tables()[0].roster]
        done = t.carried_hands + (len(t.match.results) if t.match is not None else 0)
        return [
            {
                "name": t.roster[s].name,
                "key": t.roster[s].key.hex(),
                "seat": first.index(t.roster[s].key) if t.roster[s].key in first else s,
                "hand": done + 1,
                "step": _left_at(t, s),
                "how": "signed",
                "reason": reason,
            }
            for s, reason in sorted(t.departed.items())
        ]

    def _left_before_a_deal(self) -> set[int]:
        """The seats (first table's numbers) that left a table before its cut was done: no
        card of that table was dealt, so no hand was in progress."""
        tables = self._tables()
        if not tables:
            return set()
        first = [p.key for p in tables[0].roster]
        out = set()
        for t in tables[1:]:
            if t.carry is not None and t.carried is not None and t.carry.table.match is None:
                keys = [t.carry.table.roster[s].key for s in t.carry.left]
                out |= {first.index(k) for k in keys if k in first}
        if self.table is not None and self.table.match is None:
            out |= {d["seat"] for d in self.left_here()}
        return out

    def summary(self, say: Say = ENGLISH) -> str:
        """A short human verdict: what was checked, in words a non-expert can follow
        (in English, or in the language of ``say``)."""
        if self.valid:
            lines = self._valid_lines(say)
        elif self.incomplete:
            lines = self._incomplete_lines(say)
        else:
            lines = self._invalid_lines(say)
        # (The first line, the verdict, is one line whatever its length: a caller may print it alone.)
        rest = [part for line in lines[1:] for part in (_wrap(line) if len(line) > WIDTH else [line])]
        return "\n".join([lines[0], *rest])

    # -- the three verdicts

    def _labels(self) -> dict[str, str]:
        """Each seated player's name as shown, by key (hex): cleaned, and one that looks like
        another seated name carries the start of its key's fingerprint (``Hana#df80``), as
        the game's lines and ``replay`` show it: otherwise a look-alike puppet's win reads as
        the real player's in the totals and the winner."""
        keys = [k for _, k in self.seated]
        try:
            tags = [fingerprint(bytes.fromhex(k)).replace("-", "") for k in keys]
        except ValueError:
            return {}
        shown = label_names([n for n, _ in self.seated], tags, limit=40, width=60)
        return dict(zip(keys, shown, strict=True))

    def _label(self, name: str, key: str, labels: dict[str, str] | None = None) -> str:
        shown = (self._labels() if labels is None else labels).get(key)
        return shown if shown is not None else clean(name, 40)

    def _names(self, say: Say = ENGLISH) -> list[str]:
        """The names of the table the match ended on, cleaned, as ``say`` says them."""
        labels = self._labels()
        return [say.player(self._label(n, k, labels)) for n, k in self.players]

    def first_seat(self, seat: int) -> int:
        """The first table's seat of ``seat`` of the table the match ended on: the text
        numbers everyone as they sat down, those who left included."""
        if not 0 <= seat < len(self.players):
            return seat
        keys = [k for _, k in self.seated]
        key = self.players[seat][1]
        return keys.index(key) if key in keys else seat

    def _who(self, seat: int, say: Say = ENGLISH) -> str:
        """A seat of the table the match ended on, by name and the seat it sat down at."""
        names = self._names(say)
        if 0 <= seat < len(names):
            return say("audit_who", name=names[seat], seat=self.first_seat(seat))
        return say("audit_seat", seat=seat)

    def _who_seated(self, seat: int, say: Say = ENGLISH) -> str:
        """A seat of the first table (where everyone sat down), by name."""
        labels = self._labels()
        names = [say.player(self._label(n, k, labels)) for n, k in self.seated]
        return (
            say("audit_who", name=names[seat], seat=seat)
            if 0 <= seat < len(names)
            else say("audit_seat", seat=seat)
        )

    def _leavers_totals(self, say: Say) -> str:
        """``; p2 left with 14``: the totals that those who left keep."""
        gone = [
            say("audit_left_with", name=say.player(clean(d["name"], 40)), total=d["total"])
            for d in self.departures()
        ]
        return say("audit_semicolon") + ", ".join(gone) if gone else ""

    def _valid_lines(self, say: Say) -> list[str]:
        t = self.table
        assert t is not None and t.match is not None
        m = t.match
        names = self._names(say)
        winners = m.winners or ()
        k = self.hands_verified  # every table's, when players left and the others went on
        hands = say.n("audit_hands", k, k=k)
        seated = self._tables()[0].n
        players = say.n("audit_players", seated, n=seated)
        if seated > len(names):
            players = say("audit_finished_it", players=players, n=len(names))
        title = game(t.GAME).title
        if winners or k:
            lines = [say("audit_valid", game=title, players=players, hands=hands)]
        else:  # a player left before any hand was scored, and too few remained to play on
            lines = [say("audit_valid_no_hand", game=title, players=players)]
        totals = ", ".join(f"{names[s]} {m.totals[s]}" for s in range(len(names))) + self._leavers_totals(say)
        lines += _wrap(say("audit_totals", totals=totals))
        if winners:
            lines += _wrap(say.n("audit_winners", len(winners), names=_and([names[s] for s in winners], say)))
        else:
            lines.append(say("audit_winner_nobody"))
        lines += self._departure_lines(say)
        lines += self._about_lines(say)
        lines += ["", say("audit_checked")]
        lines += self._shuffle_lines(k, say)
        lines += _wrap("\u2713 " + say("audit_check_moves"))
        lines += _wrap("\u2713 " + say("audit_check_scores"))
        lines += _wrap(
            "\u2713 "
            + say.n("audit_check_winners", len(winners), names=_and([names[s] for s in winners], say))
            if winners
            else "\u2713 " + say("audit_check_no_winner")
        )
        lines += _wrap("\u2713 " + say("audit_check_records", n=self.records))
        return lines

    def _incomplete_lines(self, say: Say) -> list[str]:
        t = self.table
        title = game(t.GAME).title if t is not None else say("audit_cards")
        tables = self._tables()  # (the match's players: those seated at its first table)
        n = tables[0].n if tables else len(self.players)
        players = say.n("audit_players", n, n=n)
        lines = [
            say("audit_incomplete_cut", game=title, players=players)
            if self.cut
            else say("audit_incomplete", game=title, players=players)
        ]
        k = self.hands_verified
        m = t.match if t is not None else None
        over = m is not None and m.over
        if over:
            lines.append(say.n("audit_all_hands", k, k=k))
        elif k:
            lines.append(say.n("audit_hands_to_end", k, k=k, next=k + 1))
        elif t is not None and t.hand is not None:
            lines.append(say("audit_none_stops_1"))
        else:
            lines.append(say("audit_none_before_deal"))
        if self.cut:
            lines.append(say("audit_cut_after", last=self.records - 1))
            lines.append(say("audit_no_fault"))
        elif t is not None and t.status == "running":
            waiting = [self._who(s, say) for s in t.waiting_for]
            saver = [d for d in self.left_here() if self.saved_by is not None and d["seat"] == self.saved_by]
            if saver:  # the saver's own file: it stops where its player left, for that reason
                lines += _wrap(
                    say(
                        "audit_waiting_saver_left",
                        step=t.step,
                        kind=_kind(t.spec.kind, say),
                        name=say.player(clean(saver[0]["name"], 40)),
                        names=_and(waiting, say),
                    )
                )
            elif t.waiting_for and set(t.waiting_for) <= set(t.departed):  # they left instead: said why
                kind = _kind(t.spec.kind, say)
                lines += _wrap(say("audit_waiting_left", step=t.step, kind=kind, names=_and(waiting, say)))
            else:
                kind = _kind(t.spec.kind, say)
                lines += _wrap(say("audit_waiting", step=t.step, kind=kind, names=_and(waiting, say)))
        elif over:
            lines.append(say("audit_unsigned_result"))
        if m is not None and k:
            totals = ", ".join(f"{name} {m.totals[s]}" for s, name in enumerate(self._names(say)))
            totals += self._leavers_totals(say)
            lines += _wrap(
                say("audit_totals", totals=totals) if over else say("audit_totals_after", k=k, totals=totals)
            )
        lines += self._departure_lines(say)
        lines += self._about_lines(say)
        lines += ["", say("audit_checked")]
        lines += self._shuffle_lines(k, say)
        if k:
            lines += _wrap("\u2713 " + say.n("audit_check_hand_moves", k))
        if self.ahead and t is not None:
            read = self.records - self.ahead
            lines += _wrap(
                "\u2713 " + say("audit_check_records_ahead", n=self.records, read=read, step=t.step)
            )
            lines += _wrap(say.n("audit_records_ahead", self.ahead, k=self.ahead, step=t.step))
        else:
            lines += _wrap("\u2713 " + say("audit_check_records_unfinished", n=self.records))
        return lines

    def _invalid_lines(self, say: Say) -> list[str]:
        t = self.table
        names = self._names(say)
        lines = []
        count = len(self.problems)
        if t is not None:
            lines.append(say.n("audit_invalid_game", count, n=count, game=game(t.GAME).title))
        else:
            lines.append(say.n("audit_invalid", count, n=count))
        k = self.hands_verified
        if k:
            lines.append(say.n("audit_verified_read" if self.damaged else "audit_verified_before", k, k=k))
        else:
            lines.append(say("audit_none_verified"))
        if self.damaged:
            lines += _wrap(say("audit_damaged"))
        for p in self.problems:
            who = say("audit_blame_nobody") if p.seat is None else say("audit_seat", seat=p.seat)
            if p.seat is not None and p.seat < len(names):
                key = fingerprint(bytes.fromhex(self.players[p.seat][1]))
                who = say("audit_blame_who", name=names[p.seat], seat=self.first_seat(p.seat), fp=key)
            where = [] if p.record is None else [say("audit_record", n=p.record)]
            if p.hand is not None:
                where.append(say("audit_hand", n=p.hand))
            where_said = ", ".join(where) or say("audit_file")
            what = say.problem(p.what, self._seat_names(say))
            lines += _wrap(say("audit_problem", where=where_said, what=what, who=who))
        return lines

    def _seat_names(self, say: Say) -> list[str]:
        """The names of the players by the seats a problem's text numbers (a move the rules
        refused: ``it is seat 1's turn``), where they are sure: a file of a single table (one
        that went on without a player numbers its seats afresh at each table)."""
        return self._names(say) if len(self._tables()) == 1 else []

    # -- shared parts

    def _about_lines(self, say: Say = ENGLISH) -> list[str]:
        """The players, the rules in force, and the file's date and saver."""
        t = self.table
        lines = []
        if self.seated:
            gone = {d["seat"]: d for d in self.departures() + self.left_here()}
            undealt = self._left_before_a_deal()
            lines.append(say("audit_players_title"))
            for seat, (name, key) in enumerate(self.seated):
                fp = fingerprint(bytes.fromhex(key))[:9]
                if seat in gone:
                    lines.append(
                        say(
                            "audit_player_left_undealt" if seat in undealt else "audit_player_left",
                            seat=seat,
                            name=say.player(self._label(name, key)),
                            fp=fp,
                            hand=gone[seat]["hand"],
                        )
                    )
                else:
                    shown = say.player(self._label(name, key))
                    lines.append(say("audit_player", seat=seat, name=shown, fp=fp))
        if t is not None:
            lines += rules_in_words(t.GAME, t.rules, None if say is ENGLISH else say)
            clock = self._tables()[0].clock
            if clock is not None:
                turn, step, grace = clock
                lines += _wrap(
                    say("audit_clock", turn=_seconds(turn), step=_seconds(step), grace=_seconds(grace))
                )
        saved = self.saved(functools.partial(self._who_seated, say=say), say)
        if saved:
            lines += _wrap(saved)
        if self.status and not self.valid:
            lines += _wrap(self._note(say))
        return lines

    def _note(self, say: Say) -> str:
        """The saver's note (``aborted: quit``): how it ended in the reader's language, then
        why, quoted (the file's word, not signed), in that language too when the program wrote
        it (a fault, a leaver's reason); a note of another shape is quoted whole."""
        how, _, why = self.status.partition(": ")
        if how not in ("over", "failed", "aborted", "left"):
            return say("audit_note", note=clean(self.status, 200))
        why = clean(why, 200)
        said = say.reason(why) if how == "aborted" else say.problem(why, self._seat_names(say))
        return say(
            "audit_note_said",
            how=say(f"audit_note_{how}"),
            why=say("audit_note_why", why=said) if why else "",
        )

    def _departure_lines(self, say: Say = ENGLISH) -> list[str]:
        """Who left, when (the hand and the step), how, and how the match went on without them."""
        lines = []
        departures = self.departures()
        undealt = self._left_before_a_deal()
        t = self.table
        for d in departures:
            name = say.player(clean(d["name"], 40))
            ended = d is departures[-1] and t is not None and not t.hands_crypto and t.match is not None
            after = say(
                "audit_after_totals"
                if ended and d["after_hands"]
                else "audit_after_no_winner"
                if ended
                else "audit_after_played_on"
            )
            k = d["after_hands"]
            when = say.n("audit_after_hands", k, k=k)
            lines += _wrap(
                say(
                    "audit_departure_undealt" if d["seat"] in undealt else "audit_departure",
                    name=name,
                    when=when,
                    how=how_in_words(d["how"], say),
                    reason=say.reason(clean(d["reason"], 200)),
                    hand=d["hand"],
                    step=d["step"],
                    after=after,
                    total=d["total"],
                )
            )
        for d in self.left_here():
            lines += _wrap(
                say(
                    "audit_left_here_undealt" if d["seat"] in undealt else "audit_left_here",
                    name=say.player(clean(d["name"], 40)),
                    how=how_in_words("signed", say),
                    reason=say.reason(clean(d["reason"], 200)),
                    hand=d["hand"],
                    step=d["step"],
                )
            )
        return lines

    def _shuffle_lines(self, hands: int, say: Say = ENGLISH) -> list[str]:
        if not hands:
            return []
        n = self.shuffles_verified
        return _wrap("\u2713 " + say.n("audit_check_shuffles", n, n=n))


def rules_in_words(game_name: str, rules: Any, say: Say | None = None) -> list[str]:
    """The rules in force, every option, in words (the game says them: see ``Game``), in
    English or in the language of ``say``."""
    described = (
        game(game_name).describe_rules(rules) if say is None else game(game_name).describe_rules(rules, say)
    )
    return [line for sentence in described for line in _wrap(sentence)]


WIDTH = 79
"""Every line of the summary fits in 80 columns."""


_GLUE = "\ue000"
"""Holds a French space before ``:`` and ``;`` and inside ``« »`` while wrapping (a line
never starts with the sign)."""


def _wrap(text: str) -> list[str]:
    glued = re.sub(r" (?=[:;!?»])|(?<=«) ", _GLUE, text.replace(_GLUE, " "))
    lines = textwrap.wrap(glued, WIDTH, subsequent_indent="    ", break_on_hyphens=False)
    return [line.replace(_GLUE, " ") for line in lines] or [""]


def _left_at(table: TableCore, seat: int) -> int:
    """The step of ``table`` at which ``seat`` left: that of its ``leave`` record, or where
    the others stood when they judged it gone (the steps of the table the file shows)."""
    leave = table.log.left.get(seat)
    return leave.record.step if leave is not None else table.step


def _how(table: TableCore, seat: int, reason: str) -> str:
    """``signed`` (its own ``leave`` record), ``timed out`` (the others say it lost its
    connection and its grace ran out) or ``judged gone`` (the others' word, for another reason)."""
    if seat in table.departed:
        return "signed"
    return "timed out" if reason.startswith(TIMED_OUT) else "judged gone"


HOW = {
    "signed": "signed that they leave",
    "timed out": "were judged gone by the others when their time to come back ran out",
    "judged gone": "were judged gone by the others",
}
"""How a player left, in words (the keys of a departure's ``how``)."""


def _kind(kind: str, say: Say) -> str:
    """A step's kind in the reader's language (its protocol name in English)."""
    key = "audit_kind_" + kind.replace("-", "_")
    return say(key) if key in AUDIT_WORDS else kind


def how_in_words(how: str, say: Say = ENGLISH) -> str:
    """How a player left (a departure's ``how``: a key of :data:`HOW`), in ``say``'s language."""
    return say("audit_how_" + how.replace(" ", "_"))


def _and(items: list[str], say: Say = ENGLISH) -> str:
    if len(items) <= 1:
        return "".join(items) or say("audit_nobody")
    return ", ".join(items[:-1]) + f" {say('audit_and')} " + items[-1]


def _seconds(n: int) -> str:
    """A duration for people: 45 s, 2 min, 1 h 30 min."""
    if n < 120 or n % 60:
        return f"{n} s"
    hours, minutes = divmod(n // 60, 60)
    return f"{hours} h {minutes} min" if hours and minutes else (f"{hours} h" if hours else f"{minutes} min")


MAX_LISTED = 100
"""Problems of single records (unreadable, edited, a bad signature) listed one by one; those
beyond are counted in one line, so that the report stays short whatever the file holds."""
MAX_JUNK = 64
"""Records that cannot be the match's (unreadable and signed by no player, of another game,
or not validly signed by the seat they name) read after the first record fixed the roster;
at the next one the rest of the file is taken for junk, counted and not checked. An honest
file holds none: the bound keeps the work (a signature check each) to what a file can prove."""


def audit_bytes(data: bytes) -> AuditReport:
    """Audit a transcript file's bytes. Raises TranscriptError if it is not a transcript at all.

    Every value in the file is checked before use: a problem is reported with the
    seat whose signature is on the faulty record, or nobody when no valid
    signature ties it to a seat (the file itself was altered). Problems that do
    not depend on each other are all reported: the file checksum, each record
    that cannot be read, the first fault of the replay (a chain dispute counts as
    the fault where it starts), and every later record whose signature does not
    verify. The work is bounded by what the file can prove: past :data:`MAX_JUNK`
    records that cannot be the match's, the rest of the file is junk, reported
    with its count and not checked, and at most :data:`MAX_LISTED` problems of
    single records are listed (the rest counted).
    """
    tf = decode_file(data)
    report = AuditReport(records=len(tf.records), cut=tf.cut, saved_by=tf.saved_by, status=tf.status)
    if tf.cut:
        # Not a fault of anyone's: the records before the cut are audited as they are.
        cut = Problem(
            None,
            None,
            len(tf.records),
            faults.CUT_SHORT.format(last=len(tf.records) - 1),
        )
        report.problems.append(cut)
        report.unfinished.append(cut)
    elif not tf.checksum_ok:
        report.problems.append(Problem(None, None, None, faults.FILE_ALTERED))
    # Located but never blamed: bytes outside the signed records prove nothing about a seat.
    report.problems.extend(Problem(None, None, d.record, d.what) for d in tf.damage)
    report.damaged = len(tf.damage)
    try:
        _Replay(tf.records, report).run()
    finally:
        _signed_by.cache_clear()  # (the records of this file are not kept beyond its audit)
    return report


class _Replay:
    """One pass over a file's records in file order, as an observer table replays them.

    Problems are kept by kind, in the order the report lists them: records that cannot
    be read, then the replay's (edits and its first fault), then later records whose
    signature does not verify. The problems of a run of junk records wait until a
    record of the match ends the run: if the run reaches the junk bound instead, they
    give way to one problem that counts the rest of the file."""

    def __init__(self, pairs: tuple[tuple[object, object], ...], report: AuditReport) -> None:
        self.pairs = pairs
        self.report = report
        self.malformed: list[Problem] = []
        self.replayed: list[Problem] = []
        self.later: list[Problem] = []
        self.tail: list[Problem] = []
        """The junk counted, the problems not listed, the verdict on how the file ends."""
        self.listed = 0
        self.unlisted: list[int] = []
        """Indexes of the records whose problems are counted, not listed."""
        self.unlisted_seats: set[int] = set()
        self.junk = 0
        self.pending: list[tuple[list[Problem], Problem]] = []
        self.run_start: int | None = None

    # -- the bounds

    def _list(self, kind: list[Problem], p: Problem) -> None:
        """A problem of a single record: listed while there is room, else counted."""
        if self.listed < MAX_LISTED:
            kind.append(p)
            self.listed += 1
            return
        self.unlisted.append(-1 if p.record is None else p.record)
        if p.seat is not None:
            self.unlisted_seats.add(p.seat)

    def _of_match(self) -> None:
        """A record of the match: the run of junk before it is not the end of the file."""
        for kind, p in self.pending:
            self._list(kind, p)
        self.pending, self.run_start = [], None

    def _junk(self, i: int, kind: list[Problem] | None = None, p: Problem | None = None) -> bool:
        """A record that cannot be the match's; True when it is one too many (the rest is junk)."""
        if self.run_start is None:
            self.run_start = i
        self.junk += 1
        if self.junk <= MAX_JUNK:
            if kind is not None and p is not None:
                self.pending.append((kind, p))
            return False
        return True

    def _rest_is_junk(self, end: int, *, rest: bool = True) -> None:
        """Records ``run_start`` to ``end`` (excluded) are junk: counted, never checked."""
        start = self.run_start
        assert start is not None
        count = end - start
        if rest:
            junk = faults.JUNK_REST_ONE if count == 1 else faults.JUNK_REST
        else:
            junk = faults.JUNK_BEFORE_ONE if count == 1 else faults.JUNK_BEFORE
        what = junk.format(count=count, start=start, end=end - 1, most=MAX_JUNK)
        self.tail.append(Problem(None, None, start, what))
        self.pending, self.run_start, self.junk = [], None, 0

    # -- the pass

    def run(self) -> None:
        report, pairs = self.report, self.pairs
        before: list[tuple[int, object, object, str]] = []
        first: tuple[int, SignedRecord] | None = None
        for i, (raw, sig) in enumerate(pairs):
            try:
                first = (i, parse_record(raw, sig))
                break
            except WireError as e:
                before.append((i, raw, sig, str(e)))
        if first is None:
            for i, _, _, why in before:
                self._list(self.malformed, Problem(None, None, i, faults.MALFORMED_RECORD.format(error=why)))
            self._finish([Problem(None, None, None, faults.NO_RECORD)])
            return
        first_index, first_rec = first
        ref_index, ref_rec = _reference_join(first, pairs, report.saved_by)
        table = _observer(ref_index, ref_rec, report)
        if table is None:  # no roster to check a signature with: only what cannot be read is said
            for i, (raw, sig) in enumerate(pairs):
                try:
                    parse_record(raw, sig)
                except WireError as e:
                    what = faults.MALFORMED_RECORD.format(error=e)
                    self._list(self.malformed, Problem(None, None, i, what))
            self._finish([])
            return
        report.table = table
        sitting = report.sitting = Sitting(table)
        rosters = _Rosters(sitting)
        tripped = False
        for i, raw, sig, why in before:
            if tripped:  # junk before the first record: skipped up to it, and the rest is read
                continue
            signer = _signer(table, raw, sig)
            p = Problem(None, signer, i, faults.MALFORMED_RECORD.format(error=why))
            if signer is None:
                tripped = self._junk(i, self.malformed, p)
            else:
                self._of_match()
                self._list(self.malformed, p)
        if tripped:
            self._rest_is_junk(first_index, rest=False)
        self._of_match()
        self.junk = 0  # counted anew from the first record, which fixed the roster
        index_of: dict[bytes, int] = {}
        failed = False
        last: tuple[int, int, int] = (-1, -1, -1)
        for i in range(first_index, len(pairs)):
            raw, sig = pairs[i]
            try:
                rec = first_rec if i == first_index else parse_record(raw, sig)
            except WireError as e:
                signer = _signer(sitting.tables[0], raw, sig)
                p = Problem(None, signer, i, faults.MALFORMED_RECORD.format(error=e))
                if signer is not None:
                    self._of_match()
                    self._list(self.malformed, p)
                elif self._junk(i, self.malformed, p):
                    break
                continue
            index_of.setdefault(rec.raw, i)
            if failed and table.failure is not None and table.failure.peer is None:
                # A stop that blamed nobody: a later record of the file may prove that one of
                # the records that made it stop was an equivocation (the node read on for it).
                try:
                    table.log.proof_after_stop(rec)
                except RemoteProtocolError as e:
                    if e.peer is not None:
                        culprit = table.culprit_record
                        where = index_of.get(culprit.raw, i) if culprit is not None else i
                        self.replayed.append(Problem(_hand(table), e.peer, where, e.problem))
                        continue
            if failed:
                # After the first fault only signatures are checked (against the roster of
                # the table the record names, as the replay would have).
                roster = rosters.get(rec.record.game_id)
                if _verifies(roster if roster is not None else table.roster, rec):
                    if roster is not None:
                        self._of_match()
                        continue
                    if self._junk(i):  # validly signed, but of another game
                        break
                    continue
                if self._junk(i, self.later, Problem(None, None, i, faults.SIGNATURE_FAILS)):
                    break
                continue
            if (
                table.status == "disputed"
                and rec.record.game_id == table.game_id
                and not _verifies(table.roster, rec)
            ):
                # Read as evidence, a record that does not verify proves nothing: the dispute
                # stays the replay's fault, and the rest of the file is still read for a proof.
                if self._junk(i, self.later, Problem(None, None, i, faults.SIGNATURE_FAILS)):
                    break
                continue
            try:
                sitting.receive_record(rec)
                table = report.table = sitting.current
                place = (_segment(sitting, rec), rec.record.step, rec.record.seat)
                self._of_match()
                if isinstance(rec.record.body, SIDE_BODIES):  # a side record: saved after its table's others
                    continue
                if place <= last and table.status != "disputed":
                    # Accepted as a copy or as a late record: the file was edited after it
                    # was saved (a node writes records in step order, then its proof).
                    p = Problem(_hand(table), None, i, faults.EDITED)
                    self._list(self.replayed, p)
            except RemoteProtocolError as e:
                culprit = table.culprit_record
                where = index_of.get(culprit.raw, i) if culprit is not None else i
                self.replayed.append(Problem(_hand(table), e.peer, where, e.problem))
                failed = True
                if _belongs(rosters, rec):
                    self._of_match()
                elif self._junk(i):
                    break
                continue
            except Exception as e:  # a bug of the audit, never a verdict on a player
                self.replayed.append(
                    Problem(_hand(table), None, i, faults.AUDIT_FAILED.format(error=repr(e)))
                )
                report.internal_error = True
                failed = True
                continue
            last = max(last, place)
        else:
            self._of_match()  # the file ends: a run of junk that did not reach the bound is listed
        if self.run_start is not None:
            self._rest_is_junk(len(pairs))
        ends: list[Problem] = []
        if failed:
            pass
        elif table.status == "disputed":
            # A record that follows another history than the file's, and no proof in the file of
            # who equivocated: its author may have lied, or the file's saver changed a record of
            # its own before it (re-signed: one version only in this file). Nobody is blamed, or
            # a saver could frame whoever wrote after it.
            culprit = table.proof[0] if table.proof else None
            start = index_of.get(culprit.raw) if culprit is not None else None
            author = culprit.record if culprit is not None else None
            seat, why = table.suspect or (None, "broken chain")
            if author is not None and author.step > 0 and 0 <= author.seat < table.n:
                # (at step 0 nothing precedes it: a record that names another start is its own)
                completed = table.transcript.steps
                previous = completed[-1] if author.step == len(completed) else []
                if previous and all(r.record.seat == author.seat for r in previous):
                    # The step before is the author's alone, and every record before that step
                    # follows the file's history: whatever another showed it, the author held
                    # its own records of that step, so it signed a record on another version
                    # of them.
                    why = faults.CHAIN_OWN.format(step=author.step, before=author.step - 1)
                    seat = author.seat
                else:
                    name = table.roster[author.seat].name
                    why = faults.CHAIN_IN_FILE.format(name=name, seat=author.seat, step=author.step)
                    seat = None
            self.replayed.append(Problem(_hand(table), seat, start, why))  # the fault, where it starts
        elif table.status == "running" and not (report.problems or self.listed or self.tail):
            who = ", ".join(str(s) for s in table.waiting_for)
            # Nobody is blamed: a seat may have stopped because of another's fault that
            # this file cannot show; the text says whose records are missing.
            end = Problem(
                _hand(table),
                None,
                None,
                faults.ENDS_EARLY.format(step=table.step, seats=who),
            )
            ends.append(end)
            report.unfinished.append(end)
            report.ahead = table.held_ahead
        self._finish(ends)

    def _finish(self, ends: list[Problem]) -> None:
        """The problems in the report's order: single records, what is counted, the end."""
        p = self.report.problems
        p += self.malformed + self.replayed + self.later
        if self.unlisted:
            k, seats = len(self.unlisted), sorted(self.unlisted_seats)
            blamed = f"seat{'s' if len(seats) > 1 else ''} {_and([str(s) for s in seats])}"
            if seats:
                template = faults.UNLISTED_ONE_BLAME if k == 1 else faults.UNLISTED_BLAME
            else:
                template = faults.UNLISTED_ONE if k == 1 else faults.UNLISTED
            first, last = self.unlisted[0], self.unlisted[-1]
            what = template.format(count=k, first=first, last=last, blamed=blamed)
            p.append(Problem(None, None, first if first >= 0 else None, what))
        p += self.tail + ends


class _Rosters:
    """The roster of every table a record of the file may belong to, from where the audit
    stands: each table of the match so far, and each table that may continue one of them, at
    any depth (a replay stopped by a fault on one table never reaches the tables after it, whose
    records are still checked with their own rosters)."""

    def __init__(self, sitting: Sitting) -> None:
        self.sitting = sitting
        self._ids: tuple[bytes, ...] = ()
        self._of: dict[bytes, tuple[Player, ...]] = {}

    def get(self, game_id: bytes) -> tuple[Player, ...] | None:
        ids = tuple(t.game_id for t in self.sitting.tables)
        if ids != self._ids:
            self._ids, self._of = ids, {}
            todo = [(t.game_id, t.roster) for t in self.sitting.tables]
            while todo:  # (at most 1,436 tables below one of six seats)
                game_id, roster = todo.pop()
                for k in range(1, len(roster) - MIN_TO_CONTINUE + 1):
                    for gone in itertools.combinations(range(len(roster)), k):
                        next_id = continuation_id(game_id, gone)
                        if next_id not in self._of:
                            stay = tuple(p for s, p in enumerate(roster) if s not in gone)
                            self._of[next_id] = stay
                            todo.append((next_id, stay))
            self._of.update((t.game_id, t.roster) for t in self.sitting.tables)
        return self._of.get(game_id)


@functools.lru_cache(maxsize=64)
def _signed_by(key: bytes, sig: bytes, raw: bytes) -> bool:
    """Whether ``sig`` is ``key``'s signature of the record ``raw``. A file may hold one record
    many times over (up to a million records): each copy after the first costs no check."""
    return verify_signature(key, sig, SIGN_PREFIX + raw)


def _verifies(roster: tuple[Player, ...], rec: SignedRecord) -> bool:
    seat = rec.record.seat
    return 0 <= seat < len(roster) and _signed_by(roster[seat].key, rec.sig, rec.raw)


def _belongs(rosters: _Rosters, rec: SignedRecord) -> bool:
    """``rec`` may be a record of the match: of one of its tables, validly signed by its seat."""
    roster = rosters.get(rec.record.game_id)
    return roster is not None and _verifies(roster, rec)


def _segment(sitting: Sitting, rec: SignedRecord) -> int:
    """Which of the match's tables ``rec`` belongs to (a continued match has several)."""
    ids = [t.game_id for t in sitting.tables]
    return ids.index(rec.record.game_id) if rec.record.game_id in ids else len(ids)


def _hand(table: TableCore) -> int | None:
    return table.hand.number if table.hand is not None else None


def _reference_join(
    first: tuple[int, SignedRecord], pairs: Sequence[tuple[object, object]], saved_by: object
) -> tuple[int, SignedRecord]:
    """The join record the audit takes the table from: the saver's own (the terms the
    saver played by: a joiner told other terms than the host's reads its own table),
    else the first. A join that differs from it blames nobody (protocol.md 7.1). The
    saver's join is one of step 0's records, among the first few of the file."""
    index, rec = first
    if type(saved_by) is not int or not isinstance(rec.record.body, Join) or rec.record.seat == saved_by:
        return first
    for i in range(index + 1, min(len(pairs), index + 2 * MAX_SEATS)):
        raw, sig = pairs[i]
        try:
            other = parse_record(raw, sig)
        except WireError:
            continue
        r = other.record
        if (
            r.step == 0
            and r.seat == saved_by
            and isinstance(r.body, Join)
            and r.game_id == rec.record.game_id
        ):
            return i, other
    return first


def _observer(index: int, rec: SignedRecord, report: AuditReport) -> TableCore | None:
    """The table named by the first record, or None (with the problem reported)."""
    r = rec.record
    if not isinstance(r.body, Join):
        report.problems.append(Problem(None, None, index, faults.FIRST_NOT_JOIN))
        return None
    roster = r.body.roster
    own = roster[r.seat].key if r.seat < len(roster) else None
    if (
        own is None
        or not is_valid_public_key(own)
        or not verify_signature(own, rec.sig, SIGN_PREFIX + rec.raw)
    ):
        report.problems.append(Problem(None, None, index, faults.FIRST_NOT_SIGNED))
        return None
    try:
        cls = _audited(table_class(r.body.game))
        rules = game(r.body.game).rules_from_dict(dict(r.body.rules))
        table = cls(game_id=r.game_id, roster=roster, rules=rules, seat=None, clock=r.body.clock)
        table.terms_of = r.seat  # the reference join's terms: its author's word (7.1)
        return table
    except (RuleOptionError, LocalProtocolError, UsageError, ValueError) as e:
        report.problems.append(
            Problem(None, r.seat, index, faults.IMPOSSIBLE_TABLE.format(error=e))
        )
        return None


class _ClaimsBeyondTheFile:
    """What the audit's tables add to a table (their continuations are made with
    ``type(self)``, so they have it too): ``continue`` claims that all reach past the file.

    A node's own ``continue`` record claims exactly what it completed, so the hands every
    seat finished (the fewest claimed) are hands it scored. An audit has no record of its
    own: when every claim is beyond what the file holds of the table continued (protocol.md
    section 12, rule 4 alone applies, and allows them) and they all count a hand the file
    does not show scored, the totals to carry cannot be computed. The audit stops there,
    blaming nobody (the verdict is INVALID), instead of failing inside the table."""

    def _on_continue(self, spec: Any, bodies: dict[int, Any], step: int) -> None:
        me: Any = self
        carry = me.carry
        prev = carry.table
        shown = prev.hands_by(prev.step)
        claims = [b for b in bodies.values() if isinstance(b, Continue)]
        if (
            claims
            and all(b.game == prev.game_id and b.left == carry.left and b.steps > prev.step for b in claims)
            and min(b.hands for b in claims) > shown
        ):
            h = min(b.hands for b in claims)
            claims_more = faults.CLAIMS_MORE_ONE if h == 1 else faults.CLAIMS_MORE
            me.log.stop(claims_more.format(hands=h, shown=shown))
            raise me.log.failure
        super()._on_continue(spec, bodies, step)  # type: ignore[misc]


_AUDITED: dict[type[TableCore], type[TableCore]] = {}


def _audited(cls: type[TableCore]) -> type[TableCore]:
    """The table class ``cls`` as the audit replays it (see :class:`_ClaimsBeyondTheFile`),
    made once per class."""
    if cls not in _AUDITED:
        _AUDITED[cls] = type(f"Audited{cls.__name__}", (_ClaimsBeyondTheFile, cls), {})
    return _AUDITED[cls]


def _signer(table: TableCore | None, raw: object, sig: object) -> int | None:
    """The seat whose valid signature is on an unreadable record, if any."""
    if table is None or type(raw) is not bytes or type(sig) is not bytes:
        return None
    return unreadable_seat(table.roster, raw, sig, _signed_by)


def audit_file(path: str | Path) -> AuditReport:
    report = audit_bytes(read_transcript_bytes(path))
    with contextlib.suppress(OSError, ValueError, OverflowError):
        report.saved_on = datetime.fromtimestamp(Path(path).stat().st_mtime).strftime("%Y-%m-%d %H:%M")
    return report
