"""The signed transcript: records grouped in steps, each chained to the last.

Every record names its step and carries ``prev``, the digest of the previous
step, so a peer that shows different records to different nodes breaks the
chain at the next step, and no record can be moved to another step or game.

Step digest (all integers big-endian)::

    digest(s) = SHA-256("p2pcards/v1/step\\0" || digest(s-1) || u32(s)
                        || for each record of step s in seat order:
                               u8(seat) || SHA-256(raw))
    digest(-1) = 32 zero bytes (the ``prev`` of step 0)

File format (``p2pcards-transcript``, version 1): one msgpack map
``{"format": "p2pcards-transcript", "version": 1, "saved_by": seat or nil,
"status": text, "records": [[raw, sig], ...], "checksum": bin 32}`` with the
records in step order and by seat within a step. The records are the evidence;
``checksum`` = SHA-256("p2pcards/v1/file\\0" || msgpack([format, version,
saved_by, status, records])) catches any alteration of the file as a whole.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from p2pcards.crypto.identity import verify_signature
from p2pcards.errors import TranscriptError
from p2pcards.files import replace_with, write_or_remove
from p2pcards.protocol import faults, wire_words
from p2pcards.protocol.messages import Join, show
from p2pcards.protocol.notice import Notice
from p2pcards.protocol.wire import (
    MAX_MAP,
    MAX_RECORD,
    SIGN_PREFIX,
    SignedRecord,
    WireError,
    decode_problem,
    pack,
    parse_record,
    refused_as,
    unpack_limits,
)
from p2pcards.say import WireSaid, system_said

GENESIS = bytes(32)
FORMAT = "p2pcards-transcript"
FORMAT_VERSION = 1
MAX_FILE = 64 * 1024 * 1024
MAX_FILE_RECORDS = 1_000_000


def step_digest(prev: bytes, step: int, records: Iterable[SignedRecord]) -> bytes:
    h = hashlib.sha256(b"p2pcards/v1/step\x00")
    h.update(prev)
    h.update(step.to_bytes(4, "big"))
    for r in sorted(records, key=lambda r: r.record.seat):
        h.update(bytes([r.record.seat]))
        h.update(r.digest)
    return h.digest()


@dataclass(slots=True)
class Transcript:
    """The completed steps of one game, as one node accepted them."""

    steps: list[list[SignedRecord]] = field(default_factory=list)
    digests: list[bytes] = field(default_factory=list)

    @property
    def last_digest(self) -> bytes:
        return self.digests[-1] if self.digests else GENESIS

    def append_step(self, records: Iterable[SignedRecord]) -> bytes:
        recs = sorted(records, key=lambda r: r.record.seat)
        digest = step_digest(self.last_digest, len(self.steps), recs)
        self.steps.append(recs)
        self.digests.append(digest)
        return digest

    def records(self) -> list[SignedRecord]:
        return [r for step in self.steps for r in step]

    def index_of(self, step: int, seat: int) -> int | None:
        """Flat index of a record (the index audit problems refer to)."""
        if step >= len(self.steps):
            return None
        i = sum(len(s) for s in self.steps[:step])
        for r in self.steps[step]:
            if r.record.seat == seat:
                return i
            i += 1
        return None

    def find(self, step: int, seat: int) -> SignedRecord | None:
        if step >= len(self.steps):
            return None
        for r in self.steps[step]:
            if r.record.seat == seat:
                return r
        return None


_CHUNK = 1 << 16


def _checksum(fields: list[object]) -> bytes:
    """``H("p2pcards/v1/file" || 0x00 || msgpack(fields))`` (section 8), hashed as it is packed:
    the last field, the records, a piece at a time, so that a file of 64 MiB is not packed
    again whole (nor copied once more behind the prefix) to be checked."""
    h = hashlib.sha256(b"p2pcards/v1/file\x00")
    *head, last = fields
    if type(last) is not list:
        h.update(pack(fields))
        return h.digest()
    packer = msgpack.Packer(use_bin_type=True, autoreset=False)
    packer.pack_array_header(len(fields))
    for value in head:
        packer.pack(value)
    packer.pack_array_header(len(last))
    for value in last:
        packer.pack(value)
        if len(packer.getbuffer()) >= _CHUNK:
            h.update(packer.getbuffer())
            packer.reset()
    h.update(packer.getbuffer())
    return h.digest()


def encode_file(
    records: Iterable[SignedRecord | tuple[bytes, bytes]], *, saved_by: int | None, status: str
) -> bytes:
    """A transcript file of ``records``: signed records, or ``(raw, sig)`` pairs (a record
    that does not read, kept as proof against its signer)."""
    recs = [[r[0], r[1]] if isinstance(r, tuple) else [r.raw, r.sig] for r in records]
    fields: list[object] = [FORMAT, FORMAT_VERSION, saved_by, status, recs]
    return pack(
        {
            "format": FORMAT,
            "version": FORMAT_VERSION,
            "saved_by": saved_by,
            "status": status,
            "records": recs,
            "checksum": _checksum(fields),
        }
    )


def save(path: str | os.PathLike[str], data: bytes, *, replace: bool = True) -> None:
    """Write atomically (temporary file, then rename) so a crash never leaves half a file.
    With ``replace`` False an existing file is never replaced (FileExistsError), even by
    another process writing the same name at the same moment (a hard link is atomic)."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    if replace:
        replace_with(p, data)
        return
    tmp = p.with_name(p.name + ".tmp")
    write_or_remove(tmp, data)
    try:
        os.link(tmp, p)
    except (AttributeError, NotImplementedError):  # no hard links here: check, then rename
        if p.exists():
            tmp.unlink()
            raise FileExistsError(str(p)) from None
        os.replace(tmp, p)
        return
    except BaseException:
        tmp.unlink()
        raise
    tmp.unlink()


def save_new(path: str | os.PathLike[str], data: bytes) -> Path:
    """Save ``data`` at ``path``, or beside it under the first free name (``NAME-2.p2pt``,
    ``NAME-3.p2pt``...) when another game is saved there: never over another game.

    A file that holds an earlier save of this same game (its records the first of
    ``data``'s, as when a resumed match saves again) is replaced: nothing in it is lost."""
    p = Path(path)
    for k in range(1, 10_000):
        candidate = p if k == 1 else p.with_name(f"{p.stem}-{k}{p.suffix}")
        try:
            save(candidate, data, replace=False)
        except FileExistsError:
            if _extends(candidate, data):
                save(candidate, data)
                return candidate
            continue
        return candidate
    raise FileExistsError(f"no free name beside {p}")


def _extends(path: Path, data: bytes) -> bool:
    """Whether ``data`` holds every record of the transcript at ``path``, in order, from the first."""
    try:
        old = decode_file(path.read_bytes()).records
        new = decode_file(data).records
    except (OSError, TranscriptError):
        return False
    return len(old) <= len(new) and new[: len(old)] == old


@dataclass(frozen=True, slots=True)
class Damage:
    """A spot where the file's own msgpack structure (outside every signed record) is damaged.

    Not evidence against anyone: only signed records are. ``record`` is the index
    of the record the text names (None before the first record)."""

    offset: int
    record: int | None
    what: str


@dataclass(frozen=True, slots=True)
class TranscriptFile:
    """A transcript file as read: its records still unparsed, so that one bad record
    is a finding of the audit rather than an unreadable file."""

    records: tuple[tuple[object, object], ...]
    saved_by: int | None
    status: str
    checksum_ok: bool
    cut: bool = False
    """The file ends inside the transcript (cut short): ``records`` are the complete
    ones before the cut, and there is no checksum to check."""
    damage: tuple[Damage, ...] = ()
    """Where the file's structure is damaged; ``records`` are those read around it."""


class _Cut(Exception):
    """The bytes end before the msgpack value being read does."""


def decode_file(data: bytes) -> TranscriptFile:
    """Read the file structure; a file that is not a transcript is a :class:`TranscriptError`.

    The file is read as a stream, value by value, with the bounds of every other
    read of untrusted bytes (:func:`~p2pcards.protocol.wire.unpack_limits`). A
    transcript cut short (a copy that stopped, a full disk) keeps its complete
    records: the result says ``cut`` and holds the records before the cut. A
    transcript whose own structure is damaged (a byte changed, lost or added
    outside the signed records) is read around the damage rather than refused:
    the result names each damaged spot and holds every record found around it.
    """
    if not data:
        raise TranscriptError(Notice("file_empty"))
    if len(data) > MAX_FILE:
        raise TranscriptError(Notice("file_too_big", size=len(data), limit=MAX_FILE))
    failure: TranscriptError | None = None
    strict: TranscriptFile | None = None
    clean = False
    try:
        strict, clean = _read_strict(data)
    except TranscriptError as e:
        failure = e
    if strict is not None and not strict.cut and (clean or strict.checksum_ok):
        return strict  # the structure is whole (a changed value or record is the audit's finding)
    if _marked(data):
        recovered = _Recovery(data).read()
        if recovered is not None:
            return recovered
    if failure is not None:
        raise failure
    assert strict is not None
    return strict


def _read_strict(data: bytes) -> tuple[TranscriptFile, bool]:
    """The file read exactly as written, and whether its structure is the expected one
    (the six fields, every record a ``[raw, sig]`` pair of byte strings)."""
    unpacker = msgpack.Unpacker(**unpack_limits(MAX_FILE, MAX_FILE_RECORDS))
    unpacker.feed(data)

    def read(how: Callable[[], Any]) -> Any:
        try:
            return how()
        except msgpack.OutOfData:
            raise _Cut from None
        except WireError as e:
            raise TranscriptError(Notice("file_undecodable", detail=WireSaid(e))) from None
        except (ValueError, msgpack.UnpackException, RecursionError) as e:
            # msgpack signals bad input with ValueError subclasses (see wire.unpack_untrusted).
            said = refused_as(e) or wire_words.UNDECODABLE.format(cause=decode_problem(e))
            detail = WireSaid(said)
            raise TranscriptError(Notice("file_undecodable", detail=detail)) from None

    try:
        size = read(unpacker.read_map_header)
    except (_Cut, TranscriptError):
        raise TranscriptError(Notice("file_no_marker")) from None
    if size > MAX_MAP:
        raise TranscriptError(Notice("file_no_marker"))
    obj: dict[str, Any] = {}
    recs: list[Any] = []
    cut = False
    try:
        for _ in range(size):
            key = read(unpacker.unpack)
            if type(key) is not str:
                raise TranscriptError(Notice("file_no_marker"))
            if key in obj:
                raise TranscriptError(Notice("file_key_twice", name=show(key)))
            if key != "records":
                obj[key] = read(unpacker.unpack)
                continue
            obj[key] = recs
            try:
                count = read(unpacker.read_array_header)
            except TranscriptError:
                if obj.get("format") != FORMAT:
                    raise TranscriptError(Notice("file_no_marker")) from None
                raise TranscriptError(Notice("file_records_not_list")) from None
            if count > MAX_FILE_RECORDS:
                raise TranscriptError(Notice("file_too_many_records", limit=MAX_FILE_RECORDS))
            for _ in range(count):
                recs.append(read(unpacker.unpack))
    except _Cut:
        cut = True
    if obj.get("format") != FORMAT:
        raise TranscriptError(
            Notice("file_no_marker" if not cut or "format" in obj else "file_cut_before_marker")
        )
    version = obj.get("version")
    if "version" not in obj and cut:
        raise TranscriptError(Notice("file_cut_before_records"))
    if type(version) is not int or version != FORMAT_VERSION:
        raise TranscriptError(Notice("file_version", version=show(version)))
    if "records" not in obj and not cut:
        raise TranscriptError(Notice("file_records_not_list"))
    if cut and not recs:
        raise TranscriptError(Notice("file_cut_before_records"))
    if not cut and unpacker.tell() != len(data):
        raise TranscriptError(Notice("file_trailing", n=len(data) - unpacker.tell()))
    del unpacker  # (its copy of the file's bytes, before the records are hashed)
    saved_by, status = obj.get("saved_by"), obj.get("status")
    fields: list[object] = [FORMAT, FORMAT_VERSION, saved_by, status, recs]
    checksum_ok = not cut and obj.get("checksum") == _checksum(fields)
    del fields
    pairs = []
    for i, item in enumerate(recs):
        pairs.append((item[0], item[1]) if type(item) is list and len(item) == 2 else (None, None))
        recs[i] = None  # (one list of the records at a time: a file may hold a million)
    clean = set(obj) == _FILE_KEYS and all(type(r) is bytes and type(s) is bytes for r, s in pairs)
    tf = TranscriptFile(
        tuple(pairs),
        saved_by if type(saved_by) is int else None,
        status if type(status) is str else "",
        checksum_ok and set(obj) == _FILE_KEYS,
        cut,
    )
    return tf, clean


_FILE_KEYS = frozenset({"format", "version", "saved_by", "status", "records", "checksum"})


# ---------------------------------------------------------------------------
# Reading around damage


def _marked(data: bytes) -> bool:
    """The file starts like a transcript: its format marker, even with one byte changed,
    lost or added, lies in the first 64 bytes. Only such a file is read around damage,
    so that any other file stays "not a p2pcards transcript"."""
    head, marker = data[:64], FORMAT.encode()
    if b"p2pcards" not in head and b"transcript" not in head:
        return False  # one edit leaves one of the two words whole
    return any(_one_edit(head[i : i + size], marker) for i in range(len(head)) for size in (18, 19, 20))


def _one_edit(a: bytes, b: bytes) -> bool:
    """``a`` is ``b`` with at most one byte changed, removed or inserted."""
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) <= 1
    if abs(len(a) - len(b)) != 1:
        return False
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    j = next((k for k in range(len(short)) if short[k] != long_[k]), len(short))
    return short[j:] == long_[j + 1 :]


MAX_DAMAGE = 32
"""Damaged spots reported before the rest of a file is given up (a bound on the work)."""
MAX_PROBES = 4096
"""Candidate records decoded and checked while looking for a way past damage."""
MAX_SCAN = 1 << 19
"""Places that may start a record looked at by the scans past damage: more than a
64 MiB file of real records holds, a bound on a file made to look like records."""
_REPAIR_WINDOW = 12
"""Bytes before a record's signed bytes that may hold damaged framing (array and bin headers)."""
_HEADER_VALUE = 1 << 20
_MAP_HEADERS = frozenset(range(0x80, 0x90)) | {0xDE, 0xDF}
_STR_HEADERS = frozenset(range(0xA0, 0xC0)) | {0xD9, 0xDA, 0xDB}
_ENTRY_HEADERS = frozenset({0x92, 0xDC, 0xDD})
_NEXT = _ENTRY_HEADERS | _STR_HEADERS
"""What may follow a record in the array: another record, or the next field's name."""
_BIN_HEADERS = {0xC4: 1, 0xC5: 2, 0xC6: 4}
_SIG_HEADERS = (b"\xc4\x40", b"\xc5\x00\x40", b"\xc6\x00\x00\x00\x40")
_TOKENS = {key: pack(key) for key in ("format", "version", "saved_by", "status", "records", "checksum")}
_PAIR_START = re.compile(
    rb"\xc4.[\x80-\x8f\xde\xdf]|\xc5..[\x80-\x8f\xde\xdf]|\xc6....[\x80-\x8f\xde\xdf]", re.DOTALL
)
"""A bin header followed by a map header: where the signed bytes of a record may start."""
_MARKERS = {"format": pack(FORMAT), "version": pack(FORMAT_VERSION)}
"""The exact bytes of the two fields whose value is known."""
_TYPES: dict[str, Callable[[Any], bool]] = {
    "saved_by": lambda v: v is None or type(v) is int,
    "status": lambda v: type(v) is str,
    "checksum": lambda v: type(v) is bytes,
}
_UNREADABLE = object()
"""A field whose value could not be read."""
_TAIL = pack("checksum") + b"\xc4\x20"
"""How a file written by this module ends, before its 32-byte checksum."""


class _Bad(Exception):
    """The bytes here are not what the structure expects."""


class _Stop(Exception):
    """Too much damage: the rest of the file is not read (the work stays bounded)."""


def _bin_header(size: int) -> bytes:
    return pack(bytes(size))[: -size or None]


def _same(value: Any, expected: object) -> bool:
    return type(value) is type(expected) and value == expected


def _bytes(one: str, many: str, count: int) -> str:
    """A template of :mod:`~p2pcards.protocol.faults` that counts bytes, for ``count`` of them."""
    return one if count == 1 else many.format(count=count)


def _array_header_bytes(count: int) -> bytes:
    if count <= 15:
        return bytes([0x90 | count])
    return b"\xdc" + count.to_bytes(2, "big") if count <= 0xFFFF else b"\xdd" + count.to_bytes(4, "big")


def _one_map(raw: bytes) -> bool:
    """``raw`` is exactly one msgpack map, as the signed bytes of a record are."""
    if not raw or raw[0] not in _MAP_HEADERS:
        return False
    unpacker = msgpack.Unpacker(**unpack_limits(len(raw)))
    try:
        unpacker.feed(raw)
        unpacker.skip()
    except (msgpack.OutOfData, ValueError, msgpack.UnpackException, RecursionError):
        return False
    return unpacker.tell() == len(raw)


def _first_diff(data: bytes, start: int, end: int, expected: bytes) -> int | None:
    """Where ``data[start:end]`` first departs from ``expected`` (None if it does not):
    extra bytes in front of an intact ``expected`` are themselves the damage."""
    actual = data[start:end]
    if actual == expected:
        return None
    if len(actual) > len(expected) and actual.endswith(expected):
        return start
    return start + next(
        (k for k in range(min(len(actual), len(expected))) if actual[k] != expected[k]),
        min(len(actual), len(expected)),
    )


class _Recovery:
    """Reads a transcript whose structure is damaged, checking every length and count
    against what follows it.

    Field names are recognised even with one byte changed. Records are read in
    sequence while their framing holds; where it does not, a record whose signed
    bytes are intact is found within a few bytes (its framing alone was damaged),
    or else the reader moves on to the next validly signed record of the file's
    players or the next field name. Every scan moves forward and the number of
    damaged spots and of candidates checked is bounded, so the work stays linear
    in the size of the file.
    """

    def __init__(self, data: bytes) -> None:
        self.data = data
        self.n = len(data)
        self.recs: list[tuple[bytes, bytes]] = []
        self.fields: dict[str, Any] = {}
        self.value_at: dict[str, int] = {}
        self.reframed: set[str] = set()
        """Fields read as their known bytes, one of them damaged (see ``_field``)."""
        self.spans: dict[str, int] = {}
        self.spots: list[tuple[int, int, str, str]] = []
        """(offset, records read before it, "in"/"before", what) of each damaged spot."""
        self.cut = False
        self.keys: tuple[bytes, ...] | None = None
        self.probes = 0
        self.scanned = 0
        self.pairs = 0
        self.map_size: int | None = None
        self.at = 0
        self._found: dict[bytes, int] = {}

    # -- the result

    def read(self) -> TranscriptFile | None:
        """The file as recovered, or None if no record could be read at all."""
        try:
            pos: int | None = self._open()
            while pos is not None and pos < self.n:
                before, pos = pos, self._field(pos)
                if pos is not None and pos <= before:  # never happens; a hang must not either
                    self.at = before
                    raise _Stop
            if pos is not None and "checksum" not in self.fields:
                self.cut = True  # it ends where more was to come
        except _Stop:
            self.cut = False
            self.spots.append(
                (
                    self.at,
                    len(self.recs),
                    "before",
                    _bytes(faults.TOO_MUCH_DAMAGE_ONE, faults.TOO_MUCH_DAMAGE, self.n - self.at),
                )
            )
        if not self.recs:
            return None
        saved_by, status = self.fields.get("saved_by"), self.fields.get("status")
        expected = _checksum([FORMAT, FORMAT_VERSION, saved_by, status, [list(p) for p in self.recs]])
        checksum_ok = self.fields.get("checksum") == expected
        if not checksum_ok and self.n >= 32 + len(_TAIL) and self.data[-32:] == expected:
            self._tail()
            checksum_ok = True
        self._check_marker(checksum_ok)
        if not self.spots and not self.cut and self.map_size is not None and self.map_size != self.pairs:
            self.spots.append(
                (
                    0,
                    0,
                    "before",
                    faults.FIELD_COUNT.format(count=self.map_size, pairs=self.pairs),
                )
            )
        return TranscriptFile(
            tuple(self.recs),
            saved_by if type(saved_by) is int else None,
            status if type(status) is str else "",
            checksum_ok and not self.cut,
            self.cut,
            tuple(self._damage()),
        )

    def _damage(self) -> list[Damage]:
        last = len(self.recs) - 1
        out = []
        for offset, before, how, what in sorted(self.spots, key=lambda s: s[0]):
            if how == "in":
                place, record = faults.DAMAGED_IN, before
            elif before <= last:
                place, record = faults.DAMAGED_BEFORE, before
            elif last >= 0:
                place, record = faults.DAMAGED_AFTER, last
            else:
                place, record = faults.DAMAGED_BEFORE_FIRST, None
            out.append(Damage(offset, record, place.format(offset=offset, record=record, damage=what)))
        return out

    def _tail(self) -> None:
        """The checksum at the end matches what was read, so the damage there was in its
        framing only: say exactly where, instead of a cut or an unreadable end."""
        start = self.n - 32 - len(_TAIL)
        self.cut = False
        self.spots = [s for s in self.spots if s[0] < start]
        where = _first_diff(self.data, start, self.n - 32, _TAIL)
        if where is not None:
            what = faults.CHECKSUM_FRAMING
            self.spots.append((where, len(self.recs), "before", what))

    def _check_marker(self, confirmed: bool) -> None:
        """A format or version other than this one is damage if the checksum shows this
        transcript was written with this one, or if reading it broke the structure around
        it; it is another kind of file if the checksum shows it was written so, or if
        the file reads whole around it (a later version of the format)."""
        expected = {"format": FORMAT, "version": FORMAT_VERSION}
        odd = [k for k in expected if k in self.fields and not _same(self.fields[k], expected[k])]
        if not odd:
            return
        as_read = [self.fields.get(k, expected[k]) for k in expected]
        fields = [
            *as_read,
            self.fields.get("saved_by"),
            self.fields.get("status"),
            [list(p) for p in self.recs],
        ]
        written = _UNREADABLE not in as_read and self.fields.get("checksum") == _checksum(fields)
        whole = not self.spots and not self.cut
        for key in odd:
            value = self.fields[key]
            other = key not in self.reframed and self.spans.get(key) == len(_MARKERS[key]) and whole
            if written or (other and not confirmed):
                if key == "format":
                    raise TranscriptError(Notice("file_no_marker"))
                raise TranscriptError(Notice("file_version", version=show(value)))
            at, marker = self.value_at[key], _MARKERS[key]
            where = _first_diff(self.data, at, at + len(marker), marker)
            if value is _UNREADABLE:
                what = faults.MARKER_UNREADABLE.format(field=key, expected=show(expected[key]))
            else:
                what = faults.MARKER_OTHER.format(field=key, value=show(value), expected=show(expected[key]))
            self.spots.append((at if where is None else where, 0, "before", what))

    # -- the fields

    def _hurt(self, offset: int, what: str, *, inside: int | None = None) -> None:
        """Note a damaged spot: before the next record read, or ``inside`` that record."""
        if len(self.spots) >= MAX_DAMAGE:
            self.at = offset
            raise _Stop
        if inside is None:
            self.spots.append((offset, len(self.recs), "before", what))
        else:
            self.spots.append((offset, inside, "in", what))

    def _open(self) -> int:
        first = self.data[0]
        if first in _MAP_HEADERS:
            size = (
                first & 0x0F
                if first < 0x90
                else int.from_bytes(self.data[1 : 3 if first == 0xDE else 5], "big")
            )
            if size <= MAX_MAP:
                self.map_size = size
                return 1 if first < 0x90 else 3 if first == 0xDE else 5
        self._hurt(0, faults.FIRST_BYTE.format(byte=f"{first:#04x}"))
        return 1

    def _field(self, pos: int) -> int | None:
        """Read one field at ``pos``; the position after it, or None when reading stops."""
        self.at = pos
        if len(self.fields) == len(_TOKENS):
            extra = self.n - pos
            self._hurt(pos, _bytes(faults.AFTER_END_ONE, faults.AFTER_END, extra))
            return None
        try:
            name, end = self._key(pos)
        except _Cut:
            return self._lost(pos, cut=True)
        except _Bad:
            return self._lost(pos)
        key = next((k for k, token in _TOKENS.items() if token[1:] == name), None)
        if key is None:
            key = next(
                (
                    k
                    for k, token in _TOKENS.items()
                    if k not in self.fields and len(token) - 1 == len(name) and _one_edit(token[1:], name)
                ),
                None,
            )
            if key is None:
                return self._lost(pos)
            where = _first_diff(self.data, pos, end, _TOKENS[key])
            self._hurt(
                pos if where is None else where,
                faults.FIELD_NAME.format(value=show(name.decode("utf-8", "replace")), expected=repr(key)),
            )
        if key in self.fields:
            return self._lost(pos)
        self.pairs += 1
        if key == "records":
            self.fields[key] = True
            return self._records(end, counted=True)
        cut = False
        try:
            value, after = self._value(end)
        except (_Cut, _Bad) as e:
            value, after, cut = _UNREADABLE, None, isinstance(e, _Cut)
        marker = _MARKERS.get(key)
        if marker is not None and (after is None or after - end != len(marker)):
            actual, next_at = self.data[end : end + len(marker)], end + len(marker)
            if (
                len(actual) == len(marker)
                and sum(x != y for x, y in zip(actual, marker, strict=True)) == 1
                and (next_at == self.n or any(self.data.startswith(t, next_at) for t in _TOKENS.values()))
            ):
                # One byte of the format marker or version changed into a header that
                # reads more or fewer bytes, or none: a field name follows its own bytes.
                self.fields[key], self.value_at[key] = value, end
                self.reframed.add(key)
                return next_at
        if after is None:
            return self._lost(end, cut=cut)
        if not _TYPES.get(key, lambda v: True)(value):
            return self._lost(end)  # a header turned into another type's: misread from there
        self.fields[key], self.value_at[key], self.spans[key] = value, end, after - end
        return after

    def _skip(self, pos: int, *, cut: bool, lost: bool = False) -> tuple[int, bool] | None:
        """Unreadable bytes at ``pos``: note them, and find the next record or field name
        ((where, is it a record), or None when there is none: the file is cut, or lost)."""
        found = self._resync(pos + 1)
        if found is None:
            if cut:
                self.cut = True
            else:
                self._hurt(pos, _bytes(faults.REST_UNREADABLE_ONE, faults.REST_UNREADABLE, self.n - pos))
            return None
        if lost:
            self._hurt(pos, _bytes(faults.SKIPPED_LOST_ONE, faults.SKIPPED_LOST, found[0] - pos))
        else:
            self._hurt(pos, _bytes(faults.SKIPPED_BYTES_ONE, faults.SKIPPED_BYTES, found[0] - pos))
        return found

    def _lost(self, pos: int, *, cut: bool = False) -> int | None:
        """Nothing readable at ``pos``: go on from the next record or field name."""
        self.at = pos
        found = self._skip(pos, cut=cut)
        if found is None:
            return None
        at, is_record = found
        if is_record:
            self.fields["records"] = True
            return self._records(at, counted=False)
        return at

    def _key(self, pos: int) -> tuple[bytes, int]:
        b = self.data[pos]
        if b not in _STR_HEADERS:
            raise _Bad
        if b < 0xC0:
            size, start = b & 0x1F, pos + 1
        else:
            head = {0xD9: 1, 0xDA: 2, 0xDB: 4}[b]
            size, start = int.from_bytes(self.data[pos + 1 : pos + 1 + head], "big"), pos + 1 + head
        if start + size > self.n:
            raise _Cut
        if size > 64:
            raise _Bad
        return self.data[start : start + size], start + size

    def _value(self, pos: int) -> tuple[Any, int]:
        """One small msgpack value (a field of the file's header)."""
        unpacker = msgpack.Unpacker(**unpack_limits(_HEADER_VALUE))
        try:
            unpacker.feed(self.data[pos : pos + _HEADER_VALUE])
            value = unpacker.unpack()
        except msgpack.OutOfData:
            raise (_Cut if pos + _HEADER_VALUE >= self.n else _Bad) from None
        except (ValueError, msgpack.UnpackException, RecursionError):
            raise _Bad from None
        return value, pos + unpacker.tell()

    # -- the records

    def _records(self, pos: int, *, counted: bool) -> int | None:
        """Read records from ``pos`` (after their array header if ``counted``) until the
        next field name; the position there, or None when reading stops."""
        count, count_at, spots = None, pos, len(self.spots)
        if counted:
            try:
                count, start = self._array_header(pos)
                if count <= MAX_FILE_RECORDS:
                    pos = start
                else:
                    count = None
            except _Bad:
                pass
            except _Cut:
                self.cut = True
                return None
        last = -1
        while True:
            self.at = pos
            if len(self.recs) >= MAX_FILE_RECORDS or pos <= last:
                raise _Stop
            last = pos
            cut = False
            try:
                raw_at, raw_end, sig_at, end = self._entry(pos)
                raw = self.data[raw_at:raw_end]
                # A length is believed when what it delimits is one map followed by what
                # may follow a record (records hold 64-byte bins followed by names too).
                if (end == self.n or self.data[end] in _NEXT) and _one_map(raw):
                    self._take(raw, self.data[sig_at:end], keyring=True)
                    pos = end
                    continue
            except _Cut:
                cut = True
            except _Bad:
                pass
            if pos >= self.n:
                return pos
            repaired = self._repair(pos)
            if repaired is not None:
                raw, sig, pos, where, ahead = repaired
                i = len(self.recs)
                if where is not None and ahead:
                    self._hurt(where, faults.BYTES_ALTERED.format(record=i))
                elif where is not None:
                    self._hurt(where, faults.FRAMING_ALTERED, inside=i)
                self._take(raw, sig)
                continue
            if self.data[pos] in _STR_HEADERS:
                break  # the next field: the records end here
            found = self._skip(pos, cut=cut, lost=True)
            if found is None:
                return None
            pos, is_record = found
            if not is_record:
                break
        if count is not None and len(self.spots) == spots and count != len(self.recs):
            what = faults.RECORD_COUNT.format(count=count, held=len(self.recs))
            header = _array_header_bytes(len(self.recs))
            where = _first_diff(self.data, count_at, count_at + len(header), header)
            self.spots.append((count_at if where is None else where, 0, "before", what))
        return pos

    def _take(self, raw: bytes, sig: bytes, *, keyring: bool = False) -> None:
        self.recs.append((raw, sig))
        if keyring and self.keys is None and len(self.recs) <= 16:
            self._signed(raw, sig)  # the first join signed by its own roster names the players

    def _array_header(self, pos: int) -> tuple[int, int]:
        if pos >= self.n:
            raise _Cut
        b = self.data[pos]
        if 0x90 <= b <= 0x9F:
            return b & 0x0F, pos + 1
        size = {0xDC: 2, 0xDD: 4}.get(b)
        if size is None:
            raise _Bad
        if pos + 1 + size > self.n:
            raise _Cut
        return int.from_bytes(self.data[pos + 1 : pos + 1 + size], "big"), pos + 1 + size

    def _bin(self, pos: int) -> tuple[int, int]:
        if pos >= self.n:
            raise _Cut
        head = _BIN_HEADERS.get(self.data[pos])
        if head is None:
            raise _Bad
        start = pos + 1 + head
        end = start + int.from_bytes(self.data[pos + 1 : start], "big")
        if start > self.n or end > self.n:
            raise _Cut
        return start, end

    def _entry(self, pos: int) -> tuple[int, int, int, int]:
        """The spans of the raw record and the signature of a ``[raw, sig]`` pair at ``pos``."""
        count, start = self._array_header(pos)
        if count != 2:
            raise _Bad
        raw_at, raw_end = self._bin(start)
        sig_at, end = self._bin(raw_end)
        if end - sig_at != 64:
            raise _Bad
        return raw_at, raw_end, sig_at, end

    def _repair(self, pos: int) -> tuple[bytes, bytes, int, int | None, bool] | None:
        """A validly signed record whose signed bytes start within a few bytes of ``pos``
        and whose signature follows them: its framing alone was damaged. Returns it, where
        reading goes on, the first altered byte (None if none) and whether that byte lies
        ahead of the record's own framing (a damaged array header)."""
        for start in range(pos, min(pos + _REPAIR_WINDOW, self.n)):
            if self.data[start] not in _MAP_HEADERS:
                continue
            end = self._map_end(start)
            if end is None:
                continue
            raw = self.data[start:end]
            for header in _SIG_HEADERS:
                sig = self.data[end + len(header) : end + len(header) + 64]
                if len(sig) == 64 and self._signed(raw, sig):
                    framing = b"\x92" + _bin_header(len(raw))
                    where = _first_diff(self.data, pos, start, framing)
                    ahead = start - pos > len(framing) and self.data[start - len(framing) : start] == framing
                    if where is None:
                        where = _first_diff(self.data, end, end + len(header), b"\xc4\x40")
                    return raw, sig, end + len(header) + 64, where, ahead
        return None

    def _map_end(self, start: int) -> int | None:
        """Where the msgpack map at ``start`` (at most a record's size) ends, if it decodes."""
        self._probe()
        unpacker = msgpack.Unpacker(**unpack_limits(MAX_RECORD))
        try:
            unpacker.feed(self.data[start : start + MAX_RECORD])
            value = unpacker.unpack()
        except (msgpack.OutOfData, ValueError, msgpack.UnpackException, RecursionError):
            return None
        return start + unpacker.tell() if type(value) is dict else None

    def _resync(self, start: int) -> tuple[int, bool] | None:
        """Where the next validly signed ``[raw, sig]`` pair (True) or field name still to
        come (False) starts, from ``start`` on, whichever is first; None if neither."""
        names = [self._next(token, start) for key, token in _TOKENS.items() if key not in self.fields]
        name_at = min(names, default=self.n)
        for m in _PAIR_START.finditer(self.data, start, name_at):
            at = m.start()
            self.scanned += 1
            if self.scanned > MAX_SCAN:
                raise _Stop  # reported where the unreadable bytes start (``self.at``)
            try:
                raw_at, raw_end = self._bin(at)
                sig_at, end = self._bin(raw_end)
            except (_Bad, _Cut):
                continue
            if end - sig_at != 64 or raw_end - raw_at > MAX_RECORD:
                continue
            if self._signed(self.data[raw_at:raw_end], self.data[sig_at:end]):
                # From its array header if it has one (a pair without is then repaired).
                return (at - 1 if at > start and self.data[at - 1] == 0x92 else at), True
        return (name_at, False) if name_at < self.n else None

    def _next(self, token: bytes, start: int) -> int:
        """The next occurrence of ``token`` from ``start`` (remembered: scans only move forward)."""
        at = self._found.get(token)
        if at is None or (at < start and at != self.n):
            found = self.data.find(token, start)
            at = self._found[token] = self.n if found < 0 else found
        return at

    def _probe(self) -> None:
        self.probes += 1
        if self.probes > MAX_PROBES:
            raise _Stop

    def _signed(self, raw: bytes, sig: bytes) -> bool:
        """A record validly signed by a player of this file: the first join signed by
        a seat of its own roster names the players (as the audit's first record does)."""
        self._probe()
        try:
            rec = parse_record(raw, sig)
        except WireError:
            return False
        signed = SIGN_PREFIX + raw
        if self.keys is None:
            body, seat = rec.record.body, rec.record.seat
            if not isinstance(body, Join) or seat >= len(body.roster):
                return False
            if not verify_signature(body.roster[seat].key, sig, signed):
                return False
            self.keys = tuple(p.key for p in body.roster)
            return True
        # A continued match renumbers its seats: any player's key will do.
        return any(verify_signature(key, sig, signed) for key in self.keys)


def read_transcript_bytes(path: str | os.PathLike[str]) -> bytes:
    """The bytes of the file at ``path``, if it is a file and no larger than :data:`MAX_FILE`:
    a device (``/dev/zero``) or a pipe would be read for ever, or never answer."""
    try:
        # (non-blocking: opening a pipe nobody writes to would wait for ever)
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with os.fdopen(fd, "rb") as f:
            info = os.fstat(f.fileno())
            if not stat.S_ISREG(info.st_mode):
                raise TranscriptError(Notice("file_not_regular", path=str(path)))
            if info.st_size > MAX_FILE:
                raise TranscriptError(Notice("file_too_big", size=info.st_size, limit=MAX_FILE))
            return f.read(MAX_FILE + 1)  # (a file growing meanwhile is refused by its length)
    except OSError as e:
        raise TranscriptError(Notice("file_unreadable", path=str(path), error=system_said(e))) from None


def load(path: str | os.PathLike[str]) -> TranscriptFile:
    return decode_file(read_transcript_bytes(path))
