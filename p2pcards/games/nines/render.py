"""Nines in words for the terminal: the table, the moves, the scores, the help.

Everything here is a pure function of what one seat may see (a
:class:`~p2pcards.games.nines.rules.SeatView`, the public move log, the hand
results), so the same rendering serves the local game and a networked one.
"""

from __future__ import annotations

from collections.abc import Sequence

from p2pcards.cards import Card, hand_sort_key
from p2pcards.games.nines.rules import (
    AcceptSkip,
    Action,
    Declare,
    Draw,
    HandResult,
    Keep,
    NinesRules,
    Pass,
    Play,
    PlayNines,
    Recycle,
    SeatView,
)
from p2pcards.ui.i18n import Translator
from p2pcards.ui.render import (
    MAX_MOVES,
    NAME_WIDTH,
    Style,
    fill,
    key_rows,
    layout_width,
    line_width,
    listed_names,
    pad,
    pad_left,
    rule_line,
    seat_says,
    short_name,
    shorten,
    stacked_scores,
    suit_words,
    visible_len,
)


def describe_moves(
    log: Sequence[Action],
    *,
    names: Sequence[str],
    me: int | None,
    tr: Translator,
    style: Style,
    action_cards: bool = False,
    turn_over: bool = False,
) -> list[str]:
    """One sentence per move. A draw and the keep that ends that turn make one sentence.

    A networked table's log has no keep (keeping changes nothing anybody sees): a
    draw followed by another seat's move was kept, and so was a draw at the end of
    the log when ``turn_over`` says that its turn has ended. Either way the words
    are those of the offline game (``Bob drew a card and kept it``).

    Cards drawn by other seats are never shown, even if the log holds them.
    """
    out: list[str] = []
    i = 0
    while i < len(log):
        a = log[i]
        nxt = log[i + 1] if i + 1 < len(log) else None
        if isinstance(a, Recycle):
            out.append(tr("log_recycle"))
        elif isinstance(a, Declare):
            out.append(seat_says(tr, "log_declare", a.seat, me, names, suit=suit_words(a.suit, tr, style)))
        elif isinstance(a, Play):
            card = style.card(a.card)
            if a.card.is_nine and a.suit is not None:
                text = seat_says(
                    tr, "log_play9", a.seat, me, names, card=card, suit=suit_words(a.suit, tr, style)
                )
            else:
                text = seat_says(tr, "log_play", a.seat, me, names, card=card)
            if action_cards and a.card.rank in (1, 11, 12):
                text += tr({1: "act_ace", 11: "act_skip", 12: "act_reverse"}[a.card.rank])
            out.append(text)
        elif isinstance(a, PlayNines):
            c1, c2 = (style.card(c) for c in a.cards)
            suit = suit_words(a.suit, tr, style)
            said = seat_says(tr, "log_double", a.seat, me, names, c1=c1, c2=c2, suit=suit)
            out.append(said + tr("act_skip"))
        elif isinstance(a, Draw):
            run = [a]
            while i + 1 < len(log):
                b = log[i + 1]
                if isinstance(b, Draw) and b.seat == a.seat and b.forced == a.forced:
                    run.append(b)
                    i += 1
                else:
                    break
            nxt = log[i + 1] if i + 1 < len(log) else None
            kept = isinstance(nxt, Keep) and nxt.seat == a.seat
            if kept:
                i += 1
            elif not a.forced:
                after = next((b for b in log[i + 1 :] if not isinstance(b, Recycle)), None)
                kept = turn_over if after is None else after.seat != a.seat
            out.append(_describe_draws(run, kept, me=me, names=names, tr=tr, style=style))
        elif isinstance(a, Keep):
            pass  # always follows its draw, handled there
        elif isinstance(a, Pass):
            out.append(seat_says(tr, "log_pass", a.seat, me, names))
        elif isinstance(a, AcceptSkip):
            out.append(seat_says(tr, "log_skip", a.seat, me, names))
        i += 1
    return out


def _describe_draws(
    run: list[Draw], kept: bool, *, me: int | None, names: Sequence[str], tr: Translator, style: Style
) -> str:
    seat = run[0].seat
    mine = seat == me
    seen = [d.card for d in run if d.card is not None] if mine else []
    shown = style.cards(seen) if len(seen) == len(run) else ""
    if run[0].forced:
        if mine and shown:
            return tr("log_forced_you", cards=shown)
        return tr("log_forced", who=names[seat], n=len(run))
    if len(run) == 1:
        if mine and shown:
            return tr("log_draw_keep_you" if kept else "log_draw_you", card=shown)
        return tr("log_draw_keep" if kept else "log_draw", who=names[seat])
    if mine and shown:
        return tr("log_draw_you", card=shown)
    return tr("log_draws", who=names[seat], n=len(run))


def render_table(
    view: SeatView,
    *,
    names: Sequence[str],
    dealer: int,
    hand_number: int,
    playoff: bool,
    moves: Sequence[str],
    tr: Translator,
    style: Style,
) -> str:
    """The table as ``view.seat`` sees it: players, top card, recent moves, own hand."""
    me = view.seat
    title = tr("hand_title", n=hand_number) + style.sep + tr("turn_title")
    if playoff:
        title = tr("playoff_title", names=tr.join([names[s] for s in view.seats])) + style.sep + title
    lines = [rule_line(title, style)]
    # Players in turn order from this seat, so the list reads as the order of play.
    order = [me] + [view.next_seat(me, k) for k in range(1, len(view.seats))] if me in view.seats else []
    order += [s for s in range(view.players) if s not in order]
    shown = listed_names(names, me, tr)
    width = min(NAME_WIDTH, max(len(n) for n in shown))
    for s in order:
        mark = "▶" if style.unicode else ">"
        mark = mark if s == me and me in view.seats else " "
        name = pad(short_name(shown[s]), width)
        total = tr("total", n=view.totals[s]) if view.totals else ""
        if s not in view.seats:
            row = f" {mark} {name}  {pad(tr('sits_out'), 9)} {total}"
        else:
            row = f" {mark} {name}  {pad(tr.cards(view.count(s)), 9)} {total}"
            if s == dealer:
                row += f"  ({tr('dealer_mark')})"
        lines.append(row.rstrip())
    top = view.top
    suit = style.suit(view.active_suit)
    suit_text = f"{suit} {tr.suit_name(view.active_suit)}"
    lines.append(
        f"   {tr('top')} {style.card(top)}   {tr('suit')} {suit_text}   {tr('stock')} {view.stock_size}"
    )
    if moves:
        lines.append("")
        shown = list(moves)[-MAX_MOVES:]
        if len(moves) > MAX_MOVES:
            lines.append(style.dim("   " + style.ellipsis))
        lines.extend(f"   {m}" for m in shown)
    lines.append("")
    mine = sorted(view.my_cards, key=hand_sort_key)
    lines.append(f"   {style.bold(tr('your_hand'))}  {style.cards(mine)}")
    return "\n".join(lines)


def render_scores(
    results: Sequence[HandResult],
    *,
    names: Sequence[str],
    totals: Sequence[int],
    tr: Translator,
    style: Style,
    title: str,
    before: int = 0,
    width: int | None = None,
) -> str:
    """One row per hand, one column per player: penalties, then the totals. ``before``: hands
    played at an earlier table of the match (before a player left), summed up in one first
    row, so that the rows add up to the totals. Where the columns do not fit ``width`` (by
    default the layout's: a narrow terminal's own), each row is stacked instead: the hand on
    a line, then a line a player (:func:`~p2pcards.ui.render.stacked_scores`)."""
    n = len(names)
    col = max(6, min(NAME_WIDTH, max(visible_len(x) for x in names)) + 1)
    first = max(6, len(tr("col_hand")), len(tr("row_total")), len(f"1-{before}")) + 1
    if first + n * col > (layout_width() if width is None else width):
        return _stacked_scores(results, names=names, totals=totals, tr=tr, style=style, title=title,
                               before=before, width=layout_width() if width is None else width)  # fmt: skip
    head = pad(tr("col_hand"), first) + "".join(pad_left(short_name(x, col - 1), col) for x in names)
    lines = [rule_line(title, style), style.bold(head)]
    if before:
        carried = [t - sum(r.penalties[s] for r in results) for s, t in enumerate(totals)]
        label = "1" if before == 1 else f"1-{before}"
        lines.append(pad(label, first) + "".join(f"{t:>{col}}" for t in carried))
    any_out = any_playoff = False
    for r in results:
        label = f"{r.number}"
        if r.playoff:
            label += tr("playoff_mark")
            any_playoff = True
        cells = []
        for s in range(n):
            v = f"{r.penalties[s]}"
            if r.end == "out" and r.out == s:
                v += "*"
                any_out = True
            cells.append(f"{v:>{col}}")
        end = tr("stall_short") if r.end != "out" else ""
        row = pad(label, first) + "".join(cells)
        if end:
            row += "  " + style.dim(shorten(end, line_width() - visible_len(row) - 2))
        lines.append(row)
    lines.append(style.bold(pad(tr("row_total"), first) + "".join(f"{t:>{col}}" for t in totals)))
    notes = [tr("note_out")] if any_out else []
    if any_playoff:
        notes.append(tr("note_playoff"))
    if notes:
        lines.append(style.dim("   ".join(notes)))
    return "\n".join(lines)


def _stacked_scores(
    results: Sequence[HandResult],
    *,
    names: Sequence[str],
    totals: Sequence[int],
    tr: Translator,
    style: Style,
    title: str,
    before: int,
    width: int,
) -> str:
    """:func:`render_scores` for a terminal too narrow for its columns: each hand, then the
    totals, on a line, each followed by a line a player."""
    rows: list[tuple[str, Sequence[str], bool]] = []
    if before:
        carried = [t - sum(r.penalties[s] for r in results) for s, t in enumerate(totals)]
        label = "1" if before == 1 else f"1-{before}"
        rows.append((f"{tr('col_hand')} {label}", [str(t) for t in carried], False))
    any_out = any_playoff = False
    for r in results:
        label = f"{tr('col_hand')} {r.number}"
        if r.playoff:
            label += tr("playoff_mark")
            any_playoff = True
        if r.end != "out":
            label += "  " + style.dim(tr("stall_short"))
        cells = []
        for s in range(len(names)):
            out = r.end == "out" and r.out == s
            any_out = any_out or out
            cells.append(f"{r.penalties[s]}*" if out else f"{r.penalties[s]} ")
        rows.append((label, cells, False))
    rows.append((tr("row_total"), [f"{t} " for t in totals], True))
    lines = [rule_line(title, style), *stacked_scores(rows, names, width, style)]
    notes = [tr("note_out")] if any_out else []
    if any_playoff:
        notes.append(tr("note_playoff"))
    lines.extend(style.dim(note) for note in notes)
    return "\n".join(lines)


class TableContext:
    """The interface's memory of the match: names, who deals, and this hand's public moves.

    The game loop feeds it (``new_hand``, ``record``); whoever shows the table
    reads the moves a player has not seen yet (``unseen``) and marks them seen.
    Mutable on purpose: it follows the game as it goes.
    """

    __slots__ = ("_seen", "action_cards", "dealer", "hand_number", "log", "me", "names", "playoff")

    def __init__(self, names: Sequence[str], *, me: int | None, action_cards: bool = False) -> None:
        self.names = tuple(names)
        self.me = me
        self.action_cards = action_cards
        self.dealer = 0
        self.hand_number = 0
        self.playoff = False
        self.log: list[Action] = []
        self._seen = 0

    def new_hand(self, *, dealer: int, hand_number: int, playoff: bool) -> None:
        self.dealer, self.hand_number, self.playoff = dealer, hand_number, playoff
        self.log = []
        self._seen = 0

    def record(self, action: Action) -> None:
        self.log.append(action)

    def unseen(self) -> list[Action]:
        return self.log[self._seen :]

    def mark_seen(self, upto: int | None = None) -> None:
        """The moves up to ``upto`` (all by default) were shown."""
        self._seen = len(self.log) if upto is None else self._seen + upto


VARIANTS = (
    "draw_until_playable",
    "action_cards",
    "double_nines",
    "stacking_nines",
    "hard_nines",
    "no_nine_out",
)
"""The yes/no options of Nines, in the order they are told."""


def variant_lines(rules: NinesRules, tr: Translator) -> list[str]:
    """Each variant in force with what it does: ``hard-nines: a 9 left in hand costs 25``."""
    on = [name for name in VARIANTS if getattr(rules, name)]
    lines = [f"{name.replace('_', '-')}: {tr('variant_' + name)}" for name in on]
    if rules.tie != "share":
        lines.append(f"tie={rules.tie}: {tr('variant_tie_playoff')}")
    return lines


def nines_help(rules: NinesRules | None, tr: Translator, width: int | None = None) -> str:
    """What ``help`` shows at a Nines prompt: the rules in brief for the options in force (the
    cost of a 9, the variants), then what to type, laid out for the terminal's width."""
    rules = NinesRules() if rules is None else rules
    width = layout_width() if width is None else width
    lines = [tr("help_title")]
    lines += fill(tr("help_rules", nine=rules.nine_penalty), width)
    variants = variant_lines(rules, tr)
    if variants:
        lines.append(tr("help_variants"))
        for v in variants:
            lines += fill(v, width, "  ", "    ")
    lines.append(tr("help_keys"))
    rows = [tuple(row.split("\t", 1)) for row in tr("help_rows").split("\n")]
    lines += key_rows([(left, right) for left, right in rows], width)
    cards = tr("help_cards")
    if cards:
        lines += fill(cards, width)
    return "\n".join(lines)


def card_order(cards: list[Card], trump: str | None = None) -> list[Card]:
    """A hand as the screen shows it: by suit, the 9s last (there is no trump in Nines)."""
    return sorted(cards, key=hand_sort_key)
