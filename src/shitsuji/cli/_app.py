"""The ``shitsuji`` Typer application and the options every command shares."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

if TYPE_CHECKING:  # the settings and the stores are imported when a command needs them
    from ..agent import Tool
    from ..config import Settings
    from ..household import Butler
    from ..memory import MemoryEngine
    from ..store import Database

app = typer.Typer(
    name="shitsuji",
    help="shitsuji (執事): long-term memory and a safe agent runtime. Every command takes --json.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
)


def _console(*, stderr: bool) -> Console:
    """A terminal gets rich's layout; a pipe or a log gets each line whole (no wrapping at 80 columns,
    so an error stays one line a script can grep)."""
    tty = (sys.stderr if stderr else sys.stdout).isatty()
    return Console(stderr=stderr, highlight=False, soft_wrap=not tty, width=None if tty else 100_000)


console = _console(stderr=False)
err_console = _console(stderr=True)

JsonFlag = Annotated[bool, typer.Option("--json", help="Print machine-readable JSON instead of text.")]
ScopeOpt = Annotated[str, typer.Option("--scope", "-s", help="Scope path, e.g. household/futari/user/wife.")]


@dataclass
class State:
    """The global flags, and the settings read from them and the environment once per command."""

    db: Path | None = None
    database_url: str | None = None
    embedder: str | None = None
    _settings: Settings | None = None
    _engine: MemoryEngine | None = None

    def settings(self) -> Settings:
        if self._settings is None:
            from ..config import Settings

            self._settings = Settings.from_env(
                db=self.db, embedder=self.embedder, database_url=self.database_url
            )
            self._settings.use_replica()  # reads that may lag go to SHITSUJI_REPLICA_URL, if set
        return self._settings

    def require_database(self) -> None:
        """Commands that read (or change what is there) refuse a database file that does not exist
        rather than create an empty one: a mistyped --db must not look like an empty memory."""
        from ..errors import UserInputError

        settings = self.settings()
        if settings.database_url is None and not settings.db.exists():
            raise UserInputError(
                f"no database at {settings.db}: check --db or SHITSUJI_DB, or start one with "
                "`shitsuji household init --name NAME --member YOUR_ID` (or `shitsuji remember …`)"
            )

    def database(self) -> Database:
        """The process's one database for these settings (every store is handed it)."""
        from ..store import database

        return database(self.settings().database)

    def engine(self) -> MemoryEngine:
        if self._engine is None:
            from ..memory import open_engine

            settings = self.settings()
            self._engine = open_engine(settings.database, settings.embedder, cache_dir=settings.cache_dir)
        return self._engine

    def butler(self, *, need_model: bool = True, panels: bool = False, model: bool = True) -> Butler:
        """The household butler over these settings; without a model endpoint it only decides cards
        (``need_model`` False) or the command fails saying what to set. ``model`` False: a command that
        never talks to the model (cards from the terminal) does not open one at all."""
        from ..errors import ModelError
        from ..household import Butler
        from ..llm import NO_ENDPOINT, Model, open_model

        settings = self.settings()
        chosen: Model | None = None
        problem = None
        try:
            chosen = open_model(settings.endpoint, settings.capabilities()) if model else None
        except ModelError as exc:
            if need_model:
                raise
            problem = str(exc)
        return Butler(
            self.database(),
            self.engine(),
            chosen,
            modes=settings.modes(),
            router_model=settings.router_model,
            extraction=settings.extraction(),
            safety=settings.safety(),
            panels=panels,
            extra_tools=self.request_tools(),
            no_model=problem or NO_ENDPOINT,
        )

    def request_tools(self) -> list[Tool]:
        """``request_feature`` when an issue tracker is configured (``SHITSUJI_GITHUB_REPO`` and ``…_TOKEN``)."""
        found = self.settings().github
        if found is None:
            return []
        from ..household import IssueTracker, request_tool

        return [request_tool(IssueTracker(found))]


STATE = State()


def _print_version(value: bool) -> None:
    if value:
        from .. import __version__

        console.print(f"shitsuji {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    db: Annotated[
        Path | None,
        typer.Option("--db", help="Database file (env SHITSUJI_DB; default in the user data dir)."),
    ] = None,
    database_url: Annotated[
        str | None,
        typer.Option(
            "--database-url",
            help="postgresql://… : keep everything in PostgreSQL instead of the --db file. Env SHITSUJI_DATABASE_URL.",
        ),
    ] = None,
    embedder: Annotated[
        str | None,
        typer.Option("--embedder", help="Embedding model: use (default), e5, hash. Env SHITSUJI_EMBEDDER."),
    ] = None,
    version: Annotated[
        bool,
        typer.Option("--version", is_eager=True, callback=_print_version, help="Print the version and exit."),
    ] = False,
) -> None:
    STATE.db = db
    STATE.database_url = database_url
    STATE.embedder = embedder
    STATE._settings = None
    STATE._engine = None


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")
