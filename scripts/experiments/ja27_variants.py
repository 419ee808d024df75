"""Candidate rules as patches over the code on sys.path (no product change): VARIANT env picks them. Meant over the base
(453f1c1, through PYTHONPATH): "flat" and "kanjisum" are what ja27 shipped, "kanji" the spelled text alone, "latin" and
"scriptcov" the measured, not shipped rules (docs/benchmarks.md, ja27)."""
import os
from shitsuji.memory import _recall, _rank
from shitsuji.memory._text import CJK
import re
V = set(filter(None, os.environ.get("VARIANT", "").split(",")))
_orig_standout = _recall.standout_of
if "flat" in V:  # a list of n equal scores: weight 1/n (one match keeps 1)
    def standout_of(normalised):
        if len(normalised) >= 2 and min(normalised) == max(normalised):
            return 1.0 / len(normalised)
        return _orig_standout(normalised)
    _recall.standout_of = standout_of
LATIN = re.compile(r"[A-Za-z]")
if "latin" in V:  # cross-script factor only for Japanese notes holding no Latin word (keywords could see those)
    def cross_script(vector, memories, weights):
        factor = (weights.keyword_weight + weights.vector_weight) / weights.vector_weight
        return {m.memory_id: factor for m in vector if m.memory_id in memories
                and CJK.search(memories[m.memory_id].content) is not None
                and LATIN.search(memories[m.memory_id].content) is None}
    _rank.cross_script = cross_script
print("variant:", sorted(V))
from shitsuji.memory import _embedders
import numpy as np
from sudachipy import Dictionary
_tok = Dictionary().tokenizer()
_HIRA = re.compile(r"[\u3041-\u309f]+")
_KAN = re.compile(r"[\u3400-\u9fff]")
def kanji_form(text):
    out = []
    for m in _tok.tokenize(text):
        s = m.surface()
        n = m.normalized_form()
        if m.part_of_speech()[0] == "名詞" and len(s) >= 2 and _HIRA.fullmatch(s) and _KAN.search(n):
            out.append(n)
        else:
            out.append(s)
    return "".join(out)
if "kanji" in V or "kanjisum" in V:
    _orig_eq = _embedders.USEEmbedder.embed_query
    def embed_query(self, text):
        alt = kanji_form(text)
        if alt == text:
            return _orig_eq(self, text)
        if "kanji" in V:
            return _orig_eq(self, alt)
        both = self.embed_documents([text, alt])
        v = both[0] + both[1]
        return (v / np.linalg.norm(v)).astype(np.float32)
    _embedders.USEEmbedder.embed_query = embed_query
if "scriptcov" in V:  # a note without Japanese can hold only the question's Latin terms: its share among those
    _orig_cov = _rank.keyword_coverage
    def keyword_coverage(query, held):
        wanted = set(query)
        latin = {t for t in wanted if not CJK.search(t)}
        out = _orig_cov(query, held)
        if latin:
            for mid, mine in held.items():
                if not any(CJK.search(t) for t in mine):
                    out[mid] = len(latin & mine) / len(latin)
        return out
    _rank.keyword_coverage = keyword_coverage
