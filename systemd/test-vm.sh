#!/usr/bin/env bash
# The virtual Pi: the box installed by systemd/install.sh and started by a real systemd with its
# real sandbox, in a Debian bookworm guest under qemu (TCG), playing through real device nodes
# (a USB keyboard reader, the die puck's firmware on a USB serial port, an HDA speaker), with the
# family's page (install.sh --home) used from Chromium on the host through qemu's port forward.
#
#   sudo systemd/test-vm.sh [--arch amd64|arm64] [--keep] [--cache DIR] [--first-install]
#
# Needs root, qemu-system-x86 (arm64: qemu-system-arm, qemu-user-static, binfmt-support, arch-test),
# mmdebstrap, e2fsprogs, socat, mosquitto, chromium and Debian's mirror and PyPI for the first image;
# the images are kept in /var/cache/gamebox-vm by a content key, so a second run boots at once.
# The project's .venv with the [test] extra (MicroPython, numpy, Playwright) is made when missing.
# Prints one line per check and ends with "N passed, M failed"; exits 1 when a check failed, and 77 with
# one line saying why when this machine cannot run it (a tool missing, no image, a guest that does not boot).
# Not part of the pytest suite.
set -euo pipefail
[ "$(id -u)" -eq 0 ] || { echo "test-vm.sh: run as root: sudo $0 $*" >&2; exit 1; }
src=$(cd "$(dirname "$0")/.." && pwd)
arch=amd64
for ((i = 1; i <= $#; i++)); do
    [ "${!i}" = --arch ] && { j=$((i + 1)); arch=${!j}; }
done
case "$arch" in
    amd64) qemu="qemu-system-x86_64" ;;
    arm64) qemu="qemu-system-aarch64" ;;
    *) echo "test-vm.sh: --arch is amd64 or arm64, not $arch" >&2; exit 1 ;;
esac
for tool in "$qemu" mmdebstrap mkfs.ext4 socat mosquitto git chromium; do
    command -v "$tool" >/dev/null || { echo "test-vm: cannot run here: $tool is not installed"; exit 77; }
done
if [ "$arch" = arm64 ] && [ "$(uname -m)" != aarch64 ]; then
    [ -e /proc/sys/fs/binfmt_misc/register ] || mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc
    [ -e /proc/sys/fs/binfmt_misc/qemu-aarch64 ] || update-binfmts --enable qemu-aarch64
fi
if [ ! -x "$src/.venv/bin/micropython" ]; then
    python3 -m venv "$src/.venv" && "$src/.venv/bin/pip" install -q -e "${src}[test]"
fi
exec "$src/.venv/bin/python" "$src/systemd/vm/run.py" "$@"
