"""Shows as data: what the box plays and lights for each event, answer and prompt.

``controller/stage/shows.toml`` (or a user's copy) maps names to cues. This module
reads and validates it, and resolves a name plus its context (the event's
details) to one :class:`Cue`. It knows nothing of devices.
"""

from __future__ import annotations

import string
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from controller.config import ConfigError, one_line
from controller.stage.lights.cues import SHOW_LIGHTS

DEFAULT_SHOWS = Path(__file__).with_name("shows.toml")
LIGHTS: tuple[str, ...] = tuple(SHOW_LIGHTS)  # the lights a show may name
FIELDS = ("sound", "say", "light", "segment", "color", "each", "of", "then")


class ShowSpec(BaseModel):
    """One show as written; sub-tables (by value of ``by``) are kept as extra fields."""

    model_config = ConfigDict(extra="allow")

    sound: str | None = None
    say: str | list[str] | None = None
    light: str | None = None
    segment: str | None = None
    color: str | None = None
    by: str | None = None
    each: list[str] | None = None
    of: str | None = None
    then: str | list[str] | None = None

    @field_validator("light")
    @classmethod
    def _known_light(cls, value: str | None) -> str | None:
        if value is not None and value not in LIGHTS:
            raise ValueError(f"no light {value!r} (lights: {', '.join(LIGHTS)})")
        return value


class BookSpec(BaseModel):
    model_config = ConfigDict(extra="forbid")

    show: dict[str, ShowSpec] = {}
    prompt: dict[str, ShowSpec] = {}


@dataclass(frozen=True, slots=True)
class Cue:
    """What to play for one show, with the context filled in."""

    sound: str | None
    say: tuple[str, ...]
    light: str | None
    segment: str
    color: str | None


class _Blank(dict):
    def __missing__(self, key: str) -> str:
        raise KeyError(key)


def context(details: dict[str, Any]) -> dict[str, Any]:
    """The template fields of an event: its details plus seat numbers from 1, where the figure went, and a
    refusal's reason key (its code when it has none)."""
    ctx = dict(details)
    if "code" in details and not details.get("key"):
        ctx["key"] = details["code"]
    for key in ("player", "seat"):
        if isinstance(details.get(key), int):
            ctx["seat1"] = details[key] + 1
    winners = details.get("winners")
    if winners:
        ctx["winner1"] = winners[0] + 1
    if "track" in details:
        ctx["figure"] = "track"
    elif "to" in details:
        ctx["figure"] = "centre" if details["to"] is None else "seat"
    return ctx


def fill(template: str, ctx: dict[str, Any]) -> str | None:
    """``template`` with ``{key}`` filled from ``ctx``; None when a key is missing."""
    try:
        return string.Formatter().vformat(template, (), _Blank(ctx))
    except (KeyError, IndexError, ValueError):
        return None


class ShowBook:
    """The validated shows and prompts, resolved by name and context."""

    def __init__(self, spec: BookSpec, source: str) -> None:
        self.spec = spec
        self.source = source

    @classmethod
    def load(cls, path: str | Path | None = None) -> "ShowBook":
        path = Path(path or DEFAULT_SHOWS)
        try:
            data = tomllib.loads(path.read_text(encoding="utf-8"))
            return cls(BookSpec.model_validate(data), str(path))
        except OSError as exc:
            raise ConfigError(f"{path}: cannot read: {exc.strerror}") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: not TOML: {exc}") from None
        except ValidationError as exc:
            raise ConfigError(one_line(str(path), exc)) from None

    def show(self, name: str, details: dict[str, Any]) -> Cue | None:
        return self._resolve(self.spec.show.get(name), details, fallback_say=None)

    def prompt(self, name: str, details: dict[str, Any]) -> Cue | None:
        spec = self.spec.prompt.get(name)
        return self._resolve(spec, details, fallback_say=name if spec is None else None)

    def names(self, kind: str) -> set[str]:
        return set(getattr(self.spec, kind))

    def _resolve(self, spec: ShowSpec | None, details: dict[str, Any], fallback_say: str | None) -> Cue | None:
        if spec is None:
            return Cue(None, (fallback_say,), None, "turn-ring", None) if fallback_say else None
        ctx = context(details)
        fields = {f: getattr(spec, f) for f in FIELDS}
        if spec.by is not None:
            override = (spec.model_extra or {}).get(str(ctx.get(spec.by)))
            if isinstance(override, dict):
                fields.update({f: override[f] for f in FIELDS if f in override})
        say = fields["say"]
        lines = [say] if isinstance(say, str) else list(say or [])
        filled = [line for line in (fill(s, ctx) for s in lines) if line]
        items = ctx.get(fields["of"]) if fields["of"] else None
        for seat, value in enumerate(items if isinstance(items, list) else []):
            item = dict(ctx, seat=seat, seat1=seat + 1, value=value)
            if isinstance(value, int):
                item["value1"] = value + 1
            filled += [line for line in (fill(s, item) for s in fields["each"] or []) if line]
        then = fields["then"]
        filled += [line for line in (fill(s, ctx) for s in ([then] if isinstance(then, str) else then or [])) if line]
        sound = fill(fields["sound"], ctx) if fields["sound"] else None
        color = fill(fields["color"], ctx) if fields["color"] else None
        return Cue(sound or None, tuple(filled), fields["light"], fields["segment"] or "turn-ring", color)

    def every_cue(self) -> list[tuple[str, str, dict[str, Any]]]:
        """(kind, name, fields) of every show, prompt and sub-table: for checking names exist."""
        out = []
        for kind in ("show", "prompt"):
            for name, spec in getattr(self.spec, kind).items():
                out.append((kind, name, {f: getattr(spec, f) for f in FIELDS}))
                for value, override in (spec.model_extra or {}).items():
                    if isinstance(override, dict):
                        out.append((kind, f"{name}.{value}", {f: override.get(f) for f in FIELDS}))
        return out
