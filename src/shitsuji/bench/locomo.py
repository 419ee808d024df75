"""LoCoMo retrieval: does recall with the question find the dialog turns that hold the answer?

Every turn of a conversation is remembered (speaker and text, the session's date as
``created_at``, the turn id in provenance, the two turns before it in the same session
as embedding context) in a scope of its own; each QA's question is
then recalled top-k, and we count how many of its evidence turns came back.
LoCoMo category ids: 1 multi-hop, 2 temporal, 3 open-domain, 4 single-hop, 5 adversarial.

Turn level is ours; the field's retrieval anchors are sessions. So each question is also
scored at session level (``session``): a second, wider recall (``SESSION_POOL`` turns per
session) is mapped to sessions in rank order and the top ``k`` sessions are scored — the
share of the evidence's sessions among them (recall), any of them (hit), and NDCG@k — and
both levels report the recall latency and the tokens the top ``k`` turns would put in a
prompt (``_measures``).
"""

from __future__ import annotations

import re
import time
from collections import defaultdict
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ..memory import Embedder, Hit, MemoryEngine, sources_ranked
from ._common import BM25, bench_engine, bm25_tokens, checked_shape, read_records, turn_context
from ._measures import Cost, ndcg, sessions_in_order

CATEGORIES = {1: "multi-hop", 2: "temporal", 3: "open-domain", 4: "single-hop", 5: "adversarial"}
_EVIDENCE_SPLIT = re.compile(r"[;,\s]+")
_DIA = re.compile(r"^D:?(\d+):0*(\d+)$")
SESSION_POOL = 10  # turns recalled per session ranked at session level


def load(path: Path) -> list[dict[str, Any]]:
    samples = read_records(path, "LoCoMo", "conversation")
    return checked_shape(path, "LoCoMo", lambda: [_checked(sample) for sample in samples])


def _checked(sample: dict[str, Any]) -> dict[str, Any]:
    """The sample; KeyError/TypeError/ValueError where it lacks what the bench reads."""
    for turn in turns(sample):
        if not isinstance(turn["text"], str) or not isinstance(turn["dia_id"], str):
            raise TypeError(f"turn {turn.get('dia_id')!r}: 'text' and 'dia_id' must be strings")
    for qa in sample.get("qa", []):
        if not isinstance(qa["question"], str):
            raise TypeError("each qa item needs a 'question' string")
        evidence_ids(qa.get("evidence", []))
        int(qa.get("category", 0))
    return sample


def turns(sample: dict[str, Any]) -> list[dict[str, Any]]:
    """The sample's dialog turns in order, each with its session's date."""
    conv = sample["conversation"]
    out = []
    for key in sorted(
        (k for k in conv if re.fullmatch(r"session_\d+", k)), key=lambda k: int(k.split("_")[1])
    ):
        date = _parse_date(conv.get(f"{key}_date_time"))
        for turn in conv[key]:
            text = turn.get("text", "")
            if turn.get("blip_caption"):
                text = f"{text} [shared a photo: {turn['blip_caption']}]"
            out.append(
                {
                    "dia_id": turn["dia_id"],
                    "speaker": turn["speaker"],
                    "text": text,
                    "date": date,
                    "session": key,
                }
            )
    return out


def _parse_date(value: Any) -> datetime | None:
    if not isinstance(value, str):
        return None
    for fmt in ("%I:%M %p on %d %B, %Y", "%I:%M %p on %d %b, %Y"):
        try:
            return datetime.strptime(value.strip(), fmt).replace(tzinfo=UTC)
        except ValueError:
            continue
    return None


def evidence_ids(raw: list[Any]) -> tuple[list[str], int]:
    """Normalised evidence ids ("D3:12") and how many strings could not be read."""
    ids, bad = [], 0
    for item in raw:
        for part in _EVIDENCE_SPLIT.split(str(item)):
            if not part:
                continue
            m = _DIA.match(part)
            if m:
                ids.append(f"D{int(m.group(1))}:{int(m.group(2))}")
            else:
                bad += 1
    return ids, bad


def _memory_text(turn: dict[str, Any]) -> str:
    return f"{turn['speaker']}: {turn['text']}"


def run_locomo(
    path: Path,
    *,
    embedder: str | Embedder,
    k: int = 10,
    progress: Callable[[str], None] | None = None,
    database: str | None = None,
    segments: bool = False,
) -> dict[str, Any]:
    """``segments``: the session level also as the product ranks conversations (``memory.sources_ranked``:
    a session by its two best turns), from the same pool, per conversation (the folds)."""
    samples = load(path)
    tally: dict[str, dict[str, list[float]]] = {
        "shitsuji": defaultdict(list),
        "session": defaultdict(list),
        "segments": defaultdict(list),
        "bm25": defaultdict(list),
    }
    costs = {"turn": Cost(), "session": Cost()}
    unresolved = 0
    by_conversation: dict[str, list[float]] = defaultdict(list)
    with bench_engine(embedder, database=database) as engine:
        for sample in samples:
            scope = f"bench/locomo/{sample.get('sample_id', 'sample')}"
            conv_turns = turns(sample)
            known = {t["dia_id"] for t in conv_turns}
            dia_of_memory = _remember_turns(engine, scope, conv_turns)
            sessions = _Sessions(engine, scope, k, dia_of_memory, conv_turns)
            bm25 = BM25([bm25_tokens(_memory_text(t)) for t in conv_turns])
            for qa in sample.get("qa", []):
                evidence, bad = evidence_ids(qa.get("evidence", []))
                unresolved += bad + sum(1 for e in evidence if e not in known)
                evidence = [e for e in evidence if e in known]
                if not evidence:
                    continue
                category = CATEGORIES.get(int(qa.get("category", 0)), str(qa.get("category")))
                start = time.perf_counter()
                hits = engine.recall(qa["question"], scope, k=k)
                costs["turn"].add(time.perf_counter() - start, (h.memory.content for h in hits))
                found = set().union(*(dia_of_memory[h.memory.id] for h in hits)) if hits else set()
                _score(tally["shitsuji"], category, evidence, found)
                pool = sessions.score(qa["question"], evidence, category, tally["session"], costs["session"])
                if segments:
                    sessions.score_as_segments(pool, evidence, scope.rsplit("/", 1)[-1], tally["segments"])
                by_conversation[scope.rsplit("/", 1)[-1]].append(
                    sum(e in found for e in evidence) / len(evidence)
                )
                base = {conv_turns[i]["dia_id"] for i in bm25.top(bm25_tokens(qa["question"]), k)}
                _score(tally["bm25"], category, evidence, base)
            if progress:
                progress(f"{scope}: {len(conv_turns)} turns")
    summary = _summary(tally["shitsuji"])
    session = _summary(tally["session"])
    gains = tally["session"]["overall|ndcg"]
    session["overall"][f"ndcg@{k}"] = round(sum(gains) / max(len(gains), 1), 4)
    summary.update(
        {
            "k": k,
            **costs["turn"].report(),
            "session_level": {**session, **costs["session"].report()},
            "embedder": engine.embedder.model_id,
            "category_mapping": CATEGORIES,
            "unresolved_evidence": unresolved,
            # per conversation: what leave-one-conversation-out tuning scores (docs/benchmarks.md)
            "by_conversation": {
                c: {"recall": round(sum(r) / len(r), 4), "n": len(r)} for c, r in by_conversation.items()
            },
            "bm25": _summary(tally["bm25"]),
        }
    )
    if segments:  # "category" here is the conversation: what leaving one out scores
        summary["session_level_segments"] = _summary(tally["segments"])
        ndcgs = tally["segments"]["overall|ndcg"]
        summary["session_level_segments"]["overall"][f"ndcg@{k}"] = round(sum(ndcgs) / max(len(ndcgs), 1), 4)
    return summary


def _remember_turns(
    engine: MemoryEngine, scope: str, conv_turns: list[dict[str, Any]]
) -> dict[str, set[str]]:
    """Every turn remembered (the two before it in its session as context): the turn ids of each memory."""
    dia_of_memory: dict[str, set[str]] = defaultdict(set)
    for n, turn in enumerate(conv_turns):
        earlier = [_memory_text(t) for t in conv_turns[max(n - 2, 0) : n] if t["session"] == turn["session"]]
        result = engine.remember(
            _memory_text(turn),
            scope,
            category="event",
            provenance={"dia_id": turn["dia_id"], "session_date": str(turn["date"])},
            created_at=turn["date"],
            context=turn_context(earlier),
        )
        dia_of_memory[result.memory.id].add(turn["dia_id"])
    return dia_of_memory


class _Sessions:
    """Session-level scoring of one conversation (see the module doc)."""

    def __init__(
        self,
        engine: MemoryEngine,
        scope: str,
        k: int,
        dia_of_memory: dict[str, set[str]],
        conv_turns: list[dict[str, Any]],
    ) -> None:
        self.engine, self.scope, self.k, self.dia_of_memory = engine, scope, k, dia_of_memory
        self.text: dict[str, str] = defaultdict(str)  # what a session-level system would show
        for turn in conv_turns:
            self.text[_session(turn["dia_id"])] += _memory_text(turn) + "\n"

    def score(
        self, question: str, evidence: list[str], category: str, tally: dict[str, list[float]], cost: Cost
    ) -> list[Hit]:
        """Score the field's way (a session by its first turn in the pool); the pool, for ``score_as_segments``."""
        start = time.perf_counter()
        pool = self.engine.recall(question, self.scope, k=self.k * SESSION_POOL)
        ranked = sessions_in_order(
            (_session(d) for h in pool for d in sorted(self.dia_of_memory[h.memory.id])), self.k
        )
        cost.add(time.perf_counter() - start, (self.text[s] for s in ranked))
        wanted = sorted({_session(e) for e in evidence})
        _score(tally, category, wanted, set(ranked))
        tally["overall|ndcg"].append(ndcg(ranked, set(wanted), self.k))
        return pool

    def score_as_segments(
        self, pool: list[Hit], evidence: list[str], conversation: str, tally: dict[str, list[float]]
    ) -> None:
        """The same pool ranked as the product ranks conversations: a session by its two best turns."""
        ranked = sources_ranked(pool, lambda h: _session(min(self.dia_of_memory[h.memory.id])))[: self.k]
        wanted = sorted({_session(e) for e in evidence})
        _score(tally, conversation, wanted, set(ranked))
        tally["overall|ndcg"].append(ndcg(ranked, set(wanted), self.k))


def _session(dia_id: str) -> str:
    """The session of a turn id: "D3" of "D3:12"."""
    return dia_id.split(":", 1)[0]


def _score(tally: dict[str, list[float]], category: str, evidence: list[str], found: set[str]) -> None:
    recall = sum(1 for e in evidence if e in found) / len(evidence)
    hit = 1.0 if any(e in found for e in evidence) else 0.0
    for key in ("overall", category):
        tally[f"{key}|recall"].append(recall)
        tally[f"{key}|hit"].append(hit)


def _summary(tally: dict[str, list[float]]) -> dict[str, Any]:
    def block(key: str) -> dict[str, float | int]:
        r, h = tally[f"{key}|recall"], tally[f"{key}|hit"]
        return {"recall": round(sum(r) / len(r), 4), "hit": round(sum(h) / len(h), 4), "n": len(r)}

    cats = sorted({k.split("|")[0] for k in tally if k.endswith("|recall")} - {"overall"})
    return {"overall": block("overall"), "by_category": {c: block(c) for c in cats}}
