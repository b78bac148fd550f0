"""Reading a Nines player's moves: the menu, every accepted notation, a hint for each typo.

The human is one more source of moves with the same ``choose(view, legal, rng)``
method as a bot, so the game loop cannot tell them apart. It only ever returns
one of the legal actions it was given; when the player asks for something
illegal, the rule engine's own verdict (through ``explain``) says which rule
forbids it, and the player is asked again.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from p2pcards.cards import Card, hand_sort_key
from p2pcards.errors import CardParseError, IllegalAction
from p2pcards.games.nines.render import TableContext, describe_moves, nines_help, render_table
from p2pcards.games.nines.rules import (
    AcceptSkip,
    Action,
    Declare,
    Draw,
    Keep,
    Pass,
    Phase,
    Play,
    PlayNines,
    SeatView,
)
from p2pcards.ui.i18n import (
    C_IS_HEARTS,
    COMMAND_WORDS,
    LOCAL_SUIT_LETTERS,
    SUIT_WORDS,
    Translator,
    native_card,
    parse_suit_word,
    take_card,
)
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

OptionKind = Literal["play", "nine", "double", "draw", "pass", "keep", "accept-skip"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Option:
    """One numbered choice; a 9 is one choice whose suit is asked next."""

    kind: OptionKind
    actions: tuple[Action, ...]
    cards: tuple[Card, ...] = ()

    def with_suit(self, suit: str | None) -> Action | None:
        """The action for ``suit`` (None if this choice still needs a suit)."""
        if self.kind not in ("nine", "double"):
            return self.actions[0]
        if suit is None:
            return None
        return next(a for a in self.actions if getattr(a, "suit", None) == suit)

    @property
    def needs_suit(self) -> bool:
        return self.kind in ("nine", "double")


def build_menu(legal: Sequence[Action]) -> list[Option]:
    """Group the legal actions: one choice per card (two copies of a card are one choice)."""
    groups: dict[tuple[str, ...], list[Action]] = {}
    kinds: dict[tuple[str, ...], OptionKind] = {}
    cards: dict[tuple[str, ...], tuple[Card, ...]] = {}
    for a in legal:
        if isinstance(a, Play):
            key: tuple[str, ...] = ("play", a.card.text())
            if key in kinds and groups[key] and getattr(groups[key][0], "card", None) != a.card:
                continue  # the other copy of the same card (double deck)
            kinds[key] = "nine" if a.card.is_nine else "play"
            cards[key] = (a.card,)
        elif isinstance(a, PlayNines):
            key = ("double", *sorted(c.text() for c in a.cards))
            if key in kinds and set(groups[key][0].cards) != set(a.cards):  # type: ignore[union-attr]
                continue
            kinds[key], cards[key] = "double", tuple(a.cards)
        elif isinstance(a, Draw):
            key, kinds[key] = ("draw",), "draw"
        elif isinstance(a, Pass):
            key, kinds[key] = ("pass",), "pass"
        elif isinstance(a, Keep):
            key, kinds[key] = ("keep",), "keep"
        elif isinstance(a, AcceptSkip):
            key, kinds[key] = ("accept-skip",), "accept-skip"
        else:
            continue
        groups.setdefault(key, []).append(a)
    menu = [Option(kind=kinds[k], actions=tuple(v), cards=cards.get(k, ())) for k, v in groups.items()]
    # Single cards in the order of the hand display, then pairs of 9s, then draw / keep / pass.
    return sorted(menu, key=lambda o: (len(o.cards), *hand_sort_key(o.cards[0])) if o.cards else (3, 0, 0, 0))


def option_label(option: Option, tr: Translator, style: Style, *, drawn: bool = False) -> str:
    k = option.kind
    if k == "play":
        return tr("opt_play", card=style.card(option.cards[0])) if drawn else style.card(option.cards[0])
    if k == "nine":
        return tr("opt_nine", card=style.card(option.cards[0]))
    if k == "double":
        c1, c2 = (style.card(c) for c in option.cards)
        return tr("opt_double", c1=c1, c2=c2)
    return tr(
        {"draw": "opt_draw", "pass": "opt_pass", "keep": "opt_keep", "accept-skip": "opt_accept_skip"}[k]
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Chosen:
    """A legal choice; ``suit`` was given on the same line (``9s h``) or is None."""

    option: Option
    suit: str | None = None


Parsed = Chosen | Attempt[Action] | Problem


def parse_answer(
    text: str,
    options: Sequence[Option],
    *,
    seat: int,
    hand: Sequence[Card],
    tr: Translator,
    drawn: Card | None = None,
) -> Parsed:
    """Interpret one line: a number, a card (optionally with a suit), or draw/keep/pass."""
    words = text.replace(",", " ").split()
    line = " ".join(text.split())  # (what a hint quotes)
    n = len(options)
    if not words:
        if n == 1 and options[0].kind in ("draw", "pass", "keep", "accept-skip"):
            return Chosen(option=options[0])
        if n > 1:  # Enter alone, with moves to choose from: say what to type
            return Problem(message=tr("err_empty", n=n))
        if n == 1 and options[0].cards:  # (one card to play: Enter is no card, and no "''" either)
            return Problem(message=tr("err_empty_one", example=options[0].cards[0].text()))
        return Problem(message=_hint(tr, "''", options))
    first = words[0]
    rest = words[1:]
    number = move_number(first)
    if number is not None and not (2 <= number <= 10 and rest and take_card(words) is not None):
        # ("3 hearts", "10 di fiori": a rank and its suit, as "Q pique" is, not move 3 naming a
        # suit, which would spend a 9 the player never meant to play.)
        if rest and 2 <= number <= 10 and (number > n or not options[number - 1].needs_suit):
            return Problem(message=_hint(tr, line, options))  # "9 banana": a card was meant, not a move
        if not 1 <= number <= n:
            shown = typed(first)
            return Problem(
                message=tr("err_number", text=shown, n=n) if n > 1 else tr("err_number_one", text=shown)
            )
        return _with_suit(options[number - 1], rest, tr)
    cmd = COMMAND_WORDS.get(first.lower())
    if cmd in ("draw", "keep", "pass") and not rest:
        for o in options:
            if o.kind == cmd:
                return Chosen(option=o)
        made: Action = {"draw": Draw, "keep": Keep, "pass": Pass}[cmd](seat=seat)
        return Attempt(action=made)
    if cmd in ("yes", "no") and not rest:
        return Problem(message=tr("err_not_now", what=typed(first), n=n))
    # Cards: "7h", "as de cœur", "9s h", "9 de pique cœur" (a 9 and the suit it names), "9s 9h c"
    # (two 9s): see take_card.
    cards: list[Card] = []
    words = list(words)
    while words and len(cards) < 2 and all(c.is_nine for c in cards):  # (only 9s are played two at once)
        got = take_card(words)
        if got is None:
            break
        words = words[got.used :]
        question = card_question(tr, got)  # "7c" in French or Italian: 7♥ or 7♣? "as" alone in French
        if question is not None:
            settled = None if cards or got.card.is_nine else c_settled(tr, got, words)  # "Kc trèfle"
            if settled is None:
                return Problem(message=question)
            got, words = settled, []
        cards.append(got.card)
    if not cards:
        return Problem(message=_hint(tr, line, options))
    if words and not any(c.is_nine for c in cards):  # "J hearts spades": refused, never ignored
        if len(words) == 1 and (len(words[0]) == 1 or _suit(words[0]) is not None):  # a suit, or a letter
            return Problem(message=tr("err_no_suit_needed", card=cards[0].text()))
        return Problem(
            message=tr(
                "err_after_card",
                text=typed(line),
                card=cards[0].text(),
                rest=typed(" ".join(words)),
            )
        )
    if len(words) > 1:
        return Problem(message=tr("err_not_suit_move", text=typed(" ".join(words))))
    # The copy actually held, so that a refusal is about the rule, not about which copy.
    held: list[Card] = []
    for c in cards:
        h = _held(c, [x for x in hand if x not in held], drawn if drawn not in held else None)
        held.append(c if h is None else h)
    if len(cards) == 2:
        for o in options:
            if o.kind == "double" and sorted(c.text() for c in o.cards) == sorted(c.text() for c in cards):
                return _with_suit(o, words, tr)
        pair = (held[0], held[1])
        return Attempt(action=PlayNines(seat=seat, cards=pair, suit=_suit_or_default(words)))
    card = cards[0]
    for o in options:
        if o.kind in ("play", "nine") and o.cards[0].text() == card.text():
            return _with_suit(o, words, tr)
    target = held[0]
    return Attempt(
        action=Play(seat=seat, card=target, suit=_suit_or_default(words) if card.is_nine else None)
    )


def _held(card: Card, hand: Sequence[Card], drawn: Card | None) -> Card | None:
    """The copy of ``card`` the player holds (the drawn one first), if any."""
    if drawn is not None and drawn.text() == card.text():
        return drawn
    return next((c for c in hand if c.text() == card.text()), None)


def _suit(word: str) -> str | None:
    try:
        return parse_suit_word(word)
    except CardParseError:
        return None


def _suit_or_default(words: Sequence[str]) -> str:
    """A suit for an attempt the engine will refuse anyway (the suit is not the problem)."""
    return (_suit(words[0]) if words else None) or "S"


def _with_suit(option: Option, rest: Sequence[str], tr: Translator) -> Parsed:
    if not rest:
        return Chosen(option=option)
    if len(rest) > 1:
        return Problem(message=tr("err_not_suit_move", text=typed(" ".join(rest))))
    if not option.needs_suit:
        card = option.cards[0].text() if option.cards else rest[0]
        return Problem(message=tr("err_no_suit_needed", card=card))
    local = LOCAL_SUIT_LETTERS.get(tr.lang, {})
    if rest[0].lower() in local:
        return Chosen(option=option, suit=local[rest[0].lower()])
    if rest[0].lower() == "c" and tr.lang in C_IS_HEARTS:  # (the move prompt: the whole move again)
        card = option.cards[0].text() if option.cards else "9S"
        words = SUIT_WORDS[tr.lang]
        return Problem(message=tr("err_c_suit_move", card=card, hearts=words["H"], clubs=words["C"]))
    try:
        return Chosen(option=option, suit=parse_suit_word(rest[0]))
    except CardParseError:
        return Problem(message=tr("err_not_suit_move", text=typed(rest[0])))


def _hint(tr: Translator, text: str, options: Sequence[Option]) -> str:
    meant = native_card(text)
    if meant is not None:
        return tr("err_notation", text=typed(text), example=meant)
    alone = rank_alone(tr, text, [c for o in options for c in o.cards])
    if alone is not None:  # "asso", "ace", "dame": which one?
        return alone
    example = next((o.cards[0].text() for o in options if o.cards), "7H")
    if len(options) == 1:
        kind = options[0].kind  # (alone: the prompt says to press Enter, and lists no number)
        key = f"err_not_card_{kind}" if kind in ("draw", "pass") else "err_not_card_one"
        return tr(key, text=typed(text), example=example)
    return tr("err_not_card", text=typed(text), n=len(options), example=example)


def explain_refusal(
    error: IllegalAction,
    action: Action,
    view: SeatView,
    options: Sequence[Option],
    tr: Translator,
    style: Style,
) -> str:
    """The engine's verdict in the player's language, naming the rule."""
    card = getattr(action, "card", None)
    if isinstance(action, PlayNines):
        card = action.cards[0]
    values: dict[str, object] = {
        "card": style.card(card) if isinstance(card, Card) else "",
        "suit": style.suit(view.active_suit),
        "top": style.card(view.top),
    }
    key = f"rule_{error.rule}"
    if error.rule == "must-play":
        playable = next((o.cards[0] for o in options if o.cards), None)
        values["card"] = style.card(playable) if playable is not None else ""
        if isinstance(action, Pass):
            key = "rule_must-play-pass"
    elif error.rule == "play-drawn" and view.my_cards:
        values["card"] = style.card(view.my_cards[-1])
    elif error.rule == "phase" and isinstance(action, Keep):
        key = "rule_keep"
    if tr.has(key):
        why = tr(key, **values)
    else:  # (any other refusal: the engine's words, in the player's language)
        from p2pcards.ui.problems import illegal_text

        why = illegal_text(tr, error.detail)
    return tr("err_rule", why=why, rule=tr.rule_name(error.rule))


@dataclass(slots=True)
class HumanPlayer:
    """A seat played from the keyboard; same interface as a bot strategy.

    ``explain(action)`` returns the engine's :class:`IllegalAction` for an
    action, or None if it is legal; it is how a refusal names its rule.
    """

    console: Console
    table: TableContext
    explain: Callable[[Action], IllegalAction | None]
    name: str = "human"

    def __post_init__(self) -> None:
        if self.console.help_text is None:  # a console no screen set up: the help of Nines by default
            self.console.help_text = lambda: nines_help(None, self.console.tr)

    def choose(self, view: SeatView, legal: Sequence[Action], rng: random.Random) -> Action:
        return self._choose(view, legal)

    def _choose(self, view: SeatView, legal: Sequence[Action]) -> Action:
        tr, con = self.console.tr, self.console
        phase = view.phase
        if phase is Phase.DECLARE:
            self._show_table(view)
            return Declare(seat=view.seat, suit=con.ask_suit(tr("prompt_declare")))
        if phase is Phase.FORCED_DRAW:
            return legal[0]
        options = build_menu(legal)
        if phase is Phase.DRAWN:
            return self._after_draw(view, legal, options)
        self._show_table(view)
        heading = tr("your_turn")
        if phase is Phase.STACK:
            last = next((a for a in reversed(self.table.log) if isinstance(a, PlayNines)), None)
            who = self.table.names[last.seat] if last is not None else "?"
            heading = tr("your_turn_stack", who=who)
        if len(options) == 1 and options[0].kind in ("draw", "pass"):
            con.say(tr("prompt_draw" if options[0].kind == "draw" else "prompt_pass"))
        else:
            con.say("   " + heading)
            con.say(render_options([option_label(o, tr, con.style) for o in options]))
        return self._ask_move(view, options, prompt=tr("prompt"))

    def _ask_move(self, view: SeatView, options: Sequence[Option], *, prompt: str) -> Action:
        tr, con = self.console.tr, self.console
        while True:
            text = con.ask(prompt)
            parsed = parse_answer(text, options, seat=view.seat, hand=view.my_cards, tr=tr)
            if isinstance(parsed, Problem):
                con.say(parsed.message)
                continue
            if isinstance(parsed, Attempt):
                error = self.explain(parsed.action)
                if error is None:  # legal after all (cannot happen with a complete menu)
                    return parsed.action
                con.say(explain_refusal(error, parsed.action, view, options, tr, con.style))
                continue
            action = parsed.option.with_suit(parsed.suit)
            if action is None:
                action = parsed.option.with_suit(con.ask_suit())
            assert action is not None
            return action

    def _after_draw(self, view: SeatView, legal: Sequence[Action], options: list[Option]) -> Action:
        tr, con, style = self.console.tr, self.console, self.console.style
        drawn = view.my_cards[-1]
        card = style.card(drawn)
        kinds = [o.kind for o in options]
        if kinds in (["keep"], ["draw"], ["pass"]):  # no choice: the moves' log tells it, once
            return legal[0]
        if "keep" not in kinds and len(options) == 1:  # draw until playable: must play it
            con.say(tr("drew_must_play", card=card))
            action = options[0].with_suit(None) or options[0].with_suit(con.ask_suit())
            assert action is not None
            return action
        play = next(o for o in options if o.kind in ("play", "nine"))
        keep = next(o for o in options if o.kind == "keep")
        while True:
            text = con.ask(tr("prompt_drawn", card=card))
            word = COMMAND_WORDS.get(text.lower())
            if word == "yes" or text == "1":
                return play.with_suit(None) or play.with_suit(con.ask_suit())  # type: ignore[return-value]
            if word in ("no", "keep") or text == "2":
                return keep.actions[0]
            parsed = parse_answer(text, [play, keep], seat=view.seat, hand=view.my_cards, tr=tr, drawn=drawn)
            if isinstance(parsed, Chosen):
                action = parsed.option.with_suit(parsed.suit) or parsed.option.with_suit(con.ask_suit())
                assert action is not None
                return action
            if isinstance(parsed, Attempt):
                error = self.explain(parsed.action)
                if error is not None:
                    con.say(explain_refusal(error, parsed.action, view, options, tr, style))
                    continue
            con.say(tr("err_yes_no"))

    def _show_table(self, view: SeatView) -> None:
        t = self.table
        con = self.console
        moves = describe_moves(
            t.unseen(),
            names=t.names,
            me=view.seat,
            tr=con.tr,
            style=con.style,
            action_cards=t.action_cards,
            turn_over=True,  # it is this player's turn: a draw before it was kept
        )
        t.mark_seen()
        con.say("")
        con.say(
            render_table(
                view,
                names=t.names,
                dealer=t.dealer,
                hand_number=t.hand_number,
                playoff=t.playoff,
                moves=moves,
                tr=con.tr,
                style=con.style,
            )
        )
