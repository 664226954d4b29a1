"""A page view gives way to the commands (issue 18: a page view must not move the commands'
p99): beside the bot, its reads and each piece of its template wait for a moment when the bot
handles no interaction, never longer than GIVE_WAY_S a piece; the page is the same either way."""

from __future__ import annotations

import asyncio

import pytest

import bot.web.site as site_module
from tests.web.conftest import Site


def stuck_command(site: Site) -> tuple[asyncio.Event, asyncio.Task[bool]]:
    """An interaction the bot is handling until the event is set."""
    release = asyncio.Event()
    task = asyncio.create_task(release.wait())
    site.h.bot.inflight.track(task, "damage")
    return release, task


async def test_a_page_view_waits_while_a_command_is_being_handled(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(site_module, "GIVE_WAY_S", 60.0)
    h = site.h
    await h.add_character("Roryn", vit=3)
    page = await site.open(h.owner)  # nothing in flight: served at once
    assert page.status == 200 and "Roryn" in page.text
    release, command = stuck_command(site)
    view = asyncio.create_task(page.get(""))
    done, _ = await asyncio.wait({view}, timeout=0.3)
    assert not done  # the page waits for the command
    release.set()
    again = await asyncio.wait_for(view, 5)
    assert command.done()
    assert again.status == 200 and again.text == page.text


async def test_a_page_view_never_waits_longer_than_its_turns(site: Site) -> None:
    h = site.h
    await h.add_character("Roryn", vit=3)
    page = await site.open(h.owner)
    release, _ = stuck_command(site)  # never handled to the end while the page is read
    try:
        again = await asyncio.wait_for(page.get(""), 5)
        sheet = await asyncio.wait_for(page.get("characters/1"), 5)
    finally:
        release.set()
    assert again.status == 200 and again.text == page.text
    assert sheet.status == 200 and "Roryn" in sheet.text


async def test_a_template_drawn_in_pieces_is_the_same_page(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    h = site.h
    for name in ("Roryn", "Sera", "Tam"):
        await h.add_character(name, vit=-2)
    inflight = h.bot.inflight
    turns = 0
    quiet = inflight.quiet

    async def counted(timeout: float) -> None:
        nonlocal turns
        turns += 1
        await quiet(timeout)

    monkeypatch.setattr(inflight, "quiet", counted)
    monkeypatch.setattr(site_module, "SLICE_S", 60.0)
    whole = await site.open(h.owner)
    sheet = await whole.get("characters/1")
    in_one, turns = turns, 0
    monkeypatch.setattr(site_module, "SLICE_S", 0.0)  # a turn after every piece
    assert (await whole.get("")).text == whole.text
    assert (await whole.get("characters/1")).text == sheet.text
    assert in_one == 5  # the link checked; each page: its read, its template in one piece
    assert turns > 20  # …or in as many as its template yields
