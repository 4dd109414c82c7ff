"""A real MQTT broker for the tests: Mosquitto where it is installed, else amqtt (pure Python, from the [test] extra)."""

from __future__ import annotations

import getpass
import html
import http.client
import http.cookiejar
import json
import os
import re
import shutil
import socket
import ssl
import subprocess
import sys
import threading
import time
import tomllib
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any, Callable

START_TIMEOUT = 10.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_until(predicate: Callable[[], Any], timeout: float = 10.0, what: str = "condition") -> Any:
    """Poll ``predicate`` until it is truthy; fail after ``timeout`` seconds (a bound, never a sleep to wait out)."""
    end = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


class Broker:
    """One broker process on a free loopback port; :meth:`stop` and :meth:`start` again keep the port."""

    def __init__(self, folder: Path) -> None:
        self.folder, self.port = folder, free_port()
        self.host = "127.0.0.1"
        wanted = os.environ.get("GAMEBOX_TEST_BROKER")  # "amqtt" tries the fallback where Mosquitto is installed
        self.kind = wanted or ("mosquitto" if shutil.which("mosquitto") else "amqtt")
        self.proc: subprocess.Popen | None = None

    def command(self) -> list[str]:
        if self.kind == "secured":
            return [shutil.which("mosquitto"), "-c", str(self.folder / "mosquitto.conf")]
        if self.kind == "mosquitto":
            conf = self.folder / "mosquitto.conf"
            conf.write_text(f"listener {self.port} 127.0.0.1\nallow_anonymous true\npersistence false\n")
            return [shutil.which("mosquitto"), "-c", str(conf)]
        conf = self.folder / "amqtt.yaml"
        conf.write_text(json.dumps({  # YAML is a superset of JSON
            "listeners": {"default": {"type": "tcp", "bind": f"127.0.0.1:{self.port}"}},
            "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
        }))
        return [str(Path(sys.executable).with_name("amqtt")), "-c", str(conf)]

    def start(self) -> None:
        self.proc = subprocess.Popen(self.command(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        wait_until(self._listening, START_TIMEOUT, f"{self.kind} to listen on port {self.port}")

    def _listening(self) -> bool:
        with socket.socket() as s:
            return s.connect_ex((self.host, self.port)) == 0

    def stop(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None


class SecuredBroker(Broker):
    """Mosquitto with the configuration ``gamebox classroom broker-config`` writes, for ``stations``; :attr:`accounts`
    holds each account's ``[network]`` table as the generator wrote it."""

    def __init__(self, folder: Path, stations: list[str], **tls: Any) -> None:
        from controller.station.brokerconf import write_broker_config

        super().__init__(folder)
        self.kind = "secured"
        write_broker_config(folder, stations, broker=self.host, port=self.port, bind=self.host, **tls)
        with open(folder / "mosquitto.conf", "a") as conf:  # run as the test's user, who owns the password file
            conf.write(f"user {getpass.getuser()}\npersistence false\nlog_dest file {folder / 'broker.log'}\n")
        self.accounts = {toml.stem: tomllib.loads(toml.read_text())["network"] for toml in folder.glob("*.toml")}

    def login(self, name: str) -> tuple[str, str]:
        return self.accounts[name]["username"], self.accounts[name]["password"]


class Watcher:
    """A subscriber on its own thread (paho-mqtt): every message kept, conditions awaited with a bound."""

    def __init__(self, broker: Broker, topic: str = "#", login: tuple[str, str] | None = None,
                 tls: dict[str, str] | None = None) -> None:
        import paho.mqtt.client as mqtt

        self.messages: list[tuple[str, bytes, bool]] = []
        self.retained: dict[str, bytes] = {}
        self._lock = threading.Lock()
        self.client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        self.client.on_message = self._on_message
        self.client.on_connect = lambda c, *_: c.subscribe(topic, qos=1)
        if login:
            self.client.username_pw_set(*login)
        if tls:
            self.client.tls_set(**tls)
        self.client.connect(broker.host, broker.port)
        self.client.loop_start()

    def _on_message(self, _client: Any, _userdata: Any, message: Any) -> None:
        with self._lock:
            self.messages.append((message.topic, message.payload, bool(message.retain)))
            self.retained[message.topic] = message.payload

    def latest(self, topic: str) -> dict[str, Any] | None:
        with self._lock:
            payload = self.retained.get(topic)
        return json.loads(payload) if payload else None

    def json_on(self, topic: str) -> list[dict[str, Any]]:
        with self._lock:
            return [json.loads(p) for t, p, _ in self.messages if t == topic and p]

    def wait_for(self, topic: str, check: Callable[[dict[str, Any]], Any], timeout: float = 10.0) -> dict[str, Any]:
        """The newest message on ``topic`` that passes ``check``."""
        def found() -> dict[str, Any] | None:
            return next((m for m in reversed(self.json_on(topic)) if check(m)), None)
        return wait_until(found, timeout, f"a message on {topic}")

    def publish(self, topic: str, payload: str | bytes, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(5)

    def close(self) -> None:
        self.client.disconnect()  # first: the network thread then ends at once, not at its next select timeout
        self.client.loop_stop()


def connack(broker: Broker, login: tuple[str, str] | None, client_id: str = "",
            tls: dict[str, str] | None = None) -> str:
    """What the broker answers one client logging in with ``login`` (None: anonymous), ``client_id`` and paho's
    ``tls_set`` arguments; the client disconnects once it has the answer."""
    import ssl

    import paho.mqtt.client as mqtt

    answer: list[str] = []
    done = threading.Event()
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=client_id)
    client.on_connect = lambda _c, _u, _f, reason, _p: (answer.append(str(reason)), done.set())
    if login:
        client.username_pw_set(*login)
    if tls:
        client.tls_set(**tls)
    try:
        client.connect(broker.host, broker.port)
        client.loop_start()
        done.wait(10)
    except (ssl.SSLError, OSError) as exc:
        return f"refused: {exc}"
    finally:
        client.disconnect()  # first, as in Watcher.close
        client.loop_stop()
    return answer[0] if answer else "no answer"


# a box told to obey commands (on the test's open broker any account is let in; see test_broker_locks for the locks)
OBEYS = {"username": "box", "password": "its-own", "commands": True}
GAMEBOX = [sys.executable, "-m", "controller.cli"]


def station(folder: Path, broker: Broker, name: str, **extra: Any) -> subprocess.Popen:
    """``gamebox run`` on the sim profile as a station of ``broker``; its standard input drives it."""
    folder.mkdir(parents=True, exist_ok=True)
    # scripted lines come at once: no handover time between turns
    lines = ["seed = 1", "handover = 0.0", "[network]", "enabled = true", f'broker = "{broker.host}"', f"port = {broker.port}",
             f'station = "{name}"']
    lines += [f"{k} = {json.dumps(v)}" for k, v in extra.items()]
    (folder / "box.toml").write_text("\n".join(lines) + "\n")
    env = dict(os.environ, GAMEBOX_LOG="INFO", PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    return subprocess.Popen(
        [*GAMEBOX, "run", "--config", str(folder / "box.toml"), "--state-dir", str(folder / "state")],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=open(folder / "log", "w"), text=True, env=env,
    )


class Station:
    """A ``gamebox run`` subprocess: lines in on standard input, its output lines collected on a thread."""

    def __init__(self, folder: Path, broker: Broker, name: str, **extra: Any) -> None:
        self.name, self.folder = name, folder
        self.proc = station(folder, broker, name, **extra)
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()
        wait_until(lambda: "ready" in self.lines, 20, f"station {name} to be ready")

    def _read(self) -> None:
        for line in self.proc.stdout:
            self.lines.append(line.strip())

    def send(self, lines: list[str]) -> None:
        self.proc.stdin.write("\n".join(lines) + "\n")
        self.proc.stdin.flush()

    def accepted(self) -> int:
        """How many actions the box has acknowledged (in its journal)."""
        return sum(line.startswith("accepted ") for line in self.lines)

    def log(self) -> str:
        return (self.folder / "log").read_text()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.stdin.close()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def game_lines(folder: Path, game: str = "pirates", players: int = 2, seed: int = 1) -> list[list[str]]:
    """The input lines of a whole game, grouped per accepted action (the first group starts the game)."""
    from controller.autoplay import Autoplayer, run_inputs
    from tests.box.helpers import make_box

    box, _stage, clock = make_box(folder, seed=seed, handover=0.0)  # piped in at once, as the stations run
    box.new_game(game, players)
    auto = Autoplayer(box, seed)
    groups = [[f"tap control-game-{game}", f"tap control-players-{players}"]]
    while not box.engine.over:
        inputs = auto.inputs(auto.choose()[1])
        groups.append([f"tap {i.value}" if i.kind == "tap" else f"{i.kind} {i.value}" for i in inputs])
        run_inputs(box, inputs, clock.advance)
    return groups


class TeacherPageProcess:
    """``gamebox classroom`` as a subprocess on a free port; :attr:`url` once it serves. ``pin`` goes in by the environment."""

    def __init__(self, folder: Path, broker: Broker, *extra: str, pin: str | None = None, ca: Path | None = None) -> None:
        self.port = free_port()
        env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
        env.pop("GAMEBOX_PIN", None)
        if pin is not None:
            env["GAMEBOX_PIN"] = pin
        self.log = folder / "classroom.log"
        self.proc = subprocess.Popen(
            [*GAMEBOX, "classroom", "--broker", broker.host, "--broker-port", str(broker.port), "--http-port", str(self.port), *extra],
            stdout=subprocess.PIPE, stderr=open(self.log, "w"), text=True, env=env)
        self.lines: list[str] = []
        threading.Thread(target=lambda: [self.lines.append(line.strip()) for line in self.proc.stdout], daemon=True).start()
        wait_until(lambda: any(line.startswith("the teacher's page") for line in self.lines) or self.proc.poll() is not None,
                   20, "the teacher's page")
        self.url = f"{'https' if ca else 'http'}://127.0.0.1:{self.port}/"
        self.browser = PageClient(self.url, ca=ca)

    def command(self, station: str, name: str, value: Any = None) -> tuple[int, dict[str, Any]]:
        """What the page answers a button, pressed on the page itself (status, JSON)."""
        return self.browser.post("command", {"station": station, "command": name, "value": value})

    def stop(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)


class PageClient:
    """The page as a browser of its own origin uses it: its token from its GET, its cookies, its Origin header."""

    def __init__(self, url: str, origin: str | None = None, ca: Path | None = None) -> None:
        self.url, self.origin = url, origin or url.rstrip("/")
        context = ssl.create_default_context(cafile=str(ca)) if ca else None
        self.cookies = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.cookies),
                                                  urllib.request.HTTPSHandler(context=context))
        self.token: str | None = None

    def get(self, path: str, headers: dict[str, str] | None = None) -> tuple[int, bytes]:
        """(status, body); status 0 when no HTTP answer came at all."""
        try:
            with self.opener.open(urllib.request.Request(self.url + path, headers=headers or {}), timeout=5) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read()
        except (urllib.error.URLError, ConnectionError, http.client.HTTPException):
            return 0, b""

    def post(self, path: str, body: dict[str, Any], headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any]]:
        if self.token is None:
            status, page = self.get("")
            settings = re.search(rb'<meta name="gamebox" content="([^"]*)"', page)
            self.token = json.loads(html.unescape(settings.group(1).decode()))["token"] if settings else ""
        request = urllib.request.Request(self.url + path, json.dumps(body).encode(), {
            "Content-Type": "application/json", "Origin": self.origin, "X-Token": self.token, **(headers or {})})
        try:
            with self.opener.open(request, timeout=5) as response:
                return response.status, json.loads(response.read())
        except urllib.error.HTTPError as exc:
            return exc.code, json.loads(exc.read() or b"{}")
