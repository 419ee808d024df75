"""The NISA panel's actions: each one becomes a card (a proposal the member then approves), never a
direct write, since every money write is a card on every channel (the panel is no exception).

The form or JSON names one of the NISA write tools and its arguments; the card is the signed-in
member's own, in their household, checked as the model's arguments are (``Tool.validate``), and
approving it runs the tool with the member as the account's owner (never an argument).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from pydantic import BaseModel, ConfigDict, Field

from .._offload import off_loop
from ._member import Member
from ._pages import see
from ._security import backend_of, signed_in

router = APIRouter(include_in_schema=False)
api = APIRouter(prefix="/api")
Signed = Annotated[Member, Depends(signed_in)]
NisaTool = Literal["add_nisa_contribution", "set_nisa_holding", "remove_nisa_contribution"]
_ARGUMENTS: dict[str, tuple[str, ...]] = {  # what each tool takes from the form
    "add_nisa_contribution": ("frame", "fund", "amount", "date", "shared"),
    "set_nisa_holding": ("frame", "fund", "value", "as_of", "shared"),
    "remove_nisa_contribution": ("id",),
}


class NisaCardIn(BaseModel):
    """One NISA write to put on a card: ``tool`` and the fields it takes (others are left out)."""

    model_config = ConfigDict(extra="forbid")
    tool: NisaTool
    frame: str | None = Field(default=None, max_length=20)
    fund: str | None = Field(default=None, max_length=200)
    amount: int | None = None
    value: int | None = None
    date: str | None = Field(default=None, max_length=10)
    as_of: str | None = Field(default=None, max_length=10)
    id: str | None = Field(default=None, max_length=40)
    shared: bool = False

    def arguments(self) -> dict[str, Any]:
        given = self.model_dump()
        return {k: given[k] for k in _ARGUMENTS[self.tool] if given[k] is not None}


@router.post("/nisa-cards")
async def nisa_card_form(member: Signed, request: Request) -> Response:
    """Without JavaScript: the panel's form becomes a card, shown on the Proposals page to approve."""
    form = await request.form()
    fields: dict[str, Any] = {
        k: v for k, v in form.items() if k not in ("csrf", "back") and isinstance(v, str) and v != ""
    }
    fields["shared"] = fields.get("shared") == "true"
    made = NisaCardIn.model_validate(fields)
    proposal = await off_loop(backend_of(request).propose, member, made.tool, made.arguments())
    return see(f"/proposals#{proposal.id}")


@api.post("/nisa/cards", tags=["panels"])
async def nisa_card(made: NisaCardIn, member: Signed, request: Request) -> dict[str, Any]:
    """Put a NISA write (a purchase, a holding's value, a purchase's removal) on a card for the
    signed-in member to approve; answers the card (``POST /api/proposals/{id}/approve`` runs it)."""
    backend = backend_of(request)
    proposal = await off_loop(backend.propose, member, made.tool, made.arguments())
    return await off_loop(backend.card, proposal)  # names the row: a database read
