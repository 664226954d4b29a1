"""Use cases of the campaign page (`/web`, docs/commands.md): the member's links, and what a
link shows, each page in one read-only transaction of the link's guild.

A link shows what its member may see in Discord, decided by the same rules: anyone in the
guild reads every character's board line, sheet and odds (P-2: never another guild's), and
every recap told in it (`/recap` is public: anyone may ask); a character's history is its
owner's and the GM's (P-4, as `/history`); a deleted character's history is the GM's. GM
is decided now, with the guild's settings of the moment (P-1), from what the link says of the
member. Every page first checks the link is of the member's current generation: `/web
revoke` ends every earlier one.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.db.database import Database
from bot.db.records import Board, CharacterRow, Event
from bot.db.uow import UnitOfWork
from bot.services.base import check_permission, is_gm
from bot.services.board import BoardView, read_board
from bot.services.context import Caller, Permission
from bot.services.play import Odds, odds_of
from bot.services.recap import RECAP, Remembered, Told, remembered, retell
from rules.errors import RuleError
from rules.models import GuildSettings, Sheet

CARDS_PER_PAGE = 60
EVENTS_PER_PAGE = 50
RECAPS_ON_CAMPAIGN = 10  # the latest; the older ones on the recaps' own pages
RECAPS_PER_PAGE = 50


class LinkEnded(Exception):
    """The link is of an earlier generation: its member ended it with `/web revoke`."""


class NotFound(Exception):
    """Nothing of this guild that this member may see has that id."""


@dataclass(frozen=True)
class Campaign:
    gm: bool
    cards: list[CharacterRow]  # one page, by name
    total: int  # characters in all
    offset: int
    boards: list[Board]
    deleted: list[tuple[int, Sheet]]  # the GM's only: their history stays (U-2)
    recaps: list[Remembered]  # the latest, newest first
    more_recaps: bool  # there are older ones


@dataclass(frozen=True)
class CharacterPage:
    gm: bool
    character_id: int
    sheet: Sheet
    deleted: bool
    settings: GuildSettings
    history: list[Event] | None  # one page, newest first; None: not this member's to read
    older: bool  # there are older events than this page's
    odds: Odds | None  # for a character who is down: its next rolls (R-1..R-6)


@dataclass(frozen=True)
class NewLink:
    """What a link made now carries besides the member: its generation, and the guild's GM
    role if the member has it (P-1; the page checks it against the settings of the moment)."""

    generation: int
    gm_role_id: int | None


async def new_link(db: Database, caller: Caller) -> NewLink:
    """`/web`: any member of the guild gets a link (it writes nothing)."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        generation = await uow.link_generation(caller.user_id)
        role = (await uow.settings()).gm_role_id
    return NewLink(generation, role if role is not None and role in caller.role_ids else None)


async def revoke_links(db: Database, caller: Caller) -> int:
    """`/web revoke`: every link made for the member in this guild so far ends."""
    async with db.transaction(caller.guild_id) as uow:
        return await uow.revoke_links(caller.user_id)


async def _admit(uow: UnitOfWork, caller: Caller, generation: int) -> tuple[GuildSettings, bool]:
    """The guild's settings and whether the member is its GM now, once the link is current
    (one query: every page asks it first)."""
    current, settings = await uow.link_generation_and_settings(caller.user_id)
    if current != generation:
        raise LinkEnded()
    return settings, is_gm(settings, caller)


async def admit(db: Database, caller: Caller, generation: int) -> bool:
    """Whether the member is the GM; LinkEnded once the link is revoked (an open live board
    checks again now and then)."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        return (await _admit(uow, caller, generation))[1]


async def campaign(db: Database, caller: Caller, generation: int, *, offset: int = 0) -> Campaign:
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        _, gm = await _admit(uow, caller, generation)
        cards, total = await uow.characters_page(offset, CARDS_PER_PAGE)
        boards = sorted(await uow.guild_boards(), key=lambda board: board.channel_id)
        deleted = await uow.deleted() if gm else []
        recaps, more = await _recaps(uow, RECAPS_ON_CAMPAIGN)
    return Campaign(gm, cards, total, offset, boards, deleted, recaps, more)


def _may_read_history(gm: bool, sheet: Sheet, caller: Caller) -> bool:
    """P-4, as `/history`: the owner or the GM."""
    try:
        check_permission(Permission.OWNER_OR_GM, gm, sheet.owner_id, caller)
    except RuleError:
        return False
    return True


async def character_page(
    db: Database,
    caller: Caller,
    generation: int,
    character_id: int,
    *,
    before: int | None = None,
    everything: bool = False,
) -> CharacterPage:
    """The sheet, one page of its history (bookkeeping too with `everything`; events older
    than `before`), and its odds when it is down. NotFound: no character of this guild has
    that id (or it was deleted, and the member is not the GM)."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        settings, gm = await _admit(uow, caller, generation)
        row = await uow.character_by_id(character_id, lock=False)
        if row is not None:
            sheet, deleted = row.sheet, False
        else:
            gone = dict(await uow.deleted()) if gm else {}
            if character_id not in gone:
                raise NotFound()
            sheet, deleted = gone[character_id], True
        history = None
        older = False
        if _may_read_history(gm, sheet, caller):
            found = await uow.history(
                character_id, EVENTS_PER_PAGE + 1, bookkeeping=everything, before=before
            )
            history, older = found[:EVENTS_PER_PAGE], len(found) > EVENTS_PER_PAGE
    chances = odds_of(sheet, settings) if sheet.state.is_down and not deleted else None
    return CharacterPage(gm, character_id, sheet, deleted, settings, history, older, chances)


async def board(
    db: Database, caller: Caller, generation: int, channel_id: int
) -> tuple[BoardView, bool]:
    """A channel's status board as it reads now (bot/services/board.py, the board worker's
    own reading), and whether the member is the GM: only a channel of this guild with a
    board, else NotFound."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        settings, gm = await _admit(uow, caller, generation)
        if await uow.board(channel_id) is None:
            raise NotFound()
        return await read_board(uow, channel_id, settings), gm


async def character_odds(
    db: Database, caller: Caller, generation: int, character_id: int
) -> Odds | None:
    """The odds of a character of this guild who is down (None: it is not down); NotFound
    when there is none (the chart's picture of the page)."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        settings, _ = await _admit(uow, caller, generation)
        row = await uow.character_by_id(character_id, lock=False)
    if row is None:
        raise NotFound()
    return odds_of(row.sheet, settings) if row.sheet.state.is_down else None


# --- recaps ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Recaps:
    gm: bool
    recaps: list[Remembered]  # one page, newest first
    older: bool  # there are older ones than this page's


@dataclass(frozen=True)
class RecapPage:
    gm: bool
    recap: Remembered
    told: Told
    openable: frozenset[int]  # the characters of the story whose page the member may open


async def _recaps(
    uow: UnitOfWork, limit: int, before: int | None = None
) -> tuple[list[Remembered], bool]:
    markers = await uow.markers(RECAP, limit + 1, before=before)
    return [await remembered(uow, m) for m in markers[:limit]], len(markers) > limit


async def recaps(
    db: Database, caller: Caller, generation: int, *, before: int | None = None
) -> Recaps:
    """The guild's recaps, newest first, a page at a time (those older than `before`)."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        _, gm = await _admit(uow, caller, generation)
        found, older = await _recaps(uow, RECAPS_PER_PAGE, before)
    return Recaps(gm, found, older)


async def _remembered(uow: UnitOfWork, recap_id: int) -> Remembered:
    """A recap of this guild (NotFound for any other id: another guild's, or not a recap)."""
    marker = await uow.marker_by_id(RECAP, recap_id)
    if marker is None:
        raise NotFound()
    return await remembered(uow, marker)


async def recap_page(db: Database, caller: Caller, generation: int, recap_id: int) -> RecapPage:
    """A recap told again as `/recap` told it (bot/services/recap.py `retell`): anyone of
    the guild reads it (`/recap` is public, P-2); its characters' pages open as theirs do
    (a deleted one's, the GM's)."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        settings, gm = await _admit(uow, caller, generation)
        recap = await _remembered(uow, recap_id)
        told = await retell(uow, recap, settings)
        ids = {story.character_id for story in told.recap.stories}
        openable = await uow.present(ids)
        if gm:
            openable |= ids & {i for i, _ in await uow.deleted()}
    return RecapPage(gm, recap, told, frozenset(openable))


async def recap_story(db: Database, caller: Caller, generation: int, recap_id: int) -> Told:
    """A recap of this guild told again (its picture); NotFound for any other id."""
    async with db.transaction(caller.guild_id, read_only=True) as uow:
        settings, _ = await _admit(uow, caller, generation)
        return await retell(uow, await _remembered(uow, recap_id), settings)
