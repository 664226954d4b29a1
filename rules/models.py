"""The character sheet and the guild settings (docs/rules.md: "The character sheet" and
"Guild settings")."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from rules import notation
from rules.errors import RuleError
from rules.names import MAX_NAME, clean_name

__all__ = ["MAX_NAME"]

CON_SIZES: tuple[int, ...] = (6, 8, 10, 12)
ConSize = Literal[6, 8, 10, 12]
MAX_WOUNDS = 3  # S-2: recorded up to 3, even where the die cannot step lower
MIN_VIT = -10_000
MAX_STRESS = 10_000
MAX_REACTIONS = 100  # far above what any Stamina pays for (1 + 2 + 3 + 4 = 10 of at most 12)
MAX_SNOWFLAKE = 2**63 - 1


class State(StrEnum):
    UP = "Up"
    UNCONSCIOUS = "Unconscious"
    CRITICAL = "Critical"
    DYING = "Dying"
    DEAD = "Dead"
    RETIRED = "Retired"

    @property
    def is_down(self) -> bool:
        """Unconscious, Critical or Dying: a recovery roll is due (R-1..R-5)."""
        return self in (State.UNCONSCIOUS, State.CRITICAL, State.DYING)

    @property
    def is_out(self) -> bool:
        """Dead or Retired: absorbing until the GM revives (V-5, E-7)."""
        return self in (State.DEAD, State.RETIRED)


class Emotion(StrEnum):
    ANGER = "anger"
    FEAR = "fear"
    SADNESS = "sadness"
    GUILT = "guilt"

    @property
    def label(self) -> str:
        return self.value.capitalize()


class EmotionCause(StrEnum):
    """E-10: what raised an emotion, in the game."""

    DARING_THROW = "daring_throw"
    REACTION_ROLL = "reaction_roll"
    OTHER = "other"

    @property
    def label(self) -> str:
        return {"daring_throw": "a Daring Throw", "reaction_roll": "a Reaction Roll"}.get(
            self.value, "something in the story"
        )


class DeathRule(StrEnum):
    THRESHOLDS = "thresholds"
    INSTANT = "instant"


class CriticalBleed(StrEnum):
    ALL_MISS = "all_miss"
    NO_CRIT = "no_crit"
    NEVER = "never"


class ReactionReset(StrEnum):
    TURN = "turn"
    ROUND = "round"


class LastGaspAdvantage(StrEnum):
    YES = "yes"
    NO = "no"


class DyingDamage(StrEnum):
    NOTHING = "nothing"
    KILLS = "kills"


class RuleIds(StrEnum):
    FOOTER = "footer"
    OFF = "off"


class RestKind(StrEnum):
    SHORT = "short"
    UNSAFE_LONG = "unsafe_long"
    SAFE_LONG = "safe_long"
    RESPITE = "respite"


class ReliefMethod(StrEnum):
    DRIVE = "drive"
    REWARD = "reward"
    ADDRESS = "address"


_FACES = re.compile(r"^[MHC]{2,20}$")


def _short(n: int) -> str:
    """A number as a refusal quotes it: an absurd one (a file's) is not written out."""
    text = str(n)
    return text if len(text) <= 12 else f"{text[:6]}… ({len(text)} digits)"


class GuildSettings(BaseModel):
    """The guild settings. `gm_role_id` None: members with Manage Server are the GMs (P-1)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    gm_role_id: int | None = Field(default=None, ge=0, le=MAX_SNOWFLAKE)
    die_faces: str = "MMMHHC"
    death_rule: DeathRule = DeathRule.THRESHOLDS
    critical_bleed: CriticalBleed = CriticalBleed.ALL_MISS
    reaction_reset: ReactionReset = ReactionReset.TURN
    reaction_die: str = "1d10"
    emotion_threshold: int = Field(default=4, ge=1, le=20)
    last_gasp_advantage: LastGaspAdvantage = LastGaspAdvantage.YES
    dying_damage: DyingDamage = DyingDamage.NOTHING
    rule_ids: RuleIds = RuleIds.FOOTER
    check_die: str = "1d20"  # K-1

    @field_validator("die_faces")
    @classmethod
    def _faces(cls, value: str) -> str:
        faces = value.replace(" ", "").upper()
        if not _FACES.match(faces) or "C" not in faces:
            raise ValueError("die faces are 2 to 20 letters of M, H and C, with at least one C")
        return faces

    @field_validator("reaction_die", "check_die")
    @classmethod
    def _dice(cls, value: str) -> str:
        try:
            notation.parse(value)
        except RuleError as error:
            raise ValueError(str(error)) from None
        return value.strip()


# Each emotion's field, read on every validation and every reply: a plain dict, not the enum's
# iterator and `.value` property.
_EMOTION_FIELDS: dict[Emotion, str] = {emotion: emotion.value for emotion in Emotion}


def vitality_state(vit: int, res: int) -> State:
    """V-1..V-4: the state that VIT and RES alone make."""
    if vit > 0:
        return State.UP
    if res + vit <= 0:
        return State.DYING
    return State.UNCONSCIOUS if vit == 0 else State.CRITICAL


class Sheet(BaseModel):
    """One character, every field within its range. Immutable: every action returns a new
    sheet."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    owner_id: int = Field(ge=0, le=MAX_SNOWFLAKE)
    max_vit: int = Field(default=10, ge=1, le=999)
    vit: int = Field(default=10, ge=MIN_VIT)
    res: int = Field(default=2, ge=0, le=20)
    con_base: ConSize = 8
    con_wounds: int = Field(default=0, ge=0, le=MAX_WOUNDS)
    stamina: int = Field(default=8, ge=0)
    humility: int = Field(default=0, ge=-10, le=20)
    composure: int = Field(default=0, ge=-10, le=20)
    insight: int = Field(default=0, ge=-10, le=20)
    threshold: int = Field(default=4, ge=1, le=20)
    anger: int = Field(default=0, ge=0)
    fear: int = Field(default=0, ge=0)
    sadness: int = Field(default=0, ge=0)
    guilt: int = Field(default=0, ge=0)
    stress: int = Field(default=0, ge=0, le=MAX_STRESS)
    breakdown: Emotion | None = None
    dead: bool = False
    retired: bool = False
    advantage: bool = False
    relief_used_today: bool = False
    daily_bonus: bool = False
    reactions_taken: int = Field(default=0, ge=0, le=MAX_REACTIONS)
    early_this_round: bool = False
    # S-4a: reacted, pushed or spent Stamina this round, which rules out acting early.
    spent_this_round: bool = False
    recovered_this_round: bool = False

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        return clean_name(value)

    @model_validator(mode="after")
    def _ranges(self) -> Self:
        if self.vit > self.max_vit:
            raise ValueError(f"VIT {_short(self.vit)} is above max VIT {self.max_vit}")
        if self.stamina > self.max_stamina:
            raise ValueError(
                f"Stamina {_short(self.stamina)} is above its maximum {self.max_stamina}"
            )
        fields = self.__dict__
        for emotion, field in _EMOTION_FIELDS.items():
            if fields[field] > self.threshold:
                raise ValueError(
                    f"{emotion.label} {_short(fields[field])} is above the threshold "
                    f"{self.threshold}"
                )
        return self

    # Derived values: never stored, so they can never disagree with the sheet.

    @property
    def con_die(self) -> int:
        """S-2, S-3: the base die stepped down once per wound; d6 is the floor."""
        index = max(0, CON_SIZES.index(self.con_base) - self.con_wounds)
        return CON_SIZES[index]

    @property
    def max_stamina(self) -> int:
        """S-1."""
        return self.con_die

    @property
    def state(self) -> State:
        """V-1..V-5, with the Dead and Retired flags on top."""
        if self.dead:
            return State.DEAD
        if self.retired:
            return State.RETIRED
        return vitality_state(self.vit, self.res)

    @property
    def recovery_dice(self) -> int:
        """Dice of the recovery roll due now: RES + VIT (R-1, R-3), 1 for the Last Gasp (R-5)."""
        state = self.state
        if state is State.DYING:
            return 1
        if state.is_down:
            return self.res + min(self.vit, 0)
        return 0

    def stack(self, emotion: Emotion) -> int:
        value: int = self.__dict__[_EMOTION_FIELDS[emotion]]
        return value

    @property
    def stacks(self) -> dict[Emotion, int]:
        return {emotion: self.stack(emotion) for emotion in Emotion}

    def update(self, **changes: object) -> Sheet:
        """A validated copy (model_copy alone would skip validation)."""
        return Sheet.model_validate({**self.__dict__, **changes})  # the fields, as they are
