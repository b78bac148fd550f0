"""The terminal of Le Neuf: what the player has been shown of the hand, the display, the
dummy and the card prompts, behind the generic :class:`~p2pcards.ui.screen.Screen`."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from p2pcards.games.neuf.display import NeufDisplay
from p2pcards.games.neuf.prompt import NeufHuman
from p2pcards.games.neuf.render import NeufTable, neuf_help
from p2pcards.protocol.events import HandStarted
from p2pcards.ui.prompt import Console
from p2pcards.ui.screen import Explain, ShownOnDisplay


class NeufScreen(ShownOnDisplay):
    """Le Neuf: what the player has been shown of the hand, the display, the dummy and card prompts."""

    __slots__ = ("console", "display", "names", "table")

    def __init__(
        self,
        console: Console,
        names: Sequence[str],
        *,
        me: int | None,
        rules: Any,
        watch: bool,
        pause_between_hands: bool,
        verified: bool = False,
    ) -> None:
        self.console = console
        self.names = tuple(names)
        self.table = NeufTable(names, me=me)
        self.display = NeufDisplay(
            console,
            self.table,
            rules,
            watch=watch,
            pause_between_hands=pause_between_hands,
            verified=verified,
        )
        console.help_text = lambda: neuf_help(rules, console.tr, console.style)

    def intro(self, bot: str | None) -> None:
        self.display.intro(bot)

    def hand_start(self, event: HandStarted) -> None:
        self.display.hand_start(event.hand)

    def move(self, action: Any) -> None:
        self.display.move(action)

    def ask(self, view: Any, legal: Sequence[Any], explain: Explain, rng: random.Random) -> Any:
        return NeufHuman(console=self.console, table=self.table, explain=explain).choose(view, legal, rng)
