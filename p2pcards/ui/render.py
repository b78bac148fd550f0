"""Turn game state into text for the terminal: the table, moves in words, scores.

Everything here is a pure function of what one seat may see (a
:class:`~p2pcards.games.nines.SeatView`, the public move log, the hand results),
so the same rendering serves the local game and a networked one. Nothing here
reads input or decides anything.
"""

from __future__ import annotations

import codecs
import math
import os
import re
import shutil
import sys
import textwrap
import unicodedata
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, TextIO

from p2pcards.cards import SUIT_SYMBOLS, Card, format_card, format_suit
from p2pcards.protocol.names import names_by_key
from p2pcards.ui.i18n import Translator

WIDTH = 78
"""Lines stay within 80 columns, with a margin for terminals that wrap at 80: the width
used when the output is not a terminal (see :func:`line_width`)."""
MIN_WIDTH = 40
MAX_WIDTH = 100
"""Bounds of :func:`line_width`: narrower, nothing fits; wider, lines get hard to read."""
MAX_MOVES = 8
"""The table shows at most this many recent moves (the older ones scrolled by above)."""
NAME_WIDTH = 10
NAME_LIMIT = 32
"""Longest name shown (the protocol's limit); the table's columns cut names to NAME_WIDTH."""


def line_width() -> int:
    """Columns for a full line (rules, wrapped text): the terminal's width less a margin,
    within :data:`MIN_WIDTH`..:data:`MAX_WIDTH`, so a header never wraps onto two lines;
    :data:`WIDTH` when the output is not a terminal (``COLUMNS`` is obeyed, as usual)."""
    columns = shutil.get_terminal_size((WIDTH + 2, 24)).columns
    return max(MIN_WIDTH, min(MAX_WIDTH, columns - 2))


def fold_width() -> int:
    """Columns that text folds to: :func:`line_width` + 1, but no more than the terminal
    has (at 40 columns the margin is gone, and a 41st column would make the terminal cut the
    last word in two); a terminal narrower than :data:`MIN_WIDTH` gets its own width (see
    :func:`narrow_columns`)."""
    narrow = narrow_columns()
    if narrow is not None:
        return narrow
    columns = shutil.get_terminal_size((WIDTH + 2, 24)).columns
    return min(line_width() + 1, max(MIN_WIDTH, columns))


def layout_width() -> int:
    """Columns for text laid out in lines of its own (the help, the menu of moves):
    :func:`line_width`, or all the columns of a terminal narrower than the layout."""
    narrow = narrow_columns()
    return line_width() if narrow is None else narrow


NARROWEST = 12
"""Fewer columns than this are taken as this many (nothing reads in fewer, and a fold to
three columns would be one letter a line)."""


def narrow_columns() -> int | None:
    """The columns of a terminal narrower than :data:`MIN_WIDTH` (at least
    :data:`NARROWEST`), where the table's layout does not fit and its lines are folded at
    spaces (:func:`fold_narrow`); None when the terminal is wide enough, or the output is
    not a terminal (``COLUMNS`` is obeyed, as usual)."""
    columns = shutil.get_terminal_size((WIDTH + 2, 24)).columns
    return max(NARROWEST, columns) if columns < MIN_WIDTH else None


# ---------------------------------------------------------------------------
# Text a terminal's encoding cannot print

ASCII_FALLBACKS: dict[str, str] = {
    "♠": "S",
    "♥": "H",
    "♦": "D",
    "♣": "C",
    "♤": "S",
    "♡": "H",
    "♢": "D",
    "♧": "C",
    "…": "...",
    "─": "-",
    "—": "-",
    "–": "-",
    "·": "-",
    "▶": ">",
    "✓": "+",
    "✗": "x",
    "×": "x",
    "→": "->",
    "œ": "oe",
    "Œ": "OE",
    "æ": "ae",
    "ß": "ss",
    "’": "'",
    "‘": "'",
    "“": '"',
    "”": '"',
    "«": '"',
    "»": '"',
    "\u00a0": " ",
}
"""ASCII stand-ins for the characters the interface uses (suits as their letters)."""

FALLBACK_ERRORS = "p2pcards-ascii"
"""The codec error handler that writes :data:`ASCII_FALLBACKS` (or a letter without its
accent, else ``?``) for what an encoding lacks, instead of raising UnicodeEncodeError."""


def _ascii_for(ch: str) -> str:
    if ch in ASCII_FALLBACKS:
        return ASCII_FALLBACKS[ch]
    bare = "".join(c for c in unicodedata.normalize("NFKD", ch) if not unicodedata.combining(c))
    return bare if bare and bare.isascii() else "?"


def _fallback(error: UnicodeError) -> tuple[str, int]:
    if not isinstance(error, UnicodeEncodeError):
        raise error
    return "".join(_ascii_for(ch) for ch in error.object[error.start : error.end]), error.end


codecs.register_error(FALLBACK_ERRORS, _fallback)


def stream_encoding(stream: Any) -> str:
    """What ``stream`` can print: its encoding, but ASCII on a terminal whose locale says
    ASCII only (``LC_ALL=C``, ``LANG=POSIX``), where Python writes UTF-8 all the same (its
    UTF-8 mode) and the terminal would garble ``♠``; ``PYTHONIOENCODING`` is obeyed."""
    encoding = getattr(stream, "encoding", None) or "ascii"
    if os.environ.get("PYTHONIOENCODING"):
        return encoding
    for name in ("LC_ALL", "LC_CTYPE", "LANG"):
        value = os.environ.get(name)
        if value:
            try:
                tty = stream.isatty()
            except (AttributeError, ValueError):
                tty = False
            return "ascii" if value in ("C", "POSIX") and tty else encoding
    return encoding


def encodable(text: str, encoding: str | None) -> str:
    """``text`` as a stream in ``encoding`` can print it: ``9♠`` is ``9S``, ``cœur`` is
    ``coeur``, ``é`` is ``e`` on an ASCII terminal (None, or an unknown encoding: unchanged)."""
    if encoding is None:
        return text
    try:
        return text.encode(encoding, FALLBACK_ERRORS).decode(encoding)
    except (LookupError, UnicodeError):
        return text


@dataclass(frozen=True, slots=True, kw_only=True)
class Style:
    """How cards look on this terminal: Unicode suit symbols and/or ANSI colour."""

    unicode: bool = False
    color: bool = False

    @classmethod
    def detect(cls, stream: TextIO | None = None, env: Mapping[str, str] | None = None) -> Style:
        """Colour only on a tty with NO_COLOR unset and TERM not dumb; symbols if the encoding has them."""
        stream = sys.stdout if stream is None else stream
        env = os.environ if env is None else env
        try:
            tty = stream.isatty()
        except (AttributeError, ValueError):
            tty = False
        color = tty and "NO_COLOR" not in env and env.get("TERM", "") != "dumb"
        encoding = stream_encoding(stream)
        try:
            "".join(SUIT_SYMBOLS.values()).encode(encoding)
            uni = True
        except (LookupError, UnicodeEncodeError):
            uni = False
        return cls(unicode=uni, color=color)

    def card(self, card: Card) -> str:
        return format_card(card, unicode=self.unicode, color=self.color)

    def cards(self, cards: Sequence[Card]) -> str:
        return " ".join(self.card(c) for c in cards)

    def suit(self, suit: str) -> str:
        return format_suit(suit, unicode=self.unicode, color=self.color)

    @property
    def sep(self) -> str:
        return " · " if self.unicode else " - "

    @property
    def ellipsis(self) -> str:
        return "…" if self.unicode else "..."

    def bold(self, text: str) -> str:
        return f"\x1b[1m{text}\x1b[0m" if self.color else text

    def dim(self, text: str) -> str:
        return f"\x1b[2m{text}\x1b[0m" if self.color else text


def columns(ch: str) -> int:
    """Terminal columns of one character: two for a wide one (CJK, full-width forms, most
    emoji), none for a combining mark or a zero-width one, else one."""
    if ch < "\u0300":  # (ASCII and Latin-1: the common case, one column each)
        return 1
    if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me", "Cf"):
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def visible_len(text: str) -> int:
    """Width on screen in columns (see :func:`columns`), not counting ANSI colour codes."""
    n, i = 0, 0
    while i < len(text):
        if text[i] == "\x1b":
            j = text.find("m", i)
            i = len(text) if j < 0 else j + 1
            continue
        n += columns(text[i])
        i += 1
    return n


def cut_columns(text: str, width: int, ellipsis: str = "…") -> str:
    """``text`` (without colour codes) in at most ``width`` columns: cut, ending with
    ``ellipsis``, when it is wider."""
    if visible_len(text) <= width:
        return text
    room = max(width - visible_len(ellipsis), 0)
    out, used = [], 0
    for ch in text:
        w = columns(ch)
        if used + w > room:
            break
        out.append(ch)
        used += w
    return "".join(out) + ellipsis


_SPACED_WORD = re.compile(r"([ \t]*)(\[[^\]]*\]|[^ \t\n]+)")
"""A word to fold at, with the spaces before it: a [bracketed] group, or what lies between
spaces (a no-break space, as :data:`_GLUED` puts before French punctuation, is inside a
word)."""


def wrap(text: str, width: int | None = None) -> str:
    """Fold lines wider than ``width`` (by default the terminal's, :func:`fold_width`)
    at spaces, indenting continuations under the text. French punctuation stays with the
    word it follows (``demandé :``, ``« quit »``): a line never starts with it."""
    width = fold_width() if width is None else width
    out: list[str] = []
    for line in text.split("\n"):
        line = _bar_shortened(line, width)  # (a heading on a terminal narrower than the layout)
        if visible_len(line) <= width:
            out.append(line)
            continue
        lead = len(line) - len(line.lstrip(" "))
        glued = _glued(line[lead:])
        # Each word with the spaces before it, kept within a line (a table's columns stay
        # aligned); a [bracketed] group stays whole.
        words = [(m.group(1), m.group(2).replace("\u00a0", " ")) for m in _SPACED_WORD.finditer(glued)]
        current = line[:lead] + words[0][1]
        for spaces, word in words[1:]:
            if visible_len(f"{current}{spaces}{word}") > width:
                out.append(current)
                current = " " * (lead + 2 if width >= MIN_WIDTH else min(lead + 2, 4)) + word
            else:
                current = f"{current}{spaces}{word}"
        out.append(current)
    return "\n".join(out)


_BAR_END = re.compile(r" ?[─-]{2,}(?=(?:\x1b\[0m)?$)")
"""The bar that ends a heading (``── Hand 1 · your turn ────``), before its colour's end."""
_NARROW_WORD = re.compile(r"([ \t]*)([^ \t\n]+)")
"""A word to fold at on a narrow terminal, with the spaces before it (a no-break space, as
:data:`_GLUED` puts before French punctuation, is inside a word)."""


def _bar_shortened(line: str, width: int) -> str:
    """``line`` with the bar that ends it (a heading's) shortened to fit ``width`` columns, or
    dropped when not even two of its columns fit; any other line as it is."""
    bar = _BAR_END.search(line)
    if bar is None or visible_len(line) <= width:
        return line
    head, tail = line[: bar.start()], line[bar.end() :]
    room = width - visible_len(head) - 1
    return f"{head} {bar.group().strip()[:room]}{tail}" if room >= 2 else head + tail


_PATH_PARTS = (re.compile(r"[^/\\]*[/\\]|[^/\\]+"), re.compile(r"[^-._]*[-._]|[^-._]+"))
"""How a file's path is broken to fit a line: after its separators, then, in a name longer than
a line, after a ``-``, ``.`` or ``_``."""


def path_pieces(path: str, room: int, level: int = 0) -> list[str]:
    """``path`` in pieces of at most ``room`` columns, to be shown one a line: broken after
    its separators (``/``), a name longer than a line after its ``-``, ``.`` or ``_``, and a
    part longer than that where the line ends. Joined, the pieces are the path."""
    room = max(room, 1)
    if visible_len(path) <= room:
        return [path]
    if level == len(_PATH_PARTS):  # no separator left: cut where the line ends
        pieces, current = [], ""
        for ch in path:
            if current and visible_len(current + ch) > room:
                pieces.append(current)
                current = ""
            current += ch
        return [*pieces, current] if current else pieces
    pieces = []
    current = ""
    for part in _PATH_PARTS[level].findall(path):
        if visible_len(current + part) <= room:
            current += part
            continue
        if current:
            pieces.append(current)
        *whole, current = path_pieces(part, room, level + 1)
        pieces.extend(whole)
    return [*pieces, current] if current else pieces


def _is_path(word: str) -> bool:
    """A word that is a file's path (a transcript's, a record's): it names a folder."""
    return "/" in word.strip(".,;:()") or "\\" in word


def fold_narrow(text: str, width: int) -> str:
    """``text`` laid out for :data:`MIN_WIDTH` columns or more, on a terminal of ``width``
    columns: each line that is wider is folded at spaces, never inside a word or a card, its
    continuations indented a little (up to four columns, so that words still have room); a
    heading's bar is shortened to fit, or dropped. A file's path wider than the terminal is
    broken after its separators (:func:`path_pieces`), its pieces one under the other, so
    that the terminal cuts none of it; only another word wider than the terminal itself is
    left for the terminal to cut."""
    out: list[str] = []
    for line in text.split("\n"):
        if visible_len(line) <= width:
            out.append(line)
            continue
        line = _bar_shortened(line, width)
        if visible_len(line) <= width:
            out.append(line)
            continue
        lead = len(line) - len(line.lstrip(" "))
        words = [(m.group(1), m.group(2)) for m in _NARROW_WORD.finditer(_glued(line[lead:]))]
        if not words:
            out.append(line)
            continue
        indent = " " * min(lead + 2, 4)
        current, fresh = line[:lead], True  # (fresh: the line holds its indentation only)
        for spaces, word in words:
            joined = word if fresh else f"{spaces}{word}"
            if visible_len(current + joined) <= width:
                current, fresh = current + joined, False
                continue
            if not fresh:
                out.append(current)
                current = indent
            if _is_path(word) and visible_len(current + word) > width:
                *whole, last = path_pieces(word, width - visible_len(current))
                out.extend(current + piece for piece in whole)
                current += last
            else:
                current += word
            fresh = False
        out.append(current)
    return "\n".join(out).replace("\u00a0", " ")


def stacked_scores(
    rows: Sequence[tuple[str, Sequence[str], bool]], names: Sequence[str], width: int, style: Style
) -> list[str]:
    """A score table whose columns (one a player) do not fit ``width`` columns, stacked: each
    of its ``rows`` (a hand, the totals: its label, one value a player, and whether it is in
    bold) is its label on a line of its own, then one line a player, the name (cut to what the
    width leaves it) and the value aligned on the right, so that a narrow terminal folds none
    of it."""
    wide = max((visible_len(v) for _, values, _ in rows for v in values), default=1)
    room = max(1, width - 4 - wide)
    named = min(NAME_WIDTH, room, max((visible_len(x) for x in names), default=1))
    shown = [pad(cut_columns(x, named, style.ellipsis), named) for x in names]
    lines: list[str] = []
    for label, values, bold in rows:
        lines.append(style.bold(label) if bold else label)
        for name, value in zip(shown, values, strict=True):
            line = f"  {name}  {pad_left(value, wide)}"
            lines.append(style.bold(line) if bold else line)
    return lines


def pad(text: str, width: int) -> str:
    """``text`` followed by spaces to fill ``width`` columns."""
    return text + " " * max(0, width - visible_len(text))


def pad_left(text: str, width: int) -> str:
    """``text`` after spaces that fill ``width`` columns (a right-aligned cell)."""
    return " " * max(0, width - visible_len(text)) + text


class Seated(Protocol):
    """A roster entry: a name chosen by its player and the key that proves who they are."""

    @property
    def name(self) -> str: ...

    @property
    def key(self) -> bytes: ...


def table_names(roster: Sequence[Seated]) -> tuple[str, ...]:
    """The names of a networked table as every line shows them.

    The names come from the other players, so they are cleaned of anything a
    terminal would obey (see :mod:`p2pcards.safetext`), and names that look
    alike (``alice``, ``Alice``, ``аlice`` with a Cyrillic ``а``) carry the start
    of their key's fingerprint, ``alice#1a2b``, so nobody is taken for another.
    """
    names = [p.name for p in roster]
    return tuple(names_by_key(names, [p.key for p in roster], limit=NAME_LIMIT, width=NAME_WIDTH))


def short_name(name: str, width: int = NAME_WIDTH) -> str:
    return cut_columns(name, width)


def rule_line(title: str, style: Style, width: int | None = None) -> str:
    """``── Hand 2 · Carol deals ───────``, exactly ``width`` wide (by default the terminal's,
    :func:`line_width`), unless the title itself is wider; on a terminal narrower than the
    layout (:func:`narrow_columns`), as wide as the terminal, a title still too wide left
    whole for the output to fold at its spaces."""
    narrow = narrow_columns() if width is None else None
    width = (line_width() if narrow is None else narrow) if width is None else width
    bar = "─" if style.unicode else "-"
    # Too wide for the terminal: the parts between the first and the last go first (the
    # hand's number and whose turn it is stay), then the title is cut: a heading never wraps.
    parts = title.split(style.sep)
    while len(parts) > 2 and visible_len(f"{bar * 2} {style.sep.join(parts)} {bar}") > width:
        del parts[-2]
    title = style.sep.join(parts)
    room = width - 5  # the bars and spaces around the title
    if visible_len(title) > room > 0 and "\x1b" not in title and narrow is None:  # (narrow: folded)
        title = cut_columns(title, room, style.ellipsis)
    head = f"{bar * 2} {title} "
    if narrow is not None and visible_len(head) >= width:  # (no bar after it: folded at its words)
        return style.bold(head.rstrip())
    return style.bold(head + bar * max(1, width - visible_len(head)))


# ---------------------------------------------------------------------------
# Moves in words


def bots_words(bot: str, tr: Translator, count: int = 2) -> str:
    """``heuristic bots`` (``heuristic bot`` when ``count`` is 1) in the player's language (an
    unknown strategy by its own name)."""
    word = "bot" if count == 1 else "bots"
    key = f"{word}_{bot.partition(':')[0]}"  # (expert:0.5 is still an expert)
    return tr(key) if tr.has(key) else tr(word, name=bot)


def object_names(seats: Sequence[int], names: Sequence[str], me: int | None, tr: Translator) -> list[str]:
    """The names of ``seats`` after a preposition (``between you and Carol``): the player at
    this terminal, when called by the word for "you", takes its object form (Italian ``te``)."""
    return [tr("you_obj") if s == me and names[s] == tr("you") else names[s] for s in seats]


def seat_says(
    tr: Translator, key: str, seat: int, me: int | None, names: Sequence[str], **values: object
) -> str:
    if seat == me:
        return tr(key + "_you", **values)
    return tr(key, who=names[seat], **values)


def suit_words(suit: str, tr: Translator, style: Style) -> str:
    """``♣`` on a Unicode terminal (``C (clubs)`` otherwise), so it reads in any language."""
    if style.unicode:
        return style.suit(suit)
    return f"{suit} ({tr.suit_name(suit)})"


def describe_end(end: str, out: int | None, *, names: Sequence[str], me: int | None, tr: Translator) -> str:
    if end == "out" and out is not None:
        return tr("out_you") if out == me else tr("out", who=names[out])
    return tr("stall")


# ---------------------------------------------------------------------------
# The table


def listed_names(names: Sequence[str], me: int | None, tr: Translator) -> list[str]:
    """The names in a table's list of players: "you" for the player's own seat, whatever
    name it has at the table (the others see that one), as in the moves said below it."""
    return [tr("you") if s == me else name for s, name in enumerate(names)]


def hand_heading(
    names: Sequence[str],
    dealer: int,
    hand_number: int,
    seats: Sequence[int],
    playoff: bool,
    me: int | None,
    up_card: Card,
    tr: Translator,
    style: Style,
) -> str:
    """The line printed when a hand is dealt: number, dealer, up card."""
    head = (
        tr("playoff_title", names=tr.join([names[s] for s in seats]))
        if playoff
        else tr("hand_title", n=hand_number)
    )
    deals = tr("deals_you") if dealer == me else tr("deals", name=names[dealer])
    dot = style.sep
    return rule_line(f"{head}{dot}{deals}{dot}{tr('up_card', card=style.card(up_card))}", style)


def clock_text(seconds: float) -> str:
    """``0:42``, ``9:05``, ``1:00:00``: time left on the table's clock, whole seconds rounded up."""
    total = max(0, math.ceil(seconds - 1e-9))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


STATUS_WAITS = ("turn", "shuffle", "keys", "step", "reconnect")
"""What a waiting player can be waiting for: a decision, a shuffle, keys, any other step."""


def waiting_status(
    what: str, names: Sequence[str], left: float | None, *, tr: Translator, style: Style
) -> str:
    """The status line of a player who waits: ``Alice to play — 0:42 left``,
    ``Waiting for keys from Bob…``; ``left`` is the time left on the table's clock
    (None when it is not worth counting down). ``what`` is one of :data:`STATUS_WAITS`."""
    if left is None:
        return tr(f"status_{what}", names=tr.join(list(names))) + style.ellipsis
    dash = " — " if style.unicode else " - "
    clock = dash + tr("status_left", left=clock_text(left))
    # The line is cut to the terminal's width: long names are shortened first, so that
    # the time left, what the countdown is for, still shows on a narrow terminal.
    room = max(20, shutil.get_terminal_size((80, 24)).columns) - 2  # (a status line never wraps)
    widths = [visible_len(n) for n in names]
    least = 3 + visible_len(style.ellipsis)
    while True:
        shown = [cut_columns(n, w, style.ellipsis) for n, w in zip(names, widths, strict=True)]
        text = tr(f"status_{what}", names=tr.join(shown)) + clock
        widest = max(range(len(widths)), key=widths.__getitem__, default=None)
        if visible_len(text) <= room or widest is None or widths[widest] <= least:
            return text
        widths[widest] -= 1  # one column less at a time, from the longest name



def render_options(labels: Sequence[str]) -> str:
    """Numbered choices, laid out in columns when they are short."""
    cells = [f"{i}) {label}" for i, label in enumerate(labels, 1)]
    widest = max(visible_len(c) for c in cells)
    per_line = max(1, (layout_width() - 3) // (widest + 3)) if widest <= 24 else 1
    lines = []
    for k in range(0, len(cells), per_line):
        row = cells[k : k + per_line]
        lines.append("   " + "".join(pad(c, widest + 3) for c in row).rstrip())
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# Scores


def shorten(text: str, width: int) -> str:
    return text if len(text) <= width else text[: max(1, width - 1)] + "…"


def describe_winners(
    winners: Sequence[int], totals: Sequence[int], *, names: Sequence[str], me: int | None, tr: Translator
) -> str:
    total = totals[winners[0]]
    if len(winners) == 1:
        if winners[0] == me:
            return tr("winner_you", total=total)
        return tr("winner", names=names[winners[0]], total=total)
    return tr("winners", names=tr.join([names[s] for s in winners]), total=total)


def render_cut(
    rounds: Sequence[Sequence[tuple[int, Card]]],
    *,
    dealer: int,
    names: Sequence[str],
    me: int | None,
    tr: Translator,
    style: Style,
    words: tuple[str, str] = ("cut_title", "cut_tie"),
) -> str:
    """Each cut round and the dealer it gives; ``words`` are the messages of the title and
    of a tie (a game whose cut is won by the highest card says so in its own)."""
    title, tie = words
    lines = [tr(title)]
    for k, shown in enumerate(rounds):
        lines.append("   " + "   ".join(f"{names[s]} {style.card(c)}" for s, c in shown))
        if k + 1 < len(rounds):
            tied = object_names([s for s, _ in rounds[k + 1]], names, me, tr)
            lines.append("   " + tr(tie, names=tr.join(tied)))
    lines.append(tr("cut_dealer_you") if dealer == me else tr("cut_dealer", name=names[dealer]))
    return "\n".join(lines)


# ---------------------------------------------------------------------------
# What the interface remembers


# ---------------------------------------------------------------------------
# Help and the variants in words


_GLUED = re.compile(r" ([;:!?»])")
"""French punctuation after a space, which stays with the word before it."""
_OPENING = re.compile(r"« ")
"""An opening French quote, which stays with the word it opens."""


def fingerprint_line(said: str, fingerprint: str, width: int) -> str:
    """``said``, a line that ends with a table ``fingerprint``, for ``width`` columns: as it
    is if it fits, else its words folded and the fingerprint whole on a line of its own (its
    groups are read aloud and compared: never split over two lines)."""
    if visible_len(said) <= width or not said.endswith(fingerprint):
        return said
    head = said[: len(said) - len(fingerprint)].rstrip()
    return f"{wrap(head, width)}\n  {fingerprint}"


def _glued(text: str) -> str:
    """``text`` with no-break spaces where a French line must not fold (``demandé :``,
    ``« quit »``): the folding functions put the ordinary space back."""
    return _OPENING.sub("«\u00a0", _GLUED.sub("\u00a0\\1", text))


def fill(text: str, width: int, indent: str = "  ", subsequent: str | None = None) -> list[str]:
    """``text`` folded to ``width`` columns at its spaces, indented (never inside a word, not
    even at a hyphen: ``spades-first`` is one option; a word wider than a line has it to
    itself); French punctuation that follows a space (``;``, ``:``) stays at the end of its
    line instead of starting the next one."""
    glued = _glued(text)
    later = indent if subsequent is None else subsequent
    if visible_len(glued) == len(glued):
        lines = textwrap.wrap(glued, width, initial_indent=indent, subsequent_indent=later,
                              break_long_words=False, break_on_hyphens=False)  # fmt: skip
    else:  # wide or zero-width characters (a name in CJK, an emoji): fold by columns
        lines = _fold_columns(glued, width, indent, later)
    return [line.replace("\u00a0", " ") for line in lines]


def key_rows(rows: Sequence[tuple[str, str]], width: int) -> list[str]:
    """What to type and what it does, in two columns folded to ``width`` (a help's table): a
    label too long for its column (at most half the width) has its meaning on the lines below,
    as every label has on a terminal narrower than the layout (two columns would be cramped)."""
    label = min(max(visible_len(left) for left, _ in rows) + 2, width // 2) if width >= MIN_WIDTH else 2
    lines: list[str] = []
    for left, right in rows:
        if visible_len(left) + 2 > label:
            lines.append(f"  {left}")
            left = ""
        lines += fill(right, width, "  " + pad(left, label), " " * (2 + label))
    return lines


_KEY_ROW = re.compile(r"  (\S.*?) {2,}(\S.*)")
"""A row of a help's table written out in columns: ``  score      the score table``."""


def laid_out_keys(text: str, width: int) -> list[str]:
    """A help's "what to type" written in columns (its title, then indented rows, a label and
    its meaning two spaces apart or more) laid out again for ``width`` columns (see
    :func:`key_rows`); a line that is no row is folded as a paragraph."""
    title, *body = text.split("\n")
    lines, rows = [title], []
    for line in body:
        row = _KEY_ROW.fullmatch(line)
        if row is not None:
            rows.append((row.group(1), row.group(2)))
            continue
        if rows:
            lines += key_rows(rows, width)
            rows = []
        lines += fill(line.strip(), width)
    if rows:
        lines += key_rows(rows, width)
    return lines


def _fold_columns(text: str, width: int, indent: str, later: str) -> list[str]:
    """:func:`textwrap.wrap` at spaces (not the no-break ones), measuring in terminal
    columns; a word wider than a line is cut across lines."""
    lines: list[str] = []
    prefix, body = indent, ""
    for word in _SPACES.split(text.strip()):
        joined = f"{body} {word}" if body else word
        if visible_len(prefix + joined) <= width:
            body = joined
            continue
        if body:
            lines.append(prefix + body)
            prefix = later
        while visible_len(prefix + word) > width and len(word) > 1:
            head = cut_columns(word, max(width - visible_len(prefix), 1), "") or word[0]
            lines.append(prefix + head)
            prefix, word = later, word[len(head) :]
        body = word
    if body:
        lines.append(prefix + body)
    return lines


_SPACES = re.compile(r"[ \t\n]+")


