"""create_bot and the settings: intents, the database's lifecycle, the random source."""

from __future__ import annotations

import random

import discord
import pytest

from bot.app import EXTENSIONS, create_bot
from bot.config import DEFAULT_DATABASE_URL, Settings
from bot.offline import OfflineDriver


def test_the_bot_asks_for_guilds_only():
    bot = create_bot("sqlite+aiosqlite:///:memory:")
    assert bot.intents == discord.Intents(guilds=True)
    assert not bot.intents.message_content and not bot.intents.members
    assert bot.allowed_mentions.to_dict() == {"parse": []}
    assert isinstance(bot.rng, random.SystemRandom)


async def test_setup_connects_migrates_loads_and_close_disposes(tmp_path):
    rng = random.Random(3)
    bot = create_bot(f"sqlite+aiosqlite:///{tmp_path / 'a.db'}", rng=rng)
    with pytest.raises(RuntimeError, match="setup_hook"):
        bot.db  # noqa: B018 - not connected before setup
    driver = OfflineDriver(bot)
    await driver.start()
    assert bot.rng is rng
    assert set(EXTENSIONS) == set(bot.extensions)
    async with bot.db.transaction(1, read_only=True) as uow:
        assert await uow.characters() == []  # migrated: the tables exist
    await driver.close()
    with pytest.raises(RuntimeError):
        bot.db  # noqa: B018 - disposed on close


def test_settings_read_the_environment(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    for name in ("DISCORD_TOKEN", "DATABASE_URL", "DEV_GUILD_ID", "LOG_LEVEL", "LASTGASP_SEED"):
        monkeypatch.delenv(name, raising=False)
    assert Settings().database_url == DEFAULT_DATABASE_URL
    assert Settings().discord_token is None
    monkeypatch.setenv("DISCORD_TOKEN", "  ")
    monkeypatch.setenv("DEV_GUILD_ID", "42")
    monkeypatch.setenv("LOG_LEVEL", "debug")
    monkeypatch.setenv("LASTGASP_SEED", "7")
    settings = Settings()
    assert settings.discord_token is None  # blank means unset
    assert (settings.dev_guild_id, settings.log_level, settings.seed) == (42, "DEBUG", 7)


def test_settings_read_a_dotenv_file(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("DISCORD_TOKEN", raising=False)
    monkeypatch.delenv("DATABASE_URL", raising=False)
    (tmp_path / ".env").write_text("DISCORD_TOKEN=abc\nDATABASE_URL=sqlite+aiosqlite:///x.db\n")
    settings = Settings()
    assert (settings.discord_token, settings.database_url) == ("abc", "sqlite+aiosqlite:///x.db")


@pytest.mark.parametrize(
    ("guild_id", "path", "said"),
    [
        (None, "/applications/{application_id}/commands", "globally"),
        (123, "/applications/{application_id}/guilds/{guild_id}/commands", "to server 123"),
    ],
)
async def test_sync_registers_the_tree(
    tmp_path, monkeypatch, capsys, spec_validator, guild_id, path, said
):
    """`python -m bot sync [--guild ID]`, with login replaced by the offline driver."""
    import bot.app
    from bot import cli

    drivers: list[OfflineDriver] = []
    real_create_bot = bot.app.create_bot

    def offline_bot(database_url, rng=None):
        made = real_create_bot(database_url, rng)
        driver = OfflineDriver(made)
        drivers.append(driver)

        async def login(token):
            assert token == "t0ken"
            await driver.start()

        made.login = login
        return made

    monkeypatch.setattr(bot.app, "create_bot", offline_bot)
    settings = Settings(
        discord_token="t0ken", database_url=f"sqlite+aiosqlite:///{tmp_path / 's.db'}"
    )
    try:
        assert await cli.sync(settings, guild_id) == 0
    finally:
        await drivers[0].close()  # the bot is closed already; this undoes the HTTP patch
    [request] = [r for r in drivers[0].requests if r.method == "PUT"]
    assert request.path == path
    spec_validator.check(request)
    assert {c["name"] for c in request.payload} >= {"damage", "odds", "breakdown"}
    assert said in capsys.readouterr().out
