"""The write-ahead journal of one seat: what it needs to come back after a crash.

A node appends to its journal, and makes it durable, every record it signed
*before* sending it and every record it accepted before acting on its effects;
the header holds what rebuilds the table (the game, its id, the rules, the
roster, this seat and the entropy its secrets derive from) and what the
network layer needs to find the others again (``session``, opaque here).
After a crash, :meth:`p2pcards.protocol.core.TableCore.restore` replays the
journalled records into a fresh table: the node re-sends its journalled
records as they are and never signs a second, different record for a step.

This module is pure: it turns entries into bytes and bytes back into entries.
File format (version 1): a sequence of entries, each
``u32(len(body)) || body || SHA-256("p2pcards/v1/journal\\0" || body)[:8]``,
``body`` a msgpack value. The first entry is the header map; every later entry
is ``[raw, sig]`` of one signed record. A torn or corrupt tail (a length
running past the end, a checksum that does not match, an entry that does not
parse) ends the journal: everything before it is kept, the rest is dropped.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from p2pcards.errors import TranscriptError
from p2pcards.protocol import wire_words
from p2pcards.protocol.messages import MAX_SEATS, Join, Player
from p2pcards.protocol.notice import Notice
from p2pcards.protocol.wire import (
    MAX_FRAME,
    PROTOCOL_VERSION,
    SignedRecord,
    WireError,
    pack,
    parse_record,
    unpack_untrusted,
)

FORMAT = "p2pcards-journal"
VERSION = 1
_DOMAIN = b"p2pcards/v1/journal\x00"
_TAG = 8
MAX_ENTRY = MAX_FRAME


@dataclass(frozen=True, slots=True)
class JournalHeader:
    """What rebuilds a seat's table, and what its network layer needs (``session``)."""

    game: str
    game_id: bytes
    rules: Mapping[str, Any]
    roster: tuple[Player, ...]
    seat: int
    entropy: bytes
    session: Mapping[str, Any] = field(default_factory=dict)

    def to_wire(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "version": VERSION,
            "game": self.game,
            "game_id": self.game_id,
            "rules": dict(self.rules),
            "roster": [p.to_wire() for p in self.roster],
            "seat": self.seat,
            "entropy": self.entropy,
            "session": dict(self.session),
        }

    @classmethod
    def from_wire(cls, obj: Any) -> JournalHeader:
        if type(obj) is not dict or obj.get("format") != FORMAT:
            raise TranscriptError(Notice("journal_not"))
        if obj.get("version") != VERSION:
            raise TranscriptError(Notice("journal_version", version=repr(obj.get("version"))))
        try:
            roster = tuple(Player(name=n, key=k) for n, k in obj["roster"])
            if not all(type(p.name) is str and type(p.key) is bytes for p in roster):
                raise TypeError("a roster entry is not a name and a key")
            header = cls(
                game=obj["game"],
                game_id=obj["game_id"],
                rules=obj["rules"],
                roster=roster,
                seat=obj["seat"],
                entropy=obj["entropy"],
                session=obj["session"],
            )
        except (KeyError, TypeError, ValueError):
            raise TranscriptError(Notice("journal_damaged")) from None
        ok = (
            type(header.game) is str
            and type(header.game_id) is bytes
            and len(header.game_id) == 16
            and type(header.rules) is dict
            and 2 <= len(roster) <= MAX_SEATS
            and type(header.seat) is int
            and 0 <= header.seat < len(roster)
            and type(header.entropy) is bytes
            and len(header.entropy) == 32
            and type(header.session) is dict
        )
        if not ok:
            raise TranscriptError(Notice("journal_damaged"))
        return header


def _tag(body: bytes) -> bytes:
    return hashlib.sha256(_DOMAIN + body).digest()[:_TAG]


def encode_entry(value: Any) -> bytes:
    """One journal entry: length, msgpack body, checksum."""
    body = pack(value)
    return len(body).to_bytes(4, "big") + body + _tag(body)


def encode_header(header: JournalHeader) -> bytes:
    return encode_entry(header.to_wire())


def encode_record(rec: SignedRecord) -> bytes:
    return encode_entry([rec.raw, rec.sig])


@dataclass(frozen=True, slots=True)
class JournalContents:
    """A journal as read: its header, its records, and how many bytes of it are sound."""

    header: JournalHeader
    records: tuple[SignedRecord, ...]
    sound: int
    """Bytes up to the end of the last good entry (the rest was a torn tail)."""
    dropped: int
    """Bytes after that, dropped."""
    damaged: bool = False
    """Whether those bytes are damage rather than a torn tail: a whole entry whose checksum
    or content is wrong (a torn tail is an entry cut short by a crash, or zeros)."""


def _entries(data: bytes) -> tuple[list[Any], int]:
    out: list[Any] = []
    at = 0
    while at + 4 <= len(data):
        size = int.from_bytes(data[at : at + 4], "big")
        end = at + 4 + size + _TAG
        if size > MAX_ENTRY or end > len(data):
            break
        body = data[at + 4 : at + 4 + size]
        if data[at + 4 + size : end] != _tag(body):
            break
        try:
            out.append(unpack_untrusted(body, MAX_ENTRY))
        except WireError:
            break
        at = end
    return out, at


def _torn(rest: bytes) -> bool:
    """Whether ``rest``, what follows the last sound entry, is what a crash in the middle of
    a write leaves: an entry cut short (shorter than its length says), or zeros."""
    if len(rest) < 4 or not rest.strip(b"\0"):
        return True
    size = int.from_bytes(rest[:4], "big")
    return size <= MAX_ENTRY and 4 + size + _TAG > len(rest)


def read_journal(data: bytes) -> JournalContents:
    """Read a journal; TranscriptError if not even its header is sound."""
    entries, sound = _entries(data)
    if not entries:
        raise TranscriptError(Notice("journal_not_or_damaged"))
    damaged = not _torn(data[sound:])
    header = JournalHeader.from_wire(entries[0])
    records: list[SignedRecord] = []
    for i, item in enumerate(entries[1:], start=1):
        try:
            if type(item) is not list or len(item) != 2:
                raise WireError(wire_words.NOT_RECORD_ENTRY)
            records.append(parse_record(item[0], item[1]))
        except WireError:
            # A sound checksum over a bad entry: written by something else. Keep what precedes.
            sound = sum(4 + len(pack(e)) + _TAG for e in entries[:i])
            damaged = True
            break
    _check_terms(header, records)
    return JournalContents(header, tuple(records), sound, len(data) - sound, damaged)


def _check_terms(header: JournalHeader, records: list[SignedRecord]) -> None:
    """The header must rebuild the table this seat signed: its own ``join`` record, when the
    journal holds it, states the game id, game, rules, roster and clock the header gives.
    Otherwise the table rebuilt from the header would take the other seats' records for
    faults of theirs (and end the game, blaming one of them), when the fault is the header's."""
    own = next(
        (r.record for r in records if r.record.seat == header.seat and isinstance(r.record.body, Join)),
        None,
    )
    if own is None:
        return
    clock = header.session.get("clock")
    try:
        terms = Join(
            version=PROTOCOL_VERSION,
            game=header.game,
            rules=tuple(sorted(header.rules.items())),
            roster=header.roster,
            clock=None if clock is None else tuple(clock),
        )
        same = own.game_id == header.game_id and pack(own.body.to_wire()) == pack(terms.to_wire())
    except (TypeError, ValueError, WireError):
        same = False
    if not same:
        raise TranscriptError(Notice("journal_damaged"))
