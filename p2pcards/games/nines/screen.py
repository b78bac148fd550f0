"""The terminal of Nines: the table context (the moves a player has not seen yet), the
display and the menu of moves, behind the generic :class:`~p2pcards.ui.screen.Screen`."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from p2pcards.games.nines.display import ConsoleDisplay
from p2pcards.games.nines.prompt import HumanPlayer
from p2pcards.games.nines.render import TableContext, nines_help
from p2pcards.protocol.events import HandStarted
from p2pcards.ui.prompt import Console
from p2pcards.ui.screen import Explain, ShownOnDisplay


class NinesScreen(ShownOnDisplay):
    """Nines: the table context (the moves a player has not seen), the display, the menu of moves."""

    __slots__ = ("console", "context", "display", "names", "rules")

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
        """(``verified`` is for every screen alike; Nines shows the same end of hand either way.)"""
        self.console = console
        self.names = tuple(names)
        self.rules = rules
        self.context = TableContext(names, me=me, action_cards=rules.action_cards)
        self.display = ConsoleDisplay(
            console, self.context, watch=watch, pause_between_hands=pause_between_hands
        )
        console.help_text = lambda: nines_help(rules, console.tr)  # the rules in force: a 9 may cost 25

    def intro(self, bot: str | None) -> None:
        self.display.intro(self.rules, bot)

    def hand_start(self, event: HandStarted) -> None:
        self.context.new_hand(dealer=event.hand.dealer, hand_number=event.number, playoff=event.playoff)
        self.display.hand_start(event.hand)

    def move(self, action: Any) -> None:
        self.context.record(action)
        self.display.move(action)

    def ask(self, view: Any, legal: Sequence[Any], explain: Explain, rng: random.Random) -> Any:
        return HumanPlayer(console=self.console, table=self.context, explain=explain).choose(view, legal, rng)
