"""Live updates: a change counter per household that open event streams wait on."""

from __future__ import annotations

import asyncio
import contextlib
from dataclasses import dataclass, field


@dataclass
class Hub:
    """Change counters per household; streams wait on them for live panel updates."""

    versions: dict[str, int] = field(default_factory=dict)
    _changed: asyncio.Condition | None = None

    def _condition(self) -> asyncio.Condition:
        if self._changed is None:
            self._changed = asyncio.Condition()
        return self._changed

    async def bump(self, household: str) -> None:
        condition = self._condition()
        async with condition:
            self.versions[household] = self.versions.get(household, 0) + 1
            condition.notify_all()

    async def wait(self, household: str, seen: int, timeout: float) -> int:
        condition = self._condition()
        async with condition:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    condition.wait_for(lambda: self.versions.get(household, 0) != seen), timeout
                )
            return self.versions.get(household, 0)
