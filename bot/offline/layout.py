"""Layout messages as Discord takes and draws them: what a member sees of one (`Seen`), and what
Discord refuses (`refusal`), so that the driver answers a bad message as Discord would.

Discord's rules for a message with the flag IS_COMPONENTS_V2 (developer docs, "Components"):
no content and no embeds beside the components; at most 40 components, nested ones counted; at
most 4,000 characters of text in all its text displays; a section holds 1 to 3 text displays and
one accessory; an action row up to 5 buttons or one select menu; a message's flag never comes
off, and an edit that puts it on a message must clear the message's content and embeds. The
layout components themselves (types 9 to 17) are refused without the flag.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

IS_COMPONENTS_V2 = 1 << 15
TEXT_LIMIT = 4000
COMPONENTS_LIMIT = 40

ACTION_ROW, BUTTON, STRING_SELECT = 1, 2, 3
SECTION, TEXT_DISPLAY, THUMBNAIL, MEDIA_GALLERY, FILE, SEPARATOR, CONTAINER = (
    9,
    10,
    11,
    12,
    13,
    14,
    17,
)
_LAYOUT_TYPES = {SECTION, TEXT_DISPLAY, THUMBNAIL, MEDIA_GALLERY, FILE, SEPARATOR, CONTAINER}
SMALL = "-# "
HEADING = "### "


@dataclass(frozen=True)
class Button:
    label: str
    custom_id: str  # a link button's URL
    style: int
    disabled: bool = False


@dataclass(frozen=True)
class Select:
    custom_id: str
    placeholder: str
    options: tuple[tuple[str, str], ...]  # (label, value)
    min_values: int = 1
    max_values: int = 1
    disabled: bool = False


@dataclass(frozen=True)
class Seen:
    """What a member sees of one message, in order: the card's accent colour, each text
    display's markdown, the pictures and files it shows, its buttons and select menus."""

    colour: int | None
    texts: tuple[str, ...]
    pictures: tuple[str, ...]  # attachment names (or URLs) of its media galleries
    files: tuple[str, ...]  # attachment names of its file components
    buttons: tuple[Button, ...]
    selects: tuple[Select, ...] = ()
    separated: bool = False  # a separator divides it (a list follows)

    @property
    def title(self) -> str | None:
        """The heading that opens the card, without its `### `."""
        if self.texts and self.texts[0].startswith(HEADING):
            return self.texts[0].split("\n", 1)[0][len(HEADING) :]
        return None

    @property
    def small(self) -> str | None:
        """The small last line (bookkeeping, rule IDs), without its `-# `: a text display of its
        own, or, in a card with no list (no separator), the last line of the text before it."""
        if not self.texts:
            return None
        last = self.texts[-1]
        alone = "\n" not in last
        if not alone and self.separated:
            return None  # a list's last entry may end with a small line of its own
        line = last.rsplit("\n", 1)[-1]
        if not line.startswith(SMALL) or (alone and len(self.texts) == 1):
            return None
        return line[len(SMALL) :]

    @property
    def body(self) -> str:
        """Every text but the title and the small line, one text display after another."""
        texts = list(self.texts)
        if self.small is not None:
            rest = texts[-1].rsplit("\n", 1)
            texts[-1] = rest[0] if len(rest) > 1 else ""
        if self.title is not None:
            rest = texts[0].split("\n", 1)
            texts[0] = rest[1] if len(rest) > 1 else ""
        return "\n".join(t for t in texts if t)

    @property
    def lines(self) -> list[str]:
        return self.body.split("\n") if self.body else []

    @property
    def markdown(self) -> str:
        """All of its text, as sent."""
        return "\n".join(self.texts)


def _media_name(item: Mapping[str, Any]) -> str:
    url = str((item.get("media") or item.get("file") or {}).get("url", ""))
    return url.removeprefix("attachment://")


def walk(components: Sequence[Mapping[str, Any]]) -> Iterator[Mapping[str, Any]]:
    """Every component, depth first, in the order Discord draws them; a section's accessory
    after its texts."""
    for component in components:
        yield component
        yield from walk(component.get("components") or [])
        accessory = component.get("accessory")
        if accessory:
            yield from walk([accessory])


def seen(components: Sequence[Mapping[str, Any]]) -> Seen:
    colour = None
    texts: list[str] = []
    pictures: list[str] = []
    files: list[str] = []
    buttons: list[Button] = []
    selects: list[Select] = []
    separated = False
    for component in walk(components):
        kind = component.get("type")
        if kind == CONTAINER and colour is None:
            colour = component.get("accent_color")
        elif kind == TEXT_DISPLAY:
            texts.append(str(component.get("content", "")))
        elif kind == MEDIA_GALLERY:
            pictures += [_media_name(item) for item in component.get("items", [])]
        elif kind == SEPARATOR:
            separated = True
        elif kind == THUMBNAIL:
            pictures.append(_media_name(component))
        elif kind == FILE:
            files.append(_media_name(component))
        elif kind == BUTTON:
            buttons.append(
                Button(
                    str(component.get("label") or ""),
                    str(component.get("custom_id") or component.get("url") or ""),
                    int(component.get("style", 0)),
                    bool(component.get("disabled")),
                )
            )
        elif kind == STRING_SELECT:
            selects.append(
                Select(
                    str(component.get("custom_id", "")),
                    str(component.get("placeholder") or ""),
                    tuple(
                        (str(o.get("label", "")), str(o.get("value", "")))
                        for o in component.get("options", [])
                    ),
                    int(component.get("min_values", 1)),
                    int(component.get("max_values", 1)),
                    bool(component.get("disabled")),
                )
            )
    return Seen(
        colour,
        tuple(texts),
        tuple(pictures),
        tuple(files),
        tuple(buttons),
        tuple(selects),
        separated,
    )


def count(components: Sequence[Mapping[str, Any]]) -> int:
    return sum(1 for _ in walk(components))


def text_length(components: Sequence[Mapping[str, Any]]) -> int:
    return sum(len(str(c.get("content", ""))) for c in walk(components) if c.get("type") == 10)


def refusal(
    body: Mapping[str, Any], *, flags_before: int | None = None, had_text: bool = False
) -> str | None:
    """Why Discord would refuse this message body (None: it takes it). `flags_before`: the
    flags of the message an edit changes; `had_text`: that message has content or embeds."""
    components = body.get("components") or []
    flags = body.get("flags")
    v2 = bool((flags or 0) & IS_COMPONENTS_V2) or bool(
        flags is None and flags_before is not None and flags_before & IS_COMPONENTS_V2
    )
    kept = flags_before is not None and flags_before & IS_COMPONENTS_V2
    if kept and flags is not None and not flags & IS_COMPONENTS_V2:
        return "a message's IS_COMPONENTS_V2 flag cannot be removed"
    if not v2:
        if any(c.get("type") in _LAYOUT_TYPES for c in walk(components)):
            return "layout components need the flag IS_COMPONENTS_V2"
        return None
    if body.get("content") or body.get("embeds"):
        return "a layout message (IS_COMPONENTS_V2) cannot have content or embeds"
    upgrading = flags_before is not None and not flags_before & IS_COMPONENTS_V2
    if upgrading and had_text and not ("content" in body and "embeds" in body):
        return "a message edited into a layout must clear its content and embeds"
    if count(components) > COMPONENTS_LIMIT:
        return f"more than {COMPONENTS_LIMIT} components ({count(components)})"
    if text_length(components) > TEXT_LIMIT:
        return f"more than {TEXT_LIMIT} characters of text ({text_length(components)})"
    for component in walk(components):
        if component.get("type") == SECTION and not 1 <= len(component.get("components", [])) <= 3:
            return "a section holds 1 to 3 text displays"
        if component.get("type") == ACTION_ROW and len(component.get("components", [])) > 5:
            return "an action row holds at most 5 buttons"
    return None
