"""The sentences the model reads about cards: a proposal waiting, a decision made since.

They are written for the model only. Nothing is ever parsed back out of them: a proposal
is linked to its tool call by ``tool_use_id`` and a decision note to its message by the
``told`` field of the stored row, so rewording any sentence here changes what the model
reads and nothing a person sees. ``ModelNotes`` is a parameter of the assistant and the
conversation service, so an app may word them its own way.
"""

from __future__ import annotations

from dataclasses import dataclass

from ._proposals import Decision, Proposal


@dataclass(frozen=True, slots=True)
class ModelNotes:
    def waiting(self, proposal: Proposal) -> str:
        """The tool result of a write that became a confirmation card."""
        return (
            f"Not done yet: proposal {proposal.id} ({proposal.summary}) waits for {proposal.owner} to approve "
            "it on a confirmation card. Tell them it is ready for their confirmation."
        )

    def decision(self, decision: Decision) -> str:
        """How an approval or rejection is told to the model on the next turn."""
        p = decision.proposal
        if p.status == "approved":
            return f"[The person approved proposal {p.id} ({p.summary}); result: {p.result}]"
        if p.status == "rejected":
            return f"[The person rejected proposal {p.id} ({p.summary}); it was not done]"
        return f"[Proposal {p.id} ({p.summary}) was not carried out: {decision.reason}]"
