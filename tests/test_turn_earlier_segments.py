"""A turn's "earlier conversations" block: the open label's segments and where the recalled facts were said.

The real ``Butler`` wiring, the scripted model, real SQLite and PostgreSQL. A fact keeps the conversation
and segment label it was said in (its provenance); the turn already recalls it, so the segment comes with
the statement the label's segments took — none more. Before issue 23 (sb27) only the label was looked up:
a panel opened for the first time listed nothing, though the person had talked about the same thing before.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from shitsuji.agent import Finished
from shitsuji.bench._statements import Statements, counting, watch
from shitsuji.household import Butler, HouseholdStore
from shitsuji.llm import (
    Message,
    ModelRequest,
    ModelResponse,
    ScriptedModel,
    text_response,
    tool_use_response,
)
from shitsuji.memory import MEMORY_SCHEMA, HashEmbedder, MemoryEngine, memory_store
from shitsuji.store import Database, database

WIFE, SHARED = "household/futari/user/wife", "household/futari"
# a turn with a segment open, outside recall and transaction control, at 453f1c1 (which listed the label's
# segments only): SQLite's count holds the memory index's freshness reads (in-process, not round trips)
STATEMENTS_WITH_A_SEGMENT = {"sqlite": 16, "postgresql": 10}
CLOSED_SEGMENTS = re.compile(r"FROM segments WHERE household .* closed_at IS NOT NULL", re.S)


@dataclass
class Home:
    butler: Butler
    statements: Statements
    prompts: list[str]
    dialect: str
    db: Database


@pytest.fixture
def home(target: str) -> Iterator[Home]:
    with counting(target) as (url, statements):
        db = database(url)
        HouseholdStore(db).create("futari", ["wife", "husband"])
        db.ensure(MEMORY_SCHEMA)
        if db.dialect == "sqlite":
            watch(db, statements)
        prompts: list[str] = []

        def answer(request: ModelRequest) -> ModelResponse:
            prompts.append(json.dumps([request.system, request.messages], ensure_ascii=False))
            return text_response("かしこまりました")

        butler = Butler(db, MemoryEngine(memory_store(db), HashEmbedder()), ScriptedModel(answer))
        yield Home(butler, statements, prompts, db.dialect, db)
        butler.close()


def _archive(
    home: Home, conversation: str, owner: str, label: str, said: str, *, outside: bool = False
) -> str:
    segments = home.butler.segments
    asyncio.run(segments.open_segment(conversation, "futari", owner, label, []))
    talk: list[Message] = [{"role": "user", "content": said}, {"role": "assistant", "content": "はい"}]
    closed = asyncio.run(segments.close_segment(conversation, talk, untrusted=[outside, False]))
    assert closed is not None
    return closed.id


def _finish(butler: Butler, text: str, segment: str, channel: str = "app") -> Finished:
    ctx = butler.member("wife", channel, household="futari")

    async def run() -> object:
        turn = butler.service.begin(ctx, text, key=f"k-{text}", segment=segment)
        return [e async for e in butler.service.events(turn, mode="task")][-1]

    last = asyncio.run(run())
    assert isinstance(last, Finished), last
    return last


def _turn(home: Home, text: str, segment: str) -> str:
    _finish(home.butler, text, segment)
    return home.prompts[-1]


def _earlier(prompt: str) -> str:
    """The prompt's earlier-segments block (empty when there is none)."""
    found = re.search(r"Earlier conversations about what is open now.*?</segments>", prompt, re.S)
    return found.group(0) if found else ""


def test_a_new_panel_lists_the_segment_a_recalled_fact_was_said_in_and_never_the_spouses(home: Home) -> None:
    memory = home.butler.memory
    plumber = _archive(home, "c-old", "wife", "chat", "The plumber comes on Friday")
    water = _archive(home, "c-ja", "wife", "household.calendar", "水道屋さんは金曜の朝に来る")
    spouse = _archive(home, "c-his", "husband", "chat", "the plumber's number")
    facts = [
        ("The plumber comes on Friday to fix the kitchen sink", WIFE, "c-old", "chat"),
        ("水道屋さんが金曜の朝に台所の水漏れを直しに来る", WIFE, "c-ja", "household.calendar"),
        ("The plumber's number is on the fridge", SHARED, "c-his", "chat"),  # the husband's, shared
        ("水道屋さんの電話番号は冷蔵庫に貼ってある", SHARED, "c-his", "chat"),
    ]
    for text, scope, conversation, label in facts:
        memory.remember(text, scope, provenance={"conversation": conversation, "segment": label})
    # the recipes panel has no earlier segment: only the facts lead anywhere
    prompt = _turn(home, "When does the plumber come to fix the sink?", "household.recipes")
    assert "The plumber's number is on the fridge" in prompt  # his shared fact is recalled for her
    english = _earlier(prompt)
    assert plumber in english, english
    assert spouse not in english and "number" not in english  # his fact is recalled; his conversation is not
    prompt = _turn(home, "水道屋さんはいつ台所の水漏れを直しに来る？", "household.recipes")
    assert "水道屋さんの電話番号は冷蔵庫に貼ってある" in prompt
    japanese = _earlier(prompt)
    assert water in japanese, japanese
    assert spouse not in japanese


def test_the_facts_segments_come_in_the_statement_the_labels_took(home: Home) -> None:
    shopping = _archive(home, "c-shop", "wife", "household.shopping", "牛乳を買う")
    tea = _archive(home, "c-tea", "wife", "chat", "宇治の緑茶を買った")
    home.butler.memory.remember(
        "宇治の緑茶が好き", WIFE, provenance={"conversation": "c-tea", "segment": "chat"}
    )
    _turn(home, "こんにちは", "household.shopping")  # the segment is open from here on, as on later turns
    home.statements.mark()
    earlier = _earlier(_turn(home, "宇治の緑茶はどこで買った？", "household.shopping"))
    assert tea in earlier and shopping in earlier, earlier  # the fact's segment and the label's
    reads = [s for s in home.statements.snapshot() if CLOSED_SEGMENTS.search(s.sql)]
    assert len(reads) == 1, home.statements.report()
    # outside recall, no more than at 453f1c1
    outside = [
        s
        for s in home.statements.snapshot()
        if not re.search(r"\b(memories|embeddings|memory_\w+)\b", s.sql)
        and not s.sql.strip().upper().startswith(("BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT", "RELEASE"))
    ]
    assert len(outside) <= STATEMENTS_WITH_A_SEGMENT[home.dialect], home.statements.report()


@pytest.mark.parametrize("outside", [True, False])
def test_a_facts_segment_that_held_outside_text_keeps_every_write_on_a_card(
    home: Home, outside: bool
) -> None:
    """On LINE a clean conversation runs a low-risk write at once; a segment listed because a recalled
    fact was said there, and which held outside text (a web page), taints the turn like the label's do."""
    sale = _archive(home, "c-web", "wife", "chat", "特売は卵です", outside=outside)
    home.butler.memory.remember(
        "今週の特売は卵", WIFE, provenance={"conversation": "c-web", "segment": "chat"}
    )
    model = ScriptedModel(
        [
            tool_use_response(("toolu_1", "add_shopping_item", {"name": "卵", "quantity": 10})),
            text_response("追加しました"),
        ]
    )
    butler = Butler(home.db, home.butler.memory, model)
    try:
        done = _finish(butler, "今週の特売の卵を買い物リストに足して", "household.shopping", channel="line")
        assert sale in str([model.requests[0].system, model.requests[0].messages])
        if outside:
            assert done.wrote == [] and [p.tool for p in done.proposals] == ["add_shopping_item"]
            assert butler.store.shopping_items("futari") == []  # nothing ran without a card
        else:
            assert done.wrote == ["add_shopping_item"] and done.proposals == []
    finally:
        butler.close()
