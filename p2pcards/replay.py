"""A finished game, hand by hand, with every card shown: ``p2pcards replay FILE``.

The transcript is audited first (nothing is shown that the audit did not
verify); then the full-information record of ``docs/record.md`` is written out
as text for people, as the game screen and the web page say it: the rules in
words, each hand's cards as dealt (sorted as the game screen sorts a hand),
every move as a sentence, and the scores, folded to the terminal's width. A
match that went on without a player shows the hands of every table it was
played at, and who left when.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from p2pcards.games.base import game as game_named
from p2pcards.protocol.audit import HOW
from p2pcards.replay_moves import (
    SUIT_NAMES,
    SUIT_SYMBOLS,
    card_text,
    gone_between,
    hand_result,
    neuf_positions,
    nines_positions,
    player_names,
    seat_name,
    sort_cards,
    tables,
)
from p2pcards.safetext import clean
from p2pcards.ui.render import WIDTH, fill

__all__ = ["card_text", "hand_lines", "replay"]


def _cards(cards: Sequence[str]) -> str:
    return " ".join(card_text(c) for c in cards) if cards else "-"


def _rules_lines(record: Mapping[str, Any], width: int) -> list[str]:
    """The rules in force, in the words the audit uses (``Game.describe_rules``)."""
    rules = record.get("rules")
    if not isinstance(rules, dict):
        return []
    try:
        spec = game_named(str(record.get("game")))
        sentences = spec.describe_rules(spec.rules_from_dict(dict(rules)))
    except Exception:  # rules this version cannot read: said as they are written
        sentences = ["Rules: " + ", ".join(f"{k} {v}" for k, v in rules.items()) + "."]
    return [line for s in sentences for line in fill(s, width, "", "    ")]


def _heading(hand: Mapping[str, Any], names: Sequence[str], game: str, width: int) -> str:
    title = f"Hand {hand.get('number', '?')}"
    if hand.get("playoff"):
        title += " (playoff)"
    title += f" · {seat_name(names, hand.get('dealer'))} deals"
    if game == "neuf":
        trump = hand.get("trump")
        title += (
            f" · trumps {SUIT_NAMES[trump]} ({SUIT_SYMBOLS[trump]})" if trump in SUIT_NAMES else " · no trump"
        )
    head = f"── {title} "
    return head + "─" * max(1, width - len(head))


def hand_lines(
    hand: Mapping[str, Any], names: Sequence[str], game: str, rules: Mapping[str, Any], width: int = WIDTH
) -> list[str]:
    """One hand of a record as lines of text at most ``width`` wide (a card or a name
    longer than a line is the only thing that may overflow)."""
    trump = hand.get("trump")
    dealt = [list(c) for c in hand.get("dealt", [])]
    lines = [_heading(hand, names, game, width)]
    positions = neuf_positions(hand, names) if game == "neuf" else nines_positions(hand, names, rules)
    lines += fill(positions[0]["text"], width)
    lines.append("  Dealt:")
    column = max((len(seat_name(names, s)) for s in range(len(dealt))), default=4)
    for seat, cards in enumerate(dealt):
        name = seat_name(names, seat)
        text = f"{name:<{column}}  {_cards(sort_cards(cards, game, trump))}"
        lines += fill(text, width, "    ", " " * (6 + column))
    moves = [p["text"] for p in positions[1:]]
    if game == "neuf":
        lines += fill(
            "Dummy: " + _cards(sort_cards(list(hand.get("dummy", [])), game, trump)), width, "  ", "    "
        )
        exchanges = len(hand.get("exchanges", []))
        lines.append("  Exchanges:")
        lines += _numbered(moves[:exchanges], width)
        lines.append("  Tricks:")
        lines += _numbered([_trick(t, names) for t in hand.get("tricks", [])], width)
    else:
        stock = list(hand.get("stock", []))
        lines += fill(f"Stock ({len(stock)} cards, the top first): {_cards(stock)}", width, "  ", "    ")
        lines.append("  Moves:")
        lines += _numbered(moves, width)
    for text in hand_result(game, hand, names):
        lines += fill(text, width, "  ", "    ")
    return lines


def _numbered(texts: Sequence[str], width: int) -> list[str]:
    out = []
    for i, text in enumerate(texts, start=1):
        head = f"    {i}. "
        out += fill(text, width, head, " " * len(head))
    return out or ["    -"]


def _trick(trick: Mapping[str, Any], names: Sequence[str]) -> str:
    """``p2 leads 5♣, p0 plays 8♣, p1 plays 10♣: p1 wins.``"""
    plays = [p for p in trick.get("plays", []) if isinstance(p, Mapping)]
    said = [
        f"{seat_name(names, p.get('seat'))} {'leads' if i == 0 else 'plays'} {card_text(str(p.get('card')))}"
        for i, p in enumerate(plays)
    ]
    return ", ".join(said) + f": {seat_name(names, trick.get('winner'))} wins."


def _departure(d: Mapping[str, Any], ended: bool) -> str:
    """Who left, when and how, and what became of the hand in progress."""
    name = clean(str(d.get("name", "?")), 40)
    scored = d.get("after_hands", 0)
    how = HOW.get(str(d.get("how")), HOW["signed" if d.get("signed") else "judged gone"])
    reason = clean(str(d.get("reason", "")), 200)
    hand = d.get("hand", scored + 1 if isinstance(scored, int) else "?")
    rest = "the others were too few to play on" if ended else "the others played on from a fresh deal"
    return (
        f'{name} left after {scored} hand{"s" if scored != 1 else ""} ({how}: "{reason}"), during hand '
        f"{hand}: that hand is void, and {rest}; {name} keeps a total of {d.get('total', '?')}."
    )


def replay(record: Mapping[str, Any], width: int = WIDTH) -> Iterator[list[str]]:
    """The game as blocks of lines: who played, then each hand, then the result; every
    line at most ``width`` wide."""
    game = str(record.get("game"))
    rules = record.get("rules") if isinstance(record.get("rules"), dict) else {}
    segments = tables(record)
    everyone = player_names(segments[0])
    title = {"nines": "Nines", "neuf": "Le Neuf"}.get(game, clean(game, 20))
    yield fill(f"{title}: {', '.join(everyone)}.", width, "", "    ") + _rules_lines(record, width)
    for k, table in enumerate(segments):
        if k:
            last = k == len(segments) - 1 and not table.get("hands")
            gone = gone_between(segments[k - 1], table, record)
            yield [line for d in gone for line in fill(_departure(d, last), width, "", "    ")]
        names = player_names(table)
        for hand in table.get("hands", []):
            yield hand_lines(hand, names, game, rules, width)
    names = player_names(record)
    result = record.get("result", {})
    winners = [names[s] for s in result.get("winners", []) if isinstance(s, int) and 0 <= s < len(names)]
    totals = result.get("totals", [])
    tail = []
    if result.get("finished"):
        kept = [f"{clean(str(d.get('name', '?')), 40)} {d.get('total')}" for d in record.get("left", [])]
        final = ", ".join(f"{seat_name(names, s)} {t}" for s, t in enumerate(totals))
        if kept:
            final += f" (and, who left: {', '.join(kept)})"
        tail += fill(f"Final totals: {final}", width, "", "    ")
        said = ", ".join(winners) if winners else "nobody (no hand was finished)"
        tail += fill(f"Winner{'s' if len(winners) > 1 else ''}: {said}", width, "", "    ")
    else:
        tail += fill(
            "The game did not finish: only the hands verified to their end are shown.", width, "", ""
        )
    yield tail
