"""JSONL export and import: a lossless round-trip of memory rows.

``export`` writes one JSON object per line in the shape of ``Memory.to_json``;
``import`` accepts that shape or a minimal ``{"content", "scope"}`` line. The whole file
is validated before anything is written, so a malformed line imports nothing and the
error names its line number.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TextIO

from ..errors import ImportFileError, UserInputError
from ._engine import MemoryEngine, NewMemory, Progress
from ._records import (
    SURROGATE,
    Memory,
    check_category,
    check_content,
    check_importance,
    check_keys,
    check_source,
)
from ._scopes import normalize_scope


@dataclass(frozen=True, slots=True)
class ImportReport:
    read: int
    added: int
    duplicates: int
    indexed: int
    #: a large scope's vector graph (PostgreSQL) is built after the import, in the background: until then
    #: its searches compare every vector (exact, slower)
    graph_pending: bool = False


def export_lines(memories: Iterable[Memory]) -> Iterator[str]:
    for memory in memories:
        yield json.dumps(memory.to_json(), ensure_ascii=False)


def parse_lines(lines: Iterable[str]) -> list[NewMemory]:
    """Validate every line; raise ``ImportFileError`` naming the first bad one.

    Lines read with ``errors="surrogateescape"`` carry bytes that are not UTF-8 as lone
    surrogates; those, and ``\\udXXX`` escapes that decode to one, are refused here.
    """
    items: list[NewMemory] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            if (bad := SURROGATE.search(line)) is not None:
                raise UserInputError(f"byte {bad.start() + 1} is not UTF-8 text (is this a JSONL file?)")
            item = json.loads(line)
            json.dumps(item, ensure_ascii=False).encode(
                "utf-8"
            )  # a "\ud800" escape decodes to a lone surrogate
            items.append(_parse(item))
        except json.JSONDecodeError as exc:
            raise _line_error(number, f"not valid JSON ({exc.msg})") from exc
        except RecursionError:
            raise _line_error(number, "the JSON is nested too deeply") from None
        except UnicodeEncodeError:
            raise _line_error(
                number, "a \\udXXX escape stands for half a character (a lone surrogate)"
            ) from None
        except (UserInputError, TypeError, ValueError) as exc:
            raise _line_error(number, str(exc)) from exc
    return items


def _line_error(number: int, problem: str) -> ImportFileError:
    return ImportFileError(
        f"line {number}: {problem}; nothing was imported — fix the line and run again",
        line=number,
        imported=0,
    )


def import_file(
    engine: MemoryEngine, handle: TextIO, *, index: bool = True, progress: Progress | None = None
) -> ImportReport:
    return import_items(engine, parse_lines(handle), index=index, progress=progress)


def import_items(
    engine: MemoryEngine, items: list[NewMemory], *, index: bool = True, progress: Progress | None = None
) -> ImportReport:
    """Store lines already checked by ``parse_lines`` (exact duplicates skipped), then embed them."""
    # one bulk load: the vector graph built once, at the end; the rows' term counts folded there
    with engine.store.bulk():
        added, duplicates = engine.add_many(items)
        indexed = engine.index_pending(progress=progress) if index else 0
    pending = bool(getattr(engine.store, "graphs_pending", lambda: False)())
    return ImportReport(
        read=len(items), added=added, duplicates=duplicates, indexed=indexed, graph_pending=pending
    )


def _parse(obj: Any) -> NewMemory:
    if not isinstance(obj, dict):
        raise UserInputError("expected a JSON object with at least 'content' and 'scope'")
    for key in ("content", "scope"):
        if not isinstance(obj.get(key), str):
            raise UserInputError(f"'{key}' is missing or not a string")
    provenance = obj.get("provenance") or {}
    if not isinstance(provenance, dict):
        provenance = {"ref": provenance}
    importance = obj.get("importance", 0.5)
    if not isinstance(importance, int | float) or isinstance(importance, bool):
        raise UserInputError(f"'importance' must be a number from 0 to 1, got {importance!r}")
    memory_id = obj.get("id")
    return NewMemory(
        content=check_content(obj["content"]),
        scope=normalize_scope(obj["scope"]),
        category=check_category(str(obj.get("category") or "misc")),
        importance=check_importance(float(importance)),
        source=check_source(str(obj.get("source") or "imported")),
        provenance=provenance,
        created_at=_time(obj.get("created_at"), "created_at"),
        valid_until=_time(obj.get("valid_until"), "valid_until"),
        id=memory_id if isinstance(memory_id, str) and memory_id else None,
        context=obj["context"] if isinstance(obj.get("context"), str) and obj["context"] else None,
        keys=(keys := check_keys(obj.get("keys"))),
        keys_by=str(obj.get("keys_by") or "imported") if keys else None,
    )


def _time(value: Any, name: str) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise UserInputError(f"'{name}' must be an ISO 8601 date-time string")
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError as exc:
        raise UserInputError(f"'{name}' is not an ISO 8601 date-time: {value!r}") from exc
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)
