"""A question that asks for a recommendation or advice is searched by the words of what it asks about.

"Can you recommend some recent publications or conferences that I might find interesting?", "I've
been thinking about making a cocktail for an upcoming get-together, but I'm not sure which one to
choose. Any suggestions?", 週末に見る映画でおすすめある？ — the words that ask ("recommend", "find
interesting", "not sure which one to choose", "suggestions", おすすめ) say nothing about what the asker
likes or does, and they are the commonest words of a long chat history: every turn that asked or
answered for a recommendation holds them. As keywords they filled the first places with turns about
Wi-Fi in Japan ("public", the stem of "publications", and "recommend") and a daily writing prompt
("think", "choose", "one"), while the memory that answers — the asker's own words about their work
or their taste — shares none of them. The question's keywords are its words without that request
frame (``without_request``); its vector keeps the whole question (the frameless text embedded alone
ranked the answers lower: the sentence encoder reads "recent publications or conferences ?" poorly).

The same clauses are the one rule of "the question asks for advice" (``asks_for_advice``): a time word
of such a question names what the asker plans ("a show to watch tonight", 今夜観る映画のおすすめ,
"what should I cook this week?": ``_when.span_words``), not a span of what was said. Until issue 23
(ad30) ``_when`` kept a second, broader list of its own ("recommend…", "idea", 勧めて anywhere), so
"who recommended the dentist this week?" lost its span, and 〜ればいい, 〜べき, "what should I" were
not left out of the keywords; joined, no question of the dev sets changes its keywords or its span
(docs/benchmarks.md, issue 23 ad30), the hook's labelled prompts only (their 〜ればいい, 〜べき).

No constant: the frame is English and Japanese grammar for asking, not a list of topics. Measured on
every dev set (docs/benchmarks.md, issue 23 pf29): LongMemEval_S recall_all@10 0.958 -> 1.000 and
NDCG@10 0.891 -> 0.923, pooled LongMemEval NDCG@10 0.839 -> 0.841, recall@5 unchanged on both, LoCoMo
and the Japanese sets unchanged (none of their questions asks this way). One pooled question moved down
(17th -> 25th, outside the ten either way): its answer itself asked "can you recommend …", the one word
it shared with the question. The asker's profile — what they do and like — is what such a question
needs beyond this; chat turns carry no sign of it that held out (the benchmark's "profile" factor).
"""

from __future__ import annotations

import re
from typing import Final

from ._recall import RecallWeights
from ._text import query_terms

_ASKED_FOR = r"(?:recommendations?|suggestions?|advice|tips|ideas|pointers)"
#: the ways of asking for a recommendation, a suggestion or advice, each a clause of ``REQUEST_FRAME``:
#: the one rule of "the question asks for advice" — ``asks_for_advice`` (a time word of such a question
#: names what it plans, ``_when.span_words``) and ``without_request`` (its keywords) both read it
FRAMES: Final = {
    "can you recommend": r"\b(?:can|could|would|will) you (?:please )?(?:recommend|suggest)\b"
    r"(?: me)?(?: (?:some|a few|any|a couple of|a|an))?",
    # "Any suggestions?" as a sentence of its own, not "did the doctor give any advice?"
    "any suggestions": rf"(?:^|(?<=[.!?,] ))(?:do you have |have you got |are there )?any (?:other |more )?{_ASKED_FOR}"
    r"(?: (?:for|on|about))?",
    "what do you recommend": r"\bwhat (?:would|do|can) you (?:recommend|suggest)\b",
    "not sure which": r"\bI(?:'m| am) not sure (?:which|what)(?: one)?(?: to (?:choose|pick|get|go with))?",
    "might find interesting": r"\b(?:that|which) I (?:might|would|may|could) (?:find (?:interesting|useful)|enjoy|like)\b",
    # "what should I cook this week?", "what to wear tonight", "how about …?", "what can we cook tonight?";
    # not "can I" ("can I see what I bought today?" asks for facts)
    "should I": r"\b(?:(?:should|shall) (?:I|we)|what to|how about|what (?:can|could) (?:I|we))\b",
    "おすすめ": r"おすすめ|おススメ|オススメ|お勧め|お薦め|(?:何|なに|どれ)が(?:いい|良い)|アドバイス|アイデア|アイディア"
    # 「勧めてほしい」, not 「勧めてくれたのは誰？」 (a fact)
    r"|(?:勧め|薦め|提案し)て(?:ほしい|欲しい|ください|下さい|くれ(?!た))"
    # 「何を作ればいい？」「行くべき場所」: the words that ask, not the verb before them
    r"|(?:(?<=ば)|(?<=たら)|(?<=だら))(?:いい|良い)|べき",
}
REQUEST_FRAME: Final = tuple(re.compile(clause, re.IGNORECASE) for clause in FRAMES.values())
#: a word each clause holds: a question without any is not searched by the clauses (most questions;
#: the patterns cost ~50 µs a question on a loaded machine, these look-ups ~1 µs)
CUES: Final = (
    "recommend",
    "suggest",
    "advice",
    "tips",
    "ideas",
    "pointers",
    "not sure",
    "find",
    "enjoy",
    "like",
    "should",
    "shall",
    "what to",
    "how about",
    "what c",
    "おすすめ",
    "ススメ",
    "お勧め",
    "お薦め",
    "いい",
    "良い",
    "アドバイス",
    "アイデア",
    "アイディア",
    "めて",
    "提案",
    "べき",
)


def _frames(question: str) -> tuple[re.Pattern[str], ...]:
    lowered = question.lower()
    return REQUEST_FRAME if any(cue in lowered for cue in CUES) else ()


def asks_for_advice(question: str) -> bool:
    """Whether the question asks for a recommendation, a suggestion or advice (``REQUEST_FRAME``)."""
    return any(clause.search(question) is not None for clause in _frames(question))


def without_request(question: str) -> str:
    """The question without the words that ask for a recommendation or advice."""
    for clause in _frames(question):
        question = clause.sub(" ", question)
    return question


def asked_terms(question: str, w: RecallWeights) -> list[str]:
    """The terms recall searches the keyword index with: the question's, without its request frame
    when ``w.advice_by_topic`` is on — unless no term is left ("Any suggestions?", おすすめは？)."""
    if w.advice_by_topic and (topic := query_terms(without_request(question))):
        return topic
    return query_terms(question)
