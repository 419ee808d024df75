"""Questions about time, on a labelled set: does recall read "last month", 先週, 去年の夏 right?

The set (``data/time_questions.json``, written for this project; its labelling rule is in the
file) holds households whose members said facts at known moments in known time zones — some
across the date line from the asker — and questions asked at a fixed "now" in the asker's zone,
each labelled with the facts that answer it. Kinds: spans (yesterday, last week, last month, a
season, a named month), facts whose words date them ("we'll go next month" said in October),
the current state (newest first), a past state, and control questions with no time words.

Everything goes through the real engine (SQLite, the configured embedder): facts are remembered
in the order they were said, each at its moment and in its speaker's zone (so dedupe and
supersede run as they would have), and each question is recalled once the facts said before
its "now" are in, with the engine's clock at that "now" and the asker's zone.

Every question is recalled under each of ``RULES``: the shipped rules, the span rule off
(``RecallWeights.favour_span``), newer-first off (``now_recency_weight`` at the plain
``recency_weight``), and both off — the gain of each rule, side by side on the same rows.
``now_recency_weight`` is a tuned constant, and whether to favour the span a choice, so
``leave_one_out`` picks both on all households but one (``GRID``) and scores the one left out.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta, tzinfo
from importlib import resources
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from ..errors import UserInputError
from ..memory import Embedder, MemoryEngine, NewMemory, RecallWeights
from ..memory._when import asked_span
from ._common import bench_engine
from .latency import synthetic_memories

SET_NAME = "time_questions.json"
DEPTH = 10  # hits read per question: hit@1 and hit@3 are their first ones; a miss shows its rank
NOW_RECENCY = (0.1, 0.3, 1.0, 3.0)  # ``now_recency_weight`` values tried (0.1: the plain recency weight)
Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Fact:
    id: str
    scope: str
    said: datetime
    zone: tzinfo
    text: str


@dataclass(frozen=True, slots=True)
class Question:
    id: str
    household: str
    scope: str
    now: datetime
    zone: tzinfo
    kind: str
    lang: str
    text: str
    expected: frozenset[str]


@dataclass(frozen=True, slots=True)
class TimeSet:
    facts: list[Fact]
    questions: list[Question]
    rule: str


def rules(base: RecallWeights) -> dict[str, RecallWeights]:
    """The rule sets every question is recalled under: shipped, and each time rule turned off."""
    plain = base.recency_weight
    return {
        "shipped": base,
        "without_span": replace(base, favour_span=False),
        "without_newer": replace(base, now_recency_weight=plain),
        "without_both": replace(base, favour_span=False, now_recency_weight=plain),
    }


def grid(base: RecallWeights) -> dict[str, RecallWeights]:
    """The settings ``leave_one_out`` chooses among: the span rule on or off × ``NOW_RECENCY``."""
    return {
        f"span={'on' if span else 'off'},now_recency={value:g}": replace(
            base, favour_span=span, now_recency_weight=value
        )
        for span in (True, False)
        for value in NOW_RECENCY
    }


def load_time_set(path: Path | None = None) -> TimeSet:
    """The set at ``path`` (the packaged one by default), checked: a fact or question of the wrong
    shape, a time without its zone, an unknown zone, a repeated id, or a label naming a fact the asker
    cannot see (another member's, or none) is a ``UserInputError`` naming it."""
    where = str(path) if path is not None else SET_NAME
    try:
        if path is None:
            text = resources.files("shitsuji.bench").joinpath(f"data/{SET_NAME}").read_text("utf-8")
        else:
            text = path.read_text(encoding="utf-8")
        data = json.loads(text)
    except (OSError, UnicodeDecodeError, json.JSONDecodeError, RecursionError) as exc:
        raise UserInputError(f"cannot read the time-question set {where}: {exc}") from None
    try:
        return _parsed(data, where)
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise UserInputError(f"{where} is not a time-question set: {type(exc).__name__} {exc}") from None


def _parsed(data: dict[str, Any], where: str) -> TimeSet:
    facts: list[Fact] = []
    questions: list[Question] = []
    seen: set[str] = set()
    for house in data["households"]:
        home = f"household/{house['id']}"
        owner: dict[str, str] = {}
        for f in house["facts"]:
            _fresh(f["id"], seen, where)
            owner[f["id"]] = f["member"]
            scope = home if f["member"] == "shared" else f"{home}/user/{f['member']}"
            said = _aware(f["said"], f["id"])
            facts.append(Fact(f["id"], scope, said, _zone(f.get("zone", house["zone"])), str(f["text"])))
        for q in house["questions"]:
            _fresh(q["id"], seen, where)
            expected = frozenset(q["expected"])
            if not expected or not all(isinstance(e, str) for e in expected):
                raise UserInputError(f"{where}: question {q['id']} names no answering fact")
            for e in sorted(expected):
                if owner.get(e) not in ("shared", q["member"]):
                    raise UserInputError(
                        f"{where}: question {q['id']} is labelled with {e}, "
                        + (
                            "no fact of its household"
                            if e not in owner
                            else f"a fact {q['member']} cannot see"
                        )
                    )
            questions.append(
                Question(
                    q["id"], house["id"], f"{home}/user/{q['member']}", _aware(q["now"], q["id"]),
                    _zone(q.get("zone", house["zone"])),
                    str(q["kind"]), str(q["lang"]), str(q["text"]), expected,
                )
            )  # fmt: skip
    return TimeSet(facts, questions, str(data.get("rule", "")))


def _fresh(name: str, seen: set[str], where: str) -> None:
    if not isinstance(name, str) or name in seen:
        raise UserInputError(f"{where}: id {name!r} is repeated or not a string")
    seen.add(name)


def _aware(text: str, owner: str) -> datetime:
    moment = datetime.fromisoformat(text)
    if moment.tzinfo is None:
        raise ValueError(f"{owner}: {text} has no UTC offset")
    return moment


def _zone(name: str) -> tzinfo:
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r}") from None


def _events(time_set: TimeSet) -> Iterator[Fact | Question]:
    """Facts and questions in the order they happen: a question sees only what was said before it."""
    order: list[tuple[datetime, int, Fact | Question]] = [(f.said, 0, f) for f in time_set.facts]
    order += [(q.now, 1, q) for q in time_set.questions]
    order.sort(key=lambda e: (e[0], e[1]))
    return (e[2] for e in order)


def run_time_questions(
    path: Path | None = None,
    *,
    embedder: str | Embedder,
    distractors: int = 0,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """hit@1 and hit@3 per kind and language under each of ``rules``, leave-one-household-out over
    ``grid``, and the shipped rules' misses with what came first. ``distractors``: that many synthetic
    facts (``latency.synthetic_memories``, a third Japanese) in each asker's scope, said over the year
    before the first question — some inside every span."""
    time_set = load_time_set(path)
    clock = [min(f.said for f in time_set.facts)]
    ranks: dict[str, dict[str, int | None]] = defaultdict(dict)  # setting -> question -> rank of first answer
    tops: dict[str, list[str]] = {}  # question -> the shipped rules' first three facts
    merged: list[str] = []
    superseded: list[str] = []
    with bench_engine(embedder, clock=lambda: clock[0]) as engine:
        settings = {**rules(engine.weights), **grid(engine.weights)}
        fact_of: dict[str, set[str]] = defaultdict(set)
        added = _add_distractors(engine, time_set, distractors)
        for event in _events(time_set):
            clock[0] = event.said if isinstance(event, Fact) else event.now
            if isinstance(event, Fact):
                result = engine.remember(event.text, event.scope, created_at=event.said, zone=event.zone)
                fact_of[result.memory.id].add(event.id)
                if result.duplicate:
                    merged.append(event.id)
                superseded += [f for old in result.superseded for f in fact_of[old]]
                continue
            for name, weights in settings.items():
                engine.weights = weights
                hits = engine.recall(event.text, event.scope, k=DEPTH, zone=event.zone)
                found = [fact_of.get(h.memory.id, set()) for h in hits]
                ranks[name][event.id] = next((i for i, ids in enumerate(found) if ids & event.expected), None)
                if name == "shipped":
                    tops[event.id] = [",".join(sorted(ids)) for ids in found[:3]]
            if progress is not None:
                progress(f"{event.id}: shipped rank {ranks['shipped'][event.id]}")
        model = engine.embedder.model_id
    by_id = {q.id: q for q in time_set.questions}
    texts = {f.id: f.text for f in time_set.facts}
    return {
        "embedder": model,
        "questions": len(time_set.questions),
        "facts": len(time_set.facts),
        "distractors": added,
        "by_lang_n": _counts(q.lang for q in time_set.questions),
        "rules": {name: _figures(time_set.questions, ranks[name]) for name in rules(RecallWeights())},
        "grid": {  # each setting ``leave_one_out`` chooses among, on every household
            n: {
                k: v for k, v in _figures(time_set.questions, ranks[n]).items() if k in ("overall", "by_kind")
            }
            for n in grid(RecallWeights())
        },
        "leave_one_out": leave_one_out(time_set.questions, {n: ranks[n] for n in grid(RecallWeights())}),
        "ranks": {  # per question, the first answer's place (0: first; None: not in the first DEPTH) by rule set
            q.id: {name: ranks[name][q.id] for name in rules(RecallWeights())} for q in time_set.questions
        },
        "tops": tops,  # per question, the shipped rules' first three hits (fact ids; "" for none of the set)
        "merged_as_duplicates": merged,
        "superseded": sorted(set(superseded)),
        "misses": [
            _miss(by_id[qid], rank, tops[qid], texts, ranks["without_span"][qid])
            for qid, rank in ranks["shipped"].items()
            if rank is None or rank >= 3
        ],
    }


def _add_distractors(engine: MemoryEngine, time_set: TimeSet, n: int) -> int:
    """``n`` synthetic facts in each asker's scope, said on days over the year before the first question."""
    if n <= 0:
        return 0
    first = min(q.now for q in time_set.questions)
    scopes = sorted({q.scope for q in time_set.questions})
    engine.add_many(
        NewMemory(content=text, scope=scope, created_at=first - timedelta(days=1 + i % 365, hours=i % 24))
        for seed, scope in enumerate(scopes, start=1)
        for i, text in enumerate(synthetic_memories(n, seed=seed))
    )
    engine.index_pending()
    return n * len(scopes)


def _counts(values: Iterator[str]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for v in values:
        counts[v] += 1
    return dict(sorted(counts.items()))


def _share(ranks: Sequence[int | None], k: int) -> float:
    return round(sum(1 for r in ranks if r is not None and r < k) / len(ranks), 4) if ranks else 0.0


def _block(ranks: Sequence[int | None]) -> dict[str, Any]:
    return {"n": len(ranks), "hit_at_1": _share(ranks, 1), "hit_at_3": _share(ranks, 3)}


def _figures(questions: Sequence[Question], ranks: dict[str, int | None]) -> dict[str, Any]:
    """hit@1/hit@3 overall, per kind, per language and per kind and language."""
    groups: dict[str, dict[str, list[int | None]]] = {"by_kind": {}, "by_lang": {}, "by_kind_lang": {}}
    for q in questions:
        r = ranks[q.id]
        groups["by_kind"].setdefault(q.kind, []).append(r)
        groups["by_lang"].setdefault(q.lang, []).append(r)
        groups["by_kind_lang"].setdefault(f"{q.kind}/{q.lang}", []).append(r)
    return {
        "overall": _block([ranks[q.id] for q in questions]),
        **{g: {name: _block(rs) for name, rs in sorted(per.items())} for g, per in groups.items()},
    }


def leave_one_out(questions: Sequence[Question], ranks: dict[str, dict[str, int | None]]) -> dict[str, Any]:
    """For each household, the setting with the best hit@3 (then hit@1; ties: the first in ``grid``'s
    order, which starts with the shipped span rule) on the other households, scored on it."""
    households = sorted({q.household for q in questions})
    held: list[int | None] = []
    per: dict[str, Any] = {}
    for left in households:
        train = [q.id for q in questions if q.household != left]
        test = [q.id for q in questions if q.household == left]
        names = list(ranks)
        best = max(
            names,
            key=lambda n: (
                _share([ranks[n][i] for i in train], 3),
                _share([ranks[n][i] for i in train], 1),
                -names.index(n),
            ),
        )
        got = [ranks[best][i] for i in test]
        held += got
        per[left] = {"chosen": best, **_block(got)}
    return {"by_household": per, "overall": _block(held)}


def _miss(
    q: Question, rank: int | None, top: list[str], texts: dict[str, str], without_span: int | None
) -> dict[str, Any]:
    span = asked_span(q.text, q.now, q.zone)
    return {
        "id": q.id,
        "kind": q.kind,
        "lang": q.lang,
        "text": q.text,
        "expected": sorted(q.expected),
        "rank": rank,
        "rank_without_span": without_span,
        "span": None if span is None else [span[0].isoformat(), span[1].isoformat()],
        "top": [
            f"{ids}: {texts.get(ids.split(',')[0], '(none)')}" if ids else "(not from the set)" for ids in top
        ],
    }
