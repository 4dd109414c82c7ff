"""The table from above, drawn from a :class:`~controller.window.view.TableView` onto any pygame Surface.

Drawing is pure: the same view on the same size of surface gives the same
pixels, and :meth:`Renderer.draw` returns where it put every clickable
thing and every LED (:class:`Drawn`), so the window turns clicks into taps
and tests check colours where they were drawn. Everything is laid out on a
1280 x 800 plan and scaled to the surface, keeping its proportions, so a
resized window stays sharp and legible.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import pygame

from controller.stage.lights import CARD_COLORS, SEAT_COLORS
from controller.stage.lights.base import spread
from controller.window.cards import DARK_INK, LIGHT_INK, PAPER, card_look
from controller.window.view import GAME_TITLES, SeatView, TableView, seat_colour_name, seat_name

RGB = tuple[int, int, int]
Point = tuple[int, int]

PLAN_W, PLAN_H = 1280, 800

FELT: RGB = (36, 104, 70)
FELT_DARK: RGB = (24, 74, 50)
PANEL: RGB = (50, 124, 86)
BOX_BODY: RGB = (146, 102, 58)
BOX_EDGE: RGB = (104, 70, 38)
READER: RGB = (226, 228, 232)
STRIP: RGB = (28, 28, 32)
LED_RIM: RGB = (90, 90, 96)
BACK: RGB = (40, 56, 120)
BUBBLE: RGB = (252, 250, 240)
MUTED: RGB = (200, 222, 208)
WON: RGB = (255, 255, 255)  # the winners' highlight: white, unlike any seat's colour (yellow is Player 1's)
DIE_RED: RGB = (206, 40, 40)
OFF: RGB = (0, 0, 0)

SEGMENT_LABELS = {"sea-route": "sea route", "police-track": "police track", "turn-ring": "turn ring"}
STRIPS: dict[str, tuple[str, ...]] = {"pirates": ("sea-route",), "policecats": ("police-track",)}
"""The LED strips each game uses (the turn ring, on the box, every game uses): only these are drawn."""
CHIP_W, CHIP_H = 78, 24  # another player's cat, in plan pixels: its family number and member in words


@dataclass
class Drawn:
    """Where one frame put things, in surface pixels."""

    hits: list[tuple[pygame.Rect, str]] = field(default_factory=list)  # clickable rect -> target
    texts: list[str] = field(default_factory=list)  # every line of text drawn, in order
    leds: dict[str, list[Point]] = field(default_factory=dict)  # segment -> centre of each LED dot
    spots: dict[str, Point] = field(default_factory=dict)  # named points: "pile", "match", ...

    def target_at(self, pos: Point) -> str | None:
        """The clickable target under ``pos`` (the last drawn wins, as it lies on top)."""
        for rect, target in reversed(self.hits):
            if rect.collidepoint(pos):
                return target
        return None

    def rect_of(self, target: str) -> pygame.Rect | None:
        for rect, name in self.hits:
            if name == target:
                return rect
        return None

    @property
    def targets(self) -> list[str]:
        """Every clickable target, in reading order (the keyboard's Tab order)."""
        ordered = sorted(self.hits, key=lambda hit: (hit[0].centery // 40, hit[0].x))
        return list(dict.fromkeys(target for _, target in ordered))


class Renderer:
    """Draws views; keeps only fonts between frames."""

    def __init__(self) -> None:
        if not pygame.font.get_init():
            pygame.font.init()
        self._fonts: dict[int, pygame.font.Font] = {}
        self._texts: list[str] = []

    # -- scale ---------------------------------------------------------------------
    def _setup(self, surface: pygame.Surface) -> None:
        width, height = surface.get_size()
        self.scale = min(width / PLAN_W, height / PLAN_H)
        self.left = (width - PLAN_W * self.scale) / 2
        self.top = 0.0  # a window taller than the plan keeps its header at the top; the felt goes on below

    def rect(self, x: float, y: float, w: float, h: float) -> pygame.Rect:
        """A plan rectangle in surface pixels."""
        scale = self.scale
        return pygame.Rect(round(self.left + x * scale), round(self.top + y * scale),
                           max(1, round(w * scale)), max(1, round(h * scale)))

    def point(self, x: float, y: float) -> Point:
        """A plan point in surface pixels."""
        return round(self.left + x * self.scale), round(self.top + y * self.scale)

    def length(self, plan: float) -> int:
        """A plan length in surface pixels; a positive length never shrinks to nothing."""
        pixels = round(plan * self.scale)
        return max(1, pixels) if plan > 0 else pixels

    def font(self, size: float) -> pygame.font.Font:
        px = max(8, round(size * self.scale))
        if px not in self._fonts:
            self._fonts[px] = pygame.font.Font(None, px)
        return self._fonts[px]

    def text(self, surface: pygame.Surface, text: str, size: float, color: RGB, at: Point,
             anchor: str = "topleft", max_width: int | None = None) -> pygame.Rect:
        """Draw one line of text, shrinking it to ``max_width`` surface pixels if need be."""
        font = self.font(size)
        while max_width is not None and font.size(text)[0] > max_width and size > 10:
            size *= 0.9
            font = self.font(size)
        self._texts.append(text)
        image = font.render(text, True, color)
        rect = image.get_rect(**{anchor: at})
        surface.blit(image, rect)
        return rect

    # -- the frame -----------------------------------------------------------------
    def draw(self, surface: pygame.Surface, view: TableView) -> Drawn:
        """Draw ``view`` over the whole surface; return where things went."""
        self._setup(surface)
        drawn = Drawn()
        self._texts = drawn.texts
        surface.fill(FELT)
        self._header(surface, view)
        self._seats(surface, view, drawn)
        self._strip(surface, view, "sea-route", 216, drawn)
        self._centre(surface, view, drawn)
        self._strip(surface, view, "police-track", 518, drawn)
        self._lines(surface, view)
        if view.table:
            self._hand(surface, view, drawn)
            self._keys(surface, view)
        else:
            self._status(surface, view)
        self._focus(surface, view, drawn)
        return drawn

    def _header(self, surface: pygame.Surface, view: TableView) -> None:
        band = self.rect(0, 0, PLAN_W, 44)
        pygame.draw.rect(surface, FELT_DARK, (0, band.y, surface.get_width(), band.h))
        title = GAME_TITLES.get(view.game or "", "gamebox: choose a game")
        if view.game:
            title += f"  ·  {view.players} players"
        self.text(surface, title, 34, LIGHT_INK, self.point(20, 22), "midleft")
        turn = _turn_text(view)
        if turn:
            color = SEAT_COLORS[view.waiting_for] if view.waiting_for is not None and not view.winners else WON
            end = self.text(surface, turn, 30, LIGHT_INK, self.point(1260, 22), "midright")
            pygame.draw.circle(surface, color, (end.left - self.length(18), end.centery), self.length(11))

    # -- the other seats -----------------------------------------------------------
    def _seats(self, surface: pygame.Surface, view: TableView, drawn: Drawn) -> None:
        shown = [seat for seat in view.seats if seat.seat != view.you]
        if view.game is None and view.table:
            self.text(surface, "You are Player 1 (yellow); bots play the other seats.", 34, LIGHT_INK,
                      self.point(640, 110), "center")
            self.text(surface, "Tap a game card, then a players card: the box deals you in.", 28, MUTED,
                      self.point(640, 156), "center")
        if not shown:
            return
        gap = 12
        width = (PLAN_W - 40 - gap * (len(shown) - 1)) / len(shown)
        for i, seat in enumerate(shown):
            self._seat(surface, view, seat, 20 + i * (width + gap), 50, width, 160, drawn)

    def _seat(self, surface: pygame.Surface, view: TableView, seat: SeatView, x: float, y: float,
              w: float, h: float, drawn: Drawn) -> None:
        color = SEAT_COLORS[seat.seat]
        now = view.waiting_for == seat.seat and view.awaiting not in (None, "over")
        won = seat.seat in view.winners
        box = self.rect(x, y, w, h)
        pygame.draw.rect(surface, PANEL, box, border_radius=self.length(14))
        pygame.draw.rect(surface, WON if won else color, box, width=self.length(8 if now or won else 3),
                         border_radius=self.length(14))
        drawn.spots[f"seat:{seat.seat}"] = self.point(x + 5, y + h / 2)  # inside a thick border, outside a thin one
        pygame.draw.circle(surface, color, self.point(x + 24, y + 24), self.length(12))
        label = f"{seat.name} ({seat_colour_name(seat.seat)})"
        self.text(surface, label, 28, LIGHT_INK, self.point(x + 44, y + 24), "midleft", max_width=self.length(w - 150))
        tag = "WINNER" if won else ("TURN" if now else "")
        if tag:
            tag_rect = self.rect(x + w - 96, y + 10, 84, 28)
            pygame.draw.rect(surface, WON if won else color, tag_rect, border_radius=self.length(8))
            self.text(surface, tag, 22, DARK_INK, tag_rect.center, "center")
        facts = _seat_facts(seat, view)
        if facts:
            self.text(surface, facts, 24, MUTED, self.point(x + 16, y + h - 20), "midleft", max_width=self.length(w - 32))
        body_y = y + 46
        if seat.hand is not None:
            self._fan(surface, seat.hand, x + 16, body_y, 42, 60)
        if seat.ears is not None:
            for side, card in enumerate(seat.ears):
                self._mini(surface, card, x + w - 112 + side * 54, body_y, 46, 66, hidden=seat.ears_hidden,
                           label="LR"[side], drawn=drawn, spot=f"ear:{seat.seat}:{side}", click=False)
        if seat.cards:
            self._tableau(surface, seat, x + 16, body_y, w - 32, drawn)
        elif seat.families is not None:
            self.text(surface, "no cats in front of them", 22, MUTED, self.point(x + 16, body_y + 28), "midleft")
        if seat.ship is not None:
            self._ship(surface, x + w - 60, body_y + 36, color)

    def _fan(self, surface: pygame.Surface, count: int, x: float, y: float, w: float, h: float) -> None:
        """A hand seen from across the table: its backs (how many is in the seat's facts line)."""
        for i in range(min(count, 6)):
            self._back(surface, self.rect(x + i * 10, y, w, h))

    def _tableau(self, surface: pygame.Surface, seat: SeatView, x: float, y: float, w: float,
                 drawn: Drawn) -> None:
        """A Policecats seat's cats, one column per family, each cat a chip naming it ("6 mother").

        A whole card would be too small to read in a seat's panel; a chip in
        the family's colour, with its number first, stays legible even when
        many families make the columns overlap.
        """
        groups: dict[str, list[str]] = {}
        for card in seat.cards:
            groups.setdefault(card.rsplit("-", 1)[0] if card.startswith("family-") else card, []).append(card)
        columns = list(groups.values())
        step = min(CHIP_W + 6.0, (w - CHIP_W) / (len(columns) - 1)) if len(columns) > 1 else 0.0
        for i, cards in enumerate(columns):
            for j, card in enumerate(sorted(cards, key=_member_order)):
                self._chip(surface, card, x + i * step, y + j * (CHIP_H + 3), drawn)

    def _chip(self, surface: pygame.Surface, card: str, x: float, y: float, drawn: Drawn) -> None:
        look = card_look(card)
        rect = self.rect(x, y, CHIP_W, CHIP_H)
        pygame.draw.rect(surface, look.fill, rect, border_radius=self.length(6))
        pygame.draw.rect(surface, DARK_INK, rect, width=1, border_radius=self.length(6))
        self.text(surface, f"{look.big} {look.small}", 20, look.ink, (rect.x + self.length(5), rect.centery),
                  "midleft", max_width=rect.w - self.length(8))
        drawn.hits.append((rect, f"card:{card}"))

    def _ship(self, surface: pygame.Surface, x: float, y: float, color: RGB) -> None:
        hull = [self.point(x - 30, y), self.point(x + 30, y), self.point(x + 20, y + 16), self.point(x - 20, y + 16)]
        pygame.draw.polygon(surface, color, hull)
        pygame.draw.polygon(surface, DARK_INK, hull, width=self.length(2))
        pygame.draw.line(surface, DARK_INK, self.point(x, y), self.point(x, y - 34), self.length(3))
        pygame.draw.polygon(surface, PAPER, [self.point(x + 2, y - 32), self.point(x + 24, y - 8), self.point(x + 2, y - 8)])

    # -- LEDs ----------------------------------------------------------------------
    def _strip(self, surface: pygame.Surface, view: TableView, segment: str, y: float, drawn: Drawn) -> None:
        if segment not in STRIPS.get(view.game or "", ()):
            return
        pixels = view.led(segment)
        self.text(surface, SEGMENT_LABELS.get(segment, segment), 24, MUTED, self.point(20, y + 15), "midleft")
        if not pixels:
            return
        x0, x1 = 160, 1240
        bar = self.rect(x0 - 16, y, x1 - x0 + 32, 30)
        pygame.draw.rect(surface, STRIP, bar, border_radius=self.length(15))
        step = (x1 - x0) / max(1, len(pixels) - 1)
        points = [self.point(x0 + i * step, y + 15) for i in range(len(pixels))]
        self._dots(surface, pixels, points, 11)
        drawn.leds[segment] = points

    def _dots(self, surface: pygame.Surface, pixels: tuple[RGB, ...], points: list[Point], radius: float) -> None:
        """LEDs exactly as lit: the dot's colour is the pixel's; a grey rim shows where unlit ones are."""
        for rgb, point in zip(pixels, points):
            pygame.draw.circle(surface, LED_RIM, point, self.length(radius + 2))
            pygame.draw.circle(surface, rgb, point, self.length(radius))

    # -- the box: stack, pile, reader, ring, buttons -----------------------------------
    def _centre(self, surface: pygame.Surface, view: TableView, drawn: Drawn) -> None:
        self._piles(surface, view, drawn)
        body = self.rect(470, 256, 340, 252)
        pygame.draw.rect(surface, BOX_EDGE, body.move(self.length(4), self.length(5)), border_radius=self.length(26))
        pygame.draw.rect(surface, BOX_BODY, body, border_radius=self.length(26))
        centre = (640, 382)
        pad = self.rect(centre[0] - 68, centre[1] - 68, 136, 136)
        pygame.draw.rect(surface, READER, pad, border_radius=self.length(18))
        pygame.draw.rect(surface, (170, 172, 180), pad, width=self.length(3), border_radius=self.length(18))
        for radius in (16, 28, 40):
            arc = self.rect(centre[0] - radius, centre[1] - 12 - radius, 2 * radius, 2 * radius)
            pygame.draw.arc(surface, (120, 124, 136), arc, math.radians(50), math.radians(130), self.length(4))
        self.text(surface, "tap here" if view.table else "reader", 22, (90, 94, 104),
                  self.point(centre[0], centre[1] + 40), "center")
        self._ring(surface, view, centre, drawn)
        if view.table:
            self._buttons(surface, view, drawn)
        else:
            self._turn_card(surface, view)

    def _ring(self, surface: pygame.Surface, view: TableView, centre: tuple[float, float], drawn: Drawn) -> None:
        pixels = view.led("turn-ring")
        if not pixels:
            return
        n = len(pixels)
        first = spread(n, view.players)[0][1] if view.players else 0
        points = []
        for i in range(n):
            # clockwise from the bottom, seen from above; the first seat's arc faces the window's own seat
            phi = 2 * math.pi * (i + 0.5 - first / 2) / n
            points.append(self.point(centre[0] - 106 * math.sin(phi), centre[1] + 106 * math.cos(phi)))
        self._dots(surface, pixels, points, 13)
        drawn.leds["turn-ring"] = points

    def _piles(self, surface: pygame.Surface, view: TableView, drawn: Drawn) -> None:
        if view.game is None:
            return
        stack = self.rect(40, 262, 110, 154)
        if view.stack:
            for depth in (6, 3):
                self._back(surface, stack.move(self.length(depth), self.length(depth)))
            self._back(surface, stack)
            if view.table:
                drawn.hits.append((stack, "stack"))
        else:
            pygame.draw.rect(surface, FELT_DARK, stack, width=self.length(3), border_radius=self.length(10))
        self.text(surface, f"stack: {view.stack or 0}", 24, LIGHT_INK, self.point(95, 440), "center")
        if view.table:
            self._key(surface, "S", self.point(52, 274))
        if view.game == "policecats":  # no pile: the die shows what was rolled
            return
        pile = self.rect(180, 262, 110, 154)
        if view.top:
            self._card(surface, pile, view.top)
            drawn.spots["pile"] = fill_point(pile)
        else:
            pygame.draw.rect(surface, FELT_DARK, pile, width=self.length(3), border_radius=self.length(10))
        self.text(surface, "pile", 24, LIGHT_INK, self.point(235, 440), "center")
        if view.color:
            centre = self.point(382, 320)
            pygame.draw.circle(surface, LIGHT_INK, centre, self.length(40))
            pygame.draw.circle(surface, CARD_COLORS[view.color], centre, self.length(35))
            drawn.spots["match"] = centre
            label = "choosing" if view.choosing_color else "match"
            self.text(surface, label, 24, LIGHT_INK, self.point(382, 376), "center")
            self.text(surface, view.color, 24, LIGHT_INK, self.point(382, 400), "center")

    def _buttons(self, surface: pygame.Surface, view: TableView, drawn: Drawn) -> None:
        centre = (960, 370)
        rim = self.point(*centre)
        pygame.draw.circle(surface, (60, 20, 20), (rim[0] + self.length(4), rim[1] + self.length(6)), self.length(74))
        pressed = 4 if view.die_down else 0
        top = self.point(centre[0] + pressed, centre[1] + pressed)
        pygame.draw.circle(surface, (120, 24, 24) if view.die_down else DIE_RED, top, self.length(70))
        pygame.draw.circle(surface, (240, 120, 110), top, self.length(70), width=self.length(4))
        if view.game == "policecats":  # the die: the face just rolled, in words, or "?" before a roll
            face = self.rect(centre[0] - 44 + pressed, centre[1] - 46 + pressed, 88, 52)
            pygame.draw.rect(surface, PAPER, face, border_radius=self.length(9))
            self.text(surface, view.die_face or "?", 34, DARK_INK, face.center, "center", max_width=face.w - 8)
        else:  # a button that draws and passes: a die's look, no face that could mislead
            face = self.rect(centre[0] - 24 + pressed, centre[1] - 44 + pressed, 48, 48)
            pygame.draw.rect(surface, PAPER, face, border_radius=self.length(9))
            for dx, dy in ((-12, -12), (0, 0), (12, 12)):
                pygame.draw.circle(surface, DARK_INK, (face.centerx + self.length(dx), face.centery + self.length(dy)),
                                   self.length(5))
        self.text(surface, "DIE", 28, LIGHT_INK, self.point(centre[0] + pressed, centre[1] + 34 + pressed), "center")
        drawn.hits.append((self.rect(centre[0] - 74, centre[1] - 74, 148, 148), "die"))
        self.text(surface, f"SPACE  ·  hold {view.hold_time:g} s or H", 22, LIGHT_INK, self.point(960, 466), "center")
        for i, name in enumerate(("yellow", "green", "blue", "red")):
            cx, cy = 1120 + (i % 2) * 84, 320 + (i // 2) * 84
            spot = self.point(cx, cy)
            lit = view.choosing_color and view.color == name
            if view.choosing_color:
                pygame.draw.circle(surface, LIGHT_INK, spot, self.length(38 if lit else 34))
            pygame.draw.circle(surface, (20, 20, 20), spot, self.length(31))
            pygame.draw.circle(surface, CARD_COLORS[name], spot, self.length(28))
            self.text(surface, name[0].upper(), 28, DARK_INK if name in ("yellow", "green") else LIGHT_INK,
                      spot, "center")
            drawn.hits.append((self.rect(cx - 32, cy - 32, 64, 64), f"color:{name}"))
        self.text(surface, "colour buttons", 22, MUTED, self.point(1162, 466), "center")

    def _turn_card(self, surface: pygame.Surface, view: TableView) -> None:
        """The kiosk's big "whose turn" card where the simulator has its buttons."""
        box = self.rect(880, 262, 360, 200)
        pygame.draw.rect(surface, PANEL, box, border_radius=self.length(18))
        if view.winners:
            color, big = WON, "Game over"
            small = "won: " + ", ".join(seat_name(w) for w in view.winners)
        elif view.waiting_for is not None:
            color = SEAT_COLORS[view.waiting_for]
            big = f"{seat_name(view.waiting_for)}'s turn"
            small = f"{seat_colour_name(view.waiting_for)}: {(view.awaiting or '').replace('_', ' ')}"
        else:
            color, big, small = MUTED, "Setting up", (view.awaiting or "").replace("_", " ")
        pygame.draw.rect(surface, color, box, width=self.length(8), border_radius=self.length(18))
        self.text(surface, big, 46, LIGHT_INK, self.point(1060, 340), "center", max_width=self.length(330))
        self.text(surface, small, 30, MUTED, self.point(1060, 398), "center", max_width=self.length(330))

    # -- words -----------------------------------------------------------------------
    def _lines(self, surface: pygame.Surface, view: TableView) -> None:
        bubble = self.rect(20, 556, 820, 40)
        pygame.draw.rect(surface, BUBBLE, bubble, border_radius=self.length(16))
        if view.table:  # the simulator: what the box said
            self._speaker(surface, 40, 576)
            said = f"“{view.prompt}”" if view.prompt else "..."
            self.text(surface, said, 28, DARK_INK, self.point(64, 576), "midleft", max_width=self.length(766))
        else:  # the display: what the referee took last
            self.text(surface, view.prompt, 28, DARK_INK, self.point(36, 576), "midleft", max_width=self.length(790))
        answer = self.rect(852, 556, 408, 40)
        pygame.draw.rect(surface, FELT_DARK, answer, border_radius=self.length(16))
        self.text(surface, view.answer or "", 24, LIGHT_INK, self.point(866, 576), "midleft", max_width=self.length(384))

    def _speaker(self, surface: pygame.Surface, x: float, y: float) -> None:
        """A small loudspeaker: the bubble is what the box said."""
        pygame.draw.rect(surface, DARK_INK, self.rect(x - 12, y - 6, 8, 12))
        pygame.draw.polygon(surface, DARK_INK, [self.point(x - 5, y - 6), self.point(x + 4, y - 13), self.point(x + 4, y + 13),
                                                self.point(x - 5, y + 6)])
        for radius in (8, 14):
            pygame.draw.arc(surface, DARK_INK, self.rect(x + 2 - radius, y - radius, 2 * radius, 2 * radius),
                            math.radians(-45), math.radians(45), self.length(2))

    def _hand(self, surface: pygame.Surface, view: TableView, drawn: Drawn) -> None:
        you = view.you if view.you is not None else 0
        mine = next((seat for seat in view.seats if seat.seat == you), None)
        yours = view.waiting_for == you and view.awaiting not in (None, "over")
        color = SEAT_COLORS[you] if view.game else LIGHT_INK
        self.text(surface, view.hint, 28, color if yours else LIGHT_INK, self.point(20, 614), "midleft",
                  max_width=self.length(1000))
        if mine is not None:
            facts = _seat_facts(mine, view)
            if facts:
                self.text(surface, facts, 24, MUTED, self.point(1260, 614), "midright")
        right = 1240 if view.own_ears is None else 1040
        cards = view.hand
        if cards:
            width, height = (90, 124) if view.game else (126, 124)
            step = min(width + 10, (right - 40 - width) / max(1, len(cards) - 1)) if len(cards) > 1 else 0
            for i, card in enumerate(cards):
                rect = self.rect(40 + i * step, 632, width, height)
                self._card(surface, rect, card)
                if i < 9:
                    self._key(surface, str(i + 1), (rect.x + self.length(14), rect.bottom - self.length(14)))
                drawn.hits.append((rect, f"card:{card}"))
        elif view.game:
            empty = "(no cats in front of you)" if mine is not None and mine.hand is None else "(no cards in your hand)"
            self.text(surface, empty, 26, MUTED, self.point(40, 700), "midleft")
        if view.own_ears is not None:
            self.text(surface, "your ears: remember them!", 22, MUTED, self.point(1150, 640), "center")
            for side, card in enumerate(view.own_ears):
                rect = self.rect(1072 + side * 88, 654, 74, 102)
                if card is None:
                    pygame.draw.rect(surface, FELT_DARK, rect, width=self.length(3), border_radius=self.length(8))
                    continue
                self._back(surface, rect)
                self._key(surface, "[]"[side], (rect.x + self.length(14), rect.bottom - self.length(14)))
                drawn.hits.append((rect, f"card:{card}"))
                drawn.spots[f"ear:{you}:{side}"] = fill_point(rect)

    def _keys(self, surface: pygame.Surface, view: TableView) -> None:
        keys = ("click or keys: 1-9 your cards  ·  S stack  ·  SPACE die button  ·  H hold  ·  Y G B R colours"
                "  ·  Tab + Enter  ·  N new game  ·  Q quit")
        if view.own_ears is not None:
            keys = keys.replace("1-9 your cards", "1-9 your cards  ·  [ ] your ears")
        self.text(surface, keys, 20, MUTED, self.point(640, 784), "center", max_width=self.length(1240))

    def _status(self, surface: pygame.Surface, view: TableView) -> None:
        """The kiosk's bottom line: what the box is waiting for, or who won."""
        if view.game is None:
            self.text(surface, view.hint or "No game yet: start one on the box.", 32, LIGHT_INK, self.point(640, 690), "center",
                      max_width=self.length(1240))
            return
        color = SEAT_COLORS[view.waiting_for] if view.waiting_for is not None and not view.winners else WON
        self.text(surface, view.hint, 48, color if view.winners else LIGHT_INK, self.point(640, 680), "center",
                  max_width=self.length(1240))
        if view.waiting_for is not None and not view.winners:
            pygame.draw.rect(surface, color, self.rect(440, 716, 400, 8), border_radius=self.length(4))

    # -- cards ---------------------------------------------------------------------
    def _card(self, surface: pygame.Surface, rect: pygame.Rect, card: str) -> None:
        look = card_look(card)
        radius = max(2, rect.w // 9)
        pygame.draw.rect(surface, (0, 0, 0), rect.move(self.length(3), self.length(3)), border_radius=radius)
        pygame.draw.rect(surface, look.fill, rect, border_radius=radius)
        if look.stripes:
            band = rect.w / len(look.stripes)
            for i, rgb in enumerate(look.stripes):
                part = pygame.Rect(rect.x + round(i * band), rect.y, math.ceil(band), rect.h)
                pygame.draw.rect(surface, rgb, part.clip(rect.inflate(-radius, 0)))
            oval = rect.inflate(-rect.w // 5, -rect.h // 2)
            pygame.draw.ellipse(surface, PAPER, oval)
        inset = max(2, rect.w // 16)
        pygame.draw.rect(surface, LIGHT_INK, rect.inflate(-2 * inset, -2 * inset), width=max(1, rect.w // 40),
                         border_radius=max(1, radius - inset // 2))
        pygame.draw.rect(surface, (0, 0, 0), rect, width=1, border_radius=radius)
        big = 0.5 * rect.h / self.scale if len(look.big) <= 2 else 0.22 * rect.h / self.scale
        small_card = rect.h < self.length(90) and look.small and not look.stripes
        centre = (rect.centerx, rect.centery + rect.h // 10) if small_card else rect.center
        self.text(surface, look.big, big * (0.8 if small_card else 1), look.ink, centre, "center",
                  max_width=rect.w - 2 * inset)
        if rect.h >= self.length(90):
            word = self.text(surface, look.small, 0.15 * rect.h / self.scale, look.ink,
                             (rect.x + 2 * inset, rect.y + 2 * inset), "topleft", max_width=rect.w - 3 * inset)
            if look.stripes:  # on the stripes the word needs a plain ground to be read
                pygame.draw.rect(surface, PAPER, word.inflate(self.length(6), self.length(2)), border_radius=self.length(4))
                self.text(surface, look.small, 0.15 * rect.h / self.scale, look.ink, word.topleft, "topleft",
                          max_width=rect.w - 3 * inset)
        elif small_card:  # too small for the word: its first letter, in the corner that overlapping leaves seen
            self.text(surface, look.small[0].upper(), 0.3 * rect.h / self.scale, look.ink,
                      (rect.x + 2 * inset, rect.y + inset), "topleft")

    def _mini(self, surface: pygame.Surface, card: str | None, x: float, y: float, w: float, h: float,
              hidden: bool = False, label: str = "", drawn: Drawn | None = None, spot: str = "",
              click: bool = True) -> None:
        rect = self.rect(x, y, w, h)
        if card is None:
            pygame.draw.rect(surface, FELT_DARK, rect, width=self.length(2), border_radius=self.length(6))
        elif hidden:
            self._back(surface, rect)
        else:
            self._card(surface, rect, card)
            if drawn is not None and click:
                drawn.hits.append((rect, f"card:{card}"))
        if drawn is not None and spot and card is not None:
            drawn.spots[spot] = fill_point(rect)
        if label:
            self.text(surface, label, 20, MUTED, (rect.centerx, rect.bottom + self.length(10)), "center")

    def _back(self, surface: pygame.Surface, rect: pygame.Rect) -> None:
        radius = max(2, rect.w // 9)
        pygame.draw.rect(surface, BACK, rect, border_radius=radius)
        pygame.draw.rect(surface, LIGHT_INK, rect.inflate(-rect.w // 6, -rect.w // 6), width=max(1, rect.w // 30),
                         border_radius=radius)
        pygame.draw.rect(surface, (0, 0, 0), rect, width=1, border_radius=radius)

    def _key(self, surface: pygame.Surface, key: str, centre: Point) -> None:
        """A keyboard key cap naming the key that does the same as a click."""
        cap = pygame.Rect(0, 0, self.length(22), self.length(22))
        cap.center = centre
        pygame.draw.rect(surface, DARK_INK, cap, border_radius=self.length(5))
        self.text(surface, key, 20, LIGHT_INK, cap.center, "center")

    def _focus(self, surface: pygame.Surface, view: TableView, drawn: Drawn) -> None:
        if view.focus is None:
            return
        rect = drawn.rect_of(view.focus)
        if rect is not None:
            pygame.draw.rect(surface, LIGHT_INK, rect.inflate(self.length(12), self.length(12)), width=self.length(4),
                             border_radius=self.length(12))


def fill_point(rect: pygame.Rect) -> Point:
    """A point of a card showing its plain colour: clear of its border, its mark and its corner word."""
    return rect.x + round(rect.w * 0.8), rect.y + round(rect.h * 0.87)


def _turn_text(view: TableView) -> str:
    if view.game is None:
        return ""
    if view.winners:
        return "Won: " + ", ".join(seat_name(w, view.you) for w in view.winners)
    seat = view.waiting_for
    if seat is None:
        return "Setting up the table"
    if seat == view.you:
        return "Your turn"
    return f"{seat_name(seat)} ({seat_colour_name(seat)}) to play"


def _member_order(card: str) -> int:
    return {"mother": 0, "father": 1, "kittens": 2}.get(card.rsplit("-", 1)[-1], 3)


def _seat_facts(seat: SeatView, view: TableView) -> str:
    facts = []
    if seat.hand is not None and seat.seat != view.you:
        facts.append(f"{seat.hand} card{'s' if seat.hand != 1 else ''}")
    if seat.ship is not None:
        facts.append(f"ship {seat.ship} of {view.wins_needed}" if view.wins_needed else f"ship {seat.ship}")
    if seat.families is not None:
        facts.append(f"families {seat.families}")
    if seat.score is not None:
        facts.append(f"score {seat.score}")
    if seat.police:
        facts.append("has the policecat")
    return "  ·  ".join(facts)
