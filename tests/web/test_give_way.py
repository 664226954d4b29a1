"""A page view gives way to the commands (issue 18: a page view must not move the commands'
p99): beside the bot, each statement of its reads, what it shows and each piece of its template
wait for a moment when the bot handles no interaction, never longer than GIVE_WAY_S a piece; the
page is the same either way. A live board is read and drawn the same way."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import bot.db.turns as turns_module
import bot.web.site as site_module
from bot.web import pages, view
from tests.web.conftest import Site
from tests.web.test_live import _stream, board_says, next_event


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
    monkeypatch.setattr(site_module, "REQUEST_GIVE_WAY_S", 60.0)
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


async def test_a_page_view_gives_way_a_quarter_second_in_all(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    """However many pieces it has, a page waits REQUEST_GIVE_WAY_S in all at most, even while
    the bot is never without a command in flight."""
    monkeypatch.setattr(site_module, "GIVE_WAY_S", 60.0)
    h = site.h
    await h.add_character("Roryn", vit=3)
    page = await site.open(h.owner)
    release, _ = stuck_command(site)
    try:
        began = asyncio.get_running_loop().time()
        again = await asyncio.wait_for(page.get(""), 5)
        took = asyncio.get_running_loop().time() - began
    finally:
        release.set()
    assert again.status == 200 and again.text == page.text
    assert site_module.REQUEST_GIVE_WAY_S <= took < site_module.REQUEST_GIVE_WAY_S + 1.0


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

    statements = 0
    execute = turns_module._Paced.execute

    async def statement(self: turns_module._Paced, *args: Any) -> Any:
        nonlocal statements
        statements += 1
        return await execute(self, *args)

    monkeypatch.setattr(inflight, "quiet", counted)
    monkeypatch.setattr(turns_module._Paced, "execute", statement)
    monkeypatch.setattr(site_module, "SLICE_S", 60.0)
    monkeypatch.setattr(turns_module, "PIECE_S", 60.0)  # each statement's rows in one piece
    whole = await site.open(h.owner)
    sheet = await whole.get("characters/1")
    in_one, read, turns, statements = turns, statements, 0, 0
    monkeypatch.setattr(site_module, "SLICE_S", 0.0)  # a turn after every piece
    monkeypatch.setattr(turns_module, "PIECE_S", 0.0)  # …and every row
    assert (await whole.get("")).text == whole.text
    assert (await whole.get("characters/1")).text == sheet.text
    # A turn as each request begins (the link's redirect, the two pages); for each page one
    # before each statement of its read (the campaign's: the link, the cards, the boards, the
    # recaps…; the sheet's: the link, the character, its history), one before what it shows is
    # built, its template in one piece, and its answer.
    assert read >= 6 and statements >= 6
    assert in_one == 3 + read + 2 * 3
    assert turns > 20 + statements  # …or in as many as its template yields


async def _live_update_waits(site: Site) -> None:
    """With a command being handled, a change reaches an open live board only once it ends."""
    h = site.h
    await h.add_character("Roryn", vit=3)
    await h.run(h.gm, "board start")
    page = await site.open(h.player)
    stream = await _stream(page.client, f"{page.url}boards/{h.guild.channel_id}/live")
    try:
        await next_event(stream, board_says("Roryn", "VIT 3/10"), 3.0)
        release, command = stuck_command(site)
        try:
            await h.run(h.owner, "damage", character="Roryn", amount=1)
            with pytest.raises(TimeoutError):
                await next_event(stream, board_says("VIT 2/10"), 0.5)
        finally:
            release.set()
        await next_event(stream, board_says("Roryn", "VIT 2/10"), 3.0)
        assert command.done()
    finally:
        stream.close()


async def test_a_live_board_is_read_between_the_commands(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(site_module, "GIVE_WAY_S", 60.0)

    async def at_once(self: pages.Pages, board: Any, link: Any) -> str:
        return "".join(
            self.site.templates.get_template("_board.html").generate(
                **self.site.context(link, board=view.board(board, 0))
            )
        )

    monkeypatch.setattr(pages.Pages, "fragment", at_once)  # only the read gives way
    await _live_update_waits(site)


async def test_a_live_board_is_drawn_between_the_commands(
    site: Site, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(site_module, "GIVE_WAY_S", 60.0)
    monkeypatch.setattr(site.server.live, "_turn", None)  # only the drawing gives way
    await _live_update_waits(site)
