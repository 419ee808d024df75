"""Money as a couple manages it: who paid each expense, the split ratio, and the running settlement.

An expense's payer is ``paid_by`` (the member who recorded it unless changed). The
household's split (``6:4`` between its members in order; even when never set) says what
share of every expense each one carries. ``settlement`` sums a month: what each paid, what
each should have paid, and the difference — "今月はどっちがいくら多く払った？". ``trend``
totals the last months for the budget panel's chart. Shares are rounded to whole yen with
the remainder on the last member, so the shares always add up to the amount.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date
from typing import Any

from ..errors import NotFoundError, UserInputError
from ._changing import DomainStore, changing
from ._values import month_of, month_range

_RATIO = re.compile(r"^\s*(\d{1,3})(?:\s*[:：]\s*(\d{1,3}))+\s*$")


def parse_ratio(text: str, members: int) -> tuple[int, ...]:
    """「6:4」 → (6, 4): one whole-number weight per member, not all zero."""
    if not _RATIO.match(text):
        raise UserInputError(f"split {text!r} is not a ratio: use e.g. 6:4 (one number per member, in order)")
    weights = tuple(int(w) for w in re.split(r"[:：]", text))
    if len(weights) != members or not any(weights):
        raise UserInputError(f"split {text!r} needs {members} numbers, not all 0 (e.g. 6:4)")
    return weights


def shares(amount: int, weights: tuple[int, ...]) -> list[int]:
    """``amount`` split by ``weights`` in whole yen (the remainder on the last member)."""
    total = sum(weights)
    parts = [amount * w // total for w in weights[:-1]]
    return [*parts, amount - sum(parts)]


@dataclass(frozen=True, slots=True)
class Settlement:
    month: str
    members: tuple[str, ...]
    weights: tuple[int, ...]
    paid: dict[str, int]
    share: dict[str, int]

    @property
    def balance(self) -> dict[str, int]:
        """Positive: paid more than their share (the others owe them that much)."""
        return {m: self.paid[m] - self.share[m] for m in self.members}

    def to_json(self) -> dict[str, Any]:
        ahead = max(self.members, key=lambda m: self.balance[m]) if self.members else None
        return {
            "month": self.month,
            "split": ":".join(str(w) for w in self.weights),
            "paid": self.paid,
            "share": self.share,
            "balance": self.balance,
            "paid_more": ahead if ahead and self.balance[ahead] > 0 else None,
            "by_yen": self.balance[ahead] if ahead else 0,
        }


class MoneyStore(DomainStore):
    """Payers, the split and the settlement over the household's expenses."""

    def members(self, household: str) -> tuple[str, ...]:
        rows = self.db.execute(
            'SELECT "user" FROM household_members WHERE household = ? ORDER BY rowid', (household,)
        ).fetchall()
        if not rows:
            raise NotFoundError(f"no household named {household!r}")
        return tuple(r[0] for r in rows)

    def split(self, household: str) -> tuple[int, ...]:
        members = self.members(household)
        row = self.db.execute(
            "SELECT ratio FROM household_splits WHERE household = ?", (household,)
        ).fetchone()
        if row is None:
            return (1,) * len(members)
        weights = tuple(int(w) for w in str(row[0]).split(":"))
        return weights if len(weights) == len(members) else (1,) * len(members)  # members changed since

    def set_split(self, household: str, ratio: str) -> tuple[int, ...]:
        weights = parse_ratio(ratio, len(self.members(household)))
        text = ":".join(str(w) for w in weights)
        with changing(self.db, household) as tx:
            tx.execute(
                "INSERT INTO household_splits (household, ratio) VALUES (?, ?) "
                "ON CONFLICT (household) DO UPDATE SET ratio = excluded.ratio",
                (household, text),
            )
        return weights

    def set_payer(self, household: str, expense_id: str, member: str) -> None:
        if member not in self.members(household):
            raise UserInputError(f"{member!r} is not a member of this household: name who paid")
        with changing(self.db, household) as tx:
            if not tx.execute(
                "UPDATE expenses SET paid_by = ? WHERE household = ? AND id = ?",
                (member, household, expense_id),
            ).rowcount:
                raise NotFoundError(
                    f"no expense with id {expense_id!r} in this household: list them to see the ids"
                )

    def settlement(self, household: str, month: str) -> Settlement:
        members, weights = self.members(household), self.split(household)
        first, following = month_range(month)
        rows = self.db.execute(
            "SELECT COALESCE(paid_by, added_by), amount_yen FROM expenses "
            "WHERE household = ? AND spent_on >= ? AND spent_on < ?",
            (household, first, following),
        ).fetchall()
        paid, share = dict.fromkeys(members, 0), dict.fromkeys(members, 0)
        for payer, amount in rows:
            if payer in paid:  # a former member's payment counts for nobody still here
                paid[payer] += int(amount)
            for member, part in zip(members, shares(int(amount), weights), strict=True):
                share[member] += part
        return Settlement(month, members, weights, paid, share)

    def trend(self, household: str, last: str, months: int = 6) -> list[tuple[str, int]]:
        """The totals of the ``months`` months up to ``last`` (``YYYY-MM``), oldest first."""
        year, month = int(last[:4]), int(last[5:])
        chosen = []
        for _ in range(months):
            if year < 1:
                break
            chosen.append(month_of(date(year, month, 1)))
            year, month = (year, month - 1) if month > 1 else (year - 1, 12)
        chosen.reverse()
        first, following = month_range(chosen[0])[0], month_range(last)[1]
        rows = self.db.execute(
            "SELECT substr(spent_on, 1, 7), SUM(amount_yen) FROM expenses "
            "WHERE household = ? AND spent_on >= ? AND spent_on < ? GROUP BY substr(spent_on, 1, 7)",
            (household, first, following),
        ).fetchall()
        totals = {str(m): int(t) for m, t in rows}
        return [(m, totals.get(m, 0)) for m in chosen]
