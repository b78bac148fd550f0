"""A finished game, hand by hand, with every card shown: ``p2pcards replay FILE``.

The transcript is audited first (nothing is shown that the audit did not
verify); then the full-information record of ``docs/record.md`` is written out
as text for people: each hand's cards as dealt, every move in order, and the
scores. It reads the record generically, so it shows every game the record
format describes, field by field, with names instead of seat numbers.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from p2pcards.safetext import clean

SUIT_SYMBOLS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
NAME_LIMIT = 32


def card_text(card: str) -> str:
    """``QH`` as ``Q♥`` (anything else as it is)."""
    if isinstance(card, str) and len(card) >= 2 and card[-1] in SUIT_SYMBOLS:
        return card[:-1] + SUIT_SYMBOLS[card[-1]]
    return str(card)


def _value(key: str, value: Any, names: Sequence[str]) -> str:
    if key in ("seat", "dealer", "leader", "winner") and isinstance(value, int) and 0 <= value < len(names):
        return names[value]
    if key == "trump":
        return SUIT_SYMBOLS.get(value, "no trump") if value is not None else "no trump"
    if isinstance(value, str):
        return card_text(value) if key in ("card", "up_card") or key.endswith("card") else value
    if isinstance(value, list):
        if all(isinstance(v, str) for v in value):
            return " ".join(card_text(v) for v in value) if value else "-"
        if all(isinstance(v, int) for v in value) and len(value) == len(names):
            return ", ".join(f"{names[s]} {v}" for s, v in enumerate(value))
        return "; ".join(_value(key, v, names) for v in value)
    if isinstance(value, dict):
        return _item(value, names)
    return str(value)


def _item(item: Mapping[str, Any], names: Sequence[str]) -> str:
    """One event, trick or exchange on one line, the acting seat first."""
    who = item.get("seat")
    if set(item) == {"seat", "card"} and isinstance(who, int) and 0 <= who < len(names):
        return f"{names[who]} {card_text(item['card'])}"  # a card played
    head = [names[who]] if isinstance(who, int) and 0 <= who < len(names) else []
    if "type" in item:
        head.append(str(item["type"]))  # "Alice draw K♦", "Bob play 9♣, suit D"
    for key in ("card", "cards"):
        if key in item:
            head.append(_value(key, item[key], names))
    rest = [
        f"{key.replace('_', ' ')} {_value(key, value, names)}"
        for key, value in item.items()
        if key not in ("seat", "type", "card", "cards")
    ]
    return ", ".join([" ".join(head), *rest] if head else rest)


def hand_lines(hand: Mapping[str, Any], names: Sequence[str]) -> list[str]:
    """One hand of a record as lines of text."""
    number = hand.get("number", "?")
    dealer = _value("dealer", hand.get("dealer"), names)
    lines = [f"── Hand {number} · {dealer} deals " + "─" * 40]
    for key, value in hand.items():
        if key in ("number", "dealer"):
            continue
        label = key.replace("_", " ")
        if key == "dealt" and isinstance(value, list):
            lines.append("  Dealt:")
            width = max(len(n) for n in names) if names else 4
            for seat, cards in enumerate(value):
                name = names[seat] if seat < len(names) else f"seat {seat}"
                lines.append(f"    {name:<{width}}  {_value('cards', cards, names)}")
        elif isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
            lines.append(f"  {label.capitalize()}:")
            lines.extend(f"    {i}. {_item(v, names)}" for i, v in enumerate(value, start=1))
        else:
            lines.append(f"  {label.capitalize()}: {_value(key, value, names)}")
    return lines


def tables(record: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """Every table of the match, the first first: a match that went on without a player
    keeps the tables before the last in ``earlier`` (``docs/record.md``)."""
    earlier = record.get("earlier", [])
    return (
        [*(t for t in earlier if isinstance(t, Mapping)), record] if isinstance(earlier, list) else [record]
    )


def first_seats(table: Mapping[str, Any], first: Mapping[str, Any]) -> list[int]:
    """The seat at the first table of each player of ``table`` (matched by key): a table
    that went on without a player renumbers the seats."""
    keys = [str(p.get("key", "")) for p in first.get("players", [])]
    out = []
    for seat, p in enumerate(table.get("players", [])):
        key = str(p.get("key", ""))
        out.append(keys.index(key) if key and key in keys else seat)
    return out


def gone_between(
    before: Mapping[str, Any], after: Mapping[str, Any], record: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """The entries of ``record["left"]`` for the players at ``before`` who are not at ``after``."""
    staying = {str(p.get("key", "")) for p in after.get("players", [])}
    going = [str(p.get("key", "")) for p in before.get("players", []) if str(p.get("key", "")) not in staying]
    left = [d for d in record.get("left", []) if isinstance(d, dict)]
    return [d for d in left if str(d.get("key", "")) in going]


def _names(table: Mapping[str, Any]) -> list[str]:
    return [clean(str(p.get("name", "?")), NAME_LIMIT) or "?" for p in table.get("players", [])]


def replay(record: Mapping[str, Any]) -> Iterator[list[str]]:
    """The game as blocks of lines: who played, then each hand, then the result."""
    segments = tables(record)
    names = _names(record)
    title = {"nines": "Nines", "neuf": "Le Neuf"}.get(str(record.get("game")), str(record.get("game")))
    head = [f"{title}: {', '.join(names)}."]
    rules = record.get("rules")
    if isinstance(rules, dict):
        text = "Rules: " + ", ".join(f"{k}={_value(k, v, names)}" for k, v in rules.items())
        head.extend(textwrap.wrap(text, 79, subsequent_indent="    "))
    yield head
    for k, table in enumerate(segments):
        if k:
            yield [
                f"{clean(str(d.get('name', '?')), NAME_LIMIT)} left after {d.get('after_hands')} hand(s);"
                " the others play on from a fresh deal."
                for d in gone_between(segments[k - 1], table, record)
            ]
        for hand in table.get("hands", []):
            yield hand_lines(hand, _names(table))
    result = record.get("result", {})
    winners = [names[s] for s in result.get("winners", []) if isinstance(s, int) and 0 <= s < len(names)]
    totals = result.get("totals", [])
    tail = []
    if result.get("finished"):
        tail.append(f"Final totals: {_value('totals', totals, names)}")
        tail.append(f"Winner{'s' if len(winners) > 1 else ''}: {', '.join(winners)}")
    else:
        tail.append("The game did not finish: only the hands verified to their end are shown.")
    yield tail
