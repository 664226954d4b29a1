"""Start-up and memory of one bot with G guilds, in a process of its own (a clean figure):

    python -m bench.startup --guilds 10000       # prints one JSON object

Times: importing the bot, its setup (the database connected and migrated, the cogs, the
buttons, the boards resumed), and G GUILD_CREATEs (what the gateway sends on connecting).
Memory: the process's resident set after each. The scrape: one GET /metrics of that bot, as
prometheus-client's handler builds it (the guild count per shard walks every guild).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

GUILD_BASE = 900_000_000_000_000_000
SCRAPES = 20


def rss_mb() -> float:
    """The resident set of this process (Linux: /proc; elsewhere the peak)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1024 * 1024 if sys.platform == "darwin" else 1024)


async def _measure(guilds: int, folder: str) -> dict[str, Any]:
    import random

    from prometheus_client import generate_latest

    from bot import loop
    from bot.app import create_bot
    from bot.offline import OfflineDriver

    figures: dict[str, Any] = {"guilds": guilds, "rss_imported_mb": rss_mb()}
    start = time.perf_counter()
    bot = create_bot(f"sqlite+aiosqlite:///{Path(folder) / 'startup.db'}", random.Random(1))
    driver = OfflineDriver(bot, keep_history=False)
    await driver.start()
    figures["setup_s"] = time.perf_counter() - start
    figures["rss_setup_mb"] = rss_mb()
    start = time.perf_counter()
    for g in range(guilds):
        driver.add_guild(GUILD_BASE + g, name=f"Table {g}")
    figures["guilds_s"] = time.perf_counter() - start
    loop.settle()  # as the bot does once it is ready
    figures["rss_ready_mb"] = rss_mb()
    start = time.perf_counter()
    for _ in range(SCRAPES):
        generate_latest(bot.metrics.registry)
    figures["scrape_ms"] = 1000 * (time.perf_counter() - start) / SCRAPES
    await driver.close()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--guilds", type=int, default=10_000)
    args = parser.parse_args()
    started = time.perf_counter()
    from bot import app, loop  # noqa: F401  (the import is part of the start-up)

    imported = time.perf_counter() - started
    with tempfile.TemporaryDirectory(prefix="lastgasp-bench-startup-") as folder:
        figures = loop.run(_measure(args.guilds, folder))
    figures["import_s"] = imported
    figures["pid"] = os.getpid()
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
