"""Which household member a LINE account speaks for, and the one-time codes that link them.

A LINE user id proves only that LINE delivered the message; it says nothing about who in
the household that is. So a member asks for a code where they are already signed in (the
web app, or ``shitsuji line link`` on the machine) and sends it to the bot: the code is
random, short-lived, single use and stored hashed, and redeeming it links the LINE user
to the pair (household, member). Until then nothing the sender writes reaches the butler.

Wrong codes are counted per sender and overall (``CODE_FAILURES`` in ``CODE_WINDOW``): eight
random characters cannot be guessed in a handful of tries, and a flood of tries from many
fake senders stops at the overall limit. The same linked account is how a member who forgot
their web password gets a reset code (``new_reset_code``): it is sent to that LINE account
alone, so nobody else in the household can use it.

It lives in the household app, below the channels: the LINE channel redeems codes, the web app makes
them, and neither channel imports the other.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Literal

from .. import store as db
from ..store import Migration, Schema

Lang = Literal["ja", "en"]  # the member's language on LINE (``line._words`` speaks both)

LINE_SCHEMA: Schema = Schema(
    "line",
    (
        Migration(
            "0101_line_links",
            """
            CREATE TABLE line_links (
                line_user TEXT PRIMARY KEY,
                household TEXT NOT NULL,
                member TEXT NOT NULL,
                linked_at TEXT NOT NULL,
                lang TEXT,
                UNIQUE (household, member)
            );
            CREATE TABLE line_link_codes (
                code_hash TEXT PRIMARY KEY,
                household TEXT NOT NULL,
                member TEXT NOT NULL,
                created_at TEXT NOT NULL,
                expires_at TEXT NOT NULL,
                used_at TEXT
            );
            CREATE INDEX line_link_codes_member ON line_link_codes (household, member)
            """,
        ),
        # a forgotten web password is recovered through the member's own linked LINE account: the
        # code is sent to that account only, and wrong link/reset codes are counted (throttled)
        Migration(
            "0103_line_reset_codes_and_code_failures",
            """
            CREATE TABLE line_reset_codes (
                code_hash TEXT PRIMARY KEY,
                household TEXT NOT NULL,
                member TEXT NOT NULL,
                line_user TEXT NOT NULL,
                created_at TEXT NOT NULL,
                expires_at TEXT NOT NULL,
                used_at TEXT
            );
            CREATE INDEX line_reset_codes_member ON line_reset_codes (household, member);
            CREATE TABLE line_code_failures (
                key TEXT NOT NULL,
                at TEXT NOT NULL
            );
            CREATE INDEX line_code_failures_key ON line_code_failures (key, at)
            """,
        ),
    ),
)

__all__ = ["CODE_TTL", "RESET_TTL", "LineLinks", "Link", "TooManyCodes", "looks_like_code"]

CODE_TTL = timedelta(minutes=10)
RESET_TTL = timedelta(minutes=15)
CODE_WINDOW = timedelta(minutes=15)
CODE_FAILURES = 5  # wrong codes from one sender in the window
ALL_CODE_FAILURES = 100  # wrong codes from everyone in the window
_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to misread
_CODE = re.compile(r"^\s*(?:code|コード)?\s*[:：]?\s*([A-Za-z2-9]{4})-?([A-Za-z2-9]{4})\s*$", re.IGNORECASE)


def looks_like_code(text: str) -> str | None:
    """The code in a message that is only a link code (``ABCD-EFGH``, any case), normalised."""
    found = _CODE.match(text)
    return f"{found[1]}-{found[2]}".upper() if found else None


class TooManyCodes(Exception):
    """Too many wrong codes lately (from this sender, or from everyone): wait ``retry_after`` seconds."""

    def __init__(self, retry_after: int) -> None:
        super().__init__(f"too many wrong codes: try again in {retry_after} seconds")
        self.retry_after = retry_after


def _new_code() -> str:
    code = "".join(secrets.choice(_ALPHABET) for _ in range(8))
    return f"{code[:4]}-{code[4:]}"


def mask(line_user: str) -> str:
    """A LINE user id as the member is shown it: enough to tell two apart, not the whole id."""
    return f"…{line_user[-4:]}"


def _hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Link:
    """A LINE account speaking for one member of one household."""

    line_user: str
    household: str
    member: str
    lang: Lang = "ja"  # the language the member last wrote in


class LineLinks(db.Store):
    SCHEMA = LINE_SCHEMA

    def new_code(self, household: str, member: str) -> str:
        """A fresh code for a verified member; their earlier unused codes stop working."""
        code = _new_code()
        now = self.clock()
        with self._conn.write() as conn:
            conn.execute(
                "DELETE FROM line_link_codes WHERE (household = ? AND member = ?) OR expires_at <= ?",
                (household, member, now.isoformat()),
            )
            conn.execute(
                "INSERT INTO line_link_codes (code_hash, household, member, created_at, expires_at) "
                "VALUES (?, ?, ?, ?, ?)",
                (_hash(code), household, member, now.isoformat(), (now + CODE_TTL).isoformat()),
            )
        return code

    def redeem(self, line_user: str, code: str, *, lang: Lang = "ja") -> Link | None:
        """Link ``line_user`` with the code's member, once; None for an unknown, used or expired code."""
        now = self.clock().isoformat()
        self._check_throttle(line_user)
        with self._conn.write() as conn:
            row = conn.execute(
                "UPDATE line_link_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL "
                "AND expires_at > ? RETURNING household, member",
                (now, _hash(code.upper()), now),
            ).fetchone()
            if row is None:
                conn.execute("INSERT INTO line_code_failures (key, at) VALUES (?, ?)", (line_user, now))
                return None
            # one LINE account per member and one member per LINE account: a new link replaces the old
            conn.execute(
                "DELETE FROM line_links WHERE line_user = ? OR (household = ? AND member = ?)",
                (line_user, row[0], row[1]),
            )
            conn.execute(
                "INSERT INTO line_links (line_user, household, member, linked_at, lang) VALUES (?, ?, ?, ?, ?)",
                (line_user, row[0], row[1], now, lang),
            )
        return Link(line_user, row[0], row[1], lang)

    def get(self, line_user: str) -> Link | None:
        row = self._conn.execute(
            "SELECT household, member, lang FROM line_links WHERE line_user = ?", (line_user,)
        ).fetchone()
        return Link(line_user, row[0], row[1], "en" if row[2] == "en" else "ja") if row else None

    def set_lang(self, line_user: str, lang: Lang) -> None:
        with self._conn.write() as conn:
            conn.execute("UPDATE line_links SET lang = ? WHERE line_user = ?", (lang, line_user))

    def of_member(self, household: str, member: str) -> Link | None:
        row = self._conn.execute(
            "SELECT line_user FROM line_links WHERE household = ? AND member = ?", (household, member)
        ).fetchone()
        return Link(row[0], household, member) if row else None

    def unlink(self, line_user: str) -> bool:
        with self._conn.write() as conn:
            return bool(conn.execute("DELETE FROM line_links WHERE line_user = ?", (line_user,)).rowcount)

    def links_of(self, household: str, member: str) -> list[dict[str, str]]:
        """The member's linked LINE accounts as they are shown them (masked id, when linked)."""
        rows = self._conn.execute(
            "SELECT line_user, linked_at FROM line_links WHERE household = ? AND member = ? ORDER BY linked_at",
            (household, member),
        ).fetchall()
        return [{"account": mask(r[0]), "linked_at": r[1]} for r in rows]

    def unlink_member(self, household: str, member: str) -> int:
        """Remove every LINE link of the member (and their unused reset codes); how many links went."""
        with self._conn.write() as conn:
            conn.execute(
                "DELETE FROM line_reset_codes WHERE household = ? AND member = ?", (household, member)
            )
            gone = conn.execute(
                "DELETE FROM line_links WHERE household = ? AND member = ?", (household, member)
            ).rowcount
        return int(gone or 0)

    # -- wrong codes ----------------------------------------------------------

    def _check_throttle(self, line_user: str) -> None:
        """Refuse another code from this sender (or from anyone) after too many wrong ones lately."""
        now = self.clock()
        since = (now - CODE_WINDOW).isoformat()
        with self._conn.write() as conn:
            conn.execute("DELETE FROM line_code_failures WHERE at <= ?", (since,))
        for key, most in ((line_user, CODE_FAILURES), (None, ALL_CODE_FAILURES)):
            sql = "SELECT at FROM line_code_failures WHERE at > ?" + (" AND key = ?" if key else "")
            rows = self._conn.execute(
                sql + " ORDER BY at DESC LIMIT ?", (since, key, most) if key else (since, most)
            ).fetchall()
            if len(rows) >= most:
                oldest = datetime.fromisoformat(rows[-1][0])
                raise TooManyCodes(max(1, int((oldest + CODE_WINDOW - now).total_seconds()) + 1))

    # -- password reset through LINE -----------------------------------------

    def new_reset_code(self, link: Link) -> str:
        """A one-time code for the linked member to choose a new web password (``RESET_TTL``).

        It is answered to ``link.line_user`` only; it works only while that account is still
        the member's link, so unlinking it (or a reset from the command line) ends it.
        """
        code = _new_code()
        now = self.clock()
        with self._conn.write() as conn:
            conn.execute(
                "DELETE FROM line_reset_codes WHERE (household = ? AND member = ?) OR expires_at <= ?",
                (link.household, link.member, now.isoformat()),
            )
            conn.execute(
                "INSERT INTO line_reset_codes (code_hash, household, member, line_user, created_at, expires_at) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    _hash(code),
                    link.household,
                    link.member,
                    link.line_user,
                    now.isoformat(),
                    (now + RESET_TTL).isoformat(),
                ),
            )
        return code

    def redeem_reset(self, household: str, member: str, code: str) -> bool:
        """Use up the member's reset code (once, before expiry, while its LINE account is still linked)."""
        normal = looks_like_code(code)
        if normal is None:
            return False
        now = self.clock().isoformat()
        with self._conn.write() as conn:
            row = conn.execute(
                "UPDATE line_reset_codes SET used_at = ? WHERE code_hash = ? AND household = ? AND member = ? "
                "AND used_at IS NULL AND expires_at > ? RETURNING line_user",
                (now, _hash(normal), household, member, now),
            ).fetchone()
            if row is None:
                return False
            still = conn.execute(
                "SELECT 1 FROM line_links WHERE line_user = ? AND household = ? AND member = ?",
                (row[0], household, member),
            ).fetchone()
        return still is not None
