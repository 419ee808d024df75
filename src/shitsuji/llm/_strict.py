"""Tool schemas in the subset that strict tool use accepts (``strict: true``).

With ``strict: true`` the API constrains the model's arguments to the schema, but only a subset of JSON
Schema is allowed: every object must say ``additionalProperties: false``, and numeric and length bounds
(``minimum``, ``maxLength`` …) and item counts above one are refused with HTTP 400. ``strict_schema``
returns that subset; the dropped bounds are still enforced where they always were — the tool validates
its arguments when the card is made and again when it is approved.
"""

from __future__ import annotations

from typing import Any

UNSUPPORTED = frozenset(
    {
        "minimum",
        "maximum",
        "exclusiveMinimum",
        "exclusiveMaximum",
        "multipleOf",
        "minLength",
        "maxLength",
        "maxItems",
    }
)


def strict_schema(schema: Any) -> Any:
    """``schema`` with ``additionalProperties: false`` on every object and the unsupported bounds left out."""
    if isinstance(schema, list):
        return [strict_schema(item) for item in schema]
    if not isinstance(schema, dict):
        return schema
    out: dict[str, Any] = {}
    for key, value in schema.items():
        if key in UNSUPPORTED or (key == "minItems" and isinstance(value, int) and value > 1):
            continue
        if key in ("properties", "$defs") and isinstance(value, dict):
            out[key] = {name: strict_schema(sub) for name, sub in value.items()}
        else:
            out[key] = strict_schema(value)
    if out.get("type") == "object":
        out["additionalProperties"] = False
    return out
