"""The prompt hook's answer: the project's memories that bear on the prompt, or nothing.

By meaning first. The hook is a fresh process per prompt; it embeds the prompt with the
mapped copy of the model (``memory._use_mapped``, a few ms) and maps the database's
vector snapshot, so "what timezone do we store timestamps in?" finds "all datetimes are
saved as UTC", and a Japanese rule answers an English question.

Why a relevance gate: ranked search always returns its top k, so without one every prompt
("thanks!", 「もう少し短く説明して」) would drag memories along. A memory is shown when the
cosine between the prompt and its best passage reaches the model's ``Gate.meaning``, or
reaches the lower ``Gate.meaning_with_words`` while the two also share at least two
distinct keyword terms (of the passage, or of the search keys a model wrote for the memory:
``shared_terms``); and nothing at all is shown for a prompt that is conversation
chatter (``_chatter``: close to reference sentences such as "please continue",
「もっと簡潔にまとめて」). The thresholds were calibrated on a labelled set of prompts that
need a memory and prompts that must get nothing (``bench hook-relevance``, figures in
docs/benchmarks.md); a model without a calibrated gate, or a model that cannot run,
leaves the hook on words alone.

In the hook server a second model re-scores the candidates (``_second``): the gate then
applies to the fused score (or, for a ``relative`` gate, its margin over the mean of the other
candidates' fused scores: ``relative_scores``), with thresholds calibrated for the pair
(``GATES`` under ``"<model>+<second model>"``).

Words alone (the fallback): the passage must share at least two distinct terms with the
prompt (every term of a one-term prompt). Single kanji do not count as terms here: they
ride along with every bigram (説明 brings 説 and 明), which let one shared word pass.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, tzinfo
from typing import TYPE_CHECKING, Final

from ..memory import Hit, MemoryEngine, terms
from ..memory._embedders import Vector
from ._chatter import chatter_similarity

if TYPE_CHECKING:
    from concurrent.futures import Future

    from ._second import SecondOpinion

log = logging.getLogger(__name__)

CANDIDATES: Final = 20
DEFAULT_K: Final = 5
DEFAULT_BUDGET: Final = 2000
MIN_SHARED_TERMS: Final = 2
EXCERPT_CHARS: Final = 500


@dataclass(frozen=True, slots=True)
class Gate:
    """Thresholds of one embedding model, or of a model and a second opinion (``_second``).

    ``meaning`` and ``meaning_with_words`` apply to the score: the cosine alone, or with a
    second model ``cosine + second_weight * (second cosine - second_center)``.
    """

    meaning: float
    meaning_with_words: float
    chatter: float = 1.01  # a prompt this close to conversation chatter gets nothing
    second_weight: float = 0.0
    second_center: float = 0.0
    relative: bool = False  # thresholds apply to the score minus the other candidates' mean score

    def score(self, cosine: float | None, second: float | None = None) -> float | None:
        if cosine is None or second is None or not self.second_weight:
            return cosine
        return cosine + self.second_weight * (second - self.second_center)

    def against_others(self, scores: Sequence[float]) -> list[float]:
        """What the thresholds compare: each score as it is, or (``relative``) its margin over the mean
        of the other candidates' scores (see ``relative_scores``)."""
        return relative_scores(scores) if self.relative else list(scores)


def relative_scores(scores: Sequence[float]) -> list[float]:
    """Each score minus the mean of the others.

    Why: a general coding question ("explain how async/await works", "what does git rebase
    do?") sits near every note of a coding project at once — its best fused score is as high
    as a real question's, but so are its next ten. A question a note answers stands out from
    the rest of its candidates. Measured on prompts written after the rule's threshold was
    chosen (``bench hook-relevance``, held-out set): noise 0.188 → 0.062, right 0.772 → 0.702.
    """
    n = len(scores)
    if n < 2:
        return list(scores)
    total = sum(scores)
    return [s - (total - s) / (n - 1) for s in scores]


def gate_key(model_id: str, second_id: str | None = None) -> str:
    return f"{model_id}+{second_id}" if second_id else model_id


#: Calibrated with ``shitsuji bench hook-relevance`` (docs/benchmarks.md).
GATES: Final[dict[str, Gate]] = {
    "use-multilingual-v3": Gate(meaning=0.325, meaning_with_words=0.25, chatter=0.5),
    # absolute, as calibrated before: the relative gate (0.52 / 0.34) both folds pick cut the held-out
    # set's noise 0.188 -> 0.062 but lost 「エラーのレスポンス形式は？」 in test_hook_server (docs/benchmarks.md)
    "use-multilingual-v3+multilingual-e5-small-q4": Gate(
        meaning=0.8, meaning_with_words=0.55, chatter=0.5, second_weight=2.0, second_center=0.0
    ),
}


#: How a user whose embedder has no gate gets the hook to answer by meaning again.
NO_GATE_FIX: Final = "use the default embedder (use): shitsuji --embedder use reindex, then install-hooks again with --embedder use"


def no_gate(model_id: str) -> str | None:
    """Why the hook matches words only for this model (no calibrated gate), or None when it has a gate."""
    if model_id in GATES:
        return None
    return f"the prompt hook matches words only: no relevance gate is calibrated for {model_id}"


_warned: set[str] = set()  # models already named in the log (once a process: a hook server lives long)


def prompt_vector(engine: MemoryEngine, prompt: str) -> Vector | None:
    """The prompt's embedding when the model has a gate and runs; None means words alone."""
    model_id = engine.embedder.model_id
    if model_id not in GATES:
        if model_id not in _warned:
            _warned.add(model_id)
            log.warning("%s; %s", no_gate(model_id), NO_GATE_FIX)
        return None
    if not prompt.strip():
        return None
    try:
        return engine.embedder.embed_query(prompt)
    except Exception as exc:  # a broken model must not cost the prompt its memories
        log.warning("prompt embedding failed, the hook matches words only: %s", exc)
        return None


def candidate_hits(
    engine: MemoryEngine, prompt: str, scope: str, vector: Vector | None, zone: tzinfo = UTC
) -> list[Hit]:
    """Memories visible from ``scope`` ranked for the prompt: by meaning when ``vector`` is given
    (the gate shows nothing without a cosine, so the keyword index is not even loaded), else by words.
    ``zone`` is the user's (``Settings.time_zone``): "yesterday" in a prompt is their day.
    """
    if not prompt.strip() or (vector is None and not terms(prompt)):
        return []
    if vector is not None:
        hits = engine.recall(prompt, scope, k=CANDIDATES, lexical=False, vector=vector, zone=zone)
        if hits:
            return hits
    return engine.recall(prompt, scope, k=CANDIDATES, semantic=False, zone=zone)  # no vectors stored (yet)


def prompt_terms(text: str) -> set[str]:
    """Distinct keyword terms, single kanji left out (they ride along with every bigram)."""
    return {t for t in terms(text, readings=False) if len(t) > 1 or t.isascii()}


def shared_terms(hit: Hit, prompt: str | set[str]) -> int:
    """Distinct keyword terms the matched passage and its memory's search keys share with the prompt
    (single kanji not counted); ``prompt`` may be given as its ``prompt_terms`` already, as the hook
    server does once per prompt.

    Why the keys: they are the words a model wrote for the fact when it was saved (ky23: synonyms,
    the category, a translation — "formatter" and フォーマッタ for a note that says "ruff does both
    linting and formatting"), tokenised as the keyword index tokenises them. A prompt that shares two
    of them with a note is one the note was written to answer, though its own words differ; the
    meaning-only search finds the candidate, the keys let ``meaning_with_words`` show it. Measured
    with hand-written keys standing in for a model's (``bench hook-relevance``, ``with_keys``).
    """
    asked = prompt_terms(prompt) if isinstance(prompt, str) else prompt
    return len(asked & note_terms(hit))


def note_terms(hit: Hit) -> set[str]:
    """The keyword terms of the matched passage and of its memory's search keys."""
    found = set(terms(hit.excerpt, readings=False))
    keys = hit.memory.keys
    return found | set(terms("\n".join(keys), readings=False)) if keys else found


def passes(gate: Gate | None, cosine: float | None, shared: int, prompt_terms: int) -> bool:
    """The gate (see the module doc); without a gate or a cosine, the keyword rule."""
    if gate is None or cosine is None:
        return prompt_terms > 0 and shared >= min(MIN_SHARED_TERMS, prompt_terms)
    return cosine >= gate.meaning or (cosine >= gate.meaning_with_words and shared >= MIN_SHARED_TERMS)


def is_relevant(
    hit: Hit, prompt: str | set[str], gate: Gate | None = None, second: float | None = None
) -> bool:
    """``prompt``: its text, or its ``prompt_terms``."""
    asked = prompt_terms(prompt) if isinstance(prompt, str) else prompt
    score = gate.score(hit.signals.get("vector"), second) if gate else None
    return passes(gate, score, shared_terms(hit, asked), len(asked))


def relevant_hits(
    engine: MemoryEngine,
    prompt: str,
    scope: str,
    *,
    k: int = DEFAULT_K,
    second: SecondOpinion | None = None,
    zone: tzinfo = UTC,
) -> list[Hit]:
    """The memories to show for ``prompt``, best first; ``second`` re-scores the candidates (hook server);
    ``zone``: the user's time zone, read once at start-up (``Settings.time_zone``)."""
    model = engine.embedder.model_id
    fused = GATES.get(gate_key(model, second.model_id)) if second is not None else None
    vector = prompt_vector(engine, prompt)
    gate = GATES.get(model)
    asked = prompt_terms(prompt)  # once: each hit's check compares with them
    chatter = (
        vector is not None
        and gate is not None
        and chatter_similarity(engine.embedder, vector) >= gate.chatter
    )
    # the second model embeds the prompt while the first searches (``SecondOpinion.query_ahead``),
    # unless the first model already knows it will decide alone: no vector, or chatter
    ahead = (
        second.query_ahead(prompt)
        if second and fused and gate and vector is not None and not chatter
        else None
    )
    hits = candidate_hits(engine, prompt, scope, vector, zone)
    if vector is None or gate is None or not any("vector" in h.signals for h in hits):
        _drop(ahead)
        return [h for h in hits if is_relevant(h, asked)][
            :k
        ]  # no vectors to compare (model down, none stored)
    if chatter:
        return []
    hits = [h for h in hits if "vector" in h.signals]  # searched by meaning: the rest is far in meaning
    if second is None or fused is None:
        return [h for h in hits if is_relevant(h, asked, gate)][:k]
    try:
        pairs = second.cosines(prompt, hits, vector, ahead)
    except Exception as exc:  # the second model failing leaves the first to decide
        log.warning("second model failed, the hook decides on the first: %s", exc)
        pairs = None
    if pairs is None:  # not all candidates embedded by the second model yet
        _drop(ahead)
        return [h for h in hits if is_relevant(h, asked, gate)][:k]
    fused_scores = {mid: fused.score(first, other) or 0.0 for mid, (first, other) in pairs.items()}
    scores = dict(zip(fused_scores, fused.against_others(list(fused_scores.values())), strict=True))
    shown = [h for h in hits if passes(fused, scores[h.memory.id], shared_terms(h, asked), len(asked))]
    return sorted(shown, key=lambda h: -scores[h.memory.id])[:k]


def _drop(ahead: Future[Vector] | None) -> None:
    """The second model's prompt embedding is not needed after all: cancelled if it has not started."""
    if ahead is not None:
        ahead.cancel()


def format_context(hits: Sequence[Hit], scope: str, *, budget: int = DEFAULT_BUDGET) -> str:
    """Hits as a short block of text of at most ``budget`` characters; "" when there are none."""
    if not hits:
        return ""
    header = (
        f"Memories saved for this project ({scope}) that may bear on this prompt "
        "(shitsuji MCP tools: recall to search, read_memory for a full text):"
    )
    lines = [header]
    used = len(header)
    for hit in hits:
        m = hit.memory
        where = "" if m.scope == scope else f", from {m.scope}"
        tail = f" [id {m.id}, {m.category}{where}]"
        text = " ".join(hit.excerpt.split())
        if len(text) > EXCERPT_CHARS:
            text = text[: EXCERPT_CHARS - 1] + "…"
        room = budget - used - len(tail) - 3  # "\n- "
        if room < 40:
            break
        if len(text) > room:
            text = text[: room - 1] + "…"
        line = f"- {text}{tail}"
        lines.append(line)
        used += len(line) + 1
    return "\n".join(lines) if len(lines) > 1 else ""


def hook_output(context: str, event: str = "UserPromptSubmit") -> str:
    """The JSON both Claude Code and Codex read as added context; "" when there is nothing to add."""
    if not context:
        return ""
    payload = {"hookSpecificOutput": {"hookEventName": event, "additionalContext": context}}
    return json.dumps(payload, ensure_ascii=False)
