"""Reminders in the web app: a member's settings (page form and JSON), their notifications (page and
JSON, only their own), and the live stream's fingerprint moving when the scheduler speaks."""

from __future__ import annotations

import asyncio

from shitsuji.schedule import SCHEDULE_SCHEMA, FakeClock, Scheduler
from shitsuji.store import open_database

from .test_web_api import csrf_headers, signed_in
from .web_support import make_site


def test_settings_notifications_and_the_live_fingerprint(target: str) -> None:
    site = make_site(target, None)
    try:
        wife, csrf = signed_in(site, "wife", "futari")
        bad = wife.put("/api/reminders", json={"digest_at": "25:00"}, headers=csrf_headers(csrf))
        assert bad.status_code == 400 and "HH:MM" in bad.text
        saved = wife.put(
            "/api/reminders",
            json={"reminders": True, "lead_minutes": 15, "quiet": ["23:00", "06:00"]},
            headers=csrf_headers(csrf),
        )
        assert saved.status_code == 200 and saved.json()["quiet_from"] == "23:00"
        form = wife.post(
            "/settings/reminders",
            data={
                "csrf": csrf,
                "reminders": "on",
                "lead_minutes": "15",
                "digest": "on",
                "digest_at": "06:45",
            },
            follow_redirects=False,
        )
        assert form.status_code == 303
        page = wife.get("/settings", headers={"Accept-Language": "ja"}).text
        assert (
            "リマインダーと朝のまとめ" in page
            and 'value="06:45"' in page
            and "今月のLINE送信: 0 / 200 通" in page
        )
        settings = wife.get("/api/reminders").json()
        assert (
            settings["digest"] is True and settings["quiet_from"] is None and settings["push_budget"] == 200
        )

        clock = FakeClock("2026-12-01T00:00:00+00:00")
        store = site.backend.store
        store.set_time_zone("futari", "Asia/Tokyo")
        db = open_database(target, SCHEDULE_SCHEMA)
        scheduler = Scheduler(db, None, clock=clock)  # no LINE: the web app's list only
        asyncio.run(scheduler.tick())
        store.add_event("futari", "保護者会", "2026-12-01T10:00", by="husband")
        before = site.backend.fingerprint("futari")
        clock.set("2026-12-01T00:45:00+00:00")  # 09:45 in Tokyo: 15 minutes before
        asyncio.run(scheduler.tick())
        db.close()
        assert site.backend.fingerprint("futari") != before  # open streams hear of it

        listed = wife.get("/api/notifications").json()
        assert [n["text"] for n in listed["notifications"]] == ["⏰ 12/1 10:00 保護者会"] and listed[
            "unread"
        ] == 1
        html = wife.get("/notifications", headers={"Accept-Language": "ja"}).text
        assert "保護者会" in html and "アプリのみ" in html
        assert wife.get("/api/notifications").json()["unread"] == 0  # seen on the page
        husband, _ = signed_in(site, "husband", "futari")
        neighbour, _ = signed_in(site, "neighbour", "tonari")
        assert husband.get("/api/notifications").json()["notifications"] == []  # he did not opt in
        assert neighbour.get("/api/notifications").json()["notifications"] == []
    finally:
        site.close()
