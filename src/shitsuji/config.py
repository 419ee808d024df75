"""Every setting shitsuji has, read once at the edge (the CLI, the web app's start-up) and passed down.

Nothing below the channels reads the environment: the edge opens the process's database from
``database`` (``store.database``) and hands it to every store, the butler gets its modes and router
model, the model adapter an ``Endpoint``, extraction its switches. This module only reads settings:
opening memory is ``memory.open_engine``, the LINE channel's own settings are ``line.LineSettings``.

| setting | flag | environment | default |
|---|---|---|---|
| database | ``--db`` | ``SHITSUJI_DB`` | ``<user data dir>/shitsuji/shitsuji.db`` |
| PostgreSQL instead | ``--database-url`` | ``SHITSUJI_DATABASE_URL`` (``postgresql://…``) | none: SQLite |
| read replica (PostgreSQL) | — | ``SHITSUJI_REPLICA_URL`` (``postgresql://…`` of a streaming standby) | none: the primary |
| replica lag bound | — | ``SHITSUJI_REPLICA_MAX_LAG`` (seconds) | 2 |
| commit durability (PostgreSQL) | — | ``SHITSUJI_SYNCHRONOUS_COMMIT`` (``on``: wait for the WAL flush at every commit) | ``off``, as SQLite's WAL (``store.SYNCHRONOUS_COMMIT``) |
| embedder | ``--embedder`` | ``SHITSUJI_EMBEDDER`` | ``use`` |
| Claude | — | ``ANTHROPIC_API_KEY`` / ``ANTHROPIC_AUTH_TOKEN``, ``ANTHROPIC_BASE_URL`` | none |
| OpenAI-compatible server | — | ``SHITSUJI_MODEL_URL``, ``SHITSUJI_MODEL_KEY`` | none |
| model for every mode | — | ``SHITSUJI_MODEL`` | per mode |
| cheap model | — | ``SHITSUJI_ROUTER_MODEL`` | ``SHITSUJI_MODEL``, else Haiku |
| modes, safety policy | — | ``SHITSUJI_CONFIG`` (``[modes.NAME]``, ``[safety]``) | built-in modes, default policy |
| extraction off | — | ``SHITSUJI_EXTRACTION_OFF_CHANNELS``, ``…_HOUSEHOLDS`` | on everywhere |
| derived model caches | — | ``SHITSUJI_CACHE_DIR`` | the user cache dir |
| prompt hook server | ``hook prompt --no-server`` | ``SHITSUJI_HOOK_SERVER=off`` (read by the hook's own start-up, ``hooks._client``) | on |
| LINE channel | — | ``SHITSUJI_LINE_CHANNEL_SECRET``, ``SHITSUJI_LINE_CHANNEL_TOKEN`` | off |
| LINE API base URL | — | ``SHITSUJI_LINE_API_URL`` | ``https://api.line.me`` |
| LINE pushes per second | — | ``SHITSUJI_LINE_PUSH_RATE`` | 50 |
| LINE pushes a month | — | ``SHITSUJI_LINE_PUSH_BUDGET`` (0: no limit) | 200, the free plan |
| pushes left when reminders fold into the digest | — | ``SHITSUJI_LINE_FOLD_BELOW`` | a quarter of the budget |
| requests filed as GitHub issues | — | ``SHITSUJI_GITHUB_REPO``, ``…_TOKEN``, ``…_API_URL`` | off |
| time zone of ``remember`` / ``recall`` from the command line and the MCP server | — | ``TZ`` (an IANA name, e.g. ``Asia/Tokyo``) | the machine's (``/etc/localtime``) |
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ._paths import default_db_path
from .errors import UserInputError

# Every command reads these settings first, so nothing here may be heavy: ``llm`` and ``memory``
# export lazily, and these names live in light modules (``llm._env``, ``memory._deferred``: no
# numpy, no model SDK; tests/test_startup.py keeps it so).
from .llm import CHEAP_MODEL, CapabilityTable, Endpoint
from .memory import DEFAULT_EMBEDDER
from .store import SYNCHRONOUS_COMMIT, SYNCHRONOUS_COMMIT_VALUES, is_postgres

if TYPE_CHECKING:
    from .agent import Mode
    from .household._github import GitHubSettings
    from .line import LineSettings
    from .memory import ExtractionSettings
    from .schedule._claims import Budget

FREE_PLAN_PUSHES = 200  # LINE's free plan: pushes a month


def _line(env: Mapping[str, str]) -> LineSettings | None:
    if not env.get("SHITSUJI_LINE_CHANNEL_SECRET") and not env.get("SHITSUJI_LINE_CHANNEL_TOKEN"):
        return None  # LINE off: its package is not even imported
    from .line._settings import line_settings

    return line_settings(env)


def _github(env: Mapping[str, str]) -> GitHubSettings | None:
    if not env.get("SHITSUJI_GITHUB_REPO") and not env.get("SHITSUJI_GITHUB_TOKEN"):
        return None  # no tracker: no request_feature tool
    from .household._github import github_settings

    return github_settings(env)


LOCALTIME = Path("/etc/localtime")  # a link into the zone database on most Unix systems


def local_zone(env: Mapping[str, str], localtime: Path = LOCALTIME) -> tzinfo:
    """The machine's time zone, by its IANA name when one is known (so a fact keeps "Asia/Tokyo", and a
    zone with summer time gets each day right): ``TZ`` when it is set, else the zone ``localtime`` links
    to; a ``TZ`` that names no zone here (a POSIX rule such as ``JST-9``) is the offset the C library
    reads from it now."""
    named = env.get("TZ")
    if named is None and localtime.is_symlink():
        named = str(localtime.resolve())
    if named is not None:
        key = named.removeprefix(":").split("zoneinfo/", 1)[-1]  # a path into the zone database names it
        if not key:
            return UTC  # TZ set but empty: UTC for the C library too
        try:
            return ZoneInfo(key)
        except (ZoneInfoNotFoundError, ValueError):
            pass
    return datetime.now().astimezone().tzinfo or UTC


def _pushes(env: Mapping[str, str], name: str, default: int) -> int:
    text = env.get(name) or str(default)
    if not text.isdigit():
        raise UserInputError(f"{name} must be a whole number of pushes (0 or more), not {text!r}")
    return int(text)


def _words(value: str | None) -> frozenset[str]:
    return frozenset(part.strip() for part in (value or "").split(",") if part.strip())


@dataclass(frozen=True, slots=True)
class Settings:
    db: Path
    # postgresql://…: every store in PostgreSQL instead of ``db`` (may hold a password: not in repr)
    database_url: str | None = field(default=None, repr=False)
    # a streaming standby of ``database_url``: pages and recall may read there (``store._replica``)
    replica_url: str | None = field(default=None, repr=False)
    replica_max_lag_s: float = 2.0
    # the app's PostgreSQL sessions' synchronous_commit: "off" commits as SQLite's WAL does
    # (``store.SYNCHRONOUS_COMMIT`` says why); "on" waits for the disk at every commit
    synchronous_commit: str = SYNCHRONOUS_COMMIT
    embedder: str = DEFAULT_EMBEDDER
    endpoint: Endpoint = field(default_factory=Endpoint)
    model: str | None = None  # one model for every mode
    router_model: str = CHEAP_MODEL  # routing, summaries, extraction
    config_file: Path | None = None  # [modes.NAME] tables
    extraction_off_channels: frozenset[str] = frozenset()
    extraction_off_households: frozenset[str] = frozenset()
    cache_dir: Path | None = None  # the mapped embedding model and other derived caches
    line: LineSettings | None = None  # the LINE channel, when its secret and token are set
    push_budget: int = FREE_PLAN_PUSHES  # LINE pushes a month (0: no limit)
    fold_below: int = FREE_PLAN_PUSHES // 4  # pushes left when reminders fold into the digest
    github: GitHubSettings | None = None  # where requests for the app are filed (token: not in repr)
    # the zone a fact remembered or a question asked from the command line or the MCP server is in (the
    # household's own zone is the household's setting): the day it is indexed under, "last month"
    time_zone: tzinfo = UTC

    @classmethod
    def from_env(
        cls,
        environ: Mapping[str, str] | None = None,
        *,
        db: str | Path | None = None,
        embedder: str | None = None,
        database_url: str | None = None,
    ) -> Settings:
        """Flags first, then the environment (``os.environ`` unless given), then the defaults."""
        env = os.environ if environ is None else environ
        model = env.get("SHITSUJI_MODEL") or None
        config = env.get("SHITSUJI_CONFIG")
        monthly = _pushes(env, "SHITSUJI_LINE_PUSH_BUDGET", FREE_PLAN_PUSHES)
        primary = _database_url(database_url or env.get("SHITSUJI_DATABASE_URL") or None)
        return cls(
            db=Path(db or env.get("SHITSUJI_DB") or default_db_path()).expanduser(),
            database_url=primary,
            replica_url=_replica_url(env.get("SHITSUJI_REPLICA_URL") or None, primary),
            replica_max_lag_s=_seconds("SHITSUJI_REPLICA_MAX_LAG", env.get("SHITSUJI_REPLICA_MAX_LAG"), 2.0),
            synchronous_commit=_synchronous_commit(env.get("SHITSUJI_SYNCHRONOUS_COMMIT") or None),
            embedder=embedder or env.get("SHITSUJI_EMBEDDER") or DEFAULT_EMBEDDER,
            endpoint=Endpoint(
                anthropic_api_key=env.get("ANTHROPIC_API_KEY") or None,
                anthropic_auth_token=env.get("ANTHROPIC_AUTH_TOKEN") or None,
                anthropic_base_url=env.get("ANTHROPIC_BASE_URL") or None,
                openai_url=env.get("SHITSUJI_MODEL_URL") or None,
                openai_key=env.get("SHITSUJI_MODEL_KEY") or None,
            ),
            model=model,
            router_model=env.get("SHITSUJI_ROUTER_MODEL") or model or CHEAP_MODEL,
            config_file=Path(config).expanduser() if config else None,
            extraction_off_channels=_words(env.get("SHITSUJI_EXTRACTION_OFF_CHANNELS")),
            extraction_off_households=_words(env.get("SHITSUJI_EXTRACTION_OFF_HOUSEHOLDS")),
            cache_dir=Path(cache).expanduser() if (cache := env.get("SHITSUJI_CACHE_DIR")) else None,
            line=_line(env),
            push_budget=monthly,
            fold_below=_pushes(env, "SHITSUJI_LINE_FOLD_BELOW", monthly // 4),
            github=_github(env),
            time_zone=local_zone(env),
        )

    @property
    def database(self) -> str:
        """Where every store keeps its rows: the PostgreSQL URL when one is set, else the SQLite file."""
        return self.database_url or str(self.db)

    def budget(self) -> Budget:
        """The LINE plan's pushes a month and how few left make reminders fold into the digest."""
        from .schedule import Budget

        return Budget(self.push_budget, self.fold_below)

    def use_caches(self) -> None:
        """Point the derived model caches at this setting's folder (once, at start-up)."""
        from .memory._use_mapped import use_cache_dir

        use_cache_dir(self.cache_dir)

    def use_replica(self) -> None:
        """Register the read replica and the commit durability for this process's PostgreSQL (once, at
        start-up; no connection yet)."""
        if self.database_url is not None:
            from .store import use_replica, use_synchronous_commit

            use_replica(self.database_url, self.replica_url, max_lag_s=self.replica_max_lag_s)
            use_synchronous_commit(self.database_url, self.synchronous_commit)

    def modes(self) -> dict[str, Mode]:
        """The built-in modes, the config file's ``[modes.*]`` over them, then ``model`` for every mode."""
        from .agent import load_modes

        return load_modes(self.config_file, model=self.model)

    def safety(self) -> dict[str, Any]:
        """The config file's ``[safety]`` table (size limits, actions per kind of personal data, ``judge``)."""
        return self._table("safety")

    def capabilities(self) -> CapabilityTable:
        """The model capability table: the config file's ``[models."prefix"]`` rows over the built-in ones."""

        return CapabilityTable().overridden(self._table("models"), where=str(self.config_file))

    def _table(self, name: str) -> dict[str, Any]:
        if self.config_file is None:
            return {}
        import tomllib

        from .errors import UserInputError

        try:
            data = tomllib.loads(self.config_file.read_text(encoding="utf-8"))
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise UserInputError(f"cannot read the configuration {self.config_file}: {exc}") from exc
        table = data.get(name, {})
        if not isinstance(table, dict):
            raise UserInputError(f"{self.config_file}: [{name}] must be a table")
        return table

    def extraction(self) -> ExtractionSettings:
        from .memory import ExtractionSettings

        return ExtractionSettings(
            disabled_households=self.extraction_off_households,
            disabled_channels=self.extraction_off_channels,
        )


def _database_url(url: str | None) -> str | None:
    if url is not None and not is_postgres(url):
        raise UserInputError(
            f"SHITSUJI_DATABASE_URL / --database-url must start with postgresql:// (got {url.split(':')[0]!r}); "
            "leave it unset to use the SQLite file of --db"
        )
    return url


def _synchronous_commit(value: str | None) -> str:
    if value is None or not value.strip():
        return SYNCHRONOUS_COMMIT
    if value.strip().lower() not in SYNCHRONOUS_COMMIT_VALUES:
        raise UserInputError(
            f"SHITSUJI_SYNCHRONOUS_COMMIT must be one of {', '.join(SYNCHRONOUS_COMMIT_VALUES)} "
            f"(PostgreSQL's values), not {value!r}; leave it unset for off"
        )
    return value.strip().lower()


def _replica_url(url: str | None, primary: str | None) -> str | None:
    if url is None:
        return None
    if primary is None:
        raise UserInputError(
            "SHITSUJI_REPLICA_URL is a standby of the PostgreSQL primary: set SHITSUJI_DATABASE_URL too "
            "(a SQLite file has no replica)"
        )
    if not is_postgres(url):
        raise UserInputError(
            f"SHITSUJI_REPLICA_URL must start with postgresql:// (got {url.split(':')[0]!r})"
        )
    return url


def _seconds(name: str, value: str | None, default: float) -> float:
    if value is None or not value.strip():
        return default
    try:
        seconds = float(value)
    except ValueError:
        seconds = -1.0
    if not seconds > 0 or seconds == float("inf"):
        raise UserInputError(f"{name} must be a number of seconds above 0 (got {value!r})")
    return seconds
