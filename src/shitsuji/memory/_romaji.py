"""Names in Latin letters: ケン is also indexed as "ken", 札幌 as "sapporo".

"Where does Ken work?" about "ケンは市役所で働いている", "ケンの出身地は？" about "Ken grew up in
Sapporo": a household writes its members' names in both scripts, and the name is the one word
such a question and its note share. Keywords could not see it (ケン is not "ken"), so the
English question's keyword list held only the asker's English notes and notes of other people
whose vectors were close (a "Kenji" note above Ken's own). Every proper noun (a person, a
place: its reading from the Sudachi dictionary the readings already use) and every word
written in katakana alone (ミオ, アキ — the dictionary takes many given names for common nouns;
loanwords come along: ラーメン → "ramen", ピアノ → "piano") is also indexed under its Hepburn
romanisation, stemmed as an English word is, so both spellings meet by words. Long vowels
are dropped as English spellings drop them (トウキョウ → "tokyo", オオサカ → "osaka",
ユウキ → "yuki"). No constant; without sudachipy nothing is added. The prompt hook's gate
(``terms(readings=False)``) sees none of these, as it sees no readings.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

from ._readings import content_words, katakana

_ROWS: Final = {
    "ア": "a", "イ": "i", "ウ": "u", "エ": "e", "オ": "o",
    "カ": "ka", "キ": "ki", "ク": "ku", "ケ": "ke", "コ": "ko",
    "ガ": "ga", "ギ": "gi", "グ": "gu", "ゲ": "ge", "ゴ": "go",
    "サ": "sa", "シ": "shi", "ス": "su", "セ": "se", "ソ": "so",
    "ザ": "za", "ジ": "ji", "ズ": "zu", "ゼ": "ze", "ゾ": "zo",
    "タ": "ta", "チ": "chi", "ツ": "tsu", "テ": "te", "ト": "to",
    "ダ": "da", "ヂ": "ji", "ヅ": "zu", "デ": "de", "ド": "do",
    "ナ": "na", "ニ": "ni", "ヌ": "nu", "ネ": "ne", "ノ": "no",
    "ハ": "ha", "ヒ": "hi", "フ": "fu", "ヘ": "he", "ホ": "ho",
    "バ": "ba", "ビ": "bi", "ブ": "bu", "ベ": "be", "ボ": "bo",
    "パ": "pa", "ピ": "pi", "プ": "pu", "ペ": "pe", "ポ": "po",
    "マ": "ma", "ミ": "mi", "ム": "mu", "メ": "me", "モ": "mo",
    "ヤ": "ya", "ユ": "yu", "ヨ": "yo",
    "ラ": "ra", "リ": "ri", "ル": "ru", "レ": "re", "ロ": "ro",
    "ワ": "wa", "ヰ": "i", "ヱ": "e", "ヲ": "o", "ン": "n", "ヴ": "vu",
    "ァ": "a", "ィ": "i", "ゥ": "u", "ェ": "e", "ォ": "o",
}  # fmt: skip
#: Small ャ ュ ョ after an i-row kana: キャ → kya, シャ → sha, チョ → cho, ジュ → ju.
_SMALL_Y: Final = {"ャ": "a", "ュ": "u", "ョ": "o"}
_KATAKANA_WORD: Final = re.compile(r"[\u30a1-\u30faー]{2,}")
_LONG: Final = re.compile(r"ou|oo|uu")


def romanise(kana: str) -> str:
    """Hepburn romanisation of a katakana (or hiragana) word, long vowels dropped; "" if it is not kana."""
    text = katakana(kana)
    out: list[str] = []
    double = False
    for i, ch in enumerate(text):
        if ch == "ッ":
            double = True
            continue
        if ch == "ー":
            continue
        if ch in _SMALL_Y and out and out[-1].endswith("i") and i > 0 and text[i - 1] not in "イィ":
            stem = out.pop()[:-1]
            out.append(stem + _SMALL_Y[ch] if stem.endswith(("sh", "ch", "j")) else stem + "y" + _SMALL_Y[ch])
            continue
        sound = _ROWS.get(ch)
        if sound is None:
            return ""
        if double:
            sound = ("t" if sound.startswith("ch") else sound[0]) + sound
            double = False
        out.append(sound)
    return _LONG.sub(lambda m: m.group(0)[0], "".join(out))


@lru_cache(maxsize=100_000)
def name_spellings(run: str) -> tuple[str, ...]:
    """Romanised proper nouns and katakana words of ``run`` (a CJK run, normalised), not yet stemmed."""
    if len(run) < 2:
        return ()
    out: list[str] = []
    for word in content_words(run):
        named = word.pos[1] == "固有名詞" or (
            word.pos[0] == "名詞" and _KATAKANA_WORD.fullmatch(word.surface)
        )
        if named and (spelled := romanise(word.reading)):
            out.append(spelled)
    return tuple(out)
