"""The LINE worker's and the scheduler's event loops never wait on the database (issue 19): every
statement the LINE worker runs while answering events — the inbox's claims and answers, links,
language, reset codes, a turn and a card's approval — and every one the scheduler runs while planning
and pushing reminders runs in a worker thread, never on the loop.

The worker here shares the web app's loop (``run_worker`` without its own thread, as the loop of
``shitsuji worker`` runs it alone), so a statement on its loop would hold up the webhook too. The
watch is SQLite's statement trace (``LoopWatch`` of the web test) on both files: the household
database and the inbox beside it.
"""

from __future__ import annotations

from pathlib import Path

from shitsuji.line._schema import inbox_path
from shitsuji.llm import tool_use_response
from shitsuji.store import SQLiteDatabase, database

from .line_support import HUSBAND, WIFE, event, line_site
from .schedule_support import household
from .test_web_loop_database import LoopWatch


def _watch(path: str) -> LoopWatch:
    db = database(path)
    assert isinstance(db, SQLiteDatabase)
    return LoopWatch(db)


def test_answering_line_events_never_runs_a_statement_on_the_loop(tmp_path: Path) -> None:
    db = str(tmp_path / "line.db")
    with line_site(db) as site:
        watches = [_watch(db), _watch(inbox_path(db))]
        try:
            site.post(event("follow", WIFE, reply_token=site.fake.reply_token(WIFE)))
            code = site.line.links.new_code("futari", "wife")
            site.say(WIFE, code)  # linked through LINE: the code redeemed, the link audited
            site.settled()
            site.link(HUSBAND, "husband")
            site.say(WIFE, "パスワードを忘れた")  # a reset code
            site.say(HUSBAND, "hello, what is on the list?")  # the language switched, a plain turn
            site.settled()
            site.script.then(
                tool_use_response(
                    ("toolu_m", "add_expense", {"amount": 3000, "category": "食費", "note": "スーパー"})
                )
            )
            site.say(WIFE, "スーパーで3000円使った、記録して")
            site.settled()
            [card] = site.backend.butler.proposals.list(household="futari", status="pending")
            tap = event("postback", WIFE, reply_token=site.fake.reply_token(WIFE))
            [buttons] = [
                {a["label"]: a["data"] for a in m["template"]["actions"]}
                for sent in site.fake.answers_to(WIFE)
                for m in sent.messages
                if m["type"] == "template"
            ]
            approve = buttons["承認"]
            assert card.id in approve
            site.post({**tap, "postback": {"data": approve}})
            site.settled()
            assert [e.amount_yen for e in site.backend.store.expenses("futari")] == [3000]
            assert any("再設定" in a or "コード" in a for a in site.answers(WIFE))
        finally:
            for watch in watches:
                watch.close()
    assert [s for w in watches for s in w.on_loop] == []


def test_pushing_reminders_never_runs_a_statement_on_the_schedulers_loop(tmp_path: Path) -> None:
    with household(str(tmp_path / "remind.db"), start="2026-12-01T00:00:00+00:00") as home:
        home.settings("wife", reminders=True, lead_minutes=30)
        home.store.add_event("futari", "歯医者", "2026-12-01T10:00", by="wife")
        scheduler = home.scheduler()
        assert isinstance(scheduler.db, SQLiteDatabase)
        watch = LoopWatch(scheduler.db)
        try:
            for _ in range(6):  # an hour, ten minutes a round: planned, claimed, pushed, settled
                home.clock.advance(minutes=10)
                home.tick(scheduler)
        finally:
            watch.close()
        assert [p.texts()[0] for p in home.fake.of("push")] == ["⏰ 12/1 10:00 歯医者"]
    assert watch.on_loop == []
