"""A finished game, hand by hand, with every card shown: ``p2pcards replay FILE``.

The transcript is audited first (nothing is shown that the audit did not
verify); then the full-information record of ``docs/record.md`` is written out
as text for people, as the game screen and the web page say it: the rules in
words, each hand's cards as dealt (sorted as the game screen sorts a hand),
every move as a sentence, and the scores, folded to the terminal's width. A
match that went on without a player shows the hands of every table it was
played at, and who left when. It is said in the reader's language (a
:class:`~p2pcards.ui.i18n.Translator`; English unless told).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from p2pcards.errors import UsageError
from p2pcards.games.base import game as game_named
from p2pcards.protocol.audit import HOW, how_in_words
from p2pcards.replay_moves import (
    ENGLISH,
    card_text,
    cards_line,
    final_totals,
    game_title,
    gone_between,
    hand_result,
    player_names,
    replay_of,
    seat_name,
    sort_cards,
    tables,
)
from p2pcards.safetext import clean
from p2pcards.ui.i18n import Translator
from p2pcards.ui.render import WIDTH, fill, pad, visible_len

__all__ = ["card_text", "hand_lines", "replay"]


def _rules_lines(record: Mapping[str, Any], width: int, tr: Translator) -> list[str]:
    """The rules in force, in the words the audit uses (``Game.describe_rules``)."""
    rules = record.get("rules")
    if not isinstance(rules, dict):
        return []
    try:
        spec = game_named(str(record.get("game")))
        sentences = spec.describe_rules(spec.rules_from_dict(dict(rules)), tr)
    except Exception:  # rules this version cannot read: said as they are written
        sentences = [tr("rp_rules_raw", rules=", ".join(f"{k} {v}" for k, v in rules.items()))]
    return [line for s in sentences for line in fill(s, width, "", "    ")]


def _heading(
    hand: Mapping[str, Any], names: Sequence[str], game: str, width: int, tr: Translator
) -> list[str]:
    """``── Hand 1 · Alice deals · trumps spades (♠) ───``, ``width`` wide; a title wider
    than that (a terminal narrower than the layout) is folded at its spaces, with no bar."""
    playoff = tr("rp_heading_playoff") if hand.get("playoff") else ""
    dealer = seat_name(names, hand.get("dealer"), tr)
    title = tr("rp_heading", n=hand.get("number", "?"), playoff=playoff, dealer=dealer)
    title += replay_of(game).heading(hand, tr)
    head = f"── {title} "
    if visible_len(head) > width:
        return fill(title, width, "── ", "   ")
    return [head + "─" * max(1, width - visible_len(head))]


def hand_lines(
    hand: Mapping[str, Any],
    names: Sequence[str],
    game: str,
    rules: Mapping[str, Any],
    width: int = WIDTH,
    tr: Translator = ENGLISH,
) -> list[str]:
    """One hand of a record as lines of text at most ``width`` wide (a card or a name
    longer than a line is the only thing that may overflow)."""
    trump = hand.get("trump")
    dealt = [list(c) for c in hand.get("dealt", [])]
    lines = _heading(hand, names, game, width, tr)
    positions = replay_of(game).positions(hand, names, rules, tr)
    lines += fill(positions[0]["text"], width)
    lines.append("  " + tr("rp_dealt"))
    column = max((visible_len(seat_name(names, s, tr)) for s in range(len(dealt))), default=4)
    for seat, cards in enumerate(dealt):
        name = seat_name(names, seat, tr)
        text = f"{pad(name, column)}  {cards_line(sort_cards(cards, game, trump))}"
        lines += fill(text, width, "    ", " " * (6 + column))
    moves = [p["text"] for p in positions[1:]]
    lines += replay_of(game).hand_body(hand, names, moves, width, tr)
    for text in hand_result(game, hand, names, tr):
        lines += fill(text, width, "  ", "    ")
    return lines


def _departure(d: Mapping[str, Any], ended: bool, tr: Translator) -> str:
    """Who left, when and how, and what became of the hand in progress."""
    name = tr.person(clean(str(d.get("name", "?")), 40))
    scored = d.get("after_hands", 0)
    how = str(d.get("how"))
    how = how if how in HOW else ("signed" if d.get("signed") else "judged gone")
    reason = tr.reason(clean(str(d.get("reason", "")), 200))
    hand = d.get("hand", scored + 1 if isinstance(scored, int) else "?")
    return tr.n(
        "rp_departure",
        scored if isinstance(scored, int) else 2,
        name=name,
        n=scored,
        how=how_in_words(how, tr),
        reason=reason,
        hand=hand,
        rest=tr("rp_rest_ended" if ended else "rp_rest_on"),
        total=d.get("total", "?"),
    )


def _leaving(d: Mapping[str, Any], tr: Translator) -> str:
    """A player who signed that they leave the table the record ends on."""
    return tr(
        "rp_leaving",
        name=tr.person(clean(str(d.get("name", "?")), 40)),
        how=how_in_words("signed", tr),
        reason=tr.reason(clean(str(d.get("reason", "")), 200)),
        hand=d.get("hand", "?"),
    )


def _fewest(game: str) -> int:
    """The fewest players ``game`` is played by (2 for a game this version does not know)."""
    try:
        return game_named(game).min_players
    except UsageError:
        return 2


def replay(record: Mapping[str, Any], width: int = WIDTH, tr: Translator = ENGLISH) -> Iterator[list[str]]:
    """The game as blocks of lines: who played, then each hand, then the result; every
    line at most ``width`` wide, in the language of ``tr``."""
    game = str(record.get("game"))
    given = record.get("rules")
    rules: Mapping[str, Any] = given if isinstance(given, dict) else {}
    segments = tables(record)
    everyone = player_names(segments[0], tr)
    title = game_title(game)
    heading = tr("rp_title", game=title, names=", ".join(everyone))
    yield fill(heading, width, "", "    ") + _rules_lines(record, width, tr)
    for k, table in enumerate(segments):
        if k:  # the others went on at this table, unless too few were left to play
            ended = len(table.get("players", [])) < _fewest(game)
            gone = gone_between(segments[k - 1], table, record)
            yield [line for d in gone for line in fill(_departure(d, ended, tr), width, "", "    ")]
        names = player_names(table, tr)
        for hand in table.get("hands", []):
            yield hand_lines(hand, names, game, rules, width, tr)
    leaving = [d for d in record.get("leaving", []) if isinstance(d, Mapping)]
    if leaving:  # who signed that they leave the table the file ends on (the file stops there)
        yield [line for d in leaving for line in fill(_leaving(d, tr), width, "", "    ")]
    names = player_names(record, tr)
    result = record.get("result", {})
    winners = [names[s] for s in result.get("winners", []) if isinstance(s, int) and 0 <= s < len(names)]
    tail = []
    if result.get("finished"):
        tail += fill(tr("rp_final", totals=final_totals(record, names, tr)), width, "", "    ")
        said = (
            tr.n("audit_winners", len(winners), names=", ".join(winners))
            if winners
            else tr("audit_winner_nobody")
        )
        tail += fill(said, width, "", "    ")
        if not record.get("verdict", {}).get("valid", True):  # scored here, not signed by all
            tail += fill(tr("rp_result_unsigned"), width, "", "")
    else:
        tail += fill(tr("rp_unfinished"), width, "", "")
    yield tail
