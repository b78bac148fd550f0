"""Ed25519 identities: the long-term key a player signs every record with, and its key file.

The key file is two lines of text, ``p2pcards-ed25519-private-v1`` and the 32-byte private key
in hex, written atomically with mode 0600. Like ssh, :meth:`Identity.load` refuses a key file
that other users may read, since anyone holding it can sign as the player.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import stat
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from p2pcards.errors import KeyFileError
from p2pcards.say import system_said

PUBLIC_KEY_SIZE = 32
PRIVATE_KEY_SIZE = 32
SIGNATURE_SIZE = 64
FILE_HEADER = "p2pcards-ed25519-private-v1"
_MAX_FILE_SIZE = 4096


@dataclass(frozen=True, slots=True, kw_only=True)
class Identity:
    """A private signing key and its 32-byte public key (equal when the public keys are)."""

    key: Ed25519PrivateKey = field(repr=False, compare=False)
    public_key: bytes = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "public_key", self.key.public_key().public_bytes_raw())

    @classmethod
    def generate(cls) -> Identity:
        """A fresh identity from the operating system's randomness."""
        return cls(key=Ed25519PrivateKey.generate())

    @classmethod
    def from_bytes(cls, data: bytes) -> Identity:
        """The identity whose raw private key is ``data`` (32 bytes)."""
        if not isinstance(data, bytes) or len(data) != PRIVATE_KEY_SIZE:
            raise ValueError(f"an Ed25519 private key is {PRIVATE_KEY_SIZE} bytes")
        return cls(key=Ed25519PrivateKey.from_private_bytes(data))

    def to_bytes(self) -> bytes:
        """The raw 32-byte private key (keep it secret)."""
        return self.key.private_bytes_raw()

    def sign(self, data: bytes) -> bytes:
        """The 64-byte Ed25519 signature of ``data``."""
        return self.key.sign(data)

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.public_key)

    def save(self, path: str | os.PathLike[str], *, overwrite: bool = True) -> None:
        """Write the key file atomically, mode 0600, creating missing parent directories 0700.

        With ``overwrite=False`` an existing file is left alone and :class:`FileExistsError`
        raised, so two processes creating the same identity at once agree on one key.
        """
        path = Path(path)
        _make_private_dirs(path.parent)
        content = f"{FILE_HEADER}\n{self.to_bytes().hex()}\n".encode("ascii")
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        try:
            try:
                os.write(fd, content)
                os.fsync(fd)
            finally:
                os.close(fd)
            if overwrite:
                os.replace(tmp, path)
            else:
                _link_new(tmp, path)
            _fsync_directory(path.parent)
        finally:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> Identity:
        """Read a key file; a :class:`~p2pcards.errors.KeyFileError` (a usage error) if it is
        missing, unreadable, corrupt or too open."""
        path = Path(path)
        try:
            fd = os.open(path, os.O_RDONLY)
        except FileNotFoundError:
            raise KeyFileError("missing", str(path), f"no identity key file at {path}") from None
        except OSError as exc:
            message = f"cannot read identity key file {path}: {exc.strerror}"
            raise KeyFileError("unreadable", str(path), message, system_said(exc)) from None
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise KeyFileError("not-a-file", str(path), f"identity key file {path} is not a regular file")
            if os.name == "posix" and info.st_mode & 0o077:
                mode = f"{stat.S_IMODE(info.st_mode):04o}"
                raise KeyFileError(
                    "too-open",
                    str(path),
                    f"identity key file {path} has permissions {mode}, "
                    f"which let other users read it; fix with: chmod 600 {path}",
                    mode,
                )
            raw = os.read(fd, _MAX_FILE_SIZE + 1)
        finally:
            os.close(fd)
        try:
            header, key_hex = raw.decode("ascii").split()
            if header != FILE_HEADER or len(raw) > _MAX_FILE_SIZE:
                raise ValueError
            return cls.from_bytes(bytes.fromhex(key_hex))
        except ValueError:
            raise KeyFileError(
                "corrupt", str(path), f"identity key file {path} is corrupt (not a p2pcards key file)"
            ) from None

    @classmethod
    def load_or_create(cls, path: str | os.PathLike[str]) -> Identity:
        """Load the key file at ``path``, or create it with a fresh identity if there is none."""
        if not os.path.lexists(path):
            identity = cls.generate()
            try:
                identity.save(path, overwrite=False)
            except FileExistsError:
                pass  # another process created it first: use that one
            else:
                return identity
        return cls.load(path)


def _make_private_dirs(directory: Path) -> None:
    """Create ``directory`` and its missing parents, each with mode 0700 (existing ones untouched)."""
    missing = []
    while not directory.exists():
        missing.append(directory)
        if directory.parent == directory:
            break
        directory = directory.parent
    for d in reversed(missing):
        with contextlib.suppress(FileExistsError):  # created meanwhile by another process
            d.mkdir(mode=0o700)


def _fsync_directory(directory: Path) -> None:
    """Make the new directory entry durable (best effort: not every platform can open a directory)."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def _link_new(tmp: Path, path: Path) -> None:
    """Give ``tmp``'s content the name ``path`` only if that name is free (atomic with hard links)."""
    try:
        os.link(tmp, path)  # unlike rename, fails if path exists
    except FileExistsError:
        raise
    except OSError:
        # A file system without hard links: check, then rename (a narrow race, no partial file).
        if os.path.lexists(path):
            raise FileExistsError(path) from None
        os.replace(tmp, path)


_ED25519_P = 2**255 - 19
_ORDER_8_Y = 0x5FC536D880238B13933C6D305ACDFD5F098EFF289F4C345B027B2C28F95E826
_SMALL_ORDER_Y = frozenset({0, 1, _ED25519_P - 1, _ORDER_8_Y, _ED25519_P - _ORDER_8_Y})
"""y-coordinates of the eight points of order dividing 8 (orders 1, 2, 4 and 8)."""
_ED25519_D = -121665 * pow(121666, -1, _ED25519_P) % _ED25519_P


def _on_curve(y: int, x_is_odd: bool) -> bool:
    """Whether some x makes (x, y) a point of Ed25519 with x's parity as encoded (RFC 8032,
    5.1.3): x² = (y² - 1) / (d·y² + 1) must be a square, and x = 0 must be encoded even."""
    p = _ED25519_P
    x2 = (y * y - 1) * pow(_ED25519_D * y * y + 1, p - 2, p) % p
    if x2 == 0:
        return not x_is_odd
    return pow(x2, (p - 1) // 2, p) == 1


def is_valid_public_key(public_key: bytes) -> bool:
    """True for a canonical 32-byte Ed25519 public key of a point of the curve, not of small order.

    A small-order key has no secret behind it: some signatures verify under it for *every*
    message, so a record "signed" by it proves nothing. A roster should refuse such keys.
    """
    if not isinstance(public_key, bytes) or len(public_key) != PUBLIC_KEY_SIZE:
        return False
    return _valid_key(public_key)


@lru_cache(maxsize=256)
def _valid_key(public_key: bytes) -> bool:
    """:func:`is_valid_public_key` of 32 bytes (few keys, one per player, verify many records:
    the curve arithmetic is done once per key)."""
    y = int.from_bytes(public_key, "little") & ((1 << 255) - 1)
    if y >= _ED25519_P or y in _SMALL_ORDER_Y or not _on_curve(y, bool(public_key[31] >> 7)):
        return False
    try:
        _public_key(public_key)
    except ValueError:
        return False
    return True


@lru_cache(maxsize=256)
def _public_key(public_key: bytes) -> Ed25519PublicKey:
    # Few distinct keys (one per player) verify many records, so decoding once pays off.
    return Ed25519PublicKey.from_public_bytes(public_key)


def verify_signature(public_key: bytes, signature: bytes, data: bytes) -> bool:
    """True if ``signature`` is ``public_key``'s signature of ``data``; False for anything else,
    including keys refused by :func:`is_valid_public_key` (never raises)."""
    if not (isinstance(signature, bytes) and isinstance(data, bytes)):
        return False
    if len(signature) != SIGNATURE_SIZE or not is_valid_public_key(public_key):
        return False
    try:
        _public_key(public_key).verify(signature, data)
    except (InvalidSignature, ValueError):
        return False
    return True


def fingerprint(public_key: bytes) -> str:
    """A short name for a public key to compare by eye: the first 8 bytes of its SHA-256, as
    four dash-separated groups of four hex digits (``1a2b-3c4d-5e6f-7081``)."""
    digest = hashlib.sha256(public_key).hexdigest()[:16]
    return "-".join(digest[i : i + 4] for i in range(0, 16, 4))
