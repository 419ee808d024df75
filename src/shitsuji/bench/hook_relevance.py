"""Does the prompt hook inject the right memory, and nothing for prompts that need none?

The labelled set (``data/hook_relevance.json``, written for this project) holds a coding
project's memories — plus notes on a parent folder, and 300 synthetic distractors — and
prompts in Japanese and English: some need one memory (asked in other words, or in the
other language), the rest must get nothing (small talk, unrelated requests). Each prompt
goes through the hook's own ranking (``candidate_hits``) once; the gate is then applied
with the shipped thresholds, and a grid of thresholds is searched to calibrate them.

So that a threshold is not judged on the prompts it was tuned on, the set is split in two
folds (alternate prompts of each kind): thresholds tuned on one fold are scored on the
other, and the report gives those held-out figures beside the figures on the whole set.
A second set of prompts (``data/hook_relevance_heldout.json``, same memories) was written
after the gates were chosen and is never searched: it is scored with the shipped gate and
with the gate calibrated on the first set — the figure that says how the gate generalises.
A third (``data/hook_relevance_fresh.json``, hk23f) was written before the rules of its round were
tried, and scored only in aggregate: the held-out set had been read while looking for rules.
A fourth (``data/hook_relevance_projects.json``, hk28) has memories of its own — three projects and
their parent folder's notes, each project with its own distractors — and states its labelling rule;
it is ranked in an engine of its own, each prompt in its project's scope.

``leave_one_set_out``: for each of the four sets, the gate calibrated on the other three, scored on it
(the figure a rule tuned on the sets has to be judged by). A fifth (``data/hook_relevance_fifth.json``,
hk29: four projects of 3 to 12 notes, the fourth set's rule) is held back from every fold: it is scored
with the shipped gate and with the gate calibrated on the four together (``fifth_set``).
``calibrated_on_itself``: each set's best gate tuned on that set alone — not a figure to judge a gate by,
but the most right answers any gate of this form reaches there at noise ≤ 0.05: what the scores can
separate at all (hk29: on the fourth set about half its answers, whatever the threshold).

``with_keys`` scores the shipped gates as if each note had been saved with search keys
(``data/hook_relevance_keys.json``, written by hand as a model would write them: the bench has no
model at ingest). The hook searches by meaning, so the candidates are the same; a note's keys only
add to the words it shares with a prompt. The engine starts as the hook server does
(``hooks._server.warm_up``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from importlib import resources
from typing import Any

from ..hooks import DEFAULT_K, GATES, Gate, candidate_hits, passes, prompt_vector, shared_terms
from ..hooks._chatter import chatter_similarity
from ..hooks._context import gate_key, note_terms, prompt_terms
from ..hooks._second import SECOND_MODEL, SecondOpinion, load_second_opinion
from ..hooks._server import warm_up
from ..memory import MemoryEngine, NewMemory, terms
from ._common import bench_engine
from .latency import synthetic_memories

PROJECT = "fs/home/u/projects/acme"
PARENT = "fs/home/u"
HELD_OUT = "hook_relevance_heldout.json"  # prompts written after the gates were chosen: never tuned on
FRESH = "hook_relevance_fresh.json"  # written by hk23f before its rules were tried; never read to design one
PROJECTS = "hook_relevance_projects.json"  # hk28's: projects of their own, written before its round
FIFTH = "hook_relevance_fifth.json"  # hk29's: projects of 3 to 12 notes, committed before any run
HELD_BACK = "fifth_set"  # in no fold: scored with the gates calibrated on the four others
KEYS = "hook_relevance_keys.json"  # search keys for the notes, written by hand as a model would (hk26)
DISTRACTORS = 300
MAX_NOISE = 0.05
GRID = [round(0.20 + 0.025 * i, 3) for i in range(21)]  # 0.20 … 0.70
FUSED_GRID = [round(0.05 * i, 3) for i in range(31)]  # 0 … 1.5: fused scores spread wider
RELATIVE_GRID = [round(0.02 * i, 3) for i in range(41)]  # 0 … 0.8: margins over the other candidates
CHATTER_GRID = [0.5, 0.6, 0.7, 0.8, 1.01]  # 1.01: no chatter check
SECOND_WEIGHTS = [0.5, 1.0, 2.0, 3.0]  # of the second model's cosine in the fused score
SECOND_CENTER = 0.0  # language-centred cosines sit around 0; the threshold grid absorbs the rest

Progress = Callable[[str], None]


@dataclass(frozen=True, slots=True)
class Scored:
    """One candidate, reduced to what the gate looks at."""

    label: str
    cosine: float | None
    shared: int
    second: float | None = None  # language-centred cosines (hook server), when scored with a second model
    centred: float | None = None
    shared_with_keys: int = 0  # ``shared`` had the memory been saved with its keys (``data/…_keys.json``)


@dataclass(frozen=True, slots=True)
class Case:
    prompt: str
    expect: frozenset[str]  # memory ids (our labels); empty: nothing should be injected
    hits: list[Scored]
    prompt_terms: int
    chatter: float = 0.0  # the prompt's similarity to conversation chatter (``hooks._chatter``)
    # the candidates scored and ordered for one kind of score (``_ranked``): a calibration tries
    # tens of thousands of thresholds over the same few kinds, and only the thresholds change
    ranked: dict[tuple[float, float, bool], list[tuple[float | None, Scored]]] = field(
        default_factory=dict, compare=False, repr=False
    )


def load_set(name: str = "hook_relevance.json") -> dict[str, Any]:
    text = resources.files("shitsuji.bench").joinpath(f"data/{name}").read_text("utf-8")
    data: dict[str, Any] = json.loads(text)
    return data


def score(cases: Sequence[Case], gate: Gate | None, k: int = DEFAULT_K) -> dict[str, float]:
    """right: share of needing prompts given their memory; noise: share of the others given anything.

    ``gate=None`` scores the keyword fallback (cases ranked by words alone).
    """
    need = [c for c in cases if c.expect]
    none = [c for c in cases if not c.expect]
    right = wrong_only = 0
    for case in need:
        shown = {h.label for h in _gated(case, gate)[:k]}
        right += bool(shown & case.expect)
        wrong_only += bool(shown) and not shown & case.expect
    noise = sum(bool(_gated(case, gate)) for case in none)
    return {
        "right": round(right / max(len(need), 1), 3),
        "noise": round(noise / max(len(none), 1), 3),
        "wrong_only": round(wrong_only / max(len(need), 1), 3),
        "need": len(need),
        "none": len(none),
    }


def _gated(case: Case, gate: Gate | None) -> list[Scored]:
    """The candidates the gate lets through, in the order the hook shows them."""
    if gate is not None and case.chatter >= gate.chatter:
        return []
    if gate is None:
        return [h for h in case.hits if passes(None, h.cosine, h.shared, case.prompt_terms)]
    return [h for s, h in _ranked(case, gate) if passes(gate, s, h.shared, case.prompt_terms)]


def _ranked(case: Case, gate: Gate) -> list[tuple[float | None, Scored]]:
    """The case's candidates with the score ``gate``'s thresholds compare, in the order the hook shows
    them; computed once per kind of score (weight, centre, relative) and kept on the case."""
    kind = (gate.second_weight, gate.second_center, gate.relative)
    found = case.ranked.get(kind)
    if found is not None:
        return found
    if gate.second_weight:  # the hook server's fused score, of language-centred cosines
        fused = [(gate.score(h.centred, h.second) or 0.0, h) for h in case.hits if h.centred is not None]
        relative = gate.against_others([s for s, _ in fused])
        scored: list[tuple[float | None, Scored]] = [
            (r, h) for r, (_, h) in zip(relative, fused, strict=True)
        ]
        scored.sort(key=lambda pair: -(pair[0] or 0.0))  # re-scored by the second model: best first
    else:
        scored = [(gate.score(h.cosine), h) for h in case.hits if h.cosine is not None]
    case.ranked[kind] = scored
    return scored


def calibrate(cases: Sequence[Case], second_weights: Sequence[float] = (0.0,)) -> Gate:
    """The gate with the most right answers at noise ≤ MAX_NOISE (ties: the stricter gate)."""
    best: tuple[tuple[float, ...], Gate] | None = None
    for weight, relative in _kinds(second_weights):
        grid = (RELATIVE_GRID if relative else FUSED_GRID) if weight else GRID
        for meaning in grid:
            for with_words in (g for g in grid if g <= meaning):
                for chatter in CHATTER_GRID:
                    gate = Gate(
                        meaning=meaning,
                        meaning_with_words=with_words,
                        chatter=chatter,
                        second_weight=weight,
                        second_center=SECOND_CENTER if weight else 0.0,
                        relative=relative,
                    )
                    result = score(cases, gate)
                    if result["noise"] > MAX_NOISE:
                        continue
                    # ties: less noise, then the stricter gate
                    key = (result["right"], -result["noise"], relative, meaning, with_words, -chatter)
                    if best is None or key > best[0]:
                        best = (key, gate)
    return best[1] if best else Gate(meaning=1.0, meaning_with_words=1.0, chatter=0.0)


def _kinds(second_weights: Sequence[float]) -> list[tuple[float, bool]]:
    """(weight, relative) of the gates searched: a fused score is tried absolute and relative."""
    return [(w, r) for w in second_weights for r in ((False, True) if w else (False,))]


@dataclass(frozen=True, slots=True)
class Labelled:
    """Every labelled set's prompts ranked as the hook server ranks them (``run_hook_relevance``'s
    input; experiments pickle it to try rules offline)."""

    sets: dict[str, list[Case]]  # first_set, held_out_set, fresh_set, projects_set, fifth_set
    by_words: list[Case]  # the first set ranked by words alone
    model: str
    second_model: str | None


def add_first(engine: MemoryEngine) -> None:
    """The first set's memories (the project "acme" and its parent folder) and 300 distractors."""
    scopes = {"project": PROJECT, "parent": PARENT}
    engine.add_many(
        NewMemory(content=m["content"], scope=scopes[m["scope"]], provenance={"label": m["id"]})
        for m in load_set()["memories"]
    )
    engine.add_many(
        NewMemory(content=text, scope=PROJECT, provenance={"label": f"distractor-{i}"})
        for i, text in enumerate(synthetic_memories(DISTRACTORS, seed=3))
    )
    engine.index_pending()


def labelled_sets(embedder: str, progress: Progress | None = None) -> Labelled:
    data = load_set()
    with bench_engine(embedder) as engine:
        add_first(engine)
        if progress:
            progress(f"ranking {len(data['prompts'])} prompts")
        second = load_second_opinion() if embedder != SECOND_MODEL else None
        warm_up(engine, second)  # the hook server's start-up, in its order (``hooks._server.warm_up``)
        if second is not None:  # as the hook server does: every memory embedded ahead
            second.wait_idle(600)
        keys = load_set(KEYS)["keys"]
        cases, held, fresh = (
            [
                _case(engine, p["prompt"], p["expect"], semantic=True, second=second, keys=keys)
                for p in load_set(name)["prompts"]
            ]
            for name in ("hook_relevance.json", HELD_OUT, FRESH)
        )
        by_words = [_case(engine, p["prompt"], p["expect"], semantic=False) for p in data["prompts"]]
        model = engine.embedder.model_id
        if second is not None:
            second.stop()
    if progress:
        progress("ranking the projects sets")
    sets = {
        "first_set": cases,
        "held_out_set": held,
        "fresh_set": fresh,
        "projects_set": projects_cases(embedder),
        HELD_BACK: projects_cases(embedder, FIFTH),
    }
    return Labelled(sets, by_words, model, second.model_id if second is not None else None)


def run_hook_relevance(
    *, embedder: str, progress: Progress | None = None, leave_sets_out: bool = False
) -> dict[str, Any]:
    """``leave_sets_out``: add ``leave_one_set_out`` (minutes of calibration: the CLI asks for it)."""
    labelled = labelled_sets(embedder, progress)
    sets, model = labelled.sets, labelled.model
    result: dict[str, Any] = {
        "embedder": embedder,
        "model": model,
        "memories": len(load_set()["memories"]),
        "distractors": DISTRACTORS,
        "words_only": score(labelled.by_words, None),
        "alone": _report(sets, GATES.get(model), (0.0,), leave_sets_out=leave_sets_out),
    }
    gates = {"alone": GATES.get(model)}
    if labelled.second_model is not None:
        fused = GATES.get(gate_key(model, labelled.second_model))
        result["with_second_model"] = {
            "second_model": labelled.second_model,
            **_report(sets, fused, SECOND_WEIGHTS, leave_sets_out=leave_sets_out),
        }
        gates["with_second_model"] = fused
    result["with_keys"] = {  # the shipped gates, had the notes been saved with keys (``data/…_keys.json``)
        name: {key: score([with_keys(c) for c in unseen], gate) for key, unseen in sets.items()}
        for name, gate in gates.items()
        if gate is not None
    }
    return result


def add_projects(engine: MemoryEngine, name: str = PROJECTS) -> dict[str, str]:
    """A set with projects of its own (``name``: the fourth or the fifth): its memories and 300
    distractors per project, saved in ``engine``; the scope of each project (and of ``"parent"``)."""
    data = load_set(name)
    scopes = {**data["projects"], "parent": data["parent"]}
    engine.add_many(
        NewMemory(content=m["content"], scope=scopes[m["scope"]], provenance={"label": m["id"]})
        for m in data["memories"]
    )
    for i, scope in enumerate(data["projects"].values()):
        engine.add_many(
            NewMemory(content=text, scope=scope, provenance={"label": f"distractor-{i}-{j}"})
            for j, text in enumerate(synthetic_memories(DISTRACTORS, seed=4 + i))
        )
    engine.index_pending()
    return scopes


def projects_cases(embedder: str, name: str = PROJECTS) -> list[Case]:
    """A projects set's prompts ranked as the hook ranks them, each in its project's scope, in an
    engine of its own (``add_projects``), started as the hook server starts."""
    with bench_engine(embedder) as engine:
        scopes = add_projects(engine, name)
        second = load_second_opinion() if embedder != SECOND_MODEL else None
        warm_up(engine, second)
        if second is not None:
            second.wait_idle(600)
        try:
            return [
                _case(
                    engine,
                    p["prompt"],
                    p["expect"],
                    semantic=True,
                    second=second,
                    scope=scopes[p["project"]],
                )
                for p in load_set(name)["prompts"]
            ]
        finally:
            if second is not None:
                second.stop()


def _report(
    sets: Mapping[str, Sequence[Case]],
    shipped: Gate | None,
    weights: Sequence[float],
    *,
    leave_sets_out: bool = False,
) -> dict[str, Any]:
    """The shipped gate's figures, the gate calibrated on the first set, the two-fold check, the
    other sets scored with the shipped gate and with the one calibrated here (never tuned on them),
    and each set scored with the gate calibrated on the three others (``leave_one_set_out``)."""
    cases = sets["first_set"]
    halves = [_fold(cases, 0), _fold(cases, 1)]
    held_out = _two_fold(halves, weights)
    extra: dict[str, Any] = {}
    if shipped is not None and shipped.second_weight:  # the weight as shipped, thresholds tuned per fold
        fixed = _two_fold(halves, [shipped.second_weight])
        extra = {
            "two_fold_shipped_weight": fixed,
            "two_fold_shipped_weight_right": round(
                sum(f["scored_on_other_fold"]["right"] for f in fixed) / 2, 3
            ),
            "two_fold_shipped_weight_noise": round(
                sum(f["scored_on_other_fold"]["noise"] for f in fixed) / 2, 3
            ),
        }
    return {
        "shipped_gate": _gate_json(shipped) if shipped else None,
        "shipped": score(cases, shipped) if shipped else None,
        "calibrated_on_all": _gate_json(best := calibrate(cases, weights)),
        "calibrated_on_all_score": score(cases, best),
        **{
            key: {
                "shipped": score(unseen, shipped) if shipped else None,
                "calibrated_on_all": score(unseen, best),
            }
            for key, unseen in sets.items()
            if key != "first_set"
        },
        # the shipped weight only (as ``two_fold_shipped_weight``): every weight would take ~4x longer
        **(_folds(sets, [shipped.second_weight if shipped else 0.0]) if leave_sets_out else {}),
        "two_fold": held_out,
        "two_fold_right": round(sum(f["scored_on_other_fold"]["right"] for f in held_out) / 2, 3),
        "two_fold_noise": round(sum(f["scored_on_other_fold"]["noise"] for f in held_out) / 2, 3),
        **extra,
    }


def _folds(sets: Mapping[str, Sequence[Case]], weights: Sequence[float]) -> dict[str, Any]:
    """``leave_one_set_out`` over every set but the one held back, that one scored with the gate
    calibrated on all the others together, and each set's ``calibrated_on_itself``."""
    folded = {name: cases for name, cases in sets.items() if name != HELD_BACK}
    out: dict[str, Any] = {"leave_one_set_out": leave_one_set_out(folded, weights)}
    if HELD_BACK in sets:
        tuned = calibrate([c for cases in folded.values() for c in cases], weights)
        out["held_back"] = {"tuned": _gate_json(tuned), "scored": score(sets[HELD_BACK], tuned)}
    out["calibrated_on_itself"] = {
        name: {"tuned": _gate_json(gate := calibrate(cases, weights)), "scored": score(cases, gate)}
        for name, cases in sets.items()
    }
    return out


def leave_one_set_out(
    sets: Mapping[str, Sequence[Case]], weights: Sequence[float]
) -> dict[str, dict[str, Any]]:
    """Each set scored with the gate calibrated on all the others together."""
    out = {}
    for name, left_out in sets.items():
        tuned = calibrate([c for other, cs in sets.items() if other != name for c in cs], weights)
        out[name] = {"tuned": _gate_json(tuned), "scored": score(left_out, tuned)}
    return out


def _two_fold(folds: Sequence[Sequence[Case]], weights: Sequence[float]) -> list[dict[str, Any]]:
    """Tuned on one fold, scored on the other, both ways."""
    out = []
    for i, fold in enumerate(folds):
        tuned = calibrate(fold, weights)
        out.append({"tuned": _gate_json(tuned), "scored_on_other_fold": score(folds[1 - i], tuned)})
    return out


def _case(
    engine: MemoryEngine,
    prompt: str,
    expect: Sequence[str],
    *,
    semantic: bool,
    second: SecondOpinion | None = None,
    keys: Mapping[str, Sequence[str]] | None = None,
    scope: str = PROJECT,
) -> Case:
    """The prompt ranked as the hook ranks it (by meaning, or by words alone), reduced to gate inputs;
    ``keys``: search keys by label, counted in ``shared_with_keys`` only."""
    keys = keys or {}
    vector = prompt_vector(engine, prompt) if semantic else None
    hits = candidate_hits(engine, prompt, scope, vector)
    pairs = (
        second.cosines(prompt, [h for h in hits if "vector" in h.signals], vector)
        if second and vector is not None
        else None
    ) or {}  # every memory was embedded ahead: None would mean the model failed
    scored = []
    for h in hits:
        centred, other = pairs.get(h.memory.id, (None, None))
        label = h.memory.provenance["label"]
        shared = shared_terms(h, prompt)
        keyed = len(prompt_terms(prompt) & (note_terms(h) | key_terms(keys.get(label, ()))))
        scored.append(Scored(label, h.signals.get("vector"), shared, other, centred, keyed))
    chatter = chatter_similarity(engine.embedder, vector) if vector is not None else 0.0
    return Case(prompt, frozenset(expect), scored, len(prompt_terms(prompt)), chatter)


def key_terms(keys: Sequence[str]) -> set[str]:
    """The keyword terms of search keys, as the hook reads a memory's (``hooks._context.note_terms``)."""
    return set(terms("\n".join(keys), readings=False)) if keys else set()


def with_keys(case: Case) -> Case:
    """The case as it would be had every note been saved with its keys: the same candidates (the hook
    searches by meaning, and keys are words), each sharing ``shared_with_keys`` terms with the prompt."""
    hits = [replace(h, shared=h.shared_with_keys) for h in case.hits]
    return replace(case, hits=hits, ranked={})


def _fold(cases: Sequence[Case], which: int) -> list[Case]:
    need = [c for c in cases if c.expect]
    none = [c for c in cases if not c.expect]
    return need[which::2] + none[which::2]


def _gate_json(gate: Gate) -> dict[str, float]:
    out = {"meaning": gate.meaning, "meaning_with_words": gate.meaning_with_words, "chatter": gate.chatter}
    if gate.second_weight:
        out |= {"second_weight": gate.second_weight, "second_center": gate.second_center}
        out |= {"relative": float(gate.relative)}
    return out
