"""LongMemEval session retrieval: do the sessions that hold the answer come back in the top k?

Every turn of every haystack session is imported (role and text, the session id in
provenance, the two turns before it in the session as embedding context) through the
bulk path; the question is recalled, hits are mapped to their
sessions in rank order, and the first k distinct sessions are scored.
``recall_any@k``: at least one answer session is among them; ``recall_all@k``: all are.
Abstention questions (ids ending ``_abs``) are skipped. ``pooled`` puts every session of
the file into one scope for every question, the harder setting.

Beside the ``k`` asked for, every run reports what the field reports per question
(``_measures``): recall_any / recall_all @5 and @10 and NDCG@10 over the sessions, the
recall latency (p50 / p95) and the tokens the top ``k`` turns would put in a prompt.

``dates`` (the default) imports each session's turns as said at the session's date
(``haystack_dates``) and asks each question at its ``question_date``, so "a week ago",
"last Tuesday" and "most recently" mean what they meant to the asker; ``spans=False``
switches the time-span rule off (``memory._when``) to measure what it adds.

The session figures above map turns to sessions as LongMemEval's own evaluation does (a
session ranks by its first turn in the list), so they stay comparable with published ones.
``segments`` adds the product's own ranking of conversations from the same hits beside them
(``memory.sources_ranked``: a session by the sum of its two best turns, as the butler ranks
archived segments), with each figure per fold (question ``n`` in fold ``n % 5``).
"""

from __future__ import annotations

import ast
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..memory import Embedder, Hit, MemoryEngine, NewMemory, sources_ranked
from ..memory._when import asked_span
from ._common import bench_engine, checked_shape, read_records, turn_context
from ._measures import Cost, mean_scores, session_scores, sessions_in_order

SESSIONS_PER_HIT_POOL = 20  # turns recalled per wanted session before grouping
FIELD_KS = (5, 10)  # the cut-offs published LongMemEval retrieval figures use
FOLDS = 5  # question n in fold n % 5, as scripts/recall_folds.py splits them


def _field(value: Any) -> Any:
    """Some exports store list fields as Python-literal strings; accept both."""
    return ast.literal_eval(value) if isinstance(value, str) else value


def load(path: Path) -> list[dict[str, Any]]:
    records = read_records(path, "LongMemEval", "question")
    return checked_shape(path, "LongMemEval", lambda: [_question(q) for q in records])


def _question(q: dict[str, Any]) -> dict[str, Any]:
    """One question in the bench's shape; KeyError/TypeError/ValueError where the record lacks a field."""
    out = {
        "id": str(q["question_id"]),
        "type": q.get("question_type", "unknown"),
        "question": q["question"],
        "session_ids": [str(s) for s in _field(q["haystack_session_ids"])],
        "sessions": _field(q["haystack_sessions"]),
        "answers": {str(s) for s in _field(q["answer_session_ids"])},
        "asked": _date(q.get("question_date")),
        "dates": [_date(d) for d in _field(q.get("haystack_dates") or [])],
    }
    if not isinstance(out["question"], str) or len(out["sessions"]) != len(out["session_ids"]):
        raise ValueError("'question' must be a string, with one haystack session per session id")
    if not all(isinstance(turn, dict) for session in out["sessions"] for turn in session):
        raise TypeError("each haystack session must be a list of turn objects")
    return out


def _date(value: Any) -> datetime | None:
    """LongMemEval's "2023/05/20 (Sat) 10:02", taken as UTC; None when absent or unreadable."""
    try:
        return datetime.strptime(str(value), "%Y/%m/%d (%a) %H:%M").replace(tzinfo=UTC)
    except ValueError:
        return None


class AskedAt:
    """The bench's clock: the current question's date (or the real time without one)."""

    def __init__(self) -> None:
        self.now: datetime | None = None

    def __call__(self) -> datetime:
        return self.now or datetime.now(UTC)


@dataclass
class Ingest:
    """What the bulk path took in (characters of turn text) and how long it took."""

    chars: int = 0
    seconds: float = 0.0


def _ingest(
    engine: MemoryEngine,
    scope: str,
    sessions: dict[str, list[dict[str, Any]]],
    meter: Ingest,
    *,
    context: bool = True,
    dates: dict[str, datetime | None] | None = None,
) -> dict[str, str]:
    start = time.perf_counter()
    items = []
    for session_id, session in sessions.items():
        said: list[str] = []
        for n, turn in enumerate(session):
            text = str(turn.get("content", "")).strip()
            if text:
                content = f"{turn.get('role', 'user')}: {text}"[:20_000]
                items.append(
                    NewMemory(
                        content=content,
                        scope=scope,
                        category="event",
                        source="imported",
                        provenance={"session": session_id, "turn": n},
                        context=turn_context(said) if context else None,
                        created_at=(dates or {}).get(session_id),
                    )
                )
                meter.chars += len(content)
                said.append(content)
    engine.add_many(items)
    engine.index_pending()
    meter.seconds += time.perf_counter() - start
    return {m.id: str(m.provenance["session"]) for m in engine.list_memories(scope)}


def run_longmemeval(
    path: Path,
    *,
    embedder: str | Embedder,
    k: int = 5,
    pooled: bool = False,
    limit: int | None = None,
    context: bool = True,
    dates: bool = True,
    spans: bool = True,
    progress: Callable[[str], None] | None = None,
    database: str | None = None,
    segments: bool = False,
) -> dict[str, Any]:
    """``limit``: the first N questions only (a subset to iterate on); ``context=False``: turns
    are imported without the turns before them; ``dates``, ``spans``, ``segments``: see the module doc."""
    questions = [q for q in load(path) if not q["id"].endswith("_abs")][:limit]
    tally: dict[str, list[dict[str, float]]] = defaultdict(list)
    meter = Ingest()
    cost = Cost()
    clock = AskedAt()
    spanned: list[tuple[dict[str, float], dict[str, float]]] = []
    folds: dict[str, list[list[dict[str, float]]]] = {
        "turn_to_session": [[] for _ in range(FOLDS)],
        "segments": [[] for _ in range(FOLDS)],
    }
    with bench_engine(embedder, clock=clock, database=database) as engine:
        engine.weights = replace(engine.weights, favour_span=spans)
        session_of: dict[str, str] = {}
        said = _said_at(questions) if dates else {}
        if pooled:
            everything = {
                sid: s for q in questions for sid, s in zip(q["session_ids"], q["sessions"], strict=True)
            }
            session_of = _ingest(engine, "bench/lme/pooled", everything, meter, context=context, dates=said)
            if progress:
                progress(f"pooled: {len(everything)} sessions, {len(session_of)} turns")
        for n, q in enumerate(questions):
            scope = "bench/lme/pooled" if pooled else f"bench/lme/{q['id']}"
            if not pooled:
                sessions = dict(zip(q["session_ids"], q["sessions"], strict=True))
                session_of.update(_ingest(engine, scope, sessions, meter, context=context, dates=said))
            clock.now = q["asked"] if dates else None
            start = time.perf_counter()
            hits = engine.recall(q["question"], scope, k=k * SESSIONS_PER_HIT_POOL)
            cost.add(time.perf_counter() - start, (h.memory.content for h in hits[:k]))
            row = _row([session_of[h.memory.id] for h in hits], q["answers"], k)
            tally["overall"].append(row)
            tally[q["type"]].append(row)
            folds["turn_to_session"][n % FOLDS].append(row)
            if segments:  # the product's ranking of conversations, from the same hits
                own = _row(sources_ranked(hits, lambda h: session_of[h.memory.id]), q["answers"], k)
                tally["segments"].append(own)
                tally[f"segments/{q['type']}"].append(own)
                folds["segments"][n % FOLDS].append(own)
            if spans and asked_span(q["question"], clock(), UTC) is not None:  # the same, without the rule
                plain = _without_spans(engine, q["question"], scope, k * SESSIONS_PER_HIT_POOL)
                spanned.append((row, _row([session_of[h.memory.id] for h in plain], q["answers"], k)))

    report = {
        "k": k,
        "pooled": pooled,
        "context": context,
        "dates": dates,
        "time_spans": spans,
        "embedder": engine.embedder.model_id,
        "ingest_chars": meter.chars,
        "ingest_seconds": round(meter.seconds, 1),
        "ingest_chars_per_s": round(meter.chars / meter.seconds) if meter.seconds else 0,
        **cost.report(),
        "overall": mean_scores(tally.pop("overall")),
        "by_type": {
            t: mean_scores(rows) for t, rows in sorted(tally.items()) if not t.startswith("segments")
        },
        # the questions that name a time span, scored with the span rule and without it
        "span_questions": {
            "with_rule": mean_scores([a for a, _ in spanned]),
            "without_rule": mean_scores([b for _, b in spanned]),
        },
    }
    if segments:
        report["segments"] = {
            "overall": mean_scores(tally["segments"]),
            "by_type": {
                t.split("/", 1)[1]: mean_scores(rows) for t, rows in sorted(tally.items()) if "/" in t
            },
        }
        report["folds"] = {name: [mean_scores(rows) for rows in per] for name, per in folds.items()}
    return report


def _said_at(questions: list[dict[str, Any]]) -> dict[str, datetime | None]:
    """Each session's date, by session id (None where the file gives none)."""
    return {
        sid: when
        for q in questions
        for sid, when in zip(q["session_ids"], q["dates"] or [None] * len(q["session_ids"]), strict=True)
    }


def _without_spans(engine: MemoryEngine, question: str, scope: str, k: int) -> list[Hit]:
    engine.weights = replace(engine.weights, favour_span=False)
    try:
        return engine.recall(question, scope, k=k)
    finally:
        engine.weights = replace(engine.weights, favour_span=True)


def _row(sessions_of_hits: list[str], answers: set[str], k: int) -> dict[str, float]:
    """One question's session scores: the field's at 5 and 10, and recall_any/all at ``k``."""
    ranked = sessions_in_order(sessions_of_hits, max(k, *FIELD_KS))
    row = session_scores(ranked, answers, FIELD_KS)
    row["recall_any"] = 1.0 if answers & set(ranked[:k]) else 0.0
    row["recall_all"] = 1.0 if answers <= set(ranked[:k]) else 0.0
    return row
