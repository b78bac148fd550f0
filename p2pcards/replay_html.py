"""A verified game as one web page: ``p2pcards replay FILE --html OUT.html``.

A terminal replay scrolls past; a page can be mailed, archived next to the
transcript and opened years later on any computer, so it holds everything
itself: inline CSS and script, no font, image or script fetched from anywhere.
It shows the same thing as the terminal replay (the record of
``docs/record.md``, only after the audit verified the transcript) and lets the
reader step through it: the table at every move with every hand face up, a
chart of the totals after each hand, and the audit's checklist.

Everything in the page that comes from the transcript is text written by the
players (names above all), so it is never trusted as markup: it is escaped
where Python writes HTML, embedded as JSON with ``<``, ``>`` and ``&`` written
as ``\\u003c`` escapes (no name can close the ``<script>`` element), and the
script puts it in the page with ``textContent`` only.

The positions (each seat's cards after each move) are computed in Python from
the record (:mod:`p2pcards.replay_moves`, which the terminal replay shares), not
in the page's script, so that they can be checked in Python and the script
stays a viewer.

The page is written in the reader's language (a :class:`~p2pcards.ui.i18n.Translator`,
English unless told): the sentences in Python, and the words the script puts on the
table from a JSON block of their own (``words``), so the game's data stays the same
in every language.
"""

from __future__ import annotations

import html
import json
import os
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from p2pcards.crypto.identity import fingerprint
from p2pcards.errors import UsageError
from p2pcards.protocol.audit import AuditReport, rules_in_words
from p2pcards.replay_moves import (
    ENGLISH,
    final_totals,
    first_seats,
    game_title,
    hand_result,
    player_names,
    replay_of,
    seat_name,
    tables,
)
from p2pcards.ui.i18n import Translator

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
"""One line colour per seat of the score chart (six seats at most, two to spare)."""


def escape(text: object) -> str:
    """``text`` as HTML text or attribute value: markup in a player's name stays text."""
    return html.escape(str(text), quote=True)


def script_json(data: Any) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element.

    ``<``, ``>`` and ``&`` (and the two line separators old parsers treat as
    line breaks) only occur inside JSON strings, where their ``\\u`` escapes mean
    the same: so no string can end the element (``</script>``) or open a comment.
    """
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    for char, code in (("<", "\\u003c"), (">", "\\u003e"), ("&", "\\u0026")):
        text = text.replace(char, code)
    return text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def start_totals(record: Mapping[str, Any]) -> list[int]:
    """Every seat's total before the first hand (the game's ``start_total``: Le Neuf counts
    down from ``start``; 0 for a game this version lacks)."""
    n = len(record.get("players", []))
    rules = record.get("rules") or {}
    try:
        start = replay_of(str(record.get("game"))).start_total(rules if isinstance(rules, dict) else {})
    except UsageError:
        start = 0
    return [start] * n


def _table_start(table: Mapping[str, Any], record: Mapping[str, Any]) -> list[int]:
    """The totals a table starts from: the carried ones, when it went on from another."""
    carried = table.get("carried")
    if isinstance(carried, Mapping) and isinstance(carried.get("totals"), list):
        return list(carried["totals"])
    return start_totals({**record, "players": table.get("players", [])})


def score_series(record: Mapping[str, Any]) -> list[list[int]]:
    """Each player's total at the start, then after each hand: the lines of the chart.

    There is a line for everyone who sat down (the first table's seats); the line of a
    player who left stops at the last hand scored before they went."""
    segments = tables(record)
    first = segments[0]
    series = [[t] for t in start_totals({**record, "players": first.get("players", [])})]
    for table in segments:
        seats = first_seats(table, first)
        for hand in table.get("hands", []):
            for seat, total in enumerate(hand.get("totals", [])):
                if seat < len(seats) and seats[seat] < len(series):
                    series[seats[seat]].append(total)
    return series


def game_data(record: Mapping[str, Any], names: Sequence[str], tr: Translator = ENGLISH) -> dict[str, Any]:
    """What the page's script shows: each hand with its positions, by seat.

    ``names`` are everyone's who sat down; each hand has the names of its own table
    (a table that went on without a player renumbers the seats)."""
    game = str(record.get("game"))
    rules = record.get("rules") or {}
    hands = []
    for table in tables(record):
        here = player_names(table, tr)
        totals = _table_start(table, record)
        for hand in table.get("hands", []):
            positions = replay_of(game).positions(hand, here, rules, tr)
            hands.append(
                {
                    "number": hand.get("number"),
                    "dealer": hand.get("dealer"),
                    "playoff": bool(hand.get("playoff", False)),
                    "trump": hand.get("trump"),
                    "names": list(here),
                    "before": list(totals),
                    "after": list(hand.get("totals", [])),
                    "positions": positions,
                    "result": hand_result(game, hand, here, tr),
                }
            )
            totals = list(hand.get("totals", totals))
    return {"game": game, "names": list(names), "hands": hands}


# ---------------------------------------------------------------------------
# The score chart


def chart_svg(
    series: Sequence[Sequence[int]], names: Sequence[str], goal: int | None = None, tr: Translator = ENGLISH
) -> str:
    """The totals after each hand as an inline SVG line chart, one line per seat.

    ``goal`` draws the line that ends the game (Nines' target, Le Neuf's 0).
    Each line carries its values in ``data-totals`` so that the chart can be
    checked against the record without reading pixels.
    """
    width, height, left, right, top, bottom = 640, 260, 44, 16, 14, 30
    points = max((len(s) for s in series), default=1)
    values = [v for s in series for v in s] + ([goal] if goal is not None else [])
    low, high = min(values, default=0), max(values, default=1)
    if high == low:
        high = low + 1
    span_x = max(points - 1, 1)

    def x(i: int) -> float:
        return round(left + (width - left - right) * i / span_x, 1)

    def y(v: float) -> float:
        return round(top + (height - top - bottom) * (high - v) / (high - low), 1)

    axis_y = height - bottom
    parts = [
        f'<svg id="chart" viewBox="0 0 {width} {height}" role="img" aria-labelledby="chart-title">',
        f'<title id="chart-title">{escape(tr("rph_chart_title"))}</title>',
        f'<line class="axis" x1="{left}" y1="{axis_y}" x2="{width - right}" y2="{axis_y}"/>',
        f'<line class="axis" x1="{left}" y1="{top}" x2="{left}" y2="{height - bottom}"/>',
    ]
    for v in sorted({low, high, *([goal] if goal is not None else [])}):
        parts.append(f'<text class="tick" x="{left - 6}" y="{y(v) + 4}" text-anchor="end">{v}</text>')
    if goal is not None:
        parts.append(
            f'<line class="goal" x1="{left}" y1="{y(goal)}" x2="{width - right}" y2="{y(goal)}">'
            f"<title>{escape(tr('rph_goal', goal=goal))}</title></line>"
        )
    step = max(1, (points - 1) // 12)
    for i in range(0, points, step):
        label = escape(tr("rph_start")) if i == 0 else str(i)
        parts.append(f'<text class="tick" x="{x(i)}" y="{height - 10}" text-anchor="middle">{label}</text>')
    parts.append(f'<line id="chart-marker" x1="{x(0)}" y1="{top}" x2="{x(0)}" y2="{height - bottom}"/>')
    for seat, values_of_seat in enumerate(series):
        color = COLORS[seat % len(COLORS)]
        name = seat_name(names, seat, tr)
        coords = " ".join(f"{x(i)},{y(v)}" for i, v in enumerate(values_of_seat))
        data = ",".join(str(v) for v in values_of_seat)
        parts.append(
            f'<g class="series" data-seat="{seat}" data-totals="{data}">'
            f'<polyline fill="none" stroke="{color}" stroke-width="2.5" points="{coords}"/>'
        )
        for i, v in enumerate(values_of_seat):
            point = tr("rph_point_start", name=name, v=v) if i == 0 else tr("rph_point", name=name, v=v, i=i)
            parts.append(
                f'<circle cx="{x(i)}" cy="{y(v)}" r="3.5" fill="{color}">'
                f"<title>{escape(point)}</title></circle>"
            )
        parts.append("</g>")
    parts.append("</svg>")
    return "".join(parts)


def totals_table(series: Sequence[Sequence[int]], names: Sequence[str], tr: Translator = ENGLISH) -> str:
    """The chart's numbers as a table: the totals after each hand, by seat."""
    rows = [f'<table id="totals"><thead><tr><th>{escape(tr("rph_after_hand"))}</th>']
    rows += [f'<th data-seat="{s}">{escape(seat_name(names, s, tr))}</th>' for s in range(len(series))]
    rows.append("</tr></thead><tbody>")
    for i in range(max((len(s) for s in series), default=0)):
        label = escape(tr("rph_start")) if i == 0 else str(i)
        cells = "".join(
            f'<td data-seat="{s}">{escape(v[i])}</td>' if i < len(v) else f'<td data-seat="{s}"></td>'
            for s, v in enumerate(series)
        )
        rows.append(f'<tr data-hand="{i}"><th>{label}</th>{cells}</tr>')
    rows.append("</tbody></table>")
    return "".join(rows)


# ---------------------------------------------------------------------------
# The audit's checklist


def audit_sections(report: AuditReport, tr: Translator = ENGLISH) -> tuple[str, list[str], list[str]]:
    """The audit's summary split as the page shows it: the verdict, its notes, what was checked.

    The players, the rules and the file's date are shown from the report
    itself; these three parts are the audit's own words (``p2pcards audit``), in the
    language of ``tr``.
    """
    lines: list[str] = []
    for line in report.summary(tr).split("\n"):
        if line.startswith("    ") and lines:
            lines[-1] += " " + line.strip()  # a wrapped line continues the one before
        else:
            lines.append(line)
    headline, rest = lines[0], lines[1:]
    checked = tr("audit_checked")
    stops = [tr("audit_players_title"), checked]
    if report.table is not None:  # the first line of the rules in words
        stops += rules_in_words(report.table.GAME, report.table.rules, tr)[:1]
    notes: list[str] = []
    for line in rest:
        if line.startswith(tuple(stops)) or not line.strip():
            break
        notes.append(line)
    checks: list[str] = []
    if checked in rest:
        checks = [line for line in rest[rest.index(checked) + 1 :] if line.strip()]
    return headline, notes, checks


def checklist_html(report: AuditReport, names: Sequence[str], tr: Translator = ENGLISH) -> str:
    """The verification section: players and keys, table fingerprint, date, rules, each check."""
    headline, notes, checks = audit_sections(report, tr)
    ok = "valid" if report.valid else "incomplete"
    out = [f'<p id="verdict" class="verdict {ok}">{escape(headline)}</p>']
    out += [f'<p class="note">{escape(line)}</p>' for line in notes]
    seat_head, player_head, key_head = (
        escape(tr(k)) for k in ("rph_seat", "rph_player", "rph_key_fingerprint")
    )
    out.append(f'<table id="players"><thead><tr><th>{seat_head}</th><th>{player_head}</th>')
    out.append(f"<th>{key_head}</th></tr></thead><tbody>")
    for seat, (_, key) in enumerate(report.seated):
        try:
            fp = fingerprint(bytes.fromhex(key))
        except ValueError:
            fp = "?"
        swatch = f'<span class="swatch" style="background:{COLORS[seat % len(COLORS)]}"></span>'
        out.append(
            f'<tr data-seat="{seat}"><td>{seat}</td><td>{swatch}{escape(seat_name(names, seat, tr))}</td>'
            f'<td class="mono">{escape(fp)}</td></tr>'
        )
    out.append("</tbody></table><dl>")

    def who(seat: int) -> str:
        return seat_name(names, seat, tr)

    table_fp = report.compared_fingerprint()
    if table_fp is not None:
        out.append(
            f'<dt>{escape(tr("rph_table_fingerprint"))}</dt><dd><span id="table-fingerprint" class="mono">'
            f"{escape(table_fp)}</span> {escape(report.comparison(who, tr))}</dd>"
        )
    saved = report.saved(who, tr)
    if saved:
        said = escape(saved)
        out.append(f'<dt>{escape(tr("rph_date"))}</dt><dd id="saved">{said}</dd>')
    if report.table is not None:
        rules = rules_in_words(report.table.GAME, report.table.rules, tr)
        joined: list[str] = []
        for line in rules:
            if line.startswith("    ") and joined:
                joined[-1] += " " + line.strip()
            else:
                joined.append(line)
        out.append(f'<dt>{escape(tr("rph_rules"))}</dt><dd><ul id="rules">')
        out += [f"<li>{escape(line)}</li>" for line in joined]
        out.append("</ul></dd>")
    out.append('</dl><ul id="checks">')
    for line in checks:
        mark, _, text = line.partition(" ")
        if mark == "\u2713":
            out.append(
                f'<li class="check"><span class="tick" aria-hidden="true">\u2713</span>{escape(text)}</li>'
            )
        else:
            out.append(f"<li>{escape(line)}</li>")
    out.append("</ul>")
    return "".join(out)


# ---------------------------------------------------------------------------
# The page


def match_goal(game: str, rules: Mapping[str, Any]) -> int | None:
    """The total that ends the match, if the rules have one (the game's ``goal``: Le Neuf's
    0, Nines' target, but none in a Nines match of a fixed number of hands)."""
    return replay_of(game).goal(rules)


def render_page(report: AuditReport, tr: Translator = ENGLISH) -> str:
    """The whole page of a transcript the audit found valid (or incomplete with no fault)."""
    if not report.valid and not report.incomplete:
        raise ValueError("only a transcript that verifies is shown")
    record = report.to_record()
    names = player_names(tables(record)[0], tr)  # everyone who sat down
    game = str(record.get("game"))
    title = game_title(game)
    rules = record.get("rules") or {}
    goal = match_goal(game, rules)
    series = score_series(record)
    result = record.get("result", {})
    last = player_names(record, tr)
    winners = [seat_name(last, s, tr) for s in result.get("winners", [])]
    if result.get("finished"):
        said = tr.n("audit_winners", len(winners), names=", ".join(winners)) if winners else None
        outcome = (said or tr("audit_winner_nobody")) + ". "
        outcome += tr("rp_final", totals=final_totals(record, last, tr)) + "."
    else:
        outcome = tr("rp_unfinished")
    legend = "".join(
        f'<li><span class="swatch" style="background:{COLORS[s % len(COLORS)]}"></span>{escape(n)}</li>'
        for s, n in enumerate(names)
    )
    heading = tr("rp_title", game=title, names=", ".join(names)).removesuffix(".")
    return PAGE.format(
        lang=tr.lang,
        title=escape(heading),
        heading=escape(heading),
        outcome=escape(outcome),
        chart=chart_svg(series, names, goal if isinstance(goal, int) else None, tr),
        legend=legend,
        totals=totals_table(series, names, tr),
        checklist=checklist_html(report, names, tr),
        css=CSS,
        data=script_json(game_data(record, names, tr)),
        words=script_json(script_words(tr)),
        script=SCRIPT,
        address=escape(tr("rph_address", address="\0")).replace("\0", "<code>#hand=2&amp;move=3</code>"),
        **{key: escape(tr(key)) for key in PAGE_WORDS},
    )


PAGE_WORDS = (
    "rph_table", "rph_controls", "rph_prev_hand", "rph_prev_move", "rph_next_move", "rph_next_hand",
    "rph_hand_button", "rph_move_button", "rph_keys", "rph_every_move", "rph_scores", "rph_verification",
    "rph_noscript",
)  # fmt: skip
"""The page's own words, by key (each the name of its place in :data:`PAGE`)."""

SCRIPT_WORDS = (
    "rph_no_hand", "audit_none_verified", "rp_heading", "rp_heading_playoff", "rph_where",
    "rph_the_deal", "rph_move_of", "rph_dealer", "rph_total", "audit_seat",
)  # fmt: skip
SCRIPT_PLURALS = ("rph_cards",)


def script_words(tr: Translator) -> dict[str, Any]:
    """The words the script puts on the table, in ``tr``'s language: each message with its
    ``{fields}`` for the script to fill, a message that follows a number as its two forms, and
    which form a number takes (French says ``0 carte``, English and Italian ``0 cards``)."""
    fields = {
        key: "{" + key + "}"
        for key in ("n", "game", "names", "playoff", "dealer", "i", "what", "m", "last", "card", "seat")
    }
    words: dict[str, Any] = {key: tr(key, **fields) for key in SCRIPT_WORDS}
    words |= {key: [tr.n(key, count, **fields) for count in (1, 2)] for key in SCRIPT_PLURALS}
    words["zero_one"] = tr.n("rph_cards", 0, n=0) == tr.n("rph_cards", 1, n=0)  # "0 carte"
    return words


def write_page(report: AuditReport, path: str | Path, tr: Translator = ENGLISH) -> None:
    """Write the page to ``path`` whole or not at all (a temporary file renamed over it)."""
    text = render_page(report, tr)
    target = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=".replay-", suffix=".html", dir=target.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(tmp, 0o644)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


PAGE = """<!DOCTYPE html>
<html lang="{lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; \
script-src 'unsafe-inline'; img-src data:">
<title>{title}</title>
<style>{css}</style>
</head>
<body>
<header>
<h1>{heading}</h1>
<p id="outcome">{outcome}</p>
</header>
<main>
<section id="table-section" aria-labelledby="hand-title">
<h2 id="hand-title">{rph_table}</h2>
<nav id="controls" aria-label="{rph_controls}">
<button type="button" id="prev-hand" title="{rph_prev_hand}">&#x25C0;&#x25C0; {rph_hand_button}</button>
<button type="button" id="prev-move" title="{rph_prev_move}">&#x25C0; {rph_move_button}</button>
<span id="where" aria-live="polite"></span>
<button type="button" id="next-move" title="{rph_next_move}">{rph_move_button} &#x25B6;</button>
<button type="button" id="next-hand" title="{rph_next_hand}">{rph_hand_button} &#x25B6;&#x25B6;</button>
</nav>
<p class="keys">{rph_keys} {address}</p>
<p id="move-line" aria-live="polite"></p>
<div id="board">
<div id="center"></div>
<div id="seats"></div>
</div>
<div id="hand-result" hidden></div>
<details id="moves-box" open><summary>{rph_every_move}</summary>
<ol id="moves" start="0"></ol></details>
</section>
<section id="scores" aria-labelledby="scores-title">
<h2 id="scores-title">{rph_scores}</h2>
{chart}
<ul class="legend">{legend}</ul>
{totals}
</section>
<section id="audit" aria-labelledby="audit-title">
<h2 id="audit-title">{rph_verification}</h2>
{checklist}
</section>
</main>
<noscript><p>{rph_noscript}</p></noscript>
<script type="application/json" id="game-data">{data}</script>
<script type="application/json" id="words">{words}</script>
<script>{script}</script>
</body>
</html>
"""

CSS = """
:root { color-scheme: light; --felt: #0f5132; --ink: #1b1b1b; }
* { box-sizing: border-box; }
body { margin: 0; font: 15px/1.45 system-ui, sans-serif; color: var(--ink); background: #f4f1ea; }
header, main { max-width: 1100px; margin: 0 auto; padding: 0 16px; }
header { padding-top: 12px; }
h1 { font-size: 1.5em; margin: .3em 0; }
h2 { font-size: 1.15em; margin: 1em 0 .4em; }
section { background: #fff; border-radius: 10px; padding: 8px 16px 14px; margin: 12px 0;
  box-shadow: 0 1px 3px rgba(0,0,0,.15); }
#controls { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; }
#controls button { font: inherit; padding: 4px 10px; border-radius: 6px; border: 1px solid #888;
  background: #fafafa; cursor: pointer; }
#controls button:disabled { opacity: .4; cursor: default; }
#where { font-weight: 600; min-width: 14em; text-align: center; }
.keys { color: #555; font-size: .85em; margin: .3em 0; }
#move-line { font-size: 1.1em; font-weight: 600; min-height: 1.5em; margin: .4em 0; }
#board { background: var(--felt); border-radius: 12px; padding: 10px; color: #fff; }
#center { display: flex; gap: 24px; align-items: flex-start; flex-wrap: wrap; padding: 6px 8px 10px;
  border-bottom: 1px solid rgba(255,255,255,.25); margin-bottom: 6px; }
#center .label { font-size: .8em; text-transform: uppercase; letter-spacing: .05em; opacity: .8; }
.seat { display: flex; align-items: center; gap: 10px; padding: 5px 8px; border-radius: 8px; }
.seat.acting { background: rgba(255,255,255,.16); outline: 2px solid #ffd54f; }
.seat .who { width: 12em; flex: none; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.seat .who .name { font-weight: 600; }
.seat .badge { font-size: .75em; background: #ffd54f; color: #333; border-radius: 4px; padding: 0 4px;
  margin-left: 4px; }
.seat .info { font-size: .8em; opacity: .85; display: block; }
.cards { display: flex; flex-wrap: wrap; gap: 3px; min-height: 2.3em; }
.card { display: inline-block; min-width: 2.3em; padding: 4px 4px; border-radius: 5px; background: #fff;
  color: #111; border: 1px solid #999; text-align: center; font-weight: 600; font-size: 1.02em; }
.card.red { color: #c62828; }
.card.played { outline: 3px solid #ffd54f; }
.trick-play { display: inline-flex; flex-direction: column; align-items: center; margin-right: 6px;
  font-size: .8em; }
.trick-play.winner .card { outline: 3px solid #4fc3f7; }
#hand-result { background: #fff8e1; border: 1px solid #e0c060; border-radius: 8px; padding: 6px 12px;
  margin-top: 8px; }
#hand-result p { margin: .2em 0; }
#moves { position: relative; max-height: 16em; overflow: auto; margin: .3em 0; padding-left: 2.6em;
  font-size: .92em; }
#moves li { cursor: pointer; }
#moves li.current { background: #ffe082; font-weight: 600; }
#chart { width: 100%; max-width: 720px; height: auto; display: block; }
#chart .axis { stroke: #444; stroke-width: 1; }
#chart .goal { stroke: #b00; stroke-dasharray: 6 4; stroke-width: 1.2; }
#chart .tick { font-size: 11px; fill: #444; }
#chart-marker { stroke: #999; stroke-dasharray: 3 3; }
.legend { list-style: none; display: flex; gap: 16px; padding: 0; flex-wrap: wrap; }
.swatch { display: inline-block; width: .9em; height: .9em; border-radius: 2px; margin-right: 5px;
  vertical-align: -1px; }
table { border-collapse: collapse; margin: .5em 0; }
th, td { border: 1px solid #ccc; padding: 2px 10px; text-align: right; }
#players td, #players th { text-align: left; }
.mono { font-family: ui-monospace, monospace; }
.verdict { font-weight: 700; font-size: 1.1em; }
.verdict.valid { color: #1b5e20; }
.verdict.incomplete { color: #8d6e00; }
#checks { list-style: none; padding-left: .2em; }
#checks .tick { color: #1b5e20; font-weight: 700; margin-right: .5em; }
dt { font-weight: 600; margin-top: .5em; }
dd { margin-left: 1.2em; }
#rules { margin: 0; padding-left: 1.2em; }
"""

SCRIPT = r"""
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("game-data").textContent);
  var SUITS = {S: "\u2660", H: "\u2665", D: "\u2666", C: "\u2663"};
  var W = JSON.parse(document.getElementById("words").textContent);  // in the page's language
  var hands = data.hands, names = data.names;  // a hand's own names, once one is shown
  var state = {hand: 0, move: 0};

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function cardText(c) {
    var s = c.charAt(c.length - 1);
    return SUITS[s] ? c.slice(0, -1) + SUITS[s] : c;
  }
  function card(c, extra) {
    var s = c.charAt(c.length - 1);
    var node = el("span", "card" + (s === "H" || s === "D" ? " red" : "") + (extra ? " " + extra : ""),
                  cardText(c));
    node.setAttribute("data-card", c);
    return node;
  }
  function cardRow(cards, highlight) {
    var row = el("div", "cards");
    cards.forEach(function (c) { row.appendChild(card(c, c === highlight ? "played" : "")); });
    return row;
  }
  function t(key, values) {  // a message with its {fields} filled
    return String(W[key]).replace(/\{(\w+)\}/g, function (field, name) {
      return values && values.hasOwnProperty(name) ? String(values[name]) : field;
    });
  }
  function tn(key, count, values) {  // a message whose words follow count
    var one = count === 1 || (W.zero_one && count === 0);
    var forms = W[key], all = {n: count};
    Object.keys(values || {}).forEach(function (k) { all[k] = values[k]; });
    return String(forms[one ? 0 : 1]).replace(/\{(\w+)\}/g, function (field, name) {
      return all.hasOwnProperty(name) ? String(all[name]) : field;
    });
  }
  function nameOf(seat) {
    return (seat !== null && seat >= 0 && seat < names.length) ? names[seat] : t("audit_seat", {seat: seat});
  }
  function block(label, content) {
    var box = el("div", "block");
    box.appendChild(el("div", "label", label));
    box.appendChild(content);
    return box;
  }

  function clamp(h, m) {
    if (!hands.length) return {hand: 0, move: 0};
    h = Math.max(0, Math.min(hands.length - 1, h | 0));
    var last = hands[h].positions.length - 1;
    m = m === "end" ? last : Math.max(0, Math.min(last, m | 0));
    return {hand: h, move: m};
  }

  function renderCenter(pos, center) {  // the blocks each game's replay says its table has
    (pos.center || []).forEach(function (b) {
      var content;
      if (b.cards) {
        content = cardRow(b.cards);
      } else if (b.plays) {
        content = el("div", "trick");
        b.plays.forEach(function (p) {
          var play = el("span", "trick-play" + (b.winner === p[0] ? " winner" : ""));
          play.setAttribute("data-seat", p[0]);
          play.appendChild(card(p[1]));
          play.appendChild(el("span", "by", nameOf(p[0])));
          content.appendChild(play);
        });
        if (!b.plays.length) content.appendChild(el("span", "value", "\u2014"));
      } else {
        content = el("div", "value", b.text);
      }
      content.id = b.id;
      Object.keys(b.data || {}).forEach(function (k) { content.setAttribute("data-" + k, b.data[k]); });
      center.appendChild(block(b.label, content));
    });
  }

  function render() {
    var center = document.getElementById("center"), seats = document.getElementById("seats");
    var moves = document.getElementById("moves"), result = document.getElementById("hand-result");
    var where = document.getElementById("where"), line = document.getElementById("move-line");
    center.textContent = ""; seats.textContent = ""; moves.textContent = ""; result.textContent = "";
    if (!hands.length) {
      where.textContent = W.rph_no_hand;
      line.textContent = W.audit_none_verified;
      document.getElementById("board").hidden = true;
      document.getElementById("moves-box").hidden = true;
      ["prev-hand", "prev-move", "next-move", "next-hand"].forEach(function (id) {
        document.getElementById(id).disabled = true;
      });
      return;
    }
    var hand = hands[state.hand], pos = hand.positions[state.move], last = hand.positions.length - 1;
    names = hand.names || data.names;
    var title = document.getElementById("hand-title");
    title.textContent = t("rp_heading", {n: hand.number, playoff: hand.playoff ? W.rp_heading_playoff : "",
                                         dealer: nameOf(hand.dealer)});
    var what = state.move === 0 ? W.rph_the_deal : t("rph_move_of", {m: state.move, last: last});
    where.textContent = t("rph_where", {i: state.hand + 1, n: hands.length, what: what});
    var position = document.getElementById("table-section");
    position.setAttribute("data-hand", state.hand + 1);
    position.setAttribute("data-move", state.move);
    line.textContent = pos.text;
    renderCenter(pos, center);
    pos.hands.forEach(function (cards, seat) {
      var row = el("div", "seat" + (pos.seat === seat ? " acting" : ""));
      row.setAttribute("data-seat", seat);
      var who = el("div", "who");
      who.appendChild(el("span", "name", names[seat]));
      if (hand.dealer === seat) who.appendChild(el("span", "badge", W.rph_dealer));
      var info = tn("rph_cards", cards.length) + " \u00b7 " +
        (pos.notes ? pos.notes[seat] + " \u00b7 " : "") +
        t("rph_total", {n: hand.before[seat]});
      who.appendChild(el("span", "info", info));
      row.appendChild(who);
      row.appendChild(cardRow(cards, pos.seat === seat ? pos.drawn : null));
      seats.appendChild(row);
    });
    hand.positions.forEach(function (p, i) {
      var item = el("li", i === state.move ? "current" : "", p.text);
      item.setAttribute("data-move", i);
      if (i === state.move) item.setAttribute("aria-current", "step");
      item.addEventListener("click", function () { go(state.hand, i); });
      moves.appendChild(item);
    });
    var current = moves.querySelector("li.current");
    if (current) moves.scrollTop = Math.max(0, current.offsetTop - moves.clientHeight / 2);
    result.hidden = state.move !== last;
    if (state.move === last) {
      hand.result.forEach(function (text) { result.appendChild(el("p", "", text)); });
    }
    document.getElementById("prev-hand").disabled = state.hand === 0;
    document.getElementById("next-hand").disabled = state.hand === hands.length - 1;
    document.getElementById("prev-move").disabled = state.hand === 0 && state.move === 0;
    document.getElementById("next-move").disabled = state.hand === hands.length - 1 && state.move === last;
    var marker = document.getElementById("chart-marker");
    var points = [];  // the longest line's: a player who left has fewer
    document.querySelectorAll("#chart .series").forEach(function (g) {
      var circles = g.querySelectorAll("circle");
      if (circles.length > points.length) points = circles;
    });
    var at = points[state.move === last ? state.hand + 1 : state.hand];
    if (marker && at) {
      marker.setAttribute("x1", at.getAttribute("cx"));
      marker.setAttribute("x2", at.getAttribute("cx"));
    }
    var rows = document.querySelectorAll("#totals tbody tr");
    rows.forEach(function (r) {
      r.className = r.getAttribute("data-hand") === String(state.hand + 1) ? "current" : "";
    });
  }

  function go(h, m) {
    var next = clamp(h, m);
    state.hand = next.hand; state.move = next.move;
    render();
    var hash = "#hand=" + (state.hand + 1) + "&move=" + state.move;
    if (location.hash !== hash) {
      try { history.replaceState(null, "", hash); } catch (e) { /* a page opened from a file */ }
    }
  }
  function step(delta) {
    if (!hands.length) return;
    var last = hands[state.hand].positions.length - 1;
    if (delta > 0 && state.move === last && state.hand < hands.length - 1) go(state.hand + 1, 0);
    else if (delta < 0 && state.move === 0 && state.hand > 0) go(state.hand - 1, "end");
    else go(state.hand, state.move + delta);
  }
  function fromHash() {
    var hand = /(?:^|[#&])hand=(\d+)/.exec(location.hash);
    var move = /(?:^|[#&])move=(\d+|end)/.exec(location.hash);
    go(hand ? parseInt(hand[1], 10) - 1 : 0, move ? (move[1] === "end" ? "end" : parseInt(move[1], 10)) : 0);
  }

  document.getElementById("prev-move").addEventListener("click", function () { step(-1); });
  document.getElementById("next-move").addEventListener("click", function () { step(1); });
  document.getElementById("prev-hand").addEventListener("click", function () { go(state.hand - 1, 0); });
  document.getElementById("next-hand").addEventListener("click", function () { go(state.hand + 1, 0); });
  document.addEventListener("keydown", function (event) {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    var keys = {
      ArrowRight: function () { step(1); },
      ArrowLeft: function () { step(-1); },
      PageDown: function () { go(state.hand + 1, 0); },
      PageUp: function () { go(state.hand - 1, 0); },
      Home: function () { go(state.hand, 0); },
      End: function () { go(state.hand, "end"); }
    };
    if (keys[event.key]) { event.preventDefault(); keys[event.key](); }
  });
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
"""
