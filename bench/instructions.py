"""Instructions a command costs the bot's process, counted by Valgrind: the same figure on a
quiet machine and a busy one, for comparing two versions of the code where timings are noise.

    python bench/instructions.py                      # SQLite, 500 commands of the mix
    python bench/instructions.py --db postgresql      # needs BENCH_/TEST_DATABASE_URL
    python bench/instructions.py --what all           # the mix, the Discord floor, the baseline

`--what floor` counts the Discord floor (a command that answers at once, no database) and
`--what baseline` the raw-driver baseline, one at a time, as `limit` compares them (bench/run.py):
their instructions are the machine-independent side of that figure.

Two runs of the same process under `valgrind --tool=cachegrind --cache-sim=no`: one that seeds,
starts the bot and warms it up, then stops; one that does the same and then runs the commands.
Their difference over the number of commands is one command's cost, one at a time (C = 1),
in the bot's process only (a PostgreSQL server's work is not in it). One at a time only:
Valgrind runs one thread at a time, so with many commands in flight the count would follow its
scheduling of the threads (how the writer's groups form, what the collector finds) rather than
the code. Each run takes about a
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


async def _run(backend: str, commands: int, what: str) -> None:
    from bench import baseline
    from bench.breakdown import noop_command
    from bench.load import BotLoad
    from bench.run import database, floor_payloads, seeded
    from bench.world import World
    from bot import loop

    async with database(backend, "instr") as url:
        world = World(20, 200)
        await seeded(url, world)
        if what == "baseline":
            base = await baseline.open_baseline(url, backend, pool_size=1)
            try:
                await baseline.run_closed(base, world, WARMUP, 1, SEED + 1)
                loop.settle()
                if commands:
                    await baseline.run_closed(base, world, commands, 1, SEED + 2)
            finally:
                await base.close()
            return
        load = BotLoad(url, world, SEED)
        await load.start()
        try:
            load.bot.tree.add_command(noop_command())
            await load.run(WARMUP, 1, SEED + 1, "warm-up")
            await load.run_payloads(floor_payloads(load, WARMUP, SEED + 1), 1, "warm-up")
            loop.settle()
            if commands and what == "floor":
                await load.run_payloads(floor_payloads(load, commands, SEED + 2), 1, "counted")
            elif commands:
                await load.run(commands, 1, SEED + 2, "counted")
        finally:
            await load.close()


def _count(backend: str, commands: int, what: str) -> int:
    """Instructions of one whole run of this script in its child mode."""
    argv = ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"]
    argv += [sys.executable, __file__, "--child", "--db", backend, "--commands", str(commands)]
    argv += ["--what", what]
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
    parser.add_argument(
        "--what",
        choices=("mix", "floor", "baseline", "all"),
        default="mix",
        help="the bot's mix (default), the Discord floor, the raw baseline, or all three",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        from bot import loop

        loop.run(_run(args.db, args.commands, args.what))
        return
    if args.db == "postgresql":
        from bench.world import postgres_server

        if postgres_server() is None:
            raise SystemExit("no PostgreSQL server: set BENCH_DATABASE_URL or TEST_DATABASE_URL")
    if shutil.which("valgrind") is None:
        raise SystemExit("valgrind is not installed (Debian: apt-get install valgrind)")
    kinds = ("mix", "floor", "baseline") if args.what == "all" else (args.what,)
    per = {}
    for what in kinds:
        fixed = _count(args.db, 0, what)
        total = _count(args.db, args.commands, what)
        per[what] = (total - fixed) / args.commands
        print(
            f"{args.db} {what}: {per[what] / 1000:,.0f} thousand instructions a command, "
            f"{args.commands} counted",
            flush=True,
        )
    if len(per) == 3:
        ratio = per["mix"] / (per["floor"] + per["baseline"])
        print(f"{args.db}: mix ÷ (floor + baseline) = {ratio:.2f} in instructions")


if __name__ == "__main__":
    main()
