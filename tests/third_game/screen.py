"""High Card's terminal: the plays as lines, and a numbered choice between two cards."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from p2pcards.cards import Card
from p2pcards.protocol.events import HandStarted
from p2pcards.ui.prompt import Console
from p2pcards.ui.screen import Explain
from third_game.rules import Action, HandResult, HandState, Match, SeatView


class HighCardScreen:
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
        self.me = me

    def intro(self, bot: str | None) -> None:
        self.console.say(f"High Card: {', '.join(self.names)}; the highest card wins each hand.")

    def follow_live(self) -> None:
        pass

    def settle(self) -> None:
        pass

    def cut(self, rounds: Sequence[Sequence[tuple[int, Card]]], dealer: int) -> None:
        self.console.say(f"{self.names[dealer]} deals first.")

    def hand_start(self, event: HandStarted) -> None:
        self.console.say(f"Hand {event.number}.")

    def move(self, action: Action) -> None:
        self.console.say(f"{self.names[action.seat]} plays {action.card}.")

    def hand_end(self, hand: HandState, result: HandResult, match: Match) -> None:
        self.console.say(f"{self.names[result.winner]} wins hand {result.number}.")

    def match_end(self, match: Match) -> None:
        winners = match.winners or ()
        self.console.say("Winner: " + ", ".join(self.names[s] for s in winners))

    def scores(self, match: Match) -> str:
        return ", ".join(f"{n} {t}" for n, t in zip(self.names, match.totals, strict=True))

    def ask(self, view: SeatView, legal: Sequence[Action], explain: Explain, rng: random.Random) -> Action:
        while True:
            menu = " ".join(f"{i}) {a.card}" for i, a in enumerate(legal, start=1))
            answer = self.console.ask(menu + " > ")
            if answer.isdigit() and 1 <= int(answer) <= len(legal):
                return legal[int(answer) - 1]
            self.console.say(f"Type a number from 1 to {len(legal)}.")
