"""The parameter file for ``box.scad``: the model's numbers, from a profile's layout.

The file includes ``box.scad`` and then sets its variables, so it renders
(and opens in OpenSCAD's window) on its own; OpenSCAD keeps a variable's last
value, so these win over the model's own defaults.
"""

from __future__ import annotations

from pathlib import Path

from hardware.enclosure.layout import Layout, Run

MODEL_DIR = Path(__file__).parent
BOX = MODEL_DIR / "box.scad"
PUCK = MODEL_DIR / "puck.scad"


def _number(value: float) -> str:
    return f"{value:.4f}".rstrip("0").rstrip(".")


def _vector(values: tuple[float, ...] | list[float]) -> str:
    return "[" + ", ".join(_number(v) for v in values) + "]"


def _run(variable: str, run: Run) -> list[str]:
    legs = ", ".join(_vector((leg.x, leg.y, leg.angle, leg.pixels)) for leg in run.legs)
    corners = ", ".join(_vector(corner) for corner in run.corners)
    return [
        f"{variable}_legs = [{legs}];",
        f"{variable}_corners = [{corners}];",
        f"{variable}_closed = {'true' if run.closed else 'false'};",
    ]


def box_parameters(layout: Layout, source: str) -> str:
    """The text of ``box-params.scad`` for this layout; ``source`` names the profile it came from."""
    parts = layout.parts
    lines = [
        f"// The box for {source}, written by `python -m hardware.enclosure`: edit the profile, not this file.",
        f"include <{BOX.resolve()}>",
        "",
        f"box_width = {_number(layout.width)};",
        f"box_depth = {_number(layout.depth)};",
        f"wall = {_number(parts.wall)};",
        f"fit = {_number(parts.fit)};",
        f"lip = {_number(parts.lip)};",
        f"pitch = 1000 / {parts.pixels_per_metre};  // mm from pixel to pixel: {parts.pixels_per_metre} pixels per metre",
        f"strip_width = {_number(parts.strip_width)};",
        f"channel = {_number(parts.channel)};",
        f"rib = {_number(parts.rib)};",
    ]
    for name, run in layout.runs.items():
        lines += [f"// {name}: {run.pixels} pixels"] + _run(name.replace("-", "_"), run)
    lines += [
        f"reader_at = {_vector(layout.reader)};",
        f"reader_size = {_vector(parts.reader)};",
        f"reader_gap = {_number(parts.reader_gap)};",
        f"button_at = {_vector(layout.button)};",
        f"button_hole = {_number(parts.button_hole)};",
        f"speaker_at = {_vector(layout.speaker)};",
        f"speaker = {_number(parts.speaker)};",
        f"pi_at = {_vector(layout.pi)};",
        f"pi_size = {_vector(parts.pi)};",
        f"pi_holes = {_vector(parts.pi_holes)};",
    ]
    return "\n".join(lines) + "\n"
