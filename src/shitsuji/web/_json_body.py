"""A JSON body validated after the session check, for a route that checks the session in its own trip.

FastAPI validates a declared body before the route runs, so a route that checks the session
inside its handler (``POST /api/chat``: the session, the words and the turn's start in one trip
to a worker thread, ``_api.signed_begun``) would answer a signed-out request with a bad body
422 instead of 401 — telling a stranger about the API before asking who they are. A dependency
that checks the session first would cost the turn a third trip. So such a route reads the raw
body and validates it here, in its trip, right after the session check: the same model, the
same 422 (``RequestValidationError``, ``loc`` under ``body`` as FastAPI gives it), and the
schema still in the OpenAPI document (``documented``).
"""

from __future__ import annotations

import email.message
from typing import Any, TypeVar

from fastapi.exceptions import RequestValidationError
from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)


def documented(model: type[BaseModel]) -> dict[str, Any]:
    """The operation's ``openapi_extra``: ``model`` as its required JSON request body."""
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    return {"requestBody": {"required": True, "content": {"application/json": {"schema": schema}}}}


def validated(model: type[M], raw: bytes, content_type: str | None) -> M:
    """``raw`` as ``model``, or ``RequestValidationError`` (422) saying what is wrong, as FastAPI would:
    an empty body is missing, a body that is not sent as JSON is refused before it is parsed."""
    if not raw:
        raise _invalid("missing", "Field required")
    if not _is_json(content_type):
        raise _invalid("content_type", "send the body as JSON (Content-Type: application/json)")
    try:
        return model.model_validate_json(raw)
    except ValidationError as exc:
        errors = [{**error, "loc": ("body", *error["loc"])} for error in exc.errors(include_url=False)]
        raise RequestValidationError(errors) from None


def _is_json(content_type: str | None) -> bool:
    if not content_type:
        return False
    message = email.message.Message()
    message["content-type"] = content_type
    subtype = message.get_content_subtype()
    return message.get_content_maintype() == "application" and (
        subtype == "json" or subtype.endswith("+json")
    )


def _invalid(kind: str, text: str) -> RequestValidationError:
    return RequestValidationError([{"type": kind, "loc": ("body",), "msg": text, "input": None}])
