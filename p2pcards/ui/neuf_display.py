"""Printing a match of Le Neuf as it happens: every move for a spectator, the highlights for a player.

The counterpart of :mod:`p2pcards.ui.display` for Nines, and an observer of the
shared match loop (:class:`~p2pcards.games.base.Observer`). A spectator
(``--watch``) sees every hand as dealt, each exchange turn, each trick as it
completes and the hands after the exchanges. A player sees the table at each
of its turns (:mod:`p2pcards.ui.neuf_prompt`); this module prints what happens
between those turns: the deal, the end of each hand, the scores and the
winners. It never prints a card that the player at this terminal has not seen:
another seat's look and the hands that moved through the dummy stay hidden
until the hand is over.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.cards import Card
from p2pcards.games.neuf import Action, Decline, Exchange, HandResult, HandState, Match, NeufRules, PlayCard
from p2pcards.ui.neuf_prompt import NeufConsole
from p2pcards.ui.neuf_render import (
    NeufTable,
    cards_line,
    describe_exchange,
    describe_tricks,
    exchange_intro,
    hand_text,
    neuf_heading,
    render_neuf_cut,
    render_neuf_scores,
    rotation_words,
)
from p2pcards.ui.render import describe_winners, pad, short_name


class NeufDisplay:
    """Shows a match of Le Neuf on a console; ``watch`` prints every move as it is made."""

    __slots__ = ("_hand", "console", "pause_between_hands", "rules", "table", "watch")

    def __init__(
        self,
        console: NeufConsole,
        table: NeufTable,
        rules: NeufRules,
        *,
        watch: bool,
        pause_between_hands: bool = True,
    ) -> None:
        self.console = console
        self.table = table
        self.rules = rules
        self.watch = watch
        self.pause_between_hands = pause_between_hands
        self._hand: HandState | None = None

    @property
    def _me(self) -> int | None:
        return self.table.me

    def intro(self, bot: str) -> None:
        c, tr, names = self.console, self.console.tr, self.table.names
        bots = tr("bots", name=bot)
        if self._me is None:
            c.say(tr("neuf_welcome_watch", names=tr.join(list(names)), bots=bots))
        else:
            others = [n for s, n in enumerate(names) if s != self._me]
            c.say(tr("neuf_welcome", you=names[self._me], others=tr.join(others), bots=bots))
        c.say(tr("neuf_goal", start=self.rules.start))
        c.say(rotation_words(self.rules, tr, c.style))
        c.say(tr("neuf_blind" if self.rules.exchange == "blind" else "neuf_open"))
        if self._me is not None:
            c.say(tr("hint"))

    # -- the observer -------------------------------------------------------

    def cut(self, rounds: Sequence[Sequence[tuple[int, Card]]], dealer: int) -> None:
        c = self.console
        c.say("")
        c.say(
            render_neuf_cut(
                rounds, dealer=dealer, names=self.table.names, me=self._me, tr=c.tr, style=c.style
            )
        )

    def hand_start(self, hand: HandState) -> None:
        c, t = self.console, self.table
        self._hand = hand
        t.new_hand(dealer=hand.dealer, hand_number=hand.number, trump=hand.trump)
        c.say("")
        c.say(neuf_heading(t.names, hand.dealer, hand.number, hand.trump, self._me, c.tr, c.style))
        if self.watch:
            self._show_hands(hand)
        c.say(exchange_intro(hand.dealer, names=t.names, me=self._me, tr=c.tr))

    def move(self, action: Action) -> None:
        """In watch mode print each exchange turn when decided, and each trick when complete."""
        hand = self._hand
        if not self.watch or hand is None:
            return
        c, t = self.console, self.table
        if isinstance(action, Exchange | Decline):
            blind = hand.rules.exchange == "blind"
            c.say("   " + describe_exchange(hand.exchanges[-1], blind=blind, names=t.names, me=None, tr=c.tr))
            if len(hand.exchanges) == len(t.names) and any(e.took for e in hand.exchanges):
                c.say(c.tr("neuf_after_exchanges"))
                self._show_hands(hand)
        elif isinstance(action, PlayCard) and not hand.current:
            n = len(hand.tricks)
            for line in describe_tricks(hand.tricks[-1:], n, names=t.names, me=None, tr=c.tr, style=c.style):
                c.say(f"   {line}")

    def hand_end(self, hand: HandState, result: HandResult, match: Match) -> None:
        c, t = self.console, self.table
        if not self.watch:
            for line in describe_tricks(
                hand.tricks[t.shown_tricks :],
                t.shown_tricks + 1,
                names=t.names,
                me=self._me,
                tr=c.tr,
                style=c.style,
            ):
                c.say(f"   {line}")
            t.shown_tricks = len(hand.tricks)
        c.say(c.style.bold(c.tr("neuf_hand_over", n=result.number)))
        dummy = [x for x in hand.dummy if x is not None]
        c.say("   " + c.tr("neuf_dummy_held", cards=hand_text(dummy, hand.trump, c.style)))
        c.say("")
        title = c.tr("final_scores") if match.over else c.tr("scores_after", n=result.number)
        c.say(self.scores(match, title))
        self._hand = None
        if match.over:
            return
        if not self.watch and self.pause_between_hands:
            c.ask(c.tr("prompt_continue"))

    def match_end(self, match: Match) -> None:
        c = self.console
        if match.winners:
            text = describe_winners(match.winners, match.totals, names=self.table.names, me=self._me, tr=c.tr)
            c.say(c.style.bold(text))

    # -- helpers ------------------------------------------------------------

    def scores(self, match: Match, title: str | None = None) -> str:
        c = self.console
        return render_neuf_scores(
            match.results,
            start=match.rules.start,
            names=self.table.names,
            totals=match.totals,
            tr=c.tr,
            style=c.style,
            title=title or (c.tr("scores_after", n=len(match.results)) if match.results else c.tr("scores")),
        )

    def _show_hands(self, hand: HandState) -> None:
        """Every hand face up (spectators only), the dummy last."""
        c, t = self.console, self.table
        width = max(len(short_name(n)) for n in [*t.names, c.tr("neuf_the_dummy")])
        for s, name in enumerate(t.names):
            cards = [x for x in hand.hands[s] if x is not None]
            c.say(cards_line(pad(short_name(name), width), cards, hand.trump, c.style))
        cards = [x for x in hand.dummy if x is not None]
        c.say(cards_line(pad(c.tr("neuf_the_dummy"), width), cards, hand.trump, c.style))
