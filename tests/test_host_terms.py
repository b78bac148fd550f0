"""A host that signs other terms than the joiners' join records: blamed live by the joiners
it told others, and in no file by anyone.

Each node compares every ``join`` with its own (the terms it was told in the lobby). A
file is only its saver's word, and either author of two joins that differ may have saved
it: the audit of any file names nobody for terms that differ (protocol.md section 8).
"""

from __future__ import annotations

import random

from hypothesis import assume, given, settings
from hypothesis import strategies as st
from protocol_helpers import SHORT_RULES, entropy_for, game_id_for, identity_for, make_roster

from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.loopback import LocalNetwork
from p2pcards.protocol.transcript import encode_file


def split_terms(clock_of: dict[int, tuple[int, int, int]], n: int = 3, seed: int = 21) -> dict[int, Table]:
    """A table of ``n`` whose seats were told the clocks ``clock_of`` (else 600/60/120),
    run until the join step settles it."""
    roster = make_roster(n, seed)
    tables = {
        s: Table(
            game_id=game_id_for(seed),
            roster=roster,
            rules=SHORT_RULES,
            seat=s,
            identity=identity_for(s, seed),
            entropy=entropy_for(s, seed),
            clock=clock_of.get(s, (600, 60, 120)),
        )
        for s in range(n)
    }
    LocalNetwork(tables, rng=random.Random(seed)).start()
    return tables


def test_a_host_that_signs_other_terms_is_blamed_live_and_no_file_names_anyone() -> None:
    tables = split_terms({0: (30, 60, 120)})  # the host signs a 30 s turn, the joiners were told 600
    for s in (1, 2):
        live = tables[s].failure
        assert live is not None and live.peer == 0 and "disagrees on the table" in live.problem
    host = tables[0]
    assert host.failure is not None and host.failure.peer == 1  # its word: it knows what it told
    # Whoever saved it, and under whatever name, a file shows only that two seats signed other
    # terms: the host's file cannot blame a joiner it lied to, nor a joiner's file an honest host.
    for saver in range(3):
        records = tables[saver].records_to_save()
        for label in (saver, 0, 1, 2, None):
            report = audit_bytes(encode_file(records, saved_by=label, status="failed"))
            assert not report.valid and report.problems, (saver, label)
            assert all(p.seat is None for p in report.problems), (saver, label, report.problems)
            assert "a file cannot show which" in report.problems[0].what, report.problems


def test_a_file_saved_by_nobody_in_particular_takes_the_first_join() -> None:
    tables = split_terms({0: (30, 60, 120)})
    t = tables[2]
    report = audit_bytes(encode_file(t.records_to_save(), saved_by=None, status="failed"))
    text = report.problems[0].what  # the first join (the host's) sets the terms: seat 1 differs
    assert report.problems[0].seat is None and "(seat 1) signed other terms" in text and "(seat 0)" in text


def test_a_joiner_told_other_terms_blames_the_host_and_the_others_blame_nobody() -> None:
    """The host told seat 2 a 30 s turn and everyone else 600 s: seat 2 blames the host (its
    join is not what seat 2 was told); seat 1, which agrees with the host, cannot tell whether
    the host split the terms or seat 2 changed them, and blames nobody. A host cannot make
    honest joiners blame each other."""
    tables = split_terms({2: (30, 60, 120)})
    two, one, host = tables[2].failure, tables[1].failure, tables[0].failure
    assert two is not None and two.peer == 0 and "disagrees on the table" in two.problem, two
    assert one is not None and one.peer is None and "nobody can tell which" in one.problem, one
    assert host is not None and host.peer == 2  # the host's word: it knows what it told everyone
    for seat in (1, 2, 0):  # no file names anyone: each is only its saver's word
        t = tables[seat]
        report = audit_bytes(encode_file(t.records_to_save(), saved_by=seat, status="failed"))
        assert report.problems and report.problems[0].seat is None, (seat, report.problems)


@settings(max_examples=30, deadline=None)
@given(n=st.integers(3, 5), told=st.sets(st.integers(1, 4), min_size=1), host_differs=st.booleans())
def test_however_a_host_splits_the_terms_no_joiner_blames_another(
    n: int, told: set[int], host_differs: bool
) -> None:
    """Some joiners are told other terms than the rest (and the host may sign yet other ones):
    no joiner's node, and no audit of a joiner's file, ever names another joiner."""
    told = {s for s in told if s < n}
    assume(told or host_differs)  # the terms are split somehow
    clocks = {s: (30, 60, 120) for s in told}
    if host_differs:
        clocks[0] = (45, 60, 120)
    tables = split_terms(clocks, n, 22)
    for s in range(1, n):
        t = tables[s]
        assert t.failure is not None  # nobody plays on split terms
        assert t.failure.peer in (0, None), (s, t.failure)
        report = audit_bytes(encode_file(t.records_to_save(), saved_by=s, status="failed"))
        assert report.problems and all(p.seat is None for p in report.problems), (s, report.problems)
