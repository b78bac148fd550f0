"""The protocol's fault texts (whose fault a failed match is, and why) reach French and
Italian players in their language: at the end of a live match and in an audit's report.

The English stays as the protocol writes it (transcripts and tests hold it); the
interface reads it back against the templates of :mod:`p2pcards.protocol.faults`."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import test_guarded_checks as guarded
import test_host_terms as host_terms
import test_leave as leave
import test_neuf_protocol as neuf_threats
import test_protocol_threats as threats

from p2pcards.net.node import Outcome
from p2pcards.protocol import faults
from p2pcards.protocol.audit import audit_bytes
from p2pcards.protocol.steplog import StepLog
from p2pcards.protocol.transcript import encode_file
from p2pcards.ui.i18n import Translator
from p2pcards.ui.netgame import describe_outcome
from p2pcards.ui.problems import problem_text

INNER = faults.REPLAYED.format(step=4)
"""A fault inside another (``{problem} (next hand)``, ``disputed a card ({reason})``)."""

SAMPLES: dict[str, str] = {
    "names": "Ann (seat 0) and Bob",
    "name": "Zoé",
    "ref_name": "Bob",
    "kind": "shuffle",
    "sent_kind": "turn",
    "kinds": "draw-keys or dispute",
    "problem": INNER,
    "why": INNER,
    "reason": INNER,
    "said": "'gone fishing'",
    "error": "Xerror-words",
    "detail": "Xdetail-words",
    "rule": "card-held",
    "card": "9H",
    "pos": "(0, 12)",
}
"""A sample value of each field by its name (any other: a number)."""


def sample(template: str) -> dict[str, str]:
    fields = re.findall(r"\{(\w+)\}", template)
    return {name: SAMPLES.get(name, str(40 + k)) for k, name in enumerate(dict.fromkeys(fields))}


def said_values(tr: Translator, fields: dict[str, str]) -> list[str]:
    """What each field becomes in ``tr``'s language (the values kept, or said there)."""
    out = []
    for name, value in fields.items():
        if name in ("problem", "why", "reason"):
            out.append(problem_text(tr, value))
        elif name.endswith("kind"):
            out.append(tr(f"audit_kind_{value.replace('-', '_')}"))
        elif name == "kinds":
            out.append(tr("audit_kind_draw_keys"))
        elif name == "names":
            out += ["Ann", "Bob", tr("audit_seat", seat=0)]
        elif name == "rule":
            out.append(tr.rule_name(value))
        else:
            out.append(value)
    return out


@pytest.mark.parametrize("key", sorted(faults.TEMPLATES))
@pytest.mark.parametrize("lang", ["fr", "it"])
def test_every_fault_template_is_said_in_the_players_language(key: str, lang: str) -> None:
    template = faults.TEMPLATES[key]
    fields = sample(template)
    english = template.format(**fields)
    assert problem_text(Translator("en"), english) == english  # the catalogs' English is the template's
    said = problem_text(Translator(lang), english)
    assert said != english
    for piece in re.split(r"\{\w+\}", template):  # no English of the template is left
        assert len(piece.strip()) < 12 or piece.strip() not in said, (piece, said)
    for value in said_values(Translator(lang), fields):  # and every field is there
        assert value in said, (value, said)


def test_every_fault_template_reads_back_as_itself_alone() -> None:
    """No text of one template reads as another's (a field of one could swallow another's words)."""
    for key, template in faults.TEMPLATES.items():
        english = template.format(**sample(template))
        assert Translator("fr")(key) != template and Translator("it")(key) != template  # translated
        matches = [k for k, t in faults.TEMPLATES.items() if _matches(t, english)]
        assert matches == [key], (key, matches)


def _matches(template: str, text: str) -> bool:
    from p2pcards.ui.problems import template_regex

    return template_regex(template).fullmatch(text) is not None


@pytest.mark.parametrize("lang", ["en", "fr", "it"])
def test_a_text_no_template_made_comes_back_unchanged(lang: str) -> None:
    tr = Translator(lang)
    texts = ("Ann (seat 0): dishonest shuffle in round 0!", "", "the host said so", "replayed its record")
    for text in texts:
        assert problem_text(tr, text) == text


def test_a_field_said_twice_must_read_the_same_both_times() -> None:
    text = faults.OTHER_TERMS.format(name="Ann", seat=2).replace("told Ann", "told Bob")
    assert problem_text(Translator("fr"), text) == text


# -- real faults: every text a call site makes reads back against its template


@pytest.fixture
def problems(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """Every problem a step log fails or stops with, while the test runs."""
    seen: list[str] = []
    fail, stop = StepLog.fail, StepLog.stop

    def failing(self: StepLog, seat: int | None, problem: str, **kw: object) -> None:
        seen.append(problem)
        fail(self, seat, problem, **kw)  # type: ignore[arg-type]

    def stopping(self: StepLog, problem: str, *args: object, **kw: object) -> None:
        seen.append(problem)
        stop(self, problem, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(StepLog, "fail", failing)
    monkeypatch.setattr(StepLog, "stop", stopping)
    yield seen


PROVOKED: list[Callable[[], None]] = [
    threats.test_illegal_card_is_caught,
    threats.test_card_not_held_is_caught,
    threats.test_claiming_a_card_not_held_is_caught_after_reveal,
    threats.test_draw_while_holding_a_legal_card_is_caught_at_reveal,
    threats.test_other_card_after_drawing_is_caught,
    threats.test_wrong_key_is_caught_and_blamed_after_reveal,
    threats.test_private_wrong_key_leads_to_a_dispute_and_blame,
    threats.test_dishonest_shuffle_is_caught,
    threats.test_dishonest_lock_is_caught,
    threats.test_bad_signature_is_caught,
    threats.test_replayed_record_is_caught,
    threats.test_record_for_another_game_is_refused,
    threats.test_skipping_ahead_is_caught_as_reordering,
    threats.test_equivocation_is_caught_by_every_honest_node,
    guarded.test_a_hand_secret_other_than_the_committed_one_is_blamed,
    guarded.test_a_cut_secret_other_than_the_committed_one_is_blamed,
    guarded.test_a_result_naming_other_winners_with_the_right_totals_is_blamed,
    guarded.test_a_false_dispute_at_a_draw_keys_step_blames_the_disputer_not_the_drawer,
    host_terms.test_a_host_that_signs_other_terms_is_blamed_live_and_no_file_names_anyone,
    host_terms.test_a_joiner_told_other_terms_blames_the_host_and_the_others_blame_nobody,
    leave.test_two_seats_leave_one_after_the_other,
    leave.test_a_continue_from_another_history_stops_blaming_nobody,
    leave.test_a_seat_that_every_other_judged_gone_stops_blaming_nobody,
    neuf_threats.test_a_second_look_is_blamed,
    neuf_threats.test_a_record_out_of_turn_is_blamed,
    neuf_threats.test_a_wrong_key_for_a_look_is_blamed,
]


@pytest.mark.parametrize("provoke", PROVOKED, ids=lambda f: f.__name__)
def test_a_real_fault_reads_back_against_its_template(
    provoke: Callable[[], None], problems: list[str]
) -> None:
    provoke()
    assert problems, "the scenario failed no table"
    for lang in ("fr", "it"):
        tr = Translator(lang)
        for problem in set(problems):
            said = problem_text(tr, problem)
            assert said != problem, f"{problem!r} matches no template"
            assert not any(_matches(t, said) for t in faults.TEMPLATES.values()), said


# -- the two places a player reads them


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_the_end_of_match_message_says_the_fault_in_the_players_language(lang: str) -> None:
    tr = Translator(lang)
    problem = faults.OUT_OF_ORDER.format(step=5, last=7)
    outcome = Outcome(
        status="failed", problem=problem, blamed=(1,), transcript=None, table=None, names=["Ann", "Bob"]
    )
    first = describe_outcome(outcome, tr)[0]
    assert first == tr("net_stopped_blame", who="Bob", why=problem_text(tr, problem))
    assert "out of order" not in first and "5" in first and "7" in first


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_the_audit_says_the_fault_in_the_readers_language(lang: str) -> None:
    net = threats.run(threats.build(3, threats.BadLockTable))
    report = audit_bytes(encode_file(net.tables[0].transcript.records(), saved_by=0, status="failed"))
    what = report.problems[0].what
    assert what.startswith("dishonest lock in round")
    english = report.summary()
    assert what in " ".join(english.split())  # (the English report is as before)
    said = report.summary(Translator(lang))
    assert "dishonest lock" not in said
    assert problem_text(Translator(lang), what) in " ".join(said.split())



@pytest.mark.parametrize(("lang", "quit_word"), [("fr", "départ volontaire"), ("it", "uscita volontaria")])
def test_a_leavers_reason_in_a_fault_text_is_said_in_the_language_when_the_program_wrote_it(
    lang: str, quit_word: str
) -> None:
    """``quit``, quoted in "X left the match (it said: 'quit')", is the program's word for a
    player who quit: said in the reader's language; a reason the player wrote stays quoted."""
    from p2pcards.protocol import faults
    from p2pcards.protocol.wire import quote_claim
    from p2pcards.ui.i18n import Translator

    tr = Translator(lang)
    said = tr.problem(faults.LEFT_NOBODY_REMAINS.format(name="Ann", said=quote_claim("quit")))
    assert quit_word in said and "'quit'" not in said, said
    own = tr.problem(faults.LEFT_NOBODY_REMAINS.format(name="Ann", said=quote_claim("dinner's ready")))
    assert quote_claim("dinner's ready") in own, own


@pytest.mark.parametrize("lang", ["fr", "it"])
def test_a_checksum_that_does_not_match_is_said_in_the_language(lang: str, tmp_path: Path) -> None:
    """A transcript whose records verify but whose checksum does not match (its status was
    changed: "over" became "ovex") is reported in the reader's language, not in English."""
    from click.testing import CliRunner

    from p2pcards import cli

    data = (Path(__file__).parent / "fixtures" / "nines-3p-target30.p2pt").read_bytes()
    assert data.count(b"\xa6status\xa4over") == 1
    altered = tmp_path / "altered.p2pt"
    altered.write_bytes(data.replace(b"\xa6status\xa4over", b"\xa6status\xa4ovex"))
    args = ["audit", str(altered), "--lang", lang]
    result = CliRunner().invoke(cli.main, args, env={"P2PCARDS_LANG": None})
    assert result.exit_code == 1, result.output
    said = " ".join(result.output.split())
    assert "checksum mismatch" not in said, said
    assert Translator(lang)("fault_file_altered") in said, said
    assert problem_text(Translator(lang), faults.FILE_ALTERED) == Translator(lang)("fault_file_altered")


@pytest.mark.parametrize(
    ("lang", "you", "left"),
    [("en", '"you"', "left"), ("fr", "« vous »", "a quitté"), ("it", "«tu»", "ha lasciato")],
)
def test_a_player_called_you_reads_as_a_third_person_in_the_audit(
    lang: str, you: str, left: str, tmp_path: Path
) -> None:
    """``play`` names the person at the terminal by the word for "you" (here in French); the
    audit's sentences say each name in the third person ("Bob left"), so that name is said
    quoted, as the name it is, and never as a pronoun ("vous a quitté", "di tu")."""
    from click.testing import CliRunner

    from p2pcards import cli

    env = {"P2PCARDS_LANG": None, "P2PCARDS_HOME": str(tmp_path)}
    play = ["play", "--seed", "5", "--lang", "fr"]
    played = CliRunner().invoke(cli.main, play, input="1\nquit\ny\n", env=env)
    assert played.exit_code == 0, played.output
    (transcript,) = (tmp_path / "transcripts").glob("*.p2pt")
    result = CliRunner().invoke(cli.main, ["audit", str(transcript), "--lang", lang], env=env)
    said = " ".join(result.output.split())
    assert f"{you} {left}" in said, said
    assert f"{Translator(lang)('you')} {left}" not in said.replace(you, ""), said  # (a pronoun)
