"""The message catalogs: complete, current, compiled, and said with the right plural forms."""

from __future__ import annotations

import gettext
import subprocess
import sys
from pathlib import Path

import pytest

from p2pcards.ui import i18n
from p2pcards.ui.i18n import LANGS, LOCALE_DIR, Translator
from p2pcards.ui.po import Message, compile_mo, fields, read_po, write_po

ROOT = Path(__file__).resolve().parent.parent
TRANSLATED = [lang for lang in LANGS if lang != "en"]


def _script():  # type: ignore[no-untyped-def]
    import importlib.machinery
    import importlib.util

    loader = importlib.machinery.SourceFileLoader("i18n_script", str(ROOT / "scripts" / "i18n.py"))
    spec = importlib.util.spec_from_loader("i18n_script", loader)
    assert spec is not None
    script = importlib.util.module_from_spec(spec)
    loader.exec_module(script)
    return script


SCRIPT = _script()


def _po(lang: str) -> Path:
    return LOCALE_DIR / lang / "LC_MESSAGES" / "p2pcards.po"


def _messages(lang: str) -> list[Message]:
    return read_po(_po(lang).read_text(encoding="utf-8"))


def test_the_template_is_current_with_the_english_in_the_source() -> None:
    assert (LOCALE_DIR / "p2pcards.pot").read_text(encoding="utf-8") == write_po(SCRIPT.template(), None)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_every_message_has_a_checked_translation(lang: str) -> None:
    by_key = {m.key: m for m in _messages(lang)}
    missing = [t.key for t in SCRIPT.template() if t.key not in by_key or not by_key[t.key].translated]
    assert not missing, f"{lang}: no translation (or a fuzzy one) for {missing}: run scripts/i18n"
    changed = [
        t.key for t in SCRIPT.template() if (by_key[t.key].msgid, by_key[t.key].plural) != (t.msgid, t.plural)
    ]
    assert not changed, f"{lang}: the English changed since the translation of {changed}: run scripts/i18n"
    assert set(by_key) == {t.key for t in SCRIPT.template()}, "messages no longer in the source"


@pytest.mark.parametrize("lang", TRANSLATED)
def test_translations_keep_the_placeholders_of_the_english(lang: str) -> None:
    for m in _messages(lang):
        english = fields(m.msgid) | (fields(m.plural) if m.plural else set())
        for text in m.msgstr:
            assert fields(text) == english, (lang, m.key, text)
        assert len(m.msgstr) == (2 if m.plural else 1), (lang, m.key)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_the_committed_mo_files_are_the_po_files_compiled(lang: str) -> None:
    assert _po(lang).with_suffix(".mo").read_bytes() == compile_mo(_messages(lang), lang)


def test_the_script_finds_everything_current() -> None:
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "i18n.py"), "--check"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr


def test_the_standard_library_reads_the_catalogs() -> None:
    fr = gettext.translation("p2pcards", LOCALE_DIR, languages=["fr"])
    assert fr.pgettext("host_code", i18n._EN["host_code"]) == "Code d'invitation : {code}"
    assert "plural=(n > 1)" in fr.info()["plural-forms"]
    it = gettext.translation("p2pcards", LOCALE_DIR, languages=["it"])
    assert "plural=(n != 1)" in it.info()["plural-forms"]


def test_po_text_reads_back_as_written() -> None:
    messages = [
        Message("a", 'He said "hi"\\ then\tleft'),
        Message("b", "two\nlines\n", msgstr=["deux\nlignes\n"], fuzzy=True, previous="old\nEnglish"),
        Message("c", "{n} hand", "{n} hands", ["{n} manche", "{n} manches"]),
    ]
    back = read_po(write_po(messages, "fr"))
    assert [(m.key, m.msgid, m.plural, m.msgstr, m.fuzzy, m.previous) for m in back] == [
        ("a", 'He said "hi"\\ then\tleft', None, [""], False, None),
        ("b", "two\nlines\n", None, ["deux\nlignes\n"], True, "old\nEnglish"),
        ("c", "{n} hand", "{n} hands", ["{n} manche", "{n} manches"], False, None),
    ]


def test_a_new_english_message_is_reported_and_said_in_english_until_translated(tmp_path: Path) -> None:
    script = SCRIPT
    template = [*SCRIPT.template(), Message("brand_new", "A new {thing}")]
    merged = script.merge(template, _messages("fr"), "fr")
    new = next(m for m in merged if m.key == "brand_new")
    assert not new.translated
    mo = tmp_path / "fr" / "LC_MESSAGES" / "p2pcards.mo"
    mo.parent.mkdir(parents=True)
    mo.write_bytes(compile_mo(merged, "fr"))
    fr = gettext.translation("p2pcards", tmp_path, languages=["fr"])
    assert fr.pgettext("brand_new", "A new {thing}") == "A new {thing}"
    assert fr.pgettext("host_code", i18n._EN["host_code"]) == "Code d'invitation : {code}"
    changed = [Message(m.key, m.msgid + " (changed)" if m.key == "host_code" else m.msgid, m.plural, m.msgstr)
               for m in SCRIPT.template()]  # fmt: skip
    fuzzy = next(m for m in script.merge(changed, _messages("fr"), "fr") if m.key == "host_code")
    assert (
        fuzzy.fuzzy
        and fuzzy.previous == i18n._EN["host_code"]
        and fuzzy.msgstr == ["Code d'invitation : {code}"]
    )


def test_a_translator_says_each_language() -> None:
    assert Translator("en")("quit") == "Game abandoned."
    assert Translator("fr")("quit") == "Partie abandonnée."
    assert Translator("it")("quit") == "Partita abbandonata."
    assert Translator("fr")("host_code", code="x") == "Code d'invitation : x"


@pytest.mark.parametrize(
    ("lang", "words"),
    [("en", ("0 hands", "1 hand,", "2 hands")), ("fr", ("0 manche,", "1 manche,", "2 manches")),
     ("it", ("0 mani", "1 mano,", "2 mani"))],
)  # fmt: skip
def test_plural_forms_give_the_right_word_for_0_1_and_2(lang: str, words: tuple[str, str, str]) -> None:
    tr = Translator(lang)
    for count, word in zip((0, 1, 2), words, strict=True):
        assert word in tr.n("net_standings", count, hands=count, scores="x 3"), (lang, count)


@pytest.mark.parametrize("lang", TRANSLATED)
def test_no_english_and_no_word_for_two_genders_or_numbers_at_once(lang: str) -> None:
    # (The help names FILE, a metavar; and Italian calls a file FILE, as GNU's programs do in Italian.)
    said = [m for m in _messages(lang) if not m.key.startswith(("help_", "metavar_"))]
    texts = [text for m in said for text in m.msgstr]
    for wrong in ("(s)", "mano/i", "elle ou lui", "lui o lei", "per primo", "(quit)", "FILE", " seat "):
        assert not [t for t in texts if wrong in t], (lang, wrong)
    tr = Translator(lang)
    refusal = tr("err_rule", why="...", rule=tr.rule_name("match-suit-or-rank"))
    assert "match-suit-or-rank" not in refusal
    assert Translator("en").rule_name("match-suit-or-rank") == "match-suit-or-rank"  # (English names the id)


@pytest.mark.parametrize("lang", LANGS)
def test_at_40_columns_no_folded_line_is_wider_than_the_terminal(
    lang: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """40 columns is the narrowest layout: what is folded there (the invitation, a message
    such as who is at the table) takes 40 columns at most, never the 41st that the
    terminal would wrap in the middle of a word (``Random`` shown as ``Rando`` / ``m``)."""
    from p2pcards.cli import invitation_lines
    from p2pcards.ui.render import visible_len, wrap

    monkeypatch.setenv("COLUMNS", "40")
    tr = Translator(lang)
    lines = invitation_lines(tr, game="Nines", players=3, code="7-lion-easel", port=17772,
                             where="192.168.1.20", others=[], mapped=None, discovering=False,
                             command="p2pcards")  # fmt: skip
    too_long = [line for line in lines if len(line) > 40 and "p2pcards join" not in line]
    assert not too_long, too_long
    said = wrap(tr("lobby", names=tr.join(["alice", "carol", "Random"]), n=3, players=3))
    assert all(visible_len(line) <= 40 for line in said.splitlines()), said
    row = " \u25b6 tu      5 carte   totale 0  (mazziere)"  # 41 columns
    assert all(visible_len(line) <= 40 for line in wrap(row).splitlines())


@pytest.mark.parametrize("columns", [200, 60])
@pytest.mark.parametrize("lang", LANGS)
def test_the_host_invitation_fits_80_columns(
    lang: str, columns: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """At most 80 columns, in every language, and no more than the terminal's when it is
    narrower (the commands to type aside: they are never folded)."""
    from types import SimpleNamespace

    from p2pcards.cli import INVITATION_WIDTH, invitation_lines

    monkeypatch.setenv("COLUMNS", str(columns))
    width = min(INVITATION_WIDTH, columns - 1)
    tr = Translator(lang)
    mapping = SimpleNamespace(external_address="203.0.113.5", external_port=40123, method="UPnP",
                              behind_another_router=False)  # fmt: skip
    private = "192.168.1.20"
    failed = SimpleNamespace(mapping=None, enabled=True, tried=["UPnP: no answer", "NAT-PMP: refused"])
    double = SimpleNamespace(**{**vars(mapping), "behind_another_router": True})
    cases = [
        dict(where="ADDRESS", others=[], mapped=None),
        dict(where=private, others=["10.0.0.4", "172.16.5.9"], mapped=None),
        dict(where=private, others=[], mapped=failed),
        dict(where=private, others=[], mapped=SimpleNamespace(mapping=mapping, enabled=True, tried=[])),
        dict(where=private, others=[], mapped=SimpleNamespace(mapping=double, enabled=True, tried=[])),
    ]  # fmt: skip
    for case in cases:
        lines = invitation_lines(tr, game="Le Neuf", players=3, code="43-robin-maple", port=7777,
                                 discovering=True, command="p2pcards", **case)  # fmt: skip
        too_long = [line for line in lines if len(line) > width and "p2pcards join" not in line]
        assert not too_long, (lang, case, too_long)
        said = " ".join(line.strip() for line in lines)
        assert tr("host_code", code="43-robin-maple") in said
