"""Reconnection over real loopback sockets: a relay between a joiner and the host
breaks every connection it carries mid-match; the joiner dials the host again
(TLS, pinned key, link signatures), both sides resend what the other may lack,
and the match ends as if nothing had happened."""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from pathlib import Path

import pytest
import trio
from net_helpers import CODE, LOCALHOST, RecordingUI, config, join_seat, last_joins_and_all_end, start_host

from p2pcards.games.nines.rules import NinesRules
from p2pcards.net.node import Outcome
from p2pcards.protocol.audit import audit_file
from p2pcards.protocol.transcript import load


@contextlib.contextmanager
def report(outcomes: dict[int, Outcome], ui: RecordingUI):  # type: ignore[no-untyped-def]
    """On a failure, show what each node knew (pytest prints it with the failure)."""
    try:
        yield
    except BaseException:
        print({s: (o.status, o.problem) for s, o in outcomes.items()}, ui.infos)
        raise


class Relay:
    """A TCP relay to ``target`` that can break every connection it carries."""

    def __init__(self, target: int, break_after: int) -> None:
        self.target = target
        self.break_after = break_after  # bytes carried before it breaks everything, once
        self.carried = 0
        self.broke = False
        self.streams: list[trio.abc.Stream] = []
        self.connections = 0
        self.port = 0

    async def serve(self, nursery: trio.Nursery) -> None:
        listeners = await trio.open_tcp_listeners(0, host=LOCALHOST)
        self.port = listeners[0].socket.getsockname()[1]
        nursery.start_soon(trio.serve_listeners, self.handle, listeners)

    async def handle(self, client: trio.SocketStream) -> None:
        server = await trio.open_tcp_stream(LOCALHOST, self.target)
        self.connections += 1
        self.streams += [client, server]

        async def pump(a: trio.abc.Stream, b: trio.abc.Stream) -> None:
            with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError):
                while data := await a.receive_some(65536):
                    await b.send_all(data)
                    self.carried += len(data)
                    if not self.broke and self.carried >= self.break_after:
                        self.broke = True
                        await self.break_all()
            with contextlib.suppress(Exception):
                await b.aclose()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(pump, client, server)
            nursery.start_soon(pump, server, client)

    async def break_all(self) -> None:
        for s in self.streams:
            with contextlib.suppress(Exception):
                await s.aclose()
        self.streams.clear()


async def far_seat_through_a_breaking_relay(
    tmp_path: Path,
    outcomes: dict[int, Outcome],
    host_ui: RecordingUI,
    far_ui: RecordingUI,
    beside: Callable[[trio.Nursery, int, Relay], None] | None = None,
) -> Relay:
    """A match of three to its end: seat 2 ("far") reaches the host through a relay that breaks
    its link in the middle of the first hand; ``beside(nursery, host_port, relay)`` starts what
    else runs meanwhile. Returns the relay."""
    with trio.fail_after(90), report(outcomes, host_ui):
        async with trio.open_nursery() as nursery:
            host = config(tmp_path, "h", seed=1, ui=host_ui)
            port = await start_host(nursery, host, players=3, rules=NinesRules(target=40), outcomes=outcomes)
            relay = Relay(port, break_after=15_000)  # in the middle of the first hand
            await relay.serve(nursery)
            if beside is not None:
                beside(nursery, port, relay)
            await join_seat(nursery, port, config(tmp_path, "near", seed=2), 1, outcomes, host_ui)
            far = config(tmp_path, "far", seed=3, ui=far_ui)
            await last_joins_and_all_end(nursery, far, relay.port, 2, outcomes, 3)
    return relay


async def test_a_joiner_whose_connection_breaks_dials_again_and_the_match_ends(tmp_path: Path) -> None:
    outcomes: dict[int, Outcome] = {}
    host_ui, far_ui = RecordingUI(), RecordingUI()
    relay = await far_seat_through_a_breaking_relay(tmp_path, outcomes, host_ui, far_ui)
    assert relay.broke, "the match ended before the relay broke the link"
    assert relay.connections >= 2  # the joiner dialled the host again through the relay
    for seat, o in outcomes.items():
        assert o.status == "over", (seat, o.problem, host_ui.infos, far_ui.infos)
    assert any("far (seat 2) lost connection: reconnecting" in i for i in host_ui.infos), host_ui.infos
    assert any("far (seat 2) is back" in i for i in host_ui.infos), host_ui.infos
    assert any("h (seat 0) is back" in i for i in far_ui.infos), far_ui.infos
    files = {load(tmp_path / f"{label}.p2pt").records for label in ("h", "near", "far")}
    assert len(files) == 1, "the three transcripts differ"
    for label in ("h", "near", "far"):
        assert audit_file(tmp_path / f"{label}.p2pt").valid


CRASH_STEP = 12
"""Where a node crashes in these tests: in the play of the first hand, which every match
reaches (the shortest, a first hand that stalls at once and ends the match, ends near step
23: a later step could come after the last)."""


async def test_a_joiner_that_crashes_resumes_from_its_journal(tmp_path: Path) -> None:
    """Seat 2's node dies in the middle of a hand (its task is cancelled: no goodbye, its
    connections drop); a new node for the same player resumes from the journal in its
    data directory, and the match ends with three identical transcripts."""
    from dataclasses import replace

    from net_helpers import FAST

    from p2pcards.net import storage
    from p2pcards.net.node import resume_game

    timeouts = replace(FAST, grace=20.0)
    outcomes: dict[int, Outcome] = {}
    host_ui = RecordingUI()
    crash = trio.CancelScope()
    crashed_at: list[int] = []
    with trio.fail_after(90), report(outcomes, host_ui):
        async with trio.open_nursery() as nursery:
            host = config(tmp_path, "h", seed=1, ui=host_ui, timeouts=timeouts)
            port = await start_host(nursery, host, players=3, rules=NinesRules(target=40), outcomes=outcomes)
            near = config(tmp_path, "near", seed=2, timeouts=timeouts)
            await join_seat(nursery, port, near, 1, outcomes, host_ui)

            def progress(table: object) -> None:
                step = table.step  # type: ignore[attr-defined]
                if not crashed_at and step >= CRASH_STEP:
                    crashed_at.append(step)
                    crash.cancel()

            far = config(tmp_path, "far", seed=3, timeouts=timeouts, on_progress=progress)
            await join_seat(nursery, port, far, 2, outcomes, host_ui, scope=crash)
            while not crash.cancelled_caught:
                await trio.sleep(0.01)
            assert 2 not in outcomes
            journals = list(storage.journal_dir(far.data_dir).glob("*.journal"))
            assert len(journals) == 1  # kept: the node died without ending
            again = replace(far, on_progress=lambda t: None)  # the same player, a new process

            async def resume() -> None:
                outcomes[2] = await resume_game(again, journals[0])

            nursery.start_soon(resume)
            while len(outcomes) < 3:
                await trio.sleep(0.05)
            nursery.cancel_scope.cancel()
    for seat, o in outcomes.items():
        assert o.status == "over", (seat, o.problem)
    files = {load(tmp_path / f"{label}.p2pt").records for label in ("h", "near", "far")}
    assert len(files) == 1, "the three transcripts differ"
    for label in ("h", "near", "far"):
        assert audit_file(tmp_path / f"{label}.p2pt").valid
    assert not list(storage.journal_dir(far.data_dir).glob("*.journal"))  # removed at the end
    assert any("far (seat 2) is back" in i for i in host_ui.infos), host_ui.infos


async def test_a_host_that_crashes_resumes_and_the_joiners_dial_it_again(tmp_path: Path) -> None:
    from dataclasses import replace

    from net_helpers import FAST

    from p2pcards.net import storage
    from p2pcards.net.node import host_game, resume_game

    timeouts = replace(FAST, grace=20.0)
    outcomes: dict[int, Outcome] = {}
    host_ui = RecordingUI()
    crash = trio.CancelScope()
    crashed_at: list[int] = []

    def progress(table: object) -> None:
        if not crashed_at and table.step >= CRASH_STEP:  # type: ignore[attr-defined]
            crashed_at.append(table.step)  # type: ignore[attr-defined]
            crash.cancel()

    host = config(tmp_path, "h", seed=1, ui=host_ui, timeouts=timeouts, on_progress=progress)
    with trio.fail_after(90), report(outcomes, host_ui):
        async with trio.open_nursery() as nursery:

            async def hosting(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
                with crash:
                    # To 100: a match of several hands, long enough to crash in (one to 40 could
                    # end in a short first hand, before step 30, with some seats' random secrets).
                    outcomes[0] = await host_game(
                        host, players=3, rules=NinesRules(target=100), code=CODE, task_status=task_status
                    )

            port = await nursery.start(hosting)
            for seat, label in ((1, "near"), (2, "far")):
                cfg = config(tmp_path, label, seed=seat + 1, timeouts=timeouts)
                await join_seat(nursery, port, cfg, seat, outcomes, host_ui)
            while not crash.cancelled_caught and 0 not in outcomes:
                await trio.sleep(0.01)
            assert crash.cancelled_caught, "the match ended before the host could crash"
            journals = list(storage.journal_dir(host.data_dir).glob("*.journal"))
            assert len(journals) == 1 and 0 not in outcomes

            async def resume() -> None:
                outcomes[0] = await resume_game(replace(host, on_progress=lambda t: None), journals[0])

            nursery.start_soon(resume)
            while len(outcomes) < 3:
                await trio.sleep(0.05)
            nursery.cancel_scope.cancel()
    for seat, o in outcomes.items():
        assert o.status == "over", (seat, o.problem)
    files = {load(tmp_path / f"{label}.p2pt").records for label in ("h", "near", "far")}
    assert len(files) == 1, "the three transcripts differ"
    assert all(audit_file(tmp_path / f"{label}.p2pt").valid for label in ("h", "near", "far"))


@pytest.mark.parametrize("own_turn", [True, False], ids=["on-its-turn", "on-anothers-turn"])
async def test_a_seat_that_resumes_when_the_others_are_gone_asks_nothing_and_says_none_answered(
    tmp_path: Path, own_turn: bool
) -> None:
    """Seat 2's node dies (on its own turn, or while it waits for seat 0 alone); then the other
    two are gone for good (the match ended without it, say: their processes are over). Its
    player resumes: nothing is asked of them (a move could reach nobody), the others are
    said not to answer (not "did not come back": the absence was this seat's), and once
    every one's grace is over the seat stops with that reason, not with its own turn's
    clock or a connection of its own that is down, and names each of them."""
    from dataclasses import replace

    from net_helpers import FAST

    from p2pcards.net import storage
    from p2pcards.net.node import resume_game
    from p2pcards.net.verdicts import NOBODY_ANSWERED

    timeouts = replace(FAST, grace=3.0)
    outcomes: dict[int, Outcome] = {}
    crash = trio.CancelScope()
    crashed_at: list[int] = []

    def progress(table: object) -> None:
        due = table.my_turn if own_turn else list(table.waiting_for) == [0]  # type: ignore[attr-defined]
        if not crashed_at and table.step >= CRASH_STEP and due:  # type: ignore[attr-defined]
            crashed_at.append(table.step)  # type: ignore[attr-defined]
            crash.cancel()

    far = config(tmp_path, "far", seed=3, timeouts=timeouts, on_progress=progress)
    with trio.fail_after(90):
        async with trio.open_nursery() as table:
            host_ui = RecordingUI()
            host = config(tmp_path, "h", seed=1, timeouts=timeouts, ui=host_ui)
            port = await start_host(table, host, players=3, rules=NinesRules(target=100), outcomes=outcomes)
            near = config(tmp_path, "near", seed=2, timeouts=timeouts)
            await join_seat(table, port, near, 1, outcomes, host_ui)
            await join_seat(table, port, far, 2, outcomes, host_ui, scope=crash)
            while not crash.cancelled_caught and not outcomes:
                await trio.sleep(0.01)
            table.cancel_scope.cancel()  # the others' nodes end too, without a word
    assert crash.cancelled_caught and not outcomes, "the match ended before seat 2 could crash"
    journals = list(storage.journal_dir(far.data_dir).glob("*.journal"))
    assert len(journals) == 1
    asked: list[object] = []

    async def decide(t: object) -> object:
        asked.append(t)
        raise AssertionError("a move was asked with nobody there")

    ui = RecordingUI()
    again = replace(far, decide=decide, ui=ui, on_progress=lambda t: None)  # a person, say
    with trio.fail_after(60):
        outcome = await resume_game(again, journals[0])
    assert asked == []
    assert (outcome.status, outcome.problem) == ("failed", NOBODY_ANSWERED.format(seconds="3")), ui.infos
    assert outcome.blamed == ()
    for who in ("h (seat 0)", "near (seat 1)"):
        assert f"{who} did not answer within 3 s of your return" in ui.infos, ui.infos


async def _hold_the_door(port: int, start: Callable[[], bool], places: int = 6) -> None:
    """A stranger on the joiners' own address (a NAT they share; 127.0.0.1 here) that, once
    ``start()`` holds, keeps every place the host's door gives one address taken: silent
    connections, each dialled again the moment the host drops it."""
    while not start():
        await trio.sleep(0.01)

    async def holder() -> None:
        while True:
            with contextlib.suppress(OSError, trio.BrokenResourceError, trio.ClosedResourceError):
                stream = await trio.open_tcp_stream(LOCALHOST, port)
                async with stream:
                    while await stream.receive_some(65536):
                        pass
            await trio.sleep(0.001)

    async with trio.open_nursery() as nursery:
        for _ in range(places):
            nursery.start_soon(holder)


async def test_a_seat_dials_the_host_again_past_strangers_holding_its_addresss_places(tmp_path: Path) -> None:
    """Strangers on a seat's address can hold every place the host's door gives that address
    (a NAT shared with them): a seat of the match dialling the host again is still taken back,
    its link hello read in the time the door gives a newcomer to be told it is busy."""
    outcomes: dict[int, Outcome] = {}
    host_ui, far_ui = RecordingUI(), RecordingUI()

    def hold_the_door(nursery: trio.Nursery, port: int, relay: Relay) -> None:
        nursery.start_soon(_hold_the_door, port, lambda: relay.carried >= 10_000)

    relay = await far_seat_through_a_breaking_relay(tmp_path, outcomes, host_ui, far_ui, hold_the_door)
    assert relay.broke, "the match ended before the relay broke the link"
    assert relay.connections >= 2
    assert any("far (seat 2) is back" in i for i in host_ui.infos), host_ui.infos
    for seat, o in outcomes.items():
        assert o.status == "over", (seat, o.problem, host_ui.infos, far_ui.infos)


async def test_a_player_who_leaves_as_soon_as_they_resume_is_said_to_have_left(tmp_path: Path) -> None:
    """Seat 2's node dies; its player resumes and leaves at once (``quit`` or Ctrl-D at the
    question on the digits, before any peer is linked again): the leave is signed once a peer
    is back, so that it reaches the others, who play on saying that far left, rather than
    sent to nobody, the others waiting out its grace and saying it did not come back."""
    from dataclasses import replace

    from net_helpers import FAST

    from p2pcards.net import storage
    from p2pcards.net.node import resume_game

    timeouts = replace(FAST, grace=20.0)
    outcomes: dict[int, Outcome] = {}
    host_ui = RecordingUI()
    crash = trio.CancelScope()
    crashed_at: list[int] = []
    with trio.fail_after(90), report(outcomes, host_ui):
        async with trio.open_nursery() as nursery:
            from p2pcards.protocol.events import Continued

            continued: list[Continued] = []

            def read_events(table: object) -> None:
                while (event := table.next_event()) is not None:  # type: ignore[attr-defined]
                    if isinstance(event, Continued):
                        continued.append(event)

            host = config(tmp_path, "h", seed=1, ui=host_ui, timeouts=timeouts, on_progress=read_events)
            port = await start_host(nursery, host, players=3, rules=NinesRules(target=40), outcomes=outcomes)
            near = config(tmp_path, "near", seed=2, timeouts=timeouts)
            await join_seat(nursery, port, near, 1, outcomes, host_ui)

            def progress(table: object) -> None:
                if not crashed_at and table.step >= CRASH_STEP:  # type: ignore[attr-defined]
                    crashed_at.append(table.step)  # type: ignore[attr-defined]
                    crash.cancel()

            far = config(tmp_path, "far", seed=3, timeouts=timeouts, on_progress=progress)
            await join_seat(nursery, port, far, 2, outcomes, host_ui, scope=crash)
            while not crash.cancelled_caught:
                await trio.sleep(0.01)
            [journal] = list(storage.journal_dir(far.data_dir).glob("*.journal"))
            left = trio.Event()
            left.set()  # chosen before anything else could happen
            again = replace(far, on_progress=lambda t: None, leaving=lambda: True, leave_chosen=left)

            async def resume() -> None:
                outcomes[2] = await resume_game(again, journal)

            nursery.start_soon(resume)
            while len(outcomes) < 3:
                await trio.sleep(0.05)
            nursery.cancel_scope.cancel()
    assert (outcomes[2].status, outcomes[2].problem) == ("aborted", "quit")
    assert [(c.names, c.reason) for c in continued] == [(("far",), "quit")], (continued, host_ui.infos)
    assert not any("did not come back" in i for i in host_ui.infos), host_ui.infos
    for seat in (0, 1):
        assert outcomes[seat].status == "over", (seat, outcomes[seat].problem)
