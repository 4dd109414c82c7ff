"""``gamebox classroom broker-config``: a Mosquitto set-up where only the teacher can steer the boxes.

It writes, into one folder:

* ``mosquitto.conf``: a listener, ``allow_anonymous false``, the password file
  and the ACL (and TLS when certificate files are named); a drop-in for
  ``/etc/mosquitto/conf.d/`` or a whole configuration for ``mosquitto -c``;
* ``passwords``: one account per station and one for the teacher, hashed by
  ``mosquitto_passwd -U`` (the passwords never appear on a command line);
* ``acl``: each station writes only its own state, events, online and health
  (and its Home Assistant discovery) and reads only its own and ``all``
  commands; only the teacher writes commands;
* ``<station>.toml`` per box and ``teacher.toml``: the ``[network]`` table
  with that account, to copy into the box's config or give to
  ``gamebox classroom --config``.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from controller.station.discovery import node_of
from controller.station.topics import ALL

STATION = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
TEACHER = "teacher"
STATE_LEAVES = ("state", "events", "online", "health")
DISCOVERY_KINDS = ("sensor", "number", "button", "select")  # the Home Assistant components a box announces


class BrokerConfigError(ValueError):
    """Arguments that cannot make a safe configuration; the message says which, in one line."""


@dataclass(frozen=True, slots=True)
class Tls:
    """The broker's certificate, its key and the CA the boxes check it with."""

    cert: Path
    key: Path
    ca: Path
    require_certificate: bool = False  # boxes must show a client certificate signed by ``ca``


def acl(stations: list[str], prefix: str = "gamebox", discovery_prefix: str = "homeassistant") -> str:
    """The ACL text: per user, exactly the topics it may write and read; nothing else for anyone."""
    lines = ["# gamebox: each station writes only its own topics and reads only its commands;",
             "# only the teacher sends commands. Anonymous clients are refused by mosquitto.conf.", "",
             f"user {TEACHER}", f"topic read {prefix}/#", f"topic write {prefix}/+/set/#", ""]
    for name in stations:
        lines.append(f"user {name}")
        lines += [f"topic write {prefix}/{name}/{leaf}" for leaf in STATE_LEAVES]
        lines += [f"topic read {prefix}/{name}/set/#", f"topic read {prefix}/{ALL}/set/#"]
        lines += [f"topic write {discovery_prefix}/{kind}/{node_of(name)}/#" for kind in DISCOVERY_KINDS]
        lines.append("")
    return "\n".join(lines)


def mosquitto_conf(folder: Path, port: int, bind: str | None, tls: Tls | None) -> str:
    lines = ["# gamebox classroom broker: written by `gamebox classroom broker-config`",
             "per_listener_settings false", f"listener {port}{' ' + bind if bind else ''}", "allow_anonymous false",
             "max_packet_size 65536", f"password_file {folder / 'passwords'}", f"acl_file {folder / 'acl'}"]
    if tls is not None:
        lines += [f"certfile {tls.cert.resolve()}", f"keyfile {tls.key.resolve()}", f"cafile {tls.ca.resolve()}",
                  f"require_certificate {'true' if tls.require_certificate else 'false'}"]
    return "\n".join(lines) + "\n"


def network_table(user: str, password: str, broker: str, port: int, prefix: str, tls: Tls | None,
                  station: bool) -> str:
    """The ``[network]`` table for one account (a box's, or the teacher's page's)."""
    lines = ["[network]"]
    if station:
        lines += ["enabled = true", f'station = "{user}"', "commands = true"]
    lines += [f'broker = "{broker}"', f"port = {port}", f'prefix = "{prefix}"', f'username = "{user}"',
              f'password = "{password}"']
    if tls is not None:
        lines += ["tls = true", f'ca_file = "{tls.ca.resolve()}"']
        if tls.require_certificate:
            lines += ['cert_file = "/etc/gamebox/client.crt"  # this box\'s certificate, signed by the CA',
                      'key_file = "/etc/gamebox/client.key"']
    return "\n".join(lines) + "\n"


def write_broker_config(folder: Path, stations: list[str], *, broker: str, port: int | None = None,
                        bind: str | None = None, prefix: str = "gamebox", tls: Tls | None = None,
                        force: bool = False, passwd: str | None = None) -> list[Path]:
    """Write the set-up; returns the files written. Refuses bad or repeated names and, without ``force``, an old set-up."""
    names = list(dict.fromkeys(stations))
    if not names:
        raise BrokerConfigError("name at least one station")
    if len(names) != len(stations):
        raise BrokerConfigError("a station is named twice")
    for name in names:
        if not STATION.match(name) or name in (ALL, TEACHER):
            raise BrokerConfigError(f"station {name!r}: letters, digits, - and _ only; not {ALL!r} or {TEACHER!r}")
    tool = passwd or shutil.which("mosquitto_passwd")
    if tool is None:
        raise BrokerConfigError("mosquitto_passwd is not installed: sudo apt install mosquitto")
    if tls is not None:
        for path in (tls.cert, tls.key, tls.ca):
            if not path.is_file():
                raise BrokerConfigError(f"{path}: no such file")
    port = port or (8883 if tls else 1883)
    folder = folder.resolve()
    if (folder / "mosquitto.conf").exists() and not force:
        raise BrokerConfigError(f"{folder} already holds a set-up: --force makes new passwords for every box")
    folder.mkdir(parents=True, exist_ok=True)
    accounts = {TEACHER: secrets.token_urlsafe(18)} | {name: secrets.token_urlsafe(18) for name in names}
    written = []

    def write(name: str, text: str, private: bool = False) -> None:
        path = folder / name
        if private:
            path.unlink(missing_ok=True)
            path.touch(0o600)
        path.write_text(text)
        written.append(path)

    write("passwords", "".join(f"{user}:{password}\n" for user, password in accounts.items()), private=True)
    subprocess.run([tool, "-U", str(folder / "passwords")], check=True, capture_output=True, timeout=30)
    write("acl", acl(names, prefix))
    write("mosquitto.conf", mosquitto_conf(folder, port, bind, tls))
    teacher = network_table(TEACHER, accounts[TEACHER], broker, port, prefix, tls, station=False)
    write(f"{TEACHER}.toml", teacher, private=True)
    for name in names:
        write(f"{name}.toml", network_table(name, accounts[name], broker, port, prefix, tls, station=True), private=True)
    os.chmod(folder / "passwords", 0o600)
    return written
