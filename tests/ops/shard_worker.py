"""One shard process for the sharding test: the real bot, fed through the offline driver.

python -m tests.ops.shard_worker SCRIPT.json, with DATABASE_URL, SHARD_COUNT and SHARD_IDS in
the environment (read by the Settings, as `python -m bot run` reads them). The script lists the
guilds ({"id", "channel_id", "gm"}) and the commands ({"guild", "command", "options"}); every
process gets every guild and every command, as a misrouted gateway would send them. Prints
"ready" once set up, waits for a line on stdin (so that both processes start together), then one
JSON line per command: {"guild", "command", "handled", "text"}; its logs go to stderr.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from bot.app import create_bot
from bot.config import Settings
from bot.logs import configure_logging
from bot.offline import OfflineDriver
from rules.dice import ScriptedRandom


async def main(script: dict) -> None:
    settings = Settings()
    configure_logging(settings.log_level, log_format=settings.log_format)  # to stderr
    bot = create_bot(
        settings.database_url,
        ScriptedRandom(),
        shard_count=settings.shard_count,
        shard_ids=settings.shard_ids,
    )
    driver = OfflineDriver(bot)
    await driver.start()
    try:
        gms = {}
        for guild in script["guilds"]:
            added = driver.add_guild(guild["id"], channel_id=guild["channel_id"])
            gms[guild["id"]] = driver.member(added, "GM", user_id=guild["gm"], manage_guild=True)
        print("ready", flush=True)
        await asyncio.to_thread(sys.stdin.readline)
        for step in script["commands"]:
            result = await driver.invoke(gms[step["guild"]], step["command"], **step["options"])
            line = {
                "guild": step["guild"],
                "command": step["command"],
                "handled": bool(result.requests),  # an ignored interaction sends nothing
                "text": result.text(),
            }
            print(json.dumps(line), flush=True)
    finally:
        await driver.close()


if __name__ == "__main__":
    asyncio.run(main(json.loads(Path(sys.argv[1]).read_text())))
