"""``python -m hardware.enclosure -o DIR``: the box and the puck to print, from a profile.

Writes DIR/box-params.scad (the profile's numbers for hardware/enclosure/box.scad)
and renders DIR/lid.stl, base.stl, puck-top.stl and puck-base.stl with OpenSCAD;
``--pictures DIR`` also draws PNG views of them (docs/enclosure/ holds the reference's).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from hardware.enclosure.layout import LayoutError, Parts
from hardware.enclosure.render import EnclosureError, build, pictures
from hardware.enclosure.stl import bounds, read_stl
from hardware.profile import ProfileError, load_profile

BED = 220  # mm: the print bed most home printers have


def _millimetres(text: str) -> float:
    value = float(text)
    if not 10 <= value <= 100:
        raise argparse.ArgumentTypeError(f"{text} mm: a button's hole is 10-100 mm")
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m hardware.enclosure", description=__doc__.splitlines()[0])
    parser.add_argument("-o", "--out", type=Path, required=True, metavar="DIR", help="where the STL files go")
    parser.add_argument("--profile", default="pi-reference", help="hardware profile name or TOML file (default pi-reference)")
    parser.add_argument("--pixels-per-metre", type=int, default=Parts.pixels_per_metre, choices=(30, 60, 96, 144),
                        help="the LED strip's density (default 60: a pixel every 16.7 mm)")
    parser.add_argument("--button-hole", type=_millimetres, default=Parts.button_hole, metavar="MM",
                        help="the die button's mounting hole (default 60)")
    parser.add_argument("--fn", type=int, default=64, help="segments in a full circle (default 64; 16 renders faster)")
    parser.add_argument("--pictures", type=Path, metavar="DIR", help="also draw PNG views of the parts into DIR")
    args = parser.parse_args(argv)
    parts = Parts(pixels_per_metre=args.pixels_per_metre, button_hole=args.button_hole)
    try:
        built = build(load_profile(args.profile), args.out, parts, fn=max(args.fn, 8))
        drawn = pictures(built.params, args.pictures) if args.pictures else []
    except (ProfileError, LayoutError, EnclosureError, OSError) as error:
        print(f"hardware.enclosure: {error}", file=sys.stderr)
        return 2
    layout = built.layout
    print(f"{built.params}: the box for {args.profile}, {layout.width:.0f} x {layout.depth:.0f} mm")
    if max(layout.width, layout.depth) > BED:
        print(f"  (larger than a {BED} x {BED} mm print bed)")
    for run in layout.runs.values():
        print(f"  {run.name}: {run.pixels} pixels in {len(run.legs)} pieces of {', '.join(str(leg.pixels) for leg in run.legs)}")
    for name, path in built.stls.items():
        x, y, z = bounds(read_stl(path)).size
        print(f"{path}: {name}, {x:.1f} x {y:.1f} x {z:.1f} mm")
    for path in drawn:
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
