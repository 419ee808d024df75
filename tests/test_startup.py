"""A command imports only what it uses: listing the commands, or running one that reads the
household's lists, never pays for the web app, the LINE SDK, the model SDKs or numpy."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import shitsuji

HEAVY = ("numpy", "linebot", "fastapi", "starlette", "anthropic", "openai", "mcp", "psycopg", "pydantic")


def _modules_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


def test_importing_the_command_line_loads_no_heavy_package() -> None:
    assert _heavy(_modules_after("import shitsuji.cli")) == []


@pytest.mark.parametrize(
    "code",
    [
        "from shitsuji.household import HouseholdStore",
        "from shitsuji.web import Accounts, check_password",
        "from shitsuji.memory import normalize_scope",
        "from shitsuji.mcp import project_scope",
        "from shitsuji.line import CODE_TTL, LINE_SCHEMA, LineLinks, inbox_path",
    ],
)
def test_light_names_load_without_the_heavy_packages(code: str) -> None:
    assert _heavy(_modules_after(code)) == []


def test_the_lazy_names_still_resolve() -> None:
    from shitsuji import household, line, memory, web

    for package in (household, line, memory, web):
        for name in package.__all__:
            assert getattr(package, name) is not None, (package.__name__, name)
    with pytest.raises(AttributeError):
        _ = household.NoSuchThing  # type: ignore[attr-defined]


def test_version_flag_prints_the_version(tmp_path: object) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; from shitsuji.cli import main; sys.argv[0] = 'shitsuji'; main()",
            "--version",
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"shitsuji {shitsuji.__version__}"
