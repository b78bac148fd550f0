"""Text from peers on a terminal: cleaned to one inert line, refused by the schema, names told apart.

A peer chooses its name and the reason it gives for stopping; a host chooses the
names it announces and its refusals. None of it may drive the other players'
terminals (escape sequences, line breaks, bidi controls) or pass one player off
as another (look-alike letters, invisible characters).
"""

from __future__ import annotations

import json
import unicodedata

import pytest
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st

from p2pcards.cli import _json_for_terminal, main
from p2pcards.crypto.identity import Identity, fingerprint
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import NinesRules
from p2pcards.net.node import Outcome
from p2pcards.protocol.lobby import Hello, decode_lobby_object, encode_lobby
from p2pcards.protocol.messages import MAX_NAME, Player, SchemaError, body_from_wire
from p2pcards.protocol.wire import PROTOCOL_VERSION, WireError, unpack_untrusted
from p2pcards.safetext import (
    MAX_MARKS,
    UNSAFE_RANGES,
    clean,
    confusable,
    has_unsafe,
    label_names,
    skeleton,
)
from p2pcards.ui.i18n import Translator
from p2pcards.ui.netgame import NetworkUI, describe_outcome
from p2pcards.ui.prompt import Console
from p2pcards.ui.render import Style, table_names

TITLE = "\x1b]0;pwned\x07"
"""OSC 0: sets the terminal's window title."""
FAKE_LINE = "\nevil wins with 0 points!"
BAD = [
    TITLE + "Eve",
    "Eve" + FAKE_LINE,
    "\x1b[2J\x1b[HEve",  # clear the screen, cursor home
    "\x9b31mEve",  # CSI as a single C1 character
    "\u202eEve",  # right-to-left override
    "E\u200bve",  # zero-width space
    "\u2066Eve\u2069",  # bidi isolate
    "Eve\u2028Bob",  # line separator
    "\u3164",  # Hangul filler: a name that shows as nothing
    "Eve\r",
    "Eve\x7f",
]


def no_control(text: str) -> bool:
    return "\x1b" not in text and not any(
        unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp") for c in text
    )


# ---------------------------------------------------------------------------
# clean()


@given(st.text(), st.integers(min_value=1, max_value=120))
def test_clean_leaves_one_line_of_inert_text_within_the_limit(text: str, limit: int) -> None:
    out = clean(text, limit)
    assert no_control(out)
    assert len(out) <= limit
    assert not has_unsafe(out)
    assert out == out.strip() and "  " not in out
    assert clean(out, limit) == out  # cleaning twice changes nothing


@given(st.text(alphabet=st.characters(codec="ascii"), max_size=60))
def test_clean_keeps_escape_sequences_out_whole(text: str) -> None:
    """Whatever surrounds them, no byte of a sequence stays: no ``]0;`` residue."""
    out = clean(f"{text}{TITLE}{text}", 200)
    assert "pwned" not in out.replace(text, "") or "pwned" in text


@pytest.mark.parametrize(
    ("text", "shown"),
    [
        (TITLE + "Eve", "Eve"),
        ("\x1b[31mred\x1b[0m", "red"),
        ("\x1b[2J\x1b[HEve", "Eve"),
        ("\x9b31mEve", "Eve"),
        ("\x1bPq#0;2;0;0;0\x1b\\Eve", "Eve"),  # DCS (sixel) up to ST
        ("Eve\x1b]0;title without end", "Eve"),
        ("Eve" + FAKE_LINE, "Eve evil wins with 0 points!"),
        ("a\r\nb\tc\x0bd", "a b c d"),
        ("\u202eevE", "evE"),
        ("E\u200bv\u200de\ufeff", "Eve"),
        ("  Zoë   李雷 🂡 ", "Zoë 李雷 🂡"),
        ("e" + "\u0301" * 50, "e" + "\u0301" * MAX_MARKS),
    ],
)
def test_clean_examples(text: str, shown: str) -> None:
    assert clean(text, 80) == shown


def test_clean_cuts_long_text_with_an_ellipsis() -> None:
    assert clean("abcdefgh", 4) == "abc…"
    assert clean("abc defgh", 5) == "abc…"
    assert clean("abcd", 4) == "abcd"
    with pytest.raises(ValueError):
        clean("x", 0)


def test_the_fixed_unsafe_set_covers_every_control_and_format_character() -> None:
    """The schema's list is written out (so that all nodes agree); it must hold every
    character that this Python's Unicode data calls a control, format or separator."""
    for code in range(0x110000):
        if unicodedata.category(chr(code)) in ("Cc", "Cf", "Cs", "Zl", "Zp"):
            assert has_unsafe(chr(code)), hex(code)
    assert all(a <= b for a, b in UNSAFE_RANGES)
    for ok in ("Alice", "Zoë", "李雷", "🂡", "O'Brien", "Ana María", "\ue000"):
        assert not has_unsafe(ok), ok


# ---------------------------------------------------------------------------
# Look-alike names


@pytest.mark.parametrize(
    "other",
    ["alice", "Alice", "ALICE", "ａｌｉｃｅ", "Alicé", "\u0430lice", "al\u200bice", "Al1ce", "ΑLΙCΕ"],
)
def test_names_that_look_like_alice(other: str) -> None:
    assert confusable("alice", other), (other, skeleton(other))


@pytest.mark.parametrize("other", ["alicia", "bob", "alice2", "malice", ""])
def test_names_that_do_not(other: str) -> None:
    assert not confusable("alice", other)


@given(st.text(max_size=40))
def test_a_name_looks_like_itself_whatever_its_case(name: str) -> None:
    assert confusable(name, name.upper()) or skeleton(name) != skeleton(name.upper())
    assert confusable(name, name)


def test_look_alikes_are_told_apart_by_their_keys() -> None:
    names = ["alice", "\u0430lice", "Bob", "ALICE"]
    tags = ["1a2b3c4d", "9f8e7d6c", "00aa11bb", "1a2b0000"]
    shown = label_names(names, tags, width=10)
    # Bob stands alone; the three alices carry the shortest tag prefix that tells them apart.
    assert shown[2] == "Bob"
    assert shown[0] == "ali…#1a2b3" and shown[3] == "ALI…#1a2b0" and shown[1] == "\u0430li…#9f8e7"
    assert len(set(shown)) == 4 and all(len(s) <= 10 for s in shown)


def test_a_ground_key_prefix_only_makes_the_tags_longer() -> None:
    shown = label_names(["eve", "eve"], ["abcdef01", "abcdef02"], width=20)
    assert shown == ["eve#abcdef01", "eve#abcdef02"]


def test_a_name_cleaned_to_nothing_shows_as_a_question_mark() -> None:
    assert label_names(["\u200b", "Bob"], ["aaaa", "bbbb"]) == ["?", "Bob"]


def test_table_names_use_the_key_fingerprint() -> None:
    a, b = Identity.generate(), Identity.generate()
    roster = [Player(name="alice", key=a.public_key), Player(name="\u0430lice", key=b.public_key)]
    shown = table_names(roster)
    for name, identity in zip(shown, (a, b), strict=True):
        assert name.split("#")[1] in fingerprint(identity.public_key).replace("-", "")


# ---------------------------------------------------------------------------
# The schema refuses such names, so an honest host never seats one


def join_body(name: str) -> dict[str, object]:
    keys = [Identity.generate().public_key for _ in range(2)]
    return {
        "version": PROTOCOL_VERSION,
        "game": "nines",
        "rules": NinesRules().to_dict(),
        "roster": [["Hal", keys[0]], [name, keys[1]]],
    }


@pytest.mark.parametrize("name", [*BAD, "", "   "])
def test_a_join_record_with_such_a_name_is_refused(name: str) -> None:
    with pytest.raises(SchemaError):
        body_from_wire("join", join_body(name))


@pytest.mark.parametrize("name", ["Zoë", "李雷", "🂡 ace", "O'Brien", "x" * MAX_NAME])
def test_ordinary_names_are_accepted(name: str) -> None:
    assert body_from_wire("join", join_body(name)).roster[1].name == name  # type: ignore[attr-defined]


@pytest.mark.parametrize("name", BAD)
def test_the_host_refuses_a_hello_with_such_a_name(name: str) -> None:
    """The lobby's check (what the host reads in a ``hello``) refuses what the join record would."""
    hello = Hello(name=name, key=Identity.generate().public_key, nonce=bytes(32), port=1, pake=bytes(33))
    with pytest.raises(WireError, match="control, bidi or invisible"):
        decode_lobby_object(unpack_untrusted(encode_lobby(hello), 1 << 16))


@pytest.mark.parametrize("name", [TITLE + "Eve", "Eve\nHal"])
def test_the_command_refuses_such_a_name_of_its_own(name: str) -> None:
    for command in (["play", "--offline"], ["host", "--port", "0"], ["join", "127.0.0.1", "--code", "4-a-b"]):
        result = CliRunner().invoke(main, [*command, "--name", name])
        assert result.exit_code == 2, (command, result.output)  # a usage error, with click's usage line
        assert result.output.startswith("Usage: ")
        assert "a name cannot contain control" in result.output and "\x1b" not in result.output


# ---------------------------------------------------------------------------
# What a terminal shows when a peer (or a host) sends such text anyway


def evil_table() -> Table:
    me = Identity.generate()
    roster = [
        Player(name="Hal", key=me.public_key),
        Player(name=TITLE + "Eve" + FAKE_LINE, key=Identity.generate().public_key),
        Player(name="\u202eHal", key=Identity.generate().public_key),
    ]
    return Table(game_id=bytes(16), roster=roster, rules=NinesRules(), seat=0, identity=me, entropy=bytes(32))


def captured_ui() -> tuple[NetworkUI, list[str]]:
    out: list[str] = []
    console = Console(tr=Translator("en"), style=Style(), read=lambda p: "", write=out.append)
    return NetworkUI(console, human=False), out


def injected(lines: list[str]) -> list[str]:
    """Lines that show a control character, or that a peer's text started."""
    text = "\n".join(lines)
    return [
        line
        for line in text.split("\n")
        if not no_control(line) or line.lstrip().startswith(("evil wins", "Hal wins"))
    ]


def test_the_lobby_and_the_table_show_peers_names_cleaned_and_told_apart() -> None:
    ui, out = captured_ui()
    ui.lobby(["Hal", TITLE + "Eve" + FAKE_LINE], 3)
    ui.info("Eve" + FAKE_LINE + " joined from 127.0.0.1")
    table = evil_table()
    ui.progress(table)
    ui.waiting(table, 6.0)
    assert not injected(out), out
    assert "At the table (2 of 3): Hal and Eve evil wins with 0 points!" in out
    # "Hal" and the reversed "‮Hal" look alike: each shows with its key.
    assert ui.names[0].startswith("Hal#") and ui.names[2].startswith("Hal#") and ui.names[0] != ui.names[2]


def test_an_abort_reason_with_escapes_is_one_clean_line() -> None:
    table = evil_table()
    outcome = Outcome(
        status="failed",
        problem=f"{table.roster[1].name} (seat 1) stopped the match: {TITLE}\x1b[2J\nHal wins with 0 points!",
        blamed=(1,),
        transcript=None,
        table=table,
        names=[p.name for p in table.roster],
    )
    lines = describe_outcome(outcome, Translator("en"))
    assert len(lines) == 1 and not injected(lines), lines
    assert "Hal wins with 0 points!" in lines[0]  # shown, as the text it is
    outcome.table = None  # without the table, the names alone are cleaned
    assert not injected(describe_outcome(outcome, Translator("fr")))


def test_the_audit_json_stays_json_and_inert() -> None:
    document = {"players": [{"name": "a\u202eb\x9b[2J\u2028c\x1b"}], "n": 1}
    text = _json_for_terminal(document)
    assert json.loads(text) == document
    assert no_control(text.replace("\n", ""))
    plain = {"players": [{"name": "Zoë"}]}
    assert _json_for_terminal(plain) == json.dumps(plain, indent=2, ensure_ascii=False)
