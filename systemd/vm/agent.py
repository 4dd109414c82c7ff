"""The virtual Pi's side of its control line: runs shell commands the host sends over /dev/hvc0.

Installed into the guest image by systemd/vm/image.py as a root service, so
the host can drive the guest as an administrator at its console would.
One JSON object a line each way: ``{"id", "sh", "timeout"}`` in,
``{"id", "rc", "out"}`` out (``rc`` None when the command timed out).
Standard library only: it runs on the guest's own Python.
"""

import json
import os
import subprocess
import sys
import tty

PORT = sys.argv[1] if len(sys.argv) > 1 else "/dev/hvc0"


def main() -> None:
    fd = os.open(PORT, os.O_RDWR | os.O_NOCTTY)
    tty.setraw(fd)  # bytes as they are: no echo, no line editing, no CR translation
    lines = os.fdopen(fd, "rb", buffering=0)
    out = os.fdopen(os.dup(fd), "wb", buffering=0)
    pending = b""
    while True:
        chunk = lines.read(65536)
        if not chunk:
            continue
        pending += chunk
        while b"\n" in pending:
            line, pending = pending.split(b"\n", 1)
            try:
                request = json.loads(line)
            except ValueError:
                continue  # noise on the line before the host connected
            out.write(json.dumps(answer(request)).encode() + b"\n")


def answer(request: dict) -> dict:
    try:
        done = subprocess.run(["/bin/sh", "-c", request["sh"]], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, timeout=request.get("timeout", 300))
        return {"id": request.get("id"), "rc": done.returncode, "out": done.stdout.decode(errors="replace")}
    except subprocess.TimeoutExpired as expired:
        return {"id": request.get("id"), "rc": None, "out": (expired.output or b"").decode(errors="replace")}


if __name__ == "__main__":
    main()
