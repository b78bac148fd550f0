"""Reading a large transcript holds no more copies of it than it must: the checksum of
section 8 is hashed as the records are packed, not over the whole file packed again (and
copied once more behind its prefix), and the reader's own copy of the bytes is let go
first. A file of 64 MiB (the bound) was read with over 500 MB."""

from __future__ import annotations

import hashlib
import os
import tracemalloc

import pytest
from protocol_helpers import RawRecord, raw_records_file

from p2pcards.protocol.transcript import FORMAT, FORMAT_VERSION, _checksum, decode_file
from p2pcards.protocol.wire import pack


def spec_checksum(fields: list[object]) -> bytes:
    return hashlib.sha256(b"p2pcards/v1/file\x00" + pack(fields)).digest()


@pytest.mark.parametrize(
    "records",
    [
        [],
        [[b"a", b"b"]],
        [[os.urandom(k % 300), os.urandom(64)] for k in range(3000)],  # past a piece of 64 KiB
        [None, 5, [b"x"], "y", [b"r", b"s", b"t"]] * 2000,  # what a damaged file may hold
        (1, 2),  # (not a list: packed whole)
    ],
)
@pytest.mark.parametrize("saved_by", [None, 0, 5])
def test_the_checksum_is_the_formula_of_section_8(records: object, saved_by: int | None) -> None:
    fields: list[object] = [FORMAT, FORMAT_VERSION, saved_by, "failed: x", records]
    assert _checksum(fields) == spec_checksum(fields)


def test_a_large_file_is_read_without_packing_it_again() -> None:
    data = raw_records_file([RawRecord(os.urandom(2000), os.urandom(64)) for _ in range(5000)])
    tracemalloc.start()
    try:
        tracemalloc.reset_peak()
        tf = decode_file(data)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert tf.checksum_ok and len(tf.records) == 5000
    assert peak < 4 * len(data), f"{peak / len(data):.1f} times the file's size"  # (it was 5.7)
