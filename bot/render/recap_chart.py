"""The recap's picture: each character's VIT over the period, one line each, with its falls,
Last Gasps, death and retirement marked (docs/commands.md, `/recap`).

Pure, like bot/render/pictures.py: plain values in, PNG bytes out, the same bytes for the same
values (no metadata, no clock). Drawn on the pictures' own dark panel, so that it reads the same
on Discord's dark and light themes, twice as large and then shrunk, for smooth lines. The
bundled font covers ASCII only: a name is drawn as far as it can be (`drawable`).
"""

from __future__ import annotations

import io
import itertools
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

from bot.render.pictures import DEAD, DOWN, GRID, INK, MUTED, PANEL, RETIRED, RGB, SURVIVED

RECAP_FILENAME = "recap.png"
RECAP_SIZE = (1000, 540)
LINES_LIMIT = 6  # more lines than this cannot be told apart: the rest are counted
SCALE = 2  # drawn twice as large, then shrunk

# The lines: bright on the dark panel, apart in lightness too, and none of the marks' colours
# (gold, crimson, orange, grey), so that a mark never reads as a line.
LINE_COLOURS: tuple[RGB, ...] = (
    (0x5A, 0xB8, 0xFF),  # sky blue
    (0xC9, 0xF2, 0x6B),  # lime
    (0xB3, 0x8C, 0xFF),  # violet
    (0x3F, 0xE0, 0xD0),  # teal
    (0xFF, 0x7A, 0xC8),  # pink
    (0xE6, 0xE8, 0xEE),  # white
)
DOWN_BAND: RGB = (0x2C, 0x1D, 0x25)  # VIT 0 and below, faintly red
ZERO: RGB = (0x8A, 0x6E, 0x78)

_PLOT_LEFT, _PLOT_RIGHT, _PLOT_TOP, _PLOT_BOTTOM = 84, 690, 84, 452
_LEGEND_LEFT, _LEGEND_RIGHT = 716, 984
_MARK_CELL = 20  # one mark to a square this size at most


class MarkKind(StrEnum):
    """The most telling first (rules.recap.Kind's order)."""

    SURVIVED = "survived"  # a Crit on the Last Gasp
    DIED = "died"  # V-5
    RETIRED = "retired"  # E-7
    FALL = "fall"  # V-2..V-4: down from Up


# What the legend says of each mark, in words for a player who never read the rules.
MARK_WORDS = {
    MarkKind.FALL: "goes down",
    MarkKind.SURVIVED: "survives a Last Gasp",
    MarkKind.DIED: "dies",
    MarkKind.RETIRED: "retires (too much Stress)",
}
DOWN_WORDS = "down: VIT 0 or less"
MARK_COLOURS = {
    MarkKind.FALL: DOWN,
    MarkKind.SURVIVED: SURVIVED,
    MarkKind.DIED: DEAD,
    MarkKind.RETIRED: RETIRED,
}


@dataclass(frozen=True)
class Mark:
    kind: MarkKind
    x: int  # the change it came with: after it
    vit: int


@dataclass(frozen=True)
class Line:
    """One character: `points` (x, VIT) where its VIT changed, the first where it starts;
    held until `until`."""

    label: str
    points: tuple[tuple[int, int], ...]
    until: int
    marks: tuple[Mark, ...] = ()


def drawable(name: str, limit: int = 40) -> str:
    """The name as the bundled font can draw it: accents dropped (`Éowyn` → `Eowyn`), what it
    cannot draw left out (an emoji), spaces tidied; `?` when nothing is left."""
    plain = unicodedata.normalize("NFKD", name)
    kept = "".join(c for c in plain if c.isascii() and c.isprintable())
    kept = re.sub(r"\s+", " ", kept).strip()
    return kept[:limit] or "?"


@lru_cache(maxsize=16)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size * SCALE)


def _png(image: Image.Image) -> bytes:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", compress_level=1)  # no metadata: same bytes every time
    return buffer.getvalue()


def _fitted(text: str, width: float, size: int) -> str:
    """`text` cut with an ellipsis to fit `width` pixels (of the final picture)."""
    font = _font(size)
    if font.getlength(text) <= width * SCALE:
        return text
    while text and font.getlength(text + "…") > width * SCALE:
        text = text[:-1]
    return text.rstrip() + "…"


def _nice_step(span: float) -> int:
    """A tick step of 1, 2 or 5 times a power of ten: at most six ticks."""
    step, factors = 1, itertools.cycle((2, 2.5, 2))  # 1, 2, 5, 10, 20, 50 …
    while span / step > 6:
        step = round(step * next(factors))
    return step


class _Plot:
    """Pixel positions of (x, VIT), in the doubled picture."""

    def __init__(self, steps: int, low: int, high: int) -> None:
        self.steps = max(steps, 1)
        self.low, self.high = low, high

    def x(self, x: float) -> float:
        return (_PLOT_LEFT + x / self.steps * (_PLOT_RIGHT - _PLOT_LEFT)) * SCALE

    def y(self, vit: float) -> float:
        share = (vit - self.low) / (self.high - self.low)
        return (_PLOT_BOTTOM - share * (_PLOT_BOTTOM - _PLOT_TOP)) * SCALE


def _range(lines: Sequence[Line]) -> tuple[int, int]:
    values = [vit for line in lines for _, vit in line.points] or [0]
    low, high = min(*values, 0), max(*values, 1)
    pad = max(1, round((high - low) * 0.08))
    return low - pad, high + pad


def _draw_axes(draw: ImageDraw.ImageDraw, plot: _Plot) -> None:
    s = SCALE
    zero = plot.y(0)
    bottom = _PLOT_BOTTOM * s
    if zero < bottom:
        draw.rectangle((_PLOT_LEFT * s, zero, _PLOT_RIGHT * s, bottom), fill=DOWN_BAND)
    step = _nice_step(plot.high - plot.low)
    tick = -(-plot.low // step) * step
    while tick <= plot.high:
        y = plot.y(tick)
        colour = ZERO if tick == 0 else GRID
        draw.line([(_PLOT_LEFT * s, y), (_PLOT_RIGHT * s, y)], fill=colour, width=2 * s)
        draw.text(((_PLOT_LEFT - 10) * s, y), str(tick), font=_font(22), fill=MUTED, anchor="rm")
        tick += step
    draw.text(
        ((_PLOT_LEFT - 10) * s, (_PLOT_TOP - 20) * s),
        "VIT",
        font=_font(20),
        fill=MUTED,
        anchor="rm",
    )
    y = (_PLOT_BOTTOM + 14) * s
    draw.text((_PLOT_LEFT * s, y), "start", font=_font(22), fill=MUTED, anchor="lt")
    draw.text((_PLOT_RIGHT * s, y), "end", font=_font(22), fill=MUTED, anchor="rt")
    middle = (_PLOT_LEFT + _PLOT_RIGHT) / 2 * s
    draw.text(
        (middle, y), "one step = one change, in order", font=_font(22), fill=MUTED, anchor="mt"
    )


def _path(plot: _Plot, line: Line) -> list[tuple[float, float]]:
    """The line's pixels: VIT holds between changes (a step from each value to the next). A
    long night has many changes to a pixel column: each column keeps its first, lowest, highest
    and last value, which draws the same and stays short."""
    columns: dict[int, list[float]] = {}  # pixel column -> its values (y), in order
    y = 0.0
    for x, vit in line.points:
        column = round(plot.x(x))
        values = columns.setdefault(column, [y] if columns else [])
        y = plot.y(vit)
        values.append(y)
    columns.setdefault(round(plot.x(line.until)), []).append(y)
    path: list[tuple[float, float]] = []
    for column, values in columns.items():
        if len(values) > 4:
            values = [values[0], min(values), max(values), values[-1]]
        path += [(column, v) for v in values]
    return path


def _draw_line(draw: ImageDraw.ImageDraw, plot: _Plot, line: Line, colour: RGB) -> None:
    path = _path(plot, line)
    joint = "curve" if len(path) < 400 else None  # round corners, where there are few
    draw.line(path, fill=colour, width=3 * SCALE, joint=joint)


def _thinned(plot: _Plot, marks: Sequence[Mark]) -> list[Mark]:
    """At most one mark to a spot the size of a mark, the most telling (MarkKind's order): a
    long night's hundred falls stay readable (and are drawn in a fraction of the time)."""
    cell = _MARK_CELL * SCALE
    kept: dict[tuple[int, int], Mark] = {}
    order = list(MarkKind)
    for mark in marks:
        spot = (int(plot.x(mark.x) // cell), int(plot.y(mark.vit) // cell))
        other = kept.get(spot)
        if other is None or order.index(mark.kind) < order.index(other.kind):
            kept[spot] = mark
    # Drawn least telling first: a death's ✕ over a fall's ▼ close by.
    return sorted(kept.values(), key=lambda m: order.index(m.kind), reverse=True)


def _draw_mark(draw: ImageDraw.ImageDraw, kind: MarkKind, cx: float, cy: float) -> None:
    """A shape per kind in its colour, on a rim of the panel (a line under it shows a gap):
    ▼ a fall, a star a Last Gasp survived, ✕ a death, ◆ a retirement."""
    r, rim = 11 * SCALE, 3 * SCALE
    colour = MARK_COLOURS[kind]
    if kind is MarkKind.DIED:
        for width, fill in ((9 * SCALE, PANEL), (4 * SCALE, colour)):
            draw.line([(cx - r, cy - r), (cx + r, cy + r)], fill=fill, width=width)
            draw.line([(cx - r, cy + r), (cx + r, cy - r)], fill=fill, width=width)
        return
    for size, fill in ((r + rim, PANEL), (r, colour)):
        draw.polygon(_shape(kind, cx, cy, size), fill=fill)


def _shape(kind: MarkKind, cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    if kind is MarkKind.FALL:
        return [(cx - r, cy - r * 0.8), (cx + r, cy - r * 0.8), (cx, cy + r)]
    if kind is MarkKind.SURVIVED:
        return _star(cx, cy, r * 1.5)
    return [(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)]


def _star(cx: float, cy: float, r: float) -> list[tuple[float, float]]:
    # A five-pointed star, its points and inner corners alternating (unit circle, fixed).
    unit = (
        (0.0, -1.0),
        (0.225, -0.309),
        (0.951, -0.309),
        (0.363, 0.118),
        (0.588, 0.809),
        (0.0, 0.382),
        (-0.588, 0.809),
        (-0.363, 0.118),
        (-0.951, -0.309),
        (-0.225, -0.309),
    )
    return [(cx + dx * r, cy + dy * r) for dx, dy in unit]


def _draw_legend(
    draw: ImageDraw.ImageDraw, lines: Sequence[Line], left_out: int, kinds: Sequence[MarkKind]
) -> None:
    s = SCALE
    x, y = _LEGEND_LEFT, _PLOT_TOP + 6
    width = _LEGEND_RIGHT - x - 34
    for line, colour in zip(lines, LINE_COLOURS, strict=False):
        draw.line([(x * s, y * s), ((x + 24) * s, y * s)], fill=colour, width=5 * s)
        text = _fitted(line.label, width, 24)
        draw.text(((x + 34) * s, y * s), text, font=_font(24), fill=INK, anchor="lm")
        y += 34
    if left_out:
        more = f"+{left_out} more, not drawn"
        draw.text((x * s, y * s), more, font=_font(20), fill=MUTED, anchor="lm")
        y += 34
    y += 12
    # What the shaded band means, for a player who never read the rules (V-2..V-4).
    draw.rectangle((x * s, (y - 10) * s, (x + 24) * s, (y + 10) * s), fill=DOWN_BAND)
    draw.line([(x * s, (y - 10) * s), ((x + 24) * s, (y - 10) * s)], fill=ZERO, width=2 * s)
    text = _fitted(DOWN_WORDS, width, 21)
    draw.text(((x + 34) * s, y * s), text, font=_font(21), fill=INK, anchor="lm")
    y += 34
    for kind in kinds:
        _draw_mark(draw, kind, (x + 12) * s, y * s)
        text = _fitted(MARK_WORDS[kind], width, 21)
        draw.text(((x + 34) * s, y * s), text, font=_font(21), fill=INK, anchor="lm")
        y += 34


def recap_chart_png(
    lines: Sequence[Line], steps: int, *, title: str = "VIT, change by change", left_out: int = 0
) -> bytes:
    """At most LINES_LIMIT lines over `steps` changes (x from 0 to `steps`); `left_out`
    characters more are counted in the legend, which names the marks drawn. `title`: ASCII."""
    if not 1 <= len(lines) <= LINES_LIMIT:
        raise ValueError(f"Draw 1 to {LINES_LIMIT} lines, not {len(lines)}.")
    if any(not line.points for line in lines):
        raise ValueError("Every line starts somewhere: give it a point.")
    width, height = RECAP_SIZE
    image = Image.new("RGB", (width * SCALE, height * SCALE), PANEL)
    draw = ImageDraw.Draw(image)
    title = _fitted(drawable(title, 80), _LEGEND_RIGHT - 28, 30)
    draw.text((28 * SCALE, 36 * SCALE), title, font=_font(30), fill=INK, anchor="lm")
    plot = _Plot(steps, *_range(lines))
    _draw_axes(draw, plot)
    colours = list(zip(lines, LINE_COLOURS, strict=False))
    for line, colour in reversed(colours):  # the first line (the most dramatic) on top
        _draw_line(draw, plot, line, colour)
    marks = _thinned(plot, [mark for line in lines for mark in line.marks])
    for mark in marks:
        _draw_mark(draw, mark.kind, plot.x(mark.x), plot.y(mark.vit))
    # The legend in the order a story goes: a fall, then what came of it.
    drawn = {m.kind for m in marks}
    kinds = [k for k in (MarkKind.FALL, *list(MarkKind)[:-1]) if k in drawn]
    _draw_legend(draw, lines, left_out, kinds)
    return _png(image.reduce(SCALE))  # the mean of each 2×2: smooth edges, and fast
