"""``hook prompt`` end to end: payload in, context out, touching nothing but the database.

It recalls by meaning through the mapped model and vector snapshot (see ``_context``), by
words when that cannot run, and never creates a database: before the first memory is
saved there is simply nothing to say.
"""

from __future__ import annotations

from datetime import UTC, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING

from .._open import open_memory
from ..errors import UserInputError
from ..memory import MemoryEngine
from ..memory._project import project_scope
from ..store import is_postgres
from ._context import DEFAULT_BUDGET, DEFAULT_K, format_context, hook_output, relevant_hits
from ._payload import PromptEvent, parse_payload

if TYPE_CHECKING:
    from ._second import SecondOpinion

MIN_BUDGET = 200
_BLAS_SET_THREADS = (
    "scipy_openblas_set_num_threads64_",
    "openblas_set_num_threads64_",
    "openblas_set_num_threads",
)


def one_blas_thread() -> None:
    """Keep numpy's OpenBLAS on one thread in this one-shot process.

    One prompt's matrix products are small; with its default of a thread per core,
    OpenBLAS spins up and waits on workers, which on a busy 2-core machine cost the hook
    ~80-150 ms per prompt (measured side by side, docs/benchmarks.md). The environment
    variable would come too late (numpy is loaded with the package), so the library's own
    setter is called; where it cannot be found, nothing changes.
    """
    import ctypes

    import numpy

    for path in (Path(numpy.__file__).parent.parent / "numpy.libs").glob("*openblas*"):
        try:
            library = ctypes.CDLL(str(path))
        except OSError:
            continue
        for name in _BLAS_SET_THREADS:
            setter = getattr(library, name, None)
            if setter is not None:
                setter(1)
                return


def answer_prompt(
    payload: str,
    db: str | Path,
    *,
    embedder: str | None = None,
    k: int = DEFAULT_K,
    budget: int = DEFAULT_BUDGET,
    plain: bool = False,
    zone: tzinfo = UTC,
) -> str:
    """What the hook prints for this payload: hook JSON (or plain text), or "" when nothing is relevant.
    ``zone``: the user's time zone (``Settings.time_zone``), in which a prompt's "yesterday" is read."""
    check_limits(k, budget)
    event = parse_payload(payload)
    if not is_postgres(db) and not Path(db).exists():
        return ""
    engine = open_memory(db, embedder)
    try:
        return answer_event(engine, event, k=k, budget=budget, plain=plain, zone=zone)
    finally:
        engine.store.close()


def check_limits(k: int, budget: int) -> None:
    if k < 1:
        raise UserInputError(f"k must be at least 1, got {k}")
    if budget < MIN_BUDGET:
        raise UserInputError(f"budget must be at least {MIN_BUDGET} characters, got {budget}")


def answer_event(
    engine: MemoryEngine,
    event: PromptEvent,
    *,
    k: int = DEFAULT_K,
    budget: int = DEFAULT_BUDGET,
    plain: bool = False,
    second: SecondOpinion | None = None,
    zone: tzinfo = UTC,
) -> str:
    """The answer for one prompt from an open engine (the hook's own, or the hook server's)."""
    scope = project_scope(event.cwd)
    hits = relevant_hits(engine, event.prompt, scope, k=k, second=second, zone=zone)
    context = format_context(hits, scope, budget=budget)
    return context if plain else hook_output(context, event.event)
