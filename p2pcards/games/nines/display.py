"""Printing the game as it happens: every move for a spectator, or the highlights for a player.

A spectator (``--watch``) sees each move as a line. A player sees the table
at each of their turns (with the moves since their last turn, see
:mod:`p2pcards.ui.prompt`); this module prints what happens between those
turns: the deal, the end of each hand, the scores and the winners. At a
networked table (``live``), where the others may take a while, a player also
sees their hand when it is dealt, every move as it is made, and their hand
again after their own draws (once they wait again), so that waiting is watching.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

from p2pcards.cards import Card, hand_sort_key, penalty
from p2pcards.games.nines.render import TableContext, describe_moves, render_scores, variant_lines
from p2pcards.games.nines.rules import (
    Action,
    Draw,
    HandResult,
    HandState,
    Match,
    NinesRules,
    Phase,
    Play,
    PlayNines,
)
from p2pcards.ui.prompt import SPECTATOR_DELAY, Console, pace
from p2pcards.ui.render import (
    bots_words,
    describe_end,
    describe_winners,
    hand_heading,
    object_names,
    pad,
    render_cut,
    short_name,
)


class ConsoleDisplay:
    """Shows a match on a :class:`Console`; ``watch`` prints every move as it is made.

    ``live``: a player's view of a networked table, where the moves print as they
    come and the table at the player's turn shows only those not printed yet.
    """

    __slots__ = (
        "_deal",
        "_drew",
        "_hand",
        "_pending",
        "console",
        "delay",
        "live",
        "pause_between_hands",
        "table",
        "watch",
    )

    def __init__(
        self, console: Console, table: TableContext, *, watch: bool, pause_between_hands: bool = True
    ) -> None:
        self.console = console
        self.table = table
        self.watch = watch
        self.delay = SPECTATOR_DELAY.get() if watch else 0.0
        """Seconds a spectator waits after each move (``--delay``), offline."""
        self.pause_between_hands = pause_between_hands
        self._pending: list[Action] = []
        self.live = False
        self._hand: list[Card] = []
        """A live player's own cards, as far as the moves shown so far tell."""
        self._drew = False
        """A draw of the live player's changed their hand since it was last shown."""
        self._deal: HandState | None = None
        """The hand being played (the table's own, which moves on): whose turn it is."""

    @property
    def _me(self) -> int | None:
        return self.table.me

    def intro(self, rules: NinesRules, bot: str | None) -> None:
        """Who plays (against ``bot`` bots; nothing when None), the goal, the variants."""
        tr, names = self.console.tr, self.table.names
        if bot is not None:
            bots = bots_words(bot, tr, len(names) - (0 if self._me is None else 1))
            if self._me is None:
                self.console.say(tr("welcome_watch", names=tr.join(list(names)), bots=bots))
            else:
                others = [n for s, n in enumerate(names) if s != self._me]
                self.console.say(tr("welcome", you=names[self._me], others=tr.join(others), bots=bots))
        if rules.hands is None:
            goal = tr("goal_target", target=rules.target)
        else:
            goal = tr("goal_one_hand") if rules.hands == 1 else tr("goal_hands", hands=rules.hands)
        self.console.say(goal)
        variants = variant_lines(rules, tr)
        if variants:  # each with what it does: the names alone tell a newcomer nothing
            self.console.say(tr("variants_title"))
            for line in variants:
                self.console.say(f"  {line}")
        if self._me is not None and not self.watch:
            self.console.say(tr("hint"))

    def cut(self, rounds: Sequence[Sequence[tuple[int, Card]]], dealer: int) -> None:
        c = self.console
        c.say("")
        c.say(render_cut(rounds, dealer=dealer, names=self.table.names, me=self._me, tr=c.tr, style=c.style))

    def hand_start(self, hand: HandState) -> None:
        c, t = self.console, self.table
        self._deal = hand
        c.say("")
        c.say(
            hand_heading(
                t.names,
                hand.dealer,
                t.hand_number,
                hand.seats,
                t.playoff,
                self._me,
                hand.up_card,
                c.tr,
                c.style,
            )
        )
        if self.watch:
            for s in hand.seats:
                cards = sorted((x for x in hand.hands[s] if x is not None), key=hand_sort_key)
                shown = (
                    c.style.cards(cards)
                    if len(cards) == len(hand.hands[s])
                    else c.tr.cards(len(hand.hands[s]))
                )
                c.say(f"   {pad(short_name(t.names[s]), 10)}  {shown}")
        elif self.live and self._me is not None and self._me in hand.seats:
            self._hand = [x for x in hand.dealt[self._me] if x is not None]
            self._drew = False
            self._say_hand()

    def move(self, action: Action) -> None:
        """In watch mode print each move; a draw waits for what its player does next.

        A live player sees the moves not yet shown (the table's log) as they come;
        a draw waits, as in watch mode, until the next move or :meth:`settle`.
        """
        if self.watch:
            self._pending.append(action)
            if not isinstance(action, Draw):
                self._flush()
            pace(self.delay)
            return
        if not self.live:
            return
        self._follow(action)
        if not isinstance(action, Draw):
            self._show_unseen()

    def settle(self) -> None:
        """The player now waits for the others: show what is pending, and their hand if
        a draw of theirs changed it.

        A draw that its player has yet to follow up (keep the card, play it, draw
        again) stays pending: the move that ends the turn tells it in the same
        words as offline and in watch mode (``You drew K♦ and kept it``)."""
        if not self.live or self.watch:
            return
        if self._show_unseen(hold_draws=True):
            return
        if self._drew:
            self._drew = False
            self._say_hand()

    def _show_unseen(self, *, hold_draws: bool = False) -> int:
        """Say the moves not shown yet; with ``hold_draws``, all but a trailing draw
        whose turn goes on (its player decides what to do with the card). Returns how
        many moves are still pending."""
        t = self.table
        unseen = t.unseen()
        shown = len(unseen)
        if hold_draws:
            while shown and self._drawing(unseen[shown - 1]):
                shown -= 1
        self._say_moves(unseen[:shown], turn_over=hold_draws)
        t.mark_seen(shown)
        return len(unseen) - shown

    def _drawing(self, action: Action) -> bool:
        """``action`` is a draw whose turn goes on: its player is still deciding what to do
        with the card, or has more of an Ace's cards to draw."""
        hand = self._deal
        if not isinstance(action, Draw) or hand is None or hand.turn != action.seat:
            return False
        if action.forced:  # an Ace's victim draws its cards one step at a time: told at once
            return hand.phase in (Phase.FORCED_DRAW, Phase.RECYCLE)
        return hand.phase in (Phase.DRAWN, Phase.RECYCLE)

    def _follow(self, action: Action) -> None:
        """Keep a live player's own cards up to date with their move."""
        if getattr(action, "seat", None) != self._me:
            return
        if isinstance(action, Draw) and action.card is not None:
            self._hand.append(action.card)
            self._drew = True
        elif isinstance(action, Play | PlayNines):
            for card in action.cards if isinstance(action, PlayNines) else (action.card,):
                with contextlib.suppress(ValueError):
                    self._hand.remove(card)
            self._drew = False  # the player saw the table, or the card drawn, when playing

    def _say_hand(self) -> None:
        c = self.console
        mine = sorted(self._hand, key=hand_sort_key)
        c.say(f"   {c.style.bold(c.tr('your_hand'))}  {c.style.cards(mine)}")

    def _say_moves(self, actions: Sequence[Action], *, turn_over: bool) -> None:
        """One line per move, as every mode of the screen tells them."""
        c, t = self.console, self.table
        for line in describe_moves(
            actions,
            names=t.names,
            me=self._me,
            tr=c.tr,
            style=c.style,
            action_cards=t.action_cards,
            turn_over=turn_over,
        ):
            c.say(f"   {line}")

    def _flush(self, *, turn_over: bool = False) -> None:
        self._say_moves(self._pending, turn_over=turn_over)
        self._pending = []

    def hand_end(self, hand: HandState, result: HandResult, match: Match) -> None:
        c, t = self.console, self.table
        if self.watch:
            self._flush(turn_over=True)
        else:
            self._say_moves(t.unseen(), turn_over=True)  # the hand is over: a draw at its end was kept
            t.mark_seen()
        c.say(c.style.bold(describe_end(result.end, result.out, names=t.names, me=self._me, tr=c.tr)))
        nine = hand.rules.nine_penalty
        for s in hand.seats:
            left = sorted((x for x in hand.hands[s] if x is not None), key=hand_sort_key)
            if left:
                pen = sum(penalty(x, nine) for x in left)
                c.say(f"   {pad(short_name(t.names[s]), 10)}  {c.style.cards(left)}  (+{pen})")
        c.say("")
        title = c.tr("final_scores") if match.over else c.tr("scores_after", n=result.number)
        c.say(self.scores(match, title))
        if match.playoff_seats is not None and not match.over:
            tied = object_names(match.playoff_seats, t.names, self._me, c.tr)
            c.say(c.tr("playoff_needed", names=c.tr.join(tied)))
        if match.over:
            return
        if not self.watch and self.pause_between_hands:
            c.ask(c.tr("prompt_continue"))

    def scores(self, match: Match, title: str | None = None) -> str:
        c = self.console
        played = match.played_before + len(match.results)
        return render_scores(
            match.results,
            names=self.table.names,
            totals=match.totals,
            tr=c.tr,
            style=c.style,
            title=title or (c.tr("scores_after", n=played) if played else c.tr("scores")),
            before=match.played_before,
        )

    def match_end(self, match: Match) -> None:
        c = self.console
        if match.winners:
            text = describe_winners(match.winners, match.totals, names=self.table.names, me=self._me, tr=c.tr)
            c.say(c.style.bold(text))
