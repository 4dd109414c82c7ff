"""The virtual Pi's disk: a Debian bookworm system made once with mmdebstrap and kept by a content key.

Three layers, each cached under the cache folder by a key of what made it, so
a second run starts in seconds and a change rebuilds only what it touches:

* the base root (mmdebstrap tarball): the architecture and the package list;
* the wheelhouse: every wheel ``pip install -e '.[pi]'`` needs, built in that
  root (so for the guest's own Python, glibc and architecture: qemu-user runs
  an arm64 root's compiler), keyed by those requirements too. The guest's pip
  reads only this folder (/etc/pip.conf), so the installer runs offline;
* the disk image (ext4, raw): the base, the wheelhouse and the test's own
  setup (the control line's agent, networking, the serial console); unless
  the run asks for a first install, also the service's virtualenv with those
  requirements installed from the wheelhouse, as an earlier install.sh left it
  (:data:`SEEDED_VENV`): emulated, making that venv and installing every wheel
  takes the guest 3 to 5 minutes, the slowest part of a run, so a cached run
  has ``install.sh`` bring that venv up to date (pip installs the project).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
SUITE = "bookworm"
# What systemd/install.sh installs, so it finds nothing to fetch; then a booting system, and the kernel.
PACKAGES = [
    "python3", "python3-venv", "python3-dev", "gcc", "libc6-dev", "rsync", "libasound2", "polkitd",
    "systemd-sysv", "udev", "kmod", "dbus", "initramfs-tools", "ca-certificates", "iproute2", "procps",
    "e2fsprogs",
]
KERNEL = {"amd64": "linux-image-amd64", "arm64": "linux-image-arm64"}
WHEELS = "/var/cache/gamebox-wheels"
SEEDED_VENV = "/opt/gamebox/.venv"  # systemd/install.sh's $VENV
DISK_SIZE = "4G"


@dataclass(frozen=True)
class Image:
    disk: Path
    kernel: Path
    initrd: Path


def key(*parts: bytes | str) -> str:
    digest = hashlib.sha256()
    for part in parts:
        digest.update(part if isinstance(part, bytes) else part.encode())
        digest.update(b"\0")
    return digest.hexdigest()[:16]


def run(*command: str, **kwargs) -> None:
    subprocess.run(command, check=True, **kwargs)


def base(cache: Path, arch: str, say) -> Path:
    """The mmdebstrap tarball of a bookworm system for ``arch``."""
    packages = sorted(PACKAGES + [KERNEL[arch]])
    tarball = cache / f"base-{arch}-{key(SUITE, arch, *packages)}.tar"
    if not tarball.exists():
        say(f"building the {arch} base system with mmdebstrap (a few minutes, once)")
        partial = tarball.with_suffix(".partial.tar")
        run("mmdebstrap", "--quiet", "--variant=minbase", f"--arch={arch}", f"--include={','.join(packages)}",
            SUITE, str(partial))
        partial.rename(tarball)
    return tarball


class Chroot:
    """The base unpacked in a temporary folder, with /proc, /dev and the host's name service and certificates."""

    def __init__(self, tarball: Path) -> None:
        self.dir = Path(tempfile.mkdtemp(prefix="gamebox-vm-root.", dir="/var/tmp"))
        run("tar", "-C", str(self.dir), "-xf", str(tarball))
        self._mounts: list[Path] = []

    def __enter__(self) -> Chroot:
        return self

    def __exit__(self, *_exc) -> None:
        self.unmount()
        shutil.rmtree(self.dir, ignore_errors=True)

    def mount_for_build(self, network: bool = True) -> None:
        """/proc and /dev for what runs inside; with ``network``, the host's name service and certificates too."""
        for what, where, options in (("proc", "proc", ["-t", "proc"]), ("/dev", "dev", ["--rbind"])):
            target = self.dir / where
            run("mount", *options, what, str(target))
            self._mounts.append(target)
        if not network:
            return
        shutil.copy("/etc/resolv.conf", self.dir / "etc/resolv.conf")
        shutil.copy("/etc/ssl/certs/ca-certificates.crt", self.dir / "etc/ssl/certs/ca-certificates.crt")

    def unmount(self) -> None:
        for target in reversed(self._mounts):
            subprocess.run(["umount", "-R", "-l", str(target)], check=False)
        self._mounts.clear()

    def run(self, command: str) -> None:
        env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "HOME": "/root", "LANG": "C.UTF-8",
               "PIP_CERT": "/etc/ssl/certs/ca-certificates.crt", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}
        run("chroot", str(self.dir), "/bin/sh", "-ec", command, env=env)


def requirements() -> list[str]:
    """What ``pip install -e '.[pi]'`` installs besides the project itself."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    return [*project["dependencies"], *project["optional-dependencies"]["pi"]]


def wheelhouse(cache: Path, arch: str, tarball: Path, say) -> Path:
    """Every wheel the project's Pi install needs, built in the guest's own system; built again only when what the
    install asks for changes (a new test tool does not rebuild it: under qemu-user that takes half an hour)."""
    wanted = "\n".join(["setuptools>=68", "wheel", *requirements()])
    folder = cache / f"wheels-{arch}-{key(tarball.name, wanted)}"
    if folder.exists():
        return folder
    say(f"building the {arch} wheelhouse in the guest's system (compiles RPi.GPIO, spidev, evdev; once)")
    with Chroot(tarball) as root:
        root.mount_for_build()
        (root.dir / "tmp/requirements.txt").write_text(wanted + "\n")
        root.run("python3 -m venv /tmp/venv && /tmp/venv/bin/pip install -q 'pip>=24' && "
                 "/tmp/venv/bin/pip wheel -q -w /tmp/wheels -r /tmp/requirements.txt")
        partial = folder.with_suffix(".partial")
        shutil.rmtree(partial, ignore_errors=True)
        shutil.copytree(root.dir / "tmp/wheels", partial)
    partial.rename(folder)
    return folder


GUEST_FILES = {
    "etc/hostname": "gamebox-vm\n",
    "etc/hosts": "127.0.0.1 localhost\n127.0.1.1 gamebox-vm\n",
    "etc/fstab": "/dev/vda / ext4 rw,errors=remount-ro 0 1\n",
    "etc/pip.conf": f"[global]\nno-index = true\nfind-links = {WHEELS}\n",
    "etc/systemd/network/10-wired.network": "[Match]\nName=en* eth*\n\n[Network]\nDHCP=ipv4\n",
    "etc/systemd/system/vm-agent.service": (
        "[Unit]\nDescription=the virtual Pi test's control line\nBindsTo=dev-hvc0.device\nAfter=dev-hvc0.device\n\n"
        "[Service]\nExecStart=/usr/bin/python3 /usr/local/lib/vm-agent.py /dev/hvc0\nRestart=always\nRestartSec=1\n\n"
        "[Install]\nWantedBy=multi-user.target\n"),
    # Raspberry Pi OS has these groups; install.sh gives the service user those its profile needs.
    "usr/local/lib/vm-groups": "gpio spi i2c\n",
}


# Run in the root once its files are in: journald keeps each boot's log (a failed run can be read after),
# the control line and the network start at boot, the Pi's groups exist, a user owns the clone.
SETUP = ("mkdir -p /var/log/journal; systemctl enable vm-agent.service systemd-networkd.service >/dev/null 2>&1; "
         "for g in $(cat /usr/local/lib/vm-groups); do getent group $g >/dev/null || groupadd --system $g; done; "
         "useradd --create-home builder; passwd -d root >/dev/null")


def seed_venv(root: Chroot) -> None:
    """The service's venv as install.sh makes it (``python3 -m venv`` as root), with the requirements installed by
    the guest's own pip from the wheelhouse: what a box that was installed before holds."""
    (root.dir / "tmp/requirements.txt").write_text("\n".join(requirements()) + "\n")
    root.mount_for_build(network=False)  # the wheelhouse only (/etc/pip.conf)
    root.run(f"install -d -m 755 {Path(SEEDED_VENV).parent} && python3 -m venv {SEEDED_VENV} && "
             f"{SEEDED_VENV}/bin/pip install -q --no-cache-dir -r /tmp/requirements.txt && rm /tmp/requirements.txt")
    root.unmount()


def disk(cache: Path, arch: str, say, first_install: bool = False) -> Image:
    """The pristine disk image (never booted: each run boots a copy), its kernel and initrd; with the service's
    venv seeded unless ``first_install``."""
    tarball = base(cache, arch, say)
    wheels = wheelhouse(cache, arch, tarball, say)
    agent = (HERE / "agent.py").read_bytes()
    recipe = repr(sorted(GUEST_FILES.items())).encode()
    seeded = "" if first_install else SEEDED_VENV
    folder = cache / f"disk-{arch}-{key(tarball.name, wheels.name, agent, recipe, SETUP, DISK_SIZE, seeded)}"
    if not folder.exists():
        say(f"making the {arch} disk image{'' if first_install else ' (the service venv seeded from the wheels)'}")
        partial = folder.with_suffix(".partial")
        shutil.rmtree(partial, ignore_errors=True)
        partial.mkdir(parents=True)
        with Chroot(tarball) as root:
            for name, text in GUEST_FILES.items():
                path = root.dir / name
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_text(text)
            shutil.copy(HERE / "agent.py", root.dir / "usr/local/lib/vm-agent.py")
            shutil.copytree(wheels, root.dir / WHEELS.lstrip("/"))
            root.run(SETUP)
            if not first_install:
                seed_venv(root)
            boot = root.dir / "boot"
            kernel = max(boot.glob("vmlinuz-*"))
            initrd = max(boot.glob("initrd.img-*"))
            shutil.copy(kernel, partial / "vmlinuz")
            shutil.copy(initrd, partial / "initrd.img")
            run("mkfs.ext4", "-q", "-F", "-L", "root", "-d", str(root.dir), str(partial / "disk.raw"), DISK_SIZE,
                stdout=subprocess.DEVNULL)
        partial.rename(folder)
    return Image(folder / "disk.raw", folder / "vmlinuz", folder / "initrd.img")


def source_disk(where: Path) -> Path:
    """The project as a clone has it (tracked and new files, nothing ignored), on a small ext4 disk of its own."""
    tree = where / "src"
    listed = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z", "-co", "--exclude-standard"],
                            check=True, capture_output=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file() or source.is_symlink():
            target = tree / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target, follow_symlinks=False)
    image = where / "src.raw"
    size = sum(f.stat().st_size for f in tree.rglob("*") if f.is_file()) * 2 + (64 << 20)
    run("mkfs.ext4", "-q", "-F", "-L", "gamebox", "-d", str(tree), str(image), f"{size >> 20}M",
        stdout=subprocess.DEVNULL)
    return image


def working_copy(image: Image, where: Path) -> Path:
    """A copy of the pristine disk for one run (sparse: a few seconds)."""
    copy = where / "disk.raw"
    run("cp", "--sparse=always", str(image.disk), str(copy))
    os.chmod(copy, 0o600)
    return copy
