"""Messages as terminal text: what Discord would draw, in words.

Discord's own tokens become what a reader sees there: `<t:1796062768:R>` "2 minutes ago",
`<@id>` "@Alice", `<@&id>` "@GM", `<:lg_crit:123>` the text face 💥; Discord's markdown becomes
plain text (escapes undone, `**bold**` bold on a colour terminal and bare otherwise). An embed
reads as Discord shows it: its title, then the description whose first line is the headline,
then fields, the footer, attached files and buttons.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import UTC, datetime

from bot.offline import Message
from bot.offline.layout import HEADING, SEPARATOR, SMALL, TEXT_DISPLAY, walk
from bot.render.common import colour_name
from bot.render.dice import TEXT_FACES, TEXT_STRUCK
from bot.render.pictures import EMOJI_NAMES, STRUCK_MISS_EMOJI_NAME

# Discord's tokens (developer docs, "Message Formatting").
TOKEN = re.compile(
    r"<t:(?P<ts>-?\d{1,13})(?::(?P<style>[tTdDfFR]))?>"
    r"|<@!?(?P<user>\d+)>"
    r"|<@&(?P<role>\d+)>"
    r"|<#(?P<channel>\d+)>"
    r"|<(?P<animated>a?):(?P<emoji>\w{2,32}):(?P<emoji_id>\d+)>"
    r"|</(?P<slash>[\w -]{1,100}):\d+>"
)
EMOJI_FACES = {
    **{name: TEXT_FACES[face] for face, name in EMOJI_NAMES.items()},
    STRUCK_MISS_EMOJI_NAME: TEXT_STRUCK,
}
_PUNCTUATION = set("\\`*_{}[]()#+-.!|~>:<@/\"'")
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _escaped(text: str, at: int) -> bool:
    """Whether the character at `at` follows an odd run of backslashes (Discord's escape)."""
    run = len(text[:at]) - len(text[:at].rstrip("\\"))
    return run % 2 == 1


def plain_length(text: str) -> int:
    return len(_ANSI.sub("", text))


@dataclass
class Style:
    """ANSI styling, or none at all (a file, a pipe, NO_COLOR)."""

    colour: bool = False

    def wrap(self, text: str, start: str, end: str) -> str:
        return f"\x1b[{start}m{text}\x1b[{end}m" if self.colour and text else text

    def bold(self, text: str) -> str:
        return self.wrap(text, "1", "22")

    def dim(self, text: str) -> str:
        return self.wrap(text, "2", "22")

    def rgb(self, text: str, value: int) -> str:
        r, g, b = (value >> 16) & 0xFF, (value >> 8) & 0xFF, value & 0xFF
        return self.wrap(text, f"38;2;{r};{g};{b}", "39")


class Text:
    """Turns the bot's messages into terminal lines.

    `users`, `roles`, `channels`: names by id (unknown ones read `@user`, `@role`, `#channel`);
    `now`: the bot's clock, for relative timestamps."""

    def __init__(
        self,
        *,
        users: Mapping[int, str],
        roles: Mapping[int, str],
        channels: Mapping[int, str],
        now: Callable[[], datetime],
        style: Style,
    ) -> None:
        self.users = users
        self.roles = roles
        self.channels = channels
        self.now = now
        self.style = style

    # --- inline text ---------------------------------------------------------------------------

    def inline(self, text: str) -> str:
        """One piece of Discord text (content, title, description, field, footer) as terminal
        text."""
        return self._markdown(TOKEN.sub(self._token, text))

    def _token(self, match: re.Match[str]) -> str:
        if _escaped(match.string, match.start()):
            return match[0]  # `\<t:…>`: an escaped token reads as typed (the escape goes later)
        if match["ts"] is not None:
            return self.timestamp(int(match["ts"]), match["style"] or "f")
        if match["user"] is not None:
            return "@" + self.users.get(int(match["user"]), "user")
        if match["role"] is not None:
            return "@" + self.roles.get(int(match["role"]), "role")
        if match["channel"] is not None:
            return "#" + self.channels.get(int(match["channel"]), "channel")
        if match["emoji"] is not None:
            return EMOJI_FACES.get(match["emoji"], f":{match['emoji']}:")
        return "/" + match["slash"]

    def timestamp(self, seconds: int, style: str) -> str:
        """`<t:…:style>` as Discord writes it, in the terminal's local time."""
        try:
            when = datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            return f"<t:{seconds}>"
        if style == "R":
            return relative(when, self.now())
        local = when.astimezone()
        formats = {
            "t": "%H:%M",
            "T": "%H:%M:%S",
            "d": "%Y-%m-%d",
            "D": "%d %B %Y",
            "f": "%d %B %Y %H:%M",
            "F": "%A %d %B %Y %H:%M",
        }
        return local.strftime(formats.get(style, formats["f"]))

    def _markdown(self, text: str) -> str:
        """Discord's markdown as terminal text: escapes undone, `**bold**` and `__underline__`
        as styles (bare without colour), `~~struck~~` struck (kept as is without colour),
        `` `code` `` kept, `-# small` lines dimmed, `# heading` lines bold."""
        lines = []
        for line in text.split("\n"):
            small = heading = False
            if line.startswith("-# "):
                line, small = line[3:], True
            elif (m := re.match(r"#{1,3} ", line)) is not None:
                line, heading = line[m.end() :], True
            line = self._spans(line)
            if small:
                line = self.style.dim(line)
            if heading:
                line = self.style.bold(line)
            lines.append(line)
        return "\n".join(lines)

    def _spans(self, line: str) -> str:
        out: list[str] = []
        open_: dict[str, bool] = {"**": False, "__": False, "~~": False}
        codes = {"**": ("1", "22"), "__": ("4", "24"), "~~": ("9", "29")}
        i = 0
        while i < len(line):
            char = line[i]
            if char == "\\" and i + 1 < len(line) and line[i + 1] in _PUNCTUATION:
                out.append(line[i + 1])
                i += 2
                continue
            if char == "`":
                end = line.find("`", i + 1)
                if end > i:
                    code = line[i : end + 1]
                    out.append(
                        self.style.wrap(code[1:-1], "36", "39") if self.style.colour else code
                    )
                    i = end + 1
                    continue
            pair = line[i : i + 2]
            if pair in open_ and (open_[pair] or line.find(pair, i + 2) > i + 1):
                on, off = codes[pair]
                if self.style.colour:
                    out.append(f"\x1b[{off if open_[pair] else on}m")
                elif pair == "~~":
                    out.append(pair)
                open_[pair] = not open_[pair]
                i += 2
                continue
            out.append(char)
            i += 1
        if self.style.colour and any(open_.values()):
            out.append("\x1b[0m")
        return "".join(out)

    # --- messages ------------------------------------------------------------------------------

    def header(self, message: Message) -> str:
        visibility = "ephemeral" if message.ephemeral else "public"
        if message.kind == "channel":
            visibility = "channel"
        return self.style.dim(f"[{visibility} {message.kind}]")

    def body(
        self, message: Message, saved: Mapping[str, str] | None = None, *, framed: bool = False
    ) -> list[str]:
        """The message's lines, unindented: its card as Discord draws it (the title, the texts,
        a rule for a separator, the pictures and files it shows with where each was saved, its
        buttons and menus, the small line). `framed`: inside a frame that shows the title (the
        status board)."""
        saved = saved or {}
        lines: list[str] = []
        if message.content:  # never ours: a layout message has none
            lines += self.inline(message.content).split("\n")
        if message.components:
            lines += self.card(message, saved, framed=framed)
        if message.loading:
            lines.append(self.style.dim("(the bot is thinking…)"))
        return lines

    def card(
        self, message: Message, saved: Mapping[str, str], *, framed: bool = False
    ) -> list[str]:
        card = message.card
        colour = card.colour
        coloured = self.style.colour and isinstance(colour, int) and not framed
        lines: list[str] = []
        title = self.inline(card.title or "")
        if framed:
            pass
        elif self.style.colour:  # the bar shows the colour
            if title:
                lines.append(self.style.bold(title))
        else:
            if title:  # an untitled card is a sentence or two (a refusal, a note)
                name = colour_name(colour) if colour is not None else "no colour"
                lines.append(f"# {title}  ({name})")
        sizes = dict(message.files)
        texts = [c for c in walk(message.components) if c.get("type") in (TEXT_DISPLAY, SEPARATOR)]
        for index, component in enumerate(texts):
            if component.get("type") == SEPARATOR:
                lines.append(self.style.dim("─" * 24))
                continue
            text = str(component.get("content", ""))
            if text.startswith(HEADING):  # the title, shown above
                text = text.split("\n", 1)[1] if "\n" in text else ""
            if card.small is not None and index == len(texts) - 1:  # shown as a footer below
                text = text.removesuffix(SMALL + card.small).removesuffix("\n")
            if text:
                lines += self.inline(text).split("\n")
        if card.small is not None:
            lines.append(self.style.dim(f"~ {self.inline(card.small)}"))
        for kind, names in (("picture", card.pictures), ("file", card.files)):
            for name in names:
                where = saved.get(name)
                size = f"{len(sizes.get(name, b'')):,} bytes"
                lines.append(f"[{kind} {name}, {size}" + (f": saved as {where}]" if where else "]"))
        buttons = self.buttons(message)
        if buttons:
            lines.append(" ".join(buttons))
        for select in card.selects:
            options = ", ".join(label for label, _ in select.options)
            lines.append(f"[menu {select.placeholder}: {options}]")
        if coloured and isinstance(colour, int):
            bar = self.style.rgb("▌", colour)
            return [f"{bar} {line}" for line in lines]
        return lines

    def buttons(self, message: Message) -> list[str]:
        found = []
        for label, custom_id, disabled in buttons_of(message):
            text = f"{label}: {custom_id}" if label and custom_id else label or custom_id
            found.append(f"[button {text}{' (disabled)' if disabled else ''}]")
        return found


def buttons_of(message: Message) -> list[tuple[str, str, bool]]:
    """(label, custom id, disabled) of each button of the message, in order."""
    return [(b.label, b.custom_id, b.disabled) for b in message.card.buttons]


def relative(when: datetime, now: datetime) -> str:
    """`2 minutes ago`, `in 3 hours`, `just now`, as Discord's relative timestamps read."""
    if now.tzinfo is None:
        now = now.replace(tzinfo=UTC)
    seconds = (now - when).total_seconds()
    past = seconds >= 0
    seconds = abs(seconds)
    if seconds < 5:
        return "just now"
    for size, unit in (
        (365 * 86400, "year"),
        (30 * 86400, "month"),
        (86400, "day"),
        (3600, "hour"),
        (60, "minute"),
        (1, "second"),
    ):
        if seconds >= size:
            n = int(seconds // size)
            amount = f"{n} {unit}{'' if n == 1 else 's'}"
            return f"{amount} ago" if past else f"in {amount}"
    return "just now"  # pragma: no cover
