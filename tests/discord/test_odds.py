"""/odds and the Odds button with Stress (E-7, issue 21 item 2): retirement is its own outcome,
"Retired", in the headline, the table and the chart, never counted as "Dead"; percentages round
half up the same way in the text and on the chart (item 8). docs/rules.md, "Odds"."""

from __future__ import annotations

import io

from PIL import Image

from bot.render.pictures import DEAD, RETIRED
from tests.discord.conftest import lines

PLOT = (96, 96, 772, 392)  # the chart's bars, below its legend


def chart(result) -> Image.Image:
    [(filename, png)] = result.reply.files
    assert result.card.pictures == (filename,)
    return Image.open(io.BytesIO(png)).convert("RGB")


def pixels(image: Image.Image, colour: tuple[int, int, int]) -> int:
    region = image.crop(PLOT)
    return sum(n for n, pixel in region.getcolors(1 << 24) or [] if pixel == colour)


RETIRING = [
    # RES 2, Stress 1: one Crit of two wakes at VIT 1, where Stress 1 ≥ VIT 1 retires (10/36);
    # two Crits wake at VIT 2, Up (1/36). Within 10 rolls: 1 - (25/36)^10 ends, 10/11 retired.
    "**3% to be up and 28% to be retired after the next recovery roll, 0% to be dead and 89% "
    "to be retired within 10 rolls.**",
    "Unconscious at VIT 0/10: the recovery roll is 2 dice (each: Crit 1 in 6, Hit 2 in 6, Miss "
    "3 in 6).",
    "",
    "**The next recovery roll**",
    "25/36 (69.44%): no change",
    "5/18 (27.78%): wake at VIT 1, now Retired (Stress ≥ VIT, E-7)",
    "1/36 (2.78%): wake at VIT 2",
    # D-3: a Crit 1/4 a die: 6/16 retire, 1/16 up
    "With first aid's advantage: 6% to be up and 38% to be retired (F-1).",
]


async def test_E_7_odds_show_retirement_as_retired_never_dead(harness):
    """Issue 21: the text said "0% to be dead" while the chart drew a red "Dead" bar at 35-82%
    for a character that can only retire."""
    await harness.add_character("Roryn", vit=0, res=2, stress=1)
    result = await harness.run(harness.player, "odds", character="Roryn")
    assert lines(result) == RETIRING
    image = chart(result)
    assert pixels(image, DEAD) == 0
    assert pixels(image, RETIRED) > 20_000  # 28% of the first bar up to 89% of the last


async def test_E_7_the_odds_button_says_the_same(harness):
    await harness.add_character("Roryn", vit=2, res=2, stress=1)
    fall = await harness.run(harness.owner, "damage", character="Roryn", amount=2)
    [odds_button] = [b.custom_id for b in fall.card.buttons if b.label == "Odds"]
    odds = await harness.click(harness.player, fall.reply, odds_button)
    assert odds.reply.ephemeral
    assert lines(odds) == RETIRING
    assert pixels(chart(odds), DEAD) == 0


async def test_E_7_a_last_gasp_with_stress_names_death_and_retirement_apart(harness):
    """The Last Gasp itself never retires (R-5: it stabilises at VIT 0); the rolls after it
    may."""
    await harness.add_character("Roryn", vit=-2, res=2, stress=1)
    result = await harness.run(harness.owner, "odds", character="Roryn")
    headline = lines(result)[0]
    assert headline.startswith("**17% to survive the Last Gasp, 83% to be dead and ")
    assert headline.endswith("% to be retired within 10 rolls.**")
    image = chart(result)
    assert pixels(image, DEAD) > 0 and pixels(image, RETIRED) > 0


async def test_odds_without_stress_never_speak_of_retiring(harness):
    await harness.add_character("Roryn", vit=0, res=2)
    result = await harness.run(harness.owner, "odds", character="Roryn")
    assert "etire" not in result.card.body
    assert pixels(chart(result), RETIRED) == 0


async def test_odds_round_half_up_in_the_text(harness):
    """Item 8: exact halves round up, in the table (1/32 is 3.13%, 5/32 is 15.63%) and in the
    headline; a float's format wrote 3.12% and 15.62%."""
    await harness.settings(die_faces="MC")  # a Crit 1/2: k Crits of 5 dice, C(5, k)/32
    await harness.add_character("Roryn", vit=0, res=5)
    said = lines(await harness.run(harness.owner, "odds", character="Roryn"))
    assert said[4:6] == ["1/32 (3.13%): no change", "5/32 (15.63%): wake at VIT 1"]


async def test_the_last_gasp_of_one_in_eight_is_13_percent(harness):
    """Item 8: 1/8 is 12.5%, written 13% (round half to even wrote 12%)."""
    await harness.settings(die_faces="MMMMMMMC")
    await harness.add_character("Roryn", vit=-2, res=2)
    said = lines(await harness.run(harness.owner, "odds", character="Roryn"))
    assert said[0].startswith("**13% to survive the Last Gasp, ")
    assert "1/8 (12.50%): stabilise at VIT 0, now Unconscious" in said
