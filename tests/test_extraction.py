"""Automatic memory extraction: the extractor with a scripted model, and the durable queue."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from shitsuji.errors import ModelError, ModelUnavailableError
from shitsuji.llm import ModelRequest, ModelResponse, ScriptedModel, text_response
from shitsuji.llm._model import TextSink
from shitsuji.memory import MemoryEngine
from shitsuji.memory._extract import EXTRACTION_PROMPT, Extractor, Turn, parse_facts
from shitsuji.memory._jobs import MAX_ATTEMPTS, ExtractionQueue, ExtractionSettings, backoff
from shitsuji.store import database

from .conftest import Clock

SCOPE = "household/tanaka/people/aki"
TURNS = [
    Turn("user", "Hi! By the way, I'm allergic to peanuts.", "m1"),
    Turn("assistant", "Noted. I love helping with recipes!", "m2"),
    Turn("user", "Thanks, bye", "m3"),
]
PROV = {"conversation": "c1", "segment": "s1"}


@pytest.fixture
def memory_target(target: str) -> str:
    """Every engine here runs on both engines."""
    return target


def facts(*items: dict[str, Any]) -> ModelResponse:
    return text_response(json.dumps(list(items)))


def run(extractor: Extractor, turns: list[Turn] = TURNS) -> Any:
    return asyncio.run(extractor.extract(turns, SCOPE, PROV))


def test_extracts_speaker_facts_with_provenance(engine: MemoryEngine) -> None:
    model = ScriptedModel(
        [facts({"fact": "Aki is allergic to peanuts.", "category": "profile", "importance": 0.9})]
    )
    report = run(Extractor(model, engine))
    assert [m.content for m in report.added] == ["Aki is allergic to peanuts."]
    stored = engine.get(report.added[0].id)
    assert stored.source == "extracted" and stored.category == "profile"
    assert stored.provenance == {"conversation": "c1", "segment": "s1", "message_ids": ["m1", "m3"]}
    request = model.requests[0]
    assert request.model == "claude-haiku-4-5"
    assert request.system[0]["text"] == EXTRACTION_PROMPT
    sent = request.messages[0]["content"]
    assert "[user m1] Hi! By the way, I'm allergic to peanuts." in sent
    assert "[assistant m2]" in sent  # shown for context; the prompt says to take facts from the user only


def test_no_user_turns_means_no_model_call(engine: MemoryEngine) -> None:
    model = ScriptedModel([])
    report = run(Extractor(model, engine), [Turn("assistant", "Hello!", "m1")])
    assert report.skipped_reason == "no user turns" and model.requests == []


def test_known_memories_are_shown_with_ids(engine: MemoryEngine) -> None:
    old = engine.remember("Aki is allergic to peanuts", SCOPE).memory
    model = ScriptedModel([facts()])
    run(Extractor(model, engine))
    assert f"[{old.id}] Aki is allergic to peanuts" in model.requests[0].messages[0]["content"]


def test_threshold_drops_unimportant_facts(engine: MemoryEngine) -> None:
    model = ScriptedModel(
        [
            facts(
                {"fact": "Aki is allergic to peanuts.", "category": "profile", "importance": 0.5},
                {"fact": "Aki said bye.", "category": "misc", "importance": 0.49},
            )
        ]
    )
    report = run(Extractor(model, engine))
    assert len(report.added) == 1 and report.below_threshold == 1
    model = ScriptedModel([facts({"fact": "Aki likes tea.", "category": "preference", "importance": 0.6})])
    assert run(Extractor(model, engine, threshold=0.7)).below_threshold == 1


def test_duplicates_are_caught_before_insert(engine: MemoryEngine) -> None:
    engine.remember("Aki is allergic to peanuts.", SCOPE)
    model = ScriptedModel(
        [facts({"fact": "Aki is allergic to peanuts.", "category": "profile", "importance": 0.9})]
    )
    report = run(Extractor(model, engine))
    assert report.added == [] and report.duplicates == 1
    assert len(list(engine.list_memories(SCOPE))) == 1


def test_contradicting_fact_supersedes_the_old_one(engine: MemoryEngine, clock: Clock) -> None:
    old = engine.remember("Aki lives in Osaka", SCOPE, category="profile").memory
    clock.advance(days=1)
    model = ScriptedModel(
        [
            facts(
                {
                    "fact": "Aki moved to Kyoto.",
                    "category": "profile",
                    "importance": 0.8,
                    "supersedes": old.id,
                }
            )
        ]
    )
    report = run(Extractor(model, engine), [Turn("user", "We moved from Osaka to Kyoto", "m9")])
    new = report.added[0]
    assert report.superseded == [(old.id, new.id)]
    old_now = engine.get(old.id)
    assert old_now.valid_until == clock.now and old_now.deleted_at is None  # never hard-deleted
    assert old_now.provenance["superseded_by"] == new.id
    assert engine.get(new.id).provenance["supersedes"] == old.id
    clock.advance(seconds=1)
    assert [h.memory.id for h in engine.recall("where does Aki live", SCOPE)] == [new.id]


def test_supersedes_an_id_it_was_not_shown_is_ignored(engine: MemoryEngine) -> None:
    model = ScriptedModel(
        [
            facts(
                {
                    "fact": "Aki moved to Kyoto.",
                    "category": "profile",
                    "importance": 0.8,
                    "supersedes": "nope",
                }
            )
        ]
    )
    report = run(Extractor(model, engine))
    assert report.unknown_supersedes == 1 and report.superseded == [] and len(report.added) == 1


def test_malformed_output_is_retried_once_with_a_correction(engine: MemoryEngine) -> None:
    model = ScriptedModel(
        [
            text_response("Sure! Aki is allergic to peanuts."),
            text_response('```json\n[{"fact": "Aki is allergic to peanuts.", "importance": 0.9}]\n```'),
        ]
    )
    report = run(Extractor(model, engine))
    assert report.model_calls == 2 and len(report.added) == 1 and report.skipped_reason is None
    retry = model.requests[1].messages
    assert [m["role"] for m in retry] == ["user", "assistant", "user"]
    assert "not a valid JSON array" in retry[2]["content"]


@pytest.mark.parametrize(
    "second",
    [
        "still not json",
        '[{"fact": "Aki is allergic to peanuts.", "importance": 0.9}, {"fact": "", "importance": 0.9}]',
        '[{"fact": "ok", "importance": 2}]',
        '[{"fact": "ok", "importance": 0.9, "category": "Not A Word!"}]',
        '{"fact": "ok", "importance": 0.9}',
    ],
)
def test_still_malformed_is_skipped_without_writing_anything(
    engine: MemoryEngine, caplog: pytest.LogCaptureFixture, second: str
) -> None:
    model = ScriptedModel([text_response("nope"), text_response(second)])
    report = run(Extractor(model, engine))
    assert report.model_calls == 2 and report.added == []
    assert report.skipped_reason is not None and report.skipped_reason.startswith("malformed model output")
    assert list(engine.list_memories()) == []  # no half-written batch
    assert "memory extraction skipped" in caplog.text


def test_parse_facts_names_the_problem() -> None:
    with pytest.raises(ValueError, match="importance"):
        parse_facts('[{"fact": "x"}]')
    assert parse_facts("[]") == []


# -- the durable queue ---------------------------------------------------


def queue(memory_target: str, engine: MemoryEngine, clock: Clock, model: Any, **kw: Any) -> ExtractionQueue:
    return ExtractionQueue(database(memory_target), Extractor(model, engine), clock=clock, **kw)


ONE_FACT = facts({"fact": "Aki is allergic to peanuts.", "category": "profile", "importance": 0.9})


def test_job_survives_a_restart_and_runs_once(memory_target: str, engine: MemoryEngine, clock: Clock) -> None:
    first = queue(memory_target, engine, clock, ScriptedModel([]))
    job = first.enqueue(TURNS, SCOPE, conversation="c1", segment="s1", household="tanaka", channel="line")
    assert job is not None and first.pending() == 1
    first.close()
    model = ScriptedModel([ONE_FACT])
    second = queue(memory_target, engine, clock, model)
    [outcome] = asyncio.run(second.run_due())
    assert outcome.status == "done" and outcome.report is not None and len(outcome.report.added) == 1
    assert second.pending() == 0 and asyncio.run(second.run_due()) == []
    stored = outcome.report.added[0]
    assert engine.get(stored.id).provenance == {
        "conversation": "c1",
        "segment": "s1",
        "household": "tanaka",
        "channel": "line",
        "message_ids": ["m1", "m3"],
    }
    second.close()


def test_model_errors_back_off_then_fail(memory_target: str, engine: MemoryEngine, clock: Clock) -> None:
    model = ScriptedModel([ModelUnavailableError("overloaded")] * MAX_ATTEMPTS)
    q = queue(memory_target, engine, clock, model)
    job = q.enqueue(TURNS, SCOPE, conversation="c1")
    assert job is not None
    for attempt in range(1, MAX_ATTEMPTS):
        [outcome] = asyncio.run(q.run_due())
        assert outcome.status == "pending" and outcome.attempts == attempt
        clock.advance(seconds=backoff(attempt).total_seconds() - 1)
        assert asyncio.run(q.run_due()) == []  # not due yet
        clock.advance(seconds=1)
    [outcome] = asyncio.run(q.run_due())
    assert outcome.status == "failed" and q.status(job) == ("failed", MAX_ATTEMPTS, outcome.error)
    assert outcome.error is not None and "overloaded" in outcome.error
    assert q.pending() == 0 and len(model.requests) == MAX_ATTEMPTS
    q.close()


def test_backoff_is_exponential_and_capped() -> None:
    assert [backoff(n).total_seconds() for n in (1, 2, 3)] == [2, 4, 8]
    assert backoff(20).total_seconds() == 600


def test_a_retry_after_model_error_succeeds(memory_target: str, engine: MemoryEngine, clock: Clock) -> None:
    q = queue(memory_target, engine, clock, ScriptedModel([ModelError("boom"), ONE_FACT]))
    q.enqueue(TURNS, SCOPE, conversation="c1")
    assert [o.status for o in asyncio.run(q.run_due())] == ["pending"]
    clock.advance(seconds=2)
    assert [o.status for o in asyncio.run(q.run_due())] == ["done"]
    assert len(list(engine.list_memories(SCOPE))) == 1
    q.close()


def test_a_dead_workers_job_is_taken_again_after_its_lease(
    memory_target: str, engine: MemoryEngine, clock: Clock
) -> None:
    q = queue(memory_target, engine, clock, ScriptedModel([ONE_FACT]))
    q.enqueue(TURNS, SCOPE, conversation="c1")
    assert q._claim() is not None  # a worker claims it and dies
    assert asyncio.run(q.run_due()) == []
    clock.advance(minutes=11)
    assert [o.status for o in asyncio.run(q.run_due())] == ["done"]
    q.close()


class SlowModel:
    """Answers after a pause, so two workers overlap; counts the requests it saw."""

    def __init__(self) -> None:
        self.requests: list[ModelRequest] = []

    async def respond(self, request: ModelRequest, *, on_text: TextSink | None = None) -> ModelResponse:
        self.requests.append(request)
        await asyncio.sleep(0.01)
        return facts()


def test_two_workers_never_run_the_same_job(memory_target: str, engine: MemoryEngine, clock: Clock) -> None:
    model = SlowModel()
    a, b = queue(memory_target, engine, clock, model), queue(memory_target, engine, clock, model)
    jobs = [a.enqueue(TURNS, SCOPE, conversation=f"c{i}") for i in range(6)]

    async def both() -> tuple[list[Any], list[Any]]:
        return await asyncio.gather(a.run_due(), b.run_due())

    first, second = asyncio.run(both())
    ran = [o.job_id for o in first + second]
    assert sorted(ran) == sorted(j for j in jobs if j) and len(model.requests) == 6
    assert first and second  # both workers did some of the work
    a.close()
    b.close()


def test_extraction_can_be_switched_off(memory_target: str, engine: MemoryEngine, clock: Clock) -> None:
    settings = ExtractionSettings(
        disabled_households=frozenset({"sato"}), disabled_channels=frozenset({"mcp"})
    )
    q = queue(memory_target, engine, clock, ScriptedModel([]), settings=settings)
    assert q.enqueue(TURNS, SCOPE, conversation="c1", household="sato", channel="line") is None
    assert q.enqueue(TURNS, SCOPE, conversation="c1", household="tanaka", channel="mcp") is None
    assert q.enqueue(TURNS, SCOPE, conversation="c1", household="tanaka", channel="line") is not None
    assert q.pending() == 1
    assert settings.enabled(None, None)
    q.close()


# -- the precision check -------------------------------------------------


def test_extraction_check_scores_labelled_turns(tmp_path: Path) -> None:
    from shitsuji.bench.extraction import rule_facts, run_extraction_check

    session = [
        {"speaker": "Caroline", "dia_id": "D1:1", "text": "Hey Mel! Good to see you! How have you been?"},
        {"speaker": "Melanie", "dia_id": "D1:2", "text": "I've worked as a nurse for ten years now."},
    ]
    data = [{"sample_id": "conv-26", "conversation": {"speaker_a": "Caroline", "session_1": session}}]
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    result = run_extraction_check(path, sample=2)
    assert (result["tp"], result["tn"], result["precision"], result["recall"]) == (1, 1, 1.0, 1.0)
    assert result["system_prompt"] == EXTRACTION_PROMPT
    assert "[user D1:1] Hey Mel!" in result["example_user_message"]
    assert rule_facts("Wow, that's cool! What now?") == []
