"""``p2pcards replay FILE --html OUT``: one self-contained page, checked in Python and in a real browser.

What the page shows is compared with the game record the audit rebuilds from
the transcript (``docs/record.md``), never with results written here: each
seat's cards at a position are recomputed from the cards dealt and the moves
before it, the chart's lines from each hand's totals.

The browser tests drive the Chromium of the machine headless: ``--dump-dom``
with an address naming a position (``#hand=2&move=3``), a screenshot, and the
DevTools protocol over a pipe (standard library only) to click the buttons and
press the keys. They are skipped, saying why, only when no Chromium is found.
"""

from __future__ import annotations

import base64
import collections
import contextlib
import fcntl
import json
import os
import re
import select
import shutil
import struct
import subprocess
import time
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from protocol_helpers import (
    SHORT_RULES,
    entropy_for,
    game_id_for,
    identity_for,
    make_tables,
    records_file,
    run_match,
    transcript_bytes,
)
from test_leave import left_match_file
from test_neuf_protocol import build as build_neuf
from test_neuf_protocol import run as run_neuf

from p2pcards.cards import hand_sort_key, parse_card
from p2pcards.cli import main
from p2pcards.crypto.identity import fingerprint
from p2pcards.games.neuf.render import neuf_sort
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import NinesRules
from p2pcards.protocol.audit import audit_bytes, audit_file
from p2pcards.protocol.fingerprint import TableFingerprint
from p2pcards.protocol.messages import Player
from p2pcards.replay import card_text
from p2pcards.replay_html import escape, player_names, script_json

FIXTURES = Path(__file__).parent / "fixtures"
HOSTILE_NAMES = ("<b id=pwned>x</b>", "</script><b id=x>", "<script>window.pwn=1</script>")
"""Names that would make markup, close the data block, or run a script if not escaped."""

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable")
CHROMIUM = next((p for p in map(shutil.which, BROWSERS) if p), None)
needs_browser = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium on PATH (apt-get install chromium): the page is not checked in a browser",
)


# ---------------------------------------------------------------------------
# Games, and their pages written by the command line


@dataclass
class Game:
    path: Path
    page: Path
    record: dict[str, Any]

    @property
    def html(self) -> str:
        return self.page.read_text(encoding="utf-8")


def write_page(source: Path, out: Path) -> Game:
    result = CliRunner().invoke(main, ["replay", str(source), "--html", str(out)])
    assert result.exit_code == 0, result.output
    assert f"Wrote {out}" in result.output
    return Game(source, out, audit_file(source).to_record())


def hostile_transcript() -> bytes:
    """A finished game of Nines whose players chose names made of markup."""
    roster = tuple(Player(name=n, key=identity_for(s, 7).public_key) for s, n in enumerate(HOSTILE_NAMES))
    tables = {
        s: Table(
            game_id=game_id_for(7),
            roster=roster,
            rules=SHORT_RULES,
            seat=s,
            identity=identity_for(s, 7),
            entropy=entropy_for(s, 7),
        )
        for s in range(3)
    }
    net = run_match(tables, 7)
    assert not net.failures
    return transcript_bytes(tables[0])


@pytest.fixture(scope="module")
def games(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Game]:
    """Pages of a game of Nines with variants (4 players), of Le Neuf, and of hostile names."""
    folder = tmp_path_factory.mktemp("replay-html")
    neuf = build_neuf(2)
    run_neuf(neuf, 2)
    (folder / "neuf.p2pt").write_bytes(transcript_bytes(neuf[1]))
    (folder / "hostile.p2pt").write_bytes(hostile_transcript())
    shutil.copy(FIXTURES / "nines-4p-variants.p2pt", folder / "nines.p2pt")
    return {
        name: write_page(folder / f"{name}.p2pt", folder / f"{name}.html")
        for name in ("nines", "neuf", "hostile")
    }


# ---------------------------------------------------------------------------
# What the table should show, recomputed from the record


def moves_of(game: str, hand: dict[str, Any]) -> list[dict[str, Any]]:
    """The moves of a hand in order: events (Nines), or exchanges then cards played (Le Neuf)."""
    if game == "nines":
        return list(hand["events"])
    moves = [{"type": "exchange", **e} for e in hand["exchanges"]]
    for number, trick in enumerate(hand["tricks"], start=1):
        moves += [{"type": "play", "trick": number, "winner": trick["winner"], **p} for p in trick["plays"]]
    return moves


def table_after(game: str, hand: dict[str, Any], move: int) -> dict[str, Any]:
    """Each seat's cards (sorted), and the discard pile's top or the trick, after ``move`` moves."""
    hands = [list(cards) for cards in hand["dealt"]]
    dummy = list(hand.get("dummy", []))
    top, trick = hand.get("up_card"), []
    for m in moves_of(game, hand)[:move]:
        if m["type"] == "play":
            cards = m.get("cards", [m.get("card")])
            for card in cards:
                hands[m["seat"]].remove(card)
            top = cards[-1]
            trick = [*trick, m["card"]] if game == "neuf" and trick and len(trick) < 3 else [m.get("card")]
        elif m["type"] == "draw":
            hands[m["seat"]].append(m["card"])
        elif m["type"] == "exchange" and m["took"]:
            hands[m["seat"]], dummy = dummy, hands[m["seat"]]
    return {"hands": [sorted(h) for h in hands], "top": top, "trick": trick, "dummy": sorted(dummy)}


def chart_lines(record: dict[str, Any]) -> list[list[int]]:
    start = record["rules"]["start"] if record["game"] == "neuf" else 0
    return [[start, *(h["totals"][seat] for h in record["hands"])] for seat in range(len(record["players"]))]


def page_data(html: str) -> dict[str, Any]:
    found = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', html, re.S)
    assert found is not None
    return json.loads(found.group(1))  # type: ignore[no-any-return]


# ---------------------------------------------------------------------------
# A small DOM, to read what Python wrote and what the browser shows


class Node:
    def __init__(self, tag: str, attrs: dict[str, str], parent: Node | None) -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[Node | str] = []

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def all(self, pred: Callable[[Node], bool] = lambda n: True) -> Iterator[Node]:
        for c in self.children:
            if isinstance(c, Node):
                if pred(c):
                    yield c
                yield from c.all(pred)

    def by_id(self, ident: str) -> Node:
        found = [n for n in self.all(lambda n: n.attrs.get("id") == ident)]
        assert len(found) == 1, f"{len(found)} elements with id {ident!r}"
        return found[0]

    def by_class(self, cls: str) -> list[Node]:
        return list(self.all(lambda n: cls in n.attrs.get("class", "").split()))


VOID = {"meta", "br", "img", "input", "link", "hr", "source", "area", "base", "col", "wbr"}


class DomBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, None)
        self.at = self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v or "" for k, v in attrs}, self.at)
        self.at.children.append(node)
        if tag not in VOID:
            self.at = node

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.at.children.append(Node(tag, {k: v or "" for k, v in attrs}, self.at))

    def handle_endtag(self, tag: str) -> None:
        node: Node | None = self.at
        while node is not None and node.tag != tag:
            node = node.parent
        if node is not None and node.parent is not None:
            self.at = node.parent

    def handle_data(self, data: str) -> None:
        self.at.children.append(data)


def dom(html: str) -> Node:
    builder = DomBuilder()
    builder.feed(html)
    builder.close()
    return builder.root


def seat_cards(root: Node) -> list[list[str]]:
    seats = sorted(root.by_class("seat"), key=lambda n: int(n.attrs["data-seat"]))
    return [sorted(c.attrs["data-card"] for c in s.by_class("card")) for s in seats]


# ---------------------------------------------------------------------------
# The page as written


@pytest.mark.parametrize("name", ["nines", "neuf"])
def test_every_position_of_every_hand_is_the_records(games: dict[str, Game], name: str) -> None:
    game = games[name]
    record, data = game.record, page_data(game.html)
    assert data["game"] == record["game"] == ("neuf" if name == "neuf" else "nines")
    assert len(data["hands"]) == len(record["hands"]) >= 2
    for shown, hand in zip(data["hands"], record["hands"], strict=True):
        moves = moves_of(record["game"], hand)
        assert len(shown["positions"]) == len(moves) + 1  # the deal, then one per move
        for move, position in enumerate(shown["positions"]):
            expected = table_after(record["game"], hand, move)
            assert [sorted(h) for h in position["hands"]] == expected["hands"], (hand["number"], move)
            if move:
                m = moves[move - 1]
                assert position["seat"] == m.get("seat")
                if "card" in m:
                    assert card_text(m["card"]) in position["text"]
            center = {b["id"]: b for b in position["center"]}  # the blocks in the middle of the table
            if record["game"] == "nines":
                assert center["pile"]["cards"] == [expected["top"]]
            else:
                assert sorted(center["dummy"]["cards"]) == expected["dummy"]
                assert [c for _, c in center["trick"]["plays"]] == (expected["trick"] if move > 3 else [])
        assert shown["after"] == hand["totals"]
        assert f"Totals: {', '.join(f'p{s} {t}' for s, t in enumerate(hand['totals']))}." in shown["result"]


@pytest.mark.parametrize("name", ["nines", "neuf"])
def test_the_chart_and_the_checklist_are_the_audits(games: dict[str, Game], name: str) -> None:
    game = games[name]
    record, root = game.record, dom(game.html)
    lines = chart_lines(record)
    series = sorted(root.by_class("series"), key=lambda n: int(n.attrs["data-seat"]))
    assert [[int(v) for v in s.attrs["data-totals"].split(",")] for s in series] == lines
    assert [line[-1] for line in lines] == record["result"]["totals"]
    for s, line in zip(series, lines, strict=True):  # one point per total, drawn where the line goes
        points = next(s.all(lambda n: n.tag == "polyline")).attrs["points"].split()
        assert len(points) == len(line) == len(list(s.all(lambda n: n.tag == "circle")))
    rows = list(root.by_id("totals").all(lambda n: n.tag == "tr" and "data-hand" in n.attrs))
    assert [[int(td.text()) for td in r.all(lambda n: n.tag == "td")] for r in rows] == [
        list(col) for col in zip(*lines, strict=True)
    ]

    report = audit_file(game.path)
    summary = report.summary().replace("\n    ", " ").split("\n")
    assert root.by_id("verdict").text() == summary[0]
    checks = [
        li.text().replace("\u2713", "\u2713 ", 1) for li in root.by_id("checks").all(lambda n: n.tag == "li")
    ]
    assert checks == [line for line in summary if line.startswith("\u2713")]
    assert len(checks) == 5 and any("winner recomputed" in c for c in checks)
    assert root.by_id("table-fingerprint").text() == str(TableFingerprint.of_table(report.table))
    players = root.by_id("players").text()
    for p in record["players"]:
        assert fingerprint(bytes.fromhex(p["key"])) in players
    rules = [li.text() for li in root.by_id("rules").all(lambda n: n.tag == "li")]
    assert rules and all(r in report.summary().replace("\n    ", " ") for r in rules)
    assert report.saved_on is not None and report.saved_on in root.by_id("saved").text()
    winners = [record["players"][s]["name"] for s in record["result"]["winners"]]
    label = "Winners" if len(winners) > 1 else "Winner"
    assert root.by_id("outcome").text().startswith(f"{label}: {', '.join(winners)}. Final totals: ")


def test_the_page_needs_nothing_from_outside(games: dict[str, Game]) -> None:
    for game in games.values():
        html = game.html.lower()
        for outside in ("http://", "https://", "src=", "<link", "@import", "url(", "//cdn", "fetch("):
            assert outside not in html, (game.page.name, outside)
        assert "default-src 'none'" in html  # and the browser is told to fetch nothing


def test_names_are_shown_as_text_never_as_markup(games: dict[str, Game]) -> None:
    game = games["hostile"]
    html = game.html
    assert [p["name"] for p in game.record["players"]] == list(HOSTILE_NAMES)
    assert len(re.findall("<script", html, re.I)) == 3  # the data, the script's words and the script
    assert len(re.findall("</script", html, re.I)) == 3
    assert "<b " not in html
    assert "\\u003cscript\\u003ewindow.pwn=1\\u003c/script\\u003e" in html  # inert inside the JSON
    for name in HOSTILE_NAMES:
        assert escape(name) in html
    assert page_data(html)["names"] == player_names(game.record) == list(HOSTILE_NAMES)
    root = dom(html)
    assert not list(root.all(lambda n: n.tag == "b" or n.attrs.get("id") in ("pwned", "x")))
    cells = [list(r.all(lambda n: n.tag == "td")) for r in root.by_id("players").all(lambda n: n.tag == "tr")]
    assert [c[1].text() for c in cells if c] == list(HOSTILE_NAMES)


def test_the_escapes_keep_text_as_text() -> None:
    name = "<script>alert(\"x\") & 'y'</script>"
    assert escape(name) == "&lt;script&gt;alert(&quot;x&quot;) &amp; &#x27;y&#x27;&lt;/script&gt;"
    text = script_json({"names": [name, "</SCRIPT><!--", "a\u2028b"]})
    assert not set("<>&\u2028") & set(text)
    assert "\\u003c/script\\u003e" in text
    assert json.loads(text) == {"names": [name, "</SCRIPT><!--", "a\u2028b"]}


def test_a_transcript_that_does_not_verify_writes_no_page(tmp_path: Path) -> None:
    tables = make_tables(3, SHORT_RULES, seed=4)
    run_match(tables, seed=4)
    data = bytearray(transcript_bytes(tables[0]))
    raw = tables[0].transcript.records()[5].raw
    data[bytes(data).index(raw) + len(raw) // 2] ^= 0x01  # one changed bit in a signed record
    bad = tmp_path / "bad.p2pt"
    bad.write_bytes(bytes(data))
    assert not audit_bytes(bytes(data)).valid
    out = tmp_path / "bad.html"
    result = CliRunner().invoke(main, ["replay", str(bad), "--html", str(out)])
    assert result.exit_code == 1, result.output
    assert "INVALID" in result.output and "No page was written" in result.output
    assert not out.exists() and not list(tmp_path.glob("*.html"))


def test_an_unfinished_game_is_shown_as_far_as_it_verifies(tmp_path: Path) -> None:
    tables = make_tables(3, NinesRules(target=60), seed=5)
    run_match(tables, seed=5)
    records = tables[0].transcript.records()
    cut = tmp_path / "cut.p2pt"
    cut.write_bytes(records_file(records[: len(records) // 2], status="running"))  # stops mid-game
    report = audit_file(cut)
    assert report.incomplete and report.hands_verified >= 1
    game = write_page(cut, tmp_path / "cut.html")
    root = dom(game.html)
    assert root.by_id("verdict").text().startswith("INCOMPLETE")
    assert "or its file, stops here" in root.by_id("outcome").text()
    assert len(page_data(game.html)["hands"]) == report.hands_verified


@pytest.mark.parametrize("game", ["nines", "neuf"])
def test_a_page_of_a_match_that_a_player_left_shows_every_hand_and_everyone(
    tmp_path: Path, game: str
) -> None:
    """The hands played before the leave count, and the leaver played them: each hand
    names its own table's players, and the chart has a line for everyone who sat down
    (the leaver's stops where they left)."""
    source = tmp_path / f"{game}-left.p2pt"
    source.write_bytes(left_match_file(game))
    shown = write_page(source, tmp_path / f"{game}-left.html")
    record, data, root = shown.record, page_data(shown.html), dom(shown.html)
    tables = [*record["earlier"], record]
    hands = [(t, h) for t in tables for h in t["hands"]]
    assert [h["number"] for h in data["hands"]] == [h["number"] for _, h in hands]
    for drawn, (table, hand) in zip(data["hands"], hands, strict=True):
        assert drawn["names"] == [p["name"] for p in table["players"]]
        assert drawn["positions"][0]["hands"] and drawn["after"] == hand["totals"]
    everyone = [p["name"] for p in tables[0]["players"]]
    assert data["names"] == everyone
    series = sorted(root.by_class("series"), key=lambda n: int(n.attrs["data-seat"]))
    assert len(series) == len(everyone)
    (gone,) = record["left"]
    leaver = everyone.index(gone["name"])
    assert series[leaver].attrs["data-totals"].split(",")[-1] == str(gone["total"])
    seats = [td.text() for td in root.by_id("players").all(lambda n: n.tag == "td")]
    assert all(name in seats for name in everyone)
    # The final totals name the leaver's too, as the terminal's replay does.
    assert f"(and, who left: {gone['name']} {gone['total']})" in root.by_id("outcome").text()


@pytest.mark.parametrize("name", ["nines", "neuf"])
def test_every_hand_on_the_page_is_sorted_as_the_game_screen_sorts_it(
    games: dict[str, Game], name: str
) -> None:
    """A hand as dealt is in the deck's order, which nobody reads a hand in: the page
    shows each seat's cards (and the dummy) in the order the game screen uses."""
    game = games[name]
    for shown in page_data(game.html)["hands"]:
        trump = shown["trump"]
        for position in shown["positions"]:
            for cards in position["hands"]:
                parsed = [parse_card(c) for c in cards]
                by_screen = neuf_sort(parsed, trump) if name == "neuf" else sorted(parsed, key=hand_sort_key)
                assert cards == [c.text() for c in by_screen]
            if name == "neuf":
                dummy = next(b["cards"] for b in position["center"] if b["id"] == "dummy")
                assert dummy == [c.text() for c in neuf_sort(map(parse_card, dummy), trump)]


def test_the_chart_draws_the_target_only_when_the_rules_have_one(tmp_path: Path) -> None:
    """A match of a fixed number of hands ends after them, whatever the totals: a line
    at the 100-point target (ignored then) would say the match ends where it does not."""
    for rules, goal in ((NinesRules(hands=2), None), (NinesRules(target=40), "40")):
        tables = make_tables(3, rules, seed=6)
        run_match(tables, seed=6)
        source = tmp_path / f"{rules.hands}-{rules.target}.p2pt"
        source.write_bytes(transcript_bytes(tables[0]))
        root = dom(write_page(source, tmp_path / f"{rules.hands}-{rules.target}.html").html)
        chart = root.by_id("chart")
        lines = [n for n in chart.all(lambda n: n.tag == "line" and "goal" in n.attrs.get("class", ""))]
        ticks = {t.text() for t in chart.by_class("tick")}
        if goal is None:
            assert lines == [] and "the game ends at" not in chart.text()
        else:
            assert len(lines) == 1 and f"the game ends at {goal}" in lines[0].text() and goal in ticks


def test_a_page_that_cannot_be_written_is_an_error(tmp_path: Path) -> None:
    out = tmp_path / "no-such-folder" / "game.html"
    result = CliRunner().invoke(
        main, ["replay", str(FIXTURES / "nines-3p-target30.p2pt"), "--html", str(out)]
    )
    assert result.exit_code == 2 and "cannot write" in result.output
    assert not out.exists()


# ---------------------------------------------------------------------------
# In the browser


def chromium_args(profile: Path) -> list[str]:
    assert CHROMIUM is not None
    return [CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", f"--user-data-dir={profile}",
            "--no-first-run", "--hide-scrollbars"]  # fmt: skip


def dump_dom(page: Path, fragment: str, profile: Path) -> Node:
    url = page.resolve().as_uri() + fragment
    done = subprocess.run([*chromium_args(profile), "--dump-dom", url], capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    return dom(done.stdout.decode("utf-8"))


def check_position(root: Node, game: Game, hand_index: int, move: int) -> None:
    """The table in the browser is the record's after ``move`` moves of hand ``hand_index``."""
    record = game.record
    hand = record["hands"][hand_index]
    moves = moves_of(record["game"], hand)
    names = [p["name"] for p in record["players"]]
    expected = table_after(record["game"], hand, move)
    section = root.by_id("table-section")
    assert (section.attrs["data-hand"], section.attrs["data-move"]) == (str(hand_index + 1), str(move))
    where = root.by_id("where").text()
    assert where.startswith(f"Hand {hand_index + 1} of {len(record['hands'])}")
    assert where.endswith("the deal" if move == 0 else f"move {move} of {len(moves)}")
    assert seat_cards(root) == expected["hands"]
    line = root.by_id("move-line").text()
    if move:
        m = moves[move - 1]
        if "seat" in m:
            assert names[m["seat"]] in line
        if "card" in m:
            assert card_text(m["card"]) in line
    if record["game"] == "nines":
        assert [c.attrs["data-card"] for c in root.by_id("pile").by_class("card")] == [expected["top"]]
    else:
        assert sorted(c.attrs["data-card"] for c in root.by_id("dummy").by_class("card")) == expected["dummy"]
        shown = [c.attrs["data-card"] for c in root.by_id("trick").by_class("card")]
        assert shown == (expected["trick"] if move > 3 else [])
    result = root.by_id("hand-result")
    if move == len(moves):
        assert "hidden" not in result.attrs
        totals = ", ".join(f"{n} {t}" for n, t in zip(names, hand["totals"], strict=True))
        assert f"Totals: {totals}." in result.text()
    else:
        assert "hidden" in result.attrs


@pytest.mark.slow
@needs_browser
@pytest.mark.parametrize("name", ["nines", "neuf"])
def test_the_browser_shows_the_position_the_address_names(
    games: dict[str, Game], name: str, tmp_path: Path
) -> None:
    game = games[name]
    hands = game.record["hands"]
    last = len(hands) - 1
    middle = len(moves_of(game.record["game"], hands[last])) // 2 + 1
    root = dump_dom(game.page, f"#hand={last + 1}&move={middle}", tmp_path)
    check_position(root, game, last, middle)
    root = dump_dom(game.page, "#hand=1&move=end", tmp_path)
    check_position(root, game, 0, len(moves_of(game.record["game"], hands[0])))
    series = root.by_class("series")  # the chart, drawn in the browser too
    assert [s.attrs["data-totals"] for s in series] == [
        ",".join(map(str, c)) for c in chart_lines(game.record)
    ]


@pytest.mark.slow
@needs_browser
def test_hostile_names_do_not_run_in_the_browser(games: dict[str, Game], tmp_path: Path) -> None:
    root = dump_dom(games["hostile"].page, "#hand=1&move=2", tmp_path)
    assert not list(root.all(lambda n: n.tag == "b" or n.attrs.get("id") in ("pwned", "x")))
    shown = [n.text() for n in root.all(lambda n: "name" in n.attrs.get("class", "").split())]
    assert shown == list(HOSTILE_NAMES)
    check_position(root, games["hostile"], 0, 2)


def png_pixels(data: bytes) -> tuple[int, int, list[bytes]]:
    """Width, height and the RGB(A) rows of an 8-bit PNG (enough of the format for a screenshot)."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat, header = 8, b"", (0, 0, 0, 0)
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        if kind == b"IHDR":
            header = struct.unpack(">IIBB", data[pos + 8 : pos + 18])
        elif kind == b"IDAT":
            idat += data[pos + 8 : pos + 8 + length]
        pos += 12 + length
    width, height, depth, color = header
    assert depth == 8 and color in (2, 6), header
    bpp = 3 if color == 2 else 4
    raw, stride, prev, rows, at = zlib.decompress(idat), width * bpp, bytearray(width * bpp), [], 0
    for _ in range(height):
        kind, line = raw[at], bytearray(raw[at + 1 : at + 1 + stride])
        at += 1 + stride
        for x in range(stride) if kind else ():
            a = line[x - bpp] if x >= bpp else 0
            b, c = prev[x], (prev[x - bpp] if x >= bpp else 0)
            if kind == 1:
                line[x] = (line[x] + a) & 255
            elif kind == 2:
                line[x] = (line[x] + b) & 255
            elif kind == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            else:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(x for i, x in enumerate(line) if i % bpp < 3))
        prev = line
    return width, height, rows


@pytest.mark.slow
@needs_browser
def test_a_screenshot_shows_the_table(games: dict[str, Game], tmp_path: Path) -> None:
    shot = tmp_path / "table.png"
    url = games["nines"].page.resolve().as_uri() + "#hand=2&move=5"
    args = [*chromium_args(tmp_path / "profile"), f"--screenshot={shot}", "--window-size=1200,900", url]
    done = subprocess.run(args, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr[-2000:]
    width, height = looks_like_a_page(shot.read_bytes())
    assert (width, height) == (1200, 900)


def looks_like_a_page(png: bytes) -> tuple[int, int]:
    """The size of a screenshot that shows text, cards and the table, not one flat colour."""
    assert len(png) > 20_000
    width, height, rows = png_pixels(png)
    colours = collections.Counter(row[i : i + 3] for row in rows for i in range(0, len(row), 3))
    assert len(colours) > 50  # text, cards and chart, not one flat colour
    assert colours.most_common(1)[0][1] < 0.9 * width * height
    felt = colours[bytes.fromhex("0f5132")]  # the table's cloth, behind the seats and their cards
    assert felt > 0.05 * width * height
    return width, height


class DevTools:
    """Chromium driven over ``--remote-debugging-pipe``: JSON messages ending in NUL on fds 3 and 4."""

    def __init__(self, profile: Path) -> None:
        to_browser, self.writer = os.pipe()
        self.reader, from_browser = os.pipe()

        def plug() -> None:  # in the child: its fd 3 reads our commands, its fd 4 writes the replies
            high = [fcntl.fcntl(fd, fcntl.F_DUPFD, 10) for fd in (to_browser, from_browser)]
            os.dup2(high[0], 3)
            os.dup2(high[1], 4)

        self.proc = subprocess.Popen(
            [*chromium_args(profile), "--remote-debugging-pipe", "--window-size=1200,900", "about:blank"],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            preexec_fn=plug,
            close_fds=False,
        )
        os.close(to_browser)
        os.close(from_browser)
        self.buffer, self.count, self.session = b"", 0, None

    def send(self, method: str, timeout: float = 30, **params: Any) -> dict[str, Any]:
        self.count += 1
        message: dict[str, Any] = {"id": self.count, "method": method, "params": params}
        if self.session is not None and not method.startswith(("Target.", "Browser.")):
            message["sessionId"] = self.session
        os.write(self.writer, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            while b"\0" in self.buffer:
                raw, self.buffer = self.buffer.split(b"\0", 1)
                reply = json.loads(raw)
                if reply.get("id") == self.count:
                    assert "error" not in reply, reply
                    return reply["result"]  # type: ignore[no-any-return]
            left = deadline - time.monotonic()
            assert left > 0, f"no answer to {method}"
            if select.select([self.reader], [], [], left)[0]:
                chunk = os.read(self.reader, 1 << 16)
                assert chunk, "the browser closed"
                self.buffer += chunk

    def open(self, url: str) -> None:
        target = self.send("Target.createTarget", url=url)["targetId"]
        self.session = self.send("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        deadline = time.monotonic() + 30
        while not self.js("document.readyState === 'complete' && !!document.getElementById('where')"):
            assert time.monotonic() < deadline, "the page did not load"
            time.sleep(0.05)

    def js(self, expression: str) -> Any:
        result = self.send("Runtime.evaluate", expression=expression, returnByValue=True)
        assert "exceptionDetails" not in result, result
        return result["result"].get("value")

    def click(self, ident: str) -> None:
        self.js(f"document.getElementById({json.dumps(ident)}).click()")

    def key(self, key: str, code: int) -> None:
        for kind in ("rawKeyDown", "keyUp"):
            self.send("Input.dispatchKeyEvent", type=kind, key=key, code=key, windowsVirtualKeyCode=code)

    def position(self) -> tuple[int, int, str]:
        """The hand and move shown (from the address), and the DOM of the table."""
        found = re.fullmatch(r"#hand=(\d+)&move=(\d+)", self.js("location.hash"))
        assert found is not None
        return int(found.group(1)) - 1, int(found.group(2)), self.js("document.documentElement.outerHTML")

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.send("Browser.close", timeout=5)
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        os.close(self.reader)
        os.close(self.writer)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[DevTools]:
    if CHROMIUM is None:
        pytest.skip("no Chromium on PATH (apt-get install chromium): the page is not checked in a browser")
    tools = DevTools(tmp_path / "profile")
    try:
        yield tools
    finally:
        tools.close()


@pytest.mark.slow
@needs_browser
def test_buttons_and_keys_step_through_the_game(games: dict[str, Game], browser: DevTools) -> None:
    game = games["nines"]
    hands = game.record["hands"]
    first = len(moves_of("nines", hands[0]))
    browser.open(game.page.resolve().as_uri())

    def shows(hand: int, move: int) -> None:
        at_hand, at_move, html = browser.position()
        assert (at_hand, at_move) == (hand, move)
        check_position(dom(html), game, hand, move)

    shows(0, 0)  # no address: the deal of the first hand
    for move in range(1, 4):
        browser.click("next-move")
        shows(0, move)
    browser.key("ArrowLeft", 37)
    shows(0, 2)
    browser.key("End", 35)
    shows(0, first)
    browser.click("next-move")  # from the last move of a hand to the deal of the next
    shows(1, 0)
    browser.click("prev-move")
    shows(0, first)
    browser.key("PageDown", 34)
    shows(1, 0)
    browser.key("ArrowRight", 39)
    shows(1, 1)
    browser.click("prev-hand")
    shows(0, 0)
    assert browser.js("document.getElementById('prev-hand').disabled") is True
    browser.click("next-hand")
    browser.key("End", 35)
    shows(1, len(moves_of("nines", hands[1])))
    assert browser.js("document.getElementById('next-move').disabled") is True
    browser.js("location.hash = '#hand=1&move=7'")  # an address typed by hand
    deadline = time.monotonic() + 10
    while browser.js("document.getElementById('table-section').dataset.move") != "7":
        assert time.monotonic() < deadline
        time.sleep(0.05)
    shows(0, 7)
    png = base64.b64decode(browser.send("Page.captureScreenshot", format="png")["data"])
    assert looks_like_a_page(png)[0] == 1200  # the viewport: the window less its frame


@pytest.mark.slow
@needs_browser
def test_hostile_names_run_no_script(games: dict[str, Game], browser: DevTools) -> None:
    browser.open(games["hostile"].page.resolve().as_uri() + "#hand=1&move=1")
    assert browser.js("typeof window.pwn") == "undefined"
    assert browser.js("document.querySelectorAll('b, #pwned, #x').length") == 0
    scripts = "Array.from(document.scripts, s => s.id || 'code')"  # the page's own three, none more
    assert browser.js(scripts) == ["game-data", "words", "code"]
    names = browser.js("Array.from(document.querySelectorAll('.seat .name'), n => n.textContent)")
    assert names == list(HOSTILE_NAMES)
    assert browser.js("document.title").startswith("Nines: " + HOSTILE_NAMES[0])


@pytest.mark.parametrize(("lang", "words", "english"), [
    ("fr", ("Manche 1 sur", "pli"), ("Hand 1 of", "trick")),
    ("it", ("Mano 1 di", "prese"), ("Hand 1 of", "trick")),
])  # fmt: skip
def test_a_french_or_italian_page_speaks_its_language_in_the_browser(
    games: dict[str, Game], browser: DevTools, tmp_path: Path, lang: str, words: tuple[str, ...],
    english: tuple[str, ...],
) -> None:  # fmt: skip
    """The page's own script builds the table's words from the page's language: what the
    browser shows at a move of Le Neuf is in that language, with no English left."""
    page = tmp_path / f"neuf-{lang}.html"
    args = ["replay", str(games["neuf"].path), "--html", str(page), "--lang", lang]
    done = CliRunner().invoke(main, args)
    assert done.exit_code == 0, done.output
    browser.open(page.resolve().as_uri() + "#hand=1&move=20")
    assert browser.js("document.documentElement.lang") == lang
    shown = browser.js("document.getElementById('table-section').innerText")
    for word in words:
        assert word in shown, shown
    for word in english:
        assert word not in shown, shown
