// The gamebox's box: a base holding the Pi, and a 2 mm lid with the reader's spot,
// the LED channels, the die button's hole and the speaker's grille.
//
// The numbers below are the reference build's. `python -m hardware.enclosure -o DIR`
// writes DIR/box-params.scad, which includes this file and sets them from a profile,
// then renders every part from it. Opened alone, this file shows the reference box.
// All sizes in mm; x to the right, y away from the children, z up; the base stands
// on z = 0 and the lid lies on it.

part = "assembly";  // lid, base, assembly (both, with the strips), or none (modules only)
$fn = 64;

// -- the box ---------------------------------------------------------------------------
box_width = 215.5333;
box_depth = 214.2667;
base_height = 64;      // floor to rim, outside
corner = 6;            // radius of the box's corners, seen from above
wall = 2.4;
floor_thickness = 2.4;
lid_thickness = 2;     // NFC reads through 2-3 mm of plastic
fit = 0.3;             // between the lid's lip and the base's walls
lip = 1.6;             // the lip under the lid that holds it on the base
lip_height = 6;

// -- the LED runs: strip pieces cut between pixels, joined in corner cells -------------
pitch = 1000 / 60;     // mm from pixel to pixel: 60 pixels per metre
strip_width = 10;
channel = 10.8;        // the strip and its gap
rib = 1.2;             // the channel walls under the lid
rib_height = 4;
wire_notch = 4;        // the gap in a run's end walls where its wires leave
// Each leg: [x, y, angle, pixels], (x, y) the first pixel's edge on the centre line.
sea_route_legs = [[13.4, 200.8667, 0, 11], [202.1333, 195.4667, 270, 2], [196.7333, 156.7333, 180, 11]];
sea_route_corners = [[202.1333, 200.8667], [202.1333, 156.7333]];
sea_route_closed = false;
police_track_legs = [[13.4, 57.5333, 0, 11], [202.1333, 52.1333, 270, 2], [196.7333, 13.4, 180, 11]];
police_track_corners = [[202.1333, 57.5333], [202.1333, 13.4]];
police_track_closed = false;
turn_ring_legs = [[69.9667, 76.7333, 0, 3], [125.3667, 82.1333, 90, 3], [119.9667, 137.5333, 180, 3], [64.5667, 132.1333, 270, 3]];
turn_ring_corners = [[125.3667, 76.7333], [125.3667, 137.5333], [64.5667, 137.5333], [64.5667, 76.7333]];
turn_ring_closed = true;

// -- what goes in it --------------------------------------------------------------------
reader_at = [94.9667, 107.1333];  // the centre of the reader's spot
reader_size = [43, 41];          // the PN532 board, its antenna up against the lid
reader_gap = 0.3;
mark_depth = 0.6;                // the card mark engraved in the lid's top
button_at = [172.9667, 107.1333];
button_hole = 60;
speaker_at = [29.7667, 107.1333];
speaker = 40;                    // the speaker's diameter; the grille covers its cone
pi_at = [6.4, 153.8667];         // the board's corner nearest the front left
pi_size = [85, 56];
pi_holes = [58, 49];             // between the Pi's mounting holes
pi_hole_edge = 3.5;              // from the board's edges to its holes' centres
pi_screw = 2.5;                  // M2.5, self-tapping into a 2.2 mm pilot hole
standoff = 5;                    // under the board
led_supply_hole = 8;             // the LED supply's cable, in the back wall

// -- shapes -----------------------------------------------------------------------------
module outline(inset = 0) {  // the box seen from above, shrunk by inset
    r = max(corner - inset, 0.5);
    hull() for (x = [inset + r, box_width - inset - r], y = [inset + r, box_depth - inset - r])
        translate([x, y]) circle(r);
}

module leg_shape(leg, before = 0, after = 0, narrower = 0) {
    translate([leg[0], leg[1]]) rotate(leg[2])
        translate([-before, -(channel - narrower) / 2]) square([before + leg[3] * pitch + after, channel - narrower]);
}

module run_space(legs, corners, closed) {  // where a run's strip and its joints lie; an open run's ends get the gap too
    last = len(legs) - 1;
    end_gap = (channel - strip_width) / 2;
    for (i = [0 : last]) leg_shape(legs[i], before = i == 0 && !closed ? end_gap : 0, after = i == last && !closed ? end_gap : 0);
    for (c = corners) translate(c) square(channel, center = true);
}

module run_walls(legs, corners, closed) {
    difference() {
        offset(delta = rib) run_space(legs, corners, closed);
        run_space(legs, corners, closed);
        end_gap = (channel - strip_width) / 2;
        ends = closed ? [] : [[legs[0], -end_gap], [legs[len(legs) - 1], legs[len(legs) - 1][3] * pitch + end_gap]];
        for (end = ends) translate([end[0][0], end[0][1]]) rotate(end[0][2])
            translate([end[1] + sign(end[1]) * rib / 2, 0]) square([rib + 1, wire_notch], center = true);
        if (closed) translate(corners[len(corners) - 1]) translate([-channel / 2, 0])
            square([2 * rib + 1, wire_notch], center = true);
    }
}

module reader_frame() {  // four corner brackets that hold the board centred under the mark
    inner = reader_size + [2, 2] * reader_gap;
    translate(reader_at) for (sx = [-1, 1], sy = [-1, 1]) scale([sx, sy]) translate(inner / 2)
        difference() { translate([-8, -8]) square([8 + rib, 8 + rib]); translate([-9, -9]) square([9, 9]); }
}

module speaker_ring() {
    translate(speaker_at) difference() { circle(d = speaker + 0.6 + 2 * rib); circle(d = speaker + 0.6); }
}

module grille() {  // slots a finger cannot poke through
    slots = floor((speaker - 8) / 5);
    translate(speaker_at) intersection() {
        circle(d = speaker - 6);
        for (i = [0 : slots - 1]) translate([(i - (slots - 1) / 2) * 5, 0]) square([2.4, speaker], center = true);
    }
}

module card_mark() {  // a ring to aim at and a card inside it: no words, for children who cannot read
    translate(reader_at) {
        difference() { circle(d = 38); circle(d = 35); }
        difference() { square([16, 22], center = true); square([13, 19], center = true); }
    }
}

module lid() {
    translate([0, 0, base_height]) {
        linear_extrude(lid_thickness - mark_depth) difference() {
            outline();
            translate(button_at) circle(d = button_hole);
            grille();
        }
        translate([0, 0, lid_thickness - mark_depth]) linear_extrude(mark_depth) difference() {
            outline();
            translate(button_at) circle(d = button_hole);
            grille();
            card_mark();
        }
        translate([0, 0, -lip_height]) linear_extrude(lip_height + 0.01)
            difference() { outline(wall + fit); outline(wall + fit + lip); }
        translate([0, 0, -rib_height]) linear_extrude(rib_height + 0.01) {
            run_walls(sea_route_legs, sea_route_corners, sea_route_closed);
            run_walls(police_track_legs, police_track_corners, police_track_closed);
            run_walls(turn_ring_legs, turn_ring_corners, turn_ring_closed);
            reader_frame();
            speaker_ring();
        }
    }
}

// The Pi lies turned round at the back left: its USB and Ethernet sockets face the left wall,
// its USB-C (and a Pi 4's audio jack) the back wall, its pin header the front.
function pi_hole_centres() = [for (u = [pi_hole_edge, pi_hole_edge + pi_holes[0]], v = [pi_hole_edge, pi_hole_edge + pi_holes[1]])
    pi_at + pi_size - [u, v]];

module cable_exits() {
    board = floor_thickness + standoff;
    // USB-C power and a Pi 4's audio jack, through the back wall
    translate([pi_at[0] + 25, box_depth - wall - 1, board - 1]) cube([57, wall + 2, 14]);
    // USB (the puck, a Pi 5's speaker) and Ethernet, through the left wall
    translate([-1, pi_at[1] + 2, board - 1]) cube([wall + 2, pi_size[1] - 4, 19]);
    // the LED supply's cable
    translate([box_width - 30, box_depth + 1, board + 12]) rotate([90, 0, 0]) cylinder(d = led_supply_hole, h = wall + 2);
}

module base() {
    difference() {
        union() {
            linear_extrude(base_height) difference() { outline(); outline(wall); }
            linear_extrude(floor_thickness) outline();
        }
        cable_exits();
    }
    translate([0, 0, floor_thickness - 0.01]) linear_extrude(standoff + 0.01)
        for (c = pi_hole_centres()) translate(c) difference() { circle(d = 6); circle(d = pi_screw - 0.3); }
}

module strips(z = base_height - 2, thickness = 2) {  // the strip pieces as they lie in their channels, for the pictures
    translate([0, 0, z]) linear_extrude(thickness) for (legs = [sea_route_legs, police_track_legs, turn_ring_legs])
        for (leg = legs) leg_shape(leg, narrower = channel - strip_width);
}

if (part == "lid") translate([box_width, 0, base_height + lid_thickness]) rotate([0, 180, 0]) lid();  // top down
if (part == "base") base();
if (part == "assembly") {
    color("burlywood") base();
    color("white", 0.6) lid();
    color("orange") strips();
}
