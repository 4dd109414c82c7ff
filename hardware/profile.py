"""Loading a hardware profile.

``load_profile("sim")`` reads ``hardware/profiles/sim.toml``; a path reads
that file. Whatever is wrong comes back as a :class:`ProfileError` whose
message is one line a parent can act on: the file, the key, the bad value
and what is allowed. :mod:`hardware.factory` builds the devices it describes.
"""

from __future__ import annotations

import tomllib
import types
import typing
from pathlib import Path
from typing import Any

from pydantic import BaseModel, PrivateAttr, ValidationError

from hardware import config, header

PROFILES_DIR = Path(__file__).parent / "profiles"


class ProfileError(ValueError):
    """A profile that cannot be used; ``str()`` is one line for people."""


class Profile(config.Profile):
    """A checked profile, knowing its name and the file it came from."""

    _name: str = PrivateAttr("")
    _source: str = PrivateAttr("")

    @property
    def name(self) -> str:
        return self._name

    @property
    def source(self) -> str:
        return self._source


def available_profiles() -> list[str]:
    """The names of the profiles shipped with the box."""
    return sorted(path.stem for path in PROFILES_DIR.glob("*.toml"))


def load_profile(name_or_path: str | Path) -> Profile:
    """The profile called ``name_or_path``, or read from that file."""
    path, shown = _locate(name_or_path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise ProfileError(f"{shown}: cannot read: {error.strerror or error}") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as error:
        raise ProfileError(f"{shown}: not valid TOML: {error}") from None
    try:
        profile = Profile.model_validate(data)
        config.cross_check(profile)
        header.check(profile)
    except ValidationError as error:
        raise ProfileError(f"{shown}: {_first_problem(error, data)}") from None
    except config.Problem as problem:
        raise ProfileError(f"{shown}: {problem}") from None
    profile._name = path.stem
    profile._source = str(path)
    return profile


def _locate(name_or_path: str | Path) -> tuple[Path, str]:
    text = str(name_or_path)
    if isinstance(name_or_path, Path) or "/" in text or text.endswith(".toml"):
        return Path(text), text
    path = PROFILES_DIR / f"{text}.toml"
    if not path.is_file():
        raise ProfileError(
            f"profile {text!r} not found: use one of {', '.join(available_profiles())}, or a path to a .toml file"
        )
    return path, f"hardware/profiles/{text}.toml"


# -- one line out of pydantic's errors --------------------------------------------------
_PATTERNS = {
    config.NAME_PATTERN: "names are lower-case letters, digits and dashes, starting with a letter",
    r"^/dev/input/": "must be an input device path, best /dev/input/by-id/...",
    r"^/dev/": "must be a device path under /dev/",
}


def _first_problem(error: ValidationError, data: dict[str, Any]) -> str:
    errors = error.errors()
    first = errors[0]
    path, value, present = _walk(first["loc"], data)
    kind, ctx = first["type"], first.get("ctx", {})
    if kind == "missing":
        line = f"{path}: missing; {_missing_hint(path, first['loc'])}"
    elif kind in ("union_tag_invalid", "union_tag_not_found"):
        tags = ctx.get("expected_tags") or _driver_tags(first["loc"])
        key = f"{path}.{ctx['discriminator'].strip(chr(39))}"
        given = f" = {ctx['tag']!r}:" if "tag" in ctx else ": missing;"
        line = f"{key}{given} the driver must be one of {tags}"
    elif kind == "extra_forbidden":
        allowed = _allowed_keys(first["loc"])
        line = f"{path} = {value!r}: unknown key; allowed here: {allowed}"
    elif kind == "string_pattern_mismatch":
        line = f"{path} = {value!r}: {_PATTERNS.get(ctx.get('pattern'), first['msg'])}"
    else:
        message = first["msg"].replace("Input should be", "must be")
        line = f"{path} = {value!r}: {message}" if present else f"{path}: {message}"
    more = len(errors) - 1
    return line + (f" (and {more} more problem{'s' if more > 1 else ''})" if more else "")


def _walk(loc: tuple[Any, ...], data: Any) -> tuple[str, Any, bool]:
    """The dotted key path of ``loc`` in the file, and the value found there.

    pydantic's locations also hold union tags and "[key]" markers that are
    not keys of the file; they are left out.
    """
    parts: list[str] = []
    node, present = data, True
    for part in loc:
        if part == "[key]":
            return ".".join(parts), parts[-1] if parts else "", True
        if isinstance(node, dict) and part in node:
            parts.append(str(part))
            node = node[part]
        elif isinstance(node, list) and isinstance(part, int) and part < len(node):
            parts.append(f"[{part}]")
            node = node[part]
        elif isinstance(node, dict) and part == loc[-1]:
            parts.append(str(part))
            node, present = None, False
    return ".".join(parts).replace(".[", "["), node, present


def _unwrap(annotation: Any) -> Any:
    while typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    return annotation


def _members(annotation: Any) -> list[Any]:
    annotation = _unwrap(annotation)
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        return [_unwrap(member) for member in typing.get_args(annotation) if member is not type(None)]
    return [annotation]


def _model_at(loc: tuple[Any, ...]) -> list[type[BaseModel]]:
    """The models a location can point into (several when the driver is unknown)."""
    current: list[Any] = [config.Profile]
    for part in loc:
        following: list[Any] = []
        for candidate in current:
            for member in _members(candidate):
                if isinstance(member, type) and issubclass(member, BaseModel):
                    if part in member.model_fields:
                        following.append(member.model_fields[part].annotation)
                    elif _driver_of(member) == part:
                        following.append(member)
                elif typing.get_origin(member) is dict:
                    following.append(typing.get_args(member)[1])
        current = following
    return [m for c in current for m in _members(c) if isinstance(m, type) and issubclass(m, BaseModel)]


def _driver_of(model: type[BaseModel]) -> str | None:
    field_info = model.model_fields.get("driver")
    if field_info is None:
        return None
    return typing.get_args(field_info.annotation)[0]


def _driver_tags(loc: tuple[Any, ...]) -> str:
    tags = [_driver_of(model) for model in _model_at(loc) if _driver_of(model)]
    return ", ".join(repr(tag) for tag in dict.fromkeys(tags))


def _allowed_keys(loc: tuple[Any, ...]) -> str:
    models = _model_at(loc[:-1])
    keys = [key for model in models for key in model.model_fields]
    keys.sort(key=lambda key: key != "driver")  # the key that says what the rest mean, first
    return ", ".join(dict.fromkeys(keys)) or "none"


def _missing_hint(path: str, loc: tuple[Any, ...]) -> str:
    tags = _driver_tags(loc)
    return f"required: a [{path}] table with a driver, one of {tags}" if tags else "required"
