"""Tests of the hardware layer: every driver against a fake of the layer below it."""
