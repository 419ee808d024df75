"""A table's columns, declared once: the SELECT list, the INSERT, and rows read by name.

A store names its columns in one ``Table`` and maps a row with ``table.named(row)`` (a dict by
column name) and a record with ``table.values(record)`` (in column order), so adding a column is
one edit, not a seventeenth ``row[16]`` and ``?``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    columns: tuple[str, ...]

    @property
    def select(self) -> str:
        """``SELECT <every column> FROM <table>`` (add ``WHERE …`` to it)."""
        return f"SELECT {', '.join(self.columns)} FROM {self.name}"

    def insert(self, *, skip: Sequence[str] = ()) -> str:
        """``INSERT`` of every column but ``skip`` (a key the database gives)."""
        names = [c for c in self.columns if c not in skip]
        return f"INSERT INTO {self.name} ({', '.join(names)}) VALUES ({', '.join('?' * len(names))})"

    def values(self, record: Mapping[str, Any], *, skip: Sequence[str] = ()) -> tuple[Any, ...]:
        """``record``'s values in the order of ``insert(skip=…)`` (a missing column is an error)."""
        return tuple(record[c] for c in self.columns if c not in skip)

    def named(self, row: Sequence[Any]) -> dict[str, Any]:
        """A row of ``select`` by column name."""
        return dict(zip(self.columns, row, strict=True))
