"""Two versions of the bot side by side: is a change faster, and by how much, as surely as the
machine allows.

    python bench/compare.py HEAD~1              # the commit before, against the working tree
    python bench/compare.py main HEAD --concurrency 50 --pairs 30
    python bench/compare.py HEAD . --db postgresql

Each version's bot runs in a process of its own, on a seeded database of its own, warmed; both
are given the same commands (the benchmark's mix, the same dice) in alternating slices, A B,
B A, …, so that a machine speeding up or slowing down favours neither, and each figure is the
median of the pairs' ratios, B over A, with their middle half and range (bench/stats.py's
Paired). A command's time is its slice's wall time over its commands: at C = 1 one command's
whole cost, at C = 50 the inverse of the throughput.

The summary line of bench/run.py compares the bot with the raw driver, and a change of a few
per cent is inside its spread from run to run; here the two versions share the minutes, and
such a change shows. A revision is checked out into a temporary git worktree; `.` is the
working tree as it is. Each side imports the benchmark's load (bench/load.py, bench/world.py)
from its own version, so both must still have its shape.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
WORKING_TREE = "."


class Side:
    """One version's bot in its own process: `run(n, seed)` gives a command's time in µs."""

    def __init__(self, root: Path, concurrency: int, backend: str, characters: int) -> None:
        command = [sys.executable, str(Path(__file__).resolve()), "--worker", str(root)]
        command += ["--concurrency", str(concurrency), "--db", backend]
        command += ["--characters", str(characters)]
        self.errors = tempfile.TemporaryFile()  # noqa: SIM115 - closed by close(); read if it fails
        self.process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.errors,
            text=True,
            cwd=root,
        )
        if self._line() != "ready":
            raise RuntimeError(f"the bot of {root} did not start")

    def _line(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        if not line:
            self.process.wait()
            self.errors.seek(0)
            said = self.errors.read().decode(errors="replace").strip().splitlines()
            raise RuntimeError(f"a side's process ended: {said[-1] if said else 'no word'}")
        return line.strip()

    def run(self, commands: int, seed: int) -> float:
        assert self.process.stdin is not None
        self.process.stdin.write(f"{commands} {seed}\n")
        self.process.stdin.flush()
        return float(self._line())

    def close(self) -> None:
        if self.process.stdin is not None:
            self.process.stdin.close()
        try:
            self.process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.process.kill()
        self.errors.close()


@contextlib.contextmanager
def checked_out(revision: str) -> Iterator[tuple[Path, str]]:
    """The tree of `revision` (`.`: the working tree), with a name for it."""
    if revision == WORKING_TREE:
        yield ROOT, "the working tree"
        return
    git = ["git", "-C", str(ROOT)]
    commit = subprocess.run(
        [*git, "rev-parse", "--short", f"{revision}^{{commit}}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    with tempfile.TemporaryDirectory(prefix="lastgasp-compare-") as folder:
        tree = Path(folder) / "tree"
        subprocess.run(
            [*git, "worktree", "add", "--detach", str(tree), commit],
            check=True,
            capture_output=True,
        )
        try:
            yield tree, f"{commit} ({revision})"
        finally:
            subprocess.run([*git, "worktree", "remove", "--force", str(tree)], capture_output=True)


def compare(args: argparse.Namespace) -> list[str]:
    from bench.stats import Paired

    lines = []
    with checked_out(args.a) as (tree_a, name_a), checked_out(args.b) as (tree_b, name_b):
        lines.append(f"A = {name_a}, B = {name_b}")
        lines.append(
            f"{args.db}, {args.characters:,} characters, the benchmark's mix; B over A, "
            "the median of the pairs' ratios (below 1: B is faster)"
        )
        for concurrency in args.concurrency:
            sides = [Side(tree, concurrency, args.db, args.characters) for tree in (tree_a, tree_b)]
            try:
                times: list[list[float]] = [[], []]
                for pair in range(args.pairs):
                    seed = 1000 + pair
                    for k in (0, 1) if pair % 2 == 0 else (1, 0):
                        times[k].append(sides[k].run(args.commands, seed))
            finally:
                for side in sides:
                    side.close()
            figure = Paired.of(times[1], times[0])
            a, b = statistics.median(times[0]), statistics.median(times[1])
            lines.append(
                f"  C={concurrency:<3} {args.pairs} pairs of {args.commands:,}: a command "
                f"A {a:.0f} µs, B {b:.0f} µs (medians); "
                f"B/A {figure.describe()}"
            )
    return lines


# --- a side's process ---------------------------------------------------------------------------


def worker(root: str, concurrency: int, backend: str, characters: int) -> None:
    sys.path.insert(0, root)  # this version's bot and benchmark, not the caller's
    from bench.load import BotLoad
    from bench.run import seeded
    from bench.world import World, postgres_database, postgres_server, sqlite_database
    from bot.loop import run

    async def serve() -> None:
        world = World(min(200, characters), characters)
        server = postgres_server() if backend == "postgresql" else None
        if backend == "postgresql" and server is None:
            raise SystemExit("no PostgreSQL: set BENCH_DATABASE_URL or TEST_DATABASE_URL")
        tag = f"compare{os.getpid()}"
        place = postgres_database(server, tag) if server else sqlite_database(tag)
        async with place as url:
            await seeded(url, world)
            load = BotLoad(url, world, 1)
            await load.start()
            try:
                await load.run(300, concurrency, 2, "warm-up")
                print("ready", flush=True)
                loop = asyncio.get_running_loop()
                while line := await loop.run_in_executor(None, sys.stdin.readline):
                    commands, seed = map(int, line.split())
                    payloads = load.payloads(load.plan(commands, seed))
                    start = time.perf_counter()
                    await load.run_payloads(payloads, concurrency, "slice")
                    print(1e6 * (time.perf_counter() - start) / commands, flush=True)
            finally:
                await load.close()

    run(serve())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("a", nargs="?", help="the version measured first: a git revision, or .")
    parser.add_argument("b", nargs="?", default=WORKING_TREE, help="the other (default: .)")
    parser.add_argument("--db", choices=("sqlite", "postgresql"), default="sqlite")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 50])
    parser.add_argument("--pairs", type=int, default=20)
    parser.add_argument("--commands", type=int, default=1000, help="a slice's commands")
    parser.add_argument("--characters", type=int, default=1000)
    parser.add_argument("--worker", metavar="ROOT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.worker, args.concurrency[0], args.db, args.characters)
        return
    if args.a is None:
        parser.error("name the version to compare: a git revision (HEAD~1, main), or .")
    if str(ROOT) not in sys.path:  # `python bench/compare.py` puts bench/, not the repo, first
        sys.path.insert(0, str(ROOT))
    try:
        lines = compare(args)
    except (subprocess.CalledProcessError, RuntimeError) as error:
        detail = getattr(error, "stderr", None) or error
        raise SystemExit(f"compare: {str(detail).strip()}") from None
    print("\n".join(lines))


if __name__ == "__main__":
    main()
