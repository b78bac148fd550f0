"""Reading a human's decisions in Le Neuf: the dummy questions and the card to play.

The human seat has the bots' interface, ``choose(view, legal, rng)``, and only
ever returns one of the legal actions it was given. As in Nines
(:mod:`p2pcards.ui.prompt`), a card may be typed by its number in the list or
in any card notation (``QS``, ``10h``, ``q♠``, ``TH``); a typo gets a hint, and
a card the rules forbid is refused with the engine's own verdict, in the
player's language, naming the rule (``explain``). ``help`` (the rules of Le
Neuf for the options in force), ``score`` and ``quit`` work at every prompt;
the end of the input is a quit.

During the exchange the player is asked ``Look at the dummy? (y/n)`` and,
after looking (the dummy's cards are shown to this player only), ``Take the
dummy? (y/n)``; without a look, or with blind exchanges, ``Take the dummy
without looking? (y/n)``.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from p2pcards.cards import SUIT_OF, Card
from p2pcards.errors import IllegalAction
from p2pcards.games.neuf.render import NeufTable, cards_line, neuf_sort, render_neuf_table, suit_words
from p2pcards.games.neuf.rules import Action, Decline, Exchange, Look, NeufView, Phase, PlayCard
from p2pcards.ui.i18n import COMMAND_WORDS, Translator, native_card, take_card
from p2pcards.ui.prompt import (
    Attempt,
    Console,
    Problem,
    c_settled,
    card_question,
    move_number,
    rank_alone,
    typed,
)
from p2pcards.ui.render import Style, render_options

# ---------------------------------------------------------------------------
# Parsing


def parse_card_answer(
    text: str, cards: Sequence[Card], *, seat: int, tr: Translator
) -> PlayCard | Attempt[PlayCard] | Problem:
    """One line at the card prompt: a number from the list of ``cards`` (the legal
    cards, in the order shown) or a card in any notation.

    A legal card is the :class:`PlayCard` to play; any other card is an
    :class:`Attempt` for the engine to refuse; anything else a :class:`Problem`
    with a hint, as is ``7c`` in French or Italian: ``c`` is cœur, cuori there, and clubs
    in English.
    """
    n = len(cards)
    words = text.replace(",", " ").split()
    if not words:  # Enter alone: what to type, not "'' is not a card"
        if n == 1:
            return Problem(message=tr("err_empty_one", example=cards[0].text()))
        return Problem(message=tr("err_empty", n=n))
    number = move_number(text.strip())
    if number is not None:
        if not 1 <= number <= n:
            shown = typed(text)
            return Problem(
                message=tr("err_number", text=shown, n=n) if n > 1 else tr("err_number_one", text=shown)
            )
        return PlayCard(seat=seat, card=cards[number - 1])
    if COMMAND_WORDS.get(text.lower()) in ("yes", "no"):
        return Problem(message=tr("err_not_now", what=typed(text), n=n))
    got = take_card(words)  # "QS", "q ♠", "dame de pique", "asso di picche"
    if got is None:
        return Problem(message=_hint(tr, text, cards))
    after = words[got.used :]
    question = card_question(tr, got)  # "6c" in French or Italian, "as" alone in French
    if question is not None:
        settled = c_settled(tr, got, after)  # "6c cœur"
        if settled is None:
            return Problem(message=question)
        got, after = settled, []
    if after:  # "Q pique cœur": refused, never ignored
        line = " ".join(text.split())
        return Problem(
            message=tr("err_after_card", text=typed(line), card=got.card.text(), rest=typed(" ".join(after)))
        )
    if got.card in cards:
        return PlayCard(seat=seat, card=got.card)
    return Attempt(action=PlayCard(seat=seat, card=got.card))


def _hint(tr: Translator, text: str, cards: Sequence[Card]) -> str:
    meant = native_card(text)
    if meant is not None:
        return tr("err_notation", text=typed(text), example=meant)
    alone = rank_alone(tr, text, cards)
    if alone is not None:  # "asso", "ace", "dame": which one?
        return alone
    example = cards[0].text()
    if len(cards) == 1:
        return tr("err_not_card_one", text=typed(text), example=example)
    return tr("err_not_card", text=typed(text), n=len(cards), example=example)


def explain_refusal(
    error: IllegalAction, action: PlayCard, view: NeufView, tr: Translator, style: Style
) -> str:
    """The engine's verdict in the player's language, naming the rule."""
    led = view.led_suit
    if error.rule == "follow-suit" and led is not None:
        why = tr("neuf_rule_follow-suit", one=tr(f"neuf_suit1_{led}"), many=tr.suit_name(led))
    elif error.rule == "card-held":
        why = tr("rule_card-held", card=style.card(action.card))
    else:  # (any other refusal: the engine's words, in the player's language)
        from p2pcards.ui.problems import illegal_text

        why = illegal_text(tr, error.detail)
    return tr("err_rule", why=why, rule=tr.rule_name(error.rule))


# ---------------------------------------------------------------------------
# The human seat


@dataclass(slots=True)
class NeufHuman:
    """A Le Neuf seat played from the keyboard; same interface as a bot strategy.

    ``explain(action)`` returns the engine's :class:`IllegalAction` for an
    action, or None if it is legal; it is how a refusal names its rule.
    """

    console: Console
    table: NeufTable
    explain: Callable[[Action], IllegalAction | None]
    name: str = "human"

    def choose(self, view: NeufView, legal: Sequence[Action], rng: random.Random) -> Action:
        if view.phase is Phase.EXCHANGE:
            return self._exchange(view, legal)
        return self._play(view, legal)

    # -- the exchange -------------------------------------------------------

    def _exchange(self, view: NeufView, legal: Sequence[Action]) -> Action:
        con, tr = self.console, self.console.tr
        look = next((a for a in legal if isinstance(a, Look)), None)
        if look is None and view.rules.exchange == "open":
            # This seat has just looked: show it the dummy, then ask.
            dummy = view.dummy_cards or ()
            con.say(cards_line(tr("neuf_the_dummy"), dummy, view.trump, con.style))
            con.say(cards_line(tr("your_hand"), view.my_cards, view.trump, con.style))
            take = self._yes_no(tr("neuf_prompt_take"))
        else:
            self._show_table(view)
            if look is not None and self._yes_no(tr("neuf_prompt_look")):
                return look
            take = self._yes_no(tr("neuf_prompt_take_blind"))
        wanted = Exchange if take else Decline
        return next(a for a in legal if isinstance(a, wanted))

    def _yes_no(self, prompt: str) -> bool:
        con, tr = self.console, self.console.tr
        while True:
            text = con.ask(prompt)
            word = COMMAND_WORDS.get(text.lower())
            if word == "yes":
                return True
            if word == "no":
                return False
            if text.isdigit() or _is_card(text):
                con.say(tr("neuf_err_not_yet", text=typed(text)))
            else:
                con.say(tr("err_yes_no"))

    # -- a card -------------------------------------------------------------

    def _play(self, view: NeufView, legal: Sequence[Action]) -> Action:
        con, tr, style = self.console, self.console.tr, self.console.style
        by_card = {a.card: a for a in legal if isinstance(a, PlayCard)}
        cards = neuf_sort(by_card, view.trump)
        self._show_table(view)
        led = view.led_suit
        if led is None:
            heading = tr("neuf_your_lead")
        elif any(SUIT_OF[c] == led for c in view.my_cards):
            heading = tr("neuf_follow", suit=suit_words(led, tr, style))
        else:
            heading = tr("neuf_void", suit=suit_words(led, tr, style))
        con.say("   " + heading)
        con.say(render_options([style.card(c) for c in cards]))
        while True:
            parsed = parse_card_answer(con.ask(tr("neuf_prompt")), cards, seat=view.seat, tr=tr)
            if isinstance(parsed, PlayCard):
                return by_card[parsed.card]
            if isinstance(parsed, Problem):
                con.say(parsed.message)
                continue
            error = self.explain(parsed.action)
            if error is None:  # legal after all (cannot happen: the list is every legal card)
                return parsed.action
            con.say(explain_refusal(error, parsed.action, view, tr, style))

    def _show_table(self, view: NeufView) -> None:
        t, con = self.table, self.console
        con.say("")
        con.say(
            render_neuf_table(
                view,
                names=t.names,
                shown_exchanges=t.shown_exchanges,
                shown_tricks=t.shown_tricks,
                tr=con.tr,
                style=con.style,
            )
        )
        t.shown_exchanges = len(view.exchanges)
        t.shown_tricks = len(view.tricks)


def _is_card(text: str) -> bool:
    words = text.replace(",", " ").split()
    got = take_card(words)
    return got is not None and got.used == len(words)
