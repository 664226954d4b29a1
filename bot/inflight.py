"""The interactions this process is handling, so that a shutdown can let them finish."""

from __future__ import annotations

import asyncio
import logging

log = logging.getLogger("lastgasp.lifecycle")


class InFlight:
    """Tasks handling interactions: tracked from their first step, forgotten when done.
    Once draining, new interactions are told the bot is restarting (and nothing changes)."""

    def __init__(self) -> None:
        self._tasks: set[asyncio.Task[object]] = set()
        self.draining = False

    def track(self) -> None:
        """The current task handles an interaction."""
        task = asyncio.current_task()
        if task is not None and task not in self._tasks:
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)

    def __len__(self) -> int:
        return len(self._tasks)

    async def drain(self, timeout: float) -> int:
        """Stop taking new interactions and wait (at most `timeout` s) for those in flight;
        returns how many were still running."""
        self.draining = True
        running = {t for t in self._tasks if t is not asyncio.current_task()}
        if running:
            _, pending = await asyncio.wait(running, timeout=timeout)
            if pending:
                log.warning("shutting down with %d interactions still running", len(pending))
            return len(pending)
        return 0
