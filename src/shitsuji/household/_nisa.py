"""NISA: each member's tax-free investment account under the rules in force since 2024.

The limits (``LIMITS``): つみたて投資枠 1,200,000 yen a year, 成長投資枠 2,400,000 yen a year,
18,000,000 yen for life counted at cost, of which the growth frame at most 12,000,000.
A contribution is a purchase at cost in one frame; a holding is a fund's latest value.
"今年の枠はあといくら？" is ``allowance``: the year's room in each frame, capped by what is
left for life. A purchase that would pass a limit is refused with what is left, and nothing
is stored. (Selling frees lifetime room from the next year on; sales are not recorded here,
so the lifetime room shown is the room as if nothing were ever sold — the cautious side.)

Private by default, like a member's own memories: a row is written with its owner and the
owner's scope (``household/<name>/user/<member>``), or the household's when shared; reads
match ``scope IN (shared, viewer's own)``. The allowance is only ever the viewer's own (it
is computed from every row of theirs, so it is never offered about someone else).
"""

from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass
from datetime import date
from typing import Any, Final, Literal

from ..errors import NotFoundError, UserInputError
from ._anniversaries import visible_scopes
from ._changing import DomainStore, changing
from ._values import check_text, check_yen, parse_day

Frame = Literal["tsumitate", "growth"]
FRAMES: Final[tuple[Frame, ...]] = ("tsumitate", "growth")
LIMITS: Final = {
    "tsumitate": 1_200_000,
    "growth": 2_400_000,
    "lifetime": 18_000_000,
    "growth_lifetime": 12_000_000,
}
FRAME_JA: Final = {"tsumitate": "つみたて投資枠", "growth": "成長投資枠"}
_CONTRIBUTION = "id, owner, frame, fund, scope, added_by, created_at, amount_yen, day"  # the fields' order
_HOLDING = "id, owner, frame, fund, scope, added_by, created_at, value_yen, as_of"


@dataclass(frozen=True, slots=True)
class _Owned:
    """What a purchase and a holding share: whose account, which frame and fund, and who sees it."""

    id: str
    owner: str
    frame: str
    fund: str
    scope: str
    added_by: str
    created_at: str

    def to_json(self) -> dict[str, Any]:
        """The row's JSON: ``shared`` instead of its scope."""
        shown = {k: v for k, v in asdict(self).items() if k != "scope"}
        return {**shown, "shared": "/user/" not in self.scope}


@dataclass(frozen=True, slots=True)
class Contribution(_Owned):
    amount_yen: int
    day: str


@dataclass(frozen=True, slots=True)
class Holding(_Owned):
    value_yen: int
    as_of: str


@dataclass(frozen=True, slots=True)
class Allowance:
    """A member's room in ``year``: per frame this year, and for life (at cost)."""

    owner: str
    year: int
    used: dict[str, int]  # this year's purchases by frame
    lifetime_used: int
    growth_lifetime_used: int

    @property
    def left(self) -> dict[str, int]:
        """The room in each frame this year and for life: each the smallest of the limits it falls
        under (a frame's year, the lifetime, and for growth its own lifetime), never below zero."""
        lifetime = LIMITS["lifetime"] - self.lifetime_used
        growth_for_life = LIMITS["growth_lifetime"] - self.growth_lifetime_used
        caps: dict[str, tuple[int, ...]] = {
            "tsumitate": (LIMITS["tsumitate"] - self.used["tsumitate"], lifetime),
            "growth": (LIMITS["growth"] - self.used["growth"], lifetime, growth_for_life),
            "lifetime": (lifetime,),
            "growth_lifetime": (growth_for_life, lifetime),
        }
        return {name: max(0, min(limits)) for name, limits in caps.items()}

    def to_json(self) -> dict[str, Any]:
        return {
            "owner": self.owner,
            "year": self.year,
            "used_this_year": self.used,
            "left_this_year": {f: self.left[f] for f in FRAMES},
            "lifetime_used": self.lifetime_used,
            "lifetime_left": self.left["lifetime"],
            "growth_lifetime_left": self.left["growth_lifetime"],
            "limits": LIMITS,
        }


def check_frame(value: str) -> Frame:
    for frame in FRAMES:
        if value == frame:
            return frame
    raise UserInputError(
        f"NISA frame {value!r} is not known: use tsumitate (つみたて投資枠) or growth (成長投資枠)"
    )


class NisaStore(DomainStore):
    """Each member's NISA purchases and holdings."""

    def contribute(
        self,
        household: str,
        frame: str,
        fund: str,
        amount_yen: int,
        day: date | str,
        *,
        by: str,
        shared: bool = False,
    ) -> Contribution:
        """Record a purchase by member ``by`` into their own account; refused past any limit."""
        frame, fund, amount = check_frame(frame), check_text(fund, "fund"), check_yen(amount_yen)
        when = parse_day(day, "date")
        own_shared, own = visible_scopes(household, by)
        scope = own_shared if shared else own
        row = Contribution(
            "n_" + secrets.token_hex(4), by, frame, fund, scope, by, self._stamp(), amount, when
        )
        with changing(self.db, household) as tx:
            # one purchase of a member at a time: on PostgreSQL two at once would each read the room
            # before the other's row exists (SQLite's writes already take turns)
            lock = " FOR UPDATE" if self.db.dialect == "postgresql" else ""
            tx.execute(
                f'SELECT 1 FROM household_members WHERE household = ? AND "user" = ?{lock}', (household, by)
            )
            room = self._allowance(tx, household, by, int(when[:4])).left
            if amount > room[frame]:
                raise UserInputError(
                    f"¥{amount:,} is more than the room left in {by}'s {frame} frame for {when[:4]} "
                    f"(¥{room[frame]:,}; {FRAME_JA[frame]}): nothing was recorded"
                )
            tx.execute(
                f"INSERT INTO nisa_contributions (household, {_CONTRIBUTION}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (household, *asdict(row).values()),
            )
        return row

    def set_holding(
        self,
        household: str,
        frame: str,
        fund: str,
        value_yen: int,
        as_of: date | str,
        *,
        by: str,
        shared: bool = False,
    ) -> Holding:
        """A fund's value now in member ``by``'s account (replacing its earlier value)."""
        frame, fund = check_frame(frame), check_text(fund, "fund")
        value = 0 if value_yen == 0 else check_yen(value_yen)
        own_shared, own = visible_scopes(household, by)
        scope, day = own_shared if shared else own, parse_day(as_of, "date")
        row = Holding("h_" + secrets.token_hex(4), by, frame, fund, scope, by, self._stamp(), value, day)
        with changing(self.db, household) as tx:
            tx.execute(
                "DELETE FROM nisa_holdings WHERE household = ? AND owner = ? AND frame = ? AND fund = ?",
                (household, by, frame, fund),
            )
            tx.execute(
                f"INSERT INTO nisa_holdings (household, {_HOLDING}) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (household, *asdict(row).values()),
            )
        return row

    def contributions(self, household: str, viewer: str, *, year: int | None = None) -> list[Contribution]:
        where = " AND day >= ? AND day < ?" if year is not None else ""
        span = (f"{year:04d}-01-01", f"{year + 1:04d}-01-01") if year is not None else ()
        rows = self.db.execute(
            f"SELECT {_CONTRIBUTION} FROM nisa_contributions WHERE household = ? AND scope IN (?, ?){where} "
            "ORDER BY day, created_at, id",
            (household, *visible_scopes(household, viewer), *span),
        ).fetchall()
        return [Contribution(*r) for r in rows]

    def holdings(self, household: str, viewer: str) -> list[Holding]:
        rows = self.db.execute(
            f"SELECT {_HOLDING} FROM nisa_holdings WHERE household = ? AND scope IN (?, ?) ORDER BY owner, frame, fund",
            (household, *visible_scopes(household, viewer)),
        ).fetchall()
        return [Holding(*r) for r in rows]

    def remove_contribution(self, household: str, row_id: str, viewer: str) -> Contribution:
        """Delete one of ``viewer``'s own purchases (a spouse's, even shared, is theirs to remove)."""
        row = self.db.execute(
            f"SELECT {_CONTRIBUTION} FROM nisa_contributions WHERE household = ? AND id = ? AND owner = ?",
            (household, row_id, viewer),
        ).fetchone()
        if row is None:
            raise NotFoundError(f"no NISA purchase of yours with id {row_id!r}: list them to see the ids")
        with changing(self.db, household) as tx:
            tx.execute("DELETE FROM nisa_contributions WHERE household = ? AND id = ?", (household, row_id))
        return Contribution(*row)

    def allowance(self, household: str, viewer: str, year: int) -> Allowance:
        """The viewer's own room in ``year`` (from every purchase of theirs, shared or not)."""
        return self._allowance(self.db, household, viewer, year)

    # -- helpers ----------------------------------------------------------

    def _stamp(self) -> str:
        return self.clock().isoformat(timespec="seconds")

    @staticmethod
    def _allowance(conn: Any, household: str, owner: str, year: int) -> Allowance:
        rows = conn.execute(
            "SELECT frame, substr(day, 1, 4), SUM(amount_yen) FROM nisa_contributions "
            "WHERE household = ? AND owner = ? GROUP BY frame, substr(day, 1, 4)",
            (household, owner),
        ).fetchall()
        used: dict[str, int] = dict.fromkeys(FRAMES, 0)
        lifetime = growth = 0
        for frame, in_year, total in rows:
            lifetime += int(total)
            growth += int(total) if frame == "growth" else 0
            if in_year == f"{year:04d}":
                used[frame] += int(total)
        return Allowance(owner, year, used, lifetime, growth)
