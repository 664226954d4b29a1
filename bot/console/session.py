"""One console session: who speaks, what a line means, what the bot answered, as text.

Every line runs through the real command tree by `bot.offline.OfflineDriver`, as a Discord user's
interaction would. A line the console cannot run is refused in one line (`error: …`) and the
session goes on.
"""

from __future__ import annotations

import asyncio
import difflib
import json
import logging
import os
import re
import shlex
import zlib
from pathlib import Path
from typing import Any, TextIO

from discord import AppCommandOptionType, app_commands

from bot.console.files import ConsoleError, Saver, exports_folder, folder_shown, shown
from bot.console.text import Style, Text, buttons_of
from bot.offline import (
    BOT_USER_ID,
    Attachment,
    Member,
    Message,
    OfflineDriver,
    Result,
    SentInteraction,
)
from bot.offline.layout import Select
from bot.offline.payloads import parse_bool

_TIMESTAMP = re.compile(r"<t:-?\d+(?::[tTdDfFR])?>")  # Discord's timestamp token

log = logging.getLogger("lastgasp.console")

CONSOLE_GUILD_ID = 900_000_000_000_000_001
OTHER_GUILD_ID = 900_000_000_000_000_002
GM_ROLE_ID = 900_000_000_000_000_010
CONSOLE_CHANNEL_ID = 900_000_000_000_000_100
GM_USER_ID = 900_000_000_000_001_000
CHANNEL_NAME = "table"

HELP = """\
Type a slash command with its options as name:value; quote values with spaces:
  /damage character:Roryn amount:3
  /spend amount:2 reason:"Channel Casting"
  /character create name:Roryn res:2        (subcommands follow the command name)
  /character import file:Roryn.json         (a file here or in the exports folder)
Console commands:
  :as gm                 speak as the GM (Manage Server)
  :as player NAME        speak as the player NAME (created on first use)
  :as outsider           speak as a member of another server
  :who                   who is speaking
  :complete /damage character:Ro   the autocomplete choices for the last option typed
  :click LABEL           press a button of a message shown (its label, custom id, or a unique
                         part of either; the most recent message first); :click alone lists them
  :select A, B           choose options in the most recent menu shown (each a unique part of an
                         option's label, commas between); :select alone lists the menu's options
  :commands              list the slash commands and their options
  :help                  this text
  :quit                  leave (Ctrl-D and the end of input do too)
Keys: Tab completes commands, options, choices and character names; Up/Down recall earlier
lines; Ctrl-C cancels the line being typed, or the command running; Ctrl-D on an empty line
leaves.
Lines starting with # are comments."""

CONSOLE_COMMANDS = (
    ":as",
    ":who",
    ":complete",
    ":click",
    ":select",
    ":commands",
    ":help",
    ":quit",
)
FILE_TYPES = {".json": "application/json", ".png": "image/png", ".txt": "text/plain"}


def user_id_of(name: str) -> int:
    """A stable id per player name, so that owners survive between sessions."""
    return 900_000_000_100_000_000 + zlib.crc32(name.strip().lower().encode())


def one_line(error: BaseException) -> str:
    text = str(error.args[0]) if len(error.args) == 1 else str(error)
    text = " ".join(text.split()) or type(error).__name__
    return text


class Console:
    """The session's state and its language (`:as`, `/command opt:value`, `:click`, …).

    Subclasses may override `print` (the console's own lines), `show` (a command's result) and
    `show_board` (the status board, when it changed)."""

    def __init__(
        self,
        driver: OfflineDriver,
        out: TextIO,
        *,
        colour: bool | None = None,
        exports: Path | None = None,
    ) -> None:
        self.driver = driver
        self.out = out
        self.guild = driver.add_guild(
            CONSOLE_GUILD_ID,
            name="Console table",
            roles={"GM": GM_ROLE_ID},
            channel_id=CONSOLE_CHANNEL_ID,
        )
        self.other_guild = driver.add_guild(OTHER_GUILD_ID, name="Another server")
        self.names: dict[int, str] = {BOT_USER_ID: "Last Gasp"}  # user id -> name
        self.players: dict[str, Member] = {}
        self.speaker = self._gm()
        self.last: Result | None = None
        if colour is None:  # https://no-color.org; a dumb terminal has no colours either
            colour = (
                _isatty(out) and not os.environ.get("NO_COLOR") and os.environ.get("TERM") != "dumb"
            )
        roles = {role_id: name for name, role_id in self.guild.roles.items()}
        roles[self.guild.id] = "everyone"
        self.text = Text(
            users=self.names,
            roles=roles,
            channels={self.guild.channel_id: CHANNEL_NAME},
            now=getattr(driver.bot, "clock", None) or _utc_now,
            style=Style(colour),
        )
        url = getattr(driver.bot, "database_url", None)
        self.saver = Saver(exports if exports is not None else exports_folder(url))
        self.told_exports = False  # "exports and pictures are saved in …" is said once
        self._shown: dict[int, Message] = {}  # messages seen this session, oldest first
        self._board: tuple[int, str] | None = None  # the board last shown: id and content
        self._running: asyncio.Task[Any] | None = None  # the command Ctrl-C cancels
        # What autocomplete offered the speaker, by (command, option): Tab reads it while the
        # loop waits for the line being typed (refresh_completions fills it before a prompt).
        self._offered: dict[tuple[str, str], list[str]] = {}
        self._sent: SentInteraction | None = None  # its interaction, cancelled with it

    @property
    def _tree(self) -> app_commands.CommandTree[Any]:
        tree = getattr(self.driver.bot, "tree", None)
        if not isinstance(tree, app_commands.CommandTree):
            raise TypeError("the console drives a bot with application commands")
        return tree

    # --- personas --------------------------------------------------------------------------

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

    def describe(self, member: Member) -> str:
        if member.guild.id != self.guild.id:
            return f"{member.name} (a member of another server)"
        return f"{member.name} (GM)" if member.manage_guild else f"{member.name} (player)"

    # --- output ----------------------------------------------------------------------------

    def print(self, text: str = "") -> None:
        print(text, file=self.out, flush=True)

    def show(self, result: Result) -> None:
        """A command's result as text; attached files are saved to the exports folder."""
        if result.choices is not None:
            names = [c["name"] for c in result.choices]
            self.print("choices: " + (", ".join(names) if names else "(none)"))
            return
        if not result.messages:
            self.print(self.text.style.dim("(no reply)"))
            return
        blocks = []
        for message in result.messages:
            saved = self._save(message)
            lines = [self.text.header(message)]
            lines += [f"  {line}" for line in self.text.body(message, saved)]
            blocks.append("\n".join(lines))
        self.print("\n".join(blocks))

    def show_board(self, message: Message) -> None:
        """The status board, framed, when its content changed."""
        style = self.text.style
        title = self.text.inline(message.card.title or "Status board")
        lines = self.text.body(message, framed=True)
        top = f"┌─ {title} " + "─" * max(3, 56 - len(title))
        framed = [style.bold(top)]
        framed += [f"{style.bold('│')} {line}" for line in lines]
        framed.append(style.bold("└" + "─" * (len(top) - 1)))
        self.print("\n".join(framed))

    def _save(self, message: Message) -> dict[str, str]:
        saved: dict[str, str] = {}
        for name, data in message.files:
            try:
                path = self.saver.save(message.id, name, data)
            except OSError as error:
                self.print(f"error: cannot save {name}: {error.strerror or error}")
                continue
            self.tell_exports()
            saved[name] = shown(path)
        return saved

    def tell_exports(self) -> None:
        if not self.told_exports:
            self.told_exports = True
            self.print(f"exports and pictures are saved in {folder_shown(self.saver.folder)}")

    # --- one line ----------------------------------------------------------------------------

    async def handle(self, line: str) -> bool:
        """One input line; False when the session ends. Whatever goes wrong with the line is
        said in one line, and the session goes on."""
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
        except ConsoleError as error:
            self.print(f"error: {error}")
        except (KeyError, ValueError) as error:
            self.print(f"error: {one_line(error)}")
        except TimeoutError:
            self.print("error: the bot did not finish in time; the session goes on.")
        except Exception as error:  # a bug: one line here, the traceback in the debug log
            log.debug("console line failed: %s", line, exc_info=True)
            self.print(f"error: {type(error).__name__}: {one_line(error)}")
        return True

    def interrupt(self) -> bool:
        """Ctrl-C while a command runs: cancel it (and the bot's work on it). False when
        nothing runs."""
        task = self._running
        if task is None or task.done():
            return False
        task.cancel()
        return True

    async def _run(
        self, what: str, payload: dict[str, Any], clicked: Message | None = None
    ) -> Result | None:
        """Send one interaction and wait for everything it does. Ctrl-C (`interrupt`) cancels
        it and the bot's work on it, says so, and gives None."""

        async def wait() -> Result:
            self._sent = self.driver.send(payload, clicked=clicked)
            return await self._sent.result()

        task = asyncio.ensure_future(wait())
        self._running = task
        try:
            return await task
        except asyncio.CancelledError:
            current = asyncio.current_task()
            if current is not None and current.cancelling():
                raise  # the session itself is being cancelled
            await self._cancel_bot_work()
            if _isatty(self.out):
                self.print()  # after the terminal's ^C
            self.print(
                f"cancelled: {what} was stopped by Ctrl-C; if it had already changed "
                "something, /history shows it."
            )
            return None
        finally:
            self._running = None
            self._sent = None

    async def _cancel_bot_work(self) -> None:
        tasks = [t for t in getattr(self._sent, "_tasks", ()) if not t.done()]
        for task in tasks:
            task.cancel()
        if tasks:
            await asyncio.wait(tasks, timeout=5)

    # --- console commands ------------------------------------------------------------------

    async def _console_command(self, line: str) -> bool:
        words = _split(line)
        command, args = words[0].lower(), words[1:]
        if command in (":quit", ":exit", ":q"):
            return False
        if command == ":help":
            self.print(HELP)
        elif command == ":who":
            self.print(f"speaking as {self.describe(self.speaker)}")
        elif command == ":as":
            self._switch(args)
        elif command == ":commands":
            self._list_commands()
        elif command == ":complete":
            await self._complete(line.split(None, 1)[1] if len(words) > 1 else "")
        elif command == ":click":
            await self._click(" ".join(args))
        elif command == ":select":
            await self._select(line.split(None, 1)[1] if len(words) > 1 else "")
        else:
            close = difflib.get_close_matches(command, CONSOLE_COMMANDS, n=1)
            hint = f"did you mean {close[0]}? " if close else ""
            self.print(f"error: unknown console command {command} ({hint}:help lists them)")
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
        self.print(f"speaking as {self.describe(self.speaker)}")

    def _list_commands(self) -> None:
        for command in self._commands():
            params = " ".join(
                f"{p.display_name}:" if p.required else f"[{p.display_name}:]"
                for p in command.parameters
            )
            self.print(f"/{command.qualified_name} {params}".rstrip())

    def _commands(self) -> list[app_commands.Command[Any, ..., Any]]:
        tree = self._tree
        found = [c for c in tree.walk_commands() if isinstance(c, app_commands.Command)]
        return sorted(found, key=lambda c: c.qualified_name)

    # --- slash commands --------------------------------------------------------------------

    async def _slash(self, line: str) -> None:
        command, options = self._parse(line, complete=False)
        payload = self.driver.payload(self.speaker, command.qualified_name, **options)
        result = await self._run(f"/{command.qualified_name}", payload)
        if result is not None:
            self.last = result
            self._remember(result)
            self.show(result)
        await self.refresh_board()

    async def _complete(self, text: str) -> None:
        command, options = self._parse(text, complete=True)
        if not options:
            raise ConsoleError("type the option to complete, e.g. :complete /damage character:Ro")
        focused = list(options)[-1]
        param = _parameter(command, focused)
        if param is None or not param.autocomplete:
            choices = ", ".join(str(c.value) for c in param.choices) if param else ""
            raise ConsoleError(
                f"/{command.qualified_name} {focused}: has no autocomplete"
                + (f" (its choices: {choices})" if choices else "")
            )
        payload = self.driver.payload(
            self.speaker, command.qualified_name, focused=focused, **options
        )
        result = await self._run(f":complete /{command.qualified_name}", payload)
        if result is not None:
            self.show(result)

    def _parse(
        self, text: str, *, complete: bool
    ) -> tuple[app_commands.Command[Any, ..., Any], dict[str, Any]]:
        words = _split(text)
        path = []
        while words and ":" not in words[0]:
            path.append(words.pop(0))
        if not path or path[0] in ("/", ""):
            raise ConsoleError("name a command, e.g. /damage amount:3 (:commands lists them)")
        command = self._resolve(path)
        params = {p.display_name: p for p in command.parameters}
        raw: dict[str, str] = {}
        while words:
            word = words.pop(0)
            _refuse_equals(word, params)
            name, _, value = word.partition(":")
            if ":" not in word and raw and _may_hold_spaces(params[list(raw)[-1]]):
                given = list(raw)[-1]  # `name:Sir Kael`: the value went on past a space
                typed = " ".join([raw[given], word, *_while_no_colon(words)])
                raise ConsoleError(f'a value with spaces needs quotes: {given}:"{typed}"')
            if name not in params:
                raise ConsoleError(
                    f"/{command.qualified_name} has no option {name!r}; "
                    + (f"it takes {', '.join(params)}" if params else "it takes none")
                )
            if not value and words and words[0].partition(":")[0] not in params:
                value = words.pop(0)  # `amount: 3`, as Tab completion leaves it
            if name in raw:
                raise ConsoleError(f"{name} is given twice")
            raw[name] = value
        if not complete:
            missing = [p for p in command.parameters if p.required and not raw.get(p.display_name)]
            if missing:
                needs = "; ".join(f"{p.display_name}: {p.description}" for p in missing)
                raise ConsoleError(f"/{command.qualified_name} needs {needs}")
        options: dict[str, Any] = {}
        last = list(raw)[-1] if raw else None
        for name, value in raw.items():
            if complete and name == last:
                options[name] = value  # autocomplete sends what is typed so far, as text
            else:
                options[name] = self._value(params[name], value)
        return command, options

    def _resolve(self, path: list[str]) -> app_commands.Command[Any, ..., Any]:
        tree = self._tree
        first = path[0].lstrip("/")
        node: Any = tree.get_command(first)
        if node is None:
            names = [c.name for c in tree.get_commands()]
            close = difflib.get_close_matches(first, names, n=1)
            hint = f"did you mean /{close[0]}? " if close else ""
            raise ConsoleError(f"no slash command /{first} ({hint}:commands lists them)")
        for word in path[1:]:
            if isinstance(node, app_commands.Command):
                _refuse_equals(word, {p.display_name: p for p in node.parameters})
                example = next(iter(p.display_name for p in node.parameters), "name")
                raise ConsoleError(
                    f"/{node.qualified_name} takes its options as name:value "
                    f"(e.g. {example}:{word}), not {word!r}"
                )
            child = node.get_command(word)
            if child is None:
                subs = ", ".join(sorted(c.name for c in node.commands))
                raise ConsoleError(
                    f"/{node.qualified_name} has no subcommand {word}: it has {subs}"
                )
            node = child
        if not isinstance(node, app_commands.Command):
            subs = ", ".join(sorted(c.name for c in node.commands))
            raise ConsoleError(f"/{node.qualified_name} needs a subcommand: {subs}")
        return node

    def _value(self, param: app_commands.Parameter, value: str) -> Any:
        name, kind = param.display_name, param.type
        if param.choices:
            for choice in param.choices:
                if value.lower() in (str(choice.value).lower(), choice.name.lower()):
                    return choice.value
            allowed = ", ".join(str(c.value) for c in param.choices)
            raise ConsoleError(f"{name} is one of {allowed}, not {value!r}")
        if kind is AppCommandOptionType.user:
            if value.lower() in ("gm", "@gm"):
                return self._gm()
            return self.player(value)
        if kind is AppCommandOptionType.role:
            role = value.lstrip("@")
            if role.lower() == "everyone":
                return self.guild.id
            for role_name, role_id in self.guild.roles.items():
                if role.lower() == role_name.lower():
                    return role_id
            roles = ", ".join(["@everyone", *self.guild.roles])
            raise ConsoleError(f"no role {value} in this server: it has {roles}")
        if kind is AppCommandOptionType.attachment:
            path = self.saver.find(value)
            try:
                data = path.read_bytes()
            except OSError as error:
                raise ConsoleError(f"cannot read {value}: {error.strerror or error}") from None
            kind_of = FILE_TYPES.get(path.suffix.lower(), "application/octet-stream")
            return Attachment(path.name, data, kind_of)
        if kind is AppCommandOptionType.integer:
            try:
                return int(value)
            except ValueError:
                raise ConsoleError(f"{name} takes a whole number, not {value!r}") from None
        if kind is AppCommandOptionType.number:
            try:
                return float(value)
            except ValueError:
                raise ConsoleError(f"{name} takes a number, not {value!r}") from None
        if kind is AppCommandOptionType.boolean:
            try:
                return parse_bool(value)
            except ValueError:
                raise ConsoleError(f"{name} takes yes or no, not {value!r}") from None
        return value

    # --- buttons ---------------------------------------------------------------------------

    def _remember(self, shown_: Result | Message) -> None:
        messages = shown_.messages if isinstance(shown_, Result) else [shown_]
        for message in messages:
            self._shown.pop(message.id, None)
            self._shown[message.id] = message

    def clickable(self) -> list[tuple[Message, str, str]]:
        """(message, label, custom id) of every button shown, the most recent message first."""
        found = []
        for message in reversed(list(self._shown.values())):
            for label, custom_id, disabled in buttons_of(message):
                if custom_id and not disabled and not custom_id.startswith("http"):
                    found.append((message, label, custom_id))
        return found

    async def _click(self, wanted: str) -> None:
        wanted = wanted.strip()
        buttons = self.clickable()
        if not wanted:
            if not buttons:
                self.print("No button has been shown yet.")
                return
            self.print("Buttons shown, the most recent first (:click LABEL presses one):")
            for _, label, cid in buttons:
                self.print(f"  {label} ({cid})")
            return
        message, custom_id = self._find_button(wanted, buttons)
        payload = self.driver.click_payload(self.speaker, message, custom_id)
        result = await self._run(f":click {wanted}", payload, clicked=message)
        if result is not None:
            self.last = result
            self._remember(result)
            self.show(result)
        await self.refresh_board()

    def _menu(self) -> tuple[Message, Select]:
        """The most recent select menu shown that can still be used."""
        for message in reversed(list(self._shown.values())):
            for select in message.card.selects:
                if not select.disabled:
                    return message, select
        raise ConsoleError("No open menu: run the command that asks (e.g. /damage several:true).")

    async def _select(self, wanted: str) -> None:
        message, menu = self._menu()
        if not wanted.strip():
            self.print(f"Options of the menu {menu.placeholder!r} (:select A, B chooses):")
            for label, _ in menu.options:
                self.print(f"  {label}")
            return
        values = []
        for part in (p.strip().lower() for p in wanted.split(",") if p.strip()):
            found = [(label, v) for label, v in menu.options if part in label.lower()]
            exact = [(label, v) for label, v in menu.options if part == label.lower()]
            if len(exact) == 1:
                found = exact
            if not found:
                raise ConsoleError(
                    f"no option of the menu matches {part!r} (:select alone lists them)"
                )
            if len(found) > 1:
                listed = ", ".join(label for label, _ in found)
                raise ConsoleError(f"{part!r} matches several options: {listed}")
            values.append(found[0][1])
        payload = self.driver.click_payload(self.speaker, message, menu.custom_id, values)
        result = await self._run(f":select {wanted}", payload, clicked=message)
        if result is not None:
            self.last = result
            self._remember(result)
            self.show(result)
        await self.refresh_board()

    @staticmethod
    def _find_button(wanted: str, buttons: list[tuple[Message, str, str]]) -> tuple[Message, str]:
        low = wanted.lower()
        for message, _, custom_id in buttons:
            if custom_id == wanted:
                return message, custom_id
        by_message: dict[int, list[tuple[Message, str, str]]] = {}
        for button in buttons:  # most recent message first (dicts keep that order)
            _, label, custom_id = button
            if low in label.lower() or low in custom_id.lower():
                by_message.setdefault(button[0].id, []).append(button)
        for matches in by_message.values():
            if len(matches) > 1:
                exact = [b for b in matches if b[1].lower() == low]
                if len(exact) != 1:
                    listed = ", ".join(f"{label} ({cid})" for _, label, cid in matches)
                    raise ConsoleError(f"{wanted!r} names several buttons: {listed}")
                matches = exact
            return matches[0][0], matches[0][2]
        raise ConsoleError(f"no button shown matches {wanted!r} (:click alone lists them)")

    # --- the status board ------------------------------------------------------------------

    async def refresh_board(self) -> None:
        """After each command: the session channel's board, brought up to date and shown when
        its content changed."""
        boards = getattr(self.driver.bot, "boards", None)
        if boards is None:
            return
        # The worker may be editing this board already (it does not wait for the console):
        # its edit, then any change it has not seen, are done before the board is read.
        settle = getattr(boards, "settle", None) or boards.flush
        await settle()
        await _settle()
        board = boards.board_of(self.guild.channel_id)
        message = self.driver.channel_messages.get(board.message_id) if board else None
        if message is None:
            self._board = None
            return
        # Its "updated" time aside: a board edited with nothing new on it is not shown again.
        content = _TIMESTAMP.sub("", json.dumps(message.components, sort_keys=True))
        if self._board == (message.id, content):
            return
        self._board = (message.id, content)
        self._remember(message)
        self.show_board(message)

    # --- Tab completion ----------------------------------------------------------------------

    async def refresh_completions(self) -> None:
        """What autocomplete offers the speaker now, asked once per autocomplete handler (all
        `character:` options share one), for Tab to offer: the terminal calls it before each
        prompt. A failure keeps what was offered before."""
        offered: dict[tuple[str, str], list[str]] = {}
        asked: dict[object, list[str]] = {}
        try:
            for command in self._commands():
                for param in command.parameters:
                    if not param.autocomplete:
                        continue
                    option = param.display_name
                    handler = _autocomplete_handler(command, option)
                    if handler not in asked:
                        payload = self.driver.payload(
                            self.speaker, command.qualified_name, focused=option, **{option: ""}
                        )
                        result = await asyncio.wait_for(self.driver.send(payload).result(), 10)
                        asked[handler] = [str(c["value"]) for c in result.choices or ()]
                    offered[(command.qualified_name, option)] = asked[handler]
        except Exception:  # Tab offers less; the session goes on
            log.debug("asking autocomplete for Tab failed", exc_info=True)
            return
        self._offered = offered

    def completions(self, line: str) -> list[str]:
        """What Tab offers for the last word of `line` (the text before the cursor): whole
        words end with a space, option names with their colon."""
        return [c if c.endswith(":") else c + " " for c in self._candidates(line)]

    def _candidates(self, line: str) -> list[str]:
        words = line.split(" ")
        current, before = words[-1], [w for w in words[:-1] if w]
        if before and before[0].lower() == ":complete":
            before = before[1:]
        if not before:
            if current.startswith(":"):
                return [c for c in CONSOLE_COMMANDS if c.startswith(current.lower())]
            names = sorted("/" + c.name for c in self._tree.get_commands())
            return [n for n in names if n.startswith(current if current else "/")]
        head = before[0].lower()
        if head == ":as":
            if len(before) == 1:
                return [w for w in ("gm", "player", "outsider") if w.startswith(current)]
            if before[1:] == ["player"]:
                names = sorted({m.name for m in self.players.values()})
                return [n for n in names if n.lower().startswith(current.lower())]
            return []
        if head == ":click":
            ids = list(dict.fromkeys(cid for _, _, cid in self.clickable()))
            return [c for c in ids if c.startswith(current)]
        if not head.startswith("/"):
            return []
        node: Any = self._tree.get_command(head[1:])
        for word in before[1:]:
            if ":" in word or not isinstance(node, app_commands.Group):
                break
            node = node.get_command(word)
        if node is None:
            return []
        if isinstance(node, app_commands.Group):
            return [n for n in sorted(c.name for c in node.commands) if n.startswith(current)]
        given = {w.partition(":")[0] for w in before if ":" in w}
        if ":" not in current:
            names = [f"{p.display_name}:" for p in node.parameters if p.display_name not in given]
            return [n for n in names if n.startswith(current)]
        name, _, partial = current.partition(":")
        param = _parameter(node, name)
        if param is None:
            return []
        if param.choices:
            values = [str(c.value) for c in param.choices]
        elif param.type is AppCommandOptionType.boolean:
            values = ["yes", "no"]
        elif param.type is AppCommandOptionType.user:
            values = ["gm", *sorted({m.name for m in self.players.values()})]
        elif param.type is AppCommandOptionType.role:
            values = ["@everyone", *self.guild.roles]
        elif param.autocomplete:
            values = self._offered.get((node.qualified_name, name), [])
        else:
            values = []
        typed = partial.lstrip("\"'").casefold()
        return [f"{name}:{_quoted(v)}" for v in values if v.casefold().startswith(typed)]


async def _settle() -> None:
    """Give the bot's background tasks (the board worker, woken by the change) their turns
    before the prompt comes back: the loop waits while a line is typed, and a worker cancelled
    at the end of the session just as it wakes could, on Python 3.11, miss the cancellation
    inside `asyncio.wait_for`."""
    for _ in range(8):
        await asyncio.sleep(0)


def _autocomplete_handler(command: app_commands.Command[Any, ..., Any], option: str) -> object:
    """The function that completes this option: commands sharing one are asked once."""
    params = getattr(command, "_params", {})
    handler = getattr(params.get(option), "autocomplete", None)
    if handler is None:
        return (command.qualified_name, option)
    return getattr(handler, "__func__", handler)


def _quoted(value: str) -> str:
    return f'"{value}"' if " " in value else value


def _refuse_equals(word: str, params: dict[str, app_commands.Parameter]) -> None:
    """`amount=2`: options are written name:value."""
    name, equals, value = word.partition("=")
    if equals and name in params and ":" not in name:
        raise ConsoleError(f"write options as name:value: {name}:{value}, not {word}")


def _may_hold_spaces(param: app_commands.Parameter) -> bool:
    """Text, a member's or role's name, a file name: not a number, a yes/no or a choice."""
    numbers = (AppCommandOptionType.integer, AppCommandOptionType.number)
    return not param.choices and param.type not in (*numbers, AppCommandOptionType.boolean)


def _while_no_colon(words: list[str]) -> list[str]:
    taken = []
    while words and ":" not in words[0]:
        taken.append(words.pop(0))
    return taken


def _parameter(
    command: app_commands.Command[Any, ..., Any], name: str
) -> app_commands.Parameter | None:
    return next((p for p in command.parameters if p.display_name == name), None)


def _split(text: str) -> list[str]:
    try:
        return shlex.split(text)
    except ValueError as error:  # "No closing quotation"
        raise ConsoleError(f"{str(error).lower()}: close the quote") from None


def _isatty(stream: TextIO) -> bool:
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def _utc_now() -> Any:
    from datetime import UTC, datetime

    return datetime.now(UTC)


__all__ = [
    "CONSOLE_CHANNEL_ID",
    "CONSOLE_GUILD_ID",
    "GM_ROLE_ID",
    "GM_USER_ID",
    "HELP",
    "OTHER_GUILD_ID",
    "Console",
    "ConsoleError",
    "user_id_of",
]
