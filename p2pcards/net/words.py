"""Invitation codes: a number and two words, easy to read aloud (``4-ember-lantern``).

About 22.6 bits: 98 numbers x 256 x 256 words (16 bits once the number is known, as
discovery makes it). That is enough only because no guess can be tested offline: the
code is proven with SPAKE2 (p2pcards.crypto.pake), one guess per connection.
"""

from __future__ import annotations

import secrets

WORDS: tuple[str, ...] = (
    "acid",
    "acorn",
    "agent",
    "alarm",
    "album",
    "alpine",
    "amber",
    "anchor",
    "angle",
    "apple",
    "apron",
    "arch",
    "arena",
    "arrow",
    "atlas",
    "attic",
    "autumn",
    "axis",
    "badge",
    "bagel",
    "ball",
    "bamboo",
    "banjo",
    "barn",
    "basil",
    "basket",
    "beacon",
    "beam",
    "bear",
    "bell",
    "berry",
    "bike",
    "birch",
    "bison",
    "blade",
    "blanket",
    "blaze",
    "bloom",
    "board",
    "boat",
    "bolt",
    "bonus",
    "book",
    "boot",
    "bottle",
    "boulder",
    "bowl",
    "brass",
    "bread",
    "breeze",
    "brick",
    "bridge",
    "brook",
    "broom",
    "bubble",
    "bucket",
    "bugle",
    "button",
    "cabin",
    "cable",
    "cactus",
    "camel",
    "camera",
    "canal",
    "candle",
    "canoe",
    "canvas",
    "canyon",
    "cargo",
    "carpet",
    "carrot",
    "castle",
    "cedar",
    "cello",
    "chalk",
    "charm",
    "cherry",
    "chess",
    "chimney",
    "cider",
    "cinema",
    "circle",
    "citrus",
    "cliff",
    "clock",
    "cloud",
    "clover",
    "coast",
    "cobalt",
    "cocoa",
    "comet",
    "compass",
    "copper",
    "coral",
    "cotton",
    "cousin",
    "crane",
    "crater",
    "crayon",
    "creek",
    "cricket",
    "crown",
    "crystal",
    "cube",
    "cup",
    "curtain",
    "cycle",
    "dahlia",
    "daisy",
    "delta",
    "denim",
    "desert",
    "diamond",
    "dingo",
    "dolphin",
    "domino",
    "dragon",
    "drum",
    "dune",
    "eagle",
    "easel",
    "echo",
    "eclipse",
    "ember",
    "emerald",
    "engine",
    "falcon",
    "feather",
    "fern",
    "ferry",
    "fiddle",
    "fig",
    "flame",
    "flint",
    "flute",
    "forest",
    "fossil",
    "fountain",
    "fox",
    "galaxy",
    "garden",
    "garnet",
    "gecko",
    "ginger",
    "glacier",
    "globe",
    "granite",
    "grape",
    "gravel",
    "guitar",
    "hammer",
    "harbor",
    "harp",
    "hazel",
    "helmet",
    "heron",
    "hill",
    "honey",
    "horizon",
    "hornet",
    "iceberg",
    "igloo",
    "indigo",
    "iris",
    "island",
    "ivory",
    "jacket",
    "jade",
    "jasmine",
    "jelly",
    "jigsaw",
    "juniper",
    "kayak",
    "kettle",
    "kiwi",
    "koala",
    "ladder",
    "lagoon",
    "lake",
    "lantern",
    "laser",
    "lemon",
    "lily",
    "lime",
    "linen",
    "lion",
    "lobster",
    "locket",
    "lotus",
    "lunar",
    "magnet",
    "mango",
    "maple",
    "marble",
    "meadow",
    "melon",
    "meteor",
    "mint",
    "mirror",
    "mosaic",
    "moss",
    "mountain",
    "mug",
    "nectar",
    "needle",
    "nest",
    "nickel",
    "noodle",
    "oak",
    "oasis",
    "ocean",
    "olive",
    "onion",
    "opal",
    "orbit",
    "orchid",
    "otter",
    "owl",
    "paddle",
    "palm",
    "panda",
    "paper",
    "parrot",
    "pearl",
    "pebble",
    "pepper",
    "piano",
    "pigeon",
    "pillow",
    "pine",
    "planet",
    "plum",
    "pocket",
    "pony",
    "poplar",
    "prism",
    "pumpkin",
    "quartz",
    "quill",
    "rabbit",
    "radar",
    "raven",
    "reef",
    "ribbon",
    "river",
    "robin",
    "rocket",
    "rose",
    "ruby",
    "saddle",
    "saffron",
    "sail",
    "salmon",
    "sand",
    "satin",
    "scarf",
)


def new_code() -> str:
    """A fresh random invitation code."""
    number = 2 + secrets.randbelow(98)
    return f"{number}-{secrets.choice(WORDS)}-{secrets.choice(WORDS)}"


def likely_meant(code: str) -> tuple[str, str] | None:
    """``(word, code)`` when ``code`` has the shape of an invitation (a number and two
    words) and a word that is no code word but is close to one, or the unfinished start of
    some: that word, and the code with every such word mended. None when the code may well
    be meant as it is (its words are code words, or too far from any, as in a code the host
    chose itself)."""
    from p2pcards.protocol.lobby import normalize_code

    parts = normalize_code(code).split("-")
    if len(parts) != 3 or not parts[0].isdigit():
        return None
    strange = None
    for k in (1, 2):
        if parts[k] in _KNOWN:
            continue
        close = _close_words(parts[k], shortest_start=2)
        if not close:
            return None
        strange = strange or parts[k]
        # The fewest typos away (two letters swapped is one typo: ``blaed`` is ``blade``),
        # then the one that keeps more of the start (a word is typed from its start, and its
        # end is where a typo falls), then difflib's order.
        typed = parts[k]
        parts[k] = min(close, key=lambda w: (_typos(typed, w), -_same_start(w, typed)))
    return None if strange is None else (strange, "-".join(parts))


_KNOWN = frozenset(WORDS)


def unfinished(code: str) -> bool:
    """``code`` is the start of an invitation code and not a whole one: its number, then one
    word that is a code word, the start of one or close to one (``60-feather``, ``60-fea``), or
    nothing after the dash (``60-``). ``60-feather-`` is ``60-feather``: dashes at the end count
    for nothing. Such a code cannot be the host's; a host name rarely looks like one."""
    from p2pcards.protocol.lobby import normalize_code

    parts = normalize_code(code).split("-")
    if not parts[0].isdigit() or len(parts[0]) > 2 or len(parts) > 2:
        return False
    if len(parts) == 1:
        return code.strip().endswith("-")
    return parts[1] in _KNOWN or bool(_close_words(parts[1], shortest_start=0))


def _close_words(word: str, *, shortest_start: int) -> list[str]:
    """The code words ``word`` is close to (a typo or two), else those it begins (a word left
    unfinished: Tab had two to offer), if it has ``shortest_start`` letters or more."""
    from difflib import get_close_matches

    return get_close_matches(word, WORDS, n=4, cutoff=0.7) or sorted(
        w for w in WORDS if len(word) >= shortest_start and w.startswith(word)
    )


def _typos(a: str, b: str) -> int:
    """The fewest typos that make ``a`` into ``b``: a letter left out, added, changed, or two
    neighbours swapped (the optimal string alignment distance)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            row[j] = min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], prev2[j - 2] + 1)
        prev2, prev = prev, row
    return prev[len(b)]


def _same_start(a: str, b: str) -> int:
    """How many letters ``a`` and ``b`` share at their start."""
    n = 0
    while n < min(len(a), len(b)) and a[n] == b[n]:
        n += 1
    return n
