"""What `pip install '.[pi]'` would have to compile on a Raspberry Pi (64-bit Raspberry Pi OS bookworm).

Resolves the ``[pi]`` extra's whole dependency tree here, then asks the
package index, for each resolved version, whether a wheel exists for the
Pi (aarch64, CPython 3.11, glibc 2.36). What has none builds from source,
so the installer must bring a compiler and the Python headers. Needs the
network; offline it says so and exits 2. Run it with
``.venv/bin/python -m tests.hardware.pi_wheels``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import tomllib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
# pip takes a --platform literally: every manylinux tag that glibc 2.36 runs is named.
PLATFORMS = [f"manylinux_2_{minor}_aarch64" for minor in range(17, 37)] + ["manylinux2014_aarch64", "linux_aarch64"]
PI = [option for platform in PLATFORMS for option in ("--platform", platform)]
PI += ["--python-version", "3.11", "--implementation", "cp", "--abi", "cp311", "--abi", "abi3", "--abi", "none"]
PI += ["--only-binary=:all:"]


def pip(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pip", "--disable-pip-version-check", *args]
    return subprocess.run(command, capture_output=True, text=True, timeout=300)


def resolved() -> list[str]:
    """``name==version`` of everything ``.[pi]`` installs, as resolved for Linux here."""
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["pi"]
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "report.json"
        result = pip("install", "--dry-run", "--ignore-installed", "--quiet", "--report", str(report), *extra)
        if result.returncode != 0:
            raise OSError(result.stderr.strip().splitlines()[-1])
        installs = json.loads(report.read_text())["install"]
    return sorted(f"{item['metadata']['name']}=={item['metadata']['version']}" for item in installs)


def has_pi_wheel(requirement: str) -> bool:
    with tempfile.TemporaryDirectory() as folder:
        return pip("download", "--quiet", "--no-deps", "--dest", folder, *PI, requirement).returncode == 0


def to_compile() -> list[str]:
    """The resolved requirements with no wheel for a Pi."""
    requirements = resolved()
    with ThreadPoolExecutor(8) as pool:
        wheels = list(pool.map(has_pi_wheel, requirements))
    return [requirement for requirement, wheel in zip(requirements, wheels, strict=True) if not wheel]


def main() -> int:
    try:
        needed = to_compile()
    except (OSError, subprocess.TimeoutExpired) as error:
        print(f"cannot reach the package index: {error}")
        return 2
    print("builds from source on a Pi (aarch64, CPython 3.11):", ", ".join(needed) or "nothing")
    return 0


if __name__ == "__main__":
    sys.exit(main())
