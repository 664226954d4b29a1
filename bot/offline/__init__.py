"""Drive the bot without Discord: raw gateway payloads in, captured HTTP bodies out.

The bot is never logged in. `OfflineDriver` runs the bot's setup hooks, feeds GUILD_CREATE and
INTERACTION_CREATE payloads (built the way Discord's gateway documents them) to discord.py's own
parsers, so the real command tree parses options, runs checks and calls the cogs. Every HTTP
request the bot makes (interaction callbacks, followups, edits, command sync) is captured instead
of sent and answered with the JSON Discord would return. The tests, `python -m bot console` and
the benchmark use it.

    driver = OfflineDriver(bot)
    await driver.start()
    guild = driver.add_guild(GUILD_ID, roles={"GM": GM_ROLE_ID})
    alice = driver.member(guild, "Alice")
    result = await driver.invoke(alice, "damage", amount=3, character="Roryn")
    result.card.title; result.card.lines; result.reply.ephemeral; result.text()

The public API, beyond `invoke`, `autocomplete`, `click` and `dm`:

    payload = driver.payload(alice, "damage", amount=3)   # INTERACTION_CREATE, not sent
    payload = driver.payload(alice, "damage", focused="character", character="Ro")  # type 4
    driver.payload(alice, "damage", amount=Raw("three"))  # a value sent as it is, unchecked
    result = await driver.feed(payload)    # send it; wait for this interaction only
    sent = driver.send(payload)            # send it, return at once (a SentInteraction):
    message = await sent.reply             #   its reply once complete (None: it sent none)
    result = await sent.result()           #   or everything, once its tasks are done
    await driver.idle()                    # every interaction sent has finished
    OfflineDriver(bot, keep_history=False) # no `requests`/`messages` history (long runs)
    await driver.handle_webhook(route, payload=…)  # answer one webhook request as Discord would
    interaction_payload(member, kind, data, driver.application_id)  # any hand-made `data`

Modules: `payloads` (Guild, Member, the gateway payloads, option encoding), `messages` (the
captured Request, Message, Result), `driver` (OfflineDriver and the HTTP seam).
"""

from bot.offline.driver import TIMEOUT, OfflineDriver, SentInteraction
from bot.offline.messages import Message, Request, Result, describe
from bot.offline.payloads import (
    APP_PERMISSIONS,
    APPLICATION_ID,
    BOT_USER_ID,
    EPHEMERAL,
    MANAGE_GUILD,
    Attachment,
    Guild,
    Member,
    Raw,
    channel_payload,
    guild_create_payload,
    interaction_payload,
    member_payload,
    parse_bool,
    role_payload,
    snowflake,
    user_payload,
)

__all__ = [
    "APPLICATION_ID",
    "APP_PERMISSIONS",
    "BOT_USER_ID",
    "EPHEMERAL",
    "MANAGE_GUILD",
    "TIMEOUT",
    "Attachment",
    "Guild",
    "Member",
    "Message",
    "OfflineDriver",
    "Raw",
    "Request",
    "Result",
    "SentInteraction",
    "channel_payload",
    "describe",
    "guild_create_payload",
    "interaction_payload",
    "member_payload",
    "parse_bool",
    "role_payload",
    "snowflake",
    "user_payload",
]
