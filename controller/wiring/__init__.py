"""Pictures to build the box from: its wiring on the Pi's header, the puck's on the Pico, drawn as SVG."""
