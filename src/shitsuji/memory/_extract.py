"""Automatic memory extraction: a cheap model turns new conversation turns into facts.

The model reads the turns and proposes lasting facts about the speaker (the user), each
with a category and an importance, and may name an already-remembered fact that a new
one contradicts. Everything it says is validated before anything is written, so a bad
answer never leaves half a batch behind: malformed output is retried once with a short
correction, then logged and skipped. Facts under the importance threshold are dropped,
duplicates are caught by ``MemoryEngine.remember``, and a contradicted fact is
superseded (it gets a ``valid_until`` and a link both ways), never deleted.

Model failures (``ModelError``) propagate: the durable queue in ``_jobs`` retries them.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, tzinfo
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, field_validator

from .._offload import off_loop
from ..llm import Message, Model, ModelRequest
from ._engine import MemoryEngine
from ._records import Hit, Memory, check_category, check_content

log = logging.getLogger(__name__)

DEFAULT_MODEL = "claude-haiku-4-5"
DEFAULT_THRESHOLD = 0.5
KNOWN_FACTS = 10  # existing memories shown to the model, so it can skip them or supersede one

EXTRACTION_PROMPT = """\
You read a conversation between a user and an assistant and pick out lasting facts about \
the user: who they are, the people in their life, their home, work, health, habits, \
preferences, plans and the events that happened to them.

Rules:
- Only facts the user states about themselves. Never facts from the assistant's own words, \
greetings, thanks, questions, small talk or passing moods.
- Skip a fact that the known facts already hold.
- One fact per item, written as a short standalone sentence in the third person \
("The user has two daughters."), in the language the user wrote in.
- category: one of profile, preference, media, event, misc (or a short lowercase word).
- importance: 0 to 1; how useful the fact will be in a later conversation \
(a name or an allergy is 0.9, a passing plan 0.3).
- If a new fact contradicts a known fact, give that known fact's id as "supersedes".

Reply with only a JSON array, no prose, e.g.
[{"fact": "The user moved to Berlin.", "category": "profile", "importance": 0.8, "supersedes": "3f9a0c1d2e4b5a6c"}]
Reply [] when there is nothing to remember."""

CORRECTION = (
    "That reply was not a valid JSON array of facts ({error}). "
    'Reply again with only the JSON array: [{{"fact", "category", "importance", "supersedes"?}}], or [].'
)

Role = Literal["user", "assistant"]
Clock = Callable[[], datetime]
_FENCE = re.compile(r"^```(?:json)?\s*\n(.*)\n```$", re.DOTALL)


@dataclass(frozen=True, slots=True)
class Turn:
    """One message of the conversation being read."""

    role: Role
    text: str
    message_id: str


class ProposedFact(BaseModel):
    """One item of the model's answer, validated before anything is written."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    fact: str
    category: str = "misc"
    importance: float = Field(ge=0.0, le=1.0)
    supersedes: str | None = None

    @field_validator("fact")
    @classmethod
    def _fact(cls, value: str) -> str:
        return check_content(value)  # UserInputError is a ValueError: pydantic reports it

    @field_validator("category")
    @classmethod
    def _category(cls, value: str) -> str:
        return check_category(value)


_FACTS = TypeAdapter(list[ProposedFact])


@dataclass(slots=True)
class ExtractionReport:
    """What one extraction did; ``skipped_reason`` is set when nothing was written on purpose."""

    added: list[Memory] = field(default_factory=list)
    duplicates: int = 0
    below_threshold: int = 0
    superseded: list[tuple[str, str]] = field(default_factory=list)  # (old id, new id)
    unknown_supersedes: int = 0
    model_calls: int = 0
    skipped_reason: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "added": [m.id for m in self.added],
            "duplicates": self.duplicates,
            "below_threshold": self.below_threshold,
            "superseded": [list(pair) for pair in self.superseded],
            "unknown_supersedes": self.unknown_supersedes,
            "model_calls": self.model_calls,
            "skipped_reason": self.skipped_reason,
        }


def parse_facts(text: str) -> list[ProposedFact]:
    """The model's answer as facts; raises ``ValueError`` naming what is wrong."""
    body = text.strip()
    fenced = _FENCE.match(body)
    if fenced:  # models often wrap JSON in a code fence even when told not to
        body = fenced.group(1).strip()
    try:
        return _FACTS.validate_json(body)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "the reply"
        raise ValueError(f"{where}: {first['msg']}") from exc


def render_turns(turns: Sequence[Turn], known: Sequence[Hit]) -> str:
    """The user message the extraction model sees: known facts, then the turns."""
    lines = ["Known facts about the user:"]
    lines += [f"- [{hit.memory.id}] {hit.memory.content}" for hit in known] or ["(none)"]
    lines += ["", "Conversation:"]
    lines += [f"[{turn.role} {turn.message_id}] {turn.text}" for turn in turns]
    return "\n".join(lines)


class Extractor:
    """Reads turns with ``model`` and writes the user's lasting facts into ``engine``."""

    def __init__(
        self,
        model: Model,
        engine: MemoryEngine,
        *,
        model_name: str = DEFAULT_MODEL,
        threshold: float = DEFAULT_THRESHOLD,
        clock: Clock | None = None,
        max_tokens: int = 1024,
        zone_of: Callable[[str], tzinfo] | None = None,
    ) -> None:
        self.model = model
        self.engine = engine
        # a job's household -> its time zone: facts are indexed under the day they were said there
        self.zone_of = zone_of
        self.model_name = model_name
        self.threshold = threshold
        self.clock = clock or engine.clock
        self.max_tokens = max_tokens

    async def extract(
        self, turns: Sequence[Turn], scope: str, provenance: dict[str, Any]
    ) -> ExtractionReport:
        report = ExtractionReport()
        said = [turn for turn in turns if turn.role == "user" and turn.text.strip()]
        if not said:
            report.skipped_reason = "no user turns"
            return report
        known = await off_loop(self.engine.recall, "\n".join(t.text for t in said), scope, k=KNOWN_FACTS)
        facts = await self._ask(render_turns(turns, known), report)
        if facts is None:
            return report
        origin = {**provenance, "message_ids": [turn.message_id for turn in said]}
        await off_loop(self._write, facts, scope, origin, {hit.memory.id for hit in known}, report)
        return report

    async def _ask(self, prompt: str, report: ExtractionReport) -> list[ProposedFact] | None:
        """The model's facts, asking once more on malformed output; None (and a reason) if still bad."""
        messages: list[Message] = [{"role": "user", "content": prompt}]
        error = ""
        for _ in range(2):
            request = ModelRequest(
                model=self.model_name,
                messages=list(messages),
                system=[{"type": "text", "text": EXTRACTION_PROMPT}],
                max_tokens=self.max_tokens,
            )
            report.model_calls += 1
            reply = (await self.model.respond(request)).text
            try:
                return parse_facts(reply)
            except ValueError as exc:
                error = str(exc)
            messages += [
                {"role": "assistant", "content": reply or "(empty)"},
                {"role": "user", "content": CORRECTION.format(error=error)},
            ]
        log.warning("memory extraction skipped: the model's output stayed malformed (%s)", error)
        report.skipped_reason = f"malformed model output: {error}"
        return None

    def _write(
        self,
        facts: Sequence[ProposedFact],
        scope: str,
        provenance: dict[str, Any],
        known_ids: set[str],
        report: ExtractionReport,
    ) -> None:
        for fact in facts:
            if fact.importance < self.threshold:
                report.below_threshold += 1
                continue
            old = fact.supersedes
            if old is not None and old not in known_ids:  # only ids we showed it can be replaced
                report.unknown_supersedes += 1
                old = None
            result = self.engine.remember(
                fact.fact,
                scope,
                category=fact.category,
                importance=fact.importance,
                source="extracted",
                provenance={**provenance, **({"supersedes": old} if old else {})},
                zone=self._zone(provenance),
            )
            if result.duplicate:
                report.duplicates += 1
            else:
                report.added.append(result.memory)
            if old is not None and old != result.memory.id:
                self.engine.store.set_valid_until(old, self.clock(), {"superseded_by": result.memory.id})
                report.superseded.append((old, result.memory.id))

    def _zone(self, provenance: dict[str, Any]) -> tzinfo | None:
        household = provenance.get("household")
        return self.zone_of(household) if self.zone_of is not None and isinstance(household, str) else None


def turns_to_json(turns: Sequence[Turn]) -> list[dict[str, str]]:
    return [{"role": t.role, "text": t.text, "message_id": t.message_id} for t in turns]


def turns_from_json(items: Sequence[dict[str, str]]) -> list[Turn]:
    out = []
    for item in items:
        role: Role = "assistant" if item["role"] == "assistant" else "user"
        out.append(Turn(role, item["text"], item["message_id"]))
    return out
