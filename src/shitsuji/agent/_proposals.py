"""Approval is data: a write the model asked for waits as a durable proposal.

A proposal is bound to the exact arguments (their hash is checked again at approval),
owned by the person who asked — the pair (household, user) — and expires. It records the
``tool_use_id`` of the model's call that made it, so a channel finds a card's place in the
conversation by that id, never by reading the text the model was given. ``approve`` runs the tool exactly once: the
pending → running transition is one conditional UPDATE, so a second, concurrent or late
approval finds nothing to claim and is told why. Nothing here blocks the conversation;
a pending proposal simply waits.

Every change of a card commits with its audit row. An approved card's tool runs with its outcome
attached to its first write on this database (``store.with_next_write``): the household row, the
card's "approved" and the audit row are one transaction, so after a crash the card is either done
and recorded or still "running" with nothing written. A running card names its executor (the
process, ``Database.holder()``); when that process is gone the card is ``interrupted`` and its owner
may ``retry`` it — one conditional UPDATE hands it to the retrying process, so it runs at most once more.
"""

from __future__ import annotations

import hashlib
import json
import secrets
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from typing import Any, Literal

from .. import store as db
from .._offload import off_loop
from ..audit import AuditEvent, AuditLog
from ..errors import NotFoundError
from ..safety import sanitize
from ._schema import AGENT_SCHEMA
from ._tools import Tool, Toolbox, ToolContext, ToolInputError, ToolOutput

Status = Literal["pending", "running", "approved", "rejected", "failed"]
# why a decision came out as it did, for channels to put in a person's words (``reason`` is English)
Outcome = Literal[
    "approved", "rejected", "failed", "not_owner", "expired", "running", "already_decided", "interrupted"
]
DEFAULT_TTL = timedelta(hours=24)
PROPOSALS = db.Table(
    "proposals",
    (
        "id", "tool", "input", "input_hash", "summary", "owner", "household", "channel", "conversation",
        "status", "result", "created_at", "expires_at", "decided_at", "decided_by", "tool_use_id", "message",
        "executor", "scope",
    ),
)  # fmt: skip


def arguments_hash(tool_name: str, arguments: dict[str, Any]) -> str:
    canonical = json.dumps([tool_name, arguments], ensure_ascii=False, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Proposal:
    id: str
    tool: str
    input: dict[str, Any]
    input_hash: str
    summary: str
    owner: str
    household: str | None
    channel: str
    conversation: str | None
    status: Status
    result: str | None
    created_at: datetime
    expires_at: datetime
    decided_at: datetime | None = None
    decided_by: str | None = None
    tool_use_id: str | None = None
    message: str | None = None  # the person's message that led to it (``conversation:seq``)
    scope: str | None = None  # the household's, or the owner's own (a private tool): see ``privacy``
    executor: str | None = None  # the process carrying it out while ``running``
    interrupted: bool = False  # running, but its executor is gone: its owner may retry it

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "tool": self.tool,
            "input": self.input,
            "summary": self.summary,
            "owner": self.owner,
            "channel": self.channel,
            "conversation": self.conversation,
            "status": self.status,
            "result": self.result,
            "created_at": self.created_at.isoformat(),
            "expires_at": self.expires_at.isoformat(),
            "decided_at": self.decided_at.isoformat() if self.decided_at else None,
            "decided_by": self.decided_by,
            "interrupted": self.interrupted,
        }


@dataclass(frozen=True, slots=True)
class Decision:
    """What an approve or reject call did: ``done`` is False when nothing changed, and ``reason`` says why
    (in English, for the model and the terminal; ``code`` is the same as data for other languages)."""

    proposal: Proposal
    done: bool
    reason: str
    output: ToolOutput | None = None
    code: Outcome = "approved"


def _row(row: Sequence[Any]) -> Proposal:
    r = PROPOSALS.named(row)
    when = {
        k: datetime.fromisoformat(r[k]) if r[k] else None for k in ("created_at", "expires_at", "decided_at")
    }
    return Proposal(**{**r, **when, "input": json.loads(r["input"])})


def _values(p: Proposal) -> dict[str, Any]:
    """A proposal as its row's values."""
    return {
        **{k: getattr(p, k) for k in PROPOSALS.columns},
        "input": json.dumps(p.input, ensure_ascii=False, sort_keys=True),
        "created_at": p.created_at.isoformat(),
        "expires_at": p.expires_at.isoformat(),
        "decided_at": p.decided_at.isoformat() if p.decided_at else None,
    }


class Proposals:
    """Durable proposals in the shitsuji database, and the approve/reject rules."""

    def __init__(
        self,
        database: db.Database,
        *,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        ttl: timedelta = DEFAULT_TTL,
        household_may_approve: bool = False,
        audit: AuditLog | None = None,
    ) -> None:
        self.audit = audit  # every write, proposal and decision is recorded there
        database.ensure(AGENT_SCHEMA)
        self.path = database.target
        self._conn = database  # the process's: its edge opens and closes it
        self.clock = clock
        self.ttl = ttl
        self.household_may_approve = household_may_approve

    def close(self) -> None:
        """Nothing to let go: the database is the process's, closed by its edge."""

    def propose(
        self, tool: Tool, arguments: dict[str, Any], ctx: ToolContext[Any], *, tool_use_id: str | None = None
    ) -> Proposal:
        """Record a validated write for ``ctx``'s (household, user) to approve later."""
        checked = tool.validate(arguments)
        now = self.clock()
        proposal = Proposal(
            id="p_" + secrets.token_hex(6),
            tool=tool.name,
            input=checked,
            input_hash=arguments_hash(tool.name, checked),
            summary=sanitize(tool.summary(checked, ctx)).text,  # shown to people on the card
            owner=ctx.user,
            household=ctx.household,
            channel=ctx.channel,
            conversation=ctx.conversation,
            status="pending",
            result=None,
            created_at=now,
            expires_at=now + self.ttl,
            tool_use_id=tool_use_id,
            message=ctx.message,
            scope=tool.scope(ctx),
        )
        with self._conn.write() as tx:
            tx.execute(PROPOSALS.insert(), PROPOSALS.values(_values(proposal)))
            self._record(tx, "proposal.made", proposal, ctx.user, ctx)
        return proposal

    @contextmanager
    def unattended(
        self, tool: Tool, arguments: dict[str, Any], ctx: ToolContext[Any]
    ) -> Iterator[db.Attached]:
        """Around a write that runs without a card (the channel's policy allowed it): its audit row
        rides in the tool's first write on this database (``auto_ran`` records it otherwise)."""
        event = self._ran_event(tool, arguments, ctx, ok=True)
        audit = self.audit

        def recorded(tx: db.Tx) -> None:
            if audit is not None:
                audit.record(event, tx)

        with db.with_next_write(self._conn, recorded) as attached:
            yield attached

    def auto_ran(
        self,
        tool: Tool,
        arguments: dict[str, Any],
        ctx: ToolContext[Any],
        *,
        ok: bool,
        recorded: bool = False,
    ) -> None:
        """Record a write that ran without a card, unless its own transaction ``recorded`` it."""
        if self.audit is not None and not (ok and recorded):
            self.audit.record(self._ran_event(tool, arguments, ctx, ok=ok))

    @staticmethod
    def _ran_event(tool: Tool, arguments: dict[str, Any], ctx: ToolContext[Any], *, ok: bool) -> AuditEvent:
        return AuditEvent(
            action="tool.ran" if ok else "tool.failed",
            actor=ctx.user,
            household=ctx.household,
            channel=ctx.channel,
            conversation=ctx.conversation,
            subject=tool.name,
            scope=tool.scope(ctx),
            owner=ctx.user,
            detail={"input": arguments},
        )

    def _record(
        self, tx: db.Tx, action: str, p: Proposal, actor: str, ctx: ToolContext[Any] | None = None
    ) -> None:
        if self.audit is not None:
            self.audit.record(
                AuditEvent(
                    action=action,
                    actor=actor,
                    household=p.household,
                    channel=ctx.channel if ctx else p.channel,
                    conversation=p.conversation,
                    subject=p.id,
                    scope=p.scope,
                    owner=p.owner,
                    detail={
                        "tool": p.tool,
                        "summary": p.summary,
                        **({"result": p.result} if p.result else {}),
                    },
                ),
                tx,
            )

    def _seen(self, proposal: Proposal) -> Proposal:
        """``proposal`` as its owner should see it: a running card whose executor is gone is interrupted."""
        if proposal.status != "running" or proposal.executor is None:
            return proposal
        return replace(proposal, interrupted=not self._conn.holder_alive(proposal.executor))

    def get(self, proposal_id: str) -> Proposal:
        row = self._conn.execute(f"{PROPOSALS.select} WHERE id = ?", (proposal_id,)).fetchone()
        if row is None:
            raise NotFoundError(f"no proposal with id {proposal_id!r}: `shitsuji proposals list` shows them")
        return self._seen(_row(row))

    def after(self, write: tuple[str, db.Params]) -> tuple[str, list[Proposal]] | None:
        """Run ``write``, one statement returning a conversation's id (a turn's claim: ``TurnClaims.picking``),
        and read that conversation's cards as ``list(conversation=…)`` does; None when it returns no row.

        One statement on PostgreSQL (the write a data-modifying ``WITH``): one round trip fewer per turn.
        Its read sees the cards as they were when the statement began — as a read sent just after it
        would, but for a card decided in between, whose decision the next turn tells. Nothing is kept
        past the turn. On SQLite the read follows the write (in the process: no round trips to save)."""
        sql, params = write
        if self._conn.dialect != "postgresql":
            with self._conn.write() as tx:
                row = tx.execute(sql, params).fetchone()
            return None if row is None else (str(row[0]), self.list(conversation=str(row[0])))
        columns = ", ".join(f"p.{c}" for c in PROPOSALS.columns)
        rows = self._conn.write_one(
            f"WITH taken AS ({sql}) SELECT taken.conversation, {columns} FROM taken "
            "LEFT JOIN proposals p ON p.conversation = taken.conversation ORDER BY p.created_at, p.id",
            params,
        ).fetchall()
        if not rows:
            return None
        return str(rows[0][0]), [self._seen(_row(r[1:])) for r in rows if r[1] is not None]

    def list(
        self,
        *,
        household: str | None = None,
        owner: str | None = None,
        conversation: str | None = None,
        status: Status | None = None,
    ) -> list[Proposal]:
        """Proposals matching every filter given; an owner is meant with their household (the pair)."""
        where, params = [], []
        filters = (
            ("household", household),
            ("owner", owner),
            ("conversation", conversation),
            ("status", status),
        )
        for column, value in filters:
            if value is not None:
                where.append(f"{column} = ?")
                params.append(value)
        sql = PROPOSALS.select + (" WHERE " + " AND ".join(where) if where else "")
        rows = self._conn.execute(sql + " ORDER BY created_at, id", params).fetchall()
        return [self._seen(_row(r)) for r in rows]

    async def approve(self, proposal_id: str, ctx: ToolContext[Any], toolbox: Toolbox) -> Decision:
        """Run the proposed tool once, as ``ctx`` (who must be allowed to approve). Its database steps
        run in a worker thread (``off_loop``): an approval from the web never holds the event loop."""
        proposal = await off_loop(self.get, proposal_id)
        refusal = self._refusal(proposal, ctx)
        if refusal:
            return Decision(proposal, False, refusal, code="not_owner")
        claimed = await off_loop(self._claim, proposal.id, ctx.user)
        if claimed is None:
            return self._not_pending(await off_loop(self.get, proposal.id))
        return await self._carry_out(claimed, ctx, toolbox)

    async def retry(self, proposal_id: str, ctx: ToolContext[Any], toolbox: Toolbox) -> Decision:
        """Carry out again a card whose executor died before it finished (``interrupted``): this
        process takes it over in one conditional UPDATE, so two retries never both run it."""
        proposal = await off_loop(self.get, proposal_id)
        refusal = self._refusal(proposal, ctx)
        if refusal:
            return Decision(proposal, False, refusal, code="not_owner")
        if not proposal.interrupted:
            return self._not_pending(proposal)
        taken = await off_loop(self._take_over, proposal, ctx)
        if taken is None:
            return self._not_pending(await off_loop(self.get, proposal.id))
        return await self._carry_out(taken, ctx, toolbox)

    def _take_over(self, proposal: Proposal, ctx: ToolContext[Any]) -> Proposal | None:
        """This process takes over an interrupted card (None: another did first)."""
        me = self._conn.holder()  # before the transaction: it may need a connection of its own
        with self._conn.write() as tx:
            taken = tx.execute(
                "UPDATE proposals SET executor = ?, decided_by = ? "
                "WHERE id = ? AND status = 'running' AND executor = ?",
                (me, ctx.user, proposal.id, proposal.executor),
            ).rowcount
            if taken:
                self._record(tx, "proposal.retried", proposal, ctx.user, ctx)
        return self.get(proposal.id) if taken else None

    async def _carry_out(self, claimed: Proposal, ctx: ToolContext[Any], toolbox: Toolbox) -> Decision:
        tool = toolbox.get(claimed.tool)
        if tool is None:
            return await off_loop(
                self._finish, claimed, "failed", f"the tool {claimed.tool!r} is no longer available"
            )
        if arguments_hash(tool.name, claimed.input) != claimed.input_hash:
            return await off_loop(
                self._finish, claimed, "failed", "the stored arguments changed after the proposal was made"
            )
        try:  # the schema may have changed since the card was made: refuse whole, before any write
            tool.validate(claimed.input)
        except ToolInputError as exc:
            return await off_loop(
                self._finish,
                claimed,
                "failed",
                f"nothing was changed: the card no longer fits the tool ({exc})",
            )

        def approved(tx: db.Tx) -> None:  # commits with the tool's own first write on this database
            self._settle(tx, claimed, "approved", None)

        try:
            with db.with_next_write(self._conn, approved) as attached:
                output = await tool.run(ctx, claimed.input)
        except Exception as exc:  # the tool's failure is the proposal's outcome, recorded for the model
            failure = f"{type(exc).__name__}: {exc}"
            return await off_loop(self._finish, claimed, "failed", failure, settled=attached.committed)
        text = (
            output.content
            if isinstance(output.content, str)
            else json.dumps(output.content, ensure_ascii=False)
        )
        return await off_loop(self._finish, claimed, "approved", text, output, settled=attached.committed)

    def reject(self, proposal_id: str, ctx: ToolContext[Any]) -> Decision:
        proposal = self.get(proposal_id)
        refusal = self._refusal(proposal, ctx)
        if refusal:
            return Decision(proposal, False, refusal, code="not_owner")
        now = self.clock()
        with self._conn.write() as tx:
            changed = tx.execute(
                "UPDATE proposals SET status = 'rejected', decided_at = ?, decided_by = ? "
                "WHERE id = ? AND status = 'pending'",
                (now.isoformat(), ctx.user, proposal.id),
            ).rowcount
            if changed:
                current = replace(proposal, status="rejected", decided_at=now, decided_by=ctx.user)
                self._record(tx, "proposal.rejected", current, ctx.user, ctx)
        current = self.get(proposal.id)
        if not changed:
            return self._not_pending(current)
        return Decision(current, True, f"rejected: {current.summary}", code="rejected")

    def _refusal(self, proposal: Proposal, ctx: ToolContext[Any]) -> str | None:
        if ctx.household == proposal.household and ctx.user == proposal.owner:
            return None
        if self.household_may_approve and proposal.household and ctx.household == proposal.household:
            return None
        return f"only {proposal.owner} may decide on this proposal"

    def _claim(self, proposal_id: str, user: str) -> Proposal | None:
        now = self.clock()
        me = self._conn.holder()  # before the transaction: it may need a connection of its own
        with self._conn.write() as tx:
            changed = tx.execute(
                "UPDATE proposals SET status = 'running', decided_at = ?, decided_by = ?, executor = ? "
                "WHERE id = ? AND status = 'pending' AND expires_at > ?",
                (now.isoformat(), user, me, proposal_id, now.isoformat()),
            ).rowcount
        return self.get(proposal_id) if changed else None

    def _settle(self, tx: db.Tx, proposal: Proposal, status: Status, result: str | None) -> bool:
        """The running card's outcome and its audit row, in ``tx``; False if it was no longer running."""
        changed = tx.execute(
            "UPDATE proposals SET status = ?, result = ?, executor = NULL WHERE id = ? AND status = 'running'",
            (status, result, proposal.id),
        ).rowcount
        if changed:
            done = replace(proposal, status=status, result=result)
            self._record(tx, f"proposal.{status}", done, proposal.decided_by or proposal.owner)
        return bool(changed)

    def _finish(
        self,
        proposal: Proposal,
        status: Status,
        result: str,
        output: ToolOutput | None = None,
        *,
        settled: bool = False,
    ) -> Decision:
        """The tool's result on the card; its status too unless the tool's write already ``settled`` it."""
        result = sanitize(result).text  # shown to people on the card, and told to the model
        with self._conn.write() as tx:
            if settled:  # "approved" committed with the write: the result is only its wording
                tx.execute("UPDATE proposals SET result = ? WHERE id = ?", (result, proposal.id))
            else:
                self._settle(tx, proposal, status, result)
        done = self.get(proposal.id)
        ok = done.status == "approved"
        verb = "done" if ok else "failed"
        return Decision(
            done,
            ok,
            f"{verb}: {proposal.summary}" + ("" if output else f" ({result})"),
            output,
            code="approved" if ok else "failed",
        )

    @staticmethod
    def _not_pending(proposal: Proposal) -> Decision:
        if proposal.status == "pending":
            why = f"expired at {proposal.expires_at.isoformat(timespec='minutes')}: ask again"
            return Decision(proposal, False, why, code="expired")
        if proposal.interrupted:
            why = "interrupted: the process carrying it out stopped before it finished; retry it"
            return Decision(proposal, False, why, code="interrupted")
        if proposal.status == "running":
            return Decision(proposal, False, "already being carried out", code="running")
        by = f" by {proposal.decided_by}" if proposal.decided_by else ""
        return Decision(proposal, False, f"already {proposal.status}{by}", code="already_decided")
