"""The campaign page in a real browser (issue 18 item 5): headless Chromium (Debian's
`chromium`, driven by Playwright for Python, never a browser of Playwright's own) opens the link
`/web` made through the command tree, and reads what a person sees; the live board shows a
`/damage` within 3 s, and says so when the board ends; every page is screenshot at 390 px and
1280 px wide on the light and the dark theme (into WEB_SCREENSHOTS, default
`.web-screenshots/`, ignored by git), and checked by axe-core: no serious or critical
violation, on either theme. No script of the page's own breaks the Content-Security-Policy, and
the page reads without JavaScript.

Skipped, saying why, where Chromium is absent (CHROMIUM names another binary than
/usr/bin/chromium); the axe checks skip where npm is absent (tests/web/axe.py packs it).
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from bot.render.common import STATE_MARKS
from bot.web import pages
from tests.web.axe import axe_source
from tests.web.conftest import Site

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
if not os.access(CHROMIUM, os.X_OK):
    pytest.skip(
        f"no Chromium at {CHROMIUM} (apt-get install chromium, or set CHROMIUM): the browser "
        "tests of the campaign page are skipped",
        allow_module_level=True,
    )
playwright_api = pytest.importorskip(
    "playwright.async_api", reason="Playwright for Python is not installed (the test extra)"
)

ROOT = Path(__file__).resolve().parents[2]
SHOTS = Path(os.environ.get("WEB_SCREENSHOTS") or ROOT / ".web-screenshots")
FLAGS = [  # what works on this project's machines (no sandbox as root, no GPU, no QUIC)
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WIDTHS = (390, 1280)
THEMES = ("light", "dark")
DEADLINE_MS = 3000


@pytest.fixture
async def browser() -> AsyncIterator[Any]:
    async with playwright_api.async_playwright() as playwright:
        # Playwright gives each launch a fresh profile (--user-data-dir) of its own.
        chromium = await playwright.chromium.launch(executable_path=CHROMIUM, args=FLAGS)
        try:
            yield chromium
        finally:
            await chromium.close()


BRANN = "<b>Brann</b> & [x](https://e.co)"  # a hostile name, shown as typed


async def _table(site: Site) -> dict[str, int]:
    """A table in play: characters in every state, a combat with its board, a history with
    dice (an advantage reroll among them), one down with odds, a hostile name, a recap of it
    all; the character ids by name."""
    h = site.h
    await h.add_character("Roryn", vit=2, stress=1, logged=True)
    await h.add_character("Kestrel", vit=-1, logged=True)  # Critical: its odds
    await h.add_character("Sera", owner=h.player, logged=True)
    await h.add_character("Old Tam", vit=-11, dead=True)
    await h.add_character(BRANN, owner=h.player, vit=5, fear=3, logged=True)
    await h.start_combat(["Roryn", "Sera"])
    await h.run(h.owner, "damage", character="Roryn", amount=2)  # Unconscious: 2 dice (RES)
    await h.run(h.player, "aid", character="Roryn", success=True)  # advantage (F-1)
    h.script("M C C")  # the Miss rerolled (D-3)
    await h.run(h.gm, "recover", character="Roryn")
    await h.run(h.owner, "turn", character="Roryn")  # bookkeeping (U-2)
    await h.run(h.gm, "board start")
    await h.run(h.player, "recap")  # Roryn wakes on 2 Crits: the highlight, with its dice
    names = ["Roryn", "Kestrel", "Sera", "Old Tam", BRANN]
    return {name: (await h.row(name)).id for name in names}


class Watch:
    """What the browser says while a page is open: CSP violations and failed requests."""

    def __init__(self, page: Any) -> None:
        self.problems: list[str] = []
        page.on("console", self._console)
        page.on("requestfailed", lambda r: self.problems.append(f"failed: {r.url}"))
        page.on("pageerror", lambda e: self.problems.append(f"error: {e}"))

    def _console(self, message: Any) -> None:
        if message.type in ("error", "warning"):
            self.problems.append(f"console {message.type}: {message.text}")

    @property
    def broken(self) -> list[str]:
        """What no page may cause: a breach of its Content-Security-Policy, a script error.
        (A refusal's 403 and a 404 are logged as failed loads, and leaving a live board aborts
        its stream: those are meant.)"""
        return [p for p in self.problems if "Content Security Policy" in p or p.startswith("error")]


async def _open(browser: Any, width: int, theme: str, **options: Any) -> tuple[Any, Any, Watch]:
    context = await browser.new_context(
        viewport={"width": width, "height": 900}, color_scheme=theme, **options
    )
    page = await context.new_page()
    return context, page, Watch(page)


async def test_a_player_reads_the_campaign_in_the_browser(browser: Any, site: Site) -> None:
    ids = await _table(site)
    h = site.h
    context, page, watch = await _open(browser, 1280, "light")
    try:
        await page.goto(await site.link(h.player))
        assert await page.title() == "The Table · Last Gasp"
        assert await page.get_by_role("heading", level=1).inner_text() == "The Table: the campaign"
        expected = []
        for name in ids:
            sheet = await h.sheet(name)
            expected.append(f"{STATE_MARKS[sheet.state]} {name}")
        assert sorted(await page.locator(".card h3").all_inner_texts()) == sorted(expected)
        assert "Your link, Bob" in await page.inner_text("header")
        await page.get_by_role("link", name="Kestrel").click()
        main = await page.inner_text("main")
        assert "VIT -1/10" in main and "Odds" in main  # anyone reads the sheet and the odds
        assert "Its history is for its owner and the GM" in main  # Bob is not its owner
        await page.go_back()
        await page.get_by_role("link", name=BRANN).click()
        assert await page.get_by_role("heading", level=1).inner_text() == f"🟢 {BRANN}"
        assert "Created." in await page.inner_text("#history ~ ol")  # his own: its history
        assert page.url.endswith(f"/characters/{ids[BRANN]}")
        assert watch.broken == []
    finally:
        await context.close()


async def test_the_history_shows_the_dice_and_the_odds_chart(browser: Any, site: Site) -> None:
    ids = await _table(site)
    context, page, watch = await _open(browser, 1280, "dark")
    try:
        await page.goto(await site.link(site.h.owner))
        server = page.url
        await page.goto(f"{server}characters/{ids['Roryn']}")
        dice = page.locator(".event img.die")
        alts = await dice.evaluate_all("imgs => imgs.map(i => i.alt)")
        assert alts == ["Miss rerolled", "Crit", "Crit"]  # M rerolled to C, then C (D-3, D-4)
        drawn = await dice.evaluate_all("imgs => imgs.map(i => i.complete && i.naturalWidth)")
        assert drawn == [128, 128, 128]  # the emoji's own pictures, loaded
        assert "/turn" not in await page.inner_text("main")
        await page.get_by_role("link", name="Show bookkeeping too").click()
        assert "/turn bookkeeping" in await page.inner_text("main")  # on demand
        await page.goto(f"{server}characters/{ids['Kestrel']}")
        chart = page.locator(".chart img")
        assert await chart.evaluate("img => img.complete && img.naturalWidth") == 800
        rows = await page.locator(".spiral tbody tr").count()
        assert rows == 10
        assert watch.broken == []
    finally:
        await context.close()


async def test_a_player_opens_a_recap_from_the_campaign(browser: Any, site: Site) -> None:
    ids = await _table(site)
    context, page, watch = await _open(browser, 390, "light")
    try:
        await page.goto(await site.link(site.h.player))
        recaps = page.locator("section", has=page.locator("#recaps"))
        await recaps.get_by_role("link", name="The last 24 hours").click()
        heading = await page.get_by_role("heading", level=1).inner_text()
        assert heading == "Recap · the last 24 hours"
        story = await page.inner_text(".recap-story")
        assert "The session's highlight: Roryn wakes up on 2 Crits, at VIT 2." in story
        dice = page.locator(".recap-story img.die")
        alts = await dice.evaluate_all("imgs => imgs.map(i => i.alt)")
        assert alts == ["Miss rerolled", "Crit", "Crit"]  # as its history shows them (D-3)
        chart = page.locator(".chart img")
        assert await _loaded_width(chart) == 1000
        assert (await chart.get_attribute("alt") or "").startswith("Chart of VIT")
        await page.get_by_role("link", name=BRANN).click()  # a character of the story
        assert page.url.endswith(f"/characters/{ids[BRANN]}")
        assert watch.broken == []
    finally:
        await context.close()


async def test_the_live_board_shows_a_damage_within_3_s(browser: Any, site: Site) -> None:
    await _table(site)
    h = site.h
    context, page, watch = await _open(browser, 390, "light")
    try:
        await page.goto(await site.link(h.player))
        await page.get_by_role("link", name="#table").click()
        status = page.locator("#live-status")
        await playwright_api.expect(status).to_have_text(
            "Live: kept current as the table plays.", timeout=DEADLINE_MS
        )
        board = page.locator("#board-body")
        await playwright_api.expect(board).to_contain_text("Round 1")
        sera = board.locator("li", has_text="Sera")
        assert "VIT 10/10" in await sera.inner_text()
        await h.run(h.player, "damage", character="Sera", amount=4)
        await playwright_api.expect(sera).to_contain_text("VIT 6/10", timeout=DEADLINE_MS)
        await h.run(h.gm, "board stop")  # the page says so, and keeps its last lines
        await playwright_api.expect(status).to_have_text(pages.BOARD_ENDED, timeout=DEADLINE_MS)
        assert "VIT 6/10" in await sera.inner_text()
        assert watch.broken == []
    finally:
        await context.close()


async def test_the_page_reads_without_javascript(browser: Any, site: Site) -> None:
    ids = await _table(site)
    h = site.h
    context, page, _ = await _open(browser, 390, "dark", java_script_enabled=False)
    try:
        await page.goto(await site.link(h.gm))
        assert "Roryn" in await page.inner_text(".cards")
        await page.goto(page.url + f"boards/{h.guild.channel_id}")
        assert "Round 1" in await page.inner_text("#board-body")
        assert "reload the page" in await page.inner_text("#live-status")
        server = page.url.split("/boards/")[0]
        await page.goto(server + f"/characters/{ids['Old Tam']}")
        assert "Dead" in await page.inner_text("main")
        await page.goto(server + "/")
        await page.get_by_role("link", name="The last 24 hours").click()  # the Recaps section
        assert "Roryn wakes up on 2 Crits" in await page.inner_text(".recap-story")
        chart = page.locator(".chart img")
        assert await _loaded_width(chart) == 1000
    finally:
        await context.close()


async def _loaded_width(img: Any) -> int:
    """A picture's width once it has loaded (0: it failed). A click does not wait for a page's
    pictures, as goto does: a recap's chart is drawn on request, slower on a busy machine."""
    return int(
        await img.evaluate(
            """img => img.complete ? img.naturalWidth : new Promise(done => {
                img.addEventListener('load', () => done(img.naturalWidth));
                img.addEventListener('error', () => done(0));
            })"""
        )
    )


async def _violations(page: Any, source: str) -> list[dict[str, Any]]:
    """axe-core run on the page as it is: the violations, serious and critical ones first."""
    if not await page.evaluate("() => typeof window.axe !== 'undefined'"):
        await page.evaluate(source)  # through the DevTools protocol: the page's CSP stands
    found: list[dict[str, Any]] = await page.evaluate(
        """async () => (await axe.run(document, {resultTypes: ['violations']})).violations
            .map(v => ({id: v.id, impact: v.impact, help: v.help,
                        targets: v.nodes.map(n => n.target.join(' '))}))"""
    )
    return found


async def test_every_page_on_a_phone_and_a_desktop_light_and_dark(browser: Any, site: Site) -> None:
    """Screenshots of every page at 390 px and 1280 px, light and dark, and axe-core on each:
    no serious or critical violation."""
    axe = axe_source()
    ids = await _table(site)
    h = site.h
    SHOTS.mkdir(parents=True, exist_ok=True)
    [recap] = await h.events("recap")
    link = await site.link(h.gm)
    serious: list[str] = []
    for theme in THEMES:
        for width in WIDTHS:
            context, page, watch = await _open(browser, width, theme)
            try:
                await page.goto(link)
                server = page.url
                pages = {
                    "campaign": server,
                    "character": f"{server}characters/{ids['Roryn']}",
                    "hostile": f"{server}characters/{ids[BRANN]}",
                    "odds": f"{server}characters/{ids['Kestrel']}",
                    "board": f"{server}boards/{h.guild.channel_id}",
                    "recap": f"{server}recaps/{recap.id}",
                    "recaps": f"{server}recaps",
                    "refused": f"{site.base}login/not-a-link",
                    "missing": f"{server}characters/99999",
                    "home": site.base,
                }
                for name, url in pages.items():
                    await page.goto(url)
                    if name == "board":
                        await playwright_api.expect(page.locator("#live-status")).to_contain_text(
                            "Live", timeout=DEADLINE_MS
                        )
                    await page.screenshot(
                        path=str(SHOTS / f"{name}-{width}-{theme}.png"), full_page=True
                    )
                    overflow = await page.evaluate(
                        "() => document.documentElement.scrollWidth - window.innerWidth"
                    )
                    assert overflow <= 0, f"{name} at {width} px scrolls sideways"
                    if axe.source is not None:
                        for v in await _violations(page, axe.source):
                            if v["impact"] in ("serious", "critical"):
                                serious.append(f"{name} {width}px {theme}: {v}")
                assert watch.broken == [], watch.broken
            finally:
                await context.close()
    assert serious == [], "\n".join(serious)
    if axe.source is None:
        pytest.skip(f"screenshots taken; axe-core not run: {axe.detail}")
