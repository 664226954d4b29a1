"""The recap's picture (bot/render/recap_chart.py): its size, byte-for-byte repeatable, the
lines and the marks drawn where the story put them, a long night thinned, names the bundled
font can draw."""

from __future__ import annotations

import io
import struct
from collections.abc import Iterator

import pytest
from PIL import Image

from bot.render.pictures import DEAD, DOWN, PANEL, RETIRED, SURVIVED
from bot.render.recap_chart import (
    LINE_COLOURS,
    LINES_LIMIT,
    RECAP_SIZE,
    Line,
    Mark,
    MarkKind,
    drawable,
    recap_chart_png,
)

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PLOT = (84, 84, 690, 452)  # left, top, right, bottom
LEGEND = (700, 60, 1000, 540)
RGB = tuple[int, int, int]


def open_png(data: bytes) -> Image.Image:
    assert data.startswith(PNG_SIGNATURE)
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    return image.convert("RGB")


def chunks(data: bytes) -> Iterator[bytes]:
    at = len(PNG_SIGNATURE)
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        yield data[at + 4 : at + 8]
        at += 12 + length


def pixels(image: Image.Image, colour: RGB, box: tuple[int, int, int, int] = PLOT) -> int:
    return sum(n for n, c in image.crop(box).getcolors(1 << 24) or [] if c == colour)


def spots(image: Image.Image, colour: RGB, box: tuple[int, int, int, int] = PLOT) -> int:
    """Separate patches of exactly this colour (4-connected) bigger than a stray pixel."""
    left, top, right, bottom = box
    kept = {
        (x, y)
        for x in range(left, right)
        for y in range(top, bottom)
        if image.getpixel((x, y)) == colour
    }
    found = 0
    while kept:
        stack = [kept.pop()]
        size = 1
        while stack:
            x, y = stack.pop()
            for near in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if near in kept:
                    kept.remove(near)
                    stack.append(near)
                    size += 1
        found += size > 10
    return found


# A night: Roryn falls to Dying (step 1), survives its Last Gasp (step 2), wakes (step 4);
# Sera falls (step 3) and dies on hers (step 5); Bram retires (step 6).
NIGHT = [
    Line(
        "Roryn",
        ((0, 3), (1, -3), (2, 0), (4, 2)),
        6,
        (Mark(MarkKind.FALL, 1, -3), Mark(MarkKind.SURVIVED, 2, 0)),
    ),
    Line("Sera", ((0, 2), (3, -2)), 6, (Mark(MarkKind.FALL, 3, -2), Mark(MarkKind.DIED, 5, -2))),
    Line("Bram", ((0, 4), (6, 3)), 6, (Mark(MarkKind.RETIRED, 6, 3),)),
]


def test_a_png_of_its_size_with_no_metadata():
    data = recap_chart_png(NIGHT, 6)
    assert open_png(data).size == RECAP_SIZE
    assert set(chunks(data)) <= {b"IHDR", b"IDAT", b"IEND"}


def test_the_same_story_gives_the_same_bytes():
    assert recap_chart_png(NIGHT, 6, title="VIT on day 2") == recap_chart_png(
        NIGHT, 6, title="VIT on day 2"
    )
    assert recap_chart_png(NIGHT, 6) != recap_chart_png(NIGHT[:2], 6)


def test_every_mark_is_drawn_once_in_its_colour():
    image = open_png(recap_chart_png(NIGHT, 6))
    assert spots(image, DOWN) == 2  # two falls
    assert spots(image, SURVIVED) == 1  # one Last Gasp survived
    assert spots(image, DEAD) == 1  # one death
    assert spots(image, RETIRED) == 1  # one retirement


def test_the_legend_names_only_the_marks_drawn():
    """The legend shows a sample of each mark it explains: none for a night without deaths."""
    quiet = [Line("Roryn", ((0, 3), (1, 0)), 2, (Mark(MarkKind.FALL, 1, 0),))]
    image = open_png(recap_chart_png(quiet, 2))
    assert spots(image, DOWN, LEGEND) == 1
    assert pixels(image, SURVIVED, LEGEND) == pixels(image, DEAD, LEGEND) == 0
    full = open_png(recap_chart_png(NIGHT, 6))
    for colour in (DOWN, SURVIVED, DEAD, RETIRED):
        assert spots(full, colour, LEGEND) == 1


def test_a_night_without_a_mark_draws_none():
    calm = [Line("Roryn", ((0, 10), (2, 7)), 4), Line("Sera", ((1, 8),), 4)]
    image = open_png(recap_chart_png(calm, 4))
    for colour in (DOWN, SURVIVED, DEAD, RETIRED):
        assert pixels(image, colour, (0, 0, *RECAP_SIZE)) == 0


def test_each_line_in_its_colour_from_where_it_starts():
    image = open_png(recap_chart_png(NIGHT, 6))
    for colour in LINE_COLOURS[: len(NIGHT)]:
        assert pixels(image, colour) > 100, colour
    for colour in LINE_COLOURS[len(NIGHT) :]:
        assert pixels(image, colour) == 0
    # A character created halfway: nothing of its colour in the first half of the plot.
    late = [Line("Roryn", ((0, 5),), 10), Line("New", ((5, 8), (8, 2)), 10)]
    image = open_png(recap_chart_png(late, 10))
    left, top, right, bottom = PLOT
    middle = (left + right) // 2
    assert pixels(image, LINE_COLOURS[1], (left, top, middle - 4, bottom)) == 0
    assert pixels(image, LINE_COLOURS[1], (middle + 4, top, right, bottom)) > 100


def test_the_below_zero_band_is_drawn_only_when_vit_goes_there():
    from bot.render.recap_chart import DOWN_BAND

    up = open_png(recap_chart_png([Line("Roryn", ((0, 10), (1, 6)), 2)], 2))
    down = open_png(recap_chart_png(NIGHT, 6))
    # The range always shows VIT 0 (and a little below): the band is there, small when all
    # stay up, and larger when VIT went below 0.
    assert pixels(down, DOWN_BAND) > pixels(up, DOWN_BAND)


def test_a_long_night_is_thinned_to_one_mark_a_spot():
    """A hundred falls at one VIT within a few steps draw as the marks of one spot: the same
    picture a few falls make (and in a fraction of the time)."""
    many = tuple(Mark(MarkKind.FALL, 5000 + i, -1) for i in range(100))
    few = many[:1]
    points = ((0, 5), (5000, -1), (5100, -1))
    a = open_png(recap_chart_png([Line("Roryn", points, 10_000, many)], 10_000))
    b = open_png(recap_chart_png([Line("Roryn", points, 10_000, few)], 10_000))
    assert pixels(a, DOWN) == pixels(b, DOWN) > 0


def test_a_death_is_drawn_over_a_fall_at_the_same_spot():
    same = [
        Line(
            "Roryn",
            ((0, 2), (1, -3)),
            3,
            (Mark(MarkKind.FALL, 1, -3), Mark(MarkKind.DIED, 1, -3)),
        )
    ]
    image = open_png(recap_chart_png(same, 3))
    assert spots(image, DEAD) == 1 and pixels(image, DOWN) == 0


def test_a_line_with_thousands_of_changes_draws_fast_enough_to_be_bounded():
    """Ten thousand changes of one line: kept to a few points a pixel column (no timing here:
    the path is bounded by the plot's width)."""
    from bot.render.recap_chart import _path, _Plot

    points = tuple((x, (x * 7) % 13 - 3) for x in range(10_000))
    path = _path(_Plot(10_000, -4, 10), Line("Roryn", points, 10_000))
    assert len(path) <= 4 * 2 * (PLOT[2] - PLOT[0]) + 8


def test_at_most_six_lines():
    lines = [Line(f"C{i}", ((0, i),), 1) for i in range(LINES_LIMIT + 1)]
    recap_chart_png(lines[:LINES_LIMIT], 1, left_out=3)
    with pytest.raises(ValueError, match="1 to 6 lines"):
        recap_chart_png(lines, 1)
    with pytest.raises(ValueError):
        recap_chart_png([], 1)


@pytest.mark.parametrize(
    ("name", "drawn"),
    [
        ("Roryn", "Roryn"),
        ("Éowyn", "Eowyn"),
        ("Gus 🧙‍♂️ the Grey", "Gus the Grey"),
        ("日本", "?"),
        ("**Sir** @everyone", "**Sir** @everyone"),  # a picture formats nothing, pings nobody
    ],
)
def test_names_as_the_bundled_font_draws_them(name, drawn):
    assert drawable(name) == drawn


def test_the_panel_is_the_pictures_own():
    image = open_png(recap_chart_png(NIGHT, 6))
    assert image.getpixel((5, 5)) == PANEL
