"""The ``shitsuji`` Typer application and the options every command shares."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console

from ..config import Settings
from ..memory import MemoryEngine, open_engine
from ..store import Database, database

if TYPE_CHECKING:
    from ..household import Butler

app = typer.Typer(
    name="shitsuji",
    help="shitsuji (執事): long-term memory and a safe agent runtime. Every command takes --json.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
console = Console(highlight=False)
err_console = Console(stderr=True, highlight=False)

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
            self._settings = Settings.from_env(
                db=self.db, embedder=self.embedder, database_url=self.database_url
            )
        return self._settings

    def database(self) -> Database:
        """The process's one database for these settings (every store is handed it)."""
        return database(self.settings().database)

    def engine(self) -> MemoryEngine:
        if self._engine is None:
            settings = self.settings()
            self._engine = open_engine(settings.database, settings.embedder, cache_dir=settings.cache_dir)
        return self._engine

    def butler(self, *, need_model: bool = True, panels: bool = False) -> Butler:
        """The household butler over these settings; without a model endpoint it only decides cards
        (``need_model`` False) or the command fails saying what to set."""
        from ..errors import ModelError
        from ..household import Butler
        from ..llm import NO_ENDPOINT, Model, open_model

        settings = self.settings()
        model: Model | None = None
        problem = None
        try:
            model = open_model(settings.endpoint)
        except ModelError as exc:
            if need_model:
                raise
            problem = str(exc)
        return Butler(
            self.database(),
            self.engine(),
            model,
            modes=settings.modes(),
            router_model=settings.router_model,
            extraction=settings.extraction(),
            safety=settings.safety(),
            panels=panels,
            no_model=problem or NO_ENDPOINT,
        )


STATE = State()


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
) -> None:
    STATE.db = db
    STATE.database_url = database_url
    STATE.embedder = embedder
    STATE._settings = None
    STATE._engine = None


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")
