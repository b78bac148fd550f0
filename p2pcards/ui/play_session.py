"""What a ``p2pcards play`` session is given, and what the local games of Nines and Le Neuf
(:mod:`p2pcards.ui.local`, :mod:`p2pcards.ui.neuf_local`) share: the seats' names and saving the record."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from p2pcards.games.base import game as game_named
from p2pcards.games.neuf import NeufRules
from p2pcards.games.nines import NinesRules
from p2pcards.record import dumps_record
from p2pcards.ui.prompt import Console

BOT_NAMES = ("Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace")


@dataclass(frozen=True, slots=True, kw_only=True)
class PlayOptions:
    players: int = 4
    bot: str = "heuristic"
    seed: int | None = None
    rules: NinesRules | NeufRules | None = None
    """The rules of ``game``; None for the game's defaults (see :attr:`game_rules`)."""
    record: Path | None = None
    watch: bool = False
    name: str | None = None
    lang: str = "en"
    offline: bool = False
    transcript: Path | None = None
    game: str = "nines"
    """``nines``, or ``neuf`` for Le Neuf (3 players)."""
    delay: float = 0.0
    """With ``watch``: seconds between two moves, so that a person can follow the match."""

    @property
    def game_rules(self) -> Any:
        """The rules in force: those given, or the game's defaults."""
        return self.rules if self.rules is not None else game_named(self.game).parse_rules(())


def seat_names(players: int, human: str | None) -> list[str]:
    """The human (if any) in seat 0, bots named in order, skipping the human's name."""
    pool = [n for n in BOT_NAMES if human is None or n.lower() != human.lower()]
    if human is None:
        return pool[:players]
    return [human, *pool[: players - 1]]


def save_record(console: Console, path: Path, doc: dict[str, object], *, hands: int, partial: bool) -> int:
    """Write a game's JSON record and say so; the exit status (1 if it could not be written)."""
    tr = console.tr
    try:
        path.write_text(dumps_record(doc), encoding="utf-8")
    except OSError as e:
        console.say(tr("record_failed", path=path, error=e.strerror or e))
        return 1
    console.say(tr("record_partial", path=path, n=hands) if partial else tr("record_written", path=path))
    return 0
