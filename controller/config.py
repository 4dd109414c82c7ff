"""The box's configuration: one TOML file, validated, every mistake one clear line.

Everything has a default, so no file at all is a valid configuration. Game
options are checked by the game's own referee, so the file and the engines
can never disagree on what an option means.
"""

from __future__ import annotations

import os
import socket
import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_core import PydanticCustomError

from controller.decks import LANGUAGES
from controller.games import GAME_IDS, engine_class
from controller.games.base import OptionsError


class ConfigError(ValueError):
    """A configuration that cannot be used; the message is one line naming the file and key."""


MACHINE_ID = Path("/etc/machine-id")


def default_station() -> str:
    """The host name plus the first six hex digits of /etc/machine-id: every Pi image is called "raspberrypi"."""
    host = socket.gethostname().split(".")[0] or "box"
    try:
        machine = MACHINE_ID.read_text().strip()[:6]
    except OSError:
        machine = ""
    name = f"{host}-{machine}" if machine.isalnum() else host
    return "".join(c if c.isalnum() or c in "-_" else "-" for c in name)[:64]


def default_state_dir() -> Path:
    """systemd's StateDirectory when set, else the XDG state folder."""
    if os.environ.get("STATE_DIRECTORY"):
        return Path(os.environ["STATE_DIRECTORY"].split(":")[0])
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "gamebox"


#: A file's values are taken as written: "yes" is no boolean and "2" no number (pydantic's strict mode);
#: paths and secrets are the exception, being strings in TOML.
STRICT = ConfigDict(extra="forbid", strict=True)


class NetworkConfig(BaseModel):
    """``[network]``: the box as a station on an MQTT broker (a classroom, a kiosk); off unless switched on."""

    model_config = STRICT

    enabled: bool = False
    broker: str = "localhost"
    port: int = Field(1883, ge=1, le=65535)
    station: str = Field(default_factory=default_station, pattern=r"^[A-Za-z0-9_-]{1,64}$",
                         description="this box's name in topics and on the page (default: host name + machine id)")
    prefix: str = Field("gamebox", pattern=r"^[A-Za-z0-9_/-]{1,64}$", description="the first part of every topic")
    username: str | None = None
    password: SecretStr | None = Field(None, strict=False, description="never logged; shown as ********")
    commands: bool = Field(False, description="obey set/ commands; needs username and password, the broker's ACL says who sends them")
    tls: bool = False
    ca_file: Path | None = Field(None, strict=False, description="the broker's CA certificate (default: the system's)")
    cert_file: Path | None = Field(None, strict=False)
    key_file: Path | None = Field(None, strict=False)
    queue: int = Field(200, ge=10, le=10000, description="messages kept while the broker is away; the oldest go first")
    health_every: float = Field(3.0, ge=1.0, le=30.0, description="seconds between two health messages: the page's heartbeat")
    homeassistant: bool = Field(False, description="announce the box to Home Assistant (MQTT discovery)")
    discovery_prefix: str = Field("homeassistant", pattern=r"^[A-Za-z0-9_/-]{1,64}$")

    @model_validator(mode="after")
    def _commands_need_an_account(self) -> "NetworkConfig":
        if self.commands and not (self.username and self.password):
            raise ValueError("commands = true needs username and password: the box's own account on a broker "
                             "whose ACL lets only the teacher send commands (gamebox classroom broker-config)")
        if self.station == "all":
            raise ValueError('station "all" addresses every station: choose another name')
        return self


class KioskConfig(BaseModel):
    """``[kiosk]``: a box nobody watches: a forgotten game is given up and the box invites new players."""

    model_config = STRICT

    enabled: bool = False
    idle_minutes: float = Field(5.0, gt=0.0, le=24 * 60, description="a game untouched this long is asked about")
    answer_seconds: float = Field(30.0, ge=5.0, le=600.0, description="time to answer 'still playing?' with any input")


class Config(BaseModel):
    model_config = STRICT

    profile: str = "sim"
    language: Literal[LANGUAGES] = "en"  # type: ignore[valid-type]
    volume: float = Field(0.6, ge=0.0, le=1.0)
    volume_max: float = Field(0.8, ge=0.0, le=1.0, description="the loudest the box ever plays: children's ears")
    hold_seconds: float | None = Field(None, gt=0.0, le=5.0, description="a press held this long is a hold (default: the profile's)")
    debounce_ms: int | None = Field(None, ge=0, le=500, description="button chatter ignored (default: the profile's)")
    call_window: float = Field(2.5, ge=0.5, le=10.0, description="seconds after a tap to press for woof / Mau")
    repeat_window: float = Field(2.0, ge=0.0, le=30.0, description="the same tag again within this is ignored")
    attract_after: float = Field(120.0, ge=5.0, description="seconds of idle menu before the attract show")
    handover: float = Field(2.0, ge=0.0, le=10.0, description="after a turn passes, seconds before the buttons count for the new player (about the 'your turn' prompt)")
    undo_hold_window: float = Field(4.0, ge=0.5, le=10.0, description="a second hold of the die button within this takes back the last action")
    power_off_hold: float = Field(10.0, ge=3.0, le=60.0, description="holding the die button this long in the menu shuts the box down")
    state_dir: Path = Field(default_factory=default_state_dir, strict=False)
    seed: int | None = Field(None, description="die-roll seed; by default a new one per game, journalled")
    games: dict[str, dict[str, Any]] = Field(default_factory=dict)
    network: NetworkConfig = Field(default_factory=NetworkConfig)
    kiosk: KioskConfig = Field(default_factory=KioskConfig)

    @field_validator("games")
    @classmethod
    def _games_known(cls, value: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
        for game, options in value.items():
            if game not in GAME_IDS:
                raise ValueError(f"no game {game!r} (games: {', '.join(GAME_IDS)})")
            cls_ = engine_class(game)
            try:
                cls_.check_options(cls_.max_players, options)
            except OptionsError as exc:  # its kind and fields kept, so the family's page says it in its language
                raise PydanticCustomError("game_option", "{words}",
                                          {"words": str(exc), "key": exc.key or "", "game": game, **exc.fields}) from None
        return value

    def options(self, game: str) -> dict[str, Any]:
        return dict(self.games.get(game, {}))


def one_line(source: str, error: ValidationError) -> str:
    """The first problem of a pydantic error as ``source: key a.b: bad value 'x': what is allowed``."""
    return _line(source, error.errors()[0])


def every_line(source: str, error: ValidationError) -> str:
    """Every problem of a pydantic error, one line each as :func:`one_line` writes them: all fixed in one go."""
    return "\n".join(_line(source, problem) for problem in error.errors())


def _line(source: str, first: Any) -> str:
    key = ".".join(str(p) for p in first["loc"]) or "(top level)"
    message = first["msg"].removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        return f"{source}: unknown key {key!r}"
    if first["type"] == "missing":
        return f"{source}: key {key!r} is missing"
    shown = "********" if "password" in key else repr(first.get("input"))  # no secret in a log or a terminal
    return f"{source}: key {key!r}: bad value {shown}: {message}"


def load_config(path: str | Path | None = None, **overrides: Any) -> Config:
    """Read and validate a config file (None: defaults); raise ConfigError with one line."""
    data: dict[str, Any] = {}
    source = "defaults"
    if path is not None:
        source = str(path)
        try:
            data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
        except OSError as exc:
            raise ConfigError(f"{source}: cannot read: {exc.strerror}") from None
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
            raise ConfigError(f"{source}: not TOML: {exc}") from None
    data.update({k: v for k, v in overrides.items() if v is not None})
    try:
        config = Config.model_validate(data)
    except ValidationError as exc:
        raise ConfigError(every_line(source, exc)) from None
    if config.volume > config.volume_max:
        config.volume = config.volume_max
    return config
