"""One seat's terminal for each game: what the generic parts of the interface need from a game.

The networked view (:mod:`p2pcards.ui.netgame`) and the local demo follow a
seat's table through its events and ask its human for decisions without
knowing the game: they talk to a :class:`Screen`, and :func:`make_screen`
picks the game's own rendering and prompts by the game's name (the name in the
table's join record). Each game's screen lives in its folder
(``p2pcards/games/nines/screen.py``, ``p2pcards/games/neuf/screen.py``) and
wraps that game's display and human seat, so the offline games and the
networked ones show the same table.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from p2pcards.cards import Card
from p2pcards.errors import IllegalAction, UsageError
from p2pcards.games.base import game as game_named
from p2pcards.games.base import load
from p2pcards.protocol.events import HandStarted
from p2pcards.ui.prompt import Console

Explain = Callable[[Any], IllegalAction | None]
"""The engine's verdict on an action (None if it is legal): how a refusal names its rule."""


class Screen(Protocol):
    """One seat's terminal for one game: shows what happens, asks the human.

    The ``cut`` ... ``match_end`` methods take the table's events in order
    (:mod:`p2pcards.protocol.events`); ``ask`` blocks on the keyboard and
    returns one of ``legal`` (raises :class:`~p2pcards.ui.prompt.QuitGame`).
    """

    console: Console
    names: tuple[str, ...]

    def intro(self, bot: str | None) -> None:
        """The goal and the rules in force, after who plays against which bots (``bot``, if given)."""

    def follow_live(self) -> None:
        """A networked table: show a player the moves as they come, not only at their turn
        (the others may take a while), and their own hand when it is dealt or changes."""

    def cut(self, rounds: Sequence[Sequence[tuple[int, Card]]], dealer: int) -> None: ...

    def settle(self) -> None:
        """The player now waits for the others: show anything still pending (a live table)."""

    def hand_start(self, event: HandStarted) -> None: ...

    def move(self, action: Any) -> None: ...

    def hand_end(self, hand: Any, result: Any, match: Any) -> None: ...

    def match_end(self, match: Any) -> None: ...

    def scores(self, match: Any) -> str: ...

    def ask(self, view: Any, legal: Sequence[Any], explain: Explain, rng: random.Random) -> Any: ...


class ShownOnDisplay:
    """What every game's screen hands to its display as it is (the rest is the game's):
    a game's screen inherits it and adds its intro, its hands, its moves and its prompt."""

    __slots__ = ()
    display: Any

    def follow_live(self) -> None:
        self.display.live = True

    def settle(self) -> None:
        self.display.settle()

    def cut(self, rounds: Sequence[Sequence[tuple[int, Card]]], dealer: int) -> None:
        self.display.cut(rounds, dealer)

    def hand_end(self, hand: Any, result: Any, match: Any) -> None:
        self.display.hand_end(hand, result, match)

    def match_end(self, match: Any) -> None:
        self.display.match_end(match)

    def scores(self, match: Any) -> str:
        return str(self.display.scores(match))


def make_screen(
    game: str,
    console: Console,
    names: Sequence[str],
    *,
    me: int | None,
    rules: Any,
    watch: bool,
    pause_between_hands: bool,
    match: Callable[[], Any] = lambda: None,
    verified: bool = False,
) -> Screen:
    """The screen of ``game`` on ``console``; ``score`` at a prompt shows the scores of ``match()``.

    ``verified``: the match is played over the protocol, so the hands shown at
    the end of a hand were checked by every node with every card revealed.
    """
    try:
        cls: Callable[..., Screen] = load(game_named(game).parts.screen)
    except UsageError:
        raise UsageError(f"this terminal cannot show the game {game!r}") from None
    screen = cls(
        console, names, me=me, rules=rules, watch=watch, pause_between_hands=pause_between_hands,
        verified=verified,
    )  # fmt: skip

    def score_text() -> str:
        current = match()
        return screen.scores(current) if current is not None else console.tr("row_total")

    console.score_text = score_text
    return screen


def probe(hand: Any, action: Any) -> IllegalAction | None:
    """The engine's verdict on ``action`` without playing it (tried on a copy of ``hand``)."""
    trial = hand.copy()
    try:
        trial.apply(action)
    except IllegalAction as e:
        return e
    return None
