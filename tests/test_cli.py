"""The CLI end to end, in-process through ``main`` (the same entry point as the script)."""

from __future__ import annotations

from pathlib import Path

import pytest

from .conftest import Cli

WIFE = "household/futari/user/wife"


def test_remember_recall_json(cli: Cli) -> None:
    stored = cli(
        "remember", "紅茶はミルクティーが好き", "--scope", WIFE, "--category", "preference", "--json"
    ).json()
    assert stored["duplicate"] is False and stored["scope"] == WIFE and stored["category"] == "preference"
    again = cli("remember", "紅茶はミルクティーが好き。", "--scope", WIFE, "--json").json()
    assert again["duplicate"] is True and again["id"] == stored["id"]
    hits = cli("recall", "紅茶", "--scope", WIFE, "-k", "3", "--json").json()
    assert isinstance(hits, list) and hits[0]["id"] == stored["id"]
    assert {"id", "content", "scope", "category", "score"} <= hits[0].keys()
    assert cli("recall", "紅茶", "--scope", "household/futari/user/husband", "--json").json() == []


def test_text_output_and_show_forget_restore_purge(cli: Cli) -> None:
    run = cli("remember", "Plays futsal on Thursdays", "--scope", WIFE)
    assert run.code == 0 and "remembered" in run.out
    memory_id = cli("list", "--json").json()[0]["id"]
    assert "Plays futsal" in cli("show", memory_id).out
    assert cli("forget", memory_id, "--json").json()["deleted_at"] is not None
    assert cli("recall", "futsal", "--scope", WIFE, "--json").json() == []
    assert [m["id"] for m in cli("list", "--deleted", "--json").json()] == [memory_id]
    assert cli("restore", memory_id, "--json").json()["deleted_at"] is None
    cli("forget", memory_id)
    assert cli("purge", "--yes", "--json").json() == {"purged": 1}
    assert cli("list", "--json").json() == []


def test_purge_asks_first_and_aborts_on_no(cli: Cli) -> None:
    memory_id = cli("remember", "temp", "--scope", WIFE, "--json").json()["id"]
    cli("forget", memory_id)
    run = cli("purge", stdin="n\n")
    assert run.code == 1
    assert len(cli("list", "--deleted", "--json").json()) == 1


def test_dedupe_command(cli: Cli) -> None:
    cli("remember", "Allergic to shellfish, no shrimp or crab please", "--scope", WIFE)
    found = cli("dedupe", "allergic to shellfish: no shrimp or crab please", "--scope", WIFE, "--json").json()
    assert found["duplicate"] is True and found["similarity"] >= 0.9
    assert cli("dedupe", "loves hiking", "--scope", WIFE, "--json").json() == {"duplicate": False}


def test_export_import_round_trip_loses_nothing(
    cli: Cli, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cli("remember", "妻の母の誕生日は3月14日", "--scope", WIFE, "--category", "event", "--importance", "0.9")
    cli("remember", "ゴミの日は月曜と木曜", "--scope", "household/futari")
    out = tmp_path / "mem.jsonl"
    assert cli("export", "--output", str(out)).code == 0
    original = {m["id"]: m for m in cli("list", "--json").json()}

    monkeypatch.setenv("SHITSUJI_DB", str(tmp_path / "other.db"))
    report = cli("import", str(out), "--json").json()
    assert report == {"read": 2, "added": 2, "duplicates": 0, "indexed": 2, "graph_pending": False}
    copied = {m["id"]: m for m in cli("list", "--json").json()}
    assert copied.keys() == original.keys()
    for memory_id, memory in original.items():
        for key in ("content", "scope", "category", "importance", "source", "provenance", "created_at"):
            assert copied[memory_id][key] == memory[key], key
    assert cli("import", str(out), "--json").json()["duplicates"] == 2  # idempotent


def test_import_minimal_lines_from_stdin(cli: Cli) -> None:
    lines = '{"content": "likes natto", "scope": "a/b"}\n\n{"content": "沖縄出身", "scope": "a/b", "category": "profile"}\n'
    assert cli("import", "-", "--json", stdin=lines).json()["added"] == 2
    assert {m["source"] for m in cli("list", "--json").json()} == {"imported"}


def test_malformed_import_line_names_the_line_and_imports_nothing(cli: Cli, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"content": "ok", "scope": "a"}\n{"content": "no scope"}\n{oops\n', encoding="utf-8")
    run = cli("import", str(bad))
    assert run.code == 1
    assert "line 2" in run.err and "nothing was imported" in run.err
    assert len(run.err.strip().splitlines()) == 1
    assert cli("list", "--json").json() == []


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (("remember", "", "--scope", WIFE), "empty"),
        (("remember", "x", "--scope", ""), "scope"),
        (("recall", "  ", "--scope", WIFE), "empty"),
        (("show", "ffffffffffffffff"), "no memory"),
        (("forget", "ffffffffffffffff"), "no memory"),
        (("--embedder", "nope", "stats"), "unknown embedder"),
        (("import", "/nonexistent/file.jsonl"), "cannot read"),
    ],
)
def test_bad_input_gets_one_clear_line(cli: Cli, args: tuple[str, ...], needle: str) -> None:
    assert cli("remember", "a fact that makes the database", "--scope", WIFE).code == 0
    run = cli(*args)
    assert run.code != 0
    assert needle in run.err
    assert "Traceback" not in run.err


def test_newer_database_is_refused_by_the_cli(cli: Cli, db_path: Path) -> None:
    import sqlite3

    sqlite3.connect(db_path).execute("PRAGMA user_version = 1001")
    run = cli("stats")
    assert run.code == 1 and "upgrade shitsuji" in run.err


def test_reindex_and_stats(cli: Cli) -> None:
    cli("remember", "one", "--scope", WIFE)
    cli("remember", "two", "--scope", "household/futari")
    assert cli("reindex", "--json").json() == {"reindexed": 2, "embedding_model": "hash-256"}
    stats = cli("stats", "--json").json()
    assert stats["memories"] == 2 and stats["indexed"] == 2
    assert stats["by_scope"] == {WIFE: 1, "household/futari": 1}


def test_recall_with_another_embedder_than_the_vectors_warns_and_says_how_to_reindex(cli: Cli) -> None:
    cli("remember", "The boiler is serviced every October", "--scope", WIFE)
    cli("--embedder", "hash", "reindex")
    plain = cli("recall", "boiler service", "--scope", WIFE)  # the same embedder: no warning
    assert "boiler" in plain.out and "warning" not in plain.err
    other = cli("--embedder", "use", "recall", "when is the boiler serviced?", "--scope", WIFE)
    assert other.code == 0
    err = " ".join(other.err.split())
    assert "embedded with another model (1 with hash-256)" in err and "shitsuji reindex" in err
    cli("--embedder", "use", "reindex")
    again = cli("--embedder", "use", "recall", "when is the boiler serviced?", "--scope", WIFE)
    assert "warning" not in again.err and "boiler" in again.out
