"""shitsuji behind Claude's memory tool, driven through the SDK's own tool runner, on both engines."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import pytest

from shitsuji.audit import AuditLog
from shitsuji.claude_memory import PATH_KEY, ShitsujiMemoryTool, household_scopes
from shitsuji.llm import ModelResponse, text_response, tool_use_response
from shitsuji.memory import HashEmbedder, MemoryEngine, open_store
from shitsuji.store import database

from .fake_anthropic import FakeMessagesAPI

PRIVATE = "household/futari/user/wife"
SHARED = "household/futari"


@pytest.fixture
def memory_target(target: str) -> str:
    return target


@pytest.fixture
def api() -> Iterator[FakeMessagesAPI]:
    with FakeMessagesAPI().running() as fake:
        yield fake


@pytest.fixture
def audited(memory_target: str) -> Iterator[tuple[MemoryEngine, AuditLog]]:
    store = open_store(memory_target)
    audit = AuditLog(database(memory_target))
    yield MemoryEngine(store, HashEmbedder(), audit=audit), audit
    store.close()


def run_until_done(api: FakeMessagesAPI, tool: ShitsujiMemoryTool, said: str) -> Any:
    """The SDK's own tool runner against the fake, run to its last reply."""
    client = anthropic.Anthropic(api_key="k", base_url=api.url, max_retries=0)
    runner = client.beta.messages.tool_runner(
        model="claude-sonnet-4-6", max_tokens=1024, tools=[tool], messages=[{"role": "user", "content": said}]
    )
    return runner.until_done()


def run(api: FakeMessagesAPI, tool: ShitsujiMemoryTool, *calls: dict[str, Any]) -> list[dict[str, Any]]:
    """Script Claude calling the memory tool (one call per reply), let the SDK's runner run it; the results."""
    for i, call in enumerate(calls):
        api.reply(tool_use_response((f"toolu_{i}", "memory", call)))
    api.reply(text_response("覚えておきます。"))
    final = run_until_done(api, tool, "紅茶が好きだと覚えておいて")
    assert [b.text for b in final.content if b.type == "text"] == ["覚えておきます。"]
    results = [b for r in api.requests[-len(calls) :] for b in r["messages"][-1]["content"]]
    assert api.requests[0]["tools"] == [{"type": "memory_20250818", "name": "memory"}]
    return results


def tool_for(engine: MemoryEngine) -> ShitsujiMemoryTool:
    return ShitsujiMemoryTool(engine, household_scopes("futari", "wife"), actor="futari/wife")


def test_claude_keeps_a_file_as_a_searchable_memory_with_provenance(
    api: FakeMessagesAPI, audited: tuple[MemoryEngine, AuditLog]
) -> None:
    engine, audit = audited
    results = run(
        api,
        tool_for(engine),
        {"command": "view", "path": "/memories"},
        {"command": "create", "path": "/memories/private/好み.md", "file_text": "紅茶が好き\n朝はコーヒー"},
        {
            "command": "str_replace",
            "path": "/memories/private/好み.md",
            "old_str": "コーヒー",
            "new_str": "緑茶",
        },
        {"command": "insert", "path": "/memories/private/好み.md", "insert_line": 0, "insert_text": "# 好み"},
        {
            "command": "rename",
            "old_path": "/memories/private/好み.md",
            "new_path": "/memories/private/drinks.md",
        },
        {"command": "view", "path": "/memories/private/drinks.md"},
    )
    assert not any(r.get("is_error") for r in results), results
    assert "/memories/private/ (0 files)" in results[0]["content"]
    assert results[-1]["content"].endswith("     1\t# 好み\n     2\t紅茶が好き\n     3\t朝は緑茶")
    [kept] = [m for m in engine.list_memories(PRIVATE) if m.scope == PRIVATE]
    assert kept.content == "# 好み\n紅茶が好き\n朝は緑茶" and kept.provenance[PATH_KEY] == "drinks.md"
    assert kept.provenance["by"] == "futari/wife"
    assert [h.memory.id for h in engine.recall("緑茶", PRIVATE)] == [kept.id]  # by words
    assert engine.recall("紅茶", SHARED) == []  # the spouse's reader of the household scope sees nothing
    trail = [(e.action, e.actor, e.channel) for e in reversed(audit.events(limit=50))]
    assert trail[0] == ("memory.remembered", "futari/wife", "claude-memory-tool")
    assert [a for a, _, _ in trail].count("memory.edited") == 2 and (
        "memory.relabelled",
        "futari/wife",
        "claude-memory-tool",
    ) in trail


def test_traversal_other_scopes_and_cross_scope_moves_are_refused(
    api: FakeMessagesAPI, audited: tuple[MemoryEngine, AuditLog]
) -> None:
    engine, _ = audited
    tool = tool_for(engine)
    results = run(
        api,
        tool,
        {"command": "create", "path": "/memories/private/secret.md", "file_text": "誕生日のプレゼントは時計"},
        {"command": "create", "path": "/memories/../etc/passwd", "file_text": "x"},
        {"command": "create", "path": "/memories/husband/notes.md", "file_text": "x"},
        {"command": "view", "path": "/memories/private/../../etc"},
        {
            "command": "rename",
            "old_path": "/memories/private/secret.md",
            "new_path": "/memories/shared/secret.md",
        },
        {"command": "create", "path": "/memories/notes.md", "file_text": "x"},
    )
    errors = [json.dumps(r["content"], ensure_ascii=False) for r in results[1:]]
    assert all(r.get("is_error") for r in results[1:]), results
    assert "not allowed" in errors[0] and "no such directory" in errors[1] and "not allowed" in errors[2]
    assert "stay in their own scope" in errors[3] and "no such directory" in errors[4]
    assert [m.scope for m in engine.list_memories()] == [PRIVATE]  # nothing else was written


def test_the_same_text_twice_is_one_memory_and_delete_is_soft(
    api: FakeMessagesAPI, audited: tuple[MemoryEngine, AuditLog]
) -> None:
    engine, _ = audited
    results = run(
        api,
        tool_for(engine),
        {"command": "create", "path": "/memories/shared/shopping.md", "file_text": "Milk every Monday"},
        {"command": "create", "path": "/memories/shared/again.md", "file_text": "Milk every Monday"},
        {"command": "delete", "path": "/memories/shared/shopping.md"},
        {"command": "view", "path": "/memories/shared"},
    )
    assert "already remembered in /memories/shared/shopping.md" in json.dumps(results[1]["content"])
    assert results[1].get("is_error") and not results[2].get("is_error")
    assert results[3]["content"].endswith("(empty)")
    [gone] = list(engine.list_memories(SHARED, deleted=True))
    assert engine.restore(gone.id).provenance[PATH_KEY] == "shopping.md"  # restorable


def test_a_reply_that_is_not_a_tool_call_ends_the_runner(api: FakeMessagesAPI, engine: MemoryEngine) -> None:
    api.reply(ModelResponse(content=[{"type": "text", "text": "何もしません"}], stop_reason="end_turn"))
    final = run_until_done(api, tool_for(engine), "hi")
    assert final.stop_reason == "end_turn" and list(engine.list_memories()) == []


def test_the_example_runs_offline(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    example = Path(__file__).parent.parent / "examples" / "claude_memory_tool.py"
    env = {k: v for k, v in os.environ.items() if k != "ANTHROPIC_API_KEY"}
    done = subprocess.run(
        [sys.executable, str(example), str(tmp_path / "m.db")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert "household/futari/user/wife: 紅茶が好き（砂糖なし）" in done.stdout


def refuse_rows_naming(target: str, name: str) -> None:
    """The database itself refuses any row whose provenance names ``name`` (a failure mid-rename)."""
    db = database(target)
    with db.write() as tx:
        if db.dialect == "postgresql":
            tx.execute(
                "CREATE FUNCTION refuse_name() RETURNS trigger AS $$ BEGIN "
                f"IF NEW.provenance::text LIKE '%{name}%' THEN RAISE EXCEPTION 'refused'; END IF; "
                "RETURN NEW; END $$ LANGUAGE plpgsql"
            )
            tx.execute(
                "CREATE TRIGGER refuse_name BEFORE INSERT OR UPDATE ON memories "
                "FOR EACH ROW EXECUTE FUNCTION refuse_name()"
            )
            return
        for event in ("INSERT", "UPDATE"):
            tx.execute(
                f"CREATE TRIGGER refuse_{event.lower()} BEFORE {event} ON memories "
                f"WHEN NEW.provenance LIKE '%{name}%' BEGIN SELECT RAISE(ABORT, 'refused'); END"
            )


def test_a_rename_that_fails_halfway_loses_nothing(
    api: FakeMessagesAPI, audited: tuple[MemoryEngine, AuditLog], memory_target: str
) -> None:
    engine, audit = audited
    tool = tool_for(engine)
    run(api, tool, {"command": "create", "path": "/memories/private/tea.md", "file_text": "紅茶が好き"})
    refuse_rows_naming(memory_target, "drinks.md")
    rename = {
        "command": "rename",
        "old_path": "/memories/private/tea.md",
        "new_path": "/memories/private/drinks.md",
    }
    [result] = run(api, tool, rename)
    assert result.get("is_error")  # the database refused it: Claude reads an error
    [kept] = engine.list_memories(PRIVATE)  # the file is still there, live, under its old name
    assert kept.content == "紅茶が好き" and kept.provenance[PATH_KEY] == "tea.md" and kept.deleted_at is None
    assert "memory.forgotten" not in [e.action for e in audit.events(limit=50)]


def test_a_rename_keeps_the_memory_and_its_id(
    api: FakeMessagesAPI, audited: tuple[MemoryEngine, AuditLog]
) -> None:
    engine, audit = audited
    tool = tool_for(engine)
    run(api, tool, {"command": "create", "path": "/memories/private/tea.md", "file_text": "紅茶が好き"})
    [before] = engine.list_memories(PRIVATE)
    run(
        api,
        tool,
        {
            "command": "rename",
            "old_path": "/memories/private/tea.md",
            "new_path": "/memories/private/drinks.md",
        },
    )
    [after] = engine.list_memories(PRIVATE)  # renamed in place: the same row, nothing forgotten
    assert list(engine.list_memories(PRIVATE, deleted=True)) == []
    assert after.id == before.id and after.provenance[PATH_KEY] == "drinks.md"
    assert after.provenance["renamed_from"] == "tea.md" and after.deleted_at is None
    assert [h.memory.id for h in engine.recall("紅茶", PRIVATE)] == [before.id]
    renamed = [e for e in audit.events(limit=50) if e.action == "memory.relabelled"]
    assert [(e.subject, e.actor, e.detail) for e in renamed] == [
        (before.id, "futari/wife", {PATH_KEY: "drinks.md", "renamed_from": "tea.md"})
    ]
