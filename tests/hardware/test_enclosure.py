"""The box and the puck to print: every part renders, and the parts fit what goes in them.

Each part is rendered by the real ``openscad`` (Debian's package) at low
smoothness; the fits are checked the way a printed part would be tried: a
probe shaped like the bought part (a cut piece of strip, an M2.5 screw, the
lid shifted on the base) is intersected with the part by OpenSCAD, and either
fits (nothing in common) or does not. The STL files are measured with
:mod:`hardware.enclosure.stl`.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from pathlib import Path

import pytest

from hardware.enclosure import __main__ as command
from hardware.enclosure.layout import Layout, LayoutError, Parts, lay_out, ring, rows
from hardware.enclosure.params import BOX, PUCK, box_parameters
from hardware.enclosure.render import Built, build, pictures
from hardware.enclosure.stl import Box, StlError, bounds, pieces, read_stl
from hardware.profile import load_profile

needs_openscad = pytest.mark.skipif(shutil.which("openscad") is None, reason="openscad is not installed (Debian's openscad)")

PITCH = 1000 / 60  # the parts list's strip: 60 pixels a metre
FN = 16  # segments per circle: fast renders, and every probe's polygon lines up with the part's
BASE_HEIGHT, LID, LIP = 64, 2, 6  # box.scad's base_height, lid_thickness, lip_height
PUCK_HEIGHT, PUCK_TOP = 48, 2  # puck.scad's puck_height, top_thickness


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    if shutil.which("openscad") is None:
        pytest.skip("openscad is not installed (Debian's openscad)")
    return build(load_profile("pi-reference"), tmp_path_factory.mktemp("enclosure"), fn=FN)


def probe(model: Path, body: str, tmp_path: Path) -> list[Box]:
    """The solid pieces ``body`` makes in ``model``'s world (its modules, not its parts): none when empty."""
    scad, out = tmp_path / "probe.scad", tmp_path / "probe.stl"
    scad.write_text(f'include <{model.resolve()}>\npart = "none";\n$fn = {FN};\n{body}\n', encoding="utf-8")
    out.unlink(missing_ok=True)
    done = subprocess.run(["openscad", "-o", str(out), str(scad)], capture_output=True, text=True, timeout=120, check=False)
    if "Current top level object is empty" in done.stderr:
        return []
    assert done.returncode == 0 and out.is_file(), done.stderr
    return [piece for piece in pieces(read_stl(out)) if min(piece.size) > 0.001]  # touching is not overlapping


def strip_pieces(layout: Layout, longer: float = 0) -> str:
    """Every cut piece of strip as bought (its pixels times the pitch, 10 mm wide), lying under the lid."""
    width = layout.parts.strip_width
    cubes = []
    for run in layout.runs.values():
        for leg in run.legs:
            length = leg.pixels * PITCH + longer
            cubes.append(
                f"translate([{leg.x}, {leg.y}, {BASE_HEIGHT - 1.6}]) rotate({leg.angle}) "
                f"translate([0, {-width / 2}, 0]) cube([{length}, {width}, 1.55]);"
            )
    return "\n".join(cubes)


# -- the runs, from the profile --------------------------------------------------------------------
def test_each_run_has_the_profiles_pixels_in_whole_pieces() -> None:
    profile = load_profile("pi-reference")
    layout = lay_out(profile)
    for name in ("sea-route", "police-track", "turn-ring"):
        run = layout.runs[name]
        assert run.pixels == profile.leds.segments[name].count
        assert all(leg.pixels >= 1 for leg in run.legs)
    assert [leg.pixels for leg in layout.runs["sea-route"].legs] == [11, 2, 11]
    assert layout.runs["turn-ring"].closed and [leg.pixels for leg in layout.runs["turn-ring"].legs] == [3, 3, 3, 3]


def test_a_ring_whose_sides_cannot_match_is_left_open_at_its_start_cell() -> None:
    parts = Parts()
    for pixels in range(4, 30):
        loop = ring("turn-ring", pixels, parts)
        assert loop.pixels == pixels and len(loop.corners) == 4
        assert loop.closed == (pixels % 2 == 0)
        sides = [leg.pixels for leg in loop.legs]
        assert sides[0] == sides[2] and sides[3] <= sides[1]  # the last side never runs into the first


def test_rows_use_every_pixel_in_the_fewest_rows() -> None:
    assert rows(24, 11) == (2, 11, 2)
    assert rows(5, 11) == (1, 5, 0)
    for pixels in range(1, 120):
        count, per_row, turn = rows(pixels, 11)
        assert count * per_row + (count - 1) * turn == pixels and per_row <= 11


def test_a_profile_without_the_three_runs_is_refused_with_the_reason(tmp_path: Path) -> None:
    text = (Path(load_profile("sim").source)).read_text(encoding="utf-8")
    text = text.replace("[leds.segments.turn-ring]", "[leds.segments.spare]")
    (tmp_path / "no-ring.toml").write_text(text, encoding="utf-8")
    with pytest.raises(LayoutError, match="no turn-ring"):
        lay_out(load_profile(tmp_path / "no-ring.toml"))


def test_a_ring_too_small_for_the_reader_is_refused(tmp_path: Path) -> None:
    text = (Path(load_profile("sim").source)).read_text(encoding="utf-8")
    text = text.replace("start = 48\ncount = 12", "start = 48\ncount = 8")
    (tmp_path / "small-ring.toml").write_text(text, encoding="utf-8")
    with pytest.raises(LayoutError, match="too small for the 43 x 41 mm reader"):
        lay_out(load_profile(tmp_path / "small-ring.toml"))


def test_the_model_opened_alone_is_the_reference_box() -> None:
    """box.scad's own numbers are what the reference profile gives, so OpenSCAD's window shows that box."""
    model = BOX.read_text(encoding="utf-8")
    written = box_parameters(lay_out(load_profile("pi-reference")), "pi-reference")
    settings = [line.split("//")[0].strip() for line in written.splitlines() if " = " in line and not line.startswith("//")]
    missing = [line for line in settings if not any(l.startswith(line) for l in model.splitlines())]
    assert not missing, f"box.scad's defaults differ from pi-reference's: {missing}"


# -- the parts, rendered ---------------------------------------------------------------------------
@needs_openscad
def test_every_part_renders_and_the_lid_covers_the_base(built: Built) -> None:
    size = {name: bounds(read_stl(path)).size for name, path in built.stls.items()}
    assert size["lid"][:2] == pytest.approx(size["base"][:2], abs=0.01)
    assert size["lid"][:2] == pytest.approx((built.layout.width, built.layout.depth), abs=0.01)
    assert size["lid"][2] == pytest.approx(LID + LIP, abs=0.01)
    assert size["base"][2] == pytest.approx(BASE_HEIGHT, abs=0.01)
    assert size["puck-top"][:2] == pytest.approx(size["puck-base"][:2], abs=0.01)
    assert max(size["lid"][:2]) <= 220, "the box no longer fits a 220 x 220 mm print bed"


@needs_openscad
def test_each_piece_of_strip_fits_its_channel_and_one_pixel_more_does_not(built: Built, tmp_path: Path) -> None:
    layout = built.layout
    assert probe(built.params, f"intersection() {{ lid(); union() {{ {strip_pieces(layout)} }} }}", tmp_path) == []
    pitch = PITCH
    longer = probe(built.params, f"intersection() {{ lid(); union() {{ {strip_pieces(layout, pitch)} }} }}", tmp_path)
    directions = {0: (1, 0), 90: (0, 1), 180: (-1, 0), 270: (0, -1)}
    for run in layout.runs.values():
        for leg in run.legs:  # where the extra pixel would lie, past the piece's end
            dx, dy = directions[leg.angle]
            end = leg.pixels * pitch
            xs = sorted((leg.x + dx * end - dy * 5, leg.x + dx * (end + pitch) + dy * 5))
            ys = sorted((leg.y + dy * end - dx * 5, leg.y + dy * (end + pitch) + dx * 5))
            blocked = [p for p in longer if xs[0] <= p.centre[0] <= xs[1] and ys[0] <= p.centre[1] <= ys[1]]
            assert blocked, f"{run.name}: the channel of the piece at ({leg.x:.1f}, {leg.y:.1f}) holds more than {leg.pixels} pixels"


@needs_openscad
def test_the_pi_posts_stand_58_by_49_mm_apart_and_an_m2_5_screw_cuts_its_thread_in_each(built: Built, tmp_path: Path) -> None:
    inside = "translate([0, 0, 3.4]) linear_extrude(2) outline(wall + 0.5)"  # a slice through the posts, not the walls
    posts = probe(built.params, f"intersection() {{ base(); {inside}; }}", tmp_path)
    assert len(posts) == 4
    xs = sorted({round(post.centre[0], 2) for post in posts})
    ys = sorted({round(post.centre[1], 2) for post in posts})
    assert len(xs) == 2 and xs[1] - xs[0] == pytest.approx(58, abs=0.02)
    assert len(ys) == 2 and ys[1] - ys[0] == pytest.approx(49, abs=0.02)

    def screws(diameter: float) -> str:  # down through the board into the posts, above the floor
        return "union() {" + "".join(
            f"translate([{x}, {y}, 2.41]) cylinder(d = {diameter}, h = 20);" for x in xs for y in ys
        ) + "}"

    assert probe(built.params, f"intersection() {{ base(); {screws(2.0)} }}", tmp_path) == [], "no hole for a screw"
    assert len(probe(built.params, f"intersection() {{ base(); {screws(2.5)} }}", tmp_path)) == 4, "an M2.5 screw finds nothing to cut its thread in"
    pi_x, pi_y = built.layout.pi
    board = Box((pi_x, pi_y, 0), (pi_x + 85, pi_y + 56, 0))
    assert all(board.low[0] < x < board.high[0] for x in xs) and all(board.low[1] < y < board.high[1] for y in ys)
    # The Pi on its posts, sockets and all (20 mm tall, its USB and Ethernet 3 mm past the board's edge):
    # clear of the walls, and of everything under the lid.
    pi = f"translate([{pi_x - 3}, {pi_y}, {2.4 + 5}]) cube([88, 56, 20])"
    assert probe(built.params, f"intersection() {{ union() {{ base(); lid(); }} {pi}; }}", tmp_path) == []


@needs_openscad
def test_the_button_hole_is_60_mm(built: Built, tmp_path: Path) -> None:
    x, y = built.layout.button

    def button(diameter: float) -> str:
        return f"intersection() {{ lid(); translate([{x}, {y}, 0]) cylinder(d = {diameter}, h = 100); }}"

    assert probe(built.params, button(59.8), tmp_path) == []
    assert probe(built.params, button(60.4), tmp_path) != []


@needs_openscad
def test_the_lid_goes_on_the_base_and_does_not_slide_off(built: Built, tmp_path: Path) -> None:
    assert probe(built.params, "intersection() { translate([0, 0, 0.01]) lid(); base(); }", tmp_path) == []
    for dx, dy in ((0.7, 0), (-0.7, 0), (0, 0.7), (0, -0.7)):  # resting on the rim, pushed sideways
        shifted = f"intersection() {{ translate([{dx}, {dy}, 0.01]) lid(); base(); }}"
        assert probe(built.params, shifted, tmp_path) != [], f"the lid slides {dx, dy} mm on the base"


# -- the puck --------------------------------------------------------------------------------------
@needs_openscad
def test_the_pico_posts_stand_47_by_11_4_mm_apart_and_take_m2_screws(tmp_path: Path) -> None:
    posts = probe(PUCK, "intersection() { base(); translate([pico_at[0] - 1, pico_at[1] - 1, 3.4]) "
                        "cube([pico_size[0] + 2, pico_size[1] + 2, 2]); }", tmp_path)
    assert len(posts) == 4
    xs = sorted({round(post.centre[0], 2) for post in posts})
    ys = sorted({round(post.centre[1], 2) for post in posts})
    assert xs[1] - xs[0] == pytest.approx(47, abs=0.02) and ys[1] - ys[0] == pytest.approx(11.4, abs=0.02)
    screws = "".join(f"translate([{x}, {y}, 2.41]) cylinder(d = 2, h = 10);" for x in xs for y in ys)  # M2
    assert len(probe(PUCK, f"intersection() {{ base(); union() {{ {screws} }} }}", tmp_path)) == 4
    pilots = screws.replace("d = 2,", "d = 1.5,")
    assert probe(PUCK, f"intersection() {{ base(); union() {{ {pilots} }} }}", tmp_path) == []


@needs_openscad
def test_the_puck_top_holds_the_button_and_the_ring_and_goes_on_its_base(tmp_path: Path) -> None:
    assert probe(PUCK, "intersection() { translate([0, 0, 0.01]) top(); base(); }", tmp_path) == []
    assert probe(PUCK, "intersection() { translate([0.7, 0, 0.01]) top(); base(); }", tmp_path) != []
    assert probe(PUCK, "intersection() { top(); translate(button_at) cylinder(d = 59.8, h = 100); }", tmp_path) == []

    def ring(outer: float, raised: float = 0) -> str:  # a 12-pixel ring board, 1.6 mm thick, pressed up under the window
        z = PUCK_HEIGHT + PUCK_TOP - 0.8 - 1.6 - 0.05 + raised
        return (f"intersection() {{ top(); translate([ring_at[0], ring_at[1], {z}]) linear_extrude(1.6) "
                f"difference() {{ circle(d = {outer}); circle(d = 23); }} }}")

    assert probe(PUCK, ring(37), tmp_path) == [], "the ring does not fit under its window"
    assert probe(PUCK, ring(38.5), tmp_path) != [], "nothing holds the ring centred"
    assert probe(PUCK, ring(37, raised=0.2), tmp_path) != [], "more than 0.8 mm of plastic over the ring"


# -- the command and the STL reader -----------------------------------------------------------------
@needs_openscad
def test_the_command_writes_the_parameters_and_every_stl(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert command.main(["-o", str(tmp_path), "--fn", "8"]) == 0
    written = sorted(path.name for path in tmp_path.iterdir())
    assert written == ["base.stl", "box-params.scad", "lid.stl", "puck-base.stl", "puck-top.stl"]
    params = (tmp_path / "box-params.scad").read_text(encoding="utf-8")
    assert "// sea-route: 24 pixels" in params and "pi_holes = [58, 49];" in params
    out = capsys.readouterr().out
    assert "sea-route: 24 pixels in 3 pieces of 11, 2, 11" in out and "lid.stl: lid, " in out


@needs_openscad
@pytest.mark.skipif(shutil.which("xvfb-run") is None and not os.environ.get("DISPLAY"),
                    reason="pictures need a screen or xvfb-run (Debian's xvfb)")
def test_the_pictures_show_the_box_and_the_puck(built: Built, tmp_path: Path) -> None:
    drawn = pictures(built.params, tmp_path, size=(160, 120), fn=8)
    assert [path.name for path in drawn] == ["box.png", "box-open.png", "puck.png", "puck-open.png"]
    for path in drawn:
        data = path.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">II", data[16:24]) == (160, 120)


def test_the_command_says_in_one_line_why_a_profile_cannot_be_built(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert command.main(["-o", str(tmp_path), "--profile", "no-such-profile"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("hardware.enclosure: profile 'no-such-profile' not found") and err.count("\n") == 1


def test_the_reader_reads_binary_and_ascii_stl_alike(tmp_path: Path) -> None:
    triangle = ((0.0, 0.0, 0.0), (2.0, 0.0, 0.0), (0.0, 3.0, 1.0))
    far = tuple((x + 10, y, z) for x, y, z in triangle)
    ascii_text = "solid t\n" + "".join(
        "facet normal 0 0 1\nouter loop\n" + "".join(f"vertex {x} {y} {z}\n" for x, y, z in t) + "endloop\nendfacet\n"
        for t in (triangle, far)
    ) + "endsolid t\n"
    (tmp_path / "a.stl").write_text(ascii_text, encoding="ascii")
    binary = b"solid but binary".ljust(80, b" ") + struct.pack("<I", 2) + b"".join(
        struct.pack("<12fH", 0, 0, 1, *(c for p in t for c in p), 0) for t in (triangle, far)
    )
    (tmp_path / "b.stl").write_bytes(binary)
    for name in ("a.stl", "b.stl"):
        triangles = read_stl(tmp_path / name)
        assert bounds(triangles) == Box((0, 0, 0), (12, 3, 1))
        assert len(pieces(triangles)) == 2
    (tmp_path / "c.stl").write_bytes(b"\x00" * 10)
    with pytest.raises(StlError):
        read_stl(tmp_path / "c.stl")
