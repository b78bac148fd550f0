"""Known players: the name and key of everyone this node has sat down with (trust on first use).

A host that seats each joiner against a puppet of the other passes every check of
the protocol; only the people can see it. The table fingerprint is one way; this is
the other, as SSH's ``known_hosts``: each node remembers the keys of the players it
has played with, and says so loudly, before the first shuffle, when a known name
comes with a key it has never seen (a puppet, or the same person on a new machine)
or a known key comes under another name. Names are compared after Unicode case
folding, as the lobby compares them.

The file is ``known_players.json`` in the data directory::

    {"version": 1, "players": [{"key": hex, "name": str, "first": "YYYY-MM-DD",
                                "last": "YYYY-MM-DD", "games": int}, ...]}

one entry per key. A damaged file is set aside (renamed ``.damaged``, or ``.damaged-2``... when
an earlier one is there) and a new one
begun, with a warning: losing this list weakens a check, it never stops a game.
"""

from __future__ import annotations

import errno
import json
import os
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from p2pcards.crypto.identity import fingerprint
from p2pcards.files import replace_with
from p2pcards.protocol.notice import Notice

FILE_NAME = "known_players.json"
MAX_PLAYERS = 10_000
"""Entries kept; past it, the ones seen longest ago are forgotten first."""


def _fold(name: str) -> str:
    return name.casefold()


@dataclass(slots=True)
class KnownPlayer:
    key: bytes
    name: str
    first: str
    last: str
    games: int = 1

    def to_json(self) -> dict[str, object]:
        return {
            "key": self.key.hex(),
            "name": self.name,
            "first": self.first,
            "last": self.last,
            "games": self.games,
        }

    @classmethod
    def from_json(cls, obj: object) -> KnownPlayer:
        if not isinstance(obj, dict):
            raise ValueError("an entry is not a map")
        key, name, first, last, games = (obj.get(k) for k in ("key", "name", "first", "last", "games"))
        if not (
            isinstance(key, str)
            and isinstance(name, str)
            and isinstance(first, str)
            and isinstance(last, str)
        ):
            raise ValueError("an entry lacks its key, name or dates")
        if not isinstance(games, int) or isinstance(games, bool) or games < 0:
            raise ValueError("an entry's game count is not a count")
        raw = bytes.fromhex(key)
        if len(raw) != 32:
            raise ValueError("an entry's key is not 32 bytes")
        return cls(key=raw, name=name, first=first, last=last, games=games)


@dataclass(slots=True)
class KnownPlayers:
    """The list of one data directory; :meth:`check` before the match, :meth:`remember` then."""

    path: Path
    players: dict[bytes, KnownPlayer] = field(default_factory=dict)
    problem: str | None = None
    """Why the file could not be read, if it could not (it was set aside)."""
    kept: bool = False
    """The damaged file could not be set aside: it is left as it is, and never written over."""

    @classmethod
    def load(cls, directory: Path) -> KnownPlayers:
        path = directory / FILE_NAME
        known = cls(path)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return known
        except (OSError, ValueError) as e:
            known._set_aside(f"cannot be read ({e})")
            return known
        try:
            entries = data["players"] if isinstance(data, dict) and data.get("version") == 1 else None
            if not isinstance(entries, list):
                raise ValueError("it is not a list of players of version 1")
            for entry in entries:
                player = KnownPlayer.from_json(entry)
                known.players[player.key] = player
        except (KeyError, ValueError) as e:
            known.players.clear()
            known._set_aside(str(e))
        return known

    def _set_aside(self, why: str) -> None:
        """Move the damaged file to a name of its own (``.damaged``, else ``.damaged-2``...:
        a list set aside before is never overwritten), or, when it cannot be moved, leave it
        where it is and never write over it."""
        damaged = self.path.with_name(self.path.name + ".damaged")
        n = 1
        while os.path.lexists(damaged) and n < 1000:
            n += 1
            damaged = self.path.with_name(f"{self.path.name}.damaged-{n}")
        try:
            if os.path.lexists(damaged):
                raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), str(damaged))
            os.rename(self.path, damaged)
        except OSError as e:
            self.kept = True
            moved = f"it could not be moved aside ({e.strerror or e}), so it is left as it is"
            self.problem = f"{self.path} {why}; {moved}"
            return
        self.problem = f"{self.path} {why}; it was moved to {damaged.name} and a new list begun"

    def check(self, roster: Sequence[tuple[str, bytes]], me: int | None) -> list[Notice]:
        """Warnings about this roster (name, key by seat), in seat order; ``me`` is left out."""
        warnings = []
        for seat, (name, key) in enumerate(roster):
            if seat == me:
                continue
            known = self.players.get(key)
            if known is not None:
                if _fold(known.name) != _fold(name):
                    warnings.append(
                        Notice(
                            "notice_known_renamed", name=name, seat=seat, known=known.name, last=known.last
                        )
                    )
                continue
            same_name = sorted(
                (p for p in self.players.values() if _fold(p.name) == _fold(name)), key=lambda p: p.last
            )
            if same_name:
                old = same_name[-1]
                warnings.append(
                    Notice(
                        "notice_known_new_key",
                        name=name,
                        seat=seat,
                        new=fingerprint(key)[:9],
                        old=fingerprint(old.key)[:9],
                        last=old.last,
                    )
                )
        return warnings

    def remember(self, roster: Sequence[tuple[str, bytes]], me: int | None, day: str | None = None) -> None:
        """Note everyone at this table (under the name they sat down with) and save the list."""
        day = day or time.strftime("%Y-%m-%d")
        for seat, (name, key) in enumerate(roster):
            if seat == me:
                continue
            known = self.players.get(key)
            if known is None:
                self.players[key] = KnownPlayer(key=key, name=name, first=day, last=day)
            else:
                known.name, known.last, known.games = name, day, known.games + 1
        if len(self.players) > MAX_PLAYERS:
            keep = sorted(self.players.values(), key=lambda p: p.last, reverse=True)[:MAX_PLAYERS]
            self.players = {p.key: p for p in keep}
        self.save()

    def forget(self, what: str) -> list[KnownPlayer]:
        """Forget the players named ``what`` (case folded), or whose key or key
        fingerprint starts with it (at least 4 characters); the ones forgotten."""
        probe = what.strip().lower().replace("-", "")
        gone = [
            p
            for p in self.players.values()
            if _fold(p.name) == _fold(what.strip())
            or (
                len(probe) >= 4
                and (p.key.hex().startswith(probe) or fingerprint(p.key).replace("-", "").startswith(probe))
            )
        ]
        for p in gone:
            del self.players[p.key]
        if gone:
            self.save()
        return gone

    def save(self) -> None:
        if self.kept:  # (a damaged list that could not be moved aside is the person's to look at)
            return
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        entries = [p.to_json() for p in sorted(self.players.values(), key=lambda p: (_fold(p.name), p.first))]
        text = json.dumps({"version": 1, "players": entries}, indent=1, ensure_ascii=False) + "\n"
        replace_with(self.path, text.encode())
