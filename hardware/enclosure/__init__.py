"""The box and the die puck to print: OpenSCAD models, their numbers taken from a hardware profile.

``python -m hardware.enclosure -o DIR`` lays the lid out for a profile's LED runs
(:mod:`.layout`), writes the parameter file (:mod:`.params`) and renders every
part's STL with OpenSCAD (:mod:`.render`); :mod:`.stl` measures what it made.
"""
