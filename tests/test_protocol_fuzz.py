"""A peer may send any well-formed, validly signed record at any moment: the table
must answer with a RemoteProtocolError naming it (or accept it), never crash."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from protocol_helpers import identity_for, make_tables

from p2pcards.bots.random_bot import RandomBot
from p2pcards.crypto import encoding
from p2pcards.errors import RemoteProtocolError
from p2pcards.games.nines.adapter import NinesTable as Table
from p2pcards.games.nines.rules import NinesRules
from p2pcards.protocol import messages as m
from p2pcards.protocol.loopback import LocalNetwork
from p2pcards.protocol.wire import SIGN_PREFIX, Record, SignedRecord

RULES = NinesRules(target=60)

small = st.integers(0, 3)
pos = st.integers(0, 60)
card = st.integers(0, 103)
scalar = st.integers(1, 2**256 - 2**224)  # below the group order, above it too (checked)
element = st.sampled_from([encoding.encode_card(i) for i in range(6)]) | st.binary(min_size=32, max_size=32)
suit = st.sampled_from("SHDC")
decks = st.lists(element, min_size=1, max_size=60)

bodies = st.one_of(
    st.builds(lambda c: m.Commit(commit=c), st.binary(min_size=32, max_size=32)),
    st.builds(lambda s: m.Reveal(secret=s), st.binary(min_size=32, max_size=32)),
    st.builds(
        lambda r, d: m.Shuffle(round=r, deck=tuple(d)), small, st.lists(element, min_size=1, max_size=60)
    ),
    st.builds(lambda r, d: m.Lock(round=r, deck=tuple(d)), small, st.lists(element, min_size=1, max_size=60)),
    st.builds(
        lambda ks: m.Keys(keys=tuple(ks)),
        st.lists(
            st.builds(lambda r, p, k: m.KeyShare(round=r, pos=p, key=k), small, pos, scalar), max_size=30
        ),
    ),
    st.builds(lambda s: m.DeclareSuit(suit=s), suit),
    st.builds(
        lambda cs, s: m.PlayCards(cards=tuple(cs), suit=s),
        st.lists(
            st.builds(lambda r, p, c, k: m.Shown(round=r, pos=p, card=c, key=k), small, pos, card, scalar),
            min_size=1,
            max_size=2,
        ),
        st.none() | suit,
    ),
    st.just(m.DrawCard()),
    st.just(m.KeepCard()),
    st.just(m.PassTurn()),
    st.just(m.AcceptSkip()),
    st.builds(lambda r: m.Dispute(reason=r), st.text(max_size=20)),
    st.builds(
        lambda t, w: m.Result(totals=tuple(t), winners=tuple(w)),
        st.lists(st.integers(0, 200), min_size=3, max_size=3),
        st.lists(st.integers(0, 2), min_size=1, max_size=2),
    ),
)


def table_after(deliveries: int, seed: int) -> Table | None:
    """Seat 0's table after ``deliveries`` frames of an honest 3-seat match (None if it ended)."""
    tables = make_tables(3, RULES, seed=4)
    net = LocalNetwork(tables, rng=random.Random(seed))
    bot, rng = RandomBot(), random.Random(seed)
    for t in tables.values():
        t.start()
    done = 0
    while done < deliveries:
        acted = False
        for t in tables.values():
            if t.my_turn:
                t.act(bot.choose(t.view(), t.legal_actions(), rng))  # type: ignore[arg-type]
                acted = True
        if not acted and not net.deliver_one():
            break
        done += 0 if acted else 1
    assert not net.failures
    t0 = tables[0]
    return t0 if t0.status == "running" else None


def signed(table: Table, seat: int, step: int, body: m.Body) -> bytes:
    rec = Record(game_id=table.game_id, step=step, seat=seat, prev=table.transcript.last_digest, body=body)
    raw = rec.to_bytes()
    return SignedRecord(raw, identity_for(seat, 4).sign(SIGN_PREFIX + raw), rec).to_frame()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_any_signed_record_at_any_step_is_refused_cleanly(data: st.DataObject) -> None:
    deliveries = data.draw(st.integers(0, 400), label="frames delivered first")
    table = table_after(deliveries, seed=data.draw(st.integers(0, 3), label="seed"))
    if table is None:
        return
    seat = data.draw(st.sampled_from([1, 2]), label="sender")
    step = table.step + data.draw(st.sampled_from([0, 0, 0, 1]), label="step offset")
    body = data.draw(bodies, label="body")
    try:
        table.receive(seat, signed(table, seat, step, body))
    except RemoteProtocolError as e:
        assert e.peer in (1, 2)
        assert table.failure is e or table.status == "failed"


def test_fuzz_harness_reaches_the_middle_of_a_match() -> None:
    """The harness itself: after some deliveries seat 0 is inside a hand, past the shuffles."""
    table = table_after(150, seed=0)
    assert table is not None and table.hand is not None
    assert table.step > 15
