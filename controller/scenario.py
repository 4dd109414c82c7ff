"""Rule scenarios: JSON files that drive one engine and check what the referee knows.

The format is docs/scenarios.md's. :func:`run_file` never raises for a bad file:
every problem is a ``FAIL`` line that names the file, the step and the problem.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller.games import engine_class
from controller.games.base import Engine, OptionsError, Outcome, Rejection


class ScenarioError(Exception):
    """A scenario step that did not go as written; the message says how."""


def _plain(value: Any) -> Any:
    """Tuples become lists, so an expectation compares as JSON would."""
    return json.loads(json.dumps(value))


def run_scenario(data: Any) -> None:
    """Run one parsed scenario; raise ScenarioError at the first difference."""
    if not isinstance(data, dict):
        raise ScenarioError("step 0: a scenario is a JSON object")
    try:
        cls = engine_class(data.get("game"))
    except KeyError as exc:
        raise ScenarioError(f"step 0: {exc.args[0]}") from None
    options = data.get("options") or {}
    try:
        engine: Engine = cls(data.get("players"), options)
    except OptionsError as exc:
        raise ScenarioError(f"step 0: {exc}") from None
    steps = data.get("steps")
    if not isinstance(steps, list):
        raise ScenarioError("step 0: 'steps' must be a list")
    for number, step in enumerate(steps, start=1):
        _run_step(engine, number, step)


def _run_step(engine: Engine, number: int, step: Any) -> None:
    where = f"step {number}"
    if not isinstance(step, dict) or not ({"act", "expect"} & set(step)):
        raise ScenarioError(f"{where}: a step is an object with 'act', 'expect' or both")
    names: list[str] | None = None
    if "act" in step:
        before = engine.to_json() if "reject" in step else None
        result = engine.apply(step["act"])
        wanted = step.get("reject")
        if wanted is not None:
            if isinstance(result, Outcome):
                raise ScenarioError(f"{where}: accepted, expected rejection {wanted!r}")
            if wanted is not True and result.code != wanted:
                raise ScenarioError(f"{where}: rejected with {result.code!r} ({result.message}), expected {wanted!r}")
            if engine.to_json() != before:
                raise ScenarioError(f"{where}: rejection {result.code!r} changed the state")
        elif isinstance(result, Rejection):
            raise ScenarioError(f"{where}: rejected with {result.code!r}: {result.message}")
        else:
            names = result.names
    elif "reject" in step:
        raise ScenarioError(f"{where}: 'reject' needs an 'act'")
    expect = step.get("expect")
    if expect is None:
        return
    if not isinstance(expect, dict):
        raise ScenarioError(f"{where}: 'expect' must be an object")
    view = _plain(engine.view())
    for key, want in expect.items():
        if key == "events":
            if names is None:
                raise ScenarioError(f"{where}: 'events' needs an accepted 'act'")
            missing = [n for n in want if n not in names]
            if missing:
                raise ScenarioError(f"{where}: events {names} lack {missing}")
            continue
        if key not in view:
            raise ScenarioError(f"{where}: {engine.game} has no key {key!r} to expect")
        if view[key] != _plain(want):
            raise ScenarioError(f"{where}: {key} is {json.dumps(view[key])}, expected {json.dumps(want)}")


def run_file(path: str | Path) -> tuple[bool, str]:
    """Run one scenario file; return (passed, the ``PASS``/``FAIL`` line)."""
    path = Path(path)
    name = path.name
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        if isinstance(data, dict) and isinstance(data.get("name"), str):
            name = data["name"]
        run_scenario(data)
    except OSError as exc:
        return False, f"FAIL {name}: step 0: cannot read {path}: {exc.strerror}"
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        return False, f"FAIL {name}: step 0: {path} is not JSON: {exc}"
    except ScenarioError as exc:
        return False, f"FAIL {name}: {exc} ({path})"
    return True, f"PASS {name}"


def run_files(paths: list[str]) -> tuple[int, list[str]]:
    """Run files in order; return (exit code, output lines with the closing count)."""
    lines: list[str] = []
    passed = failed = 0
    for path in paths:
        ok, line = run_file(path)
        lines.append(line)
        passed += ok
        failed += not ok
    lines.append(f"{passed} passed, {failed} failed")
    return (0 if failed == 0 and passed > 0 else 1), lines
