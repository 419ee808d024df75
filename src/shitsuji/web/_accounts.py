"""Who may sign in to the web app: passwords, sessions and the login rate limit.

Passwords are argon2id hashes (``argon2-cffi``'s defaults), one per household member.
A session is a random token in an http-only cookie; only its SHA-256 is stored, so a
copy of the database does not hand out live sessions. Each session carries its own CSRF
token. Failed sign-ins are counted per member and per client address in the database,
so a restart does not reset the limit; an attempt is counted against its member before
its password is checked (``begin_attempt``) and released only when the password was right,
so a burst of concurrent guesses gets no more checks than one guess after another. Against
an address only failures count (and a few checks at once), so people sharing one NAT are
not locked out by signing in together.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cached_property

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError

from .. import store as db
from ..audit import AuditEvent, AuditLog
from ..errors import UserInputError
from ..household import Household
from ..privacy import member_scope
from ._schema import WEB_SCHEMA

MIN_PASSWORD = 8
MAX_PASSWORD = 1024
SESSION_TTL = timedelta(days=30)
FAILURE_WINDOW = timedelta(minutes=15)
MAX_FAILURES = 5
STALE = timedelta(seconds=60)  # an in-flight mark this old is a request that died: a failure

Clock = Callable[[], datetime]
HOUSEHOLD_EVENTS = frozenset({"invitation.made", "member.joined"})  # the rest are the member's own


@dataclass(frozen=True, slots=True)
class Attempt:
    """A reserved sign-in attempt (its rows in ``login_failures``), or ``retry_after`` > 0 when refused,
    or ``busy`` when the address has enough checks running (try again in a moment)."""

    rowids: tuple[int, ...]
    retry_after: int
    busy: bool = False


@dataclass(frozen=True, slots=True)
class WebSession:
    household: str
    user: str
    csrf: str
    expires_at: datetime


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def check_password(password: str) -> str:
    if len(password) < MIN_PASSWORD:
        raise UserInputError(f"the password is too short: use at least {MIN_PASSWORD} characters")
    if len(password) > MAX_PASSWORD:
        raise UserInputError(f"the password is too long: at most {MAX_PASSWORD} characters")
    return password


class Accounts:
    def __init__(
        self,
        database: db.Database,
        *,
        clock: Clock = lambda: datetime.now(UTC),
        audit: AuditLog | None = None,
    ) -> None:
        database.ensure(WEB_SCHEMA)
        self.path = database.target
        self._conn = database  # the process's: its edge opens and closes it
        self.clock = clock
        self._hasher = PasswordHasher()
        self.audit = audit  # sign-ins, refusals, sign-outs and password changes are recorded there

    def record(self, action: str, household: str | None, user: str, **detail: str) -> None:
        """An account event is the member's own (their scope); joining is the household's."""
        if self.audit is not None:
            own = household is not None and action not in HOUSEHOLD_EVENTS
            scope = member_scope(household, user) if own and household is not None else None
            self.audit.record(
                AuditEvent(action, actor=user, household=household, channel="app", scope=scope, detail=detail)
            )

    def close(self) -> None:
        """Nothing to let go: the database is the process's, closed by its edge."""

    @cached_property
    def _decoy(self) -> str:
        """Verifying against this keeps an unknown member as slow as a wrong password (made on first use)."""
        return self._hasher.hash(secrets.token_hex(16))

    # -- passwords --------------------------------------------------------

    def set_password(self, household: str, user: str, password: str) -> None:
        """Set (or replace) a member's password; their open sessions end."""
        hashed = self._hasher.hash(check_password(password))
        with self._conn.write() as conn:
            conn.execute(
                'INSERT INTO member_passwords (household, "user", hash, updated_at) VALUES (?, ?, ?, ?) '
                'ON CONFLICT (household, "user") DO UPDATE SET hash = excluded.hash, updated_at = excluded.updated_at',
                (household, user, hashed, self.clock().isoformat()),
            )
            conn.execute('DELETE FROM web_sessions WHERE household = ? AND "user" = ?', (household, user))
        self.record("password.set", household, user)

    def has_password(self, household: str, user: str) -> bool:
        row = self._conn.execute(
            'SELECT 1 FROM member_passwords WHERE household = ? AND "user" = ?', (household, user)
        ).fetchone()
        return row is not None

    def password_hash(self, household: str, user: str) -> str | None:
        row = self._conn.execute(
            'SELECT hash FROM member_passwords WHERE household = ? AND "user" = ?', (household, user)
        ).fetchone()
        return str(row[0]) if row else None

    def matches(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` fits the ``stored`` hash (None: no password, as slow as a wrong one).

        Touches no database, so a server can run it in a worker thread: it costs ~0.1 s of CPU.
        """
        try:
            self._hasher.verify(stored or self._decoy, password[:MAX_PASSWORD])
        except (VerifyMismatchError, VerificationError, InvalidHashError):
            return False
        return stored is not None

    def upgrade(self, household: str, user: str, stored: str, password: str) -> None:
        """After a successful check: re-hash if the stored hash used weaker parameters."""
        if self._hasher.check_needs_rehash(stored):
            self.set_password(household, user, password)

    def verify(self, household: str, user: str, password: str) -> bool:
        stored = self.password_hash(household, user)
        if not self.matches(stored, password):
            return False
        assert stored is not None
        self.upgrade(household, user, stored, password)
        return True

    # -- sessions ---------------------------------------------------------

    def start_session(self, household: str, user: str) -> tuple[str, WebSession]:
        """A new session: (cookie token, session). The token is shown once and stored hashed."""
        token = secrets.token_urlsafe(32)
        now = self.clock()
        session = WebSession(household, user, secrets.token_urlsafe(24), now + SESSION_TTL)
        with self._conn.write() as conn:
            conn.execute("DELETE FROM web_sessions WHERE expires_at < ?", (now.isoformat(),))
            conn.execute(
                'INSERT INTO web_sessions (token_hash, household, "user", csrf, created_at, expires_at) '
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    _digest(token),
                    household,
                    user,
                    session.csrf,
                    now.isoformat(),
                    session.expires_at.isoformat(),
                ),
            )
        self.record("signin.ok", household, user)
        return token, session

    def session(self, token: str | None) -> WebSession | None:
        if not token or len(token) > 200:
            return None
        row = self._conn.execute(
            'SELECT household, "user", csrf, expires_at FROM web_sessions WHERE token_hash = ?',
            (_digest(token),),
        ).fetchone()
        if row is None:
            return None
        expires = datetime.fromisoformat(row[3])
        if expires <= self.clock():
            return None
        return WebSession(row[0], row[1], row[2], expires)

    def session_home(self, token: str | None) -> tuple[WebSession, Household | None] | None:
        """``session`` and its member's household (members, time zone) in one statement: a chat turn's
        first read, one round trip where the session, the zone and the membership check took three.
        Read afresh every request (no copy kept), so a sign-out or a member removed counts at once.
        The household is None if it is gone (the caller's own read then says so)."""
        if not token or len(token) > 200:
            return None
        rows = self._conn.execute(
            'SELECT s.household, s."user", s.csrf, s.expires_at, h.created_at, h.time_zone, m."user" '
            "FROM web_sessions s LEFT JOIN households h ON h.name = s.household "
            "LEFT JOIN household_members m ON m.household = h.name WHERE s.token_hash = ? ORDER BY m.rowid",
            (_digest(token),),
        ).fetchall()
        if not rows:
            return None
        household, user, csrf, expires_at, created_at, zone, _ = rows[0]
        expires = datetime.fromisoformat(expires_at)
        if expires <= self.clock():
            return None
        home = (
            Household(household, tuple(r[6] for r in rows if r[6] is not None), created_at, zone)
            if created_at is not None
            else None
        )
        return WebSession(household, user, csrf, expires), home

    def end_session(self, token: str | None) -> None:
        ended = self.session(token)
        if token:
            with self._conn.write() as conn:
                conn.execute("DELETE FROM web_sessions WHERE token_hash = ?", (_digest(token),))
        if ended is not None:
            self.record("signout", ended.household, ended.user)

    # -- rate limit -------------------------------------------------------

    def begin_attempt(self, keys: Sequence[str], addresses: Sequence[str] = ()) -> Attempt:
        """Reserve one sign-in attempt, or say how long to wait (or that the address is ``busy``).

        ``keys`` (a member) count every attempt as a failure until ``succeeded`` releases it, so a
        burst of concurrent guesses at one member gets no more checks than one guess after another.
        ``addresses`` count failures only: an attempt running now is marked in flight, and while an
        address's failures and running checks together reach ``MAX_FAILURES`` the next attempt is
        told ``busy`` and waits its turn — so concurrent guesses from one address get exactly as
        many checks as guesses one after another, and the members of a household behind one NAT
        signing in together are never refused (a right password frees its place at once).
        Checking and reserving happen in one write transaction (threads, tasks, processes).
        """
        now = self.clock()
        since = (now - FAILURE_WINDOW).isoformat()
        with self._conn.write() as conn:
            self._serialize(conn, [*keys, *addresses])
            conn.execute("DELETE FROM login_failures WHERE at <= ?", (since,))
            wait = max(
                [self._wait(conn, key, since, now) for key in keys]
                + [self._wait(conn, key, since, now, failures_only=True) for key in addresses],
                default=0,
            )
            if wait:
                return Attempt((), wait)
            if any(self._load(conn, key, since) >= MAX_FAILURES for key in addresses):
                return Attempt((), 0, busy=True)  # failures + checks running fill the allowance: wait
            rowids = [
                conn.execute(
                    "INSERT INTO login_failures (key, at, in_flight) VALUES (?, ?, ?) RETURNING rowid",
                    (key, now.isoformat(), int(key in addresses)),
                ).fetchone()[0]
                for key in [*keys, *addresses]
            ]
        return Attempt(tuple(rowids), 0)

    def _serialize(self, conn: db.Tx, keys: Sequence[str]) -> None:
        """Make attempts under the same key take turns until their transaction ends.

        SQLite writes are serialized already. PostgreSQL's read committed lets two transactions
        both count four failures and both insert a fifth, so each key is a transaction-scoped
        advisory lock, taken in sorted order (two attempts never wait on each other crosswise).
        """
        if self._conn.dialect == "postgresql":
            for key in sorted(set(keys)):
                conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", (f"signin:{key}",))

    def failed(self, attempt: Attempt) -> None:
        """The password was wrong: the attempt's in-flight marks become failures of its address."""
        with self._conn.write() as conn:
            conn.executemany(
                "UPDATE login_failures SET in_flight = 0 WHERE rowid = ?", [(r,) for r in attempt.rowids]
            )

    def succeeded(self, attempt: Attempt, clear: Sequence[str] = ()) -> None:
        """The password was right: the attempt was no failure, and the ``clear`` keys start afresh."""
        with self._conn.write() as conn:
            conn.executemany("DELETE FROM login_failures WHERE rowid = ?", [(r,) for r in attempt.rowids])
            conn.executemany("DELETE FROM login_failures WHERE key = ?", [(k,) for k in clear])

    def retry_after(self, keys: Sequence[str]) -> int:
        """Seconds until a sign-in under any of ``keys`` is allowed again (0: now); reserves nothing."""
        now = self.clock()
        since = (now - FAILURE_WINDOW).isoformat()
        return max((self._wait(self._conn, key, since, now) for key in keys), default=0)

    @staticmethod
    def _load(conn: db.Tx, key: str, since: str) -> int:
        """An address's failures in the window plus its checks running now."""
        row = conn.execute(
            "SELECT COUNT(*) FROM login_failures WHERE key = ? AND at > ?", (key, since)
        ).fetchone()
        return int(row[0])

    @staticmethod
    def _wait(
        conn: db.Tx | db.Database, key: str, since: str, now: datetime, *, failures_only: bool = False
    ) -> int:
        # an in-flight mark older than STALE belongs to a request that died half-way: a failure
        only = " AND (in_flight = 0 OR at <= ?)" if failures_only else ""
        extra = ((now - STALE).isoformat(),) if failures_only else ()
        rows = conn.execute(
            f"SELECT at FROM login_failures WHERE key = ? AND at > ?{only} ORDER BY at DESC LIMIT ?",
            (key, since, *extra, MAX_FAILURES),
        ).fetchall()
        if len(rows) < MAX_FAILURES:
            return 0
        oldest = datetime.fromisoformat(rows[-1][0])
        return max(1, int((oldest + FAILURE_WINDOW - now).total_seconds()) + 1)
