"""A classroom on one broker: 30 stations playing bot games at table speed, and the teacher's page watching.

    .venv/bin/python bench/classroom.py [--stations 30] [--seconds 40] [--without-link 5] [--flood [RATE]] [--screenshot PNG]

* page update latency: a box writes its state (wall clock ``at``) → the teacher's
  page in headless Chromium has put it in the DOM (a MutationObserver on the
  cards' ``data-at``, read with ``Date.now()``). Target p99 ≤ 250 ms.
* tap → first device command: an input on a simulated device until the box starts
  a sound or pushes an LED frame, for the stations with the link on and for
  ``--without-link`` stations with it off, in the same loop of the same run.
  The link must not make it worse.
* ``--flood [RATE]``: one more station, ``hostile``, sends RATE valid states a
  second (4,400: 20,000 in 4.5 s; 0: as fast as its client can) with its own
  account for the whole run; the latency above is still that of the real stations.

Every station is a real :class:`~controller.daemon.Daemon` (sim profile, its own
journal, SystemClock) in one asyncio loop; bots choose the moves and press and
tap the simulated devices every 1 to 3 s, like children. The broker is Mosquitto
set up by ``gamebox classroom broker-config`` (every station on its own account,
obeying commands; the page on the teacher's); the page is ``gamebox classroom``
in a subprocess.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import multiprocessing
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from controller.autoplay import Autoplayer, perform  # noqa: E402
from controller.config import load_config  # noqa: E402
from controller.daemon import Daemon  # noqa: E402
from controller.games import GAME_IDS  # noqa: E402
from controller.siminput import SimInput  # noqa: E402
from tests.station.brokers import SecuredBroker, TeacherPageProcess  # noqa: E402

PLAYERS = {"floppy-ears": 3, "pirates": 3, "policecats": 3}
STOP_SECONDS = 30.0  # for every box to stop once the games are over
OBSERVER = """
window.__latencies = [];
new MutationObserver(records => {
  const now = Date.now() / 1000;
  for (const r of records) {
    const at = parseFloat(r.target.dataset.at);
    const real = r.target.dataset.station !== "hostile";  // the flooding station's own delay is its cost, not measured
    if (real && r.oldValue && r.oldValue !== r.target.dataset.at && at) window.__latencies.push(now - at);  // a new state
  }
}).observe(document.getElementById("stations"), {attributes: true, attributeOldValue: true, subtree: true, attributeFilter: ["data-at"]});
"""


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def instrument(daemon: Daemon, samples: list[float]) -> None:
    """Time each input on the simulated devices to the box's first sound or LED frame after it."""
    devices, mark = daemon.devices, [None]

    def marking(method):
        def call(*args, **kwargs):
            mark[0] = time.perf_counter()
            return method(*args, **kwargs)
        return call

    def answering(method):
        def call(*args, **kwargs):
            if mark[0] is not None:
                samples.append(time.perf_counter() - mark[0])
                mark[0] = None
            return method(*args, **kwargs)
        return call

    for reader in devices.readers.values():
        reader.tap = marking(reader.tap)
    for button in devices.buttons.values():
        button.press, button.hold = marking(button.press), marking(button.hold)
    devices.speaker.play, devices.leds.show = answering(devices.speaker.play), answering(devices.leds.show)


async def station(daemon: Daemon, seed: int, until: float) -> int:
    """Bot games one after another at table speed until ``until``; the number of actions taken."""
    rng, typed, actions = random.Random(seed), SimInput(daemon.devices, daemon.clock, lambda _l: None), 0
    while time.monotonic() < until:
        game = GAME_IDS[rng.randrange(len(GAME_IDS))]
        for line in (f"tap control-game-{game}", f"tap control-players-{PLAYERS[game]}"):
            await typed.command(line)
            await asyncio.sleep(rng.uniform(1.0, 3.0))
        auto = Autoplayer(daemon.box, rng.randrange(2**31))
        while daemon.box.engine is not None and not daemon.box.engine.over and time.monotonic() < until:
            await perform(daemon.devices, auto.inputs(auto.choose()[1]), asyncio.sleep, pace=rng.uniform(1.0, 3.0))
            actions += 1
        if daemon.box.engine is not None:
            daemon.box.abandon_game()
    return actions


def waits_in(task: asyncio.Task) -> list[str]:
    """Where a task waits: each coroutine it awaits, as file:line function."""
    chain, awaited = [], task.get_coro()
    while awaited is not None:
        frame = getattr(awaited, "cr_frame", None) or getattr(awaited, "gi_frame", None)
        if frame is None:
            chain.append(repr(awaited)[:80])
            break
        chain.append(f"{Path(frame.f_code.co_filename).name}:{frame.f_lineno} {frame.f_code.co_name}")
        awaited = getattr(awaited, "cr_await", None) or getattr(awaited, "gi_yieldfrom", None)
    return chain


async def classroom(broker: SecuredBroker, folder: Path, linked: int, unlinked: int, seconds: float,
                    watching: threading.Event) -> dict:
    on, off = [], []
    daemons, tasks = [], []
    for i in range(linked + unlinked):
        name = f"table-{i + 1:02d}"
        network = {"enabled": True, "station": name, **{k: broker.accounts[name][k] for k in (
            "broker", "port", "username", "password", "commands")}} if i < linked else {}
        config = load_config(None, state_dir=str(folder / f"s{i}"), network=network)
        daemon = Daemon(config, stdin=False, out=lambda _l: None, notify=lambda _m: None)
        tasks.append(asyncio.create_task(daemon.run()))
        await daemon.ready.wait()
        instrument(daemon, on if i < linked else off)
        daemons.append(daemon)
    for _ in range(600):  # the page has every station before the games begin (or no page at all)
        if watching.is_set():
            break
        await asyncio.sleep(0.05)
    until = time.monotonic() + seconds
    actions = await asyncio.gather(*(station(d, i, until) for i, d in enumerate(daemons)))
    for daemon in daemons:
        daemon.stopping.set()
    done, hanging = await asyncio.wait(tasks, timeout=STOP_SECONDS)  # a box that does not stop is reported, not waited for
    if hanging:  # where each task still running waits (a box's run, and the tasks it waits for)
        for task in asyncio.all_tasks() - {asyncio.current_task()}:
            print(f"still running: {task.get_name()}: " + " > ".join(waits_in(task)), file=sys.stderr)
    for task in hanging:
        task.cancel()
    return {"on": on, "off": off, "actions": sum(actions), "hanging": len(hanging)}


def watch_page(url: str, stations: int, watching: threading.Event, stop: threading.Event, out: list[float],
               error: list[str], screenshot: str | None = None) -> None:
    """Chromium on the teacher's page, collecting the DOM latencies until ``stop``."""
    try:
        from playwright.sync_api import sync_playwright

        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=shutil.which("chromium"), args=[
                "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                "--disable-component-update", "--disable-sync", "--no-first-run"])
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.goto(url)
            page.wait_for_function(f"document.querySelectorAll('.station').length >= {stations}", timeout=60_000)
            page.evaluate(OBSERVER)
            watching.set()
            while not stop.wait(0.5):
                out.extend(page.evaluate("window.__latencies.splice(0)"))
                if screenshot and len(out) > 5 * stations:
                    page.screenshot(path=screenshot, full_page=True)
                    screenshot = None
            browser.close()
    except Exception as exc:  # noqa: BLE001 - reported, not fatal: the tap figures still count
        error.append(f"{type(exc).__name__}: {exc}")
        watching.set()


def flood(host: str, port: int, login: tuple[str, str], rate: float, stop: Any, sent: Any) -> None:
    """The hostile station, in a process of its own (a machine of its own, in a classroom): ``rate`` valid states a
    second (0: as fast as its client sends them) until ``stop``; ``sent`` counts them."""
    import paho.mqtt.client as mqtt

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
    client.username_pw_set(*login)
    client.connect(host, port)
    client.loop_start()
    state = {"station": "hostile", "mode": "playing", "game": "pirates", "players": 2, "turn": 0, "volume": 0.5}
    start, count = time.monotonic(), 0
    while not stop.is_set():
        for _ in range(100):
            count += 1
            client.publish("gamebox/hostile/state", json.dumps(dict(state, at=time.time(), actions=count % 10**6)))
        sent.value = count
        ahead = count / rate - (time.monotonic() - start) if rate else 0.001  # 0.001: the client's thread sends
        stop.wait(max(0.0, ahead))
    client.loop_stop()
    client.disconnect()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--stations", type=int, default=30)
    parser.add_argument("--without-link", type=int, default=5)
    parser.add_argument("--seconds", type=float, default=40.0)
    parser.add_argument("--flood", type=float, nargs="?", const=4400.0, metavar="RATE",
                        help="one hostile station sends RATE valid states a second (default 4400; 0: as fast as it can)")
    parser.add_argument("--screenshot", metavar="PNG", help="save the page once the games are under way")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        names = [f"table-{i + 1:02d}" for i in range(args.stations)] + (["hostile"] if args.flood is not None else [])
        broker = SecuredBroker(folder / "broker", names)
        broker.start()
        page: TeacherPageProcess | None = None
        latencies: list[float] = []
        errors: list[str] = []
        stop, watching = threading.Event(), threading.Event()
        spawn = multiprocessing.get_context("spawn")  # a fresh interpreter: nothing of this one's threads
        flooded, stop_flood = spawn.Value("q", 0), spawn.Event()
        watcher = flooder = None
        figures: dict = {}
        try:  # the bench stops its broker, page and hostile station whatever happens
            page = TeacherPageProcess(folder, broker, "--config", str(broker.folder / "teacher.toml"))
            watcher = threading.Thread(target=watch_page, args=(page.url, args.stations, watching, stop, latencies,
                                                                 errors, args.screenshot))
            if shutil.which("chromium"):
                watcher.start()
            else:
                errors.append("no chromium: page latency not measured")
                watching.set()
            if args.flood is not None:
                flooder = spawn.Process(target=flood, args=(broker.host, broker.port, broker.login("hostile"),
                                                            args.flood, stop_flood, flooded))
                flooder.start()
            figures = asyncio.run(classroom(broker, folder, args.stations, args.without_link, args.seconds, watching))
        finally:
            stop.set()
            stop_flood.set()
            for running in (watcher, flooder):
                if running is not None and running.is_alive():
                    running.join()
            if page is not None:
                page.stop()
            broker.stop()
    print(f"classroom: {args.stations} stations with the link, {args.without_link} without, {args.seconds:g} s, "
          f"Mosquitto as broker-config sets it up, {figures.get('actions', 0)} bot actions"
          + (f", and a hostile station sent {flooded.value} states" if args.flood is not None else ""))
    if latencies:
        ms = [x * 1000 for x in latencies]
        print(f"page update latency (box state -> Chromium DOM): n={len(ms)}, p50 {percentile(ms, 0.5):.1f} ms, "
              f"p99 {percentile(ms, 0.99):.1f} ms, max {max(ms):.1f} ms (target p99 <= 250 ms)")
    for error in errors:
        print(f"page: {error}")
    if figures.get("hanging"):
        print(f"{figures['hanging']} boxes had not stopped {STOP_SECONDS:g} s after they were told to")
    for name in ("on", "off"):
        ms = [x * 1000 for x in figures.get(name, [])]
        if ms:
            print(f"tap -> first device command, link {name}: n={len(ms)}, p50 {percentile(ms, 0.5):.3f} ms, "
                  f"p99 {percentile(ms, 0.99):.3f} ms, mean {statistics.mean(ms):.3f} ms")
    print(json.dumps({"page_p99_ms": percentile([x * 1000 for x in latencies], 0.99) if latencies else None}))


if __name__ == "__main__":
    main()
