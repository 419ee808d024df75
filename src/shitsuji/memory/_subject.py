"""Whose fact is it: a memory whose subject the question names ranks above one that only mentions it.

A question about a person ("What does Melanie do to destress?") is answered by what that person
said or what is said of them — the memory that *starts* with the name ("Melanie: I signed up for
a pottery class", "Ben is allergic to peanuts", 「ベンは大阪出身」) — while the other speaker's
turns name her as often ("Wow, Melanie, …") and share the question's common words. On LoCoMo
dev 82 % of the evidence turns of a question naming one speaker are that speaker's, but only
57 % of the first ten recalled were (docs/benchmarks.md, issue 23 lo23c).

The subject is read by shape, not from a list: an English memory's first word when it is
capitalised (a possessive or a speaker's colon stripped); a Japanese memory's leading katakana
or kanji run when a topic/subject particle, an honorific or a colon follows it (ベンは, 田中さんの,
ケン:). The question names it when the same word appears in it — capitalised in English, as a
run in Japanese. Nothing else about the memory counts, so a memory without a name in front
(most household notes, LongMemEval's "user: …" turns) is never moved.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Final

_ENGLISH_SUBJECT: Final = re.compile(r"([A-Z][\w\-]*[a-z][\w\-]*)(?:['’]s\b|\s*:|\b)")
_JAPANESE_SUBJECT: Final = re.compile(
    r"([\u30a0-\u30ffー]{2,}|[\u3400-\u4dbf\u4e00-\u9fff々]{2,})(?:さん|くん|君|ちゃん|様)?(?:は|が|の|も|[:：])"
)
_ENGLISH_NAME: Final = re.compile(r"\b[A-Z][\w\-]*[a-z][\w\-]*\b")
_SENTENCE_START: Final = re.compile(r"(?:^|[.!?。！？]\s*)\W*$")
_JAPANESE_NAME: Final = re.compile(r"[\u30a0-\u30ffー]{2,}|[\u3400-\u4dbf\u4e00-\u9fff々]{2,}")


def subject_of(content: str) -> str | None:
    """The name a memory starts with (see the module doc), or None."""
    text = unicodedata.normalize("NFKC", content).lstrip()
    for pattern in (_ENGLISH_SUBJECT, _JAPANESE_SUBJECT):
        if (found := pattern.match(text)) is not None:
            return found.group(1)
    return None


def names_in(question: str) -> set[str]:
    """The words of a question that could name a memory's subject (capitalised words, katakana/kanji runs)."""
    text = unicodedata.normalize("NFKC", question)
    # a capitalised word opening a sentence is no name by its shape ("What", "Run")
    names = {m.group() for m in _ENGLISH_NAME.finditer(text) if not _SENTENCE_START.search(text[: m.start()])}
    for run in _JAPANESE_NAME.findall(text):
        # a run holds the name and what follows it (ベンの誕生日 is one kanji-free run only in part):
        # every prefix of two characters or more may be the subject
        names.update(run[:end] for end in range(2, len(run) + 1))
    return names


def named_subjects(question: str, contents: dict[str, str]) -> set[str]:
    """The ids of the memories (id -> content) whose subject the question names."""
    names = names_in(question)
    if not names:
        return set()
    return {memory_id for memory_id, content in contents.items() if subject_of(content) in names}
