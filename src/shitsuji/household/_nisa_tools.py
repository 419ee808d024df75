"""The butler's NISA tools: the speaker's room this year, their (and what is shared of the other's)
purchases and holdings, and money writes — each a card on every channel (none is on any allow-list).

The account is always the speaker's own: the owner is ``ctx.user``, never an argument, so
the butler cannot buy into the spouse's account or read their private rows.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Field

from ..agent import tool
from ._deps import Ctx
from ._nisa import FRAME_JA, Frame, NisaStore
from ._tools import Day, RowId, Title, _household, _json, _md
from ._values import MAX_YEN

Yen = Annotated[int, Field(strict=True, gt=0, le=MAX_YEN, description="Whole yen, e.g. 50000.")]
FrameArg = Annotated[Frame, Field(description="tsumitate (つみたて投資枠) or growth (成長投資枠).")]
Shared = Annotated[
    bool, Field(description="True: the household may see it; private to the speaker otherwise.")
]


def nisa_of(ctx: Ctx) -> tuple[NisaStore, str]:
    store, household = _household(ctx)
    return NisaStore(store.database, clock=store.clock), household


@tool(effect="read")
def nisa_allowance(
    ctx: Ctx, year: Annotated[int | None, Field(ge=2024, le=2100, description="This year if omitted.")] = None
) -> str:
    """The speaker's NISA room: yen left this year in each frame and for life (2024 rules), from their data."""
    nisa, household = nisa_of(ctx)
    return _json(nisa.allowance(household, ctx.user, year or ctx.deps.store.today(household).year).to_json())


@tool(effect="read")
def list_nisa(
    ctx: Ctx, year: Annotated[int | None, Field(ge=2024, le=2100, description="All years if omitted.")] = None
) -> str:
    """NISA purchases and holdings the speaker may see (their own, and what the other member shares)."""
    nisa, household = nisa_of(ctx)
    return _json(
        {
            "contributions": [c.to_json() for c in nisa.contributions(household, ctx.user, year=year)],
            "holdings": [h.to_json() for h in nisa.holdings(household, ctx.user)],
        }
    )


def _buy_summary(a: dict[str, Any]) -> str:
    day = f"{_md(a['date'])} " if a.get("date") else ""
    return f"{day}NISA {FRAME_JA[a['frame']]}で {a['fund']} を ¥{a['amount']:,} 購入として記録"


@tool(effect="write", summary=_buy_summary)
def add_nisa_contribution(
    ctx: Ctx,
    frame: FrameArg,
    fund: Title,
    amount: Yen,
    date: Annotated[Day | None, Field(description="Day bought, ISO 8601; today if omitted.")] = None,
    shared: Shared = False,
) -> str:
    """Record a purchase in the speaker's own NISA account (refused past a yearly or lifetime limit)."""
    nisa, household = nisa_of(ctx)
    day = date or ctx.deps.store.today(household)
    row = nisa.contribute(household, frame, fund, amount, day, by=ctx.user, shared=shared)
    return f"recorded NISA {row.frame} ¥{row.amount_yen:,} {row.fund} on {row.day} (id {row.id})"


@tool(
    effect="write",
    summary=lambda a: f"NISA {FRAME_JA[a['frame']]}の {a['fund']} の評価額を ¥{a['value']:,} に更新",
)
def set_nisa_holding(
    ctx: Ctx,
    frame: FrameArg,
    fund: Title,
    value: Annotated[int, Field(strict=True, ge=0, le=MAX_YEN, description="Its value now, whole yen.")],
    as_of: Annotated[Day | None, Field(description="ISO 8601; today if omitted.")] = None,
    shared: Shared = False,
) -> str:
    """Set what a fund in the speaker's NISA account is worth now."""
    nisa, household = nisa_of(ctx)
    row = nisa.set_holding(
        household, frame, fund, value, as_of or ctx.deps.store.today(household), by=ctx.user, shared=shared
    )
    return f"{row.fund} ({row.frame}) is worth ¥{row.value_yen:,} as of {row.as_of}"


@tool(effect="write", summary=lambda a: f"NISA の購入記録 {a['id']} を削除")
def remove_nisa_contribution(ctx: Ctx, id: RowId) -> str:
    """Remove one of the speaker's NISA purchases (the id comes from list_nisa)."""
    nisa, household = nisa_of(ctx)
    row = nisa.remove_contribution(household, id, ctx.user)
    return f"removed NISA purchase ¥{row.amount_yen:,} {row.fund} on {row.day}"


NISA_TOOLS = (nisa_allowance, list_nisa, add_nisa_contribution, set_nisa_holding, remove_nisa_contribution)
