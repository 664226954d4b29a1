"""Settings from the environment or a `.env` file in the working directory."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Literal
from urllib.parse import urlsplit

from pydantic import Field, SecretStr, ValidationError, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError

from bot.limits import DEFAULT_RATE_LIMIT, RateLimit

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///lastgasp.db"
MIN_SECRET = (
    32  # characters of WEB_SECRET: `python -c "import secrets; print(secrets.token_urlsafe())"`
)
LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL")
DATABASES = (("sqlite", "aiosqlite"), ("postgresql", "asyncpg"))  # (backend, async driver)
# A backend as people write it (`postgres://` is Heroku's, and libpq's, spelling).
BACKENDS = {"sqlite": "sqlite", "postgresql": "postgresql", "postgres": "postgresql"}


class SaysTheFix(ValueError):
    """A wrong setting whose message already says what to write instead."""


class Settings(BaseSettings):
    """DISCORD_TOKEN, DATABASE_URL, DEV_GUILD_ID, LOG_LEVEL, LOG_FORMAT, SHARD_COUNT, SHARD_IDS,
    HEALTH_PORT, HEALTH_HOST, RATE_LIMIT, the campaign page's WEB_* (and LASTGASP_SEED for
    replays)."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    discord_token: str | None = None
    database_url: str = DEFAULT_DATABASE_URL
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    log_format: Literal["text", "json"] = "text"
    # Several processes share the guilds: each serves SHARD_IDS out of SHARD_COUNT shards.
    shard_count: int | None = Field(default=None, ge=1)
    # NoDecode: "0,1" as written in an environment, not a JSON list.
    shard_ids: Annotated[list[int] | None, NoDecode] = None
    # Unset: no health server; 0 picks a free port (tests).
    health_port: int | None = Field(default=None, ge=0, le=65535)
    health_host: str = "0.0.0.0"
    # Commands and clicks per member per server (bot/limits.py); "off" for none. NoDecode: 8/10s
    # as written, not JSON.
    rate_limit: Annotated[RateLimit | None, NoDecode] = DEFAULT_RATE_LIMIT
    # The campaign page (bot/web): served on WEB_PORT by the bot's process (unset: not
    # served there; `python -m bot web` serves it on its own); its links signed with
    # WEB_SECRET, valid WEB_LINK_HOURS, made for WEB_BASE_URL (the address behind a proxy).
    web_port: int | None = Field(default=None, ge=0, le=65535)
    web_host: str = "0.0.0.0"
    web_secret: SecretStr | None = None
    web_link_hours: float = Field(default=24.0, gt=0, le=24 * 30)
    web_base_url: str | None = None
    # Page requests per client address (bot/web/guard.py), as RATE_LIMIT is written.
    web_rate_limit: Annotated[RateLimit | None, NoDecode] = Field(
        default_factory=lambda: RateLimit(120, 60.0)
    )
    # Behind a reverse proxy: the client's address is the last one X-Forwarded-For names.
    web_forwarded: bool = False
    # A fixed seed makes every roll of a session replayable (D-5); unset in play.
    seed: int | None = Field(default=None, validation_alias="LASTGASP_SEED")

    @field_validator(
        "discord_token",
        "dev_guild_id",
        "seed",
        "shard_count",
        "shard_ids",
        "health_port",
        "web_port",
        "web_secret",
        "web_base_url",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("rate_limit", mode="before")
    @classmethod
    def _rate(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        return RateLimit.parse(value) if value.strip() else DEFAULT_RATE_LIMIT

    @field_validator("web_rate_limit", mode="before")
    @classmethod
    def _web_rate(cls, value: object) -> object:
        if not isinstance(value, str):
            return value
        return RateLimit.parse(value) if value.strip() else RateLimit(120, 60.0)

    @field_validator("web_secret")
    @classmethod
    def _secret(cls, value: SecretStr | None) -> SecretStr | None:
        # Not repeated in the message: it is a secret.
        if value is not None and len(value.get_secret_value().strip()) < MIN_SECRET:
            raise ValueError(f"it is shorter than {MIN_SECRET} characters")
        return value

    @field_validator("web_base_url")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
        if value is None:
            return None
        value = value.strip()
        parsed = urlsplit(value)
        if parsed.scheme not in ("http", "https") or not parsed.netloc:
            raise ValueError(f"{value!r} is not an http:// or https:// address")
        if parsed.query or parsed.fragment:
            raise ValueError(f"{value!r} has a query or a fragment")
        return value if value.endswith("/") else value + "/"

    @field_validator("log_level")
    @classmethod
    def _level(cls, value: str) -> str:
        level = value.strip().upper()
        if level not in LOG_LEVELS:
            raise ValueError(f"{value.strip()!r} is not a log level")
        return level

    @field_validator("database_url")
    @classmethod
    def _database(cls, value: str) -> str:
        value = value.strip()
        try:
            url = make_url(value)
        except ArgumentError:
            # Not repeated: the URL may hold a password.
            raise ValueError("it is not a database URL") from None
        backend, _, driver = url.drivername.partition("+")
        if (backend, driver) in DATABASES:
            return value
        known = BACKENDS.get(backend)
        if known is not None:  # the right database with another (or no) driver
            wanted = next(pair for pair in DATABASES if pair[0] == known)
            raise SaysTheFix(
                f"{url.drivername}:// lacks the driver Last Gasp connects through ({wanted[1]}); "
                f"write {'+'.join(wanted)}://… instead, the rest of the URL as it is"
            )
        raise ValueError(f"{url.drivername}:// is not a database Last Gasp can use")

    @field_validator("log_format", mode="before")
    @classmethod
    def _format(cls, value: object) -> object:
        return value.strip().lower() if isinstance(value, str) else value

    @field_validator("shard_ids", mode="before")
    @classmethod
    def _comma_separated(cls, value: object) -> object:
        if isinstance(value, str):
            parts = [part.strip() for part in value.split(",") if part.strip()]
            return parts or None
        return value

    @model_validator(mode="after")
    def _shards_fit(self) -> Settings:
        if self.shard_ids is not None:
            if self.shard_count is None:
                raise ValueError("SHARD_IDS needs SHARD_COUNT (the total number of shards)")
            outside = [i for i in self.shard_ids if not 0 <= i < self.shard_count]
            if outside:
                raise ValueError(
                    f"SHARD_IDS {outside} are outside 0..{self.shard_count - 1} (SHARD_COUNT)"
                )
            if not self.shard_ids or len(set(self.shard_ids)) != len(self.shard_ids):
                raise ValueError("SHARD_IDS must list distinct shard ids, e.g. 0,1")
        elif self.shard_count is not None:
            self.shard_ids = list(range(self.shard_count))  # one process serves them all
        return self


# --- what is wrong with the settings, in one line ------------------------------------------------

# The environment variable of each setting: its name in capitals, but for these.
ENV_NAMES = {"seed": "LASTGASP_SEED"}
# What to do about a wrong value, per variable.
FIXES = {
    "DATABASE_URL": (
        "set sqlite+aiosqlite:///path/to/lastgasp.db or postgresql+asyncpg://user:password@host/db"
    ),
    "DEV_GUILD_ID": "set a server's id (a number: Copy Server ID in Discord), or unset it",
    "LOG_LEVEL": "set " + ", ".join(LOG_LEVELS[:-1]) + f" or {LOG_LEVELS[-1]}",
    "LOG_FORMAT": "set text or json",
    "SHARD_COUNT": "set the total number of shards over all processes (1 or more), or unset it",
    "SHARD_IDS": "set this process's shards, comma-separated within 0..SHARD_COUNT-1, e.g. 0,1",
    "HEALTH_PORT": "set a free port number (0 picks any), or unset it",
    "HEALTH_HOST": "set the address to listen on, e.g. 0.0.0.0 or 127.0.0.1",
    "LASTGASP_SEED": "set a whole number, or unset it",
    "RATE_LIMIT": "set commands per member per server as count/seconds, e.g. 8/10s, or off",
    "WEB_PORT": "set a free port number for the campaign page (0 picks any), or unset it",
    "WEB_HOST": "set the address the campaign page listens on, e.g. 0.0.0.0 or 127.0.0.1",
    "WEB_SECRET": (
        "set at least 32 random characters, e.g. the output of "
        "python -c 'import secrets; print(secrets.token_urlsafe())'"
    ),
    "WEB_LINK_HOURS": "set how many hours a link lasts, more than 0 and at most 720",
    "WEB_BASE_URL": "set the page's address as people reach it, e.g. https://lastgasp.example.com/",
    "WEB_RATE_LIMIT": "set page requests per address as count/seconds, e.g. 120/1m, or off",
    "WEB_FORWARDED": "set true behind a reverse proxy that sets X-Forwarded-For, else false",
}


def describe_settings_error(error: ValidationError) -> str:
    """`HEALTH_PORT: 'http' is not a whole number; set a free port number (0 picks any), or
    unset it` for each wrong setting, separated by ` | `: pydantic's report, for people."""
    problems = []
    for item in error.errors():
        name, what = _setting_and_problem(item)
        said = isinstance((item.get("ctx") or {}).get("error"), SaysTheFix)
        fix = None if said else FIXES.get(name)
        problems.append(f"{name}: {what}" + (f"; {fix}" if fix else ""))
    return " | ".join(problems)


def _setting_and_problem(item: Any) -> tuple[str, str]:
    kind, ctx, value = item["type"], item.get("ctx") or {}, item.get("input")
    if kind == "value_error":
        what = str(ctx.get("error", item["msg"]))
    elif kind in ("int_parsing", "int_from_float", "int_type"):
        what = f"{value!r} is not a whole number"
    elif kind == "greater_than_equal":
        what = f"{value} is less than {ctx['ge']}"
    elif kind == "less_than_equal":
        what = f"{value} is more than {ctx['le']}"
    elif kind == "literal_error":
        what = f"{value!r} is not {ctx['expected']}"
    else:
        what = item["msg"]
    if item["loc"]:
        field = str(item["loc"][0])
        return ENV_NAMES.get(field, field.upper()), what
    # A check of several settings together names the setting it blames first.
    name, _, rest = what.partition(" ")
    return (name, rest) if name in FIXES else ("settings", what)


def sqlite_path(database_url: str) -> Path | None:
    """The file of an SQLite DATABASE_URL (relative to the working directory); None for
    PostgreSQL or an in-memory database."""
    url = make_url(database_url)
    name = url.database
    if url.get_backend_name() != "sqlite" or not name or name == ":memory:":
        return None
    if name.startswith("file:"):  # a URI filename: SQLite reads it, not a path
        return None
    return Path(name)
