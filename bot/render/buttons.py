"""Every button the bot posts: discord.py DynamicItems whose custom id holds the state they act
on, so that they keep working after a restart (and say so when that state has moved on).

Here the buttons are drawn; what a click does is registered by bot/clicks.py (`handles`), so
that drawing a button needs none of the services it calls. discord.py dispatches a click to
the class whose template matches its custom id; a custom id that matches none of ours (a
button of an older version, a forged id) matches `Expired`, so every click is answered.
"""

from __future__ import annotations

import re
from collections.abc import Awaitable, Callable
from typing import Any, ClassVar, Self, TypeVar

import discord

from rules.models import Emotion, EmotionCause, Sheet, State, vitality_state

Handler = Callable[[discord.Interaction[Any], Any], Awaitable[None]]
_HANDLERS: dict[type, Handler] = {}
B = TypeVar("B", bound="discord.ui.DynamicItem[Any]")


def handles(
    button: type[B],
) -> Callable[[Callable[[discord.Interaction[Any], B], Awaitable[None]]], Any]:
    """Register what a click on `button` (or a choice in a menu) does (bot/clicks.py)."""

    def register(handler: Callable[[discord.Interaction[Any], B], Awaitable[None]]) -> Any:
        _HANDLERS[button] = handler
        return handler

    return register


def handler_of(button: type) -> Handler | None:
    return _HANDLERS.get(button)


async def _dispatch(
    item: discord.ui.DynamicItem[Any], interaction: discord.Interaction[Any]
) -> None:
    """A click (or a menu's choice) goes to the handler registered for its item's class."""
    handler = _HANDLERS.get(type(item))
    if handler is None:
        raise RuntimeError(f"no handler for {type(item).__name__}: import bot.clicks")
    await handler(interaction, item)


class LastGaspButton(discord.ui.DynamicItem[discord.ui.Button[Any]], template=r"lg:(?!)"):
    """A button of ours: its click goes to the handler registered for its class."""

    # Every template of ours, buttons' and menus': Expired answers whatever matches none.
    templates: ClassVar[list[re.Pattern[str]]] = []

    def __init_subclass__(cls, *, template: str) -> None:
        super().__init_subclass__(template=template)
        LastGaspButton.templates.append(cls.__discord_ui_compiled_template__)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _dispatch(self, interaction)


def _button(label: str, custom_id: str, style: discord.ButtonStyle) -> discord.ui.Button[Any]:
    return discord.ui.Button(label=label, custom_id=custom_id, style=style)


class RecoveryButton(
    LastGaspButton,
    template=r"lg:recover:(?P<id>[0-9]{1,19}):(?P<vit>-?[0-9]{1,5}):(?P<res>[0-9]{1,2})",
):
    """R-1..R-5 in one click: the recovery roll due now, for the VIT and RES the announcement
    showed (another VIT or RES since: stale). `next_round`: this round's roll is used (R-8),
    so the button is drawn disabled, saying when the roll comes (a click on an old enabled one
    is refused by the rule)."""

    def __init__(self, character_id: int, vit: int, res: int, *, next_round: bool = False) -> None:
        self.character_id, self.vit, self.res = character_id, vit, res
        last_gasp = vitality_state(vit, res) is State.DYING
        if next_round:
            label = "Last Gasp next round" if last_gasp else "Recovery roll next round"
            style = discord.ButtonStyle.secondary
        else:
            label = "Roll the Last Gasp" if last_gasp else "Recovery roll"
            style = discord.ButtonStyle.danger if last_gasp else discord.ButtonStyle.primary
        button = _button(label, f"lg:recover:{character_id}:{vit}:{res}", style)
        button.disabled = next_round
        super().__init__(button)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: Any, match: re.Match[str], /
    ) -> Self:
        return cls(int(match["id"]), int(match["vit"]), int(match["res"]))


class OddsButton(LastGaspButton, template=r"lg:odds:(?P<id>[0-9]{1,19})"):
    """The odds of a character's next recovery rolls, privately, as they stand now."""

    def __init__(self, character_id: int) -> None:
        self.character_id = character_id
        super().__init__(_button("Odds", f"lg:odds:{character_id}", discord.ButtonStyle.secondary))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: Any, match: re.Match[str], /
    ) -> Self:
        return cls(int(match["id"]))


class DeleteButton(
    LastGaspButton,
    template=(
        r"lg:delete:(?P<action>confirm|cancel):(?P<id>[0-9]{1,19}):(?P<asker>[0-9]{1,20})"
        r":(?P<until>[0-9]{1,12})"
    ),
):
    """The answer to "Delete X for good?": only its asker, only until `until` (Unix time)."""

    def __init__(self, action: str, character_id: int, asker_id: int, until: int) -> None:
        self.action, self.character_id, self.asker_id, self.until = (
            action,
            character_id,
            asker_id,
            until,
        )
        confirm = action == "confirm"
        super().__init__(
            _button(
                "Delete" if confirm else "Cancel",
                f"lg:delete:{action}:{character_id}:{asker_id}:{until}",
                discord.ButtonStyle.danger if confirm else discord.ButtonStyle.secondary,
            )
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: Any, match: re.Match[str], /
    ) -> Self:
        return cls(match["action"], int(match["id"]), int(match["asker"]), int(match["until"]))


class NextRoundButton(LastGaspButton, template=r"lg:board:round:(?P<channel>[0-9]{1,20})"):
    """The status board's "Next round": the same as /round, the GM's."""

    def __init__(self, channel_id: int) -> None:
        self.channel_id = channel_id
        super().__init__(
            _button("Next round", f"lg:board:round:{channel_id}", discord.ButtonStyle.primary)
        )

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: Any, match: re.Match[str], /
    ) -> Self:
        return cls(int(match["channel"]))


class MySheetButton(LastGaspButton, template=r"lg:board:sheet"):
    """The status board's "My sheet": the presser's own sheet, privately."""

    def __init__(self) -> None:
        super().__init__(_button("My sheet", "lg:board:sheet", discord.ButtonStyle.secondary))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: Any, match: re.Match[str], /
    ) -> Self:
        return cls()


class RaiseButton(
    LastGaspButton,
    template=(
        r"lg:raise:(?P<id>[0-9]{1,19}):(?P<emotion>anger|fear|sadness|guilt)"
        r":(?P<cause>daring_throw|reaction_roll):(?P<stack>[0-9]{1,2}):(?P<stress>[0-9]{1,5})"
    ),
):
    """K-4: "Raise Fear" under a Daring Throw or a Reaction Roll: one stage of that emotion,
    with the cause, for the stack and Stress the button was drawn with (a second press of a
    double click finds them changed, and raises nothing)."""

    def __init__(
        self, character_id: int, emotion: Emotion, cause: EmotionCause, stack: int, stress: int
    ) -> None:
        self.character_id, self.emotion, self.cause = character_id, emotion, cause
        self.stack, self.stress = stack, stress
        custom_id = f"lg:raise:{character_id}:{emotion.value}:{cause.value}:{stack}:{stress}"
        super().__init__(
            _button(f"Raise {emotion.label}", custom_id, discord.ButtonStyle.secondary)
        )

    @classmethod
    def of(cls, character_id: int, sheet: Sheet, cause: EmotionCause) -> list[RaiseButton]:
        """One button per emotion, for the sheet as it is."""
        return [cls(character_id, e, cause, sheet.stack(e), sheet.stress) for e in Emotion]

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: Any, match: re.Match[str], /
    ) -> Self:
        return cls(
            int(match["id"]),
            Emotion(match["emotion"]),
            EmotionCause(match["cause"]),
            int(match["stack"]),
            int(match["stress"]),
        )


class LastGaspMenu(discord.ui.DynamicItem[discord.ui.Select[Any]], template=r"lg:(?!)"):
    """A select menu of ours: its choice goes to the handler registered for its class, like a
    button's click."""

    def __init_subclass__(cls, *, template: str) -> None:
        super().__init_subclass__(template=template)
        LastGaspButton.templates.append(cls.__discord_ui_compiled_template__)

    async def callback(self, interaction: discord.Interaction[Any]) -> None:
        await _dispatch(self, interaction)


SCENES = ("damage", "heal", "breakdown")


class SceneMenu(
    LastGaspMenu,
    template=(
        r"lg:pick:(?P<what>damage|heal|breakdown):(?P<arg>[0-9]{1,5}|(?:anger|fear|sadness|guilt)"
        r"-[0-9]{1,2}):(?P<asker>[0-9]{1,20}):(?P<until>[0-9]{1,12})"
    ),
):
    """The GM's menu of characters for a scene (G-1, G-2): `what` with its amount, or its
    emotion and Pressure (`fear-8`); only its asker, only until `until` (Unix time). The
    options are the characters' row ids."""

    def __init__(
        self,
        what: str,
        arg: str,
        asker_id: int,
        until: int,
        options: list[discord.SelectOption] | None = None,
        placeholder: str = "Choose the characters",
    ) -> None:
        self.what, self.arg, self.asker_id, self.until = what, arg, asker_id, until
        options = options or []
        select: discord.ui.Select[Any] = discord.ui.Select(
            custom_id=f"lg:pick:{what}:{arg}:{asker_id}:{until}",
            placeholder=placeholder,
            min_values=1,
            max_values=max(len(options), 1),
            options=options,
        )
        super().__init__(select)

    @property
    def key(self) -> tuple[object, ...]:
        """The question this menu asks (bot/questions.py), its deadline last."""
        return ("scene", self.what, self.arg, self.asker_id, self.until)

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: Any, match: re.Match[str], /
    ) -> Self:
        options = list(getattr(item, "options", []) or [])
        return cls(match["what"], match["arg"], int(match["asker"]), int(match["until"]), options)


def _none_of_ours() -> str:
    """Any custom id the buttons above do not match."""
    unnamed = (re.sub(r"\(\?P<\w+>", "(?:", t.pattern) for t in LastGaspButton.templates)
    ours = "|".join(f"(?:{pattern})" for pattern in unnamed)
    return rf"(?s)(?!(?:{ours})$).*"  # (?s): an id with a line break is answered too


class Expired(LastGaspButton, template=_none_of_ours()):
    """A button the bot no longer knows (older versions, forged ids): answered, not ignored."""

    def __init__(self, custom_id: str) -> None:
        super().__init__(_button("Expired", custom_id, discord.ButtonStyle.secondary))

    @classmethod
    async def from_custom_id(
        cls, interaction: discord.Interaction[Any], item: Any, match: re.Match[str], /
    ) -> Self:
        return cls(match[0])


BUTTONS: tuple[type[discord.ui.DynamicItem[Any]], ...] = (
    RecoveryButton,
    OddsButton,
    DeleteButton,
    NextRoundButton,
    MySheetButton,
    RaiseButton,
    SceneMenu,
    Expired,
)
