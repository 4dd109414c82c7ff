// The die puck (firmware/README.md): a Pico, a 60 mm button and a 12-pixel ring in a
// case a child passes round the table. The top holds the button and, under a thin
// window, the ring; the base holds the Pico, its USB socket at the cable's exit.
// Sizes in mm; x along the puck, y across it, z up; the base stands on z = 0.

part = "assembly";  // top, base, assembly, or none (modules only)
$fn = 64;

puck_length = 140;
puck_width = 80;
puck_height = 48;       // floor to rim of the base: the button's switch hangs about 40 mm
wall = 2.4;
floor_thickness = 2.4;
top_thickness = 2;
window = 0.8;           // what is left of the top over the ring: thin enough to glow through
fit = 0.3;
lip = 1.6;
lip_height = 6;
button_hole = 60;
button_at = [puck_width / 2 + 4, puck_width / 2];
ring_od = 37;           // a 12-pixel WS2812B ring (LEDS in firmware/puck/settings.py)
ring_id = 23;
ring_at = [puck_length - 34, puck_width / 2];
pico_size = [51, 21];
pico_holes = [47, 11.4];  // between the Pico's mounting holes
pico_screw = 2;           // M2, self-tapping into a 1.7 mm pilot hole
standoff = 4;
pico_at = [puck_length - wall - 5 - pico_size[0], (puck_width - pico_size[1]) / 2];  // its USB end at the round end

module outline(inset = 0) {  // a stadium: round ends, straight sides
    r = puck_width / 2 - inset;
    hull() for (x = [puck_width / 2, puck_length - puck_width / 2]) translate([x, puck_width / 2]) circle(r);
}

module top() {
    translate([0, 0, puck_height]) {
        difference() {
            linear_extrude(top_thickness) difference() { outline(); translate(button_at) circle(d = button_hole); }
            translate([ring_at[0], ring_at[1], -1]) linear_extrude(1 + top_thickness - window)
                difference() { circle(d = ring_od + 1); circle(d = ring_id - 1); }
        }
        translate([0, 0, -lip_height]) linear_extrude(lip_height + 0.01)
            difference() { outline(wall + fit); outline(wall + fit + lip); }
        translate([0, 0, -3]) linear_extrude(3.01) translate(ring_at)  // holds the ring centred under the window
            difference() { circle(d = ring_od + 0.6 + 2.4); circle(d = ring_od + 0.6); }
    }
}

function pico_hole_centres() = [for (u = [-1, 1], v = [-1, 1]) pico_at + pico_size / 2 + [u * pico_holes[0], v * pico_holes[1]] / 2];

module base() {
    difference() {
        union() {
            linear_extrude(puck_height) difference() { outline(); outline(wall); }
            linear_extrude(floor_thickness) outline();
        }
        // the micro-USB plug, through the end wall in front of the Pico's socket
        translate([puck_length - wall - 4, pico_at[1] + pico_size[1] / 2 - 6, floor_thickness + standoff - 2])
            cube([wall + 8, 12, 9]);
    }
    translate([0, 0, floor_thickness - 0.01]) linear_extrude(standoff + 0.01)
        for (c = pico_hole_centres()) translate(c) difference() { circle(d = 5); circle(d = pico_screw - 0.3); }
}

if (part == "top") translate([puck_length, 0, puck_height + top_thickness]) rotate([0, 180, 0]) top();  // face down
if (part == "base") base();
if (part == "assembly") {
    color("burlywood") base();
    color("white", 0.6) top();
}
