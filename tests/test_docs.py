"""Every CLI command has help and is documented in the README; the public API is explicit."""

from __future__ import annotations

import re
from pathlib import Path

import typer.main

import shitsuji
import shitsuji.memory
import shitsuji.safety
from shitsuji.cli import app

README = (Path(__file__).parent.parent / "README.md").read_text(encoding="utf-8")


def _commands() -> list[tuple[str, str | None]]:
    root = typer.main.get_group(app)
    out: list[tuple[str, str | None]] = []
    for name, command in root.commands.items():
        group = getattr(command, "commands", None)
        if group:
            out += [(f"{name} {sub}", c.help) for sub, c in group.items()]
        else:
            out.append((name, command.help))
    return out


def test_every_command_has_help_and_a_readme_entry() -> None:
    commands = _commands()
    assert len(commands) >= 16
    for name, help_text in commands:
        assert help_text and help_text.strip(), f"{name} has no help"
        assert re.search(rf"`{re.escape(name)}[ `]", README), f"{name} is not in the README's CLI reference"


def test_readme_quickstart_names_the_make_targets() -> None:
    assert "make serve" in README and "make test" in README
    assert "make test" in (Path(__file__).parent.parent / ".ci" / "run").read_text()


def test_public_api_is_explicit() -> None:
    for module in (shitsuji, shitsuji.memory, shitsuji.safety):
        for name in module.__all__:
            assert hasattr(module, name), f"{module.__name__}.{name}"
