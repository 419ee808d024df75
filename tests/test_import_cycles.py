"""No two modules of ``src/`` import each other, directly or round a longer circle (issue 19).

Read statically from the AST, every import counts: at the top, inside a function, or under
``TYPE_CHECKING`` (a circle there is a design knot all the same). A package's ``__init__`` re-exports
its private modules, so an edge to a package means its ``__init__``; the circle is reported as the
modules it passes through.
"""

from __future__ import annotations

import ast
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
ALLOWED: set[frozenset[str]] = set()  # no exception: the two memory stores share one row layer now


def _modules() -> dict[str, Path]:
    found = {}
    for path in SRC.rglob("*.py"):
        parts = list(path.relative_to(SRC).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _imports(name: str, path: Path, known: dict[str, Path]) -> set[str]:
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package.split(".")
            if node.level:
                base = base[: len(base) - node.level + 1]
            stem = (
                ".".join(base + ([node.module] if node.module else [])) if node.level else node.module or ""
            )
            targets = [f"{stem}.{a.name}" for a in node.names] + [stem]
        else:
            continue
        for target in targets:
            while target and target not in known:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def _graph() -> dict[str, set[str]]:
    known = _modules()
    graph = {name: _imports(name, path, known) for name, path in known.items()}
    # a package's __init__ is where its own modules are re-exported: an edge from a module to its
    # own package (``from . import x`` style) would make every package a circle, so it is not one
    for name, edges in graph.items():
        graph[name] = {t for t in edges if not name.startswith(t + ".")}
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_no_module_in_src_imports_itself_round_a_circle() -> None:
    graph = _graph()
    for pair in ALLOWED:
        a, b = sorted(pair)
        graph[a].discard(b)
        graph[b].discard(a)
    assert _cycles(graph) == []


def test_the_check_sees_a_circle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


CHANNELS = ("web", "line", "mcp", "hooks")
# the web server's start-up mounts the LINE webhook beside the web app: an edge, like the CLI
EDGES = {"shitsuji.web._app"}


def test_channels_borrow_nothing_from_each_other() -> None:
    """What two channels share (project scopes, LINE link codes) lives below them."""
    borrowed = []
    for name, targets in _graph().items():
        mine = name.split(".")[1] if name.count(".") else ""
        if mine not in CHANNELS or name in EDGES:
            continue
        for target in targets:
            theirs = target.split(".")[1] if target.count(".") else ""
            if theirs in CHANNELS and theirs != mine:
                borrowed.append((name, target))
    assert borrowed == []
