"""The one visibility rule: a member sees their household's shared things and their own private things.

Every record carries, from the moment it is written, the household it belongs to and its
scope: ``household/<name>`` (shared by the household) or ``household/<name>/user/<member>``
(that member's own). A record without a household or a scope is nobody's to see in the
apps (only the server's command line without ``--user`` shows it). Every read path —
web pages, the JSON API, the live stream, CLI views with ``--user``, LINE answers — asks
``Viewer.sees`` (in Python) or ``Viewer.where`` (in SQL), so the rule lives here once
instead of in each view's field matching.
"""

from __future__ import annotations

from dataclasses import dataclass

HOUSEHOLD_ROOT = "household"


def shared_scope(household: str) -> str:
    """The household's shared scope; each member's own scope sits below it."""
    return f"{HOUSEHOLD_ROOT}/{household}"


def member_scope(household: str, member: str) -> str:
    """A member's own (private) scope."""
    return f"{shared_scope(household)}/user/{member}"


def household_of_scope(scope: str) -> str | None:
    """The household a scope belongs to (``household/<name>/…``), if any."""
    parts = scope.split("/")
    return parts[1] if len(parts) >= 2 and parts[0] == HOUSEHOLD_ROOT else None


def member_of_scope(scope: str) -> str | None:
    """The member whose own scope this is (``household/<name>/user/<member>``), else None."""
    parts = scope.split("/")
    if len(parts) == 4 and parts[0] == HOUSEHOLD_ROOT and parts[2] == "user":
        return parts[3]
    return None


@dataclass(frozen=True, slots=True)
class Viewer:
    """A member looking: the pair (household, member), from a verified identity only."""

    household: str
    member: str

    @property
    def own(self) -> str:
        return member_scope(self.household, self.member)

    @property
    def shared(self) -> str:
        return shared_scope(self.household)

    @property
    def scopes(self) -> tuple[str, str]:
        """(own, shared): the only scopes this member sees."""
        return self.own, self.shared

    def sees(self, household: str | None, scope: str | None) -> bool:
        """Whether a record of ``household`` in ``scope`` is this member's to see."""
        return household == self.household and scope in self.scopes

    def where(self, household: str = "household", scope: str = "scope") -> tuple[str, list[str]]:
        """The same rule as an SQL condition on the named columns, with its parameters."""
        return f"({household} = ? AND {scope} IN (?, ?))", [self.household, self.own, self.shared]
