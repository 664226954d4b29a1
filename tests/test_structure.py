"""The layering the code promises (docs/development.md; issue 8 item 4), checked on the source:

- no import cycle among the project's modules (bot/, rules/), function-local imports included:
  a cycle "held together" by an import inside a function is still a cycle;
- rules/ (the pure engine) and bot/db/ (the data layer) import nothing of discord.py, neither
  themselves nor through any module they import; and importing them in a fresh interpreter
  leaves `discord` out of sys.modules.

Imports under `if TYPE_CHECKING:` are left out: they never run.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("bot", "rules")
PURE = ("rules", "bot.db")  # never discord, not even through another module


@dataclass(frozen=True)
class Import:
    source: str  # the importing module
    target: str  # the imported module (a project module, or any top-level name outside)
    line: int
    local: bool  # inside a function (runs when the function does)

    def __str__(self) -> str:
        where = "inside a function, " if self.local else ""
        return f"{self.source} imports {self.target} ({where}{_path(self.source)}:{self.line})"


def _path(module: str) -> str:
    return _files()[module].relative_to(ROOT).as_posix()


@cache
def _files() -> dict[str, Path]:
    """Every module of the project, by dotted name (a package by its __init__)."""
    found = {}
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _is_type_checking(node: ast.If) -> bool:
    test = node.test
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _walk(node: ast.AST, local: bool = False) -> Iterator[tuple[ast.AST, bool]]:
    """Every import statement under node, with whether it is inside a function; nothing
    under `if TYPE_CHECKING:` (its `else:` runs, and is walked)."""
    for child in ast.iter_child_nodes(node):
        if isinstance(child, ast.Import | ast.ImportFrom):
            yield child, local
        elif isinstance(child, ast.If) and _is_type_checking(child):
            for other in child.orelse:
                yield from _walk(ast.Module(body=[other], type_ignores=[]), local)
        else:
            inner = local or isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            yield from _walk(child, inner)


def _resolve(module: str, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    is_package = _files()[module].name == "__init__.py"
    base = module.split(".")
    base = base if is_package else base[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, *([node.module] if node.module else [])])


@cache
def _imports() -> tuple[Import, ...]:
    """Every import of every project module: project targets by module, others by their
    top-level name (`discord`, `sqlalchemy`)."""
    modules = _files()
    found = []
    for module, path in modules.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node, local in _walk(tree):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = _resolve(module, node)
                # `from rules import stamina` imports the module rules.stamina
                targets = [
                    f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                    for alias in node.names
                ]
            for target in targets:
                if target.split(".")[0] not in PACKAGES:
                    target = target.split(".")[0]
                else:
                    while target not in modules and "." in target:  # `import bot.db.x as y`
                        target = target.rsplit(".", 1)[0]
                found.append(Import(module, target, node.lineno, local))
    return tuple(found)


def _graph() -> dict[str, list[Import]]:
    graph: dict[str, list[Import]] = {module: [] for module in _files()}
    for edge in _imports():
        if edge.target in graph and edge.target != edge.source:
            graph[edge.source].append(edge)
    return graph


def _cycles(graph: dict[str, list[Import]]) -> list[list[Import]]:
    """One cycle (as its chain of imports) per strongly connected group of modules."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []

    def connect(node: str) -> None:  # Tarjan
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        for edge in graph[node]:
            if edge.target not in index:
                connect(edge.target)
                low[node] = min(low[node], low[edge.target])
            elif edge.target in on_stack:
                low[node] = min(low[node], index[edge.target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for node in sorted(graph):
        if node not in index:
            connect(node)
    return [_shortest_cycle(graph, group) for group in groups]


def _shortest_cycle(graph: dict[str, list[Import]], group: list[str]) -> list[Import]:
    """A shortest chain of imports from the group's first module back to itself."""
    start, members = group[0], set(group)
    paths: dict[str, list[Import]] = {start: []}
    frontier = [start]
    while frontier:
        following = []
        for node in frontier:
            for edge in graph[node]:
                if edge.target == start:
                    return [*paths[node], edge]
                if edge.target in members and edge.target not in paths:
                    paths[edge.target] = [*paths[node], edge]
                    following.append(edge.target)
        frontier = following
    raise AssertionError(f"no cycle through {start}")  # pragma: no cover


def _describe(cycle: list[Import]) -> str:
    chain = " -> ".join([cycle[0].source, *(edge.target for edge in cycle)])
    return chain + "\n" + "\n".join(f"      {edge}" for edge in cycle)


def test_the_source_is_found() -> None:
    modules = _files()
    assert {"rules.models", "bot.db.database", "bot.app"} <= set(modules)
    assert len(_imports()) > 100


def test_no_import_cycle_among_the_projects_modules() -> None:
    cycles = _cycles(_graph())
    message = "\n".join(f"  cycle {n}: {_describe(c)}" for n, c in enumerate(cycles, 1))
    assert not cycles, (
        f"{len(cycles)} import cycle(s) among bot/ and rules/ (imports inside functions "
        f"count):\n{message}\nBreak each by moving what both sides need into a leaf module."
    )


def test_the_cycle_finder_reports_a_function_local_cycle() -> None:
    """The check itself: a cycle held together by a function-local import is found."""
    a = Import("rules.a", "rules.b", 3, False)
    b = Import("rules.b", "rules.a", 9, True)
    graph = {"rules.a": [a], "rules.b": [b], "rules.c": []}
    assert _cycles(graph) == [[a, b]]
    tree = ast.parse(
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    import discord\nelse:\n    import json\n"
        "def f():\n    import discord.ext\n"
    )
    found = [(type(n).__name__, n.lineno, local) for n, local in _walk(tree)]
    assert found == [("ImportFrom", 1, False), ("Import", 5, False), ("Import", 7, True)]


def _chain_to(module: str, wanted: str) -> list[Import] | None:
    """The chain of imports by which `module` reaches a module named `wanted` (or a module
    of it), through the project's modules; None when it does not."""
    edges: dict[str, list[Import]] = {}
    for edge in _imports():
        edges.setdefault(edge.source, []).append(edge)
    paths: dict[str, list[Import]] = {module: []}
    frontier = [module]
    while frontier:
        following = []
        for node in frontier:
            for edge in edges.get(node, []):
                if edge.target == wanted or edge.target.startswith(wanted + "."):
                    return [*paths[node], edge]
                if edge.target in _files() and edge.target not in paths:
                    paths[edge.target] = [*paths[node], edge]
                    following.append(edge.target)
        frontier = following
    return None


def _pure_modules() -> list[str]:
    return [m for m in _files() if any(m == p or m.startswith(p + ".") for p in PURE)]


def test_rules_and_the_data_layer_import_nothing_of_discord_in_their_source() -> None:
    found = {module: _chain_to(module, "discord") for module in _pure_modules()}
    bad = {module: chain for module, chain in found.items() if chain}
    message = "\n".join(
        f"  {module}:\n" + "\n".join(f"      {edge}" for edge in chain)
        for module, chain in bad.items()
    )
    assert not bad, f"rules/ and bot/db/ must not import discord (even through others):\n{message}"


def test_importing_rules_and_the_data_layer_leaves_discord_unloaded() -> None:
    """In a fresh interpreter: every module of rules/ and bot/db/ imported, then no module of
    discord.py (nor the bot's Discord side) is in sys.modules."""
    script = (
        "import importlib, json, sys\n"
        f"for name in {_pure_modules()!r}:\n"
        "    importlib.import_module(name)\n"
        "print(json.dumps(sorted(m for m in sys.modules if m == 'discord' "
        "or m.startswith('discord.') or m.startswith(('bot.cogs', 'bot.render', 'bot.app')))))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert loaded == [], f"importing rules/ and bot/db/ loaded: {loaded}"
