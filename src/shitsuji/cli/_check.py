"""One line of ``shitsuji doctor``'s report, shared by the doctor and its probes in other modules
(the replica's): a probe module imports this, never the command's module, so no two import each other."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Status = Literal["ok", "warn", "fail"]

#: How long a probe waits for a server to answer before it says so.
TIMEOUT_S = 5.0


@dataclass(frozen=True, slots=True)
class Check:
    name: str
    status: Status
    detail: str
    fix: str = ""
