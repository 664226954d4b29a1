"""Logging set-up (text or JSON lines, standard library only) and the one line per command
or click."""

from __future__ import annotations

import json
import logging
import sys
from datetime import UTC, datetime
from typing import Any

import discord

command_log = logging.getLogger("lastgasp.commands")

TEXT_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class Fields(dict[str, Any]):
    """A log message made of fields: `key=value ...` as text, separate keys in JSON."""

    def __str__(self) -> str:
        return " ".join(f"{key}={_text(value)}" for key, value in self.items())


def _text(value: Any) -> str:
    text = "-" if value is None else str(value)
    # Quoted when a space or quote would make the line ambiguous to split.
    return json.dumps(text) if not text or any(c in text for c in ' "=') else text


class JsonFormatter(logging.Formatter):
    """One JSON object per line: time, level, logger, then the fields or the message."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, Any] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname,
            "logger": record.name,
        }
        if isinstance(record.msg, Fields) and not record.args:
            entry.update(record.msg)
        else:
            entry["message"] = record.getMessage()
        if record.exc_info:
            entry["exception"] = self.formatException(record.exc_info)
        return json.dumps(entry, default=str)


def configure_logging(level: str, *, log_format: str = "text", quiet: bool = False) -> None:
    # The console's terminal is for replies: only warnings and errors go to stderr there.
    if quiet and level != "DEBUG":
        level = "WARNING"
    handler = logging.StreamHandler(sys.stderr)
    json_lines = log_format == "json"
    handler.setFormatter(JsonFormatter() if json_lines else logging.Formatter(TEXT_FORMAT))

    def reconnects_in_one_line(record: logging.LogRecord) -> bool:
        # discord.py logs each failed reconnect with a 30-line traceback: an outage would bury
        # everything else. The exception's own text says what failed.
        if record.exc_info and str(record.msg).startswith("Attempting a reconnect"):
            error = record.exc_info[1]
            record.msg = f"{record.getMessage()} ({type(error).__name__}: {error})"
            record.args, record.exc_info, record.exc_text = None, None, None
        return True

    if level != "DEBUG":
        handler.addFilter(reconnects_in_one_line)
    logging.basicConfig(level=level, handlers=[handler])
    # Last Gasp has no voice: the client's warning about voice libraries is noise.
    logging.getLogger("discord.client").setLevel(logging.ERROR)
    # Alembic tells at INFO how it works ("Context impl SQLiteImpl.", its plugins) on every
    # start: noise beside the bot's lines, but for DEBUG.
    if level != "DEBUG":
        logging.getLogger("alembic").setLevel(logging.WARNING)


def log_command(interaction: discord.Interaction[Any], *, outcome: str, latency_ms: float) -> None:
    """The line every slash command and every click ends with; outcome is ok, refused or error,
    slowed (bot/limits.py), or expired for a click on a button that no longer acts."""
    if not command_log.isEnabledFor(logging.INFO):  # every command: build no line nobody reads
        return
    command_log.info(
        Fields(
            guild=interaction.guild_id,
            channel=interaction.channel_id,
            user=interaction.user.id if interaction.user else None,
            command=command_name(interaction),
            latency_ms=round(latency_ms, 1),
            outcome=outcome,
        )
    )


def command_name(interaction: discord.Interaction[Any]) -> str:
    """`character create`, read from the payload: also for a command the bot does not know.
    A click is named by its button (component_name)."""
    if interaction.type is discord.InteractionType.component:
        return component_name(interaction)
    data: Any = interaction.data or {}
    names = [str(data.get("name", "?"))]
    options = data.get("options") or []
    # Subcommand (1) and group (2) options carry the rest of the name.
    while (
        isinstance(options, list)
        and options
        and isinstance(options[0], dict)
        and options[0].get("type") in (1, 2)
    ):
        names.append(str(options[0].get("name")))
        options = options[0].get("options") or []
    return " ".join(names)


def component_name(interaction: discord.Interaction[Any]) -> str:
    """`recover`, `delete:confirm`, `board:round`: the button without the state its custom id
    carries (bot/render/buttons.py), so that the lines of one button group together."""
    data: Any = interaction.data or {}
    parts = str(data.get("custom_id", "?")).split(":")
    if parts[0] != "lg" or len(parts) < 2:
        return "expired"
    return ":".join(parts[1:3]) if parts[1] in ("delete", "board") else parts[1]
