"""The table's events: what a consumer reads instead of diffing the table's state."""

from __future__ import annotations

from protocol_helpers import SHORT_RULES, make_tables, run_match

from p2pcards.games.nines import rules as nines
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.protocol.events import CutDone, HandEnded, HandStarted, MatchOver, Moved


def drain(table: Table) -> list[object]:
    out = []
    while (event := table.next_event()) is not None:
        out.append(event)
    return out


def test_every_seat_hears_the_match_in_order_and_only_once() -> None:
    tables = make_tables(3, SHORT_RULES, seed=4)
    run_match(tables, seed=4)
    for seat, table in tables.items():
        assert table.match is not None and table.match.over
        events = drain(table)
        assert isinstance(events[0], CutDone) and events[0].dealer == table.match.results[0].dealer
        assert isinstance(events[-1], MatchOver) and events[-1].match is table.match
        starts = [e for e in events if isinstance(e, HandStarted)]
        ends = [e for e in events if isinstance(e, HandEnded)]
        assert [s.number for s in starts] == list(range(1, len(table.match.results) + 1))
        assert [e.result for e in ends] == table.match.results
        # Between a start and its end, the moves are the hand's own log, in order.
        for start, end in zip(starts, ends, strict=True):
            i, j = events.index(start), events.index(end)
            moves = [e.action for e in events[i:j] if isinstance(e, Moved)]
            assert moves == start.hand.events
            assert len(moves) == len(end.hand.events)
            # A drawn card is named to its drawer only.
            for own, full in zip(moves, end.hand.events, strict=True):
                if isinstance(own, nines.Draw):
                    assert (own.card is not None) == (own.seat == seat)
                    assert full.card is not None
        assert drain(table) == []  # each event is handed out once


def test_events_wait_for_their_consumer() -> None:
    tables = make_tables(2, SHORT_RULES, seed=9)
    net = run_match(tables, seed=9)
    assert not net.failures
    first = tables[0].next_event()
    assert isinstance(first, CutDone)
    rest = drain(tables[0])
    assert rest and isinstance(rest[0], HandStarted)
    # The match is deterministic: the same seed gives the same events.
    again = make_tables(2, SHORT_RULES, seed=9)
    run_match(again, seed=9)
    assert [type(e) for e in drain(again[0])] == [CutDone, *(type(e) for e in rest)]
