"""shitsuji behind Claude's memory tool (``memory_20250818``), for any application on the Anthropic SDK.

The SDK's ``BetaAbstractMemoryTool`` leaves the storage to us: Claude asks to view, create, edit,
delete and rename files under ``/memories``, and the SDK's tool runner calls these methods. Here a file
is one memory of the engine (its path kept in the row's provenance), so what Claude keeps this way is
deduplicated (writing what a scope already holds says where it is instead of making a copy), found by
meaning and words in Japanese and English by every other reader of the engine (recall, the prompt hook,
MCP), attributed to the person it came from, audited, and forgotten softly (restorable).

The first directory names the scope, from the reader's own pair (household, member): ``/memories/private``
is the member's own scope, ``/memories/shared`` the household's. Any other top directory, ``..``, and a
rename from one scope to another (private text made shared) are refused with a ``ToolError`` that Claude
reads as the tool's error result.
"""

from __future__ import annotations

import posixpath
from collections.abc import Iterator, Mapping
from typing import Any

from anthropic.lib.tools import BetaAbstractMemoryTool, ToolError
from anthropic.types.beta import (
    BetaMemoryTool20250818CreateCommand,
    BetaMemoryTool20250818DeleteCommand,
    BetaMemoryTool20250818InsertCommand,
    BetaMemoryTool20250818RenameCommand,
    BetaMemoryTool20250818StrReplaceCommand,
    BetaMemoryTool20250818ViewCommand,
)

from ..errors import ShitsujiError
from ..memory import Memory, MemoryEngine

ROOT = "/memories"
PATH_KEY = "memory_tool_path"
WIDTH = 6  # line numbers as the SDK's own filesystem memory tool shows them


def household_scopes(household: str, member: str) -> dict[str, str]:
    """The two directories a member sees: their own private scope and their household's."""
    return {"private": f"household/{household}/user/{member}", "shared": f"household/{household}"}


class ShitsujiMemoryTool(BetaAbstractMemoryTool):
    """Claude's memory tool over a ``MemoryEngine``, for one reader (``actor``) and its ``scopes``.

    ``scopes`` maps each top directory under ``/memories`` to an engine scope (``household_scopes``
    gives a household member's two); ``actor`` is who the rows and the audit name (``household/member``).
    """

    def __init__(self, engine: MemoryEngine, scopes: Mapping[str, str], *, actor: str) -> None:
        super().__init__()
        if not scopes or any("/" in name or name in ("", ".", "..") for name in scopes):
            raise ValueError("scopes: one or more plain directory names")
        self.engine = engine
        self.scopes = dict(scopes)
        self.actor = actor

    # -- paths --------------------------------------------------------------

    def _split(self, path: str) -> tuple[str | None, str]:
        """(directory name, file path inside it) for a path under /memories; refuses any other."""
        if "\\" in path or "\x00" in path or ".." in path.split("/"):
            raise ToolError(f"{path}: '..' and backslashes are not allowed in memory paths")
        clean = posixpath.normpath(path)
        if clean != ROOT and not clean.startswith(ROOT + "/"):
            raise ToolError(f"Path must start with {ROOT}, got: {path}")
        parts = clean[len(ROOT) + 1 :].split("/", 1) if clean != ROOT else []
        if not parts:
            return None, ""
        if parts[0] not in self.scopes:
            raise ToolError(
                f"{path}: no such directory; write under {', '.join(f'{ROOT}/{n}/' for n in self.scopes)}"
            )
        return parts[0], parts[1] if len(parts) > 1 else ""

    def _file(self, path: str) -> tuple[str, str]:
        name, inner = self._split(path)
        if name is None or not inner:
            raise ToolError(
                f"{path} is a directory: name a file, e.g. {ROOT}/{next(iter(self.scopes))}/notes.md"
            )
        return name, inner

    def _files(self, name: str) -> Iterator[Memory]:
        scope = self.scopes[name]
        for memory in self.engine.list_memories(scope):
            if memory.scope == scope and isinstance(memory.provenance.get(PATH_KEY), str):
                yield memory

    def _find(self, name: str, inner: str) -> Memory | None:
        return next((m for m in self._files(name) if m.provenance[PATH_KEY] == inner), None)

    def _existing(self, path: str) -> tuple[str, str, Memory]:
        name, inner = self._file(path)
        found = self._find(name, inner)
        if found is None:
            raise ToolError(f"The path {path} does not exist. Please provide a valid path.")
        return name, inner, found

    # -- commands -----------------------------------------------------------

    def view(self, command: BetaMemoryTool20250818ViewCommand) -> str:
        name, inner = self._split(command.path)
        if name is None:
            lines = [f"{ROOT}/{n}/ ({sum(1 for _ in self._files(n))} files)" for n in self.scopes]
            return f"Directories in {ROOT}:\n" + "\n".join(lines)
        found = self._find(name, inner) if inner else None
        if found is None:
            prefix = inner.rstrip("/") + "/" if inner else ""
            paths = sorted(
                m.provenance[PATH_KEY] for m in self._files(name) if m.provenance[PATH_KEY].startswith(prefix)
            )
            if inner and not paths:
                raise ToolError(f"The path {command.path} does not exist. Please provide a valid path.")
            listing = "\n".join(f"{ROOT}/{name}/{p}" for p in paths) or "(empty)"
            return f"Files in {command.path}:\n{listing}"
        lines = found.content.split("\n")
        start, end = 1, len(lines)
        if command.view_range and len(command.view_range) == 2:
            start = max(1, command.view_range[0])
            end = len(lines) if command.view_range[1] == -1 else min(end, command.view_range[1])
        shown = [f"{str(i).rjust(WIDTH)}\t{lines[i - 1]}" for i in range(start, end + 1)]
        return f"Here's the content of {command.path} with line numbers:\n" + "\n".join(shown)

    def create(self, command: BetaMemoryTool20250818CreateCommand) -> str:
        name, inner = self._file(command.path)
        existing = self._find(name, inner)
        if existing is not None:
            self._edit(existing, command.file_text)
            return f"File overwritten at: {command.path}"
        provenance: dict[str, Any] = {PATH_KEY: inner, "by": self.actor, "channel": "claude-memory-tool"}
        try:
            result = self.engine.remember(command.file_text, self.scopes[name], provenance=provenance)
        except ShitsujiError as exc:
            raise ToolError(f"{command.path}: {exc}") from exc
        if result.duplicate:
            where = result.memory.provenance.get(PATH_KEY)
            held = f"{ROOT}/{name}/{where}" if isinstance(where, str) else "this scope (not as a file)"
            raise ToolError(f"Not created: the same is already remembered in {held}")
        return f"File created successfully at: {command.path}"

    def str_replace(self, command: BetaMemoryTool20250818StrReplaceCommand) -> str:
        _, _, found = self._existing(command.path)
        count = found.content.count(command.old_str)
        if count != 1:
            how = "did not appear verbatim" if count == 0 else f"appears {count} times (it must be unique)"
            raise ToolError(
                f"No replacement was performed: old_str `{command.old_str}` {how} in {command.path}."
            )
        self._edit(found, found.content.replace(command.old_str, command.new_str))
        return f"The memory file {command.path} has been edited."

    def insert(self, command: BetaMemoryTool20250818InsertCommand) -> str:
        _, _, found = self._existing(command.path)
        lines = found.content.split("\n")
        if not 0 <= command.insert_line <= len(lines):
            raise ToolError(f"Invalid insert_line {command.insert_line}: it must be 0-{len(lines)}")
        lines[command.insert_line : command.insert_line] = command.insert_text.rstrip("\n").split("\n")
        self._edit(found, "\n".join(lines))
        return f"The file {command.path} has been edited."

    def delete(self, command: BetaMemoryTool20250818DeleteCommand) -> str:
        name, inner = self._split(command.path)
        if name is None or not inner:
            raise ToolError(f"Cannot delete {command.path}: delete files or folders inside it")
        prefix = inner.rstrip("/") + "/"
        gone = [
            m
            for m in self._files(name)
            if m.provenance[PATH_KEY] == inner or m.provenance[PATH_KEY].startswith(prefix)
        ]
        if not gone:
            raise ToolError(f"The path {command.path} does not exist. Please provide a valid path.")
        for memory in gone:  # soft: each can be restored (`shitsuji restore ID`)
            self.engine.forget(memory.id, by=self.actor)
        return f"Successfully deleted {command.path}"

    def rename(self, command: BetaMemoryTool20250818RenameCommand) -> str:
        name, inner, found = self._existing(command.old_path)
        new_name, new_inner = self._file(command.new_path)
        if new_name != name:
            raise ToolError(
                f"Cannot move {command.old_path} to {ROOT}/{new_name}/: files stay in their own scope"
            )
        if self._find(new_name, new_inner) is not None:
            raise ToolError(f"The destination {command.new_path} already exists")
        # the same memory under a new name, in one transaction: nothing is forgotten and re-remembered
        try:
            self.engine.relabel(found.id, {PATH_KEY: new_inner, "renamed_from": inner}, by=self.actor)
        except ShitsujiError as exc:
            raise ToolError(f"Not renamed: {exc}") from exc
        return f"Successfully renamed {command.old_path} to {command.new_path}"

    def clear_all_memory(self) -> str:
        for name in self.scopes:
            for memory in list(self._files(name)):
                self.engine.forget(memory.id, by=self.actor)
        return "All memory files forgotten (restorable)"

    def _edit(self, memory: Memory, content: str) -> None:
        try:
            self.engine.edit(memory.id, content=content, by=self.actor)
        except ShitsujiError as exc:
            raise ToolError(str(exc)) from exc
