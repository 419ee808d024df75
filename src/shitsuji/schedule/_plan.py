"""The planner: turns the time that passed since it last looked into delivery rows.

One high-water mark (``schedule_marks``) says up to when everything was planned. A pass takes
the interval (mark, now], finds per time zone the reminders whose household-local fire time
(start minus the member's lead) and the digests whose local time fall in it, inserts one row per
(member, reminder, occurrence) — ``ON CONFLICT (dkey) DO NOTHING`` — and moves the mark, all in
one transaction: a crash plans the interval again, and the unique key keeps it once. Several
workers may plan: on PostgreSQL the mark row is taken ``FOR UPDATE SKIP LOCKED`` (the others skip
the pass), on SQLite ``BEGIN IMMEDIATE`` makes them take turns and the later finds nothing left.

Wall-clock windows make daylight saving come out right: a window is the interval's local
times, so when clocks spring forward a 02:30 that never exists falls in the jump and is sent at
03:00; when they fall back the repeated hour was planned already (the window is skipped, the key
would refuse a repeat anyway). A time is read with ``zoneinfo`` (``fold=0``, the first 01:30).

After downtime the interval is long (capped at ``LOOKBACK``). What it finds is sent once, and
marked late when more than ``GRACE`` past its time — or dropped (kept as a row, never sent) when
it no longer helps: a reminder whose event has already started (or to-do fallen due), a digest
more than ``DIGEST_CUTOFF`` late. Things added after their reminder time but before they start
are reminded at once.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo

from ..household import HOUSEHOLD_CHANNEL
from ..household._values import zone_of
from ..store import Database, Tx
from ._settings import MemberSettings, in_quiet
from ._sources import Occurrence, Source
from ._words import digest_text, reminder_text

__all__ = ["DIGEST_CUTOFF", "GRACE", "LOOKBACK", "plan"]

MARK = "plan"
GRACE = timedelta(minutes=2)  # later than this after its time: sent marked late
DIGEST_CUTOFF = timedelta(hours=3)  # a digest later than this is dropped
LOOKBACK = timedelta(days=1)  # after longer downtime, older times are not looked at (all would be dropped)
_CHUNK = 500


@dataclass(frozen=True, slots=True)
class _Recipient:
    settings: MemberSettings
    line_user: str | None
    lang: str


def _text(moment: datetime) -> str:
    return moment.isoformat(timespec="seconds")


def _utc(local: datetime, zone: tzinfo) -> datetime:
    return local.replace(tzinfo=zone).astimezone(UTC)


def plan(db: Database, now: datetime, sources: Sequence[Source], *, push: bool) -> int:
    """Plan (mark, now]; the number of rows decided (0 when another worker is planning)."""
    now = now.astimezone(UTC).replace(microsecond=0)
    lock = " FOR UPDATE SKIP LOCKED" if db.dialect == "postgresql" else ""
    with db.write() as tx:
        tx.execute(
            "INSERT INTO schedule_marks (name, planned_to) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
            (MARK, _text(now)),
        )
        row = tx.execute(f"SELECT planned_to FROM schedule_marks WHERE name = ?{lock}", (MARK,)).fetchone()
        if row is None:
            return 0
        start = max(datetime.fromisoformat(row[0]), now - LOOKBACK)
        if now <= start:
            return 0
        tx.execute("UPDATE schedule_marks SET planned_to = ? WHERE name = ?", (_text(now), MARK))
        rows = {r[0]: r for r in _Pass(tx, start, now, sources, push).rows()}
        tx.executemany(
            "INSERT INTO schedule_deliveries (dkey, household, member, kind, source, ref, title, body, occurs_at, "
            "fire_at, due_at, late, line_user, status, created_at) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (dkey) DO NOTHING",
            list(rows.values()),
        )
        if db.dialect == "postgresql" and rows:  # the web app's live streams: one statement for all
            homes = sorted({str(r[1]) for r in rows.values()})
            tx.execute("SELECT pg_notify(?, x) FROM unnest(?::text[]) AS x", (HOUSEHOLD_CHANNEL, homes))
    return len(rows)


class _Pass:
    """One planning pass over (start, end] inside the planner's transaction."""

    def __init__(self, tx: Tx, start: datetime, end: datetime, sources: Sequence[Source], push: bool) -> None:
        self.tx, self.start, self.end, self.sources, self.push = tx, start, end, sources, push

    def rows(self) -> Iterator[tuple[object, ...]]:
        zones = self.tx.execute(
            "SELECT DISTINCT COALESCE(h.time_zone, '') FROM households h JOIN schedule_settings s "
            "ON s.household = h.name WHERE s.reminders = 1 OR s.digest = 1"
        ).fetchall()
        for (zone,) in zones:
            tz = zone_of(zone or None)
            lo = self.start.astimezone(tz).replace(tzinfo=None)
            hi = self.end.astimezone(tz).replace(tzinfo=None)
            if hi <= lo:  # the clock fell back: these wall times were planned before
                continue
            yield from self._reminders(zone, tz, lo, hi)
            yield from self._day_reminders(zone, tz, lo, hi)
            yield from self._digests(zone, tz, lo, hi)

    # -- reminders ----------------------------------------------------------------------------

    def _reminders(self, zone: str, tz: tzinfo, lo: datetime, hi: datetime) -> Iterator[tuple[object, ...]]:
        leads = self.tx.execute(
            "SELECT DISTINCT s.lead_minutes FROM schedule_settings s JOIN households h ON h.name = s.household "
            "WHERE s.reminders = 1 AND COALESCE(h.time_zone, '') = ?",
            (zone,),
        ).fetchall()
        for (minutes,) in leads:
            lead = timedelta(minutes=minutes)
            found: list[tuple[Occurrence, datetime]] = []
            for source in self.sources:
                if getattr(source, "all_day", False):  # reminded days ahead: ``_day_reminders``
                    continue
                for occ in source.occurrences(self.tx, zone, _text(lo + lead), _text(hi + lead)):
                    if occ.timed:
                        found.append((occ, datetime.fromisoformat(occ.at) - lead))
                if minutes:  # added since the last look, starting within the lead: remind now
                    fresh = source.occurrences(
                        self.tx, zone, _text(hi), _text(hi + lead), created_after=_text(self.start)
                    )
                    found += [(occ, hi) for occ in fresh if occ.timed]
            if not found:
                continue
            sql = "s.reminders = 1 AND s.lead_minutes = ?"
            people = self._recipients(sql, [minutes], {occ.household for occ, _ in found})
            for occ, fire in found:
                for person in people.get(occ.household, ()):
                    if occ.owner is None or occ.owner == person.settings.member:
                        yield self._reminder(person, occ, fire, tz)

    def _day_reminders(
        self, zone: str, tz: tzinfo, lo: datetime, hi: datetime
    ) -> Iterator[tuple[object, ...]]:
        """All-day things (anniversaries) ``anniversary_days`` before, at each member's digest time."""
        groups = self.tx.execute(
            "SELECT DISTINCT s.anniversary_days, s.digest_at FROM schedule_settings s "
            "JOIN households h ON h.name = s.household "
            "WHERE s.reminders = 1 AND s.anniversary_days > 0 AND COALESCE(h.time_zone, '') = ?",
            (zone,),
        ).fetchall()
        all_day = [source for source in self.sources if getattr(source, "all_day", False)]
        for days, at in groups:
            found: list[tuple[Occurrence, datetime]] = []
            day = lo.date()
            while day <= hi.date():
                fire = datetime.combine(day, time.fromisoformat(at))
                if lo < fire <= hi:
                    on = day + timedelta(days=days)
                    after, until = f"{on - timedelta(days=1)}T23:59:59", f"{on}T23:59:59"
                    for source in all_day:
                        found += [(occ, fire) for occ in source.occurrences(self.tx, zone, after, until)]
                day += timedelta(days=1)
            if not found:
                continue
            sql = "s.reminders = 1 AND s.anniversary_days = ? AND s.digest_at = ?"
            people = self._recipients(sql, [days, at], {occ.household for occ, _ in found})
            for occ, fire in found:
                for person in people.get(occ.household, ()):
                    if occ.owner is None or occ.owner == person.settings.member:
                        yield self._reminder(person, occ, fire, tz)

    def _reminder(
        self, person: _Recipient, occ: Occurrence, fire: datetime, tz: tzinfo
    ) -> tuple[object, ...]:
        occurs = _utc(datetime.fromisoformat(occ.at), tz)
        late = self.end - _utc(fire, tz) > GRACE
        dropped = late and occurs <= self.end  # it has begun (or fallen due): a reminder no longer helps
        text = reminder_text(occ.source, occ.title, occ.at, person.lang)
        key = f"r|{occ.household}|{person.settings.member}|{occ.source}|{occ.ref}|{occ.at}"
        return self._row(key, person, "reminder", occ, text, occurs, fire, tz, late=late, dropped=dropped)

    # -- digests ------------------------------------------------------------------------------

    def _digests(self, zone: str, tz: tzinfo, lo: datetime, hi: datetime) -> Iterator[tuple[object, ...]]:
        day = lo.date()
        while day <= hi.date():
            after = lo.strftime("%H:%M:%S") if day == lo.date() else ""
            until = hi.strftime("%H:%M:%S") if day == hi.date() else "99"
            sql = "s.digest = 1 AND s.digest_at || ':00' > ? AND s.digest_at || ':00' <= ?"
            homes = self.tx.execute(
                "SELECT s.household FROM schedule_settings s JOIN households h ON h.name = s.household "
                f"WHERE COALESCE(h.time_zone, '') = ? AND {sql}",
                (zone, after, until),
            ).fetchall()
            people = self._recipients(sql, [after, until], {h for (h,) in homes})
            for group in people.values():
                for person in group:
                    yield self._digest(person, day, tz)
            day += timedelta(days=1)

    def _digest(self, person: _Recipient, day: date, tz: tzinfo) -> tuple[object, ...]:
        me = person.settings
        fire = datetime.combine(day, time.fromisoformat(me.digest_at))
        late = self.end - _utc(fire, tz) > GRACE
        dropped = self.end - _utc(fire, tz) > DIGEST_CUTOFF
        text = self._digest_text(me, day, person.lang, fold=not dropped)
        occ = Occurrence(me.household, "digest", day.isoformat(), day.isoformat(), _text(fire))
        key = f"d|{me.household}|{me.member}|{day.isoformat()}"
        return self._row(
            key, person, "digest", occ, text, _utc(fire, tz), fire, tz, late=late, dropped=dropped
        )

    def _digest_text(self, me: MemberSettings, day: date, lang: str, *, fold: bool) -> str:
        def seen(found: Iterable[Occurrence]) -> list[tuple[str, str]]:
            return [(o.at, o.title) for o in found if o.owner is None or o.owner == me.member]

        zone = self.tx.execute(
            "SELECT COALESCE(time_zone, '') FROM households WHERE name = ?", (me.household,)
        ).fetchone()[0]
        last = f"{day.isoformat()}T23:59:59"
        events: list[tuple[str, str]] = []
        due: list[tuple[str, str]] = []
        routine: list[tuple[str, str]] = []
        ahead: list[tuple[str, str]] = []
        before = f"{(day - timedelta(days=1)).isoformat()}T23:59:59"
        for source in self.sources:
            carries = getattr(source, "carries_over", False)  # optional: listed until done (to-dos)
            found = source.occurrences(self.tx, zone, "" if carries else before, last, household=me.household)
            section = getattr(source, "section", None)  # optional: a section of its own (recurring)
            (routine if section == "routine" else due if carries else events).extend(seen(found))
            if source.ahead_days:
                until = f"{(day + timedelta(days=source.ahead_days)).isoformat()}T23:59:59"
                ahead.extend(seen(source.occurrences(self.tx, zone, last, until, household=me.household)))
        shopping = [
            f"{name} ×{qty}" if qty > 1 else str(name)
            for name, qty in self.tx.execute(
                "SELECT name, quantity FROM shopping_items WHERE household = ? AND checked_at IS NULL "
                "ORDER BY created_at, rowid",
                (me.household,),
            ).fetchall()
        ]
        folded: list[str] = []
        if fold:  # reminders held back for the push budget travel in this digest
            held = (me.household, me.member)
            folded = [
                json.loads(b)["text"]
                for (b,) in self.tx.execute(
                    "SELECT body FROM schedule_deliveries WHERE household = ? AND member = ? "
                    "AND status = 'folded' ORDER BY fire_at, id",
                    held,
                ).fetchall()
            ]
            self.tx.execute(
                "UPDATE schedule_deliveries SET status = 'digested' WHERE household = ? AND member = ? "
                "AND status = 'folded'",
                held,
            )
        return digest_text(
            day,
            lang,
            events=sorted(events),
            due=sorted(due),
            routine=sorted(routine),
            ahead=sorted(ahead),
            shopping=shopping,
            folded=folded,
        )

    # -- shared -------------------------------------------------------------------------------

    def _recipients(
        self, where: str, params: list[object], households: set[str]
    ) -> dict[str, list[_Recipient]]:
        """Members of ``households`` whose settings match ``where`` (and who still belong there)."""
        out: dict[str, list[_Recipient]] = defaultdict(list)
        names = sorted(households)
        for i in range(0, len(names), _CHUNK):
            chunk = names[i : i + _CHUNK]
            rows = self.tx.execute(
                "SELECT s.household, s.member, s.reminders, s.digest, s.digest_at, s.lead_minutes, s.quiet_from, "
                "s.quiet_to, s.anniversary_days, l.line_user, COALESCE(l.lang, 'ja') FROM schedule_settings s "
                'JOIN household_members m ON m.household = s.household AND m."user" = s.member '
                "LEFT JOIN line_links l ON l.household = s.household AND l.member = s.member "
                f"WHERE {where} AND s.household IN ({','.join('?' * len(chunk))}) ORDER BY s.household, s.member",
                [*params, *chunk],
            ).fetchall()
            for r in rows:
                settings = MemberSettings(r[0], r[1], bool(r[2]), bool(r[3]), *r[4:9])
                out[r[0]].append(_Recipient(settings, r[9], r[10]))
        return out

    def _row(
        self,
        key: str,
        person: _Recipient,
        kind: str,
        occ: Occurrence,
        text: str,
        occurs: datetime,
        fire: datetime,
        tz: tzinfo,
        *,
        late: bool,
        dropped: bool,
    ) -> tuple[object, ...]:
        me = person.settings
        due = self.end
        now_local = self.end.astimezone(tz).replace(tzinfo=None)
        if in_quiet(me, now_local.time()):  # hold the push until the quiet hours end
            due = _utc(_quiet_end(me, now_local), tz)
        line = person.line_user if self.push else None
        status = "dropped" if dropped else ("pending" if line else "web")
        body = json.dumps({"text": text, "lang": person.lang, "fire_local": _text(fire)}, ensure_ascii=False)
        return (
            key, me.household, me.member, kind, occ.source, occ.ref, occ.title, body,
            _text(occurs), _text(_utc(fire, tz)), _text(due), int(late), line, status, _text(self.end),
        )  # fmt: skip


def _quiet_end(me: MemberSettings, now_local: datetime) -> datetime:
    assert me.quiet_to is not None
    end = datetime.combine(now_local.date(), time.fromisoformat(me.quiet_to))
    return end if end > now_local else end + timedelta(days=1)
