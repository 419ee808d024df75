"""Who may see what: the one visibility rule every read path applies (``Viewer``)."""

from ._rule import (
    HOUSEHOLD_ROOT,
    Viewer,
    household_of_scope,
    member_of_scope,
    member_scope,
    shared_scope,
)

__all__ = [
    "HOUSEHOLD_ROOT",
    "Viewer",
    "household_of_scope",
    "member_of_scope",
    "member_scope",
    "shared_scope",
]
