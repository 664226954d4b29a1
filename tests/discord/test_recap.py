"""/recap (issue 17, item 3): the story of the session from the event log, public, through the
real command tree with exact dice. docs/commands.md (`/recap`) and docs/rules.md ("The recap"):
the three periods, what is left out (bookkeeping, what was undone, the undos, other guilds),
the highlight, the picture, Discord's limits whatever the length of the night."""

from __future__ import annotations

import io
import re
from datetime import datetime, timedelta

import pytest
from PIL import Image
from sqlalchemy import update

from bot.db.tables import events
from bot.offline.layout import COMPONENTS_LIMIT, TEXT_LIMIT, count, text_length
from bot.render.common import (
    EMOTION_COLOUR,
    INFO_COLOUR,
    LAST_GASP_COLOUR,
    STATE_COLOURS,
    escape,
)
from bot.render.recap_chart import RECAP_FILENAME, RECAP_SIZE
from rules.models import State
from tests.discord.conftest import Harness
from tests.discord.test_layout_limits import longest_names

DECORATED = "**Sir** _R_ ~~x~~ @everyone"


async def night(h: Harness) -> None:
    """Roryn falls to Dying and survives its Last Gasp; Sera falls and dies on hers; Taomkin
    breaks down and spends Stamina. Six changes, with exact dice."""
    await h.add_character("Roryn", vit=3, res=2)
    await h.add_character("Sera", owner=h.player, vit=2, res=1)
    await h.add_character("Taomkin", owner=h.gm, fear=3)
    await h.start_combat(["Roryn", "Sera"])
    await h.run(h.owner, "damage", character="Roryn", amount=6)
    h.script("C")
    await h.run(h.owner, "recover", character="Roryn")
    await h.run(h.player, "damage", character="Sera", amount=4)
    h.script("M")
    await h.run(h.player, "recover", character="Sera")
    await h.run(h.gm, "emotion", character="Taomkin", emotion="fear", stages=2)
    await h.run(h.gm, "spend", character="Taomkin", amount=2, reason="Channel Casting")


def picture(result) -> Image.Image:
    [(name, png)] = result.reply.files
    assert name == RECAP_FILENAME and result.card.pictures == (RECAP_FILENAME,)
    return Image.open(io.BytesIO(png)).convert("RGB")


async def age(h: Harness, hours: float, *, through: int) -> None:
    """Move the guild's events up to id `through` back in time (the log is append-only; only a
    test rewrites its clock)."""
    stamp = h.bot.clock() - timedelta(hours=hours)
    async with h.db.engine.begin() as conn:
        await conn.execute(
            update(events)
            .where(events.c.guild_id == h.guild.id, events.c.id <= through)
            .values(created_at=stamp)
        )


async def latest_id(h: Harness) -> int:
    return max(e.id for e in await h.events())


def falls_told(result) -> list[str]:
    """The characters an answer tells of, by name (its entries' first lines)."""
    return re.findall(r"^\S+ \*\*(.+?)\*\* · ", result.card.body, re.MULTILINE)


# --- the story of a night ------------------------------------------------------------------------


async def test_U_1_the_story_of_a_night(any_harness):
    h = any_harness
    await night(h)
    result = await h.run(h.player, "recap")  # anyone may ask
    assert not result.ephemeral
    card = result.card
    assert card.title == "Recap · the last 24 hours"
    assert card.colour == LAST_GASP_COLOUR  # the highlight's colour
    assert card.lines == [
        "**The session's highlight: Roryn survives the Last Gasp with a Crit.**",
        "Last Gasp: 💥  1 Crit",
        "In the last 24 hours (no recap before this one): 6 changes to 3 characters.",
        "2 falls · 2 Last Gasps (1 survived) · 1 death · 1 Breakdown",
        "🟡 **Roryn** · Up → Unconscious · VIT 3 → 0",
        "fell · Last Gasp: 💥 survived",
        "",
        "💀 **Sera** · Up → Dead · VIT 2 → -2",
        "fell · Last Gasp: ⬜ died",
        "",
        "🟢 **Taomkin** · Up · VIT 10/10",
        "Breakdown of Fear · Stress +1 · Stamina 2 spent",
    ]
    assert card.small == "Rules: U-1 · R-5 · Logged: the next /recap starts here."
    image = picture(result)
    assert image.size == RECAP_SIZE


async def test_U_2_the_recap_is_logged_as_the_guilds_bookkeeping(harness):
    await night(harness)
    before = await latest_id(harness)
    await harness.run(harness.player, "recap")
    [logged] = await harness.events("recap")
    assert logged.character_id is None and not logged.is_change  # never in /history or /undo
    assert logged.user_id == harness.player.user_id
    start = datetime.fromisoformat(logged.inputs.pop("start"))
    # Its whole period, to be told again exactly (the campaign page's recap)
    assert logged.inputs == {
        "since": "session",
        "hours": 24,
        "after": 0,
        "through": before,
        "read": 6,
    }
    told_at = logged.created_at - timedelta(hours=24)
    assert told_at - timedelta(seconds=5) < start <= told_at


async def test_R_2_a_wake_up_on_several_crits_shows_its_dice(harness):
    await harness.add_character("Roryn", vit=0, res=3)
    await harness.start_combat(["Roryn"])
    harness.script("C H C")
    await harness.run(harness.owner, "recover", character="Roryn")
    result = await harness.run(harness.owner, "recap")
    assert result.card.lines[:2] == [
        "**The session's highlight: Roryn wakes up on 2 Crits, at VIT 2.**",
        "Unconscious recovery roll: 💥 ⚪ 💥  2 Crits · 1 Hit",
    ]
    assert result.card.colour == STATE_COLOURS[State.UP]
    assert "1 recovery roll, 2 Crits · woke up" in result.card.lines


async def test_E_1_a_breakdown_is_the_highlight_of_a_night_without_a_fall(harness):
    await harness.add_character("Roryn", anger=3)
    await harness.run(harness.owner, "emotion", character="Roryn", emotion="anger", stages=1)
    result = await harness.run(harness.owner, "recap")
    assert result.card.lines[0] == (
        "**The session's highlight: Roryn breaks down: a Breakdown of Anger begins.**"
    )
    assert result.card.colour == EMOTION_COLOUR
    assert result.card.small == "Rules: U-1 · E-1 · Logged: the next /recap starts here."


async def test_a_quiet_night_with_a_roll_never_says_there_was_none(harness):
    """A recovery roll that leaves its character down is no moment: the headline says nobody
    fell or woke, and the totals count the roll."""
    await harness.add_character("Roryn", vit=0, res=3)
    await harness.start_combat(["Roryn"])
    harness.script("M M M")
    await harness.run(harness.owner, "recover", character="Roryn")
    result = await harness.run(harness.owner, "recap")
    headline = result.card.lines[0]
    assert headline == "**A quiet time: 1 change; nobody fell, woke up, broke down or died.**"
    assert "roll" not in headline
    assert any("1 recovery roll" in line for line in result.card.lines)


async def test_a_quiet_night_says_so_and_an_empty_one_too(harness):
    await harness.add_character("Roryn")
    await harness.run(harness.owner, "spend", character="Roryn", amount=1, reason="a spell")
    quiet = await harness.run(harness.owner, "recap")
    assert (
        quiet.card.lines[0]
        == "**A quiet time: 1 change; nobody fell, woke up, broke down or died.**"
    )
    assert quiet.card.colour == INFO_COLOUR
    empty = await harness.run(harness.owner, "recap")
    assert not empty.ephemeral and not empty.reply.files and empty.card.pictures == ()
    assert empty.card.title == "Recap · since the last recap"
    [headline, tip] = empty.card.lines
    assert re.fullmatch(r"\*\*No character changed since the last recap, <t:\d+:f>\.\*\*", headline)
    assert tip == (
        "For a longer look: /recap since:day (the whole in-game day) or /recap hours:72 "
        "(the last three days)."
    )
    assert empty.card.small == "Rules: U-1 · Logged: the next /recap starts here."


async def test_a_character_made_or_deleted_in_the_period_says_so(any_harness):
    harness = any_harness
    await harness.run(harness.owner, "character create", name="Pip")
    await harness.run(harness.owner, "damage", character="Pip", amount=10)
    await harness.add_character("Bea", vit=4)
    await harness.run(harness.owner, "damage", character="Bea", amount=1)
    asked = await harness.run(harness.owner, "character delete", character="Bea")
    confirm, _ = asked.reply.custom_ids()
    await harness.click(harness.owner, asked.reply, confirm)
    result = await harness.run(harness.owner, "recap")
    assert "🟡 **Pip** · new · Up → Unconscious · VIT 10 → 0" in result.card.lines
    assert "🟢 **Bea** · deleted at VIT 3/10" in result.card.lines


# --- the periods -------------------------------------------------------------------------------


async def test_since_session_starts_after_the_last_recap(any_harness):
    h = any_harness
    await h.add_character("Roryn", vit=2)
    await h.add_character("Sera", vit=2)
    await h.run(h.owner, "damage", character="Roryn", amount=2)
    first = await h.run(h.owner, "recap")
    assert falls_told(first) == ["Roryn"]
    await h.run(h.owner, "damage", character="Sera", amount=2)
    second = await h.run(h.gm, "recap", since="session")
    assert second.card.title == "Recap · since the last recap"
    assert falls_told(second) == ["Sera"]
    assert re.fullmatch(
        r"Since the last recap, <t:\d+:f>: 1 change to 1 character\.", second.card.lines[1]
    )


async def test_since_session_without_a_recap_before_is_the_last_24_hours(harness):
    await harness.add_character("Roryn", vit=2)
    await harness.add_character("Sera", vit=2)
    await harness.run(harness.owner, "damage", character="Roryn", amount=2)
    await age(harness, 25, through=await latest_id(harness))
    await harness.run(harness.owner, "damage", character="Sera", amount=2)
    result = await harness.run(harness.owner, "recap")
    assert falls_told(result) == ["Sera"]


async def test_C_4_since_day_starts_when_the_in_game_day_began(any_harness):
    h = any_harness
    await h.add_character("Roryn", vit=2)
    await h.add_character("Sera", vit=2)
    await h.run(h.owner, "damage", character="Roryn", amount=2)
    whole = await h.run(h.owner, "recap", since="day")  # no /day yet: the whole log
    assert whole.card.title == "Recap · day 1"
    assert (
        whole.card.lines[1] == "Since this server's first change (day 1): 1 change to 1 character."
    )
    await h.run(h.gm, "day")
    await h.run(h.owner, "damage", character="Sera", amount=2)
    today = await h.run(h.owner, "recap", since="day")
    assert today.card.title == "Recap · day 2"
    assert falls_told(today) == ["Sera"]
    assert re.fullmatch(
        r"Since day 2 began, <t:\d+:f>: 1 change to 1 character\.", today.card.lines[1]
    )
    again = await h.run(h.owner, "recap", since="day")  # a recap in between changes nothing
    assert falls_told(again) == ["Sera"]


async def test_hours_look_back_in_time(any_harness):
    h = any_harness
    await h.add_character("Roryn", vit=2)
    await h.add_character("Sera", vit=2)
    await h.run(h.owner, "damage", character="Roryn", amount=2)
    await age(h, 10, through=await latest_id(h))
    await h.run(h.owner, "damage", character="Sera", amount=2)
    alone = await h.run(h.owner, "recap", hours=4)  # `hours` alone: since:hours
    assert alone.card.title == "Recap · the last 4 hours"
    assert falls_told(alone) == ["Sera"]
    default = await h.run(h.owner, "recap", since="hours")  # 4 hours unless told
    assert default.card.title == "Recap · the last 4 hours"
    assert falls_told(default) == ["Sera"]
    wider = await h.run(h.owner, "recap", since="hours", hours=12)
    assert wider.card.title == "Recap · the last 12 hours"
    assert sorted(falls_told(wider)) == ["Roryn", "Sera"]
    one = await h.run(h.owner, "recap", hours=1)
    assert one.card.title == "Recap · the last hour"


async def test_hours_with_another_period_is_refused(harness):
    await harness.add_character("Roryn")
    said = await harness.refusal(
        harness.owner, "recap", "`hours` counts only with since:hours", since="day", hours=3
    )
    assert said.startswith("`hours` counts only with since:hours (or alone)")


async def test_hours_out_of_range_is_refused_with_the_range(harness):
    said = await harness.refusal(harness.owner, "recap", hours=73)
    assert "between 1 and 72" in said


# --- what the story leaves out -----------------------------------------------------------------


async def test_U_3_what_was_undone_is_not_part_of_the_story(harness):
    await harness.add_character("Roryn", vit=2)
    await harness.add_character("Sera", vit=5)
    await harness.run(harness.owner, "damage", character="Roryn", amount=2)
    await harness.run(harness.gm, "undo", character="Roryn")
    await harness.run(harness.owner, "damage", character="Sera", amount=1)
    result = await harness.run(harness.owner, "recap")
    assert falls_told(result) == ["Sera"]
    assert "1 change to 1 character" in result.card.lines[1]
    assert result.card.lines[0].startswith("**A quiet time")  # the undone fall is no highlight
    assert "Roryn" not in result.card.body


async def test_P_2_a_guild_sees_only_its_own_story(harness):
    await harness.add_character("Roryn", vit=2)
    await harness.add_character("Faraway", owner=harness.outsider, vit=2)
    await harness.run(harness.owner, "damage", character="Roryn", amount=2)
    await harness.run(harness.outsider, "damage", character="Faraway", amount=2)
    ours = await harness.run(harness.player, "recap")
    theirs = await harness.run(harness.outsider, "recap")
    assert falls_told(ours) == ["Roryn"] and "Faraway" not in ours.card.markdown
    assert falls_told(theirs) == ["Faraway"] and "Roryn" not in theirs.card.markdown
    # Each guild's recap is its own marker: the table's next session still starts after its own.
    [logged] = await harness.events("recap")
    assert logged.guild_id == harness.guild.id


# --- names, pings and Discord's limits -------------------------------------------------------


async def test_names_are_escaped_and_nobody_is_pinged(harness):
    await harness.add_character(DECORATED, vit=2)
    await harness.run(harness.owner, "damage", character=DECORATED, amount=2)
    result = await harness.run(harness.owner, "recap")
    name = escape(DECORATED)
    assert (
        result.card.lines[0]
        == f"**The session's highlight: {name} falls: Up → Unconscious at VIT 0.**"
    )
    assert f"🟡 **{name}** · Up → Unconscious · VIT 2 → 0" in result.card.lines
    assert "@everyone" not in result.card.markdown.replace("\\@everyone", "")
    # The harness checked that the reply allows no mention at all (tests/discord/conftest.py).


@pytest.mark.parametrize("kind", ["emoji", "markup"])
async def test_a_long_night_fits_discords_limits_and_is_never_cut_mid_line(harness, kind):
    """40 characters of the longest names, each falling: the entries that fit are whole, the
    rest counted in "… and N more"; the picture draws six and counts the rest."""
    names = longest_names(40, kind)
    for name in names:
        await harness.add_character(name, vit=1)
        await harness.run(harness.owner, "damage", character=name, amount=1)
    result = await harness.run(harness.owner, "recap")
    components = result.reply.components
    assert count(components) <= COMPONENTS_LIMIT and text_length(components) <= TEXT_LIMIT
    [listed] = [t for t in result.card.texts if "… and" in t]  # the list, after a separator
    shown, _, left_out = listed.rpartition("\n… and ")
    more = int(left_out.removesuffix(" more"))
    entries = shown.split("\n\n")  # each character's two lines
    assert len(entries) + more == len(names) and more > 0
    for entry in entries:
        first, second = entry.split("\n")
        assert first.endswith(" · Up → Unconscious · VIT 1 → 0") and second == "fell"
    assert (
        result.card.lines[1]
        == "In the last 24 hours (no recap before this one): 40 changes to 40 characters."
    )
    assert picture(result).size == RECAP_SIZE


async def test_the_recap_picture_marks_the_falls_and_the_last_gasps(harness):
    from bot.render.pictures import DEAD, DOWN, SURVIVED

    await night(harness)
    image = picture(await harness.run(harness.owner, "recap"))
    plot = image.crop((84, 84, 690, 452))
    colours = {colour for _, colour in plot.getcolors(1 << 24) or []}
    assert {DOWN, SURVIVED, DEAD} <= colours


async def test_the_recap_is_the_same_for_every_member(harness):
    """Anyone may run it; it reads the table's public events (P-2: this guild's)."""
    await night(harness)
    by_player = await harness.run(harness.player, "recap", since="day")
    by_gm = await harness.run(harness.gm, "recap", since="day")
    assert by_player.card.lines == by_gm.card.lines
