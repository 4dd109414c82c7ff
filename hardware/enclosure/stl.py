"""Reading STL files (ASCII or binary): enough to measure a printed part.

The command prints each part's size from it, and the tests measure what
OpenSCAD made: bounding boxes, and the separate pieces of a part.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from pathlib import Path

Point = tuple[float, float, float]
Triangle = tuple[Point, Point, Point]


class StlError(ValueError):
    """Not an STL file this reader understands."""


@dataclass(frozen=True)
class Box:
    """An axis-aligned bounding box."""

    low: Point
    high: Point

    @property
    def size(self) -> Point:
        return (self.high[0] - self.low[0], self.high[1] - self.low[1], self.high[2] - self.low[2])

    @property
    def centre(self) -> Point:
        return ((self.low[0] + self.high[0]) / 2, (self.low[1] + self.high[1]) / 2, (self.low[2] + self.high[2]) / 2)


def read_stl(path: Path) -> list[Triangle]:
    """Every triangle of the file."""
    data = path.read_bytes()
    if len(data) >= 84:
        (count,) = struct.unpack_from("<I", data, 80)
        if len(data) == 84 + 50 * count:  # binary, whatever its header says (it may start with "solid" too)
            return [_triangle(struct.unpack_from("<12f", data, 84 + 50 * i)[3:]) for i in range(count)]
    if not data.lstrip().startswith(b"solid"):
        raise StlError(f"{path}: neither ASCII nor binary STL")
    points: list[Point] = []
    for line in data.decode("ascii", errors="replace").splitlines():
        words = line.split()
        if words[:1] == ["vertex"]:
            if len(words) != 4:
                raise StlError(f"{path}: bad vertex line {line.strip()!r}")
            points.append((float(words[1]), float(words[2]), float(words[3])))
    if len(points) % 3:
        raise StlError(f"{path}: {len(points)} vertices do not make whole triangles")
    return [(points[i], points[i + 1], points[i + 2]) for i in range(0, len(points), 3)]


def _triangle(values: tuple[float, ...]) -> Triangle:
    return ((values[0], values[1], values[2]), (values[3], values[4], values[5]), (values[6], values[7], values[8]))


def bounds(triangles: list[Triangle]) -> Box:
    """The box round all triangles."""
    if not triangles:
        raise StlError("no triangles")
    xs, ys, zs = zip(*(point for triangle in triangles for point in triangle), strict=True)
    return Box((min(xs), min(ys), min(zs)), (max(xs), max(ys), max(zs)))


def pieces(triangles: list[Triangle]) -> list[Box]:
    """The bounding box of each separate piece (triangles joined by shared corners), largest first."""
    parent: dict[Point, Point] = {}

    def root(point: Point) -> Point:
        while parent.setdefault(point, point) != point:
            parent[point] = parent[parent[point]]
            point = parent[point]
        return point

    def key(point: Point) -> Point:
        return (round(point[0], 3), round(point[1], 3), round(point[2], 3))

    for triangle in triangles:
        a, b, c = (root(key(p)) for p in triangle)
        parent[b] = a
        parent[root(c)] = a
    groups: dict[Point, list[Triangle]] = {}
    for triangle in triangles:
        groups.setdefault(root(key(triangle[0])), []).append(triangle)
    boxes = [bounds(group) for group in groups.values()]
    return sorted(boxes, key=lambda box: -box.size[0] * box.size[1] * max(box.size[2], 1e-9))
