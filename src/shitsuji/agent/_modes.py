"""Modes and the router that picks one for each message.

A cheap model reads the latest message and names its kind: chat (small talk), info
(facts, maybe from the web), engineer (technical work) or task (do something in the
household). Anything unclear — an unknown word, an error, a dead router — is ``task``,
the mode with the most rounds and every tool. Modes come from configuration (a TOML
file, ``[modes.NAME]`` tables) over these defaults. A mode asks for a thinking depth (none, fast,
normal, deep), never a thinking form: the capability table in ``llm`` shapes it per model.
"""

from __future__ import annotations

import logging
import tomllib
from collections.abc import Mapping
from dataclasses import fields, replace
from pathlib import Path
from typing import Any

from ..errors import ModelError, UserInputError
from ..llm import CHEAP_MODEL, DEPTHS, MAIN_MODEL, Model, ModelRequest
from ._loop import Mode

log = logging.getLogger(__name__)

FALLBACK_MODE = "task"

DEFAULT_MODES: Mapping[str, Mode] = {
    "chat": Mode("chat", CHEAP_MODEL, max_rounds=2),
    "info": Mode(
        "info", MAIN_MODEL, max_rounds=3, web_search=True, web_fetch=True, depth="fast", max_tokens=4096
    ),
    "engineer": Mode("engineer", MAIN_MODEL, max_rounds=3, depth="deep", max_tokens=16000),
    "task": Mode("task", MAIN_MODEL, max_rounds=4, depth="normal", max_tokens=4096),
}

ROUTER_PROMPT = (
    "Classify the user's latest message for a household butler. Answer with exactly one word:\n"
    "chat — greetings, thanks, small talk;\n"
    "info — a question that needs facts or current information;\n"
    "engineer — programming or technical troubleshooting;\n"
    "task — anything to do, add, change, plan or look up in the household (shopping, events, to-dos and\n"
    "recurring ones such as garbage days/ゴミの日, expenses,\n"
    "recipes/meals, anniversaries/記念日, NISA, requests for the app).\n"
    "If unsure, answer task."
)


def load_modes(path: Path | None, *, model: str | None = None) -> dict[str, Mode]:
    """The default modes, overridden by ``[modes.NAME]`` tables of a TOML file, then ``model`` for every mode."""
    modes = dict(DEFAULT_MODES)
    if path is not None:
        modes = _from_file(modes, path)
    if model:
        modes = {name: replace(mode, model=model) for name, mode in modes.items()}
    return modes


def _from_file(modes: dict[str, Mode], path: Path) -> dict[str, Mode]:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UserInputError(f"cannot read the configuration {path}: {exc}") from exc
    known = {f.name for f in fields(Mode)} - {"name"}
    for name, table in (data.get("modes") or {}).items():
        if not isinstance(table, dict) or set(table) - known:
            raise UserInputError(f"{path}: [modes.{name}] may only set {', '.join(sorted(known))}")
        base = modes.get(name, modes[FALLBACK_MODE])
        modes[name] = _checked(replace(base, name=name, **_values(table)), path)
    return modes


def _values(table: dict[str, Any]) -> dict[str, Any]:
    """TOML lists as tuples and the location table as pairs (a mode is frozen and hashable)."""
    out = {k: tuple(v) if isinstance(v, list) else v for k, v in table.items()}
    location = out.get("web_user_location")
    if isinstance(location, dict):
        out["web_user_location"] = tuple((str(k), str(v)) for k, v in location.items())
    return out


def _checked(mode: Mode, path: Path) -> Mode:
    where = f"{path}: [modes.{mode.name}]"
    if not (1 <= mode.max_rounds <= 20):
        raise UserInputError(f"{where} max_rounds must be 1-20")
    if mode.depth not in DEPTHS:
        raise UserInputError(f"{where} depth must be one of {', '.join(DEPTHS)}")
    if not (0.1 <= mode.window_refill <= 0.95):
        raise UserInputError(
            f"{where} window_refill must be 0.1-0.95 (the share of the window kept on a fold)"
        )
    if mode.cache_ttl not in ("5m", "1h"):
        raise UserInputError(f"{where} cache_ttl must be 5m or 1h")
    if mode.web_allowed_domains and mode.web_blocked_domains:
        raise UserInputError(f"{where} set web_allowed_domains or web_blocked_domains, not both")
    unknown = {k for k, _ in mode.web_user_location} - {"city", "region", "country", "timezone"}
    if unknown:
        raise UserInputError(f"{where} web_user_location may only set city, region, country, timezone")
    return mode


async def route(
    model: Model, message: str, modes: Mapping[str, Mode], *, router_model: str = CHEAP_MODEL
) -> Mode:
    """The mode for ``message``: the cheap model's one-word answer, or ``task`` when unclear."""
    request = ModelRequest(
        model=router_model,
        system=[{"type": "text", "text": ROUTER_PROMPT}],
        messages=[{"role": "user", "content": message[:2000]}],
        max_tokens=5,
    )
    try:
        answer = (await model.respond(request)).text
    except ModelError as exc:
        log.warning("router failed, using %s: %s", FALLBACK_MODE, exc)
        return modes[FALLBACK_MODE]
    word = answer.strip().split()[0].strip(".:,;!").lower() if answer.strip() else ""
    return modes.get(word, modes[FALLBACK_MODE])


def mode_named(name: str, modes: Mapping[str, Mode]) -> Mode:
    if name not in modes:
        raise UserInputError(f"unknown mode {name!r}: choose one of {', '.join(sorted(modes))}")
    return modes[name]
