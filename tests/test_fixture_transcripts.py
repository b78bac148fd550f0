"""Transcripts written by earlier versions of p2pcards still audit valid.

The files in ``tests/fixtures`` were saved by honest nodes before the protocol
layer was reorganised; they must keep auditing as finished, valid games, with
the result their own signed ``result`` records state.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from p2pcards.protocol.audit import audit_file
from p2pcards.protocol.messages import Result
from p2pcards.protocol.transcript import load
from p2pcards.protocol.wire import parse_record

FIXTURES = sorted((Path(__file__).parent / "fixtures").glob("*.p2pt"))


@pytest.mark.parametrize("path", FIXTURES, ids=[p.name for p in FIXTURES])
def test_an_old_transcript_still_audits_valid(path: Path) -> None:
    report = audit_file(path)
    assert report.valid, report.problems
    assert report.table is not None and report.table.match is not None
    # The recomputed outcome is the one every seat signed at the end.
    records = [parse_record(raw, sig) for raw, sig in load(path).records]
    results = {r.record.body for r in records if isinstance(r.record.body, Result)}
    [signed] = results
    assert tuple(report.table.match.totals) == signed.totals
    assert tuple(report.table.match.winners or ()) == tuple(signed.winners)
    assert report.hands_verified == len(report.table.match.results) > 0


def test_the_fixtures_are_there() -> None:
    assert len(FIXTURES) >= 2
