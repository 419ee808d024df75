"""Issue 23 (lo27): the question's words' meaning for Japanese questions too — measured on the Japanese sets.

``meaning_words`` takes Latin-script words only. This variant also takes a Japanese question's
content words as the shipped dictionary reads them (``_readings.content_words``): nouns, verbs,
adjectives and adjectival nouns, not pronouns, names (固有名詞), suffixes nor words marked
非自立可能. Each set is run with ``bench japanese``'s own function (200 distractors), shipped rule
first, then the variant.

    .venv/bin/python scripts/experiments/lo27_japanese_words.py
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from shitsuji.bench.japanese import run_japanese
from shitsuji.memory import _asked
from shitsuji.memory._readings import content_words
from shitsuji.memory._text import normalize

ROOT = Path(__file__).resolve().parents[2]
SETS = [
    ROOT.parent / "shared" / "data" / "ja",
    *(ROOT / "src/shitsuji/bench/data" / n for n in ("ja-held", "ja-fresh", "ja-recall", "ja-unread")),
]
_RUN = re.compile(r"[\u3040-\u309f\u30a0-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff々〆ヵヶー]+")
_KEEP = {"名詞", "動詞", "形容詞", "形状詞"}
shipped = _asked.meaning_words


def both_scripts(question: str) -> list[str]:
    out = shipped(question)
    for run in _RUN.findall(normalize(question)):
        for w in content_words(run):
            if w.pos[0] in _KEEP and w.pos[1] not in ("固有名詞", "非自立可能") and len(w.surface) > 1:
                out.append(w.surface)
    return list(dict.fromkeys(out))


def main() -> None:
    for path in SETS:
        for name, rule in (("shipped", shipped), ("both scripts", both_scripts)):
            _asked.meaning_words = rule
            r = run_japanese(path, embedder="use", distractors=0 if path.name == "ja" else 200)
            classes = {c: (v["hit"], v["hit_at_1"]) for c, v in r["by_class"].items()}
            print(
                f"{path.name:>10} {name:>13} hit@3 {r['hit']:.3f} hit@1 {r['hit_at_1']:.3f} cross-user {r['cross_user_hits']} {json.dumps(classes)}",
                flush=True,
            )


if __name__ == "__main__":
    main()
