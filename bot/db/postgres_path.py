"""PostgreSQL's hot path: the commands on one character (`Database.act`) and the looks
(`read_actor`), straight on asyncpg, in groups.

A command is optimistic: the load (no transaction), the rule, then one statement that saves at
the loaded version and logs the event. When another command saved the character in between,
it runs again in a transaction that locks the row (SELECT … FOR UPDATE), so a hot character
queues instead of retrying.

The commands and looks that ask while every connection is busy wait in one queue, first come,
first served; a connection that comes free takes up to _GROUP of them at once and sends their
loads as one pipelined batch (asyncpg's `fetchmany`: one round trip), then their saves as
another. Each save stays its own statement with its own version check, so a group changes
nothing a command alone would not; the batch is one implicit transaction, so a save the server
refuses (a name taken, say) undoes the batch and each of its commands runs again alone, and a
batch that waited past the budget for a row lock is Busy, every command of it (busy.py).
Round trips were most of what a command cost the bot's process here, and every one woke a
server process on the same two cores (bench/README.md, "PostgreSQL, in groups"). One at a time
a group is one command: two round trips, as before. While one is in flight the event loop polls
for its answer instead of sleeping, for a round trip's length at most (spin.py).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import inspect
from dataclasses import dataclass
from typing import Any, NoReturn

from sqlalchemy import Integer, bindparam
from sqlalchemy.engine import Dialect
from sqlalchemy.ext.asyncio import AsyncEngine

from bot.db.busy import LOCK_BUDGET_S, Busy, deadline, remaining
from bot.db.codec import Clock
from bot.db.compiled import Compiled
from bot.db.engine import CONNECT_TIMEOUT_S, ROUND_TRIP_TIMEOUT_S
from bot.db.errors import NoAnswer, Unreachable, could_not_connect, name_taken, stale
from bot.db.guilds import settings_from_text
from bot.db.hotpath import Command, Statements, actor_of
from bot.db.records import Actor
from bot.db.spin import Spinner
from bot.db.tables import events
from bot.db.writes import Target, actor_params, keys_change, load_actor, save_and_log
from rules.errors import RuleError
from rules.outcome import Outcome

# Enough connections to cover the event loop's delay between a group's round trips, and no
# more: each is a server process woken on the same cores as the bot (each command alone, 10
# against 20 gave more commands a second and a lower p99; in groups, 2 to 10 gave the same
# open-loop tail: bench/README.md). Fewer, too, for several shards under PostgreSQL's default
# max_connections (100).
POOL_SIZE = 10
# Commands and looks a group takes at most: a group's round trips wait for its slowest
# statement, and its row locks are held until its last.
_GROUP = 16
# Server-side bounds of every wait (busy.py): a statement waiting for a row lock gives up.
SERVER_SETTINGS = {"lock_timeout": f"{int(LOCK_BUDGET_S * 1000)}ms"}

_KINDS: tuple[Target, ...] = ("name", 0, None)  # one target of each kind


@dataclass(frozen=True)
class _GroupStatements:
    """The load of each kind of target with the asker's place in its group (`fetchmany`
    returns one list of rows for the whole batch), and the save-and-log returning the saved
    character's id (no row: stale)."""

    loads: dict[type, Compiled]
    saves_and_logs: dict[bool, Compiled]  # by keys_change

    @classmethod
    def of(cls, dialect: Dialect) -> _GroupStatements:
        slot = bindparam("slot", type_=Integer)
        return cls(
            loads={
                type(kind): Compiled.of(load_actor(kind).add_columns(slot), dialect)
                for kind in _KINDS
            },
            saves_and_logs={
                keys: Compiled.of(save_and_log(keys=keys).returning(events.c.character_id), dialect)
                for keys in (True, False)
            },
        )


@dataclass(eq=False, slots=True)
class _Ask:
    """A command (or, with `command` None, a look) waiting for its group."""

    guild_id: int
    target: Target
    user_id: int
    command: Command | None
    future: asyncio.Future[Any] | None  # None once answered
    until: float  # time.monotonic() past which it is refused (Busy) if not taken yet

    @property
    def waiting(self) -> bool:
        """Not answered, and its asker still waits (it was not cancelled)."""
        return self.future is not None and not self.future.done()

    def answer(self, result: Any, error: BaseException | None = None) -> None:
        """Its result or error to the asker. The ask lets go of the future: an error's
        traceback holds the group's frames, and through them this ask; with the future
        still here that would be a cycle, left to the collector."""
        future, self.future = self.future, None
        if future is None or future.done():  # the asker was cancelled: what its group did
            return  # stands or fell as a whole
        if error is None:
            future.set_result(result)
        else:
            future.set_exception(error)


@dataclass(eq=False, slots=True)
class _Decided:
    ask: _Ask
    row_id: int
    keys: bool  # whether the save changes the indexed name key or owner (which statement)
    values: dict[str, Any]
    outcome: Outcome


class _Connections:
    """This path's own connections, each used by one group at a time (the groups' runners are
    at most POOL_SIZE, so nothing waits here). A connection is reused as it was left, since a
    group ends its own transactions; one that failed is closed, never reused."""

    def __init__(self, params: dict[str, Any]) -> None:
        self._params = params
        self._idle: list[Any] = []

    async def take(self) -> Any:
        """An idle connection, or a new one; Unreachable when none can be made. One the server
        has closed since (a restart) is dropped, not used."""
        import asyncpg

        while self._idle:
            conn = self._idle.pop()
            if not conn.is_closed():
                return conn
        try:
            return await asyncpg.connect(**self._params)
        except Exception as error:
            if could_not_connect(error):
                raise Unreachable() from error
            raise

    def give_back(self, conn: Any, failed: bool) -> None:
        if failed:
            conn.terminate()
        elif not conn.is_closed():
            self._idle.append(conn)

    async def close(self) -> None:
        idle, self._idle = self._idle, []
        for conn in idle:
            with contextlib.suppress(Exception):
                await conn.close(timeout=2)


def _lost(conn: Any, error: BaseException) -> bool:
    """Whether `error` came with the connection's end (the server restarted or ended it, the
    network cut it): the database's failure, told as NoAnswer, not a bug or a refusal. The
    server's farewell (57P01, 57P02) counts at once: it may be read before the socket's close."""
    import asyncpg

    if conn is None or not isinstance(error, Exception):
        return False
    ended = (asyncpg.AdminShutdownError, asyncpg.CrashShutdownError)
    return isinstance(error, ended) or bool(conn.is_closed())


class PostgresHotPath:
    def __init__(self, connections: _Connections, dialect: Dialect, clock: Clock) -> None:
        self._connections = connections
        self._sql = Statements.of(dialect)
        self._grouped = _GroupStatements.of(dialect)
        self._clock = clock
        self._waiting: collections.deque[_Ask] = collections.deque()
        self._runners: set[asyncio.Task[None]] = set()
        self._starting = False  # a step is due that claims the queue (this turn's asks join it)
        self._expiry: asyncio.TimerHandle | None = None  # for the oldest waiting ask
        self._spinner = Spinner()  # the loop polls while a round trip is in flight (spin.py)

    @classmethod
    async def open(
        cls, engine: AsyncEngine, connect_args: dict[str, Any], clock: Clock
    ) -> PostgresHotPath:
        """Connections of its own, reaching the server as the engine does; it connects on first
        use, not here."""
        import asyncpg

        _, params = engine.dialect.create_connect_args(engine.url)
        accepted = inspect.signature(asyncpg.connect).parameters
        params = {k: v for k, v in {**params, **connect_args}.items() if k in accepted}
        params["server_settings"] = {**SERVER_SETTINGS, **params.get("server_settings", {})}
        params.setdefault("timeout", CONNECT_TIMEOUT_S)
        params.setdefault("command_timeout", ROUND_TRIP_TIMEOUT_S)
        return cls(_Connections(params), engine.dialect, clock)

    async def act(self, command: Command) -> Outcome:
        outcome: Outcome = await self._ask(
            command.guild_id, command.target, command.user_id, command
        )
        return outcome

    async def read(self, guild_id: int, target: Target, user_id: int) -> Actor:
        actor: Actor = await self._ask(guild_id, target, user_id, None)
        return actor

    def _ask(
        self, guild_id: int, target: Target, user_id: int, command: Command | None
    ) -> asyncio.Future[Any]:
        """Its future, answered by its group. (Made here, not in `act`, whose frame a
        refusal's traceback holds: a cycle for the collector.)"""
        loop = asyncio.get_running_loop()
        future = loop.create_future()
        self._waiting.append(_Ask(guild_id, target, user_id, command, future, deadline()))
        if self._starting:  # the step due claims this ask too
            return future
        if len(self._runners) < POOL_SIZE:  # its first step claims what this turn asked
            self._starting = True
            self._runners.add(loop.create_task(self._run()))
        else:  # a busy runner takes it when its group ends
            self._watch()
        return future

    # --- the queue -----------------------------------------------------------------------------

    def _start(self) -> None:
        """A runner for each group the queue holds, while connections are left; the rest wait
        for a runner's group to end, at most until their deadline."""
        self._starting = False
        while self._waiting and len(self._runners) < POOL_SIZE:
            group = self._claim()
            if group:
                self._runners.add(asyncio.get_running_loop().create_task(self._run(group)))
        self._watch()

    def _claim(self) -> list[_Ask]:
        group: list[_Ask] = []
        while self._waiting and len(group) < _GROUP:
            ask = self._waiting.popleft()
            if ask.waiting:  # else its asker was cancelled
                group.append(ask)
        return group

    def _watch(self) -> None:
        """One timer, for the oldest waiting ask (the queue is in the order of deadlines)."""
        if self._expiry is not None or not self._waiting:
            return
        delay = remaining(self._waiting[0].until)
        self._expiry = asyncio.get_running_loop().call_later(delay, self._expire)

    def _expire(self) -> None:
        self._expiry = None
        while self._waiting and remaining(self._waiting[0].until) <= 0:
            self._waiting.popleft().answer(None, Busy())
        self._watch()

    async def _run(self, group: list[_Ask] | None = None) -> None:
        """Groups, one after another on one connection, until the queue is empty. Started by
        an ask (no `group`), it claims the asks of the turn that started it: one turn of the
        loop sooner than a start scheduled for that turn's end would create it."""
        if group is None:
            group = self._claim()
            self._start()  # runners for what is left (more than a group), the expiry timer
        failed = False
        conn = None
        try:
            conn = await self._connections.take()
            while group:
                await self._group(conn, group)
                group = self._claim()
        except BaseException as error:  # the connection failed: each asker left is told
            failed = True
            told: BaseException = error
            if isinstance(error, TimeoutError) or _lost(conn, error):
                told = NoAnswer()  # whether a save landed is not known: check /history
                told.__cause__ = error
            for ask in group:
                ask.answer(None, told)
            if not isinstance(error, Exception):
                raise
        finally:
            if conn is not None:
                self._connections.give_back(conn, failed)
            self._runners.discard(asyncio.current_task())  # now: _start may run before it ends
            if self._waiting and not self._starting:  # left by a failed runner
                self._starting = True
                asyncio.get_running_loop().call_soon(self._start)

    # --- one group -----------------------------------------------------------------------------

    async def _rows(self, conn: Any, sql: str, args: list[tuple[Any, ...]]) -> list[Any]:
        """The rows of `sql` run once for each of `args`, in one round trip: a pipelined batch,
        one implicit transaction (asyncpg's `fetchmany`), or for one alone the plainer call,
        which costs the process less (a group of one is most groups at a quiet moment)."""
        spinner = self._spinner
        spinner.enter()
        try:
            if len(args) == 1:
                record = await conn.fetchrow(sql, *args[0])
                return [] if record is None else [record]
            return list(await conn.fetchmany(sql, args))
        finally:
            spinner.leave()

    async def _group(self, conn: Any, group: list[_Ask]) -> None:
        """Load every ask's actor in one round trip; answer the looks; decide the commands
        (one a character: a second on the same one runs after, alone); save and log them in
        one more round trip."""
        import asyncpg

        records = await self._load(conn, group)
        decided: list[_Decided] = []
        after: list[_Ask] = []  # a second command on a character of this group
        rows: set[int] = set()
        for ask, record in zip(group, records, strict=True):
            try:
                actor, version = await self._actor(conn, ask, record)
                if ask.command is None:
                    ask.answer(actor)
                elif actor.row is None:
                    self._refuse(ask.command, actor)
                elif actor.row.id in rows:
                    after.append(ask)
                else:
                    rows.add(actor.row.id)
                    decided.append(_Decided(ask, *self._decided(ask.command, actor, version)))
            except TimeoutError:  # the connection no longer answers: the group's (_run)
                raise
            except Exception as error:  # a refusal, or a bug in the rule: that command's
                if _lost(conn, error):
                    raise
                ask.answer(None, error)
        refused, lost = await self._save(conn, decided)
        for ask, hot in [*((a, False) for a in refused), *((a, True) for a in [*lost, *after])]:
            try:
                ask.answer(await self._alone(conn, ask, hot=hot))
            except (RuleError, asyncpg.PostgresError) as error:
                if _lost(conn, error):
                    raise
                ask.answer(None, error)  # the connection is still good

    async def _load(self, conn: Any, group: list[_Ask]) -> list[Any]:
        """Each ask's record, or None: one batch for each kind of target in the group."""
        records: list[Any] = [None] * len(group)
        by_kind: dict[type, list[tuple[Any, ...]]] = {}
        for slot, ask in enumerate(group):
            params = actor_params(ask.guild_id, ask.target, ask.user_id)
            params["slot"] = slot
            by_kind.setdefault(type(ask.target), []).append(
                self._grouped.loads[type(ask.target)].params(params)
            )
        for kind, args in by_kind.items():
            for record in await self._rows(conn, self._grouped.loads[kind].sql, args):
                if records[record[-1]] is None:
                    records[record[-1]] = record
        return records

    async def _actor(self, conn: Any, ask: _Ask, record: Any) -> tuple[Actor, int]:
        """The loaded actor and its row's version; without a character, the guild's settings
        (one more round trip, for a name that is not there)."""
        if record is not None:
            return actor_of(ask.guild_id, record[:-1])  # without its slot
        return await self._nobody(conn, ask.guild_id), 0

    async def _nobody(self, conn: Any, guild_id: int) -> Actor:
        """The actor without a character: the guild's settings only."""
        settings = self._sql.settings
        rows = await self._rows(conn, settings.sql, [settings.params({"guild_id": guild_id})])
        return Actor(settings_from_text(rows[0][0] if rows else None), None, None)

    @staticmethod
    def _refuse(command: Command, actor: Actor) -> NoReturn:
        """A command on a missing character: its rule refuses it (raises)."""
        command.decide(actor)
        raise RuntimeError(f"{command.command}: decided without a character")

    def _decided(
        self, command: Command, actor: Actor, version: int
    ) -> tuple[int, bool, dict[str, Any], Outcome]:
        """The rule's outcome and what saving it takes: the row, which save (keys) and its
        parameters."""
        outcome, row = command.decided(actor)
        keys = keys_change(row.sheet, outcome.after)
        return row.id, keys, command.writes(row, version, outcome, self._clock, keys=keys), outcome

    async def _save(self, conn: Any, decided: list[_Decided]) -> tuple[list[_Ask], list[_Ask]]:
        """Save and log the decided commands, a batch for each statement, in the order of their
        rows (two groups lock the rows they share in the same order: no deadlock between
        them). Answers those saved, and Busy a batch that waited past the budget for a row
        lock. Returns those to run again alone: in a batch the server refused otherwise
        (undone whole: a name taken, say), and those whose character another command saved
        since the load."""
        import asyncpg

        refused: list[_Ask] = []
        lost: list[_Ask] = []  # their character saved by another command since the load
        for keys in (False, True):
            batch = sorted((d for d in decided if d.keys is keys), key=lambda d: d.row_id)
            if not batch:
                continue
            statement = self._grouped.saves_and_logs[keys]
            args = [statement.params(d.values) for d in batch]
            try:
                saved = {record[0] for record in await self._rows(conn, statement.sql, args)}
            except asyncpg.LockNotAvailableError:  # a row stayed locked: the batch waited
                for d in batch:  # its commands' whole budget (busy.py); nothing was written
                    d.ask.answer(None, Busy())
                continue
            except asyncpg.PostgresError as error:  # nothing of the batch was written
                if _lost(conn, error):
                    raise
                refused.extend(d.ask for d in batch)
                continue
            for d in batch:
                if d.row_id in saved:
                    d.ask.answer(d.outcome)
                else:
                    lost.append(d.ask)
        return refused, lost

    # --- one command alone ---------------------------------------------------------------------

    async def _alone(self, conn: Any, ask: _Ask, *, hot: bool) -> Outcome:
        """A command run again by itself: optimistic first, then under the row lock; a `hot`
        one (its character saved by another since its load, or twice in its group) under the
        row lock at once, so that it queues there instead of racing again."""
        import asyncpg

        command = ask.command
        assert command is not None
        try:
            outcome = None if hot else await self._attempt(conn, command, lock=False)
            if outcome is None:
                async with conn.transaction():
                    outcome = await self._attempt(conn, command, lock=True)
                if outcome is None:
                    raise stale()
            return outcome
        except asyncpg.LockNotAvailableError:  # lock_timeout: the row stayed locked
            raise Busy() from None

    async def _attempt(self, conn: Any, command: Command, *, lock: bool) -> Outcome | None:
        """Load, decide, save at the loaded version and log: the outcome, or None when the
        version moved on (nothing written)."""
        import asyncpg

        sql, params = self._sql.load(command.guild_id, command.target, command.user_id, lock=lock)
        records = await self._rows(conn, sql, [params])
        if not records:
            self._refuse(command, await self._nobody(conn, command.guild_id))
        _, keys, values, outcome = self._decided(command, *actor_of(command.guild_id, records[0]))
        statement = self._grouped.saves_and_logs[keys]
        try:
            saved = await self._rows(conn, statement.sql, [statement.params(values)])
        except asyncpg.UniqueViolationError:
            raise name_taken(outcome.after.name) from None
        return outcome if saved else None

    async def close(self) -> None:
        for task in list(self._runners):
            with contextlib.suppress(BaseException):
                await task
        if self._expiry is not None:
            self._expiry.cancel()
            self._expiry = None
        await self._connections.close()
