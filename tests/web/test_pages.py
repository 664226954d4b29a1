"""What the campaign page shows (issue 18 item 2), read from the real app over a socket and
compared with what the bot shows in Discord for the same data: the board's line on each card
and board, the sheet, the odds and their chart (the same picture as /odds'), every event of
the history with its dice as the die pictures the emoji are drawn from, bookkeeping on demand."""

from __future__ import annotations

import re

from bot.render.board import board_line
from bot.render.common import STATE_COLOURS
from bot.render.pictures import emoji_files
from bot.web import view
from rules.models import Emotion
from rules.rolls import NarateerRoll, NumericRoll
from tests.discord.conftest import history_entries
from tests.web.conftest import Page, Site
from tests.web.pages_html import parse


def lines_of(page: Page) -> list[str]:
    """Each board line's text, as read (markup and separators as a reader sees them)."""
    found = re.findall(r'<li class="line state-[a-z]+">(.*?)</li>', page.text, re.S)
    return [parse(html).text for html in found]


def discords(line: str) -> str:
    """A Discord board line as read: without its bold marks (its names here have no markup)."""
    return line.replace("**", "")


async def test_cards_and_the_board_read_as_the_discord_board(site: Site) -> None:
    h = site.h
    await h.add_character("Roryn", vit=-2, stress=2, anger=3, logged=True)
    await h.add_character("Sera", owner=h.player, vit=7, stamina=3)
    await h.add_character("Tam", vit=-11, dead=True)  # dead: no Stamina on its line
    await h.update("Sera", breakdown=Emotion.FEAR)
    await h.run(h.gm, "board start")
    page = await site.open(h.owner)
    cards = {
        parse(html).text.split(" ", 2)[1]: (key, parse(html).text)
        for key, html in re.findall(r'<li class="card state-(\w+)">(.*?)</li>', page.text, re.S)
    }
    sheets = {name: await h.sheet(name) for name in ("Roryn", "Sera", "Tam")}
    assert sorted(cards) == sorted(sheets)  # every character, the dead too
    for name, sheet in sheets.items():
        key, text = cards[name]
        assert key == view.state_key(sheet.state)
        # 🔴 Roryn · Dying · VIT -2/10 · …: the board's line, mark, name, state and all
        line = discords(board_line(sheet, in_combat=False)).split(" · ")
        mark_and_name, state, *parts = line
        assert text.startswith(f"{mark_and_name} {state}"), (text, line)
        numbers = [p for p in parts if "roll" not in p and "Last Gasp" not in p]
        assert " · ".join(numbers) in text, (text, parts)
        assert all(part in text for part in parts)  # the roll, when one is due, on its line
        assert ("yours" in text) is (sheet.owner_id == h.owner.user_id)
    assert "Stamina" not in cards["Tam"][1]
    board = await page.get(f"boards/{h.guild.channel_id}")
    # The board lists the living only, in the board's order, as its Discord message does
    expected = [discords(board_line(sheets[n], in_combat=False)) for n in ("Roryn", "Sera")]
    assert lines_of(board) == expected


async def test_a_combat_board_shows_its_round_and_who_rolls_now(site: Site) -> None:
    h = site.h
    await h.add_character("Roryn", vit=0)
    await h.add_character("Sera", owner=h.player)
    await h.start_combat(["Roryn", "Sera"])
    await h.update("Sera", early_this_round=True)
    await h.run(h.gm, "board start")
    page = await site.open(h.gm)
    board = await page.get(f"boards/{h.guild.channel_id}")
    text = parse(board.text).text
    assert "Round 1 · acting early: Sera" in text
    roryn, sera = await h.sheet("Roryn"), await h.sheet("Sera")
    assert lines_of(board) == [
        discords(board_line(roryn, in_combat=True)),
        discords(board_line(sera, in_combat=True)),
    ]
    assert "rolls now" in lines_of(board)[0]
    assert '<span class="roll now">rolls now</span>' in board.text


async def test_the_sheet_reads_as_character_show(site: Site) -> None:
    h = site.h
    await h.add_character("Roryn", vit=4, stamina=5, stress=1, fear=3, con_wounds=1)
    await h.update("Roryn", advantage=True, relief_used_today=True)
    row = await h.row("Roryn")
    shown = (await h.run(h.player, "character show", character="Roryn")).card
    page = await (await site.open(h.player)).get(f"characters/{row.id}")
    fields = {
        parse(dt).text: [parse(d).text for d in re.findall(r"<dd>(.*?)</dd>", rest)]
        for dt, rest in re.findall(r"<dt>(.*?)</dt>(.*?)</div>", page.text, re.S)
    }
    # The sheet's rows in Discord: `**Vitality** · VIT 4/10 · RES 2`, one line each.
    rows = [re.fullmatch(r"\*\*(.+?)\*\* · (.*)", line) for line in shown.lines]
    discord = {row[1]: row[2] for row in rows if row}
    assert list(fields) == list(discord)
    for name in ("Vitality", "Injury", "Emotions", "Abilities"):
        assert " · ".join(fields[name]) == discord[name], name
    # Each emotion held to its value (a no-break space in the page): a narrow screen wraps a
    # pair between the two only.
    held = [f"{e}\u00a0{n}/4" for e, n in (("Anger", 0), ("Fear", 3), ("Sadness", 0), ("Guilt", 0))]
    assert all(f"<dd>{held[i]} · {held[i + 1]}</dd>" in page.text for i in (0, 2))
    # Written as everywhere (docs/commands.md): `Stamina 5/6`, `Stress 1`
    assert fields["Stamina"] == ["Stamina 5/6", "CON d6 (1 wound)", "next reaction costs 1"]
    assert discord["Stamina"] == "5/6 · CON d6 (1 wound) · next reaction costs 1"
    assert fields["Stress"] == ["Stress 1"] and discord["Stress"] == "1"
    text = parse(page.text).text
    assert "Up · another member's character" in text
    assert shown.small in text  # advantage on the next recovery roll · relief…
    assert "Odds" not in text  # up: no roll is due


async def test_the_odds_and_their_chart_are_odds(site: Site) -> None:
    h = site.h
    await h.add_character("Roryn", vit=-1)
    row = await h.row("Roryn")
    odds = await h.run(h.player, "odds", character="Roryn")
    [(_, chart)] = odds.reply.files
    page = await (await site.open(h.player)).get(f"characters/{row.id}")
    text = parse(page.text).text
    headline = odds.card.lines[0].strip("*")
    assert headline in text  # the same headline as /odds
    picture = await page.get(f"characters/{row.id}/odds.png")
    assert picture.headers["Content-Type"] == "image/png"
    assert picture.body == chart  # the same picture, byte for byte
    table = re.findall(r'<tr><th scope="row">(\d+)</th>', page.text)
    assert table == [str(n) for n in range(1, 11)]
    img = next(e for e in parse(page.text).all("img") if "odds.png" in str(e.attrs["src"]))
    assert str(img.attrs["alt"]).endswith(headline)  # the chart said in words


async def test_the_history_shows_every_event_with_its_dice(site: Site) -> None:
    h = site.h
    await h.add_character("Roryn", vit=1, logged=True)
    await h.run(h.owner, "damage", character="Roryn", amount=1)  # Unconscious: 2 dice (RES)
    await h.run(h.player, "aid", character="Roryn", success=True)  # advantage
    h.script("M C C")  # the Miss rerolled to a Crit (D-3): awake
    await h.run(h.gm, "recover", character="Roryn")
    h.script_values(7)
    pushed = await h.run(h.owner, "push", character="Roryn", amount=1, roll="1d20", target=10)
    assert not pushed.reply.ephemeral, pushed.text()
    await h.run(h.owner, "turn", character="Roryn")  # bookkeeping
    await h.run(h.gm, "undo", character="Roryn")
    row = await h.row("Roryn")
    events = await h.history("Roryn")
    page = await (await site.open(h.owner)).get(f"characters/{row.id}")
    shown = re.findall(r'<li class="event[^"]*" id="event-(\d+)">(.*?)</li>', page.text, re.S)
    assert [int(i) for i, _ in shown] == [e.id for e in events]  # every change, newest first
    for (_, html), event in zip(shown, events, strict=True):
        pictures = [(e.attrs["src"], e.attrs["alt"]) for e in parse(html).all("img")]
        expected = []
        for roll in event.rolls:
            if isinstance(roll, NarateerRoll):
                rerolls = roll.rerolls or (None,) * len(roll.faces)
                for face, reroll in zip(roll.faces, rerolls, strict=True):
                    if reroll is None:
                        expected.append((face, False))
                    else:
                        expected += [(face, True), (reroll, False)]
        assert pictures == [
            (
                f"/static/dice/{view.STRUCK_FILE if struck else view.DIE_FILES[face]}",
                f"{view.FACE_WORDS[face]} rerolled" if struck else view.FACE_WORDS[face],
            )
            for face, struck in expected
        ], event.command
        numeric = [r for r in event.rolls if isinstance(r, NumericRoll)]
        if numeric:
            assert "<code>1d20</code> → 7" in html and "vs 10" in html
    # The undo struck out the push, and the recovery roll's advantage reroll is there
    texts = [parse(html).text for _, html in shown]
    assert any("/push undone" in t for t in texts)
    assert any("Miss rerolled" in html for _, html in shown)
    assert "/turn" not in parse(page.text).text  # bookkeeping on demand
    every = await page.get(f"characters/{row.id}?all=1")
    assert "/turn bookkeeping" in parse(every.text).text
    assert "Changes only" in parse(every.text).text


async def test_the_history_says_what_history_says(site: Site) -> None:
    """Each event's changes, as /history writes them in Discord (the web's own copy of the
    change texts stays in step: bot/web/changes.py)."""
    h = site.h
    await h.add_character("Roryn", logged=True)
    await h.run(h.owner, "spend", character="Roryn", amount=1, reason="a rope")
    await h.run(h.owner, "damage", character="Roryn", amount=12)
    await h.run(h.owner, "emotion", character="Roryn", emotion="fear", stages=5)
    await h.run(h.gm, "character edit", character="Roryn", name="Roryn the Red")
    await h.run(h.gm, "character give", character="Roryn the Red", to=h.player)
    history = await h.run(h.gm, "history", character="Roryn the Red", limit=25)
    row = await h.row("Roryn the Red")
    page = await (await site.open(h.gm)).get(f"characters/{row.id}")
    changes = re.findall(r'<p class="changes">(.*?)</p>', page.text, re.S)
    entries = history_entries(history)
    assert len(changes) == len(entries)
    for change, entry in zip(changes, entries, strict=True):
        said = parse(change).text
        if said.startswith("Owner"):
            assert said == "Owner another member → another member"
            continue
        assert said in entry.text or said == "Created.", (said, entry.text)
    assert "for “a rope”" in parse(page.text).text


async def test_a_deleted_characters_history_is_the_gms(site: Site) -> None:
    h = site.h
    await h.add_character("Gone", logged=True)
    row = await h.row("Gone")
    result = await h.run(h.owner, "character delete", character="Gone")
    [button] = [b for b in result.card.buttons if b.label == "Delete"]
    await h.click(h.owner, result.reply, button.custom_id)
    gm = await site.open(h.gm)
    assert "Gone" in parse(gm.text).text  # listed among the deleted, for the GM
    page = await gm.get(f"characters/{row.id}")
    text = parse(page.text).text
    assert "Gone (deleted)" in text and "Deleted." in text and "Created." in text


async def test_the_static_files_are_the_bots_own(site: Site) -> None:
    client = site.client()
    for name, png in emoji_files():
        file = {
            "lg_miss": "miss.png",
            "lg_hit": "hit.png",
            "lg_crit": "crit.png",
            "lg_miss_rerolled": "miss-rerolled.png",
        }[name]
        found = await client.get(f"{site.base}static/dice/{file}")
        assert found.status == 200 and found.body == png  # the emoji's own picture
    css = await client.get(f"{site.base}static/site.css")
    for state, colour in STATE_COLOURS.items():
        assert f".state-{view.state_key(state)} {{ --state: #{colour:06x}; }}" in css.text
    assert "url(" not in css.text and "@import" not in css.text  # nothing from elsewhere
    assert (await client.get(f"{site.base}static/nothing.js")).status == 404


async def test_the_campaign_lists_its_boards_and_pages(site: Site) -> None:
    h = site.h
    page = await site.open(h.owner)
    text = parse(page.text).text
    assert "No characters yet" in text and "No status board yet" in text
    await h.run(h.gm, "board start")
    page = await site.open(h.owner)
    links = [e.attrs["href"] for e in parse(page.text).all("a")]
    assert f"/servers/{h.guild.id}/boards/{h.guild.channel_id}" in links
    assert "Deleted characters" not in parse(page.text).text  # a player's view
