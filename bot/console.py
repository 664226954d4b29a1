"""The offline console: type the slash commands a Discord user would, see the replies as text.

It drives the real command tree through `bot.offline`, exactly as the tests do, on one fixed
guild so that the database keeps the table between sessions. Commands come from standard input,
so a script piped in produces a transcript.

    > :as player Alice
    > /damage character:Roryn amount:3
    > /character create name:"Sir Roryn" res:2
"""

from __future__ import annotations

import random
import re
import shlex
import sys
import zlib
from pathlib import Path
from typing import Any, TextIO

from discord import AppCommandOptionType

from bot.app import create_bot
from bot.offline import Attachment, Member, OfflineDriver, Result

CONSOLE_GUILD_ID = 900_000_000_000_000_001
OTHER_GUILD_ID = 900_000_000_000_000_002
GM_ROLE_ID = 900_000_000_000_000_010
CONSOLE_CHANNEL_ID = 900_000_000_000_000_100
GM_USER_ID = 900_000_000_000_001_000
USER_MENTION = re.compile(r"<@!?(\d+)>")

HELP = """\
Type a slash command with its options as name:value; quote values with spaces:
  /damage character:Roryn amount:3
  /spend amount:2 reason:"Channel Casting"
  /character create name:Roryn res:2        (subcommands follow the command name)
Console commands:
  :as gm                 speak as the GM (Manage Server)
  :as player NAME        speak as the player NAME (created on first use)
  :as outsider           speak as a member of another server
  :who                   who is speaking
  :complete /damage character:Ro   the autocomplete choices for the last option typed
  :click ID              press a button of the last reply (its custom id, or a unique part)
  :commands              list the slash commands and their options
  :help                  this text
  :quit                  leave (end of input does too)
Lines starting with # are comments."""


def user_id_of(name: str) -> int:
    """A stable id per player name, so that owners survive between sessions."""
    return 900_000_000_100_000_000 + zlib.crc32(name.strip().lower().encode())


class Console:
    def __init__(self, driver: OfflineDriver, out: TextIO) -> None:
        self.driver = driver
        self.out = out
        self.guild = driver.add_guild(
            CONSOLE_GUILD_ID,
            name="Console table",
            roles={"GM": GM_ROLE_ID},
            channel_id=CONSOLE_CHANNEL_ID,
        )
        self.other_guild = driver.add_guild(OTHER_GUILD_ID, name="Another server")
        self.names: dict[int, str] = {}  # user id -> name, of the personas met this session
        self.players: dict[str, Member] = {}
        self.speaker = self._gm()
        self.last: Result | None = None

    def _persona(self, member: Member) -> Member:
        self.names[member.user_id] = member.name
        return member

    def _gm(self) -> Member:
        return self._persona(
            self.driver.member(self.guild, "GM", user_id=GM_USER_ID, manage_guild=True)
        )

    def player(self, name: str) -> Member:
        key = name.strip().lstrip("@").lower()
        if key not in self.players:
            self.players[key] = self._persona(
                self.driver.member(self.guild, name.strip().lstrip("@"), user_id=user_id_of(key))
            )
        return self.players[key]

    def print(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def show(self, result: Result) -> None:
        """Discord shows a user mention as @name; the console does so for its own personas."""

        def named(mention: re.Match[str]) -> str:
            name = self.names.get(int(mention[1]))
            return mention[0] if name is None else f"@{name}"

        self.print(USER_MENTION.sub(named, result.text()))

    async def handle(self, line: str) -> bool:
        """One input line; False when the session ends."""
        line = line.strip()
        if not line or line.startswith("#"):
            return True
        try:
            if line.startswith(":"):
                return await self._console_command(line)
            if line.startswith("/"):
                await self._slash(line)
            else:
                self.print("Start a slash command with / or a console command with : (:help).")
        except (KeyError, ValueError) as error:
            self.print(f"error: {error.args[0] if error.args else error}")
        return True

    async def _console_command(self, line: str) -> bool:
        words = shlex.split(line)
        command, args = words[0].lower(), words[1:]
        if command in (":quit", ":exit", ":q"):
            return False
        if command == ":help":
            self.print(HELP)
        elif command == ":who":
            self.print(f"speaking as {self._describe(self.speaker)}")
        elif command == ":as":
            self._switch(args)
        elif command == ":commands":
            self._list_commands()
        elif command == ":complete":
            await self._complete(line.split(None, 1)[1] if len(words) > 1 else "")
        elif command == ":click":
            await self._click(" ".join(args))
        else:
            self.print(f"error: unknown console command {command} (:help)")
        return True

    def _switch(self, args: list[str]) -> None:
        who = args[0].lower() if args else ""
        if who == "gm":
            self.speaker = self._gm()
        elif who == "player" and len(args) > 1:
            self.speaker = self.player(" ".join(args[1:]))
        elif who == "outsider":
            self.speaker = self._persona(
                self.driver.member(self.other_guild, "Outsider", user_id=user_id_of("outsider"))
            )
        else:
            self.print("error: use :as gm, :as player NAME or :as outsider")
            return
        self.print(f"speaking as {self._describe(self.speaker)}")

    def _describe(self, member: Member) -> str:
        if member.guild.id != self.guild.id:
            return f"{member.name} (a member of another server)"
        return f"{member.name} (GM)" if member.manage_guild else f"{member.name} (player)"

    def _parse(self, text: str) -> tuple[str, dict[str, Any]]:
        words = shlex.split(text)
        path = []
        while words and ":" not in words[0]:
            path.append(words.pop(0))
        if not path:
            raise ValueError("name a command, e.g. /damage amount:3")
        command = " ".join(path).lstrip("/")
        types = self.driver.option_types(command)
        options: dict[str, Any] = {}
        for word in words:
            name, _, value = word.partition(":")
            if name not in types:
                raise KeyError(f"/{command} has no option {name!r}; it has {', '.join(types)}")
            options[name] = self._value(types[name], value)
        return command, options

    def _value(self, kind: AppCommandOptionType, value: str) -> Any:
        if kind is AppCommandOptionType.user:
            if value.lower() in ("gm", "@gm"):
                return self._gm()
            return self.player(value)
        if kind is AppCommandOptionType.attachment:
            path = Path(value)
            return Attachment(path.name, path.read_bytes())
        if kind is AppCommandOptionType.integer:
            try:
                return int(value)
            except ValueError:
                raise ValueError(f"{value!r} is not a whole number") from None
        return value

    async def _slash(self, line: str) -> None:
        command, options = self._parse(line)
        self.last = await self.driver.invoke(self.speaker, command, **options)
        self.show(self.last)

    async def _complete(self, text: str) -> None:
        command, options = self._parse(text)
        if not options:
            raise ValueError("type the option to complete, e.g. :complete /damage character:Ro")
        focused = list(options)[-1]
        self.show(await self.driver.autocomplete(self.speaker, command, focused, **options))

    async def _click(self, wanted: str) -> None:
        messages = self.last.messages if self.last else []
        found = [(m, cid) for m in messages for cid in m.custom_ids() if wanted and wanted in cid]
        if len(found) != 1:
            self.print("error: name one button of the last reply (its custom id, or part of it)")
            return
        message, custom_id = found[0]
        self.last = await self.driver.click(self.speaker, message, custom_id)
        self.show(self.last)

    def _list_commands(self) -> None:
        tree = self.driver.bot.tree
        for command in sorted(tree.walk_commands(), key=lambda c: c.qualified_name):
            if hasattr(command, "parameters"):
                params = " ".join(
                    f"{p.display_name}:" if p.required else f"[{p.display_name}:]"
                    for p in command.parameters
                )
                self.print(f"/{command.qualified_name} {params}".rstrip())


async def run_console(
    database_url: str,
    *,
    seed: int | None = None,
    stdin: TextIO | None = None,
    out: TextIO | None = None,
) -> int:
    """The session: reads stdin until :quit or its end."""
    stdin = stdin or sys.stdin
    out = out or sys.stdout
    rng = random.Random(seed) if seed is not None else random.SystemRandom()
    driver = OfflineDriver(create_bot(database_url, rng=rng))
    await driver.start()
    try:
        console = Console(driver, out)
        interactive = stdin.isatty()
        if interactive:
            console.print("Last Gasp offline console. :help lists what you can type.")
            console.print(f"speaking as {console._describe(console.speaker)}")
        while True:
            if interactive:
                print("> ", end="", file=out, flush=True)
            line = stdin.readline()
            if not line:
                break
            if not interactive and line.strip():
                console.print(f"> {line.rstrip()}")  # a scripted session reads as a transcript
            if not await console.handle(line):
                break
    finally:
        await driver.close()
    return 0
