"""The layout is the architecture: imports run one way (issue 15).

games → table; games, stage, storage → box → daemon → the commands. Every
import counts, also one inside a function: a lazy import is still a
dependency, only a later one.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


MODULES = {module_name(p): p for top in ("controller", "hardware") for p in (ROOT / top).rglob("*.py")}


def imports_of(path: Path) -> set[str]:
    """The project's modules ``path`` imports, anywhere in the file."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
    return {name for name in found if name in MODULES}


GRAPH = {name: imports_of(path) - {name} for name, path in MODULES.items()}


def unit(name: str) -> str:
    """The folder a module belongs to (``controller.box``), or the module itself at the top of ``controller``."""
    parts = name.split(".")
    return ".".join(parts[:2]) if (ROOT / Path(*parts[:2])).is_dir() else name


def cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One import circle in ``graph``, or None."""
    state: dict[str, int] = {}  # 1 on the current path, 2 done

    def visit(node: str, path: list[str]) -> list[str] | None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt] if nxt in path else [node, nxt]
            if nxt not in state and (found := visit(nxt, path + [nxt])):
                return found
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (found := visit(start, [start])):
            return found
    return None


def imports_between(source: str) -> set[str]:
    return {target for name, targets in GRAPH.items() if name.startswith(source) for target in targets}


def test_no_module_imports_itself_round_a_circle() -> None:
    assert cycle(GRAPH) is None


def test_the_folders_depend_one_way() -> None:
    """A folder that needs a module of a folder needing it would blur which layer is which."""
    units: dict[str, set[str]] = {}
    for name, targets in GRAPH.items():
        units.setdefault(unit(name), set()).update(unit(t) for t in targets if unit(t) != unit(name))
    assert cycle(units) is None


def test_hardware_never_imports_the_controller() -> None:
    assert {t for t in imports_between("hardware") if t.startswith("controller")} == set()


@pytest.mark.parametrize(("layer", "allowed"), [
    ("controller.games", ("controller.games",)),  # the referees are pure: no box, no I/O
    ("controller.table", ("controller.games", "controller.table")),
])
def test_the_rules_know_nothing_of_the_box(layer: str, allowed: tuple[str, ...]) -> None:
    assert {t for t in imports_between(layer) if not t.startswith(allowed)} == set()


@pytest.mark.parametrize("layer", ["controller.box", "controller.stage", "controller.storage"])
def test_the_box_does_not_know_what_runs_it(layer: str) -> None:
    """The daemon, the stations, the window and the commands compose the box; never the other way."""
    above = ("controller.daemon", "controller.station", "controller.window", "controller.cli", "controller.demo")
    assert {t for t in imports_between(layer) if t.startswith(above)} == set()
