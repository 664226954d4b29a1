"""The offline console's `:select` (the GM's menu of characters, G-1, G-2), as a person uses it:
a console on a fresh database driven line by line (`Console.handle`), what it printed read
back. `:select` alone lists the most recent menu's options; `:select A, B` chooses by a unique
part of each label; a part that names no option, or several, is one line of error, nothing is
sent to the bot, and the session goes on."""

from __future__ import annotations

import pytest

from tests.discord import test_console
from tests.discord.test_console import Session

session = test_console.session  # the same console fixture, fresh database per test


async def three_and_a_menu(session: Session) -> str:
    await session(
        ":as gm",
        "/character create name:Roryn",
        "/character create name:Rosa",
        "/character create name:Tam",
    )
    return await session("/breakdown emotion:fear pressure:8")


async def test_G_1_the_menu_is_shown_with_its_options(session):
    printed = await three_and_a_menu(session)
    assert printed.startswith("[ephemeral reply]\n")
    assert (
        "[menu Choose up to 3 characters: 🟢 Roryn · Up, VIT 10/10, 🟢 Rosa · Up, VIT 10/10, "
        "🟢 Tam · Up, VIT 10/10]" in printed
    )


async def test_select_alone_lists_the_options_of_the_menu(session):
    await three_and_a_menu(session)
    sent = len(session.driver.requests)
    assert await session(":select") == (
        "Options of the menu 'Choose up to 3 characters' (:select A, B chooses):\n"
        "  🟢 Roryn · Up, VIT 10/10\n"
        "  🟢 Rosa · Up, VIT 10/10\n"
        "  🟢 Tam · Up, VIT 10/10\n"
    )
    assert len(session.driver.requests) == sent  # nothing sent to the bot


async def test_select_chooses_by_a_unique_part_of_each_label(session):
    await three_and_a_menu(session)
    printed = await session(":select RORYN, tam")  # any case, commas between
    assert printed.startswith(
        "[ephemeral update]\n  Done for 2 characters: the results are in the channel.\n"
    )
    assert "[public followup]\n  # Situational breakdown · Fear, Pressure 8" in printed
    scene = printed.split("[public followup]", 1)[1]
    assert "Roryn" in scene and "Tam" in scene and "Rosa" not in scene
    assert scene.index("Roryn") < scene.index("Tam")  # in the order chosen
    # One event each, as the menu in Discord does it.
    async with session.driver.bot.db.engine.connect() as conn:
        rows = await conn.exec_driver_sql(
            "SELECT command, character_id FROM events WHERE command = 'breakdown' ORDER BY id"
        )
        assert len(rows.all()) == 2


async def test_select_a_longer_part_tells_two_close_names_apart(session):
    """`ros` names Rosa only (Roryn shares `ro`, not `ros`)."""
    await three_and_a_menu(session)
    printed = await session(":select ros")
    assert "Done for 1 character: the results are in the channel." in printed
    assert "Rosa" in printed.split("[public followup]", 1)[1]


@pytest.mark.parametrize(
    ("line", "said"),
    [
        (":select zzz", "error: no option of the menu matches 'zzz' (:select alone lists them)\n"),
        (
            ":select ro",
            "error: 'ro' matches several options: 🟢 Roryn · Up, VIT 10/10, "
            "🟢 Rosa · Up, VIT 10/10\n",
        ),
        (
            ":select roryn, nobody",
            "error: no option of the menu matches 'nobody' (:select alone lists them)\n",
        ),
        (
            ":select VIT",
            "error: 'vit' matches several options: 🟢 Roryn · Up, VIT 10/10, "
            "🟢 Rosa · Up, VIT 10/10, 🟢 Tam · Up, VIT 10/10\n",
        ),
    ],
)
async def test_an_unknown_or_ambiguous_part_is_one_line_and_the_session_goes_on(
    session, line, said
):
    await three_and_a_menu(session)
    sent = len(session.driver.requests)
    assert await session(line) == said
    assert len(session.driver.requests) == sent  # nothing was sent: no part of it chosen
    assert await session(":who") == "speaking as GM (GM)\n"
    # The menu is still open: choosing still works.
    assert "Done for 1 character" in await session(":select tam")


async def test_select_without_a_menu_is_one_line(session):
    assert (
        await session(":select")
        == "error: No open menu: run the command that asks (e.g. /damage several:true).\n"
    )
    assert (
        await session(":select roryn")
        == "error: No open menu: run the command that asks (e.g. /damage several:true).\n"
    )
    assert await session(":who") == "speaking as GM (GM)\n"


async def test_select_takes_the_most_recent_menu(session):
    await three_and_a_menu(session)
    await session("/damage amount:4 several:true")
    printed = await session(":select tam")
    assert "[public followup]\n  # Damage · 4 each" in printed
    assert "Tam takes 4 damage" in printed
    # The breakdown's menu, shown before, is still there to choose in.
    printed = await session(":select roryn")
    assert "[public followup]\n  # Situational breakdown · Fear, Pressure 8" in printed


async def test_a_menu_answered_is_not_offered_again(session):
    await three_and_a_menu(session)
    await session(":select roryn")
    sent = len(session.driver.requests)
    assert (await session(":select")).startswith("error: ")
    assert len(session.driver.requests) == sent


async def test_a_player_choosing_in_the_gms_menu_is_refused_privately(session):
    await three_and_a_menu(session)
    await session(":as player Bob")
    printed = await session(":select roryn")
    assert printed.startswith("[ephemeral reply]\n")
    assert "Only the GM who asked can choose" in printed
    await session(":as gm")
    assert "Done for 1 character" in await session(":select roryn")
