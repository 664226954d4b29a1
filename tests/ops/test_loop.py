"""bot/loop.py: the bot runs on uvloop where it is installed, with the collector tuned; checked
in a process of its own, since both are settings of the whole process."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

_PROBE = textwrap.dedent(
    """
    import asyncio, gc, json
    from bot import loop

    async def main():
        return {
            "loop": type(asyncio.get_running_loop()).__module__,
            "thresholds": gc.get_threshold(),
            "frozen": gc.get_freeze_count(),
            "name": loop.name(),
        }

    print(json.dumps(loop.run(main())))
    """
)


def test_the_bot_runs_on_uvloop_with_the_collector_tuned() -> None:
    run = subprocess.run(
        [sys.executable, "-c", _PROBE], cwd=ROOT, capture_output=True, text=True, timeout=60
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["loop"].startswith("uvloop") and seen["name"].startswith("uvloop ")
    assert tuple(seen["thresholds"]) == (10_000, 10, 100)
    assert seen["frozen"] > 1_000  # the modules and classes of the start, out of the way
