"""A turn's pick of the member's latest conversation is one probe of an index (issue 25, pt25e).

Every turn's claim picks the member's most recently used conversation in the channel. With the
household compared by ``IS NOT DISTINCT FROM`` (which no index serves) and an index on the owner
alone, PostgreSQL read every conversation of every member of that name in any household and sorted
them (43 ms at 180,000 conversations, a seq scan; docs/benchmarks.md). The plan is read back on both
engines: the pick searches ``conversations_pick`` on owner, household and channel, in its order (no
sort) for a household's member; for a member of none, PostgreSQL sorts that member's conversations.
"""

from __future__ import annotations

import pytest

from shitsuji.agent import Conversations
from shitsuji.store import database


@pytest.mark.parametrize("household", ["futari", None], ids=["household", "none"])
def test_the_pick_is_an_index_probe_in_the_pick_order(target: str, household: str | None) -> None:
    db = database(target)
    conversations = Conversations(db)
    for home in ("futari", "tonari", None):
        for channel in ("app", "line"):
            for _ in range(3):
                conversations.start(home, "wife", channel)
    newest = conversations.start(household, "wife", "app").id
    sql, params = conversations.pick(household, "wife", "app")
    assert db.execute(sql, params).fetchall() == [(newest,)]
    if db.dialect == "sqlite":
        plan = " ".join(str(r[3]) for r in db.execute("EXPLAIN QUERY PLAN " + sql, params).fetchall())
        assert "USING INDEX conversations_pick (owner=? AND household=? AND channel=?)" in plan, plan
        assert "TEMP B-TREE" not in plan, plan  # no sort: the index's order is the pick's
        return
    with db.write() as tx:  # on a few rows a seq scan is cheaper: ask what the plan is when it is not
        tx.execute("SET LOCAL enable_seqscan = off")
        plan = "\n".join(str(r[0]) for r in tx.execute("EXPLAIN " + sql, params).fetchall())
    assert "Index Scan using conversations_pick" in plan and "Filter" not in plan, plan
    assert "(owner = " in plan and "(channel = " in plan, plan  # the three columns in the index condition
    if household is not None:  # ``IS NULL`` does not give PostgreSQL the index's order: that member's
        # conversations in the channel (not every member's of that name) are sorted
        assert "Sort" not in plan, plan


@pytest.mark.parametrize("household", ["futari", None], ids=["household", "none"])
def test_the_sidebar_reads_the_member_s_conversations_in_the_pick_index(
    target: str, household: str | None
) -> None:
    """``recent`` (the web sidebar) filtered the household with ``IS NOT DISTINCT FROM`` like the pick
    before pt25e: no index served it, so PostgreSQL read every conversation of every member of that name."""
    db = database(target)
    conversations = Conversations(db)
    said = []
    for home in ("futari", "tonari", None):
        for channel in ("app", "line"):
            for i in range(3):
                conversation = conversations.start(home, "wife", channel)
                if i:  # one in three has no message: the sidebar leaves it out
                    conversations.add_said(conversation, f"{home} {channel} {i}")
                    if home == household and channel == "app":
                        said.append(conversation.id)
    recent = conversations.recent(household, "wife", "app")
    assert [item["id"] for item in recent] == said[::-1]
    assert [item["first"] for item in recent] == [f"{household} app {i}" for i in (2, 1)]
    sql, params = conversations.recent_query(household, "wife", "app", 10)
    if db.dialect == "sqlite":
        plan = " ".join(str(r[3]) for r in db.execute("EXPLAIN QUERY PLAN " + sql, params).fetchall())
        assert "SEARCH c USING INDEX conversations_pick (owner=? AND household=? AND channel=?)" in plan, plan
        return
    with db.write() as tx:  # on a few rows a seq scan is cheaper: ask what the plan is when it is not
        tx.execute("SET LOCAL enable_seqscan = off")
        plan = "\n".join(str(r[0]) for r in tx.execute("EXPLAIN " + sql, params).fetchall())
    scan = plan.split("Index Scan using conversations_pick on conversations c", 1)
    assert len(scan) == 2, plan
    condition = scan[1].split("->", 1)[0]  # the conversations' scan up to the next node
    assert "(owner = " in condition and "(channel = " in condition and "Filter" not in condition, plan
