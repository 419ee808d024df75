"""Scopes are paths: ``household/futari/user/wife``, ``projects/acme/api``.

A reader at a scope sees that scope and its ancestors, never siblings or descendants.
Ancestors are further away (distance 1 for the parent, 2 for the grandparent …), and
recall ranks them lower by that distance. This one rule gives per-person isolation in a
shared household and project hierarchies for coding agents.
"""

from __future__ import annotations

import re
from typing import Final

from ..errors import UserInputError

_SEGMENT: Final = re.compile(r"^[^/\s\x00-\x1f]{1,100}$")
# Characters that make two scopes (or names) look alike on screen: zero-width, bidi controls,
# and lone surrogates (not text at all). Refused in every segment.
INVISIBLE: Final = re.compile(
    r"[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff\u061c\u180e\ud800-\udfff]"
)
MAX_DEPTH: Final = 32


def normalize_scope(scope: str) -> str:
    """Return the canonical form of a scope path, or raise ``UserInputError``.

    Leading/trailing slashes are dropped; segments may be any non-space text (Japanese
    included) but not ``.`` or ``..``.
    """
    raw = scope.strip().strip("/")
    if not raw:
        raise UserInputError("scope is empty: give a path such as household/futari/user/wife")
    parts = raw.split("/")
    if len(parts) > MAX_DEPTH:
        raise UserInputError(f"scope {scope!r} is deeper than {MAX_DEPTH} segments")
    for part in parts:
        if INVISIBLE.search(part):
            raise UserInputError(
                f"scope {scope.encode('unicode_escape').decode()!r} holds an invisible or control character "
                "(zero-width, text-direction or a broken surrogate): type the scope again"
            )
        if part in (".", "..") or not _SEGMENT.match(part):
            raise UserInputError(
                f"scope {scope!r} is not valid: segments are separated by '/', and may not be empty, "
                "contain spaces, or be '.' or '..'"
            )
    return "/".join(parts)


def lineage(scope: str) -> list[str]:
    """The scope followed by its ancestors, nearest first: a/b/c → [a/b/c, a/b, a]."""
    parts = normalize_scope(scope).split("/")
    return ["/".join(parts[:i]) for i in range(len(parts), 0, -1)]


def distance(reader: str, owner: str) -> int | None:
    """How many levels ``owner`` is above ``reader``; None when the reader may not see it."""
    chain = lineage(reader)
    try:
        return chain.index(owner)
    except ValueError:
        return None
