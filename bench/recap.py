"""`/recap` over a log of 10,000 events: the time of one recap, end to end, on each database.

    python bench/recap.py                      # both databases (PostgreSQL when a server is named)
    python bench/recap.py --db sqlite --events 10000 --repeat 5

Not a test, asserts nothing: it prints the time of each recap and the target (under a second).

The log is one guild's night of play, simulated with the rules themselves (damage, recovery
rolls and Last Gasps with their dice, healing, Stamina, emotions and Breakdowns, the GM
bringing the dead back) and written straight into the events table with the bot's own event
values (bot.db.writes), as the commands would have written them. Then each recap is a raw
INTERACTION_CREATE through the real command tree, cog, service, rules, database and renderer,
timed until its reply (with its picture) reaches the captured HTTP seam, as bench/load.py times
a command. `since:day` (no /day yet: the whole log) and `hours:72` tell all of it every time; the
first `since:session` (no recap before: the last 24 hours) too, once.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from contextlib import AbstractAsyncContextManager
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python bench/recap.py` puts bench/, not the repo, on the path
    sys.path.insert(0, str(ROOT))

from bench.world import postgres_database, postgres_server, sqlite_database  # noqa: E402
from bot import loop  # noqa: E402
from bot.app import create_bot  # noqa: E402
from bot.db.database import Database  # noqa: E402
from bot.db.tables import events  # noqa: E402
from bot.db.writes import event_values  # noqa: E402
from bot.offline import OfflineDriver  # noqa: E402
from rules import emotions, stamina, vitality  # noqa: E402
from rules.errors import RuleError  # noqa: E402
from rules.models import Emotion, GuildSettings, RestKind, Sheet  # noqa: E402
from rules.outcome import Outcome  # noqa: E402
from rules.sheet_ops import create_sheet  # noqa: E402

GUILD_ID = 910_000_000_000_000_001
GM_ID = 810_000_000_000_000_015
PLAYERS = [810_000_000_000_000_000 + p for p in range(5)]
NAMES = ("Roryn", "Sera", "Taomkin", "Grub", "Lenora", "Ysolde", "Bram", "Pip")
TARGET_S = 1.0
SEED = 20261202
CHUNK = 2_000

Logged = tuple[int, str, Sheet | None, Sheet | None, Outcome | None]


def _revived(sheet: Sheet) -> Sheet:
    """The GM brings a dead or retired character back (as /character set would)."""
    return sheet.update(vit=sheet.max_vit, dead=False, retired=False, stress=0, breakdown=None)


def _step(sheet: Sheet, rng: random.Random, settings: GuildSettings) -> tuple[str, Outcome]:
    """One command of a night on this character, chosen by its state."""
    if sheet.state.is_down:
        return "recover", vitality.recover(sheet, settings, rng, in_combat=False, by_gm=True)
    roll = rng.random()
    if roll < 0.40:
        return "damage", vitality.damage(sheet, rng.randint(1, 6), settings)
    if roll < 0.55:
        return "heal", vitality.heal(sheet, rng.randint(1, 4), settings)
    if roll < 0.70:
        return "spend", stamina.spend(sheet, 1, "Channel Casting")
    if roll < 0.80:
        return "rest", stamina.rest(sheet, RestKind.SHORT)
    emotion = rng.choice(list(Emotion))
    return "emotion", emotions.raise_emotion(sheet, emotion, 1)


def simulate(count: int, seed: int) -> list[Logged]:
    """`count` events of one guild: each a character's command (or its creation), in order."""
    rng = random.Random(seed)
    settings = GuildSettings()
    sheets = [
        create_sheet(name, PLAYERS[i % len(PLAYERS)], settings) for i, name in enumerate(NAMES)
    ]
    logged: list[Logged] = [(i, "character create", None, s, None) for i, s in enumerate(sheets)]
    while len(logged) < count:
        i = rng.randrange(len(sheets))
        sheet = sheets[i]
        if sheet.state.is_out:
            after = _revived(sheet)
            logged.append((i, "character set", sheet, after, None))
            sheets[i] = after
            continue
        try:
            command, outcome = _step(sheet, rng, settings)
        except RuleError:
            continue  # refused (no Stamina, nothing to heal): the bot logs nothing
        if outcome.after == outcome.before and not outcome.rolls:
            continue
        logged.append((i, command, sheet, outcome.after, outcome))
        sheets[i] = outcome.after
    return logged


async def seed(url: str, count: int) -> None:
    """The characters and their night, written as the commands write them."""
    db = await Database.connect(url)
    try:
        await db.upgrade()
        plan = simulate(count, SEED)
        ids: dict[int, int] = {}
        async with db.transaction(GUILD_ID) as uow:
            for i, _, _, after, _ in plan[: len(NAMES)]:
                assert after is not None
                ids[i] = (await uow.add_character(after)).id
        start = datetime.now(UTC) - timedelta(hours=3)  # a night, ended now
        rows = []
        for n, (i, command, before, after, outcome) in enumerate(plan):
            rows.append(
                event_values(
                    guild_id=GUILD_ID,
                    character_id=ids[i],
                    user_id=GM_ID,
                    command=command,
                    inputs={},
                    before=before,
                    after=after,
                    rolls=outcome.rolls if outcome else (),
                    rules=outcome.rules if outcome else (),
                    now=start + timedelta(seconds=n * 3 * 3600 / count),
                )
            )
        async with db.engine.begin() as conn:
            for first in range(0, len(rows), CHUNK):
                await conn.execute(events.insert(), rows[first : first + CHUNK])
            if db.postgres:
                await conn.exec_driver_sql("ANALYZE")
    finally:
        await db.close()


async def measure(url: str, periods: list[dict[str, Any]], repeat: int) -> dict[str, list[float]]:
    """Each recap's seconds, from the payload handed to the gateway parser to its reply."""
    bot = create_bot(url, rng=random.Random(SEED))
    driver = OfflineDriver(bot, keep_history=False)
    await driver.start()
    try:
        guild = driver.add_guild(GUILD_ID, name="The long night")
        gm = driver.member(guild, "GM", user_id=GM_ID, manage_guild=True)
        times: dict[str, list[float]] = {}
        for options in periods:
            label = " ".join(f"{k}:{v}" for k, v in options.items()) or "(session)"
            runs = 1 if not options else repeat  # only the first session recap tells it all
            for _ in range(runs):
                payload = driver.payload(gm, "recap", **options)
                start = time.perf_counter()
                sent = driver.send(payload)
                message = await sent.reply
                seconds = time.perf_counter() - start
                assert message is not None and not message.ephemeral, "the recap was refused"
                await sent.result()
                times.setdefault(label, []).append(seconds)
        return times
    finally:
        await driver.close()


def databases(which: str) -> list[tuple[str, Callable[[], AbstractAsyncContextManager[str]]]]:
    found: list[tuple[str, Callable[[], AbstractAsyncContextManager[str]]]] = []
    if which in ("sqlite", "both"):
        found.append(("sqlite", lambda: sqlite_database("recap")))
    server = postgres_server()
    if which in ("postgresql", "both"):
        if server is None:
            print("postgresql: skipped (set BENCH_DATABASE_URL or TEST_DATABASE_URL)")
        else:
            found.append(("postgresql", lambda: _postgres(server)))
    return found


def _postgres(server: str) -> AbstractAsyncContextManager[str]:
    return postgres_database(server, "recap")


async def main(args: argparse.Namespace) -> None:
    periods: list[dict[str, Any]] = [{}, {"since": "day"}, {"hours": 72}]
    print(f"/recap over {args.events:,} events of one guild ({loop.name()}); target: under 1 s")
    for name, database in databases(args.db):
        async with database() as url:
            began = time.perf_counter()
            await seed(url, args.events)
            print(f"{name}: seeded in {time.perf_counter() - began:.1f} s")
            times = await measure(url, periods, args.repeat)
        for label, seconds in times.items():
            ms = [1000 * s for s in seconds]
            verdict = "met" if max(seconds) < TARGET_S else "MISSED"
            print(
                f"  {name:<10} /recap {label:<12} {len(ms)} runs  best {min(ms):7.1f} ms  "
                f"median {statistics.median(ms):7.1f} ms  worst {max(ms):7.1f} ms  "
                f"(< {TARGET_S * 1000:.0f} ms: {verdict})"
            )


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--db", choices=("sqlite", "postgresql", "both"), default="both")
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    return parser.parse_args(argv)


if __name__ == "__main__":
    loop.run(main(parse_args()))  # the bot's own event loop, as bench/run.py
