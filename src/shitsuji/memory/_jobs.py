"""A durable queue that runs memory extraction off the reply path.

A conversation enqueues its new turns and answers at once; a worker calls ``run_due``
later. Jobs live in the ``jobs`` table of the shitsuji database (a SQLite file or
PostgreSQL), so a restart loses nothing. Claiming is one conditional UPDATE inside a write
transaction, so two workers never run the same job (on PostgreSQL it picks its row ``FOR
UPDATE SKIP LOCKED``: any number of worker processes claim side by side without waiting); a
claim is a lease (``next_attempt_at`` moves ``LEASE`` ahead), so a job whose worker died is
picked up again once the lease runs out. A model failure
is retried with exponential backoff (2^attempts seconds, at most ``MAX_BACKOFF``) until
``MAX_ATTEMPTS``; then the job is marked failed with its last error.
"""

from __future__ import annotations

import json
import logging
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from .. import store as db
from .._offload import off_loop
from ..errors import ModelError, ShitsujiError, StoreLockedError
from ._extract import ExtractionReport, Extractor, Turn, turns_from_json, turns_to_json
from ._schema import MEMORY_SCHEMA

log = logging.getLogger(__name__)

KIND = "extract_memories"
MAX_ATTEMPTS = 5
MAX_BACKOFF = timedelta(minutes=10)
LEASE = timedelta(minutes=10)

JobStatus = Literal["pending", "running", "done", "failed"]
Clock = Callable[[], datetime]


def backoff(attempts: int) -> timedelta:
    """How long to wait after the ``attempts``-th failed attempt."""
    return min(timedelta(seconds=2**attempts), MAX_BACKOFF)


@dataclass(frozen=True, slots=True)
class ExtractionSettings:
    """Where extraction is switched off: whole households, or single channels."""

    disabled_households: frozenset[str] = field(default_factory=frozenset)
    disabled_channels: frozenset[str] = field(default_factory=frozenset)

    def enabled(self, household: str | None, channel: str | None) -> bool:
        return household not in self.disabled_households and channel not in self.disabled_channels


@dataclass(frozen=True, slots=True)
class JobOutcome:
    """What running one job did: ``status`` is where the job is now."""

    job_id: str
    status: JobStatus
    attempts: int
    report: ExtractionReport | None = None
    error: str | None = None


class ExtractionQueue:
    """Extraction jobs in the shitsuji database ``path`` (a file or a ``postgresql://`` URL), run by ``extractor``."""

    def __init__(
        self,
        database: db.Database,
        extractor: Extractor,
        *,
        clock: Clock = lambda: datetime.now(UTC),
        settings: ExtractionSettings | None = None,
    ) -> None:
        database.ensure(MEMORY_SCHEMA)
        self.path = database.target
        self._conn = database  # the process's: its edge opens and closes it
        self.extractor = extractor
        self.clock = clock
        self.settings = settings or ExtractionSettings()

    def close(self) -> None:
        """Nothing to let go: the database is the process's, closed by its edge."""

    def enqueue(
        self,
        turns: Sequence[Turn],
        scope: str,
        *,
        conversation: str,
        segment: str | None = None,
        household: str | None = None,
        channel: str | None = None,
    ) -> str | None:
        """Queue ``turns`` for extraction into ``scope``; the job id, or None when switched off here."""
        if not self.settings.enabled(household, channel):
            return None
        provenance: dict[str, Any] = {"conversation": conversation, "segment": segment}
        if household is not None:
            provenance["household"] = household
        if channel is not None:
            provenance["channel"] = channel
        payload = {"turns": turns_to_json(turns), "scope": scope, "provenance": provenance}
        job_id = "j_" + secrets.token_hex(8)
        now = self.clock().isoformat()
        with self._conn.write() as conn:
            conn.execute(
                "INSERT INTO jobs (id, kind, payload, status, attempts, next_attempt_at, created_at, updated_at) "
                "VALUES (?, ?, ?, 'pending', 0, ?, ?, ?)",
                (job_id, KIND, json.dumps(payload, ensure_ascii=False), now, now, now),
            )
        return job_id

    def pending(self) -> int:
        """Jobs not finished yet (waiting, backing off or running)."""
        row = self._conn.execute(
            "SELECT count(*) FROM jobs WHERE kind = ? AND status IN ('pending', 'running')", (KIND,)
        ).fetchone()
        return int(row[0])

    def status(self, job_id: str) -> tuple[JobStatus, int, str | None] | None:
        """(status, attempts, last error) of one job, or None if there is no such job."""
        row = self._conn.execute(
            "SELECT status, attempts, last_error FROM jobs WHERE id = ?", (job_id,)
        ).fetchone()
        return (row[0], int(row[1]), row[2]) if row else None

    async def run_due(self, max_jobs: int = 10) -> list[JobOutcome]:
        """Run up to ``max_jobs`` jobs that are due now, one after another."""
        outcomes: list[JobOutcome] = []
        while len(outcomes) < max_jobs:
            claimed = await off_loop(self._claim)
            if claimed is None:
                break
            outcomes.append(await self._run(*claimed))
        return outcomes

    def _claim(self) -> tuple[str, dict[str, Any], int] | None:
        """Take the next due job (or one whose lease ran out) for this worker, atomically."""
        now = self.clock()
        # SQLite runs one writer at a time; PostgreSQL's workers each skip the rows another one
        # has locked (read committed would otherwise let two of them update the same row in turn)
        skip = " FOR UPDATE SKIP LOCKED" if self._conn.dialect == "postgresql" else ""
        with self._conn.write() as conn:
            row = conn.execute(
                "UPDATE jobs SET status = 'running', attempts = attempts + 1, next_attempt_at = ?, "
                "updated_at = ? WHERE id = (SELECT id FROM jobs WHERE kind = ? "
                "AND status IN ('pending', 'running') AND next_attempt_at <= ? AND attempts < ? "
                f"ORDER BY next_attempt_at, created_at LIMIT 1{skip}) RETURNING id, payload, attempts",
                ((now + LEASE).isoformat(), now.isoformat(), KIND, now.isoformat(), MAX_ATTEMPTS),
            ).fetchone()
        return (row[0], json.loads(row[1]), int(row[2])) if row else None

    async def _run(self, job_id: str, payload: dict[str, Any], attempts: int) -> JobOutcome:
        try:
            report = await self.extractor.extract(
                turns_from_json(payload["turns"]), payload["scope"], payload["provenance"]
            )
        except (ModelError, StoreLockedError) as exc:  # transient: try again later
            return await off_loop(self._retry_or_fail, job_id, attempts, f"{type(exc).__name__}: {exc}")
        except ShitsujiError as exc:  # the job itself is bad (say, an invalid scope): retrying won't help
            return await off_loop(self._fail, job_id, attempts, f"{type(exc).__name__}: {exc}")
        except Exception as exc:  # a bug in one job must not stop the worker; keep the trace in the log
            log.exception("memory extraction job %s crashed", job_id)
            return await off_loop(self._fail, job_id, attempts, f"{type(exc).__name__}: {exc}")
        await off_loop(self._set, job_id, "done", self.clock(), None)
        return JobOutcome(job_id, "done", attempts, report=report)

    def _retry_or_fail(self, job_id: str, attempts: int, error: str) -> JobOutcome:
        if attempts >= MAX_ATTEMPTS:
            return self._fail(job_id, attempts, error)
        log.info("memory extraction job %s failed (attempt %d), retrying: %s", job_id, attempts, error)
        self._set(job_id, "pending", self.clock() + backoff(attempts), error)
        return JobOutcome(job_id, "pending", attempts, error=error)

    def _fail(self, job_id: str, attempts: int, error: str) -> JobOutcome:
        log.warning("memory extraction job %s failed after %d attempts: %s", job_id, attempts, error)
        self._set(job_id, "failed", self.clock(), error)
        return JobOutcome(job_id, "failed", attempts, error=error)

    def _set(self, job_id: str, status: JobStatus, next_attempt_at: datetime, error: str | None) -> None:
        now = self.clock().isoformat()
        with self._conn.write() as conn:
            conn.execute(
                "UPDATE jobs SET status = ?, next_attempt_at = ?, last_error = ?, updated_at = ? WHERE id = ?",
                (status, next_attempt_at.isoformat(), error, now, job_id),
            )
