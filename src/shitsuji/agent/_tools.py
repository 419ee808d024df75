"""Tools are typed Python functions that declare their effect.

``@tool(effect="read")`` turns ``def list_events(ctx: ToolContext[Deps], from_: date | None = None)``
into a ``Tool``: its JSON schema comes from the type hints (pydantic), arguments from the
model are validated before any call, and the first parameter is always the
``ToolContext`` — the verified speaker, scope and channel, and the app's typed
dependencies (``ctx.deps``: its stores, the memory engine …) — so identity is never an
argument the model could forge. A write tool's ``summary`` says in a person's words what
approving it would do; that text goes on the confirmation card.

A tool that wants something shown (a panel opened, a list sent as a rich message) says so
in its output: ``ToolOutput.effects`` holds typed ``UiEffect``s that the channel displays.
"""

from __future__ import annotations

import asyncio
import copy
import inspect
import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import tzinfo
from functools import cached_property
from typing import Any, Generic, Literal, Protocol, TypeVar, get_origin, get_type_hints, runtime_checkable

from pydantic import BaseModel, ConfigDict, ValidationError, create_model

from ..context import tools_estimate
from ..errors import UserInputError
from ..llm import Block, strict_schema
from ..privacy import shared_scope

Effect = Literal["read", "write"]


class ToolInputError(UserInputError):
    """The model's arguments do not fit the tool's schema."""


Deps = TypeVar("Deps", covariant=True)


@runtime_checkable
class NamesRows(Protocol):
    """Dependencies that can name a row by its id for a viewer (an event's title …), so that a card
    about ``id`` says what it is about on every channel; None when the viewer cannot see it."""

    def name_of(self, household: str, row_id: str, viewer: str) -> str | None: ...


@dataclass(frozen=True, slots=True)
class ToolContext(Generic[Deps]):
    """Who is asking (the pair household, user), from where, and the app's dependencies for its tools.

    Built by the channel from a verified identity, never by the model. ``deps`` is whatever
    the app's tools need (the household app passes its stores and the memory engine).
    """

    user: str
    scope: str
    channel: str
    deps: Deps
    household: str | None = None
    conversation: str | None = None
    segment: str | None = None
    message: str | None = None  # the person's words this turn answers, as ``conversation:seq``
    # the asker's time zone as the channel read it with the member (None: not read; a tool that needs
    # it asks the app): "last month" and the day a fact was said are theirs, at no statement per tool
    zone: tzinfo | None = None


@dataclass(frozen=True, slots=True)
class UiEffect:
    """Something a tool asks the channel to show; apps subclass it (e.g. opening a panel)."""


@dataclass(frozen=True, slots=True)
class ToolOutput:
    """What a tool returns: content for the model, ``untrusted`` for outside text (web pages, forwarded
    mail), and ``effects`` for the channel to display (never sent to the model)."""

    content: str | list[Block]
    untrusted: bool = False
    effects: tuple[UiEffect, ...] = ()


ToolFunction = Callable[..., Any]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    effect: Effect
    function: ToolFunction
    input_model: type[BaseModel]
    untrusted_output: bool = False
    summarize: Callable[[dict[str, Any]], str] | None = None
    # its calls are the speaker's own (what it writes lands in their private scope): its audit rows
    # and cards carry that scope, so the other members never read their arguments or summaries
    private: bool = False
    # an external write (it leaves the household: an issue on GitHub …): always a card, never
    # on an allow-list, never proposed in a turn with outside text (see ``_policy``)
    external: bool = False

    def definition(self) -> Block:
        """The tool as the Messages API wants it (a fresh copy: callers may annotate it)."""
        return copy.deepcopy(self._definition)

    @cached_property
    def _definition(self) -> Block:
        # building the JSON schema is most of a turn's CPU: once per tool is enough
        schema = compact_schema(self.input_model.model_json_schema(by_alias=True))
        if (
            self.effect == "write"
        ):  # a card is built from these arguments: have the API hold them to the schema
            return {
                "name": self.name,
                "description": self.description,
                "input_schema": strict_schema(schema),
                "strict": True,
            }
        return {"name": self.name, "description": self.description, "input_schema": schema}

    def validate(self, raw: object) -> dict[str, Any]:
        """Checked, converted arguments as the model named them (aliases), or ``ToolInputError``."""
        if not isinstance(raw, dict):
            raise ToolInputError(f"{self.name}: arguments must be a JSON object, got {type(raw).__name__}")
        try:
            parsed = self.input_model.model_validate(raw)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}" for err in exc.errors()
            )
            raise ToolInputError(f"{self.name}: {problems}") from exc
        return parsed.model_dump(mode="json", by_alias=True, exclude_unset=False)

    def scope(self, ctx: ToolContext[Any]) -> str | None:
        """The scope a call's records carry: the speaker's own for a private tool, else the household's."""
        if self.private or ctx.household is None:
            return ctx.scope
        return shared_scope(ctx.household)

    def summary(self, arguments: dict[str, Any], ctx: ToolContext[Any] | None = None) -> str:
        """One line for a confirmation card; with ``ctx`` whose deps name rows, the row an ``id``
        argument points to is shown by its name (the arguments themselves keep the id)."""
        row = arguments.get("id")
        if isinstance(row, str) and ctx is not None and ctx.household and isinstance(ctx.deps, NamesRows):
            name = ctx.deps.name_of(ctx.household, row, ctx.user)
            arguments = {**arguments, "id": f"「{name}」"} if name else arguments
        if self.summarize is not None:
            return self.summarize(arguments)
        shown = ", ".join(f"{k}={v}" for k, v in arguments.items() if v is not None)
        return f"{self.name}({shown})"

    async def run(self, ctx: ToolContext[Any], arguments: dict[str, Any]) -> ToolOutput:
        """Validate again (arguments may come from storage) and call the function."""
        parsed = self.input_model.model_validate(self.validate(arguments))
        kwargs = {name: getattr(parsed, name) for name in type(parsed).model_fields}
        if inspect.iscoroutinefunction(self.function):
            result = await self.function(ctx, **kwargs)
        else:
            result = await asyncio.to_thread(self.function, ctx, **kwargs)
        if isinstance(result, ToolOutput):
            return result
        # content blocks come wrapped in a ToolOutput; any other value is sent as JSON text
        content = result if isinstance(result, str) else _json(result)
        return ToolOutput(content=content, untrusted=self.untrusted_output)


def tool(
    *,
    effect: Effect,
    name: str | None = None,
    description: str | None = None,
    untrusted: bool = False,
    summary: Callable[[dict[str, Any]], str] | None = None,
    private: bool = False,
    external: bool = False,
) -> Callable[[ToolFunction], Tool]:
    """Make a ``Tool`` of a function whose first parameter is the ``ToolContext``; ``external``
    marks a write that leaves the household (the policy's external-write class)."""
    if external and effect != "write":
        raise ValueError("an external tool is a write: use effect='write'")

    def wrap(function: ToolFunction) -> Tool:
        doc = inspect.getdoc(function) or ""
        return Tool(
            name=name or function.__name__,
            description=description or doc,
            effect=effect,
            function=function,
            input_model=_input_model(function),
            untrusted_output=untrusted,
            summarize=summary,
            private=private,
            external=external,
        )

    return wrap


def _input_model(function: ToolFunction) -> type[BaseModel]:
    signature = inspect.signature(function)
    hints = get_type_hints(function, include_extras=True)
    params = list(signature.parameters.values())
    first = hints.get(params[0].name) if params else None
    if first is not ToolContext and get_origin(first) is not ToolContext:
        raise TypeError(f"tool {function.__name__}: the first parameter must be `ctx: ToolContext[...]`")
    fields: dict[str, Any] = {}
    for param in params[1:]:
        if param.name not in hints:
            raise TypeError(f"tool {function.__name__}: parameter {param.name!r} needs a type hint")
        default = ... if param.default is inspect.Parameter.empty else param.default
        fields[param.name] = (hints[param.name], default)
    config = ConfigDict(extra="forbid", populate_by_name=True, str_strip_whitespace=True)
    model: type[BaseModel] = create_model(f"{function.__name__}_input", __config__=config, **fields)
    return model


def compact_schema(schema: Any) -> Any:
    """Pydantic's schema without what the model does not need, sent on every request.

    Drops generated titles and ``additionalProperties: false``, and turns ``anyOf: [T, null]`` with a null default into plain
    ``T`` (the field is optional because it is not required). About a third fewer tokens.
    """
    if isinstance(schema, list):
        return [compact_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key == "title" and isinstance(value, str):
            continue
        if key == "additionalProperties" and value is False:
            continue  # extra arguments are refused by validation anyway
        if key == "properties" and isinstance(value, dict):
            out[key] = {name: compact_schema(sub) for name, sub in value.items()}
        else:
            out[key] = compact_schema(value)
    options = out.get("anyOf")
    if (
        isinstance(options, list)
        and len(options) == 2
        and {"type": "null"} in options
        and out.get("default", 0) is None
    ):
        kept = next(o for o in options if o != {"type": "null"})
        del out["anyOf"], out["default"]
        out = {**kept, **out}
    return out


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


class Toolbox:
    """The tools a conversation may use, always listed in the same order so prompt caching holds."""

    def __init__(self, tools: Iterable[Tool]) -> None:
        self._tools: dict[str, Tool] = {}
        for t in tools:
            if t.name in self._tools:
                raise ValueError(f"two tools are named {t.name!r}")
            self._tools[t.name] = t

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __iter__(self) -> Iterator[Tool]:
        return iter(self._tools[name] for name in sorted(self._tools))

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def definitions(self) -> list[Block]:
        """Every tool's definition, in order: a new list of new top-level dicts over shared schemas
        (nothing downstream changes a schema; deep copies were a third of a turn's CPU)."""
        return [dict(d) for d in self._definitions]

    @cached_property
    def definitions_tokens(self) -> int:
        """``tools_estimate`` of every definition, made once: they never change (dumping them to JSON for
        each turn's calibration was a tenth of a web turn's CPU on the event loop)."""
        return tools_estimate(self._definitions)

    @cached_property
    def _definitions(self) -> tuple[Block, ...]:
        return tuple(t.definition() for t in self)
