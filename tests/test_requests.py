"""Requests to the issue tracker: the real httpx client against a local GitHub REST API, and the
external-write class — always a card, ignored by any allow-list, never proposed on outside text,
on LINE "open the app to confirm" — with the issue filed once it is approved in the app."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import pytest

from shitsuji.agent import ChannelPolicy, ToolContext, tool
from shitsuji.errors import UserInputError
from shitsuji.household import GitHubSettings, IssueTracker, IssueTrackerError, github_settings, request_tool
from shitsuji.llm import text_response, tool_use_response

from .fake_github import FakeGitHub
from .line_support import HUSBAND, WIFE, LineSite, line_site
from .test_line_turns import messages_to
from .web_support import PASSWORD

TOKEN, REPO = "ghp_test_token", "futari-app/shitsuji"


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    with FakeGitHub(TOKEN, REPO) as fake:
        yield fake


def tracker(github: FakeGitHub, *, token: str = TOKEN, repo: str = REPO) -> IssueTracker:
    return IssueTracker(GitHubSettings(repo, token, github.url))


def test_an_issue_is_created_through_the_rest_api(github: FakeGitHub) -> None:
    issue = asyncio.run(tracker(github).create("カレンダーの共有", "アプリに共有カレンダーが欲しい"))
    assert (issue.number, issue.title) == (1, "カレンダーの共有")
    assert issue.url == f"https://github.com/{REPO}/issues/1" and github.issues[0]["body"].startswith(
        "アプリに"
    )


@pytest.mark.parametrize(
    ("token", "repo", "title", "said"),
    [
        ("ghp_wrong", REPO, "x", "401 (Bad credentials): the token is wrong"),
        (TOKEN, "someone/else", "x", "404 (Not Found): no repository someone/else"),
        (TOKEN, REPO, "", "422 (Validation Failed)"),
    ],
)
def test_what_github_refuses_is_said_plainly(
    github: FakeGitHub, token: str, repo: str, title: str, said: str
) -> None:
    with pytest.raises(IssueTrackerError, match=said.replace("(", r"\(").replace(")", r"\)")):
        asyncio.run(tracker(github, token=token, repo=repo).create(title, "body"))
    assert github.issues == []


def test_settings_come_from_the_environment_and_are_checked() -> None:
    assert github_settings({}) is None
    found = github_settings({"SHITSUJI_GITHUB_REPO": REPO, "SHITSUJI_GITHUB_TOKEN": TOKEN})
    assert found is not None and found.api_url == "https://api.github.com" and TOKEN not in repr(found)
    with pytest.raises(UserInputError, match="SHITSUJI_GITHUB_TOKEN"):
        github_settings({"SHITSUJI_GITHUB_REPO": REPO})
    with pytest.raises(UserInputError, match="owner/name"):
        github_settings({"SHITSUJI_GITHUB_REPO": "not a repo", "SHITSUJI_GITHUB_TOKEN": TOKEN})


def test_the_external_class_is_known_by_the_tools_mark_not_its_name() -> None:
    @tool(effect="write", external=True)
    async def post_somewhere(ctx: ToolContext[None]) -> str:
        """A new external write nobody listed."""
        return "sent"

    listed = ChannelPolicy(frozenset({"post_somewhere", "request_feature"}))
    assert not listed.may_auto_run("post_somewhere", tainted=False, external=post_somewhere.external)
    assert listed.may_auto_run("post_somewhere", tainted=False)  # the same name unmarked would run
    with pytest.raises(ValueError, match="external tool is a write"):
        tool(effect="read", external=True)


@pytest.fixture
def site(target: str, github: FakeGitHub) -> Iterator[LineSite]:
    with line_site(target, extra_tools=[request_tool(tracker(github))]) as running:
        running.link(WIFE, "wife")
        running.link(HUSBAND, "husband")
        yield running


def ask_for_a_feature(site: LineSite, text: str = "アプリに共有カレンダーが欲しい") -> None:
    site.script.then(
        tool_use_response(("toolu_g", "request_feature", {"title": "共有カレンダー", "details": text})),
        text_response("アプリで確認してください。"),
    )
    site.say(WIFE, text)
    site.settled()


def test_on_line_it_is_open_the_app_to_confirm_even_on_an_allow_list_then_filed_once_approved(
    site: LineSite, github: FakeGitHub
) -> None:
    site.backend.butler.service.assistant.policies["line"] = ChannelPolicy(frozenset({"request_feature"}))
    ask_for_a_feature(site)
    shown = messages_to(site, WIFE)
    assert all(m["type"] == "text" for m in shown)  # no buttons
    assert any("アプリを開いて確認してください" in m["text"] for m in shown)
    assert github.issues == []
    client = site.client
    me = client.post(
        f"{site.url}/api/session", json={"user": "wife", "password": PASSWORD, "household": "futari"}
    )
    [card] = client.get(f"{site.url}/api/proposals?state=pending").json()
    assert card["tool"] == "request_feature"
    approved = client.post(
        f"{site.url}/api/proposals/{card['id']}/approve", headers={"X-CSRF-Token": me.json()["csrf"]}
    )
    assert approved.status_code == 200
    [issue] = github.issues
    assert issue["title"] == "共有カレンダー" and "requested by wife of household futari" in issue["body"]


def test_never_proposed_on_outside_text(site: LineSite, github: FakeGitHub) -> None:
    pasted = "転送します。\n\n---------- Forwarded message ---------\nFrom: x@example.com\nアプリに外部送信機能が欲しい"
    ask_for_a_feature(site, pasted)
    assert site.backend.butler.proposals.list(household="futari") == []
    results = str(site.script.requests[-1].messages)
    assert "never proposed while outside text is in the conversation" in results
    assert github.issues == []
