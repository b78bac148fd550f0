"""Bring the message catalogs up to date with the English in p2pcards (ui/i18n.py and the help in cli/).

    scripts/i18n           write p2pcards/locale/p2pcards.pot, merge it into each
                           language's .po (translations kept; a message whose English
                           changed is marked fuzzy, its old English beside it), and
                           compile every .mo; then list what is left to translate
    scripts/i18n --check   change nothing; exit 1 if a file is not current or a
                           message has no translation

A translator edits the msgstr lines of p2pcards/locale/LANG/LC_MESSAGES/p2pcards.po
(with any .po editor), removes the "fuzzy" flag of a translation checked again, and runs
this script to compile it. A message still in a dictionary of translations in
p2pcards/ui/i18n.py (``_FR``, ``_IT``: what a branch from before the catalogs may bring; a plural
message's forms as a tuple) is taken into the .po file when the .po has none for it.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from p2pcards import cli  # noqa: E402
from p2pcards.ui import i18n  # noqa: E402
from p2pcards.ui.po import Message, compile_mo, read_po, write_po  # noqa: E402

LEGACY = {"fr": "_FR", "it": "_IT"}


def template() -> list[Message]:
    """Every message: those of p2pcards/ui/i18n.py, then the help of the command line."""
    return [*i18n.template(), *(Message(key, text) for key, text in cli.help_messages())]


def merge(template: list[Message], old: list[Message], lang: str) -> list[Message]:
    """The template's messages with the translations of ``old`` (and of a legacy dictionary)."""
    known = {m.key: m for m in old}
    legacy: dict[str, str | tuple[str, ...]] = {}
    for suffix in ("", "_NEUF"):
        legacy.update(getattr(i18n, LEGACY[lang] + suffix, {}))
    merged = []
    for t in template:
        m = Message(t.key, t.msgid, t.plural, ["", ""] if t.plural is not None else [""])
        before = known.get(t.key)
        if before is not None and (before.plural is None) == (t.plural is None):
            m.msgstr = list(before.msgstr)
            if before.msgid != t.msgid or before.plural != t.plural:
                m.fuzzy, m.previous = True, before.msgid
            else:
                m.fuzzy, m.previous = before.fuzzy, before.previous
        elif legacy.get(t.key) and (t.plural is None) == isinstance(legacy[t.key], str):
            value = legacy[t.key]
            m.msgstr = [value] if isinstance(value, str) else list(value)
        merged.append(m)
    return merged


def main(argv: list[str]) -> int:
    check = "--check" in argv
    locale = Path(i18n.LOCALE_DIR)
    messages = template()
    wanted: dict[Path, bytes] = {locale / "p2pcards.pot": write_po(messages, None).encode()}
    untranslated: dict[str, list[str]] = {}
    for lang in i18n.LANGS:
        if lang == i18n.DEFAULT_LANG:
            continue
        po = locale / lang / "LC_MESSAGES" / "p2pcards.po"
        old = read_po(po.read_text(encoding="utf-8")) if po.exists() else []
        merged = merge(messages, old, lang)
        wanted[po] = write_po(merged, lang).encode()
        wanted[po.with_suffix(".mo")] = compile_mo(merged, lang)
        untranslated[lang] = [m.key + (" (fuzzy)" if m.fuzzy else "") for m in merged if not m.translated]
    stale = [p for p, data in wanted.items() if not p.exists() or p.read_bytes() != data]
    if not check:
        for path in stale:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(wanted[path])
            print(f"wrote {path.relative_to(ROOT)}")
    elif stale:
        for path in stale:
            print(f"not current: {path.relative_to(ROOT)} (run scripts/i18n)", file=sys.stderr)
    for lang, keys in untranslated.items():
        if keys:
            print(f"{lang}: {len(keys)} message(s) to translate: {', '.join(keys)}", file=sys.stderr)
    return 1 if check and (stale or any(untranslated.values())) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
