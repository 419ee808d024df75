"""Gate rules over the whole-table dump (``hk28_hook_null_dump.py``), scored leave-one-set-out.

``hk28_hook_null_rules.py NULL.pkl DUMP.pkl``: DUMP (``hk28_hook_dump.py``) gives each prompt's chatter
similarity and checks the reconstruction (the shipped gate's figures must be the bench's)."""

from __future__ import annotations

import pickle
import sys
from collections.abc import Callable, Iterable

from shitsuji.bench.hook_relevance import PROJECT, PROJECTS, load_set

SETS = {
    "first_set": "hook_relevance.json",
    "held_out_set": "hook_relevance_heldout.json",
    "fresh_set": "hook_relevance_fresh.json",
    "projects_set": PROJECTS,
}
K = 5
CANDIDATES = 20


class Prompt:
    def __init__(self, text, expect, table, chatter):
        self.text, self.expect, self.chatter = text, frozenset(expect), chatter
        self.table = table  # label -> (raw, centred, second, shared) over every visible memory
        ranked = sorted(table.items(), key=lambda kv: -kv[1][0])[:CANDIDATES]
        self.cands = [(lab, c + 2 * s, sh) for lab, (raw, c, s, sh) in ranked]


def load(null_path: str, dump_path: str) -> dict[str, list[Prompt]]:
    null = pickle.load(open(null_path, "rb"))
    dump = pickle.load(open(dump_path, "rb"))
    chatter = {c.prompt: c.chatter for cs in dump.sets.values() for c in cs}
    proj = load_set(PROJECTS)
    out = {}
    for name, file in SETS.items():
        rows = []
        for p in load_set(file)["prompts"]:
            if name == "projects_set":
                table = null["projects"][proj["projects"][p["project"]]][p["prompt"]]
            else:
                table = null["acme"][PROJECT][p["prompt"]]
            rows.append(Prompt(p["prompt"], p["expect"], table, chatter[p["prompt"]]))
        out[name] = rows
    return out


Shown = Callable[[Prompt], list[str]]


def score(prompts: Iterable[Prompt], shown: Shown) -> tuple[float, float]:
    need = [p for p in prompts if p.expect]
    none = [p for p in prompts if not p.expect]
    right = sum(bool(set(shown(p)[:K]) & p.expect) for p in need)
    noise = sum(bool(shown(p)) for p in none)
    return round(right / len(need), 3), round(noise / len(none), 3)


def threshold_gate(meaning: float, words: float, chatter: float = 0.5) -> Shown:
    def shown(p: Prompt) -> list[str]:
        if p.chatter >= chatter:
            return []
        ok = [(f, lab) for lab, f, sh in p.cands if f >= meaning or (f >= words and sh >= 2)]
        return [lab for f, lab in sorted(ok, key=lambda x: -x[0])]

    return shown


def all_memories(sets: dict[str, list[Prompt]]) -> set[str]:
    return {lab for ps in sets.values() for p in ps for lab in p.table}


def null_of(reference: list[Prompt], labels: set[str], *, need_too: bool, chatter: float = 0.5) -> dict:
    """Per memory: the highest fused score a reference prompt (not labelled with it) reaches."""
    null: dict[str, float] = {}
    for p in reference:
        if p.chatter >= chatter:
            continue  # the chatter check stops these first
        if p.expect and not need_too:
            continue
        for lab, (raw, c, s, sh) in p.table.items():
            if lab in p.expect:
                continue
            f = c + 2 * s
            if f > null.get(lab, -9):
                null[lab] = f
    return null


def null_gate(null: dict[str, float], base: Shown | None = None, chatter: float = 0.5) -> Shown:
    def shown(p: Prompt) -> list[str]:
        if p.chatter >= chatter:
            return []
        keep = set(base(p)) if base else None
        ok = [
            (f, lab)
            for lab, f, sh in p.cands
            if f > null.get(lab, -9) and (keep is None or lab in keep)
        ]
        return [lab for f, lab in sorted(ok, key=lambda x: -x[0])]

    return shown


def main(null_path: str, dump_path: str) -> None:
    sets = load(null_path, dump_path)
    shipped = threshold_gate(0.8, 0.55)
    print("shipped (check = bench):", {k: score(v, shipped) for k, v in sets.items()})
    # cross-set prompts for the other engine: every prompt of the other sets, scored against this
    # set's memories, is in the table already (the null dump ran every prompt in every scope)
    null_dump = pickle.load(open(null_path, "rb"))
    proj = load_set(PROJECTS)
    for need_too in (False, True):
        for with_base in (False, True):
            row = {}
            for name, left in sets.items():
                others = [o for o in sets if o != name]
                # the reference prompts, re-read against the left-out set's memories and scope
                ref = []
                for o in others:
                    for p in load_set(SETS[o])["prompts"]:
                        if name == "projects_set":
                            for scope in proj["projects"].values():
                                table = null_dump["projects"][scope][p["prompt"]]
                                ref.append(Prompt(p["prompt"], p["expect"] if o == "projects_set" else [], table, next(x.chatter for x in sets[o] if x.text == p["prompt"])))
                        else:
                            table = null_dump["acme"][PROJECT][p["prompt"]]
                            ref.append(Prompt(p["prompt"], p["expect"] if o != "projects_set" else [], table, next(x.chatter for x in sets[o] if x.text == p["prompt"])))
                null = null_of(ref, set(), need_too=need_too)
                row[name] = score(left, null_gate(null, shipped if with_base else None))
            print(f"null max, need prompts too={need_too}, and shipped={with_base}:", row)


if __name__ == "__main__" and len(sys.argv) == 3:
    main(sys.argv[1], sys.argv[2])


# ---- second part: rules with thresholds re-tuned leave-one-set-out -------------------------------
GRID = [round(0.05 * i - 0.5, 3) for i in range(41)]  # -0.5 … 1.5


def tuned_loso(sets: dict[str, list[Prompt]], family: Callable[[str, float, float], Shown]) -> dict:
    """family(left_out_name, meaning, words) -> Shown; thresholds: most right at noise <= 0.05 on the
    three other sets pooled (ties: less noise, then stricter), scored on the left-out set."""
    out = {}
    for name, left in sets.items():
        train = [p for o, ps in sets.items() if o != name for p in ps]
        best = None
        for m in GRID:
            for w in (g for g in GRID if g <= m):
                r, n = score(train, family(name, m, w))
                if n > 0.05:
                    continue
                key = (r, -n, m, w)
                if best is None or key > best[0]:
                    best = (key, (m, w))
        m, w = best[1] if best else (9, 9)
        out[name] = (m, w, *score(left, family(name, m, w)))
    return out


def fused_family(prompt_score: Callable[[Prompt], list[tuple[str, float, int]]]):
    def family(_name: str, meaning: float, words: float) -> Shown:
        def shown(p: Prompt) -> list[str]:
            if p.chatter >= 0.5:
                return []
            ok = [(f, lab) for lab, f, sh in prompt_score(p) if f >= meaning or (f >= words and sh >= 2)]
            return [lab for f, lab in sorted(ok, key=lambda x: -x[0])]

        return shown

    return family


def absolute(p: Prompt) -> list[tuple[str, float, int]]:
    return p.cands


def relative(p: Prompt) -> list[tuple[str, float, int]]:
    fs = [f for _, f, _ in p.cands]
    n, tot = len(fs), sum(fs)
    return [(lab, f - (tot - f) / (n - 1), sh) for lab, f, sh in p.cands]


def agree_top(p: Prompt) -> list[tuple[str, float, int]]:
    """Only the candidate both models (centred) rank first among the candidates."""
    if not p.cands:
        return []
    labs = [lab for lab, _, _ in p.cands]
    first = max(labs, key=lambda lab: p.table[lab][1])
    second = max(labs, key=lambda lab: p.table[lab][2])
    return [c for c in p.cands if c[0] == first == second]


def agree_or(base):
    def rule(p: Prompt):
        top = {c[0] for c in agree_top(p)}
        return [(lab, f if lab in top else f - 10, sh) for lab, f, sh in base(p)]

    return rule


def main2(null_path: str, dump_path: str) -> None:
    sets = load(null_path, dump_path)
    for label, rule in [
        ("absolute (shipped rule)", absolute),
        ("relative", relative),
        ("both models' top candidate only, absolute", agree_or(absolute)),
        ("both models' top candidate only, relative", agree_or(relative)),
    ]:
        print(label, tuned_loso(sets, fused_family(rule)))
    top = {k: score(v, fused_family(agree_or(absolute))("", -9, -9)) for k, v in sets.items()}
    print("both models' top candidate, no threshold at all:", top)


if __name__ == "__main__" and len(sys.argv) > 3:
    main2(sys.argv[1], sys.argv[2])
