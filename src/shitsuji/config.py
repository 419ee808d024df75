"""Where shitsuji keeps its data and which embedder it uses, from flags or the environment.

| setting  | flag         | environment          | default                                   |
|----------|--------------|----------------------|-------------------------------------------|
| database | ``--db``     | ``SHITSUJI_DB``      | ``<user data dir>/shitsuji/shitsuji.db``  |
| embedder | ``--embedder`` | ``SHITSUJI_EMBEDDER`` | ``use``                                 |
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .memory import DEFAULT_EMBEDDER, MemoryEngine, SQLiteMemoryStore, load_embedder


def default_db_path() -> Path:
    from platformdirs import user_data_dir  # imported late: the hook's start-up time counts

    return Path(user_data_dir("shitsuji", appauthor=False)) / "shitsuji.db"


@dataclass(frozen=True, slots=True)
class Settings:
    db: Path
    embedder: str

    @classmethod
    def resolve(cls, db: str | Path | None = None, embedder: str | None = None) -> Settings:
        env_db = os.environ.get("SHITSUJI_DB")
        return cls(
            db=Path(db or env_db or default_db_path()).expanduser(),
            embedder=embedder or os.environ.get("SHITSUJI_EMBEDDER") or DEFAULT_EMBEDDER,
        )


def open_memory(db: str | Path | None = None, embedder: str | None = None) -> MemoryEngine:
    """A ready ``MemoryEngine`` over the SQLite database and embedder the settings name."""
    settings = Settings.resolve(db, embedder)
    return MemoryEngine(SQLiteMemoryStore(settings.db), load_embedder(settings.embedder))
