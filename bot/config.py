"""Settings from the environment or a `.env` file in the working directory."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///lastgasp.db"


class Settings(BaseSettings):
    """DISCORD_TOKEN, DATABASE_URL, DEV_GUILD_ID, LOG_LEVEL, LOG_FORMAT, SHARD_COUNT, SHARD_IDS,
    HEALTH_PORT, HEALTH_HOST (and LASTGASP_SEED for replays)."""

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
    # A fixed seed makes every roll of a session replayable (D-5); unset in play.
    seed: int | None = Field(default=None, validation_alias="LASTGASP_SEED")

    @field_validator(
        "discord_token",
        "dev_guild_id",
        "seed",
        "shard_count",
        "shard_ids",
        "health_port",
        mode="before",
    )
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("log_level")
    @classmethod
    def _level(cls, value: str) -> str:
        return value.strip().upper()

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
