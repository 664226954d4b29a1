"""`python -m tests.ops.standin_launch [COMMAND ...]`: `python -m bot COMMAND` (default: run)
with Discord at STANDIN_URL (tests/ops/standin.py) instead of discord.com.

Test-only, on purpose: it points discord.py's private API base (Route.BASE) and default
gateway address at the stand-in, which the bot itself never does."""

from __future__ import annotations

import os
import sys
from typing import Any

import yarl
from discord.gateway import DiscordWebSocket
from discord.http import Route
from discord.state import ConnectionState

# discord.py waits this long after the last GUILD_CREATE before it is ready (2 s by default):
# the stand-in sends them all at once, and the tests need not wait.
GUILD_READY_TIMEOUT_S = 0.1


def point_at(url: str) -> None:
    Route.BASE = f"{url}/api/v10"
    DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(url.replace("http://", "ws://", 1) + "/gateway/")
    original = ConnectionState.__init__

    def init(self: ConnectionState, *args: Any, **options: Any) -> None:
        options.setdefault("guild_ready_timeout", GUILD_READY_TIMEOUT_S)
        original(self, *args, **options)

    ConnectionState.__init__ = init  # type: ignore[method-assign]


def main() -> int:
    point_at(os.environ["STANDIN_URL"])
    from bot.cli import main as bot_main

    return bot_main(sys.argv[1:] or ["run"])


if __name__ == "__main__":
    raise SystemExit(main())
