"""Ed25519 identities: signatures, key files and their permissions, fingerprints."""

from __future__ import annotations

import dataclasses
import hashlib
import os
import stat
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from p2pcards.crypto.identity import (
    FILE_HEADER,
    Identity,
    fingerprint,
    is_valid_public_key,
    verify_signature,
)
from p2pcards.errors import UsageError

posix_only = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")

ALICE = Identity.from_bytes(bytes(range(32)))
BOB = Identity.from_bytes(bytes(range(1, 33)))


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


# --- keys and signatures -----------------------------------------------------------------


def test_rfc8032_test_vector_1() -> None:
    # RFC 8032 section 7.1, TEST 1: ties the raw byte formats to the standard.
    ident = Identity.from_bytes(
        bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
    )
    assert ident.public_key.hex() == "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a"
    assert ident.sign(b"").hex() == (
        "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
        "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
    )


def test_sign_and_verify() -> None:
    data = b"record 17"
    sig = ALICE.sign(data)
    assert len(sig) == 64
    assert len(ALICE.public_key) == 32
    assert verify_signature(ALICE.public_key, sig, data)


def test_tampering_is_rejected() -> None:
    data = b"record 17"
    sig = ALICE.sign(data)
    assert not verify_signature(ALICE.public_key, sig, b"record 18")
    assert not verify_signature(ALICE.public_key, sig, data + b"\x00")
    assert not verify_signature(BOB.public_key, sig, data)
    flipped = bytes([sig[0] ^ 1]) + sig[1:]
    assert not verify_signature(ALICE.public_key, flipped, data)
    flipped_key = ALICE.public_key[:-1] + bytes([ALICE.public_key[-1] ^ 0x40])
    assert not verify_signature(flipped_key, sig, data)
    assert not verify_signature(ALICE.public_key, BOB.sign(data), data)


@pytest.mark.parametrize(
    ("key", "sig", "data"),
    [
        (b"", b"", b""),
        (bytes(32), bytes(64), b"x"),
        (b"\xff" * 32, b"\xff" * 64, b"x"),
        ("not bytes", bytes(64), b"x"),
        (None, None, None),
        (bytes(31), bytes(64), b"x"),
        (bytes(33), bytes(64), b"x"),
        (bytes(32), bytes(63), b"x"),
        (bytes(32), bytes(65), b"x"),
        (bytes(32), bytes(64), "text"),
        (12, 34, 56),
    ],
)
def test_garbage_is_false_never_an_exception(key: object, sig: object, data: object) -> None:
    assert verify_signature(key, sig, data) is False  # type: ignore[arg-type]


@settings(max_examples=50, deadline=None)
@given(key=st.binary(max_size=40), sig=st.binary(max_size=70), data=st.binary(max_size=20))
def test_random_inputs_never_verify(key: bytes, sig: bytes, data: bytes) -> None:
    assert verify_signature(key, sig, data) is False
    assert verify_signature(ALICE.public_key, sig, data) is False


# Encodings of the points of order 1, 2, 4 and 8, canonical and not (the list libsodium refuses).
SMALL_ORDER_KEYS = [
    "0100000000000000000000000000000000000000000000000000000000000000",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "0000000000000000000000000000000000000000000000000000000000000000",
    "0000000000000000000000000000000000000000000000000000000000000080",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a",
    "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac03fa",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
    "26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc85",
    "0100000000000000000000000000000000000000000000000000000000000080",
    "ecffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "eeffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff7f",
    "edffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff",
]


@pytest.mark.parametrize("key_hex", SMALL_ORDER_KEYS)
def test_small_order_keys_are_refused(key_hex: str) -> None:
    key = bytes.fromhex(key_hex)
    assert not is_valid_public_key(key)
    # With such a key, signature (R = a small-order point, S = 0) would verify for any message.
    for r in SMALL_ORDER_KEYS[:8]:
        assert not verify_signature(key, bytes.fromhex(r) + bytes(32), b"any message")


def edwards_order_divides_8(y: int) -> bool:
    """Independent check on the curve -x² + y² = 1 + d·x²·y² (mod 2^255 - 19)."""
    p = 2**255 - 19
    d = -121665 * pow(121666, -1, p) % p
    x2 = (y * y - 1) * pow(d * y * y + 1, -1, p) % p
    x = pow(x2, (p + 3) // 8, p)
    if x * x % p != x2:
        x = x * pow(2, (p - 1) // 4, p) % p
    assert x * x % p == x2

    def add(a: tuple[int, int], b: tuple[int, int]) -> tuple[int, int]:
        t = d * a[0] * b[0] * a[1] * b[1] % p
        return (a[0] * b[1] + a[1] * b[0]) * pow(1 + t, -1, p) % p, (a[1] * b[1] + a[0] * b[0]) * pow(
            1 - t, -1, p
        ) % p

    point = (x, y)
    for _ in range(3):
        point = add(point, point)
    return point == (0, 1)


def test_refused_y_values_are_exactly_small_order_points() -> None:
    from p2pcards.crypto.identity import _SMALL_ORDER_Y

    assert all(edwards_order_divides_8(y) for y in _SMALL_ORDER_Y)
    assert not edwards_order_divides_8(int.from_bytes(ALICE.public_key, "little") & ((1 << 255) - 1))
    assert is_valid_public_key(ALICE.public_key)
    assert is_valid_public_key(BOB.public_key)
    assert not is_valid_public_key(ALICE.public_key[:31])
    assert not is_valid_public_key("x" * 32)  # type: ignore[arg-type]


def test_valid_signature_of_other_key_with_right_lengths_is_rejected() -> None:
    assert not verify_signature(ALICE.public_key, ALICE.sign(b"a")[:32] + BOB.sign(b"a")[32:], b"a")


def test_private_bytes_round_trip() -> None:
    raw = ALICE.to_bytes()
    assert raw == bytes(range(32))
    again = Identity.from_bytes(raw)
    assert again == ALICE
    assert again.public_key == ALICE.public_key
    assert again != BOB
    fresh = Identity.generate()
    assert fresh != Identity.generate()
    assert Identity.from_bytes(fresh.to_bytes()).public_key == fresh.public_key
    with pytest.raises(ValueError):
        Identity.from_bytes(bytes(31))
    with pytest.raises(ValueError):
        Identity.from_bytes("x" * 32)  # type: ignore[arg-type]


def test_identity_is_frozen_and_repr_hides_the_key() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        ALICE.public_key = bytes(32)  # type: ignore[misc]
    assert ALICE.to_bytes().hex() not in repr(ALICE)


def test_fingerprint() -> None:
    fp = fingerprint(ALICE.public_key)
    digest = hashlib.sha256(ALICE.public_key).hexdigest()
    assert fp == "-".join(digest[i : i + 4] for i in range(0, 16, 4))
    assert len(fp) == 19
    assert fp == ALICE.fingerprint
    assert fp != fingerprint(BOB.public_key)


# --- key files ----------------------------------------------------------------------------


@posix_only
def test_save_and_load_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "new-dir" / "sub" / "identity.key"
    ALICE.save(path)
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700
    assert mode(path.parent.parent) == 0o700
    assert path.read_text().splitlines() == [FILE_HEADER, bytes(range(32)).hex()]
    loaded = Identity.load(path)
    assert loaded.to_bytes() == ALICE.to_bytes()
    assert sorted(p.name for p in path.parent.iterdir()) == ["identity.key"]  # no temp file left


@posix_only
def test_save_overwrites_atomically_or_refuses(tmp_path: Path) -> None:
    path = tmp_path / "identity.key"
    ALICE.save(path)
    BOB.save(path)
    assert Identity.load(path) == BOB
    with pytest.raises(FileExistsError):
        ALICE.save(path, overwrite=False)
    assert Identity.load(path) == BOB
    assert [p.name for p in tmp_path.iterdir()] == ["identity.key"]


@posix_only
def test_save_ignores_a_permissive_umask(tmp_path: Path) -> None:
    old = os.umask(0)
    try:
        ALICE.save(tmp_path / "k")
    finally:
        os.umask(old)
    assert mode(tmp_path / "k") == 0o600


@posix_only
@pytest.mark.parametrize("bad_mode", [0o644, 0o640, 0o604, 0o666, 0o700 | 0o010])
def test_load_refuses_a_readable_key_file(tmp_path: Path, bad_mode: int) -> None:
    path = tmp_path / "identity.key"
    ALICE.save(path)
    path.chmod(bad_mode)
    with pytest.raises(UsageError, match="chmod 600") as info:
        Identity.load(path)
    assert str(path) in str(info.value)
    assert f"{bad_mode:04o}" in str(info.value)
    path.chmod(0o600)
    assert Identity.load(path) == ALICE
    path.chmod(0o400)
    assert Identity.load(path) == ALICE


def test_load_missing_file(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no identity key file"):
        Identity.load(tmp_path / "absent.key")


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"garbage",
        bytes(32),
        FILE_HEADER.encode(),
        f"{FILE_HEADER}\n{'00' * 31}\n".encode(),
        f"{FILE_HEADER}\n{'zz' * 32}\n".encode(),
        f"other-header\n{'00' * 32}\n".encode(),
        f"{FILE_HEADER}\n{'00' * 32}\nextra\n".encode(),
        b"\xff\xfe" * 40,
        f"{FILE_HEADER}\n{'00' * 32}\n".encode() + b" " * 5000,
    ],
)
def test_load_corrupt_file(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "identity.key"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, content)
    os.close(fd)
    with pytest.raises(UsageError, match="corrupt"):
        Identity.load(path)


def test_load_a_directory(tmp_path: Path) -> None:
    (tmp_path / "d").mkdir(mode=0o700)
    with pytest.raises(UsageError):
        Identity.load(tmp_path / "d")


def test_load_or_create(tmp_path: Path) -> None:
    path = tmp_path / "state" / "identity.key"
    first = Identity.load_or_create(path)
    assert path.exists()
    second = Identity.load_or_create(path)
    assert second == first
    assert second.to_bytes() == first.to_bytes()
    assert Identity.load(path) == first


@settings(max_examples=60, deadline=None)
@given(st.binary(min_size=32, max_size=32))
def test_a_key_that_is_no_point_of_the_curve_is_refused_and_every_real_key_taken(seed: bytes) -> None:
    """protocol.md 3.7: a roster key must decode to a point of Ed25519 (RFC 8032, 5.1.3). A
    host could otherwise seat a key such as y = 2, which no secret stands behind: that seat
    could never sign. Every key made from a secret is taken; a y whose x² is no square is
    not (about half of all y values)."""
    real = Identity.from_bytes(seed).public_key
    assert is_valid_public_key(real)
    y = int.from_bytes(seed, "little") % (2**255 - 19)
    p = 2**255 - 19
    d = -121665 * pow(121666, -1, p) % p
    x2 = (y * y - 1) * pow(d * y * y + 1, p - 2, p) % p
    square = x2 == 0 or pow(x2, (p - 1) // 2, p) == 1
    if not square:
        assert not is_valid_public_key(y.to_bytes(32, "little"))
    assert not is_valid_public_key((2).to_bytes(32, "little"))
