"""The rules for names, time zones and new passwords typed into a web form, in the member's words.

Shared by the first-run setup page (``_pages``) and the settings pages (``_settings``), below both
so that neither imports the other.
"""

from __future__ import annotations

from functools import cache
from zoneinfo import available_timezones

from ..errors import UserInputError
from ..household._values import check_name, check_time_zone
from ._accounts import check_password
from ._locale import Refusal


@cache
def time_zones() -> list[str]:
    """Every IANA zone this machine knows, for the pickers (Asia/Tokyo first)."""
    return ["Asia/Tokyo", *sorted(z for z in available_timezones() if "/" in z and z != "Asia/Tokyo"), "UTC"]


def household_name(value: str) -> str:
    try:
        return check_name(value, "household name")
    except UserInputError as exc:
        raise Refusal("bad_household", str(exc), name=value) from None


def member_name(value: str) -> str:
    try:
        return check_name(value, "member")
    except UserInputError as exc:
        raise Refusal("bad_user", str(exc), name=value) from None


def zone_name(value: str) -> str:
    try:
        return check_time_zone(value)
    except UserInputError as exc:
        raise Refusal("bad_time_zone", str(exc), zone=value) from None


def new_password(password: str, again: str) -> str:
    if password != again:
        raise Refusal("passwords_differ", "the passwords differ")
    try:
        return check_password(password)
    except UserInputError as exc:
        raise Refusal("password_short", str(exc)) from None
