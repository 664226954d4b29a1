"""Pictures: valid small PNGs, byte-for-byte repeatable, faces told apart, bars as tall as odds."""

from __future__ import annotations

import hashlib
import io
import itertools
import re
import struct
import subprocess
import sys
from collections.abc import Callable, Iterator
from fractions import Fraction as F
from pathlib import Path

import pytest
from PIL import Image

from bot.render import pictures
from bot.render.common import STATE_COLOURS
from bot.render.odds import chart_bars
from bot.render.pictures import (
    BODY,
    DEAD,
    DISCORD_DARK,
    DISCORD_LIGHT,
    DOWN,
    EMOJI_NAMES,
    INK,
    LABEL_ON_BAR,
    MUTED,
    ODDS_SERIES,
    OUTLINE,
    PANEL,
    PIP,
    RETIRED,
    STRIKE,
    STRUCK_MISS_EMOJI_NAME,
    SURVIVED,
    UP,
    OddsBar,
    die_face_png,
    emoji_files,
    last_gasp_png,
    odds_chart_png,
    struck_miss_png,
)
from rules.models import GuildSettings, Sheet, State
from rules.odds import SpiralStep, spiral

RGB = tuple[int, int, int]
Point = tuple[int, int]
REPO = Path(__file__).resolve().parents[2]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
MIB = 1024 * 1024
EMOJI_LIMIT = 256 * 1024  # Discord's limit for an emoji image


def step(roll: int, up: str, down: str, dead: str, retired: str = "0") -> SpiralStep:
    return SpiralStep(roll, F(up), F(down), F(dead), F(retired))


SPIRAL = [  # a Critical character with RES 2, about as rules.odds.spiral computes it
    step(1, "0", "1", "0"),
    step(2, "0.0509", "0.5324", "0.4167"),
    step(3, "0.1287", "0.3157", "0.5556"),
    step(4, "0.2006", "0.1968", "0.6026"),
    step(5, "0.25", "0.13", "0.62"),
]
# E-7: VIT 0, RES 2, Stress 1: waking at VIT 1 retires (issue 21's "Dead" bar at 35-82%).
RETIRING = spiral(Sheet(name="Roryn", owner_id=1, vit=0, res=2, stress=1), GuildSettings())


def chart(steps: list[SpiralStep], title: str | None = None) -> bytes:
    return odds_chart_png(chart_bars(steps), title=title)


# --- helpers ----------------------------------------------------------------------------------


def open_png(data: bytes) -> Image.Image:
    assert data.startswith(PNG_SIGNATURE)
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG"
    image.load()
    return image


def png_chunks(data: bytes) -> Iterator[bytes]:
    at = len(PNG_SIGNATURE)
    while at < len(data):
        (length,) = struct.unpack(">I", data[at : at + 4])
        yield data[at + 4 : at + 8]
        at += 12 + length


def pixel(image: Image.Image, x: int, y: int) -> tuple[int, ...]:
    value = image.getpixel((x, y))
    assert isinstance(value, tuple)
    return value


def luminance(colour: tuple[int, ...]) -> float:
    """WCAG 2 relative luminance."""

    def linear(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(v) for v in colour[:3])
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: RGB, b: RGB) -> float:
    dark, light = sorted((luminance(a), luminance(b)))
    return (light + 0.05) / (dark + 0.05)


def near(pixel: tuple[int, ...], colour: RGB, tolerance: int = 12) -> bool:
    return all(abs(p - c) <= tolerance for p, c in zip(pixel[:3], colour, strict=True))


def on_background(data: bytes, background: RGB, size: int | None = None) -> Image.Image:
    """An emoji as a chat shows it: shrunk to `size`, over a theme's background."""
    emoji = open_png(data).convert("RGBA")
    if size is not None:
        emoji = emoji.resize((size, size), Image.Resampling.LANCZOS)
    canvas = Image.new("RGBA", emoji.size, (*background, 255))
    canvas.alpha_composite(emoji)
    return canvas.convert("RGB")


Box = tuple[int, int, int, int]  # left, top, right, bottom (exclusive)


def groups(
    image: Image.Image, inside: Box, keep: Callable[[tuple[int, ...]], bool]
) -> list[set[Point]]:
    """The 4-connected groups of kept pixels within the box."""
    left, top, right, bottom = inside
    rgb = image.convert("RGB")
    kept = {
        (x, y) for x in range(left, right) for y in range(top, bottom) if keep(pixel(rgb, x, y))
    }
    found = []
    while kept:
        stack = [kept.pop()]
        group = set(stack)
        while stack:
            x, y = stack.pop()
            for neighbour in ((x + 1, y), (x - 1, y), (x, y + 1), (x, y - 1)):
                if neighbour in kept:
                    kept.remove(neighbour)
                    group.add(neighbour)
                    stack.append(neighbour)
        found.append(group)
    return found


def spots(
    image: Image.Image, inside: Box, keep: Callable[[tuple[int, ...]], bool], smallest: int
) -> int:
    """Groups of kept pixels bigger than `smallest` that lie wholly inside the box.

    Groups touching the box's edge are left out: they are the outline or a corner, not a pip.
    """
    left, top, right, bottom = inside

    def on_edge(x: int, y: int) -> bool:
        return x in (left, right - 1) or y in (top, bottom - 1)

    return sum(
        len(group) > smallest and not any(on_edge(x, y) for x, y in group)
        for group in groups(image, inside, keep)
    )


def box_of(points: set[Point]) -> Box:
    xs, ys = [x for x, _ in points], [y for _, y in points]
    return min(xs), min(ys), max(xs) + 1, max(ys) + 1


def centre_of(points: set[Point]) -> tuple[float, float]:
    return sum(x for x, _ in points) / len(points), sum(y for _, y in points) / len(points)


def die_box(image: Image.Image, face: str) -> Box:
    """Where the die's face is: the biggest patch of its body colour (text edges may share it)."""
    patches = groups(image, (0, 0, *image.size), lambda p: near(p, BODY[face], 2))
    return box_of(max(patches, key=len))


def is_dark(colour: tuple[int, ...]) -> bool:
    return luminance(colour) < 0.05


def colour_box(image: Image.Image, colour: RGB) -> Box:
    """The bounding box of the pixels of exactly one colour."""
    rgb = image.convert("RGB")
    points = {
        (x, y) for y in range(rgb.height) for x in range(rgb.width) if pixel(rgb, x, y) == colour
    }
    assert points, f"no pixel of {colour}"
    return box_of(points)


def count_colour(image: Image.Image, colour: RGB, box: Box | None = None) -> int:
    region = image.convert("RGB").crop(box) if box else image.convert("RGB")
    return sum(n for n, pixel in region.getcolors(1 << 24) or [] if pixel == colour)


def every_picture() -> dict[str, bytes]:
    return {
        **{f"die-{face}": die_face_png(face) for face in "MHC"},
        "die-M-22": die_face_png("M", size=22),
        "struck": struck_miss_png(),
        "gasp-survived": last_gasp_png("C", rerolled_from="M", survived=True, verdict="SURVIVES"),
        "gasp-dead": last_gasp_png("H", rerolled_from=None, survived=False, verdict="DEAD"),
        "odds": chart(SPIRAL, title="Roryn: next 5 rolls"),
        "odds-untitled": chart(SPIRAL[:1]),
        "odds-retiring": chart(RETIRING),
    }


# --- every picture ----------------------------------------------------------------------------


def test_the_same_inputs_give_the_same_bytes() -> None:
    assert every_picture() == every_picture()


def test_the_same_inputs_give_the_same_bytes_in_another_process() -> None:
    """No hash seed, cache or clock may leak into a picture."""
    script = (
        "import hashlib, tests.render.test_pictures as t; "
        "print({k: hashlib.sha256(v).hexdigest() for k, v in t.every_picture().items()})"
    )
    other = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONHASHSEED": "12345", "PATH": ""},
        cwd=REPO,
    )
    here = {k: hashlib.sha256(v).hexdigest() for k, v in every_picture().items()}
    assert other.stdout.strip() == str(here)


def test_pictures_carry_no_metadata() -> None:
    for name, data in every_picture().items():
        chunks = set(png_chunks(data))
        assert chunks <= {b"IHDR", b"PLTE", b"tRNS", b"IDAT", b"IEND"}, name
        assert not open_png(data).info.keys() - {"transparency"}, name


def test_different_inputs_give_different_pictures() -> None:
    pictures_by_name = every_picture()
    assert len(set(pictures_by_name.values())) == len(pictures_by_name)


def test_the_module_needs_neither_discord_nor_the_database() -> None:
    script = (
        "import sys, bot.render.pictures; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('discord', 'sqlalchemy', 'aiosqlite', 'asyncpg') or m.startswith('bot.db')))"
    )
    other = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, cwd=REPO
    )
    assert other.stdout.strip() == "[]"


# --- die-face emoji ---------------------------------------------------------------------------


def test_emoji_names_are_valid_and_distinct() -> None:
    names = [*EMOJI_NAMES.values(), STRUCK_MISS_EMOJI_NAME]
    assert all(re.fullmatch(r"[A-Za-z0-9_]{2,32}", name) for name in names)
    assert len(set(names)) == 4
    assert set(EMOJI_NAMES) == {"M", "H", "C"}


def test_emoji_files_are_every_face_and_the_struck_miss() -> None:
    files = dict(emoji_files())
    assert files == {
        "lg_miss": die_face_png("M"),
        "lg_hit": die_face_png("H"),
        "lg_crit": die_face_png("C"),
        "lg_miss_rerolled": struck_miss_png(),
    }


@pytest.mark.parametrize("data", [*(die_face_png(f) for f in "MHC"), struck_miss_png()])
def test_an_emoji_is_a_small_transparent_square(data: bytes) -> None:
    image = open_png(data)
    assert image.size == (128, 128)
    assert image.mode == "RGBA"
    assert len(data) < EMOJI_LIMIT
    assert pixel(image, 0, 0)[3] == 0  # the corners stay see-through
    assert pixel(image, 127, 127)[3] == 0
    assert pixel(image, 20, 64)[3] > 0  # the body is drawn


@pytest.mark.parametrize("size", [22, 48, 256])
def test_a_die_can_be_drawn_at_any_sensible_size(size: int) -> None:
    assert open_png(die_face_png("H", size=size)).size == (size, size)


@pytest.mark.parametrize(("face", "pips"), [("M", 0), ("H", 1), ("C", 2)])
@pytest.mark.parametrize("theme", [DISCORD_DARK, DISCORD_LIGHT])
def test_a_face_shows_its_pips(face: str, pips: int, theme: RGB) -> None:
    image = on_background(die_face_png(face), theme)
    inside_the_outline = (18, 18, 110, 100)
    assert spots(image, inside_the_outline, is_dark, smallest=50) == pips


@pytest.mark.parametrize(("face", "pips"), [("M", 0), ("H", 1), ("C", 2)])
@pytest.mark.parametrize("theme", [DISCORD_DARK, DISCORD_LIGHT])
def test_pips_survive_the_shrink_to_chat_size(face: str, pips: int, theme: RGB) -> None:
    """At 22 px, as in a chat line, each pip is still a separate dark spot on the face."""
    image = on_background(die_face_png(face), theme, size=22)
    face_box = (3, 3, 19, 18)
    assert spots(image, face_box, lambda p: luminance(p) < 0.12, smallest=0) == pips


def test_a_crits_two_pips_stay_far_apart_at_chat_size() -> None:
    """Pips closer than a few pixels would blur into one dash at 22 px."""
    image = on_background(die_face_png("C"), DISCORD_LIGHT, size=22)
    found = groups(image, (3, 3, 19, 18), lambda p: luminance(p) < 0.12)
    (ax, ay), (bx, by) = (centre_of(group) for group in found)
    assert ((ax - bx) ** 2 + (ay - by) ** 2) ** 0.5 >= 8


@pytest.mark.parametrize("face", ["M", "H", "C"])
def test_a_face_is_drawn_in_its_palette(face: str) -> None:
    image = open_png(die_face_png(face)).convert("RGBA")
    assert near(pixel(image, 10, 64), OUTLINE)
    assert near(pixel(image, 96, 30), BODY[face])  # a spot with no pip on any face


@pytest.mark.parametrize("face", ["M", "H", "C"])
def test_a_die_stands_out_on_both_themes(face: str) -> None:
    """The light body carries it on the dark theme, the dark outline on the light one."""
    assert contrast(BODY[face], DISCORD_DARK) >= 3
    assert contrast(OUTLINE, DISCORD_LIGHT) >= 3
    if face != "M":
        assert contrast(PIP, BODY[face]) >= 4.5


def test_a_crit_is_strongly_coloured_and_the_others_are_not() -> None:
    def saturation(colour: RGB) -> float:
        return (max(colour) - min(colour)) / max(colour)

    assert saturation(BODY["C"]) > 0.8
    assert saturation(BODY["M"]) < 0.15
    assert saturation(BODY["H"]) < 0.15
    assert luminance(BODY["M"]) < luminance(BODY["H"])  # a Miss is the muted one


def test_the_struck_miss_is_a_faded_miss_with_a_slash() -> None:
    struck = open_png(struck_miss_png()).convert("RGBA")
    miss = open_png(die_face_png("M")).convert("RGBA")
    assert near(pixel(struck, 64, 64), STRIKE)  # the slash runs through the centre
    assert pixel(miss, 30, 30)[3] == 255
    assert 0 < pixel(struck, 30, 30)[3] < 200  # the body away from the slash is faded
    assert near(pixel(struck, 30, 30), BODY["M"])


def test_the_slash_shows_on_both_themes() -> None:
    assert contrast(STRIKE, DISCORD_DARK) >= 3
    assert contrast(STRIKE, DISCORD_LIGHT) >= 3


@pytest.mark.parametrize("face", ["X", "", "m", "MH", "Crit"])
def test_an_unknown_face_is_refused(face: str) -> None:
    with pytest.raises(ValueError):
        die_face_png(face)


@pytest.mark.parametrize("size", [0, 15, 513])
def test_a_senseless_size_is_refused(size: int) -> None:
    with pytest.raises(ValueError):
        die_face_png("H", size=size)
    with pytest.raises(ValueError):
        struck_miss_png(size=size)


# --- the Last Gasp banner ---------------------------------------------------------------------


def banner(face: str = "C", **kwargs: object) -> Image.Image:
    arguments: dict[str, object] = {"rerolled_from": None, "survived": True, "verdict": "SURVIVES"}
    arguments.update(kwargs)
    return open_png(last_gasp_png(face, **arguments))  # type: ignore[arg-type]


@pytest.mark.parametrize("rerolled_from", [None, "M"])
@pytest.mark.parametrize("survived", [True, False])
def test_the_banner_is_a_small_wide_picture(rerolled_from: str | None, survived: bool) -> None:
    data = last_gasp_png("C", rerolled_from=rerolled_from, survived=survived, verdict="X" * 20)
    image = open_png(data)
    assert image.size == (800, 300)
    assert len(data) < MIB
    assert pixel(image, 795, 5)[:3] == PANEL  # its own dark panel, whatever the theme


@pytest.mark.parametrize(("face", "pips"), [("M", 0), ("H", 1), ("C", 2)])
def test_the_banner_shows_the_die_rolled(face: str, pips: int) -> None:
    image = banner(face)
    die = die_box(image, face)
    assert die[2] - die[0] >= 150  # large: the die is the picture
    assert spots(image, die, is_dark, smallest=200) == pips


def test_the_verdict_is_big_and_in_the_hopeful_colour_when_the_character_survives() -> None:
    image = banner("C", survived=True, verdict="SURVIVES")
    above_the_stripe = (0, 0, 800, 280)
    left, top, right, bottom = colour_box(image.crop(above_the_stripe), SURVIVED)
    assert bottom - top >= 60
    assert right - left >= 300
    assert count_colour(image, DEAD) == 0


def test_the_verdict_is_crimson_when_the_character_dies() -> None:
    image = banner("H", survived=False, verdict="DEAD")
    left, top, right, bottom = colour_box(image.crop((0, 0, 800, 280)), DEAD)
    assert bottom - top >= 60
    assert right - left >= 200
    assert count_colour(image, SURVIVED) == 0


def test_the_verdict_is_drawn_as_given() -> None:
    assert banner(verdict="SURVIVES").tobytes() != banner(verdict="STABLE").tobytes()


@pytest.mark.parametrize("rerolled_from", [None, "M"])
def test_the_longest_verdict_stays_inside_the_picture(rerolled_from: str | None) -> None:
    image = banner("H", survived=False, verdict="W" * 20, rerolled_from=rerolled_from)
    _, top, right, bottom = colour_box(image.crop((0, 0, 800, 280)), DEAD)
    assert right <= 800 - 16
    assert bottom - top >= 12  # still legible


def test_a_rerolled_miss_is_shown_struck_out_beside_the_die() -> None:
    rerolled = banner("C", rerolled_from="M")
    plain = banner("C", rerolled_from=None)
    die_left = die_box(rerolled, "C")[0]
    beside = (0, 0, die_left, 280)
    assert count_colour(rerolled, STRIKE, beside) > 100
    assert count_colour(plain, STRIKE) == 0


def test_banner_text_is_readable_on_its_panel() -> None:
    for colour in (SURVIVED, DEAD, INK, MUTED):
        assert contrast(colour, PANEL) >= 4.5
    assert contrast(DEAD, DISCORD_DARK) >= 3  # crimson also reads straight on the dark theme


@pytest.mark.parametrize(
    "arguments",
    [
        {"face": "X"},
        {"rerolled_from": "H"},
        {"rerolled_from": "C"},
        {"verdict": ""},
        {"verdict": "A" * 21},
        {"verdict": "MORT ☠"},
        {"verdict": "DEAD\n"},
    ],
)
def test_the_banner_refuses_what_it_cannot_draw(arguments: dict[str, object]) -> None:
    call: dict[str, object] = {
        "face": "C",
        "rerolled_from": None,
        "survived": True,
        "verdict": "SURVIVES",
    }
    call.update(arguments)
    with pytest.raises(ValueError):
        last_gasp_png(**call)  # type: ignore[arg-type]


# --- the odds chart ---------------------------------------------------------------------------


def bar_column(image: Image.Image, x: int) -> dict[RGB, int]:
    """The pixels of each series colour in the bar standing on the lowest one in column `x`.

    Walking up from the floor, the bar ends at the first gap wider than a seam, so the legend's
    swatches above it are not counted.
    """
    counts = {colour: 0 for _, colour in ODDS_SERIES}
    gap = None  # None until the bar starts
    for y in range(image.height - 1, -1, -1):
        here = pixel(image, x, y)
        if here in counts:
            counts[here] += 1
            gap = 0
        elif gap is not None:
            gap += 1
            if gap > 3:
                break
    return counts


def bars(image: Image.Image) -> list[dict[RGB, int]]:
    """Left to right, the pixels of each series colour in one column of each bar.

    A bar is a run of columns with a tall stack of series colours (the swatches are short);
    the column just inside its left edge misses the centred percentages.
    """
    rgb = image.convert("RGB")
    series = {colour for _, colour in ODDS_SERIES}
    found: list[dict[RGB, int]] = []
    inside = False
    for x in range(rgb.width):
        tall = sum(pixel(rgb, x, y) in series for y in range(rgb.height)) > 100
        if tall and not inside:
            found.append(bar_column(rgb, x + 2))
        inside = tall
    return found


def test_the_chart_is_a_small_picture() -> None:
    data = chart(SPIRAL, title="Roryn: next 5 rolls")
    image = open_png(data)
    assert image.size == (800, 480)
    assert len(data) < MIB


SHARES = ((UP, "up"), (DOWN, "down"), (DEAD, "dead"), (RETIRED, "retired"))


@pytest.mark.parametrize("steps", [SPIRAL, SPIRAL[1:2], [*SPIRAL, *SPIRAL], RETIRING])
def test_each_bar_is_split_as_the_odds_are(steps: list[SpiralStep]) -> None:
    found = bars(open_png(chart(steps)))
    assert len(found) == len(steps)
    for counts, odds in zip(found, steps, strict=True):
        height = sum(counts.values())
        for colour, name in SHARES:
            assert counts[colour] / height == pytest.approx(float(getattr(odds, name)), abs=0.02)


def test_E_7_retirement_is_its_own_grey_bar_never_dead() -> None:
    """Issue 21: VIT 0, RES 2, Stress 1 has no chance to die, and 28% to retire on the first
    roll (waking at VIT 1: 10/36); the chart once drew that as a red "Dead" bar."""
    first = chart_bars(RETIRING)[0]
    names = [name for name, _ in ODDS_SERIES]
    assert dict(zip(names, first.shares, strict=True)) == {
        "Dead": 0,
        "Down": F(25, 36),
        "Up": F(1, 36),
        "Retired": F(10, 36),
    }
    assert dict(zip(names, first.labels, strict=True)) == {
        "Dead": "0%",
        "Down": "69%",
        "Up": "3%",
        "Retired": "28%",
    }
    assert chart_bars(RETIRING)[-1].labels[names.index("Retired")] == "89%"  # as the headline
    image = open_png(chart(RETIRING))
    plot = (96, 96, 772, 392)
    assert count_colour(image, DEAD, plot) == 0  # the legend still names Dead
    assert count_colour(image, RETIRED, plot) > 20_000
    assert tuple(STATE_COLOURS[State.RETIRED].to_bytes(3, "big")) == RETIRED


def test_E_7_the_legend_names_retired_only_where_it_is_drawn() -> None:
    legend = (300, 20, 800, 70)
    assert count_colour(open_png(chart(RETIRING)), RETIRED, legend) > 300  # its swatch
    assert count_colour(open_png(chart(SPIRAL)), RETIRED) == 0
    wider = open_png(chart(RETIRING)).convert("RGB").crop(legend)
    narrower = open_png(chart(SPIRAL)).convert("RGB").crop(legend)
    assert count_colour(wider, INK) > count_colour(narrower, INK)  # the word "Retired"


@pytest.mark.parametrize(
    ("share", "label"),
    [
        (F(5, 8), "63%"),  # 62.5 rounds half up, not to the even 62
        (F(3, 8), "38%"),
        (F(1, 8), "13%"),  # 12.5
        (F(1, 32), "3%"),
        (F(1, 200), "<1%"),  # never 0% for a possible result
        (F(199, 200), ">99%"),  # never 100% for an uncertain one
        (F(7, 1000), "<1%"),  # the chart once printed 1% where the text said <1%
    ],
)
def test_the_bars_are_labelled_as_the_text_writes_a_percentage(share: F, label: str) -> None:
    [bar] = chart_bars([SpiralStep(1, up=share, down=1 - share, dead=F(0))])
    names = [name for name, _ in ODDS_SERIES]
    assert bar.labels[names.index("Up")] == label
    assert bar.labels[names.index("Dead")] == "0%"


def bars_start(image: Image.Image, x: int) -> bool:
    return sum(pixel(image, x, y) == DEAD for y in range(image.height)) > 100


def test_the_bars_stack_dead_at_the_floor_and_retired_at_the_top() -> None:
    steps = [step(1, up="0.2", down="0.2", dead="0.4", retired="0.2")]
    image = open_png(chart(steps)).convert("RGB")
    left = next(x for x in range(image.width) if bars_start(image, x))
    column = [pixel(image, left + 2, y) for y in range(image.height)]
    series = (UP, DOWN, DEAD, RETIRED)
    order = [c for i, c in enumerate(column) if c in series and c != column[i - 1]]
    assert order == [RETIRED, UP, DOWN, DEAD]  # top to bottom


def test_a_tiny_share_still_leaves_the_others_exact() -> None:
    found = bars(open_png(chart([step(1, up="0.001", down="0", dead="0.999")])))
    assert found[0][UP] == 0
    assert found[0][DOWN] == 0
    assert found[0][DEAD] > 250


def test_the_title_is_drawn_only_when_given() -> None:
    titled = open_png(chart(SPIRAL, title="Roryn"))
    untitled = open_png(chart(SPIRAL))
    title_area = (0, 0, 300, 80)
    assert count_colour(titled, INK, title_area) > 50
    assert count_colour(untitled, INK, title_area) == 0


def test_the_chart_colours_read_on_its_panel_and_apart() -> None:
    for _, colour in ODDS_SERIES:
        assert contrast(colour, PANEL) >= 3
        assert contrast(LABEL_ON_BAR, colour) >= 4.5  # the percentages printed on the bars
    for colour in (INK, MUTED):
        assert contrast(colour, PANEL) >= 4.5
    # Neighbouring segments differ in lightness too, not in hue only.
    for (_, below), (_, above) in itertools.pairwise(ODDS_SERIES):
        assert contrast(below, above) >= 1.4
    assert [name for name, _ in ODDS_SERIES] == ["Dead", "Down", "Up", "Retired"]


def bar(shares: tuple[str, ...], labels: tuple[str, ...] = ("0%",) * 4) -> OddsBar:
    return OddsBar(1, tuple(F(p) for p in shares), labels)


@pytest.mark.parametrize(
    ("bars_", "title"),
    [
        ([], None),
        ([bar(("0", "0", "1", "0"))] * 11, None),
        ([bar(("0.1", "0.3", "0.5", "0"))], None),  # short of 1
        ([bar(("-0.1", "0.6", "0.5", "0"))], None),
        ([bar(("0", "0", "1"))], None),  # a share missing
        ([bar(("0", "0", "1", "0"), ("0%", "0%", "100%"))], None),  # a label missing
        ([bar(("0", "0", "1", "0"), ("0%", "0%", "100.0%", "0%"))], None),  # too long
        ([bar(("0", "0", "1", "0"), ("0%", "0%", "", "0%"))], None),
        (chart_bars(SPIRAL), ""),
        (chart_bars(SPIRAL), "Roryn’s odds"),
        (chart_bars(SPIRAL), "x" * 41),
    ],
)
def test_the_chart_refuses_what_it_cannot_draw(bars_: list[OddsBar], title: str | None) -> None:
    with pytest.raises(ValueError):
        odds_chart_png(bars_, title=title)


def test_file_names_are_png() -> None:
    assert pictures.LAST_GASP_FILENAME == "last-gasp.png"
    assert pictures.ODDS_FILENAME == "odds.png"
