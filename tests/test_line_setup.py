"""Setting the LINE channel up: its settings read once at the edge, the CLI's link code and worker,
and the worker in its own thread as `shitsuji serve` runs it."""

from __future__ import annotations

from pathlib import Path

import pytest

from shitsuji.config import Settings
from shitsuji.errors import UserInputError
from shitsuji.household import HouseholdStore
from shitsuji.line import LineLinks
from shitsuji.llm import text_response, tool_use_response
from shitsuji.store import database

from .conftest import Cli
from .line_support import WIFE, line_site


def test_line_settings_come_from_the_environment_and_never_show_the_secrets() -> None:
    assert Settings.from_env({}, db="x.db").line is None
    env = {
        "SHITSUJI_LINE_CHANNEL_SECRET": "s3cret",
        "SHITSUJI_LINE_CHANNEL_TOKEN": "t0ken",
        "SHITSUJI_LINE_API_URL": "http://127.0.0.1:9",
        "SHITSUJI_LINE_PUSH_RATE": "20",
    }
    line = Settings.from_env(env, db="x.db").line
    assert line is not None and (line.channel_secret, line.channel_token) == ("s3cret", "t0ken")
    assert line.api_url == "http://127.0.0.1:9" and line.push_rate == 20.0
    assert "s3cret" not in repr(line) and "t0ken" not in repr(Settings.from_env(env, db="x.db"))
    with pytest.raises(UserInputError, match="SHITSUJI_LINE_CHANNEL_TOKEN"):
        Settings.from_env({"SHITSUJI_LINE_CHANNEL_SECRET": "s"}, db="x.db")
    with pytest.raises(UserInputError, match="SHITSUJI_LINE_PUSH_RATE"):
        Settings.from_env({**env, "SHITSUJI_LINE_PUSH_RATE": "-1"}, db="x.db")


def test_line_link_prints_a_code_that_links_once(cli: Cli, db_path: Path) -> None:
    store = HouseholdStore(database(db_path))
    store.create("futari", ["wife", "husband"])
    store.close()
    made = cli("line", "link", "wife", "--json")
    assert made.code == 0 and made.json()["household"] == "futari"
    links = LineLinks(database(db_path))
    link = links.redeem(WIFE, made.json()["code"])
    assert link is not None and (link.household, link.member) == ("futari", "wife")
    assert links.redeem(WIFE, made.json()["code"]) is None
    links.close()
    stranger = cli("line", "link", "neighbour")
    assert stranger.code == 1 and "neighbour" in stranger.err
    text = cli("line", "link", "husband")
    assert text.code == 0 and "LINE" in text.out


def test_the_worker_says_what_to_set_without_line_settings(cli: Cli) -> None:
    run = cli("worker")
    assert run.code == 1 and "SHITSUJI_LINE_CHANNEL_SECRET" in run.err


def test_the_worker_in_its_own_thread_answers_like_the_one_on_the_loop(target: str) -> None:
    with line_site(target, thread=True) as site:
        site.link(WIFE, "wife")
        site.script.then(
            tool_use_response(("toolu_1", "add_shopping_item", {"name": "牛乳"})),
            text_response("牛乳を入れました。"),
        )
        site.say(WIFE, "牛乳買っといて")
        site.settled()
        assert site.answers(WIFE) == ["牛乳を入れました。"]
        assert [i.name for i in site.backend.store.shopping_items("futari")] == ["牛乳"]
