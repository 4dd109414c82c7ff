"""One boot of the virtual Pi under qemu (TCG), with the box's devices and the host's ends of them.

* the die puck: qemu's ``usb-serial`` (an FTDI chip: /dev/ttyUSB0 in the guest);
  its other end is a socket relayed to the puck's own firmware, as flashed,
  under MicroPython's unix port (:class:`Puck`), its button a file the host writes;
* the NFC reader that types: qemu's ``usb-kbd``, typed into over QMP;
* the speaker: ``intel-hda`` with a ``wav`` audiodev, so what the box played
  lands in a file;
* the control line: a virtio console where systemd/vm/agent.py runs commands;
* the network: qemu's user networking, restricted (no way out), with one
  guest address forwarded to a broker on the host's loopback, and the family's
  page's port forwarded from the host's loopback to the guest, as a phone on the
  home network reaches it.

The disk is raw with ``cache=none``: every write the guest has made reached
the host's file, and a kill of qemu loses what the guest still held in
memory, as a pulled plug loses the Pi's page cache.
"""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import shutil
import socket
import subprocess
import termios
import threading
import time
import tty
from pathlib import Path

from image import ROOT, Image

BROKER_ADDRESS = "10.0.2.100"  # the broker as the guest sees it
PAGE_PORT = 8081  # the family's page in the guest (systemd/gamebox-home.service's --http-port)
PUCK_SERIAL = "puck"
READER_SERIAL = "reader"
QCODES = {**{str(d): str(d) for d in range(10)}, **{c: c for c in "abcdef"}, "\n": "ret"}


def _connect(path: Path, timeout: float = 30.0) -> socket.socket:
    deadline = time.monotonic() + timeout
    while True:
        try:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(str(path))
            return sock
        except OSError:
            sock.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.1)


class Machine:
    """qemu running the virtual Pi; ``sh`` runs a command in it, ``type_text`` types on its reader."""

    def __init__(self, arch: str, image: Image, disk: Path, source: Path, where: Path, boot: int,
                 broker_port: int | None = None, page_port: int | None = None, memory: int = 1024) -> None:
        self.where = where
        self.wav = where / f"speaker-{boot}.wav"
        self.console = where / f"console-{boot}.log"
        self.commands = where / f"commands-{boot}.log"  # each command on the control line: when, how long
        self.qmp_path = where / "qmp.sock"
        self.agent_path = where / "agent.sock"
        self.puck_path = where / "puck.sock"
        for path in (self.qmp_path, self.agent_path, self.puck_path):
            path.unlink(missing_ok=True)
        if arch == "amd64":
            command = ["qemu-system-x86_64", "-M", "pc", "-cpu", "max", "-device", "VGA,id=screen"]
            console = "ttyS0"
        else:
            command = ["qemu-system-aarch64", "-M", "virt", "-cpu", "max,pauth-impdef=on",
                       "-device", "virtio-gpu-pci,id=screen"]
            console = "ttyAMA0"
        network = "user,id=net,restrict=on"
        if broker_port is not None:
            relay = f"socat - TCP:127.0.0.1:{broker_port}"
            network += f",guestfwd=tcp:{BROKER_ADDRESS}:1883-cmd:{relay}"
        if page_port is not None:
            network += f",hostfwd=tcp:127.0.0.1:{page_port}-:{PAGE_PORT}"
        command += [
            "-accel", "tcg,thread=multi", "-smp", "2", "-m", str(memory), "-nodefaults", "-nographic",
            "-no-reboot", "-kernel", str(image.kernel), "-initrd", str(image.initrd),
            "-append", f"root=/dev/vda rw console={console} net.ifnames=0 systemd.show_status=0",
            "-serial", f"file:{self.console}",
            "-drive", f"file={disk},format=raw,if=virtio,cache=none,aio=threads",
            "-drive", f"file={source},format=raw,if=virtio,readonly=on",
            "-qmp", f"unix:{self.qmp_path},server=on,wait=off",
            "-device", "virtio-serial-pci",
            "-chardev", f"socket,id=agent,path={self.agent_path},server=on,wait=off",
            "-device", "virtconsole,chardev=agent",
            "-device", "qemu-xhci,id=xhci",
            "-chardev", f"socket,id=puck,path={self.puck_path},server=on,wait=off",
            "-device", f"usb-serial,chardev=puck,bus=xhci.0,serial={PUCK_SERIAL}",
            # Bound to the screen's console, so QMP's key events (sent to that console) reach this keyboard alone.
            "-device", f"usb-kbd,id=reader,bus=xhci.0,serial={READER_SERIAL},display=screen",
            "-audiodev", f"wav,id=speaker,path={self.wav}",
            "-device", "intel-hda", "-device", "hda-duplex,audiodev=speaker",
            "-netdev", network, "-device", "virtio-net-pci,netdev=net",
        ]
        self.started = time.monotonic()
        self.process = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=open(where / f"qemu-{boot}.log", "wb"),
                                        stderr=subprocess.STDOUT)
        self._qmp = _connect(self.qmp_path)
        self._qmp_file = self._qmp.makefile("rwb", buffering=0)
        self._qmp_file.readline()  # the greeting
        self.qmp("qmp_capabilities")
        self._agent: socket.socket | None = None
        self._agent_buffer = b""
        self._ids = 0

    # -- QMP ---------------------------------------------------------------------------
    def qmp(self, command: str, **arguments) -> dict:
        self._qmp_file.write(json.dumps({"execute": command, "arguments": arguments}).encode() + b"\n")
        while True:
            line = self._qmp_file.readline()
            if not line:
                raise ConnectionError("qemu closed its QMP socket")
            reply = json.loads(line)
            if "return" in reply:
                return reply["return"]
            if "error" in reply:
                raise RuntimeError(f"QMP {command}: {reply['error']}")

    def type_text(self, text: str, gap: float = 0.15) -> None:
        """Key presses on the reader, as a keyboard-wedge NFC reader types a uid and Enter.

        qemu's USB keyboard reports the keys held at each poll of the guest: a
        key pressed and released between two polls is never seen. ``gap``
        gives a slow (emulated) guest time to poll between the two.
        """
        for char in text:
            for down in (True, False):
                self._key(char, down)
                time.sleep(gap)

    def release_keys(self, text: str, gap: float = 0.5) -> None:
        """Let go of every key of ``text``. qemu's keyboard keeps 16 events for the guest's next poll and drops
        what comes while they wait: a starved guest can miss a release and hold that key (Enter, often) for good,
        after which pressing it again reports nothing."""
        for char in sorted(set(text)):
            self._key(char, False)
            time.sleep(gap)

    def _key(self, char: str, down: bool) -> None:
        key = {"type": "key", "data": {"down": down, "key": {"type": "qcode", "data": QCODES[char]}}}
        self.qmp("input-send-event", device="screen", events=[key])

    # -- the control line --------------------------------------------------------------
    def wait_agent(self, timeout: float) -> float:
        """Seconds from starting qemu until the guest's control line answers."""
        deadline = time.monotonic() + timeout
        self._agent = _connect(self.agent_path)
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"qemu exited with {self.process.returncode} while booting")
            try:
                self.sh("true", timeout=2.0, wait=3.0)
                return time.monotonic() - self.started
            except TimeoutError:
                continue
        raise TimeoutError(f"the guest's control line did not answer within {timeout:.0f} s")

    def sh(self, command: str, timeout: float = 120.0, wait: float | None = None) -> tuple[int | None, str]:
        """Run ``command`` in the guest as root; its exit status (None: timed out) and output."""
        assert self._agent is not None
        self._ids += 1
        ident = self._ids
        self._agent.sendall(json.dumps({"id": ident, "sh": command, "timeout": timeout}).encode() + b"\n")
        sent = time.monotonic()
        deadline = sent + (wait if wait is not None else timeout + 30)
        while True:
            while b"\n" in self._agent_buffer:
                line, self._agent_buffer = self._agent_buffer.split(b"\n", 1)
                try:
                    reply = json.loads(line)
                except ValueError:
                    continue
                # Until the agent makes the line raw, the guest's tty echoes what reached it: a request read back
                # carries its id too, but no answer.
                if reply.get("id") == ident and "rc" in reply:
                    with open(self.commands, "a") as log:  # where a slow run spends its time
                        print(f"{sent - self.started:7.1f} {time.monotonic() - sent:6.1f} s  rc {reply['rc']}  "
                              f"{command[:120]!r}", file=log)
                    return reply["rc"], reply["out"]
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(command)
            self._agent.settimeout(left)
            try:
                chunk = self._agent.recv(65536)
            except socket.timeout:
                raise TimeoutError(command) from None
            if not chunk:
                raise ConnectionError("the guest's control line closed")
            self._agent_buffer += chunk

    # -- power ---------------------------------------------------------------------------
    def pull_plug(self) -> None:
        """Power gone at once: qemu killed, the guest's memory with it."""
        self.process.kill()
        self.process.wait()
        self.close()

    def wait_exit(self, timeout: float) -> bool:
        try:
            self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            return False
        self.close()
        return True

    def close(self) -> None:
        for sock in (self._agent, self._qmp):
            if sock is not None:
                sock.close()
        self._agent = None
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


class Puck:
    """The die puck's firmware as flashed, under MicroPython's unix port, on the far end of the guest's USB serial.

    tests/firmware/unix_pico.py puts the Pico's stand-ins beneath firmware/main.py
    (a pin is a file: "0" in ``pin<n>`` holds the button down). Its USB line is a
    pseudo-terminal, as the flashed-firmware tests give it, relayed byte for byte
    to qemu's socket: the guest's ftdi_sio sees what the box would see.
    """

    def __init__(self, machine: Machine, where: Path) -> None:
        self.board = where / "puck-board"
        shutil.rmtree(self.board, ignore_errors=True)
        self.board.mkdir()
        settings = (ROOT / "firmware/puck/settings.py").read_text()
        pin = re.search(r"^BUTTON_PIN = (\d+)", settings, re.M).group(1)
        self.button = self.board / f"pin{pin}"
        self.button.write_text("1")
        self._sock = _connect(machine.puck_path)  # qemu plugs the USB serial device in now
        master, slave = pty.openpty()
        tty.setraw(slave)
        micropython = shutil.which("micropython") or str(ROOT / ".venv/bin/micropython")
        told = os.open(os.devnull, os.O_WRONLY)  # its watchdog's feeds and resets: nobody acts on them here
        self.process = subprocess.Popen(
            [micropython, str(ROOT / "tests/firmware/unix_pico.py"), str(ROOT / "firmware"), str(self.board),
             "1", str(told), str((1 << 30) - 1000), "0"],  # power-on, ticks a second before they wrap, no 0x03
            stdin=slave, stdout=slave, stderr=open(where / "puck.log", "ab"), start_new_session=True,
            preexec_fn=lambda: fcntl.ioctl(0, termios.TIOCSCTTY, 0), pass_fds=(told,))
        os.close(slave)
        os.close(told)
        self._master = master
        threading.Thread(target=self._relay, daemon=True).start()

    def _relay(self) -> None:
        sock = self._sock.fileno()
        try:
            while True:
                ready, _, _ = select.select([self._master, sock], [], [])
                for source in ready:
                    data = os.read(source, 4096) if source == self._master else self._sock.recv(4096)
                    if not data:
                        return
                    if source == self._master:
                        self._sock.sendall(data)
                    else:
                        os.write(self._master, data)
        except OSError:
            return  # the puck or the box went away: the cable is cut

    def press(self, seconds: float = 0.15) -> None:
        self.button.write_text("0")
        time.sleep(seconds)
        self.button.write_text("1")

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._sock.close()
        os.close(self._master)
