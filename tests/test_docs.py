"""The repository's documents stand on their own.

Every document and every source file cites only files of the repository, and
the rule book and the record format cover what the code defines: every rule
option of Nines is in ``docs/rules-nines.md``, every event kind the record
writer emits is in ``docs/record.md``, and that document's example record
replays through the engine.
"""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import re
from pathlib import Path

import pytest

from p2pcards.games.nines import record as nines_record
from p2pcards.games.nines.rules import NinesRules

ROOT = Path(__file__).resolve().parent.parent
SELF = Path(__file__).resolve()

OUTSIDE = re.compile(r"\b(?:RULES|RECORD|DESIGN)\.md\b")
"""Documents that live outside the repository: nothing in it may send a reader there."""

MD_LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)(?:\s+\"[^\"\n]*\")?\)")
FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"(``?)([^`\n]+?)\1")
PATH = re.compile(r"[A-Za-z0-9_.][A-Za-z0-9_./-]*\.(?:md|py)")


def _documents() -> list[Path]:
    files = [ROOT / "README.md", ROOT / "protocol.md", *sorted((ROOT / "docs").glob("*.md"))]
    for folder in ("p2pcards", "scripts", "tests"):
        files += sorted(p for p in (ROOT / folder).rglob("*.py") if p.resolve() != SELF)
    return [p for p in files if p.is_file()]


def _repository_names() -> set[str]:
    """The name of every file of the repository (a bare ``nines.py`` may mean any of them)."""
    names: set[str] = set()
    for _folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [d for d in subfolders if not d.startswith(".") and d != "__pycache__"]
        names.update(files)
    return names


DOCUMENTS = _documents()


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def _exists(target: str, where: Path, names: set[str]) -> bool:
    """``target`` names a file or folder of the repository, from its root or from ``where``."""
    target = target.split("#", 1)[0]
    if not target:
        return True
    for base in (ROOT, where.parent):
        candidate = (base / target).resolve()
        if candidate.exists() and candidate.is_relative_to(ROOT):
            return True
    return "/" not in target.rstrip("/") and target in names


def _cited_paths(path: Path) -> list[str]:
    """Markdown link targets (Markdown files) and code spans that are paths ending in .md or .py."""
    text = path.read_text(encoding="utf-8")
    cited = []
    if path.suffix == ".md":
        text = FENCE.sub("", text)
        for target in MD_LINK.findall(text):
            if not re.match(r"[a-z][a-z0-9+.-]*:", target) and not target.startswith("#"):
                cited.append(target)
    for _, span in CODE_SPAN.findall(text):
        span = span.strip()
        if PATH.fullmatch(span):
            cited.append(span)
    return cited


def test_the_documents_are_found() -> None:
    rel = {_rel(p) for p in DOCUMENTS}
    assert {"README.md", "protocol.md", "docs/rules-nines.md", "docs/record.md"} <= rel
    assert "p2pcards/games/nines/rules.py" in rel and "tests/test_record.py" in rel


@pytest.mark.parametrize("path", DOCUMENTS, ids=_rel)
def test_no_document_sends_the_reader_outside_the_repository(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    found = [f"line {text.count(chr(10), 0, m.start()) + 1}: {m.group(0)}" for m in OUTSIDE.finditer(text)]
    assert not found, f"{_rel(path)} names a document that is not in the repository: {found}"


def test_every_cited_path_exists() -> None:
    names = _repository_names()
    missing = [
        f"{_rel(path)}: {target}"
        for path in DOCUMENTS
        for target in _cited_paths(path)
        if not _exists(target, path, names)
    ]
    assert not missing, f"paths cited but not in the repository: {missing}"


def test_the_path_check_sees_links_and_code_spans() -> None:
    """The checker itself: it finds what it must, and leaves code alone."""
    sample = ROOT / "docs" / "sample.md"
    names = _repository_names()
    assert _exists("docs/rules-nines.md", sample, names)
    assert _exists("rules-nines.md", sample, names)  # relative to the document
    assert _exists("adapter.py", sample, names)  # a bare file name of the repository
    assert _exists("../protocol.md#5-the-step-sequence", sample, names)
    assert not _exists("docs/nowhere.md", sample, names)
    assert not _exists("p2pcards/nowhere.py", sample, names)
    text = "See [the rules](rules-nines.md), `docs/x.md` and ``p2pcards/y.py``; `a.b` and [w](https://x.org)."
    assert MD_LINK.findall(text) == ["rules-nines.md", "https://x.org"]
    spans = [s for _, s in CODE_SPAN.findall(text) if PATH.fullmatch(s)]
    assert spans == ["docs/x.md", "p2pcards/y.py"]


def test_every_rule_option_is_in_the_rule_book() -> None:
    book = (ROOT / "docs" / "rules-nines.md").read_text(encoding="utf-8")
    names = {f.name for f in dataclasses.fields(NinesRules)} | set(NinesRules().to_dict())
    assert len(names) >= 9
    missing = sorted(n for n in names if f"`{n}`" not in book)
    assert not missing, f"rule options missing from docs/rules-nines.md: {missing}"


def test_every_le_neuf_rule_option_is_in_its_rule_book() -> None:
    from p2pcards.games.neuf.rules import NeufRules

    book = (ROOT / "docs" / "rules-neuf.md").read_text(encoding="utf-8")
    names = {f.name for f in dataclasses.fields(NeufRules)} | set(NeufRules().to_dict())
    assert len(names) >= 3
    missing = sorted(n for n in names if n not in book)
    assert not missing, f"rule options missing from docs/rules-neuf.md: {missing}"


def _event_kinds() -> set[str]:
    """Every ``"type"`` the record writer of Nines puts in an event (read from its source)."""
    tree = ast.parse(Path(nines_record.__file__).read_text(encoding="utf-8"))
    kinds = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if (
                    isinstance(key, ast.Constant)
                    and key.value == "type"
                    and isinstance(value, ast.Constant)
                    and isinstance(value.value, str)
                ):
                    kinds.add(value.value)
    return kinds


def test_every_record_event_is_in_the_record_format() -> None:
    kinds = _event_kinds()
    assert {"declare", "play", "draw", "recycle", "pass"} <= kinds
    doc = (ROOT / "docs" / "record.md").read_text(encoding="utf-8")
    missing = sorted(k for k in kinds if f"`{k}`" not in doc)
    assert not missing, f"event kinds missing from docs/record.md: {missing}"


def test_the_example_record_is_valid_and_replays() -> None:
    """The Nines example of docs/record.md is a real record: the engine replays it to its scores."""
    from test_record import replay, validate_record

    doc_text = (ROOT / "docs" / "record.md").read_text(encoding="utf-8")
    example = re.search(r"^```json\n(.*?)^```", doc_text, re.MULTILINE | re.DOTALL)
    assert example is not None
    doc = json.loads(example.group(1))
    assert doc["game"] == "nines"
    validate_record(doc)
    match = replay(doc)
    assert match is not None and match.winners == (0,) and match.totals == [0, 25]


@pytest.mark.parametrize("game_name", ["nines", "neuf"])
def test_every_step_kind_and_record_type_is_in_the_protocol(game_name: str) -> None:
    """protocol.md names every step kind a table can reach and every record type."""
    from p2pcards.protocol.messages import BODY_TYPES
    from p2pcards.protocol.table import table_class

    text = (ROOT / "protocol.md").read_text(encoding="utf-8")
    cls = table_class(game_name)
    kinds = set(cls.STEPS)
    assert {"join", "commit", "shuffle", "lock", "reveal", "result", "deal", "turn"} <= kinds
    missing = [k for k in kinds if f"| {k}" not in text and f"`{k}` step" not in text]
    assert not missing, f"step kinds of {game_name} missing from protocol.md: {missing}"
    undocumented = [t for t in BODY_TYPES if f"| `{t}` |" not in text]
    assert not undocumented, undocumented


def test_a_table_refuses_a_step_kind_it_does_not_have() -> None:
    from p2pcards.errors import LocalProtocolError
    from p2pcards.protocol.table import table_class

    nines = table_class("nines")
    assert "relock" not in nines.STEPS and "draw-keys" in nines.STEPS
    table = nines.__new__(nines)
    with pytest.raises(LocalProtocolError, match="no step kind 'relock'"):
        table._next("relock", (0,))
