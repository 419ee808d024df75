"""``install-hooks``: the hook and MCP entries a coding agent needs, merged into its config.

Each client gets two entries, both pointing at the Python that runs this command (an
absolute path, so the agent finds shitsuji whatever its PATH):

* the prompt hook, ``python …/shitsuji/hooks/prompt_entry.py prompt`` (``python -m shitsuji.hooks
  prompt`` without ``runpy``'s start-up: ``prompt_entry``), under ``UserPromptSubmit``;
* the MCP server, ``python -m shitsuji mcp``, named ``shitsuji``.

| client      | hook                                 | MCP server                                  |
|-------------|--------------------------------------|---------------------------------------------|
| claude-code | ``<project>/.claude/settings.json``  | ``<project>/.mcp.json``                     |
| codex       | ``$CODEX_HOME/hooks.json``           | ``$CODEX_HOME/config.toml`` (``~/.codex``)  |

Merging keeps every other entry. A hook entry of ours (recognised by its command) is
updated in place rather than added twice, and a file whose content would not change is
left byte for byte as it was, so running the command again is a no-op. Nothing here
writes until ``FileChange.write``: the caller shows the diffs and asks first.
"""

from __future__ import annotations

import difflib
import json
import os
import re
import shlex
import sys
import tomllib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from ..errors import UserInputError

Client = Literal["claude-code", "codex"]
CLIENTS: tuple[str, ...] = get_args(Client)
SERVER_NAME = "shitsuji"
_OUR_HOOK = re.compile(r"shitsuji(\.hooks| hook) prompt|shitsuji[/\\]hooks[/\\]prompt_entry\.py'? prompt")


@dataclass(frozen=True, slots=True)
class FileChange:
    """One config file: its text now (None if absent) and after the merge."""

    path: Path
    before: str | None
    after: str

    @property
    def changed(self) -> bool:
        return self.before != self.after

    def diff(self) -> str:
        old = (self.before or "").splitlines(keepends=True)
        new = self.after.splitlines(keepends=True)
        label = str(self.path)
        return "".join(
            difflib.unified_diff(
                old, new, f"{label} (now)" if self.before is not None else "/dev/null", label
            )
        )

    def write(self) -> None:
        """Write atomically (temporary file, then rename) so a crash never leaves half a config."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_name(self.path.name + ".shitsuji-tmp")
        temporary.write_text(self.after, encoding="utf-8")
        os.replace(temporary, self.path)


@dataclass(frozen=True, slots=True)
class Commands:
    """What the agent runs: the hook command line and the MCP server's command and arguments."""

    hook: str
    server_command: str
    server_args: list[str]

    @classmethod
    def for_this_python(cls, *, db: Path | None = None, embedder: str | None = None) -> Commands:
        """Commands running ``sys.executable``; ``db``/``embedder`` are passed on when given."""
        python = sys.executable
        db_args = ["--db", str(db.expanduser().resolve())] if db else []
        embedder_args = ["--embedder", embedder] if embedder else []
        entry = str(Path(__file__).with_name("prompt_entry.py").resolve())
        hook = shlex.join([python, entry, "prompt", *db_args])
        return cls(
            hook=hook, server_command=python, server_args=["-m", "shitsuji", *db_args, *embedder_args, "mcp"]
        )


def plan(client: Client, commands: Commands, *, project: Path, codex_home: Path) -> list[FileChange]:
    """The changes ``install-hooks`` would make for ``client`` (nothing is written)."""
    if client == "claude-code":
        settings = project / ".claude" / "settings.json"
        servers = project / ".mcp.json"
        return [
            _change(settings, lambda text: _with_hook(text, settings, commands.hook)),
            _change(servers, lambda text: _with_json_server(text, servers, commands)),
        ]
    hooks = codex_home / "hooks.json"
    config = codex_home / "config.toml"
    return [
        _change(hooks, lambda text: _with_hook(text, hooks, commands.hook)),
        _change(config, lambda text: _with_toml_server(text, config, commands)),
    ]


def codex_home() -> Path:
    return Path(os.environ.get("CODEX_HOME") or Path.home() / ".codex").expanduser()


def _change(path: Path, merge: Callable[[str | None], str]) -> FileChange:
    before = path.read_text(encoding="utf-8") if path.exists() else None
    return FileChange(path, before, merge(before))


def _load_json(text: str | None, path: Path) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise UserInputError(
            f"{path} is not valid JSON ({exc.msg}, line {exc.lineno}): fix it and run again"
        ) from exc
    if not isinstance(data, dict):
        raise UserInputError(f"{path} should hold a JSON object: fix it and run again")
    return data


def _dump_json(data: dict[str, Any]) -> str:
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def _table(data: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    value = data.setdefault(key, {})
    if not isinstance(value, dict):
        raise UserInputError(f'"{key}" in {path} should be an object: fix it and run again')
    return value


def _with_hook(text: str | None, path: Path, command: str) -> str:
    """Add (or update) our command under hooks.UserPromptSubmit, the shape both clients share."""
    data = _load_json(text, path)
    groups = _table(data, "hooks", path).setdefault("UserPromptSubmit", [])
    if not isinstance(groups, list):
        raise UserInputError(f'"hooks.UserPromptSubmit" in {path} should be a list: fix it and run again')
    ours = [
        hook
        for group in groups
        if isinstance(group, dict) and isinstance(group.get("hooks"), list)
        for hook in group["hooks"]
        if isinstance(hook, dict) and _OUR_HOOK.search(str(hook.get("command", "")))
    ]
    if ours and all(hook["command"] == command for hook in ours):
        return text or _dump_json(data)
    for hook in ours:
        hook["command"] = command
    if not ours:
        groups.append({"hooks": [{"type": "command", "command": command}]})
    return _dump_json(data)


def _with_json_server(text: str | None, path: Path, commands: Commands) -> str:
    data = _load_json(text, path)
    servers = _table(data, "mcpServers", path)
    entry = {"type": "stdio", "command": commands.server_command, "args": commands.server_args}
    if servers.get(SERVER_NAME) == entry and text is not None:
        return text
    servers[SERVER_NAME] = entry
    return _dump_json(data)


def _with_toml_server(text: str | None, path: Path, commands: Commands) -> str:
    """Set ``[mcp_servers.shitsuji]``, rewriting only that table's lines."""
    current = text or ""
    try:
        existing = tomllib.loads(current).get("mcp_servers", {}).get(SERVER_NAME)
    except tomllib.TOMLDecodeError as exc:
        raise UserInputError(f"{path} is not valid TOML ({exc}): fix it and run again") from exc
    wanted = {"command": commands.server_command, "args": commands.server_args}
    if existing == wanted:
        return current
    block = (
        f"[mcp_servers.{SERVER_NAME}]\n"
        f"command = {json.dumps(commands.server_command, ensure_ascii=False)}\n"
        f"args = [{', '.join(json.dumps(a, ensure_ascii=False) for a in commands.server_args)}]\n"
    )
    kept = _without_table(current, f"mcp_servers.{SERVER_NAME}") if existing is not None else current
    merged = kept.rstrip("\n") + ("\n\n" if kept.strip() else "") + block
    if tomllib.loads(merged).get("mcp_servers", {}).get(SERVER_NAME) != wanted:
        raise UserInputError(f"could not update {path} safely; add this table by hand:\n{block}")
    return merged


def _without_table(text: str, name: str) -> str:
    """``text`` minus the ``[name]`` table and its sub-tables (header line up to the next header)."""
    header = re.compile(r"^\s*\[\[?\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
    out: list[str] = []
    skipping = False
    for line in text.splitlines(keepends=True):
        found = header.match(line)
        if found:
            key = found.group(1).replace('"', "").replace("'", "").replace(" ", "")
            skipping = key == name or key.startswith(name + ".")
        if not skipping:
            out.append(line)
    return "".join(out)


def summary(changes: Sequence[FileChange]) -> list[dict[str, Any]]:
    return [{"path": str(c.path), "changed": c.changed, "created": c.before is None} for c in changes]
