"""Benchmark groups of Lobby: honest joiners while strangers flood the host's door (one process,
loopback TCP)."""


from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from functools import partial
from pathlib import Path

import trio

from benches.common import Row, group
from p2pcards.crypto.identity import Identity
from p2pcards.crypto.pake import Pake, Side
from p2pcards.games.nines.rules import NinesRules


@dataclass(frozen=True, slots=True)
class FloodRun:
    seated_s: float
    """From the honest joiners' first dial to the table being full."""
    opened: int
    """Hostile connections opened by then."""
    answers: dict[str, int]
    """What those hostile connections had been told by then (a refusal's reason, or what happened)."""
    retries: int
    """``busy`` answers the honest joiners had to wait out."""


def _stranger_sources(spread: int) -> list[str]:
    """Loopback addresses the strangers dial from; the honest joiners use 127.0.0.1."""
    import socket

    sources = [f"127.0.{k // 250}.{k % 250 + 2}" for k in range(spread)]
    with socket.socket() as s:
        try:
            s.bind((sources[-1], 0))
        except OSError:  # only 127.0.0.1 is configured here: strangers share the joiners' address
            return ["127.0.0.1"]
    return sources


async def _flood(concurrency: int, attempts: int, sources: list[str], players: int = 3) -> FloodRun:
    """Seat ``players - 1`` honest joiners while ``attempts`` hostile connections are made,
    ``concurrency`` at a time: every other one sends a wrong code (a random proof: no scrypt),
    the rest send a hello and then nothing until the host lets go."""

    from p2pcards.net import tls
    from p2pcards.net.link import Link, LinkClosed
    from p2pcards.net.session import HostLobby, LobbyUI, Timeouts, join_table
    from p2pcards.protocol.lobby import (
        Auth,
        Challenge,
        Hello,
        Refused,
        decode_lobby_object,
        encode_lobby,
        link_message,
    )

    code = "7-amber-lantern"
    lobby = HostLobby(
        identity=Identity.generate(),
        name="host",
        rules=NinesRules(),
        players=players,
        code=code,
        game_id=os.urandom(16),
        ui=LobbyUI(),
        timeouts=Timeouts(),
    )
    answers: dict[str, int] = {}
    opened = 0
    retries = 0

    class Counting(LobbyUI):
        def info(self, text: str) -> None:
            nonlocal retries
            retries += text.startswith("the host is busy")

    async def stranger(port: int, k: int) -> str:
        me = Identity.generate()
        try:
            tcp = await trio.open_tcp_stream("127.0.0.1", port, local_address=sources[k % len(sources)])
        except OSError:
            return "could not connect"
        secured = tls.client(tcp)  # every connection to a host is TLS, strangers' too
        link = Link(secured)
        try:
            try:
                await tls.handshake(secured)
            except tls.TLSError:
                return "refused during the TLS handshake"
            pake = Pake.start(Side.JOINER, "7-amber-lantern", os.urandom(64)).message
            hello = Hello(name="x", key=me.public_key, nonce=os.urandom(32), port=1, pake=pake)
            await link.send(encode_lobby(hello))
            reply = decode_lobby_object(await link.receive())
            if isinstance(reply, Challenge) and k % 2 == 0:
                sig = me.sign(link_message(reply.game, reply.nonce, me.public_key, reply.key))
                await link.send(encode_lobby(Auth(proof=os.urandom(32), sig=sig)))
                reply = decode_lobby_object(await link.receive())
            elif isinstance(reply, Challenge):  # silence until the host lets go
                last = decode_lobby_object(await link.receive())
                return "let go for a newcomer" if isinstance(last, Refused) else last.TYPE
            return reply.reason if isinstance(reply, Refused) else reply.TYPE
        except LinkClosed:
            return "dropped after the handshake timeout"
        finally:
            await link.aclose()

    listeners = await trio.open_tcp_listeners(0, host="127.0.0.1")
    port = listeners[0].socket.getsockname()[1]
    flowing = trio.Event()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(trio.serve_listeners, lobby.handle, listeners)
        pending = iter(range(attempts))

        async def worker() -> None:
            nonlocal opened
            for k in pending:
                opened += 1
                outcome = await stranger(port, k)
                answers[outcome] = answers.get(outcome, 0) + 1
                flowing.set()

        for _ in range(concurrency):
            nursery.start_soon(worker)
        if concurrency:
            await flowing.wait()  # the flood is under way
        t = time.perf_counter()
        for seat in range(1, players):
            nursery.start_soon(
                partial(
                    join_table,
                    host="127.0.0.1",
                    port=port,
                    code=code,
                    identity=Identity.generate(),
                    name=f"p{seat}",
                    listen_port=1,
                    ui=Counting(),
                    timeouts=Timeouts(),
                )
            )
        with trio.fail_after(120):
            await lobby.full.wait()
        seated = time.perf_counter() - t
        run = FloodRun(seated_s=seated, opened=opened, answers=dict(answers), retries=retries)
        nursery.cancel_scope.cancel()
    return run


@group("lobby", "honest joiners seated while strangers flood the host (wrong codes, hello then silence)")
def lobby_rows(quick: bool) -> list[Row]:

    attempts = 200
    # (strangers at a time, addresses they come from; 0: the honest joiners' own address)
    cases = [(0, 1), (1, 1), (32, 1), (200, 1)] + ([] if quick else [(200, 200), (32, 0)])
    rows = []
    for concurrency, spread in cases:
        sources = _stranger_sources(spread) if spread else ["127.0.0.1"]
        if spread > 1 and len(sources) == 1:
            continue  # no loopback addresses besides 127.0.0.1 here
        if not concurrency:
            measure = "2 honest joiners seated, no strangers"
        else:
            where = {0: "the joiners' address", 1: "one address"}.get(spread, f"{spread} addresses")
            measure = f"2 honest joiners seated, {attempts} strangers {concurrency} at a time from {where}"
        try:
            run = trio.run(_flood, concurrency, attempts, sources)
        except trio.TooSlowError:
            rows.append(Row(area="lobby", measure=measure, value="FAILED", notes="not seated within 120 s"))
            continue
        told = ", ".join(f"{n} {what}" for what, n in sorted(run.answers.items(), key=lambda kv: -kv[1]))
        notes = (
            "2 joiners of a 3-seat table, SPAKE2 included"
            if not concurrency
            else f"{run.opened} strangers had dialled by then, told: {told or 'nothing yet'}; "
            f"the joiners waited out {run.retries} busy answers"
            + (
                "; only 127.0.0.1 here, the strangers shared the joiners' address"
                if spread and sources == ["127.0.0.1"]
                else ""
            )
        )
        rows.append(Row(area="lobby", measure=measure, value=f"{1000 * run.seated_s:.0f} ms", notes=notes))
    return rows


def _child_env() -> dict[str, str]:
    """This process's p2pcards for a child ``python``, with a data folder of its own and
    bytecode caches written as in any installation."""
    import p2pcards

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(
        PYTHONPATH=str(Path(p2pcards.__file__).resolve().parent.parent),
        P2PCARDS_HOME=tempfile.mkdtemp(prefix="p2pcards-bench-home-"),
        P2PCARDS_NO_PORT_MAPPING="1",
        P2PCARDS_LANG="en",
    )
    return env


def _run_child(args: list[str], env: dict[str, str], until: str | None = None) -> tuple[float, float, str]:
    """(wall ms, CPU ms, stderr) of ``python ARGS`` run to its end, or stopped once a line of its
    output holds ``until`` (its CPU time then includes its last moments, spent waiting)."""
    start = time.perf_counter()
    child = subprocess.Popen(
        [sys.executable, *args],
        stdout=subprocess.DEVNULL if until is None else subprocess.PIPE,
        stderr=subprocess.PIPE if until is None else subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        env=env,
        text=True,
    )
    err = ""
    if until is None:
        assert child.stderr is not None
        err = child.stderr.read()
        child.stderr.close()
    else:
        assert child.stdout is not None
        for line in child.stdout:
            if until in line:
                break
        child.kill()
        child.stdout.close()
    _, _, usage = os.wait4(child.pid, 0)  # the child's own CPU time
    wall = time.perf_counter() - start
    child.returncode = 0
    return 1000 * wall, 1000 * (usage.ru_utime + usage.ru_stime), err


@group("startup", "start-up: importing the command line, p2pcards --help, a host reaching its lobby")
def startup_rows(quick: bool) -> list[Row]:
    runs = 3 if quick else 7
    env = _child_env()
    host = ["-m", "p2pcards", "host", "--bot", "random", "--players", "2", "--port", "0"]
    host += ["--bind", "127.0.0.1", "--no-discovery", "--name", "Bench", "--code", "7-apple-banana"]
    cases = [
        ("python -c pass (the interpreter alone)", ["-c", "pass"], None),
        ("import p2pcards.cli", ["-X", "importtime", "-c", "import p2pcards.cli"], None),
        ("p2pcards --help", ["-m", "p2pcards", "--help"], None),
        # the line the others type to join: the lobby is open
        ("p2pcards host: start to its invitation", host, "--code"),
    ]
    rows = []
    for measure, args, until in cases:
        _run_child(args, env, until)  # a first run writes the bytecode caches
        walls, cpus, imports = [], [], []
        for _ in range(runs):
            wall, cpu, err = _run_child(args, env, until)
            walls.append(wall)
            cpus.append(cpu)
            mine = [line for line in err.splitlines() if line.rstrip().endswith("| p2pcards.cli")]
            if mine:
                imports.append(int(mine[-1].split("|")[1]) / 1000)
        extra = f"; -X importtime: {statistics.median(imports):.0f} ms" if imports else ""
        rows.append(
            Row(
                area="startup",
                measure=measure,
                value=f"{statistics.median(cpus):.0f} ms CPU",
                notes=f"wall {statistics.median(walls):.0f} ms{extra}; median of {runs} fresh processes",
            )
        )
    return rows


