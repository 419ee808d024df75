"""Who is signed in, and how stored messages read on a page."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..privacy import Viewer


@dataclass(frozen=True, slots=True)
class Member:
    """A signed-in member: the pair (household, user), and their session's CSRF token."""

    household: str
    user: str
    csrf: str = ""

    @property
    def viewer(self) -> Viewer:
        """What this member may see (``privacy``'s one rule)."""
        return Viewer(self.household, self.user)


def message_text(content: Any) -> str:
    """The words of a stored message: its text blocks (stored messages hold no notes for the model)."""
    if isinstance(content, str):
        return content.strip()
    return "\n".join(
        b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text"
    ).strip()


def tools_used(content: Any) -> list[str]:
    if isinstance(content, str):
        return []
    return [b["name"] for b in content if isinstance(b, dict) and b.get("type") == "tool_use"]
