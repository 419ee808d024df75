"""Segments: labelled by the caller, archived with a summary on close, listed and loaded back."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from shitsuji.agent import Finished, ToolContext, ToolInputError, list_segments, load_segment
from shitsuji.bench._statements import counting, watch
from shitsuji.context import Segments, Summarizer
from shitsuji.errors import ModelUnavailableError, NotFoundError, UserInputError
from shitsuji.household import Butler, HouseholdStore, OpenPanel, open_panel
from shitsuji.llm import Message, ScriptedModel, text_response, tool_use_response
from shitsuji.memory import HashEmbedder, Hit, Memory, MemoryEngine, open_store
from shitsuji.store import database

from .conftest import Clock


def talk(*pairs: tuple[str, str]) -> list[Message]:
    out: list[Message] = []
    for said, answered in pairs:
        out += [{"role": "user", "content": said}, {"role": "assistant", "content": answered}]
    return out


@pytest.fixture
def segments(target: str, clock: Clock) -> Segments:
    return Segments(database(target), clock=clock)


def test_open_close_archive_and_load_across_a_restart(segments: Segments, target: str, clock: Clock) -> None:
    before = talk(("こんにちは", "こんにちは！"))
    opened = asyncio.run(segments.open_segment("c1", "futari", "wife", "household.shopping", before))
    assert opened.first_message == 2 and segments.current("c1") == opened
    during = [*before, *talk(("牛乳を足して", "追加しました"), ("卵も", "追加しました"))]
    clock.advance(minutes=5)
    model = ScriptedModel([text_response("買い物リストに牛乳と卵を追加した。")])
    closed = asyncio.run(segments.close_segment("c1", during, summarizer=Summarizer(model)))
    assert closed is not None and closed.summary == "買い物リストに牛乳と卵を追加した。"
    assert segments.current("c1") is None
    restarted = Segments(database(target), clock=clock)
    [listed] = restarted.index("futari", "wife", label="household.shopping")
    assert listed.id == opened.id and "household.shopping" in listed.index_line()
    assert restarted.load(opened.id, "futari", "wife") == during[2:]


def test_one_panel_at_a_time(segments: Segments) -> None:
    history = talk(("a", "b"))
    first = asyncio.run(segments.open_segment("c1", "futari", "wife", "household.shopping", history))
    second = asyncio.run(
        segments.open_segment("c1", "futari", "wife", "household.calendar", [*history, *talk(("c", "d"))])
    )
    assert segments.current("c1") == second
    assert segments.get(first.id, "futari", "wife").closed_at is not None


def test_a_failing_summarizer_leaves_a_digest(segments: Segments) -> None:
    history = talk(("x", "y"))
    asyncio.run(segments.open_segment("c1", "futari", "wife", "chat", []))
    closed = asyncio.run(
        segments.close_segment(
            "c1", history, summarizer=Summarizer(ScriptedModel([ModelUnavailableError("down")]))
        )
    )
    assert closed is not None and closed.summary == "x / y"


def test_segments_are_private_and_labels_are_checked(segments: Segments) -> None:
    asyncio.run(segments.open_segment("c1", "futari", "wife", "chat", []))
    closed = asyncio.run(segments.close_segment("c1", talk(("秘密", "はい"))))
    assert closed is not None
    with pytest.raises(NotFoundError):
        segments.load(closed.id, "futari", "husband")
    assert segments.index("futari", "husband") == []
    # another household's wife is another person: she never sees (or loads) this one's segments
    with pytest.raises(NotFoundError):
        segments.load(closed.id, "tonari", "wife")
    assert segments.index("tonari", "wife") == []
    assert [x.id for x in segments.index("futari", "wife")] == [closed.id]
    with pytest.raises(UserInputError, match="label"):
        asyncio.run(segments.open_segment("c1", "futari", "wife", "two words", []))


def test_the_segment_tools_see_only_the_speakers_own_segments(segments: Segments, target: str) -> None:
    asyncio.run(segments.open_segment("c1", "futari", "wife", "household.shopping", []))
    closed = asyncio.run(segments.close_segment("c1", talk(("牛乳を足して", "追加しました"))))
    assert closed is not None

    @dataclass(frozen=True)
    class Deps:
        segments: Segments

    ctx = ToolContext(deps=Deps(segments), user="wife", scope="h/u/wife", channel="app", household="futari")
    index = asyncio.run(list_segments.run(ctx, {"query": "牛乳"})).content
    assert closed.id in str(index)
    loaded = asyncio.run(load_segment.run(ctx, {"id": closed.id})).content
    assert "user: 牛乳を足して" in str(loaded) and "assistant: 追加しました" in str(loaded)
    neighbour = replace(ctx, household="tonari")  # same user id, another household
    assert asyncio.run(list_segments.run(neighbour, {})).content == "no earlier segments match"
    with pytest.raises(NotFoundError):
        asyncio.run(load_segment.run(neighbour, {"id": closed.id}))


def _archive(segments: Segments, conversation: str, owner: str, label: str, *pairs: tuple[str, str]) -> str:
    asyncio.run(segments.open_segment(conversation, "futari", owner, label, []))
    closed = asyncio.run(segments.close_segment(conversation, talk(*pairs)))
    assert closed is not None
    return closed.id


def test_list_segments_finds_the_segment_a_fact_was_said_in(
    segments: Segments, target: str, clock: Clock
) -> None:
    """ "When did we talk about the plumber?": the facts the extractor kept (their provenance names
    the conversation and the segment label) lead to segments whose summaries never say the word;
    in English and Japanese; another member's segment stays theirs though the fact is shared.
    Before issue 23 (sg26) only summaries were searched: "no earlier segments match"."""
    pipes = _archive(segments, "c1", "wife", "chat", ("The pipes guy comes Friday", "Noted"))
    water = _archive(segments, "c2", "wife", "household.calendar", ("金曜の朝に来てもらう", "承知しました"))
    tea = _archive(segments, "c3", "wife", "chat", ("We bought green tea", "Nice"))
    theirs = _archive(segments, "c9", "husband", "chat", ("the plumber again", "ok"))
    store = open_store(target)
    memory = MemoryEngine(store, HashEmbedder(), clock=clock)
    facts = [
        ("The plumber comes on Friday to fix the kitchen sink", "h/u/wife", "c1", "chat"),
        ("水道屋さんが金曜の朝に台所の水漏れを直しに来る", "h/u/wife", "c2", "household.calendar"),
        ("We like green tea from Uji", "h/u/wife", "c3", "chat"),
        ("The plumber's number is on the fridge", "h", "c9", "chat"),  # the husband's, shared
    ]
    for text, scope, conversation, label in facts:
        memory.remember(text, scope, provenance={"conversation": conversation, "segment": label})

    @dataclass(frozen=True)
    class Deps:
        segments: Segments
        memory: MemoryEngine

    ctx = ToolContext(
        deps=Deps(segments, memory), user="wife", scope="h/u/wife", channel="app", household="futari"
    )
    try:
        english = str(asyncio.run(list_segments.run(ctx, {"query": "plumber"})).content)
        assert english.splitlines()[0].startswith(pipes) and theirs not in english
        japanese = str(asyncio.run(list_segments.run(ctx, {"query": "水道屋さん"})).content)
        assert japanese.splitlines()[0].startswith(water) and theirs not in japanese
        # a label narrows it; summary words still find what no fact names
        narrowed = str(
            asyncio.run(list_segments.run(ctx, {"query": "plumber", "label": "household.calendar"})).content
        )
        assert pipes not in narrowed
        assert str(asyncio.run(list_segments.run(ctx, {"query": "tea"})).content).startswith(tea)
    finally:
        store.close()


def test_open_panel_asks_the_channel_through_a_typed_effect() -> None:
    ctx = ToolContext(deps=None, user="wife", scope="h/u/wife", channel="app", household="futari")
    output = asyncio.run(open_panel.run(ctx, {"name": "shopping"}))
    assert output.effects == (OpenPanel("shopping"),) and output.effects[0].label == "household.shopping"
    assert "panel is open" in str(output.content)
    with pytest.raises(ToolInputError, match="name"):
        asyncio.run(open_panel.run(ctx, {"name": "kitchen"}))


def test_the_butler_finds_the_segment_a_remembered_fact_was_said_in(target: str, db_path: Path) -> None:
    """A fact the butler's ``remember`` kept while the recipes panel was open leads back to that
    segment once it is archived: its provenance keeps the segment label beside the conversation."""
    store = HouseholdStore(database(target))
    store.create("futari", ["wife", "husband"])
    store.close()
    model = ScriptedModel(
        [
            tool_use_response(("t1", "remember", {"content": "配管工さんは金曜に来る", "category": "event"})),
            text_response("覚えました"),
            text_response("来客の予定を話した。"),  # the archived segment's summary: no 配管工 in it
            text_response("はい"),
        ]
    )
    butler = Butler(database(target), MemoryEngine(open_store(db_path), HashEmbedder()), model)
    try:
        ctx = butler.member("wife", "app", household="futari")

        async def turn(text: str, segment: str | None) -> None:
            events = butler.service.events(butler.service.begin(ctx, text, segment=segment), mode="task")
            assert isinstance([e async for e in events][-1], Finished)

        asyncio.run(turn("金曜に水道の人が来るって覚えておいて", "household.recipes"))
        asyncio.run(turn("ありがとう", None))  # the panel closes: the segment is archived
        [archived] = butler.segments.index("futari", "wife")
        listed = str(asyncio.run(list_segments.run(ctx, {"query": "配管工"})).content)
        assert listed.startswith(archived.id) and "household.recipes" in listed
    finally:
        butler.close()


@pytest.mark.parametrize("household", ["futari", None], ids=["household", "none"])
def test_said_in_reads_the_pair_s_segments_through_the_member_index(
    segments: Segments, target: str, clock: Clock, household: str | None
) -> None:
    """``said_in`` (and ``index``) compared the household by ``IS NOT DISTINCT FROM``, which no index
    condition takes: PostgreSQL read every segment of every member of that name in any household. Now
    ``household = ?`` / ``IS NULL``: the ``segments_member`` index on both columns; the same segments
    (only the pair's own closed ones: not the neighbour's ``wife``, not a member of no household's)."""
    mine: list[str] = []
    for home in ("futari", "tonari", None):
        for n in range(3):
            conversation = f"c-{home}-{n}"
            asyncio.run(segments.open_segment(conversation, home, "wife", "chat", []))
            closed = asyncio.run(segments.close_segment(conversation, talk((f"{home} {n}", "ok"))))
            assert closed is not None
            if home == household:
                mine.append(closed.id)
    asyncio.run(segments.open_segment(f"c-{household}-0", household, "wife", "chat", []))  # open: not listed
    # facts naming everyone's conversations: the rule, not the facts, keeps the pair's own
    hits = [_said(f"c-{home}-{n}", clock) for home in ("futari", "tonari", None) for n in range(3)]
    found = segments.said_in(household, "wife", hits)
    assert sorted(s.id for s in found) == sorted(mine)
    assert sorted(s.id for s in segments.index(household, "wife")) == sorted(mine)
    db = database(target)
    sql, params = Segments.said_in_query(household, "wife", [f"c-{household}-{n}" for n in range(3)])
    assert sorted(r[0] for r in db.execute(sql, params).fetchall()) == sorted(mine)
    if db.dialect == "sqlite":
        plan = " ".join(str(r[3]) for r in db.execute("EXPLAIN QUERY PLAN " + sql, params).fetchall())
        assert "USING INDEX segments_member (household=? AND owner=?)" in plan, plan
        return
    with db.write() as tx:  # "wife" in 3,000 other households, as people call members (pt25e's case)
        tx.execute(
            "INSERT INTO segments (id, conversation, household, owner, label, opened_at, closed_at, "
            "first_message) SELECT 's' || n, 'x' || n, 'h' || n, 'wife', 'chat', '2026-01-01', "
            "'2026-01-01', 0 FROM generate_series(1, 3000) n"
        )
    db.execute("ANALYZE segments")
    plan = "\n".join(str(r[0]) for r in db.execute("EXPLAIN " + sql, params).fetchall())
    condition = plan.split("Index Cond:", 1)[1].split("\n", 1)[0] if "Index Cond:" in plan else ""
    assert "segments_member" in plan and "household" in condition and "owner" in condition, plan


def _said(conversation: str, clock: Clock, *, label: str = "chat") -> Hit:
    """A recalled fact whose provenance names a conversation's segment (``chat``)."""
    now = clock()
    fact = Memory(
        id=f"m-{conversation}-{label}", scope="h", content="fact", category="fact", importance=0.5, source="user",
        provenance={"conversation": conversation, "segment": label}, created_at=now, updated_at=now,
        content_hash=conversation,
    )  # fmt: skip
    return Hit(fact, 1.0)


def test_earlier_reads_a_bounded_number_of_segments_however_many_are_closed(
    target: str, clock: Clock
) -> None:
    """A turn's earlier segments (``Segments.earlier``) come from one statement that reads at most
    ``limit`` of the facts' segments and ``limit`` of the label's: a member with 40 closed ``chat``
    segments in each of three conversations and 40 ``garden`` ones read them all each turn (120 rows
    on a3c941b, the rest dropped in Python). The answer is the unbounded rule's: the facts' segments
    (best pair first, newest first in each) taking turns with the label's (newest first)."""
    with counting(target) as (url, statements):
        db = database(url)
        segments = Segments(db, clock=clock)
        for conversation, label in [("c-0", "chat"), ("c-1", "chat"), ("c-2", "chat"), ("c-3", "garden")]:
            for n in range(40):
                asyncio.run(segments.open_segment(conversation, "futari", "wife", label, []))
                asyncio.run(segments.close_segment(conversation, talk((f"{label} {n}", "ok"))))
                clock.advance(minutes=1)
        hits = [_said("c-3", clock, label="garden"), replace(_said("c-1", clock), score=0.5)]
        every = segments.index("futari", "wife", limit=1000)  # newest first
        ranked = [("c-3", "garden"), ("c-1", "chat")]
        said = sorted(
            (s for s in every if (s.conversation, s.label) in ranked),
            key=lambda s: ranked.index((s.conversation, s.label)),
        )
        labelled = [s for s in every if s.label == "chat"]
        expected = list(dict.fromkeys(s for pair in zip(said, labelled, strict=False) for s in pair))[:5]
        if db.dialect == "sqlite":
            watch(db, statements)
        statements.mark()
        found = segments.earlier("futari", "wife", label="chat", hits=hits, limit=5)
        assert found == expected
        assert [s.label for s in found] == ["garden", "chat", "garden", "chat", "garden"]
        [read] = statements.snapshot()  # one statement
        if db.dialect == "sqlite":  # the statement as it ran, its parameters in it: how many rows it reads
            assert len(db.execute(read.sql).fetchall()) <= 2 * 5
        else:
            assert read.sql.count("LIMIT") == 2
