"""Le Neuf over the network: nodes on real loopback TCP, the real command, a human at a terminal.

* Three nodes of one trio run (``host_game`` and two ``join_game``) play whole
  matches: the joiners learn the game and its rules from the host, every node
  keeps the same records, every transcript audits valid as a game of Le Neuf
  and its ``--json`` record replays through a fresh engine. One joiner shows
  its table through the terminal view of ``join`` (:class:`NetworkUI`).
* ``p2pcards play --game neuf --watch`` as a separate process, then ``audit``
  and ``audit --json`` of the transcript it saved.
* A human seat in a pseudo-terminal, in English (``play``: every bot a node)
  and in French (``host --game neuf`` with two ``join --bot`` processes): the
  dummy questions, a look, a take and a refusal, a typo, a card not held, cards
  played to the end of the match; the transcripts agree and audit valid.
* ``host --game neuf`` with another number of players is refused in one line.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
import trio
from click.testing import CliRunner
from e2e_helpers import LOCAL, Proc, free_port, processes, run_cli, spawn_human
from e2e_helpers import audit_json as audit
from e2e_helpers import close_human as close_terminal
from net_helpers import CODE, FAST, LOCALHOST, RecordingUI, config, join_seat
from test_play_neuf import replay_neuf, validate_neuf_record

from p2pcards.bots import make_bot
from p2pcards.cards import parse_card
from p2pcards.cli import main
from p2pcards.games.neuf.rules import NeufRules
from p2pcards.net.node import NodeConfig, Outcome, host_game
from p2pcards.net.runner import Decider
from p2pcards.net.words import new_code
from p2pcards.protocol.audit import audit_bytes, audit_file
from p2pcards.protocol.table import TableCore
from p2pcards.protocol.transcript import load
from p2pcards.ui.i18n import Translator
from p2pcards.ui.netgame import NetworkUI, bot_decider
from p2pcards.ui.prompt import Console
from p2pcards.ui.render import Style


@pytest.fixture(autouse=True)
def _private_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing here may touch the user's data directory."""
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path / "home"))


def neuf_bot(seed: int, name: str) -> Decider:
    """A Le Neuf strategy with its own seeded random stream."""
    strategy = make_bot(name, "neuf")
    rng = random.Random(seed)

    async def decide(table: TableCore) -> Any:
        return strategy.choose(table.view(), table.legal_actions(), rng)

    return decide


def totals_rows(text: str) -> list[list[int]]:
    return [[int(x) for x in line.split()[1:]] for line in text.splitlines() if line.startswith("Total ")]


# ---------------------------------------------------------------------------
# 1. Three nodes in one trio run, on 127.0.0.1


@dataclass
class Joined:
    outcomes: dict[int, Outcome]
    screen: list[str] = field(default_factory=list)
    """What the terminal of seat 2 (``join`` with a bot) showed."""


async def three_nodes(tmp_path: Path, rules: NeufRules, seed: int) -> Joined:
    """Seat 0 hosts Le Neuf, seats 1 and 2 join; seat 2 shows its table through NetworkUI."""
    outcomes: dict[int, Outcome] = {}
    host_ui = RecordingUI()
    screen: list[str] = []
    console = Console(tr=Translator("en"), style=Style(unicode=True), write=screen.append)
    ui = NetworkUI(console, human=False)
    async with trio.open_nursery() as nursery:
        host_cfg = config(tmp_path, "s0", decide=neuf_bot(seed, "heuristic"), ui=host_ui)

        async def host(task_status: trio.TaskStatus[int] = trio.TASK_STATUS_IGNORED) -> None:
            outcomes[0] = await host_game(
                host_cfg, players=3, rules=rules, code=CODE, game="neuf", task_status=task_status
            )

        port = await nursery.start(host)
        await join_seat(
            nursery, port, config(tmp_path, "s1", decide=neuf_bot(seed + 1, "random")), 1, outcomes, host_ui
        )
        # The joiner's bot is made for the game the host named, at its first decision.
        seat2 = NodeConfig(
            name="s2",
            decide=bot_decider("heuristic", random.Random(seed + 2)),
            ui=ui,
            timeouts=FAST,
            transcript=tmp_path / "s2.p2pt",
            data_dir=tmp_path / "home-s2",
            bind=LOCALHOST,
            on_progress=ui.progress,
            on_wait=ui.waiting,
            on_table_ready=ui.table_ready,
        )
        await join_seat(nursery, port, seat2, 2, outcomes, host_ui)
    ui.finished(outcomes[2])
    return Joined(outcomes, screen)


RULES = {
    "default": NeufRules(),
    "blind-hearts-first-start-3": NeufRules(exchange="blind", trumps=("H", "D", "S", "C", None), start=3),
}


@pytest.mark.slow
@pytest.mark.parametrize("name", list(RULES))
async def test_three_nodes_play_le_neuf_over_tcp_and_every_transcript_audits_valid(
    tmp_path: Path, name: str
) -> None:
    rules = RULES[name]
    with trio.fail_after(120):
        joined = await three_nodes(tmp_path, rules, seed=len(name))
    outcomes = joined.outcomes
    assert sorted(outcomes) == [0, 1, 2]
    for seat, o in outcomes.items():
        assert (o.status, o.problem, o.blamed) == ("over", None, ()), (seat, o.problem)
        assert o.table is not None and o.table.seat == seat
        # The joiners learnt the game and its rules from the host's challenge.
        assert o.table.GAME == "neuf" and o.table.rules == rules
    matches = [outcomes[s].table.match for s in range(3)]  # type: ignore[union-attr]
    assert len({tuple(m.totals) for m in matches}) == 1 and matches[0].over
    assert len({m.winners for m in matches}) == 1 and min(matches[0].totals) <= 0

    files = [outcomes[s].transcript for s in range(3)]
    assert all(path is not None and path.exists() for path in files)
    records = [load(path).records for path in files]  # type: ignore[arg-type]
    assert records[0] and all(r == records[0] for r in records), "the nodes' transcripts differ"
    for path in files:
        report = audit_file(path)  # type: ignore[arg-type]
        assert report.valid, report.summary()
        hands = len(matches[0].results)
        assert report.summary().startswith(
            f"VALID: a finished game of Le Neuf, 3 players, {hands} hand{'s' if hands > 1 else ''}."
        )
        doc = report.to_record()
        validate_neuf_record(doc)
        replayed = replay_neuf(doc)
        assert replayed.totals == matches[0].totals and doc["rules"] == rules.to_dict()
        assert [p["name"] for p in doc["players"]] == ["s0", "s1", "s2"]
        assert all(len(p["key"]) == 64 for p in doc["players"])

    # A transcript altered on disk: the audit names the game it could still read.
    data = bytearray(files[0].read_bytes())  # type: ignore[union-attr]
    # Inside a signed record (its bytes, not the file's own structure, which would make
    # the file unreadable rather than invalid).
    middle = load(files[0]).records[len(load(files[0]).records) // 2][0]  # type: ignore[arg-type]
    data[bytes(data).index(middle) + len(middle) // 2] ^= 0x55
    altered = audit_bytes(bytes(data))
    assert not altered.valid and altered.summary().startswith("INVALID: ")
    assert "in a game of Le Neuf" in altered.summary().splitlines()[0]

    # Seat 2's terminal: the table as `join --bot` shows it.
    text = "\n".join(joined.screen)
    doc = audit_file(files[2]).to_record()  # type: ignore[arg-type]
    hands = doc["hands"]
    assert "Everyone is linked: s0, s1 and s2. Shuffling..." in text
    assert f"Everyone starts at {rules.start} and counts down" in text
    assert re.search(r"^Table fingerprint: \d{4} \d{4} \d{4}$", text, re.M)
    for h in hands:
        trump = "no trumps" if h["trump"] is None else f"trumps {Style(unicode=True).suit(h['trump'])}"
        assert re.search(rf"^── Hand {h['number']} · (s\d deals|you deal) · {trump} ", text, re.M)
    # Every exchange decision, in order, in words; in blind exchanges nobody looks.
    said = re.findall(r"^   (s0|s1|You) (looked at|took|left) the dummy( without looking)?$", text, re.M)
    expected = []
    for h in hands:
        for e in h["exchanges"]:
            who = "You" if e["seat"] == 2 else f"s{e['seat']}"
            if e["looked"]:
                expected.append((who, "looked at", ""))
            blind = rules.exchange == "blind" or e["looked"]
            expected.append((who, "took" if e["took"] else "left", "" if blind else " without looking"))
    assert said == expected
    # Every trick as it is won, then the hands as every node verified them.
    assert len(re.findall(r"^   Trick \d+: ", text, re.M)) == 13 * len(hands)
    assert text.count("The hands as played, every card revealed and checked by every node:") == len(hands)
    assert totals_rows(text)[-1] == doc["result"]["totals"]
    assert "The match is over; every node verified every move." in text
    assert str(files[2]) in text


# ---------------------------------------------------------------------------
# 2. `play --game neuf --watch`, a separate process, and the audit of its transcript


@pytest.mark.slow
def test_play_watch_saves_a_transcript_that_audits_as_le_neuf(tmp_path: Path) -> None:
    transcript, record = tmp_path / "watch.p2pt", tmp_path / "watch.json"
    home = tmp_path / "home"
    args = ["play", "--game", "neuf", "--watch", "--seed", "12", "--transcript", str(transcript)]
    proc = run_cli([*args, "--record", str(record)], home=home, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr == ""
    out = proc.stdout
    assert out.startswith("Le Neuf: Alice, Bob and Carol (heuristic bots).\n")
    assert f"Signed transcript (check it with p2pcards audit FILE):\n  {transcript}\n" in out
    assert "Final scores" in out and re.search(r"^(Alice|Bob|Carol).* with -?\d+ points\.$", out, re.M)

    verdict = run_cli(["audit", str(transcript)], home=home)
    assert verdict.returncode == 0, verdict.stdout + verdict.stderr
    lines = verdict.stdout.splitlines()
    assert re.fullmatch(r"VALID: a finished game of Le Neuf, 3 players, \d+ hands?\.", lines[0]), lines[0]
    assert lines[1].startswith("Totals: Alice ") and lines[2].startswith("Winner")
    assert re.fullmatch(r"Table fingerprint: \d{4} \d{4} \d{4}", lines[-2]), lines[-2:]
    assert lines[-1] == "  Nobody confirmed comparing it with the other players."  # bots: nobody was asked

    status, doc = audit(transcript, home=home)
    assert status == 0
    validate_neuf_record(doc)
    match = replay_neuf(doc)
    assert totals_rows(out)[-1] == doc["result"]["totals"] == match.totals
    assert f"{len(doc['hands'])} hand" in lines[0]
    # The record `play` wrote is the audit's, but for the keys (play knows the names only).
    written = json.loads(record.read_text(encoding="utf-8"))
    assert {k: v for k, v in written.items() if k != "players"} == {
        k: v for k, v in doc.items() if k != "players"
    }
    assert [p["name"] for p in written["players"]] == [p["name"] for p in doc["players"]]


# ---------------------------------------------------------------------------
# 3. A human seat at a terminal


@dataclass(frozen=True, slots=True, kw_only=True)
class Words:
    """One language's Le Neuf prompts and messages."""

    look: str
    take: str
    take_blind: str
    card: str
    next_hand: str
    yes: str
    no: str
    your_hand: str
    not_yes_no: str
    not_card: str
    not_held: str
    help_title: str
    looked: str
    took: str
    left: str
    left_unseen: str
    compared: str = r"Do all the players read these same digits\? [^>]*> "


ENGLISH = Words(
    look=r"Look at the dummy\? \(y/n\) > ",
    take=r"Take the dummy\? \(y/n\) > ",
    take_blind=r"Take the dummy without looking\? \(y/n\) > ",
    card=r"Your card > ",
    next_hand=r"Press Enter for the next hand\. > ",
    yes="y",
    no="n",
    your_hand="Your hand  ",
    not_yes_no="Please answer y or n (or type help).",
    not_card="{text} is not a card - type ",  # then "a number 1-N or a card like ..." or "1 or ..."
    not_held="Not allowed: you do not hold {card} [rule: card-held]",
    help_title="How to play Le Neuf",
    looked="You looked at the dummy",
    took="You took the dummy",
    left="You left the dummy",
    left_unseen="You left the dummy without looking",
)

FRENCH = Words(
    look=r"Regarder le mort \? \(o/n\) > ",
    take=r"Prendre le mort \? \(o/n\) > ",
    take_blind=r"Prendre le mort sans le regarder \? \(o/n\) > ",
    card=r"Votre carte > ",
    next_hand=r"Appuyez sur Entrée pour la manche suivante\. > ",
    yes="o",
    no="n",
    your_hand="Votre main  ",
    not_yes_no="Répondez o ou n (ou tapez aide).",
    not_card="{text} n'est pas une carte - tapez ",
    not_held="Interdit : vous n'avez pas {card} [règle : carte en main]",
    help_title="Comment jouer au Neuf",
    looked="Vous avez regardé le mort",
    took="Vous avez pris le mort",
    left="Vous avez laissé le mort",
    left_unseen="Vous avez laissé le mort sans le regarder",
    compared=r"Tous les joueurs lisent-ils ces mêmes chiffres \? [^>]*> ",
)

LOOK, TAKE, TAKE_BLIND, CARD, NEXT_HAND, ENDED, COMPARED = range(7)

Plan = Callable[[int], tuple[bool, bool]]
"""Hand number -> (look at the dummy?, take it?)."""


@dataclass
class NeufSeat:
    """Answers a Le Neuf seat's prompts: the dummy as planned, legal cards at random from the screen.

    The first dummy question gets a word that is not an answer and ``help``, the
    first card prompt a typo and a card the player does not hold; each must be
    answered with the right message and the same prompt again.
    """

    child: Any  # pexpect.spawn
    words: Words
    plan: Plan
    rng: random.Random = field(default_factory=lambda: random.Random(5))
    hands: int = 0
    decisions: list[tuple[int, bool, bool]] = field(default_factory=list)
    """(hand, looked, took) as answered."""
    cards: int = 0
    replies: dict[str, str] = field(default_factory=dict)
    compared: int = 0
    """Times the player was asked whether everyone read the same fingerprint (once)."""
    _looked: bool = False

    def _expect(self, pattern: str, timeout: float = 30) -> str:
        self.child.expect(pattern, timeout=timeout)
        return str(self.child.before)

    def play(self, *, max_prompts: int = 1500, timeout: float = 60) -> None:
        import pexpect

        w = self.words
        patterns = [w.look, w.take, w.take_blind, w.card, w.next_hand, pexpect.EOF, w.compared]
        for _ in range(max_prompts):
            k = self.child.expect(patterns, timeout=timeout)
            if k == ENDED:
                return
            screen = str(self.child.before)
            if k == COMPARED:  # the table fingerprint: the players compared it (one table here)
                self.compared += 1
                self.child.sendline(w.yes)
            elif k == LOOK:
                self.hands += 1
                if self.hands == 1:
                    self.child.sendline("maybe")
                    self.replies["maybe"] = self._expect(w.look)
                    self.child.sendline("help")
                    self.replies["help"] = self._expect(w.look)
                look, _ = self.plan(self.hands)
                self._looked = look
                if not look:
                    self.decisions.append((self.hands, False, False))
                self.child.sendline(w.yes if look else w.no)
            elif k in (TAKE, TAKE_BLIND):
                assert (k == TAKE) == self._looked, screen
                _, take = self.plan(self.hands)
                if self._looked:
                    self.decisions.append((self.hands, True, take))
                else:
                    self.decisions[-1] = (self.hands, False, take)
                self.child.sendline(w.yes if take else w.no)
            elif k == CARD:
                if self.cards == 0:
                    self.child.sendline("7x")
                    self.replies["7x"] = self._expect(w.card)
                    hand = screen[screen.rfind(w.your_hand) :].splitlines()[0].split()[2:]
                    held = {parse_card(c) for c in hand}
                    absent = next(  # (by the suits' signs: "JC" reads as the Jack of hearts in French too)
                        c for c in ("A♠", "K♥", "Q♦", "J♣", "10♠", "2♥", "3♣") if parse_card(c) not in held
                    )
                    self.child.sendline(absent)
                    self.replies["absent"] = self._expect(w.card)
                    self.replies["absent-card"] = parse_card(absent).text()
                menu = screen[screen.rfind(w.your_hand) :]
                numbers = [int(n) for n in re.findall(r"(?<!\S)(\d+)\) ", menu)]
                assert numbers and numbers == list(range(1, len(numbers) + 1)), screen
                self.cards += 1
                self.child.sendline(str(self.rng.choice(numbers)))
            else:
                self.child.sendline("")
        raise AssertionError("the match does not end")

    def check_replies(self) -> None:
        """The typo, the non-answer, help and the card not held each got their message."""
        w = self.words
        assert w.not_yes_no in self.replies["maybe"], self.replies["maybe"]
        assert w.help_title in self.replies["help"]
        reply = self.replies["7x"]
        # "type 1 or a card like 4D" with one legal card, "a number from 1 to N ..." with more.
        assert w.not_card.format(text="7x") in reply
        assert re.search(r"\b1\b", reply.split(w.not_card.format(text="7x"))[1]), reply
        card = self.replies["absent-card"]
        shown = card[:-1] + {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[card[-1]]
        flat = " ".join(self.replies["absent"].split())
        assert w.not_held.format(card=shown) in flat, flat


def check_exchanges(seat: NeufSeat, doc: dict[str, Any], me: int, words: Words, screen: str) -> None:
    """What the player answered is what every node recorded, and the screen said so."""
    recorded = [
        (h["number"], e["looked"], e["took"]) for h in doc["hands"] for e in h["exchanges"] if e["seat"] == me
    ]
    finished = len(doc["hands"])
    assert seat.decisions[:finished] == recorded
    flat = screen.replace("\r", "")
    for _, looked, took in recorded:
        if looked:
            assert f"   {words.looked}\n" in flat
            assert f"   {words.took if took else words.left}\n" in flat
        elif not took:
            assert f"   {words.left_unseen}\n" in flat


@pytest.mark.slow
def test_an_english_player_looks_takes_leaves_and_plays_a_whole_match_over_the_network(
    tmp_path: Path,
) -> None:
    """``play --game neuf``: the player at a terminal, every bot a separate node."""
    transcript = tmp_path / "ann.p2pt"
    log = tmp_path / "ann.screen"
    home = tmp_path / "home"
    child = spawn_human(
        [
            "play",
            "--game",
            "neuf",
            "--seed",
            "2",
            "--rule",
            "start=5",
            "--name",
            "Ann",
            "--transcript",
            str(transcript),
        ],
        home=home,
        log=log,
    )
    seat = NeufSeat(child, ENGLISH, plan=lambda n: (n % 2 == 1, n % 2 == 1))  # look and take, or leave unseen
    try:
        seat.play()
    finally:
        status = close_terminal(child)
    screen = log.read_text(encoding="utf-8", errors="replace").replace("\r", "")
    assert status == 0, screen[-3000:]
    assert "Traceback" not in screen
    seat.check_replies()
    assert "Le Neuf: Ann against Alice and Bob (heuristic bots)." in screen
    assert (
        "Final scores" in screen
        and f"Signed transcript (check it with p2pcards audit FILE):\n  {transcript}" in screen
    )
    # The table at each turn: the trick in progress, the trump, the tricks won and the totals.
    assert re.search(r"── Hand 1 · trumps ♠ spades · trick \d+ · your turn", screen)
    assert re.search(r"^ ▶ you    \d+ tricks?  +total 5", screen, re.M)  # (Ann to the others)
    assert re.search(r"^   Trick \d+: \w+ led \S+(, \w+ played \S+)? \(. \w+ led\)$", screen, re.M)
    status, doc = audit(transcript, home=home)
    assert status == 0 and doc["verdict"]["valid"] is True and doc["result"]["finished"] is True
    validate_neuf_record(doc)
    replay_neuf(doc)
    assert len(doc["hands"]) >= 2, "the match should give the player a take and a refusal"
    assert seat.decisions[:2] == [(1, True, True), (2, False, False)]
    check_exchanges(seat, doc, 0, ENGLISH, screen)
    assert screen.count("The hands as played, every card revealed and checked by every node:") == len(
        doc["hands"]
    )
    assert totals_rows(screen)[-1] == doc["result"]["totals"]
    assert seat.cards == 13 * len(doc["hands"])
    # The next hand (its deal and the bots' first decisions) is shown once the player has read the scores.
    scores, pause = screen.index("Scores after hand 1"), screen.index("Press Enter for the next hand. > ")
    assert scores < pause < screen.index("── Hand 2 · ")


@pytest.mark.slow
def test_a_french_host_plays_le_neuf_with_two_bot_joiners(tmp_path: Path) -> None:
    """``host --game neuf`` at a terminal, in French; two ``join --bot`` processes learn the game from it."""
    code = new_code()
    files = [tmp_path / f"t{i}.p2pt" for i in range(3)]
    log = tmp_path / "zoe.screen"
    with processes(tmp_path) as procs:
        port = free_port()
        child = None
        joiners: list[Proc] = []
        try:
            args = ["host", "--game", "neuf", "--port", str(port), "--bind", LOCAL, "--name", "Zoé"]
            args += ["--rule", "start=4", "--lang", "fr", "--transcript", str(files[0])]
            child = spawn_human(args, home=tmp_path / "home0", log=log, P2PCARDS_CODE=code)
            child.expect("Code d.invitation", timeout=20)  # the banner is in French too
            for i, name, bot in ((1, "Bob", "heuristic"), (2, "Cléo", "random")):
                args = ["join", f"{LOCAL}:{port}", "--bind", LOCAL, "--name", name, "--bot", bot]
                args += ["--transcript", str(files[i])]
                joiners.append(procs.spawn(name, args, home=tmp_path / f"home{i}", P2PCARDS_CODE=code))
                child.expect(rf"À la table \({i + 1} sur 3\) : ", timeout=20)  # seated in this order
            # Leave the dummy after a look in hand 1, take it unseen in hand 2, then alternate.
            seat = NeufSeat(child, FRENCH, plan=lambda n: (n % 2 == 1, n % 2 == 0))
            seat.play()
        finally:
            status = close_terminal(child) if child is not None else None
        results = [(p.name, p.finish(timeout=60), p.output()) for p in joiners]
    screen = log.read_text(encoding="utf-8", errors="replace").replace("\r", "")
    assert status == 0, screen[-3000:]
    assert "Traceback" not in screen and all("Traceback" not in out for _, _, out in results)
    assert [(name, rc) for name, rc, _ in results] == [("Bob", 0), ("Cléo", 0)]
    seat.check_replies()
    assert f"Le Neuf pour 3 joueurs, sur le port {port}." in screen  # the banner, in French
    assert "Tout le monde est connecté : Zoé, Bob et Cléo. Mélange..." in screen
    assert "Chacun part de 4 et descend" in screen
    assert "La partie est terminée ; chaque nœud a vérifié chaque coup." in screen
    assert re.search(r"── Manche 1 · atout ♠ pique · pli \d+ · à vous", screen)
    assert "Les mains jouées, chaque carte révélée et vérifiée par chaque nœud :" in screen

    records = [load(path).records for path in files]
    assert records[0] and all(r == records[0] for r in records)
    docs = [audit(path, home=tmp_path / "auditor")[1] for path in files]
    for doc in docs:
        assert doc["verdict"] == {"valid": True, "problems": []} and doc["game"] == "neuf"
        assert doc["hands"] == docs[0]["hands"] and doc["result"] == docs[0]["result"]
    validate_neuf_record(docs[0])
    replay_neuf(docs[0])
    assert [p["name"] for p in docs[0]["players"]] == ["Zoé", "Bob", "Cléo"]
    assert seat.decisions[0] == (1, True, False)
    check_exchanges(seat, docs[0], 0, FRENCH, screen)
    # The joiners' terminals (in English) say what Zoé did with the dummy, never what she saw.
    for _, _, out in results:
        assert "Zoé looked at the dummy\n   Zoé left the dummy\n" in out
        assert "The match is over; every node verified every move." in out
        assert "Everyone starts at 4 and counts down" in out


# ---------------------------------------------------------------------------
# 4. Usage


PLAYERS_ERROR = "Error: Invalid value for '-n' / '--players':"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "4"], f"{PLAYERS_ERROR} Le Neuf is for exactly 3 players, not 4"),
        (["-n", "2"], f"{PLAYERS_ERROR} Le Neuf is for exactly 3 players, not 2"),
        (
            ["--rule", "hard-nines"],
            "Error: Invalid value for '-r' / '--rule': unknown rule 'hard-nines'; "
            "known rules: trumps, exchange, start",
        ),
    ],
)
def test_host_refuses_a_le_neuf_table_it_cannot_seat_as_a_usage_error(args: list[str], message: str) -> None:
    result = CliRunner().invoke(main, ["host", "--game", "neuf", "--port", "0", *args])
    assert result.exit_code == 2  # a mistake on the command line, with click's usage line
    lines = result.output.strip().splitlines()
    assert lines[0].startswith("Usage: ") and lines[-1] == message, lines


def test_host_refuses_a_wrong_number_of_players_before_listening(tmp_path: Path) -> None:
    """The real command: refused at once, nothing listens, no data directory is made."""
    proc = run_cli(["host", "--game", "neuf", "--players", "4", "--port", "0"], home=tmp_path / "home")
    assert proc.returncode == 2
    assert proc.stderr.strip().endswith("Le Neuf is for exactly 3 players, not 4") and proc.stdout == ""
    assert not (tmp_path / "home").exists()


def test_the_help_texts_say_le_neuf_is_played_over_the_network() -> None:
    runner = CliRunner()
    play = " ".join(runner.invoke(main, ["play", "--help"]).output.split())
    assert "offline for now" not in play and "Nines only" not in play
    assert "Every bot is a separate node on loopback TCP" in play
    host = " ".join(runner.invoke(main, ["host", "--help"]).output.split())
    assert "--game [nines|neuf]" in host and "Le Neuf is for 3" in host
    join = " ".join(runner.invoke(main, ["join", "--help"]).output.split())
    assert "The host chooses the game (Nines or Le Neuf)" in join


def test_a_nines_host_still_defaults_to_four_seats_and_says_nines() -> None:
    result = CliRunner().invoke(main, ["host", "--players", "7", "--port", "0"])
    assert result.exit_code == 2
    assert result.output.strip().endswith(f"{PLAYERS_ERROR} Nines is for 2 to 6 players, not 7")
