"""Issue 23, e5en: the dedupe threshold of ``use+e5`` — cosines of paraphrases and of different facts
for use, e5 and their concatenation (a false merge loses a fact, so the threshold sits above every
different-fact pair).

    .venv/bin/python scripts/experiments/e5en_dedupe.py [use e5 use+e5]
"""

from __future__ import annotations

import sys

from shitsuji.memory import load_embedder

PARAPHRASES = [
    ("妻は紅茶が好き", "妻は紅茶が好きです"),
    ("夫は沖縄出身", "夫は沖縄の出身です"),
    ("The wifi password is on the fridge", "The wi-fi password is on the fridge"),
    ("My mother's birthday is March 14", "My mom's birthday is on March 14"),
    ("ゴミの日は月曜と木曜", "ゴミの日は月曜日と木曜日"),
    ("We take out the trash on Mondays and Thursdays", "Trash goes out on Mondays and Thursdays"),
    ("息子はサッカー部に入っている", "息子はサッカー部に所属している"),
]
DIFFERENT = [  # tests/test_embedders.py's pairs, then more of one subject with a new value
    ("夫は沖縄出身", "妻は沖縄出身"),
    ("My mother's birthday is March 14", "My father's birthday is March 14"),
    ("妻は紅茶が好き", "妻はコーヒーが好き"),
    ("夫の好きな飲み物はコーヒー", "夫の好きな飲み物は紅茶"),
    ("アキの自宅の最寄り駅は三鷹", "アキの自宅の最寄り駅は吉祥寺"),
    ("The deploy day is Tuesday", "The deploy day is Thursday"),
    ("The deploy day is Tuesday", "The deploy day is not Tuesday"),
    ("Ben is allergic to peanuts", "Ben is allergic to shellfish"),
    ("娘の誕生日は5月3日", "息子の誕生日は5月3日"),
]


def main(names: list[str]) -> None:
    for name in names:
        model = load_embedder(name)
        rows = []
        for kind, pairs in (("paraphrase", PARAPHRASES), ("different", DIFFERENT)):
            for a, b in pairs:
                v = model.embed_documents([a, b])
                rows.append((kind, float(v[0] @ v[1]), a, b))
        para = [c for k, c, *_ in rows if k == "paraphrase"]
        diff = [c for k, c, *_ in rows if k == "different"]
        print(
            f"{name} ({model.model_id}, threshold {model.dedupe_threshold}): paraphrases {min(para):.3f}-{max(para):.3f}, "
            f"different {min(diff):.3f}-{max(diff):.3f}"
        )
        for kind, cosine, a, b in rows:
            print(f"  {kind:>10} {cosine:.3f}  {a} / {b}")


if __name__ == "__main__":
    main(sys.argv[1:] or ["use", "e5", "use+e5"])
