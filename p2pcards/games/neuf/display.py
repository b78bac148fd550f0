"""Printing a match of Le Neuf as it happens: every move for a spectator, the highlights for a player.

The counterpart of :mod:`p2pcards.games.nines.display` for Nines, and an observer of the
shared match loop (:class:`~p2pcards.games.base.Observer`) or, over the
network, of a seat's table (:class:`p2pcards.ui.netgame.TableWatcher`). A
spectator (``--watch``) sees every hand as dealt, each exchange decision, each
trick as it completes, and the hands after the exchanges. A player sees the
table at each of its turns (:mod:`p2pcards.games.neuf.prompt`); this module prints
what happens between those turns: the deal, each exchange decision as it is
taken (``Bob looked at the dummy``, ``Bob took the dummy``), the end of each
hand with every hand as played, the scores and the winners. At a networked
table (``live``) a player also sees their hand when it is dealt and after they
take the dummy, the card they played as soon as it is played (the trick so far), and
each trick as it is won. It never prints a
card that the player at this terminal has not seen: another seat's look and
the hands that moved through the dummy stay hidden until the hand is over.

Everything it prints about a move comes from the move itself and what this
display has seen before, never from the hand's current state: over the network
a player's display may be shown the moves of a new hand late (after the
player has read the scores), when the hand has moved on.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.cards import Card
from p2pcards.games.neuf.render import (
    NeufTable,
    cards_line,
    describe_trick,
    describe_tricks,
    exchange_intro,
    hand_text,
    neuf_heading,
    render_neuf_cut,
    render_neuf_scores,
    rotation_words,
)
from p2pcards.games.neuf.rules import (
    Action,
    Decline,
    Exchange,
    HandResult,
    HandState,
    Look,
    Match,
    NeufRules,
    PlayCard,
    trick_winner,
)
from p2pcards.ui.prompt import SPECTATOR_DELAY, Console, pace
from p2pcards.ui.render import bots_words, describe_winners, pad, short_name, visible_len


class NeufDisplay:
    """Shows a match of Le Neuf on a console; ``watch`` prints every move as it is made.

    ``verified``: the hands shown at the end of each hand were checked by every
    node with every card revealed (a networked match), and the display says so.
    ``live``: a player's view of a networked table, where tricks print as they
    are won and the table at the player's turn shows only those not printed yet.
    """

    __slots__ = (
        "_current",
        "_holdings",
        "_looked",
        "_took",
        "_trick",
        "_trump",
        "console",
        "delay",
        "live",
        "pause_between_hands",
        "rules",
        "table",
        "verified",
        "watch",
    )

    def __init__(
        self,
        console: Console,
        table: NeufTable,
        rules: NeufRules,
        *,
        watch: bool,
        pause_between_hands: bool = True,
        verified: bool = False,
    ) -> None:
        self.console = console
        self.table = table
        self.rules = rules
        self.watch = watch
        self.pause_between_hands = pause_between_hands
        self.verified = verified
        self.delay = SPECTATOR_DELAY.get() if watch else 0.0
        """Seconds a spectator waits after each move (``--delay``), offline."""
        self.live = False
        self._trump: str | None = None
        self._holdings: list[list[Card | None]] = []
        """The three hands then the dummy, as far as this display knows them (None: unseen)."""
        self._looked: set[int] = set()
        self._took: set[int] = set()
        self._current: list[tuple[int, Card]] = []
        self._trick = 0

    @property
    def _me(self) -> int | None:
        return self.table.me

    def intro(self, bot: str | None) -> None:
        """Who plays (against ``bot`` bots; nothing when None), the goal and the rules in force."""
        c, tr, names = self.console, self.console.tr, self.table.names
        if bot is not None:
            bots = bots_words(bot, tr, len(names) - (0 if self._me is None else 1))
            if self._me is None:
                c.say(tr("neuf_welcome_watch", names=tr.join(list(names)), bots=bots))
            else:
                others = [n for s, n in enumerate(names) if s != self._me]
                c.say(tr("neuf_welcome", you=names[self._me], others=tr.join(others), bots=bots))
        c.say(tr("neuf_goal", start=self.rules.start))
        c.say(rotation_words(self.rules, tr, c.style))
        c.say(tr("neuf_blind" if self.rules.exchange == "blind" else "neuf_open"))
        if self._me is not None and not self.watch:
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
        """The deal: read from the cards as dealt (the hand may have moved on since)."""
        c, t = self.console, self.table
        t.new_hand(dealer=hand.dealer, hand_number=hand.number, trump=hand.trump)
        self._trump = hand.trump
        self._holdings = [list(cards) for cards in hand.dealt] + [list(hand.dummy_dealt)]
        self._looked, self._took = set(), set()
        self._current, self._trick = [], 0
        c.say("")
        c.say(neuf_heading(t.names, hand.dealer, hand.number, hand.trump, self._me, c.tr, c.style))
        if self.watch:
            self._show_hands()
        c.say(exchange_intro(hand.dealer, names=t.names, me=self._me, tr=c.tr))
        self._say_hand()

    def move(self, action: Action) -> None:
        """Each exchange decision as it is taken; in watch mode also each trick when complete,
        and then a pause after every move (``--delay``), so that a spectator can follow."""
        self._move(action)
        if self.watch:
            pace(self.delay)

    def _move(self, action: Action) -> None:
        c, t = self.console, self.table
        if isinstance(action, Look | Exchange | Decline):
            c.say("   " + self._exchange_line(action))
            dummy = len(self._holdings) - 1
            if isinstance(action, Look):
                self._looked.add(action.seat)
                if action.cards is not None:  # this seat's own look
                    self._holdings[dummy] = list(action.cards)
                return
            t.shown_exchanges += 1  # said here: the table at the player's turn need not say it again
            if isinstance(action, Exchange):
                self._took.add(action.seat)
                self._holdings[action.seat], self._holdings[dummy] = (
                    self._holdings[dummy],
                    self._holdings[action.seat],
                )
                if action.cards is not None:
                    self._holdings[action.seat] = list(action.cards)
                if action.seat == self._me:
                    self._say_hand()
            # A spectator sees the hands again if they moved, as far as it knows them: all of
            # them offline, its own over the network when its seat took the dummy.
            done = t.shown_exchanges == len(t.names)
            if self.watch and done and self._took and (self._all_known() or self._me in self._took):
                c.say(c.tr("neuf_after_exchanges"))
                self._show_hands()
        elif isinstance(action, PlayCard):
            self._current.append((action.seat, action.card))
            if len(self._current) < len(t.names):
                if self.live and not self.watch and action.seat == self._me:  # the card played, at once
                    n, plays = self._trick + 1, self._current
                    line = describe_trick(n, plays, None, names=t.names, me=self._me, tr=c.tr, style=c.style)
                    c.say(f"   {line}")  # (whatever was typed for it: "re di cuori", "2")
                return
            plays, self._current = self._current, []
            self._trick += 1
            if self.live and not self.watch:
                t.shown_tricks = max(t.shown_tricks, self._trick)
            if self.watch or self.live:
                winner = trick_winner(plays, self._trump)
                line = describe_trick(
                    self._trick, plays, winner, names=t.names, me=self._me, tr=c.tr, style=c.style
                )
                c.say(f"   {line}")

    def hand_end(self, hand: HandState, result: HandResult, match: Match) -> None:
        """The tricks the player has not seen yet, then every hand as played, then the scores."""
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
        c.say("   " + c.tr("neuf_hands_verified" if self.verified else "neuf_hands_played"))
        took = {e.seat for e in hand.exchanges if e.took}
        width = max(visible_len(short_name(n)) for n in t.names)
        for s, name in enumerate(t.names):
            played = [card for trick in hand.tricks for seat, card in trick.plays if seat == s]
            line = f"   {pad(short_name(name), width)}  {hand_text(played, hand.trump, c.style)}"
            if s in took:
                line += f"  ({c.tr('neuf_took_mark_you' if s == self._me else 'neuf_took_mark')})"
            c.say(line)
        dummy = [x for x in hand.dummy if x is not None]
        c.say("   " + c.tr("neuf_dummy_held", cards=hand_text(dummy, hand.trump, c.style)))
        dealt = [x for x in hand.dummy_dealt if x is not None]
        if sorted(dealt) != sorted(dummy):
            c.say("   " + c.tr("neuf_dummy_dealt", cards=hand_text(dealt, hand.trump, c.style)))
        c.say("")
        title = c.tr("final_scores") if match.over else c.tr("scores_after", n=result.number)
        c.say(self.scores(match, title))
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

    def _exchange_line(self, action: Look | Exchange | Decline) -> str:
        """``Bob looked at the dummy``, ``Bob took the dummy``, ``you left the dummy without looking``."""
        seat = action.seat
        if isinstance(action, Look):
            key = "neuf_log_look"
        elif self.rules.exchange == "blind" or seat in self._looked:
            key = "neuf_log_take_blind" if isinstance(action, Exchange) else "neuf_log_leave_blind"
        else:
            key = "neuf_log_take" if isinstance(action, Exchange) else "neuf_log_leave"
        tr = self.console.tr
        return tr(key + "_you") if seat == self._me else tr(key, who=self.table.names[seat])

    def settle(self) -> None:
        """The player now waits for the others: nothing is pending here (every move prints at once)."""

    def _say_hand(self) -> None:
        """A live player's own hand, as this display knows it (dealt, or taken from the dummy)."""
        me = self._me
        if not self.live or self.watch or me is None or me >= len(self._holdings) - 1:
            return
        cards = self._holdings[me]
        if None not in cards:
            c = self.console
            c.say(cards_line(c.tr("your_hand"), cards, self._trump, c.style))  # type: ignore[arg-type]

    def _all_known(self) -> bool:
        return all(None not in cards for cards in self._holdings)

    def _show_hands(self) -> None:
        """Every hand as this display knows it, the dummy last: the cards, or how many are unseen."""
        c, t = self.console, self.table
        labels = [short_name(n) for n in t.names] + [c.tr("neuf_the_dummy")]
        width = max(visible_len(x) for x in labels)
        for label, cards in zip(labels, self._holdings, strict=True):
            if None in cards:
                c.say(f"   {c.style.bold(pad(label, width))}  {c.tr.cards(len(cards))}")
            else:
                c.say(cards_line(pad(label, width), cards, self._trump, c.style))  # type: ignore[arg-type]
