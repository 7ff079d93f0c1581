"""The learning room's imports point one way: no circle among ``mealwatch.learning``'s modules, and nothing in it
imports ``baselines`` (the comparison uses production training, never the reverse)."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path

import mealwatch.learning

ROOM = Path(mealwatch.learning.__file__).parent


def learning_imports() -> dict[str, set[str]]:
    """Each module of the room -> the room's modules it imports (at any depth, annotations-only ones apart)."""
    names = {f.stem for f in ROOM.glob("*.py") if f.stem != "__init__"}
    graph: dict[str, set[str]] = {}
    for name in names:
        tree = ast.parse((ROOM / f"{name}.py").read_text(encoding="utf-8"))
        typing_only = {id(n) for top in ast.walk(tree) if isinstance(top, ast.If)
                       and "TYPE_CHECKING" in ast.unparse(top.test) for n in ast.walk(top)}  # fmt: skip
        graph[name] = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and id(node) not in typing_only:
                target = importlib.util.resolve_name("." * node.level + (node.module or ""), "mealwatch.learning")
                found = [target] + [f"{target}.{a.name}" for a in node.names]
                graph[name] |= {t.rsplit(".", 1)[1] for t in found if t.rsplit(".", 1)[0] == "mealwatch.learning"}
            elif isinstance(node, ast.Import):
                inside = [a.name for a in node.names if a.name.startswith("mealwatch.learning.")]
                graph[name] |= {t.rsplit(".", 1)[1] for t in inside}
        graph[name] &= names
    return graph


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One circle of the graph, as the path around it, or None."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [node, nxt] if nxt in path else [node, nxt]
            if nxt not in state and (found := visit(nxt, path + [node])):
                return found
        state[node] = 2
        return None

    return next((c for n in sorted(graph) if n not in state and (c := visit(n, []))), None)


def test_cycle_finds_a_circle_and_only_one() -> None:
    assert cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


def test_no_circle_among_the_learning_modules() -> None:
    graph = learning_imports()
    assert {"training", "baselines", "evaluation", "ngram_training"} <= graph.keys()
    assert graph["training"] >= {"evaluation", "ngram_training"}  # the reader sees real edges, not none
    assert cycle(graph) is None, f"an import circle in mealwatch.learning: {' -> '.join(cycle(graph))}"
    assert not [name for name, targets in graph.items() if "baselines" in targets]
