"""Le Neuf as text for the terminal: the table, tricks and exchanges in words, scores, help.

Like :mod:`p2pcards.ui.render` for Nines, everything here is a pure function
of what one seat may see (a :class:`~p2pcards.games.neuf.NeufView`, the public
tricks and exchanges, the hand results); the generic pieces (the card
:class:`~p2pcards.ui.render.Style`, rule lines, padding, wrapping) come from
there. Nothing here reads input or decides anything.

A hand is shown sorted by suit, trumps first, the suits alternating in colour
(spades, hearts, clubs, diamonds, rotated to start at the trump), each suit
from the Ace down, with a wider gap between suits.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from p2pcards.cards import SUIT_OF, Card
from p2pcards.games.neuf.rules import (
    POWER,
    ExchangeRecord,
    HandResult,
    NeufRules,
    NeufView,
    Phase,
    Trick,
    Trump,
    next_seat,
)
from p2pcards.ui.i18n import Translator
from p2pcards.ui.render import (
    NAME_WIDTH,
    Style,
    fill,
    laid_out_keys,
    layout_width,
    listed_names,
    pad,
    pad_left,
    render_cut,
    rule_line,
    short_name,
    stacked_scores,
    visible_len,
)

SUIT_ORDER = "SHCD"
"""Suits in alternating colours; a hand starts at its trump and goes round this order."""


# ---------------------------------------------------------------------------
# Cards and suits


def suit_order(trump: Trump) -> str:
    """The order of the suits in a sorted hand: the trump first, colours alternating."""
    if trump is None:
        return SUIT_ORDER
    k = SUIT_ORDER.index(trump)
    return SUIT_ORDER[k:] + SUIT_ORDER[:k]


def neuf_sort(cards: Iterable[Card], trump: Trump) -> list[Card]:
    """``cards`` by suit (trumps first), each suit from the Ace down."""
    order = suit_order(trump)
    return sorted(cards, key=lambda c: (order.index(SUIT_OF[c]), -POWER[c]))


def hand_text(cards: Iterable[Card], trump: Trump, style: Style) -> str:
    """A sorted hand, with two spaces between suits: ``A♠ 10♠ 4♠  K♥ 7♥  Q♣ 3♣  J♦``."""
    groups: list[list[Card]] = []
    for c in neuf_sort(cards, trump):
        if groups and SUIT_OF[groups[-1][0]] == SUIT_OF[c]:
            groups[-1].append(c)
        else:
            groups.append([c])
    return "  ".join(style.cards(g) for g in groups)


def suit_words(suit: str, tr: Translator, style: Style) -> str:
    """``♠ spades`` (``S spades`` without Unicode): reads in every language."""
    return f"{style.suit(suit)} {tr.suit_name(suit)}"


def trump_words(trump: Trump, tr: Translator, style: Style) -> str:
    """``trumps ♠ spades`` or ``no trumps``, in the language of ``tr``."""
    if trump is None:
        return tr("neuf_no_trump")
    return tr("neuf_trump", suit=suit_words(trump, tr, style))


def rotation_words(rules: NeufRules, tr: Translator, style: Style) -> str:
    """The trump rotation in a sentence: ``Trumps change with every hand: ♠ spades, ...``."""
    if rules.trumps == (None,):
        return tr("neuf_rotation_none")
    names = [tr("neuf_no_trump") if t is None else suit_words(t, tr, style) for t in rules.trumps]
    key = "neuf_rotation" if len(names) > 1 else "neuf_rotation_fixed"
    return tr(key, rotation=", ".join(names))


def tricks_text(n: int, tr: Translator) -> str:
    """``0 tricks``, ``1 trick``, ``5 tricks``."""
    if n == 0:
        return tr("neuf_tricks_zero")
    return tr("neuf_tricks_one") if n == 1 else tr("neuf_tricks_many", n=n)


def who(seat: int, names: Sequence[str], me: int | None, tr: Translator) -> str:
    """A seat inside a sentence: its name, or ``you`` for the player at this terminal."""
    return tr("you") if seat == me else names[seat]


def exchange_order(dealer: int) -> list[int]:
    """Who decides about the dummy, in order: the dealer, the dealer's left, the third player."""
    return [dealer, next_seat(dealer), next_seat(dealer, 2)]


# ---------------------------------------------------------------------------
# What happened, in words


def describe_exchange(
    record: ExchangeRecord, *, blind: bool, names: Sequence[str], me: int | None, tr: Translator
) -> str:
    """``Bob looked at the dummy and took it``: what the table saw of one exchange turn."""
    if blind:
        key = "neuf_log_take_blind" if record.took else "neuf_log_leave_blind"
    elif record.looked:
        key = "neuf_log_look_take" if record.took else "neuf_log_look_leave"
    else:
        key = "neuf_log_take" if record.took else "neuf_log_leave"
    if record.seat == me:
        return tr(key + "_you")
    return tr(key, who=names[record.seat])


def describe_trick(
    number: int,
    plays: Sequence[tuple[int, Card]],
    winner: int | None,
    *,
    names: Sequence[str],
    me: int | None,
    tr: Translator,
    style: Style,
) -> str:
    """``Trick 3: Bob led 4♥, you played K♥, Alice played A♥ - Alice wins the trick``.

    A trick in progress (``winner`` None) ends with the suit led instead.
    """
    parts = []
    for k, (seat, card) in enumerate(plays):
        key = "neuf_led" if k == 0 else "neuf_played"
        if seat == me:
            parts.append(tr(key + "_you", card=style.card(card)))
        else:
            parts.append(tr(key, who=names[seat], card=style.card(card)))
    text = tr("neuf_trick", n=number, plays=", ".join(parts))
    if winner is None:
        if plays:
            led = SUIT_OF[plays[0][1]]
            text += f" ({tr('neuf_suit_led', suit=suit_words(led, tr, style))})"
        return text
    wins = tr("neuf_wins_you") if winner == me else tr("neuf_wins", who=names[winner])
    return f"{text} - {wins}"


def describe_tricks(
    tricks: Sequence[Trick],
    first: int,
    *,
    names: Sequence[str],
    me: int | None,
    tr: Translator,
    style: Style,
) -> list[str]:
    """One line per finished trick, numbered from ``first``."""
    return [
        describe_trick(first + k, t.plays, t.winner, names=names, me=me, tr=tr, style=style)
        for k, t in enumerate(tricks)
    ]


# ---------------------------------------------------------------------------
# Headings


def neuf_heading(
    names: Sequence[str], dealer: int, number: int, trump: Trump, me: int | None, tr: Translator, style: Style
) -> str:
    """``── Hand 2 · Bob deals · trumps ♥ hearts ────``: printed when a hand is dealt."""
    deals = tr("deals_you") if dealer == me else tr("deals", name=names[dealer])
    dot = style.sep
    return rule_line(f"{tr('hand_title', n=number)}{dot}{deals}{dot}{trump_words(trump, tr, style)}", style)


def exchange_intro(dealer: int, *, names: Sequence[str], me: int | None, tr: Translator) -> str:
    """Who may take the dummy, in turn, and who leads: said once a hand, at the deal."""
    order = ", ".join(who(s, names, me, tr) for s in exchange_order(dealer))
    leader = next_seat(dealer)
    leads = tr("neuf_leads_you") if leader == me else tr("neuf_leads", who=names[leader])
    return f"{tr('neuf_order', order=order)} {leads}"


def render_neuf_cut(
    rounds: Sequence[Sequence[tuple[int, Card]]],
    *,
    dealer: int,
    names: Sequence[str],
    me: int | None,
    tr: Translator,
    style: Style,
) -> str:
    """Each round of the cut (the highest card deals) and the dealer it gives."""
    words = ("neuf_cut_title", "neuf_cut_tie")
    return render_cut(rounds, dealer=dealer, names=names, me=me, tr=tr, style=style, words=words)


# ---------------------------------------------------------------------------
# The table


def render_neuf_table(
    view: NeufView,
    *,
    names: Sequence[str],
    shown_exchanges: int,
    shown_tricks: int,
    tr: Translator,
    style: Style,
) -> str:
    """The table as ``view.seat`` sees it at its turn.

    The players in order of play from this seat (tricks won, totals, who deals
    and who took the dummy), the exchanges and tricks finished since this
    seat last looked (``shown_exchanges``, ``shown_tricks``), the trick in
    progress, the hands this seat knows from the dummy, and its own hand.
    """
    me = view.seat
    exchanging = view.phase is Phase.EXCHANGE
    dot = style.sep
    title = tr("hand_title", n=view.number) + dot + trump_words(view.trump, tr, style) + dot
    if exchanging:
        title += tr("neuf_exchange_title")
    else:
        title += tr("neuf_trick_title", n=len(view.tricks) + 1) + dot + tr("turn_title")
    lines = [rule_line(title, style)]
    took = {e.seat for e in view.exchanges if e.took}
    shown = listed_names(names, me, tr)
    width = min(NAME_WIDTH, max(len(n) for n in shown))
    tricks_width = max(len(tricks_text(n, tr)) for n in (1, 10))
    for s in (me, next_seat(me), next_seat(me, 2)):
        mark = ("▶" if style.unicode else ">") if s == me else " "
        row = f" {mark} {pad(short_name(shown[s]), width)}  "
        if not exchanging:
            row += pad(tricks_text(view.won[s], tr), tricks_width) + "  "
        row += tr("total", n=view.totals[s]) if view.totals else ""
        notes = [tr("dealer_mark")] if s == view.dealer else []
        if s in took:
            notes.append(tr("neuf_took_mark_you" if s == me else "neuf_took_mark"))
        if notes:
            row += f"   ({', '.join(notes)})"
        lines.append(row.rstrip())
    said = [
        describe_exchange(e, blind=view.rules.exchange == "blind", names=names, me=me, tr=tr)
        for e in view.exchanges[shown_exchanges:]
    ]
    said += describe_tricks(
        view.tricks[shown_tricks:], shown_tricks + 1, names=names, me=me, tr=tr, style=style
    )
    if view.current:
        said.append(
            describe_trick(len(view.tricks) + 1, view.current, None, names=names, me=me, tr=tr, style=style)
        )
    if said:
        lines.append("")
        lines.extend(f"   {line}" for line in said)
    if not exchanging:
        known = []
        for s in (next_seat(me), next_seat(me, 2)):
            cards = view.known_cards(s)
            if cards:
                key = "neuf_known_one" if len(cards) == 1 else "neuf_known"
                known.append(tr(key, who=names[s], cards=hand_text(cards, view.trump, style)))
        dummy = view.dummy_cards
        if dummy:
            known.append(tr("neuf_dummy_known", cards=hand_text(dummy, view.trump, style)))
        if known:
            lines.append("")
            lines.extend(f"   {line}" for line in known)
    lines.append("")
    lines.append(f"   {style.bold(tr('your_hand'))}  {hand_text(view.my_cards, view.trump, style)}")
    if exchanging:
        gave = [e.seat for e in view.exchanges if e.took]
        if gave:
            taker = gave[-1]
            gone = tr("neuf_dummy_gave_you") if taker == me else tr("neuf_dummy_gave", who=names[taker])
            lines.append("   " + gone)
        else:
            lines.append("   " + tr("neuf_dummy_down"))
    return "\n".join(lines)


def cards_line(label: str, cards: Iterable[Card], trump: Trump, style: Style) -> str:
    """``   The dummy  K♠ Q♠ ...``: a labelled hand on one line."""
    return f"   {style.bold(label)}  {hand_text(cards, trump, style)}"


# ---------------------------------------------------------------------------
# Scores


def render_neuf_scores(
    results: Sequence[HandResult],
    *,
    start: int,
    names: Sequence[str],
    totals: Sequence[int],
    tr: Translator,
    style: Style,
    title: str,
    width: int | None = None,
) -> str:
    """One row per hand: its trump, then each seat's points (tricks taken); the totals last.
    Where the columns do not fit ``width`` (by default the layout's: a narrow terminal's own),
    each row is stacked instead: the hand and its trumps on a line, then a line a player."""
    col = max(9, min(NAME_WIDTH, max(visible_len(x) for x in names)) + 2)
    first = max(len(tr("col_hand")), len(tr("neuf_row_start")), len(tr("row_total"))) + 2
    second = max(6, len(tr("neuf_col_trumps")) + 2)
    width = layout_width() if width is None else width
    if first + second + len(names) * col > width:
        rows: list[tuple[str, Sequence[str], bool]] = []
        rows.append((tr("neuf_row_start"), [str(start)] * len(names), False))
        for r in results:
            trump = tr("neuf_nt") if r.trump is None else style.suit(r.trump)
            label = f"{tr('col_hand')} {r.number} · {tr('neuf_col_trumps')} {trump}"
            rows.append((label, [f"{s:+d} ({w})" for s, w in zip(r.scores, r.won, strict=True)], False))
        rows.append((tr("row_total"), [str(t) for t in totals], True))
        stacked = stacked_scores(rows, names, width, style)
        return "\n".join([rule_line(title, style), *stacked, style.dim(tr("neuf_note_scores"))])
    head = pad(tr("col_hand"), first) + pad(tr("neuf_col_trumps"), second)
    head += "".join(pad_left(short_name(x, col - 1), col) for x in names)
    lines = [rule_line(title, style), style.bold(head)]
    lines.append(pad(tr("neuf_row_start"), first + second) + "".join(f"{start:>{col}}" for _ in names))
    for r in results:
        trump = tr("neuf_nt") if r.trump is None else style.suit(r.trump)
        cells = "".join(f"{f'{s:+d} ({w})':>{col}}" for s, w in zip(r.scores, r.won, strict=True))
        lines.append(pad(str(r.number), first) + pad(trump, second) + cells)
    lines.append(style.bold(pad(tr("row_total"), first + second) + "".join(f"{t:>{col}}" for t in totals)))
    lines.append(style.dim(tr("neuf_note_scores")))
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Help


def neuf_help(rules: NeufRules, tr: Translator, style: Style) -> str:
    """The rules in brief, in the language of ``tr``, for the options in force."""
    plain = Style(unicode=style.unicode)  # colour codes would upset the folding
    exchange = "neuf_help_blind" if rules.exchange == "blind" else "neuf_help_open"
    play = "neuf_help_play_nt" if all(t is None for t in rules.trumps) else "neuf_help_play"
    paragraphs = [
        tr("neuf_help_deal"),
        rotation_words(rules, tr, plain),
        tr(exchange),
        tr(play),
        tr("neuf_help_score", start=rules.start),
    ]
    width = layout_width()
    body = ["\n".join(fill(p, width)) for p in paragraphs]
    return "\n".join([tr("neuf_help_title"), *body, *laid_out_keys(tr("neuf_help_keys"), width)])


# ---------------------------------------------------------------------------
# What the interface remembers


class NeufTable:
    """The interface's memory of a Le Neuf match: names, the hand being played, and
    how much of it the player has been shown (exchanges and finished tricks).

    The display resets it at each deal; the human's prompt advances the counts
    each time it shows the table, so the next table shows only what is new.
    """

    __slots__ = ("dealer", "hand_number", "me", "names", "shown_exchanges", "shown_tricks", "trump")

    def __init__(self, names: Sequence[str], *, me: int | None) -> None:
        self.names = tuple(names)
        self.me = me
        self.dealer = 0
        self.hand_number = 0
        self.trump: Trump = None
        self.shown_exchanges = 0
        self.shown_tricks = 0

    def new_hand(self, *, dealer: int, hand_number: int, trump: Trump) -> None:
        self.dealer, self.hand_number, self.trump = dealer, hand_number, trump
        self.shown_exchanges = self.shown_tricks = 0


def card_order(cards: list[Card], trump: str | None) -> list[Card]:
    """A hand as the screen shows it (:func:`neuf_sort`); ``trump`` None for a hand without one."""
    return neuf_sort(cards, trump)
