"""Assertions every rule test uses: an action the referee must accept, or refuse without a trace."""

from __future__ import annotations

from typing import Any

from controller.games.base import Engine, Outcome, Rejection


def ok(engine: Engine, action: dict[str, Any]) -> list[str]:
    """Apply an action that must be accepted; return its event names."""
    result = engine.apply(action)
    assert isinstance(result, Outcome), f"{action} refused: {result}"
    return result.names


def refused(engine: Engine, action: Any) -> str:
    """Apply an action that must be refused without a trace; return its code."""
    before = engine.to_json()
    result = engine.apply(action)
    assert isinstance(result, Rejection), f"{action} was accepted"
    assert engine.to_json() == before, f"{action} was refused ({result.code}) but changed the state"
    return result.code
