"""The games this computer played: one line per saved transcript, newest first.

``p2pcards history`` reads the transcripts a node saves in the data directory
(see :mod:`p2pcards.net.storage`). With ``verify`` each file goes through the
full offline audit (:mod:`p2pcards.protocol.audit`); without, only its signed
join record and result records are read, and nothing is checked.

Every name comes from a peer: the text lines show them cleaned
(:func:`p2pcards.safetext.label_names`); :meth:`GameEntry.to_dict` keeps them as
signed, for a JSON reader.
"""

from __future__ import annotations

import datetime
import hashlib
import json
import os
import re
import tempfile
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from p2pcards.crypto.identity import fingerprint
from p2pcards.protocol.notice import Notice
from p2pcards.safetext import clean, label_names
from p2pcards.ui.i18n import you_words
from p2pcards.ui.render import NARROWEST, cut_columns, fill, pad, visible_len

if TYPE_CHECKING:
    from p2pcards.ui.i18n import Translator

FILE_NAME = re.compile(r"(?:nines|neuf)-(\d{4}-\d{2}-\d{2})-[0-9a-f]{12}-s\d+\.p2pt")
"""The name :func:`p2pcards.net.storage.transcript_path` gives a transcript (the date is the game's)."""

WIDTH = 79
"""Longest line of the listing in 80 columns: one game a line (a wider terminal gets longer lines)."""
PLAYERS_WIDTH = 32
"""Widest players' column in 80 columns (each column more gives it one more); a longer list of
players is cut (``--json`` has every name)."""
MAX_WIDTH = 200
"""Longest line of the listing in any terminal."""
NAME_LIMIT = 16
"""Longest name shown in 80 columns (a name may have 32 characters, shown whole from
:data:`WIDE` columns on)."""
WIDE = 119
"""Lines this wide (a terminal of 120 columns) show names whole."""
MIN_PLAYERS_WIDTH = 16
"""The players' column is at least this wide when it has to share the line with long results."""
NARROW = 30
"""Below :data:`WIDTH` a game takes three lines, cut to the width; below this many columns they
are folded at their spaces instead (a cut there took most of a word or a name)."""

def _english() -> Translator:
    from p2pcards.ui.i18n import Translator

    return Translator()


def mark(check: str | None, tr: Translator | None = None) -> str:
    """The verdict's mark at the end of a line (``✓ verified``) in the language of ``tr``."""
    return "" if check is None else (tr or _english())(f"hist_mark_{check}")


_NOT_READ = {"file_unreadable": "hist_unreadable", "file_cut_before_records": "hist_cut_short"}
"""What the listing says of a file by why it could not be read (else: no transcript)."""


@dataclass(slots=True)
class GameEntry:
    """What the listing says of one file of the transcripts folder."""

    path: Path
    date: str
    mtime: float
    game: str | None = None
    """``nines`` or ``neuf`` from the signed join record; None if the file is not a transcript."""
    names: list[str] = field(default_factory=list)
    keys: list[str] = field(default_factory=list)
    saved_by: int | None = None
    finished: bool = False
    winners: list[int] = field(default_factory=list)
    totals: list[int | None] = field(default_factory=list)
    """By seat; None for a player who left when ``--no-verify`` cannot tell their total."""
    hand: int | None = None
    """Hands played (finished), or the hand the transcript stops in."""
    check: str | None = None
    """``verified``, ``invalid``, ``incomplete`` (audited), ``unchecked`` (not audited),
    or None (not a transcript)."""
    blamed: int | None = None
    problems: list[dict[str, Any]] = field(default_factory=list)
    error: str | None = None
    left: dict[int, int] = field(default_factory=dict)
    """The players who left before the end, by seat: the hand they left in (0 when
    ``--no-verify`` cannot tell)."""
    bot: bool = False
    """A bot played the seat that saved the file (a watched game, ``--bot``): that seat is
    not the person at this computer."""
    unread_why: str | None = None
    """Why the file could not be read as a transcript (the key of the error's notice, if any)."""

    @property
    def not_read(self) -> str:
        """The key of what the listing says of a file it could not read as a transcript: it
        could not be read at all (no permission), or ends before its first record (a copy cut
        short), or else is no transcript."""
        return _NOT_READ.get(self.unread_why or "", "hist_not_transcript")

    @property
    def title(self) -> str:
        if self.game is None:
            return "?"
        from p2pcards.games.base import game

        try:
            return game(self.game).title
        except Exception:
            return clean(self.game, 12)

    def shown_names(self, limit: int = NAME_LIMIT) -> list[str]:
        """The names cleaned for a terminal and cut to ``limit``, look-alikes told apart by
        their key fingerprint."""
        tags = [_tag(k) for k in self.keys]
        return label_names(self.names, tags, limit=limit, width=12) if self.names else []

    def result(self, tr: Translator | None = None, limit: int = NAME_LIMIT) -> str:
        """How the game ended in a few words: ``Erin & Robo won with 9 each`` (in English,
        or in the language of ``tr``)."""
        tr = tr or _english()
        names = [tr.person(n) for n in self.shown_names(limit)]

        def name(seat: int) -> str:
            return names[seat] if 0 <= seat < len(names) else tr("hist_seat", seat=seat)

        if self.game is None:
            return tr(self.not_read)
        if self.blamed is not None:
            return tr("hist_failed", name=name(self.blamed))
        if self.finished and not self.winners:
            return tr("hist_no_winner")
        if self.finished:
            won = " & ".join(name(s) for s in self.winners)
            scores = {self.totals[s] for s in self.winners if 0 <= s < len(self.totals)}
            if len(scores) != 1 or None in scores:
                return tr.n("hist_won", len(self.winners), names=won)
            (score,) = scores
            return tr.n("hist_won_with", len(self.winners), names=won, score=score)
        if self.hand:
            return tr("hist_unfinished_at", hand=self.hand)
        return tr("hist_unfinished_before")

    def players(
        self, tr: Translator | None = None, limit: int = NAME_LIMIT, *, mine_first: bool = False
    ) -> str:
        """Everyone who sat down, this computer's seat and those who left marked (a seat
        whose name already says "you" needs no mark; a bot's seat is not the person's), in
        seat order; ``mine_first``: this computer's seat first (a line too narrow for all
        of them keeps its mark)."""
        tr = tr or _english()
        names = [tr.person(n) for n in self.shown_names(limit)]  # (play's "you": in this language)
        out: list[str] = []
        for s, n in enumerate(names):
            mine = s == self.saved_by
            marks = [
                m
                for m, on in (
                    (tr("hist_your_bot"), mine and self.bot),
                    (tr("hist_you"), mine and not self.bot and n.casefold() not in you_words()),
                    (tr("hist_left"), s in self.left),
                )
                if on
            ]
            out.append(f"{n} ({', '.join(marks)})" if marks else n)
        if mine_first and self.saved_by is not None and 0 <= self.saved_by < len(out):
            out.insert(0, out.pop(self.saved_by))
        return ", ".join(out)

    def line(
        self,
        number: int,
        players_width: int = PLAYERS_WIDTH,
        tr: Translator | None = None,
        width: int = WIDTH,
        results_width: int | None = None,
    ) -> str:
        """One line of the listing, at most ``width`` columns: ``number`` is what
        ``p2pcards replay`` takes to show that game (in English, or ``tr``'s language).
        ``results_width``: the widest result of the listing (the verdicts line up after it)."""
        tr = tr or _english()
        verdict = mark(self.check, tr)
        head = f"{number:>2} {self.date} "
        if self.game is None:
            tail = f": {tr(self.not_read)}"
            return f"{head}{_cut_middle(clean(self.path.name, 200), width - len(head) - len(tail))}{tail}"
        head += f"{self.title:<7}  "
        widest = _players_cap(width)
        players_width = min(players_width, widest, width - len(head) - len(verdict) - 4 - 12)
        limit = _name_limit(width)
        players = self.players(tr, limit)
        if visible_len(players) > players_width:  # cut: this computer's seat first, its mark kept
            players = self.players(tr, limit, mine_first=True)
        head += f"{pad(_cut(players, players_width), players_width)}  "
        room = max(width - visible_len(head) - len(verdict) - 2, 12)
        if results_width is not None:
            room = min(room, max(results_width, 12))
        return _cut(f"{head}{pad(_cut(self.result(tr, limit), room), room)}  {verdict}".rstrip(), width)

    def narrow_lines(self, number: int, tr: Translator | None = None, width: int = NARROW) -> list[str]:
        """The game in lines of ``width`` columns (a terminal narrower than :data:`WIDTH`, or
        players too many for one line): its number, date, game and verdict, then the players and
        how it ended, each on a line of its own."""
        tr = tr or _english()
        head = f"{number:>2} {self.date} "
        indent = " " * 3
        if self.game is None:
            tail = f": {tr(self.not_read)}"
            return [_cut(f"{head}{self.path.name}{tail}", width)]
        first = f"{head}{self.title}  {mark(self.check, tr)}".rstrip()
        limit = _name_limit(width)
        players = self.players(tr, limit)
        if width >= NARROW:
            if visible_len(indent + players) > width:
                players = self.players(tr, limit, mine_first=True)
            return [_cut(first, width), _cut(indent + players, width),
                    _cut(indent + self.result(tr, limit), width)]  # fmt: skip
        # Narrower still: folded at spaces, never cut inside a word (every player shows); the
        # verdict's mark stays with its word (a no-break space, which fill() makes a space again).
        first = f"{head}{self.title}  {mark(self.check, tr).replace(' ', chr(0xA0))}".rstrip()
        later = indent + "  "
        return [*fill(first, width, "", indent), *fill(players, width, indent, later),
                *fill(self.result(tr, limit), width, indent, later)]  # fmt: skip

    def to_dict(self, number: int | None = None) -> dict[str, Any]:
        """The entry for ``--json``: names as signed (the caller escapes what a terminal obeys);
        ``number`` is its number in the listing, which ``p2pcards replay`` takes."""
        return {
            "number": number,
            "file": str(self.path),
            "date": self.date,
            "transcript": self.game is not None,
            "game": self.game,
            "title": self.title if self.game is not None else None,
            "players": [
                {
                    "seat": s,
                    "name": n,
                    "key": k,
                    "you": s == self.saved_by and not self.bot,
                    "left": s in self.left,
                }
                for s, (n, k) in enumerate(zip(self.names, self.keys, strict=True))
            ],
            "left": [{"seat": s, "hand": h or None} for s, h in sorted(self.left.items())],
            "saved_by": self.saved_by,
            "saved_by_bot": self.bot,
            "finished": self.finished,
            "winners": list(self.winners),
            "totals": list(self.totals),
            "hand": self.hand,
            "verified": self.check,
            "blamed": self.blamed,
            "result": self.result(),
            "problems": list(self.problems),
            "error": self.error,
        }


def _tag(key_hex: str) -> str:
    try:
        return fingerprint(bytes.fromhex(key_hex)).replace("-", "")
    except ValueError:
        return "?"


def _cut(text: str, width: int) -> str:
    """``text`` in ``width`` terminal columns (a wide character takes two)."""
    if visible_len(text) <= width:
        return text
    return cut_columns(text, max(width - 1, 0), "").rstrip(" ,") + "…"


def _cut_middle(text: str, width: int) -> str:
    """``text`` in ``width`` columns, its middle left out: a file's name keeps its date and end."""
    if len(text) <= width:
        return text
    keep = max(width - 1, 2)
    return text[: keep - keep // 2] + "…" + text[len(text) - keep // 2 :]


def _name_limit(width: int) -> int:
    """The longest name shown in lines of ``width`` columns."""
    return 2 * NAME_LIMIT if width >= WIDE else NAME_LIMIT


def _players_cap(width: int) -> int:
    """The widest players' column in lines of ``width`` columns."""
    return PLAYERS_WIDTH + max(0, width - WIDTH)


def transcripts_folder(path: Path) -> Path:
    """The folder to list for ``path``: a data directory's ``transcripts``, or ``path`` itself."""
    sub = path / "transcripts"
    return sub if sub.is_dir() else path


def find(folder: Path) -> list[GameEntry]:
    """Every file of ``folder`` (or ``folder`` itself, a file), newest first, nothing read yet."""
    if folder.is_file():
        files = [folder]
    else:
        try:
            files = [p for p in folder.iterdir() if p.is_file()]
        except OSError:
            return []
    entries = []
    for p in files:
        try:
            mtime = p.stat().st_mtime
        except OSError:
            mtime = 0.0
        m = FILE_NAME.fullmatch(p.name)
        date = m.group(1) if m else datetime.date.fromtimestamp(mtime).isoformat()
        entries.append(GameEntry(path=p, date=date, mtime=mtime))
    entries.sort(key=lambda e: (e.date, e.mtime, e.path.name), reverse=True)
    return entries


GAME_NUMBER = re.compile(r"#?([0-9]{1,6})")
"""A game by its number in the listing: ``3`` or ``#3``."""


def numbered(which: str, folder: Path) -> Path | None:
    """The file of game ``which`` (its number in the listing of ``folder``, newest first),
    or None if ``which`` is not a number. Raises LookupError when there is no such game."""
    m = GAME_NUMBER.fullmatch(which.strip())
    if m is None:
        return None
    found = find(folder)
    k = int(m.group(1))
    if not 1 <= k <= len(found):
        key = {0: "history_no_game_empty", 1: "history_no_game_one"}.get(len(found), "history_no_game")
        raise LookupError(Notice(key, k=k, n=len(found), folder=str(folder)))
    return found[k - 1].path


VERDICTS_FILE = "history-verdicts.json"
"""The file of :class:`Verdicts` in the data directory."""
VERDICTS_FORMAT = "p2pcards-history-verdicts"
MAX_VERDICTS = 5000
"""Verdicts kept: those of the files listed most recently (a file deleted long ago goes)."""

_CACHED: dict[str, Any] = {
    "game": lambda v: type(v) is str,
    "names": lambda v: type(v) is list and all(type(x) is str for x in v),
    "keys": lambda v: type(v) is list and all(type(x) is str for x in v),
    "saved_by": lambda v: v is None or type(v) is int,
    "finished": lambda v: type(v) is bool,
    "winners": lambda v: type(v) is list and all(type(x) is int for x in v),
    "totals": lambda v: type(v) is list and all(x is None or type(x) is int for x in v),
    "hand": lambda v: v is None or type(v) is int,
    "check": lambda v: v in ("verified", "invalid", "incomplete"),
    "blamed": lambda v: v is None or type(v) is int,
    "problems": lambda v: type(v) is list and all(type(x) is dict for x in v),
    "left": lambda v: (
        type(v) is list and all(type(x) is list and [type(y) for y in x] == [int, int] for x in v)
    ),
}
"""What a verdict keeps of a :class:`GameEntry`, each field with the check it must pass."""


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("p2pcards")
    except PackageNotFoundError:
        return "?"


class Verdicts:
    """The audit's verdict on each transcript already listed, kept in the data directory.

    A full audit of each file takes a while (50 games, over ten seconds), and a saved
    transcript never changes: its verdict is kept, keyed by the SHA-256 of the file's
    bytes, so that the next listing reads it instead of auditing again. A file that
    changed has another digest and is audited anew. The file of verdicts is this
    computer's own note, never evidence: a missing, unreadable or damaged one is an
    empty one, an entry of the wrong shape is audited again, and another version of
    p2pcards (whose audit may differ) starts afresh."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self._verdicts: dict[str, dict[str, Any]] = {}
        self._changed = False
        if path is None:
            return
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return
        if (
            type(doc) is dict
            and doc.get("format") == VERDICTS_FORMAT
            and doc.get("version") == _version()
            and type(doc.get("verdicts")) is dict
        ):
            self._verdicts = {k: v for k, v in doc["verdicts"].items() if type(v) is dict}

    def get(self, digest: str) -> dict[str, Any] | None:
        """The verdict kept for the file of SHA-256 ``digest``, if it has every field, well formed."""
        fields = self._verdicts.get(digest)
        if fields is None or set(fields) != set(_CACHED):
            return None
        if not all(check(fields[k]) for k, check in _CACHED.items()):
            return None
        return fields if _consistent(fields) else None

    def put(self, digest: str, fields: dict[str, Any]) -> None:
        self._verdicts.pop(digest, None)
        self._verdicts[digest] = fields
        self._changed = True

    def save(self) -> None:
        """Write the verdicts (whole or not at all); a data directory that cannot be written
        to costs only the time of the next audit."""
        if self.path is None or not self._changed:
            return
        kept = dict(list(self._verdicts.items())[-MAX_VERDICTS:])
        doc = {"format": VERDICTS_FORMAT, "version": _version(), "verdicts": kept}
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            fd, tmp = tempfile.mkstemp(prefix=".verdicts-", suffix=".json", dir=self.path.parent)
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as f:
                    json.dump(doc, f, ensure_ascii=False)
                os.replace(tmp, self.path)
            except BaseException:
                Path(tmp).unlink(missing_ok=True)
                raise
        except OSError:
            pass
        self._changed = False


def _consistent(fields: dict[str, Any]) -> bool:
    """A kept verdict's fields agree with each other: one key per name, and every seat it
    names (winners, totals, the saver, the blamed, who left) is one of the table's."""
    seats = range(len(fields["names"]))
    return (
        len(fields["keys"]) == len(seats)
        and len(fields["totals"]) in (0, len(seats))
        and all(s in seats for s in fields["winners"])
        and all(s is None or s in seats for s in (fields["saved_by"], fields["blamed"]))
        and all(type(s) is int and s in seats for s, _ in fields["left"])
    )


def digest_of(path: Path) -> str | None:
    """The SHA-256 of the file at ``path`` (None if it cannot be read)."""
    from p2pcards.errors import TranscriptError
    from p2pcards.protocol.transcript import read_transcript_bytes

    try:
        return hashlib.sha256(read_transcript_bytes(path)).hexdigest()
    except TranscriptError:
        return None


def _kept(entry: GameEntry) -> dict[str, Any]:
    fields = {k: getattr(entry, k) for k in _CACHED if k != "left"}
    fields["left"] = [[s, h] for s, h in sorted(entry.left.items())]
    return json.loads(json.dumps(fields))  # as it reads back: plain JSON values


def _restore(entry: GameEntry, fields: dict[str, Any]) -> None:
    for k, v in fields.items():
        if k != "left":
            setattr(entry, k, v)
    entry.left = {s: h for s, h in fields["left"]}


def read(
    entry: GameEntry,
    *,
    verify: bool = True,
    verdicts: Verdicts | None = None,
    bot_files: Collection[str] = (),
) -> GameEntry:
    """Fill ``entry`` from its file; never raises (an unreadable file is "not a transcript").
    With ``verdicts``, an audit already made of the same bytes is read instead of redone;
    ``bot_files`` are the digests of the files a bot's seat saved
    (:func:`p2pcards.net.storage.bot_transcripts`)."""
    from p2pcards.protocol.transcript import read_transcript_bytes

    try:
        data = read_transcript_bytes(entry.path)  # (a file, and not too large to read)
        digest = hashlib.sha256(data).hexdigest()
        entry.bot = digest in bot_files
        if verify:
            kept = verdicts.get(digest) if verdicts is not None else None
            if kept is not None:
                _restore(entry, kept)
            else:
                _audit(entry, data)
                if verdicts is not None:
                    verdicts.put(digest, _kept(entry))
        else:
            _glance(entry, data)
    except Exception as e:  # a foreign or broken file is a line of the listing, never a crash
        entry.game, entry.check = None, None
        entry.names, entry.keys = [], []
        entry.error = clean(str(e) or type(e).__name__, 200)
        entry.unread_why = getattr(e.args[0] if e.args else None, "key", None)
    return entry


def _roster(entry: GameEntry, join: Any, saved_by: int | None) -> None:
    entry.game = join.game
    entry.names = [p.name for p in join.roster]
    entry.keys = [p.key.hex() for p in join.roster]
    entry.saved_by = saved_by if saved_by is not None and 0 <= saved_by < len(join.roster) else None


def _audit(entry: GameEntry, data: bytes) -> None:
    from p2pcards.protocol.audit import audit_bytes
    from p2pcards.protocol.transcript import decode_file

    tf = decode_file(data)
    report = audit_bytes(data)
    table = report.table
    if table is None:
        # No table: the first record is not a signed join record. Read what it claims.
        _glance(entry, data)
        entry.check = "invalid"
    else:
        # Everyone who sat down, numbered as at the first table (the saver's seat is one of
        # those); the match may have ended at a table without some of them.
        entry.game = table.GAME
        entry.names = [n for n, _ in report.seated]
        entry.keys = [k for _, k in report.seated]
        n = len(entry.names)
        entry.saved_by = tf.saved_by if tf.saved_by is not None and 0 <= tf.saved_by < n else None
        entry.left = {d["seat"]: d["hand"] for d in report.departures() + report.left_here()}
        m = table.match
        if m is not None and m.winners is not None and not report.incomplete:  # (a result all signed)
            entry.finished = True
            entry.winners = [report.first_seat(s) for s in m.winners]
            totals = {report.first_seat(s): t for s, t in enumerate(m.totals)}
            totals.update((d["seat"], d["total"]) for d in report.departures())
            entry.totals = [totals.get(s, 0) for s in range(n)]
            entry.hand = report.hands_verified
        else:
            entry.finished = False
            if table.hand is not None:
                entry.hand = table.carried_hands + table.hand.number
            else:
                entry.hand = table.carried_hands + 1 if table.carried is not None else 0
        if report.valid:
            entry.check = "verified"
        elif report.incomplete and not report.internal_error:
            entry.check = "incomplete"  # the file stops before the end; nothing in it is wrong
        else:
            entry.check = "invalid"
    entry.problems = [p.to_dict() for p in report.problems]
    blamed = [p.seat for p in report.problems if p.seat is not None]
    entry.blamed = report.first_seat(blamed[0]) if blamed else None


def _glance(entry: GameEntry, data: bytes) -> None:
    """Read the join and result records, check nothing (``--no-verify``)."""
    from p2pcards.errors import TranscriptError
    from p2pcards.protocol.messages import Commit, Continue, Join, Result, Reveal
    from p2pcards.protocol.transcript import decode_file
    from p2pcards.protocol.wire import WireError, parse_record

    tf = decode_file(data)
    join = None
    first_id = b""
    results: dict[bytes, dict[int, Any]] = {}  # table -> seat -> its result record
    continues: dict[bytes, tuple[bytes, tuple[int, ...]]] = {}  # table -> (the table it continues, who left)
    claims: dict[bytes, list[int]] = {}  # table -> the hands its seats say were scored before it
    commit_steps: set[tuple[bytes, int]] = set()  # (table, step): a continued match has several
    carried_steps: set[tuple[bytes, int]] = set()  # reveal steps whose records commit to the next hand
    for raw, sig in tf.records:
        try:
            rec = parse_record(raw, sig).record
        except WireError:
            continue
        if join is None and isinstance(rec.body, Join):
            join, first_id = rec.body, rec.game_id
        elif isinstance(rec.body, Result):
            results.setdefault(rec.game_id, {}).setdefault(rec.seat, rec.body)
        elif isinstance(rec.body, Continue):
            continues.setdefault(rec.game_id, (rec.body.game, tuple(rec.body.left)))
            claims.setdefault(rec.game_id, []).append(rec.body.hands)
        elif isinstance(rec.body, Commit):
            commit_steps.add((rec.game_id, rec.step))
        elif isinstance(rec.body, Reveal) and rec.body.next is not None:
            carried_steps.add((rec.game_id, rec.step))
    if join is None:
        raise TranscriptError("the transcript holds no join record")
    _roster(entry, join, tf.saved_by)
    n = len(join.roster)
    last = next(reversed(results), first_id)  # the table the match ended on, if it ended
    present = _present(first_id, last, continues, n)
    if present is None:  # a table this file does not tie to the first one: nothing to map
        present, last = list(range(n)), first_id
    entry.left = {s: 0 for s in range(n) if s not in present}
    by_seat = results.get(last, {})
    mine = present.index(tf.saved_by) if tf.saved_by in present else -1
    result = by_seat.get(mine) or next(iter(by_seat.values()), None)
    # A hand begins with its commitments: in a commit step (each table's first is its cut's),
    # or in the reveal step before it when no commit step follows that one (the last reveal's
    # begin nothing once the match is over).
    # Only the last table's are counted so: those before it count the hands carried from them.
    steps = {(t, s) for t, s in commit_steps if t == last}
    carried = [(t, s) for t, s in carried_steps if t == last and (t, s + 1) not in steps]
    hands = len(steps) - (1 if steps else 0) + len(carried) - (1 if result and carried else 0)
    at = last
    while at in continues and at != first_id:
        hands += min(claims[at])
        at = continues[at][0]
    k = len(present)
    if result is not None and len(result.totals) == k and all(0 <= w < k for w in result.winners):
        entry.finished = True
        entry.winners = [present[w] for w in result.winners] if hands else []  # none before a hand
        totals: list[int | None] = [None] * n
        for s, t in zip(present, result.totals, strict=True):
            totals[s] = t
        entry.totals = totals
    entry.hand = hands
    entry.check = "unchecked"


def _present(
    first: bytes, last: bytes, continues: dict[bytes, tuple[bytes, tuple[int, ...]]], n: int
) -> list[int] | None:
    """The seats of the first table still at table ``last``, following the ``continue``
    records back from it; None if they do not lead back to the first table."""
    chain: list[tuple[int, ...]] = []
    at = last
    while at != first:
        if at not in continues or len(chain) > n:
            return None
        at, left = continues[at]
        chain.append(left)
    present = list(range(n))
    for left in reversed(chain):
        present = [s for i, s in enumerate(present) if i not in left]
    return present


def listing(
    entries: Iterable[GameEntry], first: int = 1, tr: Translator | None = None, width: int = WIDTH
) -> list[str]:
    """The lines of the listing, numbered from ``first`` (the newest is 1), each at most
    ``width`` columns (at most :data:`MAX_WIDTH`): the players' column as wide as
    its widest entry, as far as the results leave room for it (in English, or in the
    language of ``tr``). Below :data:`WIDTH` columns (down to :data:`NARROW`), or where the
    players' column would cut who played, a game takes three lines instead
    (:meth:`GameEntry.narrow_lines`)."""
    tr = tr or _english()
    entries = list(entries)

    def three_lines(width: int) -> list[str]:
        return [line for k, e in enumerate(entries) for line in e.narrow_lines(first + k, tr, width)]

    if width < WIDTH:
        return three_lines(max(width, NARROWEST))
    width = min(width, MAX_WIDTH)
    games = [e for e in entries if e.game is not None]
    widest = max((visible_len(e.players(tr, _name_limit(width))) for e in games), default=0)
    marks = max((len(mark(e.check, tr)) for e in games), default=0)
    result = max((len(e.result(tr, _name_limit(width))) for e in games), default=0)
    room = width - len(f"{first + len(entries):>2} 2026-01-01 {'Le Neuf'}  ") - 4 - marks - result
    players = min(widest, _players_cap(width), max(room, MIN_PLAYERS_WIDTH))
    if widest > players:  # who played would be cut: each game on three lines shows them all
        return three_lines(width)
    return [e.line(first + k, players, tr, width, result) for k, e in enumerate(entries)]
