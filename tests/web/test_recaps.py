"""The recaps on the campaign page: the server's list of them, each with the period it told,
and each recap's page telling again, from the event log, the story `/recap` told in Discord
(its words, its dice, its picture byte for byte), whatever happened in the log since (docs/
commands.md, "The campaign page"; docs/rules.md, "The recap"). The recaps are made by
sending `/recap` through the real command tree, with exact dice."""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import update

from bot.db.tables import events
from bot.offline import Result
from bot.services.web import RECAPS_ON_CAMPAIGN, RECAPS_PER_PAGE
from bot.web import view
from tests.discord.test_recap import night
from tests.web.conftest import Page, Site
from tests.web.pages_html import parse

EMPTY = "No recap yet: the GM or any player makes one in Discord with /recap."
# The dice as the page writes a Last Gasp's die (bot/render/dice.py Faces.words), and as the
# harness's Discord shows them (Faces.text).
FACE_WORDS = {"💥": "Crit", "⚪": "Hit", "⬜": "Miss"}
ENTRY = re.compile(r"^(\S+) \*\*(.+?)\*\* · (.*)$")  # a character's first line in Discord


@dataclass
class Listed:
    period: str
    href: str
    said: str  # the rest of its line: when, by whom, how much


def listed(page: Page) -> list[Listed]:
    """The recaps a page lists, in its order."""
    found = []
    for item in re.findall(r'<li class="recap-item">(.*?)</li>', page.text, re.S):
        link = parse(item).all("a")[0]
        text = parse(item).text
        period = text.split(" · ", 1)[0]
        found.append(Listed(period, str(link.attrs["href"]), text.removeprefix(period)))
    return found


@dataclass
class Story:
    heading: str
    where: str
    happened: str
    link: str | None


@dataclass
class Told:
    """A recap's page, as read."""

    title: str
    lines: list[str]  # the headline, the dice, the period, the totals (or the tip)
    dice: list[str]  # the highlight's dice, as their pictures' alt texts
    stories: list[Story]
    chart: str | None  # the picture's alt text
    rules: str | None


def told(page: Page) -> Told:
    assert page.status == 200, page.text
    parsed = parse(page.text)
    [h1] = re.findall(r"<h1>(.*?)</h1>", page.text, re.S)
    [story] = re.findall(r'<section aria-labelledby="story"[^>]*>(.*?)</section>', page.text, re.S)
    lines = [parse(p).text for p in re.findall(r"<p[^>]*>(.*?)</p>", story, re.S)]
    dice = [str(e.attrs["alt"]) for e in parse(story).all("img")]
    stories = []
    for item in re.findall(r'<li class="card story state-[a-z]+">(.*?)</li>', page.text, re.S):
        heading = parse(re.findall(r"<h3>(.*?)</h3>", item, re.S)[0]).text
        where, happened = [parse(p).text for p in re.findall(r"<p[^>]*>(.*?)</p>", item, re.S)]
        links = parse(item).all("a")
        stories.append(Story(heading, where, happened, links[0].attrs["href"] if links else None))
    charts = [e for e in parsed.all("img") if str(e.attrs["src"]).endswith("/recap.png")]
    rules = re.findall(r'<p class="rules">(.*?)</p>', page.text)
    return Told(
        title=parse(h1).text,
        lines=lines,
        dice=dice,
        stories=stories,
        chart=str(charts[0].attrs["alt"]) if charts else None,
        rules=parse(rules[0]).text if rules else None,
    )


def as_the_page_writes(line: str) -> str:
    """A line of the Discord card as the page writes it: no bold marks, a Discord timestamp
    as the page's UTC stamp."""
    line = line.replace("**", "")
    line = re.sub(
        r"<t:(\d+):f>", lambda m: view.stamp(datetime.fromtimestamp(int(m[1]), UTC)), line
    )
    return line


def dice_words(faces: str) -> list[str]:
    """Discord's text dice as the page's pictures' alt texts: `(⬜→💥)` is an advantage
    reroll (D-3), the struck Miss then its new face."""
    words = []
    for die in faces.split():
        if die.startswith("("):
            struck, new = die.strip("()").split("→")
            words += [f"{FACE_WORDS[struck]} rerolled", FACE_WORDS[new]]
        else:
            words.append(FACE_WORDS[die])
    return words


def assert_same_story(page: Page, result: Result) -> Told:
    """The recap's page tells what the card told: title, lines, entries, the rules."""
    card = result.card
    seen = told(page)
    assert seen.title == card.title
    lines = list(card.lines)
    named = [i for i, line in enumerate(lines) if ENTRY.match(line)]
    split = named[0] if named else len(lines)
    head, entries = lines[:split], [line for line in lines[split:] if line]
    if seen.dice:  # the highlight's dice: pictures on the page, emoji in Discord
        label, rest = head[1].split(": ", 1)
        faces, tally = rest.split("  ", 1)  # bot/render/dice.py narateer_text
        assert seen.lines[1] == f"{label}: {tally}"
        assert dice_words(faces) == seen.dice
        head, page_lines = [head[0], *head[2:]], [seen.lines[0], *seen.lines[2:]]
    else:
        page_lines = seen.lines
    assert page_lines == [as_the_page_writes(line) for line in head]
    pairs = list(zip(entries[::2], entries[1::2], strict=True))
    assert len(seen.stories) == len(pairs)
    for story, (first, second) in zip(seen.stories, pairs, strict=True):
        mark = first.split(" ", 1)[0]
        name, where = ENTRY.match(first).groups()[1:]
        assert story.heading == f"{mark} {name}"
        assert story.where == where
        happened = second
        for face, word in FACE_WORDS.items():
            happened = happened.replace(face, word)
        assert story.happened == happened
    assert seen.rules == card.small.split(" · Logged:")[0]
    return seen


def link(page: Page, text: str) -> str:
    """The href of the page's one link that reads `text`."""
    [href] = [
        html.unescape(href)
        for href, inner in re.findall(r'<a href="([^"]*)">(.*?)</a>', page.text, re.S)
        if parse(inner).text == text
    ]
    return href


async def recap_id(site: Site) -> int:
    return (await site.h.events("recap"))[-1].id


# --- the list ------------------------------------------------------------------------------------


async def test_the_campaign_lists_its_recaps_with_their_periods(any_site: Site) -> None:
    h = any_site.h
    await h.add_character("Roryn", vit=2)
    page = await any_site.open(h.player)
    assert EMPTY in parse(page.text).text  # none yet: who makes one, and how
    assert listed(page) == []
    await h.run(h.owner, "damage", character="Roryn", amount=1)
    await h.run(h.player, "recap")  # the first: the last 24 hours
    await h.run(h.gm, "day")
    await h.run(h.player, "recap", since="day")
    await h.run(h.gm, "recap", hours=6)
    await h.run(h.owner, "recap")
    ids = [e.id for e in await h.events("recap")]
    page = await page.get("")
    found = listed(page)
    assert [r.period for r in found] == [
        "Since the last recap",
        "The last 6 hours",
        "Day 2",
        "The last 24 hours",
    ]  # newest first, each the period it told
    assert [r.href for r in found] == [f"/servers/{h.guild.id}/recaps/{i}" for i in ids[::-1]]
    assert [r.said for r in found] == [
        " · told just now by another member · no change",  # nothing since the last one
        " · told just now by another member · 1 change",  # the damage, within 6 hours
        " · told just now by you · no change",  # nothing since the /day
        " · told just now by you · 1 change",
    ]
    times = [e.attrs for e in parse(page.text).all("time")]
    stamps = [e.created_at for e in await h.events("recap")][::-1]
    assert [t["datetime"] for t in times] == [s.isoformat() for s in stamps]
    assert [t["title"] for t in times] == [view.stamp(s) for s in stamps]  # the date, on hover
    assert EMPTY not in page.text
    # Each links to its own page
    day = await page.follow(found[2].href)
    assert told(day).title == "Recap · day 2"


async def test_the_recaps_are_bounded_and_paginated(site: Site) -> None:
    h = site.h
    for _ in range(RECAPS_PER_PAGE + 1):
        await h.run(h.owner, "recap")
    ids = [e.id for e in await h.events("recap")][::-1]  # newest first
    page = await site.open(h.owner)
    shown = listed(page)
    assert [r.href.rsplit("/", 1)[1] for r in shown] == [
        str(i) for i in ids[:RECAPS_ON_CAMPAIGN]
    ]  # the latest ten, then a link to the older ones
    rest = await page.follow(link(page, "Older recaps →"))
    assert [r.href.rsplit("/", 1)[1] for r in listed(rest)] == [
        str(i) for i in ids[RECAPS_ON_CAMPAIGN:]
    ]
    assert "← Newest" in rest.text and "Older →" not in rest.text
    every = await page.get("recaps")  # all of them, 50 a page
    assert len(listed(every)) == RECAPS_PER_PAGE and "← Newest" not in every.text
    end = await every.follow(link(every, "Older →"))
    assert [r.href.rsplit("/", 1)[1] for r in listed(end)] == [str(ids[-1])]
    assert "Older →" not in end.text
    for bad in ("?before=x", "?before=0", f"?before={2**40}"):
        assert (await page.get(f"recaps{bad}")).status == 400, bad
    past = await page.get(f"recaps?before={ids[-1]}")
    assert "No older recaps." in parse(past.text).text


# --- a recap's page ----------------------------------------------------------------------------


async def test_a_recap_page_tells_the_story_recap_told(any_site: Site) -> None:
    """The night of tests/discord/test_recap.py: every line of the card, on the page."""
    h = any_site.h
    await night(h)
    result = await h.run(h.player, "recap")
    page = await (await any_site.open(h.owner)).get(f"recaps/{await recap_id(any_site)}")
    seen = told(page)
    assert seen.title == "Recap · the last 24 hours"
    assert seen.lines == [
        "The session's highlight: Roryn survives the Last Gasp with a Crit.",
        "Last Gasp: 1 Crit",
        "In the last 24 hours (no recap before this one): 6 changes to 3 characters.",
        "2 falls · 2 Last Gasps (1 survived) · 1 death · 1 Breakdown",
    ]
    assert seen.dice == ["Crit"]  # the die's own picture, as in the history
    ids = {name: (await h.row(name)).id for name in ("Roryn", "Sera", "Taomkin")}
    assert seen.stories == [
        Story(
            "🟡 Roryn",
            "Up → Unconscious · VIT 3 → 0",
            "fell · Last Gasp: Crit survived",
            f"/servers/{h.guild.id}/characters/{ids['Roryn']}",
        ),
        Story(
            "💀 Sera",
            "Up → Dead · VIT 2 → -2",
            "fell · Last Gasp: Miss died",
            f"/servers/{h.guild.id}/characters/{ids['Sera']}",
        ),
        Story(
            "🟢 Taomkin",
            "Up · VIT 10/10",
            "Breakdown of Fear · Stress +1 · Stamina 2 spent",
            f"/servers/{h.guild.id}/characters/{ids['Taomkin']}",
        ),
    ]
    assert seen.chart == (
        "Chart of VIT in the last 24 hours, change by change, over 6 changes: Roryn, Sera and "
        "Taomkin; marked: 2 falls, 1 Last Gasp survived, 1 death."
    )
    assert seen.rules == "Rules: U-1 · R-5"
    assert_same_story(page, result)  # …which is the card's, line for line
    assert "Told in Discord just now by another member" in parse(page.text).text
    # The picture: /recap's own, byte for byte, served by the page
    [(_, png)] = result.reply.files
    picture = await page.get(f"recaps/{await recap_id(any_site)}/recap.png")
    assert picture.status == 200 and picture.headers["Content-Type"] == "image/png"
    assert picture.body == png


async def test_a_recap_since_the_last_one_names_its_time(site: Site) -> None:
    h = site.h
    await h.add_character("Roryn", vit=2)
    await h.run(h.owner, "recap")
    await h.run(h.owner, "damage", character="Roryn", amount=2)
    result = await h.run(h.gm, "recap")
    page = await (await site.open(h.owner)).get(f"recaps/{await recap_id(site)}")
    seen = assert_same_story(page, result)
    first = (await h.events("recap"))[0].created_at
    assert seen.lines[1] == f"Since the last recap, {view.stamp(first)}: 1 change to 1 character."


async def test_a_recap_highlight_shows_its_dice_as_the_history_does(site: Site) -> None:
    """R-2, D-3: a wake-up on 2 Crits after an advantage reroll, the struck Miss shown."""
    h = site.h
    await h.add_character("Roryn", vit=1)
    await h.run(h.owner, "damage", character="Roryn", amount=1)  # Unconscious: 2 dice (RES)
    await h.run(h.player, "aid", character="Roryn", success=True)  # advantage (F-1)
    h.script("M C C")  # the Miss rerolled to a Crit
    await h.run(h.gm, "recover", character="Roryn")
    result = await h.run(h.player, "recap")
    page = await (await site.open(h.player)).get(f"recaps/{await recap_id(site)}")
    seen = assert_same_story(page, result)
    assert seen.lines[:2] == [
        "The session's highlight: Roryn wakes up on 2 Crits, at VIT 2.",
        "Unconscious recovery roll · advantage: 2 Crits",
    ]
    assert seen.dice == ["Miss rerolled", "Crit", "Crit"]
    pictures = [
        e.attrs["src"] for e in parse(page.text).all("img") if "dice" in str(e.attrs["src"])
    ]
    assert pictures == [f"/static/dice/{f}" for f in ("miss-rerolled.png", "crit.png", "crit.png")]


async def test_an_empty_recap_says_so_without_a_picture(site: Site) -> None:
    h = site.h
    await h.run(h.owner, "recap")
    empty = await h.run(h.owner, "recap")
    page = await (await site.open(h.owner)).get(f"recaps/{await recap_id(site)}")
    seen = assert_same_story(page, empty)
    assert seen.stories == [] and seen.chart is None
    assert seen.lines[1].startswith("For a longer look: /recap since:day")
    assert (await page.get(f"recaps/{await recap_id(site)}/recap.png")).status == 404


async def test_a_recap_is_told_again_the_same_whatever_came_after(any_site: Site) -> None:
    """An undo, a deletion, a rename and later changes after the recap: its page tells what
    it told then (undone by then is left out, undone later is not), its deleted characters as
    /recap showed them, linked for the GM only (their pages are the GM's)."""
    h = any_site.h
    await night(h)
    await h.run(h.owner, "damage", character="Roryn", amount=1)  # Unconscious → Critical
    await h.run(h.gm, "undo", character="Roryn")  # undone before the recap: left out
    result = await h.run(h.player, "recap")
    number = await recap_id(any_site)
    await h.run(h.gm, "undo", character="Taomkin")  # its /spend, undone after: still told
    await h.run(h.gm, "character edit", character="Roryn", name="Roryn the Red")
    asked = await h.run(h.player, "character delete", character="Sera")
    confirm, _ = asked.reply.custom_ids()
    await h.click(h.player, asked.reply, confirm)
    await h.run(h.owner, "damage", character="Roryn the Red", amount=1)
    for reader in (h.player, h.gm):
        page = await (await any_site.open(reader)).get(f"recaps/{number}")
        seen = assert_same_story(page, result)
        sera = next(s for s in seen.stories if "Sera" in s.heading)
        assert (sera.link is not None) is (reader is h.gm)  # deleted: the GM's page
        picture = await page.get(f"recaps/{number}/recap.png")
        assert picture.body == result.reply.files[0][1]
    assert "Stamina 2 spent" in told(page).stories[2].happened


async def test_a_recap_logs_its_period_and_an_older_one_is_found_again(any_site: Site) -> None:
    """From now on a recap logs the whole period it told (`after`, `start`, `day`); one logged
    before (its inputs `since`, `through`, `read` and `hours` only) is told again from the
    period found in the log, as /recap found it: the same story either way."""
    h = any_site.h
    await h.add_character("Roryn", vit=3)
    await h.add_character("Sera", owner=h.player, vit=2)
    await h.run(h.owner, "damage", character="Roryn", amount=2)
    results = [await h.run(h.owner, "recap")]  # the first: the last 24 hours
    await h.run(h.player, "damage", character="Sera", amount=3)
    results.append(await h.run(h.gm, "recap"))  # since the last recap
    await h.run(h.gm, "day")
    h.script("M")
    await h.run(h.gm, "recover", character="Sera")  # outside combat: the GM's roll
    results.append(await h.run(h.player, "recap", since="day"))
    results.append(await h.run(h.player, "recap", hours=3))
    assert all(result.reply.files for result in results)  # each told a story, with its picture
    recaps = await h.events("recap")
    assert [sorted(e.inputs) for e in recaps] == [
        ["after", "hours", "read", "since", "start", "through"],
        ["after", "read", "since", "start", "through"],
        ["after", "day", "read", "since", "start", "through"],
        ["after", "hours", "read", "since", "start", "through"],
    ]
    [day] = [e for e in await h.events("day") if e.character_id is None]
    assert [e.inputs["after"] for e in recaps] == [0, recaps[0].inputs["through"], day.id, 0]
    assert recaps[2].inputs["day"] == 2
    page = await any_site.open(h.player)
    for event, result in zip(recaps, results, strict=True):
        assert_same_story(await page.get(f"recaps/{event.id}"), result)
    # The same recaps as logged before they said their whole period
    async with h.db.engine.begin() as conn:
        for event in recaps:
            old = {
                k: v for k, v in event.inputs.items() if k in ("since", "through", "read", "hours")
            }
            await conn.execute(update(events).where(events.c.id == event.id).values(inputs=old))
    for event, result in zip(recaps, results, strict=True):
        seen = assert_same_story(await page.get(f"recaps/{event.id}"), result)
        png = await page.get(f"recaps/{event.id}/recap.png")
        assert png.body == result.reply.files[0][1], seen.title
    assert [r.period for r in listed(await page.get(""))] == [
        "The last 3 hours",
        "Day 2",
        "Since the last recap",
        "The last 24 hours",
    ]
