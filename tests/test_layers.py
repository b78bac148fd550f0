"""The layers import one way only, and the generic code knows no particular game.

rules (``cards``, ``games``, the game ``record``) -> crypto -> protocol -> network -> interface. A
module may import from its own layer and the layers before it. A game is one folder
(``p2pcards/games/nines/``) whose modules sit in the layer their name says: ``rules``,
``record`` with the rules, ``bots`` with the bots, ``adapter`` in the protocol, the screen
and its parts in the interface. Nothing outside a game's folder imports it: games are
reached through the registry (``p2pcards.games.base``).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "p2pcards"

LAYERS = {
    "rules": ("p2pcards.cards", "p2pcards.errors", "p2pcards.files", "p2pcards.games", "p2pcards.safetext",
              "p2pcards.record", "p2pcards.say"),
    "bots": ("p2pcards.bots",),
    "crypto": ("p2pcards.crypto",),
    "protocol": ("p2pcards.protocol",),
    "net": ("p2pcards.net",),
    "interface": ("p2pcards.ui", "p2pcards.cli", "p2pcards.sim", "p2pcards.history", "p2pcards.replay",
                  "p2pcards.replay_html", "p2pcards.replay_moves", "p2pcards.__main__"),
    "package": ("p2pcards",),
}
ORDER = ["rules", "bots", "crypto", "protocol", "net", "interface"]
"""(``package`` is the empty ``p2pcards/__init__.py``, which imports nothing.)"""
MAY_IMPORT = {
    "rules": {"rules"},
    "bots": {"rules", "bots"},
    "crypto": {"rules", "crypto"},
    "protocol": {"rules", "crypto", "protocol"},
    "net": {"rules", "crypto", "protocol", "net"},
    "interface": set(ORDER),
}
GAME_FOLDERS = tuple(
    f"p2pcards.games.{p.name}" for p in sorted((PACKAGE / "games").iterdir()) if (p / "__init__.py").exists()
)
"""Every game's folder, as a package name."""

GAME_PARTS = {
    "rules": "rules",
    "record": "rules",
    "words": "rules",
    "bots": "bots",
    "expert": "bots",
    "adapter": "protocol",
    "screen": "interface",
    "display": "interface",
    "render": "interface",
    "prompt": "interface",
    "replay": "interface",
}
"""The layer of each module a game's folder may hold, by its name."""


def game_folder(module: str) -> str | None:
    """The game folder ``module`` is in (or is), if any."""
    return next((g for g in GAME_FOLDERS if module == g or module.startswith(g + ".")), None)


def layer_of(module: str) -> str:
    folder = game_folder(module)
    if folder is not None:
        part = module.removeprefix(folder).lstrip(".") or "rules"
        if part not in GAME_PARTS:
            raise AssertionError(f"{module}: a game's folder holds only {', '.join(GAME_PARTS)}")
        return GAME_PARTS[part]
    for name, prefixes in sorted(LAYERS.items(), key=lambda kv: kv[0] == "package"):
        if any(module == p or (name != "package" and module.startswith(p + ".")) for p in prefixes):
            return name
    raise AssertionError(f"{module} is in no layer")


def imports() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        rel = path.relative_to(PACKAGE.parent).with_suffix("")
        module = ".".join(rel.parts).removesuffix(".__init__")
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("p2pcards"):
                found.add(node.module)
                found.update(f"{node.module}.{a.name}" for a in node.names)
            elif isinstance(node, ast.Import):
                found.update(a.name for a in node.names if a.name.startswith("p2pcards"))
        out[module] = found
    return out


def real_modules(names: set[str]) -> set[str]:
    """Keep the names that are modules or packages of p2pcards (not attributes)."""
    keep = set()
    for name in names:
        rel = Path(*name.split("."))
        base = PACKAGE.parent / rel
        if base.with_suffix(".py").exists() or (base / "__init__.py").exists():
            keep.add(name)
    return keep


def test_every_module_is_in_a_layer() -> None:
    mods = imports()
    assert len(mods) > 30
    for m in mods:
        layer_of(m)


@pytest.mark.parametrize("layer", ORDER)
def test_imports_point_down(layer: str) -> None:
    bad = []
    for module, found in imports().items():
        if layer_of(module) != layer:
            continue
        for target in real_modules(found):
            if layer_of(target) not in MAY_IMPORT[layer] | {"package"}:
                bad.append(f"{module} imports {target}")
    assert not bad, bad


def test_the_games_are_folders() -> None:
    assert set(GAME_FOLDERS) >= {"p2pcards.games.nines", "p2pcards.games.neuf"}


def test_nothing_outside_a_game_folder_imports_it() -> None:
    """The generic code (the protocol, the network, the command line, the record, the
    replays, the local game) reaches a game only through the registry and its parts."""
    naming = set()
    for module, found in imports().items():
        here = game_folder(module)
        for target in real_modules(found):
            there = game_folder(target)
            if there is not None and there != here:
                naming.add(f"{module} imports {target}")
    assert not naming, sorted(naming)



def imports_of(tree: ast.Module, module: str) -> set[str]:
    """The p2pcards modules that ``module`` imports anywhere in it: at the top, in ``if``, ``try``
    and ``with`` blocks, and inside functions too (a deferred import still ties the two modules).
    ``from p2pcards.x import y`` is an import of module ``p2pcards.x.y`` when that is one, else of
    ``p2pcards.x``; relative imports are resolved against ``module``'s package."""
    package = module if (PACKAGE.parent / Path(*module.split(".")) / "__init__.py").exists() else (
        module.rpartition(".")[0]
    )
    found: set[str] = set()
    todo: list[ast.AST] = list(tree.body)
    while todo:
        node = todo.pop()
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*parts, *([base] if base else [])])
            for alias in node.names:
                whole = f"{base}.{alias.name}"
                found.add(whole if real_modules({whole}) else base)
        else:
            todo.extend(ast.iter_child_nodes(node))
    return real_modules({name for name in found if name == "p2pcards" or name.startswith("p2pcards.")})


def test_no_import_circle() -> None:
    """No module imports, through others, a module that imports it back: each can be read (and
    imported) after the ones it needs, and a function-level import never hides a circle."""
    graph: dict[str, set[str]] = {}
    for path in PACKAGE.rglob("*.py"):
        module = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")
        graph[module] = imports_of(ast.parse(path.read_text(encoding="utf-8")), module) - {module}
    circles = []
    state: dict[str, int] = {}  # 1: on the path being walked, 2: done

    def walk(module: str, path: list[str]) -> None:
        state[module] = 1
        for target in sorted(graph.get(module, ())):
            if state.get(target) == 1:
                circles.append(" -> ".join([*path[path.index(target) :], target]))
            elif target not in state:
                walk(target, [*path, target])
        state[module] = 2

    for module in sorted(graph):
        if module not in state:
            walk(module, [module])
    assert not circles, circles
