"""A turn reads its conversation from the rolling summary's fold on, not every message (issue 25).

A long conversation (a LINE chat that lasts years) must not cost each turn more than its window
holds. Real SQLite and PostgreSQL, the real ``Butler`` wiring and a scripted model that also
folds (the summarizer): the turn's read stays bounded while the conversation grows, the model
is sent exactly what a read of the whole conversation gives it, every message is stored at its
own place, and words resent from before the fold are still stored only once.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from typing import Any

import pytest

from shitsuji.agent import Finished, Turn
from shitsuji.agent._assistant import History
from shitsuji.agent._conversations import Conversation, model_messages
from shitsuji.household import Butler, HouseholdStore
from shitsuji.llm import ModelRequest, ModelResponse, ScriptedModel, text_response
from shitsuji.store import database

from .web_support import memory_engine

WINDOW_TOKENS = 120  # a few exchanges: the summary folds every few turns
TURNS = 36
MAX_READ = 16  # messages a turn may read: the window after a fold plus the turns until the next one


def _answer(request: ModelRequest) -> ModelResponse:
    system = " ".join(b["text"] for b in request.system)
    if "running summary" in system:  # the summarizer's request
        return text_response(f"要約（{len(request.messages[0]['content'])}文字分）")
    return text_response("かしこまりました。買い物リストを確認します。")


@pytest.fixture
def butler(target: str) -> Any:
    HouseholdStore(database(target)).create("futari", ["wife", "husband"])
    made = Butler(database(target), memory_engine(target), ScriptedModel(_answer))
    assistant = made.service.assistant
    assert assistant is not None
    assistant.modes = {name: replace(m, window_tokens=WINDOW_TOKENS) for name, m in assistant.modes.items()}
    yield made
    made.close()


def _begin(butler: Butler, text: str, conversation: str | None, key: str | None = None) -> Turn:
    ctx = butler.member("wife", "line", household="futari")
    return butler.service.begin(ctx, text, conversation=conversation, key=key)


def _run(butler: Butler, turn: Turn) -> Finished:
    async def collect() -> list[Any]:
        return [event async for event in butler.service.events(turn, mode="chat")]

    last = asyncio.run(collect())[-1]
    assert isinstance(last, Finished), last
    return last


def _words(i: int) -> str:
    return f"今日の夕飯は何にしようか、冷蔵庫に何が残っているか確認して（{i}）"


def _long_conversation(butler: Butler) -> tuple[str, list[int]]:
    """A conversation of ``TURNS`` turns; how many messages each turn read."""
    conversation: str | None = None
    read: list[int] = []
    for i in range(TURNS):
        turn = _begin(butler, _words(i), conversation, key=f"key-{i:04d}")
        read.append(len(turn.conversation.messages))
        conversation = _run(butler, turn).conversation
    assert conversation is not None
    return conversation, read


def test_a_long_conversations_turn_reads_a_bounded_number_of_messages(butler: Butler) -> None:
    conversation, read = _long_conversation(butler)
    whole = butler.conversations.get(conversation, "futari", "wife")
    assert whole.folded_upto > 4 * MAX_READ  # folded many times over
    assert max(read) <= MAX_READ, read  # the rows of the turn's one read: one per message read
    assert read[-1] < whole.size / 4, read
    # every message at its own place: nothing was written over (a wrong position would overwrite a row)
    rows = butler.conversations.rows(conversation)
    assert [r["seq"] for r in rows] == list(range(2 * TURNS)) == list(range(whole.size))
    assert [r["role"] for r in rows] == ["user", "assistant"] * TURNS
    assert [m["content"] for m in whole.messages[::2]] == [_words(i) for i in range(TURNS)]


def _request(butler: Butler, turn: Turn, conversation: Conversation) -> tuple[ModelRequest, int]:
    """The request the model gets for ``turn`` when the conversation is read as ``conversation`` (the
    words stored already), and how far the summary covers it afterwards (from the start)."""
    assistant = butler.service.assistant
    assert assistant is not None
    seen: list[ModelRequest] = []

    def answer(request: ModelRequest) -> ModelResponse:
        seen.append(request)
        return _answer(request)

    history = History(
        model_messages(conversation, butler.proposals, assistant.notes),
        conversation.untrusted,
        conversation.summary,
        conversation.folded_upto - conversation.first,
        conversation.summary_untrusted,
    )
    ctx = replace(
        turn.ctx, conversation=conversation.id, message=f"{conversation.id}:{conversation.size - 1}"
    )

    async def collect() -> int:
        upto = -1
        async for step in replace(assistant, model=ScriptedModel(answer), summarizer=None).turn(
            ctx, history, text=turn.text, mode="chat"
        ):
            if type(step).__name__ == "ContextStep":
                upto = step.folded_upto  # type: ignore[union-attr]
        return conversation.first + upto

    upto = asyncio.run(collect())
    return seen[-1], upto


def test_the_model_is_sent_what_a_read_of_the_whole_conversation_gives_it(butler: Butler) -> None:
    conversation, _ = _long_conversation(butler)
    turn = butler.service.ready(_begin(butler, _words(TURNS), conversation))  # the words stored
    assert turn.conversation.first > 0  # the turn read from the fold on
    tail = butler.conversations.get(conversation, "futari", "wife", since_fold=True)
    whole = butler.conversations.get(conversation, "futari", "wife")  # as every turn read it before
    assert tail.first == whole.folded_upto and whole.first == 0
    assert tail.messages == whole.messages[tail.first :] and tail.size == whole.size
    from_tail, upto_tail = _request(butler, turn, tail)
    from_whole, upto_whole = _request(butler, turn, whole)
    assert from_tail.messages == from_whole.messages and from_tail.system == from_whole.system
    assert from_tail.messages[-1]["content"] == _words(TURNS) and len(from_tail.messages) < len(
        whole.messages
    )
    assert upto_tail == upto_whole  # the next fold is stored at the same place
    _run(butler, turn)


def test_words_resent_from_before_the_fold_are_stored_once(butler: Butler) -> None:
    conversation, _ = _long_conversation(butler)
    before = butler.conversations.get(conversation, "futari", "wife")
    assert before.folded_upto > 2  # the first words are folded away
    again = _begin(butler, _words(0), conversation, key="key-0000")  # a retry of the very first message
    assert again.conversation.first > 0 and "key-0000" in again.conversation.keys
    _run(butler, again)
    after = butler.conversations.get(conversation, "futari", "wife")
    said = [m["content"] for m in after.messages if m["role"] == "user"]
    assert said.count(_words(0)) == 1
