"""Settings read once at the edge: the LINE push budget and the issue tracker come from
``config.Settings`` (flags, then the environment), checked there, and never print a secret."""

from __future__ import annotations

import pytest

from shitsuji.config import Settings
from shitsuji.errors import UserInputError
from shitsuji.schedule import Budget

REPO, TOKEN = "futari/shitsuji", "ghp_s3cret"


def test_the_push_budget_defaults_to_the_free_plan_and_folds_at_a_quarter() -> None:
    assert Settings.from_env({}, db="x.db").budget() == Budget(200, 50)
    assert Settings.from_env({"SHITSUJI_LINE_PUSH_BUDGET": "1000"}, db="x.db").budget() == Budget(1000, 250)
    env = {"SHITSUJI_LINE_PUSH_BUDGET": "0", "SHITSUJI_LINE_FOLD_BELOW": "7"}
    assert Settings.from_env(env, db="x.db").budget() == Budget(0, 7)
    # typed on a Japanese keyboard in full width, the number is still the number
    assert Settings.from_env({"SHITSUJI_LINE_PUSH_BUDGET": "４００"}, db="x.db").budget() == Budget(400, 100)


@pytest.mark.parametrize("name", ["SHITSUJI_LINE_PUSH_BUDGET", "SHITSUJI_LINE_FOLD_BELOW"])
@pytest.mark.parametrize("value", ["-1", "ten", "1.5"])
def test_a_push_count_that_is_not_a_whole_number_is_refused_by_name(name: str, value: str) -> None:
    with pytest.raises(UserInputError, match=f"{name} must be a whole number"):
        Settings.from_env({name: value}, db="x.db")


def test_the_issue_tracker_is_read_with_the_settings_and_its_token_never_shown() -> None:
    assert Settings.from_env({}, db="x.db").github is None
    settings = Settings.from_env({"SHITSUJI_GITHUB_REPO": REPO, "SHITSUJI_GITHUB_TOKEN": TOKEN}, db="x.db")
    assert settings.github is not None and settings.github.repo == REPO and settings.github.token == TOKEN
    assert TOKEN not in repr(settings)
    with pytest.raises(UserInputError, match="SHITSUJI_GITHUB_TOKEN"):
        Settings.from_env({"SHITSUJI_GITHUB_REPO": REPO}, db="x.db")
