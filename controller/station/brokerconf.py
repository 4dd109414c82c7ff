"""``gamebox classroom broker-config``: a Mosquitto set-up where only the teacher can steer the boxes.

It writes, into one folder:

* ``mosquitto.conf``: a listener, ``allow_anonymous false``, the password file
  and the ACL (and TLS when certificate files are named); a drop-in for
  ``/etc/mosquitto/conf.d/`` or a whole configuration for ``mosquitto -c``;
* ``passwords``: one account per station and one for the teacher (and, asked
  for, a read-only one for Home Assistant), hashed by ``mosquitto_passwd -U``
  (the passwords never appear on a command line);
* ``acl``: each station writes only its own state, events, online and health
  (and its Home Assistant discovery) and reads only its own and ``all``
  commands; only the teacher writes commands; Home Assistant reads;
* ``<station>.toml`` per box, ``teacher.toml`` (and ``homeassistant.toml``):
  the ``[network]`` table with that account, to copy into the box's config or
  give to ``gamebox classroom --config``;
* with TLS, ``ca.crt`` (the CA, for the boxes), and with client certificates
  ``<account>.crt`` and ``<account>.key`` for every account, signed with the
  CA's key by the two ``openssl`` commands of :func:`client_certificate`
  (the ``cryptography`` package is not a dependency; openssl is on every Pi).
  A box's table names ``/etc/gamebox/ca.crt``, ``<station>.crt`` and
  ``<station>.key``: where its comment says to copy them.
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
HOMEASSISTANT = "homeassistant"  # the read-only account for Home Assistant
BOX_FILES = Path("/etc/gamebox")  # where a box keeps its config, and so its CA and client certificate
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
    require_certificate: bool = False  # every client must show a certificate signed by ``ca``
    ca_key: Path | None = None  # the CA's key: client certificates are made with it (needed with require_certificate)


def acl(stations: list[str], prefix: str = "gamebox", discovery_prefix: str = "homeassistant",
        homeassistant: bool = False) -> str:
    """The ACL text: per user, exactly the topics it may write and read; nothing else for anyone."""
    lines = ["# gamebox: each station writes only its own topics and reads only its commands;",
             "# only the teacher sends commands. Anonymous clients are refused by mosquitto.conf.", "",
             f"user {TEACHER}", f"topic read {prefix}/#", f"topic write {prefix}/+/set/#", ""]
    if homeassistant:  # sees every station; its own birth message is the only thing it may write
        lines += [f"user {HOMEASSISTANT}", f"topic read {prefix}/#", f"topic read {discovery_prefix}/#",
                  f"topic write {discovery_prefix}/status", ""]
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
        if tls.require_certificate:  # the certificate's CN is the account: another's password with it gets nowhere
            lines.append("use_identity_as_username true")
    return "\n".join(lines) + "\n"


def network_table(user: str, password: str, broker: str, port: int, prefix: str, tls: Tls | None,
                  folder: Path, station: bool) -> str:
    """The ``[network]`` table for one account (a box's, or the teacher's page's or Home Assistant's on the
    broker's computer, whose files stay in ``folder``)."""
    lines = ["[network]"]
    if station:
        lines += ["enabled = true", f'station = "{user}"', "commands = true"]
    lines += [f'broker = "{broker}"', f"port = {port}", f'prefix = "{prefix}"', f'username = "{user}"',
              f'password = "{password}"']
    if tls is not None:
        where = BOX_FILES if station else folder
        names = ["ca.crt"] + ([f"{user}.crt", f"{user}.key"] if tls.require_certificate else [])
        if station:
            lines.insert(0, f"# copy {', '.join(str(folder / n) for n in names)} to {BOX_FILES}/ on box {user}")
        lines += ["tls = true", f'ca_file = "{where / "ca.crt"}"']
        if tls.require_certificate:
            lines += [f'cert_file = "{where / names[1]}"', f'key_file = "{where / names[2]}"']
    return "\n".join(lines) + "\n"


def client_certificate(folder: Path, name: str, tls: Tls, openssl: str = "openssl") -> list[Path]:
    """``<name>.key`` and ``<name>.crt`` (CN = the account), signed by the CA for 825 days; the same two commands
    docs/stations.md gives for making one by hand."""
    assert tls.ca_key is not None
    key, request, crt = folder / f"{name}.key", folder / f"{name}.csr", folder / f"{name}.crt"
    key.unlink(missing_ok=True)
    key.touch(0o600)
    for args in (["req", "-new", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
                  "-subj", f"/CN={name}", "-keyout", str(key), "-out", str(request)],
                 ["x509", "-req", "-in", str(request), "-CA", str(tls.ca), "-CAkey", str(tls.ca_key),
                  "-set_serial", f"0x{secrets.token_hex(16)}", "-days", "825", "-out", str(crt)]):
        done = subprocess.run([openssl, *args], capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise BrokerConfigError(f"openssl could not make {name}'s certificate: {done.stderr.strip()[-200:]}")
    request.unlink()
    os.chmod(key, 0o600)
    return [crt, key]


def write_broker_config(folder: Path, stations: list[str], *, broker: str, port: int | None = None,
                        bind: str | None = None, prefix: str = "gamebox", tls: Tls | None = None,
                        homeassistant: bool = False, force: bool = False, passwd: str | None = None) -> list[Path]:
    """Write the set-up; returns the files written. Refuses bad or repeated names and, without ``force``, an old set-up."""
    names = list(dict.fromkeys(stations))
    if not names:
        raise BrokerConfigError("name at least one station")
    if len(names) != len(stations):
        raise BrokerConfigError("a station is named twice")
    reserved = (ALL, TEACHER, HOMEASSISTANT)
    for name in names:
        if not STATION.match(name) or name in reserved:
            raise BrokerConfigError(f"station {name!r}: letters, digits, - and _ only; not {', '.join(map(repr, reserved))}")
    tool = passwd or shutil.which("mosquitto_passwd")
    if tool is None:
        raise BrokerConfigError("mosquitto_passwd is not installed: sudo apt install mosquitto")
    if tls is not None:
        if tls.require_certificate and tls.ca_key is None:
            raise BrokerConfigError("client certificates are made with the CA's key: add --tls-ca-key")
        for path in (tls.cert, tls.key, tls.ca, *([tls.ca_key] if tls.require_certificate else [])):
            if not path.is_file():
                raise BrokerConfigError(f"{path}: no such file")
        if tls.require_certificate and shutil.which("openssl") is None:
            raise BrokerConfigError("openssl is not installed: sudo apt install openssl")
    port = port or (8883 if tls else 1883)
    folder = folder.resolve()
    if (folder / "mosquitto.conf").exists() and not force:
        raise BrokerConfigError(f"{folder} already holds a set-up: --force makes new passwords for every box")
    folder.mkdir(parents=True, exist_ok=True)
    users = [TEACHER] + ([HOMEASSISTANT] if homeassistant else []) + names
    accounts = {user: secrets.token_urlsafe(18) for user in users}
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
    write("acl", acl(names, prefix, homeassistant=homeassistant))
    write("mosquitto.conf", mosquitto_conf(folder, port, bind, tls))
    if tls is not None:
        if tls.ca.resolve() != folder / "ca.crt":
            shutil.copyfile(tls.ca, folder / "ca.crt")
        written.append(folder / "ca.crt")
        if tls.require_certificate:
            for user in users:
                written += client_certificate(folder, user, tls)
    for user in users:
        write(f"{user}.toml", network_table(user, accounts[user], broker, port, prefix, tls, folder,
                                            station=user in names), private=True)
    os.chmod(folder / "passwords", 0o600)
    return written
