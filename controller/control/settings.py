"""The box's settings as the family's page edits them: the same ``Config`` model the box loads, and the same file.

A change is merged into what the file says, validated whole by
:class:`~controller.config.Config` (every problem one line, keyed by its
field), and only then written, atomically (a temporary file, fsync, rename):
an invalid value is never written. What the running box can take at once
is applied to it; the rest is named as needing a restart.
"""

from __future__ import annotations

import json
import math
import os
import tempfile
import tomllib
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from controller.config import Config, ConfigError
from controller.games import GAME_IDS, engine_class

#: The fields the page shows, in its order; each has its one-line explanation in the page's words.
FIELDS = ("language", "volume", "volume_max", "call_window", "handover", "repeat_window", "undo_hold_window",
          "attract_after", "power_off_hold", "hold_seconds", "debounce_ms")
#: What ``gamebox run``'s options may set over the file: the running box's values are kept.
STARTED_WITH = ("state_dir", "profile", "seed")
#: What the running box takes without a restart (the others are read when it starts).
LIVE = ("language", "volume", "volume_max", "call_window", "handover", "repeat_window", "undo_hold_window",
        "attract_after", "power_off_hold", "games")


def read_file(path: Path | None) -> dict[str, Any]:
    """What the config file says (empty without one)."""
    if path is None or not path.exists():
        return {}
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None


def describe(config: Config) -> dict[str, Any]:
    """The page's settings form: each field's value, bounds and explanation, and each game's options."""
    fields = {}
    for name in FIELDS:
        info = Config.model_fields[name]
        bounds = {k: getattr(m, k) for m in info.metadata for k in ("ge", "gt", "le", "lt") if hasattr(m, k)}
        fields[name] = {"value": getattr(config, name), "default": info.default, **bounds}
    games = {game: {"options": dict(engine_class(game).default_options, **config.options(game))} for game in GAME_IDS}
    return {"fields": fields, "games": games, "live": list(LIVE)}


#: Pydantic's error types and the page's words for each (controller/home/words.toml, ``p_*``): the page says a
#: problem in its own language, filled in with the error's bounds; the English line stays for the log.
REASONS = {"less_than_equal": "p_le", "less_than": "p_lt", "greater_than_equal": "p_ge", "greater_than": "p_gt",
           "float_type": "p_number", "float_parsing": "p_number", "finite_number": "p_number",
           "int_type": "p_integer", "int_parsing": "p_integer", "int_from_float": "p_integer",
           "literal_error": "p_choice", "string_type": "p_text", "bool_type": "p_yes_no", "bool_parsing": "p_yes_no"}


def reason(error: dict[str, Any]) -> dict[str, Any]:
    """One pydantic error as the page's words: a key and what fills it in (``p_other`` with the English line)."""
    ctx = error.get("ctx") or {}
    key = REASONS.get(error["type"])
    if error["type"] == "game_option":  # a house rule: which one, and what it allows (OptionsError)
        key = f"p_option_{ctx['key']}" if ctx.get("key") else "p_game"
    elif key is None and error["loc"][:1] == ("games",):
        key = "p_game"
    fill = {k: v for k, v in ctx.items() if isinstance(v, (int, float, str)) and k not in ("key", "words")}
    return {"key": key or "p_other", **fill, "words": error["msg"].removeprefix("Value error, ")}


def validate(current: dict[str, Any], change: dict[str, Any],
             started_with: dict[str, Any]) -> tuple[dict[str, Any], Config, dict[str, dict[str, Any]]]:
    """The file's data with ``change`` merged in, the Config it makes, and the problems per field (empty: valid),
    each as :func:`reason` gives it (``words``: the English line).

    ``change`` holds top-level fields and ``games`` (per game, the options
    given); ``None`` removes a field, so the default applies.
    ``started_with`` are what the command line set over the file (the state
    folder, the profile): kept in the Config, never written.
    """
    data = json.loads(json.dumps(current))  # a deep copy of plain data
    for key, value in change.items():
        if key == "games" and isinstance(value, dict):
            games = data.setdefault("games", {})
            for game, options in value.items():
                games[game] = {**games.get(game, {}), **options} if isinstance(options, dict) else options
        elif value is None:
            data.pop(key, None)
        else:
            data[key] = value
    try:
        config = Config.model_validate({**data, **started_with})
    except ValidationError as exc:
        problems: dict[str, dict[str, Any]] = {}
        for error in exc.errors():
            problems.setdefault(".".join(str(p) for p in error["loc"]) or "(top level)", reason(error))
        return data, Config(), problems
    if config.volume > config.volume_max:
        return data, config, {"volume": {"key": "p_louder", "max": config.volume_max,
                                         "words": f"louder than the maximum ({config.volume_max})"}}
    return data, config, {}


def write_atomically(path: Path, data: dict[str, Any]) -> None:
    """Write the TOML for ``data`` so that the file is the old one or the new one, whatever happens."""
    text = "# gamebox configuration, last written by the family's page (comments are not kept).\n" + to_toml(data)
    tomllib.loads(text)  # what is written always reads back
    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        if path.exists():
            os.chmod(temporary, path.stat().st_mode & 0o777)
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


def to_toml(data: dict[str, Any], prefix: str = "") -> str:
    """TOML for the config's shape: scalars and lists first, then a table per dictionary."""
    lines, tables = [], []
    for key, value in data.items():
        if isinstance(value, dict):
            tables.append((key, value))
        else:
            lines.append(f"{_key(key)} = {_value(value)}")
    out = "\n".join(lines) + ("\n" if lines else "")
    for key, value in tables:
        name = f"{prefix}{_key(key)}"
        if any(not isinstance(v, dict) for v in value.values()) or not value:
            out += f"\n[{name}]\n"
        out += to_toml(value, f"{name}.")
    return out


def _key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() and key.isascii() else json.dumps(key)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"{value} has no place in a config")
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, list):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise ValueError(f"{value!r} has no place in a config")
