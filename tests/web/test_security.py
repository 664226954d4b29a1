"""The campaign page lets nobody in where they do not belong (issue 18 item 4). Each test is the
case of one guard, and fails without it:

- a tampered link (signature: bot/web/links.py) · an expired one (max_age: links.py) · a revoked
  one (the generation: bot/services/web.py `_admit`) · one of another server (the server of
  the page: bot/web/guard.py `read_link`): 403, a page that says to ask `/web` again, and
  nothing of any server;
- no id in a URL reaches another server's data (every read scoped to the link's guild:
  bot/db, and a board only of a channel of this guild: services/web.py `board`; a recap only
  of this guild's recaps: bot/db/recaps.py `marker_by_id`);
- hostile names render literally (Jinja2's autoescape: bot/web/app.py `templates`);
- every request is bounded: per address (guard.py RateGuard), live connections (live.py), page
  sizes (services/web.py);
- nothing on the page writes (GET routes only: pages.py), and every answer carries the
  Content-Security-Policy and its headers (app.py `_headers`).
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import aiohttp
from yarl import URL

from bot.offline import Member
from bot.services import sheet as sheet_service
from bot.services.context import Caller
from bot.web.guard import COOKIE, CSP
from bot.web.links import Links
from tests.discord.test_hostile_text import NAMES, TEXTS
from tests.web.conftest import SECRET, Client, Page, Site, serving
from tests.web.pages_html import parse

LINK_STYLE = 5  # Discord's link button
NAME_TABLE = "The Table"  # the harness's guild; the other is "Elsewhere"
ASK_AGAIN = "/web"


def token_of(link: str) -> str:
    return link.rsplit("/login/", 1)[1]


def forge(client: Client, site: Site, guild_id: int, token: str) -> None:
    """The cookie a browser would send to that server's pages, set by hand."""
    client.session.cookie_jar.update_cookies(
        {COOKIE: token}, URL(f"{site.base}servers/{guild_id}/")
    )


def assert_refused(page: Page, *words: str) -> None:
    """403, says what to do (ask /web again) and shows nothing of any server."""
    assert page.status == 403, page.text
    text = parse(page.text).text
    assert ASK_AGAIN in text, text
    for word in words:
        assert word in text, f"{word!r} not in {text!r}"
    for secret in ("Roryn", "Ash", NAME_TABLE, "Elsewhere", "Alice", "Mallory"):
        assert secret not in page.text, f"{secret!r} shown on a refusal"
    assert "Set-Cookie" not in page.headers


async def _delete(site: Site, name: str, guild: Any, gm: Member) -> int:
    row = await site.h.row(name, guild=guild)
    caller = Caller(guild.id, guild.channel_id, gm.user_id, manage_guild=True)
    await sheet_service.delete_character(site.h.db, caller, row.id)
    return row.id


# --- the link ---------------------------------------------------------------------------------


async def test_a_tampered_link_opens_nothing(site: Site) -> None:
    h = site.h
    await h.add_character("Roryn", logged=True)
    link = await site.link(h.owner)
    token = token_of(link)
    payload, stamp, signature = token.rsplit(".", 2)  # a compressed payload starts with "."
    other = Links("another secret, also long enough to be one", hours=24, base_url=site.base)
    forged = other.token(h.bot.web_links.read(token))  # the same link, another secret
    flipped = "A" if payload[5] != "A" else "B"  # a byte of the payload, never its "." mark
    variants = [
        payload[:5] + flipped + payload[6:] + f".{stamp}.{signature}",  # a changed byte
        f"{payload}.{stamp}.{signature[:-2]}",  # cut short
        f"{payload}.{stamp}." + ("A" * len(signature)),  # a made-up signature
        forged,
        "not-a-link-at-all",
    ]
    for variant in variants:
        assert_refused(await site.client().get(f"{site.base}login/{variant}"), "not one the bot")
    # The same, kept as the server's cookie
    client = site.client()
    forge(client, site, h.guild.id, variants[0])
    assert_refused(await client.get(f"{site.base}servers/{h.guild.id}/"), "not one the bot")
    # The link itself opens the page
    page = await site.client().get(link)
    assert page.status == 200 and "Roryn" in page.text


async def test_an_expired_link_opens_nothing(site: Site) -> None:
    h = site.h
    await h.add_character("Roryn")
    made = h.bot.clock()
    h.bot.clock = lambda: made
    link = await site.link(h.owner)
    client = site.client()
    page = await client.get(link)
    assert page.status == 200 and "Roryn" in page.text
    h.bot.clock = lambda: made + timedelta(hours=24) - timedelta(seconds=2)
    assert (await page.get("")).status == 200  # still within its 24 hours
    h.bot.clock = lambda: made + timedelta(hours=24, seconds=2)
    assert_refused(await page.get(""), "expired", "24 hours")
    assert_refused(await site.client().get(link), "expired")
    h.bot.clock = lambda: made  # a new link then works
    assert (await site.client().get(await site.link(h.owner))).status == 200


async def test_a_revoked_link_opens_nothing(any_site: Site) -> None:
    site = any_site
    h = site.h
    await h.add_character("Roryn")
    first = await site.link(h.owner)
    bobs = await site.link(h.player)
    client = site.client()
    page = await client.get(first)
    assert page.status == 200
    before = await h.snapshot()
    result = await h.run(h.owner, "web", revoke=True)
    assert result.reply.ephemeral and "ended" in result.card.body
    after = await h.snapshot()
    assert {t for t in before if before[t] != after[t]} == {"web_links"}  # nothing else
    assert_refused(await page.get(""), "/web revoke")
    assert_refused(await site.client().get(first), "/web revoke")
    # Another member's links stand; a new link of Alice's opens the page
    assert (await site.client().get(bobs)).status == 200
    assert (await site.client().get(await site.link(h.owner))).status == 200


async def test_a_link_of_another_server_opens_nothing_there(site: Site) -> None:
    h = site.h
    await h.add_character("Roryn")
    await h.add_character("Ash", owner=h.outsider)
    theirs = await site.link(h.outsider)
    page = await site.client().get(theirs)
    assert page.status == 200 and page.url.path == f"/servers/{h.other_guild.id}/"
    assert "Ash" in page.text and "Roryn" not in page.text  # their own server only
    client = site.client()
    forge(client, site, h.guild.id, token_of(theirs))
    assert_refused(await client.get(f"{site.base}servers/{h.guild.id}/"), "another server")
    row = await h.row("Roryn")
    assert_refused(
        await client.get(f"{site.base}servers/{h.guild.id}/characters/{row.id}"), "another server"
    )
    # …and the other way round
    ours = await site.link(h.owner)
    client = site.client()
    forge(client, site, h.other_guild.id, token_of(ours))
    assert_refused(await client.get(f"{site.base}servers/{h.other_guild.id}/"), "another server")


async def test_a_page_without_its_link_opens_nothing(site: Site) -> None:
    await site.h.add_character("Roryn")
    page = await site.client().get(f"{site.base}servers/{site.h.guild.id}/")
    assert_refused(page, "type /web")


# --- ids ----------------------------------------------------------------------------------


async def test_no_id_in_a_url_reaches_another_server(any_site: Site) -> None:
    site = any_site
    h = site.h
    await h.add_character("Roryn", logged=True)
    ash = await h.add_character("Ash", owner=h.outsider, guild=h.other_guild, logged=True)
    assert ash.name == "Ash"
    await h.update("Ash", vit=-1, guild=h.other_guild)  # down: it has odds
    ash_id = (await h.row("Ash", guild=h.other_guild)).id
    await h.add_character("Gone", owner=h.outsider, guild=h.other_guild, logged=True)
    gone_id = await _delete(site, "Gone", h.other_guild, h.outsider)
    await h.run(h.outsider, "board start")  # a board in the other server's channel
    page = await site.open(h.gm)  # the GM of The Table: it reaches every id of its own
    assert page.status == 200
    for path in (
        f"characters/{ash_id}",
        f"characters/{ash_id}/odds.png",
        f"characters/{ash_id}?all=1",
        f"characters/{gone_id}",
        f"boards/{h.other_guild.channel_id}",
        f"boards/{h.other_guild.channel_id}/live",
        f"characters/{2**40}",
        f"characters/{10**19}",
        f"boards/{2**64}",
        "characters/0",
    ):
        found = await page.get(path)
        assert found.status == 404, (path, found.status, found.text[:300])
        for word in ("Ash", "Gone", "Elsewhere"):
            assert word not in found.text, (path, word)
    # …and the other server sees its own
    theirs = await site.open(h.outsider)
    assert "Ash" in (await theirs.get(f"characters/{ash_id}")).text
    assert (await theirs.get(f"boards/{h.other_guild.channel_id}")).status == 200


async def test_a_recap_of_another_server_is_not_found(any_site: Site) -> None:
    """Recaps are the whole table's (anyone of the server may run /recap), so any link of the
    server opens them: but an id of another server's recap is "not found", the same page as
    any id this server does not have, and so is an event of this server that is no recap."""
    site = any_site
    h = site.h
    await h.add_character("Roryn", vit=2, logged=True)
    await h.add_character("Ash", owner=h.outsider, guild=h.other_guild, vit=2)
    await h.run(h.outsider, "damage", character="Ash", amount=2)
    await h.run(h.outsider, "recap")
    [theirs] = await h.events("recap", guild=h.other_guild)
    await h.run(h.owner, "damage", character="Roryn", amount=1)
    await h.run(h.player, "recap")
    [ours] = await h.events("recap")
    [created] = await h.events("character create")  # an event of ours, no recap
    page = await site.open(h.player)  # a player: recaps need no GM
    assert (await page.get(f"recaps/{ours.id}")).status == 200
    assert (await page.get(f"recaps/{ours.id}/recap.png")).status == 200
    nowhere = await page.get(f"characters/{2**40}")
    assert nowhere.status == 404
    for path in (
        f"recaps/{theirs.id}",
        f"recaps/{theirs.id}/recap.png",
        f"recaps/{created.id}",
        f"recaps/{created.id}/recap.png",
        f"recaps/{2**40}",
        "recaps/0",
    ):
        found = await page.get(path)
        assert found.status == 404, (path, found.status)
        assert found.text == nowhere.text, path  # the same "not found" as any other id
        assert "Ash" not in found.text and "Elsewhere" not in found.text
    listed = parse((await page.get("recaps")).text).text
    assert f"recaps/{theirs.id}" not in (await page.get("recaps")).text
    assert "Ash" not in listed
    # …and the other server reads its own
    other = await site.open(h.outsider)
    assert "Ash" in parse((await other.get(f"recaps/{theirs.id}")).text).text
    assert (await other.get(f"recaps/{ours.id}")).status == 404


# --- hostile names ----------------------------------------------------------------------------

HTML_NAMES = [
    "<script>alert(1)</script>",
    '"><img src=x onerror=alert(2)>',
    "{{ 7*7 }} & {% raw %}",
    "</li></ul><h1>X</h1>",
    "' onmouseover='alert(3)",
    "&lt;b&gt;",
]


async def test_hostile_names_render_literally(site: Site) -> None:
    h = site.h
    names = [*HTML_NAMES, *NAMES[:6]]
    ids = {}
    for name in names:
        await h.add_character(name, logged=True)
        ids[name] = (await h.row(name)).id
    first = names[0]
    await h.run(h.owner, "spend", character=first, amount=1, reason=HTML_NAMES[1])
    await h.run(h.owner, "react", character=first, what=TEXTS[0])
    await h.run(h.owner, "damage", character=first, amount=10)  # a fall: the recap's highlight
    await h.run(h.gm, "board start")
    await h.run(h.player, "recap")
    [recap] = await h.events("recap")
    eve = h.member('<b>Eve</b> & "Co"')
    page = await site.open(eve)
    pages = [
        page,
        await page.get(f"characters/{ids[first]}"),
        await page.get(f"boards/{h.guild.channel_id}"),
    ]
    owner_page = await site.open(h.owner)
    pages.append(await owner_page.get(f"characters/{ids[first]}"))  # with its history
    pages.append(await page.get(f"recaps/{recap.id}"))  # every character, in the story
    for found in pages:
        assert found.status == 200, found.text
        parsed = parse(found.text)
        lists = (pages[0], pages[2], pages[4])
        shown = names if found in lists else [first]  # a list, or one sheet
        for name in shown:
            assert any(name in text for text in parsed.texts), name
        for element in parsed.elements:
            assert not any(a.startswith("on") for a in element.attrs), element
        assert len(parsed.all("h1")) == 1  # the page's own heading, no name's
        assert [e.attrs.get("src") for e in parsed.scripts if not e.attrs.get("src")] == []
        assert all(not s.text.strip() for s in parsed.scripts)  # no inline script at all
        for raw in ("<script>alert", "<img src=x", "<h1>X</h1>", "' onmouseover='"):
            assert raw not in found.text, raw
    assert "<b>Eve</b> &amp; &#34;Co&#34;" not in page.text
    assert "&lt;b&gt;Eve&lt;/b&gt;" in page.text
    told = parse(pages[4].text).text
    assert f"The session's highlight: {first} falls: Up → Unconscious at VIT 0." in told
    [chart] = [e for e in parse(pages[4].text).all("img") if "recap.png" in str(e.attrs["src"])]
    assert names[0] in str(chart.attrs["alt"])  # the alt text names them, as typed
    history = parse(pages[3].text).text
    assert f"for “{HTML_NAMES[1]}”" in history and f"for “{TEXTS[0]}”" in history


# --- bounds ------------------------------------------------------------------------------------


async def test_each_address_is_held_to_its_rate(tmp_path, spec_validator) -> None:
    from bot.limits import RateLimit

    url = f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}"
    async with serving(url, spec_validator, rate_limit=RateLimit(5, 60), forwarded=True) as site:
        h = site.h
        await h.add_character("Roryn")
        link = await site.link(h.owner)
        client = site.client()
        one = {"X-Forwarded-For": "198.51.100.9, 203.0.113.1"}  # the proxy saw …113.1
        pages = [await client.get(link, headers=one)]  # the link and its redirect: 2
        for _ in range(3):
            pages.append(await client.get(f"{site.base}static/site.css", headers=one))
        assert [p.status for p in pages] == [200] * 4
        slowed = await client.get(f"{site.base}servers/{h.guild.id}/", headers=one)
        assert slowed.status == 429 and int(slowed.headers["Retry-After"]) >= 1
        assert "wait" in parse(slowed.text).text and "Roryn" not in slowed.text
        # another client address goes on
        two = {"X-Forwarded-For": "198.51.100.9, 203.0.113.2"}
        assert (await client.get(f"{site.base}servers/{h.guild.id}/", headers=two)).status == 200


async def test_pages_are_bounded(site: Site) -> None:
    h = site.h
    for i in range(61):
        await h.add_character(f"Hero {i:02d}")
    page = await site.open(h.owner)
    assert parse(page.text).text.count("Hero ") == 60 and "Hero 60" not in page.text
    second = await page.get("?page=2")
    assert "Hero 60" in second.text and parse(second.text).text.count("Hero ") == 1
    assert (await page.get("?page=3")).status == 404
    for bad in ("?page=0", "?page=abc", "?page=99999999999", "?page=-1"):
        assert (await page.get(bad)).status == 400, bad
    # History: 50 events a page, then the older ones
    row = await h.row("Hero 00")
    for _ in range(26):
        await h.run(h.owner, "damage", character="Hero 00", amount=1)
        await h.run(h.owner, "heal", character="Hero 00", amount=1)
    found = await page.get(f"characters/{row.id}")
    assert found.text.count('<li class="event') == 50 and "Older →" in found.text
    oldest = [e for e in parse(found.text).all("a") if e.attrs.get("href", "").count("before=")]
    older = await found.follow(str(oldest[0].attrs["href"]))
    assert older.text.count('<li class="event') == 2 and "Older →" not in older.text
    for bad in ("?before=x", "?before=-3", f"?before={2**40}", "?all=yes"):
        assert (await page.get(f"characters/{row.id}{bad}")).status == 400, bad


async def test_live_connections_are_bounded(tmp_path, spec_validator) -> None:
    url = f"sqlite+aiosqlite:///{tmp_path / 'lastgasp.db'}"
    live = {"limit": 2, "per_address": 2}
    async with serving(url, spec_validator, live=live) as site:
        h = site.h
        await h.add_character("Roryn")
        await h.run(h.gm, "board start")
        page = await site.open(h.gm)
        stream = f"{site.base}servers/{h.guild.id}/boards/{h.guild.channel_id}/live"
        session = page.client.session
        first = await session.get(stream)
        second = await session.get(stream)
        assert first.status == second.status == 200
        third = await session.get(stream)  # its status first: a stream would never end
        assert third.status == 503
        assert "Too many live boards" in await third.text()
        first.close()
        for _ in range(50):  # the server notices the closed connection
            if site.server.live.open < 2:
                break
            await _sleep(0.05)
        fourth = await session.get(stream)
        assert fourth.status == 200
        second.close()
        fourth.close()


async def _sleep(seconds: float) -> None:
    import asyncio

    await asyncio.sleep(seconds)


# --- read only, locked down ----------------------------------------------------------------


async def test_nothing_on_the_page_writes(any_site: Site) -> None:
    site = any_site
    h = site.h
    await h.add_character("Roryn", vit=-1, logged=True)
    await h.run(h.gm, "board start")
    await h.run(h.player, "recap")
    [recap] = await h.events("recap")
    row = await h.row("Roryn")
    link = await site.link(h.gm)
    before = await h.snapshot()
    page = await site.client().get(link)
    paths = [
        "",
        f"characters/{row.id}",
        f"characters/{row.id}?all=1",
        f"characters/{row.id}/odds.png",
        f"boards/{h.guild.channel_id}",
        "recaps",
        f"recaps/{recap.id}",  # viewing a recap logs no recap: the next /recap is unmoved
        f"recaps/{recap.id}/recap.png",
    ]
    for path in paths:
        assert (await page.get(path)).status == 200, path
    session = page.client.session
    for path in [*paths, f"boards/{h.guild.channel_id}/live"]:
        url = f"{site.base}servers/{h.guild.id}/{path}"
        for method in ("POST", "PUT", "PATCH", "DELETE"):
            async with session.request(method, url, data=b"vit=10") as response:
                assert response.status == 405, (method, path)
                assert response.headers["Allow"] == "GET, HEAD"
    async with session.post(link) as response:
        assert response.status == 405
    assert await h.snapshot() == before


async def test_every_answer_carries_the_policy(site: Site) -> None:
    h = site.h
    await h.add_character("Roryn", vit=-1, logged=True)
    await h.run(h.gm, "board start")
    await h.run(h.player, "recap")
    [recap] = await h.events("recap")
    row = await h.row("Roryn")
    client = site.client()
    async with client.session.get(await site.link(h.gm), allow_redirects=False) as login:
        assert login.status == 303
        cookie = login.cookies[COOKIE]
        assert cookie["path"] == f"/servers/{h.guild.id}/"
        assert cookie["httponly"] and cookie["samesite"] == "Lax"
        assert 0 < int(cookie["max-age"]) <= 24 * 3600
        assert login.headers["Content-Security-Policy"] == CSP
        assert login.headers["Referrer-Policy"] == "no-referrer"
    base = f"{site.base}servers/{h.guild.id}/"
    answers = {
        "campaign": await client.get(base),
        "character": await client.get(f"{base}characters/{row.id}"),
        "board": await client.get(f"{base}boards/{h.guild.channel_id}"),
        "odds": await client.get(f"{base}characters/{row.id}/odds.png"),
        "recaps": await client.get(f"{base}recaps"),
        "recap": await client.get(f"{base}recaps/{recap.id}"),
        "recap chart": await client.get(f"{base}recaps/{recap.id}/recap.png"),
        "404": await client.get(f"{base}nowhere"),
        "403": await site.client().get(base),
        "home": await client.get(site.base),
        "css": await client.get(f"{site.base}static/site.css"),
    }
    for name, answer in answers.items():
        headers = answer.headers
        assert headers["Content-Security-Policy"] == CSP, name
        assert headers["X-Content-Type-Options"] == "nosniff", name
        assert headers["X-Frame-Options"] == "DENY", name
        private = name not in ("css",)
        assert (headers["Cache-Control"] == "no-store") is private, name
        if answer.text and "html" in headers["Content-Type"]:
            parsed = parse(answer.text)
            assert all(not s.text.strip() for s in parsed.scripts), name  # no inline script
            for element in parsed.elements:
                assert "style" not in element.attrs, (name, element)
                for attr in ("src", "href"):
                    value = element.attrs.get(attr)
                    if value is not None:
                        assert value.startswith(("/", "?", "#")), (name, element)
    assert "script-src 'self'" in CSP and "unsafe" not in CSP


async def test_web_answers_privately_and_says_when_the_page_is_off(site: Site) -> None:
    h = site.h
    result = await h.run(h.owner, "web")
    reply = result.reply
    assert reply.ephemeral and reply.layout
    assert "24 hours" in reply.card.body and "/web revoke:true" in reply.card.body
    [button] = reply.card.buttons  # a link button: no preview of the link is made
    assert button.custom_id.startswith(f"{site.base}login/") and button.style == LINK_STYLE
    h.bot.web_links = None
    before = await h.snapshot()
    refused = await h.run(h.owner, "web")
    assert refused.reply.ephemeral and "not turned on" in refused.card.body
    assert "WEB_SECRET" in refused.card.body
    assert await h.snapshot() == before


async def test_a_members_page_shows_what_discord_shows_them(site: Site) -> None:
    """P-4: a character's history is its owner's and the GM's (as /history); a deleted
    character's is the GM's; P-1: the GM by its role, as the settings say now."""
    h = site.h
    await h.add_character("Roryn", logged=True)
    await h.run(h.owner, "damage", character="Roryn", amount=2)
    await h.add_character("Gone", owner=h.player, logged=True)
    gone_id = await _delete(site, "Gone", h.guild, h.gm)
    row = await h.row("Roryn")
    readers = {
        "owner": await site.open(h.owner),
        "player": await site.open(h.player),
        "gm": await site.open(h.gm),
    }
    for who, page in readers.items():
        found = await page.get(f"characters/{row.id}")
        text = parse(found.text).text
        assert "VIT 8/10" in text  # anyone reads the sheet (P-2)
        assert ("VIT 10 → 8" in text) is (who != "player"), who
        assert ("for its owner and the GM" in text) is (who == "player"), who
        assert ("Deleted characters" in parse(page.text).text) is (who == "gm"), who
        deleted = await page.get(f"characters/{gone_id}")
        assert deleted.status == (200 if who == "gm" else 404), who
    assert "Created." in parse((await readers["gm"].get(f"characters/{gone_id}")).text).text
    # The GM role: GM while the settings name its role, not once they name another
    await h.settings(gm_role_id=h.guild.roles["GM"])
    rolf = await site.open(h.gm_role)
    assert "the GM's view" in parse(rolf.text).text
    await h.settings(gm_role_id=999)
    assert "the GM's view" not in parse((await rolf.get("")).text).text


def test_the_link_carries_no_secret() -> None:
    """What a link says is signed, not hidden: it holds ids and names, never the secret."""
    links = Links(SECRET, hours=24, base_url="https://example.org/")
    from bot.web.links import Link

    link = Link(1, 2, 0, True, None, "The Table", "Alice")
    token = links.token(link)
    assert SECRET not in token
    data = links._serializer.loads_unsafe(token)[1]  # read without the signature
    assert data == [1, 2, 0, 1, None, "The Table", "Alice"]
    assert links.read(token).guild_id == 1


_ = aiohttp  # the clients are aiohttp's (tests/web/conftest.py)
