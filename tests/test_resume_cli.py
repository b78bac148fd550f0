"""``p2pcards resume`` on journals it finds in the data directory: the names in them are
the players' (shown clean, as everywhere else), and a journal that cannot be resumed is
refused in one sentence naming the file, and kept."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from p2pcards.cli import main
from p2pcards.crypto.identity import Identity
from p2pcards.net import storage
from p2pcards.protocol.journal import JournalHeader, encode_header
from p2pcards.protocol.messages import Player
from p2pcards.ui.i18n import Translator

HOSTILE = ("Ev\x1b]0;owned\x07il\x1b[2J", "Bob\nVALID: Bob wins", "\u202eAnn")
"""Names a player may try (the schema refuses them, but a journal is only a file):
a window title and a cleared screen, a fake line, a right-to-left override."""
SESSION = {"seats": [["127.0.0.1", 7001], ["127.0.0.1", 7002], ["127.0.0.1", 7003], ["127.0.0.1", 0]],
           "host_address": ["127.0.0.1", 7001], "listen_port": 0}  # fmt: skip


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("P2PCARDS_HOME", str(tmp_path))
    return tmp_path


def journal(home: Path, session: dict[str, Any]) -> Path:
    """A journal of this computer's seat (3) at a table with the hostile names."""
    me = storage.load_identity(home)
    others = [
        Player(name=n, key=Identity.from_bytes(bytes([k + 1]) * 32).public_key) for k, n in enumerate(HOSTILE)
    ]
    header = JournalHeader(
        game="nines",
        game_id=bytes(range(16)),
        rules={"target": 100},
        roster=(*others, Player(name="me", key=me.public_key)),
        seat=3,
        entropy=bytes(32),
        session=session,
    )
    path = storage.journal_path(header.game_id, header.seat, home)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(encode_header(header))
    return path


def run(*args: str) -> Result:
    # color=True: click would otherwise strip some escapes itself, as it does on a pipe
    return CliRunner().invoke(main, ["resume", *args], color=True)


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_a_game_number_with_no_unfinished_game_is_a_mistake(home: Path, lang: str) -> None:
    """resume 5 with no unfinished game resumes nothing: it says so on the error output with
    status 2 (a mistake on the command line, as a number past the list is); resume alone and
    resume --list say it with status 0."""
    env: dict[str, str | None] = {"P2PCARDS_LANG": None}
    none = Translator(lang)("resume_none")
    asked = CliRunner().invoke(main, ["resume", "5", "--lang", lang], env=env)
    assert asked.exit_code == 2, asked.output
    assert asked.stderr.strip() == none and asked.stdout == "", asked.output
    listed = CliRunner().invoke(main, ["resume", "--list", "--lang", lang], env=env)
    assert listed.exit_code == 0 and listed.stdout.strip() == none, listed.output
    # resume alone also says what a seat killed while its table linked (no journal yet) does
    alone = CliRunner().invoke(main, ["resume", "--lang", lang], env=env)
    assert alone.exit_code == 0 and alone.stdout.splitlines()[0] == none, alone.output
    hint = " ".join(line.strip() for line in alone.stdout.splitlines()[1:])
    assert hint == Translator(lang)("resume_none_join") and "join" in hint, alone.output


def test_the_list_shows_the_names_in_a_journal_clean(home: Path) -> None:
    journal(home, SESSION)
    for columns in (80, 60):
        listed = CliRunner().invoke(main, ["resume", "--list"], color=True, env={"COLUMNS": str(columns)})
        assert listed.exit_code == 0, listed.output
        lines = listed.output.splitlines()
        assert lines[0].startswith("1. ") and all(line.startswith("  ") for line in lines[1:]), lines
        assert all(len(line) <= columns - 1 for line in lines), lines  # one game, folded to fit
        assert not any(c in listed.output for c in "\x1b\x07\u202e"), repr(listed.output)
        said = " ".join(listed.output.split())
        assert "Nines at 127.0.0.1:7001: Evil, Bob VALID: Bob wins, Ann, me (you: seat 3)" in said, said


@pytest.mark.parametrize("session", [{}, {"seats": [], "host_address": None, "listen_port": 0}])
@pytest.mark.parametrize("how", ["the only game", "its number", "its file"])
def test_a_journal_without_a_network_session_is_refused_by_name_and_kept(
    home: Path, session: dict[str, Any], how: str
) -> None:
    path = journal(home, session)
    before = path.read_bytes()
    args = {"the only game": [], "its number": ["1"], "its file": [str(path)]}[how]
    refused = run(*args)
    assert refused.exit_code == 1
    assert refused.output == (
        f"Error: {path} cannot be resumed: its header does not say where the other players are "
        "(its network session is empty or damaged), so the journal is left as it is.\n"
    )
    assert path.read_bytes() == before  # nothing lost: the journal is still there, unchanged


def test_a_file_that_is_not_a_journal_is_refused_by_name(home: Path) -> None:
    path = home / "notes.journal"
    path.write_bytes(b"hello")
    refused = run(str(path))
    assert refused.exit_code == 1
    assert refused.output == (
        f"Error: {path} cannot be resumed: not a p2pcards journal, or its header is damaged; "
        "it is left as it is.\n"
    )
    assert path.read_bytes() == b"hello"
    said = run(str(path), "--lang", "it").output
    assert said == (
        f"Errore: {path} non si può riprendere: non è un diario p2pcards, o la sua intestazione è "
        "danneggiata; resta com'è.\n"
    )


@pytest.mark.parametrize("lang", ["en", "fr"])
def test_a_journal_damaged_before_its_end_is_refused_and_kept_whole(home: Path, lang: str) -> None:
    """Bytes flipped in a journal's middle are no torn tail: what lies past them may be
    records this seat already sent, which it would sign again differently (and be blamed
    for). It is refused by name, in the player's language, and not cut short; a journal cut
    in the middle of its last entry (a crash while writing) is still resumable."""
    from p2pcards.protocol.journal import encode_entry, read_journal

    path = journal(home, SESSION)
    entry = bytearray(encode_entry([b"a record", bytes(64)]) * 3)
    entry[12] ^= 0xFF  # the first entry's body: its checksum no longer matches
    path.write_bytes(path.read_bytes() + bytes(entry))
    before = path.read_bytes()
    assert read_journal(before).damaged
    refused = run("--lang", lang)
    assert refused.exit_code == 1, refused.output
    said = " ".join(refused.output.split())
    expected = {"en": "cannot be resumed: it is damaged at byte",
                "fr": "ne peut pas être repris : il est endommagé à l'octet"}[lang]  # fmt: skip
    assert expected in said, said
    assert "Traceback" not in refused.output
    assert path.read_bytes() == before  # nothing cut off
    torn = read_journal(before[: len(before) - len(entry) + 7])
    assert torn.dropped == 7 and not torn.damaged
    assert not read_journal(before[: len(before) - len(entry)] + bytes(40)).damaged  # zeros: torn too


def test_a_bot_signs_with_a_key_of_its_own_kept_by_its_name(home: Path) -> None:
    """A person may seat a bot beside themself from this computer: a table refuses one key
    twice. A journal's seat is resumed with whichever identity kept here is its key."""
    from p2pcards.net.node import unfinished_games

    me = storage.load_identity(home)
    robo = storage.load_identity(home, bot="Robo")
    assert robo.public_key != me.public_key
    assert storage.load_identity(home, bot="Robo").public_key == robo.public_key  # from game to game
    other = storage.load_identity(home, bot="Rôbo")
    assert other.public_key not in (me.public_key, robo.public_key)
    for identity in (me, robo, other):
        found = storage.identity_for(identity.public_key, home)
        assert found is not None and found.public_key == identity.public_key
    assert storage.identity_for(bytes(32), home) is None
    journal(home, SESSION)
    [unfinished] = unfinished_games(home)
    assert unfinished.key == me.public_key


@pytest.mark.parametrize(
    ("named", "seated"),
    [("expert:0.5", "expert:0.5"), ("random", "random"), ("nobody-knows", None), (7, None), (None, None)],
)
def test_the_journal_says_which_bot_played_the_seat(home: Path, named: Any, seated: str | None) -> None:
    """A bot's journal names the bot (``--bot`` as given): ``resume`` with no ``--bot`` seats
    it again. A name this version does not know (a damaged file, a newer version) is no
    bot, and a person's journal names none: the seat is then resumed as a person's."""
    from p2pcards.cli.network import _check_resumable
    from p2pcards.ui.i18n import Translator

    path = journal(home, SESSION if named is None else {**SESSION, "bot": named})
    found = _check_resumable(path, Translator("en"))
    assert found.bot == seated
    assert found.key == storage.load_identity(home).public_key


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_resume_does_not_offer_a_name_its_seat_would_not_sit_under(lang: str) -> None:
    """A resumed seat sits under the name its journal holds: ``--name`` (still accepted, so
    that one script may start and resume a seat alike) is not listed as if it named it."""
    shown = CliRunner().invoke(main, ["resume", "--help", "--lang", lang])
    assert shown.exit_code == 0 and "--name" not in shown.output, shown.output
    joined = CliRunner().invoke(main, ["join", "--help", "--lang", lang])
    assert "--name" in joined.output


def test_the_hosts_grace_is_not_said_to_stop_the_match() -> None:
    """Past the grace a table of three or more plays on without the player who did not come
    back (only a table of two ends): the help of ``--grace`` says so, not that the match stops."""
    shown = " ".join(CliRunner().invoke(main, ["host", "--help"], env={"COLUMNS": "200"}).output.split())
    grace = shown.split("--grace", 1)[1].split("--lang", 1)[0]
    assert "before the match stops" not in grace and "the others play on without them" in grace, grace


# Guards node.py resume_game: a session whose relayed seats or clock are not numbers is
# refused by name and the journal kept, as any other damage; it was a traceback.
@pytest.mark.parametrize(
    "extra",
    [{"relayed": ["x"]}, {"relayed": 5}, {"relayed": [{}]}, {"clock": ["a", 1, 2]}, {"clock": [1]}],
    ids=["relayed text", "relayed int", "relayed map", "clock text", "clock short"],
)
def test_a_session_with_damaged_numbers_is_refused_by_name_and_kept(
    home: Path, extra: dict[str, Any]
) -> None:
    path = journal(home, {**SESSION, **extra})
    before = path.read_bytes()
    refused = run(str(path), "--no-port-mapping")
    assert refused.exit_code == 1, refused.output
    assert refused.exception is None or isinstance(refused.exception, SystemExit), refused.exception
    assert refused.output.startswith(f"Error: {path} is damaged"), refused.output
    assert path.read_bytes() == before


# Guards storage.py JournalFile's lock and node.py resume_game: a journal that a running
# p2pcards plays from (the game itself, or a first resume) is not resumed a second time. A
# seat that listens was kept out by its port only; one that does not listen (--no-listen)
# ran twice, and the second cut off the records the first appended, so that after a crash
# the seat could sign another record for a step it had sent.
def test_a_journal_in_use_is_not_resumed_a_second_time(home: Path) -> None:
    path = journal(home, {**SESSION, "seats": [*SESSION["seats"][:3], ["", 0]]})
    holder = storage.JournalFile(path, truncate_at=len(path.read_bytes()))
    try:
        holder.write(b"appended by the process that plays")
        before = path.read_bytes()
        refused = run(str(path), "--no-port-mapping")
        assert refused.exit_code == 1, refused.output
        assert refused.output == (
            f"Error: {path} is in use: another p2pcards plays this game from it now; stop that one first\n"
        )
        with pytest.raises(storage.JournalInUse):
            storage.JournalFile(path, truncate_at=0)
        assert path.read_bytes() == before  # nothing cut off
    finally:
        holder.close()
    assert not storage.journal_in_use(path)


# Guards cmd_resume.py: a journal that cannot be resumed (empty, damaged) was passed over in
# silence: "No unfinished game", and the file left in the journals folder for ever.
def test_a_journal_that_cannot_be_resumed_is_mentioned_not_passed_over(home: Path) -> None:
    good = journal(home, SESSION)
    empty = good.with_name("00" * 16 + "-s1.journal")
    empty.write_bytes(b"")
    listed = CliRunner().invoke(main, ["resume", "--list", "--lang", "en"])
    said = " ".join(listed.output.split())
    assert listed.exit_code == 0 and "me" in said, said  # the good one is listed
    assert f"(not listed: {empty}, which cannot be resumed; p2pcards resume followed by that path" in said
    good.unlink()
    nothing = CliRunner().invoke(main, ["resume", "--lang", "fr"])
    said = " ".join(nothing.output.split())
    assert nothing.exit_code == 0 and "Aucune partie inachevée" in said, said
    assert f"non listé : {empty}" in said, said
    assert empty.exists()  # left as it is


def test_a_journal_whose_clock_is_damaged_is_refused_in_the_players_language(home: Path) -> None:
    """A header whose signed clock is not three numbers is refused before the node starts,
    in the player's language, and the journal is kept."""
    path = journal(home, {**SESSION, "clock": [600, 60]})
    before = path.read_bytes()
    refused = run(str(path), "--lang", "fr")
    assert refused.exit_code == 1, refused.output
    assert f"{path} est endommagé : the clock is not a turn, a step and a grace" in refused.output
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("env", "args", "spoken"),
    [
        ({}, [], "it"),
        ({"LANG": "fr_FR.UTF-8"}, [], "it"),  # the locale does not outweigh the language played in
        ({"P2PCARDS_LANG": "fr"}, [], "fr"),
        ({}, ["--lang", "en"], "en"),
    ],
)
def test_resume_speaks_the_language_the_seat_was_played_in(
    home: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str], args: list[str], spoken: str
) -> None:
    """A player who joined with ``--lang it`` and comes back with a bare ``p2pcards resume``, as
    the README has it, is spoken to in Italian again (the journal keeps the seat's language),
    unless ``--lang`` or P2PCARDS_LANG names another."""
    from p2pcards.cli import cmd_resume

    for var in ("P2PCARDS_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    journal(home, {**SESSION, "lang": "it", "bot": "random"})
    ran: dict[str, Any] = {}
    monkeypatch.setattr(cmd_resume, "_run_node", lambda kind, run, **opts: ran.update(opts))
    result = CliRunner().invoke(main, ["resume", *args], env=env)
    assert result.exit_code == 0, result.output
    assert ran["lang"] == spoken and ran["bot"] == "random"
    said = Translator(spoken)("resume_as_bot", bot="random")
    assert said in " ".join(result.output.split()), result.output


@pytest.mark.parametrize("lang", ["fr", None])
def test_the_journal_keeps_the_language_of_the_seat(lang: str | None) -> None:
    """The node writes its interface's language into its journal's session (none if unknown)."""
    from types import SimpleNamespace

    from p2pcards.games.neuf.rules import NeufRules
    from p2pcards.net.node import _journal_header

    seat = SimpleNamespace(host="127.0.0.1", port=7001, also=(), name="me", key=bytes(32))
    info = SimpleNamespace(roster=[seat], host_address=None, relayed=(), clock=None, game="neuf",
                           game_id=bytes(16), rules=NeufRules(), seat=0)  # fmt: skip
    header = _journal_header(info, bytes(32), 7001, None, lang)  # type: ignore[arg-type]
    assert header.session.get("lang") == lang


def test_a_second_resume_of_a_game_in_play_is_refused_in_the_language_it_was_played_in(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two ``p2pcards resume`` typed at once (two terminals): the second is refused, in the
    language of the game, ``Error:`` included, not in the locale's."""
    for var in ("P2PCARDS_LANG", "LC_ALL", "LC_MESSAGES", "LANG"):
        monkeypatch.delenv(var, raising=False)
    path = journal(home, {**SESSION, "lang": "it"})
    holder = storage.JournalFile(path, truncate_at=len(path.read_bytes()))
    try:
        refused = CliRunner().invoke(main, ["resume"])
    finally:
        holder.close()
    assert refused.exit_code == 1, refused.output
    assert refused.output.startswith(f"Errore: {path} è in uso"), refused.output
    # A failure once the node runs is said in that language too.
    from p2pcards.cli import cmd_resume

    def fails(kind: str, run: Any, **opts: Any) -> None:
        raise click.ClickException(Translator(opts["lang"])("cmd_interrupted"))

    monkeypatch.setattr(cmd_resume, "_run_node", fails)
    failed = CliRunner().invoke(main, ["resume"])
    assert failed.output.startswith("Errore: " + Translator("it")("cmd_interrupted")), failed.output
    english = CliRunner().invoke(main, ["resume", "--lang", "en"])  # (nothing kept from the last command)
    assert english.output.startswith("Error: Interrupted"), english.output


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
@pytest.mark.parametrize("which", ["127.0.0.1:7777", "43-robin-maple", "neuf"])
def test_resume_given_an_address_or_a_code_says_it_needs_neither(home: Path, lang: str, which: str) -> None:
    """A person who read that a broken game comes back with ``resume`` types what ``join`` took
    (the host's address, the code): told that ``resume`` alone finds the game, as a mistake on
    the command line (status 2), not that a journal by that name cannot be read."""
    journal(home, SESSION)
    said = CliRunner().invoke(main, ["resume", which, "--lang", lang], env={"P2PCARDS_LANG": None})
    assert said.exit_code == 2, said.output
    text = " ".join(said.output.split())
    assert Translator(lang)("resume_no_such", which=which) in text, text
    assert "journal" not in text.split(which, 1)[0], text  # (no "cannot read the journal")
