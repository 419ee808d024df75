"""Recurring to-dos and private events and to-dos in the scheduler, on both engines: the digest lists
today's garbage days (even when last week's was never ticked), a timed one is reminded, and a
private event or to-do is reminded to its owner only."""

from __future__ import annotations

from shitsuji.household import Recurrence
from shitsuji.schedule import Notifications

from .schedule_support import HUSBAND, WIFE, household


def test_the_digest_lists_todays_garbage_days_in_their_own_section(target: str) -> None:
    with household(target, start="2026-11-29T21:00:00+00:00") as home:  # Mon 11/30 06:00 in Tokyo
        for member in ("wife", "husband"):
            home.settings(member, digest=True, digest_at="07:00")
        rule = Recurrence.weekly(["mon", "thu"])
        burnable = home.store.add_todo("futari", "燃えるゴミ", "2026-11-23", by="wife", repeat=rule)
        assert burnable.due == "2026-11-23"  # last week's, never ticked
        home.store.add_todo(
            "futari", "資源ごみ", by="wife", repeat=Recurrence.monthly_weekday([2, 4], ["wed"])
        )
        home.store.add_todo("futari", "へそくりの記帳", by="husband", private=True, repeat=rule)
        home.run("2026-11-29T22:10:00+00:00", step_minutes=10)
        digests = {p.to: p.texts()[0] for p in home.fake.of("push")}
        wife, husband = digests[WIFE], digests[HUSBAND]
        assert "🗑 今日のゴミの日・くり返しのやること\n・燃えるゴミ" in wife
        assert "資源ごみ" not in wife  # not its day
        assert "へそくり" not in wife and "・へそくりの記帳" in husband
        assert "期限の来たやること" not in wife  # a missed garbage day does not pile up
        moved, _ = home.store.complete_todo("futari", burnable.id, by="wife")
        assert moved.due == "2026-12-03"


def test_a_timed_recurring_todo_is_reminded_each_time(target: str) -> None:
    with household(target, start="2026-11-29T21:00:00+00:00") as home:
        home.settings("wife", reminders=True, lead_minutes=15)
        home.store.add_todo(
            "futari", "ゴミ出し", "2026-11-30T07:45", by="wife", repeat=Recurrence.weekly(["mon", "tue"])
        )
        pushed = home.run("2026-12-01T00:00:00+00:00", step_minutes=15)
        # 07:30 in Tokyo on Monday and on Tuesday (Monday's never ticked: Tuesday's still comes)
        assert pushed == [("22:30", "🔁 11/30 07:45 ゴミ出し"), ("22:30", "🔁 12/1 07:45 ゴミ出し")]


def test_a_private_event_or_todo_is_reminded_to_its_owner_only(target: str) -> None:
    with household(target, start="2026-12-01T00:00:00+00:00") as home:  # 09:00 in Tokyo
        for member in ("wife", "husband"):
            home.settings(member, reminders=True, lead_minutes=10)
        home.store.add_event("futari", "指輪を受け取る", "2026-12-01T10:00", by="husband", private=True)
        home.store.add_todo("futari", "花を予約", "2026-12-01T10:30", by="husband", private=True)
        home.store.add_event("futari", "歯医者", "2026-12-01T11:00", by="wife")
        home.run("2026-12-01T02:30:00+00:00", step_minutes=5)
        to = sorted((p.to, p.texts()[0]) for p in home.fake.of("push"))
        assert to == sorted(
            [
                (HUSBAND, "⏰ 12/1 10:00 指輪を受け取る"),
                (HUSBAND, "✅ 期限 12/1 10:30: 花を予約"),
                (HUSBAND, "⏰ 12/1 11:00 歯医者"),
                (WIFE, "⏰ 12/1 11:00 歯医者"),
            ]
        )
        assert [n.text for n in Notifications(home.db).of_member("futari", "wife")] == [
            "⏰ 12/1 11:00 歯医者"
        ]


def test_the_digests_routine_section_in_both_languages() -> None:
    from datetime import date

    from shitsuji.schedule._words import digest_text

    pairs = {"events": [], "due": [], "ahead": [], "shopping": [], "folded": []}
    routine = [("2026-11-30", "燃えるゴミ"), ("2026-11-30T07:45", "Recycling")]
    en = digest_text(date(2026, 11, 30), "en", routine=routine, **pairs)
    assert "🗑 Today's garbage days and routines\n・燃えるゴミ\n・07:45 Recycling" in en
    ja = digest_text(date(2026, 11, 30), "ja", routine=routine, **pairs)
    assert "🗑 今日のゴミの日・くり返しのやること\n・燃えるゴミ\n・07:45 Recycling" in ja
    assert "今日の予定ややることはありません" not in ja
