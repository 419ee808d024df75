"""Prompt-injection phrases in what people (or forwarded text) say, English and Japanese.

A flagged phrase is not refused: a person may quote one, paste an odd e-mail or joke
about "DAN". Instead the text is neutralised so it reads as data, not as orders:

- fake markup that could close or open one of our own blocks — ``</untrusted_data>``,
  ``<system>``, ``<|im_start|>``, ``[INST]``, ``<<SYS>>`` — has its brackets swapped for
  full-width look-alikes (``＜/untrusted_data＞``), so it can never end a real block;
- each sentence holding an injection phrase is wrapped in ``<untrusted_data>`` … the
  tag the system prompt already tells the model never to obey;

and the caller marks the turn untrusted, so no write runs without a card while it is in
view. Neutralising twice changes nothing.
"""

from __future__ import annotations

import re
from typing import Final

from ._findings import Finding

WRAP_OPEN: Final = "<untrusted_data>"
WRAP_CLOSE: Final = "</untrusted_data>"

# Markup a model may take for structure: our data tags, chat-template tokens, role tags.
_TAG: Final = re.compile(
    r"<\s*/?\s*(?:untrusted_data|system|assistant|user|human|instructions?|tool_result|function_results?|"
    r"tool_use|context|admin|developer)\b[^<>\n]{0,80}>"
    r"|<\|[a-z_]{2,20}\|>|\[/?INST\]|<</?SYS>>",
    re.IGNORECASE,
)

_EN: Final = (
    r"\b(?:ignore|disregard|forget|override|bypass|skip)\s+(?:all\s+|any\s+|the\s+|your\s+|every\s+)*"
    r"(?:previous|prior|above|earlier|preceding|former|original|system|existing)?\s*"
    r"(?:instructions?|prompts?|rules|directions|guidelines|directives|constraints|programming)\b",
    r"\byou\s+are\s+(?:now\s+)?(?:DAN|an?\s+(?:unfiltered|uncensored|unrestricted|jailbroken)\b)",
    r"\bdo\s+anything\s+now\b|\bDAN\s+mode\b|\bjailbreak(?:ed|ing)?\b|\bdeveloper\s+mode\s+(?:enabled|on)\b",
    r"\b(?:pretend|act|behave|role-?play|imagine)\s+(?:as|like|to\s+be|(?:that\s+)?you(?:'re|\s+are))\b[^.!?\n]{0,60}"
    r"\b(?:no|without|free\s+from|unbound\s+by)\s+(?:any\s+)?(?:rules|restrictions|limits|filters|guidelines|ethics)",
    r"\b(?:reveal|show|print|repeat|output|display|leak|tell\s+me)\s+(?:me\s+)?(?:your|the)\s+"
    r"(?:full\s+|hidden\s+|initial\s+|original\s+|secret\s+)?(?:system\s+prompt|system\s+message|instructions|initial\s+prompt)",
    r"(?m:^\s*(?:#+\s*)?(?:new\s+instructions|system\s*(?:prompt|override)?)\s*:)",
)
_JA: Final = (
    r"(?:以前|前|これまで|今まで|上記|上|先|最初|元|既存|すべて|全て)の(?:すべての|全ての)?"
    r"(?:指示|命令|指令|ルール|設定|プロンプト|制約|ガイドライン)(?:を|は)?(?:すべて|全て|全部)?(?:無視|忘れ|破棄|リセット)",
    r"(?:指示|命令|ルール|制約|制限|プロンプト)(?:を|は)?(?:すべて|全て|全部)?無視(?:して|しろ|せよ|すること)",
    r"システム(?:プロンプト|メッセージ|指示)(?:の内容)?(?:を|は)?(?:すべて|全て)?(?:表示|出力|教え|見せ|開示|公開|書き出|繰り返)",
    r"(?:制限|ルール|制約|倫理|フィルター?)(?:を|は|から)?(?:すべて|全て)?(?:解除|外し|外れ|取り払|無効|解放)",
    r"開発者モード|脱獄|ジェイルブレイク|DANモード|(?:あなたは|お前は)(?:今から|これから)?\s*DAN",
    r"(?:制限|ルール|倫理|検閲)の?(?:ない|無い|なし|無し)(?:AI|ＡＩ|アシスタント|キャラ|存在)?(?:として|になりきって|を演じ)",
    r"(?:新しい|新たな)(?:指示|命令|システムプロンプト)\s*[:：]",
)
_PHRASE: Final = re.compile("|".join(f"(?:{p})" for p in (*_EN, *_JA)), re.IGNORECASE)
_FULL_WIDTH: Final = str.maketrans("<>[]", "＜＞［］")
_SENTENCE_END: Final = re.compile(r"[.!?。！？\n]")
_WRAPPED: Final = re.compile(re.escape(WRAP_OPEN) + r"[\s\S]*?" + re.escape(WRAP_CLOSE))


def find_injections(text: str) -> list[Finding]:
    """Injection phrases and fake markup in ``text`` (phrases already wrapped are not found again)."""
    wrapped = [(m.start(), m.end()) for m in _WRAPPED.finditer(text)]
    keep = _ours(text)
    found = [
        Finding("markup", m.start(), m.end(), m.group()) for m in _TAG.finditer(text) if m.start() not in keep
    ]
    found += [Finding("injection", m.start(), m.end(), m.group()) for m in _PHRASE.finditer(text)]
    return [
        f for f in found if f.kind == "markup" or not any(a <= f.start and f.end <= b for a, b in wrapped)
    ]


def _ours(text: str) -> set[int]:
    """Where the tags of well-formed wrapped regions start: those are kept (and so neutralising is idempotent)."""
    starts: set[int] = set()
    for m in _WRAPPED.finditer(text):
        starts.update((m.start(), m.end() - len(WRAP_CLOSE)))
    return starts


def defang_markup(text: str) -> str:
    """Swap the brackets of tag-like markup for full-width look-alikes: it reads the same, parses as nothing."""
    keep = _ours(text)

    def swap(m: re.Match[str]) -> str:
        if m.start() in keep:
            return m.group()
        return m.group().translate(_FULL_WIDTH)

    return _TAG.sub(swap, text)


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """The sentence around ``text[start:end]``: from after the previous stop to the next stop."""
    left = max((m.end() for m in _SENTENCE_END.finditer(text, 0, start)), default=0)
    right = _SENTENCE_END.search(text, end)
    return left, right.end() if right else len(text)


def neutralise(text: str) -> tuple[str, list[Finding]]:
    """Defang markup, then wrap each sentence holding an injection phrase as untrusted data.

    Returns the new text and what was found (spans refer to the defanged text).
    """
    markup = [f for f in find_injections(text) if f.kind == "markup"]
    safe = defang_markup(text)
    phrases = [f for f in find_injections(safe) if f.kind == "injection"]
    spans: list[tuple[int, int]] = []
    for found in phrases:
        left, right = _sentence(safe, found.start, found.end)
        while left < right and safe[left].isspace():
            left += 1
        if spans and left <= spans[-1][1]:
            spans[-1] = (spans[-1][0], max(right, spans[-1][1]))
        else:
            spans.append((left, right))
    out = safe
    for left, right in reversed(spans):
        out = out[:left] + WRAP_OPEN + out[left:right] + WRAP_CLOSE + out[right:]
    return out, markup + phrases
