"""The words of one request: the page's language (cookie, else ``Accept-Language``) and the household's zone.

Pages and the JSON API both use it, so a card streamed into a page and the same card
rendered after a reload read the same: the same language, the same times.
"""

from __future__ import annotations

from fastapi import Request

from ..errors import Refusal, UserInputError
from ..household import Household
from ..household._values import zone_of
from ..safety import InputRejected
from ._i18n import Words, choose
from ._member import Member
from ._security import LANG_COOKIE, backend_of

__all__ = ["Refusal", "said", "words"]


def words(request: Request, member: Member | None = None, home: Household | None = None) -> Words:
    """``member``'s household zone for times (signed out: the server's); ``home``: their household as
    read already this request (not read again)."""
    lang = choose(request.cookies.get(LANG_COOKIE), request.headers.get("accept-language"))
    if member is None:
        return Words(lang, None)
    if home is not None and home.name == member.household:
        return Words(lang, zone_of(home.time_zone))
    return Words(lang, backend_of(request).store.zone(member.household))


def said(t: Words, exc: UserInputError) -> str:
    """An input error in the page's language when it is a ``Refusal`` or a refused message (its own
    reason: a card number is not "too long"), else as it was raised."""
    if isinstance(exc, Refusal):
        return t(exc.key, **exc.values)
    if isinstance(exc, InputRejected) and t.lang == "ja":
        return exc.message_ja
    return str(exc)
