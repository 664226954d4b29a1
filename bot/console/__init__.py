"""The offline console: type the slash commands a Discord user would, see the replies as text.

It drives the real command tree through `bot.offline`, exactly as the tests do, on one fixed
guild so that the database keeps the table between sessions. On a terminal it edits lines with
readline (history, Tab completion; Ctrl-C cancels, Ctrl-D leaves); from a pipe a script produces
a transcript.

    Alice> /character create name:"Sir Roryn" res:2
    Alice> /damage character:"Sir Roryn" amount:3
    Alice> :as gm

Modules: `session` (Console: personas, the line language, results as text, buttons, the status
board), `text` (Discord's messages as terminal text), `files` (the exports folder),
`terminal` (run_console: readline, history, Ctrl-C and Ctrl-D).
"""

from bot.console.files import EXPORTS_FOLDER, ConsoleError, exports_folder
from bot.console.session import (
    CONSOLE_CHANNEL_ID,
    CONSOLE_GUILD_ID,
    GM_ROLE_ID,
    GM_USER_ID,
    HELP,
    OTHER_GUILD_ID,
    Console,
    user_id_of,
)
from bot.console.terminal import HISTORY_LENGTH, history_path, run_console

__all__ = [
    "CONSOLE_CHANNEL_ID",
    "CONSOLE_GUILD_ID",
    "EXPORTS_FOLDER",
    "GM_ROLE_ID",
    "GM_USER_ID",
    "HELP",
    "HISTORY_LENGTH",
    "OTHER_GUILD_ID",
    "Console",
    "ConsoleError",
    "exports_folder",
    "history_path",
    "run_console",
    "user_id_of",
]
