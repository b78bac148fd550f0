"""The table fingerprint: twelve digits every player reads aloud, to be sure all sit at one table.

Why. A host who lies can split the table: it sends joiner A a roster in which
B's seat holds a puppet key of its own, and sends B a roster in which A's seat
does. A and B then each play a perfectly valid game - against the host's
puppets, not against each other - and every check passes. Only a comparison
outside the game can show it, so every node shows this fingerprint and the
players compare it, by voice or on the same screen. ``p2pcards audit`` shows it
again from a transcript.

What goes in. The game id, the game's name, the rules, every seat's key in
seat order, and every seat's secret of the cut for the first deal (the
``reveal`` records of step 2, which every node holds right after the cut).

Why the cut secrets, and why twelve digits are then enough. The host learns
every joiner's key before it sends any roster, and it picks the puppet keys
(and the game id) freely, as many times as it likes, while the joiners wait in
the lobby (up to an hour). A fingerprint of the rosters alone would let it
search two families of rosters - one with a puppet in B's seat, one with a
puppet in A's - for two that match: a collision search, about ``2**(b/2)``
trials for ``b`` bits, so some 2**20 keys and hashes for 40 bits: seconds. A roster
fingerprint would need some 128 bits (40 digits) to resist that, too long to
read aloud. The cut secrets take the search away. Each seat commits to its
secret and reveals it only once it holds the commitment of every other seat
(step 2 starts when step 1 is complete; a secret that does not match its
SHA-256 commitment stops the match). So when A reveals, everything else that
goes into the fingerprint A computes is already fixed, and A's secret is fresh
randomness the host has never seen: A's fingerprint is a new random value the
host cannot steer, and the same holds for B. The two inputs differ (at least
one key: the host cannot sign as A or B), so the two fingerprints agree by
chance only, once in 10**12 (about 2**-40) games, and a failed attempt shows as
a mismatch that the players see. Copying one world's commitments into the
other does not help, since the keys still differ. This is how a
magic-wormhole verifier works (after its PAKE, an attacker in the middle gets
one guess per connection), not a long static number like Signal's safety
numbers. Twelve decimal digits, three groups of four as Signal groups its
digits in fives, read in any language.

Definition (version 1), byte exact. ``u8``/``u16`` are unsigned big-endian
integers; every length is a count of bytes::

    input = "p2pcards/v1/table-fingerprint" 0x00          (29 ASCII bytes, then a zero byte)
            u8(len(game_id))  game_id                      the game id (16 bytes)
            u8(len(game))     game                         the game's name in UTF-8: "nines"
            u8(R)                                          R = number of rule options; then for each
                                                           option, by ascending UTF-8 bytes of its name:
                u8(len(name)) name                         the option's name in UTF-8 ("action_cards")
                value                                      0x00                 nil
                                                           0x01                 false
                                                           0x02                 true
                                                           0x03 u8(len(d)) d    an integer in ASCII decimal
                                                                                ("-" before a negative one,
                                                                                no leading zeros)
                                                           0x04 u16(len(s)) s   text, UTF-8
            u8(N)                                          N = number of seats
            key_0 || ... || key_{N-1}                      each seat's Ed25519 public key (32 bytes),
                                                           seat order
            secret_0 || ... || secret_{N-1}                each seat's cut secret (32 bytes: the
                                                           ``secret`` of its ``reveal`` at step 2),
                                                           seat order
    digest = SHA-256(input)
    shown  = g_0 " " g_1 " " g_2, where g_i = (the 5 bytes digest[5i .. 5i+4] as a
             big-endian integer) mod 10000, written as 4 decimal digits with leading zeros

The rules are the ``rules`` map of the ``join`` record (for Nines, every field
of ``NinesRules``). Test vector: game id ``00 01 .. 0f``, game ``nines``, the
default rules (``action_cards`` false, ``double_nines`` false,
``draw_until_playable`` false, ``hands`` nil, ``hard_nines`` false,
``no_nine_out`` false, ``stacking_nines`` false, ``target`` 100, ``tie``
"share"), two seats with keys of 32 bytes ``0x11`` and ``0x22`` and cut secrets
of 32 bytes ``0x33`` and ``0x44``: SHA-256 ``344f3c01 6f02d5d5 a3cb7011 ...``,
shown ``1983 2699 6100``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from p2pcards.cards import Card
from p2pcards.games.base import Rules
from p2pcards.protocol.messages import Confirm, Player, Reveal
from p2pcards.protocol.table import TableCore
from p2pcards.protocol.transcript import Transcript

DOMAIN = b"p2pcards/v1/table-fingerprint\x00"
GROUPS = 3
DIGITS = 4
CUT_REVEAL_STEP = 2
"""The step whose records carry the cut secrets (after ``join`` and ``cut-commit``)."""

RuleValue = bool | int | str | None | Sequence[bool | int | str | None]


def _short(data: bytes, what: str) -> bytes:
    if len(data) > 255:
        raise ValueError(f"{what} is longer than 255 bytes")
    return bytes([len(data)]) + data


def _rule_value(value: RuleValue) -> bytes:
    if value is None:
        return b"\x00"
    if value is False:
        return b"\x01"
    if value is True:
        return b"\x02"
    if isinstance(value, int):
        return b"\x03" + _short(str(value).encode("ascii"), "an integer")
    if isinstance(value, str):
        data = value.encode("utf-8")
        if len(data) > 0xFFFF:
            raise ValueError("a rule's text is longer than 65535 bytes")
        return b"\x04" + len(data).to_bytes(2, "big") + data
    if isinstance(value, list | tuple):
        if len(value) > 255:
            raise ValueError("a rule's list is longer than 255 items")
        return b"\x05" + bytes([len(value)]) + b"".join(_rule_value(v) for v in value)
    raise TypeError(f"a rule value is nil, a boolean, an integer, text or a list, not {type(value).__name__}")


def fingerprint_input(
    *,
    game_id: bytes,
    game: str,
    rules: Mapping[str, RuleValue],
    keys: Sequence[bytes],
    secrets: Sequence[bytes],
) -> bytes:
    """The bytes the fingerprint hashes, exactly as the module docstring defines them."""
    if len(keys) != len(secrets) or not 0 < len(keys) <= 255:
        raise ValueError("one key and one cut secret per seat")
    if any(len(k) != 32 for k in keys) or any(len(s) != 32 for s in secrets):
        raise ValueError("keys and cut secrets are 32 bytes each")
    if len(rules) > 255:
        raise ValueError("too many rule options")
    out = [DOMAIN, _short(game_id, "the game id"), _short(game.encode("utf-8"), "the game name")]
    out.append(bytes([len(rules)]))
    for name in sorted(rules, key=lambda n: n.encode("utf-8")):
        out.append(_short(name.encode("utf-8"), "a rule name") + _rule_value(rules[name]))
    out.append(bytes([len(keys)]))
    out.extend(keys)
    out.extend(secrets)
    return b"".join(out)


@dataclass(frozen=True, slots=True)
class TableFingerprint:
    """The SHA-256 of one table's :func:`fingerprint_input`, shown as ``0416 2391 7788``."""

    digest: bytes

    @property
    def text(self) -> str:
        groups = (int.from_bytes(self.digest[5 * i : 5 * i + 5], "big") % 10**DIGITS for i in range(GROUPS))
        return " ".join(f"{g:0{DIGITS}d}" for g in groups)

    def __str__(self) -> str:
        return self.text

    @classmethod
    def compute(
        cls,
        *,
        game_id: bytes,
        game: str,
        rules: Mapping[str, RuleValue],
        keys: Sequence[bytes],
        secrets: Sequence[bytes],
    ) -> TableFingerprint:
        data = fingerprint_input(game_id=game_id, game=game, rules=rules, keys=keys, secrets=secrets)
        return cls(hashlib.sha256(data).digest())

    @classmethod
    def of_table(cls, table: Fingerprinted) -> TableFingerprint | None:
        """The fingerprint of a seat's (or an audit's) table, once the cut is done; None before."""
        steps = table.transcript.steps
        if not table.cut_rounds or len(steps) <= CUT_REVEAL_STEP:
            return None
        reveals = steps[CUT_REVEAL_STEP]
        if [r.record.seat for r in reveals] != list(range(table.n)):
            return None
        secrets = []
        for rec in reveals:
            body = rec.record.body
            if not isinstance(body, Reveal):
                return None
            secrets.append(body.secret)
        return cls.compute(
            game_id=table.game_id,
            game=table.GAME,
            rules=table.rules.to_dict(),
            keys=[p.key for p in table.roster],
            secrets=secrets,
        )


class Fingerprinted(Protocol):
    """What a fingerprint is read from: a table (``TableCore``), or a seat's ``Sitting``
    (the network layer's view of its tables)."""

    @property
    def GAME(self) -> str: ...
    @property
    def game_id(self) -> bytes: ...
    @property
    def rules(self) -> Rules: ...
    @property
    def roster(self) -> Sequence[Player]: ...
    @property
    def n(self) -> int: ...
    @property
    def transcript(self) -> Transcript: ...
    @property
    def cut_rounds(self) -> Sequence[Sequence[tuple[int, Card]]]: ...


@dataclass(frozen=True, slots=True)
class Confirmation:
    """What one seat's ``confirm`` record says: ``same`` (everyone read the same digits,
    as its person answered) and ``matches`` (the digest it signed is this table's)."""

    seat: int
    same: bool
    matches: bool


def confirmations(table: TableCore) -> list[Confirmation]:
    """The ``confirm`` records this node (or an audit) holds for ``table``, in seat order."""
    shown = TableFingerprint.of_table(table)
    out = []
    for seat, rec in sorted(table.log.confirmed.items()):
        body = rec.record.body
        if isinstance(body, Confirm):
            out.append(Confirmation(seat, body.same, shown is not None and body.fingerprint == shown.digest))
    return out


def confirm_body(table: TableCore, same: bool) -> Confirm | None:
    """This seat's ``confirm`` for ``table``'s fingerprint (None before the cut)."""
    shown = TableFingerprint.of_table(table)
    return None if shown is None else Confirm(fingerprint=shown.digest, same=same)
