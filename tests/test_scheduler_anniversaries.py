"""Anniversaries as a scheduler source, on both engines: a reminder some days ahead at the member's
digest time (opt-in), a private one only to its owner, and the morning digest listing them."""

from __future__ import annotations

from shitsuji.household import AnniversaryStore
from shitsuji.schedule import Notifications

from .schedule_support import HUSBAND, WIFE, household


def test_an_anniversary_is_reminded_days_ahead_and_a_private_one_only_to_its_owner(target: str) -> None:
    with household(target, start="2026-11-30T20:00:00+00:00") as home:  # 12/1 05:00 in Tokyo
        home.settings("wife", reminders=True, anniversary_days=3, digest_at="08:00")
        home.settings("husband", reminders=True, anniversary_days=2, digest_at="07:00")
        book = AnniversaryStore(home.db, clock=home.clock.now)
        book.add("futari", "結婚記念日", "2020-12-04", by="wife")
        book.add("futari", "妻の誕生日サプライズ", "1990-12-03", by="husband", private=True)
        pushed = home.run("2026-12-01T00:00:00+00:00", step_minutes=10)
        assert sorted(pushed) == [
            ("22:00", "🎉 12/3は妻の誕生日サプライズ"),  # husband: 12/1 07:00 JST, two days ahead
            ("23:00", "🎉 12/4は結婚記念日"),  # wife: 12/1 08:00 JST, three days ahead
        ]
        assert [p.to for p in home.fake.of("push")] == [HUSBAND, WIFE]
        assert [n.text for n in Notifications(home.db).of_member("futari", "wife")] == ["🎉 12/4は結婚記念日"]
        assert home.run("2026-12-02T23:00:00+00:00", step_minutes=30) == [
            ("22:00", "🎉 12/4は結婚記念日")  # 12/2 07:00: the husband's two days ahead; nothing twice
        ]


def test_no_anniversary_reminder_without_reminders_or_with_zero_days(target: str) -> None:
    with household(target, start="2026-11-30T20:00:00+00:00") as home:
        home.settings("wife", reminders=False, digest=False)
        home.settings("husband", reminders=True, anniversary_days=0)
        AnniversaryStore(home.db, clock=home.clock.now).add("futari", "結婚記念日", "2020-12-04", by="wife")
        assert home.run("2026-12-04T00:00:00+00:00", step_minutes=60) == []


def test_the_digest_lists_todays_anniversary_and_the_coming_week(target: str) -> None:
    with household(target, start="2026-12-03T21:00:00+00:00") as home:  # 12/4 06:00 in Tokyo
        home.settings("wife", digest=True, digest_at="07:00")
        home.settings("husband", digest=True, digest_at="07:00")
        book = AnniversaryStore(home.db, clock=home.clock.now)
        book.add("futari", "結婚記念日", "2020-12-04", by="wife")
        book.add("futari", "初デート", "2019-12-10", by="husband")
        book.add("futari", "秘密の記念日", "2021-12-08", by="husband", private=True)
        book.add("futari", "来月の記念日", "2021-12-20", by="wife")
        home.run("2026-12-03T22:30:00+00:00", step_minutes=10)
        pushed = {p.to: p.texts()[0] for p in home.fake.of("push")}
        wife, husband = pushed[WIFE], pushed[HUSBAND]
        assert "終日 結婚記念日" in wife and "12/10 初デート" in wife
        assert "秘密の記念日" not in wife and "12/8 秘密の記念日" in husband
        assert "来月の記念日" not in wife + husband  # past the week ahead
