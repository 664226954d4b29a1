"""A bot process for test_kill: the real command tree under a steady load, killed from outside.

    python -m tests.reliability.kill_worker URL

Prints `ready`, then one line per answered command, flushed once its reply reached the HTTP
seam: `answered <tag> <command> <1 if it went through, 0 if refused>`. Every command carries a
unique tag in its free-text option (`/spend reason`, `/react what`, `/push what`), which the
event log keeps with its inputs. Runs until killed.
"""

from __future__ import annotations

import asyncio
import itertools
import random
import sys

from bot.app import create_bot
from bot.offline import OfflineDriver

GUILD_ID = 1_400_000_000_000_000_000
OWNER_ID = 1_400_000_000_000_000_001
GM_ID = 1_400_000_000_000_000_002
NAMES = ("Ash", "Bryn", "Cole")
IN_FLIGHT = 8


def command(rng: random.Random, tag: str) -> tuple[str, dict]:
    name = rng.choice(NAMES)
    kind = rng.choice(["spend", "react", "push", "rest", "rest"])
    if kind == "spend":
        return kind, {"character": name, "amount": 1, "reason": tag}
    if kind == "react":
        return kind, {"character": name, "what": tag}
    if kind == "push":
        return kind, {"character": name, "amount": 1, "what": tag}
    return kind, {"character": name, "kind": "respite"}


async def main(url: str) -> None:
    bot = create_bot(url, rng=random.Random(7))
    driver = OfflineDriver(bot, keep_history=False)  # a long run must not keep every message
    await driver.start()
    guild = driver.add_guild(GUILD_ID)
    owner = driver.member(guild, "Owner", user_id=OWNER_ID)
    gm = driver.member(guild, "GM", user_id=GM_ID, manage_guild=True)
    for name in NAMES:
        created = await driver.invoke(owner, "character create", name=name, con="d12")
        assert created.card.title, created.text()
    print("ready", flush=True)
    rng = random.Random(11)
    tags = (f"k{n:06d}" for n in itertools.count())

    async def worker() -> None:
        for tag in tags:
            kind, options = command(rng, tag)
            result = await driver.invoke(gm if kind == "rest" else owner, kind, **options)
            print(f"answered {tag} {kind} {int(bool(result.reply.card.title))}", flush=True)

    await asyncio.gather(*(worker() for _ in range(IN_FLIGHT)))


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1]))
