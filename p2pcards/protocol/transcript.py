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
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgpack

from p2pcards.errors import TranscriptError
from p2pcards.protocol.messages import show
from p2pcards.protocol.wire import MAX_MAP, SignedRecord, WireError, pack, unpack_limits

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


def _checksum(fields: list[object]) -> bytes:
    return hashlib.sha256(b"p2pcards/v1/file\x00" + pack(fields)).digest()


def encode_file(records: Iterable[SignedRecord], *, saved_by: int | None, status: str) -> bytes:
    recs = [[r.raw, r.sig] for r in records]
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


def save(path: str | os.PathLike[str], data: bytes) -> None:
    """Write atomically (temporary file, then rename) so a crash never leaves half a file."""
    p = Path(path)
    p.parent.mkdir(parents=True, exist_ok=True)
    tmp = p.with_name(p.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, p)


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


class _Cut(Exception):
    """The bytes end before the msgpack value being read does."""


def decode_file(data: bytes) -> TranscriptFile:
    """Read the file structure; a file that is not a transcript is a :class:`TranscriptError`.

    The file is read as a stream, value by value, with the bounds of every other
    read of untrusted bytes (:func:`~p2pcards.protocol.wire.unpack_limits`). A
    transcript cut short (a copy that stopped, a full disk) keeps its complete
    records: the result says ``cut`` and holds the records before the cut.
    """
    if not data:
        raise TranscriptError("not a p2pcards transcript: the file is empty")
    if len(data) > MAX_FILE:
        raise TranscriptError(f"not a p2pcards transcript: {len(data)} bytes exceeds the limit of {MAX_FILE}")
    unpacker = msgpack.Unpacker(**unpack_limits(MAX_FILE, MAX_FILE_RECORDS))
    unpacker.feed(data)

    def read(how: Callable[[], Any]) -> Any:
        try:
            return how()
        except msgpack.OutOfData:
            raise _Cut from None
        except WireError as e:
            raise TranscriptError(f"not a p2pcards transcript: {e}") from None
        except (ValueError, msgpack.UnpackException, RecursionError) as e:
            # msgpack signals bad input with ValueError subclasses (see wire.unpack_untrusted).
            raise TranscriptError(
                f"not a p2pcards transcript: undecodable msgpack ({type(e).__name__}: {e})"
            ) from None

    try:
        size = read(unpacker.read_map_header)
    except (_Cut, TranscriptError):
        raise TranscriptError("not a p2pcards transcript (no format marker)") from None
    if size > MAX_MAP:
        raise TranscriptError("not a p2pcards transcript (no format marker)")
    obj: dict[str, Any] = {}
    recs: list[Any] = []
    cut = False
    try:
        for _ in range(size):
            key = read(unpacker.unpack)
            if type(key) is not str:
                raise TranscriptError("not a p2pcards transcript (no format marker)")
            if key in obj:
                raise TranscriptError(f"not a p2pcards transcript (the key {show(key)} appears twice)")
            if key != "records":
                obj[key] = read(unpacker.unpack)
                continue
            obj[key] = recs
            try:
                count = read(unpacker.read_array_header)
            except TranscriptError:
                if obj.get("format") != FORMAT:
                    raise TranscriptError("not a p2pcards transcript (no format marker)") from None
                raise TranscriptError("transcript records must be a list") from None
            if count > MAX_FILE_RECORDS:
                raise TranscriptError(f"not a p2pcards transcript: over {MAX_FILE_RECORDS} records")
            for _ in range(count):
                recs.append(read(unpacker.unpack))
    except _Cut:
        cut = True
    if obj.get("format") != FORMAT:
        raise TranscriptError(
            "not a p2pcards transcript (no format marker)"
            if not cut or "format" in obj
            else "not a p2pcards transcript: it ends before its format marker (truncated)"
        )
    version = obj.get("version")
    if "version" not in obj and cut:
        raise TranscriptError("the transcript file is cut short before its first record (truncated)")
    if type(version) is not int or version != FORMAT_VERSION:
        raise TranscriptError(f"unsupported transcript version {show(version)}")
    if "records" not in obj and not cut:
        raise TranscriptError("transcript records must be a list")
    if cut and not recs:
        raise TranscriptError("the transcript file is cut short before its first record (truncated)")
    if not cut and unpacker.tell() != len(data):
        raise TranscriptError(
            f"{len(data) - unpacker.tell()} trailing bytes after the transcript: the file was altered"
        )
    pairs = []
    for item in recs:
        pairs.append((item[0], item[1]) if type(item) is list and len(item) == 2 else (None, None))
    saved_by, status = obj.get("saved_by"), obj.get("status")
    fields: list[object] = [FORMAT, FORMAT_VERSION, saved_by, status, recs]
    return TranscriptFile(
        tuple(pairs),
        saved_by if type(saved_by) is int else None,
        status if type(status) is str else "",
        not cut and obj.get("checksum") == _checksum(fields) and set(obj) == _FILE_KEYS,
        cut,
    )


_FILE_KEYS = frozenset({"format", "version", "saved_by", "status", "records", "checksum"})


def load(path: str | os.PathLike[str]) -> TranscriptFile:
    try:
        data = Path(path).read_bytes()
    except OSError as e:
        raise TranscriptError(f"cannot read {path}: {e.strerror or e}") from None
    return decode_file(data)
