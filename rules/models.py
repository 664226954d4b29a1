"""The character sheet and the guild settings (RULES.md sections 1 and 10)."""

from __future__ import annotations

import re
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

MAX_NAME = 32
CON_SIZES: tuple[int, ...] = (6, 8, 10, 12)
ConSize = Literal[6, 8, 10, 12]


class State(StrEnum):
    UP = "Up"
    UNCONSCIOUS = "Unconscious"
    CRITICAL = "Critical"
    DYING = "Dying"
    DEAD = "Dead"
    RETIRED = "Retired"

    @property
    def is_down(self) -> bool:
        """Unconscious, Critical or Dying: a recovery roll is due (section 5)."""
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


def clean_name(value: str) -> str:
    """Trim a character name and refuse what RULES.md section 1 forbids."""
    name = value.strip()
    if not name:
        raise ValueError("a name needs at least one character")
    if len(name) > MAX_NAME:
        raise ValueError(f"a name has at most {MAX_NAME} characters")
    if any(ch in name for ch in "\r\n\u2028\u2029"):
        raise ValueError("a name fits on one line")
    return name


class GuildSettings(BaseModel):
    """Section 10. `gm_role_id` None: members with Manage Server are the GMs (P-1)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    gm_role_id: int | None = None
    die_faces: str = "MMMHHC"
    death_rule: DeathRule = DeathRule.THRESHOLDS
    critical_bleed: CriticalBleed = CriticalBleed.ALL_MISS
    reaction_reset: ReactionReset = ReactionReset.TURN
    reaction_die: str = "1d10"
    emotion_threshold: int = Field(default=4, ge=1, le=20)

    @field_validator("die_faces")
    @classmethod
    def _faces(cls, value: str) -> str:
        faces = value.replace(" ", "").upper()
        if not _FACES.match(faces) or "C" not in faces:
            raise ValueError("die faces are 2 to 20 letters of M, H and C, with at least one C")
        return faces

    @field_validator("reaction_die")
    @classmethod
    def _reaction_die(cls, value: str) -> str:
        from rules.notation import parse  # late import: notation needs no models
        from rules.outcome import RuleError

        try:
            parse(value)
        except RuleError as error:
            raise ValueError(str(error)) from None
        return value.strip()


class Sheet(BaseModel):
    """One character (section 1). Immutable: every action returns a new sheet."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    owner_id: int
    max_vit: int = Field(default=10, ge=1, le=999)
    vit: int = 10
    res: int = Field(default=2, ge=0, le=20)
    con_base: ConSize = 8
    con_wounds: int = Field(default=0, ge=0, le=3)
    stamina: int = Field(default=8, ge=0)
    humility: int = Field(default=0, ge=-10, le=20)
    composure: int = Field(default=0, ge=-10, le=20)
    insight: int = Field(default=0, ge=-10, le=20)
    threshold: int = Field(default=4, ge=1, le=20)
    anger: int = Field(default=0, ge=0)
    fear: int = Field(default=0, ge=0)
    sadness: int = Field(default=0, ge=0)
    guilt: int = Field(default=0, ge=0)
    stress: int = Field(default=0, ge=0)
    breakdown: Emotion | None = None
    dead: bool = False
    retired: bool = False
    advantage: bool = False
    relief_used_today: bool = False
    daily_bonus: bool = False
    reactions_taken: int = Field(default=0, ge=0)
    early_this_round: bool = False
    recovered_this_round: bool = False

    _name = field_validator("name")(lambda cls, v: clean_name(v))

    @model_validator(mode="after")
    def _ranges(self) -> Sheet:
        if self.vit > self.max_vit:
            raise ValueError(f"VIT {self.vit} is above max VIT {self.max_vit}")
        if self.stamina > self.max_stamina:
            raise ValueError(f"Stamina {self.stamina} is above its maximum {self.max_stamina}")
        for emotion in Emotion:
            if self.stack(emotion) > self.threshold:
                raise ValueError(
                    f"{emotion.label} {self.stack(emotion)} is above the threshold {self.threshold}"
                )
        return self

    # Derived values: never stored, so they can never disagree with the sheet.

    @property
    def con_die(self) -> int:
        """S-2: each wound steps the base die down one size; d6 is the floor."""
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
        if self.vit > 0:
            return State.UP
        if self.res + self.vit <= 0:
            return State.DYING
        if self.vit == 0:
            return State.UNCONSCIOUS
        return State.CRITICAL

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
        return getattr(self, emotion.value)

    @property
    def stacks(self) -> dict[Emotion, int]:
        return {emotion: self.stack(emotion) for emotion in Emotion}

    def update(self, **changes: object) -> Sheet:
        """A validated copy (model_copy alone would skip validation)."""
        return Sheet.model_validate({**self.model_dump(), **changes})
