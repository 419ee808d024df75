"""The MCP server end to end: real server processes over stdio, driven by the SDK's client.

Each test lays out a small directory tree (projects with ``.git``) and starts
``python -m shitsuji mcp`` in one of them, so the scope comes from the working directory
exactly as it does under Claude Code or Codex.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path, PurePath, PurePosixPath, PureWindowsPath
from typing import Any

import anyio
import pytest
from mcp import Client, StdioServerParameters
from mcp.types import CallToolResult, TextContent

from shitsuji.mcp import path_scope, project_scope
from shitsuji.memory import HashEmbedder, MemoryEngine, normalize_scope, open_store

TOOLS = {"remember", "recall", "read_memory", "dedupe", "forget", "list_memories"}


@pytest.fixture
def tree(tmp_path: Path) -> dict[str, Path]:
    """home/u/projects/{main-project (+ nested vendored repo), other-project}."""
    projects = tmp_path / "home" / "u" / "projects"
    main = projects / "main-project"
    other = projects / "other-project"
    nested = main / "vendor" / "lib"
    for repo in (main, other, nested):
        (repo / ".git").mkdir(parents=True)
    (main / "src" / "pkg").mkdir(parents=True)
    return {"projects": projects, "main": main, "other": other, "nested": nested, "db": tmp_path / "m.db"}


def server(cwd: Path, db: Path, *, embedder: str | None = "hash", args: tuple[str, ...] = ()) -> Client:
    env = {"SHITSUJI_DB": str(db), "SHITSUJI_HOOK_SERVER": "off"}  # no prompt-hook server left behind
    env |= {"SHITSUJI_CACHE_DIR": os.environ["SHITSUJI_CACHE_DIR"]}
    env |= {"SHITSUJI_EMBEDDER": embedder} if embedder else {}
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "shitsuji", "mcp", *args], env=env, cwd=str(cwd)
    )
    return Client(params, read_timeout_seconds=60)


def run(test: Callable[[], Awaitable[None]]) -> None:
    anyio.run(test)


async def call(client: Client, tool: str, arguments: dict[str, Any] | None = None) -> Any:
    """The tool's structured result; fails the test on an error result."""
    result = await client.call_tool(tool, arguments or {})
    assert not result.is_error, _text(result)
    return result.structured_content


async def error(client: Client, tool: str, arguments: dict[str, Any]) -> str:
    """The message of a tool call that must fail."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, f"{tool}({arguments}) should fail, got {result.structured_content}"
    return _text(result)


def _text(result: CallToolResult) -> str:
    return " ".join(block.text for block in result.content if isinstance(block, TextContent))


def seed(db: Path, scope: str, text: str) -> str:
    """Save a memory as the user would from the CLI (e.g. on an ancestor folder)."""
    store = open_store(db)
    try:
        return MemoryEngine(store, HashEmbedder()).remember(text, scope).memory.id
    finally:
        store.close()


def test_every_tool_over_stdio(tree: dict[str, Path]) -> None:
    async def main() -> None:
        async with server(tree["main"], tree["db"]) as client:
            listed = await client.list_tools()
            assert {t.name for t in listed.tools} == TOOLS
            remember_doc = next(t.description or "" for t in listed.tools if t.name == "remember")
            assert "pitfall" in remember_doc and "transient chatter" in remember_doc

            saved = await call(
                client,
                "remember",
                {"content": "Run the tests with make test, never bare pytest", "category": "convention"},
            )
            assert saved["duplicate"] is False and saved["scope"] == project_scope(tree["main"])
            again = await call(
                client, "remember", {"content": "run the tests with make test, never bare pytest."}
            )
            assert again["duplicate"] is True and again["id"] == saved["id"]

            found = await call(client, "recall", {"query": "how do I run the tests", "k": 3})
            assert [h["id"] for h in found["hits"]] == [saved["id"]]
            hit = found["hits"][0]
            assert hit["chunk"].startswith("Run the tests") and hit["partial"] is False and hit["score"] > 0

            full = await call(client, "read_memory", {"id": saved["id"]})
            assert full["category"] == "convention" and full["provenance"]["channel"] == "mcp"
            assert full["provenance"]["project"] == str(tree["main"].resolve())

            dup = await call(client, "dedupe", {"content": "Run the tests with make test, never bare pytest"})
            assert dup["duplicate"] is True and dup["id"] == saved["id"]
            fresh = await call(client, "dedupe", {"content": "The CI runs on GitHub Actions"})
            assert fresh == {
                "scope": saved["scope"],
                "duplicate": False,
                "id": None,
                "similarity": None,
                "content": None,
            }

            listing = await call(client, "list_memories")
            assert listing["total"] == 1 and listing["memories"][0]["id"] == saved["id"]

            gone = await call(client, "forget", {"id": saved["id"]})
            assert gone["forgotten"] is True
            assert (await call(client, "recall", {"query": "run the tests"}))["hits"] == []
            assert "no memory with id" in await error(client, "read_memory", {"id": saved["id"]})

    run(main)


def test_long_documents_come_back_as_chunks(tree: dict[str, Path]) -> None:
    filler = " ".join(f"Section {i} describes nothing in particular about the build." for i in range(40))
    document = f"{filler} The release checklist requires signing the wheel with sigstore. {filler}"

    async def main() -> None:
        async with server(tree["main"], tree["db"]) as client:
            saved = await call(client, "remember", {"content": document, "category": "decision"})
            hit = (await call(client, "recall", {"query": "sigstore signing of the wheel"}))["hits"][0]
            assert hit["id"] == saved["id"] and hit["partial"] is True
            assert "sigstore" in hit["chunk"] and len(hit["chunk"]) < len(document) / 3
            assert (await call(client, "read_memory", {"id": saved["id"]}))["content"] == document

    run(main)


def test_scope_comes_from_the_git_root_above_the_working_directory(tree: dict[str, Path]) -> None:
    async def main() -> None:
        async with server(tree["main"] / "src" / "pkg", tree["db"]) as client:
            saved = await call(client, "remember", {"content": "The pkg module owns the parser"})
        expected = path_scope(tree["main"].resolve())
        assert saved["scope"] == expected and expected.endswith("/home/u/projects/main-project")
        assert expected.startswith("fs/")

    run(main)


def test_ancestors_are_visible_siblings_and_children_are_not(tree: dict[str, Path]) -> None:
    db = tree["db"]
    shared = seed(
        db, path_scope(tree["projects"].resolve()), "All projects deploy with the deploy script in ~/bin"
    )
    sibling = seed(db, project_scope(tree["other"]), "The other project deploys with Heroku")
    child = seed(db, project_scope(tree["nested"]), "The vendored lib deploys with its own Makefile")

    async def main() -> None:
        async with server(tree["main"], db) as client:
            own = await call(
                client, "remember", {"content": "This project deploys with the deploy script too"}
            )
            hits = (await call(client, "recall", {"query": "how does this project deploy", "k": 10}))["hits"]
            ids = [h["id"] for h in hits]
            assert set(ids) == {own["id"], shared}, "siblings and children must stay invisible"
            assert ids.index(own["id"]) < ids.index(shared)  # the ancestor ranks lower

            assert (await call(client, "read_memory", {"id": shared}))["scope"] == path_scope(
                tree["projects"].resolve()
            )
            for foreign in (sibling, child, sibling[:6]):
                message = await error(client, "read_memory", {"id": foreign})
                assert message.endswith(
                    f"no memory with id {foreign!r} in this project ({own['scope']}): "
                    "use an id from recall or list_memories"
                )
                assert "no memory with id" in await error(client, "forget", {"id": foreign})
            assert "only the user can forget it" in await error(client, "forget", {"id": shared})

            listed = await call(client, "list_memories")
            assert {m["id"] for m in listed["memories"]} == {own["id"], shared} and listed["total"] == 2
            dup = await call(client, "dedupe", {"content": "The other project deploys with Heroku"})
            assert dup["duplicate"] is False  # dedupe looks at this project's scope only

    run(main)
    store = open_store(db)
    try:
        assert all(
            store.get(i) is not None and store.get(i).deleted_at is None for i in (sibling, child, shared)
        )  # type: ignore[union-attr]
    finally:
        store.close()


def test_keys_given_with_a_fact_find_it_and_are_kept_as_the_models(tree: dict[str, Path]) -> None:
    fact = "Release builds are signed on the CI runner, never on a laptop."
    keys = ["code signing", "署名", "リリース", "deploy"]

    async def main() -> None:
        async with server(tree["main"], tree["db"]) as client:
            saved = await call(client, "remember", {"content": fact, "category": "decision", "keys": keys})
            await call(client, "remember", {"content": "The parser lives in src/pkg/parse.py"})
            hits = (await call(client, "recall", {"query": "署名はどこで？"}))["hits"]
            assert (
                hits[0]["id"] == saved["id"] and hits[0]["chunk"] == fact
            )  # shown as itself, never as its keys

    run(main)
    store = open_store(tree["db"])
    try:
        stored = [m for m in store.list_memories(None, include_deleted=False) if m.content == fact]
        assert [(m.keys, m.keys_by) for m in stored] == [(tuple(keys), "model")]
    finally:
        store.close()


def test_bad_arguments_are_tool_errors_with_clear_messages(tree: dict[str, Path]) -> None:
    async def main() -> None:
        async with server(tree["main"], tree["db"]) as client:
            assert "content" in await error(client, "remember", {})
            assert "Field required" in await error(client, "remember", {"category": "misc"})
            assert "memory text is empty" in await error(client, "remember", {"content": "   "})
            assert "category 'Not Valid!' is not valid" in await error(
                client, "remember", {"content": "x", "category": "Not Valid!"}
            )
            assert "valid list" in await error(client, "remember", {"content": "x", "keys": "cilantro"})
            assert "at most 12 items" in await error(client, "remember", {"content": "x", "keys": ["k"] * 13})
            assert "at most 40 characters" in await error(
                client, "remember", {"content": "x", "keys": ["x" * 41]}
            )
            assert "query is empty" in await error(client, "recall", {"query": " "})
            assert "less than or equal to 20" in await error(client, "recall", {"query": "x", "k": 500})
            assert "greater than or equal to 1" in await error(client, "recall", {"query": "x", "k": 0})
            assert "valid integer" in await error(client, "recall", {"query": "x", "k": "many"})
            assert "memory id is empty" in await error(client, "read_memory", {"id": ""})
            assert "Unknown tool" in await error(client, "scope_override", {"scope": "fs"})
            # the server is still healthy afterwards
            assert (await call(client, "list_memories"))["total"] == 0

    run(main)


def test_concurrent_clients_share_one_database(tree: dict[str, Path]) -> None:
    facts = {
        name: [f"{name} fact number {i} about module m{i}{name}" for i in range(8)] for name in ("a", "b")
    }

    async def main() -> None:
        async with server(tree["main"], tree["db"]) as a, server(tree["main"], tree["db"]) as b:
            clients = {"a": a, "b": b}

            async def write(name: str) -> None:
                for fact in facts[name]:
                    await call(clients[name], "remember", {"content": fact})

            async with anyio.create_task_group() as group:
                group.start_soon(write, "a")
                group.start_soon(write, "b")
                group.start_soon(call, a, "recall", {"query": "module"})
                group.start_soon(call, b, "list_memories")
            for client in (a, b):
                assert (await call(client, "list_memories"))["total"] == 16
            other = (await call(a, "recall", {"query": "b fact number 3 module m3b", "k": 1}))["hits"]
            assert other[0]["chunk"] == "b fact number 3 about module m3b"

    run(main)


def test_default_embedder_recalls_by_meaning(tree: dict[str, Path]) -> None:
    async def main() -> None:
        async with server(tree["main"], tree["db"], embedder=None) as client:
            await call(client, "remember", {"content": "Database migrations are written with Alembic"})
            await call(client, "remember", {"content": "The frontend is built with Vite"})
            hits = (await call(client, "recall", {"query": "スキーマ変更のツールは？", "k": 1}))["hits"]
            assert hits[0]["chunk"] == "Database migrations are written with Alembic"

    run(main)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@asynccontextmanager
async def http_server(cwd: Path, db: Path) -> AsyncIterator[str]:
    port = _free_port()
    env = {"SHITSUJI_DB": str(db), "SHITSUJI_EMBEDDER": "hash", "PATH": "/usr/bin:/bin"}
    env |= {"SHITSUJI_HOOK_SERVER": "off", "SHITSUJI_CACHE_DIR": os.environ["SHITSUJI_CACHE_DIR"]}
    process = subprocess.Popen(
        [sys.executable, "-m", "shitsuji", "mcp", "--http", str(port)],
        cwd=cwd,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            with socket.socket() as probe:
                if probe.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert process.poll() is None, process.stderr.read() if process.stderr else ""
            assert time.monotonic() < deadline, "the HTTP server did not start"
            await anyio.sleep(0.1)
        yield f"http://127.0.0.1:{port}/mcp"
    finally:
        process.terminate()
        process.wait(timeout=10)
        if process.stderr:
            process.stderr.close()


def test_streamable_http_on_loopback(tree: dict[str, Path]) -> None:
    async def main() -> None:
        async with http_server(tree["main"], tree["db"]) as url, Client(url) as client:
            saved = await call(client, "remember", {"content": "HTTP transport works on loopback"})
            assert saved["scope"] == project_scope(tree["main"])
            assert (await call(client, "recall", {"query": "loopback transport"}))["hits"][0]["id"] == saved[
                "id"
            ]

    run(main)


def test_tool_results_carry_text_for_clients_without_structured_output(tree: dict[str, Path]) -> None:
    async def main() -> None:
        async with server(tree["main"], tree["db"]) as client:
            result = await client.call_tool("remember", {"content": "Text content mirrors the structure"})
            assert json.loads(_text(result))["content"] == "Text content mirrors the structure"

    run(main)


@pytest.mark.parametrize(
    ("path", "scope"),
    [
        (PurePosixPath("/home/u/projects/main-project"), "fs/home/u/projects/main-project"),
        (PurePosixPath("/"), "fs"),
        (PurePosixPath("/home/u/My Projects/100%"), "fs/home/u/My%20Projects/100%25"),
        (PurePosixPath("/home/u/東京\u3000app"), "fs/home/u/東京%E3%80%80app"),
        (PureWindowsPath("C:\\Users\\u\\app"), "fs/c/Users/u/app"),
    ],
)
def test_directories_map_to_scopes_that_mirror_them(path: PurePath, scope: str) -> None:
    assert path_scope(path) == scope


def test_unusual_paths_still_get_distinct_valid_scopes() -> None:
    deep = PurePosixPath("/" + "/".join(f"d{i}" for i in range(40)))
    long_name = PurePosixPath("/home/" + "x" * 300)
    scopes = {path_scope(deep), path_scope(deep / "more"), path_scope(long_name), path_scope(long_name / "y")}
    assert len(scopes) == 4 and all(normalize_scope(s) == s for s in scopes)
    assert path_scope(PurePosixPath("/a b")) != path_scope(PurePosixPath("/a%20b"))
