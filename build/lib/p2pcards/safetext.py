"""Showing text that came from someone else: one line, no terminal control, no look-alikes.

Every string a peer sends (a player name, a host's refusal, the reason a seat
gives for stopping) ends up on somebody's terminal, and a terminal obeys what
it prints. ESC and the C1 controls start sequences that set the window title,
move the cursor or clear the screen; a line break lets text pose as a line of
the game ("evil wins with 0 points!"); bidi overrides and isolates reorder what
is shown; zero-width and filler characters make two different names look the
same, or a name look empty.

* :func:`clean` makes untrusted text safe to print on one line.
* :func:`has_unsafe` is the fixed set of characters that protocol text may not
  carry at all (the message schema refuses them, so honest nodes never send
  them). It is a list written out here, not a Unicode category looked up at run
  time, so that every node accepts exactly the same names whatever its Python's
  Unicode version: a name one node accepts and another refuses would split the
  table.
* :func:`skeleton` and :func:`confusable` tell when two names would look alike;
  :func:`label_names` then tells them apart with a piece of each player's key
  fingerprint.

This module imports nothing from p2pcards: every layer uses it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

UNSAFE_RANGES: tuple[tuple[int, int], ...] = (
    (0x0000, 0x001F),  # C0 controls: ESC, BEL, tab, line feed, carriage return...
    (0x007F, 0x009F),  # DEL and the C1 controls (0x9B is CSI, 0x9D is OSC)
    (0x00AD, 0x00AD),  # soft hyphen (invisible)
    (0x0600, 0x0605),  # Arabic number signs (format characters)
    (0x061C, 0x061C),  # Arabic letter mark (bidi)
    (0x06DD, 0x06DD),  # Arabic end of ayah (format)
    (0x070F, 0x070F),  # Syriac abbreviation mark (format)
    (0x0890, 0x0891),  # Arabic pound and piastre marks above (format)
    (0x08E2, 0x08E2),  # Arabic disputed end of ayah (format)
    (0x115F, 0x1160),  # Hangul fillers (blank letters)
    (0x180E, 0x180E),  # Mongolian vowel separator (invisible)
    (0x200B, 0x200F),  # zero-width space, non-joiner and joiner; left-to-right and right-to-left marks
    (0x2028, 0x202E),  # line and paragraph separators; bidi embeddings, pop and overrides
    (0x2060, 0x206F),  # word joiner, invisible operators, bidi isolates, deprecated format controls
    (0x2800, 0x2800),  # braille pattern blank (a blank that is not whitespace)
    (0x3164, 0x3164),  # Hangul filler
    (0xD800, 0xDFFF),  # surrogates (never valid text on their own)
    (0xFEFF, 0xFEFF),  # zero-width no-break space (byte order mark)
    (0xFFA0, 0xFFA0),  # halfwidth Hangul filler
    (0xFFF9, 0xFFFB),  # interlinear annotation controls
    (0x110BD, 0x110BD),  # Kaithi number sign (format)
    (0x110CD, 0x110CD),  # Kaithi number sign above (format)
    (0x13430, 0x1343F),  # Egyptian hieroglyph format controls
    (0x1BCA0, 0x1BCA3),  # shorthand format controls
    (0x1D173, 0x1D17A),  # musical symbol format controls
    (0xE0000, 0xE007F),  # tag characters
)
"""Characters no protocol text may contain: every control (Cc), format character (Cf),
line or paragraph separator (Zl, Zp) and surrogate of Unicode 15, and the blank
letters that display as nothing. Fixed, so that all nodes agree on what they refuse."""

_UNSAFE = re.compile("[" + "".join(f"\\U{a:08x}-\\U{b:08x}" for a, b in UNSAFE_RANGES) + "]")

_ESCAPES = re.compile(
    r"""
      \x1b\[ [0-?]* [ -/]* [@-~]               # CSI: cursor, colours, clear screen...
    | \x1b[\]PX^_] .*? (?:\x07|\x1b\\|\x9c|\Z) # OSC, DCS, SOS, PM, APC strings, up to BEL or ST
    | \x1b [ -/]* [0-~]?                       # any other escape (and a lone ESC)
    | \x9b [0-?]* [ -/]* [@-~]                 # CSI as one C1 character
    | [\x90\x98\x9d\x9e\x9f] .*? (?:\x07|\x1b\\|\x9c|\Z)  # C1 string controls, up to BEL or ST
    """,
    re.VERBOSE | re.DOTALL,
)

_BREAKS = frozenset("\t\n\v\f\r\x1c\x1d\x1e\x85\u2028\u2029")
"""Characters that end a line or jump: shown as a space, so the words on each side stay apart."""

_REMOVED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Zl", "Zp"})
"""Removed on display, whatever the Unicode version (beyond :data:`UNSAFE_RANGES`)."""

MAX_MARKS = 4
"""Combining marks kept on one letter: enough for any script, not for text that climbs over lines."""

ELLIPSIS = "…"


def has_unsafe(text: str) -> bool:
    """True if ``text`` holds a character of :data:`UNSAFE_RANGES` (a control, an invisible one)."""
    return _UNSAFE.search(text) is not None


def clean(text: str, limit: int = 80) -> str:
    """``text`` made safe to show on one line of a terminal, at most ``limit`` characters.

    Escape sequences are dropped whole (so ``ESC ] 0 ; title BEL`` leaves no
    residue), line breaks and tabs become spaces, every other control, format,
    bidi, zero-width and filler character is dropped, runs of whitespace become
    one space, and a letter keeps at most :data:`MAX_MARKS` combining marks.
    Longer text is cut and ends with ``…``.
    """
    if limit < 1:
        raise ValueError("the limit is at least one character")
    text = _ESCAPES.sub("", text)
    out: list[str] = []
    marks = 0
    for ch in text:
        if ch in _BREAKS or ch.isspace():
            if out and out[-1] != " ":
                out.append(" ")
            marks = 0
            continue
        if _UNSAFE.match(ch) or unicodedata.category(ch) in _REMOVED_CATEGORIES:
            continue
        if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me"):
            marks += 1
            if marks > MAX_MARKS:
                continue
        else:
            marks = 0
        out.append(ch)
    result = "".join(out).strip(" ")
    if len(result) > limit:
        result = result[: limit - 1].rstrip(" ") + ELLIPSIS
    return result


# ---------------------------------------------------------------------------
# Names that look alike

_LOOKALIKES: dict[str, str] = {
    # Cyrillic capitals
    "А": "A", "В": "B", "С": "C", "Е": "E", "Н": "H", "І": "I", "Ј": "J", "К": "K", "М": "M",
    "О": "O", "Р": "P", "Ѕ": "S", "Т": "T", "Х": "X", "У": "Y", "Ү": "Y", "Ԛ": "Q", "Ԝ": "W",
    "Ӏ": "l", "Ғ": "F",
    # Cyrillic small letters
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x", "і": "l", "ј": "j",
    "ѕ": "s", "ԁ": "d", "һ": "h", "ԛ": "q", "ԝ": "w", "ӏ": "l", "ү": "y", "к": "k", "ь": "b",
    "г": "r", "п": "n", "т": "t", "м": "m", "в": "b", "н": "h",
    # Greek capitals
    "Α": "A", "Β": "B", "Ε": "E", "Ζ": "Z", "Η": "H", "Ι": "I", "Κ": "K", "Μ": "M", "Ν": "N",
    "Ο": "O", "Ρ": "P", "Τ": "T", "Υ": "Y", "Χ": "X",
    # Greek small letters
    "α": "a", "ο": "o", "ρ": "p", "ν": "v", "ι": "l", "κ": "k", "υ": "u", "χ": "x", "γ": "y",
    "ϲ": "c", "ϳ": "j",
    # Latin and digits that pass for each other: 0 and O; 1, I, l, | and i (all as l)
    "0": "O", "1": "l", "I": "l", "|": "l", "i": "l", "ı": "l", "ȷ": "j",
}  # fmt: skip
"""Characters that pass for a Latin letter in most fonts (a few common ones, not all of
Unicode's confusables): the Cyrillic and Greek letters that look Latin, 0/O and 1/I/l/i."""

_LOOKALIKE_PAIRS = (("rn", "m"), ("vv", "w"))


def _map(text: str) -> str:
    return "".join(_LOOKALIKES.get(ch, ch) for ch in text)


def skeleton(name: str) -> str:
    """What ``name`` looks like, roughly: equal skeletons mean two names can be taken for each other.

    Cleaned, NFKC-normalised (full-width and styled letters become plain ones),
    stripped of accents and other combining marks, look-alike letters mapped to
    the Latin letter they pass for, then case-folded: ``Alice``, ``ALICE``, ``A1ice``,
    ``ａｌｉｃｅ``, ``Alicé`` and ``Аlice`` (Cyrillic А) all give ``allce`` (the thin
    letters i, l, I and 1 count as one).
    """
    text = unicodedata.normalize("NFKC", clean(name, 1000))
    text = "".join(ch for ch in unicodedata.normalize("NFD", text) if not unicodedata.combining(ch))
    text = _map(_map(text).casefold())
    for pair, single in _LOOKALIKE_PAIRS:
        text = text.replace(pair, single)
    return text


def confusable(a: str, b: str) -> bool:
    """True if the two names could be taken for each other on screen (equal names included)."""
    return skeleton(a) == skeleton(b)


def label_names(
    names: Sequence[str], tags: Sequence[str], *, limit: int = 32, width: int = 10, min_tag: int = 4
) -> list[str]:
    """The names of one table as shown: cleaned, and told apart where they look alike.

    ``tags[i]`` identifies player ``i`` (the hex digits of their key's
    fingerprint). A name that looks like another one at the table (see
    :func:`skeleton`) is shown as ``name#tag`` with the shortest prefix of its
    tag, at least ``min_tag`` characters, that differs from the tags of the
    names it looks like: a player who grinds a key to share a prefix with a
    victim only makes both tags longer. Such a label is cut to ``width``
    characters keeping the whole tag, so that it survives narrow columns; other
    names are cut to ``limit``. A name that is empty once cleaned shows as ``?``.
    """
    if len(names) != len(tags):
        raise ValueError("one tag per name")
    shown = [clean(n, limit) or "?" for n in names]
    alike: dict[str, list[int]] = {}
    for i, n in enumerate(names):
        alike.setdefault(skeleton(n), []).append(i)
    for group in alike.values():
        if len(group) < 2:
            continue
        size = min_tag
        longest = max(len(tags[i]) for i in group)
        while size < longest and len({tags[i][:size] for i in group}) < len(group):
            size += 1
        for i in group:
            tag = clean(tags[i], 1000)[:size]
            room = max(1, width - len(tag) - 1)
            shown[i] = f"{clean(names[i], room) or '?'}#{tag}"
    return shown

