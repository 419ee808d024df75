"""Which household member a LINE account speaks for, and the one-time codes that link them.

A LINE user id proves only that LINE delivered the message; it says nothing about who in
the household that is. So a member asks for a code where they are already signed in (the
web app, or ``shitsuji line link`` on the machine) and sends it to the bot: the code is
random, short-lived, single use and stored hashed, and redeeming it links the LINE user
to the pair (household, member). Until then nothing the sender writes reaches the butler.

It lives in the household app, below the channels: the LINE channel redeems codes, the web app makes
them, and neither channel imports the other.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

from .. import store as db
from ..store import Migration, Schema

Lang = Literal["ja", "en"]  # the member's language on LINE (``line._words`` speaks both)

LINE_SCHEMA = Schema(
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
    ),
)

__all__ = ["CODE_TTL", "LineLinks", "Link", "looks_like_code"]

CODE_TTL = timedelta(minutes=10)
_ALPHABET = "ABCDEFGHJKLMNPQRSTUVWXYZ23456789"  # no 0/O or 1/I to misread
_CODE = re.compile(r"^\s*(?:code|コード)?\s*[:：]?\s*([A-Za-z2-9]{4})-?([A-Za-z2-9]{4})\s*$", re.IGNORECASE)


def looks_like_code(text: str) -> str | None:
    """The code in a message that is only a link code (``ABCD-EFGH``, any case), normalised."""
    found = _CODE.match(text)
    return f"{found[1]}-{found[2]}".upper() if found else None


def _hash(code: str) -> str:
    return hashlib.sha256(code.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Link:
    """A LINE account speaking for one member of one household."""

    line_user: str
    household: str
    member: str
    lang: Lang = "ja"  # the language the member last wrote in


class LineLinks:
    def __init__(
        self, database: db.Database, *, clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    ) -> None:
        database.ensure(LINE_SCHEMA)
        self.path = database.target
        self._conn = database  # the process's: its edge opens and closes it
        self.clock = clock

    def close(self) -> None:
        """Nothing to let go: the database is the process's, closed by its edge."""

    def new_code(self, household: str, member: str) -> str:
        """A fresh code for a verified member; their earlier unused codes stop working."""
        code = "".join(secrets.choice(_ALPHABET) for _ in range(8))
        code = f"{code[:4]}-{code[4:]}"
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
        with self._conn.write() as conn:
            row = conn.execute(
                "UPDATE line_link_codes SET used_at = ? WHERE code_hash = ? AND used_at IS NULL "
                "AND expires_at > ? RETURNING household, member",
                (now, _hash(code.upper()), now),
            ).fetchone()
            if row is None:
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
