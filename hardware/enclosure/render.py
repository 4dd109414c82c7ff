"""Rendering the enclosure's parts with OpenSCAD: STL files to print, PNG pictures to look at.

OpenSCAD is Debian's ``openscad``; every part renders in about a second at
the default smoothness. Pictures need an OpenGL screen: without ``DISPLAY``
they are drawn on a virtual one (``xvfb-run``, Debian's ``xvfb``).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from hardware.enclosure.layout import Layout, Parts, lay_out
from hardware.enclosure.params import PUCK, box_parameters
from hardware.profile import Profile

PARAMS = "box-params.scad"
#: Each part to print, by its file's name: (the model it comes from, the model's name for it).
PARTS = {"lid": ("box", "lid"), "base": ("box", "base"), "puck-top": ("puck", "top"), "puck-base": ("puck", "base")}
TIMEOUT = 300  # seconds: a part takes one or two at the default smoothness


class EnclosureError(RuntimeError):
    """A render that could not be made; ``str()`` says why, in one line."""


@dataclass(frozen=True)
class Built:
    """What :func:`build` made: the layout, its parameter file and each part's STL."""

    layout: Layout
    params: Path
    stls: dict[str, Path]


def openscad() -> str:
    """The ``openscad`` program, or why there is none."""
    found = shutil.which("openscad")
    if found is None:
        raise EnclosureError("openscad is not installed: `sudo apt-get install openscad` (Debian's package)")
    return found


def render(scad: Path, out: Path, defines: dict[str, str], picture: tuple[int, int] | None = None) -> Path:
    """Render ``scad`` into ``out``, raising with OpenSCAD's first complaint when nothing was made.

    ``defines`` are OpenSCAD expressions, given as text; ``picture`` is a PNG's
    (width, height): the whole model in view, in colour.
    """
    command = [openscad(), "-q", "-o", str(out)]
    for name, value in defines.items():
        command += ["-D", f"{name}={value}"]
    if picture:
        command += [f"--imgsize={picture[0]},{picture[1]}", "--viewall", "--autocenter", "--colorscheme=Tomorrow"]
        if not os.environ.get("DISPLAY"):
            xvfb = shutil.which("xvfb-run")
            if xvfb is None:
                raise EnclosureError("pictures need a screen: set DISPLAY, or `sudo apt-get install xvfb` for xvfb-run")
            command = [xvfb, "-a", *command]
    out.unlink(missing_ok=True)
    try:
        done = subprocess.run([*command, str(scad)], capture_output=True, text=True, timeout=TIMEOUT, check=False)
    except subprocess.TimeoutExpired:
        raise EnclosureError(f"{out.name}: openscad took more than {TIMEOUT} s") from None
    if done.returncode != 0 or not out.is_file():
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        reason = next((line for line in lines if "ERROR" in line), lines[-1] if lines else f"exit {done.returncode}")
        raise EnclosureError(f"{out.name}: openscad: {reason.strip()}")
    return out


def write_params(profile: Profile, out_dir: Path, parts: Parts = Parts()) -> tuple[Layout, Path]:
    """Lay out the lid for ``profile`` and write ``box-params.scad`` into ``out_dir``."""
    layout = lay_out(profile, parts)
    out_dir.mkdir(parents=True, exist_ok=True)
    params = out_dir / PARAMS
    params.write_text(box_parameters(layout, profile.source or profile.name or "a profile"), encoding="utf-8")
    return layout, params


def build(profile: Profile, out_dir: Path, parts: Parts = Parts(), fn: int = 64) -> Built:
    """The parameter file and every part's STL, in ``out_dir``."""
    layout, params = write_params(profile, out_dir, parts)
    puck = {"button_hole": str(parts.button_hole)}
    stls: dict[str, Path] = {}
    for name, (model, part) in PARTS.items():
        scad = params if model == "box" else PUCK
        defines = {"part": f'"{part}"', "$fn": str(fn), **(puck if model == "puck" else {})}
        stls[name] = render(scad, out_dir / f"{name}.stl", defines)
    return Built(layout, params, stls)


# -- pictures ----------------------------------------------------------------------------------
_VIEWS = {
    # name: (model, what it draws)
    "box": ("box", 'color("burlywood") render() base(); color("ivory") render() lid(); '
            'color("orange") strips(base_height + lid_thickness, 0.1);'),  # the runs as they glow through the lid
    "box-open": ("box", 'color("burlywood") render() base(); '
                 'translate([box_width + 20, box_depth, base_height + lid_thickness]) rotate([180, 0, 0]) '
                 '{ color("ivory") render() lid(); color("orange") translate([0, 0, -0.05]) strips(); }'),
    "puck": ("puck", 'color("burlywood") render() base(); color("ivory") render() top();'),
    "puck-open": ("puck", 'color("burlywood") render() base(); '
                  'translate([0, -20, puck_height + top_thickness]) rotate([180, 0, 0]) color("ivory") render() top();'),
}


def pictures(params: Path, out_dir: Path, size: tuple[int, int] = (900, 675), fn: int = 64) -> list[Path]:
    """Colour views of the box and the puck (PNG), drawn from ``params`` into ``out_dir``."""
    out_dir.mkdir(parents=True, exist_ok=True)
    made: list[Path] = []
    for name, (model, body) in _VIEWS.items():
        source = params.resolve() if model == "box" else PUCK
        view = params.parent / f"view-{name}.scad"
        view.write_text(f'include <{source}>\npart = "none";\n$fn = {fn};\n{body}\n', encoding="utf-8")
        out = out_dir / f"{name}.png"
        render(view, out, {}, picture=size)
        made.append(out)
    return made
