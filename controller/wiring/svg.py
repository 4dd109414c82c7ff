"""A plain SVG document, written out the same way every time.

The drawings are checked in and compared byte for byte with what the
profile draws today, so numbers are rounded and attributes come in a fixed
order. Every shape may carry ``data-*`` attributes: the tests read the
drawing back through them (which pin a wire starts at, which part it ends at).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from xml.sax.saxutils import escape, quoteattr

FONT = "DejaVu Sans, Verdana, Arial, sans-serif"


def _number(value: float) -> str:
    return f"{round(value, 1):g}"


def _attributes(attributes: dict[str, object]) -> str:
    shown = []
    for name, value in attributes.items():
        if value is None or value is False:
            continue
        text = _number(value) if isinstance(value, float | int) and not isinstance(value, bool) else str(value)
        shown.append(f"{name.rstrip('_').replace('_', '-')}={quoteattr(text)}")
    return (" " + " ".join(shown)) if shown else ""


class Svg:
    """Shapes in drawing order; :meth:`text` of the whole document at the end."""

    def __init__(self, width: float, height: float, title: str) -> None:
        self.width, self.height, self.title = width, height, title
        self._lines: list[str] = []
        self._depth = 1

    def _add(self, line: str) -> None:
        self._lines.append("  " * self._depth + line)

    @contextmanager
    def group(self, **attributes: object) -> Iterator[None]:
        self._add(f"<g{_attributes(attributes)}>")
        self._depth += 1
        try:
            yield
        finally:
            self._depth -= 1
            self._add("</g>")

    def rect(self, x: float, y: float, width: float, height: float, **attributes: object) -> None:
        self._add(f"<rect{_attributes({'x': x, 'y': y, 'width': width, 'height': height, **attributes})}/>")

    def circle(self, cx: float, cy: float, r: float, **attributes: object) -> None:
        self._add(f"<circle{_attributes({'cx': cx, 'cy': cy, 'r': r, **attributes})}/>")

    def polyline(self, points: Iterable[tuple[float, float]], **attributes: object) -> None:
        text = " ".join(f"{_number(x)},{_number(y)}" for x, y in points)
        self._add(f"<polyline{_attributes({'points': text, 'fill': 'none', **attributes})}/>")

    def text(self, x: float, y: float, words: str, size: float = 13, **attributes: object) -> None:
        self._add(f"<text{_attributes({'x': x, 'y': y, 'font_size': size, **attributes})}>{escape(words)}</text>")

    def document(self) -> str:
        head = (
            f'<svg xmlns="http://www.w3.org/2000/svg" width="{_number(self.width)}" height="{_number(self.height)}" '
            f'viewBox="0 0 {_number(self.width)} {_number(self.height)}" font-family={quoteattr(FONT)}>'
        )
        body = [f"  <title>{escape(self.title)}</title>",
                f'  <rect x="0" y="0" width="{_number(self.width)}" height="{_number(self.height)}" fill="#ffffff"/>']
        return "\n".join([head, *body, *self._lines, "</svg>"]) + "\n"
