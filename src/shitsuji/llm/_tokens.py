"""Token estimates when the provider's counter is not at hand.

Japanese must not be under-counted: Claude's tokenizer spends roughly one token per
kana/kanji, while Latin text averages about four characters per token. Counting CJK
characters one by one and the rest by four keeps budgets safe for both.
"""

from __future__ import annotations

import re

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef]")


def estimate_tokens(text: str) -> int:
    cjk = len(_CJK.findall(text))
    rest = len(text) - cjk
    return cjk + (rest + 3) // 4
