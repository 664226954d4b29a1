"""A bot process for the multi-process tests: damage commands on a few characters.

python -m tests.persistence.worker '{"url": …, "connect_args": …, "names": […], "count": N,
"concurrency": K, "first": I, "user_id": U}'. Command i hits names[i % len(names)] for
amount(first + i), as user U (a GM); count 0 runs until killed. Prints "ready" once connected,
then waits for a line on stdin, so that the parent can start several workers at the same moment;
when done, prints {"started": …, "done": …} (wall clock) as its last line.
With "hang": true it instead stops inside a transaction that has written, until killed.
"""

from __future__ import annotations

import asyncio
import itertools
import json
import sys
import time

from bot.db.database import Database
from tests.persistence.helpers import GUILD, Target, caller, hit


def amount(i: int) -> int:
    return 1 + i % 3


async def hang_in_transaction(db: Database, name: str) -> None:
    """Change a sheet and log it, then wait (to be killed) before the commit."""
    async with db.transaction(GUILD) as uow:
        row = await uow.character(name)
        after = row.sheet.update(vit=row.sheet.vit - 5)
        await uow.save_character(row.id, after)
        await uow.log(row.id, 7, "damage", {"amount": 5}, before=row.sheet, after=after)
        print("ready", flush=True)
        await asyncio.sleep(3600)


async def main(spec: dict) -> None:
    db = await Target(spec["url"], spec["connect_args"]).connect()
    if spec.get("hang"):
        await hang_in_transaction(db, spec["names"][0])
        return
    names, count, concurrency = spec["names"], spec["count"], spec["concurrency"]
    first = spec.get("first", 0)
    who = caller(user_id=spec.get("user_id", 7), gm=True)

    async def lane(k: int) -> None:
        for i in itertools.count(k, concurrency):
            if count and i >= count:
                return
            await hit(db, names[i % len(names)], amount(first + i), who=who)

    await db.read_actor(GUILD, names[0], who.user_id)  # connected for real before "ready"
    print("ready", flush=True)
    await asyncio.to_thread(sys.stdin.readline)

    started = time.time()
    try:
        await asyncio.gather(*(lane(k) for k in range(concurrency)))
    finally:
        await db.close()
    print(json.dumps({"started": started, "done": time.time()}), flush=True)


if __name__ == "__main__":
    asyncio.run(main(json.loads(sys.argv[1])))
