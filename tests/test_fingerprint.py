"""The table fingerprint: what it covers, that every seat of one table shows the same, and that
a host who splits the table in two cannot make both halves show the same.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import trio
from click.testing import CliRunner
from hypothesis import given
from hypothesis import strategies as st
from net_helpers import RecordingUI, config, join_seat, start_host
from protocol_helpers import (
    SHORT_RULES,
    entropy_for,
    game_id_for,
    identity_for,
    make_roster,
    make_tables,
    transcript_bytes,
)

from p2pcards.cli import main
from p2pcards.crypto.identity import Identity
from p2pcards.games.neuf.rules import NeufRules
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import NinesRules
from p2pcards.net.node import Outcome
from p2pcards.protocol.audit import audit_bytes, audit_file
from p2pcards.protocol.fingerprint import DOMAIN, TableFingerprint, fingerprint_input
from p2pcards.protocol.loopback import LocalNetwork
from p2pcards.protocol.messages import Join, Player
from p2pcards.protocol.table import table_class

KEYS = [bytes([0x11]) * 32, bytes([0x22]) * 32]
SECRETS = [bytes([0x33]) * 32, bytes([0x44]) * 32]
GAME = bytes(range(16))


def fp(**changes: object) -> TableFingerprint:
    args: dict[str, object] = {
        "game_id": GAME,
        "game": "nines",
        "rules": NinesRules().to_dict(),
        "keys": KEYS,
        "secrets": SECRETS,
    }
    args.update(changes)
    return TableFingerprint.compute(**args)  # type: ignore[arg-type]


def test_the_test_vector_of_the_definition() -> None:
    """The example of the module docstring (and protocol.md), so that another
    implementation can check its encoding byte for byte."""
    data = fingerprint_input(
        game_id=GAME, game="nines", rules=NinesRules().to_dict(), keys=KEYS, secrets=SECRETS
    )
    assert data.startswith(DOMAIN + b"\x10" + GAME + b"\x05nines\x09\x0caction_cards\x01")
    assert b"\x06target\x03\x03100\x03tie\x04\x00\x05share\x02" + KEYS[0] + KEYS[1] in data
    assert data.endswith(SECRETS[0] + SECRETS[1])
    assert fp().digest.hex().startswith("344f3c016f02d5d5a3cb7011")
    assert fp().text == "1983 2699 6100"


def by_the_definition(
    game_id: bytes, game: str, rules: Mapping[str, Any], keys: Sequence[bytes], secrets: Sequence[bytes]
) -> bytes:
    """protocol.md section 9, "The table fingerprint", written out again from the text alone:
    the digest of the input it defines."""

    def short(b: bytes) -> bytes:
        return bytes([len(b)]) + b

    def value(v: object) -> bytes:
        if v is None or isinstance(v, bool):
            return {None: b"\x00", False: b"\x01", True: b"\x02"}[v]
        if isinstance(v, int):
            return b"\x03" + short(str(v).encode())
        if isinstance(v, str):
            return b"\x04" + len(v.encode()).to_bytes(2, "big") + v.encode()
        assert isinstance(v, list | tuple)
        return b"\x05" + bytes([len(v)]) + b"".join(value(x) for x in v)

    names = sorted(rules, key=str.encode)
    data = b"p2pcards/v1/table-fingerprint\x00" + short(game_id) + short(game.encode())
    data += bytes([len(rules)]) + b"".join(short(n.encode()) + value(rules[n]) for n in names)
    data += bytes([len(keys)]) + b"".join(keys) + b"".join(secrets)
    return hashlib.sha256(data).digest()


def test_the_definition_written_out_again_gives_the_test_vector() -> None:
    digest = by_the_definition(GAME, "nines", NinesRules().to_dict(), KEYS, SECRETS)
    assert digest.hex().startswith("344f3c016f02d5d5a3cb7011")
    assert TableFingerprint(digest).text == "1983 2699 6100"


# Guards TableFingerprint.of_table: what a seat shows is the definition's digest of its table,
# read from the records (the join record's rules, the roster's keys in seat order, the secrets
# of the step 2 reveals in seat order), for a game with a list rule too.
@pytest.mark.parametrize("game_name", ["nines", "neuf"])
def test_what_a_table_shows_is_the_definition_of_its_records(game_name: str) -> None:
    roster = make_roster(3, 12)
    rules = SHORT_RULES if game_name == "nines" else NeufRules()
    tables = {
        s: table_class(game_name)(
            game_id=game_id_for(12),
            roster=roster,
            rules=rules,
            seat=s,
            identity=identity_for(s, 12),
            entropy=entropy_for(s, 12),
        )
        for s in range(3)
    }
    LocalNetwork(tables).start()  # type: ignore[arg-type]
    t = tables[2]
    join = t.transcript.steps[0][0].record.body
    assert isinstance(join, Join)
    reveals = t.transcript.steps[2]
    secrets = [reveals[s].record.body.secret for s in range(3)]  # type: ignore[attr-defined]
    keys = [p.key for p in join.roster]
    digest = by_the_definition(t.game_id, join.game, dict(join.rules), keys, secrets)
    assert TableFingerprint.of_table(t) == TableFingerprint(digest)


def test_twelve_digits_in_three_groups() -> None:
    assert re.fullmatch(r"\d{4} \d{4} \d{4}", fp().text)
    assert str(fp()) == fp().text


def test_same_table_same_fingerprint() -> None:
    assert fp() == fp()
    assert fp(rules=dict(reversed(NinesRules().to_dict().items()))) == fp()  # the order of a map is no input


def test_everything_that_makes_the_table_changes_it() -> None:
    other = bytes([0x55]) * 32
    variants = [
        fp(keys=[KEYS[0], other]),  # one seat's key
        fp(keys=[KEYS[1], KEYS[0]], secrets=[SECRETS[1], SECRETS[0]]),  # the seats swapped
        fp(secrets=[SECRETS[0], other]),  # one cut secret
        fp(game_id=bytes(16)),
        fp(game="eights"),
        fp(rules=NinesRules(hard_nines=True).to_dict()),
        fp(rules=NinesRules(target=150).to_dict()),
        fp(rules=NinesRules(hands=1).to_dict()),
    ]
    assert len({v.digest for v in [fp(), *variants]}) == len(variants) + 1


@given(st.binary(min_size=32, max_size=32), st.binary(min_size=32, max_size=32))
def test_the_host_cannot_fix_it_before_the_cut(key: bytes, secret: bytes) -> None:
    """With the roster fixed, each seat's fresh cut secret still moves the fingerprint."""
    if secret != SECRETS[1]:
        assert fp(keys=[KEYS[0], key], secrets=[SECRETS[0], secret]) != fp(keys=[KEYS[0], key])


# ---------------------------------------------------------------------------
# Tables


def test_every_seat_of_one_table_computes_the_same_and_so_does_the_audit() -> None:
    tables = make_tables(3, SHORT_RULES, seed=4)
    assert all(TableFingerprint.of_table(t) is None for t in tables.values())  # not before the cut
    LocalNetwork(tables).start()
    shown = {TableFingerprint.of_table(t) for t in tables.values()}
    assert len(shown) == 1 and None not in shown
    report = audit_bytes(transcript_bytes(tables[1]))
    assert report.table is not None and TableFingerprint.of_table(report.table) in shown


def test_a_host_that_splits_the_table_cannot_show_both_halves_one_fingerprint() -> None:
    """The attack: Alice's roster has a puppet of the host in Bob's seat, Bob's roster a
    puppet in Alice's. Each half is a valid game - same names, same game id, every check
    passes, "Everyone is linked: Hal, Alice and Bob" on both screens - but Alice and Bob
    each play against the host alone. Only the fingerprint differs."""
    hal, alice, bob, fake_alice, fake_bob = (Identity.generate() for _ in range(5))
    rules, game_id = SHORT_RULES, game_id_for(9)

    def half(seats: list[Identity], seed: int) -> dict[int, Table]:
        names = ["Hal", "Alice", "Bob"]
        roster = [Player(name=n, key=i.public_key) for n, i in zip(names, seats, strict=True)]
        return {
            s: Table(
                game_id=game_id, roster=roster, rules=rules, seat=s, identity=i, entropy=entropy_for(s, seed)
            )
            for s, i in enumerate(seats)
        }

    alices_half = half([hal, alice, fake_bob], seed=1)
    bobs_half = half([hal, fake_alice, bob], seed=2)
    for tables in (alices_half, bobs_half):
        net = LocalNetwork(tables)
        net.start()
        assert not net.failures and all(t.status == "running" for t in tables.values())
    seen_by_alice = {TableFingerprint.of_table(t) for t in alices_half.values()}
    seen_by_bob = {TableFingerprint.of_table(t) for t in bobs_half.values()}
    assert len(seen_by_alice) == len(seen_by_bob) == 1  # the host's puppets agree with each
    assert seen_by_alice != seen_by_bob  # ... but Alice and Bob, reading aloud, do not
    assert [p.name for p in alices_half[1].roster] == [p.name for p in bobs_half[2].roster]


# ---------------------------------------------------------------------------
# Nodes over 127.0.0.1, and the audit command


async def test_every_node_shows_the_same_fingerprint_once_and_the_audit_prints_it(tmp_path: Path) -> None:
    shown: dict[int, list[str]] = {}

    def ready(fingerprint: TableFingerprint, table: Table) -> None:
        assert table.seat is not None and table.cut_rounds  # after the cut, before any card is played
        shown.setdefault(table.seat, []).append(fingerprint.text)

    outcomes: dict[int, Outcome] = {}
    host_ui = RecordingUI()
    async with trio.open_nursery() as nursery:
        host = replace(config(tmp_path, "s0", seed=10, ui=host_ui), on_table_ready=ready)
        port = await start_host(nursery, host, players=3, rules=NinesRules(hands=1), outcomes=outcomes)
        for seat in (1, 2):
            cfg = replace(config(tmp_path, f"s{seat}", seed=10 + seat), on_table_ready=ready)
            await join_seat(nursery, port, cfg, seat, outcomes, host_ui)
    assert [o.status for _, o in sorted(outcomes.items())] == ["over"] * 3
    assert sorted(shown) == [0, 1, 2] and all(len(texts) == 1 for texts in shown.values())
    (text,) = {texts[0] for texts in shown.values()}
    assert all(o.fingerprint is not None and o.fingerprint.text == text for o in outcomes.values())
    for seat in range(3):
        path = tmp_path / f"s{seat}.p2pt"
        report = audit_file(path)
        assert report.valid and report.table is not None
        assert str(TableFingerprint.of_table(report.table)) == text
        result = CliRunner().invoke(main, ["audit", str(path)])
        assert result.exit_code == 0, result.output
        assert result.output.startswith("VALID: ")
        assert f"Table fingerprint: {text}\n  Nobody confirmed comparing it" in result.output
