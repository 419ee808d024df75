"""The ``shitsuji`` Typer application and the options every command shares."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.console import Console

from ..config import Settings
from ..memory import MemoryEngine, SQLiteMemoryStore, load_embedder

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
    db: Path | None = None
    embedder: str | None = None
    _engine: MemoryEngine | None = None

    def settings(self) -> Settings:
        return Settings.resolve(self.db, self.embedder)

    def engine(self) -> MemoryEngine:
        if self._engine is None:
            settings = self.settings()
            self._engine = MemoryEngine(SQLiteMemoryStore(settings.db), load_embedder(settings.embedder))
        return self._engine


STATE = State()


@app.callback()
def _root(
    db: Annotated[
        Path | None,
        typer.Option("--db", help="Database file (env SHITSUJI_DB; default in the user data dir)."),
    ] = None,
    embedder: Annotated[
        str | None,
        typer.Option("--embedder", help="Embedding model: use (default), e5, hash. Env SHITSUJI_EMBEDDER."),
    ] = None,
) -> None:
    STATE.db = db
    STATE.embedder = embedder
    STATE._engine = None


def print_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, ensure_ascii=False, indent=2) + "\n")
