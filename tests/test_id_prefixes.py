"""An id prefix answers the same whether or not a memory the caller cannot see shares it."""

from __future__ import annotations

import pytest

from shitsuji.errors import NotFoundError
from shitsuji.mcp._server import ProjectMemory
from shitsuji.memory import MemoryEngine, NewMemory

PROJECT = "fs/home/u/projects/app"
SIBLING = "fs/home/u/projects/other"


def _add(engine: MemoryEngine, memory_id: str, scope: str, text: str) -> None:
    assert engine.add_many([NewMemory(content=text, scope=scope, id=memory_id)]) == (1, 0)


@pytest.mark.parametrize("hidden", ["sibling", "deleted", "none"])
def test_mcp_read_and_forget_by_prefix_ignore_what_the_project_cannot_see(
    engine: MemoryEngine, hidden: str
) -> None:
    _add(engine, "abcd1111aaaa", PROJECT, "tests run with make test")
    if hidden == "sibling":
        _add(engine, "abcd2222bbbb", SIBLING, "the other project's secret")
    elif hidden == "deleted":
        _add(engine, "abcd2222bbbb", PROJECT, "forgotten note")
        engine.forget("abcd2222bbbb")
    project = ProjectMemory(engine, PROJECT)
    assert project.read("abcd")["id"] == "abcd1111aaaa"
    assert project.read("abcd1")["content"] == "tests run with make test"
    with pytest.raises(NotFoundError) as missing:
        project.read("abcd2")
    with pytest.raises(NotFoundError) as unknown:
        project.read("abcd9")
    assert str(missing.value).replace("abcd2", "X") == str(unknown.value).replace("abcd9", "X")
    assert project.forget("abcd")["id"] == "abcd1111aaaa"


def test_engine_get_with_visible_scopes(engine: MemoryEngine) -> None:
    _add(engine, "beef0001", "household/futari/user/wife", "妻は紅茶派")
    _add(engine, "beef0002", "household/futari/user/husband", "夫はコーヒー派")
    wife = ["household/futari/user/wife", "household/futari"]
    assert engine.get("beef", visible_scopes=wife).id == "beef0001"
    with pytest.raises(NotFoundError):
        engine.get("beef0002", visible_scopes=wife)  # the exact id of a hidden memory, too
    with pytest.raises(NotFoundError):
        engine.get("beef")  # ambiguous for someone who sees everything
    with pytest.raises(NotFoundError):
        engine.get("beef", visible_scopes=[])
    engine.forget("beef0001")
    assert engine.get("beef", visible_scopes=wife).deleted
    with pytest.raises(NotFoundError):
        engine.get("beef", visible_scopes=wife, deleted=False)
