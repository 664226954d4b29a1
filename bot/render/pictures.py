"""Pictures the bot draws itself with Pillow: die-face emoji, the Last Gasp banner, the odds chart.

Pure functions from plain values to PNG bytes: no Discord, no database. The same inputs give the
same bytes (no timestamps, no metadata, no randomness), so pictures can be cached and tested.
Everything is drawn here; the only borrowed asset is Pillow's own bundled default font.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFilter, ImageFont

RGB = tuple[int, int, int]
PictureFile = tuple[str, bytes]  # (file name, PNG bytes), ready for a discord.File

MISS, HIT, CRIT = "M", "H", "C"
FACES = (MISS, HIT, CRIT)
FACE_WORDS = {MISS: "Miss", HIT: "Hit", CRIT: "Crit"}

# Discord emoji names: 2-32 characters of [A-Za-z0-9_].
EMOJI_NAMES = {MISS: "lg_miss", HIT: "lg_hit", CRIT: "lg_crit"}
STRUCK_MISS_EMOJI_NAME = "lg_miss_rerolled"

LAST_GASP_FILENAME = "last-gasp.png"
ODDS_FILENAME = "odds.png"

EMOJI_SIZE = 128  # Discord shows application emoji at 128x128 at most
LAST_GASP_SIZE = (800, 300)
ODDS_SIZE = (800, 480)
VERDICT_LIMIT = 20
TITLE_LIMIT = 40
ODDS_ROLLS_LIMIT = 10

# Discord's own chat backgrounds: emoji sit on them with no panel of their own.
DISCORD_DARK: RGB = (0x31, 0x33, 0x38)
DISCORD_LIGHT: RGB = (0xFF, 0xFF, 0xFF)

# The palette. Emoji: a light body for the dark theme, a dark outline for the light theme.
OUTLINE: RGB = (0x18, 0x19, 0x1D)
PIP: RGB = OUTLINE
BODY: dict[str, RGB] = {
    MISS: (0x9A, 0x9F, 0xA8),  # muted grey: nothing happened
    HIT: (0xF6, 0xF2, 0xE8),  # ivory, like a real die
    CRIT: (0xFF, 0xB8, 0x1F),  # gold: a Crit must jump out of a row of dice
}
LIP: dict[str, RGB] = {  # the darker edge under the face that makes the body read as a cube
    MISS: (0x6E, 0x73, 0x7C),
    HIT: (0xC4, 0xBD, 0xAC),
    CRIT: (0xD9, 0x7A, 0x06),
}
STRIKE: RGB = (0xF0, 0x3E, 0x4E)  # the line through a rerolled Miss

# Banner and chart: drawn on their own dark panel, so they look the same on either theme.
PANEL: RGB = (0x16, 0x17, 0x1B)
INK: RGB = (0xF2, 0xF3, 0xF5)  # main text
MUTED: RGB = (0xA9, 0xAE, 0xB8)  # secondary text
GRID: RGB = (0x3A, 0x3D, 0x45)
SURVIVED: RGB = (0xFF, 0xC8, 0x3D)  # hopeful gold, the Crit's own colour
DEAD: RGB = (0xF0, 0x3E, 0x4E)  # crimson, bright enough for Discord's dark theme
# Up, Down and Dead differ in lightness as well as hue, for colour-blind eyes.
UP: RGB = (0x5B, 0xF0, 0xA0)
DOWN: RGB = (0xEE, 0x8A, 0x1A)
RETIRED: RGB = (0x80, 0x8B, 0x96)  # the grey of Retired everywhere (bot.render.common)
LABEL_ON_BAR: RGB = PANEL  # percentages printed inside the bright bar segments

SUPERSAMPLE = 4  # draw big and shrink: smooth edges without Pillow's aliased primitives


# --- shared helpers ---------------------------------------------------------------------------


def _png(image: Image.Image) -> bytes:
    """PNG bytes with no metadata chunks (Pillow writes none unless given `pnginfo`)."""
    buffer = io.BytesIO()
    # compress_level 1: a few KB more, ten times less CPU (a reply waits on this)
    image.save(buffer, format="PNG", compress_level=1)
    return buffer.getvalue()


@lru_cache(maxsize=32)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's bundled scalable font; a bitmap fallback only where FreeType is missing."""
    return ImageFont.load_default(size=size)


def _check_face(face: str) -> None:
    if face not in FACES:
        raise ValueError(f"A die face is one of M, H, C, not {face!r}.")


def _check_ascii(text: str, what: str, limit: int) -> None:
    """The bundled font covers ASCII only, and a long line would not fit."""
    if not text or len(text) > limit or not (text.isascii() and text.isprintable()):
        raise ValueError(f"{what} must be 1 to {limit} printable ASCII characters: {text!r}.")


def _shrink(image: Image.Image, size: tuple[int, int]) -> Image.Image:
    # Pillow resizes RGBA in premultiplied alpha, so transparent edges stay clean.
    return image.resize(size, Image.Resampling.LANCZOS)


# --- die faces --------------------------------------------------------------------------------

# Geometry on a 128-unit square, scaled to any size.
_BODY_BOX = (6, 7, 122, 122)
_BODY_RADIUS = 28
_OUTLINE_WIDTH = 8
_FACE_BOTTOM = 104  # the face ends here; below it, the lip
_PIP_RADIUS = {HIT: 17, CRIT: 15}
_PIPS: dict[str, tuple[tuple[int, int], ...]] = {
    MISS: (),
    HIT: ((64, 60),),
    CRIT: ((41, 37), (87, 83)),  # diagonal, as on a real die's two
}


def _scaled(box: Sequence[float], k: float) -> list[float]:
    return [v * k for v in box]


def _draw_die(face: str, px: int) -> Image.Image:
    """One die on a transparent `px` square, unsmoothed (the caller shrinks it)."""
    image = Image.new("RGBA", (px, px), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    k = px / 128
    left, top, right, bottom = _BODY_BOX
    inset = _OUTLINE_WIDTH
    draw.rounded_rectangle(_scaled(_BODY_BOX, k), radius=_BODY_RADIUS * k, fill=OUTLINE)
    inner = (left + inset, top + inset, right - inset, bottom - inset)
    inner_radius = (_BODY_RADIUS - inset) * k
    draw.rounded_rectangle(_scaled(inner, k), radius=inner_radius, fill=LIP[face])
    face_box = (inner[0], inner[1], inner[2], _FACE_BOTTOM)
    draw.rounded_rectangle(_scaled(face_box, k), radius=inner_radius, fill=BODY[face])
    for x, y in _PIPS[face]:
        r = _PIP_RADIUS[face]
        draw.ellipse(_scaled((x - r, y - r, x + r, y + r), k), fill=PIP)
    return image


def _die_image(face: str, size: int) -> Image.Image:
    _check_face(face)
    return _shrink(_draw_die(face, size * SUPERSAMPLE), (size, size))


def _fade(image: Image.Image, opacity: float) -> Image.Image:
    alpha = image.getchannel("A").point(lambda a: round(a * opacity))
    faded = image.copy()
    faded.putalpha(alpha)
    return faded


def _struck_miss_image(size: int) -> Image.Image:
    """A faded Miss with a crimson slash: the die that advantage rerolled."""
    px = size * SUPERSAMPLE
    image = _fade(_draw_die(MISS, px), 0.55)
    draw = ImageDraw.Draw(image)
    k = px / 128
    start, end = (16 * k, 110 * k), (112 * k, 18 * k)
    # A dark rim under the slash keeps it visible on the light theme and over the grey body.
    for colour, width in ((OUTLINE, 22), (STRIKE, 12)):
        draw.line([start, end], fill=colour, width=round(width * k))
        for x, y in (start, end):
            r = width * k / 2
            draw.ellipse((x - r, y - r, x + r, y + r), fill=colour)
    return _shrink(image, (size, size))


def _check_size(size: int) -> None:
    if not 16 <= size <= 512:
        raise ValueError(f"Draw a die 16 to 512 pixels wide, not {size}.")


def die_face_png(face: str, size: int = EMOJI_SIZE) -> bytes:
    """One die face as a square emoji with a transparent background: M blank, H one pip, C two."""
    _check_size(size)
    return _png(_die_image(face, size))


def struck_miss_png(size: int = EMOJI_SIZE) -> bytes:
    """A Miss crossed out, for a die that advantage rerolled (emoji `lg_miss_rerolled`)."""
    _check_size(size)
    return _png(_struck_miss_image(size))


def emoji_files() -> list[PictureFile]:
    """Every emoji the bot uploads, as (emoji name, PNG bytes)."""
    files = [(EMOJI_NAMES[face], die_face_png(face)) for face in FACES]
    return [*files, (STRUCK_MISS_EMOJI_NAME, struck_miss_png())]


# --- the Last Gasp banner ---------------------------------------------------------------------


def _glow(size: tuple[int, int], centre: tuple[int, int], radius: int, colour: RGB) -> Image.Image:
    """A soft light behind the die, in the verdict's colour."""
    layer = Image.new("RGBA", size, (*colour, 0))
    x, y = centre
    ImageDraw.Draw(layer).ellipse(
        (x - radius, y - radius, x + radius, y + radius), fill=(*colour, 90)
    )
    return layer.filter(ImageFilter.GaussianBlur(radius / 2))


def _stroke(size: int) -> int:
    """A stroke in the text's own colour: the bundled font has no bold weight."""
    return max(1, size // 32)


def _fit_size(text: str, width: float, largest: int, smallest: int) -> int:
    """The largest font size at which `text`, stroked, fits `width` pixels."""
    size = largest
    while size > smallest and _font(size).getlength(text) + 2 * _stroke(size) > width:
        size -= 1
    return size


def _draw_arrow(draw: ImageDraw.ImageDraw, x0: int, x1: int, y: int, colour: RGB) -> None:
    draw.line([(x0, y), (x1 - 10, y)], fill=colour, width=6)
    draw.polygon([(x1, y), (x1 - 16, y - 12), (x1 - 16, y + 12)], fill=colour)


def _roll_caption(face: str, rerolled_from: str | None) -> str:
    if rerolled_from is None:
        return f"Rolled a {FACE_WORDS[face]}"
    return f"{FACE_WORDS[rerolled_from]} rerolled: {FACE_WORDS[face]}"


@lru_cache(maxsize=32)  # a handful of variants: each drawn once per process
def last_gasp_png(face: str, *, rerolled_from: str | None, survived: bool, verdict: str) -> bytes:
    """The Last Gasp as a wide banner: the die, big, and the verdict in its colour.

    `rerolled_from="M"` shows the Miss that advantage rerolled, struck out beside the die.
    `verdict` is drawn as given (a short ASCII phrase such as "SURVIVES"); names never are.
    """
    _check_face(face)
    if rerolled_from not in (None, MISS):
        raise ValueError(f"Advantage rerolls a Miss only, not {rerolled_from!r}.")
    _check_ascii(verdict, "The verdict", VERDICT_LIMIT)
    width, height = LAST_GASP_SIZE
    accent = SURVIVED if survived else DEAD
    image = Image.new("RGBA", (width, height), (*PANEL, 255))

    die_size, die_top = 200, 44
    die_left = 180 if rerolled_from else 48
    die_centre = (die_left + die_size // 2, die_top + die_size // 2)
    image.alpha_composite(_glow((width, height), die_centre, 130, accent))
    image.alpha_composite(_die_image(face, die_size), (die_left, die_top))
    draw = ImageDraw.Draw(image)
    if rerolled_from:
        image.alpha_composite(_struck_miss_image(96), (36, die_centre[1] - 48))
        _draw_arrow(draw, 138, die_left - 8, die_centre[1], MUTED)

    text_left = die_left + die_size + 40
    text_width = width - text_left - 36
    draw.text((text_left, 92), "THE LAST GASP", font=_font(30), fill=MUTED, anchor="ls")
    size = _fit_size(verdict, text_width, largest=104, smallest=12)
    draw.text(
        (text_left, 196),
        verdict,
        font=_font(size),
        fill=accent,
        anchor="ls",
        stroke_width=_stroke(size),
        stroke_fill=accent,
    )
    draw.text(
        (text_left, 244), _roll_caption(face, rerolled_from), font=_font(28), fill=INK, anchor="ls"
    )
    draw.rectangle((0, height - 10, width, height), fill=accent)
    return _png(image.convert("RGB"))


# --- the odds chart ---------------------------------------------------------------------------

# Bottom to top, so that death rises from the floor as the rolls go on. Retirement (E-7) comes
# on waking, so it stands on Up: next to Dead or Down its grey would differ in hue only.
ODDS_SERIES: tuple[tuple[str, RGB], ...] = (
    ("Dead", DEAD),
    ("Down", DOWN),
    ("Up", UP),
    ("Retired", RETIRED),
)
LABEL_LIMIT = 5  # "100%", ">99%": a percentage printed on a bar


@dataclass(frozen=True)
class OddsBar:
    """One roll's bar: the exact share of each outcome of ODDS_SERIES (adding up to 1) and the
    percentage printed on it, as the reply's text writes it."""

    roll: int
    shares: tuple[Fraction, ...]
    labels: tuple[str, ...]


_PLOT_LEFT, _PLOT_RIGHT, _PLOT_TOP, _PLOT_BOTTOM = 96, 772, 96, 392


def _check_bars(bars: Sequence[OddsBar]) -> None:
    if not 1 <= len(bars) <= ODDS_ROLLS_LIMIT:
        raise ValueError(f"Chart 1 to {ODDS_ROLLS_LIMIT} rolls, not {len(bars)}.")
    names = [name for name, _ in ODDS_SERIES]
    for bar in bars:
        if len(bar.shares) != len(ODDS_SERIES) or len(bar.labels) != len(ODDS_SERIES):
            raise ValueError(f"Roll {bar.roll}: one share and one label for each of {names}.")
        if any(not 0 <= p <= 1 for p in bar.shares) or sum(bar.shares) != 1:
            raise ValueError(f"Roll {bar.roll}: {names} are chances adding up to 1.")
        for label in bar.labels:
            _check_ascii(label, "A bar's label", LABEL_LIMIT)


def _y(fraction: float) -> int:
    """The pixel row of a share of the bar, 0 at the floor, 1 at the top."""
    return round(_PLOT_BOTTOM - fraction * (_PLOT_BOTTOM - _PLOT_TOP))


def _draw_axes(draw: ImageDraw.ImageDraw) -> None:
    for tick in range(0, 101, 25):
        y = _y(tick / 100)
        draw.line([(_PLOT_LEFT, y), (_PLOT_RIGHT, y)], fill=GRID, width=2)
        draw.text((_PLOT_LEFT - 12, y), f"{tick}%", font=_font(22), fill=MUTED, anchor="rm")


def _draw_bar(draw: ImageDraw.ImageDraw, left: int, right: int, bar: OddsBar) -> None:
    """One stacked bar, the outcomes from the floor up, each labelled where it has room."""
    floor = Fraction(0)
    label_font = _font(_fit_size("100%", right - left - 4, largest=20, smallest=14))
    for (_, colour), share, label in zip(ODDS_SERIES, bar.shares, bar.labels, strict=True):
        top = floor + share  # exact: the last segment ends at the top, never short of it
        y_floor, y_top = _y(float(floor)), _y(float(top))
        if y_floor > y_top:
            draw.rectangle((left, y_top, right, y_floor - 1), fill=colour)
            if y_floor - y_top >= 26:
                centre = ((left + right) / 2, (y_top + y_floor) / 2)
                draw.text(centre, label, font=label_font, fill=LABEL_ON_BAR, anchor="mm")
        floor = top
    # Thin panel-coloured seams keep neighbouring segments apart for colour-blind eyes.
    seam = Fraction(0)
    for share in bar.shares[:-1]:
        seam += share
        y = _y(float(seam))
        if _y(0) > y > _y(1):
            draw.line([(left, y), (right, y)], fill=PANEL, width=2)


def _draw_legend(
    draw: ImageDraw.ImageDraw, right: int, y: int, series: Sequence[tuple[str, RGB]]
) -> int:
    """Drawn right to left, so that it reads top-down ("Up  Down  Dead"); returns its left."""
    font = _font(24)
    x = right
    for name, colour in series:
        x -= round(font.getlength(name))
        draw.text((x, y), name, font=font, fill=INK, anchor="lm")
        x -= 30
        draw.rectangle((x, y - 10, x + 20, y + 10), fill=colour)
        x -= 26
    return x


def odds_chart_png(bars: Sequence[OddsBar], *, title: str | None = None) -> bytes:
    """A stacked bar per recovery roll: the chance of being Dead, still Down, Up or Retired after
    it. The legend names Retired only where a bar has a share of it."""
    _check_bars(bars)
    if title is not None:
        _check_ascii(title, "The title", TITLE_LIMIT)
    width, height = ODDS_SIZE
    image = Image.new("RGB", (width, height), PANEL)
    draw = ImageDraw.Draw(image)
    shown = [
        entry
        for i, entry in enumerate(ODDS_SERIES)
        if entry[0] != "Retired" or any(bar.shares[i] for bar in bars)
    ]
    legend_left = _draw_legend(draw, _PLOT_RIGHT, 44, shown)
    if title:
        size = _fit_size(title, legend_left - 28 - 20, largest=30, smallest=12)
        draw.text((28, 44), title, font=_font(size), fill=INK, anchor="lm")
    _draw_axes(draw)

    # A few rolls get wider bars, but never so wide that one bar fills the chart.
    slot = (_PLOT_RIGHT - _PLOT_LEFT) / max(len(bars), 5)
    offset = _PLOT_LEFT + (_PLOT_RIGHT - _PLOT_LEFT - slot * len(bars)) / 2
    for i, bar in enumerate(bars):
        left = round(offset + i * slot + slot * 0.12)
        right = round(offset + (i + 1) * slot - slot * 0.12)
        _draw_bar(draw, left, right, bar)
        centre = (left + right) / 2
        draw.text(
            (centre, _PLOT_BOTTOM + 10), str(bar.roll), font=_font(22), fill=MUTED, anchor="mt"
        )
    draw.text(
        ((_PLOT_LEFT + _PLOT_RIGHT) / 2, height - 22),
        "after roll",
        font=_font(22),
        fill=MUTED,
        anchor="ms",
    )
    return _png(image)
