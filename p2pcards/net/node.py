"""A node: host or join a table, link the mesh, play the match, keep the transcript."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import trio

from p2pcards.crypto.identity import Identity
from p2pcards.errors import TranscriptError, UsageError
from p2pcards.games.base import game as game_named
from p2pcards.net import storage, tls
from p2pcards.net.addresses import EVERY_ADDRESS, listen, show_address
from p2pcards.net.portmap import PortMapping, Router, mappable, port_mapped
from p2pcards.net.session import (
    HostLobby,
    LobbyUI,
    Relinks,
    SessionInfo,
    Timeouts,
    _accept_loop,
    form_mesh,
    join_table,
    serve,
)
from p2pcards.protocol.lobby import Seat
from p2pcards.protocol.messages import Player
from p2pcards.protocol.notice import Notice, Notices
from p2pcards.protocol.wire import Abort, SignedRecord
from p2pcards.say import system_said

if TYPE_CHECKING:
    from p2pcards.net.runner import Decider
    from p2pcards.protocol.fingerprint import TableFingerprint
    from p2pcards.protocol.journal import JournalContents, JournalHeader
    from p2pcards.protocol.sitting import SeatTable

# The match - its table, the game's engine, the runner, the journal, the transcript, the
# fingerprint, the players met before - loads when the match starts (in ``_play`` and the
# functions it calls): a host shows its invitation, and a joiner its lobby, without them.

LINGER = 3.0
"""Seconds to keep links open after the match so that peers finish on their own."""
DELIVER = 2.0
"""Seconds at most a node that left the match (or was stopped) keeps its links open for the
peers' systems to acknowledge what it sent last (its leave); on Linux it closes as soon as
they have, elsewhere after ``DELIVER_BLIND``."""
DELIVER_BLIND = 0.2
"""Seconds a node that left keeps its links open where the system cannot say what was acknowledged."""
DELIVERED_POLL = 0.01
"""Seconds between two looks at what the peers' systems have acknowledged."""


@dataclass(slots=True)
class Outcome:
    """How a node's match ended, and where its transcript is."""

    status: str  # "over", "failed", "aborted"
    problem: str | None
    blamed: tuple[int, ...]
    transcript: Path | None
    table: SeatTable | None
    names: list[str] = field(default_factory=list)
    bytes_sent: int = 0
    frames_sent: int = 0
    fingerprint: TableFingerprint | None = None
    """The table fingerprint the players compare (None if the match stopped before the cut)."""
    unsaved: Notice | None = None
    """Why the transcript could not be saved (it was to be, and ``transcript`` is None)."""

    @property
    def winners(self) -> tuple[int, ...]:
        m = self.table.match if self.table is not None else None
        return tuple(m.winners or ()) if m is not None else ()


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeConfig:
    """Who this node is and how it plays: everything a node needs besides the table."""

    identity: Identity = field(default_factory=Identity.generate)
    """This player's signing key (by default a fresh one, for this game only)."""
    name: str
    decide: Decider
    ui: LobbyUI
    bot: bool = False
    """A bot plays this seat (``--bot``): the lobby says so, and a table of one person
    and bots gives that person a day a turn (``session.final_clock``)."""
    bot_kind: str | None = None
    """Which bot, as ``--bot`` named it (``expert:0.5``, say): kept in the journal, so that
    ``resume`` seats the same bot again."""
    lang: str | None = None
    """The language of the interface at this seat (``--lang``, or the one found): kept in the
    journal, so that ``resume`` speaks it to the person who comes back, unless told another."""
    timeouts: Timeouts = field(default_factory=Timeouts)
    transcript: Path | None = None
    data_dir: Path | None = None
    bind: str = EVERY_ADDRESS
    """Where to listen: every address, IPv6 and IPv4 (the default), or the one given."""
    port: int = 0
    on_progress: Callable[[SeatTable], None] = lambda t: None
    on_wait: Callable[[SeatTable, float], None] = lambda t, waited: None
    on_table_ready: Callable[[TableFingerprint, SeatTable], None] = lambda fingerprint, t: None
    """Called once, as soon as the table fingerprint is known (right after the cut), to show it."""
    leaving: Callable[[], bool] = lambda: False
    """True once this seat's player chose to leave while it was not their turn."""
    leave_chosen: trio.Event | None = None
    """Set as ``leaving`` becomes True, so that the seat leaves at once (see ``run_table``)."""
    confirming: Callable[[], bool | None] | None = None
    """The person's answer on the table fingerprint once given (see ``run_table``)."""
    leave_on_signals: bool = False
    """The node is its own program: Ctrl-C, a closed terminal or SIGTERM during the
    match signs that this seat leaves (several nodes in one process: off)."""
    entropy: bytes | None = None
    """Seed of this seat's secrets; fresh OS randomness unless a test or demo fixes it."""
    keep_transcript: bool = True
    journal: bool = True
    """Keep a write-ahead journal in the data directory, so that a crash can be resumed."""
    known_players: bool = True
    """Check the roster against the players met before, and remember it (``net.known``)."""
    port_mapping: bool = False
    """Ask the router to forward the port this seat listens on (``net.portmap``; the CLI
    does unless ``--no-port-mapping``)."""
    router: Router | None = None
    """Where to ask for the mapping (None: the system's default gateway)."""

    def mapped(self, port: int) -> contextlib.AbstractAsyncContextManager[PortMapping]:
        """The router's mapping of ``port`` for as long as this seat listens on it."""
        enabled = self.port_mapping and mappable(self.bind)
        return port_mapped(port, enabled=enabled, router=self.router)


async def host_game(
    cfg: NodeConfig,
    *,
    players: int,
    rules: Any,
    code: str,
    game_id: bytes | None = None,
    game: str = "nines",
    task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED,
) -> Outcome:
    """Host a table of ``players`` seats of ``game``; ``task_status.started`` gets the port."""
    try:  # a game the protocol cannot play is refused before anyone joins...
        game_named(game)
    except UsageError:
        from p2pcards.protocol.table import table_class

        table_class(game)  # ...in the protocol's words (its engine loads with the match)
        raise
    game_id = game_id if game_id is not None else os.urandom(16)
    lobby = HostLobby(
        identity=cfg.identity,
        name=cfg.name,
        rules=rules,
        players=players,
        code=code,
        game_id=game_id,
        ui=cfg.ui,
        timeouts=cfg.timeouts,
        game=game,
        bot=cfg.bot,
    )
    listeners = await listen(cfg.port, cfg.bind)
    port = listeners[0].socket.getsockname()[1]
    try:
        async with trio.open_nursery() as nursery, cfg.mapped(port) as mapped:
            nursery.start_soon(serve, lobby.handle, listeners)
            nursery.start_soon(mapped.keep)
            cfg.ui.invitation(code, port, mapped)
            task_status.started(port)
            async with _stopped_by_hangup(cfg.leave_on_signals):  # (the router's mapping is removed)
                info = await lobby.start()
            if info.clock is None:
                info.clock = cfg.timeouts.clock()
            elif info.clock != cfg.timeouts.clock():  # the final clock is patient: play by it too
                cfg = replace(cfg, timeouts=cfg.timeouts.with_clock(info.clock))
            cfg.ui.table_clock(cfg.timeouts)
            lobby.relinks = relinks = Relinks(info, cfg.identity, cfg.timeouts)  # seats that dial again
            try:
                outcome = await _play(cfg, info, relinks, port)
            finally:
                nursery.cancel_scope.cancel()
    finally:  # nothing answers at the door once the host has gone, whatever the garbage collector keeps
        for listener in listeners:
            await listener.aclose()
    return outcome


OUTSIDE_WAIT = 4.0
"""Seconds at most a joiner connected to the host waits for its router's answer before it
says hello without the address the router forwards (the host waits 10 s for the hello)."""


@dataclass(slots=True)
class JoiningSeat:
    """What one run of ``join`` keeps across its tries at the table (a code typed again, the
    next host that answered): the port this seat listens on, and the router's mapping of it,
    asked once, beside the first try rather than before it."""

    cfg: NodeConfig
    listeners: list[trio.SocketListener]
    listen_port: int
    mapped: PortMapping | None = None
    """What the router said, once it has (None until then)."""
    answered: trio.Event = field(default_factory=trio.Event)

    async def outside(self) -> tuple[str, int] | None:
        """Where the internet reaches this seat: the router's answer, waited for (a little)."""
        with trio.move_on_after(OUTSIDE_WAIT):
            await self.answered.wait()
        return self.mapped.external if self.mapped is not None else None

    async def _map(self) -> None:
        """Ask the router, say once what it did, and keep the mapping for as long as the seat lives."""
        try:
            async with self.cfg.mapped(self.listen_port) as mapped:
                self.mapped = mapped
                self.answered.set()
                if mapped.enabled and mapped.gateway is not None:  # no gateway: no router to speak of
                    self.cfg.ui.info(_mapping_notice(mapped, self.listen_port))
                await mapped.keep()
                await trio.sleep_forever()
        finally:
            self.answered.set()  # (a router that could not be asked: the joiner goes on without)


@contextlib.asynccontextmanager
async def joining(cfg: NodeConfig, *, no_listen: bool = False) -> AsyncIterator[JoiningSeat]:
    """A seat about to join: listening (unless ``no_listen``), its router asked beside the
    tries that follow. Errors of the body come out as they are, not in an exception group."""
    listeners = [] if no_listen else await listen(cfg.port, cfg.bind)
    seat = JoiningSeat(cfg, listeners, listeners[0].socket.getsockname()[1] if listeners else 0)
    failed: BaseException | None = None
    try:
        async with trio.open_nursery() as nursery:
            nursery.start_soon(seat._map)
            try:
                yield seat
            except BaseException as e:
                failed = e
            finally:
                nursery.cancel_scope.cancel()
    finally:
        for listener in listeners:
            await listener.aclose()
    if failed is not None:
        raise failed


async def join_game(
    cfg: NodeConfig,
    *,
    host: str,
    port: int,
    code: str,
    no_listen: bool = False,
    alternatives: Sequence[tuple[str, int]] = (),
    seat: JoiningSeat | None = None,
) -> Outcome:
    """Join the table at ``host:port`` with invitation ``code`` and play it.

    ``alternatives``: more hosts to try in turn (several answered a search by the code's
    number), until one proves the code and seats this node.

    ``no_listen``: accept no connection (behind a router that cannot forward):
    the seats that would dial this one reach it through the host instead.

    ``seat``: the listener and mapping of earlier tries (``joining``); a seat of its own else.
    """
    if seat is None:
        async with joining(cfg, no_listen=no_listen) as seat:
            return await _join_and_play(cfg, host, port, code, alternatives, seat)
    return await _join_and_play(cfg, host, port, code, alternatives, seat)


def _mapping_notice(mapped: PortMapping, port: int) -> Notice:
    m = mapped.mapping
    if m is None:
        return Notice("notice_no_mapping", port=port, why=Notices(mapped.tried))
    return Notice(
        "notice_mapped", port=port, outside=show_address(m.external_address, m.external_port), how=m.method
    )


async def _join_and_play(
    cfg: NodeConfig,
    host: str,
    port: int,
    code: str,
    alternatives: Sequence[tuple[str, int]],
    seat: JoiningSeat,
) -> Outcome:
    listeners, listen_port = seat.listeners, seat.listen_port
    async with _stopped_by_hangup(cfg.leave_on_signals):  # (seated, it may wait long for the others)
        info = await join_table(
            host=host,
            port=port,
            code=code,
            identity=cfg.identity,
            name=cfg.name,
            listen_port=listen_port,
            ui=cfg.ui,
            timeouts=cfg.timeouts,
            bot=cfg.bot,
            alternatives=alternatives,
            outside=seat.outside,
        )
    try:
        async with _stopped_by_hangup(cfg.leave_on_signals):
            await form_mesh(info, cfg.identity, listeners, cfg.ui, cfg.timeouts)
    except BaseException as e:
        # The host (and the others) learn at once, and why: it is not a broken link.
        why = f"{cfg.name} could not link with every seat: {e}" if isinstance(e, Exception) else "left"
        with trio.CancelScope(shield=True):
            for link in info.links.values():
                with trio.move_on_after(1), contextlib.suppress(Exception):
                    await link.send(Abort(why, 0).to_frame())
                await link.aclose()
        raise
    if info.clock is not None:  # every seat plays by the host's clock
        cfg = replace(cfg, timeouts=cfg.timeouts.with_clock(info.clock))
    cfg.ui.table_clock(cfg.timeouts)
    relinks = Relinks(info, cfg.identity, cfg.timeouts)
    async with trio.open_nursery() as nursery:
        for listener in listeners:  # higher seats dial this one again if their link breaks
            nursery.start_soon(_accept_loop, listener, relinks.accept, nursery)
        try:
            return await _play(cfg, info, relinks, listen_port)
        finally:
            nursery.cancel_scope.cancel()


def link_notice(
    cfg: NodeConfig, info: SessionInfo, resuming: bool = False
) -> Callable[[int, str, float], None]:
    """Tell the user when a peer's connection breaks, comes back, or stays away.

    A node that resumes starts with every link down: that is its own absence, not the
    others', so until a peer is linked again it is said as this node linking again."""
    rejoining = {p for p in range(len(info.roster)) if p != info.seat} if resuming else set()

    def notice(peer: int, what: str, seconds: float) -> None:
        cfg.ui.peer_link(info.roster[peer].key, what, seconds)  # (the status line says who is away)
        who = {"name": info.roster[peer].name, "seat": peer}
        if what == "lost":
            left = int(seconds)
            key = "notice_rejoining" if peer in rejoining else "notice_reconnecting"
            cfg.ui.info(Notice(key, **who, left=f"{left // 60}:{left % 60:02d}"))
        elif what == "back":
            if peer in rejoining:
                rejoining.discard(peer)
                cfg.ui.info(Notice("notice_rejoined", **who))
            else:
                cfg.ui.info(Notice("notice_back", **who, seconds=f"{seconds:.0f}"))
        elif what == "relayed":
            cfg.ui.info(Notice("notice_through_others", **who))
        elif what == "left behind":
            cfg.ui.info(Notice("notice_left_behind", **who))
        else:
            key = "notice_not_rejoined" if peer in rejoining else "notice_gone"
            cfg.ui.info(Notice(key, **who, seconds=f"{seconds:.0f}"))

    return notice


def _journal_header(
    info: SessionInfo, entropy: bytes, listen_port: int, bot_kind: str | None = None, lang: str | None = None
) -> JournalHeader:
    from p2pcards.protocol.journal import JournalHeader

    session: dict[str, Any] = {
        "seats": [[s.host, s.port, [list(a) for a in s.also]] for s in info.roster],
        "host_address": None if info.host_address is None else list(info.host_address),
        "listen_port": listen_port,
        "relayed": sorted(info.relayed),
        "clock": list(info.clock) if info.clock is not None else None,
    }
    if bot_kind is not None:
        session["bot"] = bot_kind  # (a person's journal has none)
    if lang is not None:
        session["lang"] = lang
    return JournalHeader(
        game=info.game,
        game_id=info.game_id,
        rules=info.rules.to_dict(),
        roster=tuple(Player(name=s.name, key=s.key) for s in info.roster),
        seat=info.seat,
        entropy=entropy,
        session=session,
    )


async def resume_game(cfg: NodeConfig, path: Path) -> Outcome:
    """Bring this seat back into the match its journal at ``path`` records (after a crash).

    The table is rebuilt from the journal; the seat listens on the port it had,
    dials the peers it dials, and takes back the others as they dial in.
    """
    from p2pcards.protocol.journal import read_journal

    try:
        contents = read_journal(path.read_bytes())
    except OSError as e:
        raise UsageError(Notice("journal_unreadable", path=str(path), why=system_said(e))) from None
    h = contents.header
    if storage.journal_in_use(path):
        raise UsageError(Notice("journal_in_use", path=str(path)))
    if h.roster[h.seat].key != cfg.identity.public_key:
        raise UsageError(Notice("journal_other_key", path=str(path)))
    try:
        addresses = [_journal_seat(entry) for entry in h.session["seats"]]
        host_address = h.session["host_address"]
        listen_port = int(h.session["listen_port"])
        rules = game_named(h.game).rules_from_dict(h.rules)
        relayed = {int(p) for p in h.session.get("relayed", [])}
        clock = h.session.get("clock")
        signed_clock = None if clock is None else tuple(int(x) for x in clock)
        if signed_clock is not None and len(signed_clock) != 3:
            raise ValueError("the clock is not a turn, a step and a grace")
    except (KeyError, TypeError, ValueError) as e:
        raise UsageError(Notice("journal_header_damaged", path=str(path), why=str(e))) from None
    seats = zip(h.roster, addresses, strict=True)
    roster = tuple(Seat(name=p.name, key=p.key, host=a, port=port, also=also) for p, (a, port, also) in seats)
    info = SessionInfo(
        game_id=h.game_id,
        rules=rules,
        roster=roster,
        seat=h.seat,
        game=h.game,
        host_address=None if host_address is None else (str(host_address[0]), int(host_address[1])),
        relayed=relayed,
    )
    if signed_clock is not None:
        info.clock = signed_clock  # as its join record signed it
        cfg = replace(cfg, timeouts=cfg.timeouts.with_clock(info.clock))
    cfg.ui.table_clock(cfg.timeouts)
    relinks = Relinks(info, cfg.identity, cfg.timeouts)
    listeners = [] if listen_port == 0 else await listen(listen_port, cfg.bind)
    try:
        async with trio.open_nursery() as nursery, cfg.mapped(listen_port) as mapped:
            nursery.start_soon(mapped.keep)
            for listener in listeners:
                nursery.start_soon(_accept_loop, listener, relinks.accept_any, nursery)
            try:
                return await _play(cfg, info, relinks, listen_port, restore=contents, entropy=h.entropy)
            finally:
                nursery.cancel_scope.cancel()
    finally:
        for listener in listeners:
            await listener.aclose()


def _journal_seat(entry: Any) -> tuple[str, int, tuple[tuple[str, int], ...]]:
    """A seat's addresses in a journal: ``[host, port]`` (older journals) or with its others."""
    host, port, *rest = entry
    also = tuple((str(h), int(p)) for h, p in rest[0]) if rest else ()
    return str(host), int(port), also


async def _play(
    cfg: NodeConfig,
    info: SessionInfo,
    relinks: Relinks | None = None,
    listen_port: int = 0,
    *,
    restore: JournalContents | None = None,
    entropy: bytes | None = None,
) -> Outcome:
    from p2pcards.net.runner import RunResult, run_table
    from p2pcards.protocol.fingerprint import TableFingerprint
    from p2pcards.protocol.journal import encode_header, encode_record
    from p2pcards.protocol.sitting import Sitting
    from p2pcards.protocol.table import table_class
    from p2pcards.protocol.transcript import encode_file, save, save_new

    roster = [Player(name=s.name, key=s.key) for s in info.roster]
    if entropy is None:
        entropy = cfg.entropy if cfg.entropy is not None else os.urandom(32)
    table = Sitting(
        table_class(info.game)(
            game_id=info.game_id,
            roster=roster,
            rules=info.rules,
            seat=info.seat,
            identity=cfg.identity,
            entropy=entropy,
            clock=info.clock,  # signed by every seat in its join record
        )
    )
    if relinks is not None:  # a seat the match went on without is refused if it joins again
        relinks.present = lambda: table.present
    if cfg.known_players and restore is None:
        _check_known_players(cfg, roster, info.seat)
    journal_file: storage.JournalFile | None = None
    if cfg.journal:
        jpath = storage.journal_path(info.game_id, info.seat, cfg.data_dir)
        if restore is None:
            journal_file = storage.JournalFile(jpath)
            header = _journal_header(info, entropy, listen_port, cfg.bot_kind, cfg.lang)
            journal_file.write(encode_header(header))
        else:
            journal_file = storage.JournalFile(jpath, truncate_at=restore.sound)

    def journal(records: list[SignedRecord]) -> None:
        if journal_file is not None:
            journal_file.write(b"".join(encode_record(r) for r in records))

    result = RunResult(status="aborted", problem="interrupted")
    ended = left = False
    try:
        async with _leave_on_signals(cfg.leave_on_signals) as interrupt:
            result = await run_table(
                table,
                info.links,
                cfg.decide,
                timeouts=cfg.timeouts,
                on_progress=_show_fingerprint(cfg),
                on_wait=cfg.on_wait,
                relinker=relinks,
                grace=cfg.timeouts.grace,
                on_link=link_notice(cfg, info, resuming=restore is not None),
                restore=None if restore is None else restore.records,
                journal=journal,
                relayed=sorted(info.relayed),
                leaving=cfg.leaving,
                leave_chosen=cfg.leave_chosen,
                confirming=cfg.confirming,
                interrupt=interrupt,
            )
        ended = True
    except KeyboardInterrupt:
        left = True  # the player left (the others were told): nothing to resume
        raise
    finally:
        unsaved: Notice | None = None
        path: Path | None = cfg.transcript or storage.transcript_path(
            info.game_id, info.seat, cfg.data_dir, game=info.game
        )
        status = result.status if result.problem is None else f"{result.status}: {result.problem}"
        with trio.CancelScope(shield=True):
            if not cfg.keep_transcript:
                path = None
            else:
                try:
                    data = encode_file(table.pairs_to_save(), saved_by=info.seat, status=status)
                    if cfg.transcript is None:  # the default name: never over a game saved there before
                        path = save_new(path, data)  # type: ignore[arg-type]
                    else:
                        save(path, data)  # type: ignore[arg-type]
                    if cfg.bot:
                        storage.remember_bot_transcript(data, cfg.data_dir)
                except OSError as e:
                    unsaved = Notice("notice_not_saved", path=path, error=system_said(e))
                    cfg.ui.info(unsaved)
                    path = None
            if journal_file is not None:
                # A match that ended (or that this player left) needs no journal; one
                # interrupted otherwise keeps it, to be resumed.
                journal_file.close(remove=ended or left)
            await _linger(info, left=result.status == "aborted")
    return Outcome(
        status=result.status,
        problem=result.problem,
        blamed=result.blamed,
        transcript=path,
        table=table,
        names=[s.name for s in info.roster],
        bytes_sent=sum(link.bytes_sent for link in info.links.values()),
        frames_sent=sum(link.frames_sent for link in info.links.values()),
        fingerprint=TableFingerprint.of_table(table),
        unsaved=unsaved,
    )


@contextlib.asynccontextmanager
async def _leave_on_signals(wanted_here: bool) -> AsyncIterator[trio.Event]:
    """An event set when the program is asked to stop while the match runs (Ctrl-C, a
    closed terminal, a polite kill): the seat then signs that it leaves, and the others
    go on at once instead of waiting out its grace. (Outside the main thread, where
    signals cannot be caught, the event is never set.)"""
    event = trio.Event()
    if not wanted_here:
        yield event
        return
    wanted = [getattr(signal, name) for name in ("SIGINT", "SIGHUP", "SIGTERM") if hasattr(signal, name)]
    with contextlib.ExitStack() as stack:
        try:
            signals = stack.enter_context(trio.open_signal_receiver(*wanted))
        except (RuntimeError, ValueError):
            yield event
            return

        async def watch() -> None:
            async for _ in signals:
                event.set()

        async with trio.open_nursery() as nursery:
            nursery.start_soon(watch)
            try:
                yield event
            finally:
                nursery.cancel_scope.cancel()


@contextlib.asynccontextmanager
async def _stopped_by_hangup(wanted_here: bool) -> AsyncIterator[None]:
    """In the lobby, and while a joiner links with the others, before the match takes a signal
    as a leave (``_leave_on_signals``): a closed terminal (SIGHUP) or a polite kill (SIGTERM)
    stops the node as Ctrl-C does, so that it tells the others it left instead of vanishing,
    and gives back the port its router forwarded (the body is cancelled, and KeyboardInterrupt
    raised in its place)."""
    failed: BaseException | None = None
    async with _leave_on_signals(wanted_here) as asked, trio.open_nursery() as nursery:

        async def stop() -> None:
            await asked.wait()
            nursery.cancel_scope.cancel()

        nursery.start_soon(stop)
        try:
            yield
        except BaseException as e:  # (as it is, not in an exception group)
            failed = e
        finally:
            nursery.cancel_scope.cancel()
    if asked.is_set():
        raise KeyboardInterrupt
    if failed is not None:
        try:
            raise failed
        finally:
            failed = None  # (no cycle through this frame: the error's frames, sockets and all, go at once)


def _check_known_players(cfg: NodeConfig, roster: list[Player], seat: int) -> None:
    """Before the first shuffle: warn of a known name with a new key, or a known key
    under a new name; then remember this table's players. A list that cannot be
    read or written weakens the check, it never stops the game."""
    from p2pcards.net.known import KnownPlayers

    known = KnownPlayers.load(cfg.data_dir or storage.data_dir())
    if known.problem is not None:
        cfg.ui.info(Notice("notice_known_unreadable", problem=known.problem))
    pairs = [(p.name, p.key) for p in roster]
    for warning in known.check(pairs, seat):
        cfg.ui.warning(warning)
    try:
        known.remember(pairs, seat)
    except OSError as e:
        cfg.ui.info(Notice("notice_known_unreadable", problem=f"{known.path} cannot be written ({e})"))


def _show_fingerprint(cfg: NodeConfig) -> Callable[[SeatTable], None]:
    """``cfg.on_progress``, preceded once by ``cfg.on_table_ready`` when the fingerprint is known.

    Only after the cut: the fingerprint covers every seat's cut secret, which a host
    in the middle cannot choose (see :mod:`p2pcards.protocol.fingerprint`).
    """
    from p2pcards.protocol.fingerprint import TableFingerprint

    shown = False

    def progress(table: SeatTable) -> None:
        nonlocal shown
        if not shown:
            fingerprint = TableFingerprint.of_table(table)
            if fingerprint is not None:
                shown = True
                cfg.on_table_ready(fingerprint, table)
        cfg.on_progress(table)

    return progress


async def _linger(info: SessionInfo, *, left: bool) -> None:
    """Close our sending side, then wait (a little, ``LINGER``) for every peer to close
    theirs. A seat that ``left`` (the others play on, and do not close) waits only until
    every peer's system has acknowledged what it sent last (``DELIVER``)."""

    async def drain(link: object) -> None:
        try:
            while True:
                await link.receive()  # type: ignore[attr-defined]
        except Exception:
            return

    links = list(info.links.values())
    for link in links:
        with contextlib.suppress(trio.BrokenResourceError, trio.ClosedResourceError, OSError):
            await tls.send_eof(link.stream)  # under TLS: a TCP half-close, read as the end of stream
    known = left and all(link.unacknowledged() is not None for link in links)
    seconds = LINGER if not left else DELIVER if known else DELIVER_BLIND
    with trio.move_on_after(seconds):
        async with trio.open_nursery() as nursery:
            for link in links:
                nursery.start_soon(drain, link)
            if known:
                while any(link.unacknowledged() for link in links):
                    await trio.sleep(DELIVERED_POLL)
                nursery.cancel_scope.cancel()
    for link in links:
        await link.aclose()


@dataclass(frozen=True, slots=True)
class Unfinished:
    """A game this node's journal says it has not finished (see ``p2pcards resume``)."""

    path: Path
    game: str
    seat: int
    names: tuple[str, ...]
    host_address: tuple[str, int] | None
    records: int
    modified: float
    key: bytes = b""
    """The public key of the seat the journal was kept for."""
    lang: str | None = None
    """The language the seat's interface spoke, as the journal says (None: it does not)."""


def unfinished_games(directory: Path | None = None, skipped: list[Path] | None = None) -> list[Unfinished]:
    """Every readable journal in the data directory, most recent first; the others (empty,
    damaged) go to ``skipped``, if given, for the person to hear of them."""
    out = []
    for path in storage.journal_dir(directory).glob("*.journal"):
        from p2pcards.protocol.journal import read_journal  # (only when there is one to read)

        try:
            contents = read_journal(path.read_bytes())
            host = contents.header.session.get("host_address")
            address = None if host is None else (str(host[0]), int(host[1]))
            out.append(
                Unfinished(
                    path=path,
                    game=contents.header.game,
                    seat=contents.header.seat,
                    names=tuple(p.name for p in contents.header.roster),
                    host_address=address,
                    records=len(contents.records),
                    modified=path.stat().st_mtime,
                    key=bytes(contents.header.roster[contents.header.seat].key),
                    lang=lang if isinstance(lang := contents.header.session.get("lang"), str) else None,
                )
            )
        except (OSError, TranscriptError, TypeError, ValueError, IndexError):
            if skipped is not None:  # `resume FILE` says what is wrong with it
                skipped.append(path)
            continue
    return sorted(out, key=lambda u: -u.modified)
