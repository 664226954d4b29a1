"""One shard process for the sharding test: the real bot, fed through the offline driver.

python -m tests.ops.shard_worker SCRIPT.json, with DATABASE_URL, SHARD_COUNT and SHARD_IDS in
the environment (read by the Settings, as `python -m bot run` reads them). The script lists the
guilds ({"id", "channel_id", "gm"}) and the steps: commands ({"guild", "command", "options"})
and clicks ({"guild", "click": custom_id}, on a message carrying that button); every process
gets every guild and every step, as a misrouted gateway would send them. Prints "ready" once set
up, waits for a line on stdin (so that both processes start together), then one JSON line per
step: {"guild", "command", "handled", "text"} (a click's "command" is its custom id); its logs
go to stderr.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

from bot.app import create_bot
from bot.config import Settings
from bot.logs import configure_logging
from bot.offline import Message, OfflineDriver, snowflake
from rules.dice import ScriptedRandom


def button_message(custom_id: str) -> Message:
    """A message of the bot's with that one button (a click comes only from a button there)."""
    button = {"type": 2, "style": 2, "label": "Button", "custom_id": custom_id}
    return Message(id=snowflake(), kind="reply", components=[{"type": 1, "components": [button]}])


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
            gm = gms[step["guild"]]
            if "click" in step:
                custom_id = step["click"]
                result = await driver.click(gm, button_message(custom_id), custom_id)
            else:
                result = await driver.invoke(gm, step["command"], **step["options"])
            line = {
                "guild": step["guild"],
                "command": step.get("command", step.get("click")),
                "handled": bool(result.requests),  # an ignored interaction sends nothing
                "text": result.text(),
            }
            print(json.dumps(line), flush=True)
    finally:
        await driver.close()


if __name__ == "__main__":
    asyncio.run(main(json.loads(Path(sys.argv[1]).read_text())))
