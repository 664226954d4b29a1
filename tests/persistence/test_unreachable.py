"""A database the bot cannot reach: each command is refused with Unreachable within the connect
timeout (engine.py's CONNECT_TIMEOUT_S, not asyncpg's minute), on the hot path and in a unit
of work alike, and nothing else is named so (an error inside the transaction, a lock met while
connecting: Busy); a connection the server closed while it lay idle (a restart) is dropped and
replaced, not used; a round trip that gets no answer ends its whole group with NoAnswer, and a
unit of work's alike, but not a migration's; a connection lost in the middle of a command is
NoAnswer on both paths."""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy import Connection, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from bot.db.busy import Busy
from bot.db.database import Database
from bot.db.errors import NoAnswer, Unreachable
from bot.db.postgres_path import _lost
from tests.discord.test_window import sqlite_write_lock
from tests.persistence.conftest import PG_URL, SKIP_PG, empty_database, upgraded
from tests.persistence.helpers import GUILD, Target, create, hit, sheet_of
from tests.silent_network import closed_port, connect_timeout, round_trip_timeout, silent_port

TIMEOUT_S = 0.3
# Well under asyncpg's own 60 s: the refusal came from our timeout, not its.
PROMPTLY_S = 3.0


@pytest.fixture
def quick_connect(monkeypatch: pytest.MonkeyPatch) -> None:
    connect_timeout(monkeypatch, TIMEOUT_S)


async def refused_with(db: Database, *, hot: bool) -> BaseException | None:
    """Unreachable's cause for a command (the hot path's /damage) or a unit of work; fails the
    test if it took long or raised anything else."""
    started = time.monotonic()
    with pytest.raises(Unreachable) as raised:
        if hot:
            await hit(db, "Roryn", 1)
        else:
            async with db.transaction(GUILD) as uow:
                await uow.settings()
    assert time.monotonic() - started < PROMPTLY_S
    assert "nothing was changed" in str(raised.value)
    return raised.value.__cause__


@pytest.fixture
async def silent_url() -> AsyncIterator[str]:
    async with silent_port() as port:
        yield f"postgresql+asyncpg://postgres@127.0.0.1:{port}/test"


@pytest.mark.parametrize("hot", [True, False], ids=["hot path", "unit of work"])
async def test_a_server_that_does_not_answer_is_unreachable_within_the_timeout(
    quick_connect, silent_url, hot
):
    db = await Database.connect(silent_url)
    try:
        assert isinstance(await refused_with(db, hot=hot), TimeoutError)
        assert isinstance(await refused_with(db, hot=hot), TimeoutError)  # and again, alike
    finally:
        await db.close()


@pytest.mark.parametrize("hot", [True, False], ids=["hot path", "unit of work"])
async def test_a_refused_connection_is_unreachable(hot):
    db = await Database.connect(f"postgresql+asyncpg://postgres@127.0.0.1:{closed_port()}/test")
    try:
        assert isinstance(await refused_with(db, hot=hot), ConnectionRefusedError)
    finally:
        await db.close()


@pytest.mark.postgres
@pytest.mark.parametrize("hot", [True, False], ids=["hot path", "unit of work"])
async def test_a_server_that_turns_the_bot_away_is_unreachable(hot):
    if not PG_URL:
        pytest.skip(SKIP_PG)
    url = make_url(PG_URL).set(database="lastgasp_no_such_database")
    db = await Database.connect(url.render_as_string(hide_password=False))
    try:
        cause = await refused_with(db, hot=hot)
        assert "lastgasp_no_such_database" in str(cause)  # the server's own words, logged
    finally:
        await db.close()


async def test_an_error_inside_the_transaction_is_not_called_unreachable(tmp_path: Path):
    """Only connecting is named so: an OSError of the transaction's own stays itself."""
    db = await Database.connect(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
    try:
        await db.upgrade()
        with pytest.raises(OSError, match="the disk"):
            async with db.transaction(GUILD):
                raise OSError("the disk")
    finally:
        await db.close()


async def test_a_timeout_of_the_blocks_own_is_not_called_no_answer(tmp_path: Path):
    """Only a statement's round trip is named so: a TimeoutError of the block's own (a wait
    of its own, say) stays itself."""
    db = await Database.connect(f"sqlite+aiosqlite:///{tmp_path / 'x.db'}")
    try:
        await db.upgrade()
        with pytest.raises(TimeoutError):  # not NoAnswer, which is no TimeoutError
            async with db.transaction(GUILD):
                raise TimeoutError
    finally:
        await db.close()


APP = "lastgasp_restart_test"


@pytest.mark.postgres
async def test_connections_the_server_closed_while_idle_are_replaced(tmp_path: Path):
    """A restart of the server closes every connection the bot holds idle: the next command
    and the next unit of work connect anew instead of failing on them."""
    async with empty_database("postgresql", tmp_path) as target:
        settings = {**target.connect_args["server_settings"], "application_name": APP}
        named = Target(target.url, {**target.connect_args, "server_settings": settings})
        async with upgraded(named) as db:
            row = await create(db, "Roryn", vit=8)
            await hit(db, "Roryn", 1)  # the hot path's connection, now idle
            assert (await sheet_of(db, row.id)).vit == 7  # the pool's, now idle
            assert await end_connections(APP) >= 2
            await asyncio.sleep(0.2)  # the closed sockets reach the bot's loop
            await hit(db, "Roryn", 1)
            assert (await sheet_of(db, row.id)).vit == 6


@pytest.mark.postgres
async def test_a_unit_of_work_whose_connection_is_lost_is_no_answer(tmp_path: Path):
    """The server ends the connection in the middle of a transaction (a restart, a network
    cut): the command is told the database stopped answering (whether a save landed cannot be
    known in general), not a bug; nothing of it is committed; the next goes through."""
    async with empty_database("postgresql", tmp_path) as target:
        settings = {**target.connect_args["server_settings"], "application_name": APP}
        named = Target(target.url, {**target.connect_args, "server_settings": settings})
        async with upgraded(named, hot_path=False) as db:
            row = await create(db, "Roryn", vit=8)
            with pytest.raises(NoAnswer) as raised:
                async with db.transaction(GUILD) as uow:
                    await uow.conn.execute(text("DELETE FROM events"))
                    assert await end_connections(APP) >= 1
                    await uow.conn.execute(text("DELETE FROM characters"))
            # The driver's words vary with when the server's farewell arrives ("connection was
            # closed", "another operation is in progress"): either way SQLAlchemy dropped it.
            cause = raised.value.__cause__
            assert isinstance(cause, DBAPIError) and cause.connection_invalidated
            assert (await sheet_of(db, row.id)).vit == 8


@pytest.mark.postgres
async def test_a_command_whose_connection_is_lost_on_the_hot_path_is_no_answer(tmp_path: Path):
    """The server ends the hot path's connection while its save waits for a row lock (a
    restart, a network cut): the command is told the database stopped answering, as a unit of
    work's is, not a bug; nothing of it is saved; the next command goes through."""
    async with empty_database("postgresql", tmp_path) as target:
        settings = {**target.connect_args["server_settings"], "application_name": APP}
        named = Target(target.url, {**target.connect_args, "server_settings": settings})
        async with upgraded(named) as db:
            row = await create(db, "Roryn", vit=8)
            holder = await asyncpg.connect(
                _dsn(), server_settings=target.connect_args["server_settings"]
            )
            try:
                async with holder.transaction():  # the row stays locked: the save waits
                    await holder.execute("SELECT id FROM characters FOR UPDATE")
                    command = asyncio.ensure_future(hit(db, "Roryn", 1))
                    await _waiting_for_a_lock(APP)
                    assert await end_connections(APP) >= 1
                    with pytest.raises(NoAnswer) as raised:
                        await command
            finally:
                await holder.close()
            assert "connection" in str(raised.value.__cause__)
            assert (await sheet_of(db, row.id)).vit == 8
            await hit(db, "Roryn", 1)
            assert (await sheet_of(db, row.id)).vit == 7


@pytest.mark.postgres
async def test_the_servers_farewell_is_a_lost_connection_before_its_socket_closes():
    """A server ending a session (a restart, pg_terminate_backend) sends its reason, then
    closes the socket, and the hot path may read the one before the other: the reason alone
    makes the command NoAnswer, not a bug; a refusal on a good connection stays a refusal."""
    if not PG_URL:
        pytest.skip(SKIP_PG)
    conn = await asyncpg.connect(_dsn())
    try:
        assert not conn.is_closed()
        assert _lost(conn, asyncpg.AdminShutdownError("terminating connection"))
        assert _lost(conn, asyncpg.CrashShutdownError("terminating connection"))
        assert not _lost(conn, asyncpg.UniqueViolationError("duplicate key value"))
    finally:
        await conn.close()
    assert _lost(conn, asyncpg.UniqueViolationError("duplicate key value"))  # closed since


async def _waiting_for_a_lock(application_name: str) -> None:
    """Until a connection so named waits for a row lock. (Asked on a connection of its own:
    a transaction sees the server's activity as it was at its first look.)"""
    admin = await asyncpg.connect(_dsn())
    try:
        for _ in range(200):
            if await admin.fetchval(
                "SELECT count(*) FROM pg_stat_activity"
                " WHERE application_name = $1 AND wait_event_type = 'Lock'",
                application_name,
            ):
                return
            await asyncio.sleep(0.005)
    finally:
        await admin.close()
    raise AssertionError(f"no connection named {application_name} waited for a lock")


def _dsn() -> str:
    assert PG_URL
    return make_url(PG_URL).set(drivername="postgresql").render_as_string(hide_password=False)


async def end_connections(application_name: str) -> int:
    """What a restart of the server does to them: every connection so named ended."""
    admin = await asyncpg.connect(_dsn())
    try:
        return int(
            await admin.fetchval(
                "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity"
                " WHERE application_name = $1",
                application_name,
            )
        )
    finally:
        await admin.close()


async def test_a_lock_met_while_connecting_is_busy_not_unreachable(tmp_path: Path):
    """A new SQLite connection's pragmas wait for another process's lock as any statement does
    (a file not yet in WAL mode, held by a backup tool): past the budget the table is busy
    (try again in a moment), not out of reach."""
    path = str(tmp_path / "x.db")
    db = await Database.connect(f"sqlite+aiosqlite:///{path}", hot_path=False)
    try:
        with sqlite_write_lock(path, 3.0), pytest.raises(Busy):  # the file made by the holder
            async with db.transaction(GUILD) as uow:
                await uow.settings()
    finally:
        await db.close()


@pytest.mark.postgres
async def test_a_stall_in_a_later_round_trip_of_a_group_ends_the_whole_group(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """The driver's timeout (asyncpg's command_timeout) on the round trip for a name that is
    not there: every command of that group is told the database stopped answering, none goes
    on over the connection (it is dropped), nothing is saved."""
    from bot.db.postgres_path import PostgresHotPath

    async def stalls(self: PostgresHotPath, conn: object, guild_id: int) -> None:
        raise TimeoutError  # as asyncpg raises it past command_timeout

    async with empty_database("postgresql", tmp_path) as target, upgraded(target) as db:
        row = await create(db, "Roryn", vit=8)
        monkeypatch.setattr(PostgresHotPath, "_nobody", stalls)
        told = await asyncio.gather(  # asked in one turn: one group
            hit(db, "Nobody", 1), hit(db, "Roryn", 1), return_exceptions=True
        )
        assert [type(error) for error in told] == [NoAnswer, NoAnswer]
        assert (await sheet_of(db, row.id)).vit == 8


@pytest.mark.postgres
async def test_a_statement_of_a_unit_of_work_left_unanswered_is_no_answer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A unit of work's round trip waits ROUND_TRIP_TIMEOUT_S at most (asyncpg's
    command_timeout on the engine's connections): then NoAnswer; the connection is dropped,
    nothing of the transaction is committed, and the next transaction goes through."""
    async with empty_database("postgresql", tmp_path) as target:
        round_trip_timeout(monkeypatch, TIMEOUT_S)  # not for the schema's own setup
        async with upgraded(target) as db:
            row = await create(db, "Roryn", vit=8)
            started = time.monotonic()
            with pytest.raises(NoAnswer) as raised:
                async with db.transaction(GUILD) as uow:
                    await uow.conn.execute(text("DELETE FROM events"))
                    await uow.conn.execute(text("DELETE FROM characters"))
                    # A server gone quiet for a second: its locks then go with the statement.
                    await uow.conn.execute(text("SELECT pg_sleep(1)"))
            assert TIMEOUT_S <= time.monotonic() - started < PROMPTLY_S
            assert isinstance(raised.value.__cause__, TimeoutError)
            assert "Check /history" in str(raised.value)
            assert db.engine.pool.checkedout() == 0
            assert (await sheet_of(db, row.id)).vit == 8  # rolled back, and a new connection


@pytest.mark.postgres
async def test_migrations_wait_for_their_statements_as_long_as_they_take(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
):
    """A migration may rightly take long on a big database: its engine's round trips have no
    timeout, where the bot's would give up."""
    from bot.db import migrate

    upgrade_as_given = migrate._upgrade

    def slow_upgrade(connection: Connection, revision: str) -> None:
        connection.execute(text("SELECT pg_sleep(0.5)"))  # a long statement of a migration
        upgrade_as_given(connection, revision)

    async with empty_database("postgresql", tmp_path) as target:
        round_trip_timeout(monkeypatch, 0.1)  # not for the schema's own setup
        monkeypatch.setattr(migrate, "_upgrade", slow_upgrade)
        async with upgraded(target) as db:
            row = await create(db, "Roryn", vit=8)  # the schema is there
            assert (await sheet_of(db, row.id)).vit == 8
            with pytest.raises(NoAnswer):  # the bot's own statements are timed
                async with db.transaction(GUILD) as uow:
                    await uow.conn.execute(text("SELECT pg_sleep(0.5)"))
