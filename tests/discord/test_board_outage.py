"""A status board while its database does not answer (docs/commands.md, "Within Discord's 3
seconds, always"): the board keeps trying every interval, and the operator's log says so once,
not once a try (a board is read again every two seconds, and there may be hundreds), nor with a
traceback; once the database answers again the log says that, and the board shows the state."""

from __future__ import annotations

import asyncio
import logging

import pytest

from tests.discord.test_board import Edits, eventually, start_board, started
from tests.silent_network import database_behind_proxy


@pytest.mark.postgres
async def test_a_board_whose_database_is_out_of_reach_is_logged_once_an_outage(
    spec_validator, monkeypatch, caplog
):
    async with (
        database_behind_proxy(monkeypatch, 0.2) as (through, proxy),
        started(through, spec_validator) as harness,
    ):
        try:
            await harness.add_character("Roryn", vit=8)
            message = await start_board(harness)
            edits = Edits(harness)
            proxy.silence()
            await asyncio.sleep(0.2)  # the cut connections reach the bot's loop
            with caplog.at_level(logging.INFO, logger="lastgasp.boards"):
                harness.bot.boards.changed(harness.guild.id)
                await asyncio.sleep(2.0)  # tried again every interval (0.2 s here)
                down = [r for r in caplog.records if r.name == "lastgasp.boards"]
                assert [r.getMessage().split(":")[0] for r in down] == ["boards"], down
                [warned] = down
                assert warned.levelno == logging.WARNING and warned.exc_info is None
                assert "could not reach the database" in warned.getMessage()
                assert not edits.of(message.id)

                proxy.resume()
                await eventually(lambda: bool(edits.of(message.id)), "the board edited")
                back = [r.getMessage() for r in caplog.records if r.name == "lastgasp.boards"]
                assert back[1:] == ["boards: the database answers again"]
        finally:  # the bot's connections close through it: a failed test must not hang there
            proxy.resume()
