"""The app's PostgreSQL sessions plan a chat turn's statements once, generic; recall's SQL is still
planned with each call's values (issue 25, gp26).

A turn's statements are prepared by psycopg at their fifth use on a connection; PostgreSQL's ``auto``
then planned each of them again for its next five uses (``custom_plans`` 5 per statement and pooled
connection, read back below) before keeping the generic plan it settled on. The sessions' own
``plan_cache_mode = force_generic_plan`` (``store._sessions.PLAN_CACHE_MODE``) plans it once. The
SQL inside our PL/pgSQL functions keeps ``auto`` (migration ``0024_gp26_function_plans``): read back
from the catalog, and from the plans the server prints while recall's function runs.
"""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from shitsuji.llm import ScriptedModel, text_response
from shitsuji.memory import open_store
from shitsuji.memory._pg_function_plans import FUNCTION_PLAN_SETTING
from shitsuji.store import database
from shitsuji.store._database import _pool
from shitsuji.store._sessions import PLAN_CACHE_MODE

from .web_support import HOME, PASSWORD, make_site

TURNS = 12  # more than psycopg's five uses before it prepares, and auto's five custom plans after
GENERIC_PARAM = "{PARAM :paramkind 0"  # a parameter left in a plan tree: planned for any value


def _idle_connections(url: str) -> list[Any]:
    """Every connection the pool holds idle (a turn's statements ran on any of them)."""
    pool = _pool(url)
    return [pool.getconn(timeout=10) for _ in range(pool.get_stats()["pool_available"])]


def test_a_chat_turns_prepared_statements_are_planned_generic_from_their_first_execution(pg_url: str) -> None:
    site = make_site(pg_url, ScriptedModel(lambda request: text_response("かしこまりました")))
    try:
        client = TestClient(site.app)
        signed = client.post("/api/session", json={"user": "wife", "password": PASSWORD, "household": HOME})
        csrf = signed.json()["csrf"]
        for n in range(TURNS):
            response = client.post(
                "/api/chat", json={"message": f"牛乳を買ったよ {n}"}, headers={"X-CSRF-Token": csrf}
            )
            assert response.status_code == 200, response.text
        pool = _pool(pg_url)
        connections = _idle_connections(pg_url)
        try:
            prepared = []
            for conn in connections:
                assert conn.execute("SHOW plan_cache_mode", prepare=False).fetchone()[0] == PLAN_CACHE_MODE
                prepared += conn.execute(
                    "SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements", prepare=False
                ).fetchall()
        finally:
            for conn in connections:
                pool.putconn(conn)
        assert len(prepared) >= 5, prepared  # the turn's statements, used more than five times each
        assert all(custom == 0 and generic >= 1 for _, generic, custom in prepared), prepared
    finally:
        site.close()


def test_every_plpgsql_function_of_ours_plans_its_sql_under_auto_or_its_own_setting(pg_url: str) -> None:
    open_store(pg_url).close()
    rows = (
        database(pg_url)
        .execute(
            "SELECT p.proname, p.proconfig FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang "
            "WHERE l.lanname = 'plpgsql' AND p.pronamespace = current_schema()::regnamespace"
        )
        .fetchall()
    )
    settings = {name: [c for c in config or [] if c.startswith("plan_cache_mode=")] for name, config in rows}
    assert settings["memory_recall_candidates"] == [FUNCTION_PLAN_SETTING], settings
    assert settings["memory_bm25"] == ["plan_cache_mode=force_custom_plan"], settings
    assert all(len(found) == 1 for found in settings.values()), settings


def test_recalls_sql_is_planned_with_the_calls_values_in_a_generic_session(pg_url: str) -> None:
    open_store(pg_url).close()
    printed: list[str] = []
    with database(pg_url).connection() as conn:
        conn.add_notice_handler(lambda notice: printed.append(notice.message_detail or ""))
        conn.execute("SET client_min_messages = log")
        conn.execute("SET debug_print_plan = on")
        conn.execute("SET debug_pretty_print = off")
        try:
            for _ in range(2):  # the second call: PL/pgSQL's expressions are planned at the first
                printed.clear()
                conn.execute(
                    "SELECT * FROM memory_recall_candidates(%s::text[], %s::text[], NULL::vector, NULL, 'm', %s, 1.2, 0.75)",
                    (["s"], ["milk", "牛乳"], 10),
                    prepare=False,
                ).fetchall()
        finally:
            conn.execute("RESET debug_print_plan")
            conn.execute("RESET client_min_messages")
            conn.execute("RESET debug_pretty_print")
    plans = [text for text in printed if text.startswith("{PLANNEDSTMT")]
    # the call itself is planned generic (the session's setting); the function's query for its values
    assert len(plans) >= 2 and GENERIC_PARAM in plans[0], plans
    assert any(GENERIC_PARAM not in text for text in plans[1:]), plans
