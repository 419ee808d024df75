"""Requests to the issue tracker: "アプリに○○が欲しい" becomes an issue in a configured GitHub repository.

``IssueTracker`` speaks GitHub's REST API (``POST /repos/{owner}/{repo}/issues`` with a
token); ``request_tool`` makes the butler's ``request_feature`` tool of it. It is an
*external* write (``tool(external=True)``): always a card, on no allow-list, never proposed
in a turn with outside text in it, and LINE answers it with "open the app to confirm"
rather than buttons. The issue's body says which household member asked, and nothing else
of the household's data.

Settings are read at the edge (``config.Settings.github``, through ``_github.github_settings``:
``SHITSUJI_GITHUB_REPO``, ``SHITSUJI_GITHUB_TOKEN``, ``SHITSUJI_GITHUB_API_URL``); without a
repository and token there is no tool.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

import httpx
from pydantic import Field

from ..agent import Tool, tool
from ..errors import ShitsujiError
from ._deps import Ctx
from ._github import GitHubSettings


class IssueTrackerError(ShitsujiError):
    """GitHub refused or could not be reached; the message says what to fix."""


@dataclass(frozen=True, slots=True)
class Issue:
    number: int
    url: str
    title: str


class IssueTracker:
    """Creates issues in one repository through GitHub's REST API."""

    def __init__(self, settings: GitHubSettings, *, timeout: float = 15.0) -> None:
        self.settings = settings
        self.timeout = timeout

    async def create(self, title: str, body: str) -> Issue:
        s = self.settings
        headers = {
            "Accept": "application/vnd.github+json",
            "Authorization": f"Bearer {s.token}",
            "X-GitHub-Api-Version": "2022-11-28",
            "User-Agent": "shitsuji",
        }
        payload: dict[str, Any] = {"title": title, "body": body}
        try:
            async with httpx.AsyncClient(timeout=self.timeout) as client:
                response = await client.post(
                    f"{s.api_url}/repos/{s.repo}/issues", json=payload, headers=headers
                )
        except httpx.HTTPError as exc:
            raise IssueTrackerError(
                f"GitHub could not be reached ({type(exc).__name__}): try again later"
            ) from exc
        if response.status_code != 201:
            raise IssueTrackerError(_refusal(response, s.repo))
        data = response.json()
        return Issue(int(data["number"]), str(data["html_url"]), str(data["title"]))


def _refusal(response: httpx.Response, repo: str) -> str:
    try:
        said = str(response.json().get("message", ""))
    except ValueError:
        said = response.text[:200]
    hint = {
        401: "the token is wrong or expired: set SHITSUJI_GITHUB_TOKEN again",
        403: "the token may not create issues there",
        404: f"no repository {repo} for this token (or issues are off)",
        410: "issues are turned off in that repository",
        422: "GitHub refused the issue's fields",
    }.get(response.status_code, "try again later")
    return f"GitHub answered {response.status_code} ({said}): {hint}"


def request_tool(tracker: IssueTracker) -> Tool:
    """The butler's ``request_feature`` tool, filing to ``tracker``'s repository."""

    @tool(effect="write", external=True, summary=lambda a: f"アプリへの要望「{a['title']}」をGitHubに登録")
    async def request_feature(
        ctx: Ctx,
        title: Annotated[
            str, Field(min_length=1, max_length=200, description="What the app should do, short.")
        ],
        details: Annotated[
            str | None, Field(max_length=4000, description="The person's words, more fully.")
        ] = None,
    ) -> str:
        """File the person's request for the app ("アプリに○○が欲しい") as an issue in the app's tracker."""
        body = f"{details or title}\n\n— requested by {ctx.user} of household {ctx.household} via shitsuji"
        issue = await tracker.create(" ".join(title.split()), body)
        return f"filed issue #{issue.number}: {issue.url}"

    return request_feature
