"""Settings from the environment or a `.env` file in the working directory."""

from __future__ import annotations

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

DEFAULT_DATABASE_URL = "sqlite+aiosqlite:///lastgasp.db"


class Settings(BaseSettings):
    """DISCORD_TOKEN, DATABASE_URL, DEV_GUILD_ID, LOG_LEVEL (and LASTGASP_SEED for replays)."""

    model_config = SettingsConfigDict(env_file=".env", env_file_encoding="utf-8", extra="ignore")

    discord_token: str | None = None
    database_url: str = DEFAULT_DATABASE_URL
    dev_guild_id: int | None = None
    log_level: str = "INFO"
    # A fixed seed makes every roll of a session replayable (D-5); unset in play.
    seed: int | None = Field(default=None, validation_alias="LASTGASP_SEED")

    @field_validator("discord_token", "dev_guild_id", "seed", mode="before")
    @classmethod
    def _blank_is_unset(cls, value: object) -> object:
        return None if isinstance(value, str) and not value.strip() else value

    @field_validator("log_level")
    @classmethod
    def _level(cls, value: str) -> str:
        return value.strip().upper()
