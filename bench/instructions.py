"""Instructions a command costs the bot's process, counted by Valgrind: the same figure on a
quiet machine and a busy one, for comparing two versions of the code where timings are noise.

    python bench/instructions.py                      # SQLite, 500 commands of the mix
    python bench/instructions.py --db postgresql      # needs BENCH_/TEST_DATABASE_URL

Two runs of the same process under `valgrind --tool=cachegrind --cache-sim=no`: one that seeds,
starts the bot and warms it up, then stops; one that does the same and then runs the commands.
Their difference over the number of commands is one command's cost, one at a time (C = 1),
in the bot's process only (a PostgreSQL server's work is not in it). Each run takes about a
minute: Valgrind runs the process some forty times slower.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # `python bench/instructions.py` puts bench/, not the repo, first
    sys.path.insert(0, str(ROOT))

SEED = 20261130
WARMUP = 100
_REFS = re.compile(r"I\s+refs:\s+([\d,]+)")


async def _run(backend: str, commands: int) -> None:
    from bench.load import BotLoad
    from bench.run import database, seeded
    from bench.world import World
    from bot import loop

    async with database(backend, "instr") as url:
        world = World(20, 200)
        await seeded(url, world)
        load = BotLoad(url, world, SEED)
        await load.start()
        try:
            await load.run(WARMUP, 1, SEED + 1, "warm-up")
            loop.settle()
            if commands:
                await load.run(commands, 1, SEED + 2, "counted")
        finally:
            await load.close()


def _count(backend: str, commands: int) -> int:
    """Instructions of one whole run of this script in its child mode."""
    argv = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    argv += [sys.executable, __file__, "--child", "--db", backend, "--commands", str(commands)]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    found = _REFS.search(done.stderr)
    if done.returncode != 0 or found is None:
        tail = done.stderr.strip().splitlines()[-1:] or ["no output"]
        raise SystemExit(f"the counted run failed: {tail[0]}")
    return int(found.group(1).replace(",", ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--commands", type=int, default=500)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        from bot import loop

        loop.run(_run(args.db, args.commands))
        return
    if args.db == "postgresql":
        from bench.world import postgres_server

        if postgres_server() is None:
            raise SystemExit("no PostgreSQL server: set BENCH_DATABASE_URL or TEST_DATABASE_URL")
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    fixed = _count(args.db, 0)
    total = _count(args.db, args.commands)
    per = (total - fixed) / args.commands
    print(f"{args.db}: {per / 1000:,.0f} thousand instructions a command, {args.commands} counted")


if __name__ == "__main__":
    main()
