"""A Japanese question's own words' meaning, beside its sentence's (issue 23, ja28).

The Japanese counterpart of ``_asked.meaning_words`` (lo27, Latin-script words only). The sentence
encoder reads a short Japanese question mostly as its shape: 勤め先はどこ？ is nearer to notes
about commuting than to ミオは歯医者で受付の仕事をしている, and そばを食べても大丈夫？ to other
people's food notes. The question's content words embedded alone are plain statements of what is
asked about, and the model puts a word near its paraphrases and translations (勤め先 / 仕事 0.70,
週末 / weekend 0.84, 蕎麦 / buckwheat 0.75 with ``use``), closer than the two sentences are.

The words are the ones the dictionary already read for the question's keyword terms
(``_readings.content_words``, cached per run: no second parse, but for the kanji spelling of a
question with hiragana nouns, whose words ``_embedding.question_vector`` takes): nouns, verbs,
adjectives and adjectival nouns of two or more letters, not proper nouns (a name's meaning is
every note that names the person, which the keyword search finds), not words marked 非自立可能
(こと, する, いる), and not a word its question negates (食べ of ケンが食べられないものは？ alone
means "eat" and pulled the question towards eating notes). ``question_vector`` adds their mean to
the sentence's vector at the same length, as it does for English (lo27): no
constant. Japanese sets, 200 distractors: ja-fresh hit@3 0.833 → 0.881, ja-held hit@1 0.762 →
0.810, the others level (docs/benchmarks.md, "Issue 23, ja28").
"""

from __future__ import annotations

import re
from typing import Final

from ._asked import meaning_words
from ._readings import Word, content_words
from ._text import cjk_runs

#: Parts of speech whose words say what is asked about.
_CONTENT: Final = frozenset({"名詞", "動詞", "形容詞", "形状詞"})
#: Auxiliaries that negate the word before them (食べられない, 好きじゃない, 行かず): its meaning alone says the opposite.
_NEGATIONS: Final = ("ない", "なかっ", "ません", "ぬ", "ず")
#: Subclasses left out: names, and words that lean on another (こと, する, いる).
_LEFT_OUT: Final = frozenset({"固有名詞", "非自立可能"})
#: A question's first Latin word written as a name (Chika, Netflix) and followed by Japanese (Chikaの…).
_NAME_OPENING: Final = re.compile(r"\W*([A-Z][a-z]+)\s*(?=[\u3040-\u30ff\u3400-\u9fff\uf900-\ufaff])")


def question_words(question: str, spelled: str | None) -> list[str]:
    """The words whose meaning joins ``question``'s vector (``_embedding.question_vector``): its
    Latin-script words (``_asked.meaning_words``, lo27) and its Japanese content words read from
    ``spelled``, its kanji spelling where it has one — both lists in a mixed question
    (Wi-Fiの契約いつまで？ → wi-fi, 契約; When does the Wi-Fi 契約 end? → end, 契約).

    Either list alone leaves half of a mixed question's meaning out: the Latin word's rule took the
    whole vector once a Latin word was present, so 契約 and 好き, 食べ物 were never embedded. A first
    Latin word that opens a Japanese sentence (Chikaの好きな食べ物は？) has no sentence-start capital
    to excuse: written as a name, it is one, left to the keywords as names are (issue 23, ja29).
    """
    latin = meaning_words(question)
    japanese = japanese_meaning_words(spelled or question)
    if latin and japanese and (opening := _NAME_OPENING.match(question)):
        latin = [w for w in latin if w != opening.group(1).lower()]
    return list(dict.fromkeys([*latin, *japanese]))


def japanese_meaning_words(question: str) -> list[str]:
    """The question's Japanese content words as written (normalised, once each, in order)."""
    out: list[str] = []
    for run in cjk_runs(question):
        words = [w for w in content_words(run) if w.pos[0] in _CONTENT and w.pos[1] not in _LEFT_OUT]
        for word, tail in zip(words, _tails(run, words), strict=True):
            if len(word.surface) > 1 and not any(no in tail for no in _NEGATIONS):
                out.append(word.surface)
    return list(dict.fromkeys(out))


def _tails(run: str, words: list[Word]) -> list[str]:
    """What follows each word in ``run`` up to the next one: its particles, auxiliaries and light words."""
    if not words:  # a run of only particles, names or light words (ねえ、…, 札幌に行ったのは誰)
        return []
    spans: list[tuple[int, int]] = []
    at = 0
    for word in words:
        start = run.find(word.surface, at)
        start = at if start < 0 else start
        spans.append((start, start + len(word.surface)))
        at = spans[-1][1]
    ends = [start for start, _ in spans[1:]] + [len(run)]
    return [run[end:nxt] for (_, end), nxt in zip(spans, ends, strict=True)]
