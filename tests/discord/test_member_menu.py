"""The user menu "Characters" (right-click a member → Apps): that member's characters in this
server, privately, with the lines of /character list (docs/commands.md)."""

from __future__ import annotations

from bot.render.common import INFO_COLOUR
from tests.discord.conftest import Harness

USER_MENU = 2


async def test_the_menu_is_registered_as_a_guild_only_user_command(harness: Harness) -> None:
    await harness.bot.tree.sync()
    [request] = [r for r in harness.driver.requests if r.method == "PUT"]
    harness.validator.check(request)
    [menu] = [c for c in request.payload if c["name"] == "Characters"]
    assert menu["type"] == USER_MENU and menu["contexts"] == [0]
    assert "options" not in menu or not menu["options"]


async def test_it_lists_that_members_characters_of_this_server_only(harness: Harness) -> None:
    await harness.add_character("Roryn", owner=harness.owner, vit=-1)
    await harness.add_character("Ash", owner=harness.owner)
    await harness.add_character("Bea", owner=harness.player)
    await harness.add_character("Far", owner=harness.owner, guild=harness.other_guild)
    before = await harness.snapshot()
    result = harness.validated(
        await harness.driver.user_menu(harness.player, "Characters", harness.owner)
    )
    assert result.ephemeral  # a look-up, for the one who asked
    card = result.card
    assert card.title == "Alice's characters" and card.colour == INFO_COLOUR
    # /character list's lines, by name, without the owner (the title names it); not Bea (Bob's),
    # not Far (another server, P-2).
    assert card.lines == [
        "🟢 Ash · Up · VIT 10/10 · Stamina 8/8",
        "🟠 Roryn · Critical · VIT -1/10 · Stamina 8/8",
    ]
    assert card.small == "2 characters"
    assert await harness.snapshot() == before  # it changes nothing, and logs nothing


async def test_a_member_without_characters_is_told_so_and_the_name_is_escaped(
    harness: Harness,
) -> None:
    sly = harness.member("**Sly** @everyone")
    result = harness.validated(await harness.driver.user_menu(harness.owner, "Characters", sly))
    assert result.ephemeral
    assert result.card.title == r"\*\*Sly\*\* \@everyone's characters"
    assert result.card.lines == [
        r"\*\*Sly\*\* \@everyone has no character in this server. /character create makes one."
    ]
