"""``GET /metrics``: this process's counters in Prometheus' text format, and the gauges read at each scrape.

What is counted (``shitsuji._metrics``): chat turns by channel, mode and outcome (a latency
histogram), model errors and retries, tokens and prompt-cache reads, refused sign-ins, the event
loop's lateness. Read at each scrape, from the database: the LINE inbox's depth and how long its
oldest due event has waited, and the memory-extraction jobs not yet done. Nothing personal: the
labels are names chosen by the code, never a member's words, a memory or an id.

The endpoint is not behind a sign-in (a scraper has no session); ``serve`` listens on loopback
unless told otherwise, and a reverse proxy should keep ``/metrics`` inside.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Protocol

from fastapi import APIRouter
from fastapi.responses import PlainTextResponse

from .._metrics import LOOP_LAG, MODEL_RETRIES, REGISTRY, Sample
from ._lag import LoopLag

if TYPE_CHECKING:
    from ._backend import Backend


class Queue(Protocol):
    """What the gauges read of an event inbox (the LINE channel's): counts by status, the oldest due."""

    def counts(self) -> dict[str, int]: ...

    def next_due(self) -> datetime | None: ...


CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
PROBE_EVERY_S = 0.05  # 20 wake-ups a second in every app: enough to see a held loop, cheap when idle
_RETRY_LOGGERS = ("anthropic._base_client", "openai._base_client")


class _RetriesSeen(logging.Handler):
    """The model SDKs retry inside one call and say so only in their log ("Retrying request to …")."""

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("Retrying request"):
            MODEL_RETRIES.inc()


_retries = _RetriesSeen(logging.INFO)


def count_model_retries() -> None:
    """Count the SDKs' retries (idempotent)."""
    for name in _RETRY_LOGGERS:
        logger = logging.getLogger(name)
        if _retries not in logger.handlers:
            logger.addHandler(_retries)
            if logger.getEffectiveLevel() > logging.INFO:
                logger.setLevel(logging.INFO)


def watch(backend: Backend, inbox: Queue | None) -> LoopLag:
    """Register the gauges this app can read, and a loop-lag probe for the caller to start."""
    REGISTRY.forget_gauges()  # one app per process; a test's next app replaces the last one's
    extraction = backend.service.extraction
    if extraction is not None:
        REGISTRY.gauge(
            "shitsuji_jobs_due",
            "Memory-extraction jobs not done yet (waiting, backing off or running).",
            lambda: [({}, float(extraction.pending()))],
        )
    if inbox is not None:

        def depth() -> list[Sample]:
            counts = inbox.counts()
            return [({"status": s}, float(counts.get(s, 0))) for s in ("pending", "running", "failed")]

        def oldest() -> list[Sample]:
            due = inbox.next_due()
            waited = (datetime.now(UTC) - due).total_seconds() if due is not None else 0.0
            return [({}, max(0.0, waited))]

        REGISTRY.gauge("shitsuji_line_inbox_events", "LINE events in the inbox by status.", depth)
        REGISTRY.gauge(
            "shitsuji_line_inbox_oldest_seconds",
            "How long the oldest due LINE event has waited to be answered (0: none waiting).",
            oldest,
        )
    REGISTRY.gauge(
        "shitsuji_model_ready",
        "1 when a model endpoint is configured.",
        lambda: [({}, float(backend.model_ready))],
    )
    count_model_retries()
    return LoopLag(PROBE_EVERY_S, observe=lambda late: LOOP_LAG.observe(late))


router = APIRouter()


@router.get("/metrics", include_in_schema=False)
def metrics() -> PlainTextResponse:
    """Prometheus text format (a plain ``def``: the gauges read the database in a worker thread)."""
    return PlainTextResponse(
        REGISTRY.render(), media_type=CONTENT_TYPE, headers={"Cache-Control": "no-store"}
    )
