"""Where requests for the app are filed: a GitHub repository and a token, read once at the edge.

``config.Settings`` reads these with every other setting; they live apart from the tracker
(``_requests``: httpx, the tool's pydantic schema) so that reading the settings stays light.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from ..errors import UserInputError

GITHUB_API = "https://api.github.com"
_REPO = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,38}/[A-Za-z0-9._-]{1,100}$")


@dataclass(frozen=True, slots=True)
class GitHubSettings:
    repo: str  # owner/name
    token: str
    api_url: str = GITHUB_API

    def __repr__(self) -> str:  # never print the token
        return f"GitHubSettings(repo={self.repo!r}, api_url={self.api_url!r})"


def github_settings(env: Mapping[str, str]) -> GitHubSettings | None:
    """The tracker's settings from the environment, or None when no repository is configured."""
    repo, token = (env.get("SHITSUJI_GITHUB_REPO") or "").strip(), env.get("SHITSUJI_GITHUB_TOKEN") or ""
    if not repo and not token:
        return None
    if not _REPO.match(repo) or not token:
        raise UserInputError(
            "requests to the issue tracker need SHITSUJI_GITHUB_REPO (owner/name) and SHITSUJI_GITHUB_TOKEN "
            "(a token that may create issues there)"
        )
    return GitHubSettings(repo, token, (env.get("SHITSUJI_GITHUB_API_URL") or GITHUB_API).rstrip("/"))
