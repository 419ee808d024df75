"""Our PL/pgSQL functions plan their SQL as they did before the app's sessions made generic plans.

Why: the app's PostgreSQL sessions run with ``plan_cache_mode = force_generic_plan``
(``store._sessions.PLAN_CACHE_MODE``): a chat turn's statements, prepared by psycopg, are planned
once instead of at each of their first uses on every pooled connection. That setting would reach
the SQL inside our functions too — recall's (``memory_recall_candidates``: the keyword list joined
to its memories, the graph scopes, the final ``LIMIT n``) and the writes' triggers — whose plans
were chosen under ``auto`` (custom for a call's values first, generic once it is no worse) and
measured at scale that way. A function's own ``SET`` wins over the session's while it runs, so
each of them says ``plan_cache_mode = auto`` and plans as before; a function that chose its own
setting keeps it (``memory_bm25`` plans each call's terms: ``force_custom_plan``). The SQL that
recall builds with ``EXECUTE ... USING`` (the vector searches) is planned for its values whatever
the setting: PostgreSQL plans such a statement once, for its call.

Migration ``0024_gp26_function_plans`` (PostgreSQL only) sets it on every PL/pgSQL function of ours
that has none (SQL-language functions run inside their PL/pgSQL callers, under theirs). A function
replaced later (``CREATE OR REPLACE``) loses its ``SET`` unless its text says it again:
``tests/test_pg_generic_plans.py`` reads every function's setting back.
"""

from __future__ import annotations

from typing import Final

#: The setting each of our PL/pgSQL functions runs its SQL under (``proconfig``).
FUNCTION_PLAN_SETTING: Final = "plan_cache_mode=auto"

#: Migration text (PostgreSQL only): ``SET plan_cache_mode = auto`` on each PL/pgSQL function of this
#: schema that belongs to no extension and has no plan cache setting of its own.
POSTGRES_FUNCTION_PLANS: Final = r"""
    DO $$
    DECLARE
        f regprocedure;
    BEGIN
        FOR f IN
            SELECT p.oid::regprocedure FROM pg_proc p
            JOIN pg_language l ON l.oid = p.prolang AND l.lanname = 'plpgsql'
            WHERE p.pronamespace = current_schema()::regnamespace
              AND NOT EXISTS (SELECT 1 FROM pg_depend d WHERE d.classid = 'pg_proc'::regclass
                              AND d.objid = p.oid AND d.deptype = 'e')
              AND NOT EXISTS (SELECT 1 FROM unnest(p.proconfig) c WHERE c LIKE 'plan\_cache\_mode=%')
        LOOP
            EXECUTE format('ALTER FUNCTION %s SET plan_cache_mode = auto', f);
        END LOOP;
    END
    $$;
"""
