"""The virtual Pi: the box installed by systemd/install.sh and run by a real systemd, in qemu, through real device nodes.

    sudo systemd/test-vm.sh [--arch amd64|arm64] [--keep] [--cache DIR] [--first-install]

Boots a Debian bookworm guest (systemd/vm/image.py), copies the project in,
installs it as a Pi's owner would (with the family's page: ``install.sh --home``),
pairs a phone with that page (Chromium on the host, through qemu's port
forward), enrols a card and changes a setting from it, and plays a whole game of Pirate & Co.
through the devices of systemd/vm/profile.toml: taps typed on a USB keyboard
reader over QMP, die presses made on the puck's firmware running under
MicroPython on the far end of a USB serial port, the sounds caught in a WAV
file. Then a power cut, the watchdog, a classroom station and the power-off
card. One line per check, then ``N passed, M failed``.
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import image as images  # noqa: E402
from hearing import sound_found  # noqa: E402
from qemu import BROKER_ADDRESS, Machine, Puck  # noqa: E402

ROOT = images.ROOT
sys.path.insert(0, str(ROOT))
from tests.station.brokers import Broker, Watcher, free_port  # noqa: E402  (the station tests' Mosquitto and subscriber)
from phone import family_page  # noqa: E402  (it drives the page with the page tests' phone)

GAME, PLAYERS, SEED = "pirates", 2, 2  # a short whole game: one round, no parrot (the puck cannot hold)
GAME_OPTIONS = {"wins_needed": 1, "leave_out": ["parrot"]}
CONFIG = "/etc/gamebox/box.toml"
BOX_TOML = f"""# The virtual Pi's box (systemd/vm/run.py): its devices, and a game short enough to play whole.
profile = "/opt/gamebox/systemd/vm/profile.toml"
language = "en"
seed = 1
handover = 0.0
repeat_window = 0.0
state_dir = "/var/lib/gamebox"
[games.pirates]
wins_needed = {GAME_OPTIONS["wins_needed"]}
leave_out = {json.dumps(GAME_OPTIONS["leave_out"])}
"""
# Emulation starts Python and pygame 20-50 times slower than a Pi does: the first start may take minutes
# (systemd's default is 90 s). Nothing else of the unit is changed; the test prints how long READY took.
EMULATION_DROPIN = "[Service]\nTimeoutStartSec=15min\n"
STATION = "virtual-pi"
NETWORK_TOML = f'[network]\nenabled = true\nbroker = "{BROKER_ADDRESS}"\nstation = "{STATION}"\n'
ERRNO_97 = re.compile(r"Address family not supported|Errno 97")
GAMEBOX = "/opt/gamebox/.venv/bin/gamebox"
AS_SERVICE_USER = "runuser -u gamebox -- env -C /var/lib/gamebox"
DENIALS = re.compile(r"audit|EPERM|Permission denied|Operation not permitted|Traceback", re.I)


CANNOT_RUN = 77  # the exit status of a test that could not run here (no image, no booting guest), as automake's


class CannotRun(Exception):
    """This machine cannot run the virtual Pi (its image cannot be built, or a pristine guest does not boot)."""


class Report:
    def __init__(self) -> None:
        self.passed = self.failed = 0
        self.began = time.monotonic()

    def check(self, what: str, ok: bool, detail: str = "") -> bool:
        """One line: the verdict, the check, what was seen, and when (seconds into the run)."""
        print(f"{'PASS' if ok else 'FAIL'} {what}{f' ({detail})' if detail else ''}"
              f" [{time.monotonic() - self.began:.0f} s]", flush=True)
        if ok:
            self.passed += 1
        else:
            self.failed += 1
        return ok


@dataclass
class Plan:
    """A reference game played by bots on the host's own box: the inputs, and the referee after each action."""

    groups: list[list[str]] = field(default_factory=list)  # the inputs that make one action
    states: list[dict] = field(default_factory=list)  # the referee after 1, 2, ... actions
    cards: set[str] = field(default_factory=set)


def reference(where: Path) -> Plan:
    from controller.autoplay import Autoplayer, run_inputs
    from tests.box.helpers import make_box

    box, _stage, clock = make_box(where, seed=1, handover=0.0, repeat_window=0.0, games={GAME: GAME_OPTIONS})
    box.new_game(GAME, PLAYERS)
    auto = Autoplayer(box, SEED)
    plan = Plan()
    while not box.engine.over:
        inputs = auto.inputs(auto.choose()[1])
        lines = [f"{i.kind} {i.value}" for i in inputs]
        if any(i.kind == "hold" for i in inputs):
            raise SystemExit(f"the reference game needs a hold, which the puck cannot make: {lines}")
        run_inputs(box, inputs, clock.advance)
        if len(box.engine.log) != len(plan.states) + 1:
            raise SystemExit(f"{lines} made {len(box.engine.log) - len(plan.states)} actions, not one")
        plan.groups.append(lines)
        plan.states.append(json.loads(box.engine.to_json()))
        plan.cards |= {i.value for i in inputs if i.kind == "tap"}
    plan.cards |= {f"control-game-{GAME}", f"control-players-{PLAYERS}", "control-power-off", "control-pair"}
    return plan


def uids(cards: set[str]) -> dict[str, int]:
    """A uid for each card, short to type (the reader types it in decimal; the box reads 4 bytes)."""
    return {card: 100 + n for n, card in enumerate(sorted(cards))}


class VirtualPi:
    """The guest and what the test does to it: boot, type, press, read its journal."""

    def __init__(self, arch: str, image: images.Image, where: Path, source: Path, broker: Broker | None,
                 page_port: int | None = None) -> None:
        self.arch, self.image, self.where, self.source, self.broker = arch, image, where, source, broker
        self.page_port = page_port  # the host's end of the forward to the family's page
        self.disk = images.working_copy(image, where)
        self.boots = 0
        self.machine: Machine | None = None
        self.puck: Puck | None = None
        self.typed: dict[str, int] = {}
        self.retaps = 0  # cards laid on the reader again because the guest missed a key

    def boot(self, timeout: float) -> float:
        self.boots += 1
        self.machine = Machine(self.arch, self.image, self.disk, self.source, self.where, self.boots,
                               broker_port=self.broker.port if self.broker else None, page_port=self.page_port)
        seconds = self.machine.wait_agent(timeout)
        self.puck = Puck(self.machine, self.where)
        return seconds

    def sh(self, command: str, timeout: float = 300.0) -> tuple[int | None, str]:
        assert self.machine is not None
        return self.machine.sh(command, timeout)

    def ok(self, command: str, timeout: float = 300.0) -> str:
        rc, out = self.sh(command, timeout)
        if rc != 0:
            raise RuntimeError(f"{command!r} exited {rc}: {out[-2000:]}")
        return out

    def stop(self) -> None:
        if self.puck is not None:
            self.puck.stop()
            self.puck = None
        if self.machine is not None:
            self.machine.close()
            self.machine = None

    def tap(self, card: str) -> None:
        assert self.machine is not None
        self.machine.type_text(f"{self.typed[card]}\n")

    def release(self, line: str) -> None:
        """Before a card is laid again: every key its tap types let go, in case the guest missed a release."""
        assert self.machine is not None
        self.machine.release_keys(f"{self.typed[line.split(' ', 1)[1]]}\n")
        time.sleep(1)

    def perform(self, line: str) -> None:
        kind, value = line.split(" ", 1)
        if kind == "tap":
            self.tap(value)
        elif kind == "press":
            assert self.puck is not None
            self.puck.press()
        elif kind == "wait":
            time.sleep(float(value) + 0.5)
        else:
            raise ValueError(line)
        time.sleep(0.3)

    def journal(self, unit: str = "gamebox", boot: bool = True) -> str:
        return self.ok(f"journalctl {'-b' if boot else ''} -u {unit} -o cat --no-pager")

    def acknowledged(self) -> int:
        """The highest action the service has said is durable (``accepted N``), this boot; -1 before any."""
        found = re.findall(r"^accepted (\d+)$", self.journal(), re.M)
        return max(map(int, found), default=-1)

    def wait_for(self, what: str, test, timeout: float, every: float = 0.5):
        deadline = time.monotonic() + timeout
        while True:
            value = test()
            if value:
                return value
            if time.monotonic() > deadline:
                raise TimeoutError(f"waited {timeout:.0f} s for {what}")
            time.sleep(every)

    def status(self) -> dict:
        return json.loads(self.ok(f"{AS_SERVICE_USER} {GAMEBOX} status --json --config {CONFIG}"))

    def service_pid(self) -> int:
        return int(self.ok("systemctl show -p MainPID --value gamebox").strip())

    def wait_ready(self, timeout: float) -> None:
        """The service is active (notify: READY sent) and its puck has said HELLO."""
        self.wait_for("gamebox to be active", lambda: self.sh("systemctl is-active -q gamebox")[0] == 0, timeout)
        self.wait_for("the die puck's HELLO", lambda: "puck:die: firmware" in self.journal(), timeout)


def play(pi: VirtualPi, plan: Plan, start: int, stop: int, report: Report) -> bool:
    """Perform the plan's action groups [start, stop), each until the service has acknowledged its action."""
    for n in range(start, stop):
        for line in plan.groups[n]:
            pi.perform(line)
        try:
            if plan.groups[n][0].startswith("tap") and len(plan.groups[n]) == 1:
                # A key an emulated guest missed is a card not read: let go of its keys, and lay it on the reader
                # again, as a child would. Harmless if it was read: the same card again is refused, never played twice.
                for _ in range(2):
                    try:
                        pi.wait_for(f"accepted {n}", lambda n=n: pi.acknowledged() >= n, 30)
                        break
                    except TimeoutError:
                        pi.retaps += 1
                        pi.release(plan.groups[n][0])
                        pi.perform(plan.groups[n][0])
            pi.wait_for(f"accepted {n}", lambda n=n: pi.acknowledged() >= n, 90)
        except TimeoutError as error:
            (pi.where / f"journal-{pi.boots}.log").write_text(
                pi.ok("journalctl -b --no-pager; ps -eLo pid,tid,stat,wchan:32,args"))  # where a hung box waits
            return report.check(f"action {n} ({'; '.join(plan.groups[n])}) acknowledged", False, str(error))
    return True


def same_game(status: dict, expected: dict, actions: int) -> bool:
    """``gamebox status --json`` shows the reference game's state after ``actions`` actions.

    The status shows the referee's state keys as they are, and its hands and pile as counts.
    """
    state = expected["state"]
    shared = [key for key in state if key in status]
    counts = {"hand_sizes": state.get("hands"), "pile_size": len(state.get("pile", []))}
    return (status.get("actions") == actions and len(shared) >= 5
            and all(status[key] == state[key] for key in shared)
            and all(status[key] == value for key, value in counts.items() if key in status))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--arch", choices=["amd64", "arm64"], default="amd64")
    parser.add_argument("--cache", default="/var/cache/gamebox-vm", help="where the images are kept between runs")
    parser.add_argument("--keep", action="store_true", help="keep the run's folder (disk, logs, the WAV)")
    parser.add_argument("--first-install", action="store_true",
                        help="no seeded venv in the image: install.sh makes it and installs every package, as on a "
                             "new Pi (emulated: 3 to 5 more minutes)")
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # a time limit stops qemu, the puck and the broker too
    cache = Path(args.cache)
    cache.mkdir(parents=True, exist_ok=True)
    began = time.monotonic()
    boot_timeout = 1200 if args.arch == "amd64" else 2400  # TCG on a busy machine boots slowly
    say = lambda line: print(f"test-vm: {line}", flush=True)  # noqa: E731
    try:
        image = images.disk(cache, args.arch, say, first_install=args.first_install)
    except (OSError, subprocess.CalledProcessError) as error:
        say(f"cannot run here: the {args.arch} image could not be built ({error})")
        return CANNOT_RUN
    say(f"image ready in {time.monotonic() - began:.0f} s")
    where = Path(tempfile.mkdtemp(prefix="gamebox-vm.", dir="/var/tmp"))
    report = Report()
    broker = Broker(where)
    broker.start()
    pi = VirtualPi(args.arch, image, where, images.source_disk(where), broker, page_port=free_port())
    try:
        plan = reference(where / "reference")
        pi.typed = uids(plan.cards)
        checks(pi, plan, report, boot_timeout, say, args.first_install)
    except CannotRun as error:
        say(f"cannot run here: {error}")
        return CANNOT_RUN
    except Exception as error:  # a step that could not run: the checks after it cannot either
        report.check("the virtual Pi ran to the end", False, f"{type(error).__name__}: {error}")
    finally:
        pi.stop()
        broker.stop()
        if args.keep:
            say(f"kept {where}")
        else:
            shutil.rmtree(where, ignore_errors=True)
    say(f"{args.arch}: {time.monotonic() - began:.0f} s in all")
    print(f"{report.passed} passed, {report.failed} failed", flush=True)
    return 1 if report.failed else 0


def checks(pi: VirtualPi, plan: Plan, report: Report, boot_timeout: float, say, first_install: bool) -> None:
    try:
        seconds = pi.boot(boot_timeout)
    except (RuntimeError, TimeoutError, OSError) as error:  # nothing of the box has run yet: this machine's qemu
        raise CannotRun(f"the pristine guest did not boot ({error})") from None
    say(f"booted: the control line answered {seconds:.0f} s after power-on")
    # -- 1. install as a Pi's owner would: a clone owned by a user, the installer as root ------------------
    pi.ok("mkdir -p /mnt/src && mount -o ro /dev/vdb /mnt/src && cp -a /mnt/src /home/builder/gamebox"
          " && chown -R builder:builder /home/builder/gamebox && umount /mnt/src")
    pi.ok(f"install -d -m 755 /etc/gamebox && cat > {CONFIG} <<'TOML'\n{BOX_TOML}TOML")
    pi.ok("install -d /etc/systemd/system/gamebox.service.d && "
          f"printf '{EMULATION_DROPIN}' > /etc/systemd/system/gamebox.service.d/emulation.conf")
    rc, out = pi.sh("/home/builder/gamebox/systemd/install.sh --home 2>&1", timeout=1800)
    (pi.where / "install.log").write_text(out)
    seeded = "" if first_install else " (its venv seeded: pip installs the project)"
    report.check(f"install.sh --home succeeds in the guest{seeded}", rc == 0,
                 out.strip().splitlines()[-1] if out.strip() else "")
    if rc != 0:
        print(out[-3000:])
        return
    out = pi.ok("systemd-analyze security gamebox.service --no-pager")
    level = re.search(r"Overall exposure level for gamebox.service: ([\d.]+)", out)
    report.check("systemd-analyze security rates the installed unit at most 2.0",
                 level is not None and float(level.group(1)) <= 2.0, level.group(0) if level else out[-300:])
    mode = pi.ok(f"stat -c %a:%U:%G {CONFIG}").strip()
    report.check("the config holding broker secrets is not world-readable (the box may write it: the page's settings)",
                 mode == "660:root:gamebox", mode)
    installed = (pi.where / "install.log").read_text()
    report.check("install.sh's doctor checked the service's own state folder: no false storage fault",
                 "not writable" not in installed and "chown" not in installed and "storage " in installed)
    # -- enrol the game's cards (the registry's own API, as the service user, the service stopped) ---------
    pi.ok("systemctl stop gamebox")
    rows = json.dumps({card: f"{uid:08x}" for card, uid in pi.typed.items()})
    pi.ok(f"{AS_SERVICE_USER} /opt/gamebox/.venv/bin/python -c 'import json, sys; "
          "from controller.box.tags import Registry; r = Registry(\"/var/lib/gamebox/tags.sqlite\"); "
          f"[r.enroll(bytes.fromhex(u), c) for c, u in json.loads(sys.argv[1]).items()]' '{rows}'")
    # -- 2. every device through the sandbox; doctor as the service sees it -------------------------------
    out = pi.ok("/opt/gamebox/systemd/doctor.sh 2>&1; echo rc=$?", timeout=600)
    (pi.where / "doctor.log").write_text(out)
    report.check("doctor, run in the service's own sandbox, says ok for every device",
                 out.rstrip().endswith("rc=0"), out.strip().splitlines()[-2] if out.strip() else "")
    pi.ok("systemctl start gamebox")
    pi.wait_ready(300)
    report.check("systemctl is-active gamebox", pi.sh("systemctl is-active gamebox")[1].strip() == "active")
    log = pi.journal()
    denied = [line for line in log.splitlines() if DENIALS.search(line)]
    kernel = [line for line in pi.ok("journalctl -b -k -o cat --no-pager").splitlines()
              if "audit" in line and "gamebox" in line]
    report.check("the service opened its reader, puck and speaker with no denial in the journal",
                 not denied and not kernel, "; ".join((denied + kernel)[:3]))
    opened = pi.ok("ls -l /proc/$(systemctl show -p MainPID --value gamebox)/fd")
    report.check("the service holds /dev/input/event*, /dev/ttyUSB0 and /dev/snd/* open",
                 all(node in opened for node in ("/dev/input/event", "/dev/ttyUSB0", "/dev/snd/")),
                 ", ".join(sorted(set(re.findall(r"-> (/dev/\S+)", opened)))))
    # -- the family's page, from a phone on the host, before the game (cards are enrolled between games) ------
    family_page(pi, report)
    # -- 3. (first half) the game through the devices ------------------------------------------------------
    pi.tap(f"control-game-{GAME}")
    time.sleep(1)
    pi.tap(f"control-players-{PLAYERS}")
    half = len(plan.groups) // 2
    if not play(pi, plan, 0, half, report):
        return
    acked = pi.acknowledged()
    status = pi.status()
    report.check("the first half of the game played through the reader and the puck",
                 acked == half - 1 and same_game(status, plan.states[acked], acked + 1),
                 f"accepted 0..{acked}; status {json.dumps(status)[:160]}")
    # -- 4. a power cut mid-game ------------------------------------------------------------------------------
    assert pi.machine is not None
    pi.stop()  # the puck's firmware goes with the box's power
    seconds = pi.boot(boot_timeout)
    pi.wait_ready(300)
    ready = re.search(r"\[\s*([\d.]+)\] \S+ systemd\[1\]: Started gamebox.service",
                      pi.ok("journalctl -b -o short-monotonic --no-pager -u gamebox"))
    say(f"power-on to READY after the power cut: {ready.group(1) if ready else '?'} s of the guest's clock "
        f"(control line {seconds:.0f} s by the host's)")
    status = pi.status()
    report.check("after the power cut the box resumed exactly the acknowledged actions",
                 same_game(status, plan.states[acked], acked + 1),
                 f"acknowledged {acked + 1}, resumed {status.get('actions')}")
    # -- 5. the watchdog -----------------------------------------------------------------------------------
    pid = pi.service_pid()
    restarts = int(pi.ok("systemctl show -p NRestarts --value gamebox"))
    pi.ok(f"kill -STOP {pid}")
    try:
        pi.wait_for("systemd to restart the stopped daemon",
                    lambda: pi.service_pid() not in (0, pid) and pi.sh("systemctl is-active -q gamebox")[0] == 0, 120)
        pi.wait_ready(300)
        report.check("the watchdog restarted a hung daemon and the game resumed",
                     int(pi.ok("systemctl show -p NRestarts --value gamebox")) > restarts
                     and "Failed with result 'watchdog'" in pi.journal()
                     and same_game(pi.status(), plan.states[acked], acked + 1))
    except TimeoutError as error:
        report.check("the watchdog restarted a hung daemon and the game resumed", False, str(error))
    # -- 3. (second half) to the end ------------------------------------------------------------------------
    if not play(pi, plan, half, len(plan.groups), report):
        return
    final = pi.status()
    history = pi.ok(f"{AS_SERVICE_USER} {GAMEBOX} history --config {CONFIG}")
    report.check("the whole game ended as the reference did (status and history agree)",
                 same_game(final, plan.states[-1], len(plan.states)) and final.get("over") is True
                 and "pirates" in history.lower(),
                 f"winners {final.get('winners')}; {pi.retaps} card(s) laid on the reader again")
    time.sleep(3)  # the winner's show plays out
    # -- 7. a classroom station --------------------------------------------------------------------------------
    station(pi, report)
    # -- 6. the power-off card ---------------------------------------------------------------------------------
    assert pi.machine is not None
    recording = pi.machine.wav
    pi.tap("control-power-off")
    off = pi.machine.wait_exit(180)
    report.check("the power-off card powers the machine off through logind (qemu exits)", off)
    for name in ("card-ok", "treasure-fanfare"):
        score = sound_found(recording, ROOT / f"sounds/{name}.wav")
        report.check(f"the speaker played {name}.wav", score > 0.8, f"{score:.0%} of its tones found")
    pi.stop()
    if not off:
        return
    pi.boot(boot_timeout)
    pi.wait_ready(300)
    status, log = pi.status(), pi.journal()
    report.check("the next boot starts in the menu: the won game is not resumed, no new one begun",
                 status.get("game_id") == 1 and status.get("over") is True and "resumed" not in log
                 and re.search(r"^ready$", log, re.M) is not None,
                 f"game {status.get('game_id')}, over {status.get('over')}; "
                 f"{'resumed' if 'resumed' in log else 'not resumed'}")


def station(pi: VirtualPi, report: Report) -> None:
    """[network] on. Before install.sh has added the network drop-in: no socket (the service's log says the address
    family is refused) and nothing reaches the host's broker. Then install.sh adds the drop-in, and the station's
    state reaches that broker. The station stays on for the power-off card and the next boot."""
    assert pi.broker is not None
    online = f"gamebox/{STATION}/online"
    published = "a station with the network drop-in publishes its state to a Mosquitto on the host's loopback"
    watcher = Watcher(pi.broker, f"gamebox/{STATION}/#")
    try:
        pi.ok(f"cat >> {CONFIG} <<'TOML'\n{NETWORK_TOML}TOML")
        pi.ok("systemctl restart gamebox")
        pi.wait_ready(300)
        try:
            pi.wait_for("the station's refused socket", lambda: ERRNO_97.search(pi.journal()), 120)
            refused = True
        except TimeoutError:
            refused = False
        heard = watcher.json_on(online)
        report.check("without the drop-in the station cannot open a socket", refused and not heard,
                     f"refused in the log: {refused}; online {len(heard)} times")
        pi.ok("/home/builder/gamebox/systemd/install.sh 2>&1", timeout=900)
        try:
            watcher.wait_for(online, lambda m: m.get("online") is True, 180)
            state = watcher.wait_for(f"gamebox/{STATION}/state", lambda m: True, 60)
            report.check(published, True, f"mode {state.get('mode')}")
        except AssertionError as error:
            report.check(published, False, str(error))
    finally:
        watcher.close()
    pi.wait_ready(300)


if __name__ == "__main__":
    sys.exit(main())
