"""The butler's tools for money as a couple manages it: the month's settlement, the split ratio, who paid.

``settlement`` answers "今月はどっちがいくら多く払った？" from the data; changing the split or
an expense's payer is a money write, so each is a card on every channel.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from ..agent import tool
from ._deps import Ctx
from ._money import MoneyStore
from ._tools import Month, RowId, _household, _json
from ._values import month_of


def money_of(ctx: Ctx) -> tuple[MoneyStore, str]:
    store, household = _household(ctx)
    return MoneyStore(store.database, clock=store.clock), household


@tool(effect="read")
def settlement(ctx: Ctx, month: Month | None = None) -> str:
    """A month's settlement: what each member paid, their share under the split, and who paid how much more."""
    money, household = money_of(ctx)
    chosen = month or month_of(ctx.deps.store.today(household))
    return _json(money.settlement(household, chosen).to_json())


@tool(effect="write", summary=lambda a: f"支出の負担割合を {a['ratio']} にする")
def set_split(
    ctx: Ctx,
    ratio: Annotated[
        str,
        Field(min_length=3, max_length=20, description="One weight per member in household order, e.g. 6:4."),
    ],
) -> str:
    """Set how the household's expenses are shared between its members (e.g. 6:4)."""
    money, household = money_of(ctx)
    weights = money.set_split(household, ratio)
    return f"split set to {':'.join(map(str, weights))} ({', '.join(money.members(household))})"


@tool(effect="write", summary=lambda a: f"支出 {a['id']} を {a['paid_by']} さんが払ったことにする")
def set_expense_payer(
    ctx: Ctx,
    id: RowId,
    paid_by: Annotated[str, Field(min_length=1, max_length=40, description="A member's id.")],
) -> str:
    """Record which member paid an expense (the id comes from list_expenses)."""
    money, household = money_of(ctx)
    money.set_payer(household, id, paid_by)
    return f"expense {id} paid by {paid_by}"


MONEY_TOOLS = (settlement, set_split, set_expense_payer)
