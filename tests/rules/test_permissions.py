"""Who may do what: P-1..P-4."""

from __future__ import annotations

import pytest

from bot.services.context import Permission as ReExported
from rules.errors import RuleError
from rules.models import GuildSettings
from rules.permissions import Permission, check, is_gm

OWNER, OTHER = 100, 200


def test_P_1_manage_server_is_gm():
    assert is_gm(GuildSettings(), True, [])
    assert is_gm(GuildSettings(gm_role_id=5), True, [])


def test_P_1_the_gm_role_is_gm():
    settings = GuildSettings(gm_role_id=5)
    assert is_gm(settings, False, [1, 5])
    assert not is_gm(settings, False, [1, 2])
    assert not is_gm(GuildSettings(), False, [5])


def test_P_2_a_player_acts_on_its_own_characters():
    check(Permission.OWNER_OR_GM, is_gm=False, owner_id=OWNER, user_id=OWNER)
    with pytest.raises(RuleError, match="belongs to another player"):
        check(Permission.OWNER_OR_GM, is_gm=False, owner_id=OWNER, user_id=OTHER)


def test_P_2_the_gm_acts_on_every_character():
    check(Permission.OWNER_OR_GM, is_gm=True, owner_id=OWNER, user_id=OTHER)
    check(Permission.GM, is_gm=True, owner_id=OWNER, user_id=OTHER)


def test_P_3_gm_only_actions_refuse_players_even_owners():
    with pytest.raises(RuleError, match="Only the GM"):
        check(Permission.GM, is_gm=False, owner_id=OWNER, user_id=OWNER)


def test_P_4_first_aid_is_open_to_anyone():
    check(Permission.ANYONE, is_gm=False, owner_id=OWNER, user_id=OTHER)
    check(Permission.ANYONE, is_gm=False, owner_id=None, user_id=OTHER)


def test_P_4_owner_or_gm_refuses_an_unowned_character_to_a_player():
    with pytest.raises(RuleError):
        check(Permission.OWNER_OR_GM, is_gm=False, owner_id=None, user_id=OTHER)


def test_P_4_the_bot_reexports_the_same_permission_enum():
    assert ReExported is Permission
