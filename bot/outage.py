"""A background task's database outage in the log: one warning when the database stops
answering it, one line when it answers again, nothing for each try between (a board is read
again every few seconds, and there may be hundreds)."""

from __future__ import annotations

import logging

from bot.db.errors import NoAnswer, Unreachable


class Outage:
    def __init__(self, log: logging.Logger, what: str) -> None:
        self._log = log
        self._what = what
        self.down = False

    def failed(self, error: Unreachable | NoAnswer) -> None:
        if not self.down:
            self.down = True
            self._log.warning("%s: %s: %r", self._what, error.logged, error.__cause__)

    def answered(self) -> None:
        if self.down:
            self.down = False
            self._log.info("%s: the database answers again", self._what)
