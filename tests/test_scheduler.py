"""The scheduler with a controllable clock, on both engines: reminders and digests go out once per
(member, reminder, occurrence) whatever the workers, the downtime or the daylight-saving change."""

from __future__ import annotations

import asyncio
import threading

from shitsuji.schedule import Budget, Notifications, Occurrence, Scheduler

from .schedule_support import HUSBAND, WIFE, household


def test_a_reminder_reaches_each_opted_in_member_once_at_its_time(target: str) -> None:
    with household(target, start="2026-12-01T00:00:00+00:00") as home:  # 09:00 in Tokyo
        home.settings("wife", reminders=True, lead_minutes=30)
        home.settings("husband", reminders=True, lead_minutes=10)
        home.store.add_event("futari", "歯医者", "2026-12-01T10:00", by="wife")
        home.store.add_todo("futari", "ゴミ出し", "2026-12-01T09:45", by="husband")
        pushed = home.run("2026-12-01T01:30:00+00:00", step_minutes=5)
        by_time = sorted((at, text) for at, text in pushed)
        assert by_time == [
            ("00:15", "✅ 期限 12/1 09:45: ゴミ出し"),
            ("00:30", "⏰ 12/1 10:00 歯医者"),
            ("00:35", "✅ 期限 12/1 09:45: ゴミ出し"),
            ("00:50", "⏰ 12/1 10:00 歯医者"),
        ]
        to = sorted((p.to, p.texts()[0][:1]) for p in home.fake.of("push"))
        assert to == sorted([(WIFE, "✅"), (WIFE, "⏰"), (HUSBAND, "✅"), (HUSBAND, "⏰")])
        assert home.run("2026-12-01T03:00:00+00:00", step_minutes=7) == []  # nothing again


def test_two_workers_deliver_each_reminder_once(target: str) -> None:
    with household(target, start="2026-12-01T00:00:00+00:00") as home:
        for member in ("wife", "husband"):
            home.settings(member, reminders=True, lead_minutes=0)
        for n in range(30):
            home.store.add_event("futari", f"予定{n}", f"2026-12-01T09:{n + 10:02d}", by="wife")
        workers = [home.scheduler(), home.scheduler()]
        barrier = threading.Barrier(2, timeout=60)

        def work(scheduler: Scheduler) -> None:
            for _ in range(45):
                barrier.wait()
                if threading.current_thread().name.endswith("0"):
                    home.clock.advance(minutes=1)
                barrier.wait()
                asyncio.run(scheduler.tick())

        threads = [threading.Thread(target=work, args=(w,), name=f"w{i}") for i, w in enumerate(workers)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        keys = [p.retry_key for p in home.fake.of("push")]
        assert len(keys) == 60 and len(set(keys)) == 60  # 30 events x 2 members, none twice
        assert set(home.statuses().values()) == {"sent"}


def test_daylight_saving_in_new_york(target: str) -> None:
    # 2026-03-08: at 02:00 EST clocks jump to 03:00 EDT (07:00 UTC)
    with household(target, start="2026-03-08T05:00:00+00:00", zone="America/New_York") as home:
        home.settings("wife", reminders=True, lead_minutes=0, digest=True, digest_at="07:30")
        home.store.add_event("futari", "never-existing time", "2026-03-08T02:30", by="wife")
        home.store.add_event("futari", "breakfast", "2026-03-08T09:00", by="wife")
        pushed = home.run("2026-03-08T14:00:00+00:00", step_minutes=5)
        times = {text.splitlines()[0]: at for at, text in pushed}
        assert times["⏰ 3/8 02:30 never-existing time"] == "07:00"  # sent as the clock jumps
        assert times["⏰ 3/8 09:00 breakfast"] == "13:00"  # 09:00 EDT, not 09:00 EST (14:00 UTC)
        assert [at for at, text in pushed if "おはよう" in text] == ["11:30"]  # 07:30 EDT
        assert len(pushed) == 3


def test_the_repeated_hour_when_clocks_fall_back(target: str) -> None:
    # 2026-11-01: at 02:00 EDT clocks go back to 01:00 EST; 01:30 happens twice (05:30 and 06:30 UTC)
    with household(target, start="2026-11-01T04:00:00+00:00", zone="America/New_York") as home:
        home.settings("husband", reminders=True, lead_minutes=0)
        home.store.add_event("futari", "twice-seen time", "2026-11-01T01:30", by="wife")
        pushed = home.run("2026-11-01T08:00:00+00:00", step_minutes=5)
        assert pushed == [("05:30", "⏰ 11/1 01:30 twice-seen time")]  # the first 01:30, once


def test_quiet_hours_hold_the_push_and_the_web_list_has_it_at_once(target: str) -> None:
    with household(target, start="2026-12-01T21:00:00+00:00") as home:  # 06:00 in Tokyo
        home.settings("wife", reminders=True, lead_minutes=30, quiet=("22:00", "07:00"))
        home.store.add_event("futari", "早朝ジョギング", "2026-12-02T06:45", by="wife")
        pushed = home.run("2026-12-01T22:30:00+00:00", step_minutes=5)
        assert pushed == [("22:00", "⏰ 12/2 06:45 早朝ジョギング")]  # held from 06:15 to 07:00 JST
        listed = Notifications(home.db).of_member("futari", "wife")
        assert [n.text for n in listed] == ["⏰ 12/2 06:45 早朝ジョギング"]
        assert Notifications(home.db).of_member("futari", "husband") == []


def test_after_downtime_late_reminders_are_marked_and_stale_ones_dropped(target: str) -> None:
    with household(target, start="2026-12-01T23:00:00+00:00") as home:  # 08:00 in Tokyo
        home.settings("wife", reminders=True, lead_minutes=30, digest=True, digest_at="09:00")
        home.settings("husband", digest=True, digest_at="07:30")  # before the outage began: not due
        home.store.add_event("futari", "会議", "2026-12-02T09:00", by="wife")  # fire 08:30: over by 11:40
        home.store.add_event("futari", "ランチ", "2026-12-02T12:00", by="wife")  # fire 11:30
        home.store.add_shopping_item("futari", "牛乳", 2, by="wife")
        home.clock.set("2026-12-02T02:40:00+00:00")  # the worker was down until 11:40 JST
        home.tick()
        texts = sorted(p.texts()[0] for p in home.fake.of("push"))
        assert len(texts) == 2
        digest, lunch = texts[1], texts[0]
        assert lunch.startswith("⏰ 12/2 12:00 ランチ") and "遅れてのお知らせ" in lunch and "11:30" in lunch
        assert "会議" in digest and "牛乳 ×2" in digest and "本来 12/2 09:00" in digest  # 2 h 40 late: sent
        assert "dropped" in home.statuses().values()  # the meeting's reminder: it has begun
        home.clock.set("2026-12-03T04:00:00+00:00")  # down again past 09:00 + 3 h: that digest is dropped
        home.tick()
        assert len(home.fake.of("push")) == 2
        assert [s for k, s in home.statuses().items() if k.endswith("2026-12-03")] == ["dropped", "dropped"]


def test_the_push_budget_folds_reminders_into_the_digest(target: str) -> None:
    with household(target, start="2026-12-01T00:00:00+00:00") as home:
        home.settings("wife", reminders=True, lead_minutes=0, digest=True, digest_at="07:00")
        for n in range(6):
            home.store.add_event("futari", f"用事{n}", f"2026-12-01T1{n}:00", by="wife")
        pushed = home.run("2026-12-01T22:10:00+00:00", step_minutes=10, budget=Budget(6, fold_below=2))
        reminders = [text for _, text in pushed if text.startswith("⏰")]
        assert reminders == [
            "⏰ 12/1 10:00 用事0",
            "⏰ 12/1 11:00 用事1",
            "⏰ 12/1 12:00 用事2",
            "⏰ 12/1 13:00 用事3",
        ]
        digest = [text for _, text in pushed if "おはよう" in text]
        assert len(digest) == 1 and "用事4" in digest[0] and "用事5" in digest[0]
        status = Notifications(home.db).status(home.clock.now(), Budget(6, fold_below=2))
        assert status["pushes_used"] == 5 and status["deliveries"]["digested"] == 2
        listed = [n.status for n in Notifications(home.db).of_member("futari", "wife")]
        assert listed.count("digested") == 2  # still in the web app's list


class _PrivateNotes:
    """A source of private things (the extension point: anniversaries plug in the same way)."""

    name, ahead_days = "note", 0

    def occurrences(self, db, zone, after, until, *, created_after=None, household=None):  # type: ignore[no-untyped-def]
        at = "2026-12-01T10:00"
        if created_after is None and after < at <= until and zone == "Asia/Tokyo":
            return [Occurrence("futari", self.name, "n_1", "指輪を受け取る", at, owner="husband")]
        return []


def test_a_private_thing_is_reminded_only_to_its_owner(target: str) -> None:
    with household(target, start="2026-12-01T00:00:00+00:00") as home:
        for member in ("wife", "husband"):
            home.settings(member, reminders=True, lead_minutes=15)
        scheduler = home.scheduler(sources=(_PrivateNotes(),))
        for _ in range(12):
            home.clock.advance(minutes=5)
            home.tick(scheduler)
        assert [(p.to, p.texts()) for p in home.fake.of("push")] == [
            (HUSBAND, ["🔔 12/1 10:00 指輪を受け取る"])
        ]
        assert Notifications(home.db).of_member("futari", "wife") == []
