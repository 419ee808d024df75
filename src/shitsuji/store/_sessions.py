"""What every pooled connection of the app is set to, the primary's pool (``_database``) and the read
replica's (``_replica``) alike: one function configures both, so a read served by the replica is planned
as the same read on the primary (before, the replica's sessions kept PostgreSQL's ``auto``)."""

from __future__ import annotations

from typing import Any

#: ``plan_cache_mode`` of the app's sessions: a statement psycopg has prepared (its fifth use on a
#: connection) is planned once, for any values, instead of again at each of its next five uses before
#: PostgreSQL's ``auto`` settles on the generic plan it then keeps — every statement of a chat turn and
#: recall's two did (``pg_prepared_statements``: 5 custom plans each, then generic only), on each pooled
#: connection anew (docs/benchmarks.md, issue 25 pg25f, gp26). What plans better with its values says so
#: itself, as a function's own setting: every PL/pgSQL function of ours, where recall's SQL runs, plans as
#: before (``SET plan_cache_mode = auto``, migration ``0024_gp26_function_plans``; ``memory_bm25``
#: custom-plans each call). The statements outside them that search (the rows of recall's candidates, the
#: searches before a memory is superseded) got the same plans, pages and times either way at 200k memories.
PLAN_CACHE_MODE = "force_generic_plan"


def configure_session(conn: Any) -> None:
    """A new pooled connection's settings (the pools' ``configure``)."""
    conn.execute(f"SET plan_cache_mode = {PLAN_CACHE_MODE}")  # a constant of ours
