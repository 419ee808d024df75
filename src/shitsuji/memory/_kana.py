"""Hiragana and katakana counted as one script when a Japanese question's coverage is measured.

A Japanese question's keyword signal is scaled by the share of its terms a memory holds
(``_recall.keyword_coverage``). A question in kana ("けっこんきねんびはいつ？") is split into
hiragana bigrams (けっ, っこ …) and, for the words the analyser recognises, their katakana
reading bigrams (ケッ, ッコ …); a note in kanji (結婚記念日) holds only the katakana reading
bigrams, and the analyser splits a long kana run differently from the kanji word, so the note
held 4 of the question's 15 terms while the same sounds were there (issue 23 ja23c: the note
was the only strong keyword match and still ranked 5th). Folding hiragana to katakana on both
sides counts each sound once, whichever script wrote it. No constant; text without kana is
unchanged.
"""

from __future__ import annotations

from collections.abc import Iterable

#: U+3041..U+3096 (ぁ..ゖ) to U+30A1..U+30F6 (ァ..ヶ): the two blocks are laid out alike
_TO_KATAKANA = {code: code + 0x60 for code in range(0x3041, 0x3097)}


def fold_kana(terms: Iterable[str]) -> frozenset[str]:
    """The distinct ``terms`` with every hiragana letter written in katakana."""
    return frozenset(term.translate(_TO_KATAKANA) for term in terms)
